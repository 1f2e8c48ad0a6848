// compact.cu -- stream compaction (x[mask] and the indices of the true entries) in one pass.
//
// compact_lookback<T, BLOCK, ITEMS, INDICES>: the decoupled look-back scan (device/lookback.cuh)
// of the per-tile counts of selected elements, fused with the scatter. Each block takes the next
// tile id, loads ITEMS mask bytes per thread (one 16-byte load on full, aligned tiles) and, unless
// INDICES, the ITEMS values (each warp reads its 32 * ITEMS values with coalesced 16-byte loads
// and exchanges them through shared memory; 1- and 2-byte values need no exchange: a thread's
// ITEMS values are one or two 16-byte vectors of their own, and a warp's loads cover its
// 32 * ITEMS * sizeof(T) consecutive bytes), counts its selected items, scans the counts across
// the block, publishes the tile's count and looks back for the number selected before the tile.
// The selected values (or their indices, as long long) are first packed in shared memory at their
// rank within the tile, then the block copies that run to its final place with consecutive
// threads writing consecutive elements (coalesced, whatever the selection). Output order is the
// input order. The block that draws the last tile id writes the total to *count.
// Values are moved, never combined: T is the unsigned word of the element's size (unsigned char,
// unsigned short, unsigned int, unsigned long long, CompactWord16 below) or any type of that size
// (int, float, ...); the host passes bool, int8, float16, complex64, complex128... as those words.
// Launch: grid = number of tiles (BLOCK * ITEMS elements each), BLOCK threads. ITEMS = 16. Static
// shared memory: the larger of the exchange buffers ((BLOCK/32) * 32 * ITEMS values of 4 bytes or
// more) and the packed tile (BLOCK * ITEMS outputs), plus BLOCK/32 + 2 words: at most 48 KiB, so
// 16-byte values take a block of at most 128 threads (the policy table's choice). Preconditions:
// tile_counter == 0 on entry (left 0); tile_state needs no clearing (epochs); outputs have room for
// n elements; the mask holds 0 or 1 per byte (numpy/cupy bool).
#include "util/prim.cuh"
#include "util/load.cuh"
#include "block/scan.cuh"
#include "device/lookback.cuh"

namespace prim {

// A 16-byte element (complex128) as compaction moves it: one 16-byte vector.
struct alignas(16) CompactWord16 { unsigned long long lo, hi; };
template <> struct Vec16<CompactWord16> {
    typedef uint4 type;
    static constexpr int N = 1;
};

}  // namespace prim

template <class T, int BLOCK, int ITEMS, bool INDICES>
__global__ void __launch_bounds__(BLOCK)
    compact_lookback(const T* __restrict__ in, const unsigned char* __restrict__ mask, long long n,
                     T* __restrict__ out, long long* __restrict__ out_index,
                     long long* __restrict__ count, unsigned int* __restrict__ tile_counter,
                     unsigned char* tile_state, unsigned int epoch) {
    static_assert(ITEMS == 16, "compact_lookback: one 16-byte mask load per thread");
    typedef typename prim::Select<INDICES, long long, T>::type OutT;
    constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
    constexpr int WARPS = BLOCK / prim::WARP;
    constexpr bool NARROW = sizeof(T) < 4;  // 1- and 2-byte values: loaded without exchange
    constexpr int XBYTES = INDICES || NARROW ? 0 : WARPS * prim::WARP * ITEMS * sizeof(T);
    constexpr int PBYTES = BLOCK * ITEMS * sizeof(OutT);
    const prim::Sum<int> count_op;
    const prim::Sum<long long> op;
    __shared__ int scratch[WARPS];
    __shared__ long long tile_prefix;
    __shared__ unsigned int tile_id;
    // the exchange buffers while loading, the packed tile while writing
    __shared__ __align__(16) unsigned char buffer[XBYTES > PBYTES ? XBYTES : PBYTES];

    const long long tile = prim::next_tile(tile_counter, &tile_id);
    const int warp = threadIdx.x / prim::WARP;
    const long long warp_first = tile * TILE + static_cast<long long>(warp) * prim::WARP * ITEMS;
    const long long first = warp_first + static_cast<long long>(threadIdx.x % prim::WARP) * ITEMS;
    const long long avail = n - first;
    const bool full = (tile + 1) * TILE <= n;
    const bool aligned =
        ((reinterpret_cast<prim::uptr>(mask) | (INDICES ? 0 : reinterpret_cast<prim::uptr>(in))) &
         15u) == 0;

    unsigned char sel[ITEMS];
    if (full && aligned) {
        const uint4 m = __ldg(reinterpret_cast<const uint4*>(mask + first));
        const unsigned char* b = reinterpret_cast<const unsigned char*>(&m);
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) sel[k] = b[k];
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) sel[k] = k < avail ? mask[first + k] : 0;
    }
    T vals[ITEMS];  // unused (and removed by the compiler) when INDICES
    if (!INDICES) {
        if (full && aligned) {
            if constexpr (NARROW) {
                // the thread's ITEMS * sizeof(T) bytes (16 or 32) start at a 16-byte boundary
                constexpr int PER = 16 / static_cast<int>(sizeof(T));
                static_assert(ITEMS % PER == 0, "compact_lookback: whole 16-byte vectors");
#pragma unroll
                for (int u = 0; u < ITEMS / PER; ++u) {
                    const uint4 w = __ldg(reinterpret_cast<const uint4*>(in + first) + u);
                    const T* e = reinterpret_cast<const T*>(&w);
#pragma unroll
                    for (int k = 0; k < PER; ++k) vals[u * PER + k] = e[k];
                }
            } else {
                T* exchange = reinterpret_cast<T*>(buffer) + warp * prim::WARP * ITEMS;
                prim::load_striped_to_blocked16<T, T, ITEMS>(in + warp_first, exchange, vals);
            }
        } else {
#pragma unroll
            for (int k = 0; k < ITEMS; ++k)
                if (k < avail && sel[k]) vals[k] = in[first + k];
        }
    }
    int selected = 0;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) selected += sel[k] != 0;

    // the block scan's barriers also end every warp's use of the exchange buffers
    int tile_count;
    int rank = prim::block_exclusive_scan<BLOCK>(selected, count_op, scratch, tile_count);
    const prim::TileStatus<long long> ts(tile_state, epoch);
    if (threadIdx.x < prim::WARP) {
        prim::tile_lookback(ts, tile, static_cast<long long>(tile_count), op, &tile_prefix);
        if (threadIdx.x == 0 && tile == gridDim.x - 1) *count = tile_prefix + tile_count;
    }
    OutT* packed = reinterpret_cast<OutT*>(buffer);
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        if (sel[k]) {
            if constexpr (INDICES)
                packed[rank] = static_cast<OutT>(first + k);
            else
                packed[rank] = vals[k];
            ++rank;
        }
    }
    __syncthreads();
    OutT* dst = INDICES ? reinterpret_cast<OutT*>(out_index) : reinterpret_cast<OutT*>(out);
    dst += tile_prefix;
    for (int j = threadIdx.x; j < tile_count; j += BLOCK) dst[j] = packed[j];
}

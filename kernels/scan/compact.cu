// compact.cu -- stream compaction (x[mask] and the indices of the true entries) in one pass.
//
// compact_lookback<T, BLOCK, ITEMS, INDICES>: the decoupled look-back scan (common/scan.cuh) of
// the per-tile counts of selected elements, fused with the scatter. Each block takes the next tile
// id, loads ITEMS mask bytes per thread (one 16-byte load on full, aligned tiles) and, unless
// INDICES, the ITEMS values (16-byte loads), counts its selected items, scans the counts across
// the block, publishes the tile's count, looks back for the number selected before the tile, and
// writes each selected value (or its index, as long long) to its final place. Output order is the
// input order. The block that draws the last tile id writes the total to *count.
// Launch: grid = number of tiles (BLOCK * ITEMS elements each), BLOCK threads. ITEMS = 16.
// Static shared memory: BLOCK/32 + 1 long longs. Preconditions: tile_counter == 0 on entry (left
// 0); tile_state needs no clearing (epochs); outputs have room for n elements; the mask holds 0
// or 1 per byte (numpy/cupy bool).
#include "common/prim.cuh"
#include "common/load.cuh"
#include "common/scan.cuh"

template <class T, int BLOCK, int ITEMS, bool INDICES>
__global__ void __launch_bounds__(BLOCK)
compact_lookback(const T* __restrict__ in, const unsigned char* __restrict__ mask, long long n,
                 T* __restrict__ out, long long* __restrict__ out_index,
                 long long* __restrict__ count, unsigned int* __restrict__ tile_counter,
                 unsigned char* tile_state, unsigned int epoch) {
    static_assert(ITEMS == 16, "compact_lookback: one 16-byte mask load per thread");
    typedef prim::Vec16<T> V;
    constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
    const prim::Sum<long long> op;
    __shared__ long long scratch[BLOCK / prim::WARP];
    __shared__ long long tile_prefix;
    __shared__ unsigned int tile_id;

    const long long tile = prim::next_tile(tile_counter, &tile_id);
    const long long first = tile * TILE + static_cast<long long>(threadIdx.x) * ITEMS;
    const long long avail = n - first;
    const bool full = (tile + 1) * TILE <= n;
    const bool aligned = ((reinterpret_cast<prim::uptr>(mask) |
                           (INDICES ? 0 : reinterpret_cast<prim::uptr>(in))) & 15u) == 0;

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
#pragma unroll
            for (int u = 0; u < ITEMS / V::N; ++u) {
                const prim::Packet<T> p = prim::load16(in + first + u * V::N);
#pragma unroll
                for (int k = 0; k < V::N; ++k) vals[u * V::N + k] = p.v[k];
            }
        } else {
#pragma unroll
            for (int k = 0; k < ITEMS; ++k)
                if (k < avail && sel[k]) vals[k] = in[first + k];
        }
    }
    long long selected = 0;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) selected += sel[k] != 0;

    long long aggregate;
    const long long before = prim::block_exclusive_scan<BLOCK>(selected, op, scratch, aggregate);
    const prim::TileStatus<long long> ts(tile_state, epoch);
    if (threadIdx.x < prim::WARP) {
        prim::tile_lookback(ts, tile, aggregate, op, &tile_prefix);
        if (threadIdx.x == 0 && tile == gridDim.x - 1) *count = tile_prefix + aggregate;
    }
    __syncthreads();
    long long pos = tile_prefix + before;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        if (sel[k]) {
            if (INDICES) out_index[pos] = first + k;
            else out[pos] = vals[k];
            ++pos;
        }
    }
}

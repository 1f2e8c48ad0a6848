// scan.cu -- device-wide prefix scans (inclusive or exclusive) with Sum/Prod/Min/Max.
//
// All kernels are templated on <InT, AccT, Op, ...>: elements convert to AccT on load. Sizes are
// 64-bit. EXCLUSIVE selects out[i] = x[0] op ... op x[i-1] (identity at 0) over the inclusive form.
// Element types: the 4- and 8-byte integers and floats, prim::c64/c128 (Sum and Prod only), and,
// for scan_lookback, the narrow inputs of util/narrow.cuh read in place (see there) and bool as
// prim::Flag (util/flag.cuh: any nonzero byte 1, as NumPy reads it; a bool result stored as 0 or
// 1). The classic scans take narrow inputs converted to the accumulator's type by the host first.
//
// Multi-block scheme of the two classic block scans (hillis_steele, blelloch): each block scans
// one tile and writes the tile's total to block_sums[blockIdx.x]; the host scans block_sums
// (exclusively, recursively with the same variant) and scan_add_prefix folds each tile's prefix
// into its outputs. Three passes over the data.
//   scan_hillis_steele: tile = blockDim.x elements, one per thread; the step-efficient
//     O(n log n)-work scan: at step d every thread adds the value 2^d to its left, reading from
//     one half of a double buffer and writing the other (2 * blockDim.x * sizeof(AccT) dynamic
//     shared memory), one barrier per step. blockDim.x a power of two <= 1024.
//   scan_blelloch: tile = 2 * blockDim.x elements, two per thread; the work-efficient O(n) scan:
//     an up-sweep builds partial sums in a balanced tree in place, the root is cleared, a
//     down-sweep pushes prefixes back down. Shared indices are padded by one word per 32 (index
//     + index / 32) so the tree's strided accesses spread over the banks; dynamic shared memory
//     (2 * blockDim.x + 2 * blockDim.x / 32) * sizeof(AccT). blockDim.x a power of two <= 1024.
//   scan_add_prefix: out[i] = prefix[i / tile] op out[i], grid-stride, any 1-D launch.
// scan_lookback: the single-pass scan (Merrill & Garland, "Single-pass Parallel Prefix Scan with
//   Decoupled Look-back"): one read and one write of the data. Each block takes the next tile
//   id from an atomic counter (tiles are processed in the order blocks start, so a tile's
//   predecessors are always running or done), loads BLOCK * ITEMS elements (ITEMS consecutive per
//   thread; on full tiles each warp reads its 32 * ITEMS elements with coalesced 16-byte loads and
//   exchanges them through shared memory with 16-byte accesses, util/load.cuh), reduces them,
//   scans the per-thread totals across the block with shuffles (block/scan.cuh), publishes its
//   aggregate, lets warp 0 look back over the predecessors' published aggregates/prefixes
//   (device/lookback.cuh), publishes its inclusive prefix, and writes its outputs (the same
//   exchange in reverse, coalesced 16-byte stores). Grid = number of tiles; tile_counter must be
//   0 on entry and is left 0 (the block drawing the last tile id resets it); tile_state
//   (TileStatus<AccT>::bytes(tiles) bytes) is zeroed once and needs no clearing between launches
//   (epochs, see device/lookback.cuh). With seeded != 0 the scan continues from *seed (one AccT in
//   device memory, read by tile 0 alone): out[i] = seed op x[0] op ... (exclusive: out[0] = seed),
//   as a chunk of a longer array scanned after the chunks before it; seeded == 0 leaves seed
//   unread.
//   Static shared memory: BLOCK/32 + 1 accumulators and the exchange buffers, (BLOCK/32) * 32 *
//   ITEMS elements of the wider of InT/AccT. Preconditions: in/out aligned to their element size.
//   OutT (last, default AccT) is the result's type: AccT, or a narrower one the outputs are
//   converted to on store (min/max of int8 accumulate in int and store signed char; float16 and
//   bfloat16 accumulate in float and store prim::f16 / prim::bf16, rounded to nearest even). Narrow
//   inputs (1 and 2 bytes) are read in place with the same 16-byte loads (16 chars or 8 shorts per
//   vector); ITEMS
//   is a multiple of every type's elements per 16-byte vector (the host rounds it down). Complex
//   values (c64: packed with the status in 16 bytes; c128: value-fence-status) publish through
//   device/lookback.cuh's TileStatus unchanged. Zipped arrays (InT = OutT = prim::Zip<T...>, AccT
//   the prim::Tuple<T...> of a user operator, util/zip.cuh): `in` and `out` are the structures of
//   the arrays' pointers, each field's array moved by the exchanges of its own type; aligned when
//   every array is. PREFETCH > 0 (last template parameter, default 0): a block first asks the L2
//   cache for the input of the tile drawn PREFETCH ids after its own (util/load.cuh: prefetch_in,
//   every zipped array), so that its loads wait for the L2 rather than DRAM.
#include "util/prim.cuh"
#include "util/load.cuh"
#include "util/narrow.cuh"
#include "util/flag.cuh"
#include "util/zip.cuh"
#include "block/scan.cuh"
#include "device/lookback.cuh"

// ---- Hillis-Steele: step-efficient block scan, double-buffered -------------------------------
template <class InT, class AccT, class Op, bool EXCLUSIVE>
__global__ void scan_hillis_steele(const InT* __restrict__ in, AccT* __restrict__ out, long long n,
                                   AccT* __restrict__ block_sums) {
    PRIM_DYNAMIC_SHARED(AccT, buf);
    const Op op;
    const unsigned tid = threadIdx.x, B = blockDim.x;
    const long long i = static_cast<long long>(blockIdx.x) * B + tid;
    unsigned cur = 0;  // the half holding the latest values
    buf[tid] = i < n ? static_cast<AccT>(in[i]) : Op::identity();
    __syncthreads();
    for (unsigned offset = 1; offset < B; offset <<= 1) {
        const AccT* src = buf + cur * B;
        AccT v = src[tid];
        if (tid >= offset) v = op(src[tid - offset], v);
        cur ^= 1u;
        buf[cur * B + tid] = v;
        __syncthreads();
    }
    const AccT* res = buf + cur * B;
    if (i < n) out[i] = EXCLUSIVE ? (tid == 0 ? Op::identity() : res[tid - 1]) : res[tid];
    if (tid == B - 1) block_sums[blockIdx.x] = res[tid];
}

// ---- Blelloch: work-efficient up-sweep / down-sweep, bank-conflict padding ------------------
__device__ __forceinline__ unsigned padded(unsigned i) { return i + (i >> 5); }

template <class InT, class AccT, class Op, bool EXCLUSIVE>
__global__ void scan_blelloch(const InT* __restrict__ in, AccT* __restrict__ out, long long n,
                              AccT* __restrict__ block_sums) {
    PRIM_DYNAMIC_SHARED(AccT, s);
    const Op op;
    const unsigned tid = threadIdx.x, B = blockDim.x, TILE = 2 * blockDim.x;
    const long long base = static_cast<long long>(blockIdx.x) * TILE;
    // thread tid owns elements tid and tid + B of the tile (coalesced loads)
    const long long ia = base + tid, ib = base + tid + B;
    const AccT xa = ia < n ? static_cast<AccT>(in[ia]) : Op::identity();
    const AccT xb = ib < n ? static_cast<AccT>(in[ib]) : Op::identity();
    s[padded(tid)] = xa;
    s[padded(tid + B)] = xb;

    unsigned offset = 1;
    for (unsigned d = B; d > 0; d >>= 1) {  // up-sweep: s[last] ends as the tile total
        __syncthreads();
        if (tid < d) {
            const unsigned ai = padded(offset * (2 * tid + 1) - 1);
            const unsigned bi = padded(offset * (2 * tid + 2) - 1);
            s[bi] = op(s[ai], s[bi]);
        }
        offset <<= 1;
    }
    __syncthreads();
    if (tid == 0) {
        block_sums[blockIdx.x] = s[padded(TILE - 1)];
        s[padded(TILE - 1)] = Op::identity();
    }
    for (unsigned d = 1; d < TILE; d <<= 1) {  // down-sweep: exclusive prefixes
        offset >>= 1;
        __syncthreads();
        if (tid < d) {
            const unsigned ai = padded(offset * (2 * tid + 1) - 1);
            const unsigned bi = padded(offset * (2 * tid + 2) - 1);
            const AccT left = s[ai];
            s[ai] = s[bi];
            s[bi] = op(s[bi], left);
        }
    }
    __syncthreads();
    const AccT ea = s[padded(tid)], eb = s[padded(tid + B)];
    if (ia < n) out[ia] = EXCLUSIVE ? ea : op(ea, xa);
    if (ib < n) out[ib] = EXCLUSIVE ? eb : op(eb, xb);
}

// ---- add the scanned tile prefixes back -------------------------------------------------------
template <class AccT, class Op>
__global__ void scan_add_prefix(AccT* __restrict__ out, long long n,
                                const AccT* __restrict__ prefix, long long tile) {
    const Op op;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x + tile; i < n;
         i += stride)
        out[i] = op(prefix[i / tile], out[i]);
}

// ---- single-pass decoupled look-back ----------------------------------------------------------
template <class InT, class AccT, class Op, int BLOCK, int ITEMS, bool EXCLUSIVE, class OutT = AccT,
          int PREFETCH = 0>
__global__ void __launch_bounds__(BLOCK)
    scan_lookback(typename prim::In<InT>::type in, typename prim::Out<OutT>::type out, long long n,
                  const AccT* __restrict__ seed, int seeded,
                  unsigned int* __restrict__ tile_counter, unsigned char* tile_state,
                  unsigned int epoch) {
    static_assert(ITEMS % prim::Vec16<InT>::N == 0 && ITEMS % prim::Vec16<AccT>::N == 0 &&
                      ITEMS % prim::Vec16<OutT>::N == 0,
                  "scan_lookback: ITEMS must fill whole 16-byte vectors");
    constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
    constexpr int WARPS = BLOCK / prim::WARP;
    constexpr int XBYTES = (sizeof(InT) > sizeof(AccT) ? sizeof(InT) : sizeof(AccT)) * prim::WARP *
        ITEMS;  // OutT is never wider than AccT
    const Op op;
    __shared__ AccT scratch[WARPS];
    __shared__ AccT tile_prefix;
    __shared__ unsigned int tile_id;
    __shared__ __align__(16) unsigned char exchange[WARPS][XBYTES];

    const long long tile = prim::next_tile(tile_counter, &tile_id);
    if constexpr (PREFETCH > 0)  // the tile drawn PREFETCH ids later, into the L2 cache
        prim::prefetch_in<BLOCK>((tile + PREFETCH) * TILE, TILE, n, in);
    const int warp = threadIdx.x / prim::WARP;
    const long long warp_first = tile * TILE + static_cast<long long>(warp) * prim::WARP * ITEMS;
    const long long first = warp_first + static_cast<long long>(threadIdx.x % prim::WARP) * ITEMS;
    const long long avail = n - first;  // may be <= 0 in the last tile
    const bool full = (tile + 1) * TILE <= n;
    const bool aligned = ((prim::addr_bits(in) | prim::addr_bits(out)) & 15u) == 0;
    const bool vector = full && aligned;  // block-uniform

    AccT items[ITEMS];
    if (vector)
        prim::load_striped_to_blocked16<InT, AccT, ITEMS>(
            in + warp_first, reinterpret_cast<InT*>(exchange[warp]), items);
    else
        prim::load_items<InT, AccT, Op, ITEMS>(in + first, avail, false, items);
    AccT thread_total = items[0];
#pragma unroll
    for (int k = 1; k < ITEMS; ++k) thread_total = op(thread_total, items[k]);

    AccT aggregate;
    AccT prefix = prim::block_exclusive_scan<BLOCK>(thread_total, op, scratch, aggregate);

    const prim::TileStatus<AccT> ts(tile_state, epoch);
    if (threadIdx.x < prim::WARP)
        prim::tile_lookback(ts, tile, aggregate, op, &tile_prefix, seeded ? seed : nullptr);
    __syncthreads();
    AccT running = op(tile_prefix, prefix);
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const AccT x = items[k];
        if (EXCLUSIVE) {
            items[k] = running;
            running = op(running, x);
        } else {
            running = op(running, x);
            items[k] = running;
        }
    }
    OutT res[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) res[k] = static_cast<OutT>(items[k]);
    if (vector)
        prim::store_blocked_to_striped16<OutT, ITEMS>(out + warp_first,
                                                      reinterpret_cast<OutT*>(exchange[warp]), res);
    else
        prim::store_items<OutT, ITEMS>(out + first, avail, false, res);
}

// segmented.cu -- segmented scans and segmented reductions in one pass, load-balanced over
// elements (never a block per segment, so many tiny segments and a few huge ones cost the same).
//
// segmented_lookback<InT, AccT, Op, BLOCK, ITEMS, MODE, OFFSETS>: the decoupled look-back scan of
// common/scan.cuh run on (value, head) pairs under Segmented<Op>. Each block takes the next tile
// id and loads ITEMS consecutive elements per thread (16-byte loads on full, aligned tiles).
// Segments come from head flags (OFFSETS = false: flags[i] != 0 starts a segment; element 0
// always does) or from CSR-style offsets (OFFSETS = true: segment s is [offsets[s],
// offsets[s+1]); each thread finds the segment of its first element by binary search over the
// offsets, then walks forward, which also skips empty segments; elements outside
// [offsets[0], offsets[nseg]) belong to no segment).
//   MODE 0: inclusive scan, out[i] = op over the segment's elements up to i;
//   MODE 1: exclusive scan, the identity at each segment's first element;
//   MODE 2: reduction, out[s] = op over segment s, written by the thread holding the segment's
//           last element (empty segments are left untouched: the host fills out with the
//           identity first). Offsets only.
// Launch: grid = number of tiles (BLOCK * ITEMS elements each), BLOCK threads; tile_counter == 0
// on entry (left 0); status words need no clearing (epochs); tile_aggregate / tile_inclusive hold
// one Flagged<AccT> per tile. Static shared memory: BLOCK/32 + 1 pairs. Offsets: monotone,
// nseg + 1 values (validated by the host).
#include "common/prim.cuh"
#include "common/load.cuh"
#include "common/scan.cuh"

namespace prim {

// Largest s in [-1, nseg] with offsets[s] <= i (offsets[-1] taken as -infinity).
__device__ __forceinline__ long long segment_of(const long long* offsets, long long nseg,
                                                long long i) {
    long long lo = 0, hi = nseg + 1;  // first index whose offset exceeds i
    while (lo < hi) {
        const long long mid = (lo + hi) >> 1;
        if (__ldg(offsets + mid) <= i) lo = mid + 1;
        else hi = mid;
    }
    return lo - 1;
}

// Advances seg to the segment holding element i (skipping empty segments); false when i lies in
// no segment.
__device__ __forceinline__ bool walk_to(const long long* offsets, long long nseg, long long i,
                                        long long& seg) {
    while (seg < nseg && i >= __ldg(offsets + seg + 1)) ++seg;
    return seg >= 0 && seg < nseg;
}

}  // namespace prim

template <class InT, class AccT, class Op, int BLOCK, int ITEMS, int MODE, bool OFFSETS>
__global__ void __launch_bounds__(BLOCK)
segmented_lookback(const InT* __restrict__ in, long long n, const unsigned char* __restrict__ flags,
                   const long long* __restrict__ offsets, long long nseg, AccT* __restrict__ out,
                   unsigned int* __restrict__ tile_counter, unsigned int* tile_status,
                   prim::Flagged<AccT>* tile_aggregate, prim::Flagged<AccT>* tile_inclusive,
                   unsigned int epoch) {
    static_assert(MODE != 2 || OFFSETS, "segmented reductions take offsets");
    static_assert(ITEMS % prim::Vec16<InT>::N == 0, "ITEMS must fill whole 16-byte vectors");
    typedef prim::Segmented<Op> SOp;
    typedef prim::Flagged<AccT> P;
    constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
    const SOp sop;
    __shared__ P scratch[BLOCK / prim::WARP];
    __shared__ P tile_prefix;
    __shared__ unsigned int tile_id;

    if (threadIdx.x == 0) {
        const unsigned t = atomicAdd(tile_counter, 1u);
        if (t == gridDim.x - 1) *tile_counter = 0u;
        tile_id = t;
    }
    __syncthreads();
    const long long tile = tile_id;
    const long long first = tile * TILE + static_cast<long long>(threadIdx.x) * ITEMS;
    const long long avail = n - first;
    const bool full = (tile + 1) * TILE <= n;
    const bool aligned = (reinterpret_cast<prim::uptr>(in) & 15u) == 0;

    AccT v[ITEMS];
    prim::load_items<InT, AccT, Op, ITEMS>(in + first, avail, full && aligned, v);
    bool head[ITEMS];
    long long seg_start = 0;
    if (OFFSETS) {
        seg_start = prim::segment_of(offsets, nseg, first);
        long long seg = seg_start;
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const long long i = first + k;
            const bool inside = i < n && prim::walk_to(offsets, nseg, i, seg);
            head[k] = inside && i == __ldg(offsets + seg);
            if (!inside) v[k] = Op::identity();
        }
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const long long i = first + k;
            head[k] = i == 0 || (k < avail && flags[i] != 0);
        }
    }

    P thread_total = SOp::identity();
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) thread_total = sop(thread_total, P{v[k], head[k] ? 1 : 0});
    P aggregate;
    const P before = prim::block_exclusive_scan<BLOCK>(thread_total, sop, scratch, aggregate);

    const prim::TileStatus<P> ts{tile_status, tile_aggregate, tile_inclusive, epoch};
    if (threadIdx.x < prim::WARP) {
        if (tile == 0) {
            if (threadIdx.x == 0) {
                ts.publish(0, prim::TILE_INCLUSIVE, aggregate);
                tile_prefix = SOp::identity();
            }
        } else {
            if (threadIdx.x == 0) ts.publish(tile, prim::TILE_AGGREGATE, aggregate);
            const P p = prim::lookback_prefix(ts, tile, sop);
            if (threadIdx.x == 0) {
                ts.publish(tile, prim::TILE_INCLUSIVE, sop(p, aggregate));
                tile_prefix = p;
            }
        }
    }
    __syncthreads();

    P running = sop(tile_prefix, before);
    if (MODE == 2) {
        long long seg = seg_start;
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            running = sop(running, P{v[k], head[k] ? 1 : 0});
            const long long i = first + k;
            if (i < n && prim::walk_to(offsets, nseg, i, seg) && i == __ldg(offsets + seg + 1) - 1)
                out[seg] = running.value;
        }
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const P x{v[k], head[k] ? 1 : 0};
            if (MODE == 1) {
                v[k] = head[k] ? Op::identity() : running.value;
                running = sop(running, x);
            } else {
                running = sop(running, x);
                v[k] = running.value;
            }
        }
        prim::store_items<AccT, ITEMS>(out + first, avail,
                                       full && (reinterpret_cast<prim::uptr>(out) & 15u) == 0, v);
    }
}

// by_key.cuh -- the block-wide segmented scan of the SpMV reductions by key (spmv_merge_path in
// csr.cu, the tiles of coo.cu), on the generic segmented operator of util/segmented.cuh.
//
// RowSum<T> = Segmented<Sum<T>, HeadFirst>, its pairs RowPair<T> = Flagged<T, HeadFirst>: a
//   (head, value) pair whose value, once scanned, is the sum since the last head (a row start,
//   or for merge_path a row end) at or before it. Head first: the layout, shared-memory offsets
//   and shuffles (head, then value; three 32-bit shuffles for a double) of the kernels' pairs.
// block_scan_by_key<BLOCK>(p, op, warp_totals, aggregate): exclusive scan over the block in
//   thread order: warp_inclusive_scan (warp/scan.cuh) in every warp, the exclusive value by
//   one shuffle of each field, the warp totals parked in `warp_totals` (BLOCK/32 pairs of shared
//   memory supplied by the caller), ONE __syncthreads, then every thread folds the warp totals
//   itself in warp order (the same fixed order for every thread: deterministic);
//   block/scan.cuh's block_exclusive_scan has warp 0 scan the totals between two barriers
//   instead. Thread 0 gets the identity; `aggregate` receives the whole block's pair in every
//   thread. Preconditions: called by all BLOCK threads (it contains __syncthreads), BLOCK a
//   multiple of 32 and at most 1024; a caller that reuses `warp_totals` must __syncthreads() in
//   between.
//
// The additions happen in an order fixed by the block size alone, never by timing, so results
// are bit-for-bit repeatable. No atomics.
#pragma once
#include "util/prim.cuh"
#include "util/segmented.cuh"
#include "warp/shfl.cuh"
#include "warp/scan.cuh"

namespace prim {

template <class T> using RowPair = Flagged<T, HeadFirst>;
template <class T> using RowSum = Segmented<Sum<T>, HeadFirst>;

template <int BLOCK, class P, class Op>
__device__ __forceinline__ P block_scan_by_key(P v, Op op, P* warp_totals, P& aggregate) {
    static_assert(BLOCK % WARP == 0 && BLOCK <= 1024,
                  "block_scan_by_key: BLOCK must be 32k <= 1024");
    constexpr int WARPS = BLOCK / WARP;
    const int lane = threadIdx.x % WARP;
    const int warp = threadIdx.x / WARP;
    const P inclusive = warp_inclusive_scan(v, op);
    // exclusive within the warp: the inclusive pair of the lane to the left, shuffled field by
    // field (the shuffles of the pair's shfl_up; through a pair returned by shfl_up, NVVM orders
    // the float64 kernels' instructions differently)
    P exclusive;
    exclusive.head = shfl_up(inclusive.head, 1);
    exclusive.value = shfl_up(inclusive.value, 1);
    if (lane == 0) exclusive = Op::identity();
    if (lane == WARP - 1) warp_totals[warp] = inclusive;
    __syncthreads();
    P running = Op::identity();
    P before = running;
#pragma unroll
    for (int w = 0; w < WARPS; ++w) {
        if (w == warp) before = running;
        running = op(running, warp_totals[w]);
    }
    aggregate = running;
    return warp == 0 ? exclusive : op(before, exclusive);
}

}  // namespace prim

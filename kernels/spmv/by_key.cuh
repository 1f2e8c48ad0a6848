// by_key.cuh -- the block-wide scan of the SpMV reductions by key (spmv_merge_path in csr.cu,
// the tiles of coo.cu): an exclusive scan of (value, head) pairs under the generic segmented
// operator prim::Segmented<prim::Sum<T>> of common/scan.cuh, whose value is the sum since the
// last head (row start) at or before an item.
//
// block_exclusive_scan_folded<BLOCK>(v, op, warp_totals, aggregate): warp_inclusive_scan
//   (common/scan.cuh) per warp, the exclusive value by one shfl_up, the warp totals parked in
//   `warp_totals` (BLOCK/32 WarpTotal<T> of shared memory supplied by the caller: head, then
//   value, so the kernels keep the shared layout and code of their pairs before Flagged), ONE
//   __syncthreads,
//   then every thread folds the warp totals itself in warp order (the same fixed order for every
//   thread: deterministic). scan.cuh's block_exclusive_scan has warp 0 scan the totals between
//   two barriers instead; with BLOCK/32 = 8 totals the fold costs less than the second barrier.
//   Thread 0 gets the identity; `aggregate` receives the whole block's pair in every thread.
//   Preconditions: called by all BLOCK threads (it contains __syncthreads), BLOCK a multiple of
//   32 and at most 1024; a caller that reuses `warp_totals` must __syncthreads() in between.
//
// shfl_up(Flagged<T>, delta): the pair's two fields shuffled one by one (a double value and its
//   int head: three 32-bit shuffles), where warp.cuh's generic shfl_up moves the whole 16-byte
//   struct, padding word included (four). It overloads warp.cuh's template (more specialized, and
//   found by argument-dependent lookup when warp_inclusive_scan is instantiated below), so the
//   scans of this header shuffle exactly what segscan.cuh's pair did.
//
// The additions happen in an order fixed by the block size alone, never by timing, so results
// are bit-for-bit repeatable. No atomics.
#pragma once
#include "common/prim.cuh"
#include "common/scan.cuh"
#include "common/warp.cuh"

namespace prim {

template <class T>
__device__ __forceinline__ Flagged<T> shfl_up(Flagged<T> v, int delta) {
    Flagged<T> r;
    r.head = __shfl_up_sync(FULL_MASK, v.head, delta);
    r.value = shfl_up(v.value, delta);
    return r;
}

// A warp total in shared memory: head, then value, the layout of the pairs these kernels used
// before Flagged (H200, merge_path float64 powerlaw: Flagged's value-first layout 2.5% slower).
template <class T>
struct WarpTotal {
    int head;
    T value;
};

template <int BLOCK, class T, class Op>
__device__ __forceinline__ Flagged<T> block_exclusive_scan_folded(Flagged<T> v, Op op,
                                                                  WarpTotal<T>* warp_totals,
                                                                  Flagged<T>& aggregate) {
    typedef Flagged<T> P;
    static_assert(BLOCK % WARP == 0 && BLOCK <= 1024,
                  "block_exclusive_scan_folded: BLOCK must be 32k <= 1024");
    constexpr int WARPS = BLOCK / WARP;
    const int lane = threadIdx.x % WARP;
    const int warp = threadIdx.x / WARP;
    const P inclusive = warp_inclusive_scan(v, op);
    // exclusive within the warp: the inclusive value of the lane to the left
    P exclusive = shfl_up(inclusive, 1);
    if (lane == 0) exclusive = Op::identity();
    if (lane == WARP - 1) {
        warp_totals[warp].head = inclusive.head;
        warp_totals[warp].value = inclusive.value;
    }
    __syncthreads();
    P running = Op::identity();
    P before = running;
#pragma unroll
    for (int w = 0; w < WARPS; ++w) {
        if (w == warp) before = running;
        P total;
        total.value = warp_totals[w].value;
        total.head = warp_totals[w].head;
        running = op(running, total);
    }
    aggregate = running;
    return warp == 0 ? exclusive : op(before, exclusive);
}

}  // namespace prim

// segscan.cuh -- segmented scans: the warp- and block-wide building blocks of a reduction by key.
//
// A segmented sum over a sequence of (head, value) items restarts at every item whose head flag
// is set. It is an ordinary scan under the operator
//     (h1, v1) (+) (h2, v2) = (h1 | h2, h2 ? v2 : v1 + v2),
// which is associative with identity (0, 0) (Blelloch, "Prefix sums and their applications",
// sec. 1.5); the value of a scanned item is the sum since the last head at or before it.
//
// SegPair<T>        a (head, value) pair; seg_combine() is the operator above.
// warp_seg_scan_inclusive(p)
//                   Hillis-Steele inclusive scan of 32 lanes: log2(32) steps, each two
//                   __shfl_up_sync (head and value). Precondition: all 32 lanes call together.
// block_seg_scan_exclusive<BLOCK>(p, warp_totals, aggregate)
//                   exclusive scan over the block in thread order: warp scans, the warp totals
//                   parked in `warp_totals` (BLOCK/32 pairs of shared memory supplied by the
//                   caller), one __syncthreads, then every thread folds the warp totals in warp
//                   order (the same fixed order for every thread: deterministic). Thread 0
//                   gets the identity; `aggregate` receives the whole block's pair in every
//                   thread. Preconditions: called by all BLOCK threads (it contains
//                   __syncthreads), BLOCK a multiple of 32 and at most 1024; a caller that
//                   reuses `warp_totals` must __syncthreads() in between.
//
// The additions happen in an order fixed by the block size alone, never by timing, so results
// are bit-for-bit repeatable. No atomics.
#pragma once
#include "common/prim.cuh"

namespace prim {

template <class T> struct SegPair {
    int head;  // 1: a segment starts (or, for a span of items, started) here
    T value;   // sum since the last head
};

template <class T>
__device__ __forceinline__ SegPair<T> seg_identity() {
    SegPair<T> p;
    p.head = 0;
    p.value = T(0);
    return p;
}

template <class T>
__device__ __forceinline__ SegPair<T> seg_combine(SegPair<T> a, SegPair<T> b) {
    SegPair<T> r;
    r.head = a.head | b.head;
    r.value = b.head ? b.value : a.value + b.value;
    return r;
}

template <class T>
__device__ __forceinline__ SegPair<T> warp_seg_scan_inclusive(SegPair<T> p) {
    const int lane = threadIdx.x % WARP;
#pragma unroll
    for (int offset = 1; offset < WARP; offset <<= 1) {
        const int h = __shfl_up_sync(FULL_MASK, p.head, offset);
        const T v = __shfl_up_sync(FULL_MASK, p.value, offset);
        if (lane >= offset) {
            SegPair<T> left;
            left.head = h;
            left.value = v;
            p = seg_combine(left, p);
        }
    }
    return p;
}

template <int BLOCK, class T>
__device__ __forceinline__ SegPair<T> block_seg_scan_exclusive(SegPair<T> p,
                                                               SegPair<T>* warp_totals,
                                                               SegPair<T>& aggregate) {
    static_assert(BLOCK % WARP == 0 && BLOCK <= 1024,
                  "block_seg_scan_exclusive: BLOCK must be 32k <= 1024");
    constexpr int WARPS = BLOCK / WARP;
    const int lane = threadIdx.x % WARP;
    const int warp = threadIdx.x / WARP;
    const SegPair<T> incl = warp_seg_scan_inclusive(p);
    // exclusive within the warp: the inclusive value of the lane to the left
    SegPair<T> excl;
    excl.head = __shfl_up_sync(FULL_MASK, incl.head, 1);
    excl.value = __shfl_up_sync(FULL_MASK, incl.value, 1);
    if (lane == 0) excl = seg_identity<T>();
    if (lane == WARP - 1) warp_totals[warp] = incl;
    __syncthreads();
    SegPair<T> running = seg_identity<T>();
    SegPair<T> before = running;
#pragma unroll
    for (int w = 0; w < WARPS; ++w) {
        if (w == warp) before = running;
        running = seg_combine(running, warp_totals[w]);
    }
    aggregate = running;
    return warp == 0 ? excl : seg_combine(before, excl);
}

}  // namespace prim

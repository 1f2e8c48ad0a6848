// scan.cuh -- warp- and block-wide prefix scans built on register shuffles, and the generic
// segmented operator. The single-pass decoupled look-back protocol that the device-wide scans
// build on these is in common/lookback.cuh.
//
// warp_inclusive_scan: Kogge-Stone over the 32 lanes with __shfl_up_sync (5 steps).
// block_exclusive_scan<BLOCK>: each warp scans, warp totals go through `scratch` (BLOCK/32 values
//   of shared memory), warp 0 scans them; every thread gets the exclusive prefix of its value and
//   the block aggregate. Contains two __syncthreads: call with the whole block; a caller reusing
//   `scratch` must __syncthreads() in between.
// Segmented<Op>: any of prim's operators lifted to (value, head) pairs (Flagged<T>): one
//   operator for every segmented scan.
#pragma once
#include "common/prim.cuh"
#include "common/warp.cuh"

namespace prim {

template <class T, class Op>
__device__ __forceinline__ T warp_inclusive_scan(T v, Op op) {
    const int lane = threadIdx.x % WARP;
#pragma unroll
    for (int offset = 1; offset < WARP; offset <<= 1) {
        const T up = shfl_up(v, offset);
        if (lane >= offset) v = op(up, v);
    }
    return v;
}

template <int BLOCK, class T, class Op>
__device__ __forceinline__ T block_exclusive_scan(T v, Op op, T* scratch, T& aggregate) {
    static_assert(BLOCK % WARP == 0 && BLOCK <= 1024, "block scan: BLOCK must be 32k <= 1024");
    constexpr int WARPS = BLOCK / WARP;
    const int lane = threadIdx.x % WARP;
    const int warp = threadIdx.x / WARP;
    const T inclusive = warp_inclusive_scan(v, op);
    T exclusive = shfl_up(inclusive, 1);
    if (lane == 0) exclusive = Op::identity();
    if (lane == WARP - 1) scratch[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        const T total = lane < WARPS ? scratch[lane] : Op::identity();
        const T scanned = warp_inclusive_scan(total, op);
        if (lane < WARPS) scratch[lane] = scanned;  // inclusive prefix of warp totals
    }
    __syncthreads();
    aggregate = scratch[WARPS - 1];
    if (warp > 0) exclusive = op(scratch[warp - 1], exclusive);
    return exclusive;
}

// ---- segmented operators ----------------------------------------------------------------------
// A segmented scan is an ordinary scan of (value, head) pairs under
//     (a, ha) . (b, hb) = (hb ? b : a op b, ha | hb),
// which is associative with identity (op's identity, 0) whenever op is: the value of a scanned
// pair is the op-sum since the last head at or before it (Blelloch, "Prefix sums and their
// applications", 1990). Segmented<Op> lifts any of prim's operators; every scan helper above and
// the look-back of common/lookback.cuh work with it unchanged.
template <class T>
struct Flagged {
    T value;
    int head;  // 1: a segment starts in this span
};

template <class Op>
struct Segmented {
    typedef typename Op::value_type base_type;
    typedef Flagged<base_type> value_type;
    static __device__ __forceinline__ value_type identity() {
        value_type r;
        r.value = Op::identity();
        r.head = 0;
        return r;
    }
    __device__ __forceinline__ value_type operator()(value_type a, value_type b) const {
        value_type r;
        r.value = b.head ? b.value : Op()(a.value, b.value);
        r.head = a.head | b.head;
        return r;
    }
};

}  // namespace prim

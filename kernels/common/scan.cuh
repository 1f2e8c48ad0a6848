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
//   operator for every segmented scan. Segmented<Op, HeadFirst>: the same on (head, value) pairs
//   (Flagged<T, HeadFirst>, with their own shfl_up).
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
//
// The pair's field order is an optional second parameter of Flagged and Segmented: ValueFirst
// (the default) or HeadFirst (the head in the pair's first word). The two compute the same.
// HeadFirst pairs have their own shfl_up, which moves the two fields one by one (a double value
// and its head: three 32-bit shuffles, where warp.cuh's generic shfl_up moves the whole 16-byte
// struct, padding word included: four; found by argument-dependent lookup from the scans above)
// and takes the pair by reference (passed by value, the pair changed NVVM's code for the whole
// of the SpMV kernels that scan such pairs: sm_90 float32 merge_path 256x8 in 32 registers, not
// 40, and other instructions).
struct ValueFirst {};
struct HeadFirst {};

template <class T, class Layout = ValueFirst>
struct Flagged {
    T value;
    int head;  // 1: a segment starts in this span
};

template <class T>
struct Flagged<T, HeadFirst> {
    int head;  // 1: a segment starts in this span
    T value;
};

template <class T>
__device__ __forceinline__ Flagged<T, HeadFirst> shfl_up(const Flagged<T, HeadFirst>& v,
                                                         int delta) {
    Flagged<T, HeadFirst> r;
    r.head = shfl_up(v.head, delta);
    r.value = shfl_up(v.value, delta);
    return r;
}

template <class Op, class Layout = ValueFirst>
struct Segmented {
    typedef typename Op::value_type base_type;
    typedef Flagged<base_type, Layout> value_type;
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

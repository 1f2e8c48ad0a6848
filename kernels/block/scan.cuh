// scan.cuh -- the block-wide exclusive prefix scan built from warp scans (warp/scan.cuh). The
// single-pass decoupled look-back protocol that the device-wide scans build on it is in
// device/lookback.cuh.
//
// block_exclusive_scan<BLOCK>: each warp scans, warp totals go through `scratch` (BLOCK/32 values
//   of shared memory), warp 0 scans them; every thread gets the exclusive prefix of its value and
//   the block aggregate. Contains two __syncthreads: call with the whole block; a caller reusing
//   `scratch` must __syncthreads() in between. Op associative (Segmented<Op> of
//   util/segmented.cuh works unchanged).
#pragma once
#include "util/prim.cuh"
#include "warp/shfl.cuh"
#include "warp/scan.cuh"

namespace prim {

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

}  // namespace prim

// reduce.cuh -- the block-wide reduction built from warp reductions (warp/reduce.cuh).
//
// block_reduce<BLOCK>: each warp reduces with shuffles, warp leaders park their partial in
// `scratch` (BLOCK/32 values of shared memory supplied by the caller), one barrier, warp 0 reduces
// the partials. Result valid in thread 0 (and every lane of warp 0). Preconditions: called by all
// BLOCK threads (it contains __syncthreads), BLOCK a multiple of 32 and at most 1024; a caller that
// reuses `scratch` for a second call must __syncthreads() in between.
#pragma once
#include "util/prim.cuh"
#include "warp/reduce.cuh"

namespace prim {

template <int BLOCK, class T, class Op>
__device__ __forceinline__ T block_reduce(T v, Op op, T* scratch) {
    static_assert(BLOCK % WARP == 0 && BLOCK <= 1024, "block_reduce: BLOCK must be 32k <= 1024");
    constexpr int WARPS = BLOCK / WARP;
    const int lane = threadIdx.x % WARP;
    const int warp = threadIdx.x / WARP;
    v = warp_reduce(v, op);
    if (WARPS == 1) return v;
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < WARPS ? scratch[lane] : Op::identity();
        v = warp_reduce(v, op);
    }
    return v;
}

}  // namespace prim

// reduce.cuh -- warp-wide reductions built on register shuffles (warp/shfl.cuh).
//
// warp_reduce: a butterfly (xor shuffles, 5 steps); every lane ends with the reduction of the 32
//   lanes' values, combined in no fixed order (Op commutative: Sum, Min, Max).
// warp_reduce_high_to_low: the ordered reduction from lane 31 down to lane 0, for operators that
//   are associative but not commutative (Segmented<Op>); every lane gets the result.
// Precondition: all 32 lanes of the warp call together (converged), blockDim.x a multiple of 32
// or the missing lanes padded by the caller with the operator's identity.
#pragma once
#include "util/prim.cuh"
#include "warp/shfl.cuh"

namespace prim {

// Butterfly reduction: every lane ends with the reduction of all 32 lanes' values. The lanes
// combine in no fixed order: Op must be commutative (Sum, Min, Max).
template <class T, class Op>
__device__ __forceinline__ T warp_reduce(T v, Op op) {
#pragma unroll
    for (int offset = WARP / 2; offset > 0; offset >>= 1) v = op(v, shfl_xor(v, offset));
    return v;
}

// Ordered reduction from the highest lane down: every lane gets
// op(v[31], op(v[30], ... op(v[1], v[0]))), for operators that are associative but not
// commutative (e.g. Segmented<Op>, where lane 0 must come last).
template <class T, class Op>
__device__ __forceinline__ T warp_reduce_high_to_low(T v, Op op) {
    const int lane = threadIdx.x % WARP;
#pragma unroll
    for (int offset = 1; offset < WARP; offset <<= 1) {
        const T higher = shfl_down(v, offset);
        if ((lane & (2 * offset - 1)) == 0) v = op(higher, v);
    }
    return shfl_idx(v, 0);
}

}  // namespace prim

// warp.cuh -- warp-wide collectives built on register shuffles (Volta+ safe: every shuffle names
// its full mask, so no lane relies on implicit warp-synchronous execution).
// Precondition: all 32 lanes of the warp call together (converged), blockDim.x a multiple of 32
// or the missing lanes padded by the caller with the operator's identity.
#pragma once
#include "common/prim.cuh"

namespace prim {

// Butterfly reduction: every lane ends with the reduction of all 32 lanes' values.
template <class T, class Op>
__device__ __forceinline__ T warp_reduce(T v, Op op) {
#pragma unroll
    for (int offset = WARP / 2; offset > 0; offset >>= 1)
        v = op(v, __shfl_xor_sync(FULL_MASK, v, offset));
    return v;
}

}  // namespace prim

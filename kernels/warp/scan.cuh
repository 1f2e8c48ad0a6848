// scan.cuh -- the warp-wide inclusive prefix scan built on register shuffles (warp/shfl.cuh).
//
// warp_inclusive_scan: Kogge-Stone over the 32 lanes with shfl_up (5 steps); lane i gets
// op(v[0], ..., v[i]) in lane order (Op associative, not necessarily commutative: Segmented<Op>
// of util/segmented.cuh works unchanged). Precondition: all 32 lanes of the warp call together
// (converged).
#pragma once
#include "util/prim.cuh"
#include "warp/shfl.cuh"

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

}  // namespace prim

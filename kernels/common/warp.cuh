// warp.cuh -- warp-wide collectives built on register shuffles (Volta+ safe: every shuffle names
// its full mask, so no lane relies on implicit warp-synchronous execution).
// Precondition: all 32 lanes of the warp call together (converged), blockDim.x a multiple of 32
// or the missing lanes padded by the caller with the operator's identity.
#pragma once
#include "common/prim.cuh"

namespace prim {

// Shuffles for any trivially copyable T: the hardware's own for 4- and 8-byte scalars, word by
// word for other types (e.g. the (value, flag) pairs of segmented scans). T's alignment >= 4.
template <class T> struct NativeShfl { static constexpr bool value = false; };
template <> struct NativeShfl<int> { static constexpr bool value = true; };
template <> struct NativeShfl<unsigned int> { static constexpr bool value = true; };
template <> struct NativeShfl<long long> { static constexpr bool value = true; };
template <> struct NativeShfl<unsigned long long> { static constexpr bool value = true; };
template <> struct NativeShfl<float> { static constexpr bool value = true; };
template <> struct NativeShfl<double> { static constexpr bool value = true; };

template <class T>
__device__ __forceinline__ T shfl_xor(T v, int lane_mask) {
    if constexpr (NativeShfl<T>::value) {
        return __shfl_xor_sync(FULL_MASK, v, lane_mask);
    } else {
        static_assert(sizeof(T) % 4 == 0, "shfl_xor: size must be a multiple of 4 bytes");
        unsigned int* w = reinterpret_cast<unsigned int*>(&v);
#pragma unroll
        for (int k = 0; k < static_cast<int>(sizeof(T) / 4); ++k)
            w[k] = __shfl_xor_sync(FULL_MASK, w[k], lane_mask);
        return v;
    }
}

template <class T>
__device__ __forceinline__ T shfl_up(T v, int delta) {
    if constexpr (NativeShfl<T>::value) {
        return __shfl_up_sync(FULL_MASK, v, delta);
    } else {
        static_assert(sizeof(T) % 4 == 0, "shfl_up: size must be a multiple of 4 bytes");
        unsigned int* w = reinterpret_cast<unsigned int*>(&v);
#pragma unroll
        for (int k = 0; k < static_cast<int>(sizeof(T) / 4); ++k)
            w[k] = __shfl_up_sync(FULL_MASK, w[k], delta);
        return v;
    }
}

// Butterfly reduction: every lane ends with the reduction of all 32 lanes' values.
template <class T, class Op>
__device__ __forceinline__ T warp_reduce(T v, Op op) {
#pragma unroll
    for (int offset = WARP / 2; offset > 0; offset >>= 1) v = op(v, shfl_xor(v, offset));
    return v;
}

}  // namespace prim

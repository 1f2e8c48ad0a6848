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

template <class T>
__device__ __forceinline__ T shfl_down(T v, int delta) {
    if constexpr (NativeShfl<T>::value) {
        return __shfl_down_sync(FULL_MASK, v, delta);
    } else {
        static_assert(sizeof(T) % 4 == 0, "shfl_down: size must be a multiple of 4 bytes");
        unsigned int* w = reinterpret_cast<unsigned int*>(&v);
#pragma unroll
        for (int k = 0; k < static_cast<int>(sizeof(T) / 4); ++k)
            w[k] = __shfl_down_sync(FULL_MASK, w[k], delta);
        return v;
    }
}

template <class T>
__device__ __forceinline__ T shfl_idx(T v, int src_lane) {
    if constexpr (NativeShfl<T>::value) {
        return __shfl_sync(FULL_MASK, v, src_lane);
    } else {
        static_assert(sizeof(T) % 4 == 0, "shfl_idx: size must be a multiple of 4 bytes");
        unsigned int* w = reinterpret_cast<unsigned int*>(&v);
#pragma unroll
        for (int k = 0; k < static_cast<int>(sizeof(T) / 4); ++k)
            w[k] = __shfl_sync(FULL_MASK, w[k], src_lane);
        return v;
    }
}

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

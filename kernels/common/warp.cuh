// warp.cuh -- warp-wide collectives built on register shuffles (Volta+ safe: every shuffle names
// its full mask, so no lane relies on implicit warp-synchronous execution).
// Precondition: all 32 lanes of the warp call together (converged), blockDim.x a multiple of 32
// or the missing lanes padded by the caller with the operator's identity.
#pragma once
#include "common/prim.cuh"

namespace prim {

// Shuffles for any trivially copyable T: the hardware's own for 4- and 8-byte scalars, word by
// word for other types whose size is a multiple of 4 (e.g. the (value, flag) pairs of segmented
// scans, alignment >= 4), and in one 32-bit word for 1- and 2-byte types.
template <class T> struct NativeShfl { static constexpr bool value = false; };
template <> struct NativeShfl<int> { static constexpr bool value = true; };
template <> struct NativeShfl<unsigned int> { static constexpr bool value = true; };
template <> struct NativeShfl<long long> { static constexpr bool value = true; };
template <> struct NativeShfl<unsigned long long> { static constexpr bool value = true; };
template <> struct NativeShfl<float> { static constexpr bool value = true; };
template <> struct NativeShfl<double> { static constexpr bool value = true; };

// v moved by `shfl` (one of the __shfl_*_sync calls with its lane argument bound), as above.
template <class T, class Shfl>
__device__ __forceinline__ T shfl_any(T v, Shfl shfl) {
    if constexpr (NativeShfl<T>::value) {
        return shfl(v);
    } else if constexpr (sizeof(T) < 4) {
        unsigned int w = 0u;
        *reinterpret_cast<T*>(&w) = v;
        w = shfl(w);
        return *reinterpret_cast<const T*>(&w);
    } else {
        static_assert(sizeof(T) % 4 == 0, "shuffles: a size below 4 or a multiple of 4 bytes");
        unsigned int* w = reinterpret_cast<unsigned int*>(&v);
#pragma unroll
        for (int k = 0; k < static_cast<int>(sizeof(T) / 4); ++k) w[k] = shfl(w[k]);
        return v;
    }
}

// The four shuffles, each with its lane argument (a mask, a delta or a source lane), for
// shfl_any.
enum ShflKind { SHFL_XOR, SHFL_UP, SHFL_DOWN, SHFL_IDX };
template <int KIND>
struct Shfl {
    int arg;
    template <class W> __device__ __forceinline__ W operator()(W x) const {
        if constexpr (KIND == SHFL_XOR)
            return __shfl_xor_sync(FULL_MASK, x, arg);
        else if constexpr (KIND == SHFL_UP)
            return __shfl_up_sync(FULL_MASK, x, arg);
        else if constexpr (KIND == SHFL_DOWN)
            return __shfl_down_sync(FULL_MASK, x, arg);
        else
            return __shfl_sync(FULL_MASK, x, arg);
    }
};

template <class T>
__device__ __forceinline__ T shfl_xor(T v, int lane_mask) {
    return shfl_any(v, Shfl<SHFL_XOR>{lane_mask});
}

template <class T>
__device__ __forceinline__ T shfl_up(T v, int delta) {
    return shfl_any(v, Shfl<SHFL_UP>{delta});
}

template <class T>
__device__ __forceinline__ T shfl_down(T v, int delta) {
    return shfl_any(v, Shfl<SHFL_DOWN>{delta});
}

template <class T>
__device__ __forceinline__ T shfl_idx(T v, int src_lane) {
    return shfl_any(v, Shfl<SHFL_IDX>{src_lane});
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

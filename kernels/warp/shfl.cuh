// shfl.cuh -- register shuffles of any trivially copyable type across a warp (Volta+ safe: every
// shuffle names its full mask, so no lane relies on implicit warp-synchronous execution).
//
// shfl_xor / shfl_up / shfl_down / shfl_idx: the hardware's own shuffle for 4- and 8-byte
// scalars, word by word for other types whose size is a multiple of 4 (e.g. the (value, head)
// pairs of segmented scans), in one 32-bit word for 1- and 2-byte types. Flagged<T, HeadFirst>
// pairs (util/segmented.cuh) have their own shfl_up, field by field (below).
// Precondition: all 32 lanes of the warp call together (converged).
#pragma once
#include "util/prim.cuh"
#include "util/segmented.cuh"

namespace prim {

// Shuffles for any trivially copyable T: the hardware's own for 4- and 8-byte scalars, word by
// word for other types whose size is a multiple of 4 (e.g. the (value, flag) pairs of segmented
// scans, alignment >= 4), and in one 32-bit word for 1- and 2-byte types.

// v moved by `shfl` (one of the __shfl_*_sync calls with its lane argument bound), as above.
template <class T, class Shfl>
__device__ __forceinline__ T shfl_any(T v, Shfl shfl) {
    if constexpr (NativeWord<T>::value) {
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

// The shuffle up of a HeadFirst pair (util/segmented.cuh): the two fields one by one (a double
// value and its head: three 32-bit shuffles, where the generic shfl_up above moves the whole
// 16-byte struct, padding word included: four; found by argument-dependent lookup from the
// scans), the pair taken by reference (passed by value, the pair changed NVVM's code for the
// whole of the SpMV kernels that scan such pairs: sm_90 float32 merge_path 256x8 in 32
// registers, not 40, and other instructions).
template <class T>
__device__ __forceinline__ Flagged<T, HeadFirst> shfl_up(const Flagged<T, HeadFirst>& v,
                                                         int delta) {
    Flagged<T, HeadFirst> r;
    r.head = shfl_up(v.head, delta);
    r.value = shfl_up(v.value, delta);
    return r;
}

}  // namespace prim

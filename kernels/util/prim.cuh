// prim.cuh -- the vocabulary every kernel of primitives is written in.
//
// Portability: the same sources compile with NVRTC (CUDA backend) and with the host C++ compiler
// against kernels/emulator/emu.h (CPU emulator, -DPRIM_EMULATOR). Constructs without a C++ twin get
// a macro here whose emulator definition lives in emu.h:
//   PRIM_DYNAMIC_SHARED(T, name)  declares `T* name`, the block's dynamic shared memory (16-B aligned).
// Types: fixed-width aliases (NVRTC ships no <cstdint>). Operators: Sum/Prod/Min/Max with identities
// and NumPy's NaN propagation for min/max. Limits without <climits>/<cfloat>.
#pragma once

#ifndef PRIM_EMULATOR
#define PRIM_DYNAMIC_SHARED(T, name)                                    \
    extern __shared__ __align__(16) unsigned char prim_dynamic_smem_[]; \
    T* name = reinterpret_cast<T*>(prim_dynamic_smem_)
#endif

namespace prim {

typedef int i32;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned long long u64;
typedef unsigned long long uptr;  // pointer-sized unsigned (all supported targets are 64-bit)

constexpr unsigned FULL_MASK = 0xffffffffu;
constexpr int WARP = 32;
constexpr int LOG_WARP = 5;  // 1 << LOG_WARP == WARP

// Select<C, A, B>::type is A when C holds, else B (NVRTC ships no <type_traits>).
template <bool C, class A, class B> struct Select { typedef A type; };
template <class A, class B> struct Select<false, A, B> { typedef B type; };

// NativeWord<T>: the built-in 4- and 8-byte scalars, which the hardware's shuffles (warp/shfl.cuh)
// and __ldcg (util/load.cuh's load_cg) take as they are; other types move by their 4-byte words.
template <class T> struct NativeWord { static constexpr bool value = false; };
template <> struct NativeWord<int> { static constexpr bool value = true; };
template <> struct NativeWord<unsigned int> { static constexpr bool value = true; };
template <> struct NativeWord<long long> { static constexpr bool value = true; };
template <> struct NativeWord<unsigned long long> { static constexpr bool value = true; };
template <> struct NativeWord<float> { static constexpr bool value = true; };
template <> struct NativeWord<double> { static constexpr bool value = true; };

// In<T>::type / Out<T>::type: a kernel's parameter of the elements of T it reads / writes: a
// restrict-qualified pointer, or for the zipped arrays of util/zip.cuh (Zip<T...>) the structure of
// their pointers. The emulator's pointers are plain: the host compiler does not match a restrict
// typedef's parameters to the function pointer type its launch glue takes.
#ifdef PRIM_EMULATOR
template <class T> struct In { typedef const T* type; };
template <class T> struct Out { typedef T* type; };
#else
template <class T> struct In { typedef const T* __restrict__ type; };
template <class T> struct Out { typedef T* __restrict__ type; };
#endif

// ---- numeric limits ---------------------------------------------------------------------------
template <class T> struct Limits;
template <> struct Limits<int> {
    static __device__ __forceinline__ int lowest() { return -2147483647 - 1; }
    static __device__ __forceinline__ int max() { return 2147483647; }
};
template <> struct Limits<unsigned int> {
    static __device__ __forceinline__ unsigned int lowest() { return 0u; }
    static __device__ __forceinline__ unsigned int max() { return 0xffffffffu; }
};
template <> struct Limits<long long> {
    static __device__ __forceinline__ long long lowest() { return -9223372036854775807LL - 1; }
    static __device__ __forceinline__ long long max() { return 9223372036854775807LL; }
};
template <> struct Limits<unsigned long long> {
    static __device__ __forceinline__ unsigned long long lowest() { return 0ull; }
    static __device__ __forceinline__ unsigned long long max() { return 0xffffffffffffffffull; }
};
template <> struct Limits<float> {  // "lowest"/"max" are the infinities: identities of max/min
    static __device__ __forceinline__ float lowest() { return __int_as_float(0xff800000); }
    static __device__ __forceinline__ float max() { return __int_as_float(0x7f800000); }
};
template <> struct Limits<double> {
    static __device__ __forceinline__ double lowest() {
        return __longlong_as_double(0xfff0000000000000ll);
    }
    static __device__ __forceinline__ double max() {
        return __longlong_as_double(0x7ff0000000000000ll);
    }
};

template <class T> __device__ __forceinline__ bool is_nan(T) { return false; }
template <> __device__ __forceinline__ bool is_nan<float>(float v) { return v != v; }
template <> __device__ __forceinline__ bool is_nan<double>(double v) { return v != v; }

// ---- binary operators with identities -------------------------------------------------------
// Each is a stateless functor; `identity()` is the value that leaves any operand unchanged.
template <class T> struct Sum {
    typedef T value_type;
    static __device__ __forceinline__ T identity() { return T(0); }
    __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};
template <class T> struct Prod {
    typedef T value_type;
    static __device__ __forceinline__ T identity() { return T(1); }
    __device__ __forceinline__ T operator()(T a, T b) const { return a * b; }
};
// Min/Max propagate NaN as numpy.min/numpy.max do: a NaN operand wins.
template <class T> struct Min {
    typedef T value_type;
    static __device__ __forceinline__ T identity() { return Limits<T>::max(); }
    __device__ __forceinline__ T operator()(T a, T b) const { return (a < b || is_nan(a)) ? a : b; }
};
template <class T> struct Max {
    typedef T value_type;
    static __device__ __forceinline__ T identity() { return Limits<T>::lowest(); }
    __device__ __forceinline__ T operator()(T a, T b) const { return (a > b || is_nan(a)) ? a : b; }
};

// ---- values ptxas may not fold ---------------------------------------------------------------
// unfused(x): x, through an identity byte permute for the integers of at most 4 bytes (others
// as they are). ptxas for sm_90 (12.9 and 13.0, at its default level; not at -Ofc=mid) fuses
// max(max(acc, -a), -b) into one three-input VIMNMX3 and drops one of the two negations: the
// column reduction of a map "-v" under max gave wrong maxima. An operand made by a PRMT is
// fused without the negation folded into it. The element type of a map (ops.map_prelude)
// hands each mapped value through here; one PRMT an element, in kernels bound by memory.
__device__ __forceinline__ unsigned int keep_bits(unsigned int x) {
    return __byte_perm(x, 0u, 0x3210u);
}
template <class T> __device__ __forceinline__ T unfused(T x) { return x; }
__device__ __forceinline__ int unfused(int x) {
    return static_cast<int>(keep_bits(static_cast<unsigned int>(x)));
}
__device__ __forceinline__ unsigned int unfused(unsigned int x) { return keep_bits(x); }
__device__ __forceinline__ short unfused(short x) {
    return static_cast<short>(keep_bits(static_cast<unsigned int>(x)));
}
__device__ __forceinline__ unsigned short unfused(unsigned short x) {
    return static_cast<unsigned short>(keep_bits(x));
}
__device__ __forceinline__ signed char unfused(signed char x) {
    return static_cast<signed char>(keep_bits(static_cast<unsigned int>(x)));
}
__device__ __forceinline__ unsigned char unfused(unsigned char x) {
    return static_cast<unsigned char>(keep_bits(x));
}

}  // namespace prim

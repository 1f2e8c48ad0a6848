// narrow.cuh -- 1- and 2-byte element types for kernels that read them in place with 16-byte
// vectors (the scans): prim::f16, prim::bf16, the limits of the narrow integers, Vec16 of the
// narrow types and of the complex types, and Min/Max operators whose identities are a narrow type's
// limits.
//
// f16: float16 as its 16 bits (NVRTC ships no cuda_fp16.h without the toolkit's headers); converts
//   to float exactly and from float rounding to nearest even (PTX cvt on the GPU, the same rounding
//   in integer arithmetic on the emulator). Same layout as NumPy's float16.
// bf16: bfloat16 as its 16 bits, float32's upper half (ml_dtypes' and torch's layout); converts to
//   float exactly (the bits shifted up) and from float rounding to nearest even, a NaN staying a
//   NaN (PTX cvt on sm_80 and later, the same rounding in integer arithmetic elsewhere).
// Vec16<T> for T of 1 and 2 bytes (signed/unsigned char, short, unsigned short, f16, bf16) and for
//   prim::c64/c128: a uint4 holding 16 / sizeof(T) elements, so util/load.cuh's load16,
//   load_items/store_items and the 16-byte warp exchanges take them unchanged.
// MinOf<AccT, T>/MaxOf<AccT, T>: prim::Min/Max<AccT> (a narrow T accumulated in a 32-bit AccT,
//   which the block's shuffles move) whose identity is T's maximum/minimum, so an exclusive scan's
//   first output converts back to T unchanged.
#pragma once
#include "util/prim.cuh"
#include "util/load.cuh"
#include "util/complex.cuh"

namespace prim {

struct f16 {
    unsigned short bits;
    f16() = default;
    __device__ __forceinline__ explicit f16(float v) : bits(float_to_half_bits(v)) {}
    __device__ __forceinline__ operator float() const { return half_bits_to_float(bits); }

    static __device__ __forceinline__ float half_bits_to_float(unsigned short h) {
#if defined(__CUDA_ARCH__) && !defined(PRIM_EMULATOR)
        float f;
        asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
        return f;
#else
        const unsigned sign = (static_cast<unsigned>(h) & 0x8000u) << 16;
        const unsigned exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
        if (exp == 0x1fu) return __uint_as_float(sign | 0x7f800000u | (man << 13));  // inf, NaN
        if (exp == 0) {  // zero or subnormal: man * 2^-24, exact in float
            const float f = static_cast<float>(man) * 5.9604644775390625e-8f;
            return sign ? -f : f;
        }
        return __uint_as_float(sign | ((exp + 112u) << 23) | (man << 13));
#endif
    }

    static __device__ __forceinline__ unsigned short float_to_half_bits(float v) {
#if defined(__CUDA_ARCH__) && !defined(PRIM_EMULATOR)
        unsigned short h;
        asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
        return h;
#else
        const unsigned x = __float_as_uint(v);
        const unsigned sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
        if (ax > 0x7f800000u) return static_cast<unsigned short>(sign | 0x7e00u | (ax >> 13));
        if (ax >= 0x477ff000u) return static_cast<unsigned short>(sign | 0x7c00u);  // >= 65520
        if (ax < 0x38800000u) {  // below 2^-14: float addition rounds to units of 2^-24
            const float t = __uint_as_float(ax) + 0.5f;
            return static_cast<unsigned short>(sign | (__float_as_uint(t) - 0x3f000000u));
        }
        const unsigned r = ax - 0x38000000u;  // exponent rebiased from 127 to 15
        return static_cast<unsigned short>(sign | ((r + 0xfffu + ((r >> 13) & 1u)) >> 13));
#endif
    }
};

struct bf16 {
    unsigned short bits;
    bf16() = default;
    __device__ __forceinline__ explicit bf16(float v) : bits(float_to_bf16_bits(v)) {}
    __device__ __forceinline__ operator float() const {
        return __uint_as_float(static_cast<unsigned>(bits) << 16);
    }

    static __device__ __forceinline__ unsigned short float_to_bf16_bits(float v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(PRIM_EMULATOR)
        unsigned short h;
        asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(v));
        return h;
#else
        const unsigned x = __float_as_uint(v);
        if ((x & 0x7fffffffu) > 0x7f800000u)  // NaN: its upper half, made quiet (never inf)
            return static_cast<unsigned short>((x >> 16) | 0x40u);
        // round to nearest even on the dropped 16 bits; a carry moves into the exponent (to inf
        // past the largest finite value), subnormals round as the same integers
        return static_cast<unsigned short>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
#endif
    }
};

// ---- 16-byte vectors of narrow and complex elements -------------------------------------------
template <class T> struct Vec16Raw {
    typedef uint4 type;
    static constexpr int N = 16 / sizeof(T);
};
template <> struct Vec16<signed char> : Vec16Raw<signed char> {};
template <> struct Vec16<unsigned char> : Vec16Raw<unsigned char> {};
template <> struct Vec16<short> : Vec16Raw<short> {};
template <> struct Vec16<unsigned short> : Vec16Raw<unsigned short> {};
template <> struct Vec16<f16> : Vec16Raw<f16> {};
template <> struct Vec16<bf16> : Vec16Raw<bf16> {};
template <> struct Vec16<c64> : Vec16Raw<c64> {};
template <> struct Vec16<c128> : Vec16Raw<c128> {};

// ---- limits of the narrow integers, and Min/Max with a narrow type's identity ----------------
template <class T> struct NarrowLimits;
template <> struct NarrowLimits<signed char> { static constexpr int lowest = -128, max = 127; };
template <> struct NarrowLimits<unsigned char> { static constexpr int lowest = 0, max = 255; };
template <> struct NarrowLimits<short> { static constexpr int lowest = -32768, max = 32767; };
template <> struct NarrowLimits<unsigned short> { static constexpr int lowest = 0, max = 65535; };

template <class AccT, class T> struct MinOf : Min<AccT> {
    static __device__ __forceinline__ AccT identity() {
        return static_cast<AccT>(NarrowLimits<T>::max);
    }
};
template <class AccT, class T> struct MaxOf : Max<AccT> {
    static __device__ __forceinline__ AccT identity() {
        return static_cast<AccT>(NarrowLimits<T>::lowest);
    }
};

}  // namespace prim

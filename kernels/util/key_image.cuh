// key_image.cuh -- the order-preserving unsigned image of a key, and the digits of it that radix
// sorts and radix selects read (prim::radix).
//
// Keys are unsigned bit patterns U (u16, u32 or u64); the image is computed from the caller's bits
// whenever it is needed (memory keeps the bits: NaN payloads and the sign of -0.0 survive).
//   kind UNSIGNED: the bits themselves; SIGNED: the sign bit flipped (two's complement order);
//   FLOAT: every NaN becomes the positive quiet NaN (NumPy's order: NaNs last), then negative
//   numbers map to their two's complement negation, others get the sign bit set. The negation
//   is the bitwise complement plus one, so it keeps the order of negative numbers and lands
//   -0.0 (the sign bit alone) on the image of +0.0, as NumPy has them equal.
//   Descending order complements the image (`flip` = all ones), which keeps equal keys in input
//   order; `descending` DESC_NAN_FIRST puts NaNs first (NaN the largest, as torch.topk), and
//   DESC_NAN_LAST keeps them last (NumPy's sort): the fold then maps every NaN to NEG_FOLD, a
//   negative NaN whose complemented image is the positive quiet NaN's own image.
// DigitOf<U>: a kernel's reader of keys: image(key), and the digit of `width` bits (<= 8) of the
// image from bit `shift`, with the image mode (integer, float, float with the NaN fold) chosen
// per call or at compile time. Per-thread code only: no shared memory, no barrier.
// 16-bit float keys are their 16 bits (U = unsigned short, Bits<unsigned short>): ordered_as and
// needs_fold take them as the wider floats (the 16-bit image of primitives/_core/keys.py's
// image_fields), float16 as kind FLOAT, bfloat16 as kind BFLOAT (their infinities and quiet NaNs
// differ: float_inf, nan_fold; DigitOf holds them).
// complex_fields: the two fields (high, low) of a complex key's image, NumPy's complex order
// (see its comment; primitives/_core/keys.py's image_fields proves the order).
#pragma once
#include "util/prim.cuh"

namespace prim {
namespace radix {

// BFLOAT: a 16-bit key (U = unsigned short) of bfloat16 bits; FLOAT with U = unsigned short is
// float16. Both 16-bit floats share the image; only their infinity and quiet NaN differ
// (float_inf, nan_fold).
enum KeyKind { UNSIGNED = 0, SIGNED = 1, FLOAT = 2, BFLOAT = 3 };

// The order a kernel's `descending` argument asks for (see the header comment).
enum Direction { ASCENDING = 0, DESC_NAN_FIRST = 1, DESC_NAN_LAST = 2 };

template <class U> struct Bits;
template <> struct Bits<unsigned short> {  // float16 (bfloat16: BF_INF, BF_QNAN)
    static constexpr int N = 16;
    static constexpr unsigned short TOP = 0x8000u;
    static constexpr unsigned short INF = 0x7c00u;
    static constexpr unsigned short QNAN = 0x7e00u;
    static constexpr unsigned short BF_INF = 0x7f80u;
    static constexpr unsigned short BF_QNAN = 0x7fc0u;
};
template <> struct Bits<u32> {
    static constexpr int N = 32;
    static constexpr u32 TOP = 0x80000000u;
    static constexpr u32 INF = 0x7f800000u;
    static constexpr u32 QNAN = 0x7fc00000u;
    static constexpr u32 NEG_FOLD = (QNAN | TOP) + 1u;  // image: ~image(QNAN)
};
template <> struct Bits<u64> {
    static constexpr int N = 64;
    static constexpr u64 TOP = 0x8000000000000000ull;
    static constexpr u64 INF = 0x7ff0000000000000ull;
    static constexpr u64 QNAN = 0x7ff8000000000000ull;
    static constexpr u64 NEG_FOLD = (QNAN | TOP) + 1ull;  // image: ~image(QNAN)
};

// The order-preserving unsigned image of a key (see the header comment). Integers: one xor
// (`flip` already holds the sign bit for signed keys and the complement for descending order).
// Floats: two more operations (-0.0 needs none of its own); IMAGE_FOLD folds every NaN into
// one (`nan`: QNAN, or NEG_FOLD for DESC_NAN_LAST) first, IMAGE_FLOAT does not (the same image for inputs without NaNs, which the onesweep
// histogram pass finds out).
enum ImageMode { IMAGE_INT = 0, IMAGE_FLOAT = 1, IMAGE_FOLD = 2 };

// k as a two's complement integer, its absolute value as an unsigned number: -k for a negative
// k (the most negative maps to itself). One instruction on the GPU (PTX abs wraps there) for 32
// and 64 bits; 16-bit keys (float16) take the portable form.
template <class U>
__device__ __forceinline__ U magnitude(U k) {
    if constexpr (sizeof(U) == 2) {
        return static_cast<U>((k >> (Bits<U>::N - 1)) ? static_cast<U>(0u - k) : k);
    } else {
#if defined(__CUDA_ARCH__) && !defined(PRIM_EMULATOR)
        U m;
        if constexpr (sizeof(U) == 4)
            asm("abs.s32 %0, %1;" : "=r"(m) : "r"(k));
        else
            asm("abs.s64 %0, %1;" : "=l"(m) : "l"(k));
        return m;
#else
        return (k >> (Bits<U>::N - 1)) ? static_cast<U>(0) - k : k;
#endif
    }
}

// The bits of +inf of a float key of `kind` (magnitudes above it are NaNs): the width's own,
// bfloat16's for 16-bit keys of kind BFLOAT.
template <class U>
__device__ __forceinline__ U float_inf(int kind) {
    if constexpr (sizeof(U) == 2)
        return kind == BFLOAT ? Bits<U>::BF_INF : Bits<U>::INF;
    else
        return Bits<U>::INF;
}

template <int MODE, class U>
__device__ __forceinline__ U ordered_as(U k, U flip, U nan = Bits<U>::QNAN, U inf = Bits<U>::INF) {
    if (MODE == IMAGE_FOLD) k = static_cast<U>(k & ~Bits<U>::TOP) > inf ? nan : k;
    // negative: -k (its magnitude, sign bit clear but for -0.0, whose -k is +0.0's image);
    // otherwise k | TOP: one abs and one three-input logic operation
    if (MODE != IMAGE_INT) k = static_cast<U>(magnitude(k) ^ (~k & Bits<U>::TOP));
    return static_cast<U>(k ^ flip);
}

template <class U>
__device__ __forceinline__ U ordered(U k, bool is_float, U flip, U nan = Bits<U>::QNAN,
                                     U inf = Bits<U>::INF) {
    return is_float ? ordered_as<IMAGE_FOLD>(k, flip, nan, inf) : ordered_as<IMAGE_INT>(k, flip);
}

// The key a NaN folds into for the kernel argument `descending` (a Direction) and a float key
// of `kind`: the positive quiet NaN, or (DESC_NAN_LAST) the negative NaN one above it, whose
// complemented image is the quiet NaN's image.
template <class U>
__device__ __forceinline__ U nan_fold(int descending, int kind = FLOAT) {
    if constexpr (sizeof(U) == 2) {
        const U qnan = kind == BFLOAT ? Bits<U>::BF_QNAN : Bits<U>::QNAN;
        return descending == DESC_NAN_LAST ? static_cast<U>((qnan | Bits<U>::TOP) + 1u) : qnan;
    } else {
        return descending == DESC_NAN_LAST ? Bits<U>::NEG_FOLD : Bits<U>::QNAN;
    }
}

// A float key that the fold changes: a NaN (`inf`: float_inf of its kind).
template <class U>
__device__ __forceinline__ bool needs_fold(U k, U inf = Bits<U>::INF) {
    return static_cast<U>(k & ~Bits<U>::TOP) > inf;
}

// The fields (high, low) of the image of the complex key whose parts have the bits `re` and `im`
// (U = u32 for complex64, u64 for complex128), with img the float image of a part (ordered_as,
// complemented by `flip`) and hi = img(+inf) the largest image of a non-NaN part: no NaN part
// (img(re), img(im)); a NaN imaginary part alone (hi + 1, img(re)); a NaN real part alone
// (hi + 2, img(im)); both NaN (hi + 3, 0). So the images order (real, imag) first, then R + nan j
// by real, nan + R j by imag, then nan + nan j, every NaN equal whatever its sign and payload,
// -0.0 equal to 0.0. A complemented part image (`flip` all ones: a descending order) is still
// at most ~img(-inf) < hi, so the classes keep their places.
template <class U>
__device__ __forceinline__ void complex_fields(U re, U im, U flip, U& high, U& low) {
    const bool nre = needs_fold(re), nim = needs_fold(im);
    const U ire = ordered_as<IMAGE_FLOAT>(re, flip);
    const U iim = ordered_as<IMAGE_FLOAT>(im, flip);
    const U hi = Bits<U>::INF | Bits<U>::TOP;
    high = nre ? (nim ? U(hi + 3) : U(hi + 2)) : (nim ? U(hi + 1) : ire);
    low = nre ? (nim ? U(0) : iim) : (nim ? ire : iim);
}

// How a kernel reads digits: the key kind, the descending flip (`descending` a Direction), the
// NaN fold and the digit's bit field.
// of<MODE>(key) is the digit with the image mode known at compile time (loops over many keys
// branch once, see digits_of); operator() tests is_float per call. The flip is applied to the
// shifted image, where the xor and the mask make one three-input logic operation. `fold` (true
// unless the caller knows the input holds no NaN) picks IMAGE_FOLD or IMAGE_FLOAT for floats in
// digits_of.
template <class U>
struct DigitOf {
    bool is_float;
    bool fold;
    U flip;
    U nan;  // the key every NaN folds into (nan_fold)
    U inf;  // +inf of the float kind (float_inf): a constant but for 16-bit keys
    int shift;
    unsigned mask;
    unsigned flip_digit;  // the digit's bits of flip: ((x ^ flip) >> s) = (x >> s) ^ (flip >> s)

    __device__ __forceinline__ DigitOf(int kind, int descending, int shift_, int width)
        : is_float(kind == FLOAT || kind == BFLOAT),
          fold(true),
          flip(static_cast<U>((descending ? ~static_cast<U>(0) : static_cast<U>(0)) ^
                              (kind == SIGNED ? Bits<U>::TOP : static_cast<U>(0)))),
          nan(nan_fold<U>(descending, kind)),
          inf(float_inf<U>(kind)),
          shift(shift_),
          mask((1u << width) - 1u),
          flip_digit(static_cast<unsigned>(flip >> shift_) & mask) {}

    __device__ __forceinline__ U image(U key) const {
        return ordered(key, is_float, flip, nan, inf);
    }
    template <int MODE>
    __device__ __forceinline__ unsigned of(U key) const {
        return (static_cast<unsigned>(ordered_as<MODE>(key, static_cast<U>(0), nan, inf) >> shift) ^
                flip_digit) &
            mask;
    }
    __device__ __forceinline__ unsigned operator()(U key) const {
        return is_float ? of<IMAGE_FOLD>(key) : of<IMAGE_INT>(key);
    }
};

}  // namespace radix
}  // namespace prim

// pack.cu -- lexsort's keys as the words of one LSD radix sort: each key's order-preserving
// unsigned image (primitives/_core/keys.py's image_fields, computed here from the key's own bits,
// so NaN payloads and the sign of -0.0 never reach a word), the images of an element's keys
// concatenated into one unsigned number (the primary key most significant) and cut into words of
// 64 bits, least significant first (keys.py's pack_words: a word is uint32 where its used bits fit
// 32; an image may straddle two words, a complex128 one three).
//
// pack_key<KIND, U, W>: one key's image, shifted to its place, into one word W (u32 or u64) of
//   every element: words[i] = part where `accumulate` is 0 (the word's first key), else
//   words[i] | part. `shift` is the image's lowest bit less the word's: part = image << shift for
//   shift >= 0 (the image's bits above the word are a later word's), image >> -shift for
//   shift < 0 (its low bits are an earlier word's), cut to W. One launch per (key, word) pair that
//   the key's image overlaps, the word's first launch writing it.
//   KIND (PackKind) and U, the unsigned type of an element's bits (of a complex part's), give the
//   image: PACK_BOOL (U u8): 1 bit, 1 for a nonzero byte; PACK_UNSIGNED: the bits; PACK_SIGNED:
//   the sign bit flipped; PACK_FLOAT (U u16 for float16, u32, u64): prim::radix::ordered_as with
//   the NaN fold (every NaN equal and last, -0.0 = 0.0); PACK_COMPLEX (U u32 for complex64, u64
//   for complex128): prim::radix::complex_fields, the high field above the low (64 or 128 bits:
//   NumPy's complex order, NaN classes included).
//   Layout: word i reads the key's element `at` (parts 2 at and 2 at + 1 for a complex key):
//   at = i where cols == 0 (the key contiguous in the words' order); else i = r * cols + c (the
//   words as rows of `cols`) and at = (r / inner) * s_outer + (r % inner) * s_inner + c * s_col, a
//   strided view of the key in element strides (lexsort along an axis: the rows are the lines
//   along the axis, read in place in the key's layout).
// Launch: 1-D, grid-stride (any grid, any block). No shared memory, no barrier.
// Preconditions: n >= 1 words; -8 * sizeof(image) < shift < 8 * sizeof(W) (the image overlaps
// the word); where cols > 0: inner >= 1, strides >= 0 and every `at` an element of `key`; `key`
// aligned to sizeof(U), `words` to sizeof(W).
#include "util/prim.cuh"
#include "util/key_image.cuh"

using prim::u32;
using prim::u64;

// The kinds of key pack_key reads (prim::radix::KeyKind's values for the real kinds).
enum PackKind {
    PACK_UNSIGNED = prim::radix::UNSIGNED,
    PACK_SIGNED = prim::radix::SIGNED,
    PACK_FLOAT = prim::radix::FLOAT,
    PACK_BOOL = 3,
    PACK_COMPLEX = 4
};

namespace {

// An image of up to 128 bits: hi above lo.
struct Image { u64 hi, lo; };

template <int KIND, class U>
__device__ __forceinline__ Image image_of(const U* __restrict__ key, long long at) {
    if constexpr (KIND == PACK_COMPLEX) {
        U high, low;
        prim::radix::complex_fields(key[2 * at], key[2 * at + 1], U(0), high, low);
        if constexpr (sizeof(U) == 4) {
            return Image{0, (static_cast<u64>(high) << 32) | low};
        } else {
            return Image{high, low};
        }
    } else {
        const U k = key[at];
        U img = k;
        if constexpr (KIND == PACK_BOOL) {
            img = static_cast<U>(k != 0);
        } else if constexpr (KIND == PACK_SIGNED) {
            img = static_cast<U>(k ^ (U(1) << (8 * sizeof(U) - 1)));
        } else if constexpr (KIND == PACK_FLOAT) {
            img = prim::radix::ordered_as<prim::radix::IMAGE_FOLD>(k, U(0));
        }
        return Image{0, static_cast<u64>(img)};
    }
}

// The 64 bits of the image that land in a word at `shift` (see the header comment).
__device__ __forceinline__ u64 shifted(Image v, int shift) {
    if (shift >= 0) return v.lo << shift;
    const int e = -shift;
    if (e >= 64) return v.hi >> (e - 64);
    return (v.lo >> e) | (v.hi << (64 - e));
}

}  // namespace

template <int KIND, class U, class W>
__global__ void pack_key(const U* __restrict__ key, long long n, long long cols, long long inner,
                         long long s_outer, long long s_inner, long long s_col, int shift,
                         int accumulate, W* __restrict__ words) {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        long long at = i;
        if (cols) {
            const long long r = i / cols, o = r / inner;
            at = o * s_outer + (r - o * inner) * s_inner + (i - r * cols) * s_col;
        }
        const W part = static_cast<W>(shifted(image_of<KIND>(key, at), shift));
        words[i] = accumulate ? static_cast<W>(words[i] | part) : part;
    }
}

// complex_image.cu -- the order-preserving unsigned image of complex keys in one pass, NumPy's
// complex order, as radix sort keys (the fields of primitives._core.keys.image_fields, computed
// per key from the caller's bits):
//   complex64_image: one u64 word per key, the high field in bits 32-63, the low in bits 0-31;
//   complex128_image: two u64 words per key, `high[i]` and `low[i]` (sorted least significant
//     first by an LSD sort of the words).
// Fields (high, low), with img the float image of a part (prim::radix::ordered_as) and
// hi = img(+inf) the largest image of a non-NaN part: no NaN part (img(re), img(im)); a NaN
// imaginary part alone (hi + 1, img(re)); a NaN real part alone (hi + 2, img(im)); both NaN
// (hi + 3, 0). So the images order (real, imag) first, then R + nan j by real, nan + R j by imag,
// then nan + nan j, every NaN equal whatever its sign and payload, -0.0 equal to 0.0
// (prim::radix::complex_fields, util/key_image.cuh).
// `descending` (NumPy's descending sort): every part image in the fields is complemented (~img:
// still at most ~img(-inf) < hi, so the classes keep their places), so an ascending sort of the
// images orders the values with no NaN part largest first, then the NaN classes in the same
// order as above (NaNs last), each by its part descending.
// Launch: 1-D, grid-stride (any grid, any block). No shared memory, no barrier.
// Preconditions: n >= 1; `keys` holds the n keys' parts (real then imaginary) as unsigned bits
// of the part's width, 2n of them.
#include "util/prim.cuh"
#include "util/key_image.cuh"

using prim::u32;
using prim::u64;

using prim::radix::complex_fields;  // the fields of one key (util/key_image.cuh)

// keys: n complex64 keys read as one u64 each (the real part's bits in the low half).
__global__ void complex64_image(const u64* __restrict__ keys, long long n, int descending,
                                u64* __restrict__ image) {
    const u32 flip = descending ? ~u32(0) : u32(0);
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const u64 k = keys[i];
        u32 high, low;
        complex_fields(static_cast<u32>(k), static_cast<u32>(k >> 32), flip, high, low);
        image[i] = (static_cast<u64>(high) << 32) | low;
    }
}

// keys: n complex128 keys read as 2n u64 (real, imaginary).
__global__ void complex128_image(const u64* __restrict__ keys, long long n, int descending,
                                 u64* __restrict__ high, u64* __restrict__ low) {
    const u64 flip = descending ? ~u64(0) : u64(0);
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        u64 h, l;
        complex_fields(keys[2 * i], keys[2 * i + 1], flip, h, l);
        high[i] = h;
        low[i] = l;
    }
}

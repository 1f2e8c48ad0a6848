// nan_to.cu -- a copy of a float or complex array with every NaN element replaced by one value,
// numpy.where(numpy.isnan(x), value, x): the statistics family's NaN -> identity pass before a
// plain scan or reduction (nancumsum and nancumprod, NumPy's own replacement; the reductions of a
// dtype= of another kind).
//
// nan_to<U, PARTS>: an element is PARTS (1, or 2 for complex: real then imaginary) consecutive
//   floats, read as their unsigned bits U (u16 for float16, u32, u64); it is NaN when any part is
//   (numpy.isnan of a complex number: either part; prim::radix::needs_fold of the bits).
//   out[i] = in[i] bit for bit for the n elements that are no NaN; a NaN element becomes the one
//   whose first part has the bits `fill` and whose other part is 0 (+0.0: a complex value of the
//   real `fill`, as NumPy converts the value to the dtype).
// Launch: 1-D, grid-stride (any grid, any block). No shared memory, no barrier.
// Preconditions: n >= 1; `in` and `out` hold PARTS * n parts each, do not overlap, and are
// aligned to sizeof(U).
#include "util/prim.cuh"
#include "util/key_image.cuh"

template <class U, int PARTS>
__global__ void nan_to(const U* __restrict__ in, long long n, U fill, U* __restrict__ out) {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        U v[PARTS];
        bool nan = false;
#pragma unroll
        for (int p = 0; p < PARTS; ++p) {
            v[p] = in[PARTS * i + p];
            nan = nan || prim::radix::needs_fold(v[p]);
        }
#pragma unroll
        for (int p = 0; p < PARTS; ++p) out[PARTS * i + p] = nan ? (p == 0 ? fill : U(0)) : v[p];
    }
}

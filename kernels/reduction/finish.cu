// finish.cu -- the last step of mean: every sum divided by the count of its elements
// (numpy.mean's true_divide by the integer count, then the cast to the result).
//
// mean_divide<Acc, Res>: out[i] = Res(s[i] / count) for i < m, where the quotient is taken as
//   NumPy takes it: in float64 for every real accumulator (true_divide of an array by the
//   integer count resolves to float64 for bool, the integers, float16, float32 and float64), the
//   count never cast to Acc (a count of 300 is not an int8); a complex sum as NumPy's complex128
//   quotient by count + 0j (below).
//   Res is Acc, or prim::f16 / prim::bf16 for a float32 accumulator (the mean of float16 input:
//   NumPy rounds the quotient to float32, then to float16; bfloat16 likewise). Integer results
//   truncate toward zero as astype does; a bool result is the quotient != 0.
//   Launch: 1-D, any block and grid (grid-stride); no shared memory. Preconditions: m >= 1;
//   s and out in the same memory order.
#include "util/prim.cuh"
#include "util/thread.cuh"
#include "util/narrow.cuh"
#include "util/complex.cuh"

namespace prim {
namespace finish {

template <class T>
__device__ __forceinline__ double divide(T s, long long count) {
    return static_cast<double>(s) / static_cast<double>(count);
}
// NumPy's complex128 quotient by (count + 0j): Smith's form, which multiplies by the reciprocal
// of the denominator (so -9 / 10 is -9 * 0.1, one rounding away from -0.9), and whose
// 0 * imaginary part makes an infinite part NaN in the other.
template <class R>
__device__ __forceinline__ Complex<R> divide(Complex<R> s, long long count) {
    const double re = static_cast<double>(s.re), im = static_cast<double>(s.im);
    const double scale = 1.0 / static_cast<double>(count);
    return Complex<R>(static_cast<R>(__dmul_rn(re + im * 0.0, scale)),
                      static_cast<R>(__dmul_rn(im - re * 0.0, scale)));
}

template <class Res, class Q> struct Convert {
    static __device__ __forceinline__ Res from(Q q) { return static_cast<Res>(q); }
};
template <class Q> struct Convert<f16, Q> {
    static __device__ __forceinline__ f16 from(Q q) { return f16(static_cast<float>(q)); }
};
template <class Q> struct Convert<bf16, Q> {
    static __device__ __forceinline__ bf16 from(Q q) { return bf16(static_cast<float>(q)); }
};
template <class Q> struct Convert<bool, Q> {
    static __device__ __forceinline__ bool from(Q q) { return q != Q(0); }
};

}  // namespace finish
}  // namespace prim

template <class Acc, class Res>
__global__ void mean_divide(const Acc* __restrict__ s, long long m, long long count,
                            Res* __restrict__ out) {
    for (long long i = prim::global_thread(); i < m; i += prim::global_threads()) {
        const auto q = prim::finish::divide(s[i], count);
        out[i] = prim::finish::Convert<Res, decltype(q)>::from(q);
    }
}

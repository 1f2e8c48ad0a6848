// finish.cu -- the last step of mean: every sum divided by the count of its elements
// (numpy.mean's true_divide by the count in the accumulator's dtype, then the cast to the result).
//
// mean_divide<Acc, Res>: out[i] = Res(s[i] / Acc(count)) for i < m, where the quotient is taken
//   as NumPy takes it: in float64 for the integer and bool accumulators (true_divide of two
//   integers), in float32 for float16 (NumPy computes half arithmetic in float and rounds once),
//   in the accumulator's own type otherwise; a complex sum is divided componentwise by the real
//   count (what the complex quotient by count + 0j is). Res is Acc, or prim::f16 for a float32
//   accumulator (the mean of float16 input). Integer results truncate toward zero as astype
//   does; a bool result is the quotient != 0.
//   Launch: 1-D, any block and grid (grid-stride); no shared memory. Preconditions: m >= 1.
#include "common/prim.cuh"
#include "common/narrow.cuh"
#include "common/complex.cuh"
#include "common/pack16.cuh"  // prim::global_thread, prim::global_threads

namespace prim {
namespace finish {

template <class T> struct Quotient { typedef double type; };  // bool and the integers
template <> struct Quotient<f16> { typedef float type; };
template <> struct Quotient<float> { typedef float type; };

template <class T>
__device__ __forceinline__ typename Quotient<T>::type divide(T s, long long count) {
    typedef typename Quotient<T>::type Q;
    return static_cast<Q>(s) / static_cast<Q>(static_cast<T>(count));
}
template <class R>
__device__ __forceinline__ Complex<R> divide(Complex<R> s, long long count) {
    const R c = static_cast<R>(count);
    return Complex<R>(s.re / c, s.im / c);
}

template <class Res, class Q> struct Convert {
    static __device__ __forceinline__ Res from(Q q) { return static_cast<Res>(q); }
};
template <class Q> struct Convert<f16, Q> {
    static __device__ __forceinline__ f16 from(Q q) { return f16(static_cast<float>(q)); }
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

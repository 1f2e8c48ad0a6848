// complex.cuh -- complex element types for kernels: prim::c64 and prim::c128, laid out as NumPy's
// complex64/complex128 (real part, then imaginary part), so a device array of either dtype is read
// as an array of these.
//
// They are trivially copyable (shared memory and the word-by-word shuffles of warp/shfl.cuh take
// them) and convert from a real value (imaginary part 0), so prim::Sum<c64>::identity() and
// prim::Prod<c64>::identity() are 0 and 1 and `static_cast<c64>(x)` of a real element works as for
// the real types. Arithmetic is NumPy's: + and - componentwise, * the textbook product
// (re = a.re*b.re - a.im*b.im, im = a.re*b.im + a.im*b.re), no special handling of infinities.
// Each product is rounded on its own (__fmul_rn/__dmul_rn, which the compiler never fuses into an
// FMA), as NumPy's: a fused a.re*b.re - a.im*b.im keeps the first product exact, so where both
// overflow it gives -inf where NumPy's inf - inf gives NaN (a complex product that overflows is
// nan+nanj in NumPy, and must be here).
// Order: NumPy's, lexicographic (the real parts, then the imaginary parts), with a number that has
// a NaN in either part (is_nan) above and below every other: Min<Complex<R>>/Max<Complex<R>> below
// return a NaN operand (the first, a, when both are), else the smaller/larger operand (a on ties),
// as numpy.minimum/numpy.maximum; their identities are Limits' (-inf, -inf) and (inf, inf).
#pragma once
#include "util/prim.cuh"

namespace prim {

template <class R> struct alignas(2 * sizeof(R)) Complex {
    typedef R real_type;
    R re, im;
    Complex() = default;
    __device__ __forceinline__ Complex(R r) : re(r), im(R(0)) {}
    __device__ __forceinline__ Complex(R r, R i) : re(r), im(i) {}
};

template <class R>
__device__ __forceinline__ Complex<R> operator+(Complex<R> a, Complex<R> b) {
    return Complex<R>(a.re + b.re, a.im + b.im);
}
template <class R>
__device__ __forceinline__ Complex<R> operator-(Complex<R> a, Complex<R> b) {
    return Complex<R>(a.re - b.re, a.im - b.im);
}
namespace detail {
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
}  // namespace detail

template <class R>
__device__ __forceinline__ Complex<R> operator*(Complex<R> a, Complex<R> b) {
    using detail::mul_rn;
    return Complex<R>(mul_rn(a.re, b.re) - mul_rn(a.im, b.im),
                      mul_rn(a.re, b.im) + mul_rn(a.im, b.re));
}
template <class R>
__device__ __forceinline__ Complex<R>& operator+=(Complex<R>& a, Complex<R> b) {
    a = a + b;
    return a;
}
template <class R>
__device__ __forceinline__ Complex<R>& operator*=(Complex<R>& a, Complex<R> b) {
    a = a * b;
    return a;
}
template <class R>
__device__ __forceinline__ bool operator==(Complex<R> a, Complex<R> b) {
    return a.re == b.re && a.im == b.im;
}
template <class R>
__device__ __forceinline__ bool operator!=(Complex<R> a, Complex<R> b) {
    return !(a == b);
}

// Lexicographic a < b (no NaN involved: any comparison with one is false).
template <class R>
__device__ __forceinline__ bool lex_less(Complex<R> a, Complex<R> b) {
    return a.re < b.re || (a.re == b.re && a.im < b.im);
}

template <class R> struct Limits<Complex<R>> {
    static __device__ __forceinline__ Complex<R> lowest() {
        return Complex<R>(Limits<R>::lowest(), Limits<R>::lowest());
    }
    static __device__ __forceinline__ Complex<R> max() {
        return Complex<R>(Limits<R>::max(), Limits<R>::max());
    }
};

template <class R> __device__ __forceinline__ bool is_nan(Complex<R> v) {
    return is_nan(v.re) || is_nan(v.im);
}

template <class R> struct Min<Complex<R>> {
    typedef Complex<R> value_type;
    static __device__ __forceinline__ Complex<R> identity() { return Limits<Complex<R>>::max(); }
    __device__ __forceinline__ Complex<R> operator()(Complex<R> a, Complex<R> b) const {
        return (is_nan(a) || !(is_nan(b) || lex_less(b, a))) ? a : b;
    }
};
template <class R> struct Max<Complex<R>> {
    typedef Complex<R> value_type;
    static __device__ __forceinline__ Complex<R> identity() { return Limits<Complex<R>>::lowest(); }
    __device__ __forceinline__ Complex<R> operator()(Complex<R> a, Complex<R> b) const {
        return (is_nan(a) || !(is_nan(b) || lex_less(a, b))) ? a : b;
    }
};

typedef Complex<float> c64;
typedef Complex<double> c128;

}  // namespace prim

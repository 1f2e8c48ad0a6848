// aggregates.cuh -- the statistics family's aggregates: what one pass over the elements keeps,
// how an element is folded in (the NaN -> identity transform on load of the nan-reductions), how
// two partial results combine, and the result a finished aggregate gives.
//
// An aggregate Agg is a type with
//   Local            what one thread accumulates over its elements (registers only);
//   State            what threads, warps, blocks and the grid combine (shuffled word by word by
//                    warp/shfl.cuh, kept in shared memory and in the grid's partials: trivially
//                    copyable, its size a multiple of 4 bytes);
//   Out              the result's element type;
//   local()          the empty Local; fold(l, x, i) the Local with element x (at index i along the
//                    reduced extent) folded in; state(l) the State of a Local;
//   identity()       the empty State; operator()(a, b) the combination of two States
//                    (associative and commutative: every combination order gives the result
//                    within rounding, so block_reduce's butterfly takes it);
//   finish(s, p, f)  the result of a State, with the call's parameter p (ddof) and flag f.
//
// The aggregates, each templated on the element type InT as kernels read it (bool as Flag: its
// byte, any nonzero byte true; float16 as prim::f16, complex as prim::c64/c128):
//   NanSum/NanProd<InT, AccT, OutT>   the sum/product of the non-NaN elements (a complex element
//                                     is NaN when either part is, as numpy.isnan);
//   NanExtreme<InT, AccT, OutT, MAX>  the minimum/maximum of the non-NaN elements, NaN when there
//                                     is none (the identity is NaN and a NaN operand loses);
//                                     complex numbers in NumPy's lexicographic order (less());
//   NanArg<InT, AccT, MAX>            the first index of the minimum/maximum, NaN read as +inf
//                                     (-inf for the maximum; a complex NaN as (+-inf, 0)) as
//                                     numpy.nanargmin reads it; -1 when every element is NaN (the
//                                     host raises NumPy's error);
//   NanMean<InT, AccT, OutT>          (sum, count) of the non-NaN elements; the quotient in
//                                     float64 (complex128), NaN over nothing;
//   Moments<InT, SKIP>                (count, mean, M2) of real elements in float64: per thread
//                                     the sums s and q of d = x - k and d^2, k the thread's first
//                                     element (shifted data: no cancellation for data far from 0
//                                     with a small spread), then mean = k + s/n (kept as k and
//                                     s/n), M2 = q - s^2/n; across threads Chan's combination
//                                     (n = na + nb, delta = mb - ma, mean = ma + delta nb/n,
//                                     M2 = M2a + M2b + delta^2 na nb/n). finish: M2 / (n - ddof), its square root for
//                                     std (flag 1). SKIP: NaN elements skipped and a slice with
//                                     n - ddof <= 0 NaN (numpy.nanvar); otherwise NaN propagates
//                                     and M2 / max(n - ddof, 0) follows IEEE division (numpy.var);
//   MomentsC<InT, SKIP>               the same of complex elements: the mean's two parts, M2 the
//                                     sum of |x - mean|^2 (var(real) + var(imag));
//   Ptp<InT, AccT, OutT>              (min, max) in one pass, NaN propagating; max - min in the
//                                     accumulator, wrapping for integers as NumPy's subtraction;
//   PtpC<InT>                         the same of complex elements in NumPy's lexicographic order,
//                                     a slice with a NaN giving its first NaN minus itself;
//   StateOf<Agg>                      Agg's State as the result (the host finishes var/std with
//                                     mean= or where=);
//   CountNonzero<InT>                 the count of elements != 0 (a complex one when either part
//                                     is), int64;
//   Weighted<T>                       (sum of w x, sum of w) of numpy.average with weights, x
//                                     and w of one dtype T (float32/64, complex64/128): a pair
//                                     reduction whose fold takes the weight beside the element
//                                     (fold2); the result sum(w x) / sum(w).
#pragma once
#include "util/prim.cuh"
#include "util/narrow.cuh"
#include "util/complex.cuh"
#include "util/flag.cuh"

namespace prim {
namespace stats {

template <class T> __device__ __forceinline__ T quiet_nan();
template <> __device__ __forceinline__ float quiet_nan<float>() {
    return __int_as_float(0x7fc00000);
}
template <> __device__ __forceinline__ double quiet_nan<double>() {
    return __longlong_as_double(0x7ff8000000000000ll);
}
template <> __device__ __forceinline__ c64 quiet_nan<c64>() {
    return c64(quiet_nan<float>(), quiet_nan<float>());
}
template <> __device__ __forceinline__ c128 quiet_nan<c128>() {
    return c128(quiet_nan<double>(), quiet_nan<double>());
}

// A bool element as the kernels read it: util/flag.cuh's prim::Flag, its byte, true when nonzero
// (NumPy reads a bool array whose bytes are not 0/1 so: np.frombuffer(b"\xff", bool) is True,
// and counts as 1).
using prim::Flag;

// An element (or an accumulator) converted to A: float16 through float, complex part by part.
template <class A, class T> struct To {
    static __device__ __forceinline__ A of(T v) { return static_cast<A>(v); }
};
template <class A> struct To<A, f16> {
    static __device__ __forceinline__ A of(f16 v) { return static_cast<A>(static_cast<float>(v)); }
};
template <> struct To<f16, float> {
    static __device__ __forceinline__ f16 of(float v) { return f16(v); }
};
template <> struct To<f16, double> {
    static __device__ __forceinline__ f16 of(double v) { return f16(static_cast<float>(v)); }
};
template <class R, class S> struct To<Complex<R>, Complex<S>> {
    static __device__ __forceinline__ Complex<R> of(Complex<S> v) {
        return Complex<R>(static_cast<R>(v.re), static_cast<R>(v.im));
    }
};
template <class A> struct To<A, Flag> {
    static __device__ __forceinline__ A of(Flag v) { return static_cast<A>(v.byte != 0); }
};
template <class A, class T>
__device__ __forceinline__ A to(T v) {
    return To<A, T>::of(v);
}

template <class T>
__device__ __forceinline__ bool nan_of(T v) {
    return is_nan(v);
}
template <class R>
__device__ __forceinline__ bool nan_of(Complex<R> v) {
    return v.re != v.re || v.im != v.im;
}

template <class T>
__device__ __forceinline__ bool nonzero(T v) {
    return v != T(0);
}
__device__ __forceinline__ bool nonzero(f16 v) { return static_cast<float>(v) != 0.0f; }
__device__ __forceinline__ bool nonzero(Flag v) { return v.byte != 0; }
template <class R>
__device__ __forceinline__ bool nonzero(Complex<R> v) {
    return v.re != R(0) || v.im != R(0);
}

// NumPy's order of two non-NaN values: a < b, complex numbers lexicographically (the real
// parts, then the imaginary parts).
template <class T>
__device__ __forceinline__ bool less(T a, T b) {
    return a < b;
}
template <class R>
__device__ __forceinline__ bool less(Complex<R> a, Complex<R> b) {
    return lex_less(a, b);
}

// a - b as NumPy subtracts in the dtype: integers wrap (computed unsigned: no overflow in C++).
template <class T>
__device__ __forceinline__ T wrap_sub(T a, T b) {
    return a - b;
}
__device__ __forceinline__ int wrap_sub(int a, int b) {
    return static_cast<int>(static_cast<unsigned int>(a) - static_cast<unsigned int>(b));
}
__device__ __forceinline__ long long wrap_sub(long long a, long long b) {
    return static_cast<long long>(static_cast<unsigned long long>(a) -
                                  static_cast<unsigned long long>(b));
}

// ---- sums, products ---------------------------------------------------------------------------
template <class InT, class AccT, class OutT> struct NanSum {
    typedef AccT Local;
    typedef AccT State;
    typedef OutT Out;
    static __device__ __forceinline__ Local local() { return AccT(0); }
    static __device__ __forceinline__ State identity() { return AccT(0); }
    static __device__ __forceinline__ Local fold(Local s, InT x, i64) {
        const AccT v = to<AccT>(x);
        return nan_of(v) ? s : s + v;
    }
    static __device__ __forceinline__ State state(Local s) { return s; }
    __device__ __forceinline__ State operator()(State a, State b) const { return a + b; }
    static __device__ __forceinline__ Out finish(State s, double, int) { return to<OutT>(s); }
};

template <class InT, class AccT, class OutT> struct NanProd {
    typedef AccT Local;
    typedef AccT State;
    typedef OutT Out;
    static __device__ __forceinline__ Local local() { return AccT(1); }
    static __device__ __forceinline__ State identity() { return AccT(1); }
    static __device__ __forceinline__ Local fold(Local s, InT x, i64) {
        const AccT v = to<AccT>(x);
        return nan_of(v) ? s : s * v;
    }
    static __device__ __forceinline__ State state(Local s) { return s; }
    __device__ __forceinline__ State operator()(State a, State b) const { return a * b; }
    static __device__ __forceinline__ Out finish(State s, double, int) { return to<OutT>(s); }
};

// ---- nanmin, nanmax ---------------------------------------------------------------------------
template <class InT, class AccT, class OutT, bool MAX> struct NanExtreme {
    typedef AccT Local;
    typedef AccT State;
    typedef OutT Out;
    static __device__ __forceinline__ State identity() { return quiet_nan<AccT>(); }
    static __device__ __forceinline__ Local local() { return identity(); }
    static __device__ __forceinline__ State pick(State a, State b) {
        if (nan_of(a)) return b;
        if (nan_of(b)) return a;
        return (MAX ? less(a, b) : less(b, a)) ? b : a;
    }
    static __device__ __forceinline__ Local fold(Local s, InT x, i64) {
        return pick(s, to<AccT>(x));
    }
    static __device__ __forceinline__ State state(Local s) { return s; }
    __device__ __forceinline__ State operator()(State a, State b) const { return pick(a, b); }
    static __device__ __forceinline__ Out finish(State s, double, int) { return to<OutT>(s); }
};

// ---- nanargmin, nanargmax ---------------------------------------------------------------------
// A NaN reads as the far end (-inf for the maximum, +inf for the minimum; a complex NaN -- either
// part NaN -- as (-inf, 0) / (inf, 0)), as NumPy reads it (numpy.nanargmin replaces NaNs by +inf,
// then argmin: so an array of +inf and NaNs gives its first element's index, NaN or not); `valid`
// says whether a non-NaN element was seen (-1 otherwise). State: the index of the extreme so far
// (-1 while none) and its value. A thread folds its elements in increasing index order
// (for_each_packet's head, packets, tail; the axis kernels walk their chunks forward), so a Local
// takes an element only when it is strictly beyond the value kept (the first extreme stays) or is
// the first. A 16-byte packet is folded through its extreme first (fold_pack: the NaN-ignoring
// max/min of its elements, one instruction each for reals), and only a packet whose extreme beats
// the thread's looks for its first position: about one operation an element. Across threads the
// combination takes the more extreme value, between equal ones the smaller index.
template <class AccT> struct ArgState {
    i64 i;  // the index, -1 while none
    AccT v;  // its value, NaN read as the far end
    int valid;  // whether a non-NaN element was seen
};

// The order NanArg ranks values of T by: far() the value a NaN reads as, beyond(b, a) whether b
// is strictly more extreme than a (neither NaN), extreme(a, b) the more extreme of two values,
// NaN only when both are.
template <class T, bool MAX> struct ArgOrder {
    static __device__ __forceinline__ T far() {
        return MAX ? Limits<T>::lowest() : Limits<T>::max();
    }
    static __device__ __forceinline__ bool beyond(T b, T a) { return MAX ? b > a : b < a; }
    static __device__ __forceinline__ T extreme(T a, T b) {
        return MAX ? ::max(a, b) : ::min(a, b);
    }
};
template <class R, bool MAX> struct ArgOrder<Complex<R>, MAX> {
    typedef Complex<R> T;
    static __device__ __forceinline__ T far() {
        return T(MAX ? Limits<R>::lowest() : Limits<R>::max(), R(0));
    }
    static __device__ __forceinline__ bool beyond(T b, T a) {
        return MAX ? lex_less(a, b) : lex_less(b, a);
    }
    static __device__ __forceinline__ T extreme(T a, T b) {
        return nan_of(a) ? b : nan_of(b) ? a : beyond(b, a) ? b : a;
    }
};

template <class InT, class AccT, bool MAX> struct NanArg {
    typedef ArgState<AccT> State;
    typedef State Local;
    typedef long long Out;
    typedef ArgOrder<AccT, MAX> Order;
    static __device__ __forceinline__ State identity() {
        State s;
        s.i = -1;
        s.v = Order::far();
        s.valid = 0;
        return s;
    }
    static __device__ __forceinline__ Local local() { return identity(); }
    static __device__ __forceinline__ State pick(State a, State b) {
        State r = a.i < 0                                          ? b
            : b.i < 0                                              ? a
            : Order::beyond(b.v, a.v) || (b.v == a.v && b.i < a.i) ? b
                                                                   : a;
        r.valid = a.valid | b.valid;
        return r;
    }
    // x at index i, after every element the Local holds (a larger index)
    static __device__ __forceinline__ Local fold(Local l, InT x, i64 i) {
        AccT v = to<AccT>(x);
        const bool ok = !nan_of(v);
        v = ok ? v : Order::far();
        if (Order::beyond(v, l.v) || l.i < 0) {
            l.v = v;
            l.i = i;
        }
        l.valid |= ok;
        return l;
    }
    // the elements of packet p, p.v[0] at index i0, after every element the Local holds
    template <int N>
    static __device__ __forceinline__ Local fold_pack(Local l, const InT (&p)[N], i64 i0) {
        AccT v[N];
#pragma unroll
        for (int k = 0; k < N; ++k) v[k] = to<AccT>(p[k]);
        AccT m = v[0];
#pragma unroll
        for (int k = 1; k < N; ++k) m = Order::extreme(m, v[k]);
        const bool ok = !nan_of(m);  // some element is not NaN
        m = ok ? m : Order::far();
        if (Order::beyond(m, l.v) || l.i < 0) {  // rare: the packet's first extreme
            int first = N - 1;
#pragma unroll
            for (int k = N - 2; k >= 0; --k)
                first = (nan_of(v[k]) ? Order::far() : v[k]) == m ? k : first;
            l.v = m;
            l.i = i0 + first;
        }
        l.valid |= ok;
        return l;
    }
    static __device__ __forceinline__ State state(Local s) { return s; }
    __device__ __forceinline__ State operator()(State a, State b) const { return pick(a, b); }
    static __device__ __forceinline__ Out finish(State s, double, int) {
        return s.valid ? s.i : -1;
    }
};

// ---- nanmean ----------------------------------------------------------------------------------
template <class AccT> struct SumCount {
    AccT s;
    i64 c;
};

// s / c in float64 (complex128 for complex sums), converted to the result
template <class OutT, class AccT> struct Quotient {
    static __device__ __forceinline__ OutT of(AccT s, i64 c) {
        return to<OutT>(static_cast<double>(s) / static_cast<double>(c));
    }
};
template <class OutT, class R> struct Quotient<OutT, Complex<R>> {
    static __device__ __forceinline__ OutT of(Complex<R> s, i64 c) {
        const double k = static_cast<double>(c);
        return to<OutT>(
            Complex<double>(static_cast<double>(s.re) / k, static_cast<double>(s.im) / k));
    }
};
template <class InT, class AccT, class OutT> struct NanMean {
    typedef SumCount<AccT> State;
    typedef State Local;
    typedef OutT Out;
    static __device__ __forceinline__ State identity() {
        State s;
        s.s = AccT(0);
        s.c = 0;
        return s;
    }
    static __device__ __forceinline__ Local local() { return identity(); }
    static __device__ __forceinline__ Local fold(Local l, InT x, i64) {
        const AccT v = to<AccT>(x);
        if (!nan_of(v)) {
            l.s = l.s + v;
            ++l.c;
        }
        return l;
    }
    // the elements of a packet in order, counted in 32 bits and added to the count once
    template <int N>
    static __device__ __forceinline__ Local fold_pack(Local l, const InT (&p)[N], i64) {
        int c = 0;
#pragma unroll
        for (int k = 0; k < N; ++k) {
            const AccT v = to<AccT>(p[k]);
            const bool ok = !nan_of(v);
            l.s = l.s + (ok ? v : AccT(0));
            c += ok;
        }
        l.c += c;
        return l;
    }
    static __device__ __forceinline__ State state(Local l) { return l; }
    __device__ __forceinline__ State operator()(State a, State b) const {
        State r;
        r.s = a.s + b.s;
        r.c = a.c + b.c;
        return r;
    }
    static __device__ __forceinline__ Out finish(State s, double, int) {
        return Quotient<OutT, AccT>::of(s.s, s.c);  // over nothing 0 / 0: NaN (both parts)
    }
};

// ---- var, std, nanvar, nanstd -----------------------------------------------------------------
struct MomentLocal {
    double k, s, q;  // shift, sum of (x - k), sum of (x - k)^2
    i64 n;
};
// The mean is kept as k + d: k one of the elements, d the offset from it (small for data with a
// small spread, however far from 0), so that the difference of two means is taken between
// offsets and elements (exact for close elements), never between rounded large means.
struct MomentState { double n, k, d, m2; };

__device__ __forceinline__ MomentState chan(MomentState a, MomentState b) {
    if (a.n == 0.0) return b;
    if (b.n == 0.0) return a;
    MomentState r;
    r.n = a.n + b.n;
    const double delta = ((b.k - a.k) + b.d) - a.d;
    const double wb = b.n / r.n;
    r.k = a.k;
    r.d = a.d + delta * wb;
    r.m2 = a.m2 + b.m2 + delta * delta * (a.n * wb);
    return r;
}

// M2 / (n - ddof) as numpy.var (SKIP false) or numpy.nanvar (true) gives it; its root for std.
template <class OutT, bool SKIP>
__device__ __forceinline__ OutT moment_result(double n, double m2, double ddof, int root) {
    const double dof = n - ddof;
    double v;
    if (n == 0.0 || (SKIP && dof <= 0.0))
        v = quiet_nan<double>();
    else
        v = m2 / (dof > 0.0 ? dof : 0.0);
    if (root) v = sqrt(v);
    return to<OutT>(v);
}

template <class InT, class OutT, bool SKIP> struct Moments {
    typedef MomentLocal Local;
    typedef MomentState State;
    typedef OutT Out;
    static __device__ __forceinline__ Local local() {
        Local l;
        l.k = l.s = l.q = 0.0;
        l.n = 0;
        return l;
    }
    static __device__ __forceinline__ State identity() {
        State s;
        s.n = s.k = s.d = s.m2 = 0.0;
        return s;
    }
    static __device__ __forceinline__ Local fold(Local l, InT x, i64) {
        double d = to<double>(x);
        if (SKIP && d != d) return l;
        l.k = l.n == 0 ? d : l.k;
        d -= l.k;
        l.s += d;
        l.q = __fma_rn(d, d, l.q);
        ++l.n;
        return l;
    }
    static __device__ __forceinline__ State state(Local l) {
        State s = identity();
        if (l.n == 0) return s;
        s.n = static_cast<double>(l.n);
        s.k = l.k;
        s.d = l.s / s.n;
        const double m2 = l.q - l.s * (l.s / s.n);
        s.m2 = m2 < 0.0 ? 0.0 : m2;  // rounding only; a NaN stays NaN
        return s;
    }
    __device__ __forceinline__ State operator()(State a, State b) const { return chan(a, b); }
    static __device__ __forceinline__ Out finish(State s, double ddof, int root) {
        return moment_result<OutT, SKIP>(s.n, s.m2, ddof, root);
    }
};

struct MomentLocalC {
    double kr, ki, sr, si, q;
    i64 n;
};
struct MomentStateC {  // the mean's parts as k + d, as MomentState's
    double n, kr, ki, dr, di, m2;
};

template <class InT, class OutT, bool SKIP> struct MomentsC {
    typedef MomentLocalC Local;
    typedef MomentStateC State;
    typedef OutT Out;
    static __device__ __forceinline__ Local local() {
        Local l;
        l.kr = l.ki = l.sr = l.si = l.q = 0.0;
        l.n = 0;
        return l;
    }
    static __device__ __forceinline__ State identity() {
        State s;
        s.n = s.kr = s.ki = s.dr = s.di = s.m2 = 0.0;
        return s;
    }
    static __device__ __forceinline__ Local fold(Local l, InT x, i64) {
        double dr = static_cast<double>(x.re), di = static_cast<double>(x.im);
        if (SKIP && (dr != dr || di != di)) return l;
        l.kr = l.n == 0 ? dr : l.kr;
        l.ki = l.n == 0 ? di : l.ki;
        dr -= l.kr;
        di -= l.ki;
        l.sr += dr;
        l.si += di;
        l.q = __fma_rn(dr, dr, __fma_rn(di, di, l.q));
        ++l.n;
        return l;
    }
    static __device__ __forceinline__ State state(Local l) {
        State s = identity();
        if (l.n == 0) return s;
        s.n = static_cast<double>(l.n);
        s.kr = l.kr;
        s.ki = l.ki;
        s.dr = l.sr / s.n;
        s.di = l.si / s.n;
        const double m2 = l.q - (l.sr * (l.sr / s.n) + l.si * (l.si / s.n));
        s.m2 = m2 < 0.0 ? 0.0 : m2;
        return s;
    }
    __device__ __forceinline__ State operator()(State a, State b) const {
        if (a.n == 0.0) return b;
        if (b.n == 0.0) return a;
        State r;
        r.n = a.n + b.n;
        const double dr = ((b.kr - a.kr) + b.dr) - a.dr, di = ((b.ki - a.ki) + b.di) - a.di;
        const double wb = b.n / r.n;
        r.kr = a.kr;
        r.ki = a.ki;
        r.dr = a.dr + dr * wb;
        r.di = a.di + di * wb;
        r.m2 = a.m2 + b.m2 + (dr * dr + di * di) * (a.n * wb);
        return r;
    }
    static __device__ __forceinline__ Out finish(State s, double ddof, int root) {
        return moment_result<OutT, SKIP>(s.n, s.m2, ddof, root);
    }
};

// ---- ptp ----------------------------------------------------------------------------------------
template <class AccT> struct LoHi { AccT lo, hi; };

template <class InT, class AccT, class OutT> struct Ptp {
    typedef LoHi<AccT> State;
    typedef State Local;
    typedef OutT Out;
    static __device__ __forceinline__ State identity() {
        State s;
        s.lo = Limits<AccT>::max();
        s.hi = Limits<AccT>::lowest();
        return s;
    }
    static __device__ __forceinline__ Local local() { return identity(); }
    static __device__ __forceinline__ Local fold(Local l, InT x, i64) {
        const AccT v = to<AccT>(x);
        l.lo = Min<AccT>()(l.lo, v);
        l.hi = Max<AccT>()(l.hi, v);
        return l;
    }
    static __device__ __forceinline__ State state(Local l) { return l; }
    __device__ __forceinline__ State operator()(State a, State b) const {
        State r;
        r.lo = Min<AccT>()(a.lo, b.lo);
        r.hi = Max<AccT>()(a.hi, b.hi);
        return r;
    }
    static __device__ __forceinline__ Out finish(State s, double, int) {
        return to<OutT>(wrap_sub(s.hi, s.lo));
    }
};

// Complex ptp, NumPy's max - min with NaN propagating: numpy.maximum and numpy.minimum both keep
// the first NaN element of a slice (a complex number with either part NaN), so the result is that
// element minus itself, (re - re, im - im): 0 for a finite part, NaN for a NaN or infinite one.
// State: the lexicographic extremes of the non-NaN elements, the first NaN's index along the
// reduced extent (-1 while none) and which of its parts are not finite (bit 0 real, bit 1
// imaginary). The smaller index wins in any combination order.
template <class R> struct LoHiC {
    Complex<R> lo, hi;
    i64 nan_i;
    int nan_parts;
};

template <class InT> struct PtpC {
    typedef typename InT::real_type R;
    typedef LoHiC<R> State;
    typedef State Local;
    typedef InT Out;
    static __device__ __forceinline__ State identity() {
        State s;
        s.lo = Limits<InT>::max();
        s.hi = Limits<InT>::lowest();
        s.nan_i = -1;
        s.nan_parts = 0;
        return s;
    }
    static __device__ __forceinline__ Local local() { return identity(); }
    static __device__ __forceinline__ bool finite(R v) { return v - v == v - v; }
    static __device__ __forceinline__ Local fold(Local l, InT x, i64 i) {
        if (nan_of(x)) {
            if (l.nan_i < 0 || i < l.nan_i) {
                l.nan_i = i;
                l.nan_parts = (finite(x.re) ? 0 : 1) | (finite(x.im) ? 0 : 2);
            }
        } else {
            l.lo = lex_less(x, l.lo) ? x : l.lo;
            l.hi = lex_less(l.hi, x) ? x : l.hi;
        }
        return l;
    }
    static __device__ __forceinline__ State state(Local l) { return l; }
    __device__ __forceinline__ State operator()(State a, State b) const {
        State r;
        r.lo = lex_less(b.lo, a.lo) ? b.lo : a.lo;
        r.hi = lex_less(a.hi, b.hi) ? b.hi : a.hi;
        const bool take_b = b.nan_i >= 0 && (a.nan_i < 0 || b.nan_i < a.nan_i);
        r.nan_i = take_b ? b.nan_i : a.nan_i;
        r.nan_parts = take_b ? b.nan_parts : a.nan_parts;
        return r;
    }
    static __device__ __forceinline__ Out finish(State s, double, int) {
        if (s.nan_i >= 0)
            return Out(s.nan_parts & 1 ? quiet_nan<R>() : R(0),
                       s.nan_parts & 2 ? quiet_nan<R>() : R(0));
        return s.hi - s.lo;
    }
};

// ---- the State as the result ------------------------------------------------------------------
// StateOf<Agg>: Agg whose result is its State itself (Out = State), for a host that completes
// the result: var/std with mean= (sum |x - m|^2 = M2 + n |mean - m|^2, the mean kept as k + d,
// so that k - m is exact for close values) and with where= (the counts n per slice that NumPy's
// warnings name). The result array holds sizeof(State) / 8 float64 words per slice.
template <class Agg> struct StateOf : Agg {
    typedef typename Agg::State Out;
    static __device__ __forceinline__ Out finish(typename Agg::State s, double, int) { return s; }
};

// ---- count_nonzero ------------------------------------------------------------------------------
template <class InT> struct CountNonzero {
    typedef long long Local;
    typedef long long State;
    typedef long long Out;
    static __device__ __forceinline__ Local local() { return 0; }
    static __device__ __forceinline__ State identity() { return 0; }
    static __device__ __forceinline__ Local fold(Local c, InT x, i64) { return c + nonzero(x); }
    static __device__ __forceinline__ State state(Local c) { return c; }
    __device__ __forceinline__ State operator()(State a, State b) const { return a + b; }
    static __device__ __forceinline__ Out finish(State c, double, int) { return c; }
};

// ---- average with weights ---------------------------------------------------------------------
template <class T> struct WeightedState { T swx, sw; };

template <class T> struct Weighted {
    typedef WeightedState<T> State;
    typedef State Local;
    typedef T Out;
    static __device__ __forceinline__ State identity() {
        State s;
        s.swx = T(0);
        s.sw = T(0);
        return s;
    }
    static __device__ __forceinline__ Local local() { return identity(); }
    static __device__ __forceinline__ Local fold2(Local l, T x, T w) {
        l.swx = l.swx + w * x;
        l.sw = l.sw + w;
        return l;
    }
    static __device__ __forceinline__ State state(Local l) { return l; }
    __device__ __forceinline__ State operator()(State a, State b) const {
        State r;
        r.swx = a.swx + b.swx;
        r.sw = a.sw + b.sw;
        return r;
    }
};

// ---- packets ----------------------------------------------------------------------------------
// PackFold<Agg>::fold(l, p, i0): the N elements p[0..N) of a 16-byte packet (p[0] at index i0)
// folded into l in order: element by element, or through the aggregate's own fold_pack (NanArg,
// NanMean: fewer operations an element, the same result).
template <class Agg> struct PackFold {
    template <class InT, int N>
    static __device__ __forceinline__ typename Agg::Local fold(typename Agg::Local l,
                                                               const InT (&p)[N], i64 i0) {
#pragma unroll
        for (int k = 0; k < N; ++k) l = Agg::fold(l, p[k], i0 + k);
        return l;
    }
};
template <class InT, class AccT, bool MAX> struct PackFold<NanArg<InT, AccT, MAX>> {
    typedef NanArg<InT, AccT, MAX> Agg;
    template <int N>
    static __device__ __forceinline__ typename Agg::Local fold(typename Agg::Local l,
                                                               const InT (&p)[N], i64 i0) {
        return Agg::fold_pack(l, p, i0);
    }
};
template <class InT, class AccT, class OutT> struct PackFold<NanMean<InT, AccT, OutT>> {
    typedef NanMean<InT, AccT, OutT> Agg;
    template <int N>
    static __device__ __forceinline__ typename Agg::Local fold(typename Agg::Local l,
                                                               const InT (&p)[N], i64 i0) {
        return Agg::fold_pack(l, p, i0);
    }
};

}  // namespace stats
}  // namespace prim

// sparse.cuh -- per-thread helpers shared by the sparse kernels (kernels/sparse/*.cu).
//
// Value types T: float, double, prim::c64, prim::c128 (util/complex.cuh, NumPy's complex64 and
// complex128 layout). Loads and stores of values go through the helpers below, which are the
// intrinsics for the real types and one float2/double2 access of the same 8/16 bytes for complex.
//
// load_ro(p), load_cs(p), store_cs(p, v)
//                                     a value through the read-only path (__ldg), a streaming
//                                     (evict-first) load (__ldcs), a streaming store (__stcs).
// axpby_store(y, r, s, alpha, beta)   y[r] = alpha*s + beta*y[r]; y[r] is not read when beta == 0
//                                     (BLAS semantics: NaN or garbage in y is then ignored).
//                                     Streaming (evict-first) load and store.
// product(vals, cols, x, j)           vals[j] * x[cols[j]] through the read-only path. For kernels
//                                     whose threads walk along a row: later iterations find the
//                                     row's lines in L1. (Kernels that read each line once, in
//                                     one coalesced access, use streaming loads instead.)
// ELL_PAD                             the column index of an ELL padding slot (never read as x).
// The binary searches the kernels use over row pointers (upper_bound, lower_bound,
// merge_path_search) are util/search.cuh's, included here.
#pragma once
#include "util/prim.cuh"
#include "util/complex.cuh"
#include "util/search.cuh"

namespace prim {

constexpr int ELL_PAD = -1;

template <class T> __device__ __forceinline__ T load_ro(const T* p) { return __ldg(p); }
template <class T> __device__ __forceinline__ T load_cs(const T* p) { return __ldcs(p); }
template <class T> __device__ __forceinline__ void store_cs(T* p, T v) { __stcs(p, v); }

__device__ __forceinline__ c64 load_ro(const c64* p) {
    const float2 v = __ldg(reinterpret_cast<const float2*>(p));
    return c64(v.x, v.y);
}
__device__ __forceinline__ c128 load_ro(const c128* p) {
    const double2 v = __ldg(reinterpret_cast<const double2*>(p));
    return c128(v.x, v.y);
}
__device__ __forceinline__ c64 load_cs(const c64* p) {
    const float2 v = __ldcs(reinterpret_cast<const float2*>(p));
    return c64(v.x, v.y);
}
__device__ __forceinline__ c128 load_cs(const c128* p) {
    const double2 v = __ldcs(reinterpret_cast<const double2*>(p));
    return c128(v.x, v.y);
}
__device__ __forceinline__ void store_cs(c64* p, c64 v) {
    float2 w;
    w.x = v.re;
    w.y = v.im;
    __stcs(reinterpret_cast<float2*>(p), w);
}
__device__ __forceinline__ void store_cs(c128* p, c128 v) {
    double2 w;
    w.x = v.re;
    w.y = v.im;
    __stcs(reinterpret_cast<double2*>(p), w);
}

template <class T>
__device__ __forceinline__ void axpby_store(T* y, i64 r, T s, T alpha, T beta) {
    T out = alpha * s;
    if (beta != T(0)) out = out + beta * load_cs(y + r);
    store_cs(y + r, out);
}

template <class T, class I>
__device__ __forceinline__ T product(const T* vals, const I* cols, const T* x, i64 j) {
    return load_ro(vals + j) * load_ro(x + static_cast<i64>(__ldg(cols + j)));
}

}  // namespace prim

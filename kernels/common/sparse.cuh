// sparse.cuh -- per-thread helpers shared by the sparse kernels (kernels/sparse/*.cu).
//
// Value types T: float, double, prim::c64, prim::c128 (common/complex.cuh, NumPy's complex64 and
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
// upper_bound / lower_bound           binary searches over a sorted array in global or shared
//                                     memory: first index in [0, n) whose element is > (>=) key.
// merge_path_search(ends, n_ends, j0, diag, n_nz)
//                                     the merge-path coordinate of diagonal `diag` in the merge of
//                                     the row ends `ends[0..n_ends)` with the nonzero indices
//                                     j0, j0+1, ..., j0+n_nz-1 (Merrill & Garland, "Merge-based
//                                     parallel sparse matrix-vector multiplication", SC16): the
//                                     number of row ends consumed; diag minus it nonzeros are
//                                     consumed. A row end is consumed before a nonzero of the same
//                                     index (row i ends before nonzero rowptr[i+1]).
// ELL_PAD                             the column index of an ELL padding slot (never read as x).
#pragma once
#include "common/prim.cuh"
#include "common/complex.cuh"

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

template <class K>
__device__ __forceinline__ i64 upper_bound(const K* a, i64 n, i64 key) {
    i64 lo = 0, hi = n;
    while (lo < hi) {
        const i64 mid = lo + (hi - lo) / 2;
        if (static_cast<i64>(a[mid]) <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

template <class K>
__device__ __forceinline__ i64 lower_bound(const K* a, i64 n, i64 key) {
    i64 lo = 0, hi = n;
    while (lo < hi) {
        const i64 mid = lo + (hi - lo) / 2;
        if (static_cast<i64>(a[mid]) < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

template <class K>
__device__ __forceinline__ i64 merge_path_search(const K* ends, i64 n_ends, i64 j0, i64 diag,
                                                 i64 n_nz) {
    i64 lo = diag > n_nz ? diag - n_nz : 0;
    i64 hi = diag < n_ends ? diag : n_ends;
    while (lo < hi) {
        const i64 mid = lo + (hi - lo) / 2;
        if (static_cast<i64>(ends[mid]) <= j0 + diag - mid - 1)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

}  // namespace prim

// search.cuh -- per-thread binary searches over sorted arrays in global or shared memory (the row
// pointers and offsets of the sparse and segmented kernels).
//
// upper_bound(a, n, key) / lower_bound(a, n, key)
//     the first index in [0, n) whose element is > (>=) key (n when none is), the elements
//     compared as 64-bit integers.
// merge_path_search(ends, n_ends, j0, diag, n_nz)
//     the merge-path coordinate of diagonal `diag` in the merge of the row ends `ends[0..n_ends)`
//     with the nonzero indices j0, j0+1, ..., j0+n_nz-1 (Merrill & Garland, "Merge-based
//     parallel sparse matrix-vector multiplication", SC16): the number of row ends consumed;
//     diag minus it nonzeros are consumed. A row end is consumed before a nonzero of the same
//     index (row i ends before nonzero rowptr[i+1]).
// One thread each, no shared memory, no barrier.
#pragma once
#include "util/prim.cuh"

namespace prim {

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

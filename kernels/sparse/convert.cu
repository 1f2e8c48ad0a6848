// convert.cu -- conversions between the sparse formats on the device (CSR <-> COO, ELL, HYB).
//
// Templated on T (float, double, prim::c64, prim::c128) where values move, and I (int, long long),
// the index type of the formats. Sizes and offsets are 64-bit. Every kernel is a 1-D grid-stride
// loop (any block and grid), uses no shared memory, and writes each output element exactly once.
// The prefix sums that turn row lengths into row offsets are done by the host code between
// launches.
//
// Work per element, not per row, wherever a row may be long: an element finds its row by binary
// search over the row offsets (log2(m) cached loads), so one dense row does not serialize the
// conversion on one thread.
//
// sparse_expand_rows: rows[q] = the r with offsets[r] <= q < offsets[r+1] (CSR -> COO row
//   indices; also the rows of HYB's overflow). offsets: m+1 non-decreasing values.
// sparse_rowptr_from_rows: rowptr[i] = number of entries with row < i, i in [0, m] (COO -> CSR;
//   rows sorted).
// sparse_csr_to_ell: slot k of row r (k*ld + r) gets the row's k-th entry for k < min(len,
//   width), padding (column ELL_PAD, value 0) after it; rows r in [m, ld) are all padding. With
//   width below a row's length the rest of the row is left to sparse_hyb_overflow.
// sparse_ell_lengths: entries per ELL row (slots before the first padding).
// sparse_ell_to_csr: copies row r's ELL entries to rowptr[r], rowptr[r]+1, ...
// sparse_hyb_overflow: the entries of each CSR row past `width`, in order, to COO arrays at the
//   offsets `ovf` (exclusive prefix sum of max(len - width, 0)).
// sparse_coo_to_csr_part: COO entry q of row r goes to rowptr[r] + skip[r] + (q - coo_rowptr[r])
//   (HYB -> CSR: the ELL part fills the first skip[r] places of the row).
#include "util/prim.cuh"
#include "util/search.cuh"
#include "sparse/sparse.cuh"

using prim::i64;

#define PRIM_GRID_STRIDE(i, n)                                                     \
    for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
         i += static_cast<i64>(gridDim.x) * blockDim.x)

template <class I>
__global__ void sparse_expand_rows(const I* __restrict__ offsets, long long m, long long total,
                                   I* __restrict__ rows) {
    PRIM_GRID_STRIDE(q, total) {
        rows[q] = static_cast<I>(prim::upper_bound(offsets, m + 1, q) - 1);
    }
}

template <class I>
__global__ void sparse_rowptr_from_rows(const I* __restrict__ rows, long long nnz, long long m,
                                        I* __restrict__ rowptr) {
    PRIM_GRID_STRIDE(i, m + 1) { rowptr[i] = static_cast<I>(prim::lower_bound(rows, nnz, i)); }
}

template <class T, class I>
__global__ void sparse_csr_to_ell(const I* __restrict__ rowptr, const I* __restrict__ cols,
                                  const T* __restrict__ vals, long long m, long long width,
                                  long long ld, I* __restrict__ ell_cols,
                                  T* __restrict__ ell_vals) {
    PRIM_GRID_STRIDE(r, ld) {
        i64 start = 0, len = 0;
        if (r < m) {
            start = rowptr[r];
            len = rowptr[r + 1] - start;
            if (len > width) len = width;
        }
        for (i64 k = 0; k < width; ++k) {
            const i64 slot = k * ld + r;
            ell_cols[slot] = k < len ? cols[start + k] : static_cast<I>(prim::ELL_PAD);
            ell_vals[slot] = k < len ? vals[start + k] : T(0);
        }
    }
}

template <class I>
__global__ void sparse_ell_lengths(const I* __restrict__ ell_cols, long long m, long long width,
                                   long long ld, I* __restrict__ lengths) {
    PRIM_GRID_STRIDE(r, m) {
        i64 k = 0;
        while (k < width && ell_cols[k * ld + r] >= 0) ++k;
        lengths[r] = static_cast<I>(k);
    }
}

template <class T, class I>
__global__ void sparse_ell_to_csr(const I* __restrict__ ell_cols, const T* __restrict__ ell_vals,
                                  long long m, long long width, long long ld,
                                  const I* __restrict__ rowptr, I* __restrict__ cols,
                                  T* __restrict__ vals) {
    PRIM_GRID_STRIDE(r, m) {
        const i64 start = rowptr[r];
        for (i64 k = 0; k < width; ++k) {
            const i64 slot = k * ld + r;
            const I c = ell_cols[slot];
            if (c < 0) break;
            cols[start + k] = c;
            vals[start + k] = ell_vals[slot];
        }
    }
}

template <class T, class I>
__global__ void sparse_hyb_overflow(const I* __restrict__ rowptr, const I* __restrict__ cols,
                                    const T* __restrict__ vals, long long m, long long width,
                                    const I* __restrict__ ovf, long long total,
                                    I* __restrict__ coo_rows, I* __restrict__ coo_cols,
                                    T* __restrict__ coo_vals) {
    PRIM_GRID_STRIDE(q, total) {
        const i64 r = prim::upper_bound(ovf, m + 1, q) - 1;
        const i64 src = static_cast<i64>(rowptr[r]) + width + (q - static_cast<i64>(ovf[r]));
        coo_rows[q] = static_cast<I>(r);
        coo_cols[q] = cols[src];
        coo_vals[q] = vals[src];
    }
}

template <class T, class I>
__global__ void sparse_coo_to_csr_part(const I* __restrict__ coo_rows,
                                       const I* __restrict__ coo_cols,
                                       const T* __restrict__ coo_vals, long long n,
                                       const I* __restrict__ coo_rowptr,
                                       const I* __restrict__ rowptr, const I* __restrict__ skip,
                                       I* __restrict__ cols, T* __restrict__ vals) {
    PRIM_GRID_STRIDE(q, n) {
        const i64 r = coo_rows[q];
        const i64 dst =
            static_cast<i64>(rowptr[r]) + skip[r] + (q - static_cast<i64>(coo_rowptr[r]));
        cols[dst] = coo_cols[q];
        vals[dst] = coo_vals[q];
    }
}

// ell.cu -- y = alpha*A*x + beta*y for A in ELL (ELLPACK): every row padded to `width` slots,
// stored column-major with leading dimension ld >= m, so that slot k of row r lives at
// k*ld + r and the rows of a warp read consecutive addresses at every k (coalesced).
//
// Templated on T (float, double, prim::c64, prim::c128) and I (int, long long). Sizes and offsets
// are 64-bit.
//
// spmv_ell<T, I, WIDTH>: one thread per row (Bell & Garland 2008, "ELL"), grid-stride over rows.
//   A row's entries fill its first slots in column order; padding slots hold column
//   prim::ELL_PAD (-1) and value 0, and are never multiplied (0*inf would be NaN). Every slot is
//   read by one coalesced warp access: streaming (evict-first) loads, so that L2 keeps x for the
//   gathers.
//   WIDTH 1..8, the matrix's width known at compile time: a thread issues the loads of all its
//     slots, columns and values, at once, then the gathers of x for its entries (one round trip
//     to memory before the gathers; the runtime loop below takes two for a width of 5 and runs
//     the 2-D Poisson matrix 17% slower on an H200).
//   WIDTH 0, any width: rounds of 4 column loads; a slot's value is loaded only for an entry,
//     and the thread stops at the first padding slot, so a warp reads no further than its
//     longest row (rounded up to the 4 column loads a thread issues at once).
// spmv_ell_rows<T, I, WIDTH>: the same over an ELL that stores only some rows (those holding
//   entries): stored row r is row rows[r] of y. As the COO kernel, it adds alpha*sum to a y
//   that holds beta*y already (spmv_scale, coo.cu, writes it to every row first).
//   Launch: 1-D, any block and grid (the host covers the rows, one thread each). No shared
//   memory. Preconditions: cols/vals hold width*ld elements, 0 <= cols < len(x) or ELL_PAD, every
//   padding slot of a row comes after its entries, and WIDTH is 0 or the width; m is the number
//   of stored rows, and rows (spmv_ell_rows) holds m distinct rows of y.
#include "util/prim.cuh"
#include "sparse/sparse.cuh"

using prim::i64;

namespace {
template <class T>
struct EveryRow {  // every row stored: y[r] = alpha*sum + beta*y[r]
    T* y;
    T alpha, beta;
    __device__ __forceinline__ void operator()(i64 r, T sum) const {
        prim::axpby_store(y, r, sum, alpha, beta);
    }
};
template <class T, class I>
struct StoredRow {  // stored row r is row rows[r]: y[row] += alpha*sum (y holds beta*y)
    const I* rows;
    T* y;
    T alpha;
    __device__ __forceinline__ void operator()(i64 r, T sum) const {
        const i64 row = static_cast<i64>(__ldcs(rows + r));
        prim::store_cs(y + row, prim::load_cs(y + row) + alpha * sum);
    }
};
}  // namespace

// The rows [0, m) of the ELL, a thread each, grid-stride; row r's sum goes to store(r, sum).
template <class T, class I, int WIDTH, class Store>
__device__ __forceinline__ void ell_product(const I* __restrict__ cols, const T* __restrict__ vals,
                                            const T* __restrict__ x, long long m, long long width,
                                            long long ld, Store store) {
    static_assert(WIDTH >= 0 && WIDTH <= 8, "spmv_ell: WIDTH is 0 (any) or 1..8");
    constexpr int UNROLL = 4;  // column loads in flight per thread (WIDTH 0)
    const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
    for (i64 r = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; r < m; r += stride) {
        T sum = T(0);
        if constexpr (WIDTH > 0) {
            I c[WIDTH];
            T v[WIDTH];
#pragma unroll
            for (int k = 0; k < WIDTH; ++k) {
                c[k] = __ldcs(cols + k * ld + r);
                v[k] = prim::load_cs(vals + k * ld + r);
            }
#pragma unroll
            for (int k = 0; k < WIDTH; ++k)
                if (c[k] >= 0) sum += v[k] * prim::load_ro(x + static_cast<i64>(c[k]));
        } else {
            for (i64 k0 = 0; k0 < width; k0 += UNROLL) {
                I c[UNROLL];
#pragma unroll
                for (int u = 0; u < UNROLL; ++u)
                    c[u] = k0 + u < width ? __ldcs(cols + (k0 + u) * ld + r) : I(prim::ELL_PAD);
#pragma unroll
                for (int u = 0; u < UNROLL; ++u)
                    if (c[u] >= 0)
                        sum += prim::load_cs(vals + (k0 + u) * ld + r) *
                            prim::load_ro(x + static_cast<i64>(c[u]));
                if (c[UNROLL - 1] < 0) break;
            }
        }
        store(r, sum);
    }
}

template <class T, class I, int WIDTH>
__global__ void spmv_ell(const I* __restrict__ cols, const T* __restrict__ vals,
                         const T* __restrict__ x, long long m, long long width, long long ld,
                         T alpha, T beta, T* __restrict__ y) {
    ell_product<T, I, WIDTH>(cols, vals, x, m, width, ld, EveryRow<T>{y, alpha, beta});
}

template <class T, class I, int WIDTH>
__global__ void spmv_ell_rows(const I* __restrict__ cols, const T* __restrict__ vals,
                              const I* __restrict__ rows, const T* __restrict__ x, long long m,
                              long long width, long long ld, T alpha, T* __restrict__ y) {
    ell_product<T, I, WIDTH>(cols, vals, x, m, width, ld, StoredRow<T, I>{rows, y, alpha});
}

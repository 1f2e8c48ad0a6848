// csr.cu -- y = alpha*A*x + beta*y for A in CSR (row pointers, column indices, values).
//
// Templated on the value type T (float, double, prim::c64, prim::c128: NumPy's complex64 and
// complex128, util/complex.cuh) and the index type I (int, long long) of rowptr and cols. Values
// are loaded and stored through sparse/sparse.cuh's load_ro/load_cs/store_cs. Sizes and offsets are
// 64-bit. y is written with streaming stores, and merge_path, which reads each line of the matrix
// once in a coalesced access, reads it with streaming (evict-first) loads: L2 then keeps x, whose
// gathers are what the caches are for. The row-parallel kernels read the matrix through the
// read-only path instead: a thread or group walks along its row and finds the rest of the row's
// lines in L1. Every kernel writes each y[r] exactly once and adds in an order fixed by the matrix
// and the launch shape: results are repeatable bit for bit.
// Precondition for all: rowptr is non-decreasing with rowptr[0] == 0, 0 <= cols[j] < len(x).
//
// spmv_csr_scalar: one thread per row (Bell & Garland, "Efficient sparse matrix-vector
//   multiplication on CUDA", 2008, "CSR (scalar)"); a grid-stride loop over rows. Launch: 1-D,
//   any block and grid. No shared memory. Loads of a warp's rows are scattered: best for short,
//   even rows.
// spmv_csr_vector<LANES>: a group of LANES consecutive lanes (2..32, a power of two) per row, each
//   lane striding over the row by LANES, then a butterfly of shuffles within the group
//   (prim::shfl_xor: one __shfl_xor_sync per 32-bit word of T) ("CSR (vector)", with the group
//   width chosen from the mean row length). The loop runs over the warp's first row so that its
//   trip count is uniform across the warp and every lane reaches the shuffles. Launch: 1-D,
//   blockDim.x a multiple of 32, any grid. No shared memory.
// spmv_merge_partition: for each tile boundary b, the merge-path coordinate of diagonal
//   b*TILE (binary search over rowptr): part[b] = row ends consumed. Launch: 1-D grid-stride over
//   ntiles + 1 boundaries. Run once per matrix and tile size; the host caches the result.
// spmv_merge_path<BLOCK, ITEMS>: merge-based CSR (Merrill & Garland, SC16). The rows' end offsets
//   and the nonzeros are merged into one path of m + nnz items; tile t (one block) takes path
//   items [t*TILE, (t+1)*TILE), TILE = BLOCK*ITEMS, whatever the row lengths. The block stages
//   its row ends (rowptr) and its products vals[j]*x[cols[j]] (coalesced loads) in shared
//   memory, each thread searches its own diagonal within the tile and consumes ITEMS path items
//   in one pass: a nonzero adds its product, a row end closes the row. Rows that start and end
//   within a thread are written at once; a block-wide exclusive scan of (row end, sum) pairs
//   under prim::RowSum = Segmented<Sum, HeadFirst> (block_scan_by_key of sparse/by_key.cuh, one
//   barrier) hands each thread the partial sum of the row open at its start, for the row its
//   first row end closes. The thread that consumes row r's end writes y[r] = alpha*(partial
//   within the tile) + beta*y[r].
//   The partial sum of the row still open at the tile's end (carry-out: row, value; row -1 when
//   the tile holds none of it) goes to carry_rows/carry_vals[t], to be added by
//   spmv_carry_fixup (coo.cu) in a following launch: no atomics. Launch: blockDim.x == BLOCK,
//   gridDim.x == number of tiles. Shared memory: static, TILE * (sizeof(I) + sizeof(T)) plus
//   BLOCK/32 scan pairs (prim::RowPair<T>), at most 48 KiB: the tile policy of each value type
//   must fit it (256x8 holds float32 to complex64 with long long indices, complex128 needs a
//   tile of 1024 items).
#include "util/prim.cuh"
#include "util/search.cuh"
#include "warp/shfl.cuh"
#include "sparse/sparse.cuh"
#include "sparse/by_key.cuh"

using prim::i64;

template <class T, class I>
__global__ void spmv_csr_scalar(const I* __restrict__ rowptr, const I* __restrict__ cols,
                                const T* __restrict__ vals, const T* __restrict__ x, long long m,
                                T alpha, T beta, T* __restrict__ y) {
    const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
    for (i64 r = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; r < m; r += stride) {
        const i64 end = __ldg(rowptr + r + 1);
        T sum = T(0);
#pragma unroll 4
        for (i64 j = __ldg(rowptr + r); j < end; ++j) sum += prim::product(vals, cols, x, j);
        prim::axpby_store(y, r, sum, alpha, beta);
    }
}

template <class T, class I, int LANES>
__global__ void spmv_csr_vector(const I* __restrict__ rowptr, const I* __restrict__ cols,
                                const T* __restrict__ vals, const T* __restrict__ x, long long m,
                                T alpha, T beta, T* __restrict__ y) {
    static_assert(LANES >= 1 && LANES <= 32 && (LANES & (LANES - 1)) == 0,
                  "spmv_csr_vector: LANES must be a power of two in [1, 32]");
    constexpr int ROWS_PER_WARP = prim::WARP / LANES;
    const int lane = threadIdx.x % prim::WARP;
    const int sub = lane % LANES;  // lane within the row's group
    const int slot = lane / LANES;  // the group's row within the warp's rows
    const i64 warps = static_cast<i64>(gridDim.x) * (blockDim.x / prim::WARP);
    const i64 warp =
        static_cast<i64>(blockIdx.x) * (blockDim.x / prim::WARP) + threadIdx.x / prim::WARP;
    for (i64 first = warp * ROWS_PER_WARP; first < m; first += warps * ROWS_PER_WARP) {
        const i64 r = first + slot;
        T sum = T(0);
        if (r < m) {
            const i64 end = __ldg(rowptr + r + 1);
#pragma unroll 4
            for (i64 j = __ldg(rowptr + r) + sub; j < end; j += LANES)
                sum += prim::product(vals, cols, x, j);
        }
#pragma unroll
        for (int offset = LANES / 2; offset > 0; offset >>= 1) sum += prim::shfl_xor(sum, offset);
        if (r < m && sub == 0) prim::axpby_store(y, r, sum, alpha, beta);
    }
}

template <class I>
__global__ void spmv_merge_partition(const I* __restrict__ rowptr, long long m, long long nnz,
                                     long long tile, long long ntiles, I* __restrict__ part) {
    const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
    const i64 total = m + nnz;
    for (i64 b = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; b <= ntiles;
         b += stride) {
        const i64 diag = b * tile < total ? b * tile : total;
        part[b] = static_cast<I>(prim::merge_path_search(rowptr + 1, m, 0, diag, nnz));
    }
}

template <class T, class I, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    spmv_merge_path(const I* __restrict__ rowptr, const I* __restrict__ cols,
                    const T* __restrict__ vals, const T* __restrict__ x, long long m, long long nnz,
                    T alpha, T beta, T* __restrict__ y, const I* __restrict__ part,
                    I* __restrict__ carry_rows, T* __restrict__ carry_vals) {
    constexpr int TILE = BLOCK * ITEMS;
    __shared__ I s_ends[TILE];
    __shared__ T s_prod[TILE];
    __shared__ prim::RowPair<T> s_warp[BLOCK / prim::WARP];

    const i64 tile = blockIdx.x;
    const i64 d0 = tile * TILE;
    const i64 d1 = d0 + TILE < m + nnz ? d0 + TILE : m + nnz;
    const i64 i0 = part[tile], i1 = part[tile + 1];
    const i64 j0 = d0 - i0, j1 = d1 - i1;
    const int n_ends = static_cast<int>(i1 - i0);
    const int n_nz = static_cast<int>(j1 - j0);
    const int len = n_ends + n_nz;

    // stage the tile: row ends and products, coalesced, every load of a thread issued before
    // the first is used (n_ends + n_nz <= TILE, so ITEMS strided rounds cover each list)
    {
        I c[ITEMS];
        T v[ITEMS];
#pragma unroll
        for (int it = 0; it < ITEMS; ++it) {
            const int k = it * BLOCK + threadIdx.x;
            if (k < n_ends) s_ends[k] = __ldcs(rowptr + i0 + 1 + k);
            if (k < n_nz) {
                c[it] = __ldcs(cols + j0 + k);
                v[it] = prim::load_cs(vals + j0 + k);
            }
        }
#pragma unroll
        for (int it = 0; it < ITEMS; ++it) {
            const int k = it * BLOCK + threadIdx.x;
            if (k < n_nz) s_prod[k] = v[it] * prim::load_ro(x + static_cast<i64>(c[it]));
        }
    }
    __syncthreads();

    // this thread's ITEMS path items start at diagonal dt of the tile
    const int dt = threadIdx.x * ITEMS < len ? threadIdx.x * ITEMS : len;
    const int dend = dt + ITEMS < len ? dt + ITEMS : len;
    const int a0 = static_cast<int>(prim::merge_path_search(s_ends, n_ends, j0, dt, n_nz));
    const int b0 = dt - a0;

    // one pass over the thread's items. A row end closes a row: every row whose end comes after
    // the thread's first row end started within this thread and is final at once; the first
    // one may have started in an earlier thread (or tile), so it waits for the scan.
    T running = T(0);
    T first = T(0);  // the thread's part of the row its first row end closes
    int first_end = -1;  // that row, tile-local; -1: no row ends here
    {
        int a = a0, b = b0;
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            if (dt + k < dend) {
                if (a < n_ends && (b >= n_nz || static_cast<i64>(s_ends[a]) <= j0 + b)) {
                    if (first_end < 0) {
                        first_end = a;
                        first = running;
                    } else {
                        prim::axpby_store(y, i0 + a, running, alpha, beta);
                    }
                    running = T(0);
                    ++a;
                } else {
                    running += s_prod[b];
                    ++b;
                }
            }
        }
    }
    // (any row end, sum since the last one) over the block: each thread gets the sum of the
    // row open at its start, accumulated by the threads before it
    prim::RowPair<T> mine;
    mine.head = first_end >= 0;
    mine.value = running;
    prim::RowPair<T> tile_total;
    const prim::RowPair<T> before =
        prim::block_scan_by_key<BLOCK>(mine, prim::RowSum<T>(), s_warp, tile_total);
    if (first_end >= 0) prim::axpby_store(y, i0 + first_end, before.value + first, alpha, beta);

    // carry-out: the partial sum of row i1, if the tile holds any of its nonzeros
    if (threadIdx.x == 0) {
        const i64 row_start = n_ends > 0 ? static_cast<i64>(s_ends[n_ends - 1]) : j0;
        const bool open = i1 < m && j1 > row_start;
        carry_rows[tile] = open ? static_cast<I>(i1) : static_cast<I>(-1);
        carry_vals[tile] = open ? tile_total.value : T(0);
    }
}

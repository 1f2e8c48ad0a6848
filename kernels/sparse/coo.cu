// coo.cu -- y += alpha*A*x for A in COO sorted by row, by a segmented reduction over row keys;
// the carry fix-up that merge-path and COO products finish with; y = beta*y.
//
// Templated on T (float, double, prim::c64, prim::c128) and I (int, long long). Sizes are 64-bit.
//
// The reduction by key (reduce_by_key_tile): a sequence of (key, value) items whose keys are
// non-decreasing, except for -1 keys that stand for "no row" and never sit between two items of
// one row. Tile t (one block of BLOCK threads) takes items [t*TILE, (t+1)*TILE), TILE =
// BLOCK*ITEMS; thread k the ITEMS consecutive items from t*TILE + k*ITEMS. Each thread folds its
// items into a (head, value) pair under prim::RowSum = Segmented<Sum, HeadFirst>, a block-wide
// exclusive scan of the pairs (block_scan_by_key of sparse/by_key.cuh, one barrier) gives it the
// partial sum of the row open at its start, and it walks its items again: at the last item of a
// row it adds alpha*(the row's sum within the tile) to y[row]. The row still open at the end of
// the tile (its next item lies in tile t+1) is not written but handed on as the tile's carry:
// carry_keys[t] = row, carry_vals[t] = partial sum (row -1 when no row is open).
// Within one launch every y[row] is written by one thread only (the one holding the row's last
// item), and the carries, a sequence of the same kind one TILE-th as long, are added by a further
// launch of spmv_carry_fixup; the host repeats until one tile is left, whose carry is always -1.
// A row spread over many tiles (a hot row) thus costs O(log) launches of ever smaller size, with
// no atomics, and its sum is formed in an order fixed by the tile size: results are repeatable.
//
// spmv_coo<BLOCK, ITEMS>: items are the products vals[e]*x[cols[e]] keyed by rows[e]. The y it
//   accumulates into must hold beta*y already (spmv_scale, or the ELL part of a HYB product).
// spmv_carry_fixup<BLOCK, ITEMS>: items are the carries of a previous launch.
// spmv_scale: y = beta*y (y = 0 when beta == 0, without reading y). Grid-stride.
// Launch of the tile kernels: blockDim.x == BLOCK, gridDim.x == ceil(n / TILE) >= 1. Shared
// memory: static, BLOCK/32 scan pairs (prim::RowPair<T>). Preconditions: keys as above,
// -1 <= key < len(y).
#include "util/prim.cuh"
#include "sparse/sparse.cuh"
#include "sparse/by_key.cuh"

using prim::i64;

namespace prim {

template <class T, class I>
struct CooProducts {
    const T* vals;
    const I* cols;
    const T* x;
    __device__ __forceinline__ T operator()(i64 e) const { return product(vals, cols, x, e); }
};

template <class T>
struct CarryValues {
    const T* vals;
    __device__ __forceinline__ T operator()(i64 e) const { return vals[e]; }
};

template <int BLOCK, int ITEMS, class T, class I, class Load>
__device__ __forceinline__ void reduce_by_key_tile(const I* __restrict__ keys, i64 n, Load load,
                                                   T alpha, T* __restrict__ y,
                                                   I* __restrict__ carry_keys,
                                                   T* __restrict__ carry_vals,
                                                   RowPair<T>* warp_totals) {
    constexpr int TILE = BLOCK * ITEMS;
    static_assert(ITEMS <= 32, "reduce_by_key_tile: at most 32 items per thread");
    const i64 e0 = static_cast<i64>(blockIdx.x) * TILE;
    const i64 e1 = e0 + TILE < n ? e0 + TILE : n;
    const i64 first = e0 + static_cast<i64>(threadIdx.x) * ITEMS;
    const int count = first >= e1 ? 0 : (e1 - first < ITEMS ? static_cast<int>(e1 - first) : ITEMS);

    I key[ITEMS];
    T val[ITEMS];
    unsigned heads = 0;  // bit k: item k starts a row within the tile
    typedef RowSum<T> SOp;
    const SOp sop;
    RowPair<T> mine = SOp::identity();
    I prev = count > 0 && first > e0 ? keys[first - 1] : I(0);
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        if (k < count) {
            key[k] = __ldg(keys + first + k);
            val[k] = load(first + k);
            RowPair<T> item;
            item.head = (k == 0 && first == e0) || key[k] != prev;
            item.value = val[k];
            heads |= static_cast<unsigned>(item.head) << k;
            mine = sop(mine, item);
            prev = key[k];
        }
    }
    RowPair<T> tile_total;
    const RowPair<T> before = block_scan_by_key<BLOCK>(mine, sop, warp_totals, tile_total);
    (void)tile_total;

    T running = before.value;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        if (k < count) {
            running = (heads >> k) & 1u ? val[k] : running + val[k];
            const i64 e = first + k;
            if (e + 1 < e1) {
                const I next = k + 1 < count ? key[k + 1] : keys[e + 1];
                if (next != key[k] && key[k] >= 0) y[key[k]] += alpha * running;
            } else {  // the tile's last item: its row ends here, or is carried to the next tile
                const bool open = e1 < n && keys[e1] == key[k];
                if (!open && key[k] >= 0) y[key[k]] += alpha * running;
                carry_keys[blockIdx.x] = open ? key[k] : I(-1);
                carry_vals[blockIdx.x] = open ? running : T(0);
            }
        }
    }
}

}  // namespace prim

template <class T, class I, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    spmv_coo(const I* __restrict__ rows, const I* __restrict__ cols, const T* __restrict__ vals,
             const T* __restrict__ x, long long nnz, T alpha, T* __restrict__ y,
             I* __restrict__ carry_keys, T* __restrict__ carry_vals) {
    __shared__ prim::RowPair<T> s_warp[BLOCK / prim::WARP];
    const prim::CooProducts<T, I> load{vals, cols, x};
    prim::reduce_by_key_tile<BLOCK, ITEMS>(rows, nnz, load, alpha, y, carry_keys, carry_vals,
                                           s_warp);
}

template <class T, class I, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    spmv_carry_fixup(const I* __restrict__ keys, const T* __restrict__ vals, long long n, T alpha,
                     T* __restrict__ y, I* __restrict__ carry_keys, T* __restrict__ carry_vals) {
    __shared__ prim::RowPair<T> s_warp[BLOCK / prim::WARP];
    const prim::CarryValues<T> load{vals};
    prim::reduce_by_key_tile<BLOCK, ITEMS>(keys, n, load, alpha, y, carry_keys, carry_vals, s_warp);
}

template <class T>
__global__ void spmv_scale(T* __restrict__ y, long long m, T beta) {
    const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
    for (i64 r = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; r < m; r += stride)
        y[r] = beta == T(0) ? T(0) : beta * y[r];
}

// ell.cu -- y = alpha*A*x + beta*y for A in ELL (ELLPACK): every row padded to `width` slots,
// stored column-major with leading dimension ld >= m, so that slot k of row r lives at
// k*ld + r and the rows of a warp read consecutive addresses at every k (coalesced).
//
// Templated on T (float, double, prim::c64, prim::c128) and I (int, long long). Sizes and offsets
// are 64-bit.
//
// spmv_ell: one thread per row (Bell & Garland 2008, "ELL"), grid-stride over rows. A row's
//   entries fill its first slots in column order; padding slots hold column prim::ELL_PAD (-1)
//   and value 0, and the thread stops at the first one, so padding is never multiplied (0*inf
//   would be NaN) and a warp reads no further than its longest row (rounded up to the 4 column
//   loads a thread issues at once). Every slot is read once, by one coalesced warp access:
//   streaming (evict-first) loads, so that L2 keeps x for the gathers. Launch: 1-D, any block and
//   grid. No shared memory. Preconditions: cols/vals hold width*ld elements, 0 <= cols < len(x)
//   or ELL_PAD, and every padding slot of a row comes after its entries.
#include "common/prim.cuh"
#include "common/sparse.cuh"

using prim::i64;

template <class T, class I>
__global__ void spmv_ell(const I* __restrict__ cols, const T* __restrict__ vals,
                         const T* __restrict__ x, long long m, long long width, long long ld,
                         T alpha, T beta, T* __restrict__ y) {
    constexpr int UNROLL = 4;  // column loads in flight per thread
    const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
    for (i64 r = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; r < m; r += stride) {
        T sum = T(0);
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
        prim::axpby_store(y, r, sum, alpha, beta);
    }
}

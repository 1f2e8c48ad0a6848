// rows.cu -- top-k selection with a block per short row (prim.topk, prim.argpartition,
// prim.partition: variant "rows", and the rows that warp_rows.cu leaves).
//
// Selection works on the order-preserving unsigned image of each key (util/key_image.cuh:
// `ordered`, with the descending flip for largest = true, so NaNs come first there and last
// otherwise): the k winners of a row are the k smallest (image, index) pairs, so equal keys are
// taken from the lowest indices (a stable selection). Rows are contiguous, `len` keys each, row r
// at r * len.
//
// Short rows (select_rows<U, BLOCK>): one block per row, the row's images in dynamic shared
//   memory (16-byte loads when the row is aligned). The bits above the highest bit where the
//   row's smallest and largest image differ are fixed at once (two block reductions); an MSD
//   radix select of 8-bit digits below them over the shared copy (256 shared counters, a block
//   scan per digit) stops as soon as every candidate left is a winner; ties at the threshold are
//   then taken by position. Each thread owns a run of consecutive positions: one block scan of
//   its (LT, EQ) counts gives every winner its place in index order. Unsorted: written so,
//   straight to global memory. Sorted: staged in shared memory (after the row) and ranked by
//   counting, as select_rank_sort. Launch: grid = rows, BLOCK threads, dynamic shared memory
//   len * sizeof(U) rounded up to 16 bytes, plus k * sizeof(U) and k * 4 bytes, each rounded up
//   to 16, when sorted (16-byte loads read the staged arrays to the end of their last word); or,
//   when `listed`, the rows of a row list (those select_warp_rows left) with any grid: block b
//   takes entries b, b + grid, ... of its *list_count rows, writing the winners' key bits in
//   place of their images (as select_warp_rows). Preconditions: 1 <= k <= len;
//   len * sizeof(U) within the policy's row_bytes.
#include "util/prim.cuh"
#include "util/load.cuh"
#include "util/key_image.cuh"
#include "block/reduce.cuh"
#include "block/scan.cuh"
#include "selection/select.cuh"

// A block per row of at most the policy's row_bytes: see the header.
template <class U, int BLOCK>
__device__ __forceinline__ void rows_select(const U* __restrict__ keys, long long row_index,
                                            long long len, long long k, int kind, int descending,
                                            int sorted, U* __restrict__ out_img,
                                            long long* __restrict__ out_idx,
                                            bool key_bits = false) {
    using namespace prim::select;
    constexpr int BITS = 8;
    constexpr int RADIX = 1 << BITS;
    constexpr int VN = prim::Vec16<U>::N;
    static_assert(BLOCK >= RADIX, "select_rows: a thread per digit");
    PRIM_DYNAMIC_SHARED(U, row);
    __shared__ unsigned counts[RADIX];
    __shared__ unsigned long long scratch[BLOCK / prim::WARP];
    __shared__ U s_prefix, s_mask;
    __shared__ U s_lo[BLOCK / prim::WARP], s_hi[BLOCK / prim::WARP];
    __shared__ long long s_k_rem, s_count;
    const prim::radix::DigitOf<U> dig(kind, descending, 0, 1);
    const U* rk = keys + row_index * len;
    const int n = static_cast<int>(len);
    if ((reinterpret_cast<prim::uptr>(rk) & 15u) == 0) {
        const int vecs = n / VN;
        constexpr int IN_FLIGHT = 4;  // loads issued before any is stored
        for (int v0 = threadIdx.x; v0 < vecs; v0 += BLOCK * IN_FLIGHT) {
            prim::Packet<U> p[IN_FLIGHT];
#pragma unroll
            for (int u = 0; u < IN_FLIGHT; ++u)
                if (v0 + u * BLOCK < vecs) p[u] = prim::load16(rk + (v0 + u * BLOCK) * VN);
#pragma unroll
            for (int u = 0; u < IN_FLIGHT; ++u) {
                const int v = v0 + u * BLOCK;
                if (v < vecs) {
#pragma unroll
                    for (int e = 0; e < VN; ++e) row[v * VN + e] = dig.image(p[u].v[e]);
                }
            }
        }
        for (int i = vecs * VN + threadIdx.x; i < n; i += BLOCK) row[i] = dig.image(rk[i]);
    } else {
        for (int i = threadIdx.x; i < n; i += BLOCK) row[i] = dig.image(rk[i]);
    }
    // the bits every key shares (above the highest bit where the smallest and the largest
    // image differ) are fixed at once: floats of one binade skip their exponent's digits
    __syncthreads();  // the row is loaded
    U least = prim::Limits<U>::max(), most = 0;
    for (int i = threadIdx.x; i < n; i += BLOCK) {
        least = row[i] < least ? row[i] : least;
        most = row[i] > most ? row[i] : most;
    }
    least = prim::block_reduce<BLOCK>(least, prim::Min<U>(), s_lo);
    __syncthreads();  // s_lo's words are read by warp 0 above before they hold the result
    most = prim::block_reduce<BLOCK>(most, prim::Max<U>(), s_hi);
    if (threadIdx.x == 0) {
        s_lo[0] = least;
        s_hi[0] = most;
    }
    __syncthreads();
    least = s_lo[0];
    const U diff = least ^ s_hi[0];
    constexpr int UBITS = static_cast<int>(sizeof(U)) * 8;
    const int top = diff == 0 ? -1
                              : UBITS - 1 -
            (sizeof(U) == 4 ? __clz(static_cast<int>(diff))
                            : __clzll(static_cast<long long>(diff)));
    U mask = top == UBITS - 1 ? static_cast<U>(0) : ~((static_cast<U>(1) << (top + 1)) - 1);
    U prefix = least & mask;
    long long k_rem = k, count = len;
    // 8-bit digits from the highest differing bit down; the last one starts at bit 0 (its bits
    // above the previous digit's are fixed already)
    for (int shift = top + 1 - BITS; shift > -BITS && count != k_rem; shift -= BITS) {
        const int sh = shift < 0 ? 0 : shift;
        // (its first barrier also orders the s_* reads of the digit before)
        digit_bucket<U, BLOCK>(row, n, prefix, mask, sh, k_rem, counts, scratch,
                               [&](U digit, long long below, long long c) {
                                   s_prefix = (prefix & ~(static_cast<U>(RADIX - 1) << sh)) |
                                       (digit << sh);
                                   s_mask = mask | (static_cast<U>(RADIX - 1) << sh);
                                   s_k_rem = k_rem - below;
                                   s_count = c;
                               });
        __syncthreads();
        prefix = s_prefix;
        mask = s_mask;
        k_rem = s_k_rem;
        count = s_count;
    }
    // every LT key wins, and the first k_rem EQ keys by position: a run of positions per thread
    const int run = (n + BLOCK - 1) / BLOCK;
    const int lo = threadIdx.x * run;
    const int hi = lo + run < n ? lo + run : n;
    unsigned long long lt = 0, eq = 0;
    for (int i = lo; i < hi; ++i) {
        const U im = row[i] & mask;
        lt += im < prefix;
        eq += im == prefix;
    }
    unsigned long long total;
    const unsigned long long pos = prim::block_exclusive_scan<BLOCK>(
        (lt << 32) | eq, prim::Sum<unsigned long long>(), scratch, total);
    long long lt_before = static_cast<long long>(pos >> 32);
    long long eq_before = static_cast<long long>(pos & 0xffffffffull);
    long long o = lt_before + (eq_before < k_rem ? eq_before : k_rem);
    U* stage_img = reinterpret_cast<U*>(row + ((len * sizeof(U) + 15) / 16) * (16 / sizeof(U)));
    // each staged array on 16-byte boundaries, whole 16-byte words: the ranking's loops are
    // compiled to 16-byte shared loads, which read up to the end of the word holding the last one
    int* stage_pos =
        reinterpret_cast<int*>(stage_img + ((k * sizeof(U) + 15) / 16) * (16 / sizeof(U)));
    U* gi = out_img + row_index * k;
    long long* gx = out_idx + row_index * k;
    for (int i = lo; i < hi; ++i) {
        const U full = row[i];
        const U im = full & mask;
        bool win = im < prefix;
        if (im == prefix) win = eq_before++ < k_rem;
        if (win) {
            if (sorted) {
                stage_img[o] = full;
                stage_pos[o] = i;
            } else {
                gi[o] = key_bits ? rk[i] : full;
                gx[o] = i;
            }
            ++o;
        }
    }
    if (sorted) {
        __syncthreads();
        // staged in index order: winner j ranks below winner w when its image is smaller, or
        // equal with j < w
        for (int w = threadIdx.x; w < k; w += BLOCK) {
            const U a = stage_img[w];
            long long rank = 0;
            for (int j = 0; j < k; ++j) {
                const U b = stage_img[j];
                rank += b < a || (b == a && j < w);
            }
            gi[rank] = key_bits ? rk[stage_pos[w]] : a;
            gx[rank] = stage_pos[w];
        }
    }
}

// The row-list form runs the rows the warp-per-row kernel left (see the header).
template <class U, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    select_rows(const U* __restrict__ keys, long long len, long long k, int kind, int descending,
                int sorted, int listed, const long long* __restrict__ row_list,
                const unsigned long long* __restrict__ list_count, U* __restrict__ out_img,
                long long* __restrict__ out_idx) {
    if (!listed) {
        rows_select<U, BLOCK>(keys, blockIdx.x, len, k, kind, descending, sorted, out_img, out_idx);
        return;
    }
    const long long count = static_cast<long long>(*list_count);
    for (long long e = blockIdx.x; e < count; e += gridDim.x) {  // block-uniform
        rows_select<U, BLOCK>(keys, row_list[e], len, k, kind, descending, sorted, out_img, out_idx,
                              true);
        __syncthreads();  // the shared row is rewritten by the next one
    }
}

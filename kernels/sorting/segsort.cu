// segsort.cu -- segmented radix sort of small segments: every segment sorted independently in
// on-chip memory, one launch for all segments (Python sorts inputs with longer segments by a
// stable device-wide sort on the key, then on the segment number).
//
// segsort_warp<U, V, VALUES, ITEMS>: a warp per segment of at most 32 * ITEMS keys (4 warps per
//   block, grid = ceil(segments / 4)); a one-key segment is copied, longer segments are left to
//   segsort_block.
//   The warp loads the segment warp-striped into registers and runs an LSD radix sort of 8-bit
//   digits over [begin_bit, end_bit): per digit, a count into the warp's 256 shared counters, an
//   exclusive scan of them (8 per lane and a shuffle scan), warp_rank (radix.cuh) from those
//   starts, and an exchange of keys and their original positions through the warp's shared buffers
//   into digit order. A digit equal for the whole segment is skipped. At the end keys are written
//   in order and values gathered from their original positions. Only __syncwarp: warps are
//   independent. Static shared memory per warp: 256 counters, 32 * ITEMS keys and positions.
// segsort_block<U, V, VALUES, BLOCK, ITEMS>: a block per segment of more than `small` and at most
//   BLOCK * ITEMS keys (grid = segments; other blocks exit at once), the same sort with
//   block_count and block_rank: block_sort_tile (sorting/block.cuh, shared with block_sort), then
//   keys written in order and values gathered from their original positions. Dynamic shared
//   memory: block_sort_smem<U, BLOCK, ITEMS>() bytes (rank counters rounded up to 16 bytes,
//   TILE keys and TILE 16-bit positions).
// Preconditions: offsets non-decreasing, offsets[0] = 0, offsets[segments] = n; out-of-place.
#include "util/prim.cuh"
#include "util/key_image.cuh"
#include "warp/scan.cuh"
#include "sorting/block.cuh"
#include "sorting/radix.cuh"

namespace seg {
constexpr int BITS = 8;
constexpr int RADIX = 256;
constexpr int WARPS = 4;  // segsort_warp: warps (segments) per block
}  // namespace seg

template <class U, class V, bool VALUES, int ITEMS>
__global__ void __launch_bounds__(seg::WARPS* prim::WARP)
    segsort_warp(const U* __restrict__ keys_in, U* __restrict__ keys_out,
                 const V* __restrict__ vals_in, V* __restrict__ vals_out,
                 const long long* __restrict__ offsets, long long segments, int kind,
                 int descending, int begin_bit, int end_bit) {
    using namespace prim::radix;
    constexpr int CAP = prim::WARP * ITEMS;
    __shared__ unsigned counts[seg::WARPS][seg::RADIX];
    __shared__ U kbuf[seg::WARPS][CAP];
    __shared__ unsigned ibuf[seg::WARPS][CAP];
    const int warp = threadIdx.x / prim::WARP, lane = threadIdx.x % prim::WARP;
    const long long s = static_cast<long long>(blockIdx.x) * seg::WARPS + warp;
    if (s >= segments) return;  // warp-uniform exits: no block barrier in this kernel
    const long long a = offsets[s];
    const long long len = offsets[s + 1] - a;
    if (len == 1 && lane == 0) {
        keys_out[a] = keys_in[a];
        if (VALUES) vals_out[a] = vals_in[a];
    }
    if (len <= 1 || len > CAP) return;
    const int n = static_cast<int>(len);
    U key[ITEMS];
    unsigned idx[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        idx[k] = k * prim::WARP + lane;
        key[k] = static_cast<int>(idx[k]) < n ? keys_in[a + idx[k]] : static_cast<U>(0);
    }
    unsigned* cnt = counts[warp];
    for (int shift = begin_bit; shift < end_bit; shift += seg::BITS) {
        const int width = end_bit - shift < seg::BITS ? end_bit - shift : seg::BITS;
        const DigitOf<U> dig(kind, descending, shift, width);
        // padding sits at positions >= n, where it always sorts: largest digit
        const Digits<ITEMS> digits = digits_of<U, ITEMS>(key, n, dig);
        if (!warp_digit_offsets<seg::RADIX>(digits, n, cnt)) continue;  // constant digit
        unsigned rank[ITEMS];
        warp_rank<seg::BITS, ITEMS, MATCH_BALLOT>(digits, rank, cnt, nullptr);
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            kbuf[warp][rank[k]] = key[k];
            ibuf[warp][rank[k]] = idx[k];
        }
        __syncwarp();
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            key[k] = kbuf[warp][k * prim::WARP + lane];
            idx[k] = ibuf[warp][k * prim::WARP + lane];
        }
        __syncwarp();
    }
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int i = k * prim::WARP + lane;
        if (i < n) {
            keys_out[a + i] = key[k];
            if (VALUES) vals_out[a + i] = vals_in[a + idx[k]];
        }
    }
}

template <class U, class V, bool VALUES, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    segsort_block(const U* __restrict__ keys_in, U* __restrict__ keys_out,
                  const V* __restrict__ vals_in, V* __restrict__ vals_out,
                  const long long* __restrict__ offsets, long long small, int kind, int descending,
                  int begin_bit, int end_bit) {
    using namespace prim::radix;
    PRIM_DYNAMIC_SHARED(unsigned char, smem);  // block_sort_tile's layout
    __shared__ unsigned scratch[BLOCK / prim::WARP];
    const long long a = offsets[blockIdx.x];
    const long long len = offsets[blockIdx.x + 1] - a;
    if (len <= small || len > BLOCK * ITEMS) return;  // block-uniform: another kernel's segment
    const int n = static_cast<int>(len);
    U key[ITEMS];
    Positions<ITEMS> idx;
    block_sort_tile<U, BLOCK, ITEMS>(keys_in + a, n, kind, descending, begin_bit, end_bit, smem,
                                     scratch, key, idx);
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int i = striped_index<ITEMS>(k);
        if (i < n) {
            keys_out[a + i] = key[k];
            if (VALUES) vals_out[a + i] = vals_in[a + idx.get(k)];
        }
    }
}

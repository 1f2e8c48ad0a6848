// segsort.cu -- segmented radix sort of small segments: every segment sorted independently in
// on-chip memory, one launch for all segments (Python sorts inputs with longer segments by a
// stable device-wide sort on the key, then on the segment number).
//
// segsort_warp<U, V, VALUES, ITEMS>: a warp per segment of 2 .. 32 * ITEMS keys (4 warps per
//   block, grid = ceil(segments / 4)); a segment of one key is copied, others are left to
//   segsort_block. The warp loads the segment warp-striped into registers and runs an LSD radix
//   sort of 8-bit digits over [begin_bit, end_bit): per digit, warp_rank (radix.cuh) against the
//   warp's 256 shared counters, an exclusive scan of the counters (8 per lane and a shuffle scan),
//   and an exchange of keys and their original positions through the warp's shared buffers into
//   digit order. A digit equal for the whole segment is skipped. At the end keys are written in
//   order and values gathered from their original positions. Only __syncwarp: warps are
//   independent. Static shared memory per warp: 256 counters, 32 * ITEMS keys and positions.
// segsort_block<U, V, VALUES, BLOCK, ITEMS>: a block per segment of more than `small` and at most
//   BLOCK * ITEMS keys (grid = segments; other blocks exit at once), the same sort with
//   block_rank. Dynamic shared memory: TILE keys and TILE positions (the rank counters alias
//   them).
// Preconditions: offsets non-decreasing, offsets[0] = 0, offsets[segments] = n; out-of-place.
#include "common/prim.cuh"
#include "common/scan.cuh"
#include "sort/radix.cuh"

namespace seg {
constexpr int BITS = 8;
constexpr int RADIX = 256;
constexpr int WARPS = 4;  // segsort_warp: warps (segments) per block
}  // namespace seg

template <class U, class V, bool VALUES, int ITEMS>
__global__ void __launch_bounds__(seg::WARPS * prim::WARP)
segsort_warp(const U* __restrict__ keys_in, U* __restrict__ keys_out,
             const V* __restrict__ vals_in, V* __restrict__ vals_out,
             const long long* __restrict__ offsets, long long segments, int kind, int descending,
             int begin_bit, int end_bit) {
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
    const unsigned n = static_cast<unsigned>(len);
    U key[ITEMS];
    unsigned idx[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        idx[k] = k * prim::WARP + lane;
        key[k] = idx[k] < n ? keys_in[a + idx[k]] : static_cast<U>(0);
    }
    unsigned* cnt = counts[warp];
    for (int shift = begin_bit; shift < end_bit; shift += seg::BITS) {
        const int width = end_bit - shift < seg::BITS ? end_bit - shift : seg::BITS;
        const DigitOf<U> dig(kind, descending, shift, width);
        unsigned rank[ITEMS];
        // padding (positions >= n, where it always sorts) gets the largest digit
        const unsigned d0 = __shfl_sync(prim::FULL_MASK, dig(key[0]), 0);  // a real key
        bool same = true;
#pragma unroll
        for (int k = 0; k < ITEMS; ++k)
            same = same && (k * prim::WARP + lane >= static_cast<int>(n) || dig(key[k]) == d0);
        if (__all_sync(prim::FULL_MASK, same)) continue;
        for (int i = lane; i < seg::RADIX; i += prim::WARP) cnt[i] = 0u;
        __syncwarp();
        warp_rank<seg::BITS, ITEMS>(key, static_cast<int>(n), dig, rank, cnt);
        __syncwarp();
        constexpr int PER = seg::RADIX / prim::WARP;
        unsigned c[PER], sum = 0;
#pragma unroll
        for (int j = 0; j < PER; ++j) {
            c[j] = cnt[lane * PER + j];
            sum += c[j];
        }
        unsigned run = prim::warp_inclusive_scan(sum, prim::Sum<unsigned>()) - sum;
#pragma unroll
        for (int j = 0; j < PER; ++j) {
            cnt[lane * PER + j] = run;
            run += c[j];
        }
        __syncwarp();
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const unsigned r =
                rank[k] + cnt[digit_at(key[k], k * prim::WARP + lane, static_cast<int>(n), dig)];
            kbuf[warp][r] = key[k];
            ibuf[warp][r] = idx[k];
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
        const unsigned i = k * prim::WARP + lane;
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
    constexpr int TILE = BLOCK * ITEMS;
    PRIM_DYNAMIC_SHARED(unsigned char, buf);
    __shared__ unsigned scratch[BLOCK / prim::WARP];
    U* kbuf = reinterpret_cast<U*>(buf);
    unsigned* ibuf = reinterpret_cast<unsigned*>(buf + TILE * sizeof(U));
    const long long a = offsets[blockIdx.x];
    const long long len = offsets[blockIdx.x + 1] - a;
    if (len <= small || len > TILE) return;  // block-uniform: another kernel's segment
    const unsigned n = static_cast<unsigned>(len);
    U key[ITEMS];
    unsigned idx[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        idx[k] = striped_index<ITEMS>(k);
        key[k] = idx[k] < n ? keys_in[a + idx[k]] : static_cast<U>(0);
    }
    for (int shift = begin_bit; shift < end_bit; shift += seg::BITS) {
        const int width = end_bit - shift < seg::BITS ? end_bit - shift : seg::BITS;
        const DigitOf<U> dig(kind, descending, shift, width);
        unsigned rank[ITEMS], dcount, dstart;
        bool differs = false;
        const unsigned first = dig(keys_in[a]);  // any real key of the segment will do
#pragma unroll
        for (int k = 0; k < ITEMS; ++k)
            differs = differs || (idx[k] < n && dig(key[k]) != first);
        if (__syncthreads_count(differs) == 0) continue;  // block-uniform
        block_rank<BLOCK, seg::BITS, ITEMS>(key, static_cast<int>(n), dig, rank,
                                            reinterpret_cast<unsigned*>(buf), scratch, dcount,
                                            dstart);
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            kbuf[rank[k]] = key[k];
            ibuf[rank[k]] = idx[k];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const int i = striped_index<ITEMS>(k);
            key[k] = kbuf[i];
            idx[k] = ibuf[i];
        }
        __syncthreads();
    }
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const unsigned i = striped_index<ITEMS>(k);
        if (i < n) {
            keys_out[a + i] = key[k];
            if (VALUES) vals_out[a + i] = vals_in[a + idx[k]];
        }
    }
}

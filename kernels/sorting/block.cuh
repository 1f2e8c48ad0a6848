// block.cuh -- the sort of up to BLOCK * ITEMS keys by one block in registers and shared memory,
// shared by segsort_block (kernels/sorting/segsort.cu: a block per segment) and block_sort
// (kernels/sorting/block.cu: one block for a whole small input).
//
// block_sort_tile<U, BLOCK, ITEMS>: an LSD radix sort of 8-bit digits over [begin_bit, end_bit)
//   of the n keys at `keys` (the order-preserving image of prim::radix, `kind`, `descending`).
//   The keys are loaded warp-striped into registers with their positions (16-bit, two to a
//   register, Positions<ITEMS>: 1024 threads of 12 u32 keys then fit 64 registers unspilled);
//   per digit, a digit equal for all n keys is skipped (one __syncthreads_count), else
//   block_count and block_rank (radix.cuh, MATCH_BALLOT) rank the keys stably by digit and an
//   exchange of keys and positions through shared memory puts them in digit order. On return
//   item k of a thread holds the key of sorted position striped_index<ITEMS>(k) and, as
//   idx.get(k), that key's position in `keys` (both meaningless at positions >= n).
// Whole block, n block-uniform (every barrier is reached by every thread).
// Shared memory: `smem` (dynamic, 16-byte aligned) of block_sort_smem<U, BLOCK, ITEMS>() bytes:
//   the rank counters (rank_counters<8>(BLOCK / 32) words, rounded up to 16 bytes), then
//   BLOCK * ITEMS keys, then BLOCK * ITEMS positions (u16); `scratch`: BLOCK / 32 words (static
//   in the caller).
// Preconditions: 1 <= n <= BLOCK * ITEMS <= 2^16; 0 <= begin_bit <= end_bit <= bits of U.
#pragma once
#include "util/prim.cuh"
#include "util/key_image.cuh"
#include "sorting/radix.cuh"

namespace prim {
namespace radix {

constexpr int TILE_BITS = 8;  // digit width of the on-chip sorts

template <class U, int BLOCK, int ITEMS>
__host__ __device__ constexpr int block_sort_smem() {
    return (rank_counters<TILE_BITS>(BLOCK / WARP) * 4 + 15) / 16 * 16 +
        BLOCK * ITEMS * static_cast<int>(sizeof(U) + sizeof(unsigned short));
}

// ITEMS positions of a tile of at most 2^16 keys, two to a register (a thread's positions
// ride along with its keys through every pass: packed, they leave registers to the ranking).
template <int ITEMS>
struct Positions {
    unsigned w[(ITEMS + 1) / 2];
    __device__ __forceinline__ unsigned get(int k) const {
        return (w[k >> 1] >> ((k & 1) * 16)) & 0xffffu;
    }
};

template <class U, int BLOCK, int ITEMS>
__device__ __forceinline__ void block_sort_tile(const U* __restrict__ keys, int n, int kind,
                                                int descending, int begin_bit, int end_bit,
                                                unsigned char* smem, unsigned* scratch,
                                                U (&key)[ITEMS], Positions<ITEMS>& idx) {
    constexpr int TILE = BLOCK * ITEMS;
    static_assert(TILE <= 65536, "block_sort_tile: positions are 16-bit");
    constexpr int COUNTERS = rank_counters<TILE_BITS>(BLOCK / WARP);
    unsigned* hist = reinterpret_cast<unsigned*>(smem);
    U* kbuf = reinterpret_cast<U*>(smem + ((COUNTERS * 4 + 15) / 16) * 16);
    unsigned short* ibuf = reinterpret_cast<unsigned short*>(kbuf + TILE);
    const int warp_first = (threadIdx.x / WARP) * WARP * ITEMS;
#pragma unroll
    for (int j = 0; j < (ITEMS + 1) / 2; ++j) idx.w[j] = 0u;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int i = striped_index<ITEMS>(k);
        idx.w[k >> 1] |= static_cast<unsigned>(i) << ((k & 1) * 16);
        key[k] = i < n ? keys[i] : static_cast<U>(0);
    }
    for (int shift = begin_bit; shift < end_bit; shift += TILE_BITS) {
        const int width = end_bit - shift < TILE_BITS ? end_bit - shift : TILE_BITS;
        const DigitOf<U> dig(kind, descending, shift, width);
        const Digits<ITEMS> digits = digits_of<U, ITEMS>(key, n - warp_first, dig);
        const unsigned first = dig(keys[0]);  // any real key will do
        bool differs = false;
#pragma unroll
        for (int k = 0; k < ITEMS; ++k)
            differs = differs || (striped_index<ITEMS>(k) < n && digits.get(k) != first);
        if (__syncthreads_count(differs) == 0) continue;  // block-uniform: constant digit
        unsigned rank[ITEMS], dcount, dstart;
        block_count<BLOCK, TILE_BITS, ITEMS>(digits, hist, scratch, dcount, dstart);
        block_rank<BLOCK, TILE_BITS, ITEMS, MATCH_BALLOT>(digits, rank, hist);
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            kbuf[rank[k]] = key[k];
            ibuf[rank[k]] = static_cast<unsigned short>(idx.get(k));
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < (ITEMS + 1) / 2; ++j) idx.w[j] = 0u;
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const int i = striped_index<ITEMS>(k);
            key[k] = kbuf[i];
            idx.w[k >> 1] |= static_cast<unsigned>(ibuf[i]) << ((k & 1) * 16);
        }
        __syncthreads();
    }
}

}  // namespace radix
}  // namespace prim

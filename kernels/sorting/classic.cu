// classic.cu -- the classic multi-bit LSD radix sort: BITS-bit digits (4 from Python), three
// launches per digit pass over tiles of BLOCK * ITEMS keys (one tile per block, grid = tiles).
//
// classic_histogram<U, BLOCK, ITEMS, BITS>: each block counts the digits of its tile into RADIX
//   shared counters (shared atomics) and writes them to counts[d * tiles + tile]: digit-major, so
//   one exclusive scan of the whole array (the project's look-back scan, from Python) gives every
//   (digit, tile) the output position of its first key. Static shared memory: RADIX words.
// classic_scatter<U, V, VALUES, BLOCK, ITEMS, BITS>: each block reloads its tile (warp-striped,
//   coalesced), ranks the keys stably by digit in shared memory (radix.cuh: block_count and
//   block_rank with ballot matching), exchanges them into digit order through shared memory and
//   writes each key to
//   offsets[d * tiles + tile] + (its rank - the digit's first rank in the tile): consecutive
//   threads write consecutive addresses of a digit's run. Values follow the same path. Dynamic
//   shared memory: rank counters (rounded up to 16 bytes), TILE * max(sizeof(U), sizeof(V));
//   static: RADIX long longs and RADIX pointers.
// Preconditions: keys_in != keys_out (the passes ping-pong); offsets is the exclusive scan of the
// counts of the same pass.
#include "util/prim.cuh"
#include "util/key_image.cuh"
#include "sorting/radix.cuh"

template <class U, int BLOCK, int ITEMS, int BITS>
__global__ void __launch_bounds__(BLOCK)
    classic_histogram(const U* __restrict__ keys, long long n, int kind, int descending, int shift,
                      int width, unsigned* __restrict__ counts) {
    constexpr int RADIX = 1 << BITS;
    constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
    __shared__ unsigned c[RADIX];
    const prim::radix::DigitOf<U> dig(kind, descending, shift, width);
    for (int i = threadIdx.x; i < RADIX; i += BLOCK) c[i] = 0u;
    __syncthreads();
    const long long start = static_cast<long long>(blockIdx.x) * TILE;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const long long i = start + k * BLOCK + threadIdx.x;
        if (i < n) atomicAdd(&c[dig(keys[i])], 1u);
    }
    __syncthreads();
    for (int d = threadIdx.x; d < RADIX; d += BLOCK)
        counts[static_cast<long long>(d) * gridDim.x + blockIdx.x] = c[d];
}

template <class U, class V, bool VALUES, int BLOCK, int ITEMS, int BITS>
__global__ void __launch_bounds__(BLOCK)
    classic_scatter(const U* __restrict__ keys_in, U* __restrict__ keys_out,
                    const V* __restrict__ vals_in, V* __restrict__ vals_out, long long n, int kind,
                    int descending, int shift, int width,
                    const unsigned long long* __restrict__ offsets) {
    using namespace prim::radix;
    constexpr int RADIX = 1 << BITS;
    static_assert(BLOCK >= RADIX, "classic_scatter: one thread per digit");
    constexpr int TILE = BLOCK * ITEMS;
    constexpr int WARPS = BLOCK / prim::WARP;
    constexpr int COUNTERS = rank_counters<BITS>(WARPS);
    // dynamic shared memory: rank counters | keys (then values)
    PRIM_DYNAMIC_SHARED(unsigned char, smem);
    unsigned* hist = reinterpret_cast<unsigned*>(smem);
    unsigned char* kvbuf = smem + ((COUNTERS * 4 + 15) / 16) * 16;
    __shared__ long long gbase[RADIX];
    __shared__ U* kdst[RADIX];
    __shared__ unsigned scratch[WARPS];
    const long long start = static_cast<long long>(blockIdx.x) * TILE;
    const int valid = static_cast<int>(n - start < TILE ? n - start : TILE);
    const DigitOf<U> dig(kind, descending, shift, width);
    U keys[ITEMS];
    const Digits<ITEMS> digits = load_tile_digits<U, ITEMS>(keys_in + start, valid, dig, keys);
    unsigned dcount = 0, dstart = 0, rank[ITEMS];
    block_count<BLOCK, BITS, ITEMS>(digits, hist, scratch, dcount, dstart);
    block_rank<BLOCK, BITS, ITEMS, MATCH_BALLOT>(digits, rank, hist);
    if (threadIdx.x < RADIX) {
        const long long d = threadIdx.x;
        gbase[d] = static_cast<long long>(offsets[d * gridDim.x + blockIdx.x]) -
            static_cast<long long>(dstart);
        kdst[d] = keys_out + gbase[d];
    }
    V vals[ITEMS];
    if (VALUES) load_values<V, ITEMS>(vals_in, start, valid, false, vals);
    stage_keys<U, ITEMS>(keys, rank, reinterpret_cast<U*>(kvbuf));
    __syncthreads();
    scatter_tile<U, V, VALUES, BLOCK, ITEMS>(rank, valid, gbase, kdst, reinterpret_cast<U*>(kvbuf),
                                             reinterpret_cast<V*>(kvbuf), dig, true, vals, vals_out,
                                             false);
}

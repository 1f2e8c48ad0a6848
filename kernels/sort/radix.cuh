// radix.cuh -- device helpers shared by the radix sorts (kernels/sort/*.cu).
//
// Keys are sorted as unsigned bit patterns U (u32 or u64). Memory always holds the caller's bits:
// the order-preserving image of a key (`ordered`) is computed whenever a digit is needed, so no
// pass has to transform keys in place and NaN payloads and the sign of -0.0 survive the sort.
//   kind UNSIGNED: the bits themselves; SIGNED: the sign bit flipped (two's complement order);
//   FLOAT: every NaN becomes the positive quiet NaN and -0.0 becomes +0.0 (NumPy's order: NaNs
//   last, -0.0 equal to 0.0), then negative numbers have all bits flipped, others the sign bit.
//   Descending order complements the image (`flip` = all ones), which keeps equal keys in input
//   order and puts NaNs first.
// Digits: `width` bits (<= BITS <= 8) of the image from bit `shift`, computed once per key and
// kernel and kept packed four to a register (Digits<ITEMS>).
//
// Tile order: item k of lane l of warp w is element w * 32 * ITEMS + k * 32 + l of the tile
// ("warp-striped": each item of a warp is 32 consecutive keys, a coalesced load). Positions past
// the tile's real keys are padding with the largest digit, so padding ranks after every real key.
//
// Ranking a tile (a stable counting sort by digit in shared memory, no global atomics):
//   block_count<BLOCK, BITS, ITEMS>: each warp counts its digits into its own RADIX counters
//     (shared atomics), then one digit-major exclusive scan over the (digit, warp) counters
//     (block_exclusive_scan) leaves in each counter the tile position where that warp's keys of
//     that digit start. Thread d < RADIX gets the tile's count and first position of digit d
//     (known before any key is ranked: onesweep publishes them at once). Whole block; ends with
//     a barrier, since block_rank then bumps the counters that thread d read.
//   warp_rank<BITS, ITEMS, MATCH>: a warp ranks its keys item by item against its counters: the
//     lanes holding the same digit are found with BITS ballots (MATCH_BALLOT) or the match
//     instruction (MATCH_ANY); the lowest of them adds their number to the digit's counter with
//     one shared atomic and hands the old value to its peers with a shuffle, and each lane's rank
//     is that value plus the number of peers below it. Each rank goes straight to a `sink`
//     (k, rank), which stages the key, so no rank array stays live. Only warp-level
//     synchronization: warps rank independently.
//   Shared memory: rank_counters<BITS>(WARPS) words (RADIX + 1 counters per warp) and BLOCK / 32
//     scan words.
// Writing a ranked tile: the ranking sink puts each key (and value) at its rank in shared
//   buffers; after a __syncthreads, scatter_tile writes sorted position j to out[gbase[d] + j],
//   d the digit of the key at j (computed again from the key), so consecutive threads write
//   consecutive positions of each digit's run; its value follows to the same place.
#pragma once
#include "common/prim.cuh"
#include "common/warp.cuh"
#include "common/scan.cuh"

namespace prim {
namespace radix {

enum KeyKind { UNSIGNED = 0, SIGNED = 1, FLOAT = 2 };
enum Match { MATCH_BALLOT = 0, MATCH_ANY = 1 };

template <class U> struct Bits;
template <> struct Bits<u32> {
    static constexpr int N = 32;
    static constexpr u32 TOP = 0x80000000u;
    static constexpr u32 INF = 0x7f800000u;
    static constexpr u32 QNAN = 0x7fc00000u;
};
template <> struct Bits<u64> {
    static constexpr int N = 64;
    static constexpr u64 TOP = 0x8000000000000000ull;
    static constexpr u64 INF = 0x7ff0000000000000ull;
    static constexpr u64 QNAN = 0x7ff8000000000000ull;
};

// The order-preserving unsigned image of a key (see the header comment). Integers: one xor
// (`flip` already holds the sign bit for signed keys and the complement for descending order).
template <class U>
__device__ __forceinline__ U ordered(U k, bool is_float, U flip) {
    if (is_float) {
        const U mag = k & ~Bits<U>::TOP;
        k = mag > Bits<U>::INF ? Bits<U>::QNAN : (mag == 0 ? static_cast<U>(0) : k);
        const U neg = static_cast<U>(0) - (k >> (Bits<U>::N - 1));  // all ones if negative
        k ^= neg | Bits<U>::TOP;
    }
    return k ^ flip;
}

// How a kernel reads digits: the key kind, the descending flip and the digit's bit field.
template <class U>
struct DigitOf {
    bool is_float;
    U flip;
    int shift;
    unsigned mask;

    __device__ __forceinline__ DigitOf(int kind, int descending, int shift_, int width)
        : is_float(kind == FLOAT),
          flip(static_cast<U>((descending ? ~static_cast<U>(0) : static_cast<U>(0)) ^
                              (kind == SIGNED ? Bits<U>::TOP : static_cast<U>(0)))),
          shift(shift_), mask((1u << width) - 1u) {}

    __device__ __forceinline__ U image(U key) const { return ordered(key, is_float, flip); }
    __device__ __forceinline__ unsigned operator()(U key) const {
        return static_cast<unsigned>(image(key) >> shift) & mask;
    }
};

template <int ITEMS>
__device__ __forceinline__ int striped_index(int k) {
    return (threadIdx.x / WARP) * WARP * ITEMS + k * WARP + threadIdx.x % WARP;
}

// ITEMS digits of one thread, four 8-bit fields per word.
template <int ITEMS>
struct Digits {
    unsigned w[(ITEMS + 3) / 4];
    __device__ __forceinline__ unsigned get(int k) const {
        return (w[k >> 2] >> ((k & 3) * 8)) & 0xffu;
    }
};

// The digits of a thread's items; `valid` counts the real keys from the start of the warp's span
// (item k of lane l is at k * 32 + l), past it the largest digit.
template <class U, int ITEMS>
__device__ __forceinline__ Digits<ITEMS> digits_of(const U (&keys)[ITEMS], int valid,
                                                   const DigitOf<U>& dig) {
    const int lane = threadIdx.x % WARP;
    Digits<ITEMS> out;
#pragma unroll
    for (int j = 0; j < (ITEMS + 3) / 4; ++j) out.w[j] = 0u;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const unsigned d = k * WARP + lane < valid ? dig(keys[k]) : dig.mask;
        out.w[k >> 2] |= d << ((k & 3) * 8);
    }
    return out;
}

// The lanes of the warp whose digit equals d (d < 2^BITS), the calling lane included.
template <int BITS, int MATCH>
__device__ __forceinline__ unsigned warp_peers(unsigned d) {
    if (MATCH == MATCH_ANY) return __match_any_sync(FULL_MASK, d);
    unsigned peers = FULL_MASK;
#pragma unroll
    for (int b = 0; b < BITS; ++b) {
        const unsigned bit = (d >> b) & 1u;
        const unsigned vote = __ballot_sync(FULL_MASK, bit);
        peers &= bit ? vote : ~vote;
    }
    return peers;
}

template <int BITS, int ITEMS, int MATCH, class Sink>
__device__ __forceinline__ void warp_rank(const Digits<ITEMS>& digits, unsigned* counts,
                                          Sink&& sink) {
    const int lane = threadIdx.x % WARP;
    const unsigned below = (1u << lane) - 1u;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const unsigned d = digits.get(k);
        const unsigned peers = warp_peers<BITS, MATCH>(d);
        const int leader = __ffs(peers) - 1;
        unsigned base = 0u;
        if (lane == leader) base = atomicAdd(&counts[d], static_cast<unsigned>(__popc(peers)));
        base = __shfl_sync(FULL_MASK, base, leader);
        sink(k, base + static_cast<unsigned>(__popc(peers & below)));
    }
}

// Counters of block_count/block_rank, in words: RADIX + 1 per warp (padded by one).
template <int BITS>
__host__ __device__ constexpr int rank_counters(int warps) {
    return warps * ((1 << BITS) + 1);
}

template <int BLOCK, int BITS, int ITEMS>
__device__ __forceinline__ void block_count(const Digits<ITEMS>& digits, unsigned* hist,
                                            unsigned* scratch, unsigned& digit_count,
                                            unsigned& digit_start) {
    constexpr int RADIX = 1 << BITS;
    constexpr int STRIDE = RADIX + 1;  // padded: a thread's scan entries spread over the banks
    constexpr int WARPS = BLOCK / WARP;
    constexpr int ENTRIES = WARPS * RADIX;
    constexpr int PER = (ENTRIES + BLOCK - 1) / BLOCK;
    static_assert(BLOCK % WARP == 0 && BLOCK <= 1024, "block_count: BLOCK must be 32k <= 1024");
    const int warp = threadIdx.x / WARP;
    for (int i = threadIdx.x; i < rank_counters<BITS>(WARPS); i += BLOCK) hist[i] = 0u;
    __syncthreads();
    unsigned* mine_counts = hist + warp * STRIDE;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) atomicAdd(&mine_counts[digits.get(k)], 1u);
    __syncthreads();
    // digit-major scan: entry e = d * WARPS + w lives at hist[w * STRIDE + d]
    unsigned mine[PER];
    unsigned total = 0;
#pragma unroll
    for (int j = 0; j < PER; ++j) {
        const int e = threadIdx.x * PER + j;
        mine[j] = e < ENTRIES ? hist[(e % WARPS) * STRIDE + e / WARPS] : 0u;
        total += mine[j];
    }
    unsigned tile_total;
    unsigned run = block_exclusive_scan<BLOCK>(total, Sum<unsigned>(), scratch, tile_total);
#pragma unroll
    for (int j = 0; j < PER; ++j) {
        const int e = threadIdx.x * PER + j;
        if (e < ENTRIES) hist[(e % WARPS) * STRIDE + e / WARPS] = run;
        run += mine[j];
    }
    __syncthreads();
    if (threadIdx.x < RADIX) {
        digit_start = hist[threadIdx.x];
        const unsigned end = threadIdx.x + 1 < RADIX ? hist[threadIdx.x + 1] : tile_total;
        digit_count = end - digit_start;
    }
    __syncthreads();  // warp 0's counters are read above before block_rank bumps them
}

// After block_count: each key's position in the tile sorted stably by digit, handed to
// sink(k, rank). Warp-level only.
template <int BLOCK, int BITS, int ITEMS, int MATCH, class Sink>
__device__ __forceinline__ void block_rank(const Digits<ITEMS>& digits, unsigned* hist,
                                           Sink&& sink) {
    constexpr int RADIX = 1 << BITS;
    warp_rank<BITS, ITEMS, MATCH>(digits, hist + (threadIdx.x / WARP) * (RADIX + 1), sink);
}

// A tile's keys in tile order (zero past `valid`).
template <class U, int ITEMS>
__device__ __forceinline__ void load_tile(const U* tile_keys, int valid, U (&keys)[ITEMS]) {
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int i = striped_index<ITEMS>(k);
        keys[k] = i < valid ? tile_keys[i] : static_cast<U>(0);
    }
}

// Flags of the values a scatter moves (runtime, per launch).
enum ValueFlags { VALUES_IOTA = 1, VALUES_WIDE = 2, KEYS_DISCARD = 4 };

// Values of a tile in tile order: element `start + i` of vals_in, or the index itself (`iota`).
template <class V, int ITEMS>
__device__ __forceinline__ void load_values(const V* vals_in, long long start, int valid, bool iota,
                                            V (&vals)[ITEMS]) {
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int i = striped_index<ITEMS>(k);
        vals[k] = i < valid ? (iota ? static_cast<V>(start + i) : vals_in[start + i])
                            : static_cast<V>(0);
    }
}

// Write the staged tile: sorted position j goes to out[gbase[d] + j], d the digit of the key at
// j; its value to the same position of vals_out, as V or widened to 64 bits when `wide` (V = u32
// only). Whole block; gbase and the staged buffers visible (a __syncthreads before).
template <class U, class V, bool VALUES, int BLOCK, int ITEMS>
__device__ __forceinline__ void scatter_tile(int valid, const long long* gbase,
                                             const DigitOf<U>& dig, const U* kbuf, const V* vbuf,
                                             U* keys_out, bool write_keys, void* vals_out,
                                             bool wide) {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const int j = threadIdx.x + i * BLOCK;
        if (j < valid) {
            const U key = kbuf[j];
            const long long dest = gbase[dig(key)] + j;
            if (write_keys) keys_out[dest] = key;
            if (VALUES) {
                if (wide)
                    reinterpret_cast<u64*>(vals_out)[dest] = static_cast<u64>(vbuf[j]);
                else
                    reinterpret_cast<V*>(vals_out)[dest] = vbuf[j];
            }
        }
    }
}

// The next tile id of a launch, from an atomic counter the launch's last block resets (grid =
// tiles). Blocks draw ids in the order they start, so a tile's predecessors are running or done.
// Call with the whole block.
__device__ __forceinline__ long long draw_tile(unsigned* counter, unsigned* slot) {
    if (threadIdx.x == 0) {
        const unsigned t = atomicAdd(counter, 1u);
        if (t == gridDim.x - 1) *counter = 0u;
        *slot = t;
    }
    __syncthreads();
    return *slot;
}

}  // namespace radix
}  // namespace prim

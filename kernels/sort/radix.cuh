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
// Digits: `width` bits (<= BITS) of the image from bit `shift`.
//
// Ranking (stable counting of digits inside a tile):
//   match_digit<BITS>: the lanes of the warp holding the same digit, from BITS ballots.
//   warp_rank<BITS, ITEMS>: a warp ranks its 32 * ITEMS keys, item k of lane l being key
//     k * 32 + l of the warp's span (positions past `valid` are padding: largest digit), against RADIX counters of its own in shared memory: one
//     lane per distinct digit (the lowest) bumps the counter by the number of peers, the others
//     add their position among the peers. Counters must be zero on entry; on exit they hold the
//     warp's digit counts. Called by all 32 lanes.
//   block_rank<BLOCK, BITS, ITEMS>: every warp ranks its span with warp_rank, then one
//     digit-major exclusive scan over the (digit, warp) counters turns the counts into each
//     warp's first position per digit; a key's rank is its position in the tile sorted stably by
//     digit (the tile order is warp-major, then item, then lane). Thread d < RADIX also gets the
//     count and the first position of digit d in the tile. Shared memory: WARPS * (RADIX + 1)
//     counters and BLOCK / 32 scan words. Called by the whole block (contains __syncthreads).
#pragma once
#include "common/prim.cuh"
#include "common/warp.cuh"
#include "common/scan.cuh"

namespace prim {
namespace radix {

enum KeyKind { UNSIGNED = 0, SIGNED = 1, FLOAT = 2 };

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

// The order-preserving unsigned image of a key (see the header comment).
template <class U>
__device__ __forceinline__ U ordered(U k, int kind, U flip) {
    if (kind == SIGNED) {
        k ^= Bits<U>::TOP;
    } else if (kind == FLOAT) {
        const U mag = k & ~Bits<U>::TOP;
        if (mag > Bits<U>::INF) k = Bits<U>::QNAN;
        else if (mag == 0) k = 0;
        k = (k & Bits<U>::TOP) ? static_cast<U>(~k) : static_cast<U>(k ^ Bits<U>::TOP);
    }
    return k ^ flip;
}

// How a kernel reads digits: the key kind, the descending flip and the digit's bit field.
template <class U>
struct DigitOf {
    int kind;
    U flip;
    int shift;
    unsigned mask;

    __device__ __forceinline__ DigitOf(int kind_, int descending, int shift_, int width)
        : kind(kind_), flip(descending ? static_cast<U>(~static_cast<U>(0)) : static_cast<U>(0)),
          shift(shift_), mask((1u << width) - 1u) {}

    __device__ __forceinline__ unsigned operator()(U key) const {
        return static_cast<unsigned>(ordered(key, kind, flip) >> shift) & mask;
    }
};

template <int BITS>
__device__ __forceinline__ unsigned match_digit(unsigned d) {
    unsigned peers = FULL_MASK;
#pragma unroll
    for (int b = 0; b < BITS; ++b) {
        const unsigned bit = (d >> b) & 1u;
        const unsigned vote = __ballot_sync(FULL_MASK, bit);
        peers &= bit ? vote : ~vote;
    }
    return peers;
}

// Digit of item k of a lane whose warp-local position is k * 32 + lane: past `valid` positions
// (padding) the largest digit, so padding ranks after every real key.
template <class U>
__device__ __forceinline__ unsigned digit_at(U key, int position, int valid,
                                             const DigitOf<U>& dig) {
    return position < valid ? dig(key) : dig.mask;
}

template <int BITS, int ITEMS, class U>
__device__ __forceinline__ void warp_rank(const U (&keys)[ITEMS], int valid, const DigitOf<U>& dig,
                                          unsigned (&rank)[ITEMS], unsigned* counts) {
    const int lane = threadIdx.x % WARP;
    const unsigned below = (1u << lane) - 1u;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const unsigned d = digit_at(keys[k], k * WARP + lane, valid, dig);
        const unsigned peers = match_digit<BITS>(d);
        const unsigned before = __popc(peers & below);
        const unsigned old = counts[d];
        __syncwarp();
        if (before == 0) counts[d] = old + __popc(peers);
        __syncwarp();
        rank[k] = old + before;
    }
}

template <int BITS>
__host__ __device__ constexpr int rank_counters(int warps) { return warps * ((1 << BITS) + 1); }

// `valid`: real keys in the tile (tile positions, see striped_index); digits are computed from the
// keys when needed rather than kept in registers.
template <int BLOCK, int BITS, int ITEMS, class U>
__device__ __forceinline__ void block_rank(const U (&keys)[ITEMS], int valid,
                                           const DigitOf<U>& dig, unsigned (&rank)[ITEMS],
                                           unsigned* hist, unsigned* scratch,
                                           unsigned& digit_count, unsigned& digit_start) {
    constexpr int RADIX = 1 << BITS;
    constexpr int STRIDE = RADIX + 1;  // padded: a thread's scan entries spread over the banks
    constexpr int WARPS = BLOCK / WARP;
    constexpr int ENTRIES = WARPS * RADIX;
    constexpr int PER = (ENTRIES + BLOCK - 1) / BLOCK;
    static_assert(BLOCK % WARP == 0 && BLOCK <= 1024, "block_rank: BLOCK must be 32k <= 1024");
    const int warp = threadIdx.x / WARP;
    const int warp_valid = valid - warp * WARP * ITEMS;
    for (int i = threadIdx.x; i < WARPS * STRIDE; i += BLOCK) hist[i] = 0u;
    __syncthreads();
    warp_rank<BITS, ITEMS>(keys, warp_valid, dig, rank, hist + warp * STRIDE);
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
    const int lane = threadIdx.x % WARP;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k)
        rank[k] += hist[warp * STRIDE + digit_at(keys[k], k * WARP + lane, warp_valid, dig)];
    if (threadIdx.x < RADIX) {
        digit_start = hist[threadIdx.x];
        const unsigned end = threadIdx.x + 1 < RADIX ? hist[threadIdx.x + 1] : tile_total;
        digit_count = end - digit_start;
    }
    __syncthreads();  // the caller may reuse hist
}

// Tile order of block_rank: item k of lane l of warp w is element w * 32 * ITEMS + k * 32 + l of
// the tile ("warp-striped": each item of a warp is 32 consecutive keys, a coalesced load).
template <int ITEMS>
__device__ __forceinline__ int striped_index(int k) {
    return (threadIdx.x / WARP) * WARP * ITEMS + k * WARP + threadIdx.x % WARP;
}

// A tile's keys in that order (zero past `valid`: padding, whose digit digit_at makes the
// largest).
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

// Writing a ranked tile: stage_keys puts each key at its rank in `buf` (shared, TILE elements of
// the wider of U and V); after a __syncthreads (which must also make `gbase` visible),
// scatter_tile writes the element of sorted position j (digit d) to out[gbase[d] + j], so that
// consecutive threads write consecutive positions of each digit's run; then the values (loaded
// by load_values, in tile order, early enough to hide the latency) take the same path, written as
// V or widened to 64 bits when `wide` (V = u32 only). Call both with the whole block.
template <class U, int ITEMS>
__device__ __forceinline__ void stage_keys(const U (&keys)[ITEMS], const unsigned (&rank)[ITEMS],
                                           unsigned char* buf) {
    U* kbuf = reinterpret_cast<U*>(buf);
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) kbuf[rank[k]] = keys[k];
}

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

template <class U, class V, bool VALUES, int BLOCK, int ITEMS>
__device__ __forceinline__ void scatter_tile(const unsigned (&rank)[ITEMS], int valid,
                                             const DigitOf<U>& dig, const long long* gbase,
                                             unsigned char* buf, U* keys_out, bool write_keys,
                                             const V (&vals)[ITEMS], void* vals_out, bool wide) {
    const U* kbuf = reinterpret_cast<const U*>(buf);
    unsigned d[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const int j = threadIdx.x + i * BLOCK;
        d[i] = 0;
        if (j < valid) {
            const U key = kbuf[j];
            d[i] = dig(key);
            if (write_keys) keys_out[gbase[d[i]] + j] = key;
        }
    }
    if (VALUES) {
        V* vbuf = reinterpret_cast<V*>(buf);
        __syncthreads();  // every key has left the buffer
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) vbuf[rank[k]] = vals[k];
        __syncthreads();
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const int j = threadIdx.x + i * BLOCK;
            if (j < valid) {
                const long long dest = gbase[d[i]] + j;
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

// radix.cuh -- device helpers shared by the radix sorts (kernels/sorting/*.cu).
//
// Keys are sorted as unsigned bit patterns U (u32 or u64). Memory always holds the caller's bits:
// the order-preserving image of a key (`ordered`, util/key_image.cuh, with the key kinds, the
// descending flip and DigitOf, the digit reader) is computed whenever a digit is needed, so no
// pass has to transform keys in place and NaN payloads and the sign of -0.0 survive the sort.
// Digits: `width` bits (<= BITS <= 8) of the image from bit `shift`, computed once per key and
// kernel and kept packed four to a register (Digits<ITEMS>).
//
// Tile order: item k of lane l of warp w is element w * 32 * ITEMS + k * 32 + l of the tile
// ("warp-striped": each item of a warp is 32 consecutive keys, a coalesced load). Positions past
// the tile's real keys are padding with the largest digit, so padding ranks after every real key.
//
// Ranking a tile (a stable counting sort by digit in shared memory, no global atomics):
//   block_count<BLOCK, BITS, ITEMS, ZEROED, PARTS>: (zeroes the counters unless the caller did,
//     zero_rank_counters) each warp counts its digits into its own RADIX counters (shared atomics;
//     PARTS > 1: into PARTS sets of them, lane l into set l % PARTS, so that the lanes of one
//     atomicAdd that share a digit, many on skewed keys, meet on fewer words; the scan reads their
//     sums), then one digit-major exclusive scan over the (digit, warp) counters
//     (block_exclusive_scan) leaves in each counter the tile position where that warp's keys of
//     that digit start. Thread d < RADIX gets the tile's count and first position of digit d (known
//     before any key is ranked: onesweep publishes them at once). Whole block; ends with a barrier,
//     since block_rank then bumps the counters that thread d read.
//     It returns whether one digit holds the whole tile (its closing barrier's __syncthreads_or):
//     such a tile is in digit order already (onesweep's CONSTANT 2 skips its rank).
//   tile_constant: whether every digit of a full tile is one given digit (one __syncthreads_and):
//     such a tile is in digit order already (onesweep's CONSTANT 1 skips its count and rank).
//   warp_rank<BITS, ITEMS, MATCH>: a warp ranks its keys item by item against its counters: the
//     lanes holding the same digit are found either with BITS ballots (MATCH_BALLOT) or by
//     setting each lane's bit in a lane mask per digit modulo 32 (rank_masks words: all the lanes
//     whose digit falls in that class), narrowed by a ballot per digit bit above the fifth
//     (MATCH_LANE_MASKS; masks zero on entry and exit, each zeroed by the lowest lane that set
//     it). The bit is set by a shared atomicAdd: the bits of a mask are distinct, so the sum is
//     the OR, and the hardware combines the lanes that add to one word in one step, where
//     atomicOr takes them one by one (10 lanes on one word: 13.9x the time of distinct words,
//     against 1.7x for atomicAdd; tools/probes/smem_atomics.py). Folding the masks costs
//     BITS - 5 ballots and saves bank conflicts: the 32 masks sit in 32 banks, so reading and
//     clearing one takes a single shared-memory wavefront. The lowest lane of a digit bumps the
//     counter by their number, each lane's rank is the old counter plus the number of peers
//     below it.
//     Only __syncwarp: warps rank independently. warp_rank_each / block_rank_each hand each rank
//     to a callback as soon as its item is ranked (onesweep's keys-only pass stages the key
//     there and keeps no ranks); warp_rank / block_rank keep them in rank[ITEMS].
//   Shared memory: rank_counters<BITS>(WARPS) words (counters, padded by one per warp, and the
//     masks) and BLOCK / 32 scan words.
//   warp_digit_offsets<RADIX, ITEMS>: a warp that sorts a row alone counts its digits into its
//     own counters and scans them (or finds the digit constant: the pass is skipped), before
//     warp_rank.
// Writing a ranked tile: stage_keys puts each key at its rank in a shared buffer; after a
//   __syncthreads, scatter_tile computes the digit d of sorted position j from its key and writes
//   it to out[gbase[d] + j], so consecutive threads write consecutive positions of each digit's
//   run; values (loaded by load_values early, to hide the latency) follow the same path.
// The tile helpers take FULL = true when the tile holds BLOCK * ITEMS real keys (every tile but
// an input's last): no bounds test per key. digits_of branches once on the image mode, so integer
// keys pay one xor for their image, floats two more (an abs and a logic operation), and the NaN
// folding only when the input holds NaNs (DigitOf::fold).
#pragma once
#include "util/prim.cuh"
#include "util/key_image.cuh"
#include "block/scan.cuh"

namespace prim {
namespace radix {

// MATCH_PER_PASS: onesweep's passes pick one of the two, from the pass's digit counts;
// MATCH_DOMINANT: lane masks, but the keys of one given digit (a skewed pass's most frequent) are
// counted apart and ranked by one ballot (warp_rank_each's `dominant`); MATCH_PER_PASS_DOMINANT:
// onesweep's skewed passes MATCH_DOMINANT, the others lane masks
enum Match {
    MATCH_BALLOT = 0,
    MATCH_LANE_MASKS = 1,
    MATCH_PER_PASS = 2,
    MATCH_DOMINANT = 3,
    MATCH_PER_PASS_DOMINANT = 4
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
// (item k of lane l is at k * 32 + l), past it the largest digit. FULL: every item is a real key
// (no test). One branch on the image mode for all items.
template <int MODE, bool FULL, class U, int ITEMS>
__device__ __forceinline__ Digits<ITEMS> digits_as(const U (&keys)[ITEMS], int valid,
                                                   const DigitOf<U>& dig) {
    const int lane = threadIdx.x % WARP;
    Digits<ITEMS> out;
#pragma unroll
    for (int j = 0; j < (ITEMS + 3) / 4; ++j) out.w[j] = 0u;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const unsigned d = dig.template of<MODE>(keys[k]);
        out.w[k >> 2] |= (FULL || k * WARP + lane < valid ? d : dig.mask) << ((k & 3) * 8);
    }
    return out;
}

template <class U, int ITEMS, bool FULL = false>
__device__ __forceinline__ Digits<ITEMS> digits_of(const U (&keys)[ITEMS], int valid,
                                                   const DigitOf<U>& dig) {
    if (!dig.is_float) return digits_as<IMAGE_INT, FULL>(keys, valid, dig);
    return dig.fold ? digits_as<IMAGE_FOLD, FULL>(keys, valid, dig)
                    : digits_as<IMAGE_FLOAT, FULL>(keys, valid, dig);
}

// A warp's counting step for one digit of its own keys (a row a warp sorts alone: rows.cu's and
// segsort.cu's warp kernels): false when every real key (positions < n of the warp's span) has
// the same digit (the pass can be skipped; `cnt` untouched), else true with cnt[d] the number of
// the warp's digits below d (padding's largest digit included: it ranks last). cnt: the warp's
// RADIX counters in shared memory (RADIX a multiple of 32; lane l scans [l * RADIX / 32, ...)).
// Whole warp, converged; only __syncwarp.
template <int RADIX, int ITEMS>
__device__ __forceinline__ bool warp_digit_offsets(const Digits<ITEMS>& digits, int n,
                                                   unsigned* cnt) {
    const int lane = threadIdx.x % WARP;
    const unsigned d0 = __shfl_sync(FULL_MASK, digits.get(0), 0);  // a real key's
    bool same = true;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) same = same && (k * WARP + lane >= n || digits.get(k) == d0);
    if (__all_sync(FULL_MASK, same)) return false;
    for (int i = lane; i < RADIX; i += WARP) cnt[i] = 0u;
    __syncwarp();
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) atomicAdd(&cnt[digits.get(k)], 1u);
    __syncwarp();
    constexpr int PER = RADIX / WARP;
    unsigned c[PER], sum = 0;
#pragma unroll
    for (int j = 0; j < PER; ++j) {
        c[j] = cnt[lane * PER + j];
        sum += c[j];
    }
    unsigned run = warp_inclusive_scan(sum, Sum<unsigned>()) - sum;
#pragma unroll
    for (int j = 0; j < PER; ++j) {
        cnt[lane * PER + j] = run;
        run += c[j];
    }
    __syncwarp();
    return true;
}

// The lanes whose digit d agrees with this lane's in bits [LO, BITS): one ballot per bit.
template <int BITS, int LO = 0>
__device__ __forceinline__ unsigned match_digit(unsigned d) {
    unsigned peers = FULL_MASK;
#pragma unroll
    for (int b = LO; b < BITS; ++b) {
        const unsigned bit = (d >> b) & 1u;
        const unsigned vote = __ballot_sync(FULL_MASK, bit);
        peers &= bit ? vote : ~vote;
    }
    return peers;
}

// warp_rank_each: calls ranked(k, rank) for each item k in turn, once the item is ranked (a
// caller may stage the key at once and keep no rank); warp_rank keeps the ranks.
// MATCH_DOMINANT: the lanes whose digit is `dominant` (any value past the digits: none) find each
// other by one ballot and set no mask bit, so the one digit most lanes share adds to no mask.
template <int BITS, int ITEMS, int MATCH, class F>
__device__ __forceinline__ void warp_rank_each(const Digits<ITEMS>& digits, unsigned* counts,
                                               unsigned* masks, F ranked, unsigned dominant = ~0u) {
    const int lane = threadIdx.x % WARP;
    const unsigned below = (1u << lane) - 1u;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const unsigned d = digits.get(k);
        unsigned peers;
        bool clears = false;  // this lane zeroes the mask after use
        if (MATCH == MATCH_DOMINANT) {
            const unsigned doms = __ballot_sync(FULL_MASK, d == dominant);
            const bool dom = (doms >> lane) & 1u;
            if (!dom) atomicAdd(&masks[d % WARP], 1u << lane);  // an OR: distinct bits
            __syncwarp();
            // the dominant digit's lanes: all of them agree in the high bits too
            const unsigned fold = dom ? doms : masks[d % WARP];
            peers = fold & match_digit<BITS, LOG_WARP>(d);
            clears = !dom && (fold & below) == 0u;
        } else if (MATCH == MATCH_LANE_MASKS) {
            atomicAdd(&masks[d % WARP], 1u << lane);  // an OR: the lanes' bits are distinct
            __syncwarp();
            const unsigned fold = masks[d % WARP];  // the lanes whose digit is d modulo 32
            peers = fold & match_digit<BITS, LOG_WARP>(d);
            clears = (fold & below) == 0u;  // the lowest of them
        } else {
            peers = match_digit<BITS>(d);
        }
        const unsigned before = __popc(peers & below);
        const unsigned old = counts[d];
        __syncwarp();
        if (before == 0) counts[d] = old + __popc(peers);
        if (clears) masks[d % WARP] = 0u;
        __syncwarp();
        ranked(k, old + before);
    }
}

template <int BITS, int ITEMS, int MATCH>
__device__ __forceinline__ void warp_rank(const Digits<ITEMS>& digits, unsigned (&rank)[ITEMS],
                                          unsigned* counts, unsigned* masks) {
    warp_rank_each<BITS, ITEMS, MATCH>(digits, counts, masks,
                                       [&](int k, unsigned r) { rank[k] = r; });
}

// Lane masks of a warp for MATCH_LANE_MASKS: one per digit modulo 32.
template <int BITS>
__host__ __device__ constexpr int rank_masks() {
    return (1 << BITS) < WARP ? (1 << BITS) : WARP;
}

// Counters and masks of block_count/block_rank, in words: per warp RADIX + 1 counters and
// rank_masks lane masks, then PARTS - 1 more sets of the warps' counters (block_count's).
template <int BITS, int PARTS = 1>
__host__ __device__ constexpr int rank_counters(int warps) {
    return warps * ((1 << BITS) + 1) * PARTS + warps * rank_masks<BITS>();
}

// Zeroes block_count/block_rank's counters and masks. Whole block; a __syncthreads must come
// between it and block_count<..., ZEROED = true> (onesweep: the one of its tile draw, so the
// zeroing overlaps the draw's atomic instead of following the tile's loads).
template <int BLOCK, int BITS, int PARTS = 1>
__device__ __forceinline__ void zero_rank_counters(unsigned* hist) {
    constexpr int WARPS = BLOCK / WARP;
    for (int i = threadIdx.x; i < rank_counters<BITS, PARTS>(WARPS); i += BLOCK) hist[i] = 0u;
}

// PARTS > 1: lane l of a warp counts into set l % PARTS of the warp's counters (set 0 the one
// block_rank bumps; the others after the masks, rank_counters), so a digit shared by many lanes
// of one atomicAdd (skewed keys) is added to PARTS words; the scan reads the sum of the sets.
// Returns whether one digit holds all the tile's entries, padding included (the tile is in
// digit order already), read from the counts by the closing barrier itself (__syncthreads_or).
template <int BLOCK, int BITS, int ITEMS, bool ZEROED = false, int PARTS = 1>
__device__ __forceinline__ bool block_count(const Digits<ITEMS>& digits, unsigned* hist,
                                            unsigned* scratch, unsigned& digit_count,
                                            unsigned& digit_start) {
    constexpr int RADIX = 1 << BITS;
    constexpr int STRIDE = RADIX + 1;  // padded: a thread's scan entries spread over the banks
    constexpr int WARPS = BLOCK / WARP;
    constexpr int ENTRIES = WARPS * RADIX;
    constexpr int PER = (ENTRIES + BLOCK - 1) / BLOCK;
    // set p > 0 of the counters, from set 0's: past the warps' counters and masks
    constexpr int SET = WARPS * STRIDE, MASKS = WARPS * rank_masks<BITS>();
    static_assert(BLOCK % WARP == 0 && BLOCK <= 1024, "block_count: BLOCK must be 32k <= 1024");
    static_assert(PARTS == 1 || PARTS == 2 || PARTS == 4, "block_count: PARTS 1, 2 or 4");
    const int warp = threadIdx.x / WARP;
    if (!ZEROED) {
        zero_rank_counters<BLOCK, BITS, PARTS>(hist);
        __syncthreads();
    }
    const int part = static_cast<int>(threadIdx.x % WARP) % PARTS;
    unsigned* mine_counts = hist + warp * STRIDE + (part ? MASKS + part * SET : 0);
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) atomicAdd(&mine_counts[digits.get(k)], 1u);
    __syncthreads();
    // digit-major scan: entry e = d * WARPS + w lives at hist[w * STRIDE + d]; a thread's PER
    // entries e0 .. e0 + PER - 1 share one digit (PER divides WARPS), a column of hist
    static_assert(WARPS % PER == 0, "block_count: a thread's scan entries must share a digit");
    const int e0 = static_cast<int>(threadIdx.x) * PER;
    const bool has = e0 < ENTRIES;
    unsigned* const column = hist + (e0 % WARPS) * STRIDE + e0 / WARPS;
    unsigned mine[PER];
    unsigned total = 0;
#pragma unroll
    for (int j = 0; j < PER; ++j) {
        mine[j] = has ? column[j * STRIDE] : 0u;
#pragma unroll
        for (int q = 1; q < PARTS; ++q) mine[j] += has ? column[MASKS + q * SET + j * STRIDE] : 0u;
        total += mine[j];
    }
    unsigned tile_total;
    unsigned run = block_exclusive_scan<BLOCK>(total, Sum<unsigned>(), scratch, tile_total);
#pragma unroll
    for (int j = 0; j < PER; ++j) {
        if (has) column[j * STRIDE] = run;
        run += mine[j];
    }
    __syncthreads();
    bool all_one = false;
    if (threadIdx.x < RADIX) {
        digit_start = hist[threadIdx.x];
        const unsigned end = threadIdx.x + 1 < RADIX ? hist[threadIdx.x + 1] : tile_total;
        digit_count = end - digit_start;
        all_one = digit_count == tile_total;
    }
    // warp 0's counters are read above before block_rank bumps them
    return __syncthreads_or(all_one) != 0;
}

// After block_count: each key's position in the tile sorted stably by digit, handed to
// ranked(k, rank) item by item (block_rank_each) or kept (block_rank). Warp-level only.
template <int BLOCK, int BITS, int ITEMS, int MATCH, class F>
__device__ __forceinline__ void block_rank_each(const Digits<ITEMS>& digits, unsigned* hist,
                                                F ranked, unsigned dominant = ~0u) {
    constexpr int RADIX = 1 << BITS;
    constexpr int WARPS = BLOCK / WARP;
    const int warp = threadIdx.x / WARP;
    warp_rank_each<BITS, ITEMS, MATCH>(digits, hist + warp * (RADIX + 1),
                                       hist + WARPS * (RADIX + 1) + warp * rank_masks<BITS>(),
                                       ranked, dominant);
}

template <int BLOCK, int BITS, int ITEMS, int MATCH>
__device__ __forceinline__ void block_rank(const Digits<ITEMS>& digits, unsigned (&rank)[ITEMS],
                                           unsigned* hist, unsigned dominant = ~0u) {
    block_rank_each<BLOCK, BITS, ITEMS, MATCH>(
        digits, hist, [&](int k, unsigned r) { rank[k] = r; }, dominant);
}

// A tile's keys in tile order (zero past `valid`; FULL: valid is the whole tile, no test).
template <class U, int ITEMS, bool FULL = false>
__device__ __forceinline__ void load_tile(const U* tile_keys, int valid, U (&keys)[ITEMS]) {
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int i = striped_index<ITEMS>(k);
        keys[k] = FULL || i < valid ? tile_keys[i] : static_cast<U>(0);
    }
}

// A tile's keys in tile order and their digits: the first `valid` keys of tile_keys, padding past
// them (load_tile, digits_of).
template <class U, int ITEMS, bool FULL = false>
__device__ __forceinline__ Digits<ITEMS> load_tile_digits(const U* tile_keys, int valid,
                                                          const DigitOf<U>& dig, U (&keys)[ITEMS]) {
    load_tile<U, ITEMS, FULL>(tile_keys, valid, keys);
    return digits_of<U, ITEMS, FULL>(keys, valid - (threadIdx.x / WARP) * WARP * ITEMS, dig);
}

// Whether every digit of a tile is d0 (the caller passes a full tile's digits: no padding).
// Whole block (one __syncthreads_and); the answer is block-uniform.
template <int ITEMS>
__device__ __forceinline__ bool tile_constant(const Digits<ITEMS>& digits, unsigned d0) {
    bool same = true;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) same = same && digits.get(k) == d0;
    return __syncthreads_and(same) != 0;
}

// Flags of the values a scatter moves (runtime, per launch).
enum ValueFlags { VALUES_IOTA = 1, VALUES_WIDE = 2, KEYS_DISCARD = 4 };

// Keys at their ranks in kbuf.
template <class U, int ITEMS>
__device__ __forceinline__ void stage_keys(const U (&keys)[ITEMS], const unsigned (&rank)[ITEMS],
                                           U* kbuf) {
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
        vals[k] =
            i < valid ? (iota ? static_cast<V>(start + i) : vals_in[start + i]) : static_cast<V>(0);
    }
}

// Write the staged tile: sorted position j (digit d) goes to out[gbase[d] + j]; the keys go
// through kdst[d] = keys_out + gbase[d] (one pointer per digit, so a key's address is one
// multiply-add). The digit of position j is computed again from its staged key (the image mode
// branched on once, as digits_of), which costs a few integer operations where keeping the digits
// in shared memory cost a conflicting byte store per key and a load. Values go through vbuf
// (which may alias kbuf) after the keys, each thread keeping its positions' digits in registers;
// they are written as V or widened to 64 bits when `wide` (V = u32 only). write_keys false: the
// keys are only read for their digits. FULL: `valid` is the whole tile (no test). Whole block;
// gbase, kdst and the staged keys visible (a __syncthreads before).
template <int MODE, class U, class V, bool VALUES, int BLOCK, int ITEMS, bool FULL>
__device__ __forceinline__ void scatter_tile_as(const unsigned (&rank)[ITEMS], int valid,
                                                const long long* gbase, U* const* kdst,
                                                const U* kbuf, V* vbuf, const DigitOf<U>& dig,
                                                bool write_keys, const V (&vals)[ITEMS],
                                                void* vals_out, bool wide) {
    Digits<ITEMS> sorted;  // the digit of position threadIdx.x + i * BLOCK (values only)
#pragma unroll
    for (int w = 0; w < (ITEMS + 3) / 4; ++w) sorted.w[w] = 0u;
    if (write_keys || VALUES) {
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const int j = threadIdx.x + i * BLOCK;
            if (FULL || j < valid) {
                const U key = kbuf[j];
                const unsigned d = dig.template of<MODE>(key);
                if (write_keys) kdst[d][j] = key;
                if (VALUES) sorted.w[i >> 2] |= d << ((i & 3) * 8);
            }
        }
    }
    if (VALUES) {
        __syncthreads();  // every key has left the buffer
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) vbuf[rank[k]] = vals[k];
        __syncthreads();
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const int j = threadIdx.x + i * BLOCK;
            if (FULL || j < valid) {
                const long long dest = gbase[sorted.get(i)] + j;
                if (wide)
                    reinterpret_cast<u64*>(vals_out)[dest] = static_cast<u64>(vbuf[j]);
                else
                    reinterpret_cast<V*>(vals_out)[dest] = vbuf[j];
            }
        }
    }
}

template <class U, class V, bool VALUES, int BLOCK, int ITEMS, bool FULL = false>
__device__ __forceinline__ void scatter_tile(const unsigned (&rank)[ITEMS], int valid,
                                             const long long* gbase, U* const* kdst, const U* kbuf,
                                             V* vbuf, const DigitOf<U>& dig, bool write_keys,
                                             const V (&vals)[ITEMS], void* vals_out, bool wide) {
    if (!dig.is_float)
        scatter_tile_as<IMAGE_INT, U, V, VALUES, BLOCK, ITEMS, FULL>(
            rank, valid, gbase, kdst, kbuf, vbuf, dig, write_keys, vals, vals_out, wide);
    else if (dig.fold)
        scatter_tile_as<IMAGE_FOLD, U, V, VALUES, BLOCK, ITEMS, FULL>(
            rank, valid, gbase, kdst, kbuf, vbuf, dig, write_keys, vals, vals_out, wide);
    else
        scatter_tile_as<IMAGE_FLOAT, U, V, VALUES, BLOCK, ITEMS, FULL>(
            rank, valid, gbase, kdst, kbuf, vbuf, dig, write_keys, vals, vals_out, wide);
}

}  // namespace radix
}  // namespace prim

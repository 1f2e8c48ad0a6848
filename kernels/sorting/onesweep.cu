// onesweep.cu -- the production radix sort: 8-bit digits, one histogram pass for all digit
// passes, then one kernel per digit pass that reads each key once and writes it once (after
// Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort for GPUs", 2022).
// Keys: U = u16 (2-byte keys: uint16, int16, float16 and bfloat16 by their kind, two passes),
// u32 or u64, sorted by their images (util/key_image.cuh) with the caller's bits kept.
//
// onesweep_histogram<U, BLOCK>: the 256-bin histogram of every digit pass at once. Each block
//   counts into shared counters private to a lane: counter (row, digit, lane) at word
//   (row * 256 + digit) * 32 + lane, so lane l always hits bank l and a warp's 32 shared atomics
//   never conflict, whatever the digits (all keys equal included). 2- and 4-byte keys: one row per
//   pass, 32-bit counters; 8-byte keys: passes 2r and 2r + 1 share row r as its low and high 16-bit
//   halves (8 rows of 32-bit counters would take 256 KB). A thread reads its grid-stride share
//   of the keys (prim::for_each_packet: a scalar head up to the first 16-byte boundary, VECS = 8
//   16-byte loads in flight per round, a scalar tail), then the block sums the 32 lane columns
//   of each (pass, digit) and adds the sums into hist (global atomics). It also sets
//   hist[passes * 256] to 1 when a float key is a NaN (the passes then fold the NaNs' images;
//   otherwise they need not). Float keys are counted by their images with NaNs unfolded (no fold
//   per key); a block that met a NaN walks its share of the keys again and moves each NaN key's
//   counts to the folded image (hist_mend), before it sums its columns.
//   Launch: BLOCK threads (1024: one block per SM), any grid (blocks past the keys only zero
//   their counters and sum them). Dynamic shared memory: 4 rows * 256 * 32 words = 128 KB for
//   either key width (only the rows of the passes run are zeroed and read), opted in by the host.
//   Preconditions: hist (passes * 256 + 1 words) zero; no counter overflows: the BLOCK / 32
//   threads sharing a lane column count fewer than 2^16 keys together with 8-byte keys (the host
//   adds blocks, in whole waves, when a thread would take more than 2044 keys besides its head
//   and tail key), fewer than 2^32 with 2- or 4-byte keys (n < 2^32: hist is 32-bit).
// onesweep_plan<BLOCK>: one block of BLOCK = 256 threads, thread d owning digit d (a template, so
//   that the other kernels' instantiations, each compiled alone on first use, carry none of it:
//   NVRTC builds every non-template kernel of a file into each program). For every pass it scans
//   the digit counts across digits (block_exclusive_scan) into each digit's first output position
//   and zeroes hist (with the fold word) for the next sort. A pass whose digit is the same for
//   every key (one count equals n) is skipped: the plan row of each pass says whether it runs,
//   whether it is the first or last pass that runs (first reads the caller's input, last writes the
//   caller's output, the others ping-pong between two scratch buffers), the 1-bit epoch of its
//   look-back status words, whether float images need the fold and, where the pass's digits are
//   skewed (its most frequent digit holds at least skew / 256 of the keys), that digit (else 256);
//   all of this is decided on the device, so the host never waits. If no pass is needed, the last
//   one runs (a stable copy). kernels 2: each pass has two pass kernels, and the plan row's
//   dominant digit says which runs (SELECT below); the epochs of each kernel's status words
//   alternate with that kernel's own runs (launches[0] and launches[1] count them), since each
//   kernel looks back over status words of its own.
// onesweep_pass<U, V, VALUES, BLOCK, ITEMS, MIN_BLOCKS, WINDOW, MATCH, PREFETCH, PARTS, CONSTANT,
//   SELECT>:
//   one digit pass over one portion of the input (a portion is a whole number of tiles and fewer
//   than 2^29 keys, so a digit's count within a portion fits the 29-bit count of a status word;
//   inputs past 2^29 keys run one launch per portion, in order: `offsets` holds the portion's first
//   output position per digit, and the portion's last tile writes the next portion's, at offsets +
//   256, from its inclusive counts). Each block draws the next tile id from an atomic counter,
//   loads BLOCK * ITEMS keys warp-striped (coalesced), counts their digits (radix.cuh: block_count)
//   and publishes the counts at once (PARTS: sets of a warp's counters, radix.cuh), ranks the keys
//   by digit in shared memory (block_rank, MATCH: ballots, shared lane masks, per pass ballots
//   where the plan found the digits skewed, else lane masks, or lane masks with a skewed pass's
//   most frequent digit counted and ranked apart, radix.cuh's MATCH_DOMINANT; without values each
//   key goes to its rank in the shared buffer as soon as it is ranked, block_rank_each, so no rank
//   is kept), and thread d looks back over the predecessors' status words of digit d (one 32-bit
//   word each: 2 flag bits, aggregate or inclusive prefix; 1 epoch bit; 29-bit count, so value and
//   flag are published by one store and need no fence), WINDOW words per round, until an inclusive
//   prefix, then publishes its own inclusive prefix. Keys (and then values) are exchanged in shared
//   memory into digit order and written so that each digit's run is contiguous.
//   CONSTANT 1: a full tile first compares its digits with its first key's (one
//   __syncthreads_and): when they are all that digit the tile is in digit order already, and it
//   is neither counted nor ranked (each key's rank is its place in the tile): the later passes
//   over keys that sit in long runs of one value, whose global counts look spread. CONSTANT 2:
//   every tile is counted, and one whose counts put every key on one digit (read by the count's
//   closing barrier, a __syncthreads_or in place of a __syncthreads) is not ranked: the same
//   tiles, any tile (padding ranks last), for no comparison and no extra barrier.
//   SELECT 0: the pass's only kernel. 1: one of a pass's two kernels (another tile), run where
//   the plan found the pass's digits spread (row[7] 256); 2: the other, run where they are skewed;
//   the grid of the kernel not chosen returns at once, before it draws a tile.
//   PREFETCH > 0: a block first asks the L2 cache for the keys (and values read from memory) of
//   the portion's tile PREFETCH ids after its own (util/load.cuh: prefetch_l2), so that the
//   block that draws it finds them there: two resident blocks per SM alone keep too few loads in
//   flight to cover DRAM's latency while they rank and look back.
//   Launch: grid = tiles of the portion, BLOCK threads (BLOCK >= 256), dynamic shared memory:
//   rank counters (rank_counters<8, PARTS>, rounded up to 16 bytes), TILE * max(sizeof(U),
//   sizeof(V)).
//   Static shared: 256 long longs and 256 pointers (each digit's output position and address).
//   Preconditions: tile_counter 0 (left 0); status holds one word per (tile, digit) of the whole
//   input, written by the previous pass of this kernel (or zero): the epoch bit tells this pass's
//   words apart.
#include "util/prim.cuh"
#include "util/thread.cuh"
#include "util/load.cuh"
#include "util/pack16.cuh"
#include "util/key_image.cuh"
#include "block/scan.cuh"
#include "device/lookback.cuh"
#include "sorting/radix.cuh"

namespace os {
constexpr int BITS = 8;
constexpr int RADIX = 256;
constexpr int PLAN_WORDS = 8;  // active, first, last, src, dst, epoch, fold, dominant
constexpr unsigned FLAG_AGGREGATE = 1u << 30;
constexpr unsigned FLAG_INCLUSIVE = 2u << 30;
constexpr unsigned COUNT_MASK = (1u << 29) - 1u;

__device__ __forceinline__ void publish(unsigned* word, unsigned flag, unsigned epoch,
                                        unsigned count) {
    *reinterpret_cast<volatile unsigned*>(word) = flag | (epoch << 29) | count;
}

// Number of keys of one digit in the tiles [first_tile, tile) of this portion: walk back over
// the predecessors' words of the digit (column pointer, stride RADIX), WINDOW of them per round
// (independent loads, one memory latency), adding aggregates until an inclusive prefix. Each word
// is waited for until it carries this pass's epoch.
template <int WINDOW>
__device__ __forceinline__ unsigned look_back(const unsigned* column, long long tile,
                                              long long first_tile, unsigned epoch) {
    unsigned before = 0;
    for (long long t = tile - 1; t >= first_tile; t -= WINDOW) {
        unsigned s[WINDOW];
#pragma unroll
        for (int w = 0; w < WINDOW; ++w)  // past the portion's first tile: an inclusive 0
            s[w] = t - w >= first_tile
                ? *reinterpret_cast<const volatile unsigned*>(column + (t - w) * RADIX)
                : (FLAG_INCLUSIVE | (epoch << 29));
#pragma unroll
        for (int w = 0; w < WINDOW; ++w) {
            while ((s[w] >> 30) == 0u || ((s[w] >> 29) & 1u) != epoch) {
                __nanosleep(32);
                s[w] = *reinterpret_cast<const volatile unsigned*>(column + (t - w) * RADIX);
            }
            before += s[w] & COUNT_MASK;
            if ((s[w] & FLAG_INCLUSIVE) != 0u) return before;
        }
    }
    return before;
}
}  // namespace os

// The all-pass histogram's shared counters: ROWS rows of 256 digits x 32 lanes, the counter of
// (row, digit, lane) at word (row * 256 + digit) * 32 + lane, so lane l only ever touches bank l
// (no bank conflicts and no two lanes on one word, whatever the digits). 2- and 4-byte keys: a row
// per pass, 32-bit counters. 8-byte keys: 8 rows would take 256 KB, more than a block may have, so
// passes 2r and 2r + 1 share row r, counting in its low and high 16-bit halves (the host bounds
// a block's keys so that no half reaches 2^16). 128 KB of dynamic shared memory either way.
template <class U>
struct OsHist {
    static constexpr int PASSES = static_cast<int>(sizeof(U));  // 8-bit digit passes at most
    static constexpr int PER_WORD = sizeof(U) == 8 ? 2 : 1;  // passes counted in one word
    static constexpr int ROWS = PASSES / PER_WORD;
    static constexpr int WORDS = ROWS * 256 * prim::WARP;
    static constexpr int VECS = 8;  // 16-byte loads in flight per thread
};

// Adds one to (up) or takes one from the counters of every pass's digit of the shifted image o,
// in the column of this lane (col = counters + lane). P: the number of passes when it is all of
// them (known at compile time), 0: `passes` at run time. The last pass takes `last_mask` of its
// digit.
template <int P, class U>
__device__ __forceinline__ void hist_image(U o, int passes, unsigned last_mask, unsigned* col,
                                           bool up) {
    typedef OsHist<U> H;
#pragma unroll
    for (int p = 0; p < H::PASSES; ++p) {
        if (P ? p < P : p < passes) {
            const bool last = P ? p + 1 == P : p + 1 == passes;
            const unsigned d = static_cast<unsigned>(o >> (8 * p)) & (last ? last_mask : 255u);
            const unsigned one = H::PER_WORD == 2 && (p & 1) ? 0x10000u : 1u;
            atomicAdd(col + ((p / H::PER_WORD) * os::RADIX + d) * prim::WARP, up ? one : 0u - one);
        }
    }
}

// One key into the counters. MODE: the image, IMAGE_INT or, for floats, IMAGE_FLOAT (NaNs
// unfolded), which also notes in `fold` a NaN key (the block then mends its counts: hist_mend).
template <int MODE, int P, class U>
__device__ __forceinline__ void hist_key(U key, U flip, U inf, int shift, int passes,
                                         unsigned last_mask, unsigned* col, bool& fold) {
    hist_image<P>(prim::radix::ordered_as<MODE>(key, flip) >> shift, passes, last_mask, col, true);
    if (MODE == prim::radix::IMAGE_FLOAT) fold = fold || prim::radix::needs_fold(key, inf);
}

// Visits a thread's grid-stride share of keys[0, count): scalar head, VECS 16-byte packets per
// round, scalar tail (prim::for_each_packet).
template <class U, int BLOCK, class F>
__device__ __forceinline__ void hist_walk(const U* __restrict__ keys, long long count, F f) {
    prim::for_each_packet<OsHist<U>::VECS>(
        keys, count, prim::global_thread(), static_cast<long long>(gridDim.x) * BLOCK,
        [&](U key, long long) { f(key); },
        [&](const prim::Pack16<U>& pk, long long) {
#pragma unroll
            for (int e = 0; e < prim::Pack16<U>::N; ++e) f(pk.v[e]);
        });
}

// A thread's share of keys counted, with the passes known at compile time when they are all of
// them.
template <int MODE, class U, int BLOCK>
__device__ __forceinline__ void hist_keys_of(const U* __restrict__ keys, long long count, U flip,
                                             U inf, int shift, int passes, unsigned last_mask,
                                             unsigned* col, bool& fold) {
    constexpr int ALL = OsHist<U>::PASSES;
    if (passes == ALL)
        hist_walk<U, BLOCK>(keys, count, [&](U key) {
            hist_key<MODE, ALL>(key, flip, inf, shift, passes, last_mask, col, fold);
        });
    else
        hist_walk<U, BLOCK>(keys, count, [&](U key) {
            hist_key<MODE, 0>(key, flip, inf, shift, passes, last_mask, col, fold);
        });
}

// A block that counted NaN keys by their unfolded images moves each of its NaN keys' counts to
// the folded image (the one quiet NaN's), walking its share of the keys again: the passes then
// sort the folded images. Inputs without NaNs never come here.
template <class U, int BLOCK>
__device__ __forceinline__ void hist_mend(const U* __restrict__ keys, long long count, U flip,
                                          U nan, U inf, int shift, int passes, unsigned last_mask,
                                          unsigned* col) {
    using namespace prim::radix;
    hist_walk<U, BLOCK>(keys, count, [&](U key) {
        if (needs_fold(key, inf)) {
            hist_image<0>(ordered_as<IMAGE_FLOAT>(key, flip) >> shift, passes, last_mask, col,
                          false);
            hist_image<0>(ordered_as<IMAGE_FOLD>(key, flip, nan, inf) >> shift, passes, last_mask,
                          col, true);
        }
    });
}

template <class U, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    onesweep_histogram(const U* __restrict__ keys, long long count, int kind, int descending,
                       int begin_bit, int end_bit, unsigned* __restrict__ hist) {
    using namespace prim::radix;
    typedef OsHist<U> H;
    static_assert(BLOCK % prim::WARP == 0, "onesweep_histogram: whole warps");
    PRIM_DYNAMIC_SHARED(unsigned, counters);  // H::WORDS words (see OsHist)
    const int passes = (end_bit - begin_bit + os::BITS - 1) / os::BITS;
    const int last_width = end_bit - begin_bit - os::BITS * (passes - 1);
    const unsigned last_mask = (1u << last_width) - 1u;
    const int rows = (passes + H::PER_WORD - 1) / H::PER_WORD;  // rows in use
    const DigitOf<U> dig(kind, descending, begin_bit, os::BITS);
    uint4* zero = reinterpret_cast<uint4*>(counters);
    for (int i = threadIdx.x; i < rows * os::RADIX * prim::WARP / 4; i += BLOCK)
        zero[i] = make_uint4(0u, 0u, 0u, 0u);
    __syncthreads();

    const int lane = threadIdx.x % prim::WARP;
    unsigned* col = counters + lane;
    bool fold = false;  // a float key the image folds (a NaN) seen
    if (dig.is_float)
        hist_keys_of<IMAGE_FLOAT, U, BLOCK>(keys, count, dig.flip, dig.inf, dig.shift, passes,
                                            last_mask, col, fold);
    else
        hist_keys_of<IMAGE_INT, U, BLOCK>(keys, count, dig.flip, dig.inf, dig.shift, passes,
                                          last_mask, col, fold);
    if (__syncthreads_or(fold)) {  // block-uniform: this block counted NaN keys
        if (threadIdx.x == 0) atomicOr(&hist[passes * os::RADIX], 1u);
        hist_mend<U, BLOCK>(keys, count, dig.flip, dig.nan, dig.inf, dig.shift, passes, last_mask,
                            col);
        __syncthreads();
    }
    // sum the 32 lane columns of each (row, digit); thread c reads lane (i + c) % 32 in step i,
    // so a warp's 32 reads fall in 32 banks
    for (int c = threadIdx.x; c < rows * os::RADIX; c += BLOCK) {
        const unsigned* w = counters + c * prim::WARP;
        unsigned lo = 0, hi = 0;
#pragma unroll 8
        for (int i = 0; i < prim::WARP; ++i) {
            const unsigned v = w[(i + lane) % prim::WARP];
            if (H::PER_WORD == 2) {
                lo += v & 0xffffu;
                hi += v >> 16;
            } else {
                lo += v;
            }
        }
        const int p = (c / os::RADIX) * H::PER_WORD, d = c % os::RADIX;
        if (lo) atomicAdd(&hist[p * os::RADIX + d], lo);
        if (H::PER_WORD == 2 && hi) atomicAdd(&hist[(p + 1) * os::RADIX + d], hi);
    }
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    onesweep_plan(unsigned* __restrict__ hist, int passes, long long n,
                  long long* __restrict__ offsets, int pass_stride, int* __restrict__ plan,
                  unsigned* __restrict__ launches, int skew, int kernels) {
    static_assert(BLOCK == os::RADIX, "onesweep_plan: a thread a digit");
    __shared__ long long scratch[BLOCK / prim::WARP];
    __shared__ int constant[8];
    __shared__ unsigned long long top[8];  // per pass: (the largest count << 8) | its digit
    const int d = threadIdx.x;
    if (d < 8) top[d] = 0ull;
    __syncthreads();
    for (int p = 0; p < passes; ++p) {
        const long long total = hist[p * os::RADIX + d];
        hist[p * os::RADIX + d] = 0u;
        atomicMax(&top[p], (static_cast<unsigned long long>(total) << 8) | d);
        const int is_constant = __syncthreads_or(total == n);
        long long all;
        offsets[static_cast<long long>(p) * pass_stride + d] =
            prim::block_exclusive_scan<BLOCK>(total, prim::Sum<long long>(), scratch, all);
        if (d == 0) constant[p] = is_constant;
        __syncthreads();  // scratch is reused by the next pass's scan
    }
    if (d == 0) {
        const int fold = hist[passes * os::RADIX] != 0u;  // some float key needs the fold
        hist[passes * os::RADIX] = 0u;
        int active = 0;
        for (int p = 0; p < passes; ++p) active += !constant[p];
        const int runs = active ? active : 1;
        // the runs so far of each pass kernel: kernel 1 (SELECT 1) looks back over status
        // words of its own, whose epochs alternate with its own runs
        unsigned epochs[2] = {launches[0], launches[1]};
        int a = 0;
        for (int p = 0; p < passes; ++p) {
            int* row = plan + p * os::PLAN_WORDS;
            const int on = !constant[p] || (active == 0 && p == passes - 1);
            // the pass's most frequent digit where it holds at least skew / 256 of the keys
            const unsigned long long most = top[p];
            const int dominant = static_cast<long long>(most >> 8) * os::RADIX >= skew * n
                ? static_cast<int>(most & 255u)
                : os::RADIX;
            const int k = kernels == 2 && dominant == os::RADIX;  // the pass's kernel
            row[0] = on;
            row[1] = on && a == 0;
            row[2] = on && a == runs - 1;
            row[3] = (a + 1) & 1;  // scratch buffer read (a - 1) & 1
            row[4] = a & 1;  // scratch buffer written
            row[5] = static_cast<int>(epochs[k] & 1u);
            row[6] = fold;
            row[7] = dominant;
            a += on;
            epochs[k] += on;
        }
        launches[0] = epochs[0];
        launches[1] = epochs[1];
    }
}

// What one tile of a pass works with: onesweep_pass fills it, onesweep_tile<FULL> runs the tile.
template <class U, class V>
struct PassTile {
    const U* kin;
    U* kout;
    const V* vin;
    void* vout;
    long long tile, first_tile, start;
    int valid, vflags;
    unsigned epoch;
    bool first, last;
    long long* offsets;
    unsigned* status;
    prim::radix::DigitOf<U> dig;
    unsigned* hist;  // rank counters (shared)
    unsigned* scratch;  // BLOCK / 32 scan words (shared)
    unsigned char* kvbuf;  // the staged keys, then values (shared)
    long long* gbase;  // per digit: output position of the tile's first key of that digit
    U** kdst;  // per digit: kout + gbase
};

// One tile of a pass (see the header comment). FULL: the tile holds TILE real keys, so loads,
// digits and stores skip their bounds tests (every tile but an input's last). Whole block.
template <bool FULL, class U, class V, bool VALUES, int BLOCK, int ITEMS, int WINDOW, int MATCH,
          int PARTS, int CONSTANT, bool REREAD>
__device__ __forceinline__ void onesweep_tile(const PassTile<U, V>& t, unsigned dominant) {
    using namespace prim::radix;
    U keys[ITEMS];
    Digits<ITEMS> digits = load_tile_digits<U, ITEMS, FULL>(t.kin + t.start, t.valid, t.dig, keys);
    constexpr int TILE = BLOCK * ITEMS;
    unsigned dcount = 0, dstart = 0;
    // CONSTANT 1: a full tile whose keys all have the digit of its first key is in digit order
    // already: no counting, no ranking (each key's rank is its place in the tile). CONSTANT 2:
    // the same read off the tile's counts (block_count's closing barrier): no ranking
    bool constant = false;
    unsigned d0 = 0;
    if (CONSTANT == 1 && (FULL || t.valid == TILE)) {  // block-uniform
        U first[1] = {t.kin[t.start]};  // one address for the whole block
        d0 = digits_of<U, 1, true>(first, 0, t.dig).get(0);
        constant = tile_constant(digits, d0);
    }
    if (constant) {
        dcount = threadIdx.x == d0 ? static_cast<unsigned>(TILE) : 0u;
        dstart = threadIdx.x <= d0 ? 0u : static_cast<unsigned>(TILE);
    } else {
        const bool one = block_count<BLOCK, os::BITS, ITEMS, true, PARTS>(digits, t.hist, t.scratch,
                                                                          dcount, dstart);
        if (CONSTANT == 2) constant = one;  // block-uniform
        // REREAD: the rank reads the digits again from their packed words (four a register), not
        // the count's unpacked values, which NVRTC otherwise keeps live into the dominant rank; it
        // then spills at 128 registers (44 items: 106 spill stores on sm_90)
        if constexpr (REREAD) {
#pragma unroll
            for (int j = 0; j < (ITEMS + 3) / 4; ++j) asm volatile("" : "+r"(digits.w[j]));
        }
    }
    // the tile's digit counts are known before its keys are ranked: publish them at once
    unsigned* word = t.status + t.tile * os::RADIX + threadIdx.x;
    if (threadIdx.x < os::RADIX)
        os::publish(word, t.tile == t.first_tile ? os::FLAG_INCLUSIVE : os::FLAG_AGGREGATE, t.epoch,
                    dcount);
    unsigned rank[ITEMS];  // kept for the values only
    V vals[ITEMS];  // loaded now, consumed after the keys are out: the look-back hides the latency
    if constexpr (VALUES) {
        if (constant) {
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) rank[k] = striped_index<ITEMS>(k);
        } else {
            block_rank<BLOCK, os::BITS, ITEMS, MATCH>(digits, rank, t.hist, dominant);
        }
        load_values<V, ITEMS>(t.vin, t.start, t.valid, t.first && (t.vflags & VALUES_IOTA), vals);
        stage_keys<U, ITEMS>(keys, rank, reinterpret_cast<U*>(t.kvbuf));
    } else {  // each key staged as soon as it is ranked: no rank kept beside the keys
        U* kbuf = reinterpret_cast<U*>(t.kvbuf);
        if (constant) {
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) kbuf[striped_index<ITEMS>(k)] = keys[k];
        } else {
            block_rank_each<BLOCK, os::BITS, ITEMS, MATCH>(
                digits, t.hist, [&](int k, unsigned r) { kbuf[r] = keys[k]; }, dominant);
        }
    }
    if (threadIdx.x < os::RADIX) {
        unsigned before = 0;
        if (t.tile != t.first_tile) {
            before = os::look_back<WINDOW>(t.status + threadIdx.x, t.tile, t.first_tile, t.epoch);
            os::publish(word, os::FLAG_INCLUSIVE, t.epoch, before + dcount);
        }
        const long long base = t.offsets[threadIdx.x] + before - static_cast<long long>(dstart);
        t.gbase[threadIdx.x] = base;
        t.kdst[threadIdx.x] = t.kout + base;
        // the portion's last tile hands the next portion its first position per digit
        if (t.tile == t.first_tile + gridDim.x - 1)
            t.offsets[os::RADIX + threadIdx.x] = t.offsets[threadIdx.x] + before + dcount;
    }
    __syncthreads();
    scatter_tile<U, V, VALUES, BLOCK, ITEMS, FULL>(
        rank, t.valid, t.gbase, t.kdst, reinterpret_cast<U*>(t.kvbuf),
        reinterpret_cast<V*>(t.kvbuf), t.dig, !(t.last && (t.vflags & KEYS_DISCARD)), vals, t.vout,
        t.last && (t.vflags & VALUES_WIDE));
}

// A tile of a pass with one ranking method. Block-uniform; with values the full-tile code's
// longer live ranges would spill registers.
template <class U, class V, bool VALUES, int BLOCK, int ITEMS, int WINDOW, int MATCH, int PARTS,
          int CONSTANT, bool REREAD>
__device__ __forceinline__ void onesweep_pass_tile(const PassTile<U, V>& t, int tile_keys,
                                                   unsigned dominant = os::RADIX) {
    if (!VALUES && t.valid == tile_keys)
        onesweep_tile<true, U, V, VALUES, BLOCK, ITEMS, WINDOW, MATCH, PARTS, CONSTANT, REREAD>(
            t, dominant);
    else
        onesweep_tile<false, U, V, VALUES, BLOCK, ITEMS, WINDOW, MATCH, PARTS, CONSTANT, REREAD>(
            t, dominant);
}

template <class U, class V, bool VALUES, int BLOCK, int ITEMS, int MIN_BLOCKS, int WINDOW,
          int MATCH, int PREFETCH = 0, int PARTS = 1, int CONSTANT = 0, int SELECT = 0>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
    onesweep_pass(const U* __restrict__ keys_in, U* __restrict__ keys_out,
                  U* __restrict__ keys_tmp0, U* __restrict__ keys_tmp1,
                  const V* __restrict__ vals_in, void* __restrict__ vals_out,
                  V* __restrict__ vals_tmp0, V* __restrict__ vals_tmp1, long long n, int kind,
                  int descending, int shift, int width, int vflags, const int* __restrict__ plan,
                  long long* __restrict__ offsets, unsigned* __restrict__ status,
                  unsigned* __restrict__ tile_counter, long long first_tile) {
    using namespace prim::radix;
    static_assert(BLOCK >= os::RADIX, "onesweep_pass: one thread per digit for the look-back");
    constexpr int TILE = BLOCK * ITEMS;
    constexpr int WARPS = BLOCK / prim::WARP;
    constexpr int COUNTERS = rank_counters<os::BITS, PARTS>(WARPS);
    const int* row = plan;  // this pass's plan row
    if (row[0] == 0) return;  // the digit is constant over the input: the whole grid skips
    // SELECT 1 runs the passes the plan found spread, 2 the skewed ones (the grid of the other
    // kernel of the pass skips it); 0: every pass
    if (SELECT != 0 && (row[7] < os::RADIX) != (SELECT == 2)) return;
    const bool first = row[1] != 0, last = row[2] != 0;
    const unsigned epoch = static_cast<unsigned>(row[5]);
    const U* kin = first ? keys_in : (row[3] ? keys_tmp1 : keys_tmp0);
    U* kout = last ? keys_out : (row[4] ? keys_tmp1 : keys_tmp0);
    const V* vin = first ? vals_in : (row[3] ? vals_tmp1 : vals_tmp0);
    void* vout = last ? vals_out : static_cast<void*>(row[4] ? vals_tmp1 : vals_tmp0);

    // dynamic shared memory: rank counters | keys (then values)
    PRIM_DYNAMIC_SHARED(unsigned char, smem);
    unsigned* hist = reinterpret_cast<unsigned*>(smem);
    unsigned char* kvbuf = smem + ((COUNTERS * 4 + 15) / 16) * 16;
    __shared__ long long gbase[os::RADIX];
    __shared__ U* kdst[os::RADIX];
    __shared__ unsigned scratch[WARPS];
    __shared__ unsigned tile_slot;

    zero_rank_counters<BLOCK, os::BITS, PARTS>(hist);  // ordered by next_tile's barrier
    const long long tile = first_tile + prim::next_tile(tile_counter, &tile_slot);
    const long long start = tile * TILE;
    const int valid = static_cast<int>(n - start < TILE ? n - start : TILE);
    if constexpr (PREFETCH > 0) {  // the portion's tile drawn PREFETCH ids later, into the L2
        const long long ahead = start + static_cast<long long>(PREFETCH) * TILE;
        const long long end = (first_tile + gridDim.x) * static_cast<long long>(TILE);
        const long long m = n < end ? n : end;
        if (VALUES && !(first && (vflags & VALUES_IOTA)))  // (iota values are made, not read)
            prim::prefetch_l2<BLOCK>(ahead, TILE, m, kin, vin);
        else
            prim::prefetch_l2<BLOCK>(ahead, TILE, m, kin);
    }
    DigitOf<U> dig(kind, descending, shift, width);
    dig.fold = row[6] != 0;

    const PassTile<U, V> t{kin,   kout,   vin,     vout,  tile,  first_tile, start,
                           valid, vflags, epoch,   first, last,  offsets,    status,
                           dig,   hist,   scratch, kvbuf, gbase, kdst};
    // grid-uniform: the pass's ranking (MATCH_PER_PASS: ballots where the plan found the
    // pass's digits skewed; MATCH_DOMINANT: lane masks with the skewed pass's most frequent
    // digit apart; MATCH_PER_PASS_DOMINANT: that where the pass is skewed, else lane masks).
    // The input's partial last tile of a pass that ranks its dominant digit apart is ranked by
    // lane masks (block-uniform; the same counts and ranks): on an H100 (2^27 uint32 keys, each
    // bit set with p = 1/8, tools/probes/timeline.py) its block took 36 us, 10 of them counting
    // and 19 ranking (5.3 and 5.8 in a full tile), where lane masks took 20 and the same keys cut
    // to whole tiles 14, and every pass waits for that block (why the padded tile's dominant
    // path is slow was not found)
    const unsigned dominant = static_cast<unsigned>(row[7]);  // RADIX: not skewed
    const bool apart =
        MATCH == MATCH_DOMINANT || (MATCH == MATCH_PER_PASS_DOMINANT && dominant < os::RADIX);
    // a kernel that may rank a digit apart re-reads the packed digits for every tile's rank
    constexpr bool REREAD = MATCH == MATCH_DOMINANT || MATCH == MATCH_PER_PASS_DOMINANT;
    if (apart && valid == TILE)
        onesweep_pass_tile<U, V, VALUES, BLOCK, ITEMS, WINDOW, MATCH_DOMINANT, PARTS, CONSTANT,
                           REREAD>(t, TILE, dominant);
    else if (!apart && (MATCH == MATCH_BALLOT || (MATCH == MATCH_PER_PASS && dominant < os::RADIX)))
        onesweep_pass_tile<U, V, VALUES, BLOCK, ITEMS, WINDOW, MATCH_BALLOT, PARTS, CONSTANT,
                           REREAD>(t, TILE);
    else
        onesweep_pass_tile<U, V, VALUES, BLOCK, ITEMS, WINDOW, MATCH_LANE_MASKS, PARTS, CONSTANT,
                           REREAD>(t, TILE);
}

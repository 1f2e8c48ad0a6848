// onesweep.cu -- the production radix sort: 8-bit digits, one histogram pass for all digit
// passes, then one kernel per digit pass that reads each key once and writes it once (after
// Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort for GPUs", 2022).
//
// onesweep_histogram<U, BLOCK>: the 256-bin histogram of every digit pass at once. Each block
//   counts into shared counters (one 256-bin row per pass, in HIST_COPIES bank-shifted copies
//   against same-digit conflicts) with shared atomics, reading its grid-stride share of the keys
//   as 16-byte vectors (a scalar head up to the first 16-byte boundary and a scalar tail), and
//   adds its rows into hist (global atomics). It also sets hist[passes * 256] to 1 when a float
//   key is a NaN or -0.0 (the passes then fold those keys' images; otherwise they need not).
//   Grid: resident blocks, any count. Static shared memory: HIST_COPIES * (sizeof(U) * 256 + 1)
//   words. Precondition: hist (passes * 256 + 1 words) zero.
// onesweep_plan: one block of 256 threads, thread d owning digit d. For every pass it scans the
//   digit counts across digits (block_exclusive_scan) into each digit's first output position
//   and zeroes hist (with the fold word) for the next sort. A pass whose digit is the same for every key (one count
//   equals n) is skipped: the plan row of each pass says whether it runs, whether it is the first
//   or last pass that runs (first reads the caller's input, last writes the caller's output, the
//   others ping-pong between two scratch buffers), the 1-bit epoch of its look-back status
//   words and whether float images need the fold; all of this is decided on the device, so the
//   host never waits. If no pass is needed, the last one runs (a stable copy).
// onesweep_pass<U, V, VALUES, BLOCK, ITEMS, MIN_BLOCKS, WINDOW, MATCH>: one digit pass over one
//   portion of the input (a portion is a whole number of tiles and fewer than 2^29 keys, so a
//   digit's count within a portion fits the 29-bit count of a status word; inputs past 2^29 keys
//   run one launch per portion, in order: `offsets` holds the portion's first output position per
//   digit, and the portion's last tile writes the next portion's, at offsets + 256, from its
//   inclusive counts). Each block draws the next tile id from an atomic counter, loads BLOCK *
//   ITEMS keys warp-striped (coalesced), counts their digits (radix.cuh: block_count) and publishes
//   the counts at once, ranks the keys by digit in shared memory (block_rank, MATCH: ballots or
//   atomicOr lane masks), and thread d looks back over the predecessors' status words of digit d
//   (one 32-bit word each: 2 flag bits, aggregate or inclusive prefix; 1 epoch bit; 29-bit count,
//   so value and flag are published by one store and need no fence), WINDOW words per round, until
//   an inclusive prefix, then publishes its own inclusive prefix. Keys (and then values) are
//   exchanged in shared memory into digit order and written so that each digit's run is contiguous.
//   Launch: grid = tiles of the portion, BLOCK threads (BLOCK >= 256), dynamic shared memory:
//   rank counters (rounded up to 16 bytes), TILE * max(sizeof(U), sizeof(V)), TILE digit bytes.
//   Static shared: 256 long longs and 256 pointers (each digit's output position and address).
//   Preconditions: tile_counter 0 (left 0); status holds one word per (tile, digit) of the whole
//   input, written by the previous pass (or zero): the epoch bit tells this pass's words apart.
#include "common/prim.cuh"
#include "common/load.cuh"
#include "common/scan.cuh"
#include "sort/radix.cuh"

namespace os {
constexpr int BITS = 8;
constexpr int RADIX = 256;
constexpr int PLAN_WORDS = 8;  // active, first, last, src, dst, epoch, fold, -
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

// The histogram block keeps COPIES copies of its counters, lane l adding into copy l % COPIES,
// each copy shifted by one bank: lanes of a warp counting the same digit (skewed keys: the
// exponent byte of floats, small integers) then hit COPIES different banks instead of one word.
constexpr int HIST_COPIES = 4;

template <class U>
__host__ __device__ constexpr int hist_copy_stride() {
    return static_cast<int>(sizeof(U)) * 256 + 1;
}

template <class U>
__device__ __forceinline__ void count_key(U key, const prim::radix::DigitOf<U>& dig, int passes,
                                          unsigned last_mask, unsigned* counts) {
    constexpr int MAXP = sizeof(U);
    const U o = dig.image(key) >> dig.shift;
#pragma unroll
    for (int p = 0; p < MAXP; ++p) {
        if (p < passes) {
            const unsigned m = p + 1 == passes ? last_mask : 255u;
            atomicAdd(&counts[p * os::RADIX + (static_cast<unsigned>(o >> (8 * p)) & m)], 1u);
        }
    }
}

template <class U, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
onesweep_histogram(const U* __restrict__ keys, long long count, int kind, int descending,
                   int begin_bit, int end_bit, unsigned* __restrict__ hist) {
    typedef prim::Vec16<U> V;
    constexpr int STRIDE = hist_copy_stride<U>();
    __shared__ unsigned all_counts[HIST_COPIES * STRIDE];
    const int passes = (end_bit - begin_bit + os::BITS - 1) / os::BITS;
    const int last_width = end_bit - begin_bit - os::BITS * (passes - 1);
    const unsigned last_mask = (1u << last_width) - 1u;
    const prim::radix::DigitOf<U> dig(kind, descending, begin_bit, os::BITS);
    for (int i = threadIdx.x; i < HIST_COPIES * STRIDE; i += BLOCK) all_counts[i] = 0u;
    __syncthreads();
    unsigned* counts = all_counts + (threadIdx.x % HIST_COPIES) * STRIDE;

    const long long head = prim::aligned_head(keys, count);
    const long long nvec = (count - head) / V::N;
    const long long tail = head + nvec * V::N;
    const long long gtid = static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x;
    const long long stride = static_cast<long long>(gridDim.x) * BLOCK;
    bool fold = false;  // a float key the image folds (NaN, -0.0) seen
    auto take = [&](U key) {
        count_key(key, dig, passes, last_mask, counts);
        fold = fold || (dig.is_float && prim::radix::needs_fold(key));
    };
    if (gtid < head) take(keys[gtid]);
    for (long long i = tail + gtid; i < count; i += stride) take(keys[i]);
    const U* body = keys + head;
    for (long long v = gtid; v < nvec; v += stride) {
        const prim::Packet<U> pk = prim::load16(body + v * V::N);
#pragma unroll
        for (int e = 0; e < V::N; ++e) take(pk.v[e]);
    }
    if (__syncthreads_or(fold) && threadIdx.x == 0) atomicOr(&hist[passes * os::RADIX], 1u);
    for (int i = threadIdx.x; i < passes * os::RADIX; i += BLOCK) {
        unsigned c = 0;
#pragma unroll
        for (int copy = 0; copy < HIST_COPIES; ++copy) c += all_counts[copy * STRIDE + i];
        if (c) atomicAdd(&hist[i], c);
    }
}

__global__ void __launch_bounds__(256)
onesweep_plan(unsigned* __restrict__ hist, int passes, long long n, long long* __restrict__ offsets,
              int pass_stride, int* __restrict__ plan, unsigned* __restrict__ launches) {
    __shared__ long long scratch[256 / prim::WARP];
    __shared__ int constant[8];
    const int d = threadIdx.x;
    for (int p = 0; p < passes; ++p) {
        const long long total = hist[p * os::RADIX + d];
        hist[p * os::RADIX + d] = 0u;
        const int is_constant = __syncthreads_or(total == n);
        long long all;
        offsets[static_cast<long long>(p) * pass_stride + d] =
            prim::block_exclusive_scan<256>(total, prim::Sum<long long>(), scratch, all);
        if (d == 0) constant[p] = is_constant;
        __syncthreads();  // scratch is reused by the next pass's scan
    }
    if (d == 0) {
        const int fold = hist[passes * os::RADIX] != 0u;  // some float key needs the fold
        hist[passes * os::RADIX] = 0u;
        int active = 0;
        for (int p = 0; p < passes; ++p) active += !constant[p];
        const int runs = active ? active : 1;
        const unsigned epoch0 = *launches;
        int a = 0;
        for (int p = 0; p < passes; ++p) {
            int* row = plan + p * os::PLAN_WORDS;
            const int on = !constant[p] || (active == 0 && p == passes - 1);
            row[0] = on;
            row[1] = on && a == 0;
            row[2] = on && a == runs - 1;
            row[3] = (a + 1) & 1;  // scratch buffer read (a - 1) & 1
            row[4] = a & 1;        // scratch buffer written
            row[5] = static_cast<int>((epoch0 + a) & 1u);
            row[6] = fold;
            a += on;
        }
        *launches = epoch0 + runs;
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
    unsigned* hist;        // rank counters (shared)
    unsigned* scratch;     // BLOCK / 32 scan words (shared)
    unsigned char* kvbuf;  // the staged keys, then values (shared)
    unsigned char* dbuf;   // the staged digits (shared)
    long long* gbase;      // per digit: output position of the tile's first key of that digit
    U** kdst;              // per digit: kout + gbase
};

// One tile of a pass (see the header comment). FULL: the tile holds TILE real keys, so loads,
// digits and stores skip their bounds tests (every tile but an input's last). Whole block.
template <bool FULL, class U, class V, bool VALUES, int BLOCK, int ITEMS, int WINDOW, int MATCH>
__device__ __forceinline__ void onesweep_tile(const PassTile<U, V>& t) {
    using namespace prim::radix;
    U keys[ITEMS];
    const Digits<ITEMS> digits = load_tile_digits<U, ITEMS, FULL>(t.kin + t.start, t.valid, t.dig,
                                                                  keys);
    unsigned dcount = 0, dstart = 0;
    block_count<BLOCK, os::BITS, ITEMS>(digits, t.hist, t.scratch, dcount, dstart);
    // the tile's digit counts are known before its keys are ranked: publish them at once
    unsigned* word = t.status + t.tile * os::RADIX + threadIdx.x;
    if (threadIdx.x < os::RADIX)
        os::publish(word, t.tile == t.first_tile ? os::FLAG_INCLUSIVE : os::FLAG_AGGREGATE,
                    t.epoch, dcount);
    unsigned rank[ITEMS];
    block_rank<BLOCK, os::BITS, ITEMS, MATCH>(digits, rank, t.hist);
    V vals[ITEMS];  // loaded now, consumed after the keys are out: the look-back hides the latency
    if (VALUES)
        load_values<V, ITEMS>(t.vin, t.start, t.valid, t.first && (t.vflags & VALUES_IOTA), vals);
    stage_keys<U, ITEMS>(keys, digits, rank, reinterpret_cast<U*>(t.kvbuf), t.dbuf);
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
        rank, t.valid, t.gbase, t.kdst, reinterpret_cast<U*>(t.kvbuf), t.dbuf,
        reinterpret_cast<V*>(t.kvbuf), !(t.last && (t.vflags & KEYS_DISCARD)), vals, t.vout,
        t.last && (t.vflags & VALUES_WIDE));
}

template <class U, class V, bool VALUES, int BLOCK, int ITEMS, int MIN_BLOCKS, int WINDOW,
          int MATCH>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
onesweep_pass(const U* __restrict__ keys_in, U* __restrict__ keys_out, U* __restrict__ keys_tmp0,
              U* __restrict__ keys_tmp1, const V* __restrict__ vals_in, void* __restrict__ vals_out,
              V* __restrict__ vals_tmp0, V* __restrict__ vals_tmp1, long long n, int kind,
              int descending, int shift, int width, int vflags, const int* __restrict__ plan,
              long long* __restrict__ offsets, unsigned* __restrict__ status,
              unsigned* __restrict__ tile_counter, long long first_tile) {
    using namespace prim::radix;
    static_assert(BLOCK >= os::RADIX, "onesweep_pass: one thread per digit for the look-back");
    constexpr int TILE = BLOCK * ITEMS;
    constexpr int WARPS = BLOCK / prim::WARP;
    constexpr int COUNTERS = rank_counters<os::BITS>(WARPS);
    constexpr int KV = sizeof(U) > sizeof(V) ? sizeof(U) : sizeof(V);
    const int* row = plan;  // this pass's plan row
    if (row[0] == 0) return;  // the digit is constant over the input: the whole grid skips
    const bool first = row[1] != 0, last = row[2] != 0;
    const unsigned epoch = static_cast<unsigned>(row[5]);
    const U* kin = first ? keys_in : (row[3] ? keys_tmp1 : keys_tmp0);
    U* kout = last ? keys_out : (row[4] ? keys_tmp1 : keys_tmp0);
    const V* vin = first ? vals_in : (row[3] ? vals_tmp1 : vals_tmp0);
    void* vout = last ? vals_out : static_cast<void*>(row[4] ? vals_tmp1 : vals_tmp0);

    // dynamic shared memory: rank counters | keys (then values) | digits
    PRIM_DYNAMIC_SHARED(unsigned char, smem);
    unsigned* hist = reinterpret_cast<unsigned*>(smem);
    unsigned char* kvbuf = smem + ((COUNTERS * 4 + 15) / 16) * 16;
    unsigned char* dbuf = kvbuf + TILE * KV;
    __shared__ long long gbase[os::RADIX];
    __shared__ U* kdst[os::RADIX];
    __shared__ unsigned scratch[WARPS];
    __shared__ unsigned tile_slot;

    const long long tile = first_tile + prim::next_tile(tile_counter, &tile_slot);
    const long long start = tile * TILE;
    const int valid = static_cast<int>(n - start < TILE ? n - start : TILE);
    DigitOf<U> dig(kind, descending, shift, width);
    dig.fold = row[6] != 0;

    const PassTile<U, V> t{kin, kout, vin, vout, tile, first_tile, start, valid, vflags, epoch,
                           first, last, offsets, status, dig, hist, scratch, kvbuf, dbuf, gbase,
                           kdst};
    // block-uniform; with values the full-tile code's longer live ranges would spill registers
    if (!VALUES && valid == TILE)
        onesweep_tile<true, U, V, VALUES, BLOCK, ITEMS, WINDOW, MATCH>(t);
    else
        onesweep_tile<false, U, V, VALUES, BLOCK, ITEMS, WINDOW, MATCH>(t);
}

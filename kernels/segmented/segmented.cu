// segmented.cu -- segmented scans and segmented reductions in one pass, load-balanced over
// elements (never a block per segment, so many tiny segments and a few huge ones cost the same);
// for long segments on average, also a reduction with a block per segment and no pre-pass whose
// longest segments are split among blocks (segmented_reduce_segments).
//
// segmented_lookback<InT, AccT, Op, BLOCK, ITEMS, MODE, SEGS, MIN_BLOCKS, OVERLAP>: the
// decoupled look-back scan (device/lookback.cuh) run on (value, head) pairs under Segmented<Op>.
// Each block takes the next tile id (BLOCK * ITEMS elements, ITEMS consecutive per thread) and
// issues its loads at once (on full, aligned tiles each warp reads lane-consecutive 16-byte
// vectors and exchanges them through shared memory, util/load.cuh layout). A thread's ITEMS
// head flags are one ITEMS-bit mask (ITEMS = 8, 16 or 32: one 32-bit word holds a thread's bits):
//   SEGS = SEG_FLAGS: head flags, flags[i] != 0 starts a segment, element 0 always does; a
//     thread reads its ITEMS flag bytes with 16-byte (8-byte) loads on full aligned tiles.
//   SEGS = SEG_SEARCH / SEG_BOUNDS: CSR-style offsets, segment s is [offsets[s], offsets[s+1]).
//     A tile [t0, t0 + TILE) needs the offsets that fall in it, offsets[lo .. hi), lo and hi the
//     lower bounds of t0 and t0 + TILE. Each bound travels as a boundary word 2 * L + (offsets[L]
//     == key) (segmented_bounds below). SEG_SEARCH: warps 0 and 1 find the two words with 32-ary
//     warp searches over all offsets; SEG_BOUNDS: a pre-pass (segmented_bounds) wrote them, the
//     block reads two words. The block then sets the bits of offsets[lo .. hi) in a TILE-bit head
//     bitmap in shared memory (empty segments set an already set bit), and each thread takes
//     its mask with one shared read. No per-element offset arithmetic remains.
// Per thread: the op-sum since its last head (or of all its items) and whether it holds a head;
// a block-wide exclusive scan of these pairs. Thread 0 publishes the tile's aggregate at once, as
// its inclusive prefix when the tile holds a head (a head cuts off everything before it); warp 0
// looks back only when the tile's first element is not a head. OVERLAP = true keeps the look-back
// off the other warps' path: the block barrier after it is skipped when warp 0 holds a head (no
// later thread needs the prefix then).
//   MODE 0: inclusive scan, out[i] = op over the segment's elements up to i;
//   MODE 1: exclusive scan, the identity at each segment's first element.
// (Segmented reductions run segmented_reduce_tiles below, which keeps no scanned values.)
// MIN_BLOCKS: the resident blocks per multiprocessor the compiler must leave registers for.
// Launch: grid = number of tiles, BLOCK threads (a multiple of 32, >= 64); tile_counter == 0 on
// entry (left 0); tile_state holds TileStatus<Flagged<AccT>>::bytes(tiles) bytes, zeroed once
// (epochs, see device/lookback.cuh); SEG_BOUNDS: bounds holds the words of keys t * TILE for
// t = 0 .. tiles (segmented_bounds run just before, same stream). Static shared memory: BLOCK/32
// + 1 pairs, TILE/32 bitmap words, the exchange buffers ((BLOCK/32) * 32 * ITEMS elements of the
// wider type). Offsets: nseg + 1 non-decreasing values (validated by the host); the kernel stays
// in bounds for any values, the results are then unspecified.
//
// segmented_bounds<BLOCK>: the boundary words of keys t * tile for t in [0, count), one warp
// each, by the 32-ary warp search over offsets[0 .. nseg]. Any 1-D launch of BLOCK threads (whole
// warps) covering count warps.
//
// segmented_reduce_tiles<InT, AccT, Op, BLOCK, ITEMS, MIN_BLOCKS, EXCHANGE, DRAWN>: out[s] = op
// over segment s of CSR-style offsets, in one pass that keeps no scanned value per element. Each
// block takes a tile (TILE = BLOCK * ITEMS elements, ITEMS = 8, 16 or 32 consecutive per thread):
// DRAWN, the next id from the counter (a tile only ever waits on tiles drawn before it); else
// blockIdx.x (the look-back then relies on blocks starting in index order; the loads need not
// wait for a draw). It issues its loads at once: EXCHANGE, lane-consecutive 16-byte vectors
// handed to the lanes through shared memory (swizzled, no bank conflicts); otherwise each thread
// reads its own ITEMS with 16-byte loads. The tile's offsets are those in (t0, t0 + TILE],
// indices [lo, hi) from the words segmented_upper_bounds wrote (tile 0 also takes those <= 0):
// each sets the bit of the element it ends (offset - t0 - 1) in an end bitmap, the first of equal
// ones records its index - lo in a per-position table (2 bytes per element), and one equal to its
// predecessor writes its empty segment's identity. After one barrier each thread takes its ITEMS
// end bits with one shared read and turns its values into running op-sums that restart after
// each end (no branches); a run that starts after an end in the thread is then complete and is
// written at once (segment = the index in the table, minus one; a tile with 2^16 - 1 offsets or
// more searches offsets[lo .. hi) instead). A warp without ends just sums. What is left is each
// thread's first run, which needs what came before it, and its last, which goes to the block: one
// exclusive scan of (op-sum after the last end, any end or head) pairs under Segmented<Op> (warp
// scans, one __syncthreads_or, each thread that needs its carry folds the earlier warps'
// totals). Thread 0 publishes the tile's pair at once, as its inclusive prefix when the tile
// holds an end or starts a segment; the single thread whose first run started before the tile
// gets the tile's prefix from its warp's look-back; a tile holding no end at all has warp 0 look
// back and publish its inclusive prefix. Three barriers per tile.
//   Elements before offsets[0] or from offsets[nseg] on belong to no segment: the run ending at
//   offsets[0] - 1 maps to index -1 and the run after offsets[nseg] never ends.
// Launch: grid = number of tiles, BLOCK threads (a multiple of 32, >= 64); DRAWN: tile_counter
// == 0 on entry (left 0); tile_state as for segmented_lookback; bounds holds count = tiles + 1
// words of segmented_upper_bounds<TILE>, run just before on the same stream. Shared memory:
// static TILE / 8 bytes of end bits, 2 * TILE bytes of table, BLOCK / 32 pairs; EXCHANGE:
// TILE * sizeof(InT) bytes of dynamic shared memory. Offsets: nseg + 1 non-decreasing values
// (validated by the host); the kernel stays in bounds for any values and any bound words (both
// are clamped), the results are then unspecified.
//
// segmented_upper_bounds<TILE>: the words of keys t * TILE, t in [0, count): 2 * U + (key is an
// offset), U the number of offsets <= key. Scattered rather than searched: thread s (0 .. nseg +
// 1) owns the keys in [offsets[s - 1], offsets[s]) and its warp writes them, 32 at a time.
// Launch: 1-D, whole warps, at least nseg + 2 threads.
//
// segmented_reduce_segments<InT, AccT, Op, BLOCK, ITEMS, MIN_BLOCKS>: out[s] = op over segment s
// of CSR-style offsets with a block per segment and no pre-pass (for long segments on average,
// as CUB's segmented reduction): the block reads offsets[s] and offsets[s + 1] itself and reduces
// the segment with 16-byte vector loads (a scalar head up to the first 16-byte boundary and a
// scalar tail), ITEMS / N vectors in flight per thread and step, then one block_reduce. Blocks
// 0 .. chunks - 1 come first and bound the work of any block: the array is cut into `chunk`-
// element chunks, a segment's block takes at most its first `chunk` elements, and chunk block c
// takes what lies in chunk c past the first chunk of the segment holding the chunk's start (a
// warp search over the offsets; at most one segment has such a part in a chunk). A segment
// longer than one chunk thus has parts in out[s] and partials[first .. last]; each part's
// thread 0 writes it, fences and counts an arrival in arrivals[first] (tagged with the launch's
// epoch: words of earlier launches count 0), and the last to arrive adds the parts up in order
// (deterministic). Empty segments give the identity; elements outside [offsets[0],
// offsets[nseg]) belong to no segment.
// Launch: grid = chunks + nseg blocks of BLOCK threads (a multiple of 32, at most 1024); chunk a
// multiple of BLOCK * ITEMS, chunks = ceil(n / chunk); partials holds chunks values, arrivals
// chunks words (zeroed once; epoch > 0, a new one per launch). Static shared memory: BLOCK / 32
// accumulators. Offsets: nseg + 1 non-decreasing values (validated by the host); the kernel stays
// in bounds for any values (they are clamped to [0, n]), the results are then unspecified.
#include "util/prim.cuh"
#include "util/load.cuh"
#include "util/search.cuh"
#include "util/segmented.cuh"
#include "warp/shfl.cuh"
#include "warp/scan.cuh"
#include "block/reduce.cuh"
#include "block/scan.cuh"
#include "device/lookback.cuh"

namespace prim {

constexpr int SEG_FLAGS = 0;   // head flags
constexpr int SEG_SEARCH = 1;  // offsets, tile bounds searched by the block
constexpr int SEG_BOUNDS = 2;  // offsets, tile bounds from the segmented_bounds pre-pass

// First index in offsets[0 .. count) whose offset is >= key (count if none), by the 32 lanes of
// a warp, 32 probes per step: about log32(count) dependent loads.
// The lanes call together; all get the answer.
__device__ __forceinline__ long long warp_lower_bound(const long long* offsets, long long count,
                                                      long long key) {
    const int lane = threadIdx.x % WARP;
    long long a = 0, b = count;  // the answer lies in [a, b]
    while (b - a > WARP) {
        const long long step = (b - a + WARP - 1) / WARP;
        const long long probe = a + lane * step;
        const bool lt = probe < b && __ldg(offsets + probe) < key;
        const int below = __popc(__ballot_sync(FULL_MASK, lt));  // probes left of the answer
        if (below == 0) return a;
        const long long next_b = a + below * step;  // the first probe not left of it (or >= b)
        a = a + (below - 1) * step + 1;
        if (next_b < b) b = next_b;
    }
    const long long probe = a + lane;
    const bool lt = probe < b && __ldg(offsets + probe) < key;
    return a + __popc(__ballot_sync(FULL_MASK, lt));
}

// A tile boundary as the kernels take it: 2 * L + (offsets[L] == key), L = lower bound of key.
__device__ __forceinline__ long long boundary_word(const long long* offsets, long long count,
                                                   long long key, long long L) {
    return 2 * L + ((L < count && __ldg(offsets + L) == key) ? 1 : 0);
}

// Bit j of the result: byte j of w is not 0.
__device__ __forceinline__ unsigned nonzero_bytes(unsigned w) {
    w |= w >> 4;
    w |= w >> 2;
    w |= w >> 1;  // bit 0 of each byte: the OR of the byte's bits
    w &= 0x01010101u;
    return ((w * 0x00204081u) >> 21) & 0xfu;  // bits 0, 8, 16, 24 to 0..3 (no carries)
}

// Bit k: p[k] != 0 for the ITEMS flags at p; 16-byte (ITEMS = 8: 8-byte) loads when `vector`
// (p aligned to them), else byte by byte up to `avail`.
template <int ITEMS>
__device__ __forceinline__ unsigned flag_bits(const unsigned char* p, long long avail,
                                              bool vector) {
    unsigned bits = 0u;
    if (vector) {
        unsigned w[ITEMS / 4];
        if (ITEMS % 16 == 0) {
#pragma unroll
            for (int q = 0; q < ITEMS / 16; ++q) {
                const uint4 u = __ldg(reinterpret_cast<const uint4*>(p) + q);
                w[4 * q] = u.x;
                w[4 * q + 1] = u.y;
                w[4 * q + 2] = u.z;
                w[4 * q + 3] = u.w;
            }
        } else {
            const uint2 u = __ldg(reinterpret_cast<const uint2*>(p));
            w[0] = u.x;
            w[1] = u.y;
        }
#pragma unroll
        for (int j = 0; j < ITEMS / 4; ++j) bits |= nonzero_bytes(w[j]) << (4 * j);
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k)
            if (k < avail && p[k] != 0) bits |= 1u << k;
    }
    return bits;
}

}  // namespace prim

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    segmented_bounds(const long long* __restrict__ offsets, long long nseg, long long tile,
                     long long count, long long* __restrict__ bounds) {
    const long long t = (static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x) /
        prim::WARP;  // one warp per boundary: warp-uniform
    if (t < count) {
        const long long key = t * tile;
        const long long L = prim::warp_lower_bound(offsets, nseg + 1, key);
        if (threadIdx.x % prim::WARP == 0)
            bounds[t] = prim::boundary_word(offsets, nseg + 1, key, L);
    }
}

template <class InT, class AccT, class Op, int BLOCK, int ITEMS, int MODE, int SEGS,
          int MIN_BLOCKS = 1, bool OVERLAP = true>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
    segmented_lookback(const InT* __restrict__ in, long long n,
                       const unsigned char* __restrict__ flags,
                       const long long* __restrict__ offsets, long long nseg,
                       const long long* __restrict__ bounds, AccT* __restrict__ out,
                       unsigned int* __restrict__ tile_counter, unsigned char* tile_state,
                       unsigned int epoch) {
    constexpr bool OFFSETS = SEGS != prim::SEG_FLAGS;
    static_assert(MODE == 0 || MODE == 1, "MODE: 0 inclusive, 1 exclusive");
    static_assert(ITEMS == 8 || ITEMS == 16 || ITEMS == 32, "a thread's head bits fill one word");
    static_assert(ITEMS % prim::Vec16<InT>::N == 0 && ITEMS % prim::Vec16<AccT>::N == 0,
                  "ITEMS must fill whole 16-byte vectors");
    static_assert(BLOCK % prim::WARP == 0 && BLOCK >= 64, "BLOCK: whole warps, at least two");
    typedef prim::Segmented<Op> SOp;
    typedef prim::Flagged<AccT> P;
    typedef prim::Vec16<InT> V;
    constexpr int TILE = BLOCK * ITEMS;
    constexpr int WARPS = BLOCK / prim::WARP;
    constexpr int WORDS = OFFSETS ? TILE / 32 : 1;  // head bitmap
    constexpr int XBYTES =
        (sizeof(InT) > sizeof(AccT) ? sizeof(InT) : sizeof(AccT)) * prim::WARP * ITEMS;
    const Op op;
    const SOp sop;
    __shared__ P scratch[WARPS];
    __shared__ P tile_prefix;
    __shared__ unsigned int tile_id;
    __shared__ long long bound[2];  // boundary words of the tile's start and end
    __shared__ unsigned int heads[WORDS];
    __shared__ __align__(16) unsigned char exchange[WARPS][XBYTES];

    if (OFFSETS)
        for (int w = threadIdx.x; w < WORDS; w += BLOCK) heads[w] = 0u;
    const long long tile = prim::next_tile(tile_counter, &tile_id);  // its barrier orders the above
    const int lane = threadIdx.x % prim::WARP;
    const int warp = threadIdx.x / prim::WARP;
    const long long t0 = tile * TILE;
    const long long warp_first = t0 + static_cast<long long>(warp) * prim::WARP * ITEMS;
    const long long first = warp_first + static_cast<long long>(lane) * ITEMS;
    const long long avail = n - first;  // may be <= 0 in the last tile
    const bool full = t0 + TILE <= n;
    const bool vector =
        full && ((reinterpret_cast<prim::uptr>(in) | reinterpret_cast<prim::uptr>(out)) & 15u) == 0;

    // Issue the loads first: they fly while the segment bounds are found.
    prim::Packet<InT> raw[ITEMS / V::N];
    if (vector) {
#pragma unroll
        for (int u = 0; u < ITEMS / V::N; ++u)
            raw[u] = prim::load16(in + warp_first + (u * prim::WARP + lane) * V::N);
    }
    unsigned mask = 0u;  // bit k: element first + k starts a segment
    if (!OFFSETS) {
        const unsigned fa = ITEMS < 16 ? ITEMS : 16;
        const bool fvec = full && (reinterpret_cast<prim::uptr>(flags) & (fa - 1)) == 0;
        mask = prim::flag_bits<ITEMS>(flags + first, avail, fvec);
        if (first == 0) mask |= 1u;
    } else {
        if (SEGS == prim::SEG_BOUNDS) {
            if (threadIdx.x < 2) bound[threadIdx.x] = __ldg(bounds + tile + threadIdx.x);
        } else if (warp < 2) {  // warp 0: the tile's start, warp 1: its end
            const long long key = t0 + static_cast<long long>(warp) * TILE;
            const long long L = prim::warp_lower_bound(offsets, nseg + 1, key);
            if (lane == 0) bound[warp] = prim::boundary_word(offsets, nseg + 1, key, L);
        }
        __syncthreads();
        const long long lo = bound[0] >> 1, hi = bound[1] >> 1;
        for (long long s = lo + threadIdx.x; s < hi; s += BLOCK) {
            const long long p = __ldg(offsets + s) - t0;
            if (p >= 0 && p < TILE) atomicOr(&heads[p >> 5], 1u << (p & 31));
        }
        __syncthreads();
        const int local = threadIdx.x * ITEMS;
        mask = heads[local >> 5] >> (local & 31);
        if (ITEMS < 32) mask &= (1u << ITEMS) - 1u;
    }

    AccT v[ITEMS];
    if (vector) {  // the exchange of util/load.cuh for the vectors loaded early
        InT* tmp = reinterpret_cast<InT*>(exchange[warp]);
        prim::exchange16_to_blocked<InT, AccT, ITEMS>(raw, tmp, v);
    } else {
        prim::load_items<InT, AccT, Op, ITEMS>(in + first, avail, false, v);
    }

    // this thread's pair: the op-sum since its last head (of all items without one), and a head
    AccT since = Op::identity();
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) since = ((mask >> k) & 1u) ? v[k] : op(since, v[k]);
    P thread_total;
    thread_total.value = since;
    thread_total.head = mask != 0u ? 1 : 0;
    P aggregate;
    const P before = prim::block_exclusive_scan<BLOCK>(thread_total, sop, scratch, aggregate);

    const prim::TileStatus<P> ts(tile_state, epoch);
    const bool first_head = __shfl_sync(prim::FULL_MASK, mask & 1u, 0) != 0u;  // in warp 0
    // Warp 0 publishes at once: a tile holding a head knows its inclusive prefix, the aggregate.
    if (threadIdx.x == 0)
        ts.publish(tile,
                   (tile == 0 || aggregate.head) ? prim::TILE_INCLUSIVE : prim::TILE_AGGREGATE,
                   aggregate);
    P prefix = SOp::identity();  // the tile's exclusive prefix (warp 0, or all after a barrier)

    if (warp == 0 && tile > 0 && !first_head) {
        prefix = prim::lookback_prefix<P>(ts, tile, sop);
        if (!aggregate.head && lane == 0)
            ts.publish(tile, prim::TILE_INCLUSIVE, sop(prefix, aggregate));
    }
    // With a head in warp 0, every later thread has one before it and needs no prefix: only warp
    // 0, which holds it, uses it (block-uniform: the warp totals of the block scan).
    const bool warp0_only = OVERLAP && scratch[0].head != 0;
    if (!warp0_only) {
        if (threadIdx.x == 0) tile_prefix = prefix;
        __syncthreads();
        prefix = tile_prefix;
    }

    AccT run = sop(prefix, before).value;  // the op-sum since the last head before item 0
    if (MODE == 1) {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const bool h = (mask >> k) & 1u;
            const AccT x = v[k];
            v[k] = h ? Op::identity() : run;
            run = h ? x : op(run, x);
        }
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            run = ((mask >> k) & 1u) ? v[k] : op(run, v[k]);
            v[k] = run;
        }
    }

    if (vector)
        prim::store_blocked_to_striped16<AccT, ITEMS>(out + warp_first,
                                                      reinterpret_cast<AccT*>(exchange[warp]), v);
    else
        prim::store_items<AccT, ITEMS>(out + first, avail, false, v);
}

// ---- reduction ---------------------------------------------------------------------------------

// The word of each tile start key = t * TILE, t in [0, count): 2 * U + (key is an offset), U the
// number of offsets <= key (the first index whose offset is > key). Scattered from the offsets
// rather than searched: index s takes the keys in [offsets[s-1], offsets[s]) (offsets[-1] = -inf,
// offsets[nseg+1] = +inf), so each offset is read once, coalesced. A warp writes its lanes' key
// ranges together, one range at a time (a huge segment's many keys are written 32 at a time).
// Launch: 1-D, whole warps, at least nseg + 2 threads. With offsets that are not non-decreasing
// some words may stay unwritten (the reduction clamps what it reads).
template <int TILE>
__global__ void segmented_upper_bounds(const long long* __restrict__ offsets, long long nseg,
                                       long long count, long long* __restrict__ bounds) {
    const long long s = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x % prim::WARP;
    const long long limit = (count - 1) * TILE;  // the last key
    long long t_lo = 0, t_hi = -1, prev = -1;
    if (s <= nseg + 1) {
        prev = s == 0 ? -1 : __ldg(offsets + s - 1);  // -1: below every key, equal to none
        const long long cur = s == nseg + 1 ? limit + 1 : __ldg(offsets + s);
        const long long a = prev < 0 ? 0 : (prev > limit ? limit + 1 : prev);
        const long long b = cur < 0 ? 0 : (cur > limit ? limit + 1 : cur);
        typedef unsigned long long U64;  // a, b >= 0: unsigned division is a shift
        t_lo = static_cast<long long>(static_cast<U64>(a + TILE - 1) / TILE);  // first key >= a
        t_hi = b == 0 ? -1 : static_cast<long long>(static_cast<U64>(b - 1) / TILE);  // last < b
    }
    unsigned pending = __ballot_sync(prim::FULL_MASK, t_lo <= t_hi);
    while (pending != 0u) {  // warp-uniform
        const int src = __ffs(pending) - 1;
        pending &= pending - 1u;
        const long long a = __shfl_sync(prim::FULL_MASK, t_lo, src);
        const long long b = __shfl_sync(prim::FULL_MASK, t_hi, src);
        const long long ss = __shfl_sync(prim::FULL_MASK, s, src);
        const long long pv = __shfl_sync(prim::FULL_MASK, prev, src);
        for (long long t = a + lane; t <= b; t += prim::WARP)
            bounds[t] = 2 * ss + (pv == t * TILE ? 1 : 0);
    }
}

namespace prim {

// Where a run that ends at tile-local position q goes: to the segment before the first offset
// equal to t0 + q + 1. TableSink reads that offset's index (- lo) from the tile's table (every
// index the tile staged is in [lo, hi), so only index 0, the part before offsets[0], is skipped);
// SearchSink, for tiles whose table overflowed, searches offsets[lo .. hi).
template <class AccT>
struct TableSink {
    AccT* base;  // out + lo - 1
    const unsigned short* first_index;
    int r_min;  // 1 when lo == 0, else 0
    __device__ __forceinline__ void operator()(int q, AccT value) const {
        const int r = first_index[q];
        if (r >= r_min) base[r] = value;
    }
};

template <class AccT>
struct SearchSink {
    AccT* out;
    const long long* offsets;
    long long nseg, lo, hi, t0;
    __device__ __forceinline__ void operator()(int q, AccT value) const {
        const long long j = lo + lower_bound(offsets + lo, hi - lo, t0 + q + 1);  // util/search.cuh
        if (j >= 1 && j <= nseg) out[j - 1] = value;
    }
};

// One thread's runs over its ITEMS values, mask bit k: item k ends a run. The values become the
// running op-sums since the last end (no branches); then each run that starts after an end in
// this thread is complete and goes to `sink`. Returns the op-sum after the last end (of all items
// without one); `lead` gets the first run, up to the first end.
template <class AccT, class Op, int ITEMS, class Sink>
__device__ __forceinline__ AccT thread_runs(AccT (&v)[ITEMS], unsigned mask, int local,
                                            const Sink& sink, AccT& lead) {
    const Op op;
#pragma unroll
    for (int k = 1; k < ITEMS; ++k)
        if (!((mask >> (k - 1)) & 1u)) v[k] = op(v[k - 1], v[k]);
    const unsigned later = mask & (mask - 1u);  // the ends after the first
    lead = v[0];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        if ((mask >> k) & 1u) {
            if ((later >> k) & 1u)
                sink(local + k, v[k]);
            else
                lead = v[k];
        }
    }
    return v[ITEMS - 1];
}

// Op-sum of ITEMS values as a balanced tree (the values are overwritten).
template <class AccT, class Op, int ITEMS>
__device__ __forceinline__ AccT tree_sum(AccT (&v)[ITEMS]) {
    const Op op;
    constexpr int LEVELS = ITEMS == 32 ? 5 : (ITEMS == 16 ? 4 : 3);
#pragma unroll
    for (int level = 0; level < LEVELS; ++level)
#pragma unroll
        for (int k = 0; k < ITEMS; k += 2 << level) v[k] = op(v[k], v[k + (1 << level)]);
    return v[0];
}

}  // namespace prim

template <class InT, class AccT, class Op, int BLOCK, int ITEMS, int MIN_BLOCKS = 1,
          bool EXCHANGE = true, bool DRAWN = true>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
    segmented_reduce_tiles(const InT* __restrict__ in, long long n,
                           const long long* __restrict__ offsets, long long nseg,
                           const long long* __restrict__ bounds, AccT* __restrict__ out,
                           unsigned int* __restrict__ tile_counter, unsigned char* tile_state,
                           unsigned int epoch) {
    static_assert(ITEMS == 8 || ITEMS == 16 || ITEMS == 32, "a thread's end bits fill one word");
    static_assert(ITEMS % prim::Vec16<InT>::N == 0, "ITEMS must fill whole 16-byte vectors");
    static_assert(BLOCK % prim::WARP == 0 && BLOCK >= 64, "BLOCK: whole warps, at least two");
    typedef prim::Segmented<Op> SOp;
    typedef prim::Flagged<AccT> P;
    typedef prim::Vec16<InT> V;
    constexpr int TILE = BLOCK * ITEMS;
    constexpr int WARPS = BLOCK / prim::WARP;
    constexpr int WORDS = TILE / 32;
    constexpr unsigned ITEM_BITS = ITEMS == 32 ? 0xffffffffu : (1u << ITEMS) - 1u;
    const Op op;
    const SOp sop;
    __shared__ unsigned int ends[WORDS];  // bit q: an offset equals t0 + q + 1
    __shared__ unsigned short first_index[TILE];  // at such q: the first such offset's index - lo
    __shared__ P warp_total[WARPS];
    __shared__ unsigned int tile_id;
    PRIM_DYNAMIC_SHARED(InT, exchange);  // EXCHANGE: TILE elements

    for (int w = threadIdx.x; w < WORDS; w += BLOCK) ends[w] = 0u;
    long long tile = blockIdx.x;
    if (DRAWN) tile = prim::next_tile(tile_counter, &tile_id);  // its barrier orders the above
    const int lane = threadIdx.x % prim::WARP;
    const int warp = threadIdx.x / prim::WARP;
    const int local = threadIdx.x * ITEMS;
    const long long t0 = tile * TILE;
    const long long first = t0 + local;
    const bool vector = t0 + TILE <= n && (reinterpret_cast<prim::uptr>(in) & 15u) == 0;

    // Issue the loads first: they fly while the tile's offsets are read.
    prim::Packet<InT> raw[ITEMS / V::N];
    if (vector) {
        const InT* base = EXCHANGE ? in + t0 + warp * prim::WARP * ITEMS + lane * V::N : in + first;
#pragma unroll
        for (int u = 0; u < ITEMS / V::N; ++u)
            raw[u] = prim::load16(base + u * (EXCHANGE ? prim::WARP : 1) * V::N);
    }

    // The offsets that end a run in this tile: values in (t0, t0 + TILE], indices [lo, hi); tile
    // 0 also takes those <= 0 (empty segments at 0). Each sets its end bit; the first of equal
    // ones records its index; an offset equal to its predecessor closes an empty segment.
    const long long w0 = __ldg(bounds + tile), w1 = __ldg(bounds + tile + 1);
    const long long cap = nseg + 1;
    const long long lo = tile == 0 ? 0 : ((w0 >> 1) < 0 ? 0 : ((w0 >> 1) > cap ? cap : w0 >> 1));
    const long long hi = (w1 >> 1) < 0 ? 0 : ((w1 >> 1) > cap ? cap : w1 >> 1);
    const bool tile_head = (w0 & 1) != 0;  // an offset equals t0: the tile starts a segment
    if (!DRAWN) __syncthreads();  // the bitmap zeroed before the staging
    for (long long j = lo + threadIdx.x; j < hi; j += BLOCK) {
        const long long e = __ldg(offsets + j);
        const long long b = j > 0 ? __ldg(offsets + j - 1) : e - 1;
        const long long q = e - t0 - 1;
        if (q >= 0 && q < TILE) {
            atomicOr(&ends[q >> 5], 1u << (q & 31));
            if (j - lo < 0xffff && (j == lo || b != e))
                first_index[q] = static_cast<unsigned short>(j - lo);
        }
        if (j > 0 && b == e) out[j - 1] = Op::identity();
    }
    __syncthreads();
    const unsigned mask = (ends[local >> 5] >> (local & 31)) & ITEM_BITS;  // bit k: f + k ends
    const bool start_head =
        threadIdx.x == 0 ? tile_head : ((ends[(local - 1) >> 5] >> ((local - 1) & 31)) & 1u) != 0u;

    AccT v[ITEMS];
    if (vector) {
        if (EXCHANGE) {
            InT* tmp = exchange + warp * prim::WARP * ITEMS;
            prim::exchange16_to_blocked<InT, AccT, ITEMS>(raw, tmp, v);
        } else {
#pragma unroll
            for (int u = 0; u < ITEMS / V::N; ++u)
#pragma unroll
                for (int k = 0; k < V::N; ++k) v[u * V::N + k] = static_cast<AccT>(raw[u].v[k]);
        }
    } else {
        prim::load_items<InT, AccT, Op, ITEMS>(in + first, n - first, false, v);
    }

    // This thread's runs (a warp without ends just sums).
    const bool table = hi - lo < 0xffff;  // block-uniform: first_index holds every index
    prim::TableSink<AccT> table_sink;
    table_sink.base = out + lo - 1;
    table_sink.first_index = first_index;
    table_sink.r_min = lo == 0 ? 1 : 0;
    const prim::SearchSink<AccT> search_sink = {out, offsets, nseg, lo, hi, t0};
    AccT lead = v[0];
    AccT run;
    if (__any_sync(prim::FULL_MASK, mask != 0u)) {
        if (table)
            run = prim::thread_runs<AccT, Op, ITEMS>(v, mask, local, table_sink, lead);
        else
            run = prim::thread_runs<AccT, Op, ITEMS>(v, mask, local, search_sink, lead);
    } else {
        run = prim::tree_sum<AccT, Op, ITEMS>(v);
    }
    P mine;
    mine.value = ((mask >> (ITEMS - 1)) & 1u) ? Op::identity() : run;
    mine.head = (mask != 0u || start_head) ? 1 : 0;

    // Block-wide exclusive scan of the pairs: warp scans, then one barrier; a thread that needs
    // its carry folds the earlier warps' totals back to the nearest one holding a head.
    const P incl = prim::warp_inclusive_scan(mine, sop);
    P carry = prim::shfl_up(incl, 1);
    if (lane == 0) carry = SOp::identity();
    if (lane == prim::WARP - 1) warp_total[warp] = incl;
    const bool any_head = __syncthreads_or(mine.head) != 0;

    const prim::TileStatus<P> ts(tile_state, epoch);
    const bool need_prefix = tile > 0 && !tile_head;  // the tile's first run started before it
    if (warp == 0) {
        P aggregate = SOp::identity();
        if (lane == 0) {
            for (int w = 0; w < WARPS; ++w) aggregate = sop(aggregate, warp_total[w]);
            // with a head the aggregate is the inclusive prefix: nothing before it counts
            ts.publish(tile,
                       (!need_prefix || any_head) ? prim::TILE_INCLUSIVE : prim::TILE_AGGREGATE,
                       aggregate);
        }
        if (need_prefix && !any_head) {  // a tile inside one segment: complete its prefix
            const P prefix = prim::lookback_prefix<P>(ts, tile, sop);
            if (lane == 0) ts.publish(tile, prim::TILE_INCLUSIVE, sop(prefix, aggregate));
        }
    }
    if (!any_head) return;  // block-uniform: no run ends here

    const bool has_end = mask != 0u;
    AccT value = lead;  // the thread's first run, once its carry is added
    bool carried_in = false;  // the run started before the tile
    if (has_end && !start_head) {
        if (!carry.head)
            for (int w = warp - 1; w >= 0 && !carry.head; --w) carry = sop(warp_total[w], carry);
        value = op(carry.value, lead);
        carried_in = !carry.head && need_prefix;
    }
    if (need_prefix && __any_sync(prim::FULL_MASK, carried_in)) {  // one warp of the tile
        const P prefix = prim::lookback_prefix<P>(ts, tile, sop);
        if (carried_in) value = op(prefix.value, value);
    }
    if (has_end) {
        const int q = local + __ffs(mask) - 1;
        if (table)
            table_sink(q, value);
        else
            search_sink(q, value);
    }
}

// ---- reduction, a block per segment ------------------------------------------------------------

namespace prim {

// This thread's op-sum of its share of p[0 .. len) for a block of BLOCK threads: a scalar head
// up to the first 16-byte boundary, the 16-byte vectors (thread t takes vectors t, t + BLOCK,
// ..., ITEMS / N of them in flight per step, summed as a tree), a scalar tail. A p not aligned to
// its element type is read element by element.
template <class InT, class AccT, class Op, int BLOCK, int ITEMS>
__device__ __forceinline__ AccT thread_range(const InT* p, long long len) {
    typedef Vec16<InT> V;
    constexpr int VECS = ITEMS / V::N;
    const Op op;
    AccT acc = Op::identity();
    const bool element_aligned = reinterpret_cast<uptr>(p) % sizeof(InT) == 0;
    const long long head = element_aligned ? aligned_head(p, len) : len;
#pragma unroll 1
    for (long long i = threadIdx.x; i < head; i += BLOCK) acc = op(acc, static_cast<AccT>(p[i]));
    const InT* body = p + head;
    const long long nvec = (len - head) / V::N;
    long long i = threadIdx.x;
#pragma unroll 1
    for (; i + (VECS - 1) * BLOCK < nvec; i += VECS * BLOCK) {
        Packet<InT> raw[VECS];
#pragma unroll
        for (int u = 0; u < VECS; ++u) raw[u] = load16(body + (i + u * BLOCK) * V::N);
        AccT v[ITEMS];
#pragma unroll
        for (int u = 0; u < VECS; ++u)
#pragma unroll
            for (int k = 0; k < V::N; ++k) v[u * V::N + k] = static_cast<AccT>(raw[u].v[k]);
        acc = op(acc, tree_sum<AccT, Op, ITEMS>(v));
    }
#pragma unroll 1
    for (; i < nvec; i += BLOCK) {
        const Packet<InT> raw = load16(body + i * V::N);
#pragma unroll
        for (int k = 0; k < V::N; ++k) acc = op(acc, static_cast<AccT>(raw.v[k]));
    }
    const long long tail = head + nvec * V::N;  // fewer than V::N elements remain
    if (tail + threadIdx.x < len) acc = op(acc, static_cast<AccT>(p[tail + threadIdx.x]));
    return acc;
}

// The arrivals at *word in launch `epoch` before this one: the word holds epoch << 32 | count,
// and a word of an earlier epoch counts 0 (so a launch never needs the words cleared).
__device__ __forceinline__ unsigned arrive(unsigned long long* word, unsigned epoch) {
    typedef unsigned long long U64;
    U64 seen = load_cg(word);
    for (;;) {
        const bool ours = static_cast<unsigned>(seen >> 32) == epoch;
        const U64 next = ours ? seen + 1u : ((static_cast<U64>(epoch) << 32) | 1u);
        const U64 prev = atomicCAS(word, seen, next);
        if (prev == seen) return ours ? static_cast<unsigned>(seen) : 0u;
        seen = prev;
    }
}

}  // namespace prim

template <class InT, class AccT, class Op, int BLOCK, int ITEMS, int MIN_BLOCKS = 1>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
    segmented_reduce_segments(const InT* __restrict__ in, long long n,
                              const long long* __restrict__ offsets, long long nseg,
                              long long chunk, long long chunks,
                              AccT* out,  // read back: no restrict
                              AccT* partials, unsigned long long* arrivals, unsigned int epoch) {
    static_assert(ITEMS == 8 || ITEMS == 16 || ITEMS == 32, "ITEMS: a tree of 8, 16 or 32");
    static_assert(ITEMS % prim::Vec16<InT>::N == 0, "ITEMS must fill whole 16-byte vectors");
    static_assert(BLOCK % prim::WARP == 0 && BLOCK <= 1024, "BLOCK: whole warps, at most 1024");
    const Op op;
    __shared__ AccT scratch[BLOCK / prim::WARP];
    __shared__ long long found;
    const long long b = blockIdx.x;
    const bool chunk_block = b < chunks;
    long long s, seg_lo, seg_hi, lo, hi;  // block-uniform
    if (chunk_block) {  // the part of chunk b past the first chunk of the segment holding its start
        const long long start = b * chunk;
        if (threadIdx.x < prim::WARP) {
            const long long u = prim::warp_lower_bound(offsets, nseg + 1, start + 1);
            if (threadIdx.x == 0) found = u;  // the number of offsets <= start
        }
        __syncthreads();
        s = found - 1;
        if (s < 0 || s >= nseg) return;  // the start belongs to no segment
        seg_lo = __ldg(offsets + s);
        seg_hi = __ldg(offsets + s + 1);
        seg_lo = seg_lo < 0 ? 0 : (seg_lo > n ? n : seg_lo);
        seg_hi = seg_hi < seg_lo ? seg_lo : (seg_hi > n ? n : seg_hi);
        if (seg_hi - seg_lo <= chunk) return;  // its segment's own block takes it whole
        lo = start > seg_lo + chunk ? start : seg_lo + chunk;
        hi = start + chunk < seg_hi ? start + chunk : seg_hi;
        if (lo >= hi) return;  // the chunk starting at the segment's start
    } else {  // segment b - chunks, up to its first chunk
        s = b - chunks;
        seg_lo = __ldg(offsets + s);
        seg_hi = __ldg(offsets + s + 1);
        seg_lo = seg_lo < 0 ? 0 : (seg_lo > n ? n : seg_lo);
        seg_hi = seg_hi < seg_lo ? seg_lo : (seg_hi > n ? n : seg_hi);
        lo = seg_lo;
        hi = seg_hi - seg_lo > chunk ? seg_lo + chunk : seg_hi;
    }
    AccT v = prim::thread_range<InT, AccT, Op, BLOCK, ITEMS>(in + lo, hi - lo);
    v = prim::block_reduce<BLOCK>(v, op, scratch);
    if (threadIdx.x != 0) return;
    if (seg_hi - seg_lo <= chunk) {
        out[s] = v;
        return;
    }
    // A split segment: its own block's part goes to out[s], chunk c's to partials[c]; the last of
    // its 1 + (last - first + 1) parts to arrive adds them up in order.
    const long long first = (seg_lo + chunk) / chunk, last = (seg_hi - 1) / chunk;
    if (chunk_block)
        partials[b] = v;
    else
        out[s] = v;
    __threadfence();  // the part is visible device-wide before the arrival
    if (prim::arrive(arrivals + first, epoch) == static_cast<unsigned>(last - first + 1)) {
        __threadfence();
        AccT total = prim::load_cg(out + s);
#pragma unroll 1
        for (long long c = first; c <= last; ++c) total = op(total, prim::load_cg(partials + c));
        out[s] = total;
    }
}

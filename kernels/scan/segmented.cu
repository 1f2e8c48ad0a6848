// segmented.cu -- segmented scans and segmented reductions in one pass, load-balanced over
// elements (never a block per segment, so many tiny segments and a few huge ones cost the same).
//
// segmented_lookback<InT, AccT, Op, BLOCK, ITEMS, MODE, OFFSETS>: the decoupled look-back scan of
// common/scan.cuh run on (value, head) pairs under Segmented<Op>. Each block takes the next tile
// id and loads ITEMS consecutive elements per thread (16-byte loads on full, aligned tiles).
// Segments come from head flags (OFFSETS = false: flags[i] != 0 starts a segment; element 0
// always does) or from CSR-style offsets (OFFSETS = true: segment s is [offsets[s],
// offsets[s+1]); warp 0 finds the segments the tile touches by two 32-ary searches, the block
// stages those offsets in shared memory (up to 1024; beyond, reads stay in global memory), each
// thread finds the segment of its first element by binary search in that window, then walks
// forward, which also skips empty segments; elements outside [offsets[0], offsets[nseg]) belong
// to no segment). Full tiles are read and written with the coalesced warp exchange of
// common/load.cuh.
//   MODE 0: inclusive scan, out[i] = op over the segment's elements up to i;
//   MODE 1: exclusive scan, the identity at each segment's first element;
//   MODE 2: reduction, out[s] = op over segment s, written by the thread holding the segment's
//           last element (empty segments are left untouched: the host fills out with the
//           identity first). Offsets only.
// Launch: grid = number of tiles (BLOCK * ITEMS elements each), BLOCK threads; tile_counter == 0
// on entry (left 0); tile_state holds TileStatus<Flagged<AccT>>::bytes(tiles) bytes, zeroed once
// (epochs, see common/scan.cuh). Static shared memory: BLOCK/32 + 1 pairs, 1024 offsets, the
// exchange buffers ((BLOCK/32) * 33 * ITEMS of the wider type). Offsets: monotone, nseg + 1
// values (validated by the host).
#include "common/prim.cuh"
#include "common/load.cuh"
#include "common/scan.cuh"

namespace prim {

// The offsets a tile consults: the window offsets[lo .. lo + count) staged in shared memory when
// it fits, the global array otherwise. at(s) reads offsets[s] for s in the window.
struct OffsetWindow {
    const long long* global;
    const long long* shared;  // null: use global
    long long lo;
    __device__ __forceinline__ long long at(long long s) const {
        return shared ? shared[s - lo] : __ldg(global + s);
    }
};

// Largest s in [lo - 1, hi] with offsets[s] <= i, searching offsets[lo .. hi].
__device__ __forceinline__ long long segment_of(const OffsetWindow& w, long long lo, long long hi,
                                                long long i) {
    long long a = lo, b = hi + 1;  // first index in [lo, hi + 1) whose offset exceeds i
    while (a < b) {
        const long long mid = (a + b) >> 1;
        if (w.at(mid) <= i) a = mid + 1;
        else b = mid;
    }
    return a - 1;
}

// The same search over the whole global array by one warp, 32 probes per step: about log32(nseg)
// dependent loads instead of log2(nseg). The 32 lanes call together; all get the answer.
__device__ __forceinline__ long long warp_segment_of(const long long* offsets, long long nseg,
                                                     long long i) {
    const int lane = threadIdx.x % WARP;
    long long a = 0, b = nseg + 1;  // the first index whose offset exceeds i lies in [a, b]
    while (b - a > WARP) {
        const long long step = (b - a + WARP - 1) / WARP;
        const long long probe = a + lane * step;
        const bool le = probe < b && __ldg(offsets + probe) <= i;
        const int below = __popc(__ballot_sync(FULL_MASK, le));  // probes left of the answer
        if (below == 0) return a - 1;
        const long long next_b = a + below * step;
        a = a + (below - 1) * step + 1;
        if (next_b < b) b = next_b;
    }
    const long long probe = a + lane;
    const bool le = probe < b && __ldg(offsets + probe) <= i;
    return a + __popc(__ballot_sync(FULL_MASK, le)) - 1;
}

// Advances seg to the segment holding element i (skipping empty segments); false when i lies in
// no segment.
__device__ __forceinline__ bool walk_to(const OffsetWindow& w, long long nseg, long long i,
                                        long long& seg) {
    while (seg < nseg && i >= w.at(seg + 1)) ++seg;
    return seg >= 0 && seg < nseg;
}

}  // namespace prim

template <class InT, class AccT, class Op, int BLOCK, int ITEMS, int MODE, bool OFFSETS>
__global__ void __launch_bounds__(BLOCK)
segmented_lookback(const InT* __restrict__ in, long long n, const unsigned char* __restrict__ flags,
                   const long long* __restrict__ offsets, long long nseg, AccT* __restrict__ out,
                   unsigned int* __restrict__ tile_counter, unsigned char* tile_state,
                   unsigned int epoch) {
    static_assert(MODE != 2 || OFFSETS, "segmented reductions take offsets");
    static_assert(ITEMS % prim::Vec16<InT>::N == 0 && ITEMS % prim::Vec16<AccT>::N == 0,
                  "ITEMS must fill whole 16-byte vectors");
    typedef prim::Segmented<Op> SOp;
    typedef prim::Flagged<AccT> P;
    constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
    constexpr int WARPS = BLOCK / prim::WARP;
    constexpr int XBYTES = (sizeof(InT) > sizeof(AccT) ? sizeof(InT) : sizeof(AccT)) *
                           prim::exchange_size<ITEMS>();
    constexpr int WINDOW = OFFSETS ? 1024 : 1;  // offsets staged per tile
    const SOp sop;
    __shared__ P scratch[WARPS];
    __shared__ P tile_prefix;
    __shared__ unsigned int tile_id;
    __shared__ long long window_lo, window_hi;
    __shared__ long long window[WINDOW];
    __shared__ __align__(16) unsigned char exchange[WARPS][XBYTES];

    const long long tile = prim::next_tile(tile_counter, &tile_id);
    const int warp = threadIdx.x / prim::WARP;
    const long long warp_first = tile * TILE + static_cast<long long>(warp) * prim::WARP * ITEMS;
    const long long first = warp_first + static_cast<long long>(threadIdx.x % prim::WARP) * ITEMS;
    const long long avail = n - first;
    const bool full = (tile + 1) * TILE <= n;
    const bool vector = full && ((reinterpret_cast<prim::uptr>(in) |
                                  reinterpret_cast<prim::uptr>(out)) & 15u) == 0;

    // The segments this tile touches: [lo, hi], found by two searches over all offsets; staged in
    // shared memory when they fit.
    prim::OffsetWindow w{offsets, nullptr, 0};
    long long lo = 0, hi = nseg;
    if (OFFSETS) {
        if (threadIdx.x < prim::WARP) {  // warp 0 searches, 32 probes per step
            const long long t0 = tile * TILE;
            const long long t1 = (t0 + TILE < n ? t0 + TILE : n) - 1;
            const long long a = prim::warp_segment_of(offsets, nseg, t0);
            const long long b = prim::warp_segment_of(offsets, nseg, t1);
            if (threadIdx.x == 0) {
                window_lo = a;
                window_hi = b;
            }
        }
        __syncthreads();
        lo = window_lo < 0 ? 0 : window_lo;
        hi = window_hi < nseg ? window_hi + 1 : nseg;  // offsets[lo .. hi] bound the tile
        if (hi - lo + 1 <= WINDOW) {
            for (long long s = lo + threadIdx.x; s <= hi; s += BLOCK) window[s - lo] = __ldg(offsets + s);
            __syncthreads();
            w.shared = window;
            w.lo = lo;
        }
    }

    AccT v[ITEMS];
    if (vector)
        prim::load_striped_to_blocked<InT, AccT, ITEMS>(
            in + warp_first, reinterpret_cast<InT*>(exchange[warp]), v);
    else
        prim::load_items<InT, AccT, Op, ITEMS>(in + first, avail, false, v);
    bool head[ITEMS];
    long long seg_start = 0;
    if (OFFSETS) {
        seg_start = first < n ? prim::segment_of(w, lo, hi, first) : nseg;
        long long seg = seg_start;
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const long long i = first + k;
            const bool inside = i < n && prim::walk_to(w, nseg, i, seg);
            head[k] = inside && i == w.at(seg);
            if (!inside) v[k] = Op::identity();
        }
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const long long i = first + k;
            head[k] = i == 0 || (k < avail && flags[i] != 0);
        }
    }

    P thread_total = SOp::identity();
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) thread_total = sop(thread_total, P{v[k], head[k] ? 1 : 0});
    P aggregate;
    const P before = prim::block_exclusive_scan<BLOCK>(thread_total, sop, scratch, aggregate);

    const prim::TileStatus<P> ts(tile_state, epoch);
    if (threadIdx.x < prim::WARP) prim::tile_lookback(ts, tile, aggregate, sop, &tile_prefix);
    __syncthreads();

    P running = sop(tile_prefix, before);
    if (MODE == 2) {
        long long seg = seg_start;
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            running = sop(running, P{v[k], head[k] ? 1 : 0});
            const long long i = first + k;
            if (i < n && prim::walk_to(w, nseg, i, seg) && i == w.at(seg + 1) - 1)
                out[seg] = running.value;
        }
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const P x{v[k], head[k] ? 1 : 0};
            if (MODE == 1) {
                v[k] = head[k] ? Op::identity() : running.value;
                running = sop(running, x);
            } else {
                running = sop(running, x);
                v[k] = running.value;
            }
        }
        if (vector)
            prim::store_blocked_to_striped<AccT, ITEMS>(
                out + warp_first, reinterpret_cast<AccT*>(exchange[warp]), v);
        else
            prim::store_items<AccT, ITEMS>(out + first, avail, false, v);
    }
}

// runs.cu -- run-length encoding and reduce-by-key in one pass over keys (and values).
//
// runs_lookback<K, KIND, InT, AccT, Op, VALS, BLOCK, ITEMS, MIN_BLOCKS, WARP_OUT, PREFETCH>: a
// run is a maximal stretch of consecutive equal keys. The kernel writes, for run r, its first key
// to keys_out[r] and
//   VALS == RUN_KEYS: nothing else;
//   VALS == RUN_STARTS: the index of its first element to values_out[r] (long long; the host
//     takes the run lengths as differences of these, a pass over the runs only);
//   VALS == RUN_VALUES: the op-sum of its values to values_out[r] (InT converted to AccT, folded
//     in input order).
// The block that draws the last tile id writes the number of runs to *count.
// It is the decoupled look-back scan (device/lookback.cuh) of (value, runs) pairs under RunOp<Op>
// below: runs counts the run heads in a span, value is the op-sum since the span's last head (of
// the whole span without one). Each block takes the next tile id (BLOCK * ITEMS elements, ITEMS
// consecutive per thread) and loads its keys and values: on full, aligned tiles 4- and 8-byte
// elements as lane-consecutive 16-byte vectors exchanged through shared memory (util/load.cuh),
// 1- and 2-byte keys as the thread's own 16-byte vectors (ITEMS * sizeof(K) is a multiple of 16);
// complex values, and partial or misaligned tiles, element by element. A thread's neighbours (the
// key before its first item and the one after its last) come from the next and previous lanes by
// shuffles, or from global memory at a warp's edges. Heads (a key unlike its predecessor, or the
// first element) and ends (unlike its successor, or the last element) are ITEMS-bit masks. The
// thread pairs are scanned across the block (block/scan.cuh), warp 0 looks back for the tile's
// prefix (every tile needs the number of runs before it), and each thread then walks its items:
// a head writes its key at index (runs so far), an end its run's op-sum (RUN_STARTS: a head its
// index). The writes go straight to their final place: with runs of a few elements, a warp's
// writes fall on a few consecutive sectors.
// Key equality by KIND: RUN_INT compares the words (integers, bool; K is the unsigned word of the
// key's size); RUN_F16 compares float16 bit patterns as numbers (K unsigned short: -0 == +0, NaN
// unequal to everything); RUN_FLOAT compares K (float, double) with ==. `equal_nan` (a runtime
// flag, block-uniform) makes NaNs equal to each other, as numpy.unique's equal_nan=True.
// MIN_BLOCKS: the resident blocks per multiprocessor the compiler must leave registers for.
// PREFETCH > 0: a block first asks the L2 cache for the keys and values of the tile PREFETCH ids
// after its own (util/load.cuh: prefetch_l2), which a block drawing that id a few microseconds
// later then finds there: the loads a tile issues at its start alone do not keep enough bytes in
// flight to cover DRAM's latency while other blocks scan and look back.
// WARP_OUT: each warp parks its results in its exchange buffer and writes them out in coalesced
// rows, where a warp's span of them fits: with values, keys and op-sums side by side, parked in
// the same walk over a thread's items that makes its pair (offsets from a warp scan of the head
// counts; after the look-back only a lane's first run, begun before it, takes the prefix into
// its sum); keys (then the runs' first indices) after the look-back otherwise. The buffer is then
// BLOCK * ITEMS elements of the widest of the exchanged types and the parked ones, kept under
// 46 KiB (else the lanes store their own results after the look-back).
// Launch: grid = number of tiles, BLOCK threads (a multiple of 32, >= 64). Static shared memory:
// BLOCK * ITEMS elements of the wider of the exchanged types (at most 8 bytes: 32 KiB for the
// default 256 x 16) for the exchanges, or as above, BLOCK/32 + 1 pairs, a tile id: the policy
// keeps it under 48 KiB. Preconditions: n >= 1; tile_counter == 0 on entry (left 0);
// tile_state holds TileStatus<RunPair<AccT>>::bytes(tiles) bytes, zeroed once (epochs); keys_out
// and values_out have room for n elements; `values` unused (may be any valid pointer) unless
// VALS == RUN_VALUES.
#include "util/prim.cuh"
#include "util/load.cuh"
#include "util/complex.cuh"
#include "warp/shfl.cuh"
#include "warp/scan.cuh"
#include "block/scan.cuh"
#include "device/lookback.cuh"

namespace prim {

constexpr int RUN_INT = 0;    // keys compared as words
constexpr int RUN_F16 = 1;    // float16 bit patterns compared as numbers
constexpr int RUN_FLOAT = 2;  // float, double compared with ==

constexpr int RUN_KEYS = 0;    // keys only
constexpr int RUN_STARTS = 1;  // keys and the runs' first indices
constexpr int RUN_VALUES = 2;  // keys and the op-sums of the values

template <int KIND, class K>
__device__ __forceinline__ bool same_key(K a, K b, bool equal_nan) {
    if constexpr (KIND == RUN_INT) {
        return a == b;
    } else if constexpr (KIND == RUN_F16) {
        const unsigned x = a, y = b;
        const bool nx = (x & 0x7fffu) > 0x7c00u, ny = (y & 0x7fffu) > 0x7c00u;
        if (nx || ny) return equal_nan && nx && ny;
        return x == y || ((x | y) & 0x7fffu) == 0u;  // -0 == +0
    } else {
        return a == b || (equal_nan && a != a && b != b);
    }
}

// A span's (op-sum since its last run head, number of heads). The count is kept as two 32-bit
// halves so that a pair of a 4-byte value is 12 bytes: one 16-byte look-back descriptor with its
// status (device/lookback.cuh), no fences.
template <class T>
struct RunPair {
    T value;
    unsigned int runs_lo, runs_hi;
    __device__ __forceinline__ long long runs() const {
        return static_cast<long long>((static_cast<unsigned long long>(runs_hi) << 32) | runs_lo);
    }
    __device__ __forceinline__ void set_runs(long long r) {
        runs_lo = static_cast<unsigned int>(r);
        runs_hi = static_cast<unsigned int>(static_cast<unsigned long long>(r) >> 32);
    }
};

// The reduce-by-key operator on RunPair: (a, ra) . (b, rb) = (rb ? b : a op b, ra + rb),
// associative with identity (op's identity, 0) whenever op is.
template <class Op>
struct RunOp {
    typedef typename Op::value_type base_type;
    typedef RunPair<base_type> value_type;
    static __device__ __forceinline__ value_type identity() {
        value_type r;
        r.value = Op::identity();
        r.runs_lo = r.runs_hi = 0u;
        return r;
    }
    __device__ __forceinline__ value_type operator()(value_type a, value_type b) const {
        value_type r;
        const long long rb = b.runs();
        r.value = rb ? b.value : Op()(a.value, b.value);
        r.set_runs(a.runs() + rb);
        return r;
    }
};

// A thread's ITEMS consecutive elements of a full, aligned tile, in two steps so that a kernel
// issues all its global loads (keys and values) before it waits for any: issue() starts the
// loads, finish() hands the thread its items. 4- and 8-byte types are read as lane-consecutive
// 16-byte vectors and exchanged through the warp's buffer `tmp` (util/load.cuh); 1- and 2-byte
// types as the thread's own 16-byte vectors (ITEMS * sizeof(T) is a multiple of 16); other
// types (complex) element by element.
template <class T, int ITEMS, int HOW = HasVec16<T>::value ? 0 : (sizeof(T) < 4 ? 1 : 2)>
struct TileItems;

template <class T, int ITEMS>
struct TileItems<T, ITEMS, 0> {
    Packet<T> raw[ITEMS / Vec16<T>::N];
    __device__ __forceinline__ void issue(const T*, const T* warp_base) {
        const int lane = threadIdx.x % WARP;
#pragma unroll
        for (int u = 0; u < ITEMS / Vec16<T>::N; ++u)
            raw[u] = load16(warp_base + (u * WARP + lane) * Vec16<T>::N);
    }
    template <class AccT>
    __device__ __forceinline__ void finish(T* tmp, AccT (&items)[ITEMS]) const {
        exchange16_to_blocked<T, AccT, ITEMS>(raw, tmp, items);
    }
};

template <class T, int ITEMS>
struct TileItems<T, ITEMS, 1> {
    static constexpr int PER = 16 / static_cast<int>(sizeof(T));
    static_assert(ITEMS % PER == 0, "runs: a thread's narrow keys fill whole 16-byte vectors");
    uint4 raw[ITEMS / PER];
    __device__ __forceinline__ void issue(const T* p, const T*) {
#pragma unroll
        for (int u = 0; u < ITEMS / PER; ++u) raw[u] = __ldg(reinterpret_cast<const uint4*>(p) + u);
    }
    template <class AccT>
    __device__ __forceinline__ void finish(T*, AccT (&items)[ITEMS]) const {
#pragma unroll
        for (int u = 0; u < ITEMS / PER; ++u) {
            const T* e = reinterpret_cast<const T*>(&raw[u]);
#pragma unroll
            for (int k = 0; k < PER; ++k) items[u * PER + k] = static_cast<AccT>(e[k]);
        }
    }
};

template <class T, int ITEMS>
struct TileItems<T, ITEMS, 2> {
    T raw[ITEMS];
    __device__ __forceinline__ void issue(const T* p, const T*) {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) raw[k] = p[k];
    }
    template <class AccT>
    __device__ __forceinline__ void finish(T*, AccT (&items)[ITEMS]) const {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) items[k] = static_cast<AccT>(raw[k]);
    }
};

}  // namespace prim

template <class K, int KIND, class InT, class AccT, class Op, int VALS, int BLOCK, int ITEMS,
          int MIN_BLOCKS = 1, int WARP_OUT = 1, int PREFETCH = 0>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS) runs_lookback(
    const K* __restrict__ keys, const InT* __restrict__ values, long long n, int equal_nan,
    K* __restrict__ keys_out,
    typename prim::Select<VALS == prim::RUN_STARTS, long long, AccT>::type* __restrict__ values_out,
    long long* __restrict__ count, unsigned int* __restrict__ tile_counter,
    unsigned char* tile_state, unsigned int epoch) {
    static_assert(ITEMS >= 16 && ITEMS <= 32 && ITEMS % 16 == 0, "runs: ITEMS is 16 or 32");
    static_assert(BLOCK % prim::WARP == 0 && BLOCK >= 64, "runs: BLOCK whole warps, >= 64");
    typedef prim::RunOp<Op> ROp;
    typedef prim::RunPair<AccT> P;
    constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
    constexpr int WARPS = BLOCK / prim::WARP;
    // bytes per element of the exchange buffer: the wider of the exchanged types (4- and 8-byte
    // keys and values; narrow keys and complex values are not exchanged), at least 1
    constexpr int KX = prim::HasVec16<K>::value ? sizeof(K) : 1;
    constexpr int VX = VALS == prim::RUN_VALUES && prim::HasVec16<InT>::value ? sizeof(InT) : 1;
    constexpr int WIDE0 = KX > VX ? KX : VX;
    // WARP_OUT: the results are parked in the exchange buffer when a warp's span of them fits
    // the static shared memory
    typedef typename prim::Select<VALS == prim::RUN_STARTS, long long, AccT>::type Out;
    constexpr bool VALUED = VALS == prim::RUN_VALUES;
    constexpr int KEY_BYTES = static_cast<int>(sizeof(K)) * prim::WARP * ITEMS;
    // parked: keys and op-sums side by side (VALUES), or keys then indices in one place
    constexpr int OW = static_cast<int>(
        VALUED ? sizeof(K) + sizeof(Out) : (sizeof(K) > sizeof(Out) ? sizeof(K) : sizeof(Out)));
    // with values, one spare slot of a sum per warp (rounded to 16 bytes), see the walk below
    constexpr int PAD = VALUED ? (static_cast<int>(sizeof(Out)) + 15) / 16 * 16 : 0;
    constexpr bool STAGE_OUT =
        WARP_OUT && (OW > WIDE0 ? OW : WIDE0) * BLOCK * ITEMS + WARPS * PAD <= 46 * 1024;
    constexpr bool EARLY = STAGE_OUT && VALUED;  // the results parked in the pair's walk
    constexpr int WIDE = STAGE_OUT && OW > WIDE0 ? OW : WIDE0;
    const Op op;
    const ROp rop;
    __shared__ P scratch[WARPS];
    __shared__ P tile_prefix;
    __shared__ unsigned int tile_id;
    __shared__ __align__(
        16) unsigned char exchange[WARPS][WIDE * prim::WARP * ITEMS + (EARLY ? PAD : 0)];

    const long long tile = prim::next_tile(tile_counter, &tile_id);
    if constexpr (PREFETCH > 0) {  // the tile drawn PREFETCH tiles later, into the L2 cache
        if constexpr (VALS == prim::RUN_VALUES)
            prim::prefetch_l2<BLOCK>((tile + PREFETCH) * TILE, TILE, n, keys, values);
        else
            prim::prefetch_l2<BLOCK>((tile + PREFETCH) * TILE, TILE, n, keys);
    }
    const int lane = threadIdx.x % prim::WARP;
    const int warp = threadIdx.x / prim::WARP;
    const long long warp_first = tile * TILE + static_cast<long long>(warp) * prim::WARP * ITEMS;
    const long long first = warp_first + static_cast<long long>(lane) * ITEMS;
    const long long avail = n - first;  // may be <= 0 in the last tile
    const bool full = (tile + 1) * TILE <= n;
    const bool vector = full &&
        ((reinterpret_cast<prim::uptr>(keys) |
          (VALS == prim::RUN_VALUES ? reinterpret_cast<prim::uptr>(values) : 0)) &
         15u) == 0;

    K kk[ITEMS];
    AccT v[ITEMS];
    K prev = K(), next = K();  // the key before item 0 and the one after item ITEMS - 1
    if (vector) {  // every global load in flight before the first wait
        prim::TileItems<K, ITEMS> kl;
        kl.issue(keys + first, keys + warp_first);
        if constexpr (VALS == prim::RUN_VALUES) {
            prim::TileItems<InT, ITEMS> vl;
            vl.issue(values + first, values + warp_first);
            if (lane == 0 && first > 0) prev = keys[first - 1];
            if (lane == prim::WARP - 1 && first + ITEMS < n) next = keys[first + ITEMS];
            kl.finish(reinterpret_cast<K*>(exchange[warp]), kk);
            vl.finish(reinterpret_cast<InT*>(exchange[warp]), v);
        } else {
            if (lane == 0 && first > 0) prev = keys[first - 1];
            if (lane == prim::WARP - 1 && first + ITEMS < n) next = keys[first + ITEMS];
            kl.finish(reinterpret_cast<K*>(exchange[warp]), kk);
        }
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) kk[k] = k < avail ? keys[first + k] : K();
        if constexpr (VALS == prim::RUN_VALUES) {
#pragma unroll
            for (int k = 0; k < ITEMS; ++k)
                v[k] = k < avail ? static_cast<AccT>(values[first + k]) : Op::identity();
        }
        if (lane == 0 && first > 0 && first - 1 < n) prev = keys[first - 1];
        if (lane == prim::WARP - 1 && first + ITEMS < n) next = keys[first + ITEMS];
    }
    if constexpr (VALS != prim::RUN_VALUES) {  // no values: the scan only counts heads
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) v[k] = AccT(0);
    }
    {  // the other lanes' neighbours are the next and previous lanes' edge keys
        const K up = prim::shfl_up(kk[ITEMS - 1], 1);
        const K down = prim::shfl_down(kk[0], 1);
        if (lane != 0) prev = up;
        if (lane != prim::WARP - 1) next = down;
    }
    // heads, bit k: item k starts a run (a key unlike its predecessor, or element 0); ends, bit
    // k: item k ends one (the next item starts one, or it is element n - 1)
    unsigned heads = 0u;
#pragma unroll
    for (int k = 1; k < ITEMS; ++k)
        heads |= static_cast<unsigned>(!prim::same_key<KIND>(kk[k], kk[k - 1], equal_nan)) << k;
    heads |= static_cast<unsigned>(first == 0 || !prim::same_key<KIND>(kk[0], prev, equal_nan));
    const bool last_ends =
        first + ITEMS >= n || !prim::same_key<KIND>(next, kk[ITEMS - 1], equal_nan);
    unsigned ends = (heads >> 1) | (static_cast<unsigned>(last_ends) << (ITEMS - 1));
    if (!full) {  // the last tile: items from element n on are none, element n - 1 ends a run
        const unsigned live =
            avail >= ITEMS ? ~0u >> (32 - ITEMS) : (avail > 0 ? (1u << avail) - 1u : 0u);
        if (avail > 0 && avail < ITEMS) ends |= 1u << (avail - 1);
        heads &= live;
        ends &= live;
    }

    // this thread's pair: the op-sum since its last head (of all its items without one)
    P mine;
    mine.value = Op::identity();
    // EARLY (WARP_OUT with values): the same walk parks the warp's results at offsets within
    // the warp, known from a warp scan of the head counts: the key of the warp's j-th head at
    // kp[j], the op-sum of the warp's j-th run to end at outp[j + head0] (the first of them the
    // run its first item belongs to; head0: that item is a head), stored when the next head
    // comes. A sum lacks only what precedes its run in the thread before this one: the one at
    // slot0 of a lane whose first end comes before its first head (`mend`), made whole once the
    // prefix is known. On an H200 the walk with one head test and one address register per item
    // (6 instructions, sm_90) took reduce_by_key of 2^28 from 0.810-0.821 to 0.790-0.808 ms.
    K* const kp = reinterpret_cast<K*>(exchange[warp]);
    Out* const outp = reinterpret_cast<Out*>(exchange[warp] + (VALUED ? KEY_BYTES : 0));
    int warp_heads = 0, ended = 0, slot0 = 0;
    unsigned head0 = 0u;
    bool mend = false;
    if constexpr (EARLY) {
        const int hc = __popc(heads);
        // heads of the warp up to this lane's, then before it
        int hb = prim::warp_inclusive_scan(hc, prim::Sum<int>());
        warp_heads = prim::shfl_idx(hb, prim::WARP - 1);
        hb -= hc;
        head0 = prim::shfl_idx(heads, 0) & 1u;  // the warp's first item a head
        // the lane's last (live) item ends a run: a sum parked after the walk
        const bool tail = avail >= ITEMS ? last_ends : avail > 0;
        ended =
            warp_heads - __popc(__ballot_sync(~0u, heads & 1u)) + __popc(__ballot_sync(~0u, tail));
        slot0 = hb;
        // the run that head g of the warp starts is the warp's run g + 1 - head0 to end; its
        // sum is parked at g + 1 (one slot past the run's index when head0 is 1: the buffer
        // has a slot to spare), so that a key and the sum before it share an index
        K* kq = kp + hb;
        Out* oq = outp + hb;
        // keys and sums of one size: the sum's slot at a constant distance from the key's
        // (one address register in the walk)
        constexpr bool ONE = sizeof(K) == sizeof(Out);
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const bool h = (heads >> k) & 1u;
            if (h) {
                if (k > 0) {  // the run before item k ended at item k - 1
                    if constexpr (ONE)
                        *reinterpret_cast<Out*>(reinterpret_cast<unsigned char*>(kq) + KEY_BYTES) =
                            mine.value;
                    else
                        *oq = mine.value;
                }
                *kq = kk[k];
                ++kq;
                if constexpr (!ONE) ++oq;
            }
            mine.value = h ? v[k] : op(mine.value, v[k]);
        }
        if constexpr (ONE)
            oq = reinterpret_cast<Out*>(reinterpret_cast<unsigned char*>(kq) + KEY_BYTES);
        if (tail) *oq = mine.value;
        mend = !(heads & 1u) && (heads != 0u || tail);
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k)
            mine.value = ((heads >> k) & 1u) ? v[k] : op(mine.value, v[k]);
    }
    mine.set_runs(__popc(heads));
    P aggregate;
    const P before = prim::block_exclusive_scan<BLOCK>(mine, rop, scratch, aggregate);
    const prim::TileStatus<P> ts(tile_state, epoch);
    if (warp == 0) {
        prim::tile_lookback(ts, tile, aggregate, rop, &tile_prefix);
        if (threadIdx.x == 0 && tile == gridDim.x - 1)
            *count = tile_prefix.runs() + aggregate.runs();
    }
    __syncthreads();
    const P start = rop(tile_prefix, before);

    // Each head writes its key, and each end its run's op-sum (RUN_STARTS: each head its index),
    // at the run's index. WARP_OUT: a warp's results are consecutive runs, so the warp parks
    // them in its exchange buffer at their run's offset and writes them out in coalesced rows
    // (with runs of ~16 keys a lane's own stores give each store instruction one or two lanes);
    // else each lane stores its own. On an H200 the warp's rows took reduce_by_key of 2^28 from
    // 0.872 to 0.849 ms; a whole tile's results packed behind a block barrier had been slower.
    if constexpr (EARLY) {
        if (mend) outp[slot0] = op(start.value, outp[slot0]);
        __syncwarp();
        const long long w0 = prim::shfl_idx(start.runs(), 0);  // runs before the warp's first item
        const long long e0 = w0 - 1 + static_cast<long long>(head0);  // its first run to end
        for (int i = lane; i < warp_heads; i += prim::WARP) keys_out[w0 + i] = kp[i];
        for (int i = lane; i < ended; i += prim::WARP) values_out[e0 + i] = outp[i + head0];
    } else if constexpr (STAGE_OUT) {  // keys (and the runs' first indices): after the look-back
        const long long r0 = start.runs();  // runs before this thread's first item
        const long long w0 = prim::shfl_idx(r0, 0);  // before the warp's first
        const long long w1 = prim::shfl_idx(r0 + __popc(heads), prim::WARP - 1);  // after its last
        const int count = static_cast<int>(w1 - w0);
        int o = static_cast<int>(r0 - w0);
#pragma unroll
        for (int k = 0; k < ITEMS; ++k)
            if ((heads >> k) & 1u) kp[o++] = kk[k];
        __syncwarp();
        for (int i = lane; i < count; i += prim::WARP) keys_out[w0 + i] = kp[i];
        if constexpr (VALS == prim::RUN_STARTS) {  // the indices take the keys' place
            __syncwarp();
            o = static_cast<int>(r0 - w0);
#pragma unroll
            for (int k = 0; k < ITEMS; ++k)
                if ((heads >> k) & 1u) outp[o++] = first + k;
            __syncwarp();
            for (int i = lane; i < count; i += prim::WARP) values_out[w0 + i] = outp[i];
        }
    } else {
        long long r = start.runs();  // runs started before the current item
        AccT run = start.value;  // the op-sum of the current run so far
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const bool h = (heads >> k) & 1u;
            run = h ? v[k] : op(run, v[k]);
            if (h) {
                keys_out[r] = kk[k];
                if (VALS == prim::RUN_STARTS) values_out[r] = first + k;
                ++r;
            }
            if (VALS == prim::RUN_VALUES && ((ends >> k) & 1u)) values_out[r - 1] = run;
        }
    }
}

// axis.cu -- prefix scans (inclusive or exclusive) along one axis of an N-D array, in place in
// its layout: no transposed copy, no offsets array.
//
// The array is viewed as (outer, L, inner), C-ordered, the scanned axis of length L. A *line* is
// one (o, i) pair: the L elements x[o, 0..L, i]. Kernels are templated on <InT, AccT, Op, OutT>:
// elements convert to AccT on load, results to OutT on store. EXCLUSIVE (a template parameter;
// axis_cols_lookback's `exclusive` argument) selects out[l] = x[0] op ... op x[l-1] (Op's
// identity at l = 0). Sizes and indices are 64-bit.
//
// inner == 1 (rows: the scanned axis is the contiguous one), one warp per (row, chunk) unit, the
// block's BLOCK / 32 warps on BLOCK / 32 units (several short rows per block), grid-stride over
// units; no block barrier anywhere (warps never wait for each other), so rows of any length mix
// freely in a block. Long rows may be split into `chunks` chunks of `chunk_len` elements (the last
// one shorter): chunk c of a row covers [c * chunk_len, min(L, (c + 1) * chunk_len)). With
// chunks > 1 a total pass writes every chunk's op-total to `totals` and the scan pass seeds each
// chunk with the op-sum of its row's earlier chunk totals (read directly: chunks is small); with
// chunks == 1 the scan pass alone runs and `totals` is not read.
//   axis_rows_scan<InT, AccT, Op, OutT, BLOCK, ITEMS, EXCLUSIVE>: the warp walks its chunk in
//     warp tiles of 32 * ITEMS elements, each lane ITEMS consecutive ones. Full tiles of 16-byte
//     aligned rows: lane-consecutive 16-byte vector loads exchanged to the blocked layout through
//     shared memory (util/load.cuh), and back for the stores; other tiles (the row's tail,
//     unaligned rows, element types without 16-byte vectors): lane-consecutive scalar loads and
//     stores through the same buffer (still coalesced). Per tile: each lane folds its items, a warp
//     scan of the lane totals (warp/scan.cuh), the lane's outputs, and the running total
//     carried to the next tile by a shuffle from lane 31.
//   axis_rows_total<InT, AccT, Op, BLOCK>: the split path's chunk totals (every chunk but a
//     line's last, whose total no chunk reads), one warp per unit
//     (lane-strided loads, a warp reduction); Op commutative (Sum, Min, Max).
//   Launch: BLOCK threads (a multiple of 32), any grid (grid-stride over units = rows * chunks).
//   Static shared memory: axis_rows_scan BLOCK / 32 * 32 * ITEMS elements of the widest of InT
//   and OutT (16-byte aligned); none for axis_rows_total. chunk_len is a multiple of 32 * ITEMS
//   when chunks > 1 (chunks start 16-byte aligned in aligned rows). totals holds rows * chunks
//   AccT values.
//
// inner > 1 (columns): a thread owns V consecutive inner positions of one o (a *group*, G = outer
// * inner / V of them); consecutive threads take consecutive groups, so a warp's loads and stores
// at one l are contiguous (coalesced). V == Vec16<InT>::N (16-byte vector loads; stores as 16-byte
// vectors where V * sizeof(OutT) is a multiple of 16) when the host found inner % V == 0;
// otherwise V == 1. Vectors are used only when both pointers are 16-byte aligned (grid-uniform),
// else the same V elements go one by one.
//   axis_cols_scan<InT, AccT, Op, OutT, V, U, EXCLUSIVE>: enough groups to fill the device: a
//     thread per group walks down its whole line carrying V running values, U rows loaded before
//     they are folded (U loads in flight). Any 1-D launch (grid-stride over the G groups); no
//     shared memory.
//   axis_cols_lookback<InT, AccT, Op, OutT, V, BLOCK, ROWS, MIN_BLOCKS>: few groups
//     (the host's split rule): a single pass, each element read once. A line is cut into chunks
//     of ROWS rows (the last one shorter); a *unit* is (chunk c, group g), numbered u = c * G + g
//     (groups fastest), and a *tile* is BLOCK consecutive units, one per thread, drawn in order
//     from tile_counter (device/lookback.cuh's next_tile), so the units before a unit's in its
//     group (u - G, u - 2G, ...) lie in tiles drawn earlier or in its own. A thread loads its
//     unit's ROWS rows into registers (kept as InT; ROWS loads in flight) and folds them to the
//     unit's aggregate.
//     G >= BLOCK: each unit is its group's only one in the tile. It reads unit u - G's status
//     (often published long before: then it publishes no aggregate of its own), else publishes
//     its aggregate and looks back (ColStatus, cols_lookback: a per-thread decoupled look-back
//     over aggregates until an inclusive prefix; chunk 0 publishes its inclusive prefix at
//     once), publishes its inclusive prefix and writes its ROWS results from registers.
//     G < BLOCK: a tile holds several chunks of a group (units i, i + G, ... of the tile): a
//     Hillis-Steele scan at strides G, 2G, 4G, ... through shared memory gives each unit the
//     op-sum of its group's units of the tile up to it; the group's last unit in the tile
//     publishes that (an aggregate, or an inclusive prefix when the group's first unit in the
//     tile is in chunk 0), the first unit looks back past the tile and shares the prefix through
//     shared memory, and the last publishes the inclusive prefix.
//     Only a group's last unit in a tile publishes (the only status later tiles read), and never
//     a line's last chunk. Forward progress: a thread waits only on units of tiles drawn before
//     its own, whose aggregates are published without waiting on anything.
//     `exchange` (16-byte aligned pointers, a thread's results two 16-byte words or more, G >=
//     BLOCK): a warp whose 32 units are consecutive groups of one chunk and slab stores each row
//     through shared memory (`part`, free then), lane l writing the warp's words l, l + 32, ...,
//     so each store instruction writes whole sectors (__syncwarp only; warp-uniform test).
//     `ahead` > 0: before its loads, thread r < ROWS of a block asks the L2 cache for row r of
//     the tile drawn `ahead` ids after its own (one bulk prefetch: the look-back kernel keeps
//     too few loads in flight per SM to cover DRAM's latency alone).
//     Launch: BLOCK threads, grid = tiles = ceil(units / BLOCK) exactly (next_tile resets the
//     counter at the last tile); registers bounded for MIN_BLOCKS resident blocks per SM. Static
//     shared memory: 2 * BLOCK values of Row<AccT, V> (V AccT rounded up to 16 bytes) and a tile
//     id. tile_state: ColStatus<AccT, V>::bytes(units) bytes, 16-byte aligned, zeroed once; a new
//     epoch per launch (< 2^30); the counter is 0 before a launch and left at 0.
// Preconditions: in/out aligned to their element sizes; in not written during the kernels.
#include "util/prim.cuh"
#include "util/load.cuh"
#include "util/complex.cuh"
#include "warp/shfl.cuh"
#include "warp/reduce.cuh"
#include "warp/scan.cuh"
#include "device/lookback.cuh"

namespace prim {
namespace axis {

template <class T, int ITEMS, bool OK = HasVec16<T>::value>
struct VecItems {
    static constexpr bool value = false;
};
template <class T, int ITEMS>
struct VecItems<T, ITEMS, true> {
    static constexpr bool value = ITEMS % Vec16<T>::N == 0;
};

__device__ __forceinline__ i64 min64(i64 a, i64 b) { return a < b ? a : b; }

// The warp's 32 * ITEMS elements from p (avail of them valid, the rest Op's identity) to each
// lane's ITEMS consecutive ones: lane-consecutive (coalesced) scalar loads parked in tmp.
template <class InT, class AccT, class Op, int ITEMS>
__device__ __forceinline__ void load_warp_scalar(const InT* p, i64 avail, InT* tmp,
                                                 AccT (&items)[ITEMS]) {
    const int lane = threadIdx.x % WARP;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const int e = j * WARP + lane;
        if (e < avail) tmp[e] = p[e];
    }
    __syncwarp();
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int e = lane * ITEMS + k;
        items[k] = e < avail ? static_cast<AccT>(tmp[e]) : Op::identity();
    }
    __syncwarp();
}

template <class OutT, int ITEMS>
__device__ __forceinline__ void store_warp_scalar(OutT* p, i64 avail, OutT* tmp,
                                                  const OutT (&items)[ITEMS]) {
    const int lane = threadIdx.x % WARP;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) tmp[lane * ITEMS + k] = items[k];
    __syncwarp();
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const int e = j * WARP + lane;
        if (e < avail) p[e] = tmp[e];
    }
    __syncwarp();
}

// V consecutive elements at p; one 16-byte load when `vec` (V == Vec16<InT>::N).
template <class InT, int V>
__device__ __forceinline__ void load_row(const InT* p, bool vec, InT (&v)[V]) {
    if constexpr (V > 1 && HasVec16<InT>::value) {
        if constexpr (Vec16<InT>::N == V) {
            if (vec) {
                const Packet<InT> pk = load16(p);
#pragma unroll
                for (int k = 0; k < V; ++k) v[k] = pk.v[k];
                return;
            }
        }
    }
#pragma unroll
    for (int k = 0; k < V; ++k) v[k] = p[k];
}

// The same converted to AccT.
template <class InT, class AccT, int V>
__device__ __forceinline__ void load_v(const InT* p, bool vec, AccT (&v)[V]) {
    InT raw[V];
    load_row<InT, V>(p, vec, raw);
#pragma unroll
    for (int k = 0; k < V; ++k) v[k] = static_cast<AccT>(raw[k]);
}

// An L2 prefetch of row r of tile t of axis_cols_lookback (its first unit's chunk; the tile's
// groups of that unit's slab, BLOCK at most): one thread's bulk hint (util/load.cuh).
template <class InT, int V, int BLOCK, int ROWS>
__device__ __forceinline__ void prefetch_tile_row(const InT* in, i64 t, int r, i64 units, i64 G,
                                                  i64 nv, i64 L, i64 inner) {
    const i64 u = t * BLOCK;
    if (u >= units) return;
    const i64 row = u / G * ROWS + r, g = u % G;
    if (row >= L) return;
    const i64 j = g % nv;
    prefetch_span_l2(in + ((g / nv) * L + row) * inner + j * V, min64(BLOCK, nv - j) * V);
}

template <class T, int V>
struct __align__(16) Row {
    T v[V];
};

// V consecutive results to p; 16-byte stores when `vec` and they fill whole vectors.
template <class OutT, int V>
__device__ __forceinline__ void store_v(OutT* p, bool vec, const Row<OutT, V>& r) {
    if constexpr ((V * sizeof(OutT)) % 16 == 0) {
        if (vec) {
            const uint4* w = reinterpret_cast<const uint4*>(&r);
            uint4* q = reinterpret_cast<uint4*>(p);
#pragma unroll
            for (int k = 0; k < static_cast<int>(V * sizeof(OutT) / 16); ++k) q[k] = w[k];
            return;
        }
    }
#pragma unroll
    for (int k = 0; k < V; ++k) p[k] = r.v[k];
}

// Look-back state of the column tiles, in one buffer (ColStatus::bytes(units) bytes, 16-byte
// aligned, zeroed once): a status word per unit ((epoch << 2) | kind, as device/lookback.cuh's
// TileStatus: a word of an older epoch reads as "nothing published", so the buffer is never
// cleared between launches), then the units' aggregates, then their inclusive prefixes (V AccT
// values each, in 16-byte words). A warp's units are consecutive: its polls and its values are
// contiguous (no spacing as the 1-D scan's, whose warps all poll the same few tiles). The values
// are not packed with their status (V AccT are 16 bytes or more): publishing writes them,
// __threadfence(), then the status word; a reader that sees the status fences, then reads them
// past L1.
template <class AccT, int V>
struct ColStatus {
    typedef Row<AccT, V> Vals;
    static constexpr int WORDS = sizeof(Vals) / 16;
    unsigned int* status;
    Vals* aggregate;
    Vals* inclusive;
    unsigned int epoch;

    static __host__ __device__ constexpr long long status_bytes(long long units) {
        return (units * 4 + 15) / 16 * 16;
    }
    static __host__ __device__ constexpr long long bytes(long long units) {
        return status_bytes(units) + 2 * units * static_cast<long long>(sizeof(Vals));
    }
    __device__ __forceinline__ ColStatus(unsigned char* state, long long units, unsigned epoch_)
        : status(reinterpret_cast<unsigned int*>(state)),
          aggregate(reinterpret_cast<Vals*>(state + status_bytes(units))),
          inclusive(aggregate + units),
          epoch(epoch_) {}

    __device__ __forceinline__ void publish(long long u, unsigned kind, const AccT (&v)[V]) const {
        Vals r;
#pragma unroll
        for (int k = 0; k < V; ++k) r.v[k] = v[k];
        const uint4* w = reinterpret_cast<const uint4*>(&r);
        uint4* q = reinterpret_cast<uint4*>((kind == TILE_AGGREGATE ? aggregate : inclusive) + u);
#pragma unroll
        for (int k = 0; k < WORDS; ++k) q[k] = w[k];
        __threadfence();
        *reinterpret_cast<volatile unsigned int*>(status + u) = (epoch << 2) | kind;
    }
    // Kind published for unit u in this epoch (0: nothing yet); v is set when it is not 0.
    __device__ __forceinline__ unsigned load(long long u, AccT (&v)[V]) const {
        const unsigned s = *reinterpret_cast<const volatile unsigned int*>(status + u);
        const unsigned kind = (s >> 2) == epoch ? (s & 3u) : 0u;
        if (kind != 0u) {
            __threadfence();
            const Vals* at = (kind == TILE_AGGREGATE ? aggregate : inclusive) + u;
            const uint4* src = reinterpret_cast<const uint4*>(at);
            Vals r;
            uint4* w = reinterpret_cast<uint4*>(&r);
#pragma unroll
            for (int k = 0; k < WORDS; ++k) w[k] = __ldcg(src + k);
#pragma unroll
            for (int k = 0; k < V; ++k) v[k] = r.v[k];
        }
        return kind;
    }
};

// The exclusive prefix of a unit whose group's nearest earlier unit in an earlier tile is p,
// folded farthest first into prefix: unit p's status and the statuses it leads to. An aggregate
// of a unit covers its group's units of its tile up to it; the walk then goes on from the unit
// before the group's first unit in that tile (tiles of `tile_units` units), until an inclusive
// prefix. On entry, kind is what the caller already read of p's status and folded into prefix
// (Op's identity when it read nothing: kind 0). Waits (__nanosleep) while a status is
// unpublished. Called per thread: no warp collectives.
template <class AccT, class Op, int V>
__device__ __forceinline__ void cols_lookback(const ColStatus<AccT, V>& st, i64 p, i64 G,
                                              i64 tile_units, unsigned kind, AccT (&prefix)[V],
                                              Op op) {
    while (kind != TILE_INCLUSIVE) {
        if (kind == TILE_AGGREGATE) {
            p -= G * ((p % tile_units) / G) + G;  // an aggregate's first unit is past chunk 0
        }
        AccT seen[V];
        kind = st.load(p, seen);
        while (kind == 0u) {
            __nanosleep(32);
            kind = st.load(p, seen);
        }
#pragma unroll
        for (int k = 0; k < V; ++k) prefix[k] = op(seen[k], prefix[k]);
    }
}

// For G < BLOCK (several chunks of a group in one tile: units i, i + G, i + 2G, ... of a tile are
// one group's): each thread's op-sum over its group's units of the tile up to it, into incl (its
// own aggregate on entry) and part[threadIdx.x] (so the exclusive one is part[threadIdx.x - G]).
// A Hillis-Steele scan at strides G, 2G, 4G, ... in part[] (BLOCK values); call with the whole
// block (barriers).
template <class AccT, class Op, int V, int BLOCK>
__device__ __forceinline__ void strided_block_scan(Row<AccT, V>* part, i64 G, AccT (&incl)[V],
                                                   Op op) {
    const int i = threadIdx.x;
#pragma unroll
    for (int k = 0; k < V; ++k) part[i].v[k] = incl[k];
    __syncthreads();
    for (i64 s = G; s < BLOCK; s *= 2) {
        Row<AccT, V> before;
        if (i >= s) before = part[i - s];
        __syncthreads();
        if (i >= s) {
#pragma unroll
            for (int k = 0; k < V; ++k) {
                incl[k] = op(before.v[k], incl[k]);
                part[i].v[k] = incl[k];
            }
        }
        __syncthreads();
    }
}

}  // namespace axis
}  // namespace prim

// ---- rows (inner == 1): one warp per (row, chunk) --------------------------------------------
template <class InT, class AccT, class Op, class OutT, int BLOCK, int ITEMS, bool EXCLUSIVE>
__global__ void __launch_bounds__(BLOCK)
    axis_rows_scan(const InT* __restrict__ in, OutT* __restrict__ out, long long units, long long L,
                   long long chunks, long long chunk_len, const AccT* __restrict__ totals) {
    using namespace prim;
    static_assert(BLOCK % WARP == 0, "axis_rows_scan: BLOCK must be a multiple of 32");
    constexpr int WARPS = BLOCK / WARP;
    constexpr int WIDE = sizeof(InT) > sizeof(OutT) ? sizeof(InT) : sizeof(OutT);
    constexpr int XBYTES = WIDE * WARP * ITEMS;
    constexpr bool VEC = axis::VecItems<InT, ITEMS>::value && axis::VecItems<OutT, ITEMS>::value;
    __shared__ __align__(16) unsigned char exchange[WARPS][XBYTES];
    const Op op;
    const int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
    InT* xin = reinterpret_cast<InT*>(exchange[warp]);
    OutT* xout = reinterpret_cast<OutT*>(exchange[warp]);
    constexpr i64 WTILE = static_cast<i64>(WARP) * ITEMS;

    // the unit is warp-uniform: every branch and loop below is taken by the whole warp
    for (i64 u = static_cast<i64>(blockIdx.x) * WARPS + warp; u < units;
         u += static_cast<i64>(gridDim.x) * WARPS) {
        const i64 row = u / chunks, c = u % chunks;
        const i64 begin = c * chunk_len, end = axis::min64(L, begin + chunk_len);
        AccT carry = Op::identity();
        for (i64 k = 0; k < c; ++k) carry = op(carry, totals[row * chunks + k]);
        const InT* p = in + row * L;
        OutT* q = out + row * L;
        const bool aligned =
            ((reinterpret_cast<uptr>(p + begin) | reinterpret_cast<uptr>(q + begin)) & 15u) == 0;
        for (i64 t = begin; t < end; t += WTILE) {
            const i64 avail = end - t;  // elements of this warp tile, > 0
            const bool vector = aligned && avail >= WTILE;
            AccT items[ITEMS];
            bool loaded = false;
            if constexpr (VEC) {
                if (vector) {
                    load_striped_to_blocked16<InT, AccT, ITEMS>(p + t, xin, items);
                    loaded = true;
                }
            }
            if (!loaded) axis::load_warp_scalar<InT, AccT, Op, ITEMS>(p + t, avail, xin, items);

            AccT lane_total = items[0];
#pragma unroll
            for (int k = 1; k < ITEMS; ++k) lane_total = op(lane_total, items[k]);
            const AccT inclusive = warp_inclusive_scan(lane_total, op);
            AccT before = shfl_up(inclusive, 1);
            if (lane == 0) before = Op::identity();
            AccT running = op(carry, before);
            OutT res[ITEMS];
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
                const AccT x = items[k];
                if (EXCLUSIVE) {
                    res[k] = static_cast<OutT>(running);
                    running = op(running, x);
                } else {
                    running = op(running, x);
                    res[k] = static_cast<OutT>(running);
                }
            }
            carry = op(carry, shfl_idx(inclusive, WARP - 1));

            bool stored = false;
            if constexpr (VEC) {
                if (vector) {
                    store_blocked_to_striped16<OutT, ITEMS>(q + t, xout, res);
                    stored = true;
                }
            }
            if (!stored) axis::store_warp_scalar<OutT, ITEMS>(q + t, avail, xout, res);
        }
    }
}

template <class InT, class AccT, class Op, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    axis_rows_total(const InT* __restrict__ in, AccT* __restrict__ totals, long long units,
                    long long L, long long chunks, long long chunk_len) {
    using namespace prim;
    constexpr int WARPS = BLOCK / WARP;
    const Op op;
    const int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
    const i64 tc = chunks - 1;  // a line's last chunk: no later chunk reads its total
    const i64 tunits = units / chunks * tc;
    for (i64 t = static_cast<i64>(blockIdx.x) * WARPS + warp; t < tunits;
         t += static_cast<i64>(gridDim.x) * WARPS) {
        const i64 row = t / tc, c = t % tc;
        const i64 begin = c * chunk_len, end = axis::min64(L, begin + chunk_len);
        const InT* p = in + row * L;
        AccT acc = Op::identity();
        for (i64 i = begin + lane; i < end; i += WARP) acc = op(acc, static_cast<AccT>(p[i]));
        acc = warp_reduce(acc, op);
        if (lane == 0) totals[row * chunks + c] = acc;
    }
}

// ---- columns (inner > 1), unsplit: one thread per (o, V inner positions) ---------------------
template <class InT, class AccT, class Op, class OutT, int V, int U, bool EXCLUSIVE>
__global__ void axis_cols_scan(const InT* __restrict__ in, OutT* __restrict__ out, long long outer,
                               long long L, long long inner) {
    using namespace prim;
    const Op op;
    const i64 nv = inner / V;
    const i64 units = outer * nv;
    const bool vec = ((reinterpret_cast<uptr>(in) | reinterpret_cast<uptr>(out)) & 15u) == 0;
    for (i64 u = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; u < units;
         u += static_cast<i64>(gridDim.x) * blockDim.x) {
        const i64 iv = u % nv, o = u / nv;
        AccT carry[V];
#pragma unroll
        for (int k = 0; k < V; ++k) carry[k] = Op::identity();
        const i64 base = o * L * inner + iv * V;
        i64 l = 0;
        for (; l + U <= L; l += U) {
            AccT v[U][V];
#pragma unroll
            for (int r = 0; r < U; ++r)
                axis::load_v<InT, AccT, V>(in + base + (l + r) * inner, vec, v[r]);
#pragma unroll
            for (int r = 0; r < U; ++r) {
                axis::Row<OutT, V> res;
#pragma unroll
                for (int k = 0; k < V; ++k) {
                    if (EXCLUSIVE) {
                        res.v[k] = static_cast<OutT>(carry[k]);
                        carry[k] = op(carry[k], v[r][k]);
                    } else {
                        carry[k] = op(carry[k], v[r][k]);
                        res.v[k] = static_cast<OutT>(carry[k]);
                    }
                }
                axis::store_v<OutT, V>(out + base + (l + r) * inner, vec, res);
            }
        }
        for (; l < L; ++l) {
            AccT v[V];
            axis::load_v<InT, AccT, V>(in + base + l * inner, vec, v);
            axis::Row<OutT, V> res;
#pragma unroll
            for (int k = 0; k < V; ++k) {
                if (EXCLUSIVE) {
                    res.v[k] = static_cast<OutT>(carry[k]);
                    carry[k] = op(carry[k], v[k]);
                } else {
                    carry[k] = op(carry[k], v[k]);
                    res.v[k] = static_cast<OutT>(carry[k]);
                }
            }
            axis::store_v<OutT, V>(out + base + l * inner, vec, res);
        }
    }
}

// ---- columns (inner > 1), split: single-pass look-back over tiles of ROWS rows ---------------
template <class InT, class AccT, class Op, class OutT, int V, int BLOCK, int ROWS, int MIN_BLOCKS>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
    axis_cols_lookback(const InT* __restrict__ in, OutT* __restrict__ out, long long outer,
                       long long L, long long inner, unsigned int* tile_counter,
                       unsigned char* tile_state, unsigned int epoch, int exclusive, int ahead,
                       int exchange) {
    using namespace prim;
    typedef axis::Row<AccT, V> Vals;
    __shared__ unsigned int tile_slot;
    __shared__ Vals part[BLOCK];  // G < BLOCK: the strided block scan
    __shared__ Vals share[BLOCK];  // G < BLOCK: the groups' prefixes from their first units
    const Op op;
    const i64 nv = inner / V, G = outer * nv;
    const i64 units = (L + ROWS - 1) / ROWS * G;
    const axis::ColStatus<AccT, V> st(tile_state, units, epoch);
    const i64 tile = next_tile(tile_counter, &tile_slot);
    const int i = threadIdx.x;
    const i64 u = tile * BLOCK + i;
    const bool valid = u < units;
    const i64 c = valid ? u / G : 0, g = valid ? u % G : 0;
    const i64 row0 = c * ROWS;
    const int rows = valid ? static_cast<int>(axis::min64(ROWS, L - row0)) : 0;
    const i64 base = ((g / nv) * L + row0) * inner + (g % nv) * V;
    const bool vec = ((reinterpret_cast<uptr>(in) | reinterpret_cast<uptr>(out)) & 15u) == 0;
    if (ahead > 0 && i < ROWS)  // a hint: row i of the tile drawn `ahead` ids later, to the L2
        axis::prefetch_tile_row<InT, V, BLOCK, ROWS>(in, tile + ahead, i, units, G, nv, L, inner);

    // the tile's rows, all loads in flight before the first is used
    InT x[ROWS][V];
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
        if (r < rows) axis::load_row<InT, V>(in + base + r * inner, vec, x[r]);
    AccT incl[V];  // op-sum of the group's units of this tile up to this one
#pragma unroll
    for (int k = 0; k < V; ++k) incl[k] = Op::identity();
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
        if (r < rows) {
#pragma unroll
            for (int k = 0; k < V; ++k) incl[k] = op(incl[k], static_cast<AccT>(x[r][k]));
        }
    const bool strided = G < BLOCK;  // grid-uniform: several chunks of a group in one tile
    if (strided) axis::strided_block_scan<AccT, Op, V, BLOCK>(part, G, incl, op);

    // the group's first unit in this tile looks back, its last unit in this tile publishes
    const i64 first = u - G * (i / G);
    const bool looker = valid && i < G && u >= G;
    const bool publisher = valid && i + G >= BLOCK && u + G < units;
    AccT prefix[V];  // op-sum of the group's units before this tile
#pragma unroll
    for (int k = 0; k < V; ++k) prefix[k] = Op::identity();
    unsigned kind = 0u;
    if (looker && !strided) kind = st.load(u - G, prefix);  // often done long ago: no aggregate
    if (publisher) {
        if (first < G)
            st.publish(u, TILE_INCLUSIVE, incl);  // nothing before chunk 0
        else if (strided || kind != TILE_INCLUSIVE)
            st.publish(u, TILE_AGGREGATE, incl);
    }
    if (looker) axis::cols_lookback<AccT, Op, V>(st, u - G, G, BLOCK, kind, prefix, op);
    if (strided) {  // the lookers' prefixes to the other units of their groups
        if (i < G) {
#pragma unroll
            for (int k = 0; k < V; ++k) share[i].v[k] = prefix[k];
        }
        __syncthreads();
        const Vals p = share[i % G];
#pragma unroll
        for (int k = 0; k < V; ++k) prefix[k] = p.v[k];
    }
    if (publisher && first >= G) {
#pragma unroll
        for (int k = 0; k < V; ++k) incl[k] = op(prefix[k], incl[k]);
        st.publish(u, TILE_INCLUSIVE, incl);
    }

    AccT run[V];  // op-sum of the group's units before this one
#pragma unroll
    for (int k = 0; k < V; ++k) run[k] = prefix[k];
    if (strided && i >= G) {
        const Vals before = part[i - G];
#pragma unroll
        for (int k = 0; k < V; ++k) run[k] = op(run[k], before.v[k]);
    }
    // `exchange`: a warp whose 32 units are consecutive groups of one chunk and slab stores each
    // row's results through shared memory (`part`, unused when !strided), lane l writing the
    // 16-byte words l, l + 32, ...: whole sectors a store, not a thread's 16-byte words apart
    typedef axis::Row<OutT, V> Res;
    constexpr int WORDS = static_cast<int>(sizeof(OutT)) * V / 16;
    bool swap = false;
    if constexpr (WORDS > 1 && sizeof(Res) <= sizeof(Vals)) {
        if (exchange && vec && !strided) {  // block-uniform
            const i64 base0 = __shfl_sync(FULL_MASK, base, 0);
            swap = __all_sync(FULL_MASK, valid && base == base0 + (i % WARP) * V);
        }
    }
    Res* xbuf = reinterpret_cast<Res*>(part) + (i / WARP) * WARP;
    const uint4* xwords = reinterpret_cast<const uint4*>(xbuf);
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
        if (r < rows) {  // warp-uniform with swap: the warp's units share their chunk
            Res res;
#pragma unroll
            for (int k = 0; k < V; ++k) {
                const AccT next = op(run[k], static_cast<AccT>(x[r][k]));
                res.v[k] = static_cast<OutT>(exclusive ? run[k] : next);  // grid-uniform
                run[k] = next;
            }
            if (!swap) {
                axis::store_v<OutT, V>(out + base + r * inner, vec, res);
                continue;
            }
            const int lane = i % WARP;
            xbuf[lane] = res;
            __syncwarp();
            uint4* dst = reinterpret_cast<uint4*>(out + (base - lane * V) + r * inner);
#pragma unroll
            for (int w = 0; w < WORDS; ++w) dst[w * WARP + lane] = xwords[w * WARP + lane];
            __syncwarp();  // xbuf is rewritten for the next row
        }
}

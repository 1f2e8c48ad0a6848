// axis.cu -- prefix scans (inclusive or exclusive) along one axis of an N-D array, in place in
// its layout: no transposed copy, no offsets array.
//
// The array is viewed as (outer, L, inner), C-ordered, the scanned axis of length L. A *line* is
// one (o, i) pair: the L elements x[o, 0..L, i]. Long lines may be split into `chunks` chunks of
// `chunk_len` elements (the last one shorter): chunk c of a line covers [c * chunk_len,
// min(L, (c + 1) * chunk_len)). With chunks > 1 a total pass writes every chunk's op-total to
// `totals` and the scan pass seeds each chunk with the op-sum of its line's earlier chunk totals
// (read directly: chunks is small); with chunks == 1 the scan pass alone runs and `totals` is not
// read. Kernels are templated on <InT, AccT, Op, OutT>: elements convert to AccT on load, results
// to OutT on store. EXCLUSIVE selects out[l] = x[0] op ... op x[l-1] (Op's identity at l = 0).
// Sizes and indices are 64-bit.
//
// inner == 1 (rows: the scanned axis is the contiguous one), one warp per (row, chunk) unit, the
// block's BLOCK / 32 warps on BLOCK / 32 units (several short rows per block), grid-stride over
// units; no block barrier anywhere (warps never wait for each other), so rows of any length mix
// freely in a block.
//   axis_rows_scan<InT, AccT, Op, OutT, BLOCK, ITEMS, EXCLUSIVE>: the warp walks its chunk in
//     warp tiles of 32 * ITEMS elements, each lane ITEMS consecutive ones. Full tiles of 16-byte
//     aligned rows: lane-consecutive 16-byte vector loads exchanged to the blocked layout through
//     shared memory (common/load.cuh), and back for the stores; other tiles (the row's tail,
//     unaligned rows, element types without 16-byte vectors): lane-consecutive scalar loads and
//     stores through the same buffer (still coalesced). Per tile: each lane folds its items, a warp
//     scan of the lane totals (common/scan.cuh), the lane's outputs, and the running total
//     carried to the next tile by a shuffle from lane 31.
//   axis_rows_total<InT, AccT, Op, BLOCK>: the split path's chunk totals (every chunk but a
//     line's last, whose total no chunk reads), one warp per unit
//     (lane-strided loads, a warp reduction); Op commutative (Sum, Min, Max).
//   Launch: BLOCK threads (a multiple of 32), any grid (grid-stride over units = rows * chunks).
//   Static shared memory: axis_rows_scan BLOCK / 32 * 32 * ITEMS elements of the widest of InT
//   and OutT (16-byte aligned); none for axis_rows_total. chunk_len is a multiple of 32 * ITEMS
//   when chunks > 1 (chunks start 16-byte aligned in aligned rows).
//
// inner > 1 (columns): thread per (o, chunk, V consecutive inner positions); consecutive threads
// take consecutive positions, so a warp's loads and stores at one l are contiguous (coalesced) and
// each thread walks down its chunk carrying V running values, U rows loaded before they are
// folded (U independent loads in flight per thread).
//   axis_cols_scan<InT, AccT, Op, OutT, V, U, EXCLUSIVE>: V == Vec16<InT>::N (16-byte vector
//     loads; stores as 16-byte vectors where V * sizeof(OutT) is a multiple of 16) when the host
//     found inner % V == 0; otherwise V == 1. Vectors are used only when both pointers are 16-byte
//     aligned (grid-uniform), else the same V elements go one by one.
//   axis_cols_total<InT, AccT, Op, V, U>: the split path's chunk totals, totals[(o * chunks + c)
//     * inner + i], for every chunk but a line's last (no chunk reads its total).
//   Launch: any 1-D launch (grid-stride over outer * chunks * inner / V threads). No shared
//   memory.
// Preconditions: in/out aligned to their element sizes; in not written during the kernels;
// totals holds outer * chunks * inner (columns) or rows * chunks (rows) AccT values.
#include "common/prim.cuh"
#include "common/warp.cuh"
#include "common/load.cuh"
#include "common/scan.cuh"
#include "common/complex.cuh"

namespace prim {
namespace axis {

template <class T, int ITEMS, bool OK = HasVec16<T>::value>
struct VecItems { static constexpr bool value = false; };
template <class T, int ITEMS>
struct VecItems<T, ITEMS, true> { static constexpr bool value = ITEMS % Vec16<T>::N == 0; };

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

// V consecutive elements at p to AccT; one 16-byte load when `vec` (V == Vec16<InT>::N).
template <class InT, class AccT, int V>
__device__ __forceinline__ void load_v(const InT* p, bool vec, AccT (&v)[V]) {
    if constexpr (V > 1 && HasVec16<InT>::value) {
        if constexpr (Vec16<InT>::N == V) {
            if (vec) {
                const Packet<InT> pk = load16(p);
#pragma unroll
                for (int k = 0; k < V; ++k) v[k] = static_cast<AccT>(pk.v[k]);
                return;
            }
        }
    }
#pragma unroll
    for (int k = 0; k < V; ++k) v[k] = static_cast<AccT>(p[k]);
}

template <class T, int V>
struct __align__(16) Row { T v[V]; };

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
        const bool aligned = ((reinterpret_cast<uptr>(p + begin) |
                               reinterpret_cast<uptr>(q + begin)) & 15u) == 0;
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

// ---- columns (inner > 1): one thread per (o, chunk, V inner positions) -----------------------
template <class InT, class AccT, class Op, class OutT, int V, int U, bool EXCLUSIVE>
__global__ void axis_cols_scan(const InT* __restrict__ in, OutT* __restrict__ out,
                               long long outer, long long L, long long inner, long long chunks,
                               long long chunk_len, const AccT* __restrict__ totals) {
    using namespace prim;
    const Op op;
    const i64 nv = inner / V;
    const i64 units = outer * chunks * nv;
    const bool vec = ((reinterpret_cast<uptr>(in) | reinterpret_cast<uptr>(out)) & 15u) == 0;
    for (i64 u = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; u < units;
         u += static_cast<i64>(gridDim.x) * blockDim.x) {
        const i64 iv = u % nv, rest = u / nv;
        const i64 c = rest % chunks, o = rest / chunks;
        const i64 begin = c * chunk_len, end = axis::min64(L, begin + chunk_len);
        const i64 col = iv * V;
        AccT carry[V];
#pragma unroll
        for (int k = 0; k < V; ++k) carry[k] = Op::identity();
        for (i64 j = 0; j < c; ++j) {
            const AccT* t = totals + (o * chunks + j) * inner + col;
#pragma unroll
            for (int k = 0; k < V; ++k) carry[k] = op(carry[k], t[k]);
        }
        const i64 base = o * L * inner + col;
        i64 l = begin;
        for (; l + U <= end; l += U) {
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
        for (; l < end; ++l) {
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

template <class InT, class AccT, class Op, int V, int U>
__global__ void axis_cols_total(const InT* __restrict__ in, AccT* __restrict__ totals,
                                long long outer, long long L, long long inner, long long chunks,
                                long long chunk_len) {
    using namespace prim;
    const Op op;
    const i64 nv = inner / V;
    const i64 tc = chunks - 1;  // a line's last chunk: no later chunk reads its total
    const i64 units = outer * tc * nv;
    const bool vec = (reinterpret_cast<uptr>(in) & 15u) == 0;
    for (i64 u = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; u < units;
         u += static_cast<i64>(gridDim.x) * blockDim.x) {
        const i64 iv = u % nv, rest = u / nv;
        const i64 c = rest % tc, o = rest / tc;
        const i64 begin = c * chunk_len, end = axis::min64(L, begin + chunk_len);
        const i64 col = iv * V;
        AccT acc[V];
#pragma unroll
        for (int k = 0; k < V; ++k) acc[k] = Op::identity();
        const i64 base = o * L * inner + col;
        i64 l = begin;
        for (; l + U <= end; l += U) {
            AccT v[U][V];
#pragma unroll
            for (int r = 0; r < U; ++r)
                axis::load_v<InT, AccT, V>(in + base + (l + r) * inner, vec, v[r]);
#pragma unroll
            for (int r = 0; r < U; ++r)
#pragma unroll
                for (int k = 0; k < V; ++k) acc[k] = op(acc[k], v[r][k]);
        }
        for (; l < end; ++l) {
            AccT v[V];
            axis::load_v<InT, AccT, V>(in + base + l * inner, vec, v);
#pragma unroll
            for (int k = 0; k < V; ++k) acc[k] = op(acc[k], v[k]);
        }
        AccT* t = totals + (o * chunks + c) * inner + col;
#pragma unroll
        for (int k = 0; k < V; ++k) t[k] = acc[k];
    }
}

// axis.cu -- reductions over axes of a C-contiguous array, read in place, each element once.
//
// The host (primitives/reduction/_axis.py) coalesces the array's axes so that one launch reduces
// the middle axis of a (outer, R, inner) C-ordered view: out[o, i] = Op over r of in[o, r, i].
// Reduced axes that are not one contiguous group take one launch per group, innermost first.
// Every kernel is templated on <InT, AccT, Op, OutT, BLOCK, VECS> (axis_rows_packed adds its layout
// <PER, PKS, XCHG>, below): elements of InT (bool read as prim::Flag, any nonzero byte 1,
// util/flag.cuh; float16 and bfloat16 as prim::f16 and prim::bf16) are converted to the accumulator
// AccT on load and combined with Op (prim::Sum/Prod/Min/Max<AccT>); only the stored value is
// narrowed to OutT (a bool result stored as Flag: 0 or 1 bytes). Sizes and indices are 64-bit.
// 16-byte loads go through util/pack16.cuh (load_pack16, aligned_head);
// an input not aligned to 16 bytes where a kernel needs it takes that kernel's scalar path.
// Results are deterministic: no atomics, a fixed combination order for a given launch.
//
// axis_rows_packed (inner == 1, R * sizeof(InT) of 2, 4 or 8 bytes: rows of 2 four-byte, 2 or 4
//   two-byte, 2, 4 or 8 one-byte elements): a 16-byte packet holds PER = K / R whole rows (K =
//   16 / sizeof(InT); PER and R are template constants). A unit is PKS consecutive packets
//   (1, 2 or 4), whose PKS * PER results a thread folds in registers and stores with 16-, 8- or
//   4-byte vector stores, the widest dividing their size and the alignment of the first packed
//   result (out + head_rows: a grid-uniform choice), element stores when none does. XCHG == 0: a
//   thread loads its unit's packets itself (adjacent 16-byte loads); XCHG == 1: a warp loads its
//   32 * PKS packets coalesced (lane l: packets l, l + 32, ...) and the lanes exchange results by
//   shuffles (PKS per 4-byte word of a packet's results), so that lane l stores the results of
//   packets PKS * l .. PKS * l + PKS - 1. VECS / PKS units (at least 1) in flight per thread.
//   The head rows (before the first 16-byte boundary; all rows when it falls inside a row) and
//   the rows after the last whole unit are reduced one row per thread, iterated directly.
//   Launch: 1-D, any grid (grid-stride over units), BLOCK threads, a multiple of 32; no shared
//   memory, no barriers (with XCHG the unit loops are warp-uniform).
// axis_rows (inner == 1, many rows): groups of G = 2^log_g lanes (1..32) per row, 32 / G rows
//   per warp; the G lanes of a row stride over its 16-byte packets (VECS loads in flight), with a
//   scalar head up to the row's first 16-byte boundary and a scalar tail, then combine with
//   shuffles (xor offsets below G). Short rows of whole packets, at most one per lane, take VECS
//   batches of rows per iteration instead (each lane's VECS loads in flight before any fold). The
//   row loops are warp-uniform (a lane past the last row holds the identity), so every shuffle
//   is converged. Launch: 1-D, any grid, BLOCK threads; no shared memory.
// axis_slab (inner divides K = 16 / sizeof(InT): 1 for long rows, 2 for the float view of
//   complex data, ...) and axis_slab_wide (wide rows: inner = P * K, P = 2 or 4, at most
//   SLAB_WIDE_MAX), both prim::slab_units: one
//   block per (o, part) unit: the block reduces elements [part*chunk*inner, (part+1)*chunk*inner)
//   of slab o (R * inner contiguous elements) with 16-byte packets (VECS in flight), each thread
//   keeping one accumulator per packet slot. inner | K: slot k holds inner position (head + k) %
//   inner in every packet, then one block reduction per inner position. Wide rows: thread t's
//   packets (BLOCK apart) all start at position (head + t * K) % inner, so its slot k holds that
//   position plus k; the head is taken by thread BLOCK - 1 (as packet -1's last elements) and the
//   partial last packet by the thread whose packets it continues; lanes P apart hold the same
//   positions, so xor shuffles over the lane bits from P up leave each warp's sums in lanes
//   0 .. P - 1, which meet in shared memory, summed over the warps in warp order by the threads
//   j < inner (position (head + j) % inner). out[(o*splits + part)*inner + i]. The unit loop is
//   block-uniform. Launch: 1-D, any grid, blockDim.x == BLOCK; static shared memory BLOCK / 32
//   accumulators, and BLOCK / 32 * SLAB_WIDE_MAX * K more in axis_slab_wide.
// axis_cols (inner > 1): threads own consecutive inner positions (one 16-byte packet of them when
//   `vec` and inner is a multiple of 16 / sizeof(InT) and the input is 16-byte aligned, else one
//   element) and loop down their part of R (VECS rows in flight); consecutive threads read
//   consecutive packets (coalesced). Units (o, part, column), column fastest; out[(o*splits +
//   part)*inner + i]. Launch: 1-D, any grid, BLOCK threads; no shared memory, no barriers.
// With splits > 1 the host reduces the AccT partials (outer, splits, inner) in a further launch
// (the same kernels, InT = AccT), or, for axis_slab, axis_slab_finish does it in the same launch:
// each unit stores its partials to `partials` (outer * splits * inner AccT), fences, and takes a
// ticket of its slab (tickets[o], 0 on entry); the block that takes the slab's last ticket folds
// the slab's partials in part order (loads that bypass L1) into out[o * inner + q] and sets the
// ticket back to 0, so the tickets are 0 again for the next launch. The ticket's branch is
// block-uniform (a shared flag after a barrier).
// Preconditions: outer, R, inner >= 1; `in` aligned to sizeof(InT); `out` holds the results.
#include "util/prim.cuh"
#include "util/thread.cuh"
#include "util/load.cuh"
#include "util/pack16.cuh"
#include "util/narrow.cuh"  // prim::f16, prim::bf16 (the 16-bit floats as their bits)
#include "util/flag.cuh"  // prim::Flag (bool)
#include "util/complex.cuh"
#include "warp/shfl.cuh"
#include "block/reduce.cuh"
#include "device/ticket.cuh"  // last_ticket

namespace prim {

template <class AccT, class InT>
__device__ __forceinline__ AccT to_acc(InT v) {
    return static_cast<AccT>(v);
}

}  // namespace prim

// ---- rows of at most 8 bytes, several per 16-byte packet -------------------------------------
namespace prim {

// The PER row results of packet p (rows of K / PER elements) into res[0, PER).
template <int PER, class AccT, class InT, class OutT, class Op>
__device__ __forceinline__ void fold_packed_rows(const Pack16<InT>& p, OutT* res, Op op) {
    constexpr int R = Pack16<InT>::N / PER;
#pragma unroll
    for (int q = 0; q < PER; ++q) {
        AccT acc = Op::identity();
#pragma unroll
        for (int k = 0; k < R; ++k) acc = op(acc, to_acc<AccT>(p.v[q * R + k]));
        res[q] = static_cast<OutT>(acc);
    }
}

// The width of the widest store (16, 8 or 4 bytes; 0: element stores) that divides both `bytes`
// and `align`.
__host__ __device__ constexpr int packed_store_width(int bytes, int align) {
    return bytes % 16 == 0 && align % 16 == 0 ? 16
        : bytes % 8 == 0 && align % 8 == 0    ? 8
        : bytes % 4 == 0 && align % 4 == 0    ? 4
                                              : 0;
}

// Stores res[0, M) at dst: W-byte stores (W of 4, 8 or 16 dividing M * sizeof(T), dst and res
// aligned to W), or one store per element (W == 0). Each vector is assembled from 4-byte words
// and stored by __stwb (an assignment of a uint4 may be split into word stores).
template <int W, int M, class T>
__device__ __forceinline__ void store_results(T* dst, const T (&res)[M]) {
    constexpr int NW = M * static_cast<int>(sizeof(T)) / 4;  // 4-byte words (W > 0)
    const unsigned int* w = reinterpret_cast<const unsigned int*>(res);
    if constexpr (W == 0) {
#pragma unroll
        for (int q = 0; q < M; ++q) dst[q] = res[q];
    } else if constexpr (W == 16) {
        static_assert(NW % 4 == 0 && NW * 4 == M * static_cast<int>(sizeof(T)), "W | M*sizeof(T)");
        uint4* d = reinterpret_cast<uint4*>(dst);
#pragma unroll
        for (int u = 0; u < NW / 4; ++u)
            __stwb(d + u, make_uint4(w[4 * u], w[4 * u + 1], w[4 * u + 2], w[4 * u + 3]));
    } else if constexpr (W == 8) {
        static_assert(NW % 2 == 0 && NW * 4 == M * static_cast<int>(sizeof(T)), "W | M*sizeof(T)");
        uint2* d = reinterpret_cast<uint2*>(dst);
#pragma unroll
        for (int u = 0; u < NW / 2; ++u) __stwb(d + u, make_uint2(w[2 * u], w[2 * u + 1]));
    } else {
        static_assert(W == 4 && NW * 4 == M * static_cast<int>(sizeof(T)), "W | M*sizeof(T)");
        unsigned int* d = reinterpret_cast<unsigned int*>(dst);
#pragma unroll
        for (int u = 0; u < NW; ++u) d[u] = w[u];
    }
}

// Warp exchange of packed-row results. Lane l holds in mine[s] the PER results of packet
// 32 * s + l of the warp's span (s < PKS, a power of 2 up to 32); on return res holds those of
// packets PKS * l .. PKS * l + PKS - 1, in order. Lane l's packets lie in slot u = PKS * l / 32
// of lanes PKS * l + v (mod 32), v < PKS. PKS steps, each one shuffle of a slot per lane (its
// bytes as 4-byte words): at step t lane s sends its slot (s - t) mod PKS and lane l reads lane
// PKS * l + v (mod 32), v = (t + u) mod PKS, whose slot sent is u: the results of packet
// PKS * l + v. All 32 lanes call together.
template <int PKS, int PER, class T>
__device__ __forceinline__ void exchange_packed_rows(const T (&mine)[PKS][PER], T (&res)[PKS * PER],
                                                     int lane) {
    constexpr int NW = (PER * static_cast<int>(sizeof(T)) + 3) / 4;
    alignas(8) unsigned int slot[PKS][NW], got[PKS][NW];
#pragma unroll
    for (int s = 0; s < PKS; ++s) {
#pragma unroll
        for (int w = 0; w < NW; ++w) slot[s][w] = 0u;
        T* e = reinterpret_cast<T*>(slot[s]);
#pragma unroll
        for (int q = 0; q < PER; ++q) e[q] = mine[s][q];
    }
    const int u = (PKS * lane) >> LOG_WARP;
#pragma unroll
    for (int t = 0; t < PKS; ++t) {
        const int send = (lane - t) & (PKS - 1), v = (t + u) & (PKS - 1);
        const int src = (PKS * lane + v) & (WARP - 1);
        unsigned int x[NW];
#pragma unroll
        for (int w = 0; w < NW; ++w) {
            x[w] = slot[0][w];
#pragma unroll
            for (int s = 1; s < PKS; ++s)
                if (s == send) x[w] = slot[s][w];
            x[w] = shfl_idx(x[w], src);
#pragma unroll
            for (int s = 0; s < PKS; ++s)
                if (s == v) got[s][w] = x[w];
        }
    }
#pragma unroll
    for (int s = 0; s < PKS; ++s) {
        const T* e = reinterpret_cast<const T*>(got[s]);
#pragma unroll
        for (int q = 0; q < PER; ++q) res[s * PER + q] = e[q];
    }
}

// B batches of packed-row units, the first at unit j, the next `stride` units on. A unit is a
// thread's PKS * PER results, stored at obody + unit * PKS * PER with W-byte stores. XCHG == 0:
// the thread's unit is packets unit * PKS .. + PKS - 1 (adjacent 16-byte loads); XCHG == 1: `j`
// counts warps, the warp's unit j holds the 32 * PKS packets from j * 32 * PKS on, lane l loading
// packets l, l + 32, ... (coalesced) and exchange_packed_rows giving it the results of its own
// PKS consecutive packets (unit j * 32 + l). Every load is issued before the first fold.
template <int W, int PER, int PKS, int XCHG, int B, class AccT, class InT, class OutT, class Op>
__device__ __forceinline__ void packed_units(const InT* __restrict__ body, long long j,
                                             long long stride, OutT* __restrict__ obody, Op op) {
    constexpr int K = Pack16<InT>::N, M = PKS * PER;
    const int lane = threadIdx.x % WARP;
    Pack16<InT> p[B][PKS];
#pragma unroll
    for (int b = 0; b < B; ++b) {
        const long long unit = j + b * stride;
#pragma unroll
        for (int s = 0; s < PKS; ++s) {
            const long long pk = XCHG ? (unit * PKS + s) * WARP + lane : unit * PKS + s;
            p[b][s] = load_pack16(body + pk * K);
        }
    }
#pragma unroll
    for (int b = 0; b < B; ++b) {
        const long long unit = j + b * stride;
        alignas(16) OutT res[M];
        if constexpr (XCHG) {
            OutT mine[PKS][PER];
#pragma unroll
            for (int s = 0; s < PKS; ++s) fold_packed_rows<PER, AccT>(p[b][s], mine[s], op);
            exchange_packed_rows<PKS, PER>(mine, res, lane);
            store_results<W>(obody + (unit * WARP + lane) * M, res);
        } else {
#pragma unroll
            for (int s = 0; s < PKS; ++s) fold_packed_rows<PER, AccT>(p[b][s], res + s * PER, op);
            store_results<W>(obody + unit * M, res);
        }
    }
}

// Every unit of [0, units): batches of `VECS / PKS` units (at least 1) in flight, grid-stride
// over threads (XCHG == 0) or warps (XCHG == 1: the loops are warp-uniform).
template <int W, int PER, int PKS, int XCHG, int VECS, class AccT, class InT, class OutT, class Op>
__device__ __forceinline__ void packed_walk(const InT* __restrict__ body, long long units,
                                            OutT* __restrict__ obody, Op op) {
    constexpr int B = VECS / PKS > 0 ? VECS / PKS : 1;
    const long long first = XCHG ? global_thread() / WARP : global_thread();
    const long long stride = XCHG ? global_threads() / WARP : global_threads();
    long long j = first;
    for (; j + (B - 1) * stride < units; j += B * stride)
        packed_units<W, PER, PKS, XCHG, B, AccT>(body, j, stride, obody, op);
    for (; j < units; j += stride)
        packed_units<W, PER, PKS, XCHG, 1, AccT>(body, j, stride, obody, op);
}

}  // namespace prim

template <class InT, class AccT, class Op, class OutT, int BLOCK, int VECS, int PER, int PKS,
          int XCHG>
__global__ void __launch_bounds__(BLOCK)
    axis_rows_packed(const InT* __restrict__ in, long long outer, OutT* __restrict__ out) {
    constexpr int K = prim::Pack16<InT>::N, R = K / PER, M = PKS * PER;
    constexpr int TB = M * static_cast<int>(sizeof(OutT));  // bytes of a unit's results
    static_assert(PER >= 2 && R >= 2 && R * PER == K, "axis_rows_packed: 2 <= R < K, R | K");
    static_assert((PKS == 1 || PKS == 2 || PKS == 4) && (XCHG == 0 || XCHG == 1),
                  "axis_rows_packed: 1, 2 or 4 packets per thread");
    const Op op;
    const long long n = outer * R;
    const long long head = prim::aligned_head(in, n);
    // rows wholly before the first boundary (all of them when the boundary splits a row)
    const long long head_rows = head % R == 0 ? head / R : outer;
    const long long npk = head % R == 0 ? (n - head) / K : 0;
    const long long span = XCHG ? prim::WARP * PKS : PKS;  // packets per unit (thread or warp)
    const long long units = npk / span;
    const InT* body = in + head;
    OutT* const obody = out + head_rows;
    const prim::uptr a = reinterpret_cast<prim::uptr>(obody);  // grid-uniform store width
    if (a % 16 == 0)
        prim::packed_walk<prim::packed_store_width(TB, 16), PER, PKS, XCHG, VECS, AccT>(body, units,
                                                                                        obody, op);
    else if (a % 8 == 0)
        prim::packed_walk<prim::packed_store_width(TB, 8), PER, PKS, XCHG, VECS, AccT>(body, units,
                                                                                       obody, op);
    else if (a % 4 == 0)
        prim::packed_walk<prim::packed_store_width(TB, 4), PER, PKS, XCHG, VECS, AccT>(body, units,
                                                                                       obody, op);
    else
        prim::packed_walk<0, PER, PKS, XCHG, VECS, AccT>(body, units, obody, op);
    // the head rows and the rows after the last whole unit, one per thread
    const long long first_tail = head_rows + units * span * PER;
    const long long rest = head_rows + (outer - first_tail);
    const long long tid = prim::global_thread(), nthreads = prim::global_threads();
    for (long long i = tid; i < rest; i += nthreads) {
        const long long r = i < head_rows ? i : first_tail + (i - head_rows);
        AccT acc = Op::identity();
#pragma unroll
        for (int k = 0; k < R; ++k) acc = op(acc, prim::to_acc<AccT>(in[r * R + k]));
        out[r] = static_cast<OutT>(acc);
    }
}

// ---- rows, G lanes per row --------------------------------------------------------------------
template <class InT, class AccT, class Op, class OutT, int BLOCK, int VECS>
__global__ void __launch_bounds__(BLOCK) axis_rows(const InT* __restrict__ in, long long outer,
                                                   long long R, int log_g, OutT* __restrict__ out) {
    constexpr int K = prim::Pack16<InT>::N;
    const Op op;
    const int lane = threadIdx.x % prim::WARP;
    const int G = 1 << log_g, sub = lane & (G - 1);
    const long long rows_per_warp = prim::WARP >> log_g;
    const long long warp = prim::global_thread() / prim::WARP;
    const long long nwarps = prim::global_threads() / prim::WARP;
    const long long step = nwarps * rows_per_warp;  // rows between a warp's batches
    long long base = warp * rows_per_warp;
    // Short aligned rows (whole 16-byte packets, at most one per lane: R / K <= G): VECS batches
    // of rows per iteration, every lane's loads issued before the first is folded (the general
    // loop below would have one load in flight per lane). Grid-uniform condition.
    const long long row_pk = R / K;
    if (R % K == 0 && row_pk <= G && prim::aligned_head(in, outer * R) == 0) {
        for (; base + (VECS - 1) * step < outer; base += VECS * step) {
            prim::Pack16<InT> pk[VECS];
#pragma unroll
            for (int u = 0; u < VECS; ++u) {
                const long long row = base + u * step + (lane >> log_g);
                if (row < outer && sub < row_pk) pk[u] = prim::load_pack16(in + row * R + sub * K);
            }
#pragma unroll
            for (int u = 0; u < VECS; ++u) {
                const long long row = base + u * step + (lane >> log_g);
                AccT acc = Op::identity();
                if (row < outer && sub < row_pk) {
#pragma unroll
                    for (int k = 0; k < K; ++k) acc = op(acc, prim::to_acc<AccT>(pk[u].v[k]));
                }
                for (int off = G >> 1; off > 0; off >>= 1) acc = op(acc, prim::shfl_xor(acc, off));
                if (row < outer && sub == 0) out[row] = static_cast<OutT>(acc);
            }
        }
    }
    for (; base < outer; base += step) {
        const long long row = base + (lane >> log_g);
        AccT acc = Op::identity();
        if (row < outer) {
            const InT* p = in + row * R;
            const long long head = prim::aligned_head(p, R);
            for (long long i = sub; i < head; i += G) acc = op(acc, prim::to_acc<AccT>(p[i]));
            const InT* body = p + head;
            const long long npk = (R - head) / K;
            long long j = sub;
            for (; j + (VECS - 1) * G < npk; j += VECS * G) {
                prim::Pack16<InT> pk[VECS];
#pragma unroll
                for (int u = 0; u < VECS; ++u) pk[u] = prim::load_pack16(body + (j + u * G) * K);
#pragma unroll
                for (int u = 0; u < VECS; ++u)
#pragma unroll
                    for (int k = 0; k < K; ++k) acc = op(acc, prim::to_acc<AccT>(pk[u].v[k]));
            }
            for (; j < npk; j += G) {
                const prim::Pack16<InT> pk = prim::load_pack16(body + j * K);
#pragma unroll
                for (int k = 0; k < K; ++k) acc = op(acc, prim::to_acc<AccT>(pk.v[k]));
            }
            for (long long i = head + npk * K + sub; i < R; i += G)
                acc = op(acc, prim::to_acc<AccT>(p[i]));
        }
        for (int off = G >> 1; off > 0; off >>= 1) acc = op(acc, prim::shfl_xor(acc, off));
        if (row < outer && sub == 0) out[row] = static_cast<OutT>(acc);
    }
}

// ---- slabs: a block per chunk of a contiguous (R, inner) slab, inner | 16 / sizeof(InT) -------
// (or inner = P * 16 / sizeof(InT), P a power of two up to SLAB_WIDE_MAX: rows of whole packets)
constexpr int SLAB_WIDE_MAX = 4;

namespace prim {

// FINISH (not WIDE, splits > 1): a unit's partials go to `partials` (AccT, (o, part, q) as the
// split launch's output), and the block that takes the last of slab o's `splits` tickets folds
// them in part order into out[o * inner + q] and resets the ticket.
template <class InT, class AccT, class Op, class OutT, int BLOCK, int VECS, bool WIDE,
          bool FINISH = false>
__device__ __forceinline__ void slab_units(const InT* __restrict__ in, long long outer, long long R,
                                           long long inner, long long splits, long long chunk,
                                           OutT* __restrict__ out,
                                           AccT* __restrict__ partials = nullptr,
                                           unsigned* __restrict__ tickets = nullptr) {
    static_assert(!(WIDE && FINISH), "slab_units: the finish is the narrow slabs'");
    constexpr int K = prim::Pack16<InT>::N;
    constexpr int SPAN = SLAB_WIDE_MAX * K;  // a warp's sums of a wide row's positions, at most
    const Op op;
    __shared__ AccT scratch[BLOCK / prim::WARP];
    __shared__ AccT wide[WIDE ? BLOCK / prim::WARP * SPAN : 1];
    const long long units = outer * splits, len = R * inner;
    for (long long unit = blockIdx.x; unit < units; unit += gridDim.x) {
        const long long o = unit / splits, part = unit % splits;
        const long long f0 = part * chunk * inner;
        const long long f1 = f0 + chunk * inner < len ? f0 + chunk * inner : len;
        const long long m = f1 > f0 ? f1 - f0 : 0;
        const InT* p = in + o * len + f0;
        const long long head = prim::aligned_head(p, m);
        // inner | K: slot k of every packet holds position (phase + k) % inner; inner = K * P
        // (wide rows): thread t's packets all start at position (phase + t * K) % inner (its
        // packets are BLOCK apart, and inner divides BLOCK * K), its slot k that plus k
        const long long phase = head % inner;
        AccT acc[K];
#pragma unroll
        for (int k = 0; k < K; ++k) acc[k] = Op::identity();
        if constexpr (!WIDE) {
            for (long long i = threadIdx.x; i < head; i += BLOCK) {  // position i % inner
                const long long slot = ((i % inner) - phase + inner) % inner;
                const AccT v = prim::to_acc<AccT>(p[i]);
#pragma unroll
                for (int k = 0; k < K; ++k)
                    if (k == slot) acc[k] = op(acc[k], v);
            }
        } else if (threadIdx.x == BLOCK - 1) {  // the head, as packet -1's last elements
            for (long long i = 0; i < head; ++i) {
                const long long slot = i - head + K;
                const AccT v = prim::to_acc<AccT>(p[i]);
#pragma unroll
                for (int k = 0; k < K; ++k)
                    if (k == slot) acc[k] = op(acc[k], v);
            }
        }
        const InT* body = p + head;
        const long long npk = (m - head) / K;
        long long j = threadIdx.x;
        for (; j + (VECS - 1) * BLOCK < npk; j += VECS * BLOCK) {
            prim::Pack16<InT> pk[VECS];
#pragma unroll
            for (int u = 0; u < VECS; ++u) pk[u] = prim::load_pack16(body + (j + u * BLOCK) * K);
#pragma unroll
            for (int u = 0; u < VECS; ++u)
#pragma unroll
                for (int k = 0; k < K; ++k) acc[k] = op(acc[k], prim::to_acc<AccT>(pk[u].v[k]));
        }
        for (; j < npk; j += BLOCK) {
            const prim::Pack16<InT> pk = prim::load_pack16(body + j * K);
#pragma unroll
            for (int k = 0; k < K; ++k) acc[k] = op(acc[k], prim::to_acc<AccT>(pk.v[k]));
        }
        if constexpr (!WIDE) {
            for (long long i = head + npk * K + threadIdx.x; i < m; i += BLOCK) {
                const long long slot = ((i % inner) - phase + inner) % inner;
                const AccT v = prim::to_acc<AccT>(p[i]);
#pragma unroll
                for (int k = 0; k < K; ++k)
                    if (k == slot) acc[k] = op(acc[k], v);
            }
            for (long long q = 0; q < inner; ++q) {  // block-uniform bound: every thread takes it
                AccT v = Op::identity();
                const long long slot = (q - phase + inner) % inner;
#pragma unroll
                for (int k = 0; k < K; ++k)
                    if (k % inner == slot) v = op(v, acc[k]);
                v = prim::block_reduce<BLOCK>(v, op, scratch);
                if (threadIdx.x == 0) {
                    if constexpr (FINISH)
                        partials[unit * inner + q] = v;
                    else
                        out[unit * inner + q] = static_cast<OutT>(v);
                }
                __syncthreads();  // scratch is reused
            }
            if constexpr (FINISH) {
                __shared__ bool last_part;  // this block took the slab's last ticket
                if (prim::last_ticket(tickets + o, static_cast<unsigned>(splits), last_part)) {
                    for (long long q = threadIdx.x; q < inner; q += BLOCK) {
                        AccT v = Op::identity();
                        for (long long s = 0; s < splits; ++s)
                            v = op(v, prim::load_cg(partials + (o * splits + s) * inner + q));
                        out[o * inner + q] = static_cast<OutT>(v);
                    }
                    if (threadIdx.x == 0) tickets[o] = 0u;  // for the next launch
                }
            }
        } else {
            // the tail as packet npk's first elements, in the thread whose packets it continues
            if (threadIdx.x == npk % BLOCK) {
                for (long long e = 0; head + npk * K + e < m; ++e) {
                    const AccT v = prim::to_acc<AccT>(p[head + npk * K + e]);
#pragma unroll
                    for (int k = 0; k < K; ++k)
                        if (k == e) acc[k] = op(acc[k], v);
                }
            }
            // lanes P = inner / K apart hold the same positions: the warp's sums in lanes
            // 0 .. P-1 (xor shuffles over the lane bits from P up), lane l's slot k holding
            // position (phase + l * K + k) % inner in every warp (inner divides 32 * K)
            const int P = static_cast<int>(inner / K);
#pragma unroll
            for (int k = 0; k < K; ++k)
                for (int off = prim::WARP / 2; off >= P; off >>= 1)
                    acc[k] = op(acc[k], prim::shfl_xor(acc[k], off));
            const int lane = threadIdx.x % prim::WARP, warp = threadIdx.x / prim::WARP;
            if (lane < P) {
#pragma unroll
                for (int k = 0; k < K; ++k) wide[warp * SPAN + lane * K + k] = acc[k];
            }
            __syncthreads();
            for (int j = threadIdx.x; j < inner; j += BLOCK) {  // position (phase + j) % inner
                AccT v = Op::identity();
                for (int w = 0; w < BLOCK / prim::WARP; ++w) v = op(v, wide[w * SPAN + j]);
                out[unit * inner + (phase + j) % inner] = static_cast<OutT>(v);
            }
            __syncthreads();  // wide is reused
        }
    }
}

}  // namespace prim

template <class InT, class AccT, class Op, class OutT, int BLOCK, int VECS>
__global__ void __launch_bounds__(BLOCK)
    axis_slab(const InT* __restrict__ in, long long outer, long long R, long long inner,
              long long splits, long long chunk, OutT* __restrict__ out) {
    prim::slab_units<InT, AccT, Op, OutT, BLOCK, VECS, false>(in, outer, R, inner, splits, chunk,
                                                              out);
}

template <class InT, class AccT, class Op, class OutT, int BLOCK, int VECS>
__global__ void __launch_bounds__(BLOCK)
    axis_slab_finish(const InT* __restrict__ in, long long outer, long long R, long long inner,
                     long long splits, long long chunk, AccT* __restrict__ partials,
                     unsigned* __restrict__ tickets, OutT* __restrict__ out) {
    prim::slab_units<InT, AccT, Op, OutT, BLOCK, VECS, false, true>(in, outer, R, inner, splits,
                                                                    chunk, out, partials, tickets);
}

template <class InT, class AccT, class Op, class OutT, int BLOCK, int VECS>
__global__ void __launch_bounds__(BLOCK)
    axis_slab_wide(const InT* __restrict__ in, long long outer, long long R, long long inner,
                   long long splits, long long chunk, OutT* __restrict__ out) {
    prim::slab_units<InT, AccT, Op, OutT, BLOCK, VECS, true>(in, outer, R, inner, splits, chunk,
                                                             out);
}

// ---- columns: a thread per inner position (or packet of them), down its part of R -------------
template <class InT, class AccT, class Op, class OutT, int BLOCK, int VECS>
__global__ void __launch_bounds__(BLOCK)
    axis_cols(const InT* __restrict__ in, long long outer, long long R, long long inner,
              long long splits, long long chunk, int vec, OutT* __restrict__ out) {
    constexpr int K = prim::Pack16<InT>::N;
    const Op op;
    const bool packets = vec && inner % K == 0 && (reinterpret_cast<prim::uptr>(in) & 15u) == 0;
    const long long cols = packets ? inner / K : inner;
    const long long units = outer * splits * cols;
    const long long tid = prim::global_thread(), nthreads = prim::global_threads();
    for (long long u = tid; u < units; u += nthreads) {
        const long long c = u % cols, t = u / cols, part = t % splits, o = t / splits;
        const long long r0 = part * chunk;
        const long long r1 = r0 + chunk < R ? r0 + chunk : R;
        if (packets) {
            AccT acc[K];
#pragma unroll
            for (int k = 0; k < K; ++k) acc[k] = Op::identity();
            prim::walk_column<VECS>(
                in + (o * R + r0) * inner + c * K, r1 - r0, inner,
                [](const InT* q) { return prim::load_pack16(q); },
                [&](const prim::Pack16<InT>& pk, long long) {
#pragma unroll
                    for (int k = 0; k < K; ++k) acc[k] = op(acc[k], prim::to_acc<AccT>(pk.v[k]));
                });
            OutT* dst = out + (o * splits + part) * inner + c * K;
#pragma unroll
            for (int k = 0; k < K; ++k) dst[k] = static_cast<OutT>(acc[k]);
        } else {
            AccT acc = Op::identity();
            prim::walk_column<VECS>(
                in + (o * R + r0) * inner + c, r1 - r0, inner, [](const InT* q) { return *q; },
                [&](InT x, long long) { acc = op(acc, prim::to_acc<AccT>(x)); });
            out[(o * splits + part) * inner + c] = static_cast<OutT>(acc);
        }
    }
}

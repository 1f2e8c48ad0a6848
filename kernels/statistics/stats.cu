// stats.cu -- one-pass reductions of the statistics family (nansum ... var, std, ptp,
// count_nonzero), each an aggregate of statistics/aggregates.cuh (its per-thread fold with the
// NaN -> identity transform on load, its combination, its finish) run by four kernels. Every
// kernel is templated on <InT, Agg, ...>: InT the element type as read (bool as prim::stats::Flag,
// float16 as prim::f16, complex as prim::c64/c128), Agg the aggregate. Sizes and indices are
// 64-bit. Results are deterministic: no atomics on values, a fixed combination order per launch.
//
// stat_flat<InT, Agg, BLOCK, VECS>: every element of in[0, n) into out[0], one launch (the
//   reduction family's production structure): a grid-stride walk over 16-byte packets
//   (util/pack16.cuh's for_each_packet: a scalar head to the first 16-byte boundary, VECS loads
//   in flight per thread, a scalar tail), each element folded into the thread's Local (a
//   packet through PackFold<Agg>: NanArg's and NanMean's own packet folds); the thread's State through block_reduce (block/reduce.cuh: warp shuffles, BLOCK/32 States of
//   shared memory); each block stores its State in partials[blockIdx.x], takes a ticket, and the
//   block that takes the last one combines the partials in block order and writes
//   Agg::finish(state, param, flag) to out[0], then resets the ticket to 0.
//   Launch: 1-D, blockDim.x == BLOCK (a multiple of 32, at most 1024), any grid. Shared memory:
//   static, BLOCK/32 States. Preconditions: *tickets == 0; the scratch bytes hold gridDim.x
//   States (aligned to 16 bytes); `in` aligned to sizeof(InT) (16 bytes for c128).
// Both end in grid_total (the block's State, the ticket, the last block's combination).
// The States of partials (stat_flat) and of split axes (the axis kernels, stat_combine) are
// passed as bytes, aligned to 16, and read as the aggregate's State.
// stat_rows<InT, Agg, BLOCK>: rows of `width` contiguous elements (row r at in + r * width), each
//   split in `splits` chunks of `chunk` elements: unit u = r * splits + p is reduced by a group
//   of G = 2^log_g lanes of one warp (32 / G units per warp), the lanes striding over the chunk
//   (consecutive lanes, consecutive elements: coalesced), then xor shuffles below G. splits == 1:
//   out[r] = finish; else states[u] = the unit's State (stat_combine finishes them). The unit
//   loop is warp-uniform (a lane past the last unit folds nothing), so the shuffles are
//   converged. Launch: 1-D, any grid, BLOCK threads (a multiple of 32); no shared memory.
// stat_cols<InT, Agg, BLOCK>: the middle axis of an (outer, R, inner) C-ordered view, R split in
//   `splits` chunks: one thread per unit (o, p, i), i fastest (consecutive threads read
//   consecutive elements of a row of the view: coalesced), folding in[o, r, i] down its chunk.
//   splits == 1: out[o * inner + i] = finish; else states[(o * splits + p) * inner + i].
//   Launch: 1-D, any grid, any block; no shared memory, no barriers.
// stat_weighted<T, BLOCK, VECS>: numpy.average of x with weights w (both of T, n elements each)
//   in one pass: stat_flat's walk over x's 16-byte packets, each element's weight read beside
//   it (w at the same index: a thread's weights are as contiguous as its elements), folded into
//   (sum w x, sum w) (Weighted<T>); the grid's combination as stat_flat's; out[0] = sum(w x),
//   out[1] = sum(w) (the host divides and checks the weights' sum). Launch and preconditions as
//   stat_flat's, `w` aligned to sizeof(T).
// stat_combine<Agg>: out[o * inner + i] = finish of the `splits` States
//   states[(o * splits + p) * inner + i], p in order, combined in groups of 16 and then the
//   groups (the rounding error of a long chain grows with its length). Launch: 1-D, any grid and block.
// Preconditions of the axis kernels: every extent >= 1; `in` aligned to sizeof(InT).
#include "util/prim.cuh"
#include "util/thread.cuh"
#include "util/load.cuh"
#include "util/pack16.cuh"
#include "util/narrow.cuh"
#include "util/complex.cuh"
#include "warp/shfl.cuh"
#include "block/reduce.cuh"
#include "device/ticket.cuh"  // last_ticket
#include "statistics/aggregates.cuh"

// A State another block stored: read through L2 (__ldcg takes built-in types only, so the State's
// 4-byte words one by one).
namespace prim {
namespace stats {
template <class S>
__device__ __forceinline__ S load_state_cg(const S* p) {
    static_assert(sizeof(S) % 4 == 0, "a State's size is a multiple of 4 bytes");
    S s;
    const unsigned int* w = reinterpret_cast<const unsigned int*>(p);
    unsigned int* d = reinterpret_cast<unsigned int*>(&s);
#pragma unroll
    for (int k = 0; k < static_cast<int>(sizeof(S) / 4); ++k) d[k] = __ldcg(w + k);
    return s;
}

// The end of stat_flat and stat_weighted: the block's State `st` into partials[blockIdx.x], a
// ticket, and in the block that takes the last one the partials combined in block order into
// `total` (thread 0's), the ticket reset to 0; returns whether this is that block (block-uniform).
// `scratch`: BLOCK / 32 States; `last_block`: a __shared__ flag of the kernel. Whole block.
template <int BLOCK, class Agg, class S>
__device__ __forceinline__ bool grid_total(const Agg& agg, S st, S* __restrict__ partials,
                                           unsigned int* __restrict__ tickets, S* scratch,
                                           bool& last_block, S& total) {
    st = block_reduce<BLOCK>(st, agg, scratch);
    if (threadIdx.x == 0) partials[blockIdx.x] = st;
    if (!last_ticket(tickets, gridDim.x, last_block)) return false;  // block-uniform
    S v = Agg::identity();
    for (unsigned j = threadIdx.x; j < gridDim.x; j += BLOCK)
        v = agg(v, load_state_cg(partials + j));
    __syncthreads();  // scratch is reused
    total = block_reduce<BLOCK>(v, agg, scratch);
    if (threadIdx.x == 0) *tickets = 0u;
    return true;
}
}  // namespace stats
}  // namespace prim

template <class InT, class Agg, int BLOCK, int VECS>
__global__ void __launch_bounds__(BLOCK)
    stat_flat(const InT* __restrict__ in, long long n, unsigned char* __restrict__ scratch_bytes,
              unsigned int* __restrict__ tickets, typename Agg::Out* __restrict__ out, double param,
              int flag) {
    typedef typename Agg::State S;
    S* partials = reinterpret_cast<S*>(scratch_bytes);
    const Agg agg;
    typename Agg::Local loc = Agg::local();
    prim::for_each_packet<VECS>(
        in, n, prim::global_thread(), prim::global_threads(),
        [&](InT x, prim::i64 i) { loc = Agg::fold(loc, x, i); },
        [&](const prim::Pack16<InT>& p, prim::i64 i0) {
            loc = prim::stats::PackFold<Agg>::fold(loc, p.v, i0);
        });
    __shared__ S scratch[BLOCK / prim::WARP];
    __shared__ bool last_block;
    S v;
    if (prim::stats::grid_total<BLOCK>(agg, Agg::state(loc), partials, tickets, scratch, last_block,
                                       v) &&
        threadIdx.x == 0)
        *out = Agg::finish(v, param, flag);
}

template <class T, int BLOCK, int VECS>
__global__ void __launch_bounds__(BLOCK)
    stat_weighted(const T* __restrict__ in, const T* __restrict__ w, long long n,
                  unsigned char* __restrict__ scratch_bytes, unsigned int* __restrict__ tickets,
                  T* __restrict__ out) {
    typedef prim::stats::Weighted<T> Agg;
    typedef typename Agg::State S;
    S* partials = reinterpret_cast<S*>(scratch_bytes);
    const Agg agg;
    typename Agg::Local loc = Agg::local();
    prim::for_each_packet<VECS>(
        in, n, prim::global_thread(), prim::global_threads(),
        [&](T x, prim::i64 i) { loc = Agg::fold2(loc, x, w[i]); },
        [&](const prim::Pack16<T>& p, prim::i64 i0) {
#pragma unroll
            for (int k = 0; k < prim::Pack16<T>::N; ++k) loc = Agg::fold2(loc, p.v[k], w[i0 + k]);
        });
    __shared__ S scratch[BLOCK / prim::WARP];
    __shared__ bool last_block;
    S v;
    if (prim::stats::grid_total<BLOCK>(agg, Agg::state(loc), partials, tickets, scratch, last_block,
                                       v) &&
        threadIdx.x == 0) {
        out[0] = v.swx;
        out[1] = v.sw;
    }
}

template <class InT, class Agg, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    stat_rows(const InT* __restrict__ in, long long rows, long long width, long long splits,
              long long chunk, int log_g, unsigned char* __restrict__ state_bytes,
              typename Agg::Out* __restrict__ out, double param, int flag) {
    typedef typename Agg::State S;
    S* states = reinterpret_cast<S*>(state_bytes);
    const Agg agg;
    const int G = 1 << log_g;
    const int lane = threadIdx.x % prim::WARP, sub = lane & (G - 1);
    const long long per_warp = prim::WARP / G;
    const long long units = rows * splits;
    const long long warps = prim::global_threads() / prim::WARP;
    for (long long base = (prim::global_thread() / prim::WARP) * per_warp; base < units;
         base += warps * per_warp) {  // warp-uniform
        const long long u = base + lane / G;
        typename Agg::Local loc = Agg::local();
        long long r = 0;
        if (u < units) {
            r = u / splits;
            const long long begin = (u % splits) * chunk;
            const long long end = begin + chunk < width ? begin + chunk : width;
            const InT* row = in + r * width;
#pragma unroll 4  // loads in flight
            for (long long j = begin + sub; j < end; j += G) loc = Agg::fold(loc, row[j], j);
        }
        S st = Agg::state(loc);
        for (int off = 1; off < G; off <<= 1) st = agg(st, prim::shfl_xor(st, off));
        if (sub == 0 && u < units) {
            if (splits == 1)
                out[r] = Agg::finish(st, param, flag);
            else
                states[u] = st;
        }
    }
}

template <class InT, class Agg, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    stat_cols(const InT* __restrict__ in, long long outer, long long R, long long inner,
              long long splits, long long chunk, unsigned char* __restrict__ state_bytes,
              typename Agg::Out* __restrict__ out, double param, int flag) {
    typename Agg::State* states = reinterpret_cast<typename Agg::State*>(state_bytes);
    const long long units = outer * splits * inner;
    for (long long u = prim::global_thread(); u < units; u += prim::global_threads()) {
        const long long i = u % inner, t = u / inner;
        const long long p = t % splits, o = t / splits;
        const long long begin = p * chunk;
        const long long end = begin + chunk < R ? begin + chunk : R;
        const InT* col = in + o * R * inner + i;
        typename Agg::Local loc = Agg::local();
#pragma unroll 4
        for (long long r = begin; r < end; ++r) loc = Agg::fold(loc, col[r * inner], r);
        if (splits == 1)
            out[o * inner + i] = Agg::finish(Agg::state(loc), param, flag);
        else
            states[u] = Agg::state(loc);
    }
}

template <class Agg>
__global__ void stat_combine(const unsigned char* __restrict__ state_bytes, long long m,
                             long long splits, long long inner, typename Agg::Out* __restrict__ out,
                             double param, int flag) {
    const Agg agg;
    const typename Agg::State* states = reinterpret_cast<const typename Agg::State*>(state_bytes);
    for (long long q = prim::global_thread(); q < m; q += prim::global_threads()) {
        const long long o = q / inner, i = q % inner;
        // in groups of 16, then the groups: about 16 + splits / 16 roundings deep, not splits
        typename Agg::State st = Agg::identity();
        for (long long g = 0; g < splits; g += 16) {
            typename Agg::State part = Agg::identity();
            const long long end = g + 16 < splits ? g + 16 : splits;
            for (long long p = g; p < end; ++p)
                part = agg(part, states[(o * splits + p) * inner + i]);
            st = agg(st, part);
        }
        out[q] = Agg::finish(st, param, flag);
    }
}

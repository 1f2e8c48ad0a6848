// axis.cu -- reductions over axes of a C-contiguous array, read in place, each element once.
//
// The host (primitives/reduction/_axis.py) coalesces the array's axes so that one launch reduces
// the middle axis of a (outer, R, inner) C-ordered view: out[o, i] = Op over r of in[o, r, i].
// Reduced axes that are not one contiguous group take one launch per group, innermost first.
// Every kernel is templated on <InT, AccT, Op, OutT, BLOCK, VECS>: elements of InT (bool read as
// unsigned char, float16 as prim::f16) are converted to the accumulator AccT on load and combined
// with Op (prim::Sum/Prod/Min/Max<AccT>); only the stored value is narrowed to OutT. Sizes and
// indices are 64-bit. 16-byte loads go through common/pack16.cuh (load_pack16, aligned_head);
// an input not aligned to 16 bytes where a kernel needs it takes that kernel's scalar path.
// Results are deterministic: no atomics, a fixed combination order for a given launch.
//
// axis_rows_packed (inner == 1, R * sizeof(InT) divides 16 and is below it: rows of 2 float,
//   8 bytes, ...): each thread reads whole 16-byte packets (VECS in flight), each holding
//   16 / sizeof(InT) / R complete rows, and stores one result per row. Rows before the first
//   16-byte boundary and after the last packet are reduced one row per thread (all rows when the
//   boundary falls inside a row). Launch: 1-D, any grid (grid-stride over packets), BLOCK
//   threads; no shared memory, no barriers.
// axis_rows (inner == 1, many rows): groups of G = 2^log_g lanes (1..32) per row, 32 / G rows
//   per warp; the G lanes of a row stride over its 16-byte packets (VECS loads in flight), with a
//   scalar head up to the row's first 16-byte boundary and a scalar tail, then combine with
//   shuffles (xor offsets below G). Short rows of whole packets, at most one per lane, take VECS
//   batches of rows per iteration instead (each lane's VECS loads in flight before any fold). The
//   row loops are warp-uniform (a lane past the last row holds the identity), so every shuffle
//   is converged. Launch: 1-D, any grid, BLOCK threads; no shared memory.
// axis_slab (inner divides 16 / sizeof(InT): 1 for long rows, 2 for the float view of complex
//   data, ...): one block per (o, part) unit: the block reduces elements [part*chunk*inner,
//   (part+1)*chunk*inner) of slab o (R * inner contiguous elements) with 16-byte packets (VECS in
//   flight), each thread keeping one accumulator per packet slot (slot k holds inner position
//   (head + k) % inner), then one block reduction per inner position. out[(o*splits + part)*inner
//   + i]. The unit loop is block-uniform. Launch: 1-D, any grid, blockDim.x == BLOCK; static
//   shared memory BLOCK / 32 accumulators.
// axis_cols (inner > 1): threads own consecutive inner positions (one 16-byte packet of them when
//   `vec` and inner is a multiple of 16 / sizeof(InT) and the input is 16-byte aligned, else one
//   element) and loop down their part of R (VECS rows in flight); consecutive threads read
//   consecutive packets (coalesced). Units (o, part, column), column fastest; out[(o*splits +
//   part)*inner + i]. Launch: 1-D, any grid, BLOCK threads; no shared memory, no barriers.
// With splits > 1 the host reduces the AccT partials (outer, splits, inner) in a further launch
// (the same kernels, InT = AccT).
// Preconditions: outer, R, inner >= 1; `in` aligned to sizeof(InT); `out` holds the results.
#include "common/prim.cuh"
#include "common/warp.cuh"
#include "common/block.cuh"
#include "common/pack16.cuh"
#include "reduction/reduce.cu"  // prim::f16 (float16 as its bits); its kernels stay templates

namespace prim {

template <class AccT, class InT>
__device__ __forceinline__ AccT to_acc(InT v) { return static_cast<AccT>(v); }

}  // namespace prim

// ---- rows of at most 8 bytes, several per 16-byte packet -------------------------------------
namespace prim {

// Stores the K / R row results of packet p (rows of R elements, R dividing K) at o.
template <class InT, class AccT, class Op, class OutT>
__device__ __forceinline__ void store_packed_rows(const prim::Pack16<InT>& p, long long R,
                                                  OutT* o, Op op) {
    AccT acc = Op::identity();
    long long w = 0, q = 0;
#pragma unroll
    for (int k = 0; k < prim::Pack16<InT>::N; ++k) {
        acc = op(acc, prim::to_acc<AccT>(p.v[k]));
        if (++w == R) {
            o[q++] = static_cast<OutT>(acc);
            acc = Op::identity();
            w = 0;
        }
    }
}

}  // namespace prim

template <class InT, class AccT, class Op, class OutT, int BLOCK, int VECS>
__global__ void __launch_bounds__(BLOCK)
axis_rows_packed(const InT* __restrict__ in, long long outer, long long R, OutT* __restrict__ out) {
    constexpr int K = prim::Pack16<InT>::N;
    const Op op;
    const long long n = outer * R, per = K / R;  // rows per packet
    const long long tid = prim::global_thread(), nthreads = prim::global_threads();
    const long long head = prim::aligned_head(in, n);
    // rows wholly before the first boundary (all of them when the boundary splits a row)
    const long long head_rows = head % R == 0 ? head / R : outer;
    const long long npk = head % R == 0 ? (n - head) / K : 0;
    const InT* body = in + head;
    OutT* const obody = out + head_rows;
    long long j = tid;
    for (; j + (VECS - 1) * nthreads < npk; j += VECS * nthreads) {
        prim::Pack16<InT> p[VECS];
#pragma unroll
        for (int u = 0; u < VECS; ++u) p[u] = prim::load_pack16(body + (j + u * nthreads) * K);
#pragma unroll
        for (int u = 0; u < VECS; ++u)
            prim::store_packed_rows<InT, AccT>(p[u], R, obody + (j + u * nthreads) * per, op);
    }
    for (; j < npk; j += nthreads)
        prim::store_packed_rows<InT, AccT>(prim::load_pack16(body + j * K), R, obody + j * per, op);
    const long long first_tail = head_rows + npk * per;
    for (long long r = tid; r < outer; r += nthreads) {
        if (r >= head_rows && r < first_tail) continue;
        AccT acc = Op::identity();
        for (long long k = 0; k < R; ++k) acc = op(acc, prim::to_acc<AccT>(in[r * R + k]));
        out[r] = static_cast<OutT>(acc);
    }
}

// ---- rows, G lanes per row --------------------------------------------------------------------
template <class InT, class AccT, class Op, class OutT, int BLOCK, int VECS>
__global__ void __launch_bounds__(BLOCK)
axis_rows(const InT* __restrict__ in, long long outer, long long R, int log_g,
          OutT* __restrict__ out) {
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
template <class InT, class AccT, class Op, class OutT, int BLOCK, int VECS>
__global__ void __launch_bounds__(BLOCK)
axis_slab(const InT* __restrict__ in, long long outer, long long R, long long inner,
          long long splits, long long chunk, OutT* __restrict__ out) {
    constexpr int K = prim::Pack16<InT>::N;
    const Op op;
    __shared__ AccT scratch[BLOCK / prim::WARP];
    const long long units = outer * splits, len = R * inner;
    for (long long unit = blockIdx.x; unit < units; unit += gridDim.x) {
        const long long o = unit / splits, part = unit % splits;
        const long long f0 = part * chunk * inner;
        const long long f1 = f0 + chunk * inner < len ? f0 + chunk * inner : len;
        const long long m = f1 > f0 ? f1 - f0 : 0;
        const InT* p = in + o * len + f0;
        const long long head = prim::aligned_head(p, m);
        const long long phase = head % inner;  // slot k of a packet holds position (phase+k)%inner
        AccT acc[K];
#pragma unroll
        for (int k = 0; k < K; ++k) acc[k] = Op::identity();
        for (long long i = threadIdx.x; i < head; i += BLOCK) {  // position i % inner
            const long long slot = ((i % inner) - phase + inner) % inner;
            const AccT v = prim::to_acc<AccT>(p[i]);
#pragma unroll
            for (int k = 0; k < K; ++k)
                if (k == slot) acc[k] = op(acc[k], v);
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
            if (threadIdx.x == 0) out[unit * inner + q] = static_cast<OutT>(v);
            __syncthreads();  // scratch is reused
        }
    }
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
            const InT* p = in + (o * R + r0) * inner + c * K;
            long long r = r0;
            for (; r + VECS <= r1; r += VECS) {
                prim::Pack16<InT> pk[VECS];
#pragma unroll
                for (int v = 0; v < VECS; ++v) pk[v] = prim::load_pack16(p + (r - r0 + v) * inner);
#pragma unroll
                for (int v = 0; v < VECS; ++v)
#pragma unroll
                    for (int k = 0; k < K; ++k) acc[k] = op(acc[k], prim::to_acc<AccT>(pk[v].v[k]));
            }
            for (; r < r1; ++r) {
                const prim::Pack16<InT> pk = prim::load_pack16(p + (r - r0) * inner);
#pragma unroll
                for (int k = 0; k < K; ++k) acc[k] = op(acc[k], prim::to_acc<AccT>(pk.v[k]));
            }
            OutT* dst = out + (o * splits + part) * inner + c * K;
#pragma unroll
            for (int k = 0; k < K; ++k) dst[k] = static_cast<OutT>(acc[k]);
        } else {
            AccT acc = Op::identity();
            const InT* p = in + (o * R + r0) * inner + c;
            long long r = r0;
            for (; r + VECS <= r1; r += VECS) {
                InT x[VECS];
#pragma unroll
                for (int v = 0; v < VECS; ++v) x[v] = p[(r - r0 + v) * inner];
#pragma unroll
                for (int v = 0; v < VECS; ++v) acc = op(acc, prim::to_acc<AccT>(x[v]));
            }
            for (; r < r1; ++r) acc = op(acc, prim::to_acc<AccT>(p[(r - r0) * inner]));
            out[(o * splits + part) * inner + c] = static_cast<OutT>(acc);
        }
    }
}

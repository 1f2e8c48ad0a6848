// histogram.cu -- device-wide histograms: the textbook sequence of variants (after Kirk and Hwu,
// "Programming Massively Parallel Processors", the histogram chapter) and the production kernels.
//
// Every kernel is templated on <T, Binner, Acc> (histograms/bins.cuh): Binner maps a sample of T to
// its bin or -1 (dropped), Acc says what a sample adds (1, or its weight) and in which types it
// is accumulated (CountAcc: 32-bit shared, 64-bit global counters; WeightAcc<W>: weights of W,
// float or double, summed in double). T is the binner's sample type, or a type that converts to
// it: an element read through a map (a transform on load, primitives/_core/ops.py), whose
// conversion applies the map as the binner takes the sample. `spec` points to the binner's record
// (BinSpec, device memory). Sizes and indices are 64-bit. `out` holds nbins values, zeroed by the
// caller; every kernel adds into it with global atomics, so the order of the additions (and for
// weights the last bits of a sum) is not fixed. Every kernel starts alike (histograms/bins.cuh:
// HistStart): the record read once, the binner built from it, and the kernels with shared
// counters zero them and wait for the block before counting.
//
//   hist_global_contiguous    each thread a contiguous section of ceil(n / threads) samples, a
//                             global atomic per sample. Neighbouring threads read addresses a
//                             section apart: every load is a separate memory transaction.
//   hist_global_interleaved   grid-stride (coalesced) loads, a global atomic per sample.
//   hist_privatized           one sample per thread; each block counts into its own copy of the
//                             histogram in shared memory, then adds the non-zero bins to `out`.
//   hist_coarsened_contiguous privatized, with a grid sized to the machine: each thread a
//   hist_coarsened_interleaved contiguous section, or a grid-stride sequence of samples, so the
//                             per-block set-up and merge are paid once per many samples.
//   hist_aggregated           coarsened (interleaved) + run aggregation: a thread adds up
//                             consecutive samples of one bin in a register (RunLength) and
//                             reaches shared memory once per run.
//   hist_warp_replicated      production for bins that fit in shared memory: `replicas` copies of
//                             the histogram per block, interleaved bin by bin (32 copies: lane l
//                             counts into copy l, one bank per lane, no conflicts whatever the
//                             data; fewer: warp w into copy w % replicas), after a row of slots
//                             for dropped samples (bin -1), so that every sample costs one
//                             unconditional atomic; 16-byte loads with VECS in flight per
//                             thread, machine-sized grid; with weights each packet's weights are
//                             loaded beside it (for_each_weighted_packet: 16-byte loads, 8 bytes
//                             where a packet's weights take 8; a scalar walk where samples and
//                             weights are misaligned differently); counts only: when
//                             `aggregate` != 0 a packet whose samples share one bin costs one
//                             atomic (histograms/bins.cuh: add_packet). Its launch record
//                             (HistLaunch) holds those two settings and the finish: with an
//                             accumulator (acc != null) the blocks add into it (it is zero
//                             between launches) and the block that takes the last ticket moves
//                             it to `out` (uninitialized), zeroes it, copies the bin edges to
//                             `edges_out` and writes the first and last non-zero bin (bincount's
//                             length): one launch per call, no memset. STAGES > 0 (counts, with
//                             or without aggregation; sm_80+): the packets are staged in shared
//                             memory by asynchronous copies instead of loaded into registers,
//                             STAGES in flight per thread (util/pack16.cuh:
//                             for_each_packet_staged: a ring of STAGES 16-byte slots per thread,
//                             after the counters); STAGES == 0, weights or below sm_80: the
//                             register walk.
//   hist_partial_privatized   bins beyond shared memory: bins [0, shared_bins) are counted in
//                             shared memory, the others with global atomics (a range test per
//                             sample); with `packed` (counts only) in 16-bit counters, two a
//                             word (histograms/bins.cuh: Packed16; 65,536 bins in 128 KiB):
//                             packed 1, each add returns its word (a wrap hands 65536 to
//                             `out`); packed 2, adds that return nothing, the block's samples
//                             walked in rounds (for_each_packet_rounds) with a settlement of
//                             the fields past 0x7fff every 32,768 samples or fewer;
//                             16-byte loads (weights: as warp_replicated's), machine-sized grid.
//   hist_global_vectorized    the fully global fallback: 16-byte loads (weights: as
//                             warp_replicated's), machine-sized grid, a global atomic per sample,
//                             no shared memory.
//   hist_bucket_scatter       bucketed, for bins far beyond shared memory (counts, up to 2^24
//   hist_bucket_tally         bins): the bins grouped by their range of 65,536 with no global
//                             atomic per sample. scatter, phase 0: each range's number of
//                             samples; phase 1: each tile's samples grouped by range in shared
//                             memory, each group placed in its range's region of a 16-bit array
//                             by one global atomic a range a tile, and written there (the bin's
//                             low 16 bits), coalesced. tally: each block a slice of the regions,
//                             counted range by range in 16-bit shared counters (Packed16), then
//                             added to `out`. Traffic: the samples read twice, 2 bytes a sample
//                             written and read; global atomics a range a block, not a sample.
//   hist_bin_keys             sort then reduce by key, step one: keys[i] = the bin of sample i,
//                             or nbins when it is dropped (so dropped samples sort last). The
//                             host sorts the keys (radix sort over the bits of nbins) and reduces
//                             the runs of equal keys: no atomics at all. Grid-stride, any grid.
//
// Launch: 1-D. Textbook kernels: any blockDim.x (multiple of 32); hist_global_contiguous and the
// coarsened/aggregated kernels expect a resident grid (they loop). hist_warp_replicated,
// hist_partial_privatized and hist_global_vectorized: blockDim.x == BLOCK, a resident grid;
// hist_bucket_scatter and hist_bucket_tally: blockDim.x == BLOCK, a resident grid.
// Dynamic shared memory: nbins * sizeof(Shared) (privatized, coarsened, aggregated),
// replicas * (nbins + 1) * sizeof(Shared) (warp_replicated with STAGES == 0 or weights; with
// STAGES > 0 and counts: that size rounded up to 16 bytes, then STAGES * BLOCK * 16 bytes of
// staging slots; on an architecture below sm_80 the slots go unused), shared_bins *
// sizeof(Shared) (partial; packed: Packed16::words(shared_bins) 4-byte words),
// Packed16::words(65536) 4-byte words (hist_bucket_tally; hist_bucket_scatter: static only).
// Preconditions: `in` aligned to sizeof(T); `weights` holds n values of Acc::Weight, aligned to
// its size, when Acc is a WeightAcc (any pointer otherwise); a block counts fewer than 2^32
// samples (the host sizes the grid so).
// hist_warp_replicated with an accumulator: *ticket == 0 and acc[0, nbins) == 0 on entry (the
// kernel leaves them so), dynamic shared memory >= 16 bytes, one launch at a time per record.
//
// hist_minmax: per-block minimum and maximum of MinMaxOf<T> (float32 as order keys, small
// integers as int), partials[2*block], [2*block+1]; the host reduces the partials and decodes
// them (float32 NaN: a key beyond the infinities'). Launch: blockDim.x == BLOCK, any grid.
#include "util/prim.cuh"
#include "util/thread.cuh"
#include "util/pack16.cuh"
#include "warp/reduce.cuh"
#include "block/reduce.cuh"
#include "block/scan.cuh"
#include "histograms/bins.cuh"

namespace prim {

// Adds the block's non-zero shared counters to the global histogram. Called by every thread.
template <class S, class G>
__device__ __forceinline__ void merge_shared(const S* h, int count, G* out) {
    for (int b = threadIdx.x; b < count; b += blockDim.x) {
        const S v = h[b];
        if (v != S(0)) atomicAdd(out + b, static_cast<G>(v));
    }
}

// The weights of one 16-byte packet of samples (N of them): N * sizeof(W) bytes, read with
// 16-byte loads, or with one 8-byte load where they take 8 bytes (two 8-byte samples' float
// weights). `p` is aligned to the smaller of 16 and N * sizeof(W) bytes.
template <class W, int N> struct WeightPack { W v[N]; };

template <int N, class W>
__device__ __forceinline__ WeightPack<W, N> load_weight_pack(const W* p) {
    constexpr int BYTES = N * static_cast<int>(sizeof(W));
    static_assert(BYTES == 8 || BYTES % 16 == 0, "a packet's weights: 8 bytes or 16-byte vectors");
    WeightPack<W, N> out;
    if constexpr (BYTES == 8) {
        const uint2 raw = __ldg(reinterpret_cast<const uint2*>(p));
        const W* e = reinterpret_cast<const W*>(&raw);
#pragma unroll
        for (int k = 0; k < N; ++k) out.v[k] = e[k];
    } else {
        constexpr int M = Pack16<W>::N;
#pragma unroll
        for (int u = 0; u < N / M; ++u) {
            const Pack16<W> q = load_pack16(p + u * M);
#pragma unroll
            for (int k = 0; k < M; ++k) out.v[u * M + k] = q.v[k];
        }
    }
    return out;
}

// for_each_weighted_packet<VECS>(in, w, n, tid, nthreads, elem, pack): every sample in[i] of
// [0, n) with its weight w[i], exactly once, grid-stride over threads [tid, nthreads). The
// samples are walked as for_each_packet walks them (util/pack16.cuh: a scalar head up to their
// first 16-byte boundary, 16-byte packets, a scalar tail), each packet's weights loaded beside
// it (load_weight_pack): pack(p, q, i0) with q the weights of the packet p, i0 the index of
// p.v[0]; the head and tail go to elem(x, wx, i). Packets in flight per thread: as many as
// carry the bytes of VECS sample packets, samples and weights together (at least one). Where the
// weights of the first packet are not aligned for their loads (views of samples and weights that
// start at different offsets from a 16-byte boundary), every sample goes to elem, grid-stride.
// Preconditions: `in` aligned to sizeof(T), `w` to sizeof(W); neither written during the kernel.
template <int VECS, class T, class W, class Elem, class Pack>
__device__ __forceinline__ void for_each_weighted_packet(const T* __restrict__ in,
                                                         const W* __restrict__ w, i64 n, i64 tid,
                                                         i64 nthreads, Elem elem, Pack pack) {
    constexpr int N = Pack16<T>::N;
    constexpr int BYTES = N * static_cast<int>(sizeof(W));  // one packet's weights
    constexpr uptr ALIGN = BYTES < 16 ? BYTES : 16;
    constexpr int K = VECS * 16 / (16 + BYTES) > 1 ? VECS * 16 / (16 + BYTES) : 1;
    const i64 head = aligned_head(in, n);
    if ((reinterpret_cast<uptr>(w + head) & (ALIGN - 1)) != 0) {  // uniform across the grid
        for (i64 i = tid; i < n; i += nthreads) elem(in[i], __ldg(w + i), i);
        return;
    }
    for (i64 i = tid; i < head; i += nthreads) elem(in[i], __ldg(w + i), i);
    const T* const body = in + head;
    const W* const wbody = w + head;
    const i64 npk = (n - head) / N;
    i64 j = tid;
    for (; j + (K - 1) * nthreads < npk; j += K * nthreads) {
        Pack16<T> p[K];
        WeightPack<W, N> q[K];
#pragma unroll
        for (int u = 0; u < K; ++u) {
            p[u] = load_pack16(body + (j + u * nthreads) * N);
            q[u] = load_weight_pack<N>(wbody + (j + u * nthreads) * N);
        }
#pragma unroll
        for (int u = 0; u < K; ++u) pack(p[u], q[u], head + (j + u * nthreads) * N);
    }
    for (; j < npk; j += nthreads)
        pack(load_pack16(body + j * N), load_weight_pack<N>(wbody + j * N), head + j * N);
    for (i64 i = head + npk * N + tid; i < n; i += nthreads) elem(in[i], __ldg(w + i), i);
}

// The production kernels' weighted walk: add(x, v) for every sample x of in[0, n) with v its
// weight as summed (Acc::of), samples and weights read by for_each_weighted_packet.
template <class Acc, int VECS, class T, class Add>
__device__ __forceinline__ void add_weighted(const T* __restrict__ in,
                                             const typename Acc::Weight* __restrict__ w, i64 n,
                                             i64 tid, i64 nthreads, Add add) {
    typedef typename Acc::Weight W;
    constexpr int N = Pack16<T>::N;
    for_each_weighted_packet<VECS>(
        in, w, n, tid, nthreads, [&](T x, W wx, i64) { add(x, Acc::of(wx)); },
        [&](const Pack16<T>& p, const WeightPack<W, N>& q, i64) {
#pragma unroll
            for (int k = 0; k < N; ++k) add(p.v[k], Acc::of(q.v[k]));
        });
}

// The production kernel's launch record (device memory, written once per launch plan): the
// number of samples, its histogram copies per block and packet aggregation, and its finish: the accumulator the blocks
// add into and the last-block ticket, both zero between launches, the bin edges the last block
// copies to the caller's edges array, and where the first and last non-zero bin go (host-visible
// memory that the host polls: bincount's result length).
struct HistLaunch {
    void* acc;  // Global[nbins]; null: the blocks add into `out` directly
    unsigned int* ticket;  // blocks done
    const unsigned int* edges;  // edge_words 4-byte words
    long long edge_words;  // 0: no edges to copy
    long long* extent;  // null, or {first, last} non-zero bin ({-1, -1}: every bin
    // zero), then extent[2] = 1 once those two are visible
    long long n;  // samples
    int replicas;  // histogram copies per block
    int aggregate;  // != 0: add_packet
};

// Called by every thread after its block's merge into f.acc. The block that takes the last
// ticket moves the accumulator to `out`, zeroes it, copies the edges, writes the extent and
// resets the ticket. `scratch`: 4 ints of shared memory the caller no longer uses.
template <int BLOCK, class G>
__device__ __forceinline__ void finish_histogram(const HistLaunch& f, int nbins, G* out,
                                                 unsigned char* edges_out, int* scratch) {
    __threadfence();  // this thread's additions are visible device-wide before the ticket
    __syncthreads();  // ... and every thread's; the shared histograms are no longer read
    if (threadIdx.x == 0) {
        scratch[0] = atomicAdd(f.ticket, 1u) == gridDim.x - 1;
        __threadfence();
        scratch[1] = Limits<int>::max();
        scratch[2] = -1;
    }
    __syncthreads();
    if (!scratch[0]) return;  // block-uniform: only the last block goes on
    G* acc = static_cast<G*>(f.acc);
    int lo = Limits<int>::max(), hi = -1;
    for (int b = threadIdx.x; b < nbins; b += BLOCK) {
        const G v = __ldcg(acc + b);
        out[b] = v;
        acc[b] = G(0);
        if (v != G(0)) {
            lo = lo < b ? lo : b;
            hi = b;  // b increases along a thread's loop
        }
    }
    unsigned int* words = reinterpret_cast<unsigned int*>(edges_out);
    for (long long w = threadIdx.x; w < f.edge_words; w += BLOCK) words[w] = __ldg(f.edges + w);
    if (f.extent) {  // uniform across the block
        lo = warp_reduce(lo, Min<int>());
        hi = warp_reduce(hi, Max<int>());
        if (threadIdx.x % WARP == 0) {
            atomicMin(scratch + 1, lo);
            atomicMax(scratch + 2, hi);
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            f.extent[0] = scratch[2] < 0 ? -1 : scratch[1];
            f.extent[1] = scratch[2];
            __threadfence_system();  // the host sees the pair before the flag
            f.extent[2] = 1;
        }
    }
    if (threadIdx.x == 0) *f.ticket = 0u;
}

}  // namespace prim

// ---- 1. global atomics, contiguous sections (uncoalesced) ---------------------------------------
template <class T, class Binner, class Acc>
__global__ void hist_global_contiguous(const T* __restrict__ in, long long n,
                                       const typename Acc::Weight* __restrict__ weights,
                                       const prim::BinSpec* __restrict__ spec,
                                       typename Acc::Global* __restrict__ out) {
    typedef typename Acc::Global G;
    const prim::HistStart<Binner> start(*spec);
    const Binner bin = start.bin;
    const int nbins = start.nbins;
    const long long section = (n + prim::global_threads() - 1) / prim::global_threads();
    const long long begin = prim::global_thread() * section;
    const long long end = begin + section < n ? begin + section : n;
    for (long long i = begin; i < end; ++i) {
        const int b = bin(in[i]);
        if (b >= 0) atomicAdd(out + b, static_cast<G>(Acc::value(weights, i)));
    }
}

// ---- 2. global atomics, interleaved (grid-stride, coalesced) -----------------------------------
template <class T, class Binner, class Acc>
__global__ void hist_global_interleaved(const T* __restrict__ in, long long n,
                                        const typename Acc::Weight* __restrict__ weights,
                                        const prim::BinSpec* __restrict__ spec,
                                        typename Acc::Global* __restrict__ out) {
    typedef typename Acc::Global G;
    const prim::HistStart<Binner> start(*spec);
    const Binner bin = start.bin;
    const int nbins = start.nbins;
    for (long long i = prim::global_thread(); i < n; i += prim::global_threads()) {
        const int b = bin(in[i]);
        if (b >= 0) atomicAdd(out + b, static_cast<G>(Acc::value(weights, i)));
    }
}

// ---- 3. privatized: a shared-memory histogram per block, one sample per thread -----------------
template <class T, class Binner, class Acc>
__global__ void hist_privatized(const T* __restrict__ in, long long n,
                                const typename Acc::Weight* __restrict__ weights,
                                const prim::BinSpec* __restrict__ spec,
                                typename Acc::Global* __restrict__ out) {
    typedef typename Acc::Shared S;
    PRIM_DYNAMIC_SHARED(S, h);
    const prim::HistStart<Binner> start(*spec);
    const Binner bin = start.bin;
    const int nbins = start.nbins;
    start.zero(h, nbins);
    const long long i = prim::global_thread();
    if (i < n) {
        const int b = bin(in[i]);
        if (b >= 0) atomicAdd(h + b, Acc::value(weights, i));
    }
    __syncthreads();
    prim::merge_shared(h, nbins, out);
}

// ---- 4. coarsened: privatized, machine-sized grid, many samples per thread ---------------------
template <class T, class Binner, class Acc>
__global__ void hist_coarsened_contiguous(const T* __restrict__ in, long long n,
                                          const typename Acc::Weight* __restrict__ weights,
                                          const prim::BinSpec* __restrict__ spec,
                                          typename Acc::Global* __restrict__ out) {
    typedef typename Acc::Shared S;
    PRIM_DYNAMIC_SHARED(S, h);
    const prim::HistStart<Binner> start(*spec);
    const Binner bin = start.bin;
    const int nbins = start.nbins;
    start.zero(h, nbins);
    const long long section = (n + prim::global_threads() - 1) / prim::global_threads();
    const long long begin = prim::global_thread() * section;
    const long long end = begin + section < n ? begin + section : n;
    for (long long i = begin; i < end; ++i) {
        const int b = bin(in[i]);
        if (b >= 0) atomicAdd(h + b, Acc::value(weights, i));
    }
    __syncthreads();
    prim::merge_shared(h, nbins, out);
}

template <class T, class Binner, class Acc>
__global__ void hist_coarsened_interleaved(const T* __restrict__ in, long long n,
                                           const typename Acc::Weight* __restrict__ weights,
                                           const prim::BinSpec* __restrict__ spec,
                                           typename Acc::Global* __restrict__ out) {
    typedef typename Acc::Shared S;
    PRIM_DYNAMIC_SHARED(S, h);
    const prim::HistStart<Binner> start(*spec);
    const Binner bin = start.bin;
    const int nbins = start.nbins;
    start.zero(h, nbins);
    for (long long i = prim::global_thread(); i < n; i += prim::global_threads()) {
        const int b = bin(in[i]);
        if (b >= 0) atomicAdd(h + b, Acc::value(weights, i));
    }
    __syncthreads();
    prim::merge_shared(h, nbins, out);
}

// ---- 5. aggregated: coarsened interleaved + run aggregation -------------------------------------
template <class T, class Binner, class Acc>
__global__ void hist_aggregated(const T* __restrict__ in, long long n,
                                const typename Acc::Weight* __restrict__ weights,
                                const prim::BinSpec* __restrict__ spec,
                                typename Acc::Global* __restrict__ out) {
    typedef typename Acc::Shared S;
    PRIM_DYNAMIC_SHARED(S, h);
    const prim::HistStart<Binner> start(*spec);
    const Binner bin = start.bin;
    const int nbins = start.nbins;
    start.zero(h, nbins);
    prim::RunLength<S> run;
    for (long long i = prim::global_thread(); i < n; i += prim::global_threads())
        run.add(h, bin(in[i]), Acc::value(weights, i));
    run.flush(h);
    __syncthreads();
    prim::merge_shared(h, nbins, out);
}

// ---- 6. production: replicated shared histograms, 16-byte loads, packet aggregation -------------
template <class T, class Binner, class Acc, int BLOCK, int VECS, int STAGES>
__global__ void __launch_bounds__(BLOCK)
    hist_warp_replicated(const T* __restrict__ in, const typename Acc::Weight* __restrict__ weights,
                         const prim::BinSpec* __restrict__ spec,
                         const prim::HistLaunch* __restrict__ launch,
                         typename Acc::Global* __restrict__ out,
                         unsigned char* __restrict__ edges_out) {
    typedef typename Acc::Shared S;
    typedef typename Acc::Global G;
    PRIM_DYNAMIC_SHARED(S, smem);
    const prim::HistStart<Binner> start(*spec);
    const Binner bin = start.bin;
    const int nbins = start.nbins;
    const prim::HistLaunch f = *launch;
    const long long n = f.n;
    const int replicas = f.replicas;
    // copies interleaved bin by bin: counter (b, copy) at (b + 1) * replicas + copy, row 0 the
    // dropped samples' slots; 32 copies: lane l counts into copy l (bank l, no conflicts)
    start.zero(smem, replicas * (nbins + 1));
    const int copy = replicas == prim::WARP ? static_cast<int>(threadIdx.x % prim::WARP)
                                            : static_cast<int>(threadIdx.x / prim::WARP) % replicas;
    S* h = smem + replicas + copy;
    const long long tid = prim::global_thread(), nthreads = prim::global_threads();
    // the staging slots of the async walk (STAGES > 0): after the counters, 16-byte aligned
    uint4* const stage = reinterpret_cast<uint4*>(
        reinterpret_cast<unsigned char*>(smem) +
        ((static_cast<long long>(replicas) * (nbins + 1) * sizeof(S) + 15) & ~15ll));
    auto one = [&](T x, long long i) {
        atomicAdd(h + bin(x) * replicas, Acc::value(weights, i));  // bin -1: row 0
    };
    if constexpr (Acc::WEIGHTED) {  // each packet's weights loaded beside it
        prim::add_weighted<Acc, VECS>(in, weights, n, tid, nthreads, [&](T x, S w) {
            atomicAdd(h + bin(x) * replicas, w);  // bin -1: row 0
        });
    } else if (f.aggregate) {
        prim::for_each_packet_staged<STAGES, VECS>(
            in, n, tid, nthreads, stage, one,
            [&](const prim::Pack16<T>& p, long long) { prim::add_packet(h, p.v, bin, replicas); });
    } else {
        auto each = [&](const prim::Pack16<T>& p, long long) {
#pragma unroll
            for (int k = 0; k < prim::Pack16<T>::N; ++k) one(p.v[k], 0);
        };
        prim::for_each_packet_staged<STAGES, VECS>(in, n, tid, nthreads, stage, one, each);
    }
    __syncthreads();
    // fold the replicas and merge: one global atomic per non-zero bin per block
    G* const dst = f.acc ? static_cast<G*>(f.acc) : out;
    for (int b = threadIdx.x; b < nbins; b += BLOCK) {
        S v = S(0);
        for (int r = 0; r < replicas; ++r) v += smem[(b + 1) * replicas + r];
        if (v != S(0)) atomicAdd(dst + b, static_cast<G>(v));
    }
    if (f.acc)
        prim::finish_histogram<BLOCK>(f, nbins, out, edges_out, reinterpret_cast<int*>(smem));
}

// ---- 8. partial privatization: the bins that fit in shared memory, the rest global -------------
template <class T, class Binner, class Acc, int BLOCK, int VECS>
__global__ void __launch_bounds__(BLOCK)
    hist_partial_privatized(const T* __restrict__ in, long long n,
                            const typename Acc::Weight* __restrict__ weights,
                            const prim::BinSpec* __restrict__ spec, int shared_bins, int packed,
                            typename Acc::Global* __restrict__ out) {
    typedef typename Acc::Shared S;
    typedef typename Acc::Global G;
    PRIM_DYNAMIC_SHARED(S, h);
    const prim::HistStart<Binner> start(*spec);
    const Binner bin = start.bin;
    const int nbins = start.nbins;
    const bool pk = !Acc::WEIGHTED && packed;  // 16-bit counters, two a word (prim::Packed16)
    start.zero(h, pk ? static_cast<int>(prim::Packed16::words(shared_bins)) : shared_bins);
    const long long tid = prim::global_thread(), nthreads = prim::global_threads();
    auto add = [&](T x, S w) {
        const int b = bin(x);
        if (b < 0) return;
        if (b >= shared_bins)
            atomicAdd(out + b, static_cast<G>(w));
        else if (pk)
            prim::Packed16::add(reinterpret_cast<prim::u32*>(h), b, shared_bins, out);
        else
            atomicAdd(h + b, w);
    };
    auto one = [&](T x, long long i) { add(x, Acc::value(weights, i)); };
    if constexpr (Acc::WEIGHTED) {
        prim::add_weighted<Acc, VECS>(in, weights, n, tid, nthreads, add);
    } else if (pk && packed == 2) {  // bounded: adds that return nothing, settled in rounds
        if constexpr (!Acc::WEIGHTED) {
            constexpr int N = prim::Pack16<T>::N;
            constexpr long long ROOM = prim::Packed16::ROUND - 2 * N;  // the head's and tail's
            constexpr int P = static_cast<long long>(BLOCK) * N * VECS <= ROOM ? VECS : 1;
            static_assert(static_cast<long long>(BLOCK) * N * P <= ROOM, "a round past 32,768");
            constexpr int EVERY = static_cast<int>(ROOM / (static_cast<long long>(BLOCK) * N * P));
            prim::u32* h32 = reinterpret_cast<prim::u32*>(h);
            auto count = [&](int b) {  // a bin (or -1, dropped) counted
                if (b < 0) return;
                if (b >= shared_bins)
                    atomicAdd(out + b, G(1));
                else
                    prim::Packed16::add_quiet(h32, b);
            };
            prim::for_each_packet_rounds<P, EVERY>(
                in, n, tid, nthreads, [&](T x, long long) { count(bin(x)); },
                [&](const prim::Pack16<T>& p, long long) {
                    int b[N];
                    prim::bin_many(bin, p.v, b);
#pragma unroll
                    for (int k = 0; k < N; ++k) count(b[k]);
                },
                [&]() {
                    __syncthreads();
                    prim::Packed16::settle(h32, shared_bins, out);
                    __syncthreads();
                });
        }
    } else if (pk) {  // a packet's shared atomics issued together (Packed16::add_n)
        constexpr int N = prim::Pack16<T>::N;
        prim::for_each_packet<VECS>(
            in, n, tid, nthreads, one, [&](const prim::Pack16<T>& p, long long) {
                int b[N];
                prim::bin_many(bin, p.v, b);  // the packet's edge loads in flight together
                prim::packed_count(reinterpret_cast<prim::u32*>(h), b, shared_bins, out);
            });
    } else {
        prim::for_each_packet<VECS>(in, n, tid, nthreads, one,
                                    [&](const prim::Pack16<T>& p, long long i0) {
#pragma unroll
                                        for (int k = 0; k < prim::Pack16<T>::N; ++k)
                                            one(p.v[k], i0 + k);
                                    });
    }
    __syncthreads();
    if (pk)
        prim::Packed16::merge(reinterpret_cast<const prim::u32*>(h), shared_bins, out);
    else
        prim::merge_shared(h, shared_bins, out);
}

// ---- 8'. the fully global fallback: 16-byte loads, a global atomic per sample ------------------
template <class T, class Binner, class Acc, int BLOCK, int VECS>
__global__ void __launch_bounds__(BLOCK)
    hist_global_vectorized(const T* __restrict__ in, long long n,
                           const typename Acc::Weight* __restrict__ weights,
                           const prim::BinSpec* __restrict__ spec,
                           typename Acc::Global* __restrict__ out) {
    typedef typename Acc::Global G;
    const prim::HistStart<Binner> start(*spec);
    const Binner bin = start.bin;
    const int nbins = start.nbins;
    const long long tid = prim::global_thread(), nthreads = prim::global_threads();
    auto add = [&](T x, typename Acc::Shared w) {
        const int b = bin(x);
        if (b >= 0) atomicAdd(out + b, static_cast<G>(w));
    };
    auto one = [&](T x, long long i) { add(x, Acc::value(weights, i)); };
    if constexpr (Acc::WEIGHTED) {
        prim::add_weighted<Acc, VECS>(in, weights, n, tid, nthreads, add);
    } else {
        prim::for_each_packet<VECS>(in, n, tid, nthreads, one,
                                    [&](const prim::Pack16<T>& p, long long i0) {
#pragma unroll
                                        for (int k = 0; k < prim::Pack16<T>::N; ++k)
                                            one(p.v[k], i0 + k);
                                    });
    }
}

// ---- 7. sort then reduce by key: every sample's bin as a sort key -------------------------------
template <class T, class Binner, class Acc>
__global__ void hist_bin_keys(const T* __restrict__ in, long long n,
                              const prim::BinSpec* __restrict__ spec,
                              unsigned int* __restrict__ keys) {
    const prim::HistStart<Binner> start(*spec);
    const Binner bin = start.bin;
    const unsigned dropped = static_cast<unsigned>(start.nbins);
    for (long long i = prim::global_thread(); i < n; i += prim::global_threads()) {
        const int b = bin(in[i]);
        keys[i] = b >= 0 ? static_cast<unsigned>(b) : dropped;
    }
}

// ---- 9. bucketed: the bins by ranges of 65,536, each range then counted in shared memory -------
namespace prim {
// Bins of one bucket (the bin's high bits are its bucket, its low 16 bits its place in it), and
// the most buckets a launch takes (bins up to 2^24; a bucket's number fits in a byte).
constexpr int BUCKET_BITS = 16;
constexpr int MAX_BUCKETS = 256;

// Samples a thread of hist_bucket_scatter bins per tile: VECS 16-byte loads' worth, at most 8
// (the tile's staging stays within 24 KiB at 1024 threads).
template <class T, int VECS> struct BucketItems {
    static constexpr int raw = VECS * static_cast<int>(16 / sizeof(T));
    static constexpr int value = raw < 1 ? 1 : (raw > 8 ? 8 : raw);
};

// out[0..nb): the exclusive prefix sums of v[0..nb) (nb <= MAX_BUCKETS), each thread taking
// ceil(MAX_BUCKETS / BLOCK) consecutive ones; returns the total to every thread. `scratch`: BLOCK
// / 32 values. Called by the whole block (block_exclusive_scan's two barriers); a barrier must
// come before another thread's entries of `out` are read.
template <int BLOCK, class T>
__device__ __forceinline__ T bucket_scan(const T* v, int nb, T* out, T* scratch) {
    constexpr int PER = (MAX_BUCKETS + BLOCK - 1) / BLOCK;
    const int first = static_cast<int>(threadIdx.x) * PER;
    T mine[PER];
    T sum = T(0);
#pragma unroll
    for (int j = 0; j < PER; ++j) {
        mine[j] = first + j < nb ? v[first + j] : T(0);
        sum += mine[j];
    }
    T total;
    T run = block_exclusive_scan<BLOCK>(sum, Sum<T>(), scratch, total);
#pragma unroll
    for (int j = 0; j < PER; ++j) {
        if (first + j < nb) out[first + j] = run;
        run += mine[j];
    }
    return total;
}

// off[0..nb]: the exclusive prefix of sizes[0..nb) (off[nb] their total), in shared memory, for
// every thread of the block. `scratch` holds BLOCK / 32 values. Called by the whole block
// (barriers inside and after).
template <int BLOCK>
__device__ __forceinline__ void bucket_offsets(const u64* sizes, int nb, u64* off, u64* scratch) {
    const u64 total = bucket_scan<BLOCK>(sizes, nb, off, scratch);
    if (threadIdx.x == 0) off[nb] = total;
    __syncthreads();
}
}  // namespace prim

// Two passes over the samples, each binning them alike, in tiles of BLOCK * ITEMS samples (a
// block takes tiles blockIdx.x, + gridDim.x, ...; a full tile of 16-byte aligned samples by
// ITEMS / N 16-byte loads a thread, where ITEMS is a multiple of N; else ITEMS scalar loads):
//   phase 0: the samples of each bucket: sizes[b] += the kept samples whose bin >> 16 is b.
//   phase 1: each tile's samples grouped by bucket in shared memory (a shared atomic per sample
//            gives its rank in its bucket; a block scan places the buckets), each bucket's group
//            given its place in the bucket's region of `dst` by one global atomic on
//            cursors[b], then written there as 16-bit low bins, coalesced. The regions follow
//            one another in bucket order (the prefix of sizes); within one, tiles land in the
//            order they reserved.
// Scratch: sizes[nb] then cursors[nb] (u64), zero before phase 0 and unchanged in between;
// dst: sum(sizes) 16-bit values. Counts only (Acc is CountAcc; its name keeps the variants'
// instantiation scheme). Launch: blockDim.x == BLOCK, any grid (a resident one), static shared
// memory only (24 KiB of staging at most at BLOCK 1024); bins <= 2^24.
template <class T, class Binner, class Acc, int BLOCK, int VECS>
__global__ void __launch_bounds__(BLOCK)
    hist_bucket_scatter(const T* __restrict__ in, long long n,
                        const prim::BinSpec* __restrict__ spec, int phase,
                        unsigned long long* __restrict__ scratch,
                        unsigned short* __restrict__ dst) {
    static_assert(!Acc::WEIGHTED, "bucketed histograms count samples");
    constexpr int ITEMS = prim::BucketItems<T, VECS>::value;
    constexpr int N = prim::Pack16<T>::N;  // samples of a 16-byte vector
    constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
    typedef unsigned long long u64;
    __shared__ unsigned int count[prim::MAX_BUCKETS];
    __shared__ unsigned int start[prim::MAX_BUCKETS];
    __shared__ u64 base[prim::MAX_BUCKETS];
    __shared__ u64 region[prim::MAX_BUCKETS + 1];
    __shared__ u64 wide[BLOCK / prim::WARP];
    __shared__ unsigned int narrow[BLOCK / prim::WARP];
    __shared__ unsigned short low[TILE];
    __shared__ unsigned char owner[TILE];
    const prim::HistStart<Binner> hs(*spec);
    const Binner bin = hs.bin;
    const int nb = (hs.nbins + (1 << prim::BUCKET_BITS) - 1) >> prim::BUCKET_BITS;
    u64* sizes = scratch;
    u64* cursors = scratch + nb;
    const int t = threadIdx.x;
    const bool aligned = (reinterpret_cast<prim::uptr>(in) & 15u) == 0;  // uniform in the grid
    for (int b = t; b < nb; b += BLOCK) count[b] = 0u;
    if (phase == 1) prim::bucket_offsets<BLOCK>(sizes, nb, region, wide);
    __syncthreads();
    const long long tiles = (n + TILE - 1) / TILE;
    for (long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {  // uniform in the block
        const long long first = tile * TILE;
        T x[ITEMS];
        int bk[ITEMS];
        bool whole = false;  // the tile's samples by 16-byte vectors (an aligned, full tile)
        if constexpr (ITEMS % N == 0) {
            whole = aligned && first + TILE <= n;
            if (whole) {
#pragma unroll
                for (int u = 0; u < ITEMS / N; ++u) {
                    const prim::Pack16<T> p =
                        prim::load_pack16(in + first + (static_cast<long long>(u) * BLOCK + t) * N);
#pragma unroll
                    for (int k = 0; k < N; ++k) x[u * N + k] = p.v[k];
                }
            }
        }
        if (!whole) {  // sample j * BLOCK + t of the tile
#pragma unroll
            for (int j = 0; j < ITEMS; ++j) {
                const long long i = first + static_cast<long long>(j) * BLOCK + t;
                if (i < n) x[j] = in[i];
            }
        }
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {  // samples past n (a partial tile's) dropped
            const bool in_range = whole || first + static_cast<long long>(j) * BLOCK + t < n;
            bk[j] = in_range ? prim::bin_many(bin, x[j]) : -1;
        }
        if (phase == 0) {
#pragma unroll
            for (int j = 0; j < ITEMS; ++j)
                if (bk[j] >= 0) atomicAdd(count + (bk[j] >> prim::BUCKET_BITS), 1u);
            continue;
        }
        unsigned int rank[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; ++j)
            rank[j] = bk[j] >= 0 ? atomicAdd(count + (bk[j] >> prim::BUCKET_BITS), 1u) : 0u;
        __syncthreads();
        const unsigned int kept = prim::bucket_scan<BLOCK>(count, nb, start, narrow);
        for (int b = t; b < nb; b += BLOCK) {  // each bucket's group's place in its region
            const unsigned int c = count[b];
            if (c) base[b] = region[b] + atomicAdd(cursors + b, static_cast<u64>(c));
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            if (bk[j] < 0) continue;
            const int b = bk[j] >> prim::BUCKET_BITS;
            const unsigned int p = start[b] + rank[j];
            low[p] = static_cast<unsigned short>(bk[j] & ((1 << prim::BUCKET_BITS) - 1));
            owner[p] = static_cast<unsigned char>(b);
        }
        __syncthreads();
        for (unsigned int p = t; p < kept; p += BLOCK) {
            const int b = owner[p];
            dst[base[b] + (p - start[b])] = low[p];
        }
        __syncthreads();  // the next tile's counts, ranks and staging
        for (int b = t; b < nb; b += BLOCK) count[b] = 0u;
        __syncthreads();
    }
    if (phase == 0) {
        __syncthreads();
        for (int b = t; b < nb; b += BLOCK)
            if (count[b]) atomicAdd(sizes + b, static_cast<u64>(count[b]));
    }
}

// Counts the 16-bit low bins that hist_bucket_scatter wrote: the regions of every bucket, one
// after another (sizes[nb], as scatter's), cut into gridDim.x equal slices; a block counts each
// bucket's part of its slice (read by for_each_packet over the block: 16-byte loads of eight
// values) in 16-bit shared counters (65,536 bins in 128 KiB), then adds the
// non-zero ones to out[b * 65536 + bin] with global atomics, and goes on to the next bucket.
// BOUNDED false: prim::Packed16's adds, each returning its word so that the add that wraps a
// field hands 65536 to `out`. BOUNDED true: adds that return nothing, in rounds of at most 32,768
// samples of the block; between rounds (a barrier) every field of 0x8000 or more hands 0x8000 to
// `out`, so each field is below 0x8000 when a round starts and below 0x10000 when it ends: no
// field wraps. out: nbins u64 counters, zero on entry (the result). Launch: blockDim.x == BLOCK,
// any grid; dynamic shared memory Packed16::words(65536) 4-byte words; nb <= 256.
template <int BLOCK, bool BOUNDED>
__global__ void __launch_bounds__(BLOCK)
    hist_bucket_tally(const unsigned short* __restrict__ vals,
                      const unsigned long long* __restrict__ sizes, int nbins,
                      unsigned long long* __restrict__ out) {
    typedef unsigned long long u64;
    constexpr long long ROUND = prim::Packed16::ROUND;  // BOUNDED: a block's values a round
    PRIM_DYNAMIC_SHARED(prim::u32, h);
    __shared__ u64 region[prim::MAX_BUCKETS + 1];
    __shared__ u64 wide[BLOCK / prim::WARP];
    const int nb = (nbins + (1 << prim::BUCKET_BITS) - 1) >> prim::BUCKET_BITS;
    prim::bucket_offsets<BLOCK>(sizes, nb, region, wide);
    const u64 total = region[nb];
    const u64 slice = (total + gridDim.x - 1) / gridDim.x;
    const u64 lo = slice * blockIdx.x < total ? slice * blockIdx.x : total;
    const u64 hi = lo + slice < total ? lo + slice : total;
    const long long t = threadIdx.x;
    for (int b = 0; b < nb; ++b) {  // uniform in the block
        const u64 s = lo > region[b] ? lo : region[b];
        const u64 e = hi < region[b + 1] ? hi : region[b + 1];
        if (s >= e) continue;
        const long long left = static_cast<long long>(nbins) - (static_cast<long long>(b) << 16);
        const long long bins = left < 65536 ? left : 65536;
        u64* o = out + (static_cast<long long>(b) << prim::BUCKET_BITS);
        const int words = static_cast<int>(prim::Packed16::words(bins));
        for (int w = threadIdx.x; w < words; w += BLOCK) h[w] = 0u;
        __syncthreads();
        const long long end = static_cast<long long>(e);
        // the block's part of a range by for_each_packet over its threads: a scalar head to the
        // first 16-byte boundary, packets of eight bins (two in flight a thread), a scalar tail
        if constexpr (BOUNDED) {
            auto one = [&](unsigned short x, long long) { prim::Packed16::add_quiet(h, x); };
            auto eight = [&](const prim::Pack16<unsigned short>& p, long long) {
#pragma unroll
                for (int k = 0; k < 8; ++k) prim::Packed16::add_quiet(h, p.v[k]);
            };
            for (long long r = static_cast<long long>(s); r < end; r += ROUND) {  // uniform
                const long long stop = r + ROUND < end ? r + ROUND : end;
                prim::for_each_packet<2>(vals + r, stop - r, t, BLOCK, one, eight);
                __syncthreads();
                if (stop == end) break;  // the merge below takes what is left
                prim::Packed16::settle(h, bins, o);
                __syncthreads();
            }
        } else {
            auto one = [&](unsigned short x, long long) { prim::Packed16::add(h, x, bins, o); };
            auto eight = [&](const prim::Pack16<unsigned short>& p, long long) {
                long long b[8];
#pragma unroll
                for (int k = 0; k < 8; ++k) b[k] = p.v[k];
                prim::Packed16::add_n(h, b, bins, o);  // the eight atomics issued together
            };
            const long long from = static_cast<long long>(s);
            prim::for_each_packet<2>(vals + from, end - from, t, BLOCK, one, eight);
            __syncthreads();
        }
        prim::Packed16::merge(h, bins, o);
        __syncthreads();
    }
}

// ---- minimum and maximum (autodetected ranges, bincount's length and sign check) ----------------
namespace prim {
// What hist_minmax reduces: small integers widened to int, float32 as order keys (exact under
// flush-to-zero; a NaN shows as a key beyond the infinities' keys), other types themselves.
template <class T> struct MinMaxOf {
    typedef T type;
    static __device__ __forceinline__ T of(T x) { return x; }
};
template <> struct MinMaxOf<float> {
    typedef int type;
    static __device__ __forceinline__ int of(float x) { return Order<float>::key(x); }
};
#define PRIM_MINMAX_AS_INT(T)                                                         \
    template <> struct MinMaxOf<T> {                                                  \
        typedef int type;                                                             \
        static __device__ __forceinline__ int of(T x) { return static_cast<int>(x); } \
    };
PRIM_MINMAX_AS_INT(signed char)
PRIM_MINMAX_AS_INT(unsigned char)
PRIM_MINMAX_AS_INT(short)
PRIM_MINMAX_AS_INT(unsigned short)
#undef PRIM_MINMAX_AS_INT
}  // namespace prim

template <class T, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    hist_minmax(const T* __restrict__ in, long long n,
                typename prim::MinMaxOf<T>::type* __restrict__ partials) {
    typedef typename prim::MinMaxOf<T>::type A;
    __shared__ A scratch[BLOCK / prim::WARP];
    const prim::Min<A> mn;
    const prim::Max<A> mx;
    A lo = prim::Min<A>::identity(), hi = prim::Max<A>::identity();
    auto add = [&](T x) {
        const A a = prim::MinMaxOf<T>::of(x);
        lo = mn(lo, a);
        hi = mx(hi, a);
    };
    prim::for_each_packet<2>(
        in, n, prim::global_thread(), prim::global_threads(), [&](T x, long long) { add(x); },
        [&](const prim::Pack16<T>& p, long long) {
#pragma unroll
            for (int k = 0; k < prim::Pack16<T>::N; ++k) add(p.v[k]);
        });
    lo = prim::block_reduce<BLOCK>(lo, mn, scratch);
    __syncthreads();  // scratch is reused
    hi = prim::block_reduce<BLOCK>(hi, mx, scratch);
    if (threadIdx.x == 0) {
        partials[2 * blockIdx.x] = lo;
        partials[2 * blockIdx.x + 1] = hi;
    }
}

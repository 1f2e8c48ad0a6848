// dd.cu -- multi-dimensional histograms (histogramdd, histogram2d) in one pass over the samples.
//
// hist_dd<T, Binner, Acc, D, BLOCK>: every sample of D coordinates (T each) is binned in each
// dimension by that dimension's binner (histograms/bins.cuh: Binner built from its own BinSpec
// record, specs[j] for dimension j; one binner type for all dimensions, each with its own edges)
// and its D bins make one linear bin, row-major over the per-dimension bin counts
// (((b0 * n1 + b1) * n2 + b2) ..., as numpy.ravel_multi_index); a sample dropped in any dimension
// (out of range, NaN) is dropped. The linear bins [0, shared_bins) are counted in a block-private
// histogram in shared memory, merged into `out` with one global atomic per non-zero counter at
// the end; bins from shared_bins on (histograms larger than shared memory, e.g. 256 x 256 int32
// counters = 256 KiB) go to `out` with global atomics directly (the 1-D family's partial
// privatization). With `packed` (counts only) the shared counters are 16 bits, two a word
// (histograms/bins.cuh: Packed16): 256 x 256 bins in 128 KiB; packed 2 (the packet walk only):
// adds that return nothing, the packet groups walked in rounds uniform in the grid, the fields
// past 0x7fff settled between them every 32,768 samples of a block or fewer (Packed16::settle).
//   D = 1, 2, 3: the dimensions unrolled (DDChain: each binner in registers, the later dimensions
//     not binned once one drops the sample). With `vec` set (counts only), a packet of
//     P = 16 / sizeof(T) samples is read with D 16-byte loads: D consecutive packets of the
//     C-ordered (N, D) array (`rows`), or one packet of each column, and kept as D 16-byte words
//     (word j: the coordinates j); two such groups a thread an iteration, binned and counted up
//     to 8 samples at a time (16 8-bit samples a group: their linear bins stay in registers),
//     the next iteration's two loaded before them (the bounded rounds: two groups' loads in
//     flight); the tail sample by sample.
//   D = 0: any number of dimensions `dims` (1 to DD_MAX): a loop over the dimensions, each
//     binner built from its record per sample; scalar loads.
// Samples: sample i, dimension j at cols[j][i * strides[j]] (strides in elements, may be any
// sign): an (N, D) array of any strides, or D separate 1-D arrays, read where they lie.
// Accumulation: CountF64Acc (32-bit shared counters, added into double global ones: the
// float64 counts histogramdd returns, with no conversion after the kernel) or WeightAcc<double>
// (float64 weights summed in double; read with scalar loads, grid-stride).
// Launch: 1-D, blockDim.x == BLOCK, any grid (grid-stride; the host sizes it to the resident
// blocks, and at least n / 2^31 blocks so that a block counts fewer than 2^32 samples).
// Dynamic shared memory: shared_bins * sizeof(Acc::Shared) (packed: Packed16::words(shared_bins)
// 4-byte words).
// Preconditions: `out` holds the product of the bin counts, zeroed; 0 <= shared_bins <= that
// product; the product fits in 63 bits; with `vec`: every column (rows: cols[0]) 16-byte
// aligned, strides 1 (rows: cols[j] = cols[0] + j, strides D); `weights` holds n values when
// Acc is WeightAcc<double>.
#include "util/prim.cuh"
#include "util/thread.cuh"
#include "util/pack16.cuh"
#include "histograms/bins.cuh"

namespace prim {

constexpr int DD_MAX = 32;

// Where the samples lie (device memory, written by the host; 2 * DD_MAX + 1 64-bit words).
struct DDSamples {
    const void* cols[DD_MAX];  // dimension j's first coordinate
    long long strides[DD_MAX];  // elements between consecutive samples of dimension j
    int rows;                  // the C-ordered (N, D) array: cols[j] = cols[0] + j
    int vec;                   // the 16-byte packet walk may be used
};

// CountAcc's counting (one per sample, 32-bit shared counters) into double global counters.
// Exact: a count and every sum of counts stays below 2^53, where a double holds an integer
// exactly, so the atomic adds give the int64 counts' values in any order.
struct CountF64Acc {
    typedef u32 Shared;
    typedef double Global;
    static constexpr bool WEIGHTED = false;
    static __device__ __forceinline__ Shared value(const double*, i64) { return 1u; }
};

// Binners of the dimensions J..D-1: bin(x) is the row-major linear bin of x[0..D) given the
// linear bin `lin` of the dimensions before J, or -1 when a dimension drops the sample.
template <class Binner, int J, int D> struct DDChain {
    Binner bin;
    long long nb;
    DDChain<Binner, J + 1, D> rest;
    __device__ __forceinline__ explicit DDChain(const BinSpec* s)
        : bin(s[J]),
          nb(s[J].nbins),
          rest(s) {}
    template <class T>
    __device__ __forceinline__ long long operator()(const T (&x)[D], long long lin) const {
        const int b = bin(x[J]);
        if (b < 0) return -1;
        return rest(x, lin * nb + b);
    }
};
template <class Binner, int D> struct DDChain<Binner, D, D> {
    __device__ __forceinline__ explicit DDChain(const BinSpec*) {}
    template <class T>
    __device__ __forceinline__ long long operator()(const T (&)[D], long long lin) const {
        return lin;
    }
};

}  // namespace prim

template <class T, class Binner, class Acc, int D, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    hist_dd(const prim::DDSamples* __restrict__ where, long long n,
            const double* __restrict__ weights, const prim::BinSpec* __restrict__ specs, int dims,
            int shared_bins, int packed, typename Acc::Global* __restrict__ out) {
    typedef typename Acc::Shared S;
    typedef typename Acc::Global G;
    PRIM_DYNAMIC_SHARED(S, h);
    const bool pk = !Acc::WEIGHTED && packed;  // 16-bit counters, two a word (prim::Packed16)
    prim::HistStart<Binner>::template zero<BLOCK>(
        h, pk ? static_cast<int>(prim::Packed16::words(shared_bins)) : shared_bins);
    const long long tid = prim::global_thread(), nthreads = prim::global_threads();
    auto add = [&](long long lin, long long i) {
        if (lin < 0) return;
        const S w = Acc::value(weights, i);
        if (lin >= shared_bins)
            atomicAdd(out + lin, static_cast<G>(w));
        else if (pk)
            prim::Packed16::add(reinterpret_cast<prim::u32*>(h), lin, shared_bins, out);
        else
            atomicAdd(h + lin, w);
    };
    if (D > 0) {
        constexpr int DIM = D > 0 ? D : 1;  // the arrays below for D == 0 (not taken)
        const prim::DDChain<Binner, 0, DIM> chain(specs);
        const T* col[DIM];
        long long stride[DIM];
#pragma unroll
        for (int j = 0; j < DIM; ++j) {
            col[j] = static_cast<const T*>(where->cols[j]);
            stride[j] = where->strides[j];
        }
        long long first_scalar = 0;  // the samples before it went by packets
        if (!Acc::WEIGHTED && where->vec) {
            constexpr int P = prim::Pack16<T>::N;
            const long long npk = n / P;
            const bool rows = where->rows != 0;
            // a packet group: P samples as D 16-byte words, word j holding their coordinates j
            // (an 8-bit coordinate in a register of its own would take 16 registers a word)
            typedef uint4 Group[DIM];
            auto load = [&](long long p, Group& w) {
                if (rows) {  // D consecutive packets hold samples p*P .. p*P + P - 1
                    uint4 raw[DIM];
#pragma unroll
                    for (int k = 0; k < DIM; ++k)
                        raw[k] = __ldg(reinterpret_cast<const uint4*>(col[0] + (p * DIM + k) * P));
#pragma unroll
                    for (int s = 0; s < P; ++s)
#pragma unroll
                        for (int j = 0; j < DIM; ++j) {
                            const int e = s * DIM + j;
                            reinterpret_cast<T*>(&w[j])[s] =
                                prim::pack16_elem<T>(raw[e / P], e % P);
                        }
                } else {
#pragma unroll
                    for (int j = 0; j < DIM; ++j)
                        w[j] = __ldg(reinterpret_cast<const uint4*>(col[j] + p * P));
                }
            };
            // coordinate j of the group's sample s
            auto coord = [&](const Group& w, int s, int j) -> T {
                return prim::pack16_elem<T>(w[j], s);
            };
            // the linear bins lin[t] of the samples u0 + t, t < chunk, of the groups g (sample u:
            // group u / P, sample u % P), -1 for those from `live` on (dropped); chunks of at most
            // 8 samples whatever their size, so that their linear bins stay in registers
            auto lins = [&](const Group* g, int u0, int live, int chunk, long long* lin) {
#pragma unroll
                for (int t = 0; t < chunk; ++t) {
                    const int u = u0 + t;
                    if (u >= live) {
                        lin[t] = -1;
                        continue;
                    }
                    T x[DIM];
#pragma unroll
                    for (int j = 0; j < DIM; ++j) x[j] = coord(g[u / P], u % P, j);
                    lin[t] = chain(x, 0);
                }
            };
            // two groups a thread an iteration, binned and counted K samples at a time, their
            // shared atomics issued together (the second group's dropped unless `both`)
            constexpr int M = 2;
            constexpr int K = M * P < 8 ? M * P : 8;
            auto count_chunk = [&](const Group* g, int u0, bool both) {
                long long lin[K];
                lins(g, u0, both ? M * P : P, K, lin);
                if (pk) {
                    prim::packed_count(reinterpret_cast<prim::u32*>(h), lin, shared_bins, out);
                } else {
#pragma unroll
                    for (int t = 0; t < K; ++t) add(lin[t], 0);
                }
            };
            // both groups counted, or the first alone
            auto count = [&](const Group(&g)[M], bool both) {
#pragma unroll
                for (int u0 = 0; u0 < M * P; u0 += K) count_chunk(g, u0, both);
            };
            if (pk && packed == 2) {  // bounded: adds that return nothing, settled in rounds
                constexpr long long ROOM = prim::Packed16::ROUND - P;  // the scalar tail's
                constexpr int G2 = static_cast<long long>(BLOCK) * 2 * P <= ROOM ? 2 : 1;
                static_assert(static_cast<long long>(BLOCK) * G2 * P <= ROOM, "a long round");
                constexpr int EVERY =
                    static_cast<int>(ROOM / (static_cast<long long>(BLOCK) * G2 * P));
                constexpr int KR = P < 8 ? P : 8;
                prim::u32* h32 = reinterpret_cast<prim::u32*>(h);
                prim::for_each_round<Group, G2, EVERY>(
                    npk, tid, nthreads, load,
                    [&](long long, const Group& v) {
#pragma unroll
                        for (int u0 = 0; u0 < P; u0 += KR) {
                            long long lin[KR];
                            lins(&v, u0, P, KR, lin);
#pragma unroll
                            for (int t = 0; t < KR; ++t) {
                                if (lin[t] < 0) continue;
                                if (lin[t] >= shared_bins)
                                    atomicAdd(out + lin[t], G(1));
                                else
                                    prim::Packed16::add_quiet(h32, lin[t]);
                            }
                        }
                    },
                    [&]() {
                        __syncthreads();
                        prim::Packed16::settle(h32, shared_bins, out);
                        __syncthreads();
                    });
            } else {  // two groups a thread an iteration, the next iteration's loaded first
                long long p = tid;
                if (p + nthreads < npk) {
                    Group g[M];
                    load(p, g[0]);
                    load(p + nthreads, g[1]);
                    for (;;) {
                        const long long q = p + 2 * nthreads;
                        const bool more = q + nthreads < npk;
                        Group next[M];
                        if (more) {
                            load(q, next[0]);
                            load(q + nthreads, next[1]);
                        }
                        count(g, true);
                        p = q;
                        if (!more) break;
#pragma unroll
                        for (int m = 0; m < M; ++m)
#pragma unroll
                            for (int k = 0; k < DIM; ++k) g[m][k] = next[m][k];
                    }
                }
                if (p < npk) {
                    Group a[M];
                    load(p, a[0]);
                    count(a, false);
                }
            }
            first_scalar = npk * P;
        }
        for (long long i = first_scalar + tid; i < n; i += nthreads) {
            T x[DIM];
#pragma unroll
            for (int j = 0; j < DIM; ++j) x[j] = col[j][i * stride[j]];
            add(chain(x, 0), i);
        }
    } else {
        for (long long i = tid; i < n; i += nthreads) {
            long long lin = 0;
            for (int j = 0; j < dims; ++j) {
                const prim::BinSpec& s = specs[j];
                const Binner bin(s);
                const T x = static_cast<const T*>(where->cols[j])[i * where->strides[j]];
                const int b = bin(x);
                if (b < 0) {
                    lin = -1;
                    break;
                }
                lin = lin * s.nbins + b;
            }
            add(lin, i);
        }
    }
    __syncthreads();
    if (pk) {
        prim::Packed16::merge(reinterpret_cast<const prim::u32*>(h), shared_bins, out);
        return;
    }
    for (int b = threadIdx.x; b < shared_bins; b += BLOCK) {  // merge: non-zero counters only
        const S v = h[b];
        if (v != S(0)) atomicAdd(out + b, static_cast<G>(v));
    }
}

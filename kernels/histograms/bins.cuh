// bins.cuh -- sample -> bin mappings ("binners") and accumulation policies for histograms.
//
// A binner is built once per thread from a BinSpec (an 80-byte record in device memory that the
// host writes once per binning) and maps a sample to its bin in [0, nbins) or to -1 (dropped:
// out of range, or NaN). Every histogram kernel is templated on <T, Binner, Acc> and works with
// any binner:
//   BinByte<T>      8-bit integers, 256 bins of width one over the whole type: bin = the byte
//                   (sign bit flipped for int8). bincount and uint8 images with range (0, 256).
//   BinShift<T>     integers with power-of-two integer bin widths: lo <= x <= hi, bin =
//                   (x - lo) >> shift, the top edge folded into the last bin.
//   BinLut<T>       8- and 16-bit integers: a table of 2^8 or 2^16 bins made on the host (-1 =
//                   dropped), so any edges are exact with one load.
//   BinEven<T, E>   equal-width bins over edges held in E (float or double): the position
//                   (x - first) * scale gives the bin directly unless it lies within `guard` (in
//                   bin units) of an edge, where the sample is compared with the edges themselves.
//                   The result is the bin i with edges[i] <= x < edges[i+1] (last bin closed).
//                   Float32 samples (BinEvenF32, the production float path, over float or
//                   double edges) take the position in float32 and test the range only for
//                   samples that fail the fast test.
//   BinEdges<T, C>  any monotone edges held in C: binary search over nbins + 1 edges; the sample
//                   is converted to C first (the comparison type NumPy uses).
// Exactness under flush-to-zero: CuPy compiles every kernel with -ftz=true, so float32
// arithmetic and comparisons treat subnormals as zero. Float32 comparisons are therefore made on
// order keys (Order<float>: the IEEE bits mapped to integers in value order, -0.0 and 0.0 equal,
// NaNs beyond the infinities), and float32 -> double conversions go through widen(), which
// rebuilds subnormals exactly. The keep-thresholds lo/hi are 64-bit patterns of Order<T>::type
// (two's complement integers, or double bits), so one record layout serves every T.
// Preconditions: nbins >= 1; tables and edges readable for the whole launch; BinEven's edges
// hold nbins + 1 increasing values.
//
// Accumulation policies: CountAcc adds 1 per sample (32-bit shared counters, 64-bit global);
// WeightAcc<W> adds weights[i], read as W (double, or float: float32 weights read as they are,
// widened exactly), summed in double in shared and global memory. Acc::Weight is the type of the
// kernels' `weights` pointer (CountAcc: double, never read).
//
// Packed16: 16-bit shared counters, two a 32-bit word (twice the bins of 32-bit counters in a
// block's shared memory: 65,536 in 128 KiB), counted with the native 32-bit shared atomic add
// (the float and 64-bit shared atomics are compare-and-swap loops on sm_90). A field that wraps
// hands 65536 to the bin's global counter; see Packed16 below for the carry. Kernels that walk
// their samples in rounds may instead add with no returned word (add_quiet) and settle the
// fields past 0x7fff between rounds (settle), so that none wraps.
//
// HistStart<Binner>: the start every histogram kernel shares: the record read once, the binner
// built from it, and (kernels with shared counters) the block's counters zeroed before any
// thread counts.
#pragma once
#include "util/prim.cuh"

namespace prim {

// The binning record; every field 8-byte aligned (the host packs the same layout).
struct BinSpec {
    const void* table;    // BinLut: int[2^bits]; BinEven, BinEdges: the edges
    u64 lo, hi;           // keep-thresholds, bits of Order<T>::type
    double first, scale;  // BinEven: edges[0] and nbins / (edges[nbins] - edges[0])
    double guard;  // BinEven: half-width of the band checked against the edges (bin units)
    int shift, nbins;
    // BinEvenF32: the inner edges' arithmetic (BinEvenF32::edge; emode 0: loaded)
    double estart, estep;
    int emode, unused;
};

// ---- type traits ----------------------------------------------------------------------------
// Order<T>::key(x): a value whose comparisons order samples as their values do, exactly, under
// flush-to-zero. The identity except for float (FTZ does not touch double or integer compares).
template <class T> struct Order {
    typedef T type;
    static __device__ __forceinline__ T key(T x) { return x; }
};
template <> struct Order<float> {
    typedef int type;
    static __device__ __forceinline__ int key(float x) {
        const int b = __float_as_int(x);
        return b >= 0 ? b : -(b & 0x7fffffff);
    }
};

template <class K> __device__ __forceinline__ K from_bits(u64 b) { return static_cast<K>(b); }
template <> __device__ __forceinline__ double from_bits<double>(u64 b) {
    return __longlong_as_double(static_cast<long long>(b));
}

// Conversion of a sample to the binning type E, exact for float32 subnormals (which a plain
// float -> double conversion flushes to zero under -ftz=true).
template <class E, class T> struct Widen {
    static __device__ __forceinline__ E of(T x) { return static_cast<E>(x); }
};
template <> struct Widen<double, float> {
    static __device__ __forceinline__ double of(float x) {
        const unsigned int b = __float_as_uint(x);
        if ((b & 0x7f800000u) != 0u) return static_cast<double>(x);  // normal, inf, NaN
        const double m = static_cast<double>(b & 0x7fffffu) * 1.401298464324817e-45;  // 2^-149
        return (b >> 31) ? -m : m;
    }
};
template <class E, class T> __device__ __forceinline__ E widen(T x) { return Widen<E, T>::of(x); }

// Unsigned type wide enough for the difference of two values of T (no overflow when x >= lo).
template <class T> struct WideUnsigned { typedef u32 type; };
template <> struct WideUnsigned<long long> { typedef u64 type; };
template <> struct WideUnsigned<unsigned long long> { typedef u64 type; };

// Lowest value of the small integer types (index origin of BinLut's table, BinByte's sign flip).
template <class T> struct SmallLowest;
template <> struct SmallLowest<signed char> { static constexpr int value = -128; };
template <> struct SmallLowest<unsigned char> { static constexpr int value = 0; };
template <> struct SmallLowest<short> { static constexpr int value = -32768; };
template <> struct SmallLowest<unsigned short> { static constexpr int value = 0; };

// ---- binners --------------------------------------------------------------------------------
template <class T> struct BinByte {
    __device__ __forceinline__ explicit BinByte(const BinSpec&) {}
    __device__ __forceinline__ int operator()(T x) const {
        return static_cast<int>(static_cast<unsigned char>(x)) ^ (SmallLowest<T>::value & 0xff);
    }
};

template <class T> struct BinShift {
    typedef typename WideUnsigned<T>::type W;
    T lo, hi;
    int shift, last;
    __device__ __forceinline__ explicit BinShift(const BinSpec& s)
        : lo(from_bits<T>(s.lo)),
          hi(from_bits<T>(s.hi)),
          shift(s.shift),
          last(s.nbins - 1) {}
    __device__ __forceinline__ int operator()(T x) const {
        if (x < lo || x > hi) return -1;
        const W d = static_cast<W>(static_cast<W>(x) - static_cast<W>(lo)) >> shift;
        return d < static_cast<W>(last) ? static_cast<int>(d) : last;
    }
};

template <class T> struct BinLut {
    const int* lut;
    __device__ __forceinline__ explicit BinLut(const BinSpec& s)
        : lut(static_cast<const int*>(s.table)) {}
    __device__ __forceinline__ int operator()(T x) const {
        return __ldg(lut + (static_cast<int>(x) - SmallLowest<T>::value));
    }
};

template <class T, class E> struct BinEven {
    typedef typename Order<T>::type K;
    K lo, hi;
    E first, scale, guard;
    const E* edges;
    int last;
    __device__ __forceinline__ explicit BinEven(const BinSpec& s)
        : lo(from_bits<K>(s.lo)),
          hi(from_bits<K>(s.hi)),
          first(static_cast<E>(s.first)),
          scale(static_cast<E>(s.scale)),
          guard(static_cast<E>(s.guard)),
          edges(static_cast<const E*>(s.table)),
          last(s.nbins - 1) {}
    __device__ __forceinline__ int operator()(T x) const {
        const K k = Order<T>::key(x);
        if (!(k >= lo && k <= hi)) return -1;  // NaN: fails a comparison, or its key is outside
        const E v = widen<E>(x);
        const E f = (v - first) * scale;
        // floor(f) and its fraction, f clamped to [0, 2^22] first: frac = 0 (f <= 0, f >= 2^22,
        // inf) never passes the guard test (guard > 0), so such samples take the exact path
        const E g = f > E(0) ? (f < E(4194304) ? f : E(4194304)) : E(0);
        const int i = static_cast<int>(g);
        const E frac = g - static_cast<E>(i);
        if (i <= last && frac >= guard && frac <= E(1) - guard) return i;
        return exact(v, f);
    }
    // The bin from the edges themselves, starting from the estimate floor(f) (a few steps at most).
    __device__ __noinline__ int exact(E v, E f) const {
        const typename Order<E>::type kv = Order<E>::key(v);
        int i = f > E(0) ? (f < E(last) ? static_cast<int>(f) : last) : 0;  // f may be inf
        while (i > 0 && kv < Order<E>::key(__ldg(edges + i))) --i;
        while (i < last && kv >= Order<E>::key(__ldg(edges + i + 1))) ++i;
        return i;
    }
};

// float32 samples over edges held in E (float, or double: histogram2d's and histogramdd's
// NumPy edges), the production float path: the position is one float32 fma, its floor two adds
// (f + 2^23 rounded down holds floor(f) in its low mantissa bits; conversions run at a quarter of
// the add rate, and float64 ones slower still), and a sample is accepted at once when its bin is
// in [0, nbins) and it lies farther than `guard` from both edges of that bin. Every other sample
// (near an edge, out of range, NaN, inf) takes the careful path: the keep-thresholds on order
// keys, then the edges, compared in E (the sample widened exactly). The host widens `guard` so
// that no sample outside the thresholds can pass the fast test (the thresholds lie within guard
// of edges[0] and edges[nbins]), and bounds it by float32's rounding whatever E is (1.0, no fast
// test, where first and scale are not float32 normals: _binning._guard).
// edge(e), an inner edge (1 <= e < nbins) as linspace made it, with no load: emode 1 (linspace
// in float64), e * estep + estart in float64, rounded once to E; emode 2 (float32 arithmetic:
// linspace in float32, or any edges it reproduces), e * estep + estart in float32, two
// operations (no conversion: e as a float from its bits); never fused (__fmul_rn, __fadd_rn,
// __dmul_rn, __dadd_rn). The host enables a mode only when it reproduces every inner edge bit
// for bit with no float32 subnormal on the way (flush-to-zero: _binning.edge_formula); emode 0,
// the edge loaded.
template <class E> struct BinEvenF32 {
    typedef typename Order<E>::type KE;
    int lo, hi;
    float scale, offset, inner;  // position = x * scale + offset; inner = 0.5 - guard
    E first, escale;             // the careful path's estimate, in E
    const E* edges;
    double estart, estep;  // edge(): the inner edges' arithmetic (emode 1)
    float fstart, fstep;    // ... (emode 2)
    int emode;
    unsigned last;
    __device__ __forceinline__ explicit BinEvenF32(const BinSpec& s)
        : lo(from_bits<int>(s.lo)),
          hi(from_bits<int>(s.hi)),
          scale(static_cast<float>(s.scale)),
          offset(-static_cast<float>(s.first) * static_cast<float>(s.scale)),
          inner(0.5f - static_cast<float>(s.guard)),
          first(static_cast<E>(s.first)),
          escale(static_cast<E>(s.scale)),
          edges(static_cast<const E*>(s.table)),
          estart(s.estart),
          estep(s.estep),
          fstart(static_cast<float>(s.estart)),
          fstep(static_cast<float>(s.estep)),
          emode(s.emode),
          last(static_cast<unsigned>(s.nbins - 1)) {}
    // edge e (emode 1 or 2, any e: garbage for e outside [1, nbins), never a fault)
    __device__ __forceinline__ E edge(int e) const {
        if (emode == 2) {  // e < 2^23: e + 2^23's bits as a float, less 2^23
            const float ef = __int_as_float(0x4b000000 + e) - 8388608.0f;
            return static_cast<E>(__fadd_rn(__fmul_rn(ef, fstep), fstart));
        }
        const double ed = __hiloint2double(0x43300000, e) - 4503599627370496.0;  // e + 2^52 - 2^52
        return static_cast<E>(__dadd_rn(__dmul_rn(ed, estep), estart));
    }
    __device__ __forceinline__ int operator()(float x) const {
        const float f = fmaf(x, scale, offset);
        const float t = __fadd_rd(f, 8388608.0f);  // floor(f) + 2^23 for 0 <= f < 2^23
        const int i = __float_as_int(t) - 0x4b000000;
        const float frac = f - (t - 8388608.0f);
        if (static_cast<unsigned>(i) <= last && fabsf(frac - 0.5f) <= inner) return i;
        const int k = Order<float>::key(x);
        if (!(k >= lo && k <= hi)) return -1;
        return exact(x);
    }
    // The same bins for histograms of many bins, where the bands about the edges hold a large
    // share of the samples (guard band eps nbins (1 + max|edge| / span) bins each side: 3/32 of
    // them at 65,536 bins over [0, 1) with the policy's band 3), N samples at a time: every
    // sample's position first, and for each one in the band of an inner edge (1..nbins-1, the
    // band narrower than a bin) that edge alone: computed (edge(), for every sample alike: no
    // load, no branch) or loaded (only by the samples in a band, the N loads in flight
    // together; the edges, nbins + 1 of them, are a random gather past the L1 at 65,536 bins);
    // then each sample in a band compared with its edge, and the rest (out of range, NaN, inf,
    // a band wider than a bin) as operator().
    template <int N>
    __device__ __forceinline__ void many(const float (&x)[N], int (&b)[N]) const {
        int i[N], ne[N];
        KE ke[N];
        float frac[N];
        bool fast[N], near[N];
#pragma unroll
        for (int k = 0; k < N; ++k) {
            const float f = fmaf(x[k], scale, offset);
            const float t = __fadd_rd(f, 8388608.0f);
            i[k] = __float_as_int(t) - 0x4b000000;
            frac[k] = f - (t - 8388608.0f);
            const bool in = static_cast<unsigned>(i[k]) <= last;
            fast[k] = in && fabsf(frac[k] - 0.5f) <= inner;
            const int e = frac[k] > 0.5f ? i[k] + 1 : i[k];  // the nearer edge
            // frac == frac: not NaN (whose i is meaningless); inner > 0: a band narrower than a bin
            near[k] = !fast[k] && in && frac[k] == frac[k] && inner > 0.0f && e >= 1 &&
                static_cast<unsigned>(e) <= last;
            ne[k] = e;
        }
        // the edges after every position is taken: computed for every sample (no branch, the
        // N computations interleaved), or loaded for those near an edge (ptxas schedules)
        if (emode != 0) {
#pragma unroll
            for (int k = 0; k < N; ++k) ke[k] = Order<E>::key(edge(ne[k]));
        } else {
#pragma unroll
            for (int k = 0; k < N; ++k)
                ke[k] = near[k] ? Order<E>::key(__ldg(edges + ne[k])) : KE(0);
        }
        // each sample's bin by selection (no divergence: fast, or near its edge), then the rest
        // (rare: out of range, NaN, inf, a band wider than a bin) one by one
#pragma unroll
        for (int k = 0; k < N; ++k) {
            const KE kx = Order<E>::key(widen<E>(x[k]));
            const int move =
                frac[k] > 0.5f ? (kx >= ke[k] ? 1 : 0) : (kx < ke[k] ? -1 : 0);  // near an edge
            b[k] = fast[k] ? i[k] : i[k] + move;
        }
#pragma unroll
        for (int k = 0; k < N; ++k) {
            if (!fast[k] && !near[k]) {
                const int kx = Order<float>::key(x[k]);
                b[k] = kx >= lo && kx <= hi ? exact(x[k]) : -1;
            }
        }
    }
    // The bin from the edges themselves, starting from the estimate (a few steps at most).
    __device__ __noinline__ int exact(float x) const {
        const E v = widen<E>(x);
        const KE kx = Order<E>::key(v);
        const E f = (v - first) * escale;
        int i = f > E(0) ? (f < static_cast<E>(last) ? static_cast<int>(f) : static_cast<int>(last))
                         : 0;  // f may be inf
        while (i > 0 && kx < Order<E>::key(__ldg(edges + i))) --i;
        while (i < static_cast<int>(last) && kx >= Order<E>::key(__ldg(edges + i + 1))) ++i;
        return i;
    }
};
template <> struct BinEven<float, float> : BinEvenF32<float> {
    __device__ __forceinline__ explicit BinEven(const BinSpec& s) : BinEvenF32<float>(s) {}
};
template <> struct BinEven<float, double> : BinEvenF32<double> {
    __device__ __forceinline__ explicit BinEven(const BinSpec& s) : BinEvenF32<double>(s) {}
};

// A packet's bins for the many-bin kernels: b[k] = the bin of x[k] (or -1), by
// BinEvenF32::many for float32 samples over even edges (the edge loads of the N samples in
// flight together), by the binner's operator() for the others. The samples are of the
// kernel's element type: the binner's sample type, or a type that converts to it (a transform on
// load: the element read through a map, ops.py's map_prelude).
template <class Binner, class T, int N>
__device__ __forceinline__ void bin_many(const Binner& bin, const T (&x)[N], int (&b)[N]) {
#pragma unroll
    for (int k = 0; k < N; ++k) b[k] = bin(x[k]);
}
template <class E, class X, int N>
__device__ __forceinline__ void bin_many(const BinEven<float, E>& bin, const X (&x)[N],
                                         int (&b)[N]) {
    float v[N];
#pragma unroll
    for (int k = 0; k < N; ++k) v[k] = static_cast<float>(x[k]);
    bin.many(v, b);
}
// One sample's bin, as above.
template <class Binner, class T>
__device__ __forceinline__ int bin_many(const Binner& bin, T x) {
    const T one[1] = {x};
    int b[1];
    bin_many(bin, one, b);
    return b[0];
}

template <class T, class C> struct BinEdges {
    typedef typename Order<C>::type K;
    const C* edges;
    int nb;
    __device__ __forceinline__ explicit BinEdges(const BinSpec& s)
        : edges(static_cast<const C*>(s.table)),
          nb(s.nbins) {}
    __device__ __forceinline__ K at(int i) const { return Order<C>::key(__ldg(edges + i)); }
    __device__ __forceinline__ int operator()(T x) const {
        const K v = Order<C>::key(widen<C>(x));
        if (!(v >= at(0))) return -1;  // below the first edge, or NaN
        const K top = at(nb);
        if (v >= top) return v == top ? nb - 1 : -1;  // the last bin is closed
        int lo = 0, hi = nb;  // edges[lo] <= v < edges[hi]
        while (hi - lo > 1) {
            const int mid = (lo + hi) >> 1;
            if (at(mid) <= v)
                lo = mid;
            else
                hi = mid;
        }
        return lo;
    }
};

// ---- accumulation policies ------------------------------------------------------------------
struct CountAcc {
    typedef u32 Shared;
    typedef u64 Global;
    typedef double Weight;
    static constexpr bool WEIGHTED = false;
    static __device__ __forceinline__ Shared value(const Weight*, i64) { return 1u; }
};

// of(w): a weight already loaded, as summed; value(w, i): weights[i] loaded and widened.
template <class W> struct WeightAcc {
    typedef double Shared;
    typedef double Global;
    typedef W Weight;
    static constexpr bool WEIGHTED = true;
    static __device__ __forceinline__ Shared of(W w) { return widen<double>(w); }
    static __device__ __forceinline__ Shared value(const W* w, i64 i) { return of(__ldg(w + i)); }
};

// Run-length accumulation: consecutive samples of one thread that land in the same bin are added
// up in a register and reach memory as one atomic when the bin changes (or at flush()).
template <class S> struct RunLength {
    int bin;
    S acc;
    __device__ __forceinline__ RunLength() : bin(-1), acc(S(0)) {}
    __device__ __forceinline__ void add(S* h, int b, S w) {
        if (b == bin) {
            acc += w;
        } else {
            if (bin >= 0) atomicAdd(h + bin, acc);
            bin = b;
            acc = w;
        }
    }
    __device__ __forceinline__ void flush(S* h) {
        if (bin >= 0) atomicAdd(h + bin, acc);
        bin = -1;
    }
};

// Adds the samples of one 16-byte packet (bin b at h[b * stride]): when every sample lands in the
// same bin (runs, flat image regions, all-equal data) with one atomic of N, otherwise one atomic
// per sample.
template <class S, class T, int N, class Binner>
__device__ __forceinline__ void add_packet(S* h, const T (&v)[N], const Binner& bin,
                                           int stride = 1) {
    int b[N];
    bool same = true;
#pragma unroll
    for (int k = 0; k < N; ++k) {
        b[k] = bin(v[k]);
        same = same && b[k] == b[0];
    }
    if (same) {
        if (b[0] >= 0) atomicAdd(h + b[0] * stride, S(N));
        return;
    }
#pragma unroll
    for (int k = 0; k < N; ++k)
        if (b[k] >= 0) atomicAdd(h + b[k] * stride, S(1));
}

// The start of every histogram kernel: the BinSpec record copied from device memory (by value),
// the binner built from it and the number of bins; zero() then clears the block's shared
// counters. Kernels copy `bin` into a local (`const Binner bin = start.bin;`) and zero() is
// static, so no part of the start is addressed: the binner stays in registers (a reference to a
// member kept the whole record in local memory: 64 more bytes of stack, and spills in the staged
// float kernel, with ptxas -v for sm_90).
template <class Binner>
struct HistStart {
    const Binner bin;
    const int nbins;
    __device__ __forceinline__ explicit HistStart(const BinSpec s) : bin(s), nbins(s.nbins) {}
    // Sets `count` shared counters to zero (a block-stride loop: any block size and count; STRIDE
    // the block size when the kernel fixes it, 0: blockDim.x), then waits for the whole block.
    // Called by every thread.
    template <int STRIDE = 0, class S>
    __device__ __forceinline__ static void zero(S* h, int count) {
        if (STRIDE) {
            for (int b = threadIdx.x; b < count; b += STRIDE) h[b] = S(0);
        } else {  // the unsigned step, as the kernels always had it (the same loop code)
            for (int b = threadIdx.x; b < count; b += blockDim.x) h[b] = S(0);
        }
        __syncthreads();
    }
};

// Bin b's count is field b % 2 (the low 16 bits first) of word b / 2 of `h`, plus what the field's
// wraps handed to the global counter out[b] (G: u64, or double for exact integer counts). add()
// adds one: the atomic returns the word as it was, so the one add that moves a field from 0xffff
// to 0 sees it and adds 65536 to out[b]. A wrap of the low field also carries one into the high
// field: that add takes the carry back with a second atomic (-2^16); the carry may itself move
// the high field across 0xffff -> 0 (+65536 to out[b + 1], seen in the first atomic's word) and
// the take-back across 0 -> 0xffff (-65536, seen in the second's). Every crossing is handed over
// by the atomic that made it, in any interleaving with other threads' adds, so out[b] + field =
// the count once the block is done (fields of a block's last word past `bins` are never read).
// add_n() adds one to each of N bins, its N atomics issued together before any returned word
// is examined (a sample not counted here, dropped or from `bins` on, adds 0 to a spare word after
// the counters, so no atomic is conditional). merge() adds every non-zero field into out (whole
// block, after a barrier). Shared memory: words(bins) 4-byte words, the spare one included.
struct Packed16 {
    template <class G>
    static __device__ __noinline__ void wrapped(u32* h, i64 b, u32 old, i64 bins, G* out) {
        atomicAdd(out + b, static_cast<G>(65536));
        if (b & 1) return;  // the high field: its carry leaves the word
        const bool up = (old >> 16) == 0xffffu;  // the carry wrapped the high field
        const u32 back = atomicAdd(h + (b >> 1), 0xffff0000u);  // -2^16: the carry taken back
        const bool down = (back >> 16) == 0u;  // ... which wrapped it the other way
        if (b + 1 < bins && up != down)
            atomicAdd(out + b + 1, static_cast<G>(up ? 65536ll : -65536ll));
    }
    template <int N, class I, class G>
    static __device__ __forceinline__ void add_n(u32* h, const I (&b)[N], i64 bins, G* out) {
        const i64 spare = (bins + 1) / 2;
        u32 old[N];
#pragma unroll
        for (int k = 0; k < N; ++k) {
            const bool in = b[k] >= 0 && b[k] < bins;
            old[k] = atomicAdd(h + (in ? b[k] >> 1 : spare),
                               in ? 1u << (16 * static_cast<int>(b[k] & 1)) : 0u);
        }
#pragma unroll
        for (int k = 0; k < N; ++k) {
            const bool in = b[k] >= 0 && b[k] < bins;
            if (in && ((old[k] >> (16 * static_cast<int>(b[k] & 1))) & 0xffffu) == 0xffffu)
                wrapped(h, b[k], old[k], bins, out);
        }
    }
    template <class G>
    static __device__ __forceinline__ void add(u32* h, i64 b, i64 bins, G* out) {
        const i64 one[1] = {b};
        add_n(h, one, bins, out);
    }
    template <class G>
    static __device__ __forceinline__ void merge(const u32* h, i64 bins, G* out) {
        for (i64 b = threadIdx.x; b < bins; b += blockDim.x) {
            const u32 v = (h[b >> 1] >> (16 * static_cast<int>(b & 1))) & 0xffffu;
            if (v) atomicAdd(out + b, static_cast<G>(v));
        }
    }
    static __host__ __device__ constexpr i64 words(i64 bins) { return (bins + 1) / 2 + 1; }
    // The bounded use, for a kernel that settles between rounds: add_quiet() adds one to bin b
    // (in [0, bins)) with an add that returns nothing; settle() (whole block, between barriers)
    // hands 0x8000 of every field of 0x8000 or more to out. Fields below 0x8000 at a settle()
    // that take at most 32,768 adds before the next never wrap, so no add needs its word.
    static __device__ __forceinline__ void add_quiet(u32* h, i64 b) {
        atomicAdd(h + (b >> 1), 1u << (16 * static_cast<int>(b & 1)));
    }
    template <class G>
    static __device__ __forceinline__ void settle(u32* h, i64 bins, G* out) {
        const i64 used = (bins + 1) / 2;  // a high field past bins stays 0
        for (i64 w = threadIdx.x; w < used; w += blockDim.x) {
            const u32 v = h[w];
            const u32 high = v & 0x80008000u;
            if (!high) continue;
            if (high & 0x8000u) atomicAdd(out + 2 * w, static_cast<G>(0x8000));
            if (high & 0x80000000u) atomicAdd(out + 2 * w + 1, static_cast<G>(0x8000));
            h[w] = v - high;
        }
    }
    // adds between two settle() calls at most (a field below 0x8000 stays below 0x10000)
    static constexpr i64 ROUND = 32768;
};

// K bins counted by the packed walks (partial_privatized, hist_dd): those from shared_bins on by
// global atomics into out, the others in Packed16's 16-bit shared counters with their atomics
// issued together (add_n; -1: none).
template <int K, class I, class G>
__device__ __forceinline__ void packed_count(u32* h, const I (&b)[K], i64 shared_bins, G* out) {
#pragma unroll
    for (int k = 0; k < K; ++k)
        if (b[k] >= shared_bins) atomicAdd(out + b[k], G(1));
    Packed16::add_n(h, b, shared_bins, out);
}

}  // namespace prim

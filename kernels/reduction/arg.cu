// arg.cu -- argmin/argmax: the index of the first extreme element, NaN first (numpy.argmin/argmax).
//
// Every kernel is templated on <InT, MAX>: MAX true for argmax, false for argmin. Elements are
// compared through a key (ArgKey below): the element itself for 4- and 8-byte types, a 32-bit
// integer for the 1- and 2-byte integers, and for float16 and bfloat16 (read as their 16 bits,
// prim::half_bits and prim::bf16_bits) the signed magnitude of the bits, which orders the values
// as floats do (-0 and +0 equal) with NaN recognized from the bits. bool is read as prim::Flag (util/flag.cuh), its key 1 for
// any nonzero byte (NumPy's True), 0 otherwise. Complex elements (prim::c64,
// prim::c128 of util/complex.cuh) are their own keys, ordered as NumPy's (lexicographically: the
// real parts, then the imaginary parts), NaN in either part a NaN. Indices and sizes are 64-bit.
//
// The combine (ArgOp) picks, of two (key, index) pairs, the NaN one, else the larger key (MAX) or
// the smaller one (!MAX), and between equals (both NaN, or equal keys) the smaller index: the
// minimum of a total order on (rank, index), so associative and commutative, and the result is
// the first index of the extreme (of the first NaN when there is one) whatever the order of
// combination. Its identity is (the lowest/highest key, index 2^63-1), which no element beats in
// a tie.
//
// arg_flat<InT, MAX, BLOCK, VECS>: the whole array, or gridDim.y contiguous lines of n elements
//   (few long rows: blockIdx.y picks the line, with its own partials, ticket and output; the
//   text below is per line). BLOCK threads, grid-stride over 16-byte packets (util/pack16.cuh
//   for_each_packet: scalar head to the first 16-byte boundary, VECS independent 16-byte loads
//   in flight per thread, scalar tail); each packet is folded to its
//   first extreme in registers, then combined with the thread's pair. Block reduction of the pairs
//   with shuffles (block/reduce.cuh: warp shuffles move the 16-byte pair word by word); each block
//   stores its pair in the partials, takes a ticket, and the block that takes the last ticket
//   reduces the partials and resets the ticket to 0. Launch: blockDim.x == BLOCK, any gridDim.x,
//   gridDim.y lines. Shared memory: static, BLOCK/32 pairs. Preconditions: n >= 1; the
//   gridDim.y tickets are 0 on entry; `scratch` holds 2 * KW * gridDim.x 64-bit words per line,
//   KW = ArgOp::KEY_WORDS the 64-bit words of a key (1, or 2 for c128): the keys in the first
//   KW * gridDim.x, the indices in the next gridDim.x (the rest unused: every line's keys start
//   16-byte aligned), `scratch` 16-byte aligned; `in` aligned to sizeof(InT). Writes out[line], the
//   index within the line.
// arg_rows<InT, MAX, BLOCK, VECS, PER_WARP>: `rows` contiguous rows of `len` elements (the
//   reduced axis last), out[r] the index within row r. PER_WARP: one warp per row (short rows),
//   warp shuffles only; otherwise one block per row, block_reduce. Each row is walked with
//   for_each_packet (its own aligned head), rows grid-stride. Launch: 1-D, blockDim.x == BLOCK,
//   any grid. Shared memory: static, BLOCK/32 pairs (block mode). Preconditions: len >= 1.
//   (A few long rows, fewer than the resident blocks, take arg_flat with a grid row per row.)
// arg_rows_pipe<InT, MAX, BLOCK, VECS>: arg_rows' warp per row for rows of whole 16-byte packets,
//   at most 32 * VECS of them (the host's rule), all rows 16-byte aligned (else, a grid-uniform
//   test, arg_rows' walk): each lane holds its row's packets l, l + 32, ... and issues the
//   loads of the warp's next row before it folds this one, so a row's loads are in flight
//   through the previous row's fold and warp reduction. Launch, shared memory and
//   preconditions as arg_rows<..., PER_WARP>.
// arg_cols<InT, MAX, BLOCK, VECS, STACKED>: an (outer, len, inner) C-ordered array reduced
//   along the middle axis, the axis cut in `splits` parts of `chunk` rows. Units (o, part,
//   column), column fastest: a thread owns one column, or with `vec` (inner a multiple of
//   N = 16 / sizeof(InT), `in` 16-byte aligned) N consecutive columns read as one 16-byte packet,
//   and walks its part's rows in order, VECS rows' loads in flight, keeping each column's first
//   extreme (Op::later_wins: the first NaN, else the first most extreme key). Consecutive threads
//   read consecutive columns (coalesced). splits == 1: out[o * inner + j] the index; else each
//   part's (key, index) into the partials (outer, splits, inner): `part_keys` as Op::K keys
//   (KEY_WORDS 64-bit words each), `part_idx` the indices.
//   !STACKED: a thread per unit, grid-stride (`stack` unused); no shared memory, no barriers.
//   STACKED: each part is cut again in `stack` sub-parts of `chunk` rows (stack > 1 divides
//   BLOCK, BLOCK / stack a multiple of 32) that one block walks together: a tile is (o, part,
//   BLOCK / stack consecutive units), thread t walking sub-part t / (BLOCK / stack) of unit
//   t % (BLOCK / stack) (a warp's loads stay one row's consecutive columns); the sub-parts'
//   pairs meet in shared memory and the threads of sub-part 0 combine them in order and store
//   the part's result. So the parts that fill the device need neither partials in memory nor a
//   merge launch. Tiles block-uniform, grid-stride; a sub-part past the axis's end holds the
//   identity. Launch: 1-D, any grid, BLOCK threads; STACKED: dynamic shared memory of
//   (stack - 1) * (BLOCK / stack) * N pairs (ArgPair<K>: the host's arg_pair_bytes each).
//   Preconditions: len >= 1, chunk >= 1; every part holds a row: splits * chunk >= len >
//   (splits - 1) * chunk (!STACKED), splits * stack * chunk >= len > (splits - 1) * stack *
//   chunk (STACKED).
// arg_cols_merge<InT, MAX, BLOCK, VECS>: the partials of arg_cols combined with ArgOp in part
//   order (VECS parts' loads in flight): out[o * inner + j]. A thread per output position,
//   grid-stride, coalesced across j. Launch: 1-D, any grid, BLOCK threads; no shared memory.
//   (Too few long columns to fill the device are copied to rows by the host first.)
#include "util/prim.cuh"
#include "util/thread.cuh"
#include "util/pack16.cuh"
#include "util/complex.cuh"
#include "util/flag.cuh"
#include "warp/reduce.cuh"
#include "block/reduce.cuh"
#include "device/ticket.cuh"  // last_ticket

namespace prim {

// float16 and bfloat16 as their 16 bits (read in place, 16-byte packets of 8).
struct half_bits { unsigned short bits; };
struct bf16_bits { unsigned short bits; };

// The comparison key of an element, and whether it is NaN.
template <class T> struct ArgKey {
    typedef T type;
    static __device__ __forceinline__ T key(T v) { return v; }
    static __device__ __forceinline__ bool nan(T v) { return is_nan(v); }
};
template <class T> struct ArgKeyNarrow {
    typedef int type;
    static __device__ __forceinline__ int key(T v) { return static_cast<int>(v); }
    static __device__ __forceinline__ bool nan(int) { return false; }
};
template <> struct ArgKey<signed char> : ArgKeyNarrow<signed char> {};
template <> struct ArgKey<unsigned char> : ArgKeyNarrow<unsigned char> {};
template <> struct ArgKey<short> : ArgKeyNarrow<short> {};
template <> struct ArgKey<unsigned short> : ArgKeyNarrow<unsigned short> {};
template <> struct ArgKey<Flag> : ArgKeyNarrow<Flag> {};  // 1 for any nonzero byte
// float16 and bfloat16 (B: their bits' struct): sign and magnitude to a signed integer,
// monotone in the float value (-0 == +0); a NaN's magnitude is above infinity's (INF: 0x7c00 for
// float16's 5-bit exponent, 0x7f80 for bfloat16's 8-bit one); the identities (INT_MIN/INT_MAX)
// are not NaNs
template <class B, int INF> struct ArgKeyBits {
    typedef int type;
    static __device__ __forceinline__ int key(B h) {
        const int mag = h.bits & 0x7fff;
        return (h.bits & 0x8000) ? -mag : mag;
    }
    static __device__ __forceinline__ bool nan(int k) {
        return (k > INF && k <= 0x7fff) || (k < -INF && k >= -0x7fff);
    }
};
template <> struct ArgKey<half_bits> : ArgKeyBits<half_bits, 0x7c00> {};
template <> struct ArgKey<bf16_bits> : ArgKeyBits<bf16_bits, 0x7f80> {};

template <class R> struct ArgKey<Complex<R>> {
    typedef Complex<R> type;
    static __device__ __forceinline__ Complex<R> key(Complex<R> v) { return v; }
    static __device__ __forceinline__ bool nan(Complex<R> v) { return is_nan(v); }
};

// a < b in the keys' order (no NaN involved)
template <class K> __device__ __forceinline__ bool key_less(K a, K b) { return a < b; }
template <class R> __device__ __forceinline__ bool key_less(Complex<R> a, Complex<R> b) {
    return lex_less(a, b);
}

// A key another block stored (L2, not the incoherent L1): __ldcg of the built-in types, the
// float2/double2 of a complex key's parts.
template <class K> __device__ __forceinline__ K load_key_cg(const K* p) { return __ldcg(p); }
template <class R> __device__ __forceinline__ Complex<R> load_key_cg(const Complex<R>* p) {
    typedef typename Select<sizeof(R) == 4, float2, double2>::type V;
    const V v = __ldcg(reinterpret_cast<const V*>(p));
    return Complex<R>(v.x, v.y);
}

template <class K> struct ArgPair {
    K v;
    long long i;
};

template <class InT, bool MAX>
struct ArgOp {
    typedef ArgKey<InT> Key;
    typedef typename Key::type K;
    typedef ArgPair<K> P;
    // 64-bit words of a key in arg_flat's partials
    static constexpr int KEY_WORDS = (sizeof(K) + 7) / 8;

    static __device__ __forceinline__ P identity() {
        P p;
        p.v = MAX ? Limits<K>::lowest() : Limits<K>::max();
        p.i = Limits<long long>::max();
        return p;
    }
    static __device__ __forceinline__ P pair(K v, long long i) {
        P p;
        p.v = v;
        p.i = i;
        return p;
    }
    // b strictly more extreme than a (no NaN involved)
    static __device__ __forceinline__ bool beats(K b, K a) {
        return MAX ? key_less(a, b) : key_less(b, a);
    }
    // b, which comes after a, replaces it: a is no NaN and b is more extreme or the first NaN
    // (float16 keys of NaN compare as integers: the NaN test comes first)
    static __device__ __forceinline__ bool later_wins(K b, K a) {
        return !Key::nan(a) && (Key::nan(b) || beats(b, a));
    }
    __device__ __forceinline__ P operator()(const P& a, const P& b) const {
        const bool an = Key::nan(a.v), bn = Key::nan(b.v);
        const bool take_b = (an || bn) ? (bn && (!an || b.i < a.i))
                                       : (beats(b.v, a.v) || (!beats(a.v, b.v) && b.i < a.i));
        return take_b ? b : a;
    }
    // The first extreme of one packet (elements in index order from i0), combined into acc.
    template <class Pk>
    __device__ __forceinline__ P fold(const P& acc, const Pk& p, long long i0) const {
        K best = Key::key(p.v[0]);
        int at = 0;
#pragma unroll
        for (int k = 1; k < Pack16<InT>::N; ++k) {
            const K v = Key::key(p.v[k]);
            if (later_wins(v, best)) {
                best = v;
                at = k;
            }
        }
        return (*this)(acc, pair(best, i0 + at));
    }
};

// The (key, index) pair of this thread's elements of in[0, n), threads [tid, nthreads).
template <class InT, bool MAX, int VECS>
__device__ __forceinline__ typename ArgOp<InT, MAX>::P arg_walk(const InT* __restrict__ in, i64 n,
                                                                i64 tid, i64 nthreads) {
    typedef ArgOp<InT, MAX> Op;
    const Op op;
    typename Op::P acc = Op::identity();
    for_each_packet<VECS>(
        in, n, tid, nthreads, [&](InT x, i64 i) { acc = op(acc, Op::pair(Op::Key::key(x), i)); },
        [&](const Pack16<InT>& p, i64 i0) { acc = op.fold(acc, p, i0); });
    return acc;
}

}  // namespace prim

// ---- the whole array: one launch ------------------------------------------------------------
template <class InT, bool MAX, int BLOCK, int VECS>
__global__ void __launch_bounds__(BLOCK)
    arg_flat(const InT* __restrict__ in, long long n, long long* __restrict__ scratch,
             unsigned int* __restrict__ tickets, long long* __restrict__ out) {
    typedef prim::ArgOp<InT, MAX> Op;
    typedef typename Op::K K;
    typedef typename Op::P P;
    const Op op;
    const long long line = blockIdx.y;  // a line of n elements per grid row (gridDim.y lines)
    in += line * n;
    scratch += line * 2 * Op::KEY_WORDS * gridDim.x;
    tickets += line;
    out += line;
    P acc = prim::arg_walk<InT, MAX, VECS>(in, n, prim::global_thread(), prim::global_threads());

    __shared__ P pairs[BLOCK / prim::WARP];
    __shared__ bool last_block;
    K* part_v = reinterpret_cast<K*>(scratch);  // gridDim.x keys, KEY_WORDS words each at most
    long long* part_i = scratch + Op::KEY_WORDS * gridDim.x;
    acc = prim::block_reduce<BLOCK>(acc, op, pairs);
    if (threadIdx.x == 0) {
        part_v[blockIdx.x] = acc.v;
        part_i[blockIdx.x] = acc.i;
    }
    if (prim::last_ticket(tickets, gridDim.x, last_block)) {  // block-uniform
        P v = Op::identity();
        for (unsigned j = threadIdx.x; j < gridDim.x; j += BLOCK)
            v = op(v, Op::pair(prim::load_key_cg(part_v + j), __ldcg(part_i + j)));
        __syncthreads();  // `pairs` is reused
        v = prim::block_reduce<BLOCK>(v, op, pairs);
        if (threadIdx.x == 0) {
            *out = v.i;
            *tickets = 0u;
        }
    }
}

// ---- contiguous rows: a warp or a block per row -----------------------------------------------
template <class InT, bool MAX, int BLOCK, int VECS, bool PER_WARP>
__global__ void __launch_bounds__(BLOCK) arg_rows(const InT* __restrict__ in, long long rows,
                                                  long long len, long long* __restrict__ out) {
    typedef prim::ArgOp<InT, MAX> Op;
    typedef typename Op::P P;
    const Op op;
    if constexpr (PER_WARP) {
        constexpr int WARPS = BLOCK / prim::WARP;
        const long long lane = threadIdx.x % prim::WARP;
        const long long stride = static_cast<long long>(gridDim.x) * WARPS;
        for (long long r = static_cast<long long>(blockIdx.x) * WARPS + threadIdx.x / prim::WARP;
             r < rows; r += stride) {  // warp-uniform
            P acc = prim::arg_walk<InT, MAX, VECS>(in + r * len, len, lane, prim::WARP);
            acc = prim::warp_reduce(acc, op);
            if (lane == 0) out[r] = acc.i;
        }
    } else {
        __shared__ P pairs[BLOCK / prim::WARP];
        for (long long r = blockIdx.x; r < rows; r += gridDim.x) {  // block-uniform
            P acc = prim::arg_walk<InT, MAX, VECS>(in + r * len, len, threadIdx.x, BLOCK);
            acc = prim::block_reduce<BLOCK>(acc, op, pairs);
            if (threadIdx.x == 0) out[r] = acc.i;
            __syncthreads();  // `pairs` is reused by the next row
        }
    }
}

// ---- short contiguous rows, a warp each, the next row's loads issued before this row's fold ---
template <class InT, bool MAX, int BLOCK, int VECS>
__global__ void __launch_bounds__(BLOCK) arg_rows_pipe(const InT* __restrict__ in, long long rows,
                                                       long long len, long long* __restrict__ out) {
    typedef prim::ArgOp<InT, MAX> Op;
    typedef typename Op::P P;
    constexpr int N = prim::Pack16<InT>::N;
    constexpr int WARPS = BLOCK / prim::WARP;
    const Op op;
    const int lane = threadIdx.x % prim::WARP;
    const long long stride = static_cast<long long>(gridDim.x) * WARPS;
    long long r = static_cast<long long>(blockIdx.x) * WARPS + threadIdx.x / prim::WARP;
    if ((reinterpret_cast<prim::uptr>(in) & 15u) != 0 || len % N != 0) {  // grid-uniform
        for (; r < rows; r += stride) {  // rows not all 16-byte aligned: arg_rows' walk
            P acc = prim::arg_walk<InT, MAX, VECS>(in + r * len, len, lane, prim::WARP);
            acc = prim::warp_reduce(acc, op);
            if (lane == 0) out[r] = acc.i;
        }
        return;
    }
    const long long packets = len / N;  // at most WARP * VECS (the host's rule)
    prim::Pack16<InT> cur[VECS], next[VECS];
    auto load = [&](long long row, prim::Pack16<InT>(&p)[VECS]) {
        const InT* base = in + row * len;
#pragma unroll
        for (int v = 0; v < VECS; ++v) {
            const long long k = lane + v * prim::WARP;
            if (k < packets) p[v] = prim::load_pack16(base + k * N);
        }
    };
    if (r < rows) load(r, cur);
    for (; r < rows; r += stride) {  // warp-uniform
        if (r + stride < rows) load(r + stride, next);  // in flight during this row's fold
        P acc = Op::identity();
#pragma unroll
        for (int v = 0; v < VECS; ++v) {
            const long long k = lane + v * prim::WARP;
            if (k < packets) acc = op.fold(acc, cur[v], k * N);
        }
        acc = prim::warp_reduce(acc, op);
        if (lane == 0) out[r] = acc.i;
#pragma unroll
        for (int v = 0; v < VECS; ++v) cur[v] = next[v];
    }
}

// ---- a middle axis: threads on consecutive columns, coalesced; R split in parts --------------
namespace prim {

// One step of a column walk: the element of key v at row r after the column's best so far.
template <class Op>
__device__ __forceinline__ void col_step(typename Op::K v, long long r, typename Op::K& best,
                                         long long& at) {
    if (Op::later_wins(v, best)) {
        best = v;
        at = r;
    }
}

// The first extremes of one column (or one 16-byte packet of N columns: `packets`) over rows
// [r0, r1) of slab o, r0 < r1: best[k] and at[k] for column k of the packet (k = 0 alone
// without packets). VECS rows' loads in flight.
template <class Op, int VECS, class InT>
__device__ __forceinline__ void col_part(const InT* __restrict__ in, long long o, long long len,
                                         long long inner, long long c, long long r0, long long r1,
                                         bool packets, typename Op::K (&best)[Pack16<InT>::N],
                                         long long (&at)[Pack16<InT>::N]) {
    constexpr int N = Pack16<InT>::N;
    if (packets) {
        const InT* p = in + (o * len + r0) * inner + c * N;
        const Pack16<InT> first = load_pack16(p);
#pragma unroll
        for (int k = 0; k < N; ++k) {
            best[k] = Op::Key::key(first.v[k]);
            at[k] = r0;
        }
        walk_column<VECS>(
            p + inner, r1 - r0 - 1, inner, [](const InT* q) { return load_pack16(q); },
            [&](const Pack16<InT>& pk, long long r) {
#pragma unroll
                for (int k = 0; k < N; ++k)
                    col_step<Op>(Op::Key::key(pk.v[k]), r0 + 1 + r, best[k], at[k]);
            });
    } else {
        const InT* p = in + (o * len + r0) * inner + c;
        best[0] = Op::Key::key(p[0]);
        at[0] = r0;
        walk_column<VECS>(
            p + inner, r1 - r0 - 1, inner, [](const InT* q) { return *q; },
            [&](InT x, long long r) { col_step<Op>(Op::Key::key(x), r0 + 1 + r, best[0], at[0]); });
    }
}

}  // namespace prim

template <class InT, bool MAX, int BLOCK, int VECS, bool STACKED>
__global__ void __launch_bounds__(BLOCK)
    arg_cols(const InT* __restrict__ in, long long outer, long long len, long long inner,
             long long splits, long long chunk, int vec, int stack,
             long long* __restrict__ part_keys, long long* __restrict__ part_idx,
             long long* __restrict__ out) {
    typedef prim::ArgOp<InT, MAX> Op;
    typedef typename Op::K K;
    typedef typename Op::P P;
    constexpr int N = prim::Pack16<InT>::N;
    const bool packets = vec && inner % N == 0 && (reinterpret_cast<prim::uptr>(in) & 15u) == 0;
    const int width = packets ? N : 1;  // columns a thread owns
    const long long cols = packets ? inner / N : inner;
    K* keys = reinterpret_cast<K*>(part_keys);
    K best[N];
    long long at[N];
    // a part's results: out (splits == 1), else its pairs into the partials
    auto store = [&](long long o, long long part, long long c) {
#pragma unroll
        for (int k = 0; k < N; ++k) {
            if (k >= width) break;
            const long long j = c * width + k;
            if (splits == 1) {
                out[o * inner + j] = at[k];
            } else {
                const long long dst = (o * splits + part) * inner + j;
                keys[dst] = best[k];
                part_idx[dst] = at[k];
            }
        }
    };
    if constexpr (!STACKED) {  // a thread per (o, part, column) unit, grid-stride, no barriers
        const long long units = outer * splits * cols;
        for (long long u = prim::global_thread(); u < units; u += prim::global_threads()) {
            const long long c = u % cols, t = u / cols, part = t % splits, o = t / splits;
            const long long r0 = part * chunk;
            const long long r1 = r0 + chunk < len ? r0 + chunk : len;
            prim::col_part<Op, VECS>(in, o, len, inner, c, r0, r1, packets, best, at);
            store(o, part, c);
        }
    } else {  // a part's `stack` sub-parts walked by one block, combined in shared memory
        static_assert(sizeof(P) == (sizeof(K) > 8 ? 32 : 16),
                      "arg_cols: the host's arg_pair_bytes");
        PRIM_DYNAMIC_SHARED(P, staged);
        const Op op;
        const int per = BLOCK / stack;  // units a tile
        const int sub = static_cast<int>(threadIdx.x) / per,
                  cu = static_cast<int>(threadIdx.x) % per;
        const long long col_tiles = (cols + per - 1) / per;
        const long long tiles = outer * splits * col_tiles;
        for (long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {  // block-uniform
            const long long ct = tile % col_tiles, t = tile / col_tiles;
            const long long part = t % splits, o = t / splits;
            const long long c = ct * per + cu;
            const long long r0 = (part * stack + sub) * chunk;
            const long long r1 = r0 + chunk < len ? r0 + chunk : len;
            const bool live = c < cols;
            P mine[N];
#pragma unroll
            for (int k = 0; k < N; ++k) mine[k] = Op::identity();
            if (live && r0 < r1) {  // a sub-part past the axis's end holds the identity
                prim::col_part<Op, VECS>(in, o, len, inner, c, r0, r1, packets, best, at);
#pragma unroll
                for (int k = 0; k < N; ++k)
                    if (k < width) mine[k] = Op::pair(best[k], at[k]);
            }
            if (sub > 0)
#pragma unroll
                for (int k = 0; k < N; ++k)
                    if (k < width) staged[((sub - 1) * per + cu) * width + k] = mine[k];
            __syncthreads();
            if (sub == 0 && live) {
                for (int s = 1; s < stack; ++s)
#pragma unroll
                    for (int k = 0; k < N; ++k)
                        if (k < width)
                            mine[k] = op(mine[k], staged[((s - 1) * per + cu) * width + k]);
#pragma unroll
                for (int k = 0; k < N; ++k) {
                    best[k] = mine[k].v;
                    at[k] = mine[k].i;
                }
                store(o, part, c);
            }
            __syncthreads();  // `staged` is reused by the next tile
        }
    }
}

// The parts' pairs (outer, splits, inner) of arg_cols combined in part order: out[o * inner + j].
template <class InT, bool MAX, int BLOCK, int VECS>
__global__ void __launch_bounds__(BLOCK)
    arg_cols_merge(const long long* __restrict__ part_keys, const long long* __restrict__ part_idx,
                   long long outer, long long splits, long long inner,
                   long long* __restrict__ out) {
    typedef prim::ArgOp<InT, MAX> Op;
    typedef typename Op::K K;
    typedef typename Op::P P;
    const Op op;
    const K* keys = reinterpret_cast<const K*>(part_keys);
    const long long total = outer * inner;
    for (long long q = prim::global_thread(); q < total; q += prim::global_threads()) {
        const long long o = q / inner, j = q - o * inner;
        P acc = Op::identity();
        prim::walk_column<VECS>(
            keys + o * splits * inner + j, splits, inner,
            [&](const K* at) { return Op::pair(*at, part_idx[at - keys]); },
            [&](const P& p, long long) { acc = op(acc, p); });
        out[q] = acc.i;
    }
}

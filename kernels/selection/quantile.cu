// quantile.cu -- order statistics of rows by a multi-rank radix select (prim.quantile,
// prim.median and their nan- and percentile twins): the values of given ranks of each row,
// found without sorting the row; and the partition of rows by them (prim.argpartition and
// prim.partition where the keys a kth needs ordered are many).
//
// Selection works on an order-preserving unsigned image of each key that loses no bits but a
// NaN's (`image` below: integers as util/key_image.cuh's `ordered`; floats with every NaN folded
// into one, the largest, and -0.0 just below +0.0, a refinement of NumPy's order in which the two
// are equal), so a selected key comes back bit for bit (`key_of`); a row's NaNs are counted and
// the largest of their bit patterns kept. Rows are contiguous, `len` keys each, row r at
// r * len. Each row asks for S ranks (0-based, `ranks` (rows, S)), its *slots*; a slot whose rank
// equals the slot before it is an alias of it and is not selected again (a median's two middle
// ranks of an odd count, the two neighbours of an exact quantile). A slot's state (QField,
// 64-bit fields) holds the image prefix fixed so far (bits under MASK), the rank left among the
// keys matching it (K_REM, 1-based) and their count. A row has one candidate buffer of `cap`
// keys, shared by its slots: once a slot's matching keys fit what is left of it, the slot takes
// that many (OFFSET), the next pass over the row writes them there and every later pass reads
// them only; a slot whose prefix is that of an earlier slot taking its keys in the same pass
// follows it (FOLLOW: reads the same keys afterwards, written once). The space taken is decided
// on the device, slot after slot (`plan_buffer`), from the counts of the histograms.
//
//   quantile_first<U, BLOCK, ITEMS>: the first digit, over every key: one histogram of the top
//     `width` image bits per row (every slot starts with the empty prefix, so one histogram
//     serves them all), the row's NaN count and the largest bits of its NaNs. grid =
//     blocks_per_row * rows, BLOCK threads, static shared memory 8192 counters + BLOCK / 32
//     words.
//   quantile_start<BLOCK>: one block per row: for each live slot in turn a block scan of the
//     row's histogram, the one thread whose bins hold its rank fixing the first digit, setting
//     the slot's state and its share of the buffer; the histogram is left zero. grid = rows,
//     BLOCK (1024) threads.
//   quantile_pass<U, BLOCK, ITEMS, G>: a later digit: each block serves G slots of a row (a
//     group): the slots still reading the row share one read of it (each key tested against
//     each slot's prefix, counted in the slot's shared histogram of 2^width <= 8192 / G bins,
//     and written to the slot's buffer when the slot buffers this pass, in any order (only
//     their histograms matter): a thread's matches of a slot counted in a 16-bit field, four
//     slots in a 64-bit word, a warp scan of them and one atomic per warp and slot with
//     matches, no block barrier per tile), the buffered slots read their keys of the buffer.
//     grid = blocks_per_row * groups * rows, BLOCK threads, static shared memory 8192 counters
//     + G slot words.
//   quantile_choose<BLOCK>: one block per row, its slots in turn: fixes the slot's digit from
//     its histogram (that of the earlier slot of its prefix, SAME, which the pass counted for
//     both; zeroed for the next pass), moves it to the buffer when the pass just wrote its keys
//     (or those of the slot it follows), decides whether the next pass writes them. grid =
//     rows, BLOCK (1024) threads.
//   quantile_bits<U>: one thread per row: each slot's key bits (the inverse image of its prefix,
//     every bit fixed by then; an alias takes its slot's). grid covers rows, 256 threads.
//   quantile_finish<U, T, O>: one thread per row, float keys (U: float's or double's bits): the
//     row's results from its slots, NumPy's arithmetic in T in one launch, stored as O (T, or
//     float for double arithmetic: the host's rounding of its results into a float array):
//     each output j the value of slot 2j (TAKE), NumPy's _lerp of slots 2j and 2j + 1 by
//     coefficients given per output (LERP; shared by the rows, coef_stride 0, or each row's
//     own, coef_stride apart), or NumPy's median of slots 0 and 1 (MEAN: a sum from 0.0,
//     halved for two values). NaNs (NanMode): a row holding NaNs gives its NaN, widened to O
//     as the host's casts do (ROW_NAN: quantile, median); or a row of `len` NaNs gives the
//     positive quiet NaN and any other row its values, its ranks those of its keys but the
//     NaNs, which the image orders last (ALL_NAN: the nan-functions). A NaN the arithmetic
//     makes of numbers (inf - inf, inf * 0) is `made`, the host's (a device's arithmetic and
//     conversions give its canonical NaN). Every operation rounded on its own (no fused
//     multiply-add), as NumPy's. out (Q, rows). grid covers rows, 256 threads.
//   quantile_part_count<U, BLOCK, ITEMS> / quantile_part_scatter<U, BLOCK, ITEMS, ARG, M>: a
//     partition of each row by its selected values (argpartition, partition): the distinct
//     images of the row's live slots (ascending) split the image order into 2m + 1 buckets
//     (below the first value, equal to it, between it and the next...; at most PART_BUCKETS; the
//     scatter's loops and words sized for M splitters at most, 1 for a single kth);
//     the count pass sums each block's keys per bucket (counts (rows, PART_BUCKETS,
//     blocks_per_row), zero past a row's buckets; the block's span of tiles read by the 16-byte
//     walk for_each_packet (util/pack16.cuh), each thread counting its keys below and equal
//     to each splitter),
//     whose exclusive scan (bucket-major; each scatter block sums what it needs of them) gives
//     each block its start in each bucket; the scatter
//     pass reads the same tiles in the same order and writes each key (or with ARG its index)
//     there, in index order within a bucket: a block reads a contiguous run of tiles (the
//     row's tiles split evenly), thread t holds keys t * ITEMS .. of a tile (load_items: its own
//     16-byte loads on full tiles of aligned rows; the next tile's loads issued before this
//     tile's work), their places in the tile's bucket order from block scans of per-thread
//     bucket counts (16 bits each, four buckets a 64-bit word, as many words as the row's
//     buckets need); the
//     tile is staged in shared memory in that order and each bucket's run written out by
//     consecutive threads to consecutive addresses. A slot's value lands at its rank. grid =
//     blocks_per_row * rows, BLOCK threads, static shared memory: the splitters, the scan
//     words and (scatter) the staged tile, TILE keys or with ARG TILE 16-bit places. A row with
//     no live slot (split.cu's split_take took it) is left alone.
// Preconditions: 0 <= ranks < len (row r's at ranks + r * rank_stride); len >= 1; hist zero on
//   entry (left zero by quantile_start and quantile_choose); nanbits zero on entry; cap >= 1; a
//   buffer of rows * cap keys; the passes' digits cover the image from its top bit down, the
//   first one quantile_first's.
// The split by one kth (split.cu) shares the device functions of quantile.cuh.
// Every kernel is a template (the one-block-a-row ones over their block size): NVRTC builds
// every non-template kernel of a file into each program, so an instantiation compiled alone on
// first use would carry them all (each compile about 40% longer).
#include "selection/quantile.cuh"

template <class U, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    quantile_first(const U* __restrict__ keys, long long len, long long blocks_per_row,
                   unsigned long long* __restrict__ hist, unsigned long long* __restrict__ nans,
                   U* __restrict__ nanbits, int kind, int shift, int width) {
    using namespace prim::quantile;
    constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
    constexpr int VN = prim::Vec16<U>::N;
    static_assert(ITEMS % VN == 0, "quantile_first: whole 16-byte vectors per thread");
    __shared__ unsigned counts[MAX_BINS];
    __shared__ unsigned long long scratch[BLOCK / prim::WARP];
    const long long row = blockIdx.x / blocks_per_row;
    const long long part = blockIdx.x % blocks_per_row;
    const int bins = 1 << width;
    for (int i = threadIdx.x; i < bins; i += BLOCK) counts[i] = 0u;
    __syncthreads();
    const bool is_float = kind == prim::radix::FLOAT;
    const U* row_keys = keys + row * len;
    const bool aligned = (reinterpret_cast<prim::uptr>(row_keys) & 15u) == 0;
    unsigned long long nan = 0;
    U nan_max = 0;  // the largest NaN bits seen (a NaN's bits are never 0)
    for (long long t0 = part * TILE; t0 < len; t0 += blocks_per_row * TILE) {
        U key[ITEMS];
        const unsigned valid =
            load_striped<U, BLOCK, ITEMS>(row_keys, t0, len, aligned && t0 + TILE <= len, key);
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            if (!((valid >> i) & 1u)) continue;
            const bool is_nan = is_float && prim::radix::needs_fold(key[i]);
            nan += is_nan;
            nan_max = is_nan && key[i] > nan_max ? key[i] : nan_max;
            atomicAdd(&counts[static_cast<unsigned>(image(key[i], kind) >> shift) & (bins - 1)],
                      1u);
        }
    }
    const unsigned long long n =
        prim::block_reduce<BLOCK>(nan, prim::Sum<unsigned long long>(), scratch);
    __syncthreads();
    unsigned long long* row_hist = hist + row * MAX_BINS;
    for (int i = threadIdx.x; i < bins; i += BLOCK)
        if (counts[i]) atomicAdd(&row_hist[i], static_cast<unsigned long long>(counts[i]));
    if (threadIdx.x == 0 && n) atomicAdd(&nans[row], n);
    if (nan_max) atomicMax(&nanbits[row], nan_max);
}

// One block per row: every live slot's first digit and share of the buffer (see the header).
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    quantile_start(unsigned long long* __restrict__ hist, const long long* __restrict__ ranks,
                   long long rank_stride, long long* __restrict__ state,
                   long long* __restrict__ used, long long slots, long long cap, int shift,
                   int width) {
    using namespace prim::quantile;
    constexpr int PER = MAX_BINS / BLOCK;
    __shared__ unsigned long long scratch[BLOCK / prim::WARP];
    __shared__ long long s_used;
    const long long row = blockIdx.x;
    unsigned long long* h = hist + row * MAX_BINS;
    const long long* rk = ranks + row * rank_stride;
    long long* row_state = state + row * slots * FIELDS;
    const int bins = 1 << width;
    if (threadIdx.x == 0) s_used = 0;
    __syncthreads();
    for (long long s = 0; s < slots; ++s) {
        long long* st = row_state + s * FIELDS;
        const bool live = s == 0 || rk[s] != rk[s - 1];  // block-uniform
        if (!live) {
            if (threadIdx.x == 0) {
                st[LIVE] = 0;
                st[WILL_BUFFER] = 0;
                st[SAME] = -1;
            }
            __syncthreads();
            continue;
        }
        find_bin<BLOCK>(h, bins, static_cast<unsigned long long>(rk[s] + 1), scratch,
                        [&](int bin, unsigned long long below, unsigned long long c) {
                            const unsigned long long m = static_cast<unsigned long long>(bins - 1);
                            st[PREFIX] = static_cast<long long>(static_cast<unsigned long long>(bin)
                                                                << shift);
                            st[MASK] = static_cast<long long>(m << shift);
                            st[K_REM] = static_cast<long long>(rk[s] + 1 - below);
                            st[COUNT] = static_cast<long long>(c);
                            st[LIVE] = 1;
                            st[SRC_BUFFER] = 0;
                            st[WRITTEN] = 0;
                            st[SRC_COUNT] = 0;
                            st[OFFSET] = 0;
                            plan_buffer(row_state, s, cap, s_used);
                        });
        __syncthreads();  // the scan's words are reused by the next slot, which reads this one
    }
    for (int j = 0; j < PER; ++j) {  // zero for the next use (each thread its own bins)
        const int b = threadIdx.x * PER + j;
        if (b < bins) h[b] = 0ull;
    }
    if (threadIdx.x == 0) used[row] = s_used;
}

template <class U, int BLOCK, int ITEMS, int G>
__global__ void __launch_bounds__(BLOCK)
    quantile_pass(const U* __restrict__ keys, long long len, long long blocks_per_row,
                  long long groups, long long slots, U* __restrict__ buf, long long cap,
                  long long* __restrict__ state, unsigned long long* __restrict__ hist, int kind,
                  int shift, int width) {
    using namespace prim::quantile;
    constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
    constexpr int VN = prim::Vec16<U>::N;
    static_assert(ITEMS % VN == 0, "quantile_pass: whole 16-byte vectors per thread");
    static_assert(prim::WARP * ITEMS < 65536,
                  "quantile_pass: a warp's matches of a slot are summed in a 16-bit field");
    static_assert(G >= 1 && G <= 8, "quantile_pass: at most 8 slots a group (two count words)");
    __shared__ unsigned counts[MAX_BINS];
    __shared__ U s_prefix[G], s_mask[G];
    // 0 idle (or counted by an earlier slot: SAME), 1 reads the row, 2 reads and writes the
    // row, 3 reads the buffer
    __shared__ int s_mode[G];
    __shared__ long long s_off[G];
    const long long part = blockIdx.x % blocks_per_row;
    const long long g = (blockIdx.x / blocks_per_row) % groups;
    const long long row = blockIdx.x / (blocks_per_row * groups);
    const int bins = 1 << width;
    for (int i = threadIdx.x; i < G * bins; i += BLOCK) counts[i] = 0u;
    if (threadIdx.x < G) {
        const long long s = g * G + threadIdx.x;
        int mode = 0;
        if (s < slots) {
            const long long* st = state + (row * slots + s) * FIELDS;
            if (st[LIVE] && st[SAME] < 0) mode = st[SRC_BUFFER] ? 3 : (st[WILL_BUFFER] ? 2 : 1);
            s_prefix[threadIdx.x] = static_cast<U>(st[PREFIX]);
            s_mask[threadIdx.x] = static_cast<U>(st[MASK]);
            s_off[threadIdx.x] = st[OFFSET];
        }
        s_mode[threadIdx.x] = mode;
    }
    __syncthreads();
    bool reads = false, writes = false, any = false;  // block-uniform: the slots' modes
#pragma unroll
    for (int j = 0; j < G; ++j) {
        reads |= s_mode[j] == 1 || s_mode[j] == 2;
        writes |= s_mode[j] == 2;
        any |= s_mode[j] != 0;
    }
    if (!any) return;  // nothing to count (counts stay zero): idle slots, or a row split_take took
    const U* row_keys = keys + row * len;
    U* row_buf = buf + row * cap;
    const bool aligned = (reinterpret_cast<prim::uptr>(row_keys) & 15u) == 0;
    for (long long t0 = part * TILE; reads && t0 < len; t0 += blocks_per_row * TILE) {
        U img[ITEMS];
        const unsigned valid =
            load_striped<U, BLOCK, ITEMS>(row_keys, t0, len, aligned && t0 + TILE <= len, img);
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) img[i] = image(img[i], kind);  // past len: unused
        unsigned long long packed[2] = {0ull, 0ull};  // this thread's matches of each slot
#pragma unroll
        for (int j = 0; j < G; ++j) {
            const int mode = s_mode[j];
            if (mode != 1 && mode != 2) continue;
            const U pre = s_prefix[j], mask = s_mask[j];
#pragma unroll
            for (int i = 0; i < ITEMS; ++i) {
                if (((valid >> i) & 1u) && (img[i] & mask) == pre) {
                    atomicAdd(&counts[j * bins +
                                      (static_cast<unsigned>(img[i] >> shift) &
                                       static_cast<unsigned>(bins - 1))],
                              1u);
                    if (mode == 2) packed[j / 4] += 1ull << (16 * (j % 4));
                }
            }
        }
        if (writes) {  // block-uniform: each warp claims its matches' places with one atomic
            const int lane = threadIdx.x % prim::WARP;
#pragma unroll
            for (int j = 0; j < G; ++j) {
                if (s_mode[j] != 2) continue;
                const unsigned mine =
                    static_cast<unsigned>((packed[j / 4] >> (16 * (j % 4))) & 0xffffull);
                const unsigned upto = prim::warp_inclusive_scan(mine, prim::Sum<unsigned>());
                const unsigned n = prim::shfl_idx(upto, prim::WARP - 1);
                if (n == 0) continue;  // warp-uniform: most warps of most tiles match nothing
                unsigned long long base = 0;
                if (lane == prim::WARP - 1) {
                    long long* st = state + (row * slots + g * G + j) * FIELDS;
                    base = atomicAdd(reinterpret_cast<unsigned long long*>(&st[WRITTEN]),
                                     static_cast<unsigned long long>(n));
                }
                base = prim::shfl_idx(base, prim::WARP - 1);
                if (mine == 0) continue;
                const U pre = s_prefix[j], mask = s_mask[j];
                long long at = static_cast<long long>(base + (upto - mine));
                U* out = row_buf + s_off[j];
#pragma unroll
                for (int i = 0; i < ITEMS; ++i)
                    if (((valid >> i) & 1u) && (img[i] & mask) == pre) out[at++] = img[i];
            }
        }
    }
    // the buffered slots: their candidates only
    for (int j = 0; j < G; ++j) {
        if (s_mode[j] != 3) continue;
        const long long* st = state + (row * slots + g * G + j) * FIELDS;
        const long long count = st[SRC_COUNT];
        const U* in = row_buf + s_off[j];
        const U pre = s_prefix[j], mask = s_mask[j];
        for (long long i = part * BLOCK + threadIdx.x; i < count; i += blocks_per_row * BLOCK) {
            const U im = in[i];
            if ((im & mask) == pre)
                atomicAdd(
                    &counts[j * bins +
                            (static_cast<unsigned>(im >> shift) & static_cast<unsigned>(bins - 1))],
                    1u);
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < G * bins; i += BLOCK) {
        const int j = i / bins;
        if (counts[i] && g * G + j < slots)
            atomicAdd(&hist[(row * slots + g * G + j) * MAX_BINS / G + (i % bins)],
                      static_cast<unsigned long long>(counts[i]));
    }
}

// One block per row: each live slot's next digit and share of the buffer (see the header).
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    quantile_choose(unsigned long long* __restrict__ hist, long long* __restrict__ state,
                    long long* __restrict__ used, long long slots, long long cap, int group,
                    int shift, int width) {
    using namespace prim::quantile;
    constexpr int PER = MAX_BINS / BLOCK;
    __shared__ unsigned long long scratch[BLOCK / prim::WARP];
    __shared__ long long s_used;
    const long long row = blockIdx.x;
    long long* row_state = state + row * slots * FIELDS;
    const int bins = 1 << width;
    if (threadIdx.x == 0) s_used = used[row];
    __syncthreads();
    for (long long s = 0; s < slots; ++s) {
        long long* st = row_state + s * FIELDS;
        if (!st[LIVE]) continue;  // block-uniform
        // read before the scan's barriers: the thread that finds the bin rewrites them after
        const long long same = st[SAME];
        const unsigned long long* h =
            hist + (row * slots + (same >= 0 ? same : s)) * (MAX_BINS / group);
        const unsigned long long k = static_cast<unsigned long long>(st[K_REM]);
        const bool wrote = st[WILL_BUFFER] != 0;
        const long long follow = st[FOLLOW];
        const long long written = st[WRITTEN];
        find_bin<BLOCK>(
            h, bins, k, scratch, [&](int bin, unsigned long long below, unsigned long long c) {
                const unsigned long long m = static_cast<unsigned long long>(bins - 1);
                st[PREFIX] =
                    static_cast<long long>(static_cast<unsigned long long>(st[PREFIX]) |
                                           (static_cast<unsigned long long>(bin) << shift));
                st[MASK] = static_cast<long long>(static_cast<unsigned long long>(st[MASK]) |
                                                  (m << shift));
                st[K_REM] = static_cast<long long>(k - below);
                st[COUNT] = static_cast<long long>(c);
                if (wrote) {  // the pass just run wrote the slot's candidates
                    st[SRC_BUFFER] = 1;
                    st[SRC_COUNT] = written;
                } else if (follow >= 0) {  // ... or those of the earlier slot it follows (done)
                    const long long* o = row_state + follow * FIELDS;
                    st[SRC_BUFFER] = 1;
                    st[OFFSET] = o[OFFSET];
                    st[SRC_COUNT] = o[SRC_COUNT];
                }
                st[WRITTEN] = 0;
                plan_buffer(row_state, s, cap, s_used);
            });
        __syncthreads();  // the scan's words are reused by the next slot, which reads this one
    }
    // zero for the next pass, once every slot read them (each thread its own bins)
    for (long long s = 0; s < slots; ++s) {
        unsigned long long* h = hist + (row * slots + s) * (MAX_BINS / group);
        for (int j = 0; j < PER; ++j) {
            const int b = threadIdx.x * PER + j;
            if (b < bins) h[b] = 0ull;
        }
    }
    if (threadIdx.x == 0) used[row] = s_used;
}

// One thread per row: each slot's key bits (see the header).
template <class U>
__global__ void __launch_bounds__(256)
    quantile_bits(const long long* __restrict__ state, long long rows, long long slots, int kind,
                  U* __restrict__ out) {
    using namespace prim::quantile;
    const long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    U last = 0;
    for (long long s = 0; s < slots; ++s) {
        const long long* st = state + (row * slots + s) * FIELDS;
        if (st[LIVE]) last = key_of(static_cast<U>(st[PREFIX]), kind);
        out[row * slots + s] = last;
    }
}

namespace prim {
namespace quantile {

enum FinishMode { TAKE = 0, LERP = 1, MEAN = 2 };
enum NanMode { ROW_NAN = 0, ALL_NAN = 1 };

// Rounded arithmetic of one type, never fused (NumPy's is a sequence of rounded operations).
__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float sub_rn(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double sub_rn(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }

template <class U> struct FloatOf;
template <> struct FloatOf<prim::u32> { using type = float; };
template <> struct FloatOf<prim::u64> { using type = double; };

__device__ __forceinline__ float value_of(prim::u32 bits) { return __uint_as_float(bits); }
__device__ __forceinline__ double value_of(prim::u64 bits) {
    return __longlong_as_double(static_cast<long long>(bits));
}

// A NaN of U's bits as T: the same bits for a T of U's width; float's as double as the host's
// conversion (sign and payload kept, the payload shifted up, the quiet bit set).
template <class T, class U>
__device__ __forceinline__ T nan_as(U bits) {
    if constexpr (sizeof(T) == sizeof(U)) {
        return value_of(bits);
    } else {
        return value_of((static_cast<prim::u64>(bits & 0x80000000u) << 32) | 0x7ff8000000000000ull |
                        (static_cast<prim::u64>(bits & 0x007fffffu) << 29));
    }
}

}  // namespace quantile
}  // namespace prim

// One thread per row: the row's results (see the header). coef: 3 * outputs values of T (per
// row, coef_stride apart, or shared: 0), for LERP: each output's t, its complement 1 - t
// (computed in q's dtype) and whether t >= 0.5.
template <class U, class T, class O>
__global__ void __launch_bounds__(256)
    quantile_finish(const long long* __restrict__ state, long long rows, long long slots, int kind,
                    int mode, const T* __restrict__ coef, long long coef_stride,
                    const unsigned long long* __restrict__ nans, const U* __restrict__ nanbits,
                    int nan_mode, long long len, O made, O* __restrict__ out) {
    using namespace prim::quantile;
    using V = typename FloatOf<U>::type;
    static_assert(sizeof(O) <= sizeof(T), "quantile_finish: results stored as T or narrower");
    const long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const long long* st = state + row * slots * FIELDS;
    const T* c = coef + row * coef_stride;
    const bool row_nan =
        nan_mode == ROW_NAN ? nans[row] > 0 : nans[row] == static_cast<unsigned long long>(len);
    const O nan =
        nan_mode == ROW_NAN ? nan_as<O>(nanbits[row]) : nan_as<O>(prim::radix::Bits<U>::QNAN);
    const long long outputs = mode == MEAN ? 1 : slots / 2;
    U last = 0;
    for (long long j = 0; j < outputs; ++j) {
        const long long s = 2 * j;
        if (st[s * FIELDS + LIVE]) last = key_of(static_cast<U>(st[s * FIELDS + PREFIX]), kind);
        const V a = value_of(last);
        T res = static_cast<T>(a);
        if (mode != TAKE) {
            const bool two = st[(s + 1) * FIELDS + LIVE] != 0;
            if (two) last = key_of(static_cast<U>(st[(s + 1) * FIELDS + PREFIX]), kind);
            const V b = value_of(last);
            if (mode == MEAN) {
                const V sum = add_rn(static_cast<V>(0), a);
                res = static_cast<T>(two ? mul_rn(add_rn(sum, b), static_cast<V>(0.5)) : sum);
            } else {
                const T diff = static_cast<T>(sub_rn(b, a));
                const T t = c[j], u = c[outputs + j];
                res = c[2 * outputs + j] != static_cast<T>(0)
                    ? sub_rn(static_cast<T>(b), mul_rn(diff, u))
                    : add_rn(static_cast<T>(a), mul_rn(diff, t));
            }
        }
        O o = static_cast<O>(res);  // rounded to nearest, as the host's cast
        if (o != o) o = made;  // selected: the host's NaN, not the device's
        if (row_nan) o = nan;
        out[j * rows + row] = o;
    }
}

namespace prim {
namespace quantile {

constexpr int PART_BUCKETS = 9;  // 2 * 4 + 1: at most four distinct values split a row

// The distinct images of a row's live slots, ascending (slots in ascending rank order), into
// shared memory by thread 0; their count. Whole block.
template <class U>
__device__ __forceinline__ int load_splitters(const long long* row_state, long long slots, U* v,
                                              int* m) {
    if (threadIdx.x == 0) {
        int c = 0;
        for (long long s = 0; s < slots; ++s) {
            const long long* st = row_state + s * FIELDS;
            if (!st[LIVE]) continue;
            const U img = static_cast<U>(st[PREFIX]);
            if (c == 0 || v[c - 1] != img) v[c++] = img;
        }
        *m = c;
    }
    __syncthreads();
    return *m;
}

// A bucket's 16-bit field of packed counts (four buckets a 64-bit word): add one, read it. The
// word is chosen by selects, not by an index (a run-time index puts the words in local memory).
template <int W>
__device__ __forceinline__ void packed_add(unsigned long long (&p)[W], int b) {
    const unsigned long long one = 1ull << (16 * (b & 3));
#pragma unroll
    for (int w = 0; w < W; ++w) p[w] += (b >> 2) == w ? one : 0ull;
}
template <int W>
__device__ __forceinline__ int packed_get(const unsigned long long (&p)[W], int b) {
    unsigned long long word = p[0];
#pragma unroll
    for (int w = 1; w < W; ++w) word = (b >> 2) == w ? p[w] : word;
    return static_cast<int>((word >> (16 * (b & 3))) & 0xffffull);
}

// An image's bucket: twice the splitters below it, one more when it equals one (m <= M of them).
template <int M, class U>
__device__ __forceinline__ int bucket_of(U img, const U* v, int m) {
    int b = 0;
#pragma unroll
    for (int j = 0; j < M; ++j) {
        if (j >= m) break;
        b += (img > v[j]) ? 2 : (img == v[j] ? 1 : 0);
    }
    return b;
}

}  // namespace quantile
}  // namespace prim

template <class U, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    quantile_part_count(const U* __restrict__ keys, long long len, long long blocks_per_row,
                        const long long* __restrict__ state, long long slots, int kind,
                        unsigned long long* __restrict__ counts) {
    using namespace prim::quantile;
    constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
    constexpr int N = prim::Vec16<U>::N;
    static_assert(ITEMS % N == 0, "quantile_part_count: whole 16-byte vectors a thread");
    __shared__ U s_v[PART_BUCKETS / 2];
    __shared__ int s_m;
    __shared__ unsigned long long scratch[BLOCK / prim::WARP];
    const long long row = blockIdx.x / blocks_per_row;
    const long long part = blockIdx.x % blocks_per_row;
    const int m = load_splitters(state + row * slots * FIELDS, slots, s_v, &s_m);
    if (m == 0) return;  // no live slot: a row split_take took (block-uniform)
    const U* row_keys = keys + row * len;
    const long long per = (len + TILE * blocks_per_row - 1) / (TILE * blocks_per_row);
    const long long end = min((part + 1) * per, (len + TILE - 1) / TILE);  // this block's tiles
    // per thread and splitter: its keys below the splitter and equal to it (a thread counts at
    // most len / BLOCK keys, under 2^32 for any row a device holds)
    constexpr int MS = PART_BUCKETS / 2;
    U v[MS];
    unsigned lt[MS], eq[MS];
#pragma unroll
    for (int j = 0; j < MS; ++j) {
        v[j] = j < m ? s_v[j] : static_cast<U>(0);
        lt[j] = 0u;
        eq[j] = 0u;
    }
    auto count = [&](U key) {
        const U img = image(key, kind);
#pragma unroll
        for (int j = 0; j < MS; ++j) {
            if (j >= m) break;  // block-uniform
            lt[j] += img < v[j];
            eq[j] += img == v[j];
        }
    };
    // every key of the block's tiles once: the project's 16-byte walk, ITEMS / N packets in
    // flight a thread (a scalar head and tail where the row is not 16-byte aligned)
    const long long lo = min(part * per * TILE, len), hi = min(end * TILE, len);
    const long long span = hi > lo ? hi - lo : 0;
    prim::for_each_packet<ITEMS / N>(
        row_keys + lo, span, threadIdx.x, BLOCK, [&](U key, long long) { count(key); },
        [&](const prim::Pack16<U>& p, long long) {
#pragma unroll
            for (int k = 0; k < N; ++k) count(p.v[k]);
        });
    // the block's buckets: below the first splitter, equal to it, between it and the next...
    unsigned long long below = 0;  // keys below splitter j - 1 or equal to it (the block's)
    for (int b = 0; b < PART_BUCKETS; ++b) {  // every bucket's count, zero past 2m + 1
        unsigned long long n = 0;
        const int j = b / 2;
        if (b < 2 * m) {
            unsigned x = 0;
#pragma unroll
            for (int k = 0; k < MS; ++k) x = k == j ? ((b & 1) ? eq[k] : lt[k]) : x;
            n = prim::block_reduce<BLOCK>(static_cast<unsigned long long>(x),
                                          prim::Sum<unsigned long long>(), scratch);
            __syncthreads();  // the reduction's words are reused
        }
        if (threadIdx.x == 0) {
            unsigned long long c = 0;
            if (b == 2 * m)
                c = static_cast<unsigned long long>(span) - below;
            else if (b < 2 * m)
                c = (b & 1) ? n : n - below;
            below += c;
            counts[(row * PART_BUCKETS + b) * blocks_per_row + part] = c;
        }
    }
}

template <class U, int BLOCK, int ITEMS, bool ARG, int M>
__global__ void __launch_bounds__(BLOCK)
    quantile_part_scatter(const U* __restrict__ keys, long long len, long long blocks_per_row,
                          const long long* __restrict__ state, long long slots, int kind,
                          const unsigned long long* __restrict__ counts, U* __restrict__ out_keys,
                          long long* __restrict__ out_index) {
    using namespace prim::quantile;
    constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
    constexpr int N = prim::Vec16<U>::N;
    static_assert(TILE < 65536, "quantile_part_scatter: a tile's counts are packed in 16 bits");
    static_assert(ITEMS % N == 0, "quantile_part_scatter: whole 16-byte vectors a thread");
    static_assert(M >= 1 && 2 * M + 1 <= PART_BUCKETS, "quantile_part_scatter: M splitters");
    constexpr int BK = 2 * M + 1, W = (BK + 3) / 4;  // buckets and scan words at most
    // the tile in bucket order: the keys, or with ARG their places in the tile
    typedef typename prim::Select<ARG, unsigned short, U>::type Staged;
    __shared__ U s_v[PART_BUCKETS / 2];
    __shared__ int s_m;
    __shared__ unsigned long long scratch[BLOCK / prim::WARP];
    __shared__ unsigned long long s_base[BK];
    __shared__ int s_first[BK + 1];  // the buckets' first places in the staged tile
    __shared__ __align__(16) Staged s_tile[TILE];
    const long long row = blockIdx.x / blocks_per_row;
    const long long part = blockIdx.x % blocks_per_row;
    const int m = load_splitters(state + row * slots * FIELDS, slots, s_v, &s_m);
    if (m == 0) return;  // no live slot: a row split_take took (block-uniform)
    const int buckets = 2 * m + 1;
    {  // the block's start in each bucket: every block's keys of the lower buckets, and the
        // blocks' before it of its own (the count pass's counts, bucket-major)
        unsigned long long lower = 0;
        for (int b = 0; b < buckets; ++b) {  // block-uniform
            const unsigned long long* c = counts + (row * PART_BUCKETS + b) * blocks_per_row;
            unsigned long long all = 0, before = 0;
            for (long long q = threadIdx.x; q < blocks_per_row; q += BLOCK) {
                all += c[q];
                before += q < part ? c[q] : 0ull;
            }
            const prim::Sum<unsigned long long> sum;
            all = prim::block_reduce<BLOCK>(all, sum, scratch);
            __syncthreads();  // the reduction's words are reused
            before = prim::block_reduce<BLOCK>(before, sum, scratch);
            if (threadIdx.x == 0) {
                s_base[b] = lower + before;
                lower += all;
            }
            __syncthreads();
        }
    }
    const U* row_keys = keys + row * len;
    const long long per = (len + TILE * blocks_per_row - 1) / (TILE * blocks_per_row);
    const long long end = min((part + 1) * per, (len + TILE - 1) / TILE);  // this block's tiles
    const bool aligned = (reinterpret_cast<prim::uptr>(row_keys) & 15u) == 0;
    const int words = (buckets + 3) / 4;  // the scan words the row's buckets use
    const int first = threadIdx.x * ITEMS;
    // thread t holds keys t * ITEMS .. of a tile: each bucket's keys keep their order; past the
    // row: zeros (no bucket, below)
    U key[ITEMS], next[ITEMS];
    auto load_tile = [&](long long t, U(&k)[ITEMS]) {
        const int n = static_cast<int>(min(TILE, len - t * TILE));
        prim::load_items<U, U, prim::Sum<U>, ITEMS>(row_keys + t * TILE + first, n - first,
                                                    aligned && n == TILE, k);
    };
    if (part * per < end) load_tile(part * per, key);
    for (long long t = part * per; t < end; ++t) {
        const long long t0 = t * TILE;
        const int live = static_cast<int>(min(TILE, len - t0));  // keys of this tile
        if (t + 1 < end) load_tile(t + 1, next);  // in flight during this tile's work
        unsigned char b[ITEMS];
        unsigned long long packed[W];
#pragma unroll
        for (int w = 0; w < W; ++w) packed[w] = 0;
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            b[i] = BK;  // past the row: none
            if (first + i < live) {
                b[i] = static_cast<unsigned char>(bucket_of<M>(image(key[i], kind), s_v, m));
                packed_add(packed, b[i]);
            }
        }
        unsigned long long pos[W] = {};
#pragma unroll
        for (int w = 0; w < W; ++w) {
            if (w >= words) break;  // block-uniform
            unsigned long long total;
            pos[w] = prim::block_exclusive_scan<BLOCK>(packed[w], prim::Sum<unsigned long long>(),
                                                       scratch, total);
            if (threadIdx.x == 0) {  // the buckets' totals into their first places
                if (w == 0) s_first[0] = 0;
                for (int k = 0; k < 4 && 4 * w + k < BK; ++k)
                    s_first[4 * w + k + 1] = static_cast<int>((total >> (16 * k)) & 0xffffull);
            }
            __syncthreads();  // the scan's words are reused
        }
        if (threadIdx.x == 0) {
            for (int k = 4 * words + 1; k <= BK; ++k) s_first[k] = 0;  // not scanned
            for (int k = 1; k <= BK; ++k) s_first[k] += s_first[k - 1];
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {  // staged in bucket order
            if (b[i] >= BK) continue;
            const int at = s_first[b[i]] + packed_get(pos, b[i]);
            packed_add(pos, b[i]);
            if constexpr (ARG)
                s_tile[at] = static_cast<unsigned short>(first + i);
            else
                s_tile[at] = key[i];
        }
        __syncthreads();
        // each bucket's run of the staged tile to its place: consecutive threads, consecutive
        // addresses
        for (int j = threadIdx.x; j < live; j += BLOCK) {
            int bk = 0;
#pragma unroll
            for (int k = 1; k < BK; ++k) bk += j >= s_first[k];
            const long long at = static_cast<long long>(s_base[bk]) + (j - s_first[bk]);
            if constexpr (ARG)
                out_index[row * len + at] = t0 + s_tile[j];
            else
                out_keys[row * len + at] = s_tile[j];
        }
        __syncthreads();  // every thread read s_base, s_first and s_tile before they change
        if (threadIdx.x < buckets)
            s_base[threadIdx.x] += s_first[threadIdx.x + 1] - s_first[threadIdx.x];
        __syncthreads();
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) key[i] = next[i];
    }
}

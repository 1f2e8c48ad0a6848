// split.cu -- the split of rows by one kth (prim.argpartition, prim.partition), digit by digit
// (MSD), in place of quantile.cu's partition by the selected value where the kth's first-digit bin
// holds at most `cap` keys. The selection's first digit is quantile.cu's (quantile_start chooses
// it from split_first's histogram); the rows' state: SplitField, SPLIT_FIELDS 64-bit words a row.
// split_first<U, BLOCK, ITEMS>: quantile_first's histogram of the first digit (no NaN counts),
//   each block's own written too (block_hist, 2^width counters a block). grid =
//   blocks_per_row * rows, BLOCK threads, static shared memory 8192 counters.
// split_take<BLOCK>: one thread a row (blocks of BLOCK, 256), after quantile_start: takes the
//   row when the kth's bin holds at most cap keys (its first level from the slot's state; the
//   slot made not live).
// split_bounds<BLOCK>: a block of BLOCK (256) threads a (row, block of the level's count): the
//   block's keys below the kth's bin, in it and above it, from its histogram (cnt (rows,
//   blocks, 3)).
// split_scatter<U, BLOCK, ITEMS, ARG, ROW, PREFETCH, MIN_BLOCKS>: each key of a level's source
//   (ROW: the row, the first level; else the last level's buffer) to the front of the level's
//   range (a lower bin), to the next buffer (the kth's bin; with the last digit to its place in
//   the output) or to the back (a higher bin), with ARG its index (and into the buffer its key
//   too). A
//   block reads the tiles its count read, its starts the sums of the blocks before it; in a
//   tile each warp its own 32 * ITEMS consecutive keys (16-byte loads, lane l vector u at
//   (32u + l) * N), each key's place in its warp's run from ballots, the warps' runs in warp
//   order: one barrier a tile (the warps' counts, 21 bits each of three in a 64-bit word,
//   double-buffered). The parts' order is fixed by the input, not its index order. MIN_BLOCKS:
//   __launch_bounds__' resident blocks an SM (1: no bound on registers). grid =
//   blocks_per_row * rows (the count's), BLOCK threads, static shared memory 3 * BLOCK / 32 +
//   a few words.
// split_hist<U, BLOCK, ITEMS>: a later digit's histogram of the buffered keys (as
//   split_first's). split_choose<BLOCK>: one block of BLOCK (1024) threads a row: that digit's
//   bin of the kth (find_bin), the level's range moved past the last level's lower bins; the
//   row histogram left zero. A later level: split_hist, split_choose, split_bounds,
//   split_scatter, the buffers alternating; two reads of the rows in all (split_first, the
//   first scatter) and one write, the later levels reading only the kth's bins.
// Preconditions: as quantile.cu's selection's; one slot a row (rank `rank`), cap a multiple of
//   4 (its buffers' rows 16-byte aligned), two buffers of rows * cap keys (and with ARG
//   indices), its levels the selection's digits, a level's count and scatter of the same
//   blocks_per_row and TILE; hist zero on entry to a later level (split_choose leaves it so).
// Every kernel is a template (the one-block-a-row ones over their block size): NVRTC builds
// every non-template kernel of a file into each program, so an instantiation compiled alone on
// first use would carry them all (each compile about 40% longer).
#include "util/prim.cuh"
#include "selection/quantile.cuh"

namespace prim {
namespace quantile {

// A row's split state (64-bit fields, SPLIT_FIELDS a row): set by split_take for the first digit,
// moved on by split_choose for each later one.
enum SplitField {
    S_TAKE = 0,  // the split serves the row (else the partition by the selected value does)
    S_BIN,  // the kth key's bin of this level's digit
    S_BELOW,  // keys of this level's source in lower bins
    S_MID,  // keys of this level's source in the kth's bin (the next level's source)
    S_K,  // the kth key's rank among those (1-based)
    S_BASE,  // where this level's source range starts in the row's output
    S_SRC,  // keys of this level's source (the row's, or the buffer's)
    SPLIT_FIELDS
};

// A digit of an image: its bits [shift, shift + width).
template <class U>
__device__ __forceinline__ unsigned digit_of(U img, int shift, int width) {
    return static_cast<unsigned>(img >> shift) & ((1u << width) - 1u);
}

// The three counts of a warp's tile, 21 bits each (at most BLOCK * ITEMS keys a tile).
__device__ __forceinline__ long long field21(unsigned long long w, int b) {
    return static_cast<long long>((w >> (21 * b)) & 0x1fffffull);
}

}  // namespace quantile
}  // namespace prim

// The histogram of a digit of a row's source keys (row_keys, len of them; `counts` the block's
// 2^width shared counters): every block its own (block_hist, 2^width counters a block, written
// whole) and the row's (hist: added to, left zero
// by split_choose or quantile_start). A block reads tiles part, part + blocks_per_row, ... of its
// row, as quantile_first and split_scatter. The source: the rows for the first digit
// (split_first), the rows' buffers for a later one (split_hist).
template <class U, int BLOCK, int ITEMS>
__device__ __forceinline__ void split_count(const U* __restrict__ row_keys, long long len,
                                            long long blocks_per_row,
                                            unsigned long long* __restrict__ hist,
                                            unsigned* __restrict__ block_hist, int kind, int shift,
                                            int width, unsigned* counts) {
    using namespace prim::quantile;
    constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
    static_assert(ITEMS % prim::Vec16<U>::N == 0, "split_count: whole 16-byte vectors a thread");
    const long long row = blockIdx.x / blocks_per_row;
    const long long part = blockIdx.x % blocks_per_row;
    const int bins = 1 << width;
    for (int i = threadIdx.x; i < bins; i += BLOCK) counts[i] = 0u;
    __syncthreads();
    const bool aligned = (reinterpret_cast<prim::uptr>(row_keys) & 15u) == 0;
    for (long long t0 = part * TILE; t0 < len; t0 += blocks_per_row * TILE) {
        U key[ITEMS];
        const unsigned valid =
            load_striped<U, BLOCK, ITEMS>(row_keys, t0, len, aligned && t0 + TILE <= len, key);
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
            if ((valid >> i) & 1u)
                atomicAdd(&counts[digit_of(image(key[i], kind), shift, width)], 1u);
    }
    __syncthreads();
    unsigned* mine = block_hist + (row * blocks_per_row + part) * bins;
    unsigned long long* row_hist = hist + row * MAX_BINS;
    for (int i = threadIdx.x; i < bins; i += BLOCK) {
        const unsigned c = counts[i];
        mine[i] = c;
        if (c) atomicAdd(&row_hist[i], static_cast<unsigned long long>(c));
    }
}

template <class U, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    split_first(const U* __restrict__ keys, long long len, long long blocks_per_row,
                unsigned long long* __restrict__ hist, unsigned* __restrict__ block_hist, int kind,
                int shift, int width) {
    __shared__ unsigned counts[prim::quantile::MAX_BINS];
    split_count<U, BLOCK, ITEMS>(keys + (blockIdx.x / blocks_per_row) * len, len, blocks_per_row,
                                 hist, block_hist, kind, shift, width, counts);
}

template <class U, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    split_hist(const U* __restrict__ buf, long long cap, long long blocks_per_row,
               const long long* __restrict__ split, unsigned long long* __restrict__ hist,
               unsigned* __restrict__ block_hist, int kind, int shift, int width) {
    using namespace prim::quantile;
    const long long* sp = split + (blockIdx.x / blocks_per_row) * SPLIT_FIELDS;
    if (!sp[S_TAKE]) return;  // block-uniform
    // the row's buffer: the last level's S_MID keys
    __shared__ unsigned counts[MAX_BINS];
    split_count<U, BLOCK, ITEMS>(buf + (blockIdx.x / blocks_per_row) * cap, sp[S_MID],
                                 blocks_per_row, hist, block_hist, kind, shift, width, counts);
}

// One thread a row: whether the split serves the row (its kth key's first-digit bin holds at most
// cap keys: they fit the buffers), and if so the row's first level from the selection's state
// after quantile_start (one slot, rank `rank`); the slot is then no longer live, so the
// selection's later passes and the partition by its value leave the row to the split.
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    split_take(long long* __restrict__ state, long long rows, long long len, long long rank,
               long long cap, long long* __restrict__ split, int shift, int width) {
    using namespace prim::quantile;
    const long long row = static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x;
    if (row >= rows) return;
    long long* st = state + row * FIELDS;
    long long* sp = split + row * SPLIT_FIELDS;
    const bool take = st[LIVE] && st[COUNT] <= cap;
    sp[S_TAKE] = take;
    if (!take) return;
    sp[S_BIN] = static_cast<long long>((static_cast<unsigned long long>(st[PREFIX]) >> shift) &
                                       ((1ull << width) - 1ull));
    sp[S_BELOW] = rank + 1 - st[K_REM];
    sp[S_MID] = st[COUNT];
    sp[S_K] = st[K_REM];
    sp[S_BASE] = 0;
    sp[S_SRC] = len;
    st[LIVE] = 0;
}

// One block of BLOCK threads a row: a later level's bin from the row's histogram of its digit
// (split_hist's), the histogram left zero; the level's source is the last level's kth bin.
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    split_choose(unsigned long long* __restrict__ hist, long long* __restrict__ split, int width) {
    using namespace prim::quantile;
    constexpr int PER = MAX_BINS / BLOCK;
    __shared__ unsigned long long scratch[BLOCK / prim::WARP];
    const long long row = blockIdx.x;
    long long* sp = split + row * SPLIT_FIELDS;
    if (!sp[S_TAKE]) return;  // block-uniform
    unsigned long long* h = hist + row * MAX_BINS;
    const long long k = sp[S_K], base = sp[S_BASE] + sp[S_BELOW], src = sp[S_MID];
    __syncthreads();  // every thread read the state before the finder rewrites it
    find_bin<BLOCK>(h, 1 << width, static_cast<unsigned long long>(k), scratch,
                    [&](int bin, unsigned long long below, unsigned long long c) {
                        sp[S_BASE] = base;
                        sp[S_SRC] = src;
                        sp[S_BIN] = bin;
                        sp[S_BELOW] = static_cast<long long>(below);
                        sp[S_MID] = static_cast<long long>(c);
                        sp[S_K] = k - static_cast<long long>(below);
                    });
    for (int j = 0; j < PER; ++j) {  // zero for the next level (each thread its own bins)
        const int b = threadIdx.x * PER + j;
        if (b < (1 << width)) h[b] = 0ull;
    }
}

// One block of BLOCK threads a (row, block of the level's count): that block's keys below the
// kth's bin, in it and above it, from its histogram: cnt (rows, blocks_per_row, 3).
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    split_bounds(const long long* __restrict__ split, const unsigned* __restrict__ block_hist,
                 long long blocks_per_row, int width, unsigned long long* __restrict__ cnt) {
    using namespace prim::quantile;
    __shared__ unsigned long long scratch[BLOCK / prim::WARP];
    const long long row = blockIdx.x / blocks_per_row;
    if (!split[row * SPLIT_FIELDS + S_TAKE]) return;  // block-uniform
    const long long bin = split[row * SPLIT_FIELDS + S_BIN];
    const unsigned* h = block_hist + static_cast<long long>(blockIdx.x) * (1 << width);
    unsigned long long lt = 0, eq = 0, all = 0;
    for (int i = threadIdx.x; i < (1 << width); i += BLOCK) {
        const unsigned long long c = h[i];
        all += c;
        lt += i < bin ? c : 0ull;
        eq += i == bin ? c : 0ull;
    }
    const prim::Sum<unsigned long long> sum;
    lt = prim::block_reduce<BLOCK>(lt, sum, scratch);
    __syncthreads();
    eq = prim::block_reduce<BLOCK>(eq, sum, scratch);
    __syncthreads();
    all = prim::block_reduce<BLOCK>(all, sum, scratch);
    if (threadIdx.x == 0) {
        unsigned long long* c = cnt + static_cast<long long>(blockIdx.x) * 3;
        c[0] = lt;
        c[1] = eq;
        c[2] = all - lt - eq;
    }
}

// A level's scatter: each key of a row's source goes below the level's range (a lower bin of its
// digit), to the next level's source (the kth's bin: the row's buffer, or with FINAL, the digit
// the last, its place in the output) or above it; with ARG its index instead (and with the
// buffer's keys their indices: mid_idx). The source: with ROW the rows (len keys each, the first
// level), else the rows' buffers (cap keys apart, S_SRC keys each; their indices src_idx). A
// block reads quantile_first's tiles (part, part + blocks_per_row, ...), its starts in the three
// ranges the counts of the blocks before it (split_bounds'); in a tile each warp its 32 * ITEMS
// consecutive keys (16-byte loads, lane l vector u at (32 u + l) * N), each key's place in its
// warp's run of its range from ballots, the warps' runs in warp order (one barrier a tile, the
// warps' counts double-buffered): keys of a range in an order fixed by the input (not its
// index order). PREFETCH: the next tile's loads issued before this tile's work.
template <class U, int BLOCK, int ITEMS, bool ARG, bool ROW, bool PREFETCH, int MIN_BLOCKS>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
    split_scatter(const U* __restrict__ src, const long long* __restrict__ src_idx, long long len,
                  long long cap, long long blocks_per_row, const long long* __restrict__ split,
                  const unsigned long long* __restrict__ cnt, int kind, int shift, int width,
                  int final_level, U* __restrict__ out_keys, long long* __restrict__ out_idx,
                  U* __restrict__ mid_keys, long long* __restrict__ mid_idx) {
    using namespace prim::quantile;
    constexpr int VN = prim::Vec16<U>::N;
    constexpr int WARPS = BLOCK / prim::WARP;
    constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
    constexpr int WK = prim::WARP * ITEMS;  // a warp's keys a tile
    static_assert(ITEMS % VN == 0, "split_scatter: whole 16-byte vectors a thread");
    static_assert(TILE < (1 << 21), "split_scatter: a tile's counts are packed in 21 bits");
    static_assert(ITEMS <= 16, "split_scatter: a thread's ranges packed in 2 bits each");
    __shared__ unsigned long long scratch[WARPS];
    __shared__ long long s_start[3];
    __shared__ unsigned long long s_run[2][WARPS];  // each warp's counts of a tile
    const long long row = blockIdx.x / blocks_per_row;
    const long long part = blockIdx.x % blocks_per_row;
    const long long* sp = split + row * SPLIT_FIELDS;
    if (!sp[S_TAKE]) return;  // block-uniform
    const long long n = ROW ? len : sp[S_SRC];
    const unsigned bin = static_cast<unsigned>(sp[S_BIN]);
    const long long base = sp[S_BASE], below = sp[S_BELOW], mid = sp[S_MID];
    {  // the block's starts: the blocks before it, range by range
        const unsigned long long* c = cnt + row * blocks_per_row * 3;
        unsigned long long a[3] = {0ull, 0ull, 0ull};
        for (long long q = threadIdx.x; q < part; q += BLOCK)
#pragma unroll
            for (int r = 0; r < 3; ++r) a[r] += c[3 * q + r];
#pragma unroll
        for (int r = 0; r < 3; ++r) {
            a[r] = prim::block_reduce<BLOCK>(a[r], prim::Sum<unsigned long long>(), scratch);
            if (threadIdx.x == 0) s_start[r] = static_cast<long long>(a[r]);
            __syncthreads();
        }
    }
    const bool fin = final_level != 0;
    long long at0 = base + s_start[0];  // below: the row's output
    long long at1 = fin ? base + below + s_start[1] : s_start[1];  // the kth's bin
    long long at2 = base + below + mid + s_start[2];  // above
    const U* rk = ROW ? src + row * len : src + row * cap;
    const long long* ri = ROW ? nullptr : src_idx + row * cap;
    U* ok = out_keys + row * len;
    long long* oi = out_idx + row * len;
    U* mk = mid_keys + row * cap;
    long long* mi = mid_idx + row * cap;
    const bool aligned = (reinterpret_cast<prim::uptr>(rk) & 15u) == 0;
    const int warp = threadIdx.x / prim::WARP, lane = threadIdx.x % prim::WARP;
    const unsigned lanes_below = (1u << lane) - 1u;
    const long long stride = blocks_per_row * TILE;
    // a tile's keys of this warp (16-byte loads on a full warp's run of an aligned source, else key
    // by key, those past n left 0): the mask of those within n
    auto load = [&](long long t0, U(&k)[ITEMS]) -> unsigned {
        const long long w0 = t0 + static_cast<long long>(warp) * WK;
        return load_run<U, prim::WARP, ITEMS>(rk, w0, n, aligned && w0 + WK <= n, lane, k);
    };
    U key[ITEMS], next[PREFETCH ? ITEMS : 1];
    unsigned valid = 0, next_valid = 0;
    if (PREFETCH && part * TILE < n) valid = load(part * TILE, key);
    int parity = 0;
    for (long long t0 = part * TILE; t0 < n; t0 += stride) {
        const long long w0 = t0 + static_cast<long long>(warp) * WK;  // the warp's keys
        const bool full = w0 + WK <= n;
        if constexpr (PREFETCH) {  // the next tile's loads in flight during this tile's work
            if (t0 + stride < n) next_valid = load(t0 + stride, next);
        } else {
            valid = load(t0, key);
        }
        long long idx[ARG && !ROW ? ITEMS : 1];
        if constexpr (ARG && !ROW) {
#pragma unroll
            for (int u = 0; u < ITEMS / VN; ++u)
#pragma unroll
                for (int v = 0; v < VN; ++v) {
                    const long long i = w0 + (u * prim::WARP + lane) * VN + v;
                    idx[u * VN + v] = i < n ? ri[i] : 0;
                }
        }
        // each key's range (2 bits a key) and place in its warp's run of that range
        unsigned ranges = 0;
        unsigned short place[ITEMS];
        unsigned long long run = 0;  // the warp's keys so far in each range, 21 bits each
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const bool in = (valid >> i) & 1u;
            const unsigned d = digit_of(image(key[i], kind), shift, width);
            const bool lo = in && d < bin, eq = in && d == bin;
            const unsigned b_lo = __ballot_sync(prim::FULL_MASK, lo);
            const unsigned b_eq = __ballot_sync(prim::FULL_MASK, eq);
            const unsigned b_in = full ? prim::FULL_MASK : __ballot_sync(prim::FULL_MASK, in);
            const unsigned b_hi = b_in & ~b_lo & ~b_eq;
            const int r = lo ? 0 : (eq ? 1 : 2);
            const unsigned same = r == 0 ? b_lo : (r == 1 ? b_eq : b_hi);
            place[i] = static_cast<unsigned short>(field21(run, r) + __popc(same & lanes_below));
            ranges |= static_cast<unsigned>(r) << (2 * i);
            run += static_cast<unsigned long long>(__popc(b_lo)) |
                (static_cast<unsigned long long>(__popc(b_eq)) << 21) |
                (static_cast<unsigned long long>(__popc(b_hi)) << 42);
        }
        if (lane == 0) s_run[parity][warp] = run;
        __syncthreads();
        unsigned long long before = 0, all = 0;  // the warps before this one's, every warp's
#pragma unroll
        for (int w = 0; w < WARPS; ++w) {
            const unsigned long long x = s_run[parity][w];
            all += x;
            before += w < warp ? x : 0ull;
        }
        parity ^= 1;  // the next tile's counts go to the other words: one barrier a tile
        const long long s0 = at0 + field21(before, 0), s1 = at1 + field21(before, 1),
                        s2 = at2 + field21(before, 2);
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            if (!((valid >> i) & 1u)) continue;
            const int r = (ranges >> (2 * i)) & 3;
            const long long at = (r == 0 ? s0 : (r == 1 ? s1 : s2)) + place[i];
            const bool to_buffer = r == 1 && !fin;
            if constexpr (ARG) {
                const long long index =
                    ROW ? w0 + ((i / VN) * prim::WARP + lane) * VN + (i % VN) : idx[i];
                if (to_buffer) {
                    mk[at] = key[i];
                    mi[at] = index;
                } else {
                    oi[at] = index;
                }
            } else {
                (to_buffer ? mk : ok)[at] = key[i];
            }
        }
        at0 += field21(all, 0);
        at1 += field21(all, 1);
        at2 += field21(all, 2);
        if constexpr (PREFETCH) {
#pragma unroll
            for (int i = 0; i < ITEMS; ++i) key[i] = next[i];
            valid = next_valid;
        }
    }
}

// topk.cu -- top-k selection (prim.topk, prim.argpartition, prim.partition).
//
// Selection works on the order-preserving unsigned image of each key (util/key_image.cuh:
// `ordered`, with the descending flip for largest = true, so NaNs come first there and last
// otherwise): the k winners of a row are the k smallest (image, index) pairs, so equal keys are
// taken from the lowest indices (a stable selection). Rows are contiguous, `len` keys each, row r
// at r * len.
//
// Device-wide radix select (any row length; one row or many):
//   select_pass<U, BLOCK, ITEMS, COLLECT>: one pass over each row's live keys. A row's state
//     (SelectField below) holds the key prefix fixed so far, as (image, index) bits under masks;
//     a key is LT (a sure winner), EQ (still a candidate) or GT against it. A pass histograms
//     the digit [shift, shift + width) of the EQ keys (of the image, or of the index once every
//     image bit is fixed) into the block's shared counters, then adds them to the row's global
//     histogram (64-bit counters). The keys come from the row itself or, once the candidates fit
//     in `cap` entries, from the candidate buffer the previous pass wrote (ping-pong buffers of
//     images and indices): when the state says so (WILL_BUFFER), the pass writes its LT keys to
//     the output and its EQ keys to the other buffer, positions from one block scan per tile and
//     two atomics per block and tile, so later passes read only the candidates. COLLECT: the last
//     launch writes the remaining winners (LT and EQ: the state is DONE by then) and no
//     histogram.
//   select_choose: one block of 1024 threads per row: a block scan of the row's histogram finds
//     the bin holding the k_rem-th candidate, fixes the digit in the prefix, subtracts the keys
//     below it from k_rem, zeroes the histogram, decides which source the next pass reads and
//     whether it buffers, and marks the row DONE once every candidate left is a winner (always so
//     after the last index digit: indices are unique).
//   select_rank_sort: orders each row's k winners by (image, index): thread i counts the winners
//     below winner i (BLOCK at a time through shared memory) and writes it at that rank; O(k^2)
//     work, used for k up to the policy's sort_small.
//   Sample filter (k small against the row): select_sample, one block per row, takes `sample`
//     keys at positions i * len / sample into shared memory and finds the image of rank `rank`
//     among them (block_rank_image: an MSD select of 8-bit digits), the row's threshold T (state
//     THRESH). select_filter reads every key once and keeps those with image <= T: a block writes
//     them to its own segment of buffer 1 (cap / blocks_per_row entries; positions by a warp scan
//     and one shared atomic per warp and tile; a warp stops once the segment is full), then, by
//     one global atomic on WRITE_COUNT, copies them to their place in buffer 0 (an overflowing
//     block adds cap + 1 instead: the row reads its keys). select_filter_done (a thread per
//     row): when the candidates number k..cap they hold the k winners (every other key's image
//     is above theirs), and the state names buffer 0 as the passes' source; otherwise the state
//     is left as the host set it and the passes read the row. The host picks `rank` so that the
//     k winners hold about rank * sample / len of the sample's keys with a margin (a miss costs
//     time, not correctness). Launch: select_sample grid = rows, BLOCK threads, dynamic shared
//     memory sample * sizeof(U); select_filter as select_pass (two shared words);
//     select_filter_done grid = ceil(rows / 256), 256 threads.
// Launch: select_pass grid = blocks_per_row * rows (row = blockIdx.x / blocks_per_row; grid-stride
//   over the row's keys in tiles of BLOCK * ITEMS), BLOCK threads, static shared memory
//   8192 counters (digits of up to 13 bits) + BLOCK / 32 scan words; select_choose grid = rows,
//   1024 threads; select_rank_sort grid = ceil(k / BLOCK) * rows, BLOCK threads, BLOCK winners of
//   shared memory.
// Preconditions: 1 <= k <= len; 1 <= rank <= sample (select_sample); hist zero on entry (left
//   zero by select_choose); state initialised by the host (init_state layout below); the output
//   rows have room for k winners; cap >= 1.
//
// Short rows (select_rows<U, BLOCK>): one block per row, the row's images in dynamic shared
//   memory (16-byte loads when the row is aligned). The bits above the highest bit where the
//   row's smallest and largest image differ are fixed at once (two block reductions); an MSD
//   radix select of 8-bit digits below them over the shared copy (256 shared counters, a block
//   scan per digit) stops as soon as every candidate left is a winner; ties at the threshold are
//   then taken by position. Each thread owns a run of consecutive positions: one block scan of
//   its (LT, EQ) counts gives every winner its place in index order. Unsorted: written so,
//   straight to global memory. Sorted: staged in shared memory (after the row) and ranked by
//   counting, as select_rank_sort. Launch: grid = rows, BLOCK threads, dynamic shared memory
//   len * sizeof(U) rounded up to 16 bytes, plus k * sizeof(U) and k * 4 bytes, each rounded up
//   to 16, when sorted (16-byte loads read the staged arrays to the end of their last word); or,
//   when `listed`, the rows of a row list (those select_warp_rows left) with any grid: block b
//   takes entries b, b + grid, ... of its *list_count rows, writing the winners' key bits in
//   place of their images (as select_warp_rows). Preconditions: 1 <= k <= len;
//   len * sizeof(U) within the policy's row_bytes.
//
// Short rows, small k (select_warp_rows<U, WARPS, M>, k <= 32 * M): a warp per row, no block
//   barrier. The warp streams its row in chunks of eight 16-byte loads per lane, each lane
//   keeping its M smallest images in registers; the threshold T is the k-th smallest of those
//   32 * M images (a bitwise radix select by ballots), so at least k keys are at or below it
//   (every key when a lane met fewer than M keys: its padding is the largest image). With M
//   above k / 32 the kept images nearly always hold the k winners, and T is the k-th key.
//   A second read of the row (from L2 if it is still there) stages the keys at or below T,
//   (image, position), in the warp's shared area (a warp scan per chunk). one_pass: T from the
//   row's first chunk only (at least k keys of the row are at or below it still; about k per
//   chunk on random keys), that chunk kept in registers, so the candidates' pass is the only
//   read of the rest of the row. A bitonic sort of the candidates (padded to a power of two,
//   __syncwarp between steps) puts the k winners first, in order: their positions and their keys'
//   own bits (read again, from L2) are written. A row with more than cand_max candidates (ties at
//   T) is appended to row_list (one atomic on list_count) for select_rows.
//   Launch: grid = ceil(rows / WARPS), WARPS * 32 threads, dynamic shared memory
//   WARPS * cand_max * (sizeof(U) + 4); cand_max a power of two >= 32. Preconditions:
//   1 <= k <= 32 * M, k <= len <= 2^31 - 1; *list_count zero on entry; row_list holds `rows`
//   entries.
#include "util/prim.cuh"
#include "util/load.cuh"
#include "util/key_image.cuh"
#include "warp/shfl.cuh"
#include "warp/scan.cuh"
#include "block/reduce.cuh"
#include "block/scan.cuh"

namespace prim {
namespace select {

// A row's state: 64-bit fields, FIELDS per row.
enum SelectField {
    IMG_PREFIX = 0,  // image bits fixed so far (under IMG_MASK)
    IMG_MASK,
    IDX_PREFIX,      // index bits fixed so far (under IDX_MASK)
    IDX_MASK,
    K_REM,           // winners still to find among the EQ keys
    COUNT,           // EQ keys
    DONE,            // every EQ key is a winner
    SRC_BUFFER,      // the EQ keys are all in buffer SRC_PARITY (else: read the row)
    SRC_PARITY,
    SRC_COUNT,       // entries of that buffer
    WILL_BUFFER,     // the next pass writes LT keys out and EQ keys to the other buffer
    WRITE_COUNT,     // entries written to the other buffer by the running pass
    OUT_COUNT,       // winners written
    THRESH,          // the sample's threshold image (select_sample, read by select_filter)
    FIELDS
};

enum Order { LT = 0, EQ = 1, GT = 2 };

// A row's prefix, read once per block.
template <class U>
struct Prefix {
    U img, img_mask;
    long long idx, idx_mask;
    __device__ __forceinline__ explicit Prefix(const long long* st)
        : img(static_cast<U>(st[IMG_PREFIX])),
          img_mask(static_cast<U>(st[IMG_MASK])),
          idx(st[IDX_PREFIX]),
          idx_mask(st[IDX_MASK]) {}
    // LT, GT, or EQ in every image bit fixed (the index decides, order_index)
    __device__ __forceinline__ int order_image(U image) const {
        const U ih = image & img_mask;
        return ih == img ? EQ : (ih < img ? LT : GT);
    }
    __device__ __forceinline__ int order_index(long long index) const {
        const long long xh = index & idx_mask;
        return xh == idx ? EQ : (xh < idx ? LT : GT);
    }
};

// Where item j of a thread's tile is: in the row (16-byte vectors of VN keys, vector u of the
// thread at (u * BLOCK + thread) * VN) or in a candidate buffer (item j at j * BLOCK + thread),
// and its index (the position in the row, or the one the buffer holds: read when needed).
template <int BLOCK, int VN>
struct TilePos {
    long long t0;
    bool from_buffer;
    const long long* src_idx;
    __device__ __forceinline__ long long at(int j) const {
        return from_buffer
            ? t0 + static_cast<long long>(j) * BLOCK + threadIdx.x
            : t0 + (static_cast<long long>(j / VN) * BLOCK + threadIdx.x) * VN + j % VN;
    }
    __device__ __forceinline__ long long index(int j) const {
        const long long i = at(j);
        return from_buffer ? src_idx[i] : i;
    }
};

// The items of a thread whose order (two bits per item) is WHICH, to consecutive entries from
// `at`.
template <int WHICH, class U, int ITEMS, class Pos>
__device__ __forceinline__ void put(unsigned order, const U (&img)[ITEMS], const Pos& tp,
                                    U* out_img, long long* out_idx, long long at) {
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        if (((order >> (2 * j)) & 3u) == static_cast<unsigned>(WHICH)) {
            out_img[at] = img[j];
            out_idx[at] = tp.index(j);
            ++at;
        }
    }
}

// (image, index) pair a precedes b.
template <class U>
__device__ __forceinline__ bool before(U ia, long long xa, U ib, long long xb) {
    return ia < ib || (ia == ib && xa < xb);
}

}  // namespace select
}  // namespace prim

template <class U, int BLOCK, int ITEMS, bool COLLECT>
__global__ void __launch_bounds__(BLOCK)
    select_pass(const U* __restrict__ keys, long long len, long long blocks_per_row, U* buf_img0,
                long long* buf_idx0, U* buf_img1, long long* buf_idx1, long long cap,
                U* __restrict__ out_img, long long* __restrict__ out_idx, long long k,
                long long* __restrict__ state, unsigned long long* __restrict__ hist, int kind,
                int descending, int shift, int width, int on_index) {
    using namespace prim::select;
    constexpr int MAX_BINS = 8192;
    constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
    constexpr int VN = prim::Vec16<U>::N;
    static_assert(ITEMS % VN == 0, "select_pass: whole 16-byte vectors per thread");
    static_assert(TILE < 65536, "select_pass: a tile's counts are packed in 16 bits");
    static_assert(ITEMS <= 16, "select_pass: two order bits per item in one word");
    __shared__ unsigned counts[COLLECT ? 1 : MAX_BINS];
    __shared__ unsigned scratch[BLOCK / prim::WARP];
    __shared__ long long base_out, base_buf;

    const long long row = blockIdx.x / blocks_per_row;
    const long long part = blockIdx.x % blocks_per_row;
    long long* st = state + row * FIELDS;
    if (st[DONE] != COLLECT) return;  // a pass runs on undecided rows, the collect on done ones
    const prim::radix::DigitOf<U> dig(kind, descending, 0, 1);
    const int bins = 1 << width;
    if (!COLLECT) {
        for (int i = threadIdx.x; i < bins; i += BLOCK) counts[i] = 0u;
        __syncthreads();
    }
    const bool from_buffer = st[SRC_BUFFER] != 0;
    const int parity = static_cast<int>(st[SRC_PARITY]);
    const U* src_img = parity ? buf_img1 : buf_img0;
    const long long* src_idx = parity ? buf_idx1 : buf_idx0;
    U* dst_img = (parity ? buf_img0 : buf_img1) + row * cap;
    long long* dst_idx = (parity ? buf_idx0 : buf_idx1) + row * cap;
    src_img += row * cap;
    src_idx += row * cap;
    const U* row_keys = keys + row * len;
    const long long count = from_buffer ? st[SRC_COUNT] : len;
    // COLLECT writes every winner; a buffering pass its LT keys and its EQ keys to the buffer
    const bool writes = COLLECT || st[WILL_BUFFER] != 0;
    const bool aligned = (reinterpret_cast<prim::uptr>(row_keys) & 15u) == 0;
    const Prefix<U> pre(st);
    U* row_out_img = out_img + row * k;
    long long* row_out_idx = out_idx + row * k;

    const bool on_idx = pre.idx_mask != 0;  // every image bit fixed: indices decide
    for (long long t0 = part * TILE; t0 < count; t0 += blocks_per_row * TILE) {
        const TilePos<BLOCK, VN> tp{t0, from_buffer, src_idx};
        U img[ITEMS];
        unsigned valid = 0;  // bit j: item j is a key
        if (from_buffer) {
#pragma unroll
            for (int j = 0; j < ITEMS; ++j) {
                const long long i = tp.at(j);
                valid |= static_cast<unsigned>(i < count) << j;
                img[j] = i < count ? src_img[i] : static_cast<U>(0);
            }
        } else {
            const bool full = t0 + TILE <= count;
#pragma unroll
            for (int u = 0; u < ITEMS / VN; ++u) {
                const long long i0 = tp.at(u * VN);
                if (full && aligned) {
                    const prim::Packet<U> p = prim::load16(row_keys + i0);
#pragma unroll
                    for (int v = 0; v < VN; ++v) img[u * VN + v] = dig.image(p.v[v]);
                    valid |= ((1u << VN) - 1u) << (u * VN);
                } else {
#pragma unroll
                    for (int v = 0; v < VN; ++v) {
                        const long long i = i0 + v;
                        valid |= static_cast<unsigned>(i < count) << (u * VN + v);
                        img[u * VN + v] = i < count ? dig.image(row_keys[i]) : static_cast<U>(0);
                    }
                }
            }
        }
        unsigned lt = 0, eq = 0;
        unsigned order = 0;  // two bits per item: LT, EQ or GT
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            int o = (valid >> j) & 1u ? pre.order_image(img[j]) : static_cast<int>(GT);
            long long index = 0;
            if (o == EQ && (on_idx || on_index)) {  // the index digits: read it
                index = tp.index(j);
                o = pre.order_index(index);
            }
            order |= static_cast<unsigned>(o) << (2 * j);
            if (!COLLECT && o == EQ) {
                const unsigned d = on_index ? static_cast<unsigned>(index >> shift)
                                            : static_cast<unsigned>(img[j] >> shift);
                atomicAdd(&counts[d & static_cast<unsigned>(bins - 1)], 1u);
            }
            lt += o == LT;
            eq += o == EQ;
        }
        if (writes) {  // block-uniform: the state is the row's
            // positions of this thread's LT (high half) and EQ (low half) keys within the tile
            unsigned total;
            unsigned pos = prim::block_exclusive_scan<BLOCK>((lt << 16) | eq, prim::Sum<unsigned>(),
                                                             scratch, total);
            if (threadIdx.x == 0) {
                const unsigned long long n_lt = total >> 16, n_eq = total & 0xffffu;
                if (COLLECT) {
                    base_out = static_cast<long long>(atomicAdd(
                        reinterpret_cast<unsigned long long*>(&st[OUT_COUNT]), n_lt + n_eq));
                } else {
                    base_out = n_lt
                        ? static_cast<long long>(atomicAdd(
                              reinterpret_cast<unsigned long long*>(&st[OUT_COUNT]), n_lt))
                        : 0;
                    base_buf = n_eq
                        ? static_cast<long long>(atomicAdd(
                              reinterpret_cast<unsigned long long*>(&st[WRITE_COUNT]), n_eq))
                        : 0;
                }
            }
            __syncthreads();
            // the tile's LT keys go out first, its EQ keys after them (COLLECT: winners too) or
            // to the candidate buffer
            put<LT>(order, img, tp, row_out_img, row_out_idx, base_out + (pos >> 16));
            if (COLLECT)
                put<EQ>(order, img, tp, row_out_img, row_out_idx,
                        base_out + (total >> 16) + (pos & 0xffffu));
            else
                put<EQ>(order, img, tp, dst_img, dst_idx, base_buf + (pos & 0xffffu));
            __syncthreads();  // base_out / base_buf and the scan words are reused next tile
        }
    }
    if (!COLLECT) {
        __syncthreads();
        unsigned long long* row_hist = hist + row * MAX_BINS;
        for (int i = threadIdx.x; i < bins; i += BLOCK)
            if (counts[i]) atomicAdd(&row_hist[i], static_cast<unsigned long long>(counts[i]));
    }
}

// One block of 1024 threads per row: fix the next digit of the row's prefix (see the header).
__global__ void __launch_bounds__(1024)
    select_choose(unsigned long long* __restrict__ hist, long long* __restrict__ state,
                  long long cap, int shift, int width, int on_index) {
    using namespace prim::select;
    constexpr int BLOCK = 1024;
    constexpr int MAX_BINS = 8192;
    constexpr int PER = MAX_BINS / BLOCK;
    __shared__ unsigned long long scratch[BLOCK / prim::WARP];
    long long* st = state + blockIdx.x * FIELDS;
    if (st[DONE]) return;
    // read before the scan's barriers: the thread that finds the bin rewrites it after them
    const unsigned long long k_rem = static_cast<unsigned long long>(st[K_REM]);
    unsigned long long* h = hist + static_cast<long long>(blockIdx.x) * MAX_BINS;
    const int bins = 1 << width;
    unsigned long long mine[PER];
    unsigned long long sum = 0;
#pragma unroll
    for (int j = 0; j < PER; ++j) {
        const int b = threadIdx.x * PER + j;
        mine[j] = b < bins ? h[b] : 0ull;
        if (b < bins) h[b] = 0ull;  // zero for the next pass (each thread its own bins)
        sum += mine[j];
    }
    unsigned long long total;
    unsigned long long below =
        prim::block_exclusive_scan<BLOCK>(sum, prim::Sum<unsigned long long>(), scratch, total);
    if (below < k_rem && k_rem <= below + sum) {  // exactly one thread
#pragma unroll
        for (int j = 0; j < PER; ++j) {
            if (below < k_rem && k_rem <= below + mine[j]) {
                const long long digit = threadIdx.x * PER + j;
                if (on_index) {
                    st[IDX_PREFIX] |= digit << shift;
                    st[IDX_MASK] |= static_cast<long long>(bins - 1) << shift;
                } else {
                    st[IMG_PREFIX] =
                        static_cast<long long>(static_cast<unsigned long long>(st[IMG_PREFIX]) |
                                               (static_cast<unsigned long long>(digit) << shift));
                    st[IMG_MASK] = static_cast<long long>(
                        static_cast<unsigned long long>(st[IMG_MASK]) |
                        (static_cast<unsigned long long>(bins - 1) << shift));
                }
                const long long left = static_cast<long long>(k_rem - below);
                const long long eq = static_cast<long long>(mine[j]);
                // the pass just run read its source and (if it buffered) wrote the other buffer
                if (st[WILL_BUFFER]) {
                    st[SRC_PARITY] = st[SRC_BUFFER] ? 1 - st[SRC_PARITY] : 1;
                    st[SRC_BUFFER] = 1;
                    st[SRC_COUNT] = st[WRITE_COUNT];
                }
                st[WRITE_COUNT] = 0;
                st[K_REM] = left;
                st[COUNT] = eq;
                st[WILL_BUFFER] = st[SRC_BUFFER] || eq <= cap;
                if (eq == left) st[DONE] = 1;
                break;
            }
            below += mine[j];
        }
    }
}

// Winners of each row ordered by (image, index): see the header.
template <class U, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    select_rank_sort(const U* __restrict__ img, const long long* __restrict__ idx, long long k,
                     long long blocks_per_row, U* __restrict__ sorted_img,
                     long long* __restrict__ sorted_idx) {
    __shared__ U s_img[BLOCK];
    __shared__ long long s_idx[BLOCK];
    const long long row = blockIdx.x / blocks_per_row;
    const long long i = (blockIdx.x % blocks_per_row) * BLOCK + threadIdx.x;
    const U* ri = img + row * k;
    const long long* rx = idx + row * k;
    const bool mine = i < k;
    const U a = mine ? ri[i] : static_cast<U>(0);
    const long long x = mine ? rx[i] : 0;
    long long rank = 0;
    for (long long t = 0; t < k; t += BLOCK) {
        __syncthreads();
        if (t + threadIdx.x < k) {
            s_img[threadIdx.x] = ri[t + threadIdx.x];
            s_idx[threadIdx.x] = rx[t + threadIdx.x];
        }
        __syncthreads();
        const long long m = k - t < BLOCK ? k - t : BLOCK;
        for (long long j = 0; j < m; ++j) rank += prim::select::before(s_img[j], s_idx[j], a, x);
    }
    if (mine) {
        sorted_img[row * k + rank] = a;
        sorted_idx[row * k + rank] = x;
    }
}

// ---- one digit of a block's MSD radix select (the sample filter and the row kernel) ------------

// The images of img[0, m) (shared memory) that match `prefix` under `mask` are counted by their
// digit (im >> shift) & 255 in the 256 shared `counts`; the one thread whose digit's bucket holds
// the k_rem-th of them (1-based) calls found(digit, below, count): the matching images of the
// smaller digits, and of its own. Whole block: its barriers (before the count, after it, and the
// block scan's) are reached by every thread; the caller's barrier must come before what found()
// wrote is read.
template <class U, int BLOCK, class Found>
__device__ __forceinline__ void digit_bucket(const U* img, int m, U prefix, U mask, int shift,
                                             long long k_rem, unsigned* counts,
                                             unsigned long long* scratch, Found found) {
    constexpr int RADIX = 256;
    static_assert(BLOCK >= RADIX, "digit_bucket: a thread per digit");
    if (threadIdx.x < RADIX) counts[threadIdx.x] = 0u;
    __syncthreads();  // the counts are zero, and the caller's earlier reads of them are done
    for (int i = threadIdx.x; i < m; i += BLOCK) {
        const U im = img[i];
        if ((im & mask) == prefix)
            atomicAdd(&counts[static_cast<unsigned>(im >> shift) & (RADIX - 1)], 1u);
    }
    __syncthreads();
    const unsigned long long c = threadIdx.x < RADIX ? counts[threadIdx.x] : 0u;
    unsigned long long total;
    const unsigned long long below =
        prim::block_exclusive_scan<BLOCK>(c, prim::Sum<unsigned long long>(), scratch, total);
    const unsigned long long want = static_cast<unsigned long long>(k_rem);
    if (below < want && want <= below + c)
        found(static_cast<U>(threadIdx.x), static_cast<long long>(below),
              static_cast<long long>(c));
}

// ---- sample filter: one read of the row when k is small against it ----------------------------

// The image of rank `rank` (1-based) among the m images in shared memory: an MSD radix select of
// 8-bit digits (a 256-bin shared histogram and a block scan each). Whole block; the result in
// every thread.
template <class U, int BLOCK>
__device__ __forceinline__ U block_rank_image(const U* img, int m, long long rank, unsigned* counts,
                                              unsigned long long* scratch, U* s_prefix,
                                              long long* s_rank) {
    constexpr int RADIX = 256;
    constexpr int UBITS = static_cast<int>(sizeof(U)) * 8;
    U prefix = 0, mask = 0;
    long long k_rem = rank;
    for (int shift = UBITS - 8; shift >= 0; shift -= 8) {
        digit_bucket<U, BLOCK>(img, m, prefix, mask, shift, k_rem, counts, scratch,
                               [&](U digit, long long below, long long) {
                                   *s_prefix = prefix | (digit << shift);
                                   *s_rank = k_rem - below;
                               });
        __syncthreads();
        prefix = *s_prefix;
        mask |= static_cast<U>(RADIX - 1) << shift;
        k_rem = *s_rank;
    }
    return prefix;
}

// One block per row: the threshold image of the row's strided sample (see the header).
template <class U, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    select_sample(const U* __restrict__ keys, long long len, int sample, long long rank,
                  long long* __restrict__ state, int kind, int descending) {
    using namespace prim::select;
    PRIM_DYNAMIC_SHARED(U, smp);
    __shared__ unsigned counts[256];
    __shared__ unsigned long long scratch[BLOCK / prim::WARP];
    __shared__ U s_prefix;
    __shared__ long long s_rank;
    const prim::radix::DigitOf<U> dig(kind, descending, 0, 1);
    const U* rk = keys + static_cast<long long>(blockIdx.x) * len;
    constexpr int PER = 8;  // loads in flight per thread
    for (int i0 = 0; i0 < sample; i0 += BLOCK * PER) {
        U v[PER];
#pragma unroll
        for (int j = 0; j < PER; ++j) {
            const int i = i0 + j * BLOCK + static_cast<int>(threadIdx.x);
            v[j] = i < sample ? rk[static_cast<long long>(i) * len / sample] : static_cast<U>(0);
        }
#pragma unroll
        for (int j = 0; j < PER; ++j) {
            const int i = i0 + j * BLOCK + static_cast<int>(threadIdx.x);
            if (i < sample) smp[i] = dig.image(v[j]);
        }
    }
    __syncthreads();
    const U t = block_rank_image<U, BLOCK>(smp, sample, rank, counts, scratch, &s_prefix, &s_rank);
    if (threadIdx.x == 0)
        state[static_cast<long long>(blockIdx.x) * FIELDS + THRESH] = static_cast<long long>(t);
}

// Every key of the row at or below the threshold image to buffer 0 (see the header).
template <class U, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    select_filter(const U* __restrict__ keys, long long len, long long blocks_per_row,
                  U* __restrict__ buf_img0, long long* __restrict__ buf_idx0,
                  U* __restrict__ buf_img1, long long* __restrict__ buf_idx1, long long cap,
                  long long* __restrict__ state, int kind, int descending) {
    using namespace prim::select;
    constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
    constexpr int VN = prim::Vec16<U>::N;
    static_assert(ITEMS % VN == 0 && ITEMS <= 32, "select_filter: whole vectors, a bit per item");
    __shared__ unsigned long long s_count, s_base;
    const long long row = blockIdx.x / blocks_per_row;
    const long long part = blockIdx.x % blocks_per_row;
    long long* st = state + row * FIELDS;
    const U thresh = static_cast<U>(st[THRESH]);
    const prim::radix::DigitOf<U> dig(kind, descending, 0, 1);
    const U* rk = keys + row * len;
    const bool aligned = (reinterpret_cast<prim::uptr>(rk) & 15u) == 0;
    // the block's segment of buffer 1, then its place in buffer 0
    const long long seg = cap / blocks_per_row;
    U* si = buf_img1 + row * cap + part * seg;
    long long* sx = buf_idx1 + row * cap + part * seg;
    const int lane = threadIdx.x % prim::WARP;
    if (threadIdx.x == 0) s_count = 0ull;
    __syncthreads();
    for (long long t0 = part * TILE; t0 < len; t0 += blocks_per_row * TILE) {
        const bool full = t0 + TILE <= len;
        U img[ITEMS];
        unsigned cand = 0;  // bit j: item j is a candidate
#pragma unroll
        for (int u = 0; u < ITEMS / VN; ++u) {
            const long long i0 = t0 + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VN;
            if (full && aligned) {
                const prim::Packet<U> p = prim::load16(rk + i0);
#pragma unroll
                for (int v = 0; v < VN; ++v) {
                    img[u * VN + v] = dig.image(p.v[v]);
                    cand |= static_cast<unsigned>(img[u * VN + v] <= thresh) << (u * VN + v);
                }
            } else {
#pragma unroll
                for (int v = 0; v < VN; ++v) {
                    const bool ok = i0 + v < len;
                    img[u * VN + v] = ok ? dig.image(rk[i0 + v]) : static_cast<U>(0);
                    cand |= static_cast<unsigned>(ok && img[u * VN + v] <= thresh) << (u * VN + v);
                }
            }
        }
        const int n = __popc(cand);
        if (__any_sync(prim::FULL_MASK, n)) {  // warp-aggregated: one shared atomic per warp
            const int incl = prim::warp_inclusive_scan(n, prim::Sum<int>());
            unsigned long long base = 0;
            if (lane == prim::WARP - 1)
                base = atomicAdd(&s_count, static_cast<unsigned long long>(incl));
            base = prim::shfl_idx(base, prim::WARP - 1);
            if (base > static_cast<unsigned long long>(seg)) break;  // warp-uniform: segment full
            long long at = static_cast<long long>(base) + incl - n;
#pragma unroll
            for (int j = 0; j < ITEMS; ++j) {
                if ((cand >> j) & 1u) {
                    if (at < seg) {
                        si[at] = img[j];
                        sx[at] = t0 + (static_cast<long long>(j / VN) * BLOCK + threadIdx.x) * VN +
                            j % VN;
                    }
                    ++at;
                }
            }
        }
    }
    __syncthreads();  // every warp's count and segment entries are in
    const unsigned long long c = s_count;
    const bool over = c > static_cast<unsigned long long>(seg);
    if (threadIdx.x == 0) {  // an overflow pushes the row's count past cap: it reads the row
        unsigned long long* wc = reinterpret_cast<unsigned long long*>(&st[WRITE_COUNT]);
        s_base = over ? atomicAdd(wc, static_cast<unsigned long long>(cap) + 1ull)
                      : (c ? atomicAdd(wc, c) : 0ull);
    }
    __syncthreads();
    if (over) return;
    const long long base = static_cast<long long>(s_base);
    U* bi = buf_img0 + row * cap;
    long long* bx = buf_idx0 + row * cap;
    for (long long i = threadIdx.x; i < static_cast<long long>(c) && base + i < cap; i += BLOCK) {
        bi[base + i] = si[i];
        bx[base + i] = sx[i];
    }
}

// A thread per row: the radix select reads the filter's candidates when they hold the k winners
// and fit the buffer, else the row (see the header).
__global__ void select_filter_done(long long* __restrict__ state, long long rows, long long k,
                                   long long cap) {
    using namespace prim::select;
    const long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    long long* st = state + r * FIELDS;
    const long long c = st[WRITE_COUNT];
    st[WRITE_COUNT] = 0;
    if (k <= c && c <= cap) {
        st[SRC_BUFFER] = 1;
        st[SRC_PARITY] = 0;
        st[SRC_COUNT] = c;
        st[COUNT] = c;
        st[DONE] = c == k;
    }
}

// A block per row of at most the policy's row_bytes: see the header.
template <class U, int BLOCK>
__device__ __forceinline__ void rows_select(const U* __restrict__ keys, long long row_index,
                                            long long len, long long k, int kind, int descending,
                                            int sorted, U* __restrict__ out_img,
                                            long long* __restrict__ out_idx,
                                            bool key_bits = false) {
    using namespace prim::select;
    constexpr int BITS = 8;
    constexpr int RADIX = 1 << BITS;
    constexpr int VN = prim::Vec16<U>::N;
    static_assert(BLOCK >= RADIX, "select_rows: a thread per digit");
    PRIM_DYNAMIC_SHARED(U, row);
    __shared__ unsigned counts[RADIX];
    __shared__ unsigned long long scratch[BLOCK / prim::WARP];
    __shared__ U s_prefix, s_mask;
    __shared__ U s_lo[BLOCK / prim::WARP], s_hi[BLOCK / prim::WARP];
    __shared__ long long s_k_rem, s_count;
    const prim::radix::DigitOf<U> dig(kind, descending, 0, 1);
    const U* rk = keys + row_index * len;
    const int n = static_cast<int>(len);
    if ((reinterpret_cast<prim::uptr>(rk) & 15u) == 0) {
        const int vecs = n / VN;
        constexpr int IN_FLIGHT = 4;  // loads issued before any is stored
        for (int v0 = threadIdx.x; v0 < vecs; v0 += BLOCK * IN_FLIGHT) {
            prim::Packet<U> p[IN_FLIGHT];
#pragma unroll
            for (int u = 0; u < IN_FLIGHT; ++u)
                if (v0 + u * BLOCK < vecs) p[u] = prim::load16(rk + (v0 + u * BLOCK) * VN);
#pragma unroll
            for (int u = 0; u < IN_FLIGHT; ++u) {
                const int v = v0 + u * BLOCK;
                if (v < vecs) {
#pragma unroll
                    for (int e = 0; e < VN; ++e) row[v * VN + e] = dig.image(p[u].v[e]);
                }
            }
        }
        for (int i = vecs * VN + threadIdx.x; i < n; i += BLOCK) row[i] = dig.image(rk[i]);
    } else {
        for (int i = threadIdx.x; i < n; i += BLOCK) row[i] = dig.image(rk[i]);
    }
    // the bits every key shares (above the highest bit where the smallest and the largest
    // image differ) are fixed at once: floats of one binade skip their exponent's digits
    __syncthreads();  // the row is loaded
    U least = prim::Limits<U>::max(), most = 0;
    for (int i = threadIdx.x; i < n; i += BLOCK) {
        least = row[i] < least ? row[i] : least;
        most = row[i] > most ? row[i] : most;
    }
    least = prim::block_reduce<BLOCK>(least, prim::Min<U>(), s_lo);
    __syncthreads();  // s_lo's words are read by warp 0 above before they hold the result
    most = prim::block_reduce<BLOCK>(most, prim::Max<U>(), s_hi);
    if (threadIdx.x == 0) {
        s_lo[0] = least;
        s_hi[0] = most;
    }
    __syncthreads();
    least = s_lo[0];
    const U diff = least ^ s_hi[0];
    constexpr int UBITS = static_cast<int>(sizeof(U)) * 8;
    const int top = diff == 0 ? -1
                              : UBITS - 1 -
            (sizeof(U) == 4 ? __clz(static_cast<int>(diff))
                            : __clzll(static_cast<long long>(diff)));
    U mask = top == UBITS - 1 ? static_cast<U>(0) : ~((static_cast<U>(1) << (top + 1)) - 1);
    U prefix = least & mask;
    long long k_rem = k, count = len;
    // 8-bit digits from the highest differing bit down; the last one starts at bit 0 (its bits
    // above the previous digit's are fixed already)
    for (int shift = top + 1 - BITS; shift > -BITS && count != k_rem; shift -= BITS) {
        const int sh = shift < 0 ? 0 : shift;
        // (its first barrier also orders the s_* reads of the digit before)
        digit_bucket<U, BLOCK>(row, n, prefix, mask, sh, k_rem, counts, scratch,
                               [&](U digit, long long below, long long c) {
                                   s_prefix = (prefix & ~(static_cast<U>(RADIX - 1) << sh)) |
                                       (digit << sh);
                                   s_mask = mask | (static_cast<U>(RADIX - 1) << sh);
                                   s_k_rem = k_rem - below;
                                   s_count = c;
                               });
        __syncthreads();
        prefix = s_prefix;
        mask = s_mask;
        k_rem = s_k_rem;
        count = s_count;
    }
    // every LT key wins, and the first k_rem EQ keys by position: a run of positions per thread
    const int run = (n + BLOCK - 1) / BLOCK;
    const int lo = threadIdx.x * run;
    const int hi = lo + run < n ? lo + run : n;
    unsigned long long lt = 0, eq = 0;
    for (int i = lo; i < hi; ++i) {
        const U im = row[i] & mask;
        lt += im < prefix;
        eq += im == prefix;
    }
    unsigned long long total;
    const unsigned long long pos = prim::block_exclusive_scan<BLOCK>(
        (lt << 32) | eq, prim::Sum<unsigned long long>(), scratch, total);
    long long lt_before = static_cast<long long>(pos >> 32);
    long long eq_before = static_cast<long long>(pos & 0xffffffffull);
    long long o = lt_before + (eq_before < k_rem ? eq_before : k_rem);
    U* stage_img = reinterpret_cast<U*>(row + ((len * sizeof(U) + 15) / 16) * (16 / sizeof(U)));
    // each staged array on 16-byte boundaries, whole 16-byte words: the ranking's loops are
    // compiled to 16-byte shared loads, which read up to the end of the word holding the last one
    int* stage_pos =
        reinterpret_cast<int*>(stage_img + ((k * sizeof(U) + 15) / 16) * (16 / sizeof(U)));
    U* gi = out_img + row_index * k;
    long long* gx = out_idx + row_index * k;
    for (int i = lo; i < hi; ++i) {
        const U full = row[i];
        const U im = full & mask;
        bool win = im < prefix;
        if (im == prefix) win = eq_before++ < k_rem;
        if (win) {
            if (sorted) {
                stage_img[o] = full;
                stage_pos[o] = i;
            } else {
                gi[o] = key_bits ? rk[i] : full;
                gx[o] = i;
            }
            ++o;
        }
    }
    if (sorted) {
        __syncthreads();
        // staged in index order: winner j ranks below winner w when its image is smaller, or
        // equal with j < w
        for (int w = threadIdx.x; w < k; w += BLOCK) {
            const U a = stage_img[w];
            long long rank = 0;
            for (int j = 0; j < k; ++j) {
                const U b = stage_img[j];
                rank += b < a || (b == a && j < w);
            }
            gi[rank] = key_bits ? rk[stage_pos[w]] : a;
            gx[rank] = stage_pos[w];
        }
    }
}

// The row-list form runs the rows the warp-per-row kernel left (see the header).
template <class U, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    select_rows(const U* __restrict__ keys, long long len, long long k, int kind, int descending,
                int sorted, int listed, const long long* __restrict__ row_list,
                const unsigned long long* __restrict__ list_count, U* __restrict__ out_img,
                long long* __restrict__ out_idx) {
    if (!listed) {
        rows_select<U, BLOCK>(keys, blockIdx.x, len, k, kind, descending, sorted, out_img, out_idx);
        return;
    }
    const long long count = static_cast<long long>(*list_count);
    for (long long e = blockIdx.x; e < count; e += gridDim.x) {  // block-uniform
        rows_select<U, BLOCK>(keys, row_list[e], len, k, kind, descending, sorted, out_img, out_idx,
                              true);
        __syncthreads();  // the shared row is rewritten by the next one
    }
}

// A warp per row, for k up to 32 * M (see the header).
template <class U, int WARPS, int M>
__global__ void __launch_bounds__(WARPS* prim::WARP, 1024 / (WARPS * prim::WARP))
    select_warp_rows(const U* __restrict__ keys, long long len, long long rows, long long k,
                     int kind, int descending, int cand_max, int one_pass, U* __restrict__ out_key,
                     long long* __restrict__ out_idx, long long* __restrict__ row_list,
                     unsigned long long* __restrict__ list_count) {
    constexpr int VN = prim::Vec16<U>::N;
    constexpr int VECS = 8;  // 16-byte loads in flight per lane
    constexpr int CHUNK = prim::WARP * VECS * VN;
    PRIM_DYNAMIC_SHARED(unsigned char, smem);
    const int lane = threadIdx.x % prim::WARP;
    const int warp = threadIdx.x / prim::WARP;
    const long long row = static_cast<long long>(blockIdx.x) * WARPS + warp;
    if (row >= rows) return;  // warp-uniform; the kernel has no block barrier
    U* c_img = reinterpret_cast<U*>(smem) + static_cast<long long>(warp) * cand_max;
    int* c_pos =
        reinterpret_cast<int*>(reinterpret_cast<U*>(smem) + WARPS * cand_max) + warp * cand_max;
    const prim::radix::DigitOf<U> dig(kind, descending, 0, 1);
    const U* rk = keys + row * len;
    const bool aligned = (reinterpret_cast<prim::uptr>(rk) & 15u) == 0;
    const int n = static_cast<int>(len);
    // a chunk's images: lane's vector v at (v * 32 + lane) * VN; the whole chunk's loads are
    // issued before any is used (one branch per chunk, not per vector)
    auto load = [&](int c0, U(&img)[VECS* VN], unsigned& valid) {
        if (aligned && c0 + CHUNK <= n) {
            prim::Packet<U> p[VECS];
#pragma unroll
            for (int v = 0; v < VECS; ++v)
                p[v] = prim::load16(rk + c0 + (v * prim::WARP + lane) * VN);
#pragma unroll
            for (int v = 0; v < VECS; ++v)
#pragma unroll
                for (int e = 0; e < VN; ++e) img[v * VN + e] = dig.image(p[v].v[e]);
            valid = ~0u >> (32 - VECS * VN);
        } else {
            valid = 0;
#pragma unroll
            for (int j = 0; j < VECS * VN; ++j) {
                const int i = c0 + ((j / VN) * prim::WARP + lane) * VN + j % VN;
                const bool ok = i < n;
                img[j] = ok ? dig.image(rk[i]) : static_cast<U>(0);
                valid |= static_cast<unsigned>(ok) << j;
            }
        }
    };
    // each lane's M smallest images, ascending, over the row or (one_pass) its first chunk,
    // which then stays in registers for the candidates' pass
    U best[M];
#pragma unroll
    for (int j = 0; j < M; ++j) best[j] = prim::Limits<U>::max();
    U img[VECS * VN];
    unsigned valid;
    for (int c0 = 0; c0 < (one_pass ? CHUNK : n); c0 += CHUNK) {
        load(c0, img, valid);
#pragma unroll
        for (int j = 0; j < VECS * VN; ++j) {
            if (((valid >> j) & 1u) && img[j] < best[M - 1]) {
                best[M - 1] = img[j];
#pragma unroll
                for (int t = M - 1; t > 0; --t) {
                    if (best[t] < best[t - 1]) {
                        const U w = best[t];
                        best[t] = best[t - 1];
                        best[t - 1] = w;
                    }
                }
            }
        }
    }
    // the threshold: the k-th smallest of the lanes' 32 * M kept images (a bitwise radix select
    // by ballots). At least k keys are at or below it: those k kept ones (distinct keys; a
    // padding image, the largest, makes every key a candidate)
    constexpr int UBITS = static_cast<int>(sizeof(U)) * 8;
    U thresh = 0;
    int k_rem = static_cast<int>(k);
    for (int b = UBITS - 1; b >= 0; --b) {
        const U high = b + 1 < UBITS ? thresh >> (b + 1) : static_cast<U>(0);
        int zeros = 0;  // kept images on the prefix with bit b clear
#pragma unroll
        for (int j = 0; j < M; ++j) {
            const bool on = (b + 1 < UBITS ? best[j] >> (b + 1) : static_cast<U>(0)) == high;
            zeros += __popc(__ballot_sync(prim::FULL_MASK, on && !((best[j] >> b) & 1u)));
        }
        if (k_rem > zeros) {
            thresh |= static_cast<U>(1) << b;
            k_rem -= zeros;
        }
    }
    // the candidates (image <= thresh: at least k of them) to the warp's shared area
    int count = 0;
    for (int c0 = 0; c0 < n && count <= cand_max; c0 += CHUNK) {
        if (!one_pass || c0 > 0) load(c0, img, valid);
        unsigned cand = 0;
#pragma unroll
        for (int j = 0; j < VECS * VN; ++j)
            cand |= static_cast<unsigned>(((valid >> j) & 1u) && img[j] <= thresh) << j;
        const int mine = __popc(cand);
        const int incl = prim::warp_inclusive_scan(mine, prim::Sum<int>());
        int at = count + incl - mine;
#pragma unroll
        for (int j = 0; j < VECS * VN; ++j) {
            if ((cand >> j) & 1u) {
                if (at < cand_max) {
                    c_img[at] = img[j];
                    c_pos[at] = c0 + ((j / VN) * prim::WARP + lane) * VN + j % VN;
                }
                ++at;
            }
        }
        count += prim::shfl_idx(incl, prim::WARP - 1);
    }
    if (count > cand_max) {  // too many ties at the threshold: the block-per-row kernel
        if (lane == 0) row_list[atomicAdd(list_count, 1ull)] = row;
        return;
    }
    // a bitonic sort of the candidates by (image, position), padded to a power of two with
    // entries after every candidate; the k first are the winners, in order
    int p2 = prim::WARP;
    while (p2 < count) p2 <<= 1;
    for (int i = count + lane; i < p2; i += prim::WARP) {
        c_img[i] = prim::Limits<U>::max();
        c_pos[i] = 0x7fffffff;
    }
    __syncwarp();
    for (int size = 2; size <= p2; size <<= 1) {
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            for (int i = lane; i < (p2 >> 1); i += prim::WARP) {
                const int lo = ((i & ~(stride - 1)) << 1) | (i & (stride - 1));
                const int hi = lo + stride;
                const U a = c_img[lo], b = c_img[hi];
                const int pa = c_pos[lo], pb = c_pos[hi];
                const bool up = (lo & size) == 0;  // this pair's run ascends
                if (prim::select::before(b, pb, a, pa) == up) {
                    c_img[lo] = b;
                    c_img[hi] = a;
                    c_pos[lo] = pb;
                    c_pos[hi] = pa;
                }
            }
            __syncwarp();
        }
    }
    U* gk = out_key + row * k;
    long long* gx = out_idx + row * k;
    for (int w = lane; w < k; w += prim::WARP) {
        gk[w] = rk[c_pos[w]];  // the key's own bits (from L2: the row was just read)
        gx[w] = c_pos[w];
    }
}

// ---- small k: block-local candidate sets with a running threshold -------------------------------
//
// select_small_k<U, BLOCK, ITEMS, PAIRS>: each block keeps, in shared memory, a candidate set of
// its part of the row (tiles of BLOCK * ITEMS keys, grid-stride, so a block meets its keys in
// increasing index order). A key enters when the block holds fewer than k candidates or its
// image is below the running threshold T (the largest image of the k kept: a key equal to T
// comes later than the kept one, so it loses the tie). When the set could overflow at the next
// tile (cap = tile + k entries), block_select keeps its k smallest (image, index) pairs and T
// becomes their largest image. On random data T is tight after a few tiles and nearly every key
// is only read and compared: one read of the row. The block writes its k winners (padded with
// the largest image and index when it met fewer keys) at its own slot, no atomics. PAIRS: the
// input is (image, index) pairs, len per row (the merge of the blocks' winners, one block per
// row). Launch: grid = blocks_per_row * rows, BLOCK threads, dynamic shared memory cap images
// (rounded up to 8 bytes) + cap indices. Preconditions: 1 <= k; cap >= BLOCK * ITEMS + k.
//
// block_select: the k smallest of the m (image, index) pairs in shared memory to its front, by an
// MSD radix select of 8-bit digits over the image, then over the index (idx_bits wide) while
// ties remain, each digit a 256-bin shared histogram and a block scan; the winners are moved by
// one block scan of each thread's run of entries (read into registers first). Whole block.

namespace prim {
namespace select {

template <class U>
struct SmallShared {
    unsigned counts[256];
    unsigned long long scratch[32];
    U prefix, mask;
    long long iprefix, imask, k_rem, count;
    unsigned fill;
    U thresh;
    int have;  // the set holds k candidates: thresh filters
};

template <class U, int BLOCK, int RUN>
__device__ __forceinline__ void block_select(U* img, long long* idx, unsigned m, long long k,
                                             int idx_bits, SmallShared<U>& sh) {
    constexpr int BITS = 8, RADIX = 256;
    constexpr int UBITS = static_cast<int>(sizeof(U)) * 8;
    static_assert(BLOCK >= RADIX, "block_select: a thread per digit");
    U prefix = 0, mask = 0;
    long long iprefix = 0, imask = 0, k_rem = k, count = m;
    // digits 0 .. UBITS/8 - 1 of the image, then the index's from its top
    const int idx_digits = (idx_bits + BITS - 1) / BITS;
    for (int d = 0; d < UBITS / BITS + idx_digits && count != k_rem; ++d) {
        const bool on_image = d < UBITS / BITS;
        const int shift =
            on_image ? UBITS - BITS * (d + 1) : idx_digits * BITS - BITS * (d - UBITS / BITS + 1);
        for (int i = threadIdx.x; i < RADIX; i += BLOCK) sh.counts[i] = 0u;
        __syncthreads();
        for (unsigned i = threadIdx.x; i < m; i += BLOCK) {
            const U im = img[i];
            const long long ix = idx[i];
            if ((im & mask) == prefix && (ix & imask) == iprefix) {
                const unsigned dg = on_image ? static_cast<unsigned>(im >> shift)
                                             : static_cast<unsigned>(ix >> shift);
                atomicAdd(&sh.counts[dg & (RADIX - 1)], 1u);
            }
        }
        __syncthreads();
        const unsigned long long c = threadIdx.x < RADIX ? sh.counts[threadIdx.x] : 0u;
        unsigned long long total;
        const unsigned long long below =
            block_exclusive_scan<BLOCK>(c, Sum<unsigned long long>(), sh.scratch, total);
        if (below < static_cast<unsigned long long>(k_rem) &&
            static_cast<unsigned long long>(k_rem) <= below + c) {
            if (on_image) {
                sh.prefix = prefix | (static_cast<U>(threadIdx.x) << shift);
                sh.mask = mask | (static_cast<U>(RADIX - 1) << shift);
                sh.iprefix = iprefix;
                sh.imask = imask;
            } else {
                sh.prefix = prefix;
                sh.mask = mask;
                sh.iprefix = iprefix | (static_cast<long long>(threadIdx.x) << shift);
                sh.imask = imask | (static_cast<long long>(RADIX - 1) << shift);
            }
            sh.k_rem = k_rem - static_cast<long long>(below);
            sh.count = static_cast<long long>(c);
        }
        __syncthreads();
        prefix = sh.prefix;
        mask = sh.mask;
        iprefix = sh.iprefix;
        imask = sh.imask;
        k_rem = sh.k_rem;
        count = sh.count;
    }
    // winners: below the prefix, or in it (every one of them wins once count == k_rem)
    const unsigned lo = threadIdx.x * RUN;
    U keep_img[RUN];
    long long keep_idx[RUN];
    unsigned kept = 0;
#pragma unroll
    for (int r = 0; r < RUN; ++r) {
        const unsigned i = lo + r;
        if (i < m) {
            const U im = img[i] & mask;
            const long long ix = idx[i] & imask;
            if (im < prefix || (im == prefix && ix <= iprefix)) {
                keep_img[kept] = img[i];
                keep_idx[kept] = idx[i];
                ++kept;
            }
        }
    }
    unsigned long long total;
    const unsigned long long at = block_exclusive_scan<BLOCK>(
        static_cast<unsigned long long>(kept), Sum<unsigned long long>(), sh.scratch, total);
    __syncthreads();  // every entry is read before any moves
#pragma unroll
    for (int r = 0; r < RUN; ++r) {
        if (static_cast<unsigned>(r) < kept) {
            img[at + r] = keep_img[r];
            idx[at + r] = keep_idx[r];
        }
    }
    __syncthreads();  // the winners are in place
}

}  // namespace select
}  // namespace prim

template <class U, int BLOCK, int ITEMS, bool PAIRS>
__global__ void __launch_bounds__(BLOCK)
    select_small_k(const U* __restrict__ keys, const U* __restrict__ in_img,
                   const long long* __restrict__ in_idx, long long len, long long blocks_per_row,
                   long long k, int kind, int descending, int idx_bits, long long cap,
                   U* __restrict__ out_img, long long* __restrict__ out_idx) {
    using namespace prim::select;
    constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
    constexpr int VN = prim::Vec16<U>::N;
    constexpr int RUN = (BLOCK * ITEMS + 256 + BLOCK - 1) / BLOCK;  // cap <= TILE + 256
    static_assert(ITEMS % VN == 0, "select_small_k: whole 16-byte vectors per thread");
    PRIM_DYNAMIC_SHARED(unsigned char, smem);
    __shared__ SmallShared<U> sh;
    U* bimg = reinterpret_cast<U*>(smem);
    long long* bidx = reinterpret_cast<long long*>(smem + ((cap * sizeof(U) + 7) / 8) * 8);
    const long long row = blockIdx.x / blocks_per_row;
    const long long part = blockIdx.x % blocks_per_row;
    const prim::radix::DigitOf<U> dig(kind, descending, 0, 1);
    const U* row_keys = keys + row * len;
    const bool aligned = (reinterpret_cast<prim::uptr>(row_keys) & 15u) == 0;
    if (threadIdx.x == 0) {
        sh.fill = 0u;
        sh.have = 0;
        sh.thresh = 0;
    }
    __syncthreads();
    for (long long t0 = part * TILE; t0 < len; t0 += blocks_per_row * TILE) {
        const bool compact = sh.fill + TILE > cap;
        __syncthreads();  // every thread has read the fill before any adds to it
        if (compact) {
            block_select<U, BLOCK, RUN>(bimg, bidx, sh.fill, k, idx_bits, sh);
            U top = 0;  // the largest image kept: the threshold
            for (long long i = threadIdx.x; i < k; i += BLOCK) top = bimg[i] > top ? bimg[i] : top;
            top = prim::block_reduce<BLOCK>(top, prim::Max<U>(), reinterpret_cast<U*>(sh.counts));
            if (threadIdx.x == 0) {
                sh.fill = static_cast<unsigned>(k);
                sh.thresh = top;
                sh.have = 1;
            }
            __syncthreads();
        }
        const U thresh = sh.thresh;
        const bool have = sh.have != 0;
        const TilePos<BLOCK, VN> tp{t0, PAIRS, in_idx + row * len};
#pragma unroll
        for (int u = 0; u < ITEMS / VN; ++u) {
            U im[VN];
            bool ok[VN];
            const long long i0 = tp.at(u * VN);
            if (!PAIRS && t0 + TILE <= len && aligned) {
                const prim::Packet<U> p = prim::load16(row_keys + i0);
#pragma unroll
                for (int v = 0; v < VN; ++v) {
                    im[v] = dig.image(p.v[v]);
                    ok[v] = true;
                }
            } else {
#pragma unroll
                for (int v = 0; v < VN; ++v) {
                    const long long i = PAIRS ? tp.at(u * VN + v) : i0 + v;
                    ok[v] = i < len;
                    im[v] = !ok[v] ? static_cast<U>(0)
                                   : (PAIRS ? in_img[row * len + i] : dig.image(row_keys[i]));
                }
            }
#pragma unroll
            for (int v = 0; v < VN; ++v) {
                if (ok[v] && (!have || im[v] < thresh)) {
                    const unsigned slot = atomicAdd(&sh.fill, 1u);
                    bimg[slot] = im[v];
                    bidx[slot] = tp.index(u * VN + v);
                }
            }
        }
        __syncthreads();
    }
    if (sh.fill > k) block_select<U, BLOCK, RUN>(bimg, bidx, sh.fill, k, idx_bits, sh);
    __syncthreads();
    const unsigned have_n = sh.fill < k ? sh.fill : static_cast<unsigned>(k);
    U* oi = out_img + blockIdx.x * k;
    long long* ox = out_idx + blockIdx.x * k;
    for (long long j = threadIdx.x; j < k; j += BLOCK) {
        const bool real = j < have_n;
        oi[j] = real ? bimg[j] : prim::Limits<U>::max();
        ox[j] = real ? bidx[j] : prim::Limits<long long>::max();
    }
}

// radix_select.cu -- top-k selection by a device-wide radix select (prim.topk, prim.argpartition,
// prim.partition: variant "radix_select", any row length, one row or many), and the ordering of a
// row's winners by (image, index) that the other variants use too (select_rank_sort).
//
// Selection works on the order-preserving unsigned image of each key (util/key_image.cuh:
// `ordered`, with the descending flip for largest = true, so NaNs come first there and last
// otherwise): the k winners of a row are the k smallest (image, index) pairs, so equal keys are
// taken from the lowest indices (a stable selection). Rows are contiguous, `len` keys each, row r
// at r * len.
//
// Device-wide radix select (any row length; one row or many):
//   select_pass<U, BLOCK, ITEMS, COLLECT>: one pass over each row's live keys. A row's state
//     (SelectField, selection/select.cuh) holds the key prefix fixed so far, as (image, index) bits
//     under masks; a key is LT (a sure winner), EQ (still a candidate) or GT against it. A pass
//     histograms the digit [shift, shift + width) of the EQ keys (of the image, or of the index
//     once every image bit is fixed) into the block's shared counters, then adds them to the row's
//     global histogram (64-bit counters). The keys come from the row itself or, once the candidates
//     fit in `cap` entries, from the candidate buffer the previous pass wrote (ping-pong buffers of
//     images and indices): when the state says so (WILL_BUFFER), the pass writes its LT keys to the
//     output and its EQ keys to the other buffer, positions from one block scan per tile and two
//     atomics per block and tile, so later passes read only the candidates. COLLECT: the last
//     launch writes the remaining winners (LT and EQ: the state is DONE by then) and no histogram.
//   select_choose<BLOCK>: one block of BLOCK (1024) threads per row: a block scan of the row's
//     histogram finds the bin holding the k_rem-th candidate, fixes the digit in the prefix,
//     subtracts the keys below it from k_rem, zeroes the histogram, decides which source the
//     next pass reads and whether it buffers, and marks the row DONE once every candidate left
//     is a winner (always so after the last index digit: indices are unique).
//   select_rank_sort: orders each row's k winners by (image, index): thread i counts the winners
//     below winner i (BLOCK at a time through shared memory) and writes it at that rank; O(k^2)
//     work, used for k up to the policy's sort_small.
//   The sample filter (filter.cu) may run before the first pass: it leaves the row's
//     candidates in buffer 0 and the state naming them as the passes' source, or the row.
// Launch: select_pass grid = blocks_per_row * rows (row = blockIdx.x / blocks_per_row; grid-stride
//   over the row's keys in tiles of BLOCK * ITEMS), BLOCK threads, static shared memory
//   8192 counters (digits of up to 13 bits) + BLOCK / 32 scan words; select_choose grid = rows,
//   1024 threads; select_rank_sort grid = ceil(k / BLOCK) * rows, BLOCK threads, BLOCK winners of
//   shared memory.
// Preconditions: 1 <= k <= len; hist zero on entry (left zero by select_choose); state
//   initialised by the host (SelectField layout, selection/select.cuh); the output rows have room
//   for k winners; cap >= 1.
#include "util/prim.cuh"
#include "util/load.cuh"
#include "util/key_image.cuh"
#include "block/scan.cuh"
#include "selection/select.cuh"

namespace prim {
namespace select {

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
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    select_choose(unsigned long long* __restrict__ hist, long long* __restrict__ state,
                  long long cap, int shift, int width, int on_index) {
    using namespace prim::select;
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

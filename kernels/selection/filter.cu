// filter.cu -- the sample filter in front of the top-k radix select (prim.topk, prim.argpartition,
// prim.partition: variant "filter", then radix_select.cu's passes): when k is small against the
// row, one read of the row leaves its candidates in buffer 0, so the passes read them instead.
//
// Selection works on the order-preserving unsigned image of each key (util/key_image.cuh:
// `ordered`, with the descending flip for largest = true, so NaNs come first there and last
// otherwise): the k winners of a row are the k smallest (image, index) pairs, so equal keys are
// taken from the lowest indices (a stable selection). Rows are contiguous, `len` keys each, row r
// at r * len.
//
// Sample filter (k small against the row): select_sample, one block per row, takes `sample`
//   keys at positions i * len / sample into shared memory and finds the image of rank `rank`
//   among them (block_rank_image: an MSD select of 8-bit digits), the row's threshold T (state
//   THRESH). select_filter reads every key once and keeps those with image <= T: a block writes
//   them to its own segment of buffer 1 (cap / blocks_per_row entries; positions by a warp scan
//   and one shared atomic per warp and tile; a warp stops once the segment is full), then, by
//   one global atomic on WRITE_COUNT, copies them to their place in buffer 0 (an overflowing
//   block adds cap + 1 instead: the row reads its keys). select_filter_done<BLOCK> (a thread per
//   row): when the candidates number k..cap they hold the k winners (every other key's image
//   is above theirs), and the state names buffer 0 as the passes' source; otherwise the state
//   is left as the host set it and the passes read the row. The host picks `rank` so that the
//   k winners hold about rank * sample / len of the sample's keys with a margin (a miss costs
//   time, not correctness).
// Launch: select_sample grid = rows, BLOCK threads, dynamic shared memory sample * sizeof(U)
//   (static: 256 counters and BLOCK / 32 scan words); select_filter grid = blocks_per_row * rows
//   (row = blockIdx.x / blocks_per_row; grid-stride over the row's keys in tiles of
//   BLOCK * ITEMS), BLOCK threads, two shared words; select_filter_done grid = ceil(rows / BLOCK),
//   256 threads.
// Preconditions: 1 <= k <= len; 1 <= rank <= sample; state initialised by the host (SelectField
//   layout, selection/select.cuh; WRITE_COUNT zero, left zero by select_filter_done); buffers of
//   cap entries per row; cap >= 1.
#include "util/prim.cuh"
#include "util/load.cuh"
#include "util/key_image.cuh"
#include "warp/shfl.cuh"
#include "warp/scan.cuh"
#include "block/scan.cuh"
#include "selection/select.cuh"

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
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    select_filter_done(long long* __restrict__ state, long long rows, long long k, long long cap) {
    using namespace prim::select;
    const long long r = static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x;
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

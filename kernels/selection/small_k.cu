// small_k.cu -- top-k selection for small k by block-local candidate sets (prim.topk,
// prim.argpartition, prim.partition: variant "small_k").
//
// Selection works on the order-preserving unsigned image of each key (util/key_image.cuh:
// `ordered`, with the descending flip for largest = true, so NaNs come first there and last
// otherwise): the k winners of a row are the k smallest (image, index) pairs, so equal keys are
// taken from the lowest indices (a stable selection). Rows are contiguous, `len` keys each, row r
// at r * len.
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
#include "util/prim.cuh"
#include "util/load.cuh"
#include "util/key_image.cuh"
#include "block/reduce.cuh"
#include "block/scan.cuh"
#include "selection/select.cuh"

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

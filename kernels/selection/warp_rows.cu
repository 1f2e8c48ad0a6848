// warp_rows.cu -- top-k selection with a warp per short row and small k (prim.topk,
// prim.argpartition, prim.partition: variant "warp_rows"; rows.cu takes the rows it leaves).
//
// Selection works on the order-preserving unsigned image of each key (util/key_image.cuh:
// `ordered`, with the descending flip for largest = true, so NaNs come first there and last
// otherwise): the k winners of a row are the k smallest (image, index) pairs, so equal keys are
// taken from the lowest indices (a stable selection). Rows are contiguous, `len` keys each, row r
// at r * len.
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
#include "selection/select.cuh"

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

// select.cuh -- what the top-k selection kernels (prim.topk, prim.argpartition, prim.partition)
// share: the row state of the radix select, the place of a thread's items, the order of
// (image, index) pairs and one digit of a block's MSD radix select.
//
// Selection works on the order-preserving unsigned image of each key (util/key_image.cuh:
// `ordered`, with the descending flip for largest = true, so NaNs come first there and last
// otherwise): the k winners of a row are the k smallest (image, index) pairs, so equal keys are
// taken from the lowest indices (a stable selection). Rows are contiguous, `len` keys each, row r
// at r * len.
//
// One file per variant, each with its kernels' launches in its header comment:
//   radix_select.cu   the device-wide radix select (select_pass, select_choose) and the ordering
//                     of a row's winners (select_rank_sort);
//   filter.cu         the sample filter the radix select may start with (select_sample,
//                     select_filter, select_filter_done);
//   rows.cu           a block per short row (select_rows);
//   warp_rows.cu      a warp per short row, small k (select_warp_rows);
//   small_k.cu        block-local candidate sets, small k (select_small_k).
// Here: SelectField, the layout of a row's state (64-bit fields, FIELDS per row, set up by the
// host, read and written by the radix select and the sample filter); TilePos, where item j of a
// thread's tile is (the radix select's passes and select_small_k); before, the (image, index)
// order; digit_bucket, one digit of a block's MSD radix select over shared memory (the sample
// filter and select_rows; a whole-block call, see there). Device functions only: no kernel, no
// shared memory of its own.
#pragma once
#include "util/prim.cuh"
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

// (image, index) pair a precedes b.
template <class U>
__device__ __forceinline__ bool before(U ia, long long xa, U ib, long long xb) {
    return ia < ib || (ia == ib && xa < xb);
}

}  // namespace select
}  // namespace prim

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

// rows.cu -- rows of one length m sorted each on its own (the sorts along an axis): row r is
// keys[r * m, (r + 1) * m) (64-bit offsets), m known to the launch, no offsets read. One kernel
// per row length class, each a single launch that reads the keys once and writes them once:
//
// Keys K are stored as unsigned bits of 1, 2, 4 or 8 bytes and sorted as U (u32, or u64 for
// 8-byte keys): 1- and 2-byte signed keys get their sign bit flipped on load (then sorted as
// unsigned, over their own 8 or 16 bits) and back on store, float16 and bfloat16 keys (`kind`
// FLOAT and prim::radix::BFLOAT) are held as their 16-bit image above their bits (rows::Key), so no
// pass of the caller widens or narrows them; 4- and
// 8-byte keys are sorted by the order-preserving image of `kind`
// (util/key_image.cuh: NaNs last, -0.0 equal to 0.0, `descending` complements it), computed
// whenever a digit is needed. Equal keys keep their input order (stable).
// Values (VM): VM_NONE none; VM_IOTA each key's column (its index within its row) written as V
// (u64: argsort's int64 indices, generated in the kernel, no index array read); VM_ARRAY
// vals_in moved alongside. write_keys = 0 skips writing keys (argsort).
//
// rows_sort_lanes<K, V, VM, WARPS, ITEMS>: rows of m <= 32 keys, a lane per key. A group is
//   floor(32 / m) consecutive rows, one warp load of 32 keys at most; a warp sorts ITEMS groups
//   (loaded first, for loads in flight), grid-stride over groups. A key's rank within its row
//   is found from one ballot per key bit, most significant first: the lanes of its row that
//   agree with it on the bits so far (`eq`) and those already found smaller (`less`); rank =
//   popc(less) + popc(eq below the lane), stable. The key goes to its rank directly: a warp's
//   stores are a permutation of its own contiguous keys (coalesced). No shared memory, no
//   barrier (warps are independent; every lane takes part in every ballot).
//   Launch: block WARPS * 32, grid <= ceil(groups / (WARPS * ITEMS)).
// rows_sort_warp<K, V, VM, WARPS, ITEMS, MATCH>: rows of 32 < m <= 32 * ITEMS, a warp per row
//   (grid-stride over rows): the row warp-striped in registers, LSD 8-bit digits; per digit
//   (skipped when equal for the whole row) a count into the warp's 256 shared counters, a warp
//   scan of them, warp_rank (sorting/radix.cuh, MATCH) and an exchange of the keys (and their
//   16-bit positions, with values) through the warp's buffers. Only __syncwarp. Values: the
//   column, or vals_in gathered from the row's positions.
//   Launch: block WARPS * 32, dynamic shared memory rows_warp_smem<U, WARPS, ITEMS, VM>() bytes
//   (per warp: rank_counters<8>(1) words rounded up to 16 bytes, 32 * ITEMS keys, then
//   32 * ITEMS u16 positions with values).
// rows_sort_block<K, V, VM, BLOCK, ITEMS, MATCH, MIN_BLOCKS>: rows of up to BLOCK * ITEMS keys, a
//   block per row (grid-stride over rows, a block-uniform loop; MIN_BLOCKS resident blocks an SM
//   bound the registers, __launch_bounds__): the row warp-striped in registers (loads
//   of 32 consecutive keys), LSD 8-bit digits, each skipped when equal for the whole row (one
//   __syncthreads_count), else block_count and block_rank_each (radix.cuh: digit-major scan of
//   per-warp counters, MATCH ranking) with each key (and its 16-bit position, with values)
//   staged in shared memory at its rank as soon as it is ranked, then read back warp-striped.
//   Keys are written in order; values: the column, or (VM_ARRAY) the row's values loaded
//   coalesced into shared memory after the last pass and read from there at each sorted key's
//   position (no scattered global reads).
//   Launch: block BLOCK (a multiple of 256), dynamic shared memory
//   rows_block_smem<U, V, VM, BLOCK, ITEMS>() bytes (rank counters rounded up to 16 bytes, then
//   max(TILE keys + TILE u16 positions (with values), TILE values (VM_ARRAY))), above 48 KiB
//   opted into by the caller (primitives/_core/launch.py); static BLOCK / 32 scan words.
// Preconditions: 1 <= m <= the kernel's capacity (else it writes nothing), rows >= 1,
//   out-of-place (outputs apart from the inputs), the arrays C-contiguous (rows * m elements).
#include "util/prim.cuh"
#include "util/key_image.cuh"
#include "warp/scan.cuh"
#include "sorting/radix.cuh"
#include "sorting/block.cuh"

namespace rows {

enum ValueMode { VM_NONE = 0, VM_IOTA = 1, VM_ARRAY = 2 };

constexpr int BITS = prim::radix::TILE_BITS;  // digit width of the warp and block kernels
constexpr int RADIX = 1 << BITS;

// How a stored key of K is sorted: as U over bits [begin, end). Narrow signed keys get their
// sign bit flipped (then sorted as unsigned); a float16 key (K of 2 bytes, kind FLOAT) or a
// bfloat16 one (kind prim::radix::BFLOAT) is held as its 16-bit order-preserving image (NaNs, the
// magnitudes above the format's infinity, folded into its positive quiet NaN, negative numbers
// negated, others with the sign bit set: -0.0 lands on 0.0) above its own bits, and sorted by
// the image alone, so its bits come back unchanged (NaN payloads, the sign of zeros).
template <class K>
struct Key {
    typedef typename prim::Select<sizeof(K) == 8, prim::u64, prim::u32>::type U;
    static constexpr int NBITS = 8 * static_cast<int>(sizeof(K));
    static constexpr bool NARROW = sizeof(K) < 4;
    bool half;  // a 16-bit float key (float16 or bfloat16)
    U sign;  // xored on load and store (narrow signed keys)
    int kind;  // the kind the held bits are sorted as
    int begin, end;  // the held bits that order the keys
    prim::u32 half_inf;  // the 16-bit float's +inf: magnitudes above it are NaNs
    prim::u32 half_nan;  // the 16-bit key every NaN folds into (as prim::radix::nan_fold)
    __device__ __forceinline__ Key(int kind_, int descending)
        : half(sizeof(K) == 2 && (kind_ == prim::radix::FLOAT || kind_ == prim::radix::BFLOAT)),
          sign(NARROW && kind_ == prim::radix::SIGNED ? static_cast<U>(1) << (NBITS - 1)
                                                      : static_cast<U>(0)),
          kind(NARROW ? static_cast<int>(prim::radix::UNSIGNED) : kind_),
          begin(half ? 16 : 0),
          end(half ? 32 : NBITS),
          half_inf(prim::radix::float_inf<unsigned short>(kind_)),
          half_nan(prim::radix::nan_fold<unsigned short>(descending, kind_)) {}
    // the 16-bit order-preserving image of 16-bit float bits h
    __device__ __forceinline__ prim::u32 half_image(prim::u32 h) const {
        if ((h & 0x7fffu) > half_inf) h = half_nan;
        return (h & 0x8000u) ? (0x10000u - h) & 0xffffu : h | 0x8000u;
    }
    __device__ __forceinline__ U in(K k) const {
        const U u = static_cast<U>(k);
        return half ? static_cast<U>((half_image(static_cast<prim::u32>(u)) << 16) | u) : u ^ sign;
    }
    __device__ __forceinline__ K out(U u) const { return static_cast<K>(half ? u : u ^ sign); }
    // the key's order-preserving image, `dig` its flip and NaN fold (rows_sort_lanes)
    __device__ __forceinline__ U image(K k, const prim::radix::DigitOf<U>& dig) const {
        if (half) return static_cast<U>(half_image(static_cast<prim::u32>(k))) ^ dig.flip;
        return prim::radix::ordered(in(k), dig.is_float, dig.flip, dig.nan);
    }
};

// Shared memory of the rank counters and masks of `warps` warps, rounded up to 16 bytes.
__host__ __device__ constexpr int counter_bytes(int warps) {
    return (prim::radix::rank_counters<BITS>(warps) * 4 + 15) / 16 * 16;
}

// Bytes a tile slot takes while keys are ranked: the key, and its 16-bit position with values.
template <class U, int VM>
__host__ __device__ constexpr int slot_bytes() {
    return static_cast<int>(sizeof(U)) + (VM != VM_NONE ? 2 : 0);
}

template <class U, int WARPS, int ITEMS, int VM>
__host__ __device__ constexpr int rows_warp_smem() {
    return WARPS * (counter_bytes(1) + prim::WARP * ITEMS * slot_bytes<U, VM>());
}

template <class U, class V, int VM, int BLOCK, int ITEMS>
__host__ __device__ constexpr int rows_block_smem() {
    return counter_bytes(BLOCK / prim::WARP) +
        BLOCK * ITEMS *
        (VM == VM_ARRAY && static_cast<int>(sizeof(V)) > slot_bytes<U, VM>()
             ? static_cast<int>(sizeof(V))
             : slot_bytes<U, VM>());
}

}  // namespace rows

template <class K, class V, int VM, int WARPS, int ITEMS>
__global__ void __launch_bounds__(WARPS* prim::WARP)
    rows_sort_lanes(const K* __restrict__ keys_in, K* __restrict__ keys_out,
                    const V* __restrict__ vals_in, V* __restrict__ vals_out, long long n_rows,
                    int m, int kind, int descending, int write_keys) {
    using namespace prim::radix;
    typedef rows::Key<K> Key;
    typedef typename Key::U U;
    if (m < 1 || m > prim::WARP) return;  // outside the contract (grid-uniform)
    const Key key_of(kind, descending);
    const DigitOf<U> image(key_of.kind, descending, 0, 1);  // its flip and float test
    const int lane = threadIdx.x % prim::WARP;
    const int per = prim::WARP / m;  // rows of a group
    const int span = per * m;  // keys of a group
    const int sub = lane / m;  // this lane's row within the group
    const int col = lane - sub * m;
    const unsigned row_lanes = (m == prim::WARP ? prim::FULL_MASK : (1u << m) - 1u) << (sub * m);
    const unsigned below = (1u << lane) - 1u;
    const long long groups = (n_rows + per - 1) / per;
    const long long step = static_cast<long long>(gridDim.x) * WARPS * ITEMS;
    for (long long g0 =
             (static_cast<long long>(blockIdx.x) * WARPS + threadIdx.x / prim::WARP) * ITEMS;
         g0 < groups; g0 += step) {  // warp-uniform
        K key[ITEMS];
        V val[ITEMS];
        bool valid[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const long long g = g0 + k;
            valid[k] = g < groups && lane < span && g * per + sub < n_rows;
            const long long e = g * span + lane;
            key[k] = valid[k] ? keys_in[e] : static_cast<K>(0);
            if (VM == rows::VM_ARRAY) val[k] = valid[k] ? vals_in[e] : static_cast<V>(0);
        }
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const U img = key_of.image(key[k], image);
            unsigned eq = row_lanes & __ballot_sync(prim::FULL_MASK, valid[k]);
            unsigned less = 0u;
#pragma unroll
            for (int b = Key::NBITS - 1; b >= 0; --b) {
                const bool bit = ((img >> b) & static_cast<U>(1)) != 0;
                const unsigned ones = __ballot_sync(prim::FULL_MASK, bit);
                less |= bit ? (eq & ~ones) : 0u;
                eq &= bit ? ones : ~ones;
            }
            if (valid[k]) {
                const unsigned rank = __popc(less) + __popc(eq & below);
                const long long dest = (g0 + k) * span + sub * m + rank;
                if (write_keys) keys_out[dest] = key[k];
                if (VM == rows::VM_IOTA) vals_out[dest] = static_cast<V>(col);
                if (VM == rows::VM_ARRAY) vals_out[dest] = val[k];
            }
        }
    }
}

template <class K, class V, int VM, int WARPS, int ITEMS, int MATCH>
__global__ void __launch_bounds__(WARPS* prim::WARP)
    rows_sort_warp(const K* __restrict__ keys_in, K* __restrict__ keys_out,
                   const V* __restrict__ vals_in, V* __restrict__ vals_out, long long n_rows, int m,
                   int kind, int descending, int write_keys) {
    using namespace prim::radix;
    typedef rows::Key<K> Key;
    typedef typename Key::U U;
    constexpr int CAP = prim::WARP * ITEMS;
    constexpr bool POS = VM != rows::VM_NONE;
    static_assert(CAP <= 65536, "rows_sort_warp: positions are 16-bit");
    PRIM_DYNAMIC_SHARED(unsigned char, smem);
    if (m < 1 || m > CAP) return;  // outside the contract (grid-uniform)
    const Key key_of(kind, descending);
    const int warp = threadIdx.x / prim::WARP, lane = threadIdx.x % prim::WARP;
    unsigned char* mine = smem + warp * rows::rows_warp_smem<U, 1, ITEMS, VM>();
    unsigned* cnt = reinterpret_cast<unsigned*>(mine);
    unsigned* masks = cnt + rows::RADIX + 1;
    U* kbuf = reinterpret_cast<U*>(mine + rows::counter_bytes(1));
    unsigned short* ibuf = reinterpret_cast<unsigned short*>(kbuf + CAP);
    for (int i = lane; i < rank_masks<rows::BITS>(); i += prim::WARP) masks[i] = 0u;
    for (long long r = static_cast<long long>(blockIdx.x) * WARPS + warp; r < n_rows;
         r += static_cast<long long>(gridDim.x) * WARPS) {  // warp-uniform
        const long long a = r * m;
        U key[ITEMS];
        Positions<ITEMS> idx;
#pragma unroll
        for (int j = 0; j < (ITEMS + 1) / 2; ++j) idx.w[j] = 0u;
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const int i = k * prim::WARP + lane;
            idx.w[k >> 1] |= static_cast<unsigned>(i) << ((k & 1) * 16);
            key[k] = i < m ? key_of.in(keys_in[a + i]) : static_cast<U>(0);
        }
        for (int shift = key_of.begin; shift < key_of.end; shift += rows::BITS) {
            const DigitOf<U> dig(key_of.kind, descending, shift, rows::BITS);
            // padding sits at positions >= m, where it always sorts: largest digit
            const Digits<ITEMS> digits = digits_of<U, ITEMS>(key, m, dig);
            if (!warp_digit_offsets<rows::RADIX>(digits, m, cnt)) continue;  // constant digit
            warp_rank_each<rows::BITS, ITEMS, MATCH>(digits, cnt, masks, [&](int k, unsigned s) {
                kbuf[s] = key[k];
                if (POS) ibuf[s] = static_cast<unsigned short>(idx.get(k));
            });
            __syncwarp();
#pragma unroll
            for (int j = 0; j < (ITEMS + 1) / 2; ++j) idx.w[j] = 0u;
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
                const int i = k * prim::WARP + lane;
                key[k] = kbuf[i];
                if (POS) idx.w[k >> 1] |= static_cast<unsigned>(ibuf[i]) << ((k & 1) * 16);
            }
            __syncwarp();
        }
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const int i = k * prim::WARP + lane;
            if (i < m) {
                if (write_keys) keys_out[a + i] = key_of.out(key[k]);
                if (VM == rows::VM_IOTA) vals_out[a + i] = static_cast<V>(idx.get(k));
                if (VM == rows::VM_ARRAY) vals_out[a + i] = vals_in[a + idx.get(k)];
            }
        }
    }
}

template <class K, class V, int VM, int BLOCK, int ITEMS, int MATCH, int MIN_BLOCKS>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
    rows_sort_block(const K* __restrict__ keys_in, K* __restrict__ keys_out,
                    const V* __restrict__ vals_in, V* __restrict__ vals_out, long long n_rows,
                    int m, int kind, int descending, int write_keys) {
    using namespace prim::radix;
    typedef rows::Key<K> Key;
    typedef typename Key::U U;
    constexpr int TILE = BLOCK * ITEMS;
    constexpr bool POS = VM != rows::VM_NONE;
    static_assert(TILE <= 65536, "rows_sort_block: positions are 16-bit");
    PRIM_DYNAMIC_SHARED(unsigned char, smem);
    __shared__ unsigned scratch[BLOCK / prim::WARP];
    if (m < 1 || m > TILE) return;  // outside the contract (grid-uniform)
    const Key key_of(kind, descending);
    unsigned* hist = reinterpret_cast<unsigned*>(smem);
    unsigned char* tile = smem + rows::counter_bytes(BLOCK / prim::WARP);
    U* kbuf = reinterpret_cast<U*>(tile);
    unsigned short* ibuf = reinterpret_cast<unsigned short*>(kbuf + TILE);
    V* vbuf = reinterpret_cast<V*>(tile);  // VM_ARRAY, after the last pass
    const int warp_first = (threadIdx.x / prim::WARP) * prim::WARP * ITEMS;
    for (long long r = blockIdx.x; r < n_rows; r += gridDim.x) {  // block-uniform
        const long long a = r * m;
        U key[ITEMS];
        Positions<ITEMS> idx;
#pragma unroll
        for (int j = 0; j < (ITEMS + 1) / 2; ++j) idx.w[j] = 0u;
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const int i = striped_index<ITEMS>(k);
            if (POS) idx.w[k >> 1] |= static_cast<unsigned>(i) << ((k & 1) * 16);
            key[k] = i < m ? key_of.in(keys_in[a + i]) : static_cast<U>(0);
        }
        const U first = key_of.in(keys_in[a]);  // any real key will do
        for (int shift = key_of.begin; shift < key_of.end; shift += rows::BITS) {
            const DigitOf<U> dig(key_of.kind, descending, shift, rows::BITS);
            const Digits<ITEMS> digits = digits_of<U, ITEMS>(key, m - warp_first, dig);
            const unsigned d0 = dig(first);
            bool differs = false;
#pragma unroll
            for (int k = 0; k < ITEMS; ++k)
                differs = differs || (striped_index<ITEMS>(k) < m && digits.get(k) != d0);
            // block-uniform; also the barrier between the last read of the buffers (the
            // previous pass, or the previous row) and the writes below
            if (__syncthreads_count(differs) == 0) continue;
            unsigned dcount, dstart;
            block_count<BLOCK, rows::BITS, ITEMS>(digits, hist, scratch, dcount, dstart);
            block_rank_each<BLOCK, rows::BITS, ITEMS, MATCH>(digits, hist, [&](int k, unsigned s) {
                kbuf[s] = key[k];
                if (POS) ibuf[s] = static_cast<unsigned short>(idx.get(k));
            });
            __syncthreads();
#pragma unroll
            for (int j = 0; j < (ITEMS + 1) / 2; ++j) idx.w[j] = 0u;
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
                const int i = striped_index<ITEMS>(k);
                key[k] = kbuf[i];
                if (POS) idx.w[k >> 1] |= static_cast<unsigned>(ibuf[i]) << ((k & 1) * 16);
            }
        }
        if (VM == rows::VM_ARRAY) {
            __syncthreads();  // every staged key and position has been read back
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
                const int i = striped_index<ITEMS>(k);
                if (i < m) vbuf[i] = vals_in[a + i];
            }
            __syncthreads();
        }
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const int i = striped_index<ITEMS>(k);
            if (i < m) {
                if (write_keys) keys_out[a + i] = key_of.out(key[k]);
                if (VM == rows::VM_IOTA) vals_out[a + i] = static_cast<V>(idx.get(k));
                if (VM == rows::VM_ARRAY) vals_out[a + i] = vbuf[idx.get(k)];
            }
        }
    }
}

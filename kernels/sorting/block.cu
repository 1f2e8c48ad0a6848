// block.cu -- the sort of a small input by one block: one launch, no scratch in global memory.
//
// block_sort<U, V, VALUES, BLOCK, ITEMS>: the n keys (bit patterns U = u32/u64 of `kind`, sorted
//   by bits [begin_bit, end_bit) of their order-preserving image, `descending`) sorted stably by
//   block_sort_tile (sorting/block.cuh: LSD 8-bit digits in registers and shared memory, constant
//   digits skipped), then written in order to keys_out (unless flags has KEYS_DISCARD) and the
//   values: VALUES false, none; else, with VALUES_IOTA in flags, each key's original index as V
//   (V = u64: argsort's int64 permutation, no index array read), or vals_in gathered from the
//   keys' original positions.
// Launch: grid 1, block BLOCK (<= 1024, a multiple of 32). Dynamic shared memory:
//   block_sort_smem<U, BLOCK, ITEMS>() bytes (rank counters, BLOCK * ITEMS keys and positions;
//   above 48 KiB: the kernel's attribute raised, primitives/_core/launch.py); static BLOCK / 32
//   words of scan scratch.
// Preconditions: 1 <= n <= BLOCK * ITEMS (else the block exits and writes nothing);
//   0 <= begin_bit <= end_bit <= bits of U; out-of-place (keys_out, vals_out apart from the
//   inputs).
#include "util/prim.cuh"
#include "sorting/block.cuh"
#include "sorting/radix.cuh"

template <class U, class V, bool VALUES, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    block_sort(const U* __restrict__ keys_in, U* __restrict__ keys_out,
               const V* __restrict__ vals_in, V* __restrict__ vals_out, long long n_keys, int kind,
               int descending, int begin_bit, int end_bit, int flags) {
    using namespace prim::radix;
    PRIM_DYNAMIC_SHARED(unsigned char, smem);  // block_sort_tile's layout
    __shared__ unsigned scratch[BLOCK / prim::WARP];
    if (n_keys < 1 || n_keys > BLOCK * ITEMS) return;  // block-uniform: outside the contract
    const int n = static_cast<int>(n_keys);
    U key[ITEMS];
    Positions<ITEMS> idx;
    block_sort_tile<U, BLOCK, ITEMS>(keys_in, n, kind, descending, begin_bit, end_bit, smem,
                                     scratch, key, idx);
    const bool write_keys = (flags & KEYS_DISCARD) == 0;
    const bool iota = (flags & VALUES_IOTA) != 0;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int i = striped_index<ITEMS>(k);
        if (i < n) {
            if (write_keys) keys_out[i] = key[k];
            if (VALUES) vals_out[i] = iota ? static_cast<V>(idx.get(k)) : vals_in[idx.get(k)];
        }
    }
}

// split.cu -- the teaching radix sort: one bit per pass (the "split" of Blelloch's scan
// primitives). Per bit, three launches:
//   split_flags<U>: flags[i] = 1 where the key's bit is 0 (grid-stride, any 1-D launch);
//   an exclusive scan of the flags (the project's look-back scan, from Python): zeros_before[i]
//     is the number of 0-bit keys before i;
//   split_scatter<U, V, VALUES>: a key whose bit is 0 goes to zeros_before[i], a key whose bit is
//     1 to zeros + (i - zeros_before[i]), where zeros = zeros_before[n-1] + flag[n-1] (grid-stride,
//     any 1-D launch). Stable: both groups keep their order, the 0s first.
// No shared memory. Preconditions: n >= 1; keys_in != keys_out (the passes ping-pong).
#include "util/prim.cuh"
#include "util/key_image.cuh"
#include "sorting/radix.cuh"

template <class U>
__global__ void split_flags(const U* __restrict__ keys, long long n, int kind, int descending,
                            int bit, unsigned* __restrict__ flags) {
    const prim::radix::DigitOf<U> dig(kind, descending, bit, 1);
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride)
        flags[i] = dig(keys[i]) ^ 1u;
}

template <class U, class V, bool VALUES>
__global__ void split_scatter(const U* __restrict__ keys_in, U* __restrict__ keys_out,
                              const V* __restrict__ vals_in, V* __restrict__ vals_out, long long n,
                              int kind, int descending, int bit,
                              const unsigned long long* __restrict__ zeros_before) {
    const prim::radix::DigitOf<U> dig(kind, descending, bit, 1);
    const long long zeros =
        static_cast<long long>(zeros_before[n - 1]) + (dig(keys_in[n - 1]) ^ 1u);
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const U key = keys_in[i];
        const long long z = static_cast<long long>(zeros_before[i]);
        const long long dest = dig(key) ? zeros + (i - z) : z;
        keys_out[dest] = key;
        if (VALUES) vals_out[dest] = vals_in[i];
    }
}

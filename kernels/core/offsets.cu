// offsets.cu -- the check of CSR-style segment offsets (segmented scans and reductions, the
// segmented sort) in one pass on the device, so that validating them needs no other kernel.
//
// offsets_stats<T>: over offsets[0 .. k) (k >= 1), stats[0] += the number of decreasing steps
//   (offsets[i + 1] < offsets[i]), stats[1] = max(stats[1], the largest step offsets[i + 1] -
//   offsets[i]: the longest segment when none decreases), and thread 0 of block 0 writes
//   stats[2] = offsets[0] and stats[3] = offsets[k - 1]. Each thread walks its steps
//   grid-stride, a warp combines its counts and maxima with shuffles (warp/reduce.cuh) and its
//   lane 0 adds them with one atomic each.
//   Launch: 1-D, blockDim.x a multiple of 32, any grid; no shared memory. Preconditions: k >= 1;
//   stats[0] == 0 and stats[1] <= 0 on entry (the caller zeroes them).
#include "util/prim.cuh"
#include "util/thread.cuh"
#include "warp/reduce.cuh"

template <class T>
__global__ void offsets_stats(const T* __restrict__ offsets, long long k,
                              long long* __restrict__ stats) {
    const long long stride = prim::global_threads(), first = prim::global_thread();
    unsigned long long bad = 0;
    long long longest = 0;
    for (long long i = first; i + 1 < k; i += stride) {
        const long long step =
            static_cast<long long>(offsets[i + 1]) - static_cast<long long>(offsets[i]);
        bad += step < 0;
        longest = step > longest ? step : longest;
    }
    bad = prim::warp_reduce(bad, prim::Sum<unsigned long long>());
    longest = prim::warp_reduce(longest, prim::Max<long long>());
    if ((threadIdx.x & 31) == 0) {
        if (bad) atomicAdd(reinterpret_cast<unsigned long long*>(stats), bad);
        if (longest > 0) atomicMax(stats + 1, longest);
    }
    if (first == 0) {
        stats[2] = static_cast<long long>(offsets[0]);
        stats[3] = static_cast<long long>(offsets[k - 1]);
    }
}

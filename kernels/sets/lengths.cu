// lengths.cu -- the lengths of runs from their first indices (run-length encoding's counts).
//
// run_lengths: out[r] = starts[r + 1] - starts[r] for r < m - 1, out[m - 1] = n - starts[m - 1]:
//   the runs of n elements whose r-th run begins at starts[r] (increasing, starts[0] == 0).
// Launch: 1-D grid-stride, any block and grid; no shared memory. Preconditions: m >= 1; starts
//   and out do not overlap.
#include "util/prim.cuh"
#include "util/thread.cuh"

__global__ void run_lengths(const long long* __restrict__ starts, long long m, long long n,
                            long long* __restrict__ out) {
    for (long long r = prim::global_thread(); r < m; r += prim::global_threads())
        out[r] = (r + 1 < m ? starts[r + 1] : n) - starts[r];
}

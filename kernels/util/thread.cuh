// thread.cuh -- a thread's place in a 1-D launch: global_thread() is its index in the grid
// (blockIdx.x * blockDim.x + threadIdx.x), global_threads() the number of threads of the grid
// (gridDim.x * blockDim.x), both 64-bit, for grid-stride loops
// `for (i = global_thread(); i < n; i += global_threads())`. Preconditions: a 1-D launch (the y
// and z dimensions are not counted).
#pragma once
#include "util/prim.cuh"

namespace prim {

// This thread's index in the grid, and the number of threads of the grid (1-D launches).
__device__ __forceinline__ i64 global_thread() {
    return static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ i64 global_threads() { return static_cast<i64>(gridDim.x) * blockDim.x; }

}  // namespace prim

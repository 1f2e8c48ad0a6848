"""Shared-memory atomics under contention (GPU only): how long a warp-wide atomicAdd, atomicOr,
or plain load-add-store on shared words takes when its 32 lanes hit distinct words in distinct
banks, random words of a 256-word row (as random radix digits do), 10 lanes one word and the
rest distinct words (as a skewed digit does), or all one word.

    python -m tools.probes.smem_atomics

Each block of 256 threads runs ITERS rounds; the times are medians of CUDA events, per round of
one warp-wide instruction on every warp of the GPU (ns). Every pattern runs the random
generator of the random one (a multiply-add per round), so only the addresses differ.
"""

import cupy
import numpy as np

from primitives._core import timing as _timing

SOURCE = r"""
extern "C" __global__ void contend(int iters, int pattern, int op, unsigned* out) {
    __shared__ unsigned s[8 * 257];
    for (int i = threadIdx.x; i < 8 * 257; i += blockDim.x) s[i] = 0u;
    __syncthreads();
    const unsigned lane = threadIdx.x % 32u;
    unsigned* row = s + (threadIdx.x / 32u) * 257u;
    unsigned x = lane * 2654435761u + blockIdx.x * 40503u + 12345u;
    for (int i = 0; i < iters; ++i) {
        unsigned a;
        x = x * 1664525u + 1013904223u;
        if (pattern == 0) {
            a = lane;
        } else if (pattern == 1) {
            a = x >> 24;
        } else if (pattern == 2) {
            a = lane < 10u ? 0u : lane;
        } else {
            a = 0u;
        }
        if (op == 0) {
            atomicAdd(&row[a], 1u);
        } else if (op == 1) {
            atomicOr(&row[a], 1u << lane);
        } else {
            volatile unsigned* v = row;
            v[a] = v[a] + 1u;
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = s[0] + s[100] + x;
}
"""

PATTERNS = {"distinct words": 0, "random (256 words)": 1, "10 lanes one word": 2, "all one word": 3}
OPS = {"atomicAdd": 0, "atomicOr": 1, "load+store": 2}


def main():
    kernel = cupy.RawKernel(SOURCE, "contend")
    sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
    grid, block, iters = sms * 8, 256, 4096
    out = cupy.zeros(grid, dtype=np.uint32)
    warps = grid * block // 32
    print(f"{grid} blocks of {block}, {iters} rounds; ns per round of all {warps} warps")
    print("| pattern | " + " | ".join(OPS) + " |")
    print("|---|" + "---|" * len(OPS))
    for pname, p in PATTERNS.items():
        cells = []
        for oname, o in OPS.items():

            def run():
                kernel((grid,), (block,), (np.int32(iters), np.int32(p), np.int32(o), out))

            ms = _timing.bench(run, warmup=3, repeat=10)
            cells.append(f"{ms * 1e6 / iters:.2f}")
        print(f"| {pname} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()

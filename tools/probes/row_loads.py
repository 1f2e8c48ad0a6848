"""Probe: how the load instruction and the work layout change the read rate of a sum over long
contiguous rows, (65536, 4096) float32 (GPU only; prints a table).

Stand-alone kernels (not the package's): a warp per row (grid-stride over rows, four 16-byte
loads in flight per lane) with each of several 16-byte loads (``ld.global.nc`` as ``__ldg``,
plain ``ld.global``, and each with the L2 256-byte prefetch hint), and a block per row reading
the whole row at once (256 threads x four 16-byte loads, one block per row), beside
``prim.sum(x, axis=1)``, ``cupy.sum(x, axis=1)`` and the flat ``prim.sum(x)``.

    python -m tools.probes.row_loads
"""

from __future__ import annotations

import cupy as cp
import numpy as np

import primitives as prim
from primitives._core import timing as _timing

SOURCE = r"""
__device__ __forceinline__ uint4 ld_nc(const uint4* p) { return __ldg(p); }
#define LOAD_ASM(NAME, OP)                                                                   \
__device__ __forceinline__ uint4 NAME(const uint4* p) {                                      \
    uint4 v;                                                                                 \
    asm volatile(OP " {%0,%1,%2,%3}, [%4];"                                                  \
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));                     \
    return v;                                                                                \
}
LOAD_ASM(ld_plain, "ld.global.v4.u32")
LOAD_ASM(ld_nc256, "ld.global.nc.L2::256B.v4.u32")
LOAD_ASM(ld_plain256, "ld.global.L2::256B.v4.u32")
LOAD_ASM(ld_nc_noalloc256, "ld.global.nc.L1::no_allocate.L2::256B.v4.u32")
__device__ __forceinline__ float add4(uint4 v) {
    return (__uint_as_float(v.x) + __uint_as_float(v.y)) +
           (__uint_as_float(v.z) + __uint_as_float(v.w));
}
#define WARP_ROWS(NAME, LD)                                                                  \
extern "C" __global__ void __launch_bounds__(256) NAME(const float* in, long long rows,      \
                                                       long long pk, float* out) {           \
    const int lane = threadIdx.x % 32;                                                       \
    const long long warp = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32;          \
    const long long nwarps = (long long)gridDim.x * blockDim.x / 32;                         \
    for (long long r = warp; r < rows; r += nwarps) {                                        \
        const uint4* p = reinterpret_cast<const uint4*>(in + r * pk * 4);                    \
        float acc = 0.f;                                                                     \
        for (long long j = lane; j < pk; j += 128) {                                         \
            uint4 a = LD(p + j), b = LD(p + j + 32), c = LD(p + j + 64), d = LD(p + j + 96); \
            acc += (add4(a) + add4(b)) + (add4(c) + add4(d));                                \
        }                                                                                    \
        for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);       \
        if (lane == 0) out[r] = acc;                                                         \
    }                                                                                        \
}
WARP_ROWS(warp_nc, ld_nc)
WARP_ROWS(warp_plain, ld_plain)
WARP_ROWS(warp_nc256, ld_nc256)
WARP_ROWS(warp_plain256, ld_plain256)
WARP_ROWS(warp_noalloc256, ld_nc_noalloc256)

#define BLOCK_ROW(NAME, LD)                                                                  \
extern "C" __global__ void __launch_bounds__(256) NAME(const float* in, long long rows,      \
                                                       long long pk, float* out) {           \
    __shared__ float part[8];                                                                \
    const long long r = blockIdx.x;                                                          \
    const uint4* p = reinterpret_cast<const uint4*>(in + r * pk * 4);                        \
    float acc = 0.f;                                                                         \
    for (long long j = threadIdx.x; j < pk; j += 1024) {                                     \
        uint4 a = LD(p + j), b = LD(p + j + 256), c = LD(p + j + 512), d = LD(p + j + 768);  \
        acc += (add4(a) + add4(b)) + (add4(c) + add4(d));                                    \
    }                                                                                        \
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);           \
    if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = acc;                                 \
    __syncthreads();                                                                         \
    if (threadIdx.x == 0) {                                                                  \
        float s = 0.f;                                                                       \
        for (int w = 0; w < 8; ++w) s += part[w];                                            \
        out[r] = s;                                                                          \
    }                                                                                        \
}
BLOCK_ROW(block_nc, ld_nc)
BLOCK_ROW(block_nc256, ld_nc256)
"""
WARP = ["warp_nc", "warp_plain", "warp_nc256", "warp_plain256", "warp_noalloc256"]
BLOCK = ["block_nc", "block_nc256"]


def main():
    rows, cols = 65536, 4096
    rng = cp.random.default_rng(3)
    x = rng.random((rows, cols), dtype=np.float32) + np.float32(0.5)
    mod = cp.RawModule(code=SOURCE, options=("-std=c++17",))
    out = cp.empty(rows, dtype=np.float32)
    sms = cp.cuda.Device().attributes["MultiProcessorCount"]
    pk = cols // 4
    want = cp.sum(x, axis=1)
    fns = {
        "cupy.sum(axis=1)": lambda: cp.sum(x, axis=1),
        "prim.sum(axis=1)": lambda: prim.sum(x, axis=1),
        "prim.sum (flat)": lambda: prim.sum(x),
    }
    for name in WARP + BLOCK:
        k = mod.get_function(name)
        grid = sms * 8 if name.startswith("warp") else rows
        args = (x, np.int64(rows), np.int64(pk), out)
        fns[name] = lambda k=k, grid=grid, args=args: k((grid,), (256,), args)
        fns[name]()
        assert bool(cp.allclose(out, want, rtol=1e-4)), name
    times = _timing.bench_many(fns, rounds=7, warmup=3, repeat=20)
    base = times["cupy.sum(axis=1)"]
    print(
        f"device: {prim.backend_info()['device']}; (65536, 4096) float32, 1024 MiB; ms, "
        "medians of interleaved CUDA-event timings\n\n| contender | ms | cupy / this | GB/s |"
        "\n|---|---|---|---|"
    )
    for name, ms in times.items():
        print(f"| {name} | {ms:.4f} | {base / ms:.3f} | {x.nbytes / ms / 1e6:.0f} |")


if __name__ == "__main__":
    main()

"""Tuning experiment for the production histogram kernel (GPU only; prints tables).

1. Per-call cost: one call between two events (as the figures time it) against 20 back-to-back
   calls between two events, divided by 20 (host work overlaps the GPU), for the public calls,
   the bare cached launch (``histograms._Fast``) and CUB's ``histogram_even``.
2. Host time per call on small inputs, and a profile of the Python path.
3. Policy sweep of hist_warp_replicated (VECS 16-byte loads per thread, registers capped for MIN_BLOCKS resident blocks, BLOCK 1024, copies as
   ``replicas_for``) on uint8 (uniform, all equal) and float32 (256 and 4096
   bins), kernel only, batched.
"""
import cProfile
import pstats
import time

import cupy
import numpy as np

import primitives as prim
from primitives import _backend, _loader, _timing
from primitives import histograms as H
from patched import patched_kernel  # tools/patched.py

n = 1 << 28
rng = cupy.random.default_rng(1)
xf = rng.random(n, dtype=cupy.float32)
u8 = rng.integers(0, 256, n, dtype=cupy.int32).astype(cupy.uint8)
eq8 = cupy.full(n, 77, dtype=cupy.uint8)
SMS = prim.backend_info()["sm_count"]
be = _backend.get_backend()


def batched(fn, k=20):
    return _timing.bench(lambda: [fn() for _ in range(k)], warmup=2, repeat=7) / k


def cached(key_part):
    """The cached launch of the last call whose key holds ``key_part``."""
    return [f for k, f in H._fast.items() if k[3][0] == key_part][-1]


calls = {"histogram f32 256": lambda: prim.histogram(xf, 256, (0.0, 1.0)),
         "histogram_even f32 256": lambda: prim.histogram_even(xf, 256, 0.0, 1.0)}
calls["bare launch f32 256"] = (lambda f: lambda: f.launch(xf))(
    (calls["histogram f32 256"](), calls["histogram f32 256"](), cached("histogram"))[-1])
calls.update({"histogram u8 256": lambda: prim.histogram(u8, 256, (0, 256)),
              "histogram_even u8 256": lambda: prim.histogram_even(u8, 256, 0, 256),
              "bincount u8": lambda: prim.bincount(u8),
              "bincount u8 all equal": lambda: prim.bincount(eq8)})
calls["bare launch u8"] = (lambda f: lambda: f.launch(u8))(
    (calls["histogram_even u8 256"](), calls["histogram_even u8 256"](),
     cached("histogram_even"))[-1])
try:
    import cuda.compute as cc

    import figures_histogram as F

    calls["CUB histogram_even f32 256"] = F.cub_even(cc, xf, 256, 0.0, 1.0, np.float32)
    calls["CUB histogram_even u8 256"] = F.cub_even(cc, u8, 256, 0, 256, np.int32)
except Exception as exc:  # noqa: BLE001 - report and go on without CUB
    print(f"(no CUB rows: {exc})")

print("per call vs batched (ms)")
for label, fn in calls.items():
    fn()
    print(f"  {label:28s} per-call {_timing.bench(fn, repeat=30):.4f}  batched {batched(fn):.4f}",
          flush=True)

print("\nhost time per call, 4096 samples (us), then a profile of 300 calls")
small = {"histogram f32 256": lambda: prim.histogram(xf[:4096], 256, (0.0, 1.0)),
         "histogram_even u8": lambda: prim.histogram_even(u8[:4096], 256, 0, 256),
         "bincount u8": lambda: prim.bincount(u8[:4096])}
for label, fn in small.items():
    fn()
    fn()
    cupy.cuda.get_current_stream().synchronize()
    t0 = time.perf_counter()
    for _ in range(1000):
        fn()
    t1 = time.perf_counter()
    cupy.cuda.get_current_stream().synchronize()
    print(f"  {label}: {1e6 * (t1 - t0) / 1000:.1f} us", flush=True)
pr = cProfile.Profile()
pr.enable()
for _ in range(300):
    small["histogram f32 256"]()
pr.disable()
pstats.Stats(pr).sort_stats("tottime").print_stats(10)

print("\nwarp_replicated policy sweep (kernel only, batched; B=1024)")
src = "histogram/histogram.cu"


def bounded_kernel(name, min_blocks):
    """`name` compiled with __launch_bounds__(BLOCK, min_blocks) on hist_warp_replicated."""
    old = "__global__ void __launch_bounds__(BLOCK)\nhist_warp_replicated("
    new = f"__global__ void __launch_bounds__(BLOCK, {min_blocks})\nhist_warp_replicated("
    return _loader.Kernel(patched_kernel(src, name, {src: [(old, new)]}), name, be)


dummy = cupy.zeros(1, cupy.float64)
for label, x, nb in (("u8 uniform", u8, 256), ("u8 all-equal", eq8, 256), ("f32 256", xf, 256),
                     ("f32 4096", xf, 4096)):
    b = (H._byte_binning(np.dtype(np.uint8)) if x.dtype == np.uint8
         else H._even_binning("tune", np.dtype(np.float32), 0.0, 1.0, nb)[0])
    spec = b.spec(be, be.stream_key()[0])
    acc, ticket = cupy.zeros(nb, cupy.int64), cupy.zeros(1, cupy.uint32)
    reps = H.replicas_for(nb)
    rec = H._launch_record(be, x.size, reps, acc, ticket)
    out = cupy.empty(nb, cupy.int64)
    smem = reps * (nb + 1) * 4  # each copy: a slot for dropped samples, then the bins
    best = None
    # (VECS, MIN_BLOCKS): MIN_BLOCKS 2 compiles the kernel with __launch_bounds__(1024, 2)
    # (registers capped at 32, so two blocks fit whatever VECS)
    for vecs, min_blocks in ([(4, 0), (8, 0), (8, 2)] if x.dtype == np.uint8 else
                             [(1, 0), (2, 0), (4, 0), (4, 2)]):
        name = (f"hist_warp_replicated<{H._CTYPES[x.dtype]}, "
                f"{H._binner_name(x.dtype, b.kind, b.extra)}, prim::CountAcc, 1024, {vecs}>")
        k = _loader.load(src, [name])(name)
        if min_blocks:
            k = bounded_kernel(name, min_blocks)
        if smem > 48 * 1024:
            k.max_dynamic_shared_size_bytes = smem
        occ = k.occupancy(1024, smem)
        grid = SMS * min(2, occ)
        args = (x, dummy, spec, rec, out, out)
        ms = batched(lambda: k((grid,), (1024,), args, shared_mem=smem))
        ok = int(out.sum()) == x.size
        print(f"  {label} V={vecs} min_blocks={min_blocks} "
              f"regs={k.resources()[0]} occ={occ} -> {ms:.4f} ms "
              f"{x.nbytes / ms / 1e6:.0f} GB/s{'' if ok else ' WRONG TOTAL'}", flush=True)
        if best is None or ms < best[0]:
            best = (ms, vecs, min_blocks)
    print(f"  BEST {label}: {best}", flush=True)

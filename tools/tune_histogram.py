"""Tuning experiment for the production histogram kernels (GPU only; prints tables).

1. Host overhead: one call between two events (as the figures time it) against 20 back-to-back
   calls between two events, divided by 20 (host work overlaps the GPU).
2. Policy sweep of hist_warp_replicated (BLOCK, VECS, copies per block, packet aggregation) on
   uint8 (uniform, all equal, sky image) and float32 (256 and 4096 bins), kernel only.
3. Host time per call (small inputs) and a profile of the Python path.
4. Bins beyond shared memory: hist_partial_privatized against hist_global_vectorized.
"""
import cupy
import numpy as np

import primitives as prim
from primitives import _loader, _timing
from primitives import histograms as H

n = 1 << 28
rng = cupy.random.default_rng(1)
xf = rng.random(n, dtype=cupy.float32)
u8 = rng.integers(0, 256, n, dtype=cupy.int32).astype(cupy.uint8)
eq8 = cupy.full(n, 77, dtype=cupy.uint8)
sky = cupy.asarray(H._sky(n, np.random.default_rng(0)))
SMS = prim.backend_info()["sm_count"]


def batched(fn, k=20):
    return _timing.bench(lambda: [fn() for _ in range(k)], warmup=2, repeat=7) / k


print("host overhead: per-call vs batched (ms)")
for label, fn in (("histogram f32 256", lambda: prim.histogram(xf, 256, (0.0, 1.0))),
                  ("histogram_even f32 256", lambda: prim.histogram_even(xf, 256, 0.0, 1.0)),
                  ("histogram u8 256", lambda: prim.histogram(u8, 256, (0, 256))),
                  ("histogram_even u8 256", lambda: prim.histogram_even(u8, 256, 0, 256)),
                  ("bincount u8", lambda: prim.bincount(u8)),
                  ("histogram u8 tiny", lambda: prim.histogram(u8[:1024], 256, (0, 256)))):
    print(f"  {label}: per-call {_timing.bench(fn, repeat=15):.4f} batched {batched(fn):.4f}",
          flush=True)

src = "histogram/histogram.cu"


def binning(x, nb):
    if x.dtype == np.uint8:
        return H._byte_binning(np.dtype(np.uint8))
    return H._even_binning("tune", np.dtype(np.float32), 0.0, 1.0, nb)[0]


def sweep_replicated(label, x, nb):
    b = binning(x, nb)
    be = H._backend.get_backend()
    spec = b.spec(be, be.stream_key()[0])
    dummy = cupy.zeros(1, cupy.float64)
    out = cupy.zeros(nb, cupy.int64)
    best = None
    table = nb * 4
    for block in (512, 1024):
        for vecs in ((2, 4, 8) if x.dtype == np.uint8 else (1, 2, 4)):
            name = (f"hist_warp_replicated<{H._CTYPES[x.dtype]}, "
                    f"{H._binner_name(x.dtype, b.kind, b.extra)}, prim::CountAcc, {block}, {vecs}>")
            k = _loader.load(src, [name])(name)
            for reps in (1, 4):
                smem = reps * table
                if smem > 48 * 1024:
                    k.max_dynamic_shared_size_bytes = smem
                occ = k.occupancy(block, smem)
                grid = SMS * min(2048 // block, occ)
                for agg in (0, 1):
                    args = (x, np.int64(x.size), dummy, spec, np.int32(reps), np.int32(agg), out)
                    ms = batched(lambda: k((grid,), (block,), args, shared_mem=smem))
                    print(f"  {label} B={block:4d} V={vecs} R={reps} occ={occ} agg={agg} -> "
                          f"{ms:.4f} ms {x.nbytes / ms / 1e6:.0f} GB/s", flush=True)
                    if best is None or ms < best[0]:
                        best = (ms, block, vecs, reps, agg)
    print(f"  BEST {label}: {best}", flush=True)


print("\nwarp_replicated policy sweep (kernel only, batched)")
for label, x, nb in (("u8 uniform", u8, 256), ("u8 all-equal", eq8, 256), ("u8 sky", sky, 256),
                     ("f32 256", xf, 256), ("f32 4096", xf, 4096)):
    sweep_replicated(label, x, nb)

print("\nhost profile: 300 calls each (cProfile, sorted by own time)")
import cProfile  # noqa: E402
import pstats  # noqa: E402

for label, fn in (("histogram f32 256", lambda: prim.histogram(xf, 256, (0.0, 1.0))),
                  ("histogram_even u8", lambda: prim.histogram_even(u8, 256, 0, 256)),
                  ("bincount u8", lambda: prim.bincount(u8))):
    small = {"histogram f32 256": lambda: prim.histogram(xf[:4096], 256, (0.0, 1.0)),
             "histogram_even u8": lambda: prim.histogram_even(u8[:4096], 256, 0, 256),
             "bincount u8": lambda: prim.bincount(u8[:4096])}[label]
    small()
    cupy.cuda.get_current_stream().synchronize()
    import time

    t0 = time.perf_counter()
    for _ in range(300):
        small()
    t1 = time.perf_counter()
    cupy.cuda.get_current_stream().synchronize()
    print(f"  {label}: host {1e6 * (t1 - t0) / 300:.1f} us per call (4096 samples)", flush=True)
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(300):
        small()
    pr.disable()
    pstats.Stats(pr).sort_stats("tottime").print_stats(12)

print("\nbins beyond shared memory: partial vs global_vectorized (full call, per-call ms)")
for nb in (65536, 1 << 18, 1 << 20):
    for v in ("partial_privatized", "global_vectorized"):
        ms = _timing.bench(lambda: prim.histogram_even(xf, nb, 0.0, 1.0, variant=v), repeat=10)
        print(f"  f32 {nb} {v}: {ms:.4f}", flush=True)

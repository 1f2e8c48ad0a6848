"""Tuning experiment for the production reduction (GPU only; prints a table).

Separates host overhead from kernel time: (a) one call between two events, as the figures time
it; (b) 20 back-to-back launches between two events, divided by 20 (host work overlaps the
GPU). With ``--sweep``, sweeps the production policy (block, vectors, blocks per SM) through
``primitives.tuning.override``.

    python -m tools.tune.reduction [--sweep]
"""

import sys

import cupy
import numpy as np

import primitives as prim
from primitives._core import timing as _timing

n = 1 << 28
rng = np.random.default_rng(1)
xf = cupy.asarray(rng.random(n, dtype=np.float32) + np.float32(0.5))
xi = cupy.asarray(rng.integers(-(2**31), 2**31 - 1, n, dtype=np.int32))
small = xf[:1024]


def batched(fn, k=20):
    return _timing.bench(lambda: [fn() for _ in range(k)], warmup=3, repeat=15) / k


print("host overhead and per-call vs batched timing (ms)")
for label, ours, peer in (
    ("sum f32 2^28", lambda: prim.sum(xf), lambda: cupy.sum(xf)),
    ("sum i32 2^28", lambda: prim.sum(xi), lambda: cupy.sum(xi)),
    ("max f32 2^28", lambda: prim.max(xf), lambda: cupy.max(xf)),
    ("sum f32 2^10", lambda: prim.sum(small), lambda: cupy.sum(small)),
):
    print(
        f"  {label}: ours per-call {_timing.bench(ours):.4f} batched {batched(ours):.4f} | "
        f"cupy per-call {_timing.bench(peer):.4f} batched {batched(peer):.4f}",
        flush=True,
    )

if "--sweep" not in sys.argv:
    sys.exit(0)
print("policy sweep (batched ms): dtype op block vectors blocks_per_sm -> ms GB/s")
for x in (xf, xi):
    for op in ("sum", "max"):
        if x.dtype == np.int32 and op == "max":
            continue
        best = None
        for block in (256, 512, 1024):
            for vectors in (2, 4, 8):
                for per_sm in (1, 2, 4):
                    with prim.tuning.override(
                        "reduction",
                        selector="production",
                        block=block,
                        vectors=vectors,
                        blocks_per_sm=per_sm,
                    ):
                        ms = batched(lambda: prim.reduce(x, op))
                    gbs = x.nbytes / ms / 1e6
                    print(
                        f"  {x.dtype.name} {op} {block:5d} {vectors} {per_sm:2d} -> "
                        f"{ms:.4f} {gbs:.0f}",
                        flush=True,
                    )
                    if best is None or ms < best[0]:
                        best = (ms, block, vectors, per_sm)
        print(f"  BEST {x.dtype.name} {op}: {best}", flush=True)

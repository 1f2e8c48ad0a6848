"""Tuning experiment for the production reduction (GPU only; prints a table).

Separates host overhead from kernel time: (a) one call between two events, as the figures time
it; (b) 20 back-to-back launches between two events, divided by 20 (host work overlaps the
GPU). Then sweeps the policy (BLOCK, VECS, blocks per SM) of the raw kernel.
"""
import sys

import cupy
import numpy as np

import primitives as prim
from primitives._core import loader as _loader, timing as _timing

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
    print(f"  {label}: ours per-call {_timing.bench(ours):.4f} batched {batched(ours):.4f} | "
          f"cupy per-call {_timing.bench(peer):.4f} batched {batched(peer):.4f}", flush=True)

if "--sweep" not in sys.argv:
    sys.exit(0)
src = "reduction/reduce.cu"
print("policy sweep (kernel only, batched ms): dtype op BLOCK VECS per_sm grid -> ms GB/s")
for x, in_c, acc_c, acc_dt in ((xf, "float", "float", np.float32), (xi, "int", "long long", np.int64)):
    for opname in ("Sum", "Max"):
        if acc_c == "long long" and opname == "Max":
            continue
        best = None
        for block in (256, 512, 1024):
            for vecs in (2, 4, 8):
                name = f"reduce_production<{in_c}, {acc_c}, prim::{opname}<{acc_c}>, {block}, {vecs}>"
                k = _loader.load(src, [name])(name)
                occ = k.occupancy(block)
                for per_sm in sorted({1, 2, 4, occ}):
                    if per_sm > occ:
                        continue
                    grid = 132 * per_sm
                    partials = cupy.empty(grid, acc_dt)
                    tickets = cupy.zeros(1, np.uint32)
                    out = cupy.empty(1, acc_dt)
                    args = (x, np.int64(n), partials, tickets, out)
                    ms = batched(lambda: k((grid,), (block,), args))
                    gbs = x.nbytes / ms / 1e6
                    print(f"  {x.dtype.name} {opname} {block:5d} {vecs} {per_sm:2d} {grid:5d} -> "
                          f"{ms:.4f} {gbs:.0f}", flush=True)
                    if best is None or ms < best[0]:
                        best = (ms, block, vecs, per_sm)
        print(f"  BEST {x.dtype.name} {opname}: {best}", flush=True)

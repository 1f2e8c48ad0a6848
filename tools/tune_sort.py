"""Tuning experiment for onesweep (GPU only): sort time at 2^27 for several (BLOCK, ITEMS)
policies of the pass kernel, per (key bytes, value bytes) configuration, and the time of one
pass (end_bit=8: histogram, plan and one pass) against all passes.

    python tools/tune_sort.py [--quick]
"""
import sys

import cupy
import numpy as np

import primitives as prim
from primitives import _timing, sorting

n = 1 << 27
rng = np.random.default_rng(5)
quick = "--quick" in sys.argv
x32 = cupy.asarray(rng.integers(0, 2**32, n, dtype=np.uint32))
x64 = cupy.asarray(rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True))
v32 = cupy.asarray(rng.integers(0, 2**32, n, dtype=np.uint32))
CANDIDATES = {
    (4, 0): [(256, 16), (256, 24), (384, 12), (384, 16), (512, 8), (512, 12), (512, 16),
             (512, 20)],
    (4, 4): [(256, 16), (384, 12), (384, 16), (512, 10), (512, 12), (512, 16)],
    (8, 0): [(256, 12), (384, 8), (384, 12), (512, 6), (512, 8), (512, 12)],
}
if quick:
    CANDIDATES = {k: v[:3] for k, v in CANDIDATES.items()}
WORK = {(4, 0): (lambda: prim.sort(x32), 2 * 4 * n, x32, None),
        (4, 4): (lambda: prim.radix_sort(x32, v32), 2 * 8 * n, x32, v32),
        (8, 0): (lambda: prim.sort(x64), 2 * 8 * n, x64, None)}
default = dict(sorting._OS_POLICY)
for cfg, policies in CANDIDATES.items():
    fn, nbytes, keys, vals = WORK[cfg]
    ref = cupy.sort(keys)
    for block, items in policies:
        sorting._OS_POLICY[cfg] = (block, items)
        try:
            got = fn()
        except Exception as exc:  # e.g. too much shared memory: report, go on
            print(f"{cfg} block {block} items {items}: {type(exc).__name__}: {exc}"[:200])
            continue
        ok = bool(cupy.array_equal(got[0] if isinstance(got, tuple) else got, ref))
        ms = _timing.bench(fn, warmup=3, repeat=15)
        one = _timing.bench(lambda: prim.radix_sort(keys, vals, end_bit=8), warmup=3, repeat=15)
        k = sorting._kernel(sorting._OS_SOURCE, sorting._os_pass_name(*cfg))
        regs, static = k.resources()
        print(f"keys {cfg[0]}B values {cfg[1]}B block {block:4d} items {items:2d}: {ms:.4f} ms "
              f"({nbytes / ms / 1e6:.0f} GB/s), end_bit=8 {one:.4f} ms, regs {regs}, "
              f"occupancy {k.occupancy(block, block * items * max(cfg[0], cfg[1]))} "
              f"blocks/SM ok={ok}", flush=True)
    sorting._OS_POLICY[cfg] = default[cfg]

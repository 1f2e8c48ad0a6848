"""Tuning experiment for onesweep (GPU only): sort time at 2^27 for several policies
(BLOCK, ITEMS, MIN_BLOCKS, look-back WINDOW, MATCH) of the pass kernel, per (key bytes, value bytes)
configuration, the time of one pass (end_bit=8: histogram, plan and one pass), and the
all-pass histogram kernel alone on uniform and skewed keys.

    python tools/tune_sort.py [--quick] [--top K] [--configs 8:0,4:4] [--json OUT] [--figures OUT]

``--json OUT`` writes the fastest policy of each swept configuration; ``--figures OUT`` then runs
``tools/figures.py --family sort`` in the same process with those policies (to compare before
committing a policy).
"""
import json
import os
import sys

import cupy
import numpy as np

import primitives as prim
from primitives import _launch, _timing, sorting

n = 1 << 27
rng = np.random.default_rng(5)
quick = "--quick" in sys.argv
x32 = cupy.asarray(rng.integers(0, 2**32, n, dtype=np.uint32))
x64 = cupy.asarray(rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True))
v32 = cupy.asarray(rng.integers(0, 2**32, n, dtype=np.uint32))
f32 = cupy.asarray(rng.standard_normal(n, dtype=np.float32))


def hist_ms(x):
    kb = x.dtype.itemsize
    kh = sorting._kernel(sorting._OS_SOURCE, f"onesweep_histogram<{sorting._C[kb]}, 256>")
    hist = cupy.zeros(kb * 256 + 1, cupy.uint32)  # + the fold word
    grid = _launch.cover_grid(n, 256, 16, kernel=kh, per_sm=8)
    args = (x.view(sorting._U[kb]), np.int64(n), np.int32(sorting._KIND[x.dtype.kind]),
            np.int32(0), np.int32(0), np.int32(8 * kb), hist)
    return _timing.bench(lambda: kh((grid,), (256,), args), warmup=3, repeat=20)


for name, x in (("uint32", x32), ("float32 normal", f32), ("uint64", x64),
                ("uint32 all equal", cupy.full(n, 7, cupy.uint32))):
    ms = hist_ms(x)
    print(f"histogram {name}: {ms:.4f} ms ({x.nbytes / ms / 1e6:.0f} GB/s)", flush=True)

CANDIDATES = {
    (4, 0): [(256, 36, 2, 8, 1), (256, 32, 2, 8, 1), (256, 28, 2, 8, 1), (256, 16, 4, 8, 1),
             (256, 40, 2, 8, 1), (256, 44, 2, 8, 1), (256, 48, 2, 8, 1), (256, 56, 1, 8, 1),
             (512, 14, 2, 8, 1), (256, 36, 2, 8, 0), (256, 36, 2, 1, 1)],
    (4, 4): [(256, 32, 2, 8, 1), (256, 28, 2, 8, 1), (256, 36, 2, 8, 1), (256, 16, 3, 8, 1),
             (256, 40, 2, 8, 1), (512, 14, 2, 8, 1), (256, 32, 2, 8, 0)],
    (8, 0): [(256, 28, 2, 8, 1), (256, 24, 2, 8, 1), (256, 32, 2, 8, 1), (256, 12, 3, 8, 1),
             (512, 14, 2, 8, 1)],
    (4, 8): [(256, 12, 3, 8, 1), (256, 16, 2, 8, 1), (256, 20, 2, 8, 1), (256, 24, 2, 8, 1)],
    (8, 4): [(256, 12, 3, 8, 1), (256, 16, 2, 8, 1), (256, 20, 2, 8, 1), (256, 24, 2, 8, 1)],
    (8, 8): [(256, 12, 2, 8, 1), (256, 16, 2, 8, 1), (256, 20, 2, 8, 1), (256, 24, 2, 8, 1)],
}
if quick:
    CANDIDATES = {k: v[:2] for k, v in CANDIDATES.items()}
if "--top" in sys.argv:  # the first K candidates of each configuration (the likeliest first)
    top = int(sys.argv[sys.argv.index("--top") + 1])
    CANDIDATES = {k: v[:top] for k, v in CANDIDATES.items()}
if "--configs" in sys.argv:  # e.g. --configs 8:0,4:4 (key bytes:value bytes)
    wanted = [tuple(int(v) for v in c.split(":"))
              for c in sys.argv[sys.argv.index("--configs") + 1].split(",")]
    CANDIDATES = {k: v for k, v in CANDIDATES.items() if k in wanted}
v64 = cupy.asarray(rng.integers(0, 2**63, n, dtype=np.int64)).view(np.uint64)
WORK = {(4, 0): (lambda: prim.sort(x32), 2 * 4 * n, x32, None),
        (4, 4): (lambda: prim.radix_sort(x32, v32), 2 * 8 * n, x32, v32),
        (8, 0): (lambda: prim.sort(x64), 2 * 8 * n, x64, None),
        (4, 8): (lambda: prim.radix_sort(x32, v64), 2 * 12 * n, x32, v64),
        (8, 4): (lambda: prim.radix_sort(x64, v32), 2 * 12 * n, x64, v32),
        (8, 8): (lambda: prim.radix_sort(x64, v64), 2 * 16 * n, x64, v64)}
default = dict(sorting._OS_POLICY)
best = {}
for cfg, policies in CANDIDATES.items():
    fn, nbytes, keys, vals = WORK[cfg]
    ref = cupy.sort(keys)
    for policy in policies:
        sorting._OS_POLICY[cfg] = policy
        try:
            got = fn()
        except Exception as exc:  # e.g. too much shared memory: report, go on
            print(f"{cfg} {policy}: {type(exc).__name__}: {exc}"[:200])
            continue
        ok = bool(cupy.array_equal(got[0] if isinstance(got, tuple) else got, ref))
        ms = _timing.bench(fn, warmup=3, repeat=15)
        one = _timing.bench(lambda: prim.radix_sort(keys, vals, end_bit=8), warmup=3, repeat=15)
        k = sorting._kernel(sorting._OS_SOURCE, sorting._os_pass_name(*cfg))
        regs, _ = k.resources()
        block, items = policy[:2]
        occ = k.occupancy(block, sorting._tile_smem(block, items, max(cfg), 8))
        print(f"keys {cfg[0]}B values {cfg[1]}B policy {policy}: {ms:.4f} ms "
              f"({nbytes / ms / 1e6:.0f} GB/s), end_bit=8 {one:.4f} ms, regs {regs}, "
              f"{occ} blocks/SM ok={ok}", flush=True)
        if ok and (cfg not in best or ms < best[cfg][1]):
            best[cfg] = (policy, ms)
    sorting._OS_POLICY[cfg] = default[cfg]
print("fastest:", {k: v[0] for k, v in best.items()}, flush=True)
if "--json" in sys.argv:
    with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
        json.dump([[list(k), list(v[0])] for k, v in best.items()], f)

if "--figures" in sys.argv:
    out = sys.argv[sys.argv.index("--figures") + 1]
    for cfg, (policy, _) in best.items():
        sorting._OS_POLICY[cfg] = policy
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import figures

    figures.main(["--family", "sort", "--out", out])

"""argmin/argmax along an axis under several arg policies (rows_block, vectors, warp_row_max):
the layouts of the figures' cases, times in ms (median of CUDA-event times, interleaved).

    python -m tools.probes.arg_policies
"""

from __future__ import annotations

import itertools

import numpy as np

import primitives as prim
from primitives._core import plans as _plans, timing

CASES = [
    ("F (65536, 4096) axis=1", (2**16, 2**12), "F", 1),
    ("C (65536, 4096) axis=0", (2**16, 2**12), "C", 0),
    ("C (65536, 4096) axis=1", (2**16, 2**12), "C", 1),
    ("(256, 512, 512) axis=0", (256, 512, 512), "C", 0),
    ("(256, 512, 512) axis=1", (256, 512, 512), "C", 1),
    ("(256, 512, 512) axis=2", (256, 512, 512), "C", 2),
]


def main():
    import cupy as cp

    rng = cp.random.default_rng(7)
    arrays = {}
    for name, shape, order, axis in CASES:
        x = rng.random(shape, dtype=np.float32)
        arrays[name] = (cp.asfortranarray(x) if order == "F" else x, axis)
    copy = timing.copy_bandwidth(2**31)
    print(f"copy {copy:.0f} GB/s")
    grid = list(itertools.product((128, 256, 512), (2, 4, 8), (512, 1024)))
    print("| rows_block | vectors | warp_row_max | " + " | ".join(c[0] for c in CASES) + " |")
    for rows_block, vectors, wrm in grid:
        fns = {}
        with prim.tuning.override(
            "reduction", selector="arg", rows_block=rows_block, vectors=vectors, warp_row_max=wrm
        ):
            _plans.clear_caches()
            for name, (x, axis) in arrays.items():
                want = cp.argmax(x, axis=axis)
                assert bool((prim.argmax(x, axis=axis) == want).all()), name
                fns[name] = lambda x=x, axis=axis: prim.argmax(x, axis=axis)
            t = timing.bench_many(fns, rounds=2, repeat=10)
        cells = []
        for name, (x, axis) in arrays.items():
            pct = 100 * (x.nbytes + 8 * x.size // x.shape[axis]) / (copy * 1e9) / (t[name] * 1e-3)
            cells.append(f"{t[name]:.4f} ({pct:.0f}%)")
        print(f"| {rows_block} | {vectors} | {wrm} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()

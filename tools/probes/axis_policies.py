"""Probe: sums along an axis under several reduction ``"axis"`` policies, without the tuning
override's host work in the timings (GPU only; prints a table).

Each policy is timed inside one ``primitives.tuning.override`` block (entering an override makes
new plans: a call's plan is made once, on the first call of the block, and the timed calls repeat
it, as the figures' repeat calls do), interleaved with ``cupy.sum`` in the same block (medians of
CUDA-event timings); the ratio to CuPy's time is the comparison across policies.

    python -m tools.probes.axis_policies [--rounds R]
"""

from __future__ import annotations

import argparse

import cupy as cp
import numpy as np

import primitives as prim
from primitives._core import timing as _timing

#: (name, shape, order, axis)
CASES = [
    ("C axis 1 (65536, 4096)", (65536, 4096), "C", 1),
    ("F axis 0 (65536, 4096)", (65536, 4096), "F", 0),
    ("C axis 1 (256, 1048576)", (256, 1 << 20), "C", 1),
    ("C axis 1 (4194304, 32)", (1 << 22, 32), "C", 1),
    ("C axis 1 (16777216, 8)", (1 << 24, 8), "C", 1),
]
#: reduction "axis" policy fields tried (the first: the policy in force)
GRID = [
    {},
    {"slab_min_packets": 0},
    {"slab_block": 0},
    {"slab_block": 64},
    {"slab_block": 256},
    {"slab_max_packets": 0},
    {"slab_min_packets": 512},
    {"vectors": 8},
    {"blocks_per_sm": 4},
]


def _label(fields):
    return ", ".join(f"{k}={v}" for k, v in fields.items()) or "(in force)"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.probes.axis_policies")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    rng = cp.random.default_rng(5)
    print(
        f"device: {prim.backend_info()['device']}; ms, medians of interleaved CUDA-event "
        "timings; each policy timed inside its override beside cupy.sum"
    )
    for name, shape, order, axis in CASES:
        x = rng.random(shape, dtype=np.float32) + np.float32(0.5)
        if order == "F":
            x = cp.asfortranarray(x)
        want = cp.sum(x, axis=axis)
        print(
            f"\n{name} float32, {x.nbytes / 2**20:.0f} MiB\n\n| policy | ms | cupy ms | "
            "cupy / this |\n|---|---|---|---|"
        )
        for fields in GRID:
            with prim.tuning.override("reduction", selector="axis", **fields):
                ok = bool(cp.allclose(prim.sum(x, axis=axis), want, rtol=1e-5))
                t = _timing.bench_many(
                    {
                        "prim": lambda x=x: prim.sum(x, axis=axis),
                        "cupy": lambda x=x: cp.sum(x, axis=axis),
                    },
                    rounds=args.rounds,
                    warmup=3,
                    repeat=20,
                )
            print(
                f"| {_label(fields)}{'' if ok else ' (WRONG)'} | {t['prim']:.4f} | "
                f"{t['cupy']:.4f} | {t['cupy'] / t['prim']:.3f} |",
                flush=True,
            )
        del x, want
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()

"""Probe: sums along an axis under several reduction ``"axis"`` policies, without the tuning
override's host work in the timings (GPU only; prints a table).

Each policy's plan is made once inside ``primitives.tuning.override`` (``prim.plan``) and timed
outside it, interleaved with the others and with ``cupy.sum`` (medians of CUDA-event timings), so
that the ratios compare the launches alone, as the figures' repeat calls do.

    python -m tools.probes.axis_policies [--rounds R]
"""

from __future__ import annotations

import argparse

import cupy as cp
import numpy as np

import primitives as prim
from primitives._core import timing as _timing

#: (name, shape, order, axis)
CASES = [("C axis 1 (65536, 4096)", (65536, 4096), "C", 1),
         ("F axis 0 (65536, 4096)", (65536, 4096), "F", 0),
         ("C axis 1 (256, 1048576)", (256, 1 << 20), "C", 1)]
#: reduction "axis" policy fields tried (the first: the policy in force)
GRID = [{}, {"vectors": 8}, {"vectors": 16}, {"blocks_per_sm": 4}, {"blocks_per_sm": 6},
        {"block": 128, "blocks_per_sm": 16}, {"block": 512, "blocks_per_sm": 4},
        {"vectors": 8, "blocks_per_sm": 4}, {"slab_min_packets": 256},
        {"slab_min_packets": 256, "block": 128, "blocks_per_sm": 16},
        {"row_waves": 0}, {"row_waves": 0, "slab_min_packets": 256},
        {"row_waves": 0, "slab_min_packets": 256, "block": 128},
        {"row_waves": 4}, {"row_waves": 0, "vectors": 8}]


def _label(fields):
    return ", ".join(f"{k}={v}" for k, v in fields.items()) or "(in force)"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.probes.axis_policies")
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args(argv)
    rng = cp.random.default_rng(5)
    print(f"device: {prim.backend_info()['device']}; ms, medians of interleaved CUDA-event "
          "timings; each policy's plan made under its override, timed outside it")
    for name, shape, order, axis in CASES:
        x = rng.random(shape, dtype=np.float32) + np.float32(0.5)
        if order == "F":
            x = cp.asfortranarray(x)
        want = cp.sum(x, axis=axis)
        fns = {"cupy.sum": lambda x=x: cp.sum(x, axis=axis)}
        for fields in GRID:
            with prim.tuning.override("reduction", selector="axis", **fields):
                p = prim.plan(prim.sum, x, axis=axis)
            got = p(x)
            ok = bool(cp.allclose(got, want, rtol=1e-5))
            fns[_label(fields) + ("" if ok else " (WRONG)")] = (lambda p=p, x=x: p(x))
        times = _timing.bench_many(fns, rounds=args.rounds, warmup=3, repeat=20)
        base = times["cupy.sum"]
        print(f"\n{name} float32, {x.nbytes / 2**20:.0f} MiB\n\n| contender | ms | cupy / this |"
              "\n|---|---|---|")
        for label, ms in times.items():
            print(f"| {label} | {ms:.4f} | {base / ms:.3f} |")
        del x, want, fns
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()

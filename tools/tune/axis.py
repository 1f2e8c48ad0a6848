"""Tuning experiment for the reductions and scans along an axis (GPU only; prints a table).

Times the axis cases of the NumPy-API figures (:mod:`tools.figures.numpy_api`: sums over each
axis of C- and F-ordered matrices, short and long rows; cumsum along both axes) under each policy
of a small grid, through ``primitives.tuning.override``: the reductions' ``"axis"`` policy
(block, 16-byte loads in flight, blocks per SM, the row length from which a block reduces each
row) and the scans' (the single-pass column scan's bytes per thread per tile and the blocks per SM
its registers are bounded for, the block size).
Each case's data is made once and every policy times the same arrays (interleaved medians). The
policy with the least geometric-mean time over its cases is reported, and with ``--best FILE``
written as ``family:selector:field=value`` lines (the fields that differ from the policy in
force) that ``python -m tools.figures --override`` takes.

    python -m tools.tune.axis [--out FILE] [--best FILE]
"""

from __future__ import annotations

import argparse
import math

import cupy as cp

import primitives as prim
from primitives._core import timing as _timing
from tools.figures.numpy_api import cases, same

#: (family, selector) -> (the cases' name prefix, the policies tried: fields to replace)
GRIDS = {
    # (block, vectors and blocks_per_sm alone were swept at 2769b80: no gain; now whether long
    # rows read a block per row do better than a warp per row, and the layout of short rows
    # packed several per 16-byte load: packets per thread, adjacent loads or a warp's coalesced
    # loads with a shuffle exchange; split slabs finished in one launch; the rows per
    # multiprocessor below which slabs are split)
    ("reduction", "axis"): (
        "sum(axis",
        [
            {},
            {"slab_min_packets": 256},
            {"slab_min_packets": 1024},
            {"slab_min_packets": 256, "blocks_per_sm": 4},
            {"slab_min_packets": 256, "block": 512, "blocks_per_sm": 4},
            {"packed_packets": 1},
            {"packed_packets": 2},
            {"packed_packets": 4},
            {"packed_packets": 2, "packed_exchange": 1},
            {"packed_packets": 4, "packed_exchange": 1},
            {"one_wave": 1},
            {"slab_wide": 4},
            {"one_wave": 1, "slab_wide": 4},
            {"slab_finish": 1},
            {"slab_split_percent": 0},
            {"slab_split_percent": 100},
            {"slab_split_percent": 200},
        ],
    ),
    # (unroll and split_per_sm were swept at 2769b80: no gain; unroll is now only the unsplit
    # columns'. Now the single-pass column scan's tile: bytes per thread (rows of 16-byte
    # vectors: 128 = 8, 256 = 16, 512 = 32) and the resident blocks its registers are bounded for)
    ("scan", "axis"): (
        "cumsum(axis",
        [
            {},
            {"tile_bytes": 128},
            {"tile_bytes": 128, "tile_blocks_per_sm": 3},
            {"tile_blocks_per_sm": 1},
            {"tile_bytes": 512, "tile_blocks_per_sm": 1},
            {"block": 128, "tile_blocks_per_sm": 4},
            {"tile_prefetch": 8},
            {"tile_prefetch": 32},
            {"tile_prefetch": 128},
            {"tile_store_exchange": 1},
            {"tile_store_exchange": 1, "tile_prefetch": 32},
        ],
    ),
}
REPS = {"rounds": 3, "warmup": 3, "repeat": 10}


def _label(fields):
    return ", ".join(f"{k}={v}" for k, v in fields.items()) or "(in force)"


def sweep(family, selector, prefix, grid, lines):
    rng = cp.random.default_rng(11)
    chosen = [c for c in cases() if c.name.startswith(prefix)]
    times = {i: {} for i in range(len(grid))}
    wrong = set()  # policies that gave another result than CuPy's somewhere: never the best
    for case in chosen:
        ours, theirs, _ = case.make(cp, rng)
        want = theirs()
        fns, within = {}, {}
        for i, fields in enumerate(grid):

            def policy(fields=fields):
                return prim.tuning.override(family, selector=selector, **fields)

            with policy():
                if not same(cp, ours(), want):
                    print(
                        f"WRONG: {case.name} under {_label(fields)} differs from CuPy", flush=True
                    )
                    wrong.add(i)
            fns[i], within[i] = ours, policy
        # each policy's rounds inside its override (entered once a round: an override a call
        # would add its own host time to every sample)
        for i, ms in _timing.bench_many(fns, within=within, **REPS).items():
            times[i][case.name] = ms
        del ours, theirs, want, fns
        cp.get_default_memory_pool().free_all_blocks()
    base = prim.tuning.policy(family, selector)
    lines += [
        "",
        f"{family} {selector!r} policy in force: {base}",
        "",
        "| policy | " + " | ".join(c.name for c in chosen) + " | geomean vs in force |",
        "|---|" + "---|" * (len(chosen) + 1),
    ]
    gm = {
        i: math.exp(sum(math.log(t[c.name] / times[0][c.name]) for c in chosen) / len(chosen))
        for i, t in times.items()
    }
    for i, fields in enumerate(grid):
        lines.append(
            f"| {_label(fields)}{' (WRONG results)' if i in wrong else ''} | "
            + " | ".join(f"{times[i][c.name]:.4f}" for c in chosen)
            + f" | {gm[i]:.3f} |"
        )
        print(lines[-1], flush=True)
    best = min((i for i in gm if i not in wrong), key=gm.get, default=0)
    lines.append(f"\nbest: {_label(grid[best])} ({gm[best]:.3f} of the policy in force)")
    return {k: v for k, v in grid[best].items() if getattr(base, k) != v}


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.tune.axis")
    ap.add_argument("--out", help="the tables as Markdown")
    ap.add_argument("--best", help="the best policies' fields, as tools.figures --override takes")
    args = ap.parse_args(argv)
    info = prim.backend_info()
    lines = [f"device: {info['device']}; times in ms, medians of interleaved CUDA-event timings"]
    best = []
    for (family, selector), (prefix, grid) in GRIDS.items():
        fields = sweep(family, selector, prefix, grid, lines)
        best += [f"{family}:{selector}:{k}={v}" for k, v in fields.items()]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    if args.best:
        with open(args.best, "w") as f:
            f.write("".join(b + "\n" for b in best))


if __name__ == "__main__":
    main()

"""argmin/argmax along an axis under several arg policies (rows_block, cols_block, vectors,
warp_row_max, cols_max_splits, cols_min_chunk, cols_stack, rows_pipeline): the layouts of the
figures' cases, times in ms (median of CUDA-event times, interleaved).

    python -m tools.probes.arg_policies            # cols_max_splits 64 to 512 at the table's rest
    python -m tools.probes.arg_policies --blocks   # rows_block x vectors x warp_row_max
                                                   # (cols_block = rows_block)
    python -m tools.probes.arg_policies --chunks   # cols_min_chunk 16 to 256 at the table's rest
    python -m tools.probes.arg_policies --stack    # cols_stack 1/2/4 x cols_block 128/256,
                                                   # rows_block 128/256 x rows_pipeline 0/1

The last row: ``prim.sum`` along the same axis of the same arrays, and the line after it a copy
of each array's bytes (read and written), for scale: what a reduction of those bytes reaches.
"""

from __future__ import annotations

import argparse
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


def _cells(arrays, t, result_bytes, copy):
    """A table row's cells: each case's time in ms and the share of the copy rate (GB/s) that
    reading its array and writing its results (``result_bytes`` each) take."""
    cells = []
    for name, (x, axis) in arrays.items():
        moved = x.nbytes + result_bytes * x.size // x.shape[axis]
        cells.append(f"{t[name]:.4f} ({100 * moved / (copy * 1e9) / (t[name] * 1e-3):.0f}%)")
    return " | ".join(cells) + " |"


def main(argv=None):
    import cupy as cp

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--blocks", action="store_true", help="sweep rows_block, vectors, warp_row_max")
    p.add_argument("--chunks", action="store_true", help="sweep cols_min_chunk")
    p.add_argument(
        "--stack",
        action="store_true",
        help="sweep cols_stack and cols_block, then rows_block and rows_pipeline",
    )
    a = p.parse_args(argv)

    rng = cp.random.default_rng(7)
    arrays = {}
    for name, shape, order, axis in CASES:
        x = rng.random(shape, dtype=np.float32)
        arrays[name] = (cp.asfortranarray(x) if order == "F" else x, axis)
    copy = timing.copy_bandwidth(2**31)
    print(f"copy {copy:.0f} GB/s")
    pol = prim.tuning.policy("reduction", "arg")
    rest = (pol.rows_block, pol.cols_block, pol.vectors, pol.warp_row_max)
    tail = (pol.cols_max_splits, pol.cols_min_chunk)
    keep = (pol.cols_stack, pol.rows_pipeline)
    if a.blocks:
        grid = (
            (b, b, v, w) + tail + keep
            for b, v, w in itertools.product((128, 256, 512), (2, 4, 8), (512, 1024))
        )
    elif a.chunks:
        grid = (rest + (pol.cols_max_splits, c) + keep for c in (16, 32, 64, 128, 256))
    elif a.stack:
        cols = (
            (pol.rows_block, b, pol.vectors, pol.warp_row_max) + tail + (s, pol.rows_pipeline)
            for b in (128, 256)
            for s in (1, 2, 4)
        )
        rows = (
            (b, pol.cols_block, pol.vectors, pol.warp_row_max) + tail + (pol.cols_stack, pipe)
            for b in (128, 256)
            for pipe in (0, 1)
        )
        grid = itertools.chain(cols, rows)
    else:
        grid = (rest + (s, pol.cols_min_chunk) + keep for s in (64, 128, 256, 512))
    names = (
        "| rows_block | cols_block | vectors | warp_row_max | cols_max_splits | cols_min_chunk "
        "| cols_stack | rows_pipeline | "
    )
    print(names + " | ".join(c[0] for c in CASES) + " |")
    for rows_block, cols_block, vectors, wrm, splits, chunk, stack, pipe in grid:
        fns = {}
        with prim.tuning.override(
            "reduction",
            selector="arg",
            rows_block=rows_block,
            cols_block=cols_block,
            vectors=vectors,
            warp_row_max=wrm,
            cols_max_splits=splits,
            cols_min_chunk=chunk,
            cols_stack=stack,
            rows_pipeline=pipe,
        ):
            _plans.clear_caches()
            for name, (x, axis) in arrays.items():
                want = cp.argmax(x, axis=axis)
                assert bool((prim.argmax(x, axis=axis) == want).all()), name
                fns[name] = lambda x=x, axis=axis: prim.argmax(x, axis=axis)
            t = timing.bench_many(fns, rounds=2, repeat=10)
        row = f"| {rows_block} | {cols_block} | {vectors} | {wrm} | {splits} | {chunk} | {stack} | "
        row += f"{pipe} | "
        print(row + _cells(arrays, t, 8, copy), flush=True)
    fns = {
        name: lambda x=x, axis=axis: prim.sum(x, axis=axis) for name, (x, axis) in arrays.items()
    }
    fns.update({f"copy {name}": lambda x=x: x.copy() for name, (x, _) in arrays.items()})
    t = timing.bench_many(fns, rounds=2, repeat=10)
    print("| prim.sum | | | | | | | | " + _cells(arrays, t, 4, copy))
    print(", ".join(f"{k} {v:.4f} ms" for k, v in t.items() if k.startswith("copy")), flush=True)


if __name__ == "__main__":
    main()

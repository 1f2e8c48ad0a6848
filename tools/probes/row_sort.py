"""The row sort (``primitives.sorting.sort_rows``: rows of one length, each sorted on its own)
against ``torch.sort(dim=-1)`` and ``cupy.sort(axis=-1)`` (GPU only). Run as a file, e.g.

    PYTHONPATH=. python tools/probes/row_sort.py            # every shape
    PYTHONPATH=. python tools/probes/row_sort.py 4096 2     # rows of 4096 only, two repeats
    PYTHONPATH=. python tools/probes/row_sort.py 0 1 "{'tiles': ((256, 8), (512, 8), (1024, 16))}"

(row length 0: every shape; the third argument, fields of the ``sorting_rows`` policy, runs
under ``prim.tuning.override``: a tuning experiment).

For float32 rows of 32, 256, 4096 and 16384 keys (2^27 keys in all; normal keys) and the argsort
of the rows of 4096 (int64 column indices), each contender is checked once against
``cupy.sort``/``cupy.argsort`` (stable), then all are timed in interleaved rounds
(primitives._core.timing.bench_many: CUDA events, 5 rounds x (5 warm-ups + 20 samples),
medians). Prints the kernel the row length takes, its registers and resident blocks per SM, the
times, and each peer's time over ours (above 1: ours is faster). torch is optional.
"""

import ast
import contextlib
import sys

import cupy
import numpy as np

import primitives as prim
from primitives._core import backend as _backend, timing as _timing
from primitives.sorting import _rows, _rows_policy, sort_rows

SHAPES = ((1 << 22, 32), (1 << 19, 256), (1 << 15, 4096), (1 << 13, 16384))

try:
    import torch
except ImportError:  # the peers without torch
    torch = None


def _kernel_line(m, vm, vb):
    pol = _rows_policy.rows()
    picked = _rows.choose(m, 4, vm, vb, pol)
    if picked is None:
        return "device-wide (onesweep by key, then by row)"
    kind, shape, smem = picked
    name = _rows.kernel_name(kind, 4, vm, vb, shape, pol)
    k = _rows._kernel(name)
    block = 32 * shape[0] if kind != "block" else shape[0]
    regs, static = k.resources()
    return (
        f"{name}: {regs} registers, {static + smem} B shared, {k.occupancy(block, smem)} blocks/SM"
    )


def main(argv):
    only = int(argv[0]) if argv and int(argv[0]) else None
    reps = int(argv[1]) if len(argv) > 1 else 1
    fields = ast.literal_eval(argv[2]) if len(argv) > 2 else {}
    with prim.tuning.override("sorting_rows", **fields) if fields else contextlib.nullcontext():
        print(f"policy: {_rows_policy.rows()}", flush=True)
        _run(only, reps)


def _run(only, reps):
    be = _backend.get_backend()
    rng = np.random.default_rng(7)
    for rows, m in SHAPES:
        if only is not None and m != only:
            continue
        x = cupy.asarray(rng.standard_normal((rows, m), dtype=np.float32))
        want = cupy.sort(x, axis=-1)
        assert bool(cupy.array_equal(sort_rows(be, x), want)), m
        fns = {"ours": lambda x=x: sort_rows(be, x), "cupy.sort": lambda x=x: cupy.sort(x, axis=-1)}
        if hasattr(prim, "sort") and _takes_axis():
            assert bool(cupy.array_equal(prim.sort(x, axis=-1), want)), m
            fns["prim.sort(axis=-1)"] = lambda x=x: prim.sort(x, axis=-1)
        if torch is not None:
            tx = torch.as_tensor(x, device="cuda")
            assert bool(cupy.array_equal(cupy.asarray(torch.sort(tx, dim=-1)[0]), want)), m
            fns["torch.sort"] = lambda tx=tx: torch.sort(tx, dim=-1)
        _report(f"sort ({rows}, {m}) float32", _kernel_line(m, 0, 4), fns, reps)
        if m == 4096:
            want_i = cupy.argsort(x, axis=-1, kind="stable")
            got_i = sort_rows(be, x, indices=True)
            assert bool(cupy.array_equal(got_i, want_i)), "argsort"
            fns = {
                "ours": lambda x=x: sort_rows(be, x, indices=True),
                "cupy.argsort": lambda x=x: cupy.argsort(x, axis=-1),
            }
            if torch is not None:
                fns["torch.sort (indices)"] = lambda tx=tx: torch.sort(tx, dim=-1, stable=True)
                fns["torch.argsort"] = lambda tx=tx: torch.argsort(tx, dim=-1, stable=True)
            _report(f"argsort ({rows}, {m}) float32", _kernel_line(m, 1, 8), fns, reps)


def _takes_axis():
    try:
        prim.sort(cupy.zeros((2, 2), np.float32), axis=-1)
    except TypeError:
        return False
    return True


def _report(title, kernel, fns, reps):
    print(f"{title}: {kernel}", flush=True)
    for rep in range(reps):
        t = _timing.bench_many(fns, rounds=5, warmup=5, repeat=20)
        ours = t["ours"]
        print(
            f"  {rep}: "
            + ", ".join(f"{k} {ms:.4f} ms" for k, ms in t.items())
            + " | "
            + ", ".join(f"{k} / ours {ms / ours:.2f}" for k, ms in t.items() if k != "ours"),
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])

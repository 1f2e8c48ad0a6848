"""Tuning experiment for SpMV's ``auto`` rule: every variant on every matrix of the suite and of
the widened suite (:data:`primitives.testing.matrices.WIDE`: log-normal and power-law row
lengths at several spreads, small dense diagonal blocks, a wide band, very short and very long
rows, wide and tall rectangles), float32 and float64, beside cuSPARSE on a GPU.

    python -m tools.tune.spmv_auto [--scale full|test] [--only NAME ...] [--out FILE] [--csv FILE]

For each (matrix, dtype) it prints the row statistics ``auto`` decides from (mean, max, cv,
span, empty rows), the fastest variant and its time, ``auto``'s choice and its time over the
fastest's (the rule must stay within 1.05) and over cuSPARSE's (at most 1.0). Every result is
checked against the float64 oracle (``primitives.sparse.reference``) before it is timed. The CSV
has one row per (matrix, dtype, contender): the data a rule is fitted to. Runs on the emulator
too (``--scale test``: host times, no cuSPARSE column), which checks the tool itself.
"""

from __future__ import annotations

import argparse
import csv
import sys

import numpy as np

import primitives as prim
from primitives import sparse
from primitives._core import backend as _backend, timing as _timing
from primitives.sparse import FORMAT_OF, VARIANTS, choose_variant, matches, reference
from primitives.testing import matrices as _matrices

REPS = {"rounds": 5, "warmup": 3, "repeat": 20}
FIELDS = [
    "matrix",
    "dtype",
    "rows",
    "cols",
    "nnz",
    "mean",
    "max",
    "cv",
    "span",
    "empty",
    "contender",
    "ms",
]


def _arrays(name, scale, xp):
    if name in _matrices.WIDE_PARAMS:
        return _matrices.generate_wide(name, scale, xp=xp)
    return _matrices.generate(name, scale, xp=xp)


def measure(name, dt, scale, gpu):
    """``(shape, stats, auto's choice, {contender: ms})`` of one matrix in dtype ``dt``."""
    xp = _backend.get_backend().xp
    ip, ix, shape = _arrays(name, scale, xp)
    ip32, ix32 = ip.astype(np.int32), ix.astype(np.int32)
    data = _matrices.values(ix32.size, dt, xp=xp, seed=3)
    x = _matrices.values(shape[1], dt, xp=xp, seed=5)
    csr = sparse.CSR._from_arrays(data, ix32, ip32, shape)
    if gpu:
        import cupyx.scipy.sparse as sps
    else:
        import scipy.sparse as sps
    want, bound = reference(
        sps.csr_matrix((data.astype(np.float64), ix32, ip32), shape=shape), x, dtype=dt
    )
    forms = {"csr": csr, "coo": sparse.COO(csr), "hyb": sparse.HYB(csr)}
    try:
        forms["ell"] = sparse.ELL(csr)
    except ValueError:  # padding over the policy's max_fill: the ELL variant is refused
        forms["ell"] = None
    fns = {"auto": lambda: prim.spmv(csr, x)}
    for v in VARIANTS:
        M = forms[FORMAT_OF[v]]
        if M is not None:
            fns[v] = lambda M=M, v=v: prim.spmv(M, x, variant=v)
    if gpu:
        peer = sps.csr_matrix((data, ix32, ip32), shape=shape)
        fns["cuSPARSE"] = lambda: peer @ x
    for v, fn in fns.items():
        ok, i = matches(fn(), want, bound)
        if not ok:
            raise AssertionError(f"{name} {dt.name} {v}: wrong at row {i}")
    return shape, csr.row_stats(), choose_variant(csr), _timing.bench_many(fns, **REPS)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.tune.spmv_auto")
    ap.add_argument(
        "--scale",
        choices=("full", "test"),
        default=None,
        help="matrix sizes (default: full on a GPU, test on the emulator)",
    )
    ap.add_argument("--only", nargs="+", default=None, help="these matrices only")
    ap.add_argument("--dtype", nargs="+", default=["float32", "float64"])
    ap.add_argument("--out", help="the table as Markdown")
    ap.add_argument("--csv", help="every contender's time, one row each")
    args = ap.parse_args(argv)
    gpu = _backend.get_backend().is_cuda
    scale = args.scale or ("full" if gpu else "test")
    names = args.only or (list(_matrices.SUITE) + list(_matrices.WIDE))
    head = [
        "matrix",
        "dtype",
        "rows x cols",
        "nnz",
        "mean / max / cv / span / empty",
        "fastest",
        "ms",
        "auto",
        "auto ms",
        "auto / fastest",
        "auto / cuSPARSE",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    records = []
    worst = 0.0
    for name in names:
        for dt in map(np.dtype, args.dtype):
            shape, st, auto, t = measure(name, dt, scale, gpu)
            ours = {v: ms for v, ms in t.items() if v != "cuSPARSE"}
            best = min((v for v in ours if v != "auto"), key=ours.get)
            ratio = t["auto"] / t[best]
            worst = max(worst, ratio)
            peer = f"{t['auto'] / t['cuSPARSE']:.3f}" if "cuSPARSE" in t else ""
            lines.append(
                f"| {name} | {dt.name} | {shape[0]} x {shape[1]} | {st.nnz} | "
                f"{st.mean:.1f} / {st.max} / {st.cv:.2f} / {st.span:.3f} / "
                f"{st.empty} | {best} | {t[best]:.4f} | {auto} | {t['auto']:.4f} | "
                f"{ratio:.3f} | {peer} |"
            )
            print(lines[-1], flush=True)
            for v, ms in t.items():
                records.append(
                    dict(
                        matrix=name,
                        dtype=dt.name,
                        rows=shape[0],
                        cols=shape[1],
                        nnz=st.nnz,
                        mean=st.mean,
                        max=st.max,
                        cv=st.cv,
                        span=st.span,
                        empty=st.empty,
                        contender=v,
                        ms=ms,
                    )
                )
    lines.append(f"\nworst auto / fastest: {worst:.3f} (1.05 asked)")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, FIELDS)
            w.writeheader()
            w.writerows(records)
    return 0


if __name__ == "__main__":
    sys.exit(main())

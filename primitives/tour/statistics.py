"""Tour of the statistics family: the headline one-pass reductions over every element of float32
(NaNs in the nan-functions' input) and var over each axis of a matrix, checked against NumPy,
with CuPy's twins as peers on a GPU (the workloads of
:mod:`primitives.testing.workloads.statistics`)."""

from __future__ import annotations

import warnings

import numpy as np

import primitives as prim
from primitives import tour
from primitives.testing.workloads import make, pow2, statistics as spec


def _input(n, func):
    """The workload's float32 values, every ``nan``-th one NaN for a nan-function."""
    x = make(spec.FLAT.data, n, "float32")
    if func.startswith("nan"):
        x[:: spec.FLAT.params["nan"]] = np.nan
    return x


def _oracle(func, **kw):
    def run(x):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return getattr(np, func)(x.astype(np.float64), **kw)

    return run


def sections(gpu, log2n=None):
    """One section per headline function over n float32 (GB/s: the input read once), and var
    over each axis of a (rows, n / rows) matrix."""
    n = spec.FLAT.size(gpu, log2n)
    out = []
    for func in spec.FLAT.params["functions"]:
        out.append(
            tour.numpy_twin(
                f"statistics: {func} of float32, n = {pow2(n)}",
                n * 4,
                lambda func=func: (_input(n, func),),
                getattr(prim, func),
                lambda cp, x, func=func: getattr(cp, func)(x),
                _oracle(func),
                gpu,
                rtol=1e-4,
            )
        )
    m = spec.AXIS.size(gpu, log2n)
    rows = spec.AXIS.params["rows" if gpu else "small_rows"]
    shape = (rows, max(1, m // rows))
    for axis in (1, 0):
        out.append(
            tour.numpy_twin(
                f"statistics: var of float32 {shape[0]} x {shape[1]}, axis {axis}",
                m * 4,
                lambda: (make(spec.AXIS.data, shape, "float32"),),
                lambda x, axis=axis: prim.var(x, axis=axis),
                lambda cp, x, axis=axis: cp.var(x, axis=axis),
                _oracle("var", axis=axis),
                gpu,
                rtol=1e-4,
            )
        )
    return out

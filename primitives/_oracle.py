"""NumPy/SciPy reference oracles and the error bounds the checks use."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["reduce_ref", "reduce_matches"]


def reduce_ref(x, op, acc_dtype):
    """Reference reduction of host array ``x``: float sums correctly rounded (``math.fsum``),
    integers exactly in ``acc_dtype`` (wrapping as fixed-width arithmetic does)."""
    x = np.asarray(x).reshape(-1)
    acc_dtype = np.dtype(acc_dtype)
    if op == "sum":
        if acc_dtype.kind == "f":
            if not np.all(np.isfinite(x)):
                return np.sum(x.astype(np.float64), dtype=np.float64)
            return np.float64(math.fsum(x.astype(np.float64).tolist()))  # correctly rounded
        with np.errstate(over="ignore"):
            return np.sum(x.astype(acc_dtype), dtype=acc_dtype)
    y = x.astype(acc_dtype)
    return np.min(y) if op == "min" else np.max(y)


def float_sum_bound(x, depth, dtype):
    """Higham's bound for a summation tree of depth ``depth`` in ``dtype``:
    ``|err| <= g * sum(|x|)``, ``g = d u / (1 - d u)`` with the unit roundoff ``u = eps / 2``."""
    u = np.finfo(dtype).eps / 2
    du = depth * u
    g = du / (1 - du) if du < 1 else np.inf
    return g * float(np.sum(np.abs(np.asarray(x, dtype=np.float64)))) + np.finfo(dtype).tiny


def reduce_matches(got, x, op, acc_dtype, depth):
    """(ok, expected, bound) for a reduction result against the oracle."""
    acc_dtype = np.dtype(acc_dtype)
    want = reduce_ref(x, op, acc_dtype)
    got = np.asarray(got)
    if acc_dtype.kind == "f":
        if np.isnan(want):
            return bool(np.isnan(got)), want, 0.0
        if op != "sum":
            return bool(got == want), want, 0.0
        bound = float_sum_bound(x, depth, acc_dtype)
        return bool(abs(float(got) - float(want)) <= bound), want, bound
    return bool(got == want), want, 0

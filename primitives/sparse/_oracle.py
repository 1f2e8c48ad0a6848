"""The oracle of the SpMV family: SciPy (or cupyx on the device) in float64, with an elementwise
error bound for a result computed in float32 or float64."""

from __future__ import annotations

import numpy as np

__all__ = ["reference", "matches"]


def _gamma(d, dtype):
    u = np.finfo(dtype).eps / 2
    du = d * u
    return du / (1 - du)


def reference(A64, x, *, y=None, alpha=1.0, beta=0.0, dtype=np.float32):
    """``(want, bound)``: the float64 product of the oracle and an elementwise error bound for a
    result computed in ``dtype``.

    ``A64`` is a float64 ``scipy.sparse`` (host) or ``cupyx.scipy.sparse`` (device) CSR matrix
    and ``x``, ``y`` arrays of the same library. Row r of the result is a sum of ``nnz_r``
    products and ``beta*y[r]``; whatever the order of the additions (a tree of height at most
    ``nnz_r``), each term passes through at most ``d_r = nnz_r + 2`` roundings (its product,
    alpha, the additions), so ``|got - want| <= gamma(d_r) * (|alpha| |A| |x| + |beta| |y|)``
    with ``gamma(d) = d u / (1 - d u)`` and ``u`` the unit roundoff of ``dtype`` (Higham,
    *Accuracy and Stability of Numerical Algorithms*, sec. 3.1 and 4.2); the float64 oracle has
    its own error of the same form, added to the bound.
    """
    xp = np if isinstance(x, np.ndarray) else __import__("cupy")
    x64 = x.astype(np.float64)
    want = alpha * (A64 @ x64)
    mag = abs(alpha) * (abs(A64) @ xp.abs(x64))
    if beta != 0:
        y64 = y.astype(np.float64)
        want = want + beta * y64
        mag = mag + abs(beta) * xp.abs(y64)
    d = xp.diff(A64.indptr).astype(np.float64) + 2
    bound = (_gamma(d, dtype) + _gamma(d, np.float64)) * mag + np.finfo(dtype).tiny
    return want, bound


def matches(got, want, bound):
    """(ok, worst index) of ``got`` against ``reference``'s ``want`` and ``bound`` (same
    library); NaN where the oracle has NaN."""
    xp = np if isinstance(want, np.ndarray) else __import__("cupy")
    got = xp.asarray(got).astype(np.float64)
    if got.shape != want.shape:
        return False, -1
    nan = xp.isnan(want)
    err = xp.where(nan, 0.0, xp.abs(got - want))
    bad = (err > bound) | (nan != xp.isnan(got)) | (xp.isnan(err) & ~nan)
    if not bool(bad.any()):
        return True, -1
    return False, int(xp.argmax(bad))

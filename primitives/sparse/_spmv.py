"""The SpMV function: checks, the repeat-call path, and the plans of :mod:`._plans`."""

from __future__ import annotations

import numbers

import numpy as np

from .._core import backend as _backend, checks as _checks, plans as _plans
from . import _base, _plans as _sp
from ._choose import choose_variant
from ._coo import COO
from ._csr import CSR
from ._ell import ELL
from ._hyb import HYB
from ._plans import FORMAT_OF, VARIANTS

__all__ = ["spmv"]

_CONTAINERS = frozenset({CSR, ELL, COO, HYB})


def _real(v, *, func, arg):
    if isinstance(v, (numbers.Real, np.bool_)) and not isinstance(v, np.ndarray):
        return float(v)
    raise TypeError(f"{func}: {arg} must be a real number, got {type(v).__name__}")


def _span(a):
    """[first, last) byte addresses a CuPy array can touch (its strides may be negative)."""
    lo = hi = a.data.ptr
    for n, st in zip(a.shape, a.strides):
        if st > 0:
            hi += (n - 1) * st
        else:
            lo += (n - 1) * st
    return lo, hi + a.itemsize


def _write_back(y, out):
    if out is y:
        return
    if isinstance(y, np.ndarray):
        y[...] = _backend.to_host(out)
    else:
        import cupy

        y[...] = cupy.asarray(out)


def _check(A, x, y, alpha, beta, variant, func="spmv"):
    """Every check of a call, in order; returns (matrix, x input, y input or None, result
    dtype, alpha, beta) with alpha and beta as floats."""
    if variant != "auto" and variant not in VARIANTS:
        raise ValueError(f"{func}: variant must be 'auto' or one of {VARIANTS}, got {variant!r}")
    M = _base.as_matrix(A, func=func, arg="A")
    if y is not None and not (isinstance(y, np.ndarray) or _checks.is_cupy(y)):
        raise TypeError(f"{func}: y must be a NumPy or CuPy array, got {type(y).__name__}")
    alpha = _real(alpha, func=func, arg="alpha")
    beta = _real(beta, func=func, arg="beta")
    xdt = getattr(x, "dtype", None)
    if isinstance(xdt, np.dtype) and getattr(x, "ndim", None) == 1:
        _result_dtype(M, xdt, func=func)  # before the copy to the device, which may refuse it
    xin = _checks.as_input(x, func=func, arg="x", ndim=1)
    yin = _checks.as_input(y, func=func, arg="y", ndim=1) if y is not None else None
    out_dt = _result_dtype(M, xin.array.dtype, func=func)
    if yin is not None and yin.array.dtype != out_dt:
        raise TypeError(f"{func}: y has dtype {yin.array.dtype.name}, the result dtype is "
                        f"{out_dt.name}")
    m, n = M.shape
    if xin.array.size != n:
        raise ValueError(f"{func}: x has length {xin.array.size}, A has {n} columns "
                         f"(shape {M.shape})")
    if yin is not None and yin.array.size != m:
        raise ValueError(f"{func}: y has length {yin.array.size}, A has {m} rows "
                         f"(shape {M.shape})")
    if yin is None and beta != 0:
        raise ValueError(f"{func}: beta={beta} scales y, but y was not given")
    if yin is not None and _overlap(x, y):
        raise ValueError(f"{func}: y overlaps x; pass separate arrays")
    return M, xin, yin, out_dt, alpha, beta


def _make_plan(A, x, *, y=None, alpha=1.0, beta=0.0, variant="auto"):
    """What ``prim.plan(prim.spmv, A, x, ...)`` runs: the arguments checked once here (bad
    ones raise as :func:`spmv` would); calls go through :func:`spmv`, whose repeat path finds
    the plan of a matrix it has run before."""
    _check(A, x, y, alpha, beta, variant)

    def run(A, x):
        return spmv(A, x, y=y, alpha=alpha, beta=beta, variant=variant)

    return run


@_plans.planned(_make_plan)
def spmv(A, x, *, y=None, alpha=1.0, beta=0.0, variant="auto"):
    """Sparse matrix-vector product ``y <- alpha * A @ x + beta * y``.

    Args:
        A: a :mod:`primitives.sparse` container (``CSR``, ``ELL``, ``COO``, ``HYB``) or a
            ``scipy.sparse`` / ``cupyx.scipy.sparse`` matrix (converted to CSR first: duplicates
            summed, indices sorted), float32 or float64.
        x: 1-D array of length ``A.shape[1]`` (CuPy, NumPy, ``__cuda_array_interface__`` or
            DLPack), of a real dtype.
        y: optional NumPy or CuPy array of length ``A.shape[0]`` and of the result dtype,
            updated in place and returned. Must not overlap ``x``.
        alpha: real scalar multiplying ``A @ x``.
        beta: real scalar multiplying ``y``; must be 0 when ``y`` is omitted. With ``beta == 0``
            ``y`` is not read (NaN in it is ignored), as in BLAS.
        variant: one of ``primitives.sparse.VARIANTS`` or ``"auto"`` (:func:`choose_variant`). A
            variant whose format differs from ``A``'s converts ``A`` on the device first.

    Returns:
        ``y`` when given; otherwise a new array of length ``A.shape[0]``, on the device for
        device ``x`` and a NumPy array for host ``x``. Its dtype is
        ``numpy.result_type(A.dtype, x.dtype)`` (as SciPy's ``A @ x``), float32 or float64;
        sums accumulate in it.

    Raises:
        TypeError: ``A`` is not a sparse matrix or container, or ``x`` not an array; a dtype is
            unsupported (``A`` not float32/float64, ``x`` complex, bool or object, the result
            not float32/float64, ``y`` not of the result dtype); ``y`` is not a NumPy or CuPy
            array; ``alpha`` or ``beta`` is not a real number.
        ValueError: unknown ``variant``; ``x`` or ``y`` not 1-D; ``len(x) != A.shape[1]`` or
            ``len(y) != A.shape[0]``; ``beta != 0`` without ``y``; ``y`` overlaps ``x``; the
            variant's format cannot hold ``A`` (ELL of a matrix with a few very long rows).

    Each y[r] is written once, by one thread, with sums formed in an order fixed by the matrix
    and the launch shape: repeated products are bit-identical. Device inputs: no host
    synchronization, except the first product of a container with ``"auto"`` or
    ``"csr_vector"`` (row statistics, cached) and conversions between formats.

    See Also:
        :meth:`scipy.sparse.csr_matrix.dot`, ``cupyx.scipy.sparse.csr_matrix @ x`` (cuSPARSE).
    """
    key = None
    if type(A) in _CONTAINERS:  # a matrix this process made: its token names it for good
        key = _plans.call_key("spmv", (x, y), (A._token, variant, type(alpha), type(beta)))
        plan = _plans.PLANS.find(key)
        if plan is not None and (beta == 0 if y is None else not _overlap(x, y)):
            return plan(A, x, y, alpha, beta)  # an earlier call on like arguments checked them
    M, xin, yin, out_dt, alpha, beta = _check(A, x, y, alpha, beta, variant)
    xp = xin.backend.xp
    out = yin.array if yin is not None else xp.empty(M.shape[0], dtype=out_dt)
    if M.shape[0] == 0:
        return y if y is not None else xin.result(out)

    if variant == "auto":
        variant = choose_variant(M)
    if M.dtype != out_dt:
        M = M.astype(out_dt)
    fmt = FORMAT_OF[variant]
    if M.format != fmt:
        M = {"csr": M.to_csr, "ell": M.to_ell, "coo": M.to_coo, "hyb": M.to_hyb}[fmt]()
    xa = xp.ascontiguousarray(xin.array.astype(out_dt, copy=False))
    plan = _sp.plan_for(variant, M)
    t = out_dt.type
    plan.run(M, xa, out, t(alpha), t(beta))
    if y is not None:
        _write_back(y, out)
        if key is not None and M is A and xa is x and out is y:
            _plans.PLANS.file(key, plan)  # used as they are: later like calls take the plan
        return y
    if key is not None and M is A and xa is x:
        _plans.PLANS.file(key, plan)
    return xin.result(out)


def _result_dtype(M, xdt, *, func):
    if xdt.kind not in "iuf":
        raise TypeError(f"{func}: x has dtype {xdt.name}; x must be real (int or float)")
    out_dt = np.result_type(M.dtype, xdt)
    if out_dt not in _base.VALUE_DTYPES:
        raise TypeError(f"{func}: A ({M.dtype.name}) times x ({xdt.name}) gives "
                        f"{out_dt.name}; supported result dtypes are float32, float64")
    return out_dt


def _overlap(x, y):
    """Whether the caller's ``x`` and ``y`` share memory (both NumPy or both CuPy)."""
    if isinstance(x, np.ndarray) and isinstance(y, np.ndarray):
        return bool(np.may_share_memory(x, y))
    if _checks.is_cupy(x) and _checks.is_cupy(y) and x.size and y.size:
        (a0, a1), (b0, b1) = _span(x), _span(y)
        return a0 < b1 and b0 < a1
    return False

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


def _number(v, *, func, arg):
    """A Python float for a real scalar, a Python complex for a complex one."""
    if not isinstance(v, np.ndarray):
        if isinstance(v, (numbers.Real, np.bool_)):
            return float(v)
        if isinstance(v, numbers.Complex):
            return complex(v)
    raise TypeError(f"{func}: {arg} must be a real or complex number, got {type(v).__name__}")


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
    dtype, alpha, beta) with alpha and beta as Python floats or complex numbers."""
    if variant != "auto" and variant not in VARIANTS:
        raise ValueError(f"{func}: variant must be 'auto' or one of {VARIANTS}, got {variant!r}")
    M = _base.as_matrix(A, func=func, arg="A")
    if y is not None and not (isinstance(y, np.ndarray) or _checks.is_cupy(y)):
        raise TypeError(f"{func}: y must be a NumPy or CuPy array, got {type(y).__name__}")
    alpha = _number(alpha, func=func, arg="alpha")
    beta = _number(beta, func=func, arg="beta")
    xdt = getattr(x, "dtype", None)
    if isinstance(xdt, np.dtype) and getattr(x, "ndim", None) == 1:
        _result_dtype(M, xdt, func=func)  # before the copy to the device, which may refuse it
    xin = _checks.as_input(x, func=func, arg="x", ndim=1)
    yin = _checks.as_input(y, func=func, arg="y", ndim=1) if y is not None else None
    out_dt = _result_dtype(M, xin.array.dtype, func=func)
    if out_dt.kind != "c":
        for arg, v in (("alpha", alpha), ("beta", beta)):
            if isinstance(v, complex):
                raise TypeError(
                    f"{func}: {arg}={v!r} is complex, the result dtype "
                    f"{out_dt.name} (A {M.dtype.name}, x {xin.array.dtype.name}) is "
                    f"real; make A or x complex"
                )
    if yin is not None and yin.array.dtype != out_dt:
        raise TypeError(
            f"{func}: y has dtype {yin.array.dtype.name}, the result dtype is {out_dt.name}"
        )
    m, n = M.shape
    if xin.array.size != n:
        raise ValueError(
            f"{func}: x has length {xin.array.size}, A has {n} columns (shape {M.shape})"
        )
    if yin is not None and yin.array.size != m:
        raise ValueError(f"{func}: y has length {yin.array.size}, A has {m} rows (shape {M.shape})")
    if yin is not None and _read_only(y):
        raise ValueError(
            f"{func}: y is read-only (the output array must be writeable); "
            f"pass a writeable y, or no y for a new result"
        )
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
            summed, indices sorted), float32, float64, complex64 or complex128.
        x: 1-D array of length ``A.shape[1]`` (CuPy, NumPy, ``__cuda_array_interface__`` or
            DLPack) of an integer, float or complex dtype (bool is refused).
        y: optional NumPy or CuPy array of length ``A.shape[0]`` and of the result dtype,
            updated in place and returned. Must be writeable and share no memory with ``x``
            (views of one buffer that interleave without a common element are fine).
        alpha: scalar multiplying ``A @ x`` (a Python or NumPy real number; a complex one when
            the result dtype is complex), converted to the result dtype as BLAS's ``alpha``: it
            does not change the result dtype. Finite or not, as SciPy's ``alpha * (A @ x)``: a
            non-finite ``alpha`` gives NaN (``inf * 0``) in every row that sums to 0, empty
            rows included, whatever the variant (the product is then formed with ``alpha = 1``
            and scaled after, by NumPy's complex product for complex results).
        beta: scalar multiplying ``y``, as ``alpha``; must be 0 when ``y`` is omitted. With
            ``beta == 0`` ``y`` is not read (NaN in it is ignored), as in BLAS.
        variant: one of ``primitives.sparse.VARIANTS`` or ``"auto"`` (:func:`choose_variant`). A
            variant whose format differs from ``A``'s runs on a conversion of ``A``, made on the
            device at the first such product and kept on the container ``A`` (per stream) for
            the later ones: memory for that format's arrays, held as long as ``A`` is (a
            SciPy/CuPy matrix is converted to a new CSR container at every call: pass a
            container to keep its conversions).

    Returns:
        ``y`` when given; otherwise a new array of length ``A.shape[0]``, on the device for
        device ``x`` and a NumPy array for host ``x``. Its dtype is
        ``numpy.result_type(A.dtype, x.dtype)`` (as SciPy's ``A @ x``: a complex ``x`` with a
        real ``A`` gives a complex result), float32, float64, complex64 or complex128; sums
        accumulate in it (complex products as NumPy's, ``(a.re*b.re - a.im*b.im) +
        (a.re*b.im + a.im*b.re)j``).

    Raises:
        TypeError: ``A`` is not a sparse matrix or container, or ``x`` not an array; a dtype is
            unsupported (``A`` not float32/float64/complex64/complex128, ``x`` bool or object,
            the result not one of those four, ``y`` not of the result dtype); ``y`` is not a
            NumPy or CuPy array; ``alpha`` or ``beta`` is not a real or complex number, or is
            complex for a real result.
        ValueError: unknown ``variant``; ``x`` or ``y`` not 1-D; ``len(x) != A.shape[1]`` or
            ``len(y) != A.shape[0]``; ``y`` is read-only (a NumPy array whose
            ``flags.writeable`` is False); ``beta != 0`` without ``y``; ``y`` overlaps ``x``; the
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
        if plan is not None and (beta == 0 if y is None else not (_read_only(y) or _overlap(x, y))):
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
    P = M._as_format(FORMAT_OF[variant])  # made once, kept on M
    xa = xp.ascontiguousarray(xin.array.astype(out_dt, copy=False))
    plan = _sp.plan_for(variant, P)
    plan.apply(P, xa, out, alpha, beta)
    if key is not None and M is A and xa is x and (y is None or out is y):
        # used as they are: later like calls take the plan (on A's kept conversion)
        _plans.PLANS.file(key, plan if P is A else _sp.OnConversion(plan, P.format))
    if y is not None:
        _write_back(y, out)
        return y
    return xin.result(out)


def _result_dtype(M, xdt, *, func):
    if xdt.kind not in "iufc":
        raise TypeError(
            f"{func}: x has dtype {xdt.name}; x must be numeric (int, float or complex)"
        )
    out_dt = np.result_type(M.dtype, xdt)
    if out_dt not in _base.VALUE_DTYPES:
        raise TypeError(
            f"{func}: A ({M.dtype.name}) times x ({xdt.name}) gives "
            f"{out_dt.name}; supported result dtypes are "
            f"{', '.join(d.name for d in _base.VALUE_DTYPES)}"
        )
    return out_dt


def _read_only(y):
    """Whether ``y`` is a NumPy array that may not be written (CuPy arrays always may)."""
    return isinstance(y, np.ndarray) and not y.flags.writeable


def _overlap(x, y):
    """Whether the caller's ``x`` and ``y`` share a byte (both NumPy or both CuPy), as
    ``numpy.shares_memory``: the bounds first, the exact test only when the bounds meet."""
    if isinstance(x, np.ndarray) and isinstance(y, np.ndarray):
        return bool(np.may_share_memory(x, y)) and bool(np.shares_memory(x, y))
    if _checks.is_cupy(x) and _checks.is_cupy(y) and x.size and y.size:
        (a0, a1), (b0, b1) = _span(x), _span(y)
        if not (a0 < b1 and b0 < a1):
            return False
        if x.ndim != 1 or y.ndim != 1:
            return True
        return _strided_meet(_progression(x, x.data.ptr), _progression(y, y.data.ptr))
    return False


def _progression(a, ptr):
    """A 1-D array's elements as (first byte address, step >= 0, count, itemsize)."""
    n, step = a.shape[0], a.strides[0]
    if n <= 1:
        step = 0
    elif step < 0:
        ptr, step = ptr + (n - 1) * step, -step
    return ptr, step, n, a.itemsize


def _strided_meet(a, b):
    """Whether two arithmetic progressions of byte ranges share a byte: exactly, in O(itemsize)
    steps. ``a`` and ``b`` are (first address, step >= 0, count >= 1, width) as
    :func:`_progression` gives; element i of ``a`` covers [pa + i*sa, pa + i*sa + wa).

    Elements i of ``a`` and j of ``b`` meet when ``v = i*sa - j*sb`` lies in
    (pb - pa - wa, pb - pa + wb); for each such integer v this solves the linear Diophantine
    equation ``i*sa - j*sb = v`` for 0 <= i < na, 0 <= j < nb."""
    pa, sa, na, wa = a
    pb, sb, nb, wb = b
    if na == 0 or nb == 0:
        return False
    d = pb - pa
    if sa == 0 or sb == 0:
        g = 0
    else:
        g, u, w = _ext_gcd(sa, sb)  # u*sa + w*sb == g
    for v in range(d - wa + 1, d + wb):
        if sa == 0 and sb == 0:
            if v == 0:
                return True
        elif sb == 0:  # i*sa == v
            if v % sa == 0 and 0 <= v // sa < na:
                return True
        elif sa == 0:  # j*sb == -v
            if -v % sb == 0 and 0 <= -v // sb < nb:
                return True
        elif v % g == 0:
            q = v // g
            i0, j0 = u * q, -w * q  # one solution; the others: (i0 + k*sb/g, j0 + k*sa/g)
            ci, cj = sb // g, sa // g
            lo = max(-(i0 // ci), -(j0 // cj))  # ceil(-i0 / ci), ceil(-j0 / cj)
            hi = min((na - 1 - i0) // ci, (nb - 1 - j0) // cj)
            if lo <= hi:
                return True
    return False


def _ext_gcd(a, b):
    """(g, u, w) with u*a + w*b == g == gcd(a, b), for a, b > 0."""
    u0, w0, u1, w1 = 1, 0, 0, 1
    while b:
        q = a // b
        a, b = b, a - q * b
        u0, u1 = u1, u0 - q * u1
        w0, w1 = w1, w0 - q * w1
    return a, u0, w0

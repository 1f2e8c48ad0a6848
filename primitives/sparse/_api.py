"""The SpMV function: its checks (:mod:`._checks`), the repeat-call path, the variant
(:mod:`._choose`) and the plans of :mod:`._plans`."""

from __future__ import annotations

import numpy as np

from .._core import backend as _backend, plans as _plans
from . import _checks, _choose, _plans as _sp
from ._coo import COO
from ._csr import CSR
from ._ell import ELL
from ._hyb import HYB
from ._plans import FORMAT_OF

__all__ = ["spmv"]

_CONTAINERS = frozenset({CSR, ELL, COO, HYB})


def _write_back(y, out):
    if out is y:
        return
    if isinstance(y, np.ndarray):
        y[...] = _backend.to_host(out)
    else:
        import cupy

        y[...] = cupy.asarray(out)


def _make_plan(A, x, *, y=None, alpha=1.0, beta=0.0, variant="auto"):
    """What ``prim.plan(prim.spmv, A, x, ...)`` runs: the arguments checked once here (bad
    ones raise as :func:`spmv` would); calls go through :func:`spmv`, whose repeat path finds
    the plan of a matrix it has run before."""
    _checks.spmv_args(A, x, y, alpha, beta, variant)

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
        if plan is not None and (
            beta == 0 if y is None else not (_checks.read_only(y) or _checks.overlap(x, y))
        ):
            return plan(A, x, y, alpha, beta)  # an earlier call on like arguments checked them
    M, xin, yin, out_dt, alpha, beta = _checks.spmv_args(A, x, y, alpha, beta, variant)
    xp = xin.backend.xp
    out = yin.array if yin is not None else xp.empty(M.shape[0], dtype=out_dt)
    if M.shape[0] == 0:
        return y if y is not None else xin.result(out)

    variant = _choose.choose(M, variant)
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

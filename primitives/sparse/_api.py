"""The SpMV function: its checks (:mod:`._checks`), the variant (:mod:`._choose`), then the
plans of :mod:`._plans`; a container is keyed by its token, alpha and beta by their types."""

from __future__ import annotations

import numpy as np

from .._core import backend as _backend, entry as _entry
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


def _token(A):
    """A container's token (its identity for good) in the call key; None for a SciPy/CuPy
    matrix, converted anew at every call."""
    return A._token if type(A) in _CONTAINERS else None


class _Repeat:
    """A repeat product of like arguments: the checks that depend on values the call key does
    not hold (beta is keyed by its type; y's flags and its memory), then the plan, else the
    checked path (which raises)."""

    __slots__ = ("plan", "variant")

    def __init__(self, plan, variant):
        self.plan, self.variant = plan, variant

    def __call__(self, A, x, y, alpha, beta):
        if beta == 0 if y is None else not (_checks.read_only(y) or _checks.overlap(x, y)):
            return self.plan(A, x, y, alpha, beta)
        return _prepare(A, x, y=y, alpha=alpha, beta=beta, variant=self.variant)()


def _prepare(A, x, *, y=None, alpha=1.0, beta=0.0, variant="auto"):
    M, xin, yin, out_dt, a, b = _checks.spmv_args(A, x, y, alpha, beta, variant)
    xp = xin.backend.xp
    m = M.shape[0]
    if m == 0:
        out = yin.array if yin is not None else xp.empty(0, dtype=out_dt)
        return _entry.Prepared.done(y if y is not None else xin.result(out))
    chosen = _choose.choose(M, variant)
    if M.dtype != out_dt:
        M = M.astype(out_dt)
    P = M._as_format(FORMAT_OF[chosen])  # made once, kept on M
    xa = xp.ascontiguousarray(xin.array.astype(out_dt, copy=False))
    plan = _sp.plan_for(chosen, P)
    if M is A and xa is x and (y is None or yin.array is y):
        # used as they are: later like calls take the plan (on A's kept conversion)
        run = plan if P is A else _sp.OnConversion(plan, P.format)
        return _entry.Prepared(_Repeat(run, variant), (A, x, y, alpha, beta), reusable=True)

    def run(*_):
        out = yin.array if yin is not None else xp.empty(m, dtype=out_dt)
        plan.apply(P, xa, out, a, b)
        if y is not None:
            _write_back(y, out)
            return y
        return xin.result(out)

    return _entry.Prepared(run, (A, x, y, alpha, beta))


@_entry.function(_prepare, arrays=("A", "x", "y"), tokens={"A": _token}, scalars=("alpha", "beta"))
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

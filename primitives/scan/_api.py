"""Scan family's public functions: checks, then the plans of :mod:`._plans`."""

from __future__ import annotations

import operator

import numpy as np

from .._core import checks as _checks, plans as _plans
from . import _plans as _sp
from ._plans import OPS, VARIANTS

__all__ = ["inclusive_scan", "exclusive_scan", "cumsum", "VARIANTS", "OPS"]


def _checked(x, op, dtype, variant, func):
    variant = _checks.check_choice(variant, VARIANTS, func=func, arg="variant",
                                   auto="decoupled_lookback")
    return (variant,) + _checks.op_input(x, op, dtype, func=func)


def _scan(x, op, dtype, variant, exclusive, func, key):
    variant, inp, arr, in_dt, acc_dt = _checked(x, op, dtype, variant, func)
    n = arr.size
    if n == 0:
        return inp.result(inp.backend.xp.empty(0, dtype=acc_dt))
    if variant == "decoupled_lookback":
        plan = _sp.lookback_plan(inp.backend, in_dt, acc_dt, op, exclusive, n)
        if arr is x:  # read as it is: later calls on like arrays take the plan directly
            _plans.PLANS.file(key, plan)
        return inp.result(plan(arr))
    return inp.result(_sp.hierarchical(arr, n, in_dt, acc_dt, op, exclusive, variant,
                                       inp.backend))


def _make_plan(func, exclusive):
    """What ``prim.plan(prim.<func>, x, ...)`` runs for arrays like ``x``."""

    def make(x, op="sum", *, axis=None, dtype=None, variant="auto"):
        if _along_axis(x, axis, func):
            _checked(x, op, dtype, variant, func)
            return lambda y: _entry(func, y, op, axis, dtype, variant, exclusive)
        variant, inp, arr, in_dt, acc_dt = _checked(x, op, dtype, variant, func)
        if variant == "decoupled_lookback" and arr.size and arr is x:
            return _sp.lookback_plan(inp.backend, in_dt, acc_dt, op, exclusive, arr.size)
        return lambda y: _scan(y, op, dtype, variant, exclusive, func, None)

    return make


def _make_cumsum_plan(x, axis=None, dtype=None, *, variant="auto"):
    return _make_plan("cumsum", False)(x, "sum", axis=axis, dtype=dtype, variant=variant)


def _entry(func, x, op, axis, dtype, variant, exclusive):
    """A call of the public scan ``func``: the plan an earlier call on a like array filed (it
    checked these arguments), else the checks, then the scan along ``axis`` or of the flattened
    array."""
    key = _plans.call_key(func, (x,), (op, axis, dtype, variant))
    plan = _plans.PLANS.find(key)
    if plan is not None:
        return plan(x)
    if _along_axis(x, axis, func):
        return _scan_axis(x, axis, op, dtype, variant, exclusive, func)
    return _scan(x, op, dtype, variant, exclusive, func, key)


def _along_axis(x, axis, func):
    """Whether a scan of ``x`` runs along ``axis`` of an N-D array (True) or over the flattened
    array (False: ``axis`` None, or the only axis of a 1-D array); NumPy's errors for a bad
    ``axis``."""
    if axis is None:
        return False
    ndim = getattr(x, "ndim", None)
    if ndim is None:
        ndim = np.ndim(x)
    try:
        axis = operator.index(axis)
    except TypeError as exc:
        raise TypeError(f"{func}: axis must be an integer or None, got {axis!r}") from exc
    if not -max(ndim, 1) <= axis < max(ndim, 1):
        raise np.exceptions.AxisError(f"{func}: axis {axis} is out of bounds for array of "
                                      f"dimension {ndim}")
    return ndim > 1


def _scan_axis(x, axis, op, dtype, variant, exclusive, func):
    """The scan of every line of ``x`` along ``axis``: the lines laid out one after another
    (a copy when ``axis`` is not the last axis of a C-ordered array) and scanned as equal
    segments by :func:`~primitives.segmented_scan`; the result in ``x``'s shape, C-ordered as
    NumPy's."""
    from ..segmented import segmented_scan

    variant, inp, arr, in_dt, acc_dt = _checked(x, op, dtype, variant, func)
    xp = inp.backend.xp
    if arr.ndim == 1 and getattr(x, "ndim", 1) != 1:  # as_input flattened nothing: keep shape
        arr = arr.reshape(np.shape(x))
    axis = operator.index(axis) % arr.ndim
    lines = xp.moveaxis(arr, axis, -1)
    shape = lines.shape
    if arr.size == 0:
        return inp.result(xp.empty(arr.shape, dtype=acc_dt))
    flat = xp.ascontiguousarray(lines).reshape(-1)
    width = shape[-1]
    offsets = xp.arange(0, flat.size + 1, width, dtype=np.int64)
    out = segmented_scan(flat, offsets=offsets, op=op, inclusive=not exclusive, dtype=acc_dt,
                         check=False)
    out = xp.moveaxis(out.reshape(shape), -1, axis)
    return inp.result(xp.ascontiguousarray(out))


@_plans.planned(_make_plan("inclusive_scan", False))
def inclusive_scan(x, op="sum", *, axis=None, dtype=None, variant="auto"):
    """Inclusive prefix scan: ``out[i] = x[0] op x[1] op ... op x[i]``.

    Args:
        x: array of int32, int64, uint32, uint64, float32 or float64 (CuPy, NumPy, or anything with
            ``__cuda_array_interface__`` / DLPack). Any ndim: with ``axis=None`` the array is
            flattened, as ``numpy.cumsum(x)`` does without ``axis``. Host arrays of non-native
            byte order are converted to native order on the host.
        op: ``"sum"``, ``"min"`` or ``"max"``.
        axis: None (the flattened array) or an axis of an N-D ``x`` (negative counts from the
            end): every line along it is scanned and the result has ``x``'s shape, as
            ``numpy.cumsum(x, axis)``. Lines along any axis but the last of a C-ordered array
            are laid out contiguously first (a copy).
        dtype: accumulator and result dtype. Default as NumPy's ``cumsum``: ``sum`` widens int32 to
            int64 and uint32 to uint64; ``min``/``max`` keep the input dtype. ``dtype=x.dtype``
            keeps 32-bit integer sums in 32 bits (wrapping around on overflow).
        variant: ``"hillis_steele"``, ``"blelloch"``, ``"decoupled_lookback"`` or ``"auto"``
            (= ``"decoupled_lookback"``).

    Returns:
        A 1-D array of ``x.size`` elements (``x``'s shape with ``axis``): CuPy for device input
        (no host synchronization), NumPy for host input; native byte order, as
        ``numpy.cumsum``'s.

    Raises:
        TypeError: ``x`` is not an array, or its dtype or ``dtype`` is unsupported.
        ValueError: unknown ``op`` or ``variant``; ``numpy.exceptions.AxisError`` (a
            ``ValueError``) for an axis out of range.

    Integer scans are exact modulo 2^bits. ``min``/``max`` propagate NaN from its position on,
    as ``numpy.minimum.accumulate`` does. Float sums: each output is rounded along a tree whose
    depth grows with the number of tiles before it (see the docs for the bound); the single-pass
    variant's rounding order depends on timing, so float sums may differ in the last bits from
    run to run.

    See Also:
        :func:`numpy.cumsum`, :func:`numpy.minimum.accumulate <numpy.ufunc.accumulate>`,
        :func:`cupy.cumsum`.
    """
    return _entry("inclusive_scan", x, op, axis, dtype, variant, False)


@_plans.planned(_make_plan("exclusive_scan", True))
def exclusive_scan(x, op="sum", *, axis=None, dtype=None, variant="auto"):
    """Exclusive prefix scan: ``out[0]`` is the identity of ``op`` (0, the dtype's maximum for
    ``min``, its minimum for ``max``; infinities for floats) and
    ``out[i] = x[0] op ... op x[i-1]``.

    Arguments, result and errors as :func:`inclusive_scan`.
    """
    return _entry("exclusive_scan", x, op, axis, dtype, variant, True)


@_plans.planned(_make_cumsum_plan)
def cumsum(x, axis=None, dtype=None, *, variant="auto"):
    """Cumulative sum, as :func:`numpy.cumsum`.

    Args:
        x: array (see :func:`inclusive_scan`).
        axis: ``None`` (flatten) or an axis (negative counts from the end), as NumPy.
        dtype: result dtype; default as NumPy (int32 -> int64, uint32 -> uint64).
        variant: see :func:`inclusive_scan`.

    Returns:
        The inclusive sum scan: 1-D with ``axis=None``, ``x``'s shape otherwise.

    Raises:
        TypeError: as :func:`inclusive_scan`; ``axis`` not an integer.
        numpy.exceptions.AxisError: ``axis`` out of range (a ``ValueError``, as NumPy's).

    See Also:
        :func:`numpy.cumsum`, :func:`cupy.cumsum`.
    """
    return _entry("cumsum", x, "sum", axis, dtype, variant, False)

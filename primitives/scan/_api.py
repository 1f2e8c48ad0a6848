"""Scan family's public functions: checks, then the plans of :mod:`._plans`."""

from __future__ import annotations

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

    def make(x, op="sum", *, dtype=None, variant="auto"):
        variant, inp, arr, in_dt, acc_dt = _checked(x, op, dtype, variant, func)
        if variant == "decoupled_lookback" and arr.size and arr is x:
            return _sp.lookback_plan(inp.backend, in_dt, acc_dt, op, exclusive, arr.size)
        return lambda y: _scan(y, op, dtype, variant, exclusive, func, None)

    return make


def _make_cumsum_plan(x, axis=None, dtype=None, *, variant="auto"):
    _check_axis(x, axis)
    return _make_plan("cumsum", False)(x, "sum", dtype=dtype, variant=variant)


def _check_axis(x, axis):
    if axis is not None:
        ndim = getattr(x, "ndim", None)
        if ndim is None:
            ndim = np.ndim(x)
        if ndim > 1:
            raise ValueError(
                f"cumsum: axis={axis!r} for {ndim}-D input is not supported; flatten "
                "(axis=None) or use segmented_scan for rows"
            )
        if not isinstance(axis, (int, np.integer)) or axis not in (0, -1):
            raise ValueError(f"cumsum: axis {axis!r} is out of bounds for a 1-D array")


@_plans.planned(_make_plan("inclusive_scan", False))
def inclusive_scan(x, op="sum", *, dtype=None, variant="auto"):
    """Inclusive prefix scan: ``out[i] = x[0] op x[1] op ... op x[i]``.

    Args:
        x: array of int32, int64, uint32, uint64, float32 or float64 (CuPy, NumPy, or anything with
            ``__cuda_array_interface__`` / DLPack). Any ndim: the array is flattened, as
            ``numpy.cumsum(x)`` does without ``axis``. Host arrays of non-native byte order are
            converted to native order on the host.
        op: ``"sum"``, ``"min"`` or ``"max"``.
        dtype: accumulator and result dtype. Default as NumPy's ``cumsum``: ``sum`` widens int32 to
            int64 and uint32 to uint64; ``min``/``max`` keep the input dtype. ``dtype=x.dtype``
            keeps 32-bit integer sums in 32 bits (wrapping around on overflow).
        variant: ``"hillis_steele"``, ``"blelloch"``, ``"decoupled_lookback"`` or ``"auto"``
            (= ``"decoupled_lookback"``).

    Returns:
        A 1-D array of ``x.size`` elements: CuPy for device input (no host synchronization), NumPy
        for host input; native byte order, as ``numpy.cumsum``'s.

    Raises:
        TypeError: ``x`` is not an array, or its dtype or ``dtype`` is unsupported.
        ValueError: unknown ``op`` or ``variant``.

    Integer scans are exact modulo 2^bits. ``min``/``max`` propagate NaN from its position on,
    as ``numpy.minimum.accumulate`` does. Float sums: each output is rounded along a tree whose
    depth grows with the number of tiles before it (see the docs for the bound); the single-pass
    variant's rounding order depends on timing, so float sums may differ in the last bits from
    run to run.

    See Also:
        :func:`numpy.cumsum`, :func:`numpy.minimum.accumulate <numpy.ufunc.accumulate>`,
        :func:`cupy.cumsum`.
    """
    key = _plans.call_key("inclusive_scan", (x,), (op, dtype, variant))
    plan = _plans.PLANS.find(key)
    if plan is not None:  # an earlier call on a like array checked these arguments
        return plan(x)
    return _scan(x, op, dtype, variant, False, "inclusive_scan", key)


@_plans.planned(_make_plan("exclusive_scan", True))
def exclusive_scan(x, op="sum", *, dtype=None, variant="auto"):
    """Exclusive prefix scan: ``out[0]`` is the identity of ``op`` (0, the dtype's maximum for
    ``min``, its minimum for ``max``; infinities for floats) and
    ``out[i] = x[0] op ... op x[i-1]``.

    Arguments, result and errors as :func:`inclusive_scan`.
    """
    key = _plans.call_key("exclusive_scan", (x,), (op, dtype, variant))
    plan = _plans.PLANS.find(key)
    if plan is not None:  # an earlier call on a like array checked these arguments
        return plan(x)
    return _scan(x, op, dtype, variant, True, "exclusive_scan", key)


@_plans.planned(_make_cumsum_plan)
def cumsum(x, axis=None, dtype=None, *, variant="auto"):
    """Cumulative sum, as :func:`numpy.cumsum`.

    Args:
        x: array (see :func:`inclusive_scan`).
        axis: ``None`` (flatten), or for 1-D input ``0``/``-1``.
        dtype: result dtype; default as NumPy (int32 -> int64, uint32 -> uint64).
        variant: see :func:`inclusive_scan`.

    Returns:
        The inclusive sum scan, 1-D.

    Raises:
        TypeError: as :func:`inclusive_scan`.
        ValueError: ``axis`` other than ``None`` for input of more than one dimension, or out of
            range.

    See Also:
        :func:`numpy.cumsum`, :func:`cupy.cumsum`.
    """
    key = _plans.call_key("cumsum", (x,), (axis, dtype, variant))
    plan = _plans.PLANS.find(key)
    if plan is not None:  # an earlier call on a like array checked these arguments
        return plan(x)
    _check_axis(x, axis)
    return _scan(x, "sum", dtype, variant, False, "cumsum", key)

"""Reduction family's public functions: checks, then the plans of :mod:`._plans`."""

from __future__ import annotations

import numpy as np

from .._core import checks as _checks, dtypes as _dtypes, plans as _plans
from . import _plans as _rp
from ._plans import OPS, VARIANTS

__all__ = ["reduce", "sum", "min", "max", "VARIANTS", "OPS"]


def _make_plan(x, op="sum", *, axis=None, dtype=None, out=None, keepdims=False, variant="auto",
               func="reduce"):
    """What ``prim.plan(prim.reduce, x, op, ...)`` runs for arrays like ``x``; ``func``: the
    public function the errors name."""
    if axis is not None or out is not None or keepdims:
        _general(x, op, axis, dtype, None, keepdims, variant, func)  # checks the arguments
        return lambda y: _general(y, op, axis, dtype, out, keepdims, variant, func)
    variant = _checks.check_choice(variant, VARIANTS, func=func, arg="variant",
                                   auto="production")
    inp, arr, rt = _input(x, op, dtype, variant, func)
    if variant == "production" and arr.size and arr is x:
        return _rp.production_plan(inp.backend, rt, op, arr.size)
    return lambda y: _reduce(y, op, dtype, variant, func)


def _input(x, op, dtype, variant, func):
    """Checks in CuPy's order (op, array, dtype, ``dtype=``), before anything is launched.

    Returns ``(inp, arr, route)``: the contiguous flattened backend array and the
    :class:`~._plans.Route` from its dtype to the result's (NumPy's: ``sum`` widens bool and
    integers below 64 bits; ``dtype=`` overrides)."""
    _checks.check_choice(op, OPS, func=func, arg="op")
    inp = _checks.as_input(x, func=func, arg="x", flatten=True)
    arr = inp.array
    in_dt = arr.dtype
    allowed = _dtypes.REDUCE_DTYPES
    if in_dt not in allowed:
        raise TypeError(f"{func}: x has dtype {in_dt}; supported dtypes are "
                        f"{_dtypes.names(allowed)}")
    if dtype is None:
        acc_dt = _dtypes.reduce_result_dtype(in_dt, op)
    else:
        acc_dt = _dtypes.resolve_dtype(_checks.native_dtype(dtype), func=func, allowed=allowed)
    return inp, arr, _rp.route(in_dt, acc_dt, op, variant)


@_plans.planned(_make_plan)

def reduce(x, op="sum", *, axis=None, dtype=None, out=None, keepdims=False, variant="auto"):
    """Reduce all elements of ``x`` with ``op``.

    Args:
        x: array of bool, int8, uint8, int16, uint16, int32, int64, uint32, uint64, float16,
            float32 or float64 (CuPy, NumPy, or anything with
            ``__cuda_array_interface__`` / DLPack). Any ndim: the array is flattened (``axis=None``).
            Host arrays of non-native byte order are converted to native order on the host.
        op: ``"sum"``, ``"min"`` or ``"max"``.
        axis: None (every element), an int or a tuple of ints (negative counting from the end):
            the axes reduced, as NumPy's ``axis``.
        out: an array of the result's shape that receives the result (cast by NumPy's
            ``same_kind`` rule) and is returned.
        keepdims: keep the reduced axes as axes of length 1.
        dtype: result dtype. Default as NumPy: ``sum`` widens bool and signed integers below 64
            bits to int64, unsigned ones to uint64 (float16 stays float16, accumulated in
            float32); ``min``/``max`` keep the input dtype. A ``dtype`` without a native kernel
            for the input converts the input first (one extra pass), as NumPy casts to it.
        variant: one of ``primitives.reduction.VARIANTS`` (``"alpha"`` ... ``"zeta"``,
            ``"production"``) or ``"auto"`` (= ``"production"``).

    Returns:
        A 0-d device array for device input (like ``cupy.sum``), a NumPy scalar for host input
        (like ``numpy.sum``), in native byte order; with ``axis`` an array of the kept axes
        (``keepdims``: all axes), with ``out`` that array.

    Raises:
        TypeError: ``x`` is not an array, or its dtype (str, object, datetime64, complex, ...)
            or ``dtype`` is unsupported.
        ValueError: unknown ``op`` or ``variant``; ``min``/``max`` of an empty array or over
            an axis of length 0 (NumPy's error: no identity); an axis out of range
            (``numpy.exceptions.AxisError``) or repeated; ``out`` of another shape.

    Integer sums wrap around on overflow, as NumPy's do. ``min``/``max`` propagate NaN as
    ``numpy.min``/``numpy.max``. Float sums accumulate in the result dtype in a tree; the error is
    bounded by the tree depth (see the docs). Device input: no host synchronization. Host input:
    one copy in and one out. The production kernel reads narrow dtypes in place, 16 bytes per
    load; the teaching variants (alpha ... zeta) convert them to their accumulator dtype first.

    See Also:
        :func:`numpy.sum`, :func:`numpy.min`, :func:`numpy.max`, :func:`cupy.sum`.
    """
    if axis is not None or out is not None or keepdims:
        return _general(x, op, axis, dtype, out, keepdims, variant, "reduce")
    return _reduce(x, op, dtype, variant, "reduce")


def _general(x, op, axis, dtype, out, keepdims, variant, func):
    """A reduction with NumPy's ``axis``, ``out`` and ``keepdims``: over every axis the
    flattened reduction (then shaped), over some axes :func:`~._axis.reduce_axis`."""
    from . import _axis

    variant = _checks.check_choice(variant, VARIANTS, func=func, arg="variant",
                                   auto="production")
    _checks.check_choice(op, OPS, func=func, arg="op")
    inp = _checks.as_input(x, func=func, arg="x")
    arr = inp.array
    if arr.dtype not in _dtypes.REDUCE_DTYPES:
        raise TypeError(f"{func}: x has dtype {arr.dtype}; supported dtypes are "
                        f"{_dtypes.names(_dtypes.REDUCE_DTYPES)}")
    axes = _axis.normalize_axis(axis, arr.ndim, func)
    if len(axes) == arr.ndim:  # every axis: the flattened reduction
        if out is not None:  # before any launch
            res_dt = (_dtypes.reduce_result_dtype(arr.dtype, op) if dtype is None else
                      np.dtype(_checks.native_dtype(dtype)))
            _axis.check_out(out, (1,) * arr.ndim if keepdims else (), res_dt, func)
        # the backend array in, a backend 0-d value out: finish() returns it as the caller's
        res = inp.backend.xp.asarray(_reduce(arr, op, dtype, variant, func)).reshape(())
        return _axis.finish(res, inp, arr.shape, axes, keepdims, out, func)
    if dtype is None:
        acc_dt = _dtypes.reduce_result_dtype(arr.dtype, op)
    else:
        acc_dt = _dtypes.resolve_dtype(_checks.native_dtype(dtype), func=func,
                                       allowed=_dtypes.REDUCE_DTYPES)
    res = _axis.reduce_axis(arr, axes, op, acc_dt, inp.backend, func)
    return _axis.finish(res, inp, arr.shape, axes, keepdims, out, func)


def _reduce(x, op, dtype, variant, func):
    """:func:`reduce`, its errors naming ``func`` (the public function the user called)."""
    key = _plans.call_key("reduce", (x,), (op, dtype, variant))
    plan = _plans.PLANS.find(key)
    if plan is not None:  # an earlier call on a like array checked these arguments
        return plan(x)
    variant = _checks.check_choice(variant, VARIANTS, func=func, arg="variant",
                                   auto="production")
    inp, arr, rt = _input(x, op, dtype, variant, func)
    if arr.size == 0:
        if op != "sum":
            name = "minimum" if op == "min" else "maximum"
            raise ValueError(
                f"zero-size array to reduction operation {name} which has no identity"
            )
        return inp.scalar(inp.backend.xp.zeros(1, dtype=rt.res))
    if variant == "production":
        plan = _rp.production_plan(inp.backend, rt, op, arr.size)
        if arr is x:  # read as it is: later calls on like arrays take the plan directly
            _plans.PLANS.file(key, plan)
        return inp.scalar(plan.run(arr))
    return inp.scalar(_rp.run(arr, rt, op, variant, inp.backend))


def _bound(op):
    """The plan maker of ``sum`` (``op`` "sum") or ``min``/``max``, with their signatures."""
    if op == "sum":
        def make(x, axis=None, dtype=None, out=None, keepdims=False, *, variant="auto"):
            return _make_plan(x, op, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                              variant=variant, func=op)
    else:
        def make(x, axis=None, out=None, keepdims=False, *, variant="auto"):
            return _make_plan(x, op, axis=axis, out=out, keepdims=keepdims, variant=variant,
                              func=op)
    return make


@_plans.planned(_bound("sum"))
def sum(x, axis=None, dtype=None, out=None, keepdims=False, *,  # noqa: A001 - numpy.sum
        variant="auto"):
    """Sum of the elements over ``axis`` (all by default), as :func:`numpy.sum`; see
    :func:`reduce`."""
    if axis is not None or out is not None or keepdims:
        return _general(x, "sum", axis, dtype, out, keepdims, variant, "sum")
    return _reduce(x, "sum", dtype, variant, "sum")


@_plans.planned(_bound("min"))
def min(x, axis=None, out=None, keepdims=False, *, variant="auto"):  # noqa: A001 - numpy.min
    """Minimum over ``axis`` (all by default; NaN propagates), as :func:`numpy.min`; see
    :func:`reduce`."""
    if axis is not None or out is not None or keepdims:
        return _general(x, "min", axis, None, out, keepdims, variant, "min")
    return _reduce(x, "min", None, variant, "min")


@_plans.planned(_bound("max"))
def max(x, axis=None, out=None, keepdims=False, *, variant="auto"):  # noqa: A001 - numpy.max
    """Maximum over ``axis`` (all by default; NaN propagates), as :func:`numpy.max`; see
    :func:`reduce`."""
    if axis is not None or out is not None or keepdims:
        return _general(x, "max", axis, None, out, keepdims, variant, "max")
    return _reduce(x, "max", None, variant, "max")

"""Reduction family's public functions: checks, then the plans of :mod:`._plans`."""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np

from .._core import checks as _checks, dtypes as _dtypes, plans as _plans
from . import _axis, _plans as _rp
from ._plans import COMPLEX_OPS, OPS, VARIANTS

__all__ = ["reduce", "sum", "prod", "min", "max", "VARIANTS", "OPS"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _make_plan(
    x, op="sum", *, axis=None, dtype=None, out=None, keepdims=False, variant="auto", func="reduce"
):
    """What ``prim.plan(prim.reduce, x, op, ...)`` runs for arrays like ``x``; ``func``: the
    public function the errors name."""
    if axis is not None or out is not None or keepdims:
        _general(x, op, axis, dtype, None, keepdims, variant, func)  # checks the arguments
        return lambda y: _general(y, op, axis, dtype, out, keepdims, variant, func)
    variant = _checks.check_choice(variant, VARIANTS, func=func, arg="variant", auto="production")
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
    acc_dt = _result_dtype(arr.dtype, op, dtype, variant, func)
    arr = _real_part(arr, acc_dt, inp.backend)
    return inp, arr, _rp.route(arr.dtype, acc_dt, op, variant)


def _allowed(op):
    return _dtypes.REDUCE_COMPLEX_DTYPES if op in COMPLEX_OPS else _dtypes.REDUCE_DTYPES


def _check_x(dt, op, func):
    """TypeError naming ``func`` for an input dtype ``op`` has no kernel for."""
    allowed = _allowed(op)
    if dt in allowed:
        return
    if dt.kind == "c" and dt in _dtypes.REDUCE_COMPLEX_DTYPES:
        raise TypeError(
            f"{func}: x has dtype {dt}; complex numbers have no order here (NumPy "
            f"orders them lexicographically), so {op} takes "
            f"{_dtypes.names(allowed)}"
        )
    raise TypeError(f"{func}: x has dtype {dt}; supported dtypes are {_dtypes.names(allowed)}")


def _result_dtype(in_dt, op, dtype, variant, func):
    """The checked result dtype of ``op`` over ``in_dt`` (NumPy's, or ``dtype=``): TypeError
    for an unsupported input or ``dtype``, ValueError for a complex reduction on a ``variant``
    without complex kernels (the ladder and zeta)."""
    _check_x(in_dt, op, func)
    if dtype is None:
        acc_dt = _dtypes.reduce_result_dtype(in_dt, op)
    else:
        acc_dt = _dtypes.resolve_dtype(_checks.native_dtype(dtype), func=func, allowed=_allowed(op))
    if acc_dt.kind == "c" and variant not in ("production", "auto"):
        raise ValueError(
            f"{func}: variant={variant!r} has no complex kernels; a {acc_dt} "
            f"{op} runs on variant='production' (or 'auto')"
        )
    return acc_dt


def _real_part(arr, acc_dt, backend):
    """``arr`` itself, or its real part for complex input into a real ``acc_dt`` (NumPy's cast,
    with its ComplexWarning)."""
    if arr.dtype.kind != "c" or acc_dt.kind == "c":
        return arr
    frame, level = sys._getframe(0), 1  # the warning points at the first caller outside
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):  # the package
        frame, level = frame.f_back, level + 1
    warnings.warn(
        "Casting complex values to real discards the imaginary part",
        np.exceptions.ComplexWarning,
        stacklevel=level,
    )
    return backend.xp.ascontiguousarray(arr.real)


@_plans.planned(_make_plan)
def reduce(x, op="sum", *, axis=None, dtype=None, out=None, keepdims=False, variant="auto"):
    """Reduce all elements of ``x`` with ``op``.

    Args:
        x: array of bool, int8, uint8, int16, uint16, int32, int64, uint32, uint64, float16,
            float32 or float64, and for ``"sum"``/``"prod"`` complex64 or complex128 (CuPy,
            NumPy, or anything with ``__cuda_array_interface__`` / DLPack). Any ndim: the
            array is flattened (``axis=None``).
            Host arrays of non-native byte order are converted to native order on the host.
        op: ``"sum"``, ``"prod"``, ``"min"`` or ``"max"``.
        axis: None (every element), an int or a tuple of ints (negative counting from the end):
            the axes reduced, as NumPy's ``axis``.
        out: an array of the result's shape (``keepdims`` included) that receives the result
            and is returned. As NumPy, without ``dtype`` the reduction runs in the promotion of
            ``out``'s dtype and ``x``'s (uint64 summed into a float64 ``out`` adds in float64;
            int32 into an int32 ``out`` wraps at 32 bits), and the result is cast to ``out``'s
            dtype whatever it is (``casting="unsafe"``). ``min``/``max`` start, as NumPy's, from
            the first element cast to ``out``'s dtype (``max`` of int8 [-1, 1] into uint8 is
            255).
        keepdims: keep the reduced axes as axes of length 1.
        dtype: result dtype. Default as NumPy: ``sum`` and ``prod`` widen bool and signed
            integers below 64 bits to int64, unsigned ones to uint64 (float16 stays float16,
            accumulated in float32; complex stays complex); ``min``/``max`` keep the input
            dtype. A ``dtype`` without a native kernel for the input converts the input first
            (one extra pass), as NumPy casts to it; complex input into a real ``dtype`` keeps the
            real part, with NumPy's ``ComplexWarning``.
        variant: one of ``primitives.reduction.VARIANTS`` (``"alpha"`` ... ``"zeta"``,
            ``"production"``) or ``"auto"`` (= ``"production"``). Complex reductions run on
            ``"production"`` only.

    Returns:
        A 0-d device array for device input (like ``cupy.sum``), a NumPy scalar for host input
        (like ``numpy.sum``), in native byte order; with ``axis`` an array of the kept axes
        (``keepdims``: all axes), with ``out`` that array.

    Raises:
        TypeError: ``x`` is not an array, or its dtype (str, object, datetime64, ...) or
            ``dtype`` is unsupported; ``min``/``max`` of complex input (NumPy orders complex
            numbers lexicographically; this library does not order them).
        ValueError: unknown ``op`` or ``variant``; a complex reduction on a variant other than
            ``"production"``/``"auto"``; ``min``/``max`` of an empty array or over
            an axis of length 0 (NumPy's error: no identity); an axis out of range
            (``numpy.exceptions.AxisError``) or repeated; ``out`` of another shape.

    Integer sums and products wrap around on overflow, as NumPy's do (see :func:`prod`).
    ``min``/``max`` propagate NaN as ``numpy.min``/``numpy.max``. Float sums accumulate in the
    result dtype in a tree; the error is bounded by the tree depth (see the docs). Device input: no
    host synchronization. Host input: one copy in and one out. The production kernel reads narrow
    dtypes in place, 16 bytes per load; the teaching variants (alpha ... zeta) convert them to
    their accumulator dtype first. Complex sums and products accumulate in the input's complex
    dtype (the production kernel reads 2 complex64 or 1 complex128 per 16-byte load); a complex sum
    over axes is the float sum of the real and imaginary parts.

    See Also:
        :func:`numpy.sum`, :func:`numpy.prod`, :func:`numpy.min`, :func:`numpy.max`,
        :func:`cupy.sum`.
    """
    if axis is not None or out is not None or keepdims:
        return _general(x, op, axis, dtype, out, keepdims, variant, "reduce")
    return _reduce(x, op, dtype, variant, "reduce")


def _general(x, op, axis, dtype, out, keepdims, variant, func):
    """A reduction with NumPy's ``axis``, ``out`` and ``keepdims``: over every axis the
    flattened reduction (then shaped), over some axes :func:`~._axis.reduce_axis`."""
    key = (
        None
        if out is not None
        else _plans.call_key("reduce/axes", (x,), (op, axis, dtype, keepdims, variant, func))
    )
    replay = _plans.PLANS.find(key) if key is not None else None
    if replay is not None:  # an earlier call on a like array checked these arguments
        return replay(x)
    variant = _checks.check_choice(variant, VARIANTS, func=func, arg="variant", auto="production")
    _checks.check_choice(op, OPS, func=func, arg="op")
    inp = _checks.as_input(x, func=func, arg="x", keep_f=True)  # F order is read in place
    arr = inp.array
    _check_x(arr.dtype, op, func)
    axes = _axis.normalize_axis(axis, arr.ndim, func)
    if out is not None:  # before any launch
        _axis.check_out(out, _axis.result_shape(arr.shape, axes, keepdims), None, func)
        arr, dtype = _into_out(arr, op, dtype, out, axes)
    if len(axes) == arr.ndim:  # every axis: the flattened reduction
        # the backend array in, a backend 0-d value out: finish() returns it as the caller's
        flat = arr.T if not arr.flags.c_contiguous else arr  # F order: the same elements, C
        res = inp.backend.xp.asarray(_reduce(flat, op, dtype, variant, func)).reshape(())
        return _axis.finish(res, inp, arr.shape, axes, keepdims, out, func)
    acc_dt = _result_dtype(arr.dtype, op, dtype, variant, func)
    arr = _real_part(arr, acc_dt, inp.backend)
    if acc_dt.kind == "c":
        res = _complex_axis(arr, axes, op, acc_dt, inp.backend, func)
    else:
        res, replay = _axis.reduce_axis_replay(arr, axes, op, acc_dt, inp.backend, func)
        if replay is not None and key is not None and _checks.is_itself(arr, x):  # as it is
            # the replay's result has the kept axes' shape: reshaped only for keepdims (a CuPy
            # view costs a repeat call about a microsecond of host time)
            _plans.PLANS.file(
                key,
                replay
                if not keepdims
                else _axis.Shaped(replay, _axis.result_shape(arr.shape, axes, True)),
            )
    return _axis.finish(res, inp, arr.shape, axes, keepdims, out, func)


def _into_out(arr, op, dtype, out, axes):
    """NumPy's reduction into an ``out`` of another dtype: ``(arr, dtype)``, what to reduce.

    The reduction runs in ``dtype``, or without one in the promotion of ``out``'s dtype and the
    input's (``numpy.sum`` of uint64 into a float64 ``out`` adds in float64, of int32 into an
    int32 one wraps at 32 bits), and the result is cast to ``out``'s dtype. A ``sum``/``prod``
    starts from its identity. A ``min``/``max`` starts from the element at index 0 of the reduced
    axes cast to ``out``'s dtype, and combines the others with it: for an input that does not
    cast safely to ``out``'s dtype that start may differ from the element (``numpy.min`` of int8
    [-3, 0] into bool is False, of [0, -3] True), so those elements are replaced by their value
    through ``out``'s dtype, in a copy of the input in the reduction's dtype."""
    odt = np.dtype(out.dtype)
    if odt not in _allowed(op):  # no kernel in out's dtype: the natural result, cast to it
        return arr, dtype
    loop = (
        np.result_type(odt, arr.dtype) if dtype is None else np.dtype(_checks.native_dtype(dtype))
    )
    if op in ("sum", "prod") or arr.size == 0 or np.can_cast(arr.dtype, odt, "safe"):
        return arr, loop
    first = tuple(0 if a in axes else slice(None) for a in range(arr.ndim))
    arr = arr.astype(loop)  # a copy, in the input's layout
    arr[first] = arr[first].astype(odt).astype(loop)
    return arr, loop


def _complex_axis(arr, axes, op, acc_dt, backend, func):
    """A complex sum or product over ``axes``, shaped as the kept axes. A sum is the float sum
    of the parts: the array viewed as floats with a last axis of 2, kept, through
    :func:`~._axis.reduce_axis`. A product (whose parts do not reduce apart) moves the reduced
    axes last (one copy, none when they already are the last axes of a C-ordered array) and
    reduces each row in one block of ``reduce_rows``."""
    xp = backend.xp
    if arr.dtype != acc_dt:
        arr = arr.astype(acc_dt)  # NumPy casts the elements to the result's dtype
    if op == "sum":
        part = np.dtype(acc_dt.char.lower())  # complex64 -> float32, complex128 -> float64
        parts = xp.ascontiguousarray(arr).view(part).reshape(arr.shape + (2,))
        res = _axis.reduce_axis(parts, axes, "sum", part, backend, func)
        return xp.ascontiguousarray(res).view(acc_dt).reshape(res.shape[:-1])
    kept = [a for a in range(arr.ndim) if a not in axes]
    out_shape = tuple(arr.shape[a] for a in kept)
    width = int(np.prod([arr.shape[a] for a in axes], dtype=np.int64))
    rows = int(np.prod(out_shape, dtype=np.int64))
    if width == 0 or rows == 0:
        return xp.ones(out_shape, dtype=acc_dt)
    lines = xp.ascontiguousarray(xp.transpose(arr, kept + list(axes))).reshape(-1)
    lines = _rp.Route(((), acc_dt, acc_dt, acc_dt, acc_dt)).prepare(lines)  # aligned
    return _rp.rows_plan(backend, acc_dt, op, rows, width).run(lines).reshape(out_shape)


def _reduce(x, op, dtype, variant, func):
    """:func:`reduce`, its errors naming ``func`` (the public function the user called)."""
    key = _plans.call_key("reduce", (x,), (op, dtype, variant))
    plan = _plans.PLANS.find(key)
    if plan is not None:  # an earlier call on a like array checked these arguments
        return plan(x)
    variant = _checks.check_choice(variant, VARIANTS, func=func, arg="variant", auto="production")
    inp, arr, rt = _input(x, op, dtype, variant, func)
    if arr.size == 0:
        if op in ("min", "max"):
            name = "minimum" if op == "min" else "maximum"
            raise ValueError(
                f"{func}: zero-size array to reduction operation {name} which has no identity"
            )
        fill = inp.backend.xp.ones if op == "prod" else inp.backend.xp.zeros
        return inp.scalar(fill(1, dtype=rt.res))
    if variant == "production":
        plan = _rp.production_plan(inp.backend, rt, op, arr.size)
        if arr is x:  # read as it is: later calls on like arrays take the plan directly
            _plans.PLANS.file(key, plan)
        return inp.scalar(plan.run(arr))
    return inp.scalar(_rp.run(arr, rt, op, variant, inp.backend))


def _bound(op):
    """The plan maker of ``sum``/``prod`` or ``min``/``max``, with their signatures."""
    if op in ("sum", "prod"):

        def make(x, axis=None, dtype=None, out=None, keepdims=False, *, variant="auto"):
            return _make_plan(
                x, op, axis=axis, dtype=dtype, out=out, keepdims=keepdims, variant=variant, func=op
            )
    else:

        def make(x, axis=None, out=None, keepdims=False, *, variant="auto"):
            return _make_plan(
                x, op, axis=axis, out=out, keepdims=keepdims, variant=variant, func=op
            )

    return make


@_plans.planned(_bound("sum"))
def sum(  # noqa: A001 - NumPy's name
    x, axis=None, dtype=None, out=None, keepdims=False, *, variant="auto"
):
    """Sum of the elements over ``axis`` (all by default), as :func:`numpy.sum`; see
    :func:`reduce`. Complex input (complex64, complex128) sums to its own dtype."""
    if axis is not None or out is not None or keepdims:
        return _general(x, "sum", axis, dtype, out, keepdims, variant, "sum")
    return _reduce(x, "sum", dtype, variant, "sum")


@_plans.planned(_bound("prod"))
def prod(x, axis=None, dtype=None, out=None, keepdims=False, *, variant="auto"):
    """Product of the elements over ``axis`` (all by default), as :func:`numpy.prod`.

    Args:
        x: array of bool, int8, uint8, int16, uint16, int32, int64, uint32, uint64, float16,
            float32, float64, complex64 or complex128 (CuPy, NumPy, or anything with
            ``__cuda_array_interface__`` / DLPack), any ndim.
        axis: None (every element), an int or a tuple of ints, as NumPy's ``axis``.
        dtype: result dtype. Default as NumPy: bool and signed integers below 64 bits give
            int64, unsigned ones uint64; float16 stays float16 (multiplied in float32); float
            and complex dtypes stay. Another ``dtype`` casts the elements to it first (one
            extra pass), as NumPy does; complex input into a real ``dtype`` keeps the real part
            with NumPy's ``ComplexWarning``.
        out: an array of the result's shape that receives the result and is returned; the
            product runs in ``dtype``, or without it in the promotion of ``out``'s dtype and
            ``x``'s, and is cast to ``out``'s dtype, as NumPy's (see :func:`reduce`).
        keepdims: keep the reduced axes as axes of length 1.
        variant: one of ``primitives.reduction.VARIANTS`` or ``"auto"`` (= ``"production"``).
            Every variant multiplies real dtypes; complex products run on ``"production"`` only.

    Returns:
        A 0-d device array for device input, a NumPy scalar for host input; with ``axis`` an
        array of the kept axes (``keepdims``: all axes), with ``out`` that array. The product
        of nothing is 1.

    Raises:
        TypeError: ``x`` is not an array, or its dtype (str, object, datetime64, ...) or
            ``dtype`` is unsupported.
        ValueError: unknown ``variant``; a complex product on a variant other than
            ``"production"``/``"auto"``; an axis out of range (``numpy.exceptions.AxisError``)
            or repeated; ``out`` of another shape.

    Integer products wrap around on overflow, as NumPy's do (exact modulo 2^64, so in any
    width). Float products multiply in a tree, not left to right as NumPy: the roundings differ
    (one relative rounding per multiplication either way), and NaN and infinities propagate as
    IEEE multiplication does. The production kernel reads narrow integers in place, 16 bytes
    per load, multiplying each packet in 64 bits. Over axes, products run one block per result
    element on the reduced axes moved last (one copy unless they already are the last axes).

    See Also:
        :func:`numpy.prod`, :func:`cupy.prod`.
    """
    if axis is not None or out is not None or keepdims:
        return _general(x, "prod", axis, dtype, out, keepdims, variant, "prod")
    return _reduce(x, "prod", dtype, variant, "prod")


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

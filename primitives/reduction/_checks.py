"""The reductions' argument checks and normalizations, in NumPy's (and CuPy's) order and before
anything is launched, their errors naming the public function; and the result returned as NumPy
returns it (:func:`finish`).

:func:`check_dtype`, :func:`check_arg_dtype` and :func:`normalize_axis` are building blocks of
the Dask layer too (exported by the package).
"""

from __future__ import annotations


import numpy as np

from .._core import checks as _checks, dtypes as _dtypes, ops as _ops
from . import _choose
from ._kernels import ARG_DTYPES, OPS

__all__ = ["check_dtype", "check_arg_dtype", "normalize_axis", "result_shape", "finish"]

_INTP = np.dtype(np.intp)


# ---- reduce, sum, prod, min, max ----------------------------------------------------------------


def allowed(op, ordered_complex=True):
    """The input (and ``dtype=``) dtypes of ``op``: complex for every op (min/max order complex
    numbers as NumPy) unless ``ordered_complex`` is False (the Dask layer, whose min/max combine
    their chunks' results apart)."""
    if isinstance(op, _ops.Op):  # the input, cast to one of its accumulator dtypes
        return _dtypes.REDUCE_DTYPES
    if op in ("sum", "prod") or ordered_complex:
        return _dtypes.REDUCE_COMPLEX_DTYPES
    return _dtypes.REDUCE_DTYPES


def check_dtype(dt, op, func, ordered_complex=False):
    """TypeError naming ``func`` for an input dtype ``op`` does not take (``ordered_complex``:
    complex min/max taken, as the reductions here take them)."""
    ok = allowed(op, ordered_complex)
    if dt in ok:
        return
    if dt.kind == "c" and dt in _dtypes.REDUCE_COMPLEX_DTYPES:
        raise TypeError(
            f"{func}: x has dtype {dt}; complex numbers have no order here (NumPy "
            f"orders them lexicographically), so {op} takes "
            f"{_dtypes.names(ok)}"
        )
    raise TypeError(f"{func}: x has dtype {dt}; supported dtypes are {_dtypes.names(ok)}")


def check_op(op, func):
    """ValueError naming ``func`` for an ``op`` that is no named operator nor a user
    :class:`~primitives.Op`."""
    if not isinstance(op, _ops.Op):
        _checks.check_choice(op, OPS, func=func, arg="op")


def result_dtype(in_dt, op, dtype, variant, func):
    """The checked result dtype of ``op`` over ``in_dt`` (NumPy's, or ``dtype=``): TypeError
    for an unsupported input or ``dtype``, ValueError for a complex reduction on a ``variant``
    without complex kernels (the ladder and zeta)."""
    check_dtype(in_dt, op, func, ordered_complex=True)
    if isinstance(op, _ops.Op):  # the input's dtype, or dtype=: the elements cast to it
        return _ops.accumulator(op, in_dt, dtype, func)
    if dtype is None:
        acc_dt = _dtypes.reduce_result_dtype(in_dt, op)
    else:
        acc_dt = _dtypes.resolve_dtype(_checks.native_dtype(dtype), func=func, allowed=allowed(op))
    _choose.refuse_complex(acc_dt, op, variant, func)
    return acc_dt


def real_part(arr, acc_dt, backend):
    """``arr`` itself, or for complex input into a real ``acc_dt`` its elements as NumPy casts
    them: into bool whether each is nonzero (either part), into another dtype the real part with
    NumPy's ComplexWarning."""
    if arr.dtype.kind != "c" or acc_dt.kind == "c":
        return arr
    if acc_dt == np.bool_:
        return backend.xp.ascontiguousarray(arr != 0)
    _checks.warn_caller(
        "Casting complex values to real discards the imaginary part", np.exceptions.ComplexWarning
    )
    return backend.xp.ascontiguousarray(arr.real)


def flat_input(x, op, dtype, variant, func):
    """Checks in CuPy's order (op, array, dtype, ``dtype=``), before anything is launched.

    Returns ``(inp, arr, acc_dt)``: the contiguous flattened backend array (complex input into a
    real dtype as :func:`real_part` casts it) and the result's dtype (NumPy's: ``sum`` widens bool and
    integers below 64 bits; ``dtype=`` overrides)."""
    check_op(op, func)
    inp = _checks.as_input(x, func=func, arg="x", flatten=True)
    acc_dt = result_dtype(inp.array.dtype, op, dtype, variant, func)
    return inp, real_part(inp.array, acc_dt, inp.backend), acc_dt


def every(where):
    """Whether ``where`` is NumPy's default, the object True (every element, no mask to read;
    NumPy, which asks ``where is True``, reads anything else as a mask: ``numpy.True_`` too, so
    that min/max want ``initial`` with it)."""
    return where is True


def where_mask(where, shape, backend, func):
    """``where`` (a bool array or anything ``numpy.asarray`` makes one of) as a bool backend
    array broadcast to ``shape``, or None for True. NumPy's errors: a ``TypeError`` for an array
    of another dtype (no 'safe' cast to bool), a ``ValueError`` for a shape that does not
    broadcast to ``shape`` (the mask broadcasts against ``x``, never ``x`` against it)."""
    if every(where):
        return None
    if not hasattr(where, "dtype") and not hasattr(where, "__dlpack__"):
        try:
            where = np.asarray(where, dtype=np.bool_)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{func}: where: {exc}") from exc
    w = _checks.as_input(where, func=func, arg="where", keep_f=True).array
    if w.dtype != np.bool_:
        raise TypeError(
            f"{func}: where must be a bool array; cannot cast {w.dtype} to bool according to "
            "the rule 'safe'"
        )
    try:
        return backend.xp.broadcast_to(w, shape)
    except ValueError as exc:
        raise ValueError(
            f"{func}: where of shape {tuple(w.shape)} does not broadcast to x's shape "
            f"{tuple(shape)}"
        ) from exc


def neutral(op, dt):
    """What a masked-out element of dtype ``dt`` reads as for ``op``: the identity of sum and
    prod, and for min/max the extreme of ``dt`` that loses every comparison (inf, the integer
    limits, True/False; complex: both parts infinite), ``initial`` then giving the result over
    nothing; a user operator's identity."""
    if isinstance(op, _ops.Op):
        return op.identity_of(dt)
    if op == "sum":
        return dt.type(0)
    if op == "prod":
        return dt.type(1)
    low = op == "max"
    if dt.kind == "b":
        return dt.type(not low)
    if dt.kind == "c":
        inf = -np.inf if low else np.inf
        return dt.type(complex(inf, inf))
    if _dtypes.is_float(dt):
        return dt.type(-np.inf if low else np.inf)
    info = np.iinfo(dt)
    return dt.type(info.min if low else info.max)


def initial_value(initial, dt, func):
    """``initial`` as a 0-d array of the reduction's dtype ``dt``, with NumPy's conversion and
    its errors (an integer out of range: OverflowError; a complex into a real dtype: TypeError;
    a sequence: ValueError), naming ``func``."""
    if np.ndim(initial):
        raise ValueError(
            f"{func}: initial must be a scalar: setting an array element with a sequence."
        )
    try:
        return np.asarray(initial, dtype=dt).reshape(())
    except (TypeError, ValueError, OverflowError) as exc:
        raise type(exc)(f"{func}: initial={initial!r}: {exc}") from exc


def empty_value(op, dt, func):
    """The result of ``op`` over no elements, of ``dt``: its identity (a user operator's own),
    or NumPy's error for ``min``/``max``."""
    if isinstance(op, _ops.Op):
        return op.identity_of(dt)
    if op in ("min", "max"):
        raise empty_error(op, func)
    return np.dtype(dt).type(1 if op == "prod" else 0)


def empty_error(op, func):
    """NumPy's error for a ``min``/``max`` over nothing (no identity)."""
    name = "minimum" if op == "min" else "maximum"
    return ValueError(
        f"{func}: zero-size array to reduction operation {name} which has no identity"
    )


def into_out(arr, op, dtype, out, axes, initial=False):
    """NumPy's reduction into an ``out`` of another dtype: ``(arr, dtype)``, what to reduce.

    The reduction runs in ``dtype``, or without one in the promotion of ``out``'s dtype and the
    input's (``numpy.sum`` of uint64 into a float64 ``out`` adds in float64, of int32 into an
    int32 one wraps at 32 bits), and the result is cast to ``out``'s dtype. A ``sum``/``prod``
    starts from its identity. A ``min``/``max`` starts from the element at index 0 of the reduced
    axes cast to ``out``'s dtype, and combines the others with it: for an input that does not
    cast safely to ``out``'s dtype that start may differ from the element (``numpy.min`` of int8
    [-3, 0] into bool is False, of [0, -3] True), so those elements are replaced by their value
    through ``out``'s dtype, in a copy of the input in the reduction's dtype. With an
    ``initial`` (true: one is given) the reduction starts from it instead, and every element
    is combined as it is."""
    odt = np.dtype(out.dtype)
    if isinstance(op, _ops.Op) or odt not in allowed(op):
        return arr, dtype  # no kernel in out's dtype: the natural result, cast to it
    loop = (
        np.result_type(odt, arr.dtype) if dtype is None else np.dtype(_checks.native_dtype(dtype))
    )
    if op in ("sum", "prod") or initial or arr.size == 0 or np.can_cast(arr.dtype, odt, "safe"):
        return arr, loop
    first = tuple(0 if a in axes else slice(None) for a in range(arr.ndim))
    arr = arr.astype(loop)  # a copy, in the input's layout
    arr[first] = arr[first].astype(odt).astype(loop)
    return arr, loop


def normalize_axis(axis, ndim, func, scalar_int=True):
    """``axis`` (None, an int or a tuple of ints, negative counting from the end) as a sorted
    tuple of distinct axes in ``[0, ndim)``; NumPy's errors (AxisError, a repeated axis).

    A 0-d array has no axes: a tuple naming any is an AxisError, as in NumPy. ``scalar_int``:
    the integer 0 or -1 is taken as no axis there, as NumPy's ufunc reductions (``sum``, ``max``,
    ``any``, ...) take it; ``numpy.mean`` does not (``scalar_int=False``)."""
    if axis is None:
        return tuple(range(ndim))
    if ndim == 0 and scalar_int and not isinstance(axis, tuple):
        _checks.axis_index(axis, ndim, func, "an integer, a tuple of integers or None")
        return ()
    items = axis if isinstance(axis, tuple) else (axis,)
    out = [  # every axis checked first, then the repeats: NumPy's order of its errors
        _checks.axis_index(
            a, ndim, func, "an integer, a tuple of integers or None", scalar=ndim == 0
        )
        for a in items
    ]
    if len(set(out)) != len(out):
        raise ValueError(f"{func}: duplicate value in 'axis'")
    return tuple(sorted(out))


def result_shape(shape, axes, keepdims):
    """The shape of a reduction of an array of ``shape`` over ``axes``: the kept axes, and with
    ``keepdims`` the reduced ones as 1s."""
    return tuple(1 if a in axes else d for a, d in enumerate(shape) if keepdims or a not in axes)


def finish(res, inp, shape, axes, keepdims, out, func):
    """The result as NumPy returns it: ``keepdims`` restores the reduced ``axes`` of the input's
    ``shape`` as 1s; ``out`` (an array of the result's shape) receives it, cast to its dtype,
    and is returned; otherwise a scalar for a full reduction (a NumPy
    scalar for a host array, a 0-d device array for a device one), an array of the caller's
    kind otherwise."""
    if keepdims:
        res = res.reshape(result_shape(shape, axes, True))
    if out is not None:
        return _checks.write_out(out, res, func)
    if res.ndim == 0:
        return inp.scalar(res.reshape(1))
    return inp.result(
        laid_out(res, inp.axis_order(len(shape)), shape, axes, keepdims, inp.backend.xp)
    )


def laid_out(res, order, shape, axes, keepdims, xp):
    """``res`` (the result of a reduction of an array of ``shape`` over ``axes``) in NumPy's
    layout: allocated with the kept axes (``keepdims``: every axis) in the input's memory order
    ``order`` (slowest first; NumPy's order ``"K"``), so that a reduction of an F-ordered array
    is F-ordered. ``res`` itself when its strides already are those (on its axes longer than 1),
    else a copy."""
    full = result_shape(shape, axes, True)
    want, step = [0] * len(full), res.dtype.itemsize
    for a in reversed(order):
        want[a], step = step, step * full[a]
    if not keepdims:
        want = [w for a, w in enumerate(want) if a not in axes]
    if all(d == 1 or s == w for d, s, w in zip(res.shape, res.strides, want)):
        return res
    t = xp.empty(tuple(full[a] for a in order), dtype=res.dtype).transpose(np.argsort(order))
    if not keepdims:
        t = t[tuple(0 if a in axes else slice(None) for a in range(len(full)))]
    t[...] = res
    return t


# ---- mean, any, all -----------------------------------------------------------------------------


def backend_input(x, func, ok=_dtypes.REDUCE_DTYPES):
    """``x`` on the backend, F order kept (read in place), of one of the dtypes ``ok``."""
    inp = _checks.as_input(x, func=func, arg="x", keep_f=True)
    if inp.array.dtype not in ok:
        raise TypeError(
            f"{func}: x has dtype {inp.array.dtype}; supported dtypes are {_dtypes.names(ok)}"
        )
    return inp


def mean_dtypes(in_dt, dtype, func):
    """``(acc, res)``: the dtype mean sums in (NumPy's: float64 for bool and integers, float32
    for float16 and bfloat16, the input's float or complex dtype otherwise, or ``dtype``) and its
    result's."""
    if dtype is None:
        if in_dt.kind in "biu":
            return np.dtype(np.float64), np.dtype(np.float64)
        if _dtypes.is_float16(in_dt):
            return np.dtype(np.float32), in_dt
        return in_dt, in_dt
    acc = _dtypes.resolve_dtype(
        _checks.native_dtype(dtype), func=func, allowed=_dtypes.REDUCE_COMPLEX_DTYPES
    )
    return acc, acc


# ---- argmin, argmax -----------------------------------------------------------------------------


def check_arg_dtype(dt, func):
    """TypeError naming ``func`` for an input dtype argmin/argmax have no kernel for."""
    if dt not in ARG_DTYPES:
        extra = " (complex numbers have no order here)" if dt.kind == "c" else ""
        raise TypeError(
            f"{func}: x has dtype {dt}{extra}; supported dtypes are "
            f"{', '.join(d.name for d in ARG_DTYPES)}"
        )


def arg_keepdims(keepdims, func):
    if not isinstance(keepdims, (bool, np.bool_, int, np.integer)):
        raise TypeError(f"{func}: keepdims must be a bool, got {type(keepdims).__name__}")
    return bool(keepdims)


def arg_axis(axis, ndim, func):
    """``axis`` (None or one int: NumPy takes no tuple here) as an index, or None."""
    return None if axis is None else _checks.axis_index(axis, ndim, func)


def arg_out(out, shape, func):
    """NumPy's checks of ``out`` (:func:`~primitives._core.checks.check_out`), and its dtype:
    one int64 casts to safely the other way round (NumPy's rule: int32 passes, uint64 and
    floats do not)."""
    _checks.check_out(out, shape, func)
    if not np.can_cast(out.dtype, _INTP, "safe"):
        raise TypeError(
            f"{func}: cannot cast out's dtype {out.dtype} to int64 according to the rule 'safe'"
        )


def arg_empty(func):
    """NumPy's error for argmin/argmax over no elements, led by the function's name."""
    return ValueError(f"{func}: attempt to get {func} of an empty sequence")

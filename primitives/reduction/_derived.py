"""mean, any and all: NumPy's functions on the production reductions.

``mean`` is :func:`~primitives.sum` in NumPy's accumulator dtype (float64 for bool and integers,
float32 for float16, the input's otherwise) divided by the count; ``any`` and ``all`` are the
``max`` and ``min`` of the elements as booleans (``x != 0``; a bool array is read as it is).
They take ``axis``, ``keepdims`` and ``out`` as the reductions do.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._core import checks as _checks
from .._core import dtypes as _dtypes
from .._core import plans as _plans
from . import _axis
from . import _plans as _gp
from ._api import max as _max
from ._api import min as _min
from ._api import sum as _sum

__all__ = ["mean", "any", "all"]


def _backend_input(x, func, allowed=_dtypes.REDUCE_DTYPES):
    inp = _checks.as_input(x, func=func, arg="x", keep_f=True)  # F order is read in place
    if inp.array.dtype not in allowed:
        raise TypeError(
            f"{func}: x has dtype {inp.array.dtype}; supported dtypes are {_dtypes.names(allowed)}"
        )
    return inp


def _make_mean(x, axis=None, dtype=None, out=None, keepdims=False):
    _backend_input(x, "mean", _dtypes.REDUCE_COMPLEX_DTYPES)
    return lambda y: mean(y, axis, dtype, out, keepdims)


@_plans.planned(_make_mean)
def mean(x, axis=None, dtype=None, out=None, keepdims=False):
    """Arithmetic mean over ``axis`` (all elements by default), as :func:`numpy.mean`.

    The sum runs in NumPy's accumulator dtype: float64 for bool and integer input, float32 for
    float16 (the result float16), the input's own float or complex dtype otherwise (the mean of
    complex64 is complex64), or ``dtype``; with ``out`` and no ``dtype``, float input sums in the
    promotion of its dtype and ``out``'s, and the quotient is cast to ``out``'s dtype. The sums
    are divided by the count in float64 (complex128 for complex sums), as NumPy's
    ``true_divide`` by an integer count, then cast to the result dtype: ``dtype=numpy.int8``
    sums in int8 (wrapping) and truncates the quotient. An empty reduction gives NaN with NumPy's
    ``RuntimeWarning`` ("Mean of empty slice"). ``axis`` (a 0-d array has none),
    ``keepdims``, ``out`` and the errors as :func:`~primitives.sum`.
    """
    func = "mean"
    key = None
    if axis is None and out is None and not keepdims:
        key = _plans.call_key(func, (x,), (dtype,))
        call = _plans.PLANS.find(key)
        if call is not None:  # an earlier call on a like array passed every check
            return call(x)
    inp = _backend_input(x, func, _dtypes.REDUCE_COMPLEX_DTYPES)
    arr = inp.array
    axes = _axis.normalize_axis(axis, arr.ndim, func, scalar_int=False)
    if dtype is None:
        if arr.dtype.kind in "biu":
            acc = res = np.dtype(np.float64)
        elif arr.dtype == np.float16:
            acc, res = np.dtype(np.float32), np.dtype(np.float16)
        else:
            acc = res = arr.dtype
    else:
        try:
            acc = res = np.dtype(dtype)
        except TypeError as exc:
            raise TypeError(f"{func}: dtype={dtype!r} is not a dtype") from exc
        if acc.kind not in "fc" and acc.kind not in "biu":
            raise TypeError(f"{func}: dtype={acc} is not supported")
    if out is not None:
        _axis.check_out(out, _axis.result_shape(arr.shape, axes, keepdims), res, func)
        if np.dtype(out.dtype) in _dtypes.REDUCE_COMPLEX_DTYPES:
            # NumPy sums into out (in dtype, or else in the promotion of out's and the input's)
            # and divides there: the quotient of out's dtype
            if dtype is None and arr.dtype.kind in "fc" and arr.dtype != np.float16:
                acc = np.result_type(out.dtype, arr.dtype)
            res = np.dtype(out.dtype)
    count = int(np.prod([arr.shape[a] for a in axes], dtype=np.int64))
    if count == 0:
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=2)
    xp = inp.backend.xp
    # a new backend array (C- or F-contiguous); axis None as given: the whole-array fast path
    s = xp.asarray(_sum(arr, axis=None if axis is None else axes, dtype=acc))
    if out is not None and res != acc:  # numpy.mean's sum lands in out, and is divided there
        s, acc = s.astype(res), res
    # the division as NumPy's true_divide by the count, then the cast
    r = xp.empty(s.shape, dtype=res) if s.size == 0 else _gp.mean_divide(inp.backend, s, count, res)
    if key is not None and arr is x and count:
        # later calls on like arrays: the sum's plan (filed by that call) and the division's
        summed = _plans.PLANS.find(_plans.call_key("reduce", (x,), ("sum", acc, "auto")))
        if summed is not None:
            _plans.PLANS.file(
                key, _MeanCall(summed, _gp.mean_divide_plan(inp.backend, acc, res, 1, count))
            )
    return _axis.finish(r, inp, arr.shape, axes, keepdims, out, func)


class _MeanCall(_plans.Plan):
    """mean over every element of arrays like the first one's (the repeat-call path): the
    whole-array sum's plan, then the division's, as the public function returns it."""

    def __init__(self, summed, divide):
        self.summed, self.divide = summed, divide

    def __call__(self, x):
        s = self.summed(x)  # a 0-d device array, or a NumPy scalar on the emulator
        if isinstance(s, np.generic):
            return self.divide(np.asarray(s).reshape(1))[0]
        return self.divide(s)


def _logical(x, axis, out, keepdims, func, reduce_, empty):
    inp = _backend_input(x, func)
    arr = inp.array
    axes = _axis.normalize_axis(axis, arr.ndim, func)
    shape = _axis.result_shape(arr.shape, axes, keepdims)
    if out is not None:
        _axis.check_out(out, shape, np.dtype(np.bool_), func)
    xp = inp.backend.xp
    if 0 in [arr.shape[a] for a in axes]:  # nothing reduced: False for any, True for all
        r = xp.full(_axis.result_shape(arr.shape, axes, False), empty, dtype=np.bool_)
    else:
        b = arr if arr.dtype == np.bool_ else arr.astype(np.bool_)  # x != 0 (NaN is True)
        # the backend array in, a backend one out; axis None as given (the whole-array fast path)
        r = xp.asarray(reduce_(b, axis=None if axis is None else axes))
    return _axis.finish(r, inp, arr.shape, axes, keepdims, out, func)


def _make_any(x, axis=None, out=None, keepdims=False):
    _backend_input(x, "any")
    return lambda y: any(y, axis, out, keepdims)


def _make_all(x, axis=None, out=None, keepdims=False):
    _backend_input(x, "all")
    return lambda y: all(y, axis, out, keepdims)


@_plans.planned(_make_any)
def any(x, axis=None, out=None, keepdims=False):  # noqa: A001 - numpy.any
    """Whether any element over ``axis`` is true (non-zero; NaN counts), as :func:`numpy.any`:
    the ``max`` of the elements as booleans; False over nothing."""
    return _logical(x, axis, out, keepdims, "any", _max, False)


@_plans.planned(_make_all)
def all(x, axis=None, out=None, keepdims=False):  # noqa: A001 - numpy.all
    """Whether every element over ``axis`` is true (non-zero; NaN counts), as
    :func:`numpy.all`: the ``min`` of the elements as booleans; True over nothing."""
    return _logical(x, axis, out, keepdims, "all", _min, True)

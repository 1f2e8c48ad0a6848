"""The statistics family's argument checks, in NumPy's order and before any launch, their errors
naming the public function; and the result returned as NumPy returns it (:func:`finish`)."""

from __future__ import annotations

import numpy as np

from .._core import checks as _checks, dtypes as _dtypes
from ..reduction import normalize_axis
from ._kernels import KINDS

__all__ = ["Call", "check_dtype", "inexact", "ddof_of", "finish", "float_dtype", "result_shape"]


def check_dtype(dt, ok, func):
    """TypeError naming ``func`` for an input dtype outside ``ok``."""
    if dt in ok:
        return
    raise TypeError(f"{func}: x has dtype {dt}; supported dtypes are {_dtypes.names(ok)}")


def inexact(dt):
    """Whether ``dt`` is a float or complex dtype (:class:`Call`'s ``scalar_int`` of the
    NaN-skipping statistics)."""
    return dt.kind in "fc"


def result_shape(shape, axes, keepdims):
    return tuple(1 if a in axes else d for a, d in enumerate(shape) if keepdims or a not in axes)


class Call:
    """One call's checked input: the backend array ``arr`` (C- or F-contiguous), the reduced
    ``axes``, the number of elements each result reduces (``count``), the kept shape and the
    result's shape (``keepdims`` included); ``out`` checked against it. ``scalar_int``: whether a
    0-d array takes ``axis`` 0 or -1 (NumPy's ufunc reductions do), or a function of the
    input's dtype that says so (NumPy's NaN-skipping statistics reduce float input through the
    ufuncs, other input through the plain statistic, which does not)."""

    __slots__ = ("inp", "arr", "axes", "count", "kept", "shape", "keepdims", "out", "func")

    def __init__(self, x, func, ok, axis, keepdims, out, *, scalar_int=True):
        self.func = func
        self.inp = _checks.as_input(x, func=func, arg="x", keep_f=True)
        arr = self.arr = self.inp.array
        check_dtype(arr.dtype, ok, func)
        self.keepdims = _checks.boolean(keepdims, func, "keepdims")
        if callable(scalar_int):
            scalar_int = scalar_int(arr.dtype)
        self.axes = normalize_axis(axis, arr.ndim, func, scalar_int=scalar_int)
        self.count = int(np.prod([arr.shape[a] for a in self.axes], dtype=np.int64))
        self.kept = tuple(d for a, d in enumerate(arr.shape) if a not in self.axes)
        self.shape = result_shape(arr.shape, self.axes, self.keepdims)
        if out is not None:
            _checks.check_out(out, self.shape, func)
        self.out = out

    @property
    def xp(self):
        return self.inp.backend.xp

    def finish(self, res):
        """``res`` (a backend array of the kept shape, or 0-d) as NumPy returns it."""
        return finish(res, self.inp, self.shape, self.out, self.func)


def finish(res, inp, shape, out, func):
    """The result as NumPy returns it: shaped as ``shape`` (keepdims), cast into ``out`` when
    given (returned), a scalar for a 0-d result (a NumPy scalar for a host array, a 0-d device
    array for a device one), an array of the caller's kind otherwise."""
    res = res.reshape(shape)
    if out is not None:
        return _checks.write_out(out, res, func)
    if res.ndim == 0:
        return inp.scalar(res.reshape(1))
    return inp.result(res)


def float_dtype(dtype, func, arg="dtype"):
    """``dtype`` as a NumPy dtype, TypeError naming ``func`` when it is not one or is NumPy's
    extended precision (longdouble, clongdouble), which no GPU type holds."""
    try:
        dt = np.dtype(_checks.native_dtype(dtype))
    except TypeError as exc:
        raise TypeError(f"{func}: {arg}={dtype!r} is not a dtype") from exc
    if dt.char in "gG":
        raise TypeError(
            f"{func}: {arg}={dt.name} is not supported: no GPU type holds NumPy's extended "
            "precision (use float64 or complex128)"
        )
    return dt


def ddof_of(ddof, correction, func):
    """The degrees of freedom removed: ``ddof`` or NumPy 2's ``correction`` (not both)."""
    if correction is not None:
        if ddof != 0:
            raise ValueError(f"{func}: ddof and correction can't be provided simultaneously.")
        ddof = correction
    if isinstance(ddof, (bool, np.bool_)) or not isinstance(
        ddof, (int, float, np.integer, np.floating)
    ):
        raise TypeError(f"{func}: ddof must be a real number, got {ddof!r}")
    return float(ddof)


def kinds_dtypes(kind):
    return KINDS[kind]

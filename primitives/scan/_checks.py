"""The scans' argument checks: the op, the input, the result dtype (NumPy's, or ``dtype=``), the
axis and cumsum's/cumprod's ``out``. Each error names the public function called (``func``)."""

from __future__ import annotations

import numpy as np

from .._core import checks as _checks, dtypes as _dtypes, ops as _ops
from . import _plans as _sp


def checked(x, op, dtype, func):
    """The checks of every scan after its variant's: ``(inp, arr, in_dt, res_dt)``, the flattened
    contiguous input as it is and the result dtype (NumPy's: ``sum``/``prod`` widen bool and
    integers below 64 bits; ``dtype=`` overrides)."""
    if not isinstance(op, _ops.Op):
        _checks.check_choice(op, _sp.OPS, func=func, arg="op")
    inp = _checks.as_input(x, func=func, arg="x", flatten=True)
    arr = inp.array
    in_dt = arr.dtype
    return inp, arr, in_dt, checked_result_dtype(in_dt, op, dtype, func)


def checked_result_dtype(in_dt, op, dtype, func):
    """The result dtype of a scan of ``in_dt`` with ``op`` (NumPy's: ``sum``/``prod`` widen bool
    and integers below 64 bits; ``dtype=`` overrides), after the checks of the input's and the
    result's dtypes (``func``: the public function the errors name)."""
    in_dt = np.dtype(in_dt)
    if in_dt not in _sp.DTYPES:
        raise TypeError(
            f"{func}: x has dtype {in_dt.name}; supported dtypes are {_dtypes.names(_sp.DTYPES)}"
        )
    if isinstance(op, _ops.Op):  # the input's dtype, or dtype=: the elements cast to it
        if in_dt.kind == "c":
            raise TypeError(f"{func}: x has dtype {in_dt.name}; {op!r} takes real dtypes")
        return _ops.accumulator(op, in_dt, dtype, func)
    if dtype is None:
        res_dt = _sp.result_dtype(in_dt, op)
    else:
        res_dt = _dtypes.resolve_dtype(_checks.native_dtype(dtype), func=func, allowed=_sp.DTYPES)
    if op in ("min", "max") and "c" in (in_dt.kind, res_dt.kind):
        cplx = in_dt if in_dt.kind == "c" else res_dt
        raise TypeError(
            f"{func}: op={op!r} is not defined for complex dtype {cplx.name} (no "
            f"ordering); use 'sum' or 'prod'"
        )
    if in_dt.kind == "c" and res_dt.kind != "c":
        raise TypeError(
            f"{func}: dtype={res_dt.name} would discard the imaginary part of x "
            f"({in_dt.name}); use a complex dtype"
        )
    return res_dt


def along_axis(x, axis, func):
    """Whether a scan of ``x`` runs along ``axis`` of an N-D array (True) or over the flattened
    array (False: ``axis`` None, or the only axis of a 1-D array); NumPy's errors for a bad
    ``axis``."""
    if axis is None:
        return False
    n = ndim(x)
    _checks.axis_index(axis, n, func)
    return n > 1


def ndim(x):
    """The number of dimensions of the caller's ``x``, of any kind the scans take
    (:func:`~primitives._core.checks.shape_of`)."""
    return len(_checks.shape_of(x))


def accumulation_out(func, x, axis, out):
    """NumPy's checks of cumsum's/cumprod's ``out`` (the result's shape: ``x``'s along an axis,
    1-D of its size with ``axis=None``), before any launch."""
    shape = _checks.shape_of(x)
    if axis is None or len(shape) <= 1:
        shape = (int(np.prod(shape, dtype=np.int64)),)
    _checks.check_out(out, shape, func)


def accumulation_dtype(func, x, dtype, out):
    """The dtype cumsum or cumprod scans in when it writes into ``out`` (NumPy's rule: without
    ``dtype``, the promotion of ``out``'s dtype and the input's, so that int64 sums into a
    float64 ``out`` add in float64 and never wrap). ``x``: the caller's, of any kind the scans
    take (its dtype as it will be read: a DLPack producer's or a sequence's too)."""
    if dtype is None and np.dtype(out.dtype) in _sp.DTYPES:
        in_dt = _checks.native_dtype(_checks.dtype_of(x, func, "x"))
        if in_dt in _sp.DTYPES:  # others: the scan's own error names them
            return np.result_type(np.dtype(out.dtype), in_dt)
    return dtype

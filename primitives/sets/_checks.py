"""The sets' argument checks: keys, values and options, each error naming the public function."""

from __future__ import annotations

import numpy as np

from .._core import checks as _checks, dtypes as _dtypes, ops as _ops
from . import _plans as _rp

#: the value dtypes of ``reduce_by_key``: those the scans take
VALUE_DTYPES = _dtypes.REDUCE_COMPLEX_DTYPES


def key_dtype(dt, func, arg):
    """A ``TypeError`` naming ``func`` and ``arg`` unless ``dt`` is a key dtype of the sets."""
    if dt not in _rp.KEY_SET:
        raise TypeError(
            f"{func}: {arg} has dtype {dt.name}; supported dtypes are "
            f"{_dtypes.names(_rp.KEY_DTYPES)}"
        )


#: the dtypes of ``unique``: the key dtypes and complex (in NumPy's order)
UNIQUE_DTYPES = _rp.KEY_DTYPES + _dtypes.COMPLEX
_UNIQUE_SET = frozenset(UNIQUE_DTYPES)


def unique_dtype(dt, func, arg):
    """A ``TypeError`` naming ``func`` and ``arg`` unless ``dt`` is one of :data:`UNIQUE_DTYPES`."""
    if dt not in _UNIQUE_SET:
        raise TypeError(
            f"{func}: {arg} has dtype {dt.name}; supported dtypes are "
            f"{_dtypes.names(UNIQUE_DTYPES)}"
        )


def keys(x, func, arg="keys"):
    """``x`` as a 1-D backend array (an Input) of a key dtype."""
    k = _checks.as_input(x, func=func, arg=arg, ndim=1)
    key_dtype(k.array.dtype, func, arg)
    return k


def values(values, op, n, func):
    """The values' Input and (dtype the kernel reads, its accumulator, result dtype)."""
    v = _checks.as_input(values, func=func, arg="values", ndim=1)
    dt = v.array.dtype
    if dt not in VALUE_DTYPES:
        raise TypeError(
            f"{func}: values has dtype {dt.name}; supported dtypes are "
            f"{_dtypes.names(VALUE_DTYPES)}"
        )
    if dt.kind == "c" and (op in ("min", "max") or isinstance(op, _ops.Op)):
        raise TypeError(
            f"{func}: op={op!r} is not defined for complex dtype {dt.name} (no "
            f"ordering); use 'sum' or 'prod'"
        )
    if v.array.size != n:
        raise ValueError(f"{func}: values has {v.array.size} elements, keys has {n}")
    if isinstance(op, _ops.Op):  # in the values' dtype
        _ops.check_dtype(op, dt, func)
        return v, dt, dt, dt
    res = _dtypes.reduce_result_dtype(dt, op)
    if dt in _rp.VALUE_KERNEL_DTYPES:
        work = dt
    elif _dtypes.is_float16(dt):
        work = np.dtype(np.float32)  # accumulated in float32, stored as float16 or bfloat16
    else:  # bool and the 8/16-bit integers: sums and products as NumPy's result, min/max in 32 bits
        work = res if op in ("sum", "prod") else np.dtype(np.int32)
    return v, work, _dtypes.reduce_result_dtype(work, op), res


def reduce_by_key(keys_, values_, op, sort):
    """The arguments of :func:`~primitives.reduce_by_key`: (keys Input, values Input, dtype the
    kernel reads, accumulator, result dtype, sort)."""
    func = "reduce_by_key"
    if not isinstance(op, _ops.Op):
        _checks.check_choice(op, _rp.OPS, func=func, arg="op")
    k = keys(keys_, func)
    v, work, acc, res = values(values_, op, k.array.size, func)
    return k, v, work, acc, res, _checks.boolean(sort, func, "sort")


def unique_flags(return_index, return_inverse, return_counts, equal_nan, sorted_):
    """(return_index, return_inverse, return_counts, equal_nan) as bools; ``sorted`` checked."""
    flags = [
        _checks.boolean(f, "unique", a)
        for f, a in (
            (return_index, "return_index"),
            (return_inverse, "return_inverse"),
            (return_counts, "return_counts"),
            (equal_nan, "equal_nan"),
            (sorted_, "sorted"),
        )
    ]
    return tuple(flags[:4])


def unique_input(x, axis):
    """``x`` as a backend array of a key dtype (flattened when ``axis`` is None), and ``axis``
    as an index (None when it is None; a 0-d array has no axis, as NumPy says)."""
    func = "unique"
    xdt = getattr(x, "dtype", None)
    if isinstance(xdt, np.dtype):  # before the copy to the device, which may refuse it
        unique_dtype(_checks.native_dtype(xdt), func, "x")
    inp = _checks.as_input(x, func=func, arg="x", flatten=axis is None)
    unique_dtype(inp.array.dtype, func, "x")
    ax = None if axis is None else _checks.axis_index(axis, inp.array.ndim, func, scalar=True)
    return inp, ax

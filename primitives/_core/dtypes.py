"""The one table that maps NumPy dtypes to the C++ types kernels are instantiated with."""

from __future__ import annotations

import numpy as np

#: NumPy dtype -> C++ type name used in name expressions. Order is the documentation order.
CTYPES = {
    np.dtype(np.int32): "int",
    np.dtype(np.int64): "long long",
    np.dtype(np.uint32): "unsigned int",
    np.dtype(np.uint64): "unsigned long long",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
}

NUMERIC = tuple(CTYPES)

#: the 8- and 16-bit integers, which only some families instantiate (histograms: samples)
SMALL_CTYPES = {
    np.dtype(np.int8): "signed char",
    np.dtype(np.uint8): "unsigned char",
    np.dtype(np.int16): "short",
    np.dtype(np.uint16): "unsigned short",
}

#: (input dtype, accumulator dtype) pairs that reductions and scans instantiate natively: the same
#: type, and NumPy's widening of 32-bit integer sums. Other ``dtype=`` requests convert the input.
ACC_PAIRS = tuple((d, d) for d in NUMERIC) + (
    (np.dtype(np.int32), np.dtype(np.int64)),
    (np.dtype(np.uint32), np.dtype(np.uint64)),
)
ACC_PAIRS_SET = frozenset(ACC_PAIRS)


def cname(dtype):
    """The C++ type name of ``dtype`` in name expressions (the dtype known to have kernels)."""
    dt = np.dtype(dtype)
    return CTYPES[dt] if dt in CTYPES else SMALL_CTYPES[dt]


def names(dtypes=NUMERIC):
    return ", ".join(d.name for d in dtypes)


def ctype(dtype, *, func, arg, allowed=NUMERIC):
    """C++ type for ``dtype``; ``TypeError`` naming the function and argument otherwise."""
    dt = np.dtype(dtype)
    if dt not in allowed:
        raise TypeError(f"{func}: {arg} has dtype {dt.name}; supported dtypes are {names(allowed)}")
    return CTYPES[dt]


def resolve_dtype(dtype, *, func, arg="dtype", allowed=NUMERIC):
    """Parse a user-supplied ``dtype=`` argument into a supported ``numpy.dtype``."""
    try:
        dt = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"{func}: {arg}={dtype!r} is not a dtype") from exc
    if dt not in allowed:
        raise TypeError(f"{func}: {arg}={dt.name} is not supported; use one of {names(allowed)}")
    return dt


def sum_dtype(dt):
    """NumPy's accumulator/result dtype for ``sum``: small integers widen to 64 bits."""
    dt = np.dtype(dt)
    if dt.kind == "i":
        return np.dtype(np.int64)
    if dt.kind == "u":
        return np.dtype(np.uint64)
    return dt


def identity(op, dt):
    """The identity of ``op`` ("sum", "min", "max") in dtype ``dt``, as a NumPy scalar."""
    dt = np.dtype(dt)
    if op == "sum":
        return dt.type(0)
    if dt.kind == "f":
        return dt.type(np.inf if op == "min" else -np.inf)
    info = np.iinfo(dt)
    return dt.type(info.max if op == "min" else info.min)

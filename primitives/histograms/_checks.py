"""Argument checks of the histogram family, in NumPy's order and with NumPy's messages after the
function's name."""

from __future__ import annotations

import math
import operator
import warnings

import numpy as np

from .._core import backend as _backend, checks as _checks, dtypes as _dtypes
from ._binning import CTYPES, SAMPLE_DTYPES
from ._plans import minmax
from ._variants import VARIANT_TABLE, VARIANTS


def check_variant(func, variant):
    if variant != "auto" and variant not in VARIANT_TABLE:
        raise ValueError(f"{func}: variant must be 'auto' or one of {VARIANTS}, got "
                         f"{variant!r}")


def precheck(func, x, arg, kinds="biuf"):
    """TypeError for a non-numeric dtype before the input moves to the device (CuPy has no string
    or object arrays to move it into)."""
    dt = getattr(x, "dtype", None)
    if dt is None and isinstance(x, (list, tuple)):
        try:
            dt = np.asarray(x).dtype
        except Exception:  # ragged or odd: as_input reports it
            return
    if dt is not None and not isinstance(dt, type) and getattr(dt, "kind", "f") not in kinds:
        raise TypeError(f"{func}: {arg} has dtype {np.dtype(dt).name}; supported dtypes are "
                        f"bool, {_dtypes.names(SAMPLE_DTYPES)}")


def samples(func, arr, arg="a"):
    """The sample dtype a kernel takes: bool becomes uint8 with NumPy's warning."""
    if arr.dtype == np.bool_:
        warnings.warn(f"Converting input from {arr.dtype} to {np.uint8} for compatibility.",
                      RuntimeWarning, stacklevel=3)
        return arr.astype(np.uint8)
    if arr.dtype not in CTYPES:
        raise TypeError(f"{func}: {arg} has dtype {arr.dtype.name}; supported dtypes are "
                        f"bool, {_dtypes.names(SAMPLE_DTYPES)}")
    return arr


def outer_edges(func, arr, range, backend):
    """numpy.histogram's first and last edge, with its errors (range checks, autodetection)."""
    if range is not None:
        first, last = range
        if first > last:
            raise ValueError(f"{func}: max must be larger than min in range parameter.")
        if not (_finite(first) and _finite(last)):
            raise ValueError(f"{func}: supplied range of [{first}, {last}] is not finite")
    elif arr.size == 0:
        first, last = 0, 1
    else:
        first, last = minmax(arr, backend)
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"{func}: autodetected range of [{first}, {last}] is not finite")
    if first == last:
        first = first - 0.5
        last = last + 0.5
    return first, last


def _finite(v):
    try:
        return math.isfinite(v)
    except (TypeError, OverflowError):  # huge Python ints, odd scalars: NumPy's answer
        return bool(np.isfinite(v))


def nbins(func, bins):
    try:
        n = operator.index(bins)
    except TypeError as exc:
        raise TypeError(f"{func}: `bins` must be an integer, a string, or an array") from exc
    if n < 1:
        raise ValueError(f"{func}: `bins` must be positive, when an integer")
    if n > 2**31 - 1:
        raise ValueError(f"{func}: at most 2**31 - 1 bins are supported, got {n}")
    return n


def array_edges(func, bins):
    edges = _backend.to_host(bins)
    if edges.ndim != 1:
        raise ValueError(f"{func}: `bins` must be 1d, when an array")
    if edges.dtype.kind not in "iuf":
        raise TypeError(f"{func}: `bins` has dtype {edges.dtype.name}; bin edges must be "
                        f"integers or floats")
    if edges.size < 2:
        raise ValueError(f"{func}: `bins` must hold at least two edges, got {edges.size}")
    if np.any(edges[:-1] > edges[1:]):
        raise ValueError(f"{func}: `bins` must increase monotonically, when an array")
    if edges.dtype.kind == "f" and np.isnan(edges).any():
        raise ValueError(f"{func}: `bins` must not contain NaN")
    return edges


def as_weights(func, weights, a_shape):
    dt = getattr(weights, "dtype", None)
    if dt is not None and np.dtype(dt).kind not in "iuf":
        raise TypeError(f"{func}: weights has dtype {np.dtype(dt).name}; supported dtypes are "
                        f"{_dtypes.names()}")
    winp = _checks.as_input(weights, func=func, arg="weights")
    w = winp.array
    if tuple(w.shape) != tuple(a_shape):
        raise ValueError(f"{func}: weights should have the same shape as a.")
    if w.dtype not in _dtypes.NUMERIC:
        raise TypeError(f"{func}: weights has dtype {w.dtype.name}; supported dtypes are "
                        f"{_dtypes.names()}")
    return w



"""Argument checks of ``bincount``, in NumPy's order and with NumPy's messages after the
function's name (the family's other checks: :mod:`._checks`)."""

from __future__ import annotations

import operator

import numpy as np

from .._core import checks as _checks
from ._binning import bincount_binning
from ._checks import prepare, reraise
from ._plans import minmax


def _intp_cast(dt):
    return (
        f"Cannot cast array data from {dt!r} to {np.dtype(np.intp)!r} according to the rule 'safe'"
    )


def bincount_x(func, x):
    """bincount's ``x`` prepared: integer (or bool) host data in native byte order; an empty
    list or tuple is an empty intp array, as NumPy reads it."""
    if isinstance(x, (list, tuple)):
        try:
            arr = np.asarray(x)
        except Exception:  # ragged: as_input reports it  # noqa: BLE001
            return x
        if arr.size == 0:
            return arr.astype(np.intp)
        x = arr
    return prepare(func, x, "x", lambda dt: dt.kind in "biu", _intp_cast)


def check_minlength(func, m):
    """``minlength`` as NumPy reads it (``PyArray_PyIntAsIntp``): an int, not a bool."""
    if m is None:
        raise TypeError(f"{func}: use 0 instead of None for minlength")
    if isinstance(m, (bool, np.bool_)):
        raise TypeError(f"{func}: an integer is required (minlength={m!r})")
    try:
        n = operator.index(m)
    except TypeError as exc:
        raise TypeError(f"{func}: {exc} (minlength)") from exc
    if not -(2**63) <= n < 2**63:
        raise OverflowError(f"{func}: Python int too large to convert to C long (minlength)")
    if n < 0:
        raise ValueError(f"{func}: 'minlength' must not be negative")
    return n


def bincount_weights(func, weights, n, backend):
    """bincount's weights as float64 in the backend's memory: any dtype that casts safely to
    float64; a list of other numbers (Fractions, ...) converted one by one, as NumPy does."""
    w = weights
    if isinstance(w, (list, tuple)):
        try:
            arr = np.asarray(w)
        except Exception:  # noqa: BLE001
            arr = None
        if arr is not None and arr.dtype == object:
            try:
                w = np.asarray(w, dtype=np.float64)
            except (TypeError, ValueError) as exc:
                reraise(func, exc)
    w = prepare(
        func,
        w,
        "weights",
        lambda dt: dt.kind in "biuf" and np.can_cast(dt, np.float64),
        lambda dt: (
            f"Cannot cast array data from {dt!r} to dtype('float64') according to the rule 'safe'"
        ),
    )
    ndim = w.ndim if hasattr(w, "ndim") else None
    w = _checks.as_input(w, func=func, arg="weights").array
    ndim = w.ndim if ndim is None else ndim
    if not np.can_cast(w.dtype, np.float64):
        raise TypeError(
            f"{func}: Cannot cast array data from {w.dtype!r} to "
            f"dtype('float64') according to the rule 'safe'"
        )
    if ndim != 1:
        raise ValueError(
            f"{func}: weights must be 1-D, got {ndim}-D (NumPy: object "
            f"{'too deep' if ndim > 1 else 'of too small depth'} for desired "
            f"array)"
        )
    if w.shape[0] != n:
        raise ValueError(f"{func}: The weights and list don't have the same length.")
    return backend.xp.ascontiguousarray(w.astype(np.float64, copy=False))


def bincount_args(func, x, weights, minlength):
    """bincount's checks, in NumPy's order (``x``, ``minlength``, then the weights, which NumPy
    reads only when ``x`` is not empty): (input, samples, float64 device weights or None,
    minlength)."""
    xh = bincount_x(func, x)
    inp = _checks.as_input(xh, func=func, arg="x")
    arr = inp.array
    ndim = xh.ndim if hasattr(xh, "ndim") else arr.ndim  # (a 0-d input comes back 1-d)
    if ndim != 1:
        raise ValueError(
            f"{func}: x must be 1-D, got {ndim}-D (NumPy: object "
            f"{'too deep' if ndim > 1 else 'of too small depth'} for desired "
            f"array)"
        )
    if not (np.can_cast(arr.dtype, np.intp) or arr.dtype == np.uint64):  # NumPy takes uint64
        raise TypeError(
            f"{func}: x has dtype {arr.dtype}; Cannot cast array data from "
            f"{arr.dtype!r} to {np.dtype(np.intp)!r} according to the rule 'safe'"
        )
    if arr.dtype == np.bool_:
        arr = arr.view(np.uint8)
    minlength = check_minlength(func, minlength)
    wdev = None
    if weights is not None and arr.size:
        wdev = bincount_weights(func, weights, arr.shape[0], inp.backend)
    return inp, arr, wdev, minlength


def bincount_length(func, arr, minlength, backend):
    """The binning of bincount's samples wider than 8 bits, from their minimum and maximum
    (found on the device: a synchronization), with NumPy's error for negative values."""
    lo, hi = minmax(arr, backend)
    if lo < 0 or int(hi) >= 2**63:  # NumPy casts uint64 to int64: values >= 2^63 turn negative
        raise ValueError(f"{func}: 'list' argument must have no negative elements")
    length = max(int(hi) + 1, minlength)
    if length > 2**31 - 1:
        raise ValueError(
            f"{func}: x.max() + 1 = {int(hi) + 1} bins are more than this "
            f"library supports (2**31 - 1)"
        )
    return bincount_binning(arr.dtype, 0, int(hi), length)

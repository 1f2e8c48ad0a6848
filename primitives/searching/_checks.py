"""searchsorted's arguments: normalized and checked in CuPy's order (variant, side, a, v, their
common dtype, sorter), with errors naming ``searchsorted``."""

from __future__ import annotations

import numpy as np

from .._core import checks as _checks, dtypes as _dtypes

FUNC = "searchsorted"
VARIANTS = ("binary", "cached", "indexed", "sorted", "bucketed")
#: the dtypes of ``a`` and ``v`` (and of their common dtype) that searchsorted takes: complex in
#: NumPy's order (lexicographic, NaNs last: kernels/searching/searchsorted.cu)
DTYPES = _dtypes.REAL_BF16 + _dtypes.COMPLEX
_DTYPE_SET = frozenset(DTYPES)
SIDES = ("left", "right")


def _check_dtype(dt, arg):
    if dt not in _DTYPE_SET:
        raise TypeError(
            f"{FUNC}: {arg} has dtype {dt}; supported dtypes are "
            f"{', '.join(d.name for d in DTYPES)}"
        )


def _side(side):
    if not isinstance(side, str):
        raise TypeError(f"{FUNC}: side must be 'left' or 'right', got {type(side).__name__}")
    if side not in SIDES:
        raise ValueError(f"{FUNC}: side must be 'left' or 'right', got {side!r}")
    return side == "right"


def _sorter(sorter, n):
    s = _checks.as_input(sorter, func=FUNC, arg="sorter", empty_dtype=np.int64)
    arr = s.array
    if arr.ndim != 1:  # NumPy: "could not parse sorter argument"
        raise TypeError(f"{FUNC}: sorter must be a 1-D integer array, got shape {tuple(arr.shape)}")
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{FUNC}: sorter must only contain integers, got dtype {arr.dtype}")
    if arr.size != n:
        raise ValueError(
            f"{FUNC}: sorter has {arr.size} elements, a has {n} (sorter.size must equal a.size)"
        )
    return arr


def in_range(sorter, n, xp):
    """Refuse a sorter entry outside [0, n): two reductions and one read back (a sync)."""
    ends = xp.stack([sorter.min().astype(np.int64), sorter.max().astype(np.int64)])
    lo, hi = (int(x) for x in ends.tolist())
    if lo < 0 or hi >= n:
        raise ValueError(
            f"{FUNC}: sorter index out of range: sorter holds {lo if lo < 0 else hi}"
            f", a has {n} elements"
        )


def _zero_d(v, arr):
    """Whether the query argument ``v`` is a scalar or 0-d array (which the contiguous copy
    ``arr`` holds as one element of shape (1,))."""
    if arr.shape != (1,):
        return arr.ndim == 0
    return _checks.shape_of(v) == ()


class Checked:
    """The arguments of a call, checked in CuPy's order: variant, side, a, v, their common dtype,
    sorter."""

    __slots__ = ("variant", "right", "a", "v", "shape", "dt", "sorter")

    def __init__(self, a, v, side, sorter, variant):
        self.variant = _checks.check_choice(
            variant, VARIANTS, func=FUNC, arg="variant", auto="auto"
        )
        self.right = _side(side)
        adt = getattr(a, "dtype", None)
        if isinstance(adt, np.dtype):  # before the copy to the device, which may refuse it
            _check_dtype(_checks.native_dtype(adt), "a")
        self.a = _checks.as_input(a, func=FUNC, arg="a", ndim=1)
        _check_dtype(self.a.array.dtype, "a")
        vdt = getattr(v, "dtype", None)
        if isinstance(vdt, np.dtype):
            _check_dtype(_checks.native_dtype(vdt), "v")
        self.v = _checks.as_input(v, func=FUNC, arg="v")
        _check_dtype(self.v.array.dtype, "v")
        self.shape = () if _zero_d(v, self.v.array) else self.v.array.shape
        # NumPy's: a and v converted to the type of both (a Python scalar as its array's dtype)
        self.dt = np.result_type(self.a.array.dtype, self.v.array.dtype)
        _check_dtype(self.dt, "the common dtype of a and v")
        n = self.a.array.size
        self.sorter = None if sorter is None else _sorter(sorter, n)

    def result(self, out, shape):
        """``out`` (int64, m) in v's shape, where the caller's arrays live (on the device when a
        or v is a device array), a scalar for a scalar v as NumPy returns."""
        inp = self.v if not self.v.host or self.a.host else self.a
        if len(shape) == 0:
            return inp.scalar(out.reshape(()))
        return inp.result(out.reshape(shape))


def as_is(c, a, v):
    """Whether a later call on arrays like ``a`` and ``v`` can go straight to the plan: both of
    the backend's own type, read as they are, of one dtype with kernels of its own (or bool)."""
    return bool(
        c.sorter is None
        and c.a.array is a
        and c.v.array is v
        and v.ndim >= 1
        and a.dtype == v.dtype == c.dt
        and not _dtypes.is_float16(c.dt)
        and a.size
        and v.size
    )

"""Compaction's argument checks: the mask, and the input and its dtype. Each error names the
public function called."""

from __future__ import annotations

import numpy as np

from .._core import checks as _checks, dtypes as _dtypes
from . import _plans as _cp


def mask(mask, n, func):
    """``mask`` flattened on the backend: a boolean array (of ``n`` elements unless None)."""
    m = _checks.as_input(mask, func=func, arg="mask", flatten=True, empty_dtype=np.bool_)
    if m.array.dtype != np.bool_:
        raise TypeError(f"{func}: mask must be a boolean array, got dtype {m.array.dtype.name}")
    if n is not None and m.array.size != n:
        raise ValueError(f"{func}: mask has {m.array.size} elements, x has {n}")
    return m


def check_dtype(dt):
    """A ``TypeError`` for a dtype of ``x`` that compact does not move."""
    if _checks.native_dtype(dt) not in _cp.DTYPES:
        raise TypeError(
            f"compact: x has dtype {dt.name}; supported dtypes are {_dtypes.names(_cp.DTYPES)}"
        )


def checked(x, mask_):
    """compact's checks: ``(inp, dt, m)``, the flattened input, its dtype and the mask."""
    xdt = getattr(x, "dtype", None)
    if isinstance(xdt, np.dtype):  # before the copy to the device, which may refuse it
        check_dtype(xdt)
    inp = _checks.as_input(x, func="compact", arg="x", flatten=True)
    dt = inp.array.dtype
    check_dtype(dt)
    return inp, dt, mask(mask_, inp.array.size, "compact")

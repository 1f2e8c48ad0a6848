"""The segmented functions' argument checks: the values, the flags or offsets, the op and the
result dtype. Each error names the public function called."""

from __future__ import annotations

import numpy as np

from .._core import checks as _checks, offsets as _offs


def offsets(offsets, n, *, func, cover, check):
    """Offsets as a device int64 array of nseg + 1 values (``offsets`` itself when it is one),
    their values checked unless ``check=False``."""
    return _offs.segment_offsets(offsets, n, func=func, cover=cover, check=check)[0]


def scan_checked(x, flags, offsets_, op, dtype, check, ahead=None):
    """segmented_scan's checks: ``(inp, arr, in_dt, acc_dt, f, o)``, the input as the kernels read
    it, its dtype and the result's, and the flags or the int64 offsets (the other None).
    ``ahead(in_dt, acc_dt)``, where given, runs before the flags or offsets are read (it asks
    for the call's kernels, which then compile beside the offsets' check)."""
    func = "segmented_scan"
    if (flags is None) == (offsets_ is None):
        raise ValueError(f"{func}: give exactly one of flags= and offsets=")
    inp, arr, in_dt, acc_dt = _checks.op_input(x, op, dtype, func=func, ndim=1)
    if ahead is not None and arr.size:
        ahead(in_dt, acc_dt)
    n = arr.size
    f = o = None
    if flags is not None:
        fi = _checks.as_input(flags, func=func, arg="flags", ndim=1, empty_dtype=np.bool_)
        if fi.array.dtype != np.bool_:
            raise TypeError(
                f"{func}: flags must be a boolean array, got dtype {fi.array.dtype.name}"
            )
        if fi.array.size != n:
            raise ValueError(f"{func}: flags has {fi.array.size} elements, x has {n}")
        f = fi.array
    else:
        o = offsets(offsets_, n, func=func, cover=True, check=check)
    return inp, arr, in_dt, acc_dt, f, o


def reduce_checked(x, offsets_, op, dtype, check, ahead=None):
    """segmented_reduce's checks: ``(inp, arr, in_dt, acc_dt, o)``, as :func:`scan_checked`'s;
    ``ahead(in_dt, acc_dt, n, nseg)`` with the number of segments the offsets declare."""
    func = "segmented_reduce"
    inp, arr, in_dt, acc_dt = _checks.op_input(x, op, dtype, func=func, ndim=1)
    nseg = _offs.declared_segments(offsets_)
    if ahead is not None and arr.size and nseg:
        ahead(in_dt, acc_dt, arr.size, nseg)
    o = offsets(offsets_, arr.size, func=func, cover=False, check=check)
    return inp, arr, in_dt, acc_dt, o

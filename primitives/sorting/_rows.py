"""Rows of equal length sorted each on its own: one segmented sort whose offsets are known (no
read-back to validate them), the building block of the sorts along an axis and of selection."""

from __future__ import annotations

import numpy as np

from .._core import keys as _keys
from . import _choose, _segmented

__all__ = ["sort_rows"]


def sort_rows(backend, keys2, values2=None, descending=False):
    """Each row of ``keys2`` (R, m) sorted stably, ``values2`` (R, m) alongside: one segmented
    sort of the rows (the library's, on rows whose offsets are known: no read-back to validate
    them); the keys, or (keys, values), as (R, m) arrays. Either may be any view (a slice, a
    broadcast): the kernels read C-contiguous copies of those that are not C-contiguous."""
    rows, m = keys2.shape
    if keys2.size == 0:
        return keys2 if values2 is None else (keys2, values2)
    xp = backend.xp
    off = xp.arange(0, rows * m + 1, m, dtype=np.int64)
    # reshape(-1) of a view can be a view with the same odd strides (a broadcast's rows of one)
    kbits, kind, bits = _keys.key_bits(xp.ascontiguousarray(keys2).reshape(-1))
    vals = None if values2 is None else xp.ascontiguousarray(values2).reshape(-1)
    skeys, svals = _segmented.sort_segments(
        kbits, kind, bits, bool(descending), vals, off, m, _choose.on_chip(m), backend
    )
    out = _keys.key_back(skeys, keys2.dtype).reshape(rows, m)
    return out if values2 is None else (out, svals.reshape(rows, m))

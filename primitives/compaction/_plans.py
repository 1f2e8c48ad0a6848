"""Compaction plans: kernel names and the look-back plan of ``compact`` / ``compact_indices``.

A :class:`CompactPlan` per (dtype or indices, n, policy, stream) holds the tile counter, the
tile states and the count the kernel writes, made once, and its launch checked once. A call is
one launch and one read of the count (the result's length).
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes, launch as _launch, loader as _loader
from .._core import lookback as _lookback, plans as _plans
from . import _policy

SOURCE = "scan/compact.cu"
INDEX_DTYPE = np.dtype(np.int64)


def kernel_name(dt, indices, pol):
    c = _dtypes.CTYPES[dt] if dt is not None else "int"
    return (f"compact_lookback<{c}, {pol.block}, {pol.items}, "
            f"{'true' if indices else 'false'}>")


def names(pol):
    return [kernel_name(d, False, pol) for d in _dtypes.NUMERIC] + [kernel_name(None, True, pol)]


for _pol in _policy.TABLE.policies():  # every policy of the table, for the NVRTC check
    _loader.register(SOURCE, names(_pol))


class CompactPlan(_lookback.LookbackPlan):
    """``x[mask]`` (``dt`` given) or ``flatnonzero(mask)`` (``dt`` None) over n elements."""

    def __init__(self, backend, dt, n, pol):
        indices = dt is None
        k = _loader.load(SOURCE, names(pol))(kernel_name(dt, indices, pol))
        xp = backend.xp
        super().__init__(k, _launch.cdiv(n, pol.block * pol.items), pol.block, n, xp,
                         INDEX_DTYPE.itemsize)
        self.count = xp.empty(1, dtype=INDEX_DTYPE)  # written by the block of the last tile
        self.nbytes += self.count.nbytes
        self.empty, self.n = xp.empty, n
        self.out_dt = INDEX_DTYPE if indices else dt
        # the arguments a kind does not use: one-element stand-ins of the right type
        self.stand_in = _launch.stand_in(backend, np.dtype(np.int32) if indices else INDEX_DTYPE)

    def __call__(self, x, mask):
        """The selected elements of ``x`` (or, for an indices plan called with ``x`` None, the
        indices of ``mask``'s true entries): arrays of the backend's own type, contiguous."""
        out = self.empty(self.n, dtype=self.out_dt)
        if x is None:
            self.launch(self.stand_in, mask, self.n64, self.stand_in, out, self.count)
        else:
            self.launch(x, mask, self.n64, out, self.stand_in, self.count)
        return out[:int(self.count[0])]  # the one device-to-host read: the result's length


def compact_plan(backend, dt, n):
    """The plan of ``dt`` (None: indices) over n elements under the policy in force."""
    pol = _policy.current()
    key = ("compaction", dt, n, pol, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: CompactPlan(backend, dt, n, pol))

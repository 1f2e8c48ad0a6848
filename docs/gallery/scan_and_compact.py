"""
Scans and stream compaction
===========================

``inclusive_scan`` and ``exclusive_scan`` follow ``numpy.cumsum``; ``compact`` is ``x[mask]``
and ``compact_indices`` is ``numpy.flatnonzero``, both built on the same single-pass scan.
"""

import numpy as np

import primitives as prim

x = np.arange(1, 11, dtype=np.int32)
print("inclusive:", prim.inclusive_scan(x))
print("exclusive:", prim.exclusive_scan(x))
assert np.array_equal(prim.cumsum(x), np.cumsum(x))

mask = x % 3 == 0
print("compact:  ", prim.compact(x, mask))
print("indices:  ", prim.compact_indices(mask))

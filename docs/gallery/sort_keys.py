"""
Radix sort, argsort and segmented sort
======================================

``sort`` and ``argsort`` follow NumPy (stable, NaNs last); ``segmented_sort`` sorts each segment
``[offsets[i], offsets[i+1])`` on its own.
"""

import numpy as np

import primitives as prim

keys = np.random.default_rng(1).integers(0, 100, 12).astype(np.uint32)
print("keys:    ", keys)
print("sorted:  ", prim.sort(keys))
print("argsort: ", prim.argsort(keys))
assert np.array_equal(prim.sort(keys), np.sort(keys))

offsets = np.array([0, 4, 8, 12])
print("by segment:", prim.segmented_sort(keys, offsets))

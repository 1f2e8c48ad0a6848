"""
Radix sort, argsort and segmented sort
======================================

``sort`` and ``argsort`` follow NumPy (stable, NaNs last); ``segmented_sort`` sorts each segment
``[offsets[i], offsets[i+1])`` on its own.

The figure: the keys before and after ``segmented_sort``, each segment sorted in its place.
"""

import matplotlib.pyplot as plt
import numpy as np

import primitives as prim

keys = np.random.default_rng(1).integers(0, 100, 12).astype(np.uint32)
print("keys:    ", keys)
print("sorted:  ", prim.sort(keys))
print("argsort: ", prim.argsort(keys))
assert np.array_equal(prim.sort(keys), np.sort(keys))

offsets = np.array([0, 4, 8, 12])
print("by segment:", prim.segmented_sort(keys, offsets))

many = np.random.default_rng(2).random(400, dtype=np.float32)
bounds = np.array([0, 60, 200, 230, 400])  # four segments of different lengths
by_segment = prim.segmented_sort(many, bounds)
for a, b in zip(bounds[:-1], bounds[1:]):
    assert np.array_equal(by_segment[a:b], np.sort(many[a:b]))

fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(many, ".", ms=2, color="0.6", label="keys")
ax.plot(by_segment, ".", ms=3, label="segmented_sort(keys, offsets)")
for b in bounds[1:-1]:
    ax.axvline(b, color="k", lw=0.5)
ax.set_xlabel("position")
ax.set_title("four segments, each sorted on its own")
ax.legend(fontsize="small", loc="upper left")
fig.tight_layout()

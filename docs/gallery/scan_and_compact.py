"""
Scans and stream compaction
===========================

``inclusive_scan`` and ``exclusive_scan`` follow ``numpy.cumsum``; ``compact`` is ``x[mask]``
and ``compact_indices`` is ``numpy.flatnonzero``, both built on the same single-pass scan.

The figure: a random walk is the running sum of its steps, its running maximum a ``"max"``
scan, and the steps where the walk sets a new record are found by compaction.
"""

import matplotlib.pyplot as plt
import numpy as np

import primitives as prim

x = np.arange(1, 11, dtype=np.int32)
print("inclusive:", prim.inclusive_scan(x))
print("exclusive:", prim.exclusive_scan(x))
assert np.array_equal(prim.cumsum(x), np.cumsum(x))

mask = x % 3 == 0
print("compact:  ", prim.compact(x, mask))
print("indices:  ", prim.compact_indices(mask))

steps = np.random.default_rng(3).choice(np.array([-1, 1], dtype=np.int32), 300)
walk = prim.cumsum(steps)  # int64, as numpy.cumsum
high = prim.inclusive_scan(walk, "max")
before = np.concatenate([[0], high[:-1]])
records = prim.compact_indices(walk > before)  # where the walk beats its record
assert np.array_equal(walk, np.cumsum(steps))
assert np.array_equal(high, np.maximum.accumulate(walk))
print(records.size, "records, the last at step", records[-1])

fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(walk, lw=1, label="cumsum(steps)")
ax.plot(high, lw=1, label='inclusive_scan(walk, "max")')
ax.plot(records, prim.compact(walk, walk > before), ".", label="compacted records")
ax.set_xlabel("step")
ax.set_title("a random walk, its running maximum and its records")
ax.legend(fontsize="small")
fig.tight_layout()

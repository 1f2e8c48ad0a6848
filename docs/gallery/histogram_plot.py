"""
A histogram, drawn
==================

``prim.histogram`` returns NumPy's counts and edges (the same bins to the last ulp), so the
result plots like ``numpy.histogram``'s.
"""

import matplotlib.pyplot as plt
import numpy as np

import primitives as prim

x = np.random.default_rng(2).normal(0.5, 0.15, 20_000).astype(np.float32)
counts, edges = prim.histogram(x, bins=32, range=(0.0, 1.0))
assert np.array_equal(counts, np.histogram(x, bins=32, range=(0.0, 1.0))[0])

fig, ax = plt.subplots(figsize=(6, 3))
ax.stairs(counts, edges, fill=True)
ax.set_xlabel("value")
ax.set_ylabel("count")
ax.set_title(f"prim.histogram of {x.size} float32 samples")
fig.tight_layout()
print("total", counts.sum(), "in", counts.size, "bins")

"""
Sum with every rung of the reduction ladder
===========================================

``prim.sum`` runs the production kernel; ``prim.reduce(x, op, variant=...)`` runs any of the
six classic variants. All of them agree with NumPy to within float32 rounding: the figure shows
each variant's relative error against a float64 sum, next to the error bound of its summation
tree.
"""

import matplotlib.pyplot as plt
import numpy as np

import primitives as prim
from primitives.reduction import VARIANTS, error_depth

x = np.random.default_rng(0).random(10_000, dtype=np.float32)
exact = x.sum(dtype=np.float64)
u = 2.0**-24  # float32's unit roundoff
errors, bounds = [], []
for v in VARIANTS:
    s = prim.reduce(x, "sum", variant=v)
    # an exact sum drawn at 1e-12
    errors.append(max(abs(float(s) - exact) / exact, 1e-12))
    d = error_depth(v, x.size)
    bounds.append(d * u / (1 - d * u))
    print(
        f"{v:>10}: {s:.3f}  (relative error {errors[-1]:.1e}, bound {bounds[-1]:.1e})"
    )

fig, ax = plt.subplots(figsize=(6, 3))
ax.bar(VARIANTS, errors, label="relative error")
ax.scatter(VARIANTS, bounds, color="C3", marker="_", s=400, label="bound")
ax.set_yscale("log")
ax.set_ylabel("|sum - exact| / exact")
ax.set_title(f"float32 sum of {x.size} values, every variant")
ax.legend()
fig.autofmt_xdate()
fig.tight_layout()
print("min", prim.min(x), "max", prim.max(x), "on", prim.backend_info()["backend"])

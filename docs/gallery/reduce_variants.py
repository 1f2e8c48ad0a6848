"""
Sum with every rung of the reduction ladder
===========================================

``prim.sum`` runs the production kernel; ``prim.reduce(x, op, variant=...)`` runs any of the
six classic variants. All of them agree with NumPy to within float32 rounding.
"""

import numpy as np

import primitives as prim
from primitives.reduction import VARIANTS

x = np.random.default_rng(0).random(10_000, dtype=np.float32)
exact = x.sum(dtype=np.float64)
for v in VARIANTS:
    s = prim.reduce(x, "sum", variant=v)
    print(f"{v:>10}: {s:.3f}  (relative error {abs(s - exact) / exact:.1e})")

print("min", prim.min(x), "max", prim.max(x), "on", prim.backend_info()["backend"])

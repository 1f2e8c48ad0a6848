"""Reductions with primitives, checked against NumPy.

Runs on either backend: on a GPU the arrays are copied to the device, reduced there, and the
result comes back as a NumPy scalar (pass CuPy arrays to keep the result on the device).
"""

import numpy as np

from primitives import reduction  # for the error-bound helper used below

# begin-example
import primitives as prim
from primitives.reduction import VARIANTS

rng = np.random.default_rng(2026)
x = rng.random(100_000, dtype=np.float32) + np.float32(0.5)  # float32 in [0.5, 1.5)

# Sum: float32 in, float32 out (accumulated in float32 along a tree), close to the exact
# sum.
s = prim.sum(x)
exact = np.sum(x, dtype=np.float64)
assert s.dtype == np.float32
assert abs(float(s) - exact) <= 1e-5 * exact

# Min and max are exact, and NaN propagates as in NumPy.
assert prim.min(x) == x.min() and prim.max(x) == x.max()
y = x.copy()
y[123] = np.nan
assert np.isnan(prim.max(y)) and np.isnan(prim.min(y))

# Result dtypes follow NumPy: int32 sums widen to int64, min/max keep the input dtype.
k = rng.integers(-1000, 1000, 100_000, dtype=np.int32)
assert prim.sum(k).dtype == np.int64 and prim.sum(k) == np.sum(k)
assert prim.reduce(k, "max").dtype == np.int32

# Integer sums wrap around on overflow, as NumPy's do.
big = np.full(4, 2**30, dtype=np.int32)
# 2**32 wraps to 0
assert prim.sum(big, dtype=np.int32) == np.sum(big, dtype=np.int32) == 0
assert prim.sum(big) == 2**32  # the default int64 accumulator does not overflow

# Every rung of the ladder computes the same reduction.
for v in VARIANTS:
    assert prim.reduce(k, "sum", variant=v) == np.sum(k)
    assert abs(float(prim.sum(x, variant=v)) - exact) <= 1e-5 * exact
# end-example

# The bound the test suite asserts: a summation tree of depth d has
# |error| <= d*u / (1 - d*u) * sum(|x|), u = 2**-24 for float32 (Higham).
u = np.finfo(np.float32).eps / 2
for v in VARIANTS:
    d = reduction.error_depth(v, x.size)
    bound = d * u / (1 - d * u) * np.sum(np.abs(x), dtype=np.float64)
    assert abs(float(prim.sum(x, variant=v)) - exact) <= bound, (v, d, bound)

print(
    f"sum={s} (exact {exact:.3f}), min={prim.min(x)}, max={prim.max(x)}; "
    f"{len(VARIANTS)} variants agree"
)

"""searchsorted: insertion points of many queries into a sorted array, checked against NumPy."""

import numpy as np

# begin-example
import primitives as prim

rng = np.random.default_rng(0)
a = np.sort(rng.standard_normal(100_000).astype(np.float32))
a[-2:] = np.nan  # NaNs sort last, as in NumPy
v = rng.standard_normal((300, 40)).astype(np.float32)  # queries of any shape

lo = prim.searchsorted(a, v)  # side="left": the lower bound
hi = prim.searchsorted(a, v, side="right")  # the upper bound
assert np.array_equal(lo, np.searchsorted(a, v)) and lo.dtype == np.int64
assert np.array_equal(hi, np.searchsorted(a, v, side="right")) and hi.shape == v.shape

for variant in prim.searching.VARIANTS:  # every variant, the same answer
    assert np.array_equal(prim.searchsorted(a, v, variant=variant), lo)

keys = rng.integers(0, 1000, 5000)  # unsorted keys and the order that sorts them
order = np.argsort(keys)
# int64 keys, float queries
at = prim.searchsorted(keys, [10, 500.5, 2000], sorter=order)
assert np.array_equal(at, np.searchsorted(keys, [10, 500.5, 2000], sorter=order))
assert prim.searchsorted(a, 0.0) == np.searchsorted(a, 0.0)  # a scalar query: a scalar
# end-example

print("lower bounds:", lo[0, :4], "| upper bounds:", hi[0, :4], "| with sorter:", at)

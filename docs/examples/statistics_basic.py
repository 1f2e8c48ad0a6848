"""statistics: NaN-ignoring reductions, the variance in one pass, ptp and weighted
averages, checked against NumPy."""

import warnings

import numpy as np

# begin-example
import primitives as prim

rng = np.random.default_rng(0)
x = rng.standard_normal((64, 1000)).astype(np.float32)
x[rng.random(x.shape) < 0.01] = np.nan  # a few missing values

assert np.isclose(prim.nansum(x), np.nansum(x), rtol=1e-5)
assert np.allclose(prim.nanmean(x, axis=1), np.nanmean(x, axis=1), rtol=1e-5)
assert np.array_equal(prim.nanargmax(x, axis=0), np.nanargmax(x, axis=0))

# the variance in one pass (Welford per thread, Chan's combination):
# exact on data far from 0
far = (1e8 + rng.integers(-64, 64, 100_000) * 8.0).astype(np.float32)
v = prim.var(far)  # float32, as numpy.var of float32
exact = np.var(far.astype(np.float64))
assert v.dtype == np.float32 and np.isclose(v, exact, rtol=1e-6)
want = np.nanstd(x, axis=0, ddof=1)
assert np.allclose(prim.nanstd(x, axis=0, ddof=1), want, rtol=1e-5)

y = rng.integers(-100, 100, (5, 7)).astype(np.int8)
# int8, wrapping as NumPy's
assert np.array_equal(prim.ptp(y, axis=1), np.ptp(y, axis=1))
assert prim.count_nonzero(y) == np.count_nonzero(y)
w = rng.random(7)
avg, total = prim.average(y, axis=1, weights=w, returned=True)
assert np.allclose(avg, np.average(y, axis=1, weights=w))
assert np.allclose(total, w.sum())

with warnings.catch_warnings(record=True) as caught:  # NumPy's warnings, NumPy's values
    warnings.simplefilter("always")
    m = prim.nanmax(np.array([[np.nan, np.nan], [1.0, np.nan]]), axis=1)
assert np.isnan(m[0]) and m[1] == 1.0 and "All-NaN slice" in str(caught[0].message)
# end-example

print("nansum:", prim.nansum(x), "| var far from 0:", v, "| weighted:", avg[:3])

"""NumPy's everyday reductions, scans and histograms with primitives, checked against NumPy.

Every dtype NumPy accepts, ``axis=`` (int, negative, tuple), ``keepdims`` and ``out``, with
NumPy's result dtypes. Runs on either backend (NumPy arrays in, NumPy arrays out).
"""

import numpy as np

# begin-example
import primitives as prim

rng = np.random.default_rng(7)

# Narrow dtypes, as NumPy: a bool sum counts (int64), int8 sums widen to int64, uint8 to
# uint64.
mask = rng.random(10_000) < 0.3
assert prim.sum(mask) == np.sum(mask) and prim.sum(mask).dtype == np.int64
b = rng.integers(-128, 128, 10_000).astype(np.int8)
assert prim.sum(b) == np.sum(b) and prim.sum(b).dtype == np.int64
assert prim.any(mask) and not prim.all(mask)

# Reductions over axes of a C-ordered matrix and of its transpose (F-ordered), in place.
m = rng.random((300, 40), dtype=np.float32)
for a in (m, m.T):
    for axis in (0, 1, -1, (0, 1)):
        np.testing.assert_allclose(
            prim.sum(a, axis=axis), np.sum(a, axis=axis), rtol=1e-5
        )
        np.testing.assert_array_equal(prim.max(a, axis=axis), np.max(a, axis=axis))
assert prim.mean(m, axis=0, keepdims=True).shape == (1, 40)
out = np.empty(300, dtype=np.float64)
prim.sum(m, axis=1, out=out)  # cast to out's dtype, as NumPy's reductions do
np.testing.assert_allclose(out, m.sum(axis=1), rtol=1e-5)

# prod, argmin/argmax (first occurrence; NaN wins, as NumPy), cumsum/cumprod along an
# axis.
k = rng.integers(1, 4, (6, 5)).astype(np.int16)
assert np.array_equal(prim.prod(k, axis=0), np.prod(k, axis=0))
assert prim.prod(k).dtype == np.int64
v = np.array([3.0, 7.0, 7.0, 1.0, 1.0])
assert prim.argmax(v) == 1 and prim.argmin(v) == 3
assert np.array_equal(prim.argmax(m, axis=0), np.argmax(m, axis=0))
assert np.array_equal(prim.cumsum(k, axis=0), np.cumsum(k, axis=0))
assert np.array_equal(prim.cumprod(k, axis=1), np.cumprod(k, axis=1))

# Complex sums and scans.
z = (rng.random(1000) + 1j * rng.random(1000)).astype(np.complex64)
np.testing.assert_allclose(prim.sum(z), np.sum(z), rtol=1e-5)
np.testing.assert_allclose(prim.cumsum(z), np.cumsum(z), rtol=1e-5)

# A 2-D histogram: NumPy's edges, counts and right-closed last bin.
x, y = rng.normal(size=5000), rng.normal(size=5000)
h, ex, ey = prim.histogram2d(x, y, bins=(16, 8), range=[[-3, 3], [-2, 2]])
want = np.histogram2d(x, y, bins=(16, 8), range=[[-3, 3], [-2, 2]])
assert (
    np.array_equal(h, want[0])
    and np.array_equal(ex, want[1])
    and np.array_equal(ey, want[2])
)
# end-example

print(
    f"sum(mask)={prim.sum(mask)}, argmax={prim.argmax(v)}, "
    f"histogram2d total={int(h.sum())} of {x.size}"
)

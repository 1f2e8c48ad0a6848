"""Scans, segmented scans and compaction, checked against NumPy."""

import numpy as np

# begin-example
import primitives as prim

rng = np.random.default_rng(0)
x = rng.integers(-100, 100, 100_000, dtype=np.int32)

c = prim.cumsum(x)  # like numpy.cumsum: int32 -> int64
assert c.dtype == np.int64 and np.array_equal(c, np.cumsum(x))
e = prim.exclusive_scan(x, "max")  # identity first, then running maxima
assert e[0] == np.iinfo(np.int32).min and np.array_equal(
    e[1:], np.maximum.accumulate(x)[:-1]
)
for variant in ("hillis_steele", "blelloch", "decoupled_lookback"):
    assert np.array_equal(prim.inclusive_scan(x, variant=variant), c)

offsets = np.array([0, 3, 3, 10, 100_000])  # CSR-style: segment s is x[o[s]:o[s+1]]
sums = prim.segmented_reduce(x, offsets)  # the empty segment gives 0
assert np.array_equal(sums, [x[0:3].sum(), 0, x[3:10].sum(), x[10:].sum()])
runs = prim.segmented_scan(x, offsets=offsets)  # cumsum restarting at each segment
assert np.array_equal(runs[3:10], np.cumsum(x[3:10]))

mask = x > 50
assert np.array_equal(prim.compact(x, mask), x[mask])
assert np.array_equal(prim.compact_indices(mask), np.flatnonzero(mask))
# end-example

print("cumsum[-1] =", c[-1], "| segment sums:", sums, "| selected:", int(mask.sum()))

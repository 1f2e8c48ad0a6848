"""Radix sorts, argsort and the segmented sort, checked against NumPy's stable sort."""

import numpy as np

# begin-example
import primitives as prim

rng = np.random.default_rng(0)
x = rng.standard_normal(50_000).astype(np.float32)
x[:3] = [np.nan, -0.0, np.inf]

s = prim.sort(x)  # NumPy's order: NaN last, -0.0 == 0.0
assert np.array_equal(s, np.sort(x, kind="stable"), equal_nan=True)
order = prim.argsort(x)  # int64, stable
assert np.array_equal(order, np.argsort(x, kind="stable"))

keys = rng.integers(0, 100, 50_000, dtype=np.uint32)
vals = np.arange(keys.size, dtype=np.int64)
# largest first, ties in input order
k, v = prim.radix_sort(keys, vals, descending=True)
assert np.all(np.diff(k.astype(np.int64)) <= 0) and np.array_equal(keys[v], k)
for variant in ("split", "classic", "onesweep"):
    assert np.array_equal(prim.sort(keys, variant=variant), np.sort(keys))
small = keys[:5000]  # one block sorts up to 12288 4-byte keys
assert np.array_equal(prim.sort(small, variant="block"), np.sort(small))

offsets = np.array([0, 10, 10, 1000, 50_000])  # segment s is keys[o[s]:o[s+1]]
seg = prim.segmented_sort(keys, offsets)
assert np.array_equal(seg[10:1000], np.sort(keys[10:1000]))
# end-example

print(
    "smallest:",
    s[:3],
    "| NaNs at the end:",
    int(np.isnan(s[-3:]).sum()),
    "| segment 2 starts with",
    seg[10],
)

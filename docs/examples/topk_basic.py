"""topk, argpartition and partition, checked against NumPy's stable sort and np.partition."""

import numpy as np

# begin-example
import primitives as prim

rng = np.random.default_rng(0)
x = rng.standard_normal(50_000).astype(np.float32)
x[:2] = [np.nan, 7.0]

values, indices = prim.topk(x, 5)  # the 5 largest: NaN first (NaN is the largest)
order = np.argsort(-x, kind="stable")  # NumPy's -NaN still sorts last: fix the NaN up
assert indices[0] == 0 and np.array_equal(indices[1:], order[:4])
assert np.array_equal(values[1:], x[indices[1:]])

small, where = prim.topk(x, 3, largest=False)  # the 3 smallest, smallest first
assert np.array_equal(where, np.argsort(x, kind="stable")[:3])

ties = np.array([3, 1, 3, 2, 3], dtype=np.int32)
# equal keys: the lowest indices, in order
assert prim.topk(ties, 2)[1].tolist() == [0, 2]

rows = rng.random((100, 4096), dtype=np.float32)
v, i = prim.topk(rows, 32, axis=-1)  # per row (one block per row)
assert np.array_equal(v, -np.sort(-rows, axis=-1)[:, :32])

p = prim.partition(x, [10, 1000])  # numpy.partition's guarantees
assert p[10] == np.partition(x, 10)[10] and p[1000] == np.partition(x, 1000)[1000]
assert np.all(p[:10] <= p[10]) and not np.any(p[1001:] < p[1000])  # NaN: last
idx = prim.argpartition(x, -1)  # the largest last (NaN: largest)
assert np.isnan(x[idx[-1]])
# end-example

print("top 5:", values, "at", indices, "| smallest:", small)

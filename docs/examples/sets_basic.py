"""unique, run-length encoding and reduce-by-key, checked against NumPy."""

import numpy as np

# begin-example
import primitives as prim

rng = np.random.default_rng(0)
x = rng.integers(0, 1000, 100_000).astype(np.uint32)

u, counts = prim.unique(x, return_counts=True)  # one sort, one pass of the run kernel
want_u, want_counts = np.unique(x, return_counts=True)
assert np.array_equal(u, want_u) and np.array_equal(counts, want_counts)

u, index, inverse = prim.unique(x, return_index=True, return_inverse=True)
assert np.array_equal(u[inverse], x) and np.array_equal(x[index], u)

rows = rng.integers(0, 3, (5_000, 3)).astype(np.int16)
assert np.array_equal(prim.unique(rows, axis=0), np.unique(rows, axis=0))

runs = np.array([7, 7, 7, 2, 2, 7, 5, 5, 5, 5], dtype=np.int8)
values, lengths = prim.run_length_encode(runs)  # runs of consecutive equal elements
assert values.tolist() == [7, 2, 7, 5] and lengths.tolist() == [3, 2, 1, 4]

keys = np.repeat(rng.integers(0, 50, 2_000), 16).astype(np.int32)  # runs of 16
vals = rng.random(keys.size).astype(np.float32)
k, sums = prim.reduce_by_key(keys, vals)  # op="sum": one pass over keys and values
starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
assert np.array_equal(k, keys[starts])
assert np.allclose(sums, np.add.reduceat(vals, starts), rtol=1e-5)

# group equal keys anywhere
g, maxima = prim.reduce_by_key(keys, vals, "max", sort=True)
assert np.array_equal(g, np.unique(keys))
# end-example

print(
    "unique:",
    u.size,
    "| runs:",
    values,
    lengths,
    "| groups:",
    g.size,
    "| largest sum:",
    float(sums.max()),
)

"""Operators of your own (prim.Op), checked against NumPy."""

import numpy as np

# begin-example
import primitives as prim

rng = np.random.default_rng(0)
x = rng.standard_normal(1_000_000).astype(np.float32)

# an operator is a C++ expression of a and b with its identity
running_max = prim.Op("a > b ? a : b", identity=-np.inf)
assert prim.reduce(x, running_max) == x.max()
assert np.array_equal(prim.inclusive_scan(x, running_max), np.maximum.accumulate(x))

# over an axis, as NumPy's ufunc.reduce: the exclusive or of each row
bits = rng.integers(0, 2**32, (1000, 64), dtype=np.uint32)
xor = prim.Op("a ^ b", identity=0)
rows = prim.reduce(bits, xor, axis=1)
assert np.array_equal(rows, np.bitwise_xor.reduce(bits, axis=1))

# a scan keeps the elements' order, so the operator need not commute: affine maps
# v -> m * v + c (mod 2^32) composed left to right, each packed as m << 32 | c
m = rng.integers(0, 2**32, 1000, dtype=np.uint64) | 1
c = rng.integers(0, 2**32, 1000, dtype=np.uint64)
compose = prim.Op(
    "(((a >> 32) * (b >> 32)) << 32)"
    " | (((a & 0xffffffffull) * (b >> 32) + (b & 0xffffffffull)) & 0xffffffffull)",
    identity=1 << 32,
)
maps = prim.inclusive_scan((m << np.uint64(32)) | c, compose)
v0 = 7  # the last map applied to 7 by composition, and by applying the maps one by one
v = v0
for mi, ci in zip(m.tolist(), c.tolist()):
    v = (mi * v + ci) % 2**32
last = int(maps[-1])
assert ((last >> 32) * v0 + (last & 0xFFFFFFFF)) % 2**32 == v

# segments and runs take operators too: the largest magnitude of each segment
offsets = np.array([0, 10, 10, 400_000, 1_000_000])
absmax = prim.Op("fabsf(a) > fabsf(b) ? a : b", identity=0.0)
got = prim.segmented_reduce(x, offsets, absmax)
for s, (lo, hi) in enumerate(zip(offsets[:-1], offsets[1:])):
    seg = x[lo:hi]
    assert got[s] == (seg[np.argmax(np.abs(seg))] if hi > lo else 0)
keys = np.sort(rng.integers(0, 100, x.size))
uk, best = prim.reduce_by_key(keys, x, running_max)
heads = np.flatnonzero(np.diff(keys, prepend=-1))
assert np.array_equal(best, np.maximum.reduceat(x, heads))

# tuples: several arrays zipped index by index, fields f0, f1, ... of their own dtypes.
# The linear recurrence y[i] = a[i] * y[i-1] + b[i] is the scan of the affine maps
# (a, b), composed in index order; fields=1 returns (and writes) the second field alone
a = rng.uniform(0.5, 1.0, 100_000)
b = rng.standard_normal(100_000)
affine = prim.Op(("a.f0 * b.f0", "b.f0 * a.f1 + b.f1"), identity=(1.0, 0.0))
y = prim.inclusive_scan((a, b), affine, fields=1)
want, acc = np.empty_like(b), 0.0
for i in range(b.size):
    acc = a[i] * acc + b[i]
    want[i] = acc
assert np.allclose(y, want)

# the same recurrence in the max-plus algebra: y[i] = max(y[i-1] + a[i], b[i])
maxplus = prim.Op(("a.f0 + b.f0", "fmax(a.f1 + b.f0, b.f1)"), identity=(0.0, -np.inf))
y = prim.inclusive_scan((a, b), maxplus, fields=1)
acc = -np.inf
for i in range(b.size):
    acc = max(acc + a[i], b[i])
assert np.isclose(y[-1], acc)  # the sums of a grouped, so rounded, otherwise

# an argmax as a (value, index) reduction: one expression whose value is a whole
# tuple, ties broken toward the lower index so that the operator commutes
argmax = prim.Op(
    "b.f0 > a.f0 || (b.f0 == a.f0 && b.f1 < a.f1) ? b : a", identity=(-np.inf, -1)
)
value, index = prim.reduce((x, np.arange(x.size)), argmax)
assert value == x.max() and index == x.argmax()

# map=: a transform of each element as it is read, with no temporary array
squares = prim.sum(x, map="v * v")
assert np.isclose(squares, np.sum(x.astype(np.float64) ** 2), rtol=1e-4)
assert prim.max(x, map="fabsf(v)") == np.abs(x).max()
ints = rng.integers(-1000, 1000, 10_000).astype(np.int32)
assert np.array_equal(prim.inclusive_scan(ints, map="v * v"), np.cumsum(ints * ints))
# along an axis too: the sum of squares of each column, and their running sums down it
grid = ints.reshape(100, 100)
assert np.array_equal(prim.sum(grid, axis=0, map="v * v"), np.sum(grid * grid, axis=0))
assert np.array_equal(
    prim.inclusive_scan(grid, axis=0, map="v * v"), np.cumsum(grid * grid, axis=0)
)
# a histogram of |x|, its range (the min and max of |x|) found on the device
counts, edges = prim.histogram(x, 50, map="fabsf(v)")
numpy_counts, numpy_edges = np.histogram(np.abs(x), 50)
assert np.array_equal(counts, numpy_counts) and np.array_equal(edges, numpy_edges)

# a compile error names the operator and the compiler's first message
try:
    prim.reduce(x, prim.Op("a + bb", identity=0))
except prim.KernelCompileError as err:
    print("error:", str(err).split(" failed")[0])
print("reduce:", prim.reduce(x, running_max), "scan[-1]:", int(maps[-1]))
# end-example

# begin-struct
# a structured array is the tuple of its fields, which the operator names by their names
# (or as f0, f1, ...): the recurrence above over one array of fields mul and add
steps = np.zeros(b.size, dtype=[("mul", "f8"), ("add", "f8")])
steps["mul"], steps["add"] = a, b
affine = prim.Op(("a.mul * b.mul", "b.mul * a.add + b.add"), identity=(1.0, 0.0))
out = prim.inclusive_scan(steps, affine)  # one structured array of steps' dtype
assert out.dtype == steps.dtype and np.allclose(out["add"], want)

# an argmax over (value, index), packed in 12-byte elements: a numpy.void of their dtype
pairs = np.zeros(x.size, dtype=[("value", "f4"), ("index", "i8")])
pairs["value"], pairs["index"] = x, np.arange(x.size)
best = prim.reduce(
    pairs,
    prim.Op(
        "b.value > a.value || (b.value == a.value && b.index < a.index) ? b : a",
        identity=(-np.inf, -1),
    ),
)
assert best["value"] == x.max() and best["index"] == x.argmax()
print("structured:", best)
# end-struct

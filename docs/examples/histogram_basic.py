"""Histograms with primitives, checked against NumPy.

Runs on either backend: on a GPU the arrays are copied to the device and the results come back
as NumPy arrays (pass CuPy arrays to keep them on the device).
"""

import numpy as np

# begin-example
import primitives as prim
from primitives.histograms import VARIANTS

rng = np.random.default_rng(2026)

# numpy.histogram, bin for bin: equal-width bins over a range...
x = rng.normal(0.0, 1.0, 100_000).astype(np.float32)
hist, edges = prim.histogram(x, bins=20, range=(-3, 3))
want, want_edges = np.histogram(x, bins=20, range=(-3, 3))
assert np.array_equal(hist, want) and np.array_equal(edges, want_edges)
assert hist.dtype == np.int64 and edges.dtype == np.float32  # NumPy's dtypes

# ... samples exactly on an edge go where NumPy puts them (the last bin is closed) ...
on_edges = edges.copy()
assert np.array_equal(
    prim.histogram(on_edges, 20, (-3, 3))[0], np.histogram(on_edges, 20, (-3, 3))[0]
)

# ... any monotone edges, weights, density, and the autodetected range. (Weights are
# summed in float64 and returned in their dtype; NumPy sums float32 weights over
# arbitrary edges in float32.)
w = np.abs(x).astype(np.float64)
h, _ = prim.histogram(x, bins=[-3, -1, 0, 0.5, 3], weights=w, density=True)
assert np.allclose(h, np.histogram(x, [-3, -1, 0, 0.5, 3], weights=w, density=True)[0])
assert np.array_equal(prim.histogram(x)[0], np.histogram(x)[0])

# bincount as numpy.bincount.
k = rng.integers(0, 50, 10_000)
assert np.array_equal(prim.bincount(k, minlength=64), np.bincount(k, minlength=64))

# The textbook example: the letters of a text in bins of four (a-d, e-h, ..., y-z).
# Upper case is folded to lower case first; other characters are dropped. histogram_even
# counts the byte codes in [97, 125): seven bins of width four, starting at 'a' (97).
text = (
    "Programming Massively Parallel Processors: histograms count how often values occur"
)
codes = np.frombuffer(text.lower().encode("ascii"), dtype=np.uint8)
letters = codes[(codes >= ord("a")) & (codes <= ord("z"))]
counts = prim.histogram_even(letters, bins=7, lower=ord("a"), upper=ord("a") + 28)
labels = ["a-d", "e-h", "i-l", "m-p", "q-t", "u-x", "y-z"]
by_hand = [
    sum(c in "abcdefghijklmnopqrstuvwxyz"[4 * i : 4 * i + 4] for c in text.lower())
    for i in range(7)
]
assert counts.tolist() == by_hand

# An RGB image: one pass gives the histogram of each channel.
image = rng.integers(0, 256, (480, 640, 3)).astype(np.uint8)
per_channel = prim.histogram_channels(image, bins=256, range=(0, 256))
assert per_channel.shape == (3, 256)
for c in range(3):
    assert np.array_equal(per_channel[c], np.histogram(image[..., c], 256, (0, 256))[0])

# Every variant computes the same bins.
for v in VARIANTS:
    assert np.array_equal(prim.histogram(x, 20, (-3, 3), variant=v)[0], want)
# end-example

print("letters:", dict(zip(labels, counts.tolist())))
print(f"{len(VARIANTS)} variants agree with numpy.histogram on {x.size} samples")

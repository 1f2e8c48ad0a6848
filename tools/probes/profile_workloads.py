"""Workloads for a kernel profiler (GPU only): each runs one public call a few times on random
data, so that e.g. Nsight Compute can pick one launch of the kernel of interest::

    ncu --kernel-name regex:onesweep_pass --launch-skip 6 --launch-count 1 \\
        python -m tools.probes.profile_workloads sort

Workloads: sort (uint32 keys, 2^27), scan (inclusive sum int32, 2^28), histogram (float32, 256
bins, 2^28), segreduce (segmented_reduce float32, 2^16 x 2^12), ragged (2^22 segments of 0-128),
search (searchsorted of 2^24 float32 queries into 2^26, the indexed variant), search_small (the
same queries into 2^16).
"""

import sys

import cupy
import numpy as np

import primitives as prim

rng = np.random.default_rng(7)


def sort():
    x = cupy.asarray(rng.integers(0, 2**32, 1 << 27, dtype=np.uint32))
    return lambda: prim.sort(x)


def scan():
    x = cupy.asarray(rng.integers(-1000, 1000, 1 << 28, dtype=np.int32))
    return lambda: prim.inclusive_scan(x, dtype=np.int32)


def histogram():
    x = cupy.asarray(rng.random(1 << 28, dtype=np.float32))
    return lambda: prim.histogram(x, bins=256, range=(0.0, 1.0))


def segreduce():
    x = cupy.asarray(rng.random(1 << 28, dtype=np.float32))
    offsets = cupy.arange(0, (1 << 28) + 1, 1 << 12, dtype=np.int64)
    return lambda: prim.segmented_reduce(x, offsets)


def ragged():
    lengths = rng.integers(0, 129, 1 << 22)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    x = cupy.asarray(rng.random(int(offsets[-1]), dtype=np.float32))
    off = cupy.asarray(offsets)
    return lambda: prim.segmented_reduce(x, off)


def _search(n):
    a = cupy.sort(cupy.asarray(rng.random(n, dtype=np.float32)))
    v = cupy.asarray(rng.random(1 << 24, dtype=np.float32))
    return lambda: prim.searchsorted(a, v, variant="indexed")


def search():
    return _search(1 << 26)


def search_small():
    return _search(1 << 16)


if __name__ == "__main__":
    fn = globals()[sys.argv[1]]()
    for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 3):
        fn()
    cupy.cuda.get_current_stream().synchronize()

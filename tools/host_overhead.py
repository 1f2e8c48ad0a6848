"""Host time of one radix sort call (GPU only): from the call to its first kernel launch (the
GPU waits that long when it is idle at the call, which the timing of a sort includes), and the
whole call (the kernels are only queued), for uint32 keys, 2^27 and 2^10 of them.

    python tools/host_overhead.py [--profile]

Medians of 50 calls, each after a synchronize, by time.perf_counter. ``--profile`` then prints
the functions that take the most host time over 200 calls (cProfile, by own time).
"""
import cProfile
import pstats
import statistics
import sys
import time
from unittest import mock

import cupy
import numpy as np

import primitives as prim
from primitives import sorting


def host_times(fn, calls=50):
    first = []
    orig = sorting._go

    def go(*args, **kwargs):
        if not first:
            first.append(time.perf_counter())
        return orig(*args, **kwargs)
    lead, whole = [], []
    with mock.patch.object(sorting, "_go", go):
        for _ in range(5 + calls):
            cupy.cuda.Device().synchronize()
            first.clear()
            t0 = time.perf_counter()
            fn()
            t1 = time.perf_counter()
            lead.append((first[0] - t0) * 1e6)
            whole.append((t1 - t0) * 1e6)
    return statistics.median(lead[5:]), statistics.median(whole[5:])


def main(argv):
    rng = np.random.default_rng(3)
    for log2n in (27, 10):
        x = cupy.asarray(rng.integers(0, 2**32, 1 << log2n, dtype=np.uint32))
        lead, whole = host_times(lambda x=x: prim.sort(x))
        print(f"sort uint32 2^{log2n}: to the first launch {lead:.1f} us, whole call "
              f"{whole:.1f} us", flush=True)
    if "--profile" in argv:
        pr = cProfile.Profile()
        for _ in range(200):
            cupy.cuda.Device().synchronize()
            pr.enable()
            prim.sort(x)
            pr.disable()
        pstats.Stats(pr).sort_stats("tottime").print_stats(20)


if __name__ == "__main__":
    main(sys.argv[1:])

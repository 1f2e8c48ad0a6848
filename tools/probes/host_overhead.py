"""Host time of one radix sort call (GPU only): from the call to its first kernel launch (the
GPU waits that long when it is idle at the call, which the timing of a sort includes), and the
whole call (the kernels are only queued), for uint32 keys, 2^27 and 2^10 of them: ``prim.sort``
after a first call filed its plan (no checks, prepared launches), the same sort through the
checks (the checked path of ``prim.sort``, which then takes the same plan) and through an
explicit plan (``prim.plan(prim.sort, x)``).

    python -m tools.probes.host_overhead [--pieces] [--profile]

Medians of 50 calls, each right after a synchronize, by time.perf_counter ("first launch":
when the histogram's launch call returns); then the host time of one launch of the histogram
kernel through CuPy's RawKernel call and prepared (a primitives._core.plans.Launch with
Launch.SLOT arguments: cuLaunchKernel on parameter words built once), the mean of 2000 launches
over 2^10 keys. ``--pieces`` then
times pieces of the path to the first launch, each alone right after a synchronize on a few
milliseconds of GPU work (code and data are then cold, as in a timed call). ``--profile`` then
prints the functions that take the most host time over 200 calls (cProfile, by own time).
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
from primitives._core import launch as _launch, plans as _plans


def checked(x):
    """``prim.sort(x)`` through its checks (the path of a first call), then its plan."""
    return prim.radix_sort.entry.prepare(x)()


def host_times(fn, calls=50, busy=None):
    """Medians (us) of: the call to the end of its first launch call, and the whole call."""
    first = []
    orig = _plans.Launch.__call__

    def go(*args, **kwargs):
        out = orig(*args, **kwargs)
        if not first:
            first.append(time.perf_counter())
        return out

    lead, whole = [], []
    with mock.patch.object(_plans.Launch, "__call__", go):
        for _ in range(5 + calls):
            if busy is not None:
                busy()
            cupy.cuda.Device().synchronize()
            first.clear()
            t0 = time.perf_counter()
            fn()
            t1 = time.perf_counter()
            lead.append((first[0] - t0) * 1e6)
            whole.append((t1 - t0) * 1e6)
    return statistics.median(lead[5:]), statistics.median(whole[5:])


def cold(fn, busy, calls=50):
    """Median host microseconds of ``fn()`` right after a synchronize on ``busy()``."""
    out = []
    for _ in range(5 + calls):
        busy()
        cupy.cuda.Device().synchronize()
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(out[5:])


def histogram_launches(x):
    """The histogram's launch for ``x`` (uint32 keys): through CuPy's call, and prepared."""
    h = prim.plan(prim.sort, x).core.hist  # the library's launch: kernel, grid, block, smem
    hist = cupy.zeros(4 * 256 + 1, dtype=np.uint32)
    args = (x, _launch.i64(x.size), np.int32(0), np.int32(0), np.int32(0), np.int32(32), hist)
    prepared = _plans.Launch(
        h.kernel, h.grid, h.block, h.shared_mem, args=(_plans.Launch.SLOT,) + args[1:]
    )
    return (
        (lambda: h.kernel(h.grid, h.block, args, shared_mem=h.shared_mem)),
        (lambda: prepared(x)),
        prepared,
    )


def pieces(x):
    """Cold host time of the pieces of the path from the call to the histogram's launch."""
    from cupy_backends.cuda.api import driver

    big = cupy.asarray(np.random.default_rng(4).integers(0, 2**32, 1 << 27, dtype=np.uint32))

    def busy():
        cupy.sort(big)  # a few ms of GPU work, not through this library's code

    through_cupy, prepared, p = histogram_launches(x)
    rows = {
        "nothing (the timer)": lambda: None,
        "finding the filed plan": lambda: _plans.PLANS.find(prim.sort.entry.key((x,), {})),
        "histogram launch through CuPy's call": through_cupy,
        "histogram launch prepared": prepared,
        "cuLaunchKernel alone": lambda: driver.launchKernel(*p.direct.argv),
        "cupy.empty(n)": lambda: cupy.empty(x.size, dtype=np.uint32),
        "prim.sort (the whole call)": lambda: prim.sort(x),
    }
    for name, fn in rows.items():
        print(f"cold host time: {name}: {cold(fn, busy):.2f} us", flush=True)
    plan = prim.plan(prim.sort, x)
    for name, fn in (
        ("sort", lambda: prim.sort(x)),
        ("checked", lambda: checked(x)),
        ("plan", lambda: plan(x)),
    ):
        lead, whole = host_times(fn, busy=busy)
        print(
            f"cold {name} 2^{x.size.bit_length() - 1}: to the first launch {lead:.1f} us, "
            f"whole call {whole:.1f} us",
            flush=True,
        )


def main(argv):
    rng = np.random.default_rng(3)
    for log2n in (27, 10):
        x = cupy.asarray(rng.integers(0, 2**32, 1 << log2n, dtype=np.uint32))
        prim.sort(x)  # files the plan
        plan = prim.plan(prim.sort, x)
        for name, fn in (
            ("sort", lambda: prim.sort(x)),
            ("checked", lambda: checked(x)),
            ("plan", lambda: plan(x)),
        ):
            lead, whole = host_times(fn)
            print(
                f"{name} uint32 2^{log2n}: to the first launch {lead:.1f} us, whole call "
                f"{whole:.1f} us",
                flush=True,
            )
    for how, fn in zip(("through CuPy's call", "prepared"), histogram_launches(x)[:2]):
        per = []
        for _ in range(10):
            cupy.cuda.Device().synchronize()
            t0 = time.perf_counter()
            for _ in range(200):
                fn()
            per.append((time.perf_counter() - t0) / 200 * 1e6)
        print(f"one histogram launch {how}: {statistics.median(per):.2f} us", flush=True)
    if "--pieces" in argv:
        pieces(x)
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

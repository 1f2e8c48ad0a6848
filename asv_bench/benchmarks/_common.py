"""Shared pieces of the benchmarks: the backend requirement, device data, event timing and the
tracked values.

The benchmarks call the public API only (``primitives.sum``, ``primitives.sort``, ...,
``primitives.<module>.VARIANTS``), so that the same suite runs against older commits
(``tools/asv_history.sh``): a benchmark whose function does not exist at a commit raises
``NotImplementedError`` in ``setup``, which asv records as skipped.

On any backend but CUDA, ``setup`` raises ``NotImplementedError`` too (emulator timings say
nothing about a GPU). ``PRIMITIVES_ASV_SMOKE=1`` lifts that for a check of the suite itself:
the benchmarks then run on the emulator at tiny sizes (the numbers mean nothing) and the peers,
which need CuPy, skip.

The base class is named ``_Timed``: asv collects every public class it finds in a benchmark
module, imported ones included, and skips names that start with an underscore.
"""

import importlib
import os
import time

import numpy as np

import primitives as prim

WARMUP, REPEAT = 5, 30
SMOKE = os.environ.get("PRIMITIVES_ASV_SMOKE", "") not in ("", "0")
SMOKE_N = 1 << 12  # the size every benchmark shrinks to in a smoke run
# PRIMITIVES_ASV_SIZE_CAP=N caps every size (tools/asv_history.sh --warm: compile every kernel
# of the suite at small sizes first, in parallel over commits, into CuPy's on-disk cache)
SIZE_CAP = int(os.environ.get("PRIMITIVES_ASV_SIZE_CAP", "0") or 0)


def on_gpu():
    return prim.backend_info()["backend"] == "cuda"


def require_cuda():
    """Raise ``NotImplementedError`` (asv: skipped) unless the CUDA backend runs the kernels."""
    info = prim.backend_info()
    if info["backend"] != "cuda" and not SMOKE:
        raise NotImplementedError(
            f"GPU benchmark: backend is {info['backend']!r} ({info['reason']})"
        )


def require_cupy():
    """The peers need CuPy and a GPU."""
    require_cuda()
    if not on_gpu():
        raise NotImplementedError("peer benchmark: needs CuPy on a GPU")
    import cupy

    return cupy


def public(name):
    """``primitives.<name>`` (dotted names allowed), or ``NotImplementedError`` when this commit
    has no such function: asv then skips the benchmark."""
    obj = prim
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise NotImplementedError(f"primitives.{name} does not exist at this commit")
    return obj


def module_attr(modules, name, default):
    """``primitives.<module>.<name>`` from the first of ``modules`` (names it had over the
    project's history) that has it, else ``default``."""
    for module in modules.split():
        try:
            return getattr(importlib.import_module(f"primitives.{module}"), name)
        except (ImportError, AttributeError):
            continue
    return default


def variants(modules, default=("auto",)):
    """``primitives.<module>.VARIANTS`` of the installed tree (the first of the space-separated
    ``modules`` that has it), or ``default`` where none does yet: the params must not depend on
    a failing import."""
    return list(module_attr(modules, "VARIANTS", default))


def size(n):
    """``n`` on the GPU; a small size in a smoke run on the emulator or under a size cap."""
    if SIZE_CAP:
        n = min(n, SIZE_CAP)
    return n if on_gpu() else min(n, SMOKE_N)


def xp():
    if on_gpu():
        import cupy

        return cupy
    return np


def device_data(n, dtype, seed=2026):
    """Random data on the backend's device, never zero (a zero-filled input could hide a kernel
    that skips work): floats in [0.5, 1.5), integers in [1, 1000)."""
    mod = xp()
    rng = mod.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return rng.random(n, dtype=dt) + dt.type(0.5)
    if dt.itemsize == 1:
        return rng.integers(0, 256, n, dtype=np.int32).astype(dt)
    return rng.integers(1, 1000, n, dtype=dt)


def sync():
    if on_gpu():
        import cupy

        cupy.cuda.get_current_stream().synchronize()


def bench(fn, warmup=WARMUP, repeat=REPEAT):
    """Median time of one call of ``fn``, ms: CUDA events around each call on the GPU
    (``perf_counter`` on the emulator), after ``warmup`` calls."""
    for _ in range(warmup):
        fn()
    times = []
    if on_gpu():
        import cupy

        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        for _ in range(repeat):
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(cupy.cuda.get_elapsed_time(start, end))
    else:
        for _ in range(min(repeat, 3)):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times))


def gbps(nbytes, ms):
    return nbytes / (ms * 1e-3) / 1e9


class _Timed:
    """Tracks the median event time of ``self.fn`` and the rate over ``self.bytes`` (the bytes
    the operation must move at least once). Subclasses set both in ``setup``."""

    def track_time_ms(self, *params):
        """Median event time of one call, ms."""
        return bench(self.fn)

    track_time_ms.unit = "ms"

    def track_gbps(self, *params):
        """Bytes the operation must move over that time, GB/s."""
        return gbps(self.bytes, bench(self.fn))

    track_gbps.unit = "GB/s"

    def teardown(self, *params):
        self.__dict__.clear()

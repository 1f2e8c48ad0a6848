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
import importlib.util
import itertools
import os
import pathlib
import sys
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


#: the workloads of every family (primitives/testing/workloads/ of this tree)
WORKLOADS = pathlib.Path(__file__).resolve().parents[2] / "primitives" / "testing" / "workloads"


def workloads(family=None):
    """The workloads of ``family`` (``primitives/testing/workloads/<family>.py``; None: the
    package), loaded from this tree by their path, not from the ``primitives`` under test:
    every commit is measured on the same workloads, and older commits have none."""
    package = "_asv_workloads"
    if package not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            package, WORKLOADS / "__init__.py", submodule_search_locations=[str(WORKLOADS)]
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules[package] = module
        spec.loader.exec_module(module)
    return importlib.import_module(package if family is None else f"{package}.{family}")


def shaped(shape):
    """``shape`` (an int or a tuple) shrunk as :func:`size` shrinks sizes: its elements, and a
    matrix's columns."""
    if isinstance(shape, int) or len(shape) == 1:
        return size(int(np.prod(shape)))
    cols = min(size(shape[-1]), shape[-1])
    return (size(int(np.prod(shape))) // cols, cols)


def make(data, shape, dtype="float32", seed=0, **params):
    """A workload's inputs (``workloads.make``) on the backend's device, shrunk by
    :func:`shaped`."""
    return workloads().make(data, shaped(shape), dtype, seed, xp(), **params)


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
    (``perf_counter`` on the emulator), after ``warmup`` calls (and after the default-level
    images of kernels first run fast-compiled, where the package compiles in tiers: warmed up
    again on them)."""
    for _ in range(warmup):
        fn()
    wait = getattr(getattr(prim, "tuning", None), "wait_for_compiles", None)  # newer commits
    if wait is not None and wait():
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
    """The full suite's base: a subclass sets ``params``/``param_names`` and a
    ``prepare(*params)`` that sets ``self.fn`` (one call of the operation) and ``self.bytes`` (what
    it must move at least once), optionally ``self.extra`` (more tracked values by name), or
    raises ``NotImplementedError`` (skipped).

    Each benchmark module defines one ``setup_cache`` for all its classes (``_Module`` there:
    asv keys the cache on the function's module and line), which calls :meth:`measure`: every
    parameter combination of every class of the module is prepared, timed once and freed, in
    one process (one CuPy start-up, one compile per kernel). ``track_time_ms`` and ``track_gbps``
    then read the same timing, so the suite costs one measurement per combination."""

    timeout = 1800

    @staticmethod
    def measure(base):
        """Every combination of every public subclass of ``base``: ``{(class, params): entry}``
        with entry ``("ms", time, bytes, extra)``, ``("skip", why)`` or ``("error", what)``."""
        if not on_gpu() and not SMOKE:
            info = prim.backend_info()
            return {"skip": f"GPU benchmark: backend is {info['backend']!r} ({info['reason']})"}
        out, todo = {}, list(base.__subclasses__())
        while todo:
            cls = todo.pop(0)
            todo += cls.__subclasses__()
            if cls.__name__.startswith("_"):
                continue
            for p in itertools.product(*cls.params):
                out[cls.__name__, p] = cls()._measure_one(p)
        return out

    def _measure_one(self, params):
        try:
            self.prepare(*params)
            ms = bench(self.fn)
            return ("ms", ms, self.bytes, dict(getattr(self, "extra", {})))
        except NotImplementedError as exc:
            return ("skip", str(exc))
        except Exception as exc:  # noqa: BLE001 - reported by this combination's benchmarks
            return ("error", f"{type(exc).__name__}: {exc}")
        finally:
            self.__dict__.clear()
            free_memory()

    def _entry(self, cache, params):
        if "skip" in cache:
            raise NotImplementedError(cache["skip"])
        entry = cache.get((type(self).__name__, tuple(params)))
        if entry is None:
            raise NotImplementedError(f"{type(self).__name__}{tuple(params)} was not measured")
        if entry[0] == "skip":
            raise NotImplementedError(entry[1])
        if entry[0] == "error":
            raise RuntimeError(entry[1])
        return entry

    def setup(self, cache, *params):
        self._entry(cache, params)  # skipped or failed combinations stop here

    def track_time_ms(self, cache, *params):
        """Median CUDA-event time of one call, ms."""
        return self._entry(cache, params)[1]

    track_time_ms.unit = "ms"

    def track_gbps(self, cache, *params):
        """Bytes the operation must move at least once over that time, GB/s."""
        _, ms, nbytes, _ = self._entry(cache, params)
        return gbps(nbytes, ms)

    track_gbps.unit = "GB/s"


def free_memory():
    """Give the pool's cached blocks back between combinations (the next one's inputs may be
    large)."""
    if on_gpu():
        import cupy

        cupy.get_default_memory_pool().free_all_blocks()

"""Timing: median of CUDA-event times after warm-up on the GPU; wall-clock on the emulator."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Hashable, Mapping
from contextlib import AbstractContextManager as ContextManager
from typing import TypeVar

import numpy as np

from . import backend as _backend, loader as _loader

__all__ = ["bench", "bench_many", "copy_bandwidth"]

_K = TypeVar("_K", bound=Hashable)


def bench(
    fn: Callable[[], object], *, warmup: int = 5, repeat: int = 30, settle: bool = True
) -> float:
    """Median milliseconds of ``fn()``, timed with events on the current stream (GPU) or
    ``time.perf_counter`` (emulator). ``fn`` is called ``warmup`` times first; with ``settle``
    (the default) the kernels compiled on first use run their default-level images then
    (:func:`primitives._core.loader.settle`; False times the images running now)."""
    return statistics.median(_samples(fn, warmup, repeat, settle))


def bench_many(
    fns: Mapping[_K, Callable[[], object]],
    *,
    rounds: int = 5,
    warmup: int = 5,
    repeat: int = 20,
    within: Mapping[_K, Callable[[], ContextManager[object]]] | None = None,
) -> dict[_K, float]:
    """Median milliseconds of each of ``fns`` (a dict name -> callable), measured in interleaved
    rounds (a, b, c, a, b, c, ...) so that clock or thermal drift during the run affects every
    contender alike. Each round warms up and takes ``repeat`` samples; the median is over all.
    ``within``: for some names, a context (``within[name]()``) entered around each of that
    contender's rounds, warm-up included: a tuning override (:func:`primitives.tuning.override`)
    entered once a round, not once a call, whose host time would count in every sample."""
    samples: dict[_K, list[float]] = {name: [] for name in fns}
    within = within or {}
    for _ in range(rounds):
        for name, fn in fns.items():
            ctx = within.get(name)
            if ctx is None:
                samples[name] += _samples(fn, warmup, repeat)
            else:
                with ctx():
                    samples[name] += _samples(fn, warmup, repeat)
    return {name: statistics.median(v) for name, v in samples.items()}


def _samples(
    fn: Callable[[], object], warmup: int, repeat: int, settle: bool = True
) -> list[float]:
    backend = _backend.get_backend()
    for _ in range(warmup):
        fn()
    if settle and _loader.settle():  # time the default-level images every later call runs
        for _ in range(warmup):
            fn()
    times: list[float] = []
    if backend.is_cuda:
        import cupy

        stream = cupy.cuda.get_current_stream()
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        for _ in range(repeat):
            start.record(stream)
            fn()
            stop.record(stream)
            stop.synchronize()
            times.append(cupy.cuda.get_elapsed_time(start, stop))
    else:
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
    return times


def copy_bandwidth(nbytes: int, *, warmup: int = 3, repeat: int = 20) -> float:
    """Measured device-to-device copy rate in GB/s, counting bytes read plus bytes written."""
    backend = _backend.get_backend()
    xp = backend.xp
    n = nbytes // 4
    src = xp.arange(n, dtype=np.float32)
    dst = xp.empty_like(src)
    ms = bench(lambda: backend.copy_into(dst, src), warmup=warmup, repeat=repeat)
    return 2 * n * 4 / (ms * 1e-3) / 1e9

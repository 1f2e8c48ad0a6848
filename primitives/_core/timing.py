"""Timing: median of CUDA-event times after warm-up on the GPU; wall-clock on the emulator.

On the GPU each sample times the device's work alone: the stream is held busy (one thread of
``kernels/core/hold.cu`` reading the SM clock) for longer than the call's host work takes, and
the start event is recorded behind the hold, so the call's checks, plan lookup and launches are
done while the hold runs and its kernels follow the start event back to back (as NVIDIA's
nvbench times behind a blocking kernel). ``hold=False`` times the call as one made on an idle
device: its host work before the first launch counts too (``tools.probes.small_calls``).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Hashable, Mapping
from contextlib import AbstractContextManager as ContextManager
from typing import TypeVar

import numpy as np

from . import backend as _backend, loader as _loader, plans as _plans

HOLD_SOURCE = "core/hold.cu"
HOLD_NAME = "hold_stream<0>"
_loader.register(HOLD_SOURCE, [HOLD_NAME])
#: the hold before a sample: twice the call's host time (its warm-up calls' median) plus
#: HOLD_MIN_US, at most HOLD_MAX_US (a call that waits for the device inside gains nothing from
#: a longer one); HOLD_UNKNOWN_US with no warm-up call to measure
HOLD_MIN_US, HOLD_MAX_US, HOLD_UNKNOWN_US = 20.0, 2000.0, 500.0
#: the SM clock assumed where the device does not report its own (kHz): high, so a hold lasts
#: at least the time asked
_FALLBACK_CLOCK_KHZ = 3_000_000

__all__ = ["bench", "bench_many", "copy_bandwidth", "hold_us"]

_K = TypeVar("_K", bound=Hashable)


def bench(
    fn: Callable[[], object],
    *,
    warmup: int = 5,
    repeat: int = 30,
    settle: bool = True,
    hold: bool = True,
) -> float:
    """Median milliseconds of ``fn()``, timed with events on the current stream (GPU) or
    ``time.perf_counter`` (emulator). ``fn`` is called ``warmup`` times first; with ``settle``
    (the default) the kernels compiled on first use run their default-level images then
    (:func:`primitives._core.loader.settle`; False times the images running now). ``hold``
    (the default): the device's time alone, the call's host work done behind a hold of the
    stream (the module's docstring); False: the host's time before the first launch counts."""
    return statistics.median(_samples(fn, warmup, repeat, settle, hold))


def bench_many(
    fns: Mapping[_K, Callable[[], object]],
    *,
    rounds: int = 5,
    warmup: int = 5,
    repeat: int = 20,
    within: Mapping[_K, Callable[[], ContextManager[object]]] | None = None,
    hold: bool = True,
) -> dict[_K, float]:
    """Median milliseconds of each of ``fns`` (a dict name -> callable), measured in interleaved
    rounds (a, b, c, a, b, c, ...) so that clock or thermal drift during the run affects every
    contender alike. Each round warms up and takes ``repeat`` samples; the median is over all.
    ``within``: for some names, a context (``within[name]()``) entered around each of that
    contender's rounds, warm-up included: a tuning override (:func:`primitives.tuning.override`)
    entered once a round, not once a call, whose host time would count in every sample.
    ``hold``: as :func:`bench`'s."""
    samples: dict[_K, list[float]] = {name: [] for name in fns}
    within = within or {}
    for _ in range(rounds):
        for name, fn in fns.items():
            ctx = within.get(name)
            if ctx is None:
                samples[name] += _samples(fn, warmup, repeat, hold=hold)
            else:
                with ctx():
                    samples[name] += _samples(fn, warmup, repeat, hold=hold)
    return {name: statistics.median(v) for name, v in samples.items()}


class _Hold(_plans.Plan):
    """The launch of the hold (one per device and stream) and the device's clock rate."""

    def __init__(self, backend: _backend.Backend) -> None:
        kern = _loader.load(HOLD_SOURCE, [HOLD_NAME])(HOLD_NAME)
        self.launch = _plans.Launch(kern, 1, 1, args=(_plans.Launch.SLOT,))
        self.cycles_per_us = (backend.device_info().clock_khz or _FALLBACK_CLOCK_KHZ) / 1e3

    def __call__(self, us: float) -> None:
        self.launch(np.int64(us * self.cycles_per_us))


def _hold(backend: _backend.Backend) -> _Hold:
    key = ("timing/hold", backend.device_id(), _plans.stream_key())
    return _plans.PLANS.get(key, lambda: _Hold(backend))


def hold_us(host_us: list[float]) -> float:
    """How long the stream is held before each sample, from the host times (us) of the warm-up
    calls."""
    if not host_us:
        return HOLD_UNKNOWN_US
    return min(HOLD_MAX_US, 2.0 * statistics.median(host_us) + HOLD_MIN_US)


def _samples(
    fn: Callable[[], object], warmup: int, repeat: int, settle: bool = True, hold: bool = True
) -> list[float]:
    backend = _backend.get_backend()
    # made before the warm-up, so that its kernel's first compile is settled with the call's
    held = _hold(backend) if hold and backend.is_cuda else None
    host_us: list[float] = []

    def warm() -> None:
        for _ in range(warmup):
            t0 = time.perf_counter()
            fn()
            host_us.append((time.perf_counter() - t0) * 1e6)

    warm()
    if settle and _loader.settle():  # time the default-level images every later call runs
        host_us.clear()
        warm()
    times: list[float] = []
    if backend.is_cuda:
        import cupy

        stream = cupy.cuda.get_current_stream()
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        us = hold_us(host_us)
        for _ in range(repeat):
            if held is not None:
                held(us)
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

"""Shared pieces of the GPU benchmarks: the CUDA-backend requirement and event-timed tracks.

On any backend but CUDA, ``require_cuda`` raises ``NotImplementedError``, which asv reports as a
skipped benchmark (emulator timings say nothing about a GPU).
"""

import numpy as np

import primitives as prim
from primitives._core import timing as _timing

WARMUP, REPEAT = 5, 30


def require_cuda():
    info = prim.backend_info()
    if info["backend"] != "cuda":
        raise NotImplementedError(
            f"GPU benchmark: backend is {info['backend']!r} ({info['reason']})"
        )


def device_data(n, dtype):
    """Random device data, never zero (a zero-filled input could hide a kernel that skips work):
    floats in [0.5, 1.5), integers in [1, 1000)."""
    import cupy

    rng = cupy.random.default_rng(2026)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return rng.random(n, dtype=dt) + dt.type(0.5)
    return rng.integers(1, 1000, n, dtype=dt)


def gbps(nbytes, ms):
    return nbytes / (ms * 1e-3) / 1e9


class Timed:
    """Tracks the median CUDA-event time of ``self.fn`` and the rate over ``self.bytes``."""

    def track_time_ms(self, *params):
        """Median CUDA-event time of one call, ms."""
        return _timing.bench(self.fn, warmup=WARMUP, repeat=REPEAT)

    track_time_ms.unit = "ms"

    def track_gbps(self, *params):
        """Bytes the operation must move over that time, GB/s."""
        return gbps(self.bytes, _timing.bench(self.fn, warmup=WARMUP, repeat=REPEAT))

    track_gbps.unit = "GB/s"

    def teardown(self, *params):
        self.fn = None

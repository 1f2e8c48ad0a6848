"""Reduction benchmarks: every variant of ``primitives.reduce`` and ``cupy.sum`` as the peer.

GPU only: on any other backend ``setup`` raises ``NotImplementedError``, which asv reports as a
skipped benchmark (emulator timings say nothing about GPU performance). Times are medians of
CUDA-event timings of 30 calls after 5 warm-up calls (``primitives._timing.bench``); GB/s counts
the bytes read.
"""

import numpy as np

import primitives as prim
from primitives import _timing
from primitives.reduction import VARIANTS

SIZES = [2**20, 2**24, 2**28]
DTYPES = ["float32", "int32", "float64"]
WARMUP, REPEAT = 5, 30


from ._common import require_cuda as _require_cuda  # noqa: E402


def _device_data(n, dtype):
    """Random device data, never zero (a zero-filled input could hide a kernel that skips work)."""
    import cupy

    rng = cupy.random.default_rng(2026)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return rng.random(n, dtype=dt) + dt.type(0.5)
    return rng.integers(1, 1000, n, dtype=dt)


def _gbps(nbytes, ms):
    return nbytes / (ms * 1e-3) / 1e9


class Reduce:
    """``prim.reduce(x, "sum", variant=v)`` on device arrays."""

    params = [list(VARIANTS), SIZES, DTYPES]
    param_names = ["variant", "n", "dtype"]
    timeout = 600

    def setup(self, variant, n, dtype):
        _require_cuda()
        self.x = _device_data(n, dtype)
        self.fn = lambda: prim.reduce(self.x, "sum", variant=variant)
        self.fn()  # compile and plan
        import cupy

        cupy.cuda.get_current_stream().synchronize()

    def teardown(self, variant, n, dtype):
        self.x = self.fn = None

    def track_time_ms(self, variant, n, dtype):
        return _timing.bench(self.fn, warmup=WARMUP, repeat=REPEAT)

    track_time_ms.unit = "ms"

    def track_gbps(self, variant, n, dtype):
        return _gbps(self.x.nbytes, _timing.bench(self.fn, warmup=WARMUP, repeat=REPEAT))

    track_gbps.unit = "GB/s"


class CupySum:
    """The peer: ``cupy.sum(x)`` on the same data (same result dtypes as ``prim.sum``)."""

    params = [SIZES, DTYPES]
    param_names = ["n", "dtype"]
    timeout = 600

    def setup(self, n, dtype):
        _require_cuda()
        import cupy

        self.x = _device_data(n, dtype)
        self.fn = lambda: cupy.sum(self.x)
        self.fn()
        cupy.cuda.get_current_stream().synchronize()

    def teardown(self, n, dtype):
        self.x = self.fn = None

    def track_time_ms(self, n, dtype):
        return _timing.bench(self.fn, warmup=WARMUP, repeat=REPEAT)

    track_time_ms.unit = "ms"

    def track_gbps(self, n, dtype):
        return _gbps(self.x.nbytes, _timing.bench(self.fn, warmup=WARMUP, repeat=REPEAT))

    track_gbps.unit = "GB/s"

"""Shared pieces of the GPU benchmarks: the CUDA-backend requirement and event-timed tracks.

On any backend but CUDA, ``require_cuda`` raises ``NotImplementedError``, which asv reports as a
skipped benchmark (emulator timings say nothing about a GPU).
"""

import primitives as prim
from primitives import _timing

WARMUP, REPEAT = 5, 30


def require_cuda():
    info = prim.backend_info()
    if info["backend"] != "cuda":
        raise NotImplementedError(
            f"GPU benchmark: backend is {info['backend']!r} ({info['reason']})"
        )


def gbps(nbytes, ms):
    return nbytes / (ms * 1e-3) / 1e9


class Timed:
    """Tracks the median CUDA-event time of ``self.fn`` and the rate over ``self.bytes``."""

    def track_time_ms(self, *params):
        return _timing.bench(self.fn, warmup=WARMUP, repeat=REPEAT)

    track_time_ms.unit = "ms"

    def track_gbps(self, *params):
        return gbps(self.bytes, _timing.bench(self.fn, warmup=WARMUP, repeat=REPEAT))

    track_gbps.unit = "GB/s"

    def teardown(self, *params):
        self.fn = None

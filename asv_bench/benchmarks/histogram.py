"""Histogram benchmarks: every variant of ``primitives.histogram_even`` on uniform and contended
data, the public functions at 256 to 2^20 bins, and ``cupy.histogram`` / ``cupy.bincount`` as
peers.

GPU only: on any other backend ``setup`` raises ``NotImplementedError``, which asv reports as a
skipped benchmark (emulator timings say nothing about GPU performance). Times are medians of
CUDA-event timings of 30 calls after 5 warm-up calls (``primitives._core.timing.bench``); GB/s counts
the samples read.
"""

import primitives as prim
from primitives.histograms import VARIANTS

from ._common import Timed, require_cuda

N = 2**26


def _samples(kind, n):
    """Random device samples: uint8 uniform, uint8 all equal, float32 uniform in [0, 1)."""
    import cupy

    rng = cupy.random.default_rng(2026)
    if kind == "uint8-uniform":
        return rng.integers(0, 256, n, dtype=cupy.int32).astype(cupy.uint8)
    if kind == "uint8-equal":
        return cupy.full(n, 77, dtype=cupy.uint8)
    return rng.random(n, dtype=cupy.float32)


def _sync():
    import cupy

    cupy.cuda.get_current_stream().synchronize()


class _Timed(Timed):
    """The shared tracks; GB/s counts the samples read once."""

    @property
    def bytes(self):
        return self.x.nbytes

    def teardown(self, *args):
        self.x = self.fn = None


class Variants(_Timed):
    """``histogram_even(x, 256, lo, hi, variant=v)``: the textbook sequence on 2^26 samples."""

    params = [list(VARIANTS), ["uint8-uniform", "uint8-equal", "float32-uniform"]]
    param_names = ["variant", "data"]
    timeout = 600

    def setup(self, variant, data):
        require_cuda()
        self.x = _samples(data, N)
        hi = 1.0 if data.startswith("float32") else 256
        self.fn = lambda: prim.histogram_even(self.x, 256, 0, hi, variant=variant)
        self.fn()
        _sync()


class Bins(_Timed):
    """``histogram(x, bins, (0, 1))`` on 2^26 float32 samples (the auto variant)."""

    params = [[256, 4096, 65536, 2**20]]
    param_names = ["bins"]
    timeout = 600

    def setup(self, bins):
        require_cuda()
        self.x = _samples("float32-uniform", N)
        self.fn = lambda: prim.histogram(self.x, bins, (0.0, 1.0))
        self.fn()
        _sync()


class Bincount(_Timed):
    """``bincount(x)`` on 2^26 uint8 samples, uniform and all equal."""

    params = [["uint8-uniform", "uint8-equal"]]
    param_names = ["data"]
    timeout = 600

    def setup(self, data):
        require_cuda()
        self.x = _samples(data, N)
        self.fn = lambda: prim.bincount(self.x)
        self.fn()
        _sync()


class Peers(_Timed):
    """The peers on the same data: ``cupy.histogram`` (float32, 256 bins), ``cupy.bincount``
    (uint8)."""

    params = [["cupy.histogram", "cupy.bincount"]]
    param_names = ["peer"]
    timeout = 600

    def setup(self, peer):
        require_cuda()
        import cupy

        if peer == "cupy.histogram":
            self.x = _samples("float32-uniform", N)
            self.fn = lambda: cupy.histogram(self.x, 256, (0.0, 1.0))
        else:
            self.x = _samples("uint8-uniform", N)
            self.fn = lambda: cupy.bincount(self.x, minlength=256)
        self.fn()
        _sync()

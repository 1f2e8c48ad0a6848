"""Histogram benchmarks (the workloads of ``primitives/testing/workloads/histograms.py``): every
variant of ``primitives.histogram_even`` on uniform and contended data, the public functions at
256 to 2^20 bins, and ``cupy.histogram`` / ``cupy.bincount`` and CUB's ``histogram_even`` as
peers.

GPU only (see ``_common``). Times are medians of CUDA-event timings of 30 calls after 5 warm-up
calls; GB/s counts the samples read.
"""

from . import _peers
from ._common import _Timed, make, public, require_cuda, require_cupy, sync, variants, workloads

spec = workloads("histograms")
#: the samples by name: their workload and dtype
SAMPLES = {
    "uint8-uniform": (spec.UINT8, "uint8"),
    "uint8-equal": (spec.EQUAL, "uint8"),
    "float32-uniform": (spec.FLOAT32, "float32"),
}
DATA = list(SAMPLES)


class _Module(_Timed):
    """Every class of this module, measured once in one process (see ``_common._Timed``)."""

    def setup_cache(self):
        return _Timed.measure(_Module)

    setup_cache.timeout = 1800


def _samples(kind):
    """The samples ``kind`` (of :data:`SAMPLES`) at the suite's size."""
    w, dtype = SAMPLES[kind]
    return make(w.data, w.sweep()[0], dtype)


class _Samples(_Module):
    """The shared tracks; GB/s counts the samples read once."""

    def finish(self, x, fn):
        self.x, self.fn, self.bytes = x, fn, x.nbytes
        fn()
        sync()


class Variants(_Samples):
    """``histogram_even(x, 256, lo, hi, variant=v)``: the textbook sequence on 2^26 samples."""

    params = [variants("histograms"), DATA]
    param_names = ["variant", "data"]

    def prepare(self, variant, data):
        require_cuda()
        hist = public("histogram_even")
        x = _samples(data)
        hi = 1.0 if data.startswith("float32") else spec.BINS
        self.finish(x, lambda: hist(x, spec.BINS, 0, hi, variant=variant))


class Bins(_Samples):
    """``histogram(x, bins, (0, 1))`` on 2^26 float32 samples (the auto variant)."""

    params = [list(spec.FLOAT32.params["bins"])]
    param_names = ["bins"]

    def prepare(self, bins):
        require_cuda()
        hist = public("histogram")
        x = _samples("float32-uniform")
        self.finish(x, lambda: hist(x, bins, (0.0, 1.0)))


class Bincount(_Samples):
    """``bincount(x)`` on 2^26 uint8 samples, uniform and all equal."""

    params = [["uint8-uniform", "uint8-equal"]]
    param_names = ["data"]

    def prepare(self, data):
        require_cuda()
        bincount = public("bincount")
        x = _samples(data)
        self.finish(x, lambda: bincount(x))


class Peers(_Samples):
    """The peers on the same data: ``cupy.histogram`` (float32, 256 bins), ``cupy.bincount``
    (uint8), CUB's ``histogram_even`` on both."""

    params = [
        [
            "cupy.histogram",
            "cupy.bincount",
            "cub.histogram_even(float32)",
            "cub.histogram_even(uint8)",
        ]
    ]
    param_names = ["peer"]

    def prepare(self, peer):
        cupy, b = require_cupy(), spec.BINS
        if peer == "cupy.histogram":
            x = _samples("float32-uniform")
            self.finish(x, lambda: cupy.histogram(x, b, (0.0, 1.0)))
        elif peer == "cupy.bincount":
            x = _samples("uint8-uniform")
            self.finish(x, lambda: cupy.bincount(x, minlength=b))
        elif peer.endswith("(float32)"):
            x = _samples("float32-uniform")
            self.finish(x, _peers.cub_histogram_even(x, b, 0.0, 1.0))
        else:
            x = _samples("uint8-uniform")
            self.finish(x, _peers.cub_histogram_even(x, b, 0, b))


class Histogram2d(_Samples):
    """``histogram2d(x, y, 256, [[0, 1], [0, 1]])`` of 2^26 float32 pairs against
    ``cupy.histogram2d``; GB/s counts both coordinates read."""

    params = [["primitives", "cupy"]]
    param_names = ["contender"]

    def prepare(self, contender):
        fn = require_cupy().histogram2d if contender == "cupy" else public("histogram2d")
        require_cuda()
        w, bins = spec.HISTOGRAM2D, spec.HISTOGRAM2D.params["bins"]
        x, y = make(w.data, w.n, "float32"), make(w.data, w.n, "float32", seed=1)
        self.y = y
        self.finish(x, lambda: fn(x, y, bins, [[0, 1], [0, 1]]))
        self.bytes = x.nbytes + y.nbytes

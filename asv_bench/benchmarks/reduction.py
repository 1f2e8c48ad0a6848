"""Reduction benchmarks: every variant of ``primitives.reduce`` and ``cupy.sum`` as the peer.

GPU only: on any other backend ``setup`` raises ``NotImplementedError``, which asv reports as a
skipped benchmark (emulator timings say nothing about GPU performance). Times are medians of
CUDA-event timings of 30 calls after 5 warm-up calls (``primitives._core.timing.bench``); GB/s counts
the bytes read.
"""

import primitives as prim
from primitives.reduction import VARIANTS

from ._common import Timed, device_data, require_cuda

SIZES = [2**20, 2**24, 2**28]
DTYPES = ["float32", "int32", "float64"]


class Reduce(Timed):
    """``prim.reduce(x, "sum", variant=v)`` on device arrays."""

    params = [list(VARIANTS), SIZES, DTYPES]
    param_names = ["variant", "n", "dtype"]
    timeout = 600

    def setup(self, variant, n, dtype):
        require_cuda()
        x = device_data(n, dtype)
        self.fn = lambda: prim.reduce(x, "sum", variant=variant)
        self.bytes = x.nbytes
        self.fn()  # compile and plan


class CupySum(Timed):
    """The peer: ``cupy.sum(x)`` on the same data (same result dtypes as ``prim.sum``)."""

    params = [SIZES, DTYPES]
    param_names = ["n", "dtype"]
    timeout = 600

    def setup(self, n, dtype):
        require_cuda()
        import cupy

        x = device_data(n, dtype)
        self.fn = lambda: cupy.sum(x)
        self.bytes = x.nbytes
        self.fn()

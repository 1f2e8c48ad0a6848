"""Sort-family benchmarks: the three radix sorts against ``cupy.sort``, pairs and argsort
against ``cupy.argsort``, and the segmented sort against ``cupy.sort(axis=-1)``. GPU only; times
are medians of CUDA-event timings (``primitives._core.timing.bench``); GB/s counts the keys (and
values) read and written once."""

import primitives as prim
from primitives.sorting import VARIANTS

from ._common import Timed, device_data, require_cuda

SIZES = [2**22, 2**27]


class Sort(Timed):
    params = [list(VARIANTS) + ["cupy.sort"], SIZES, ["uint32", "float32", "uint64"]]
    param_names = ["variant", "n", "dtype"]
    timeout = 900

    def setup(self, variant, n, dtype):
        require_cuda()
        import cupy

        x = device_data(n, dtype)
        if variant == "cupy.sort":
            self.fn = lambda: cupy.sort(x)
        else:
            self.fn = lambda: prim.sort(x, variant=variant)
        self.bytes = 2 * x.nbytes
        self.fn()


class Pairs(Timed):
    params = [["radix_sort", "argsort", "cupy.argsort"], SIZES]
    param_names = ["how", "n"]
    timeout = 600

    def setup(self, how, n):
        require_cuda()
        import cupy

        x = device_data(n, "uint32")
        v = device_data(n, "uint32")
        self.fn = {"radix_sort": lambda: prim.radix_sort(x, v),
                   "argsort": lambda: prim.argsort(x),
                   "cupy.argsort": lambda: cupy.argsort(x)}[how]
        self.bytes = 2 * (x.nbytes + v.nbytes)
        self.fn()


class SegmentedSort(Timed):
    params = [["segmented_sort", "cupy.sort(axis=-1)"], [128, 2048]]
    param_names = ["how", "segment"]
    timeout = 600

    def setup(self, how, segment):
        require_cuda()
        import cupy

        n = 2**27
        x = device_data(n, "uint32")
        off = cupy.arange(0, n + 1, segment, dtype=cupy.int64)
        x2 = x.reshape(-1, segment)
        self.fn = ((lambda: prim.segmented_sort(x, off)) if how == "segmented_sort"
                   else (lambda: cupy.sort(x2, axis=-1)))
        self.bytes = 2 * x.nbytes
        self.fn()

"""Scan-family benchmarks: the three scans against ``cupy.cumsum``, compaction against boolean
indexing, segmented scan/reduce against ``cupy.cumsum(axis=1)``/``sum(axis=1)`` and, for 2^22
ragged segments, a plain ``prim.sum``. GPU only; times are medians of CUDA-event timings
(``primitives._core.timing.bench``); GB/s counts the bytes each operation must read and write once."""

import primitives as prim
from primitives.scan import VARIANTS

from ._common import Timed, device_data, require_cuda

SIZES = [2**24, 2**28]


class InclusiveScan(Timed):
    params = [list(VARIANTS) + ["cupy.cumsum"], SIZES, ["int32", "float32"]]
    param_names = ["variant", "n", "dtype"]
    timeout = 600

    def setup(self, variant, n, dtype):
        require_cuda()
        import cupy

        x = device_data(n, dtype)
        if variant == "cupy.cumsum":
            self.fn = lambda: cupy.cumsum(x, dtype=dtype)
        else:
            self.fn = lambda: prim.inclusive_scan(x, dtype=dtype, variant=variant)
        self.bytes = 2 * x.nbytes
        self.fn()


class Compact(Timed):
    params = [["compact", "x[mask]"], SIZES]
    param_names = ["how", "n"]
    timeout = 600

    def setup(self, how, n):
        require_cuda()
        x = device_data(n, "float32")
        mask = device_data(n, "float32") < 1.0  # about half
        self.fn = (lambda: prim.compact(x, mask)) if how == "compact" else (lambda: x[mask])
        self.bytes = x.nbytes + mask.nbytes + x.nbytes // 2
        self.fn()


class Segmented(Timed):
    params = [["segmented_scan", "cupy.cumsum(axis=1)", "segmented_reduce", "sum(axis=1)"],
              [2**10, 2**16]]
    param_names = ["how", "segments"]
    timeout = 600

    def setup(self, how, segments):
        require_cuda()
        import cupy

        n = 2**28
        x = device_data(n, "float32")
        x2 = x.reshape(segments, n // segments)
        off = cupy.arange(0, n + 1, n // segments, dtype=cupy.int64)
        self.fn = {
            "segmented_scan": lambda: prim.segmented_scan(x, offsets=off, check=False),
            "cupy.cumsum(axis=1)": lambda: cupy.cumsum(x2, axis=1),
            "segmented_reduce": lambda: prim.segmented_reduce(x, off, check=False),
            "sum(axis=1)": lambda: x2.sum(axis=1),
        }[how]
        self.bytes = (2 if "scan" in how or "cumsum" in how else 1) * x.nbytes
        self.fn()


class SegmentedRagged(Timed):
    """2^22 segments of 0..128 elements (about 2^28 float32): segmented_reduce against a plain
    ``prim.sum`` of the same elements (the target: within 1.5x)."""

    params = [["segmented_reduce", "prim.sum"]]
    param_names = ["how"]
    timeout = 600

    def setup(self, how):
        require_cuda()
        import cupy

        lens = cupy.random.default_rng(7).integers(0, 129, 2**22)
        off = cupy.concatenate([cupy.zeros(1, cupy.int64), cupy.cumsum(lens, dtype=cupy.int64)])
        x = device_data(int(off[-1]), "float32")
        self.fn = {
            "segmented_reduce": lambda: prim.segmented_reduce(x, off, check=False),
            "prim.sum": lambda: prim.sum(x),
        }[how]
        self.bytes = x.nbytes
        self.fn()

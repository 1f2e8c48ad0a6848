"""Scan-family benchmarks: the three scans against ``cupy.cumsum`` and CUB's inclusive scan,
compaction against boolean indexing, segmented scan/reduce against ``cupy.cumsum(axis=1)``,
``sum(axis=1)`` and CUB's segmented reduce and, for 2^22 ragged segments, a plain ``prim.sum``.
GPU only (see ``_common``); times are medians of CUDA-event timings; GB/s counts the bytes each
operation must read and write once."""

from . import _peers
from ._common import _Timed, device_data, public, require_cuda, require_cupy, size, variants, xp

SIZES = [2**24, 2**28]


class _Module(_Timed):
    """Every class of this module, measured once in one process (see ``_common._Timed``)."""

    def setup_cache(self):
        return _Timed.measure(_Module)

    setup_cache.timeout = 1800


class InclusiveScan(_Module):
    params = [variants("scan") + ["cupy.cumsum", "cub"], SIZES, ["int32", "float32"]]
    param_names = ["variant", "n", "dtype"]

    def prepare(self, variant, n, dtype):
        require_cuda()
        x = device_data(size(n), dtype)
        if variant == "cupy.cumsum":
            cupy = require_cupy()
            self.fn = lambda: cupy.cumsum(x, dtype=dtype)
        elif variant == "cub":
            require_cupy()
            self.fn = _peers.cub_inclusive_sum(x)
        else:
            scan = public("inclusive_scan")
            self.fn = lambda: scan(x, dtype=dtype, variant=variant)
        self.bytes = 2 * x.nbytes
        self.fn()


class Compact(_Module):
    params = [["compact", "x[mask]"], SIZES]
    param_names = ["how", "n"]

    def prepare(self, how, n):
        require_cuda()
        x = device_data(size(n), "float32")
        mask = device_data(size(n), "float32", seed=7) < 1.0  # about half
        if how == "compact":
            compact = public("compact")
            self.fn = lambda: compact(x, mask)
        else:
            require_cupy()
            self.fn = lambda: x[mask]
        self.bytes = x.nbytes + mask.nbytes + x.nbytes // 2
        self.fn()


class Segmented(_Module):
    params = [
        [
            "segmented_scan",
            "cupy.cumsum(axis=1)",
            "segmented_reduce",
            "sum(axis=1)",
            "cub.segmented_reduce",
        ],
        [2**10, 2**16],
    ]
    param_names = ["how", "segments"]

    def prepare(self, how, segments):
        require_cuda()
        n = size(2**28)
        segments = min(segments, n)
        x = device_data(n, "float32")
        off = xp().arange(0, n + 1, n // segments, dtype="int64")
        if how == "segmented_scan":
            seg_scan = public("segmented_scan")
            self.fn = lambda: seg_scan(x, offsets=off, check=False)
        elif how == "segmented_reduce":
            seg_reduce = public("segmented_reduce")
            self.fn = lambda: seg_reduce(x, off, check=False)
        elif how == "cub.segmented_reduce":
            require_cupy()
            self.fn = _peers.cub_segmented_sum(x, off)
        else:
            cupy = require_cupy()
            x2 = x.reshape(segments, n // segments)
            self.fn = (
                (lambda: cupy.cumsum(x2, axis=1))
                if how.startswith("cupy")
                else (lambda: x2.sum(axis=1))
            )
        self.bytes = (2 if "scan" in how or "cumsum" in how else 1) * x.nbytes
        self.fn()


class SegmentedRagged(_Module):
    """2^22 segments of 0..128 elements (about 2^28 float32): segmented_reduce against a plain
    ``prim.sum`` of the same elements (the target: within 1.5x)."""

    params = [["segmented_reduce", "prim.sum"]]
    param_names = ["how"]

    def prepare(self, how):
        require_cuda()
        mod = xp()
        lens = mod.random.default_rng(7).integers(0, 129, size(2**22))
        off = mod.concatenate([mod.zeros(1, "int64"), mod.cumsum(lens, dtype="int64")])
        x = device_data(int(off[-1]), "float32")
        if how == "segmented_reduce":
            seg_reduce = public("segmented_reduce")
            self.fn = lambda: seg_reduce(x, off, check=False)
        else:
            total = public("sum")
            self.fn = lambda: total(x)
        self.bytes = x.nbytes
        self.fn()


class Api(_Module):
    """NumPy's scans along an axis and cumprod against CuPy's: ``cumsum(axis=0|1)`` of a
    (2^12, 2^16) int32 matrix (int64 result, as NumPy) and ``cumprod`` of 2^26 float64; GB/s
    counts the bytes read and written once."""

    params = [
        ["primitives", "cupy"],
        [
            "cumsum(axis=0) (2^12, 2^16) int32",
            "cumsum(axis=1) (2^12, 2^16) int32",
            "cumprod 2^26 float64",
        ],
    ]
    param_names = ["contender", "case"]

    def prepare(self, contender, case):
        require_cuda()
        name = case.split("(")[0].split()[0]
        fn = getattr(require_cupy(), name) if contender == "cupy" else public(name)
        if name == "cumprod":
            x = 1 + (device_data(size(2**26), "float64") - 1) * 1e-9
            kw, out_bytes = {}, x.nbytes
        else:
            x = device_data(size(2**28), "int32").reshape(-1, min(size(2**16), 2**16))
            kw, out_bytes = {"axis": int(case.split("axis=")[1][0])}, 2 * x.nbytes
        self.x = x
        self.fn = lambda: fn(x, **kw)
        self.bytes = x.nbytes + out_bytes
        self.fn()

"""Scan-family benchmarks (the workloads of ``primitives/testing/workloads/scan.py``,
``compaction.py`` and ``segmented.py``): the three scans against ``cupy.cumsum`` and CUB's
inclusive scan, compaction against boolean indexing, segmented scan/reduce against
``cupy.cumsum(axis=1)``, ``sum(axis=1)`` and CUB's segmented reduce and, for 2^22 ragged
segments, a plain ``prim.sum``.
GPU only (see ``_common``); times are medians of CUDA-event timings; GB/s counts the bytes each
operation must read and write once."""

from . import _peers
from ._common import _Timed, make, public, require_cuda, require_cupy, size, variants, workloads, xp

spec, compaction, segmented = workloads("scan"), workloads("compaction"), workloads("segmented")


class _Module(_Timed):
    """Every class of this module, measured once in one process (see ``_common._Timed``)."""

    def setup_cache(self):
        return _Timed.measure(_Module)

    setup_cache.timeout = 1800


class InclusiveScan(_Module):
    params = [
        variants("scan") + ["cupy.cumsum", "cub"],
        list(spec.INCLUSIVE.sweep()),
        list(spec.INCLUSIVE.dtypes),
    ]
    param_names = ["variant", "n", "dtype"]

    def prepare(self, variant, n, dtype):
        require_cuda()
        x = make(spec.INCLUSIVE.data, n, dtype)
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
    params = [["compact", "x[mask]"], list(compaction.COMPACT.sweep())]
    param_names = ["how", "n"]

    def prepare(self, how, n):
        require_cuda()
        x = make(compaction.COMPACT.data, n, "float32")
        mask = make("half", n, "bool")
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
        list(segmented.EQUAL.params["segments"]),
    ]
    param_names = ["how", "segments"]

    def prepare(self, how, segments):
        require_cuda()
        n = size(segmented.EQUAL.n)
        segments = min(segments, n)
        x = make(segmented.EQUAL.data, n, "float32")
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
        mod, w = xp(), segmented.RAGGED
        lens = make("lengths", w.n, "int64", max_len=w.params["max_len"])
        off = mod.concatenate([mod.zeros(1, "int64"), mod.cumsum(lens, dtype="int64")])
        x = workloads().make(segmented.EQUAL.data, int(off[-1]), "float32", xp=mod)
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

    params = [["primitives", "cupy"], list(spec.API_CASES)]
    param_names = ["contender", "case"]

    def prepare(self, contender, case):
        require_cuda()
        name, dtype, data, shape, axis = spec.API_CASES[case]
        fn = getattr(require_cupy(), name) if contender == "cupy" else public(name)
        x = make(data, shape, dtype)
        kw = {} if axis is None else {"axis": axis}
        out_bytes = x.nbytes if name == "cumprod" else 2 * x.nbytes  # int32's cumsum is int64
        self.x = x
        self.fn = lambda: fn(x, **kw)
        self.bytes = x.nbytes + out_bytes
        self.fn()

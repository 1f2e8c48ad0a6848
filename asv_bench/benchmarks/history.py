"""The history suite: the production path of every family and its peers, one size each.

Selected with ``asv run --bench "^history\\."`` (``tools/asv_history.sh`` runs it over a list of
commits); about a minute per commit on an H100. Every input is several times the H100's 50 MB L2
cache, so the figures are DRAM-bound rates, comparable from commit to commit.

All classes are measured once per commit, in one ``setup_cache`` (one process; the contenders
of a case timed in interleaved rounds on the same data); ``track_time_ms`` and ``track_gbps``
report the median of those CUDA-event timings and the bytes the operation must move at least once
over it. The cases (the second param) name the dtype and size. The contenders are named
``primitives`` (the public call, ``variant="auto"``), ``cupy`` (CuPy's twin), ``cub`` (CUB
through ``cuda.compute``) and ``cusparse``. A contender that does not exist at a commit (a family
not written yet, ``cuda.compute`` not installed) is skipped; one that fails fails only its own
benchmarks. ``Copy`` tracks the device-to-device copy rate: the ceiling of
every other rate here.
"""

import numpy as np

from . import _peers
from ._common import SMOKE, bench, device_data, gbps, on_gpu, public, require_cupy, size, sync, xp

ROUNDS, REPEAT = 3, 10


class _History:
    """A family's contenders on its cases. ``params`` is ``[contenders, cases]``; ``contender``
    maps a contender's name to a builder ``(self, data) -> callable``; ``data(case)`` builds a
    case's inputs once for all contenders and ``nbytes(data)`` counts what the operation must
    move.

    ``setup_cache`` is defined here once and inherited: asv keys its cache on the function (its
    module and line), so it runs once per commit for every class of the suite, in one process
    (one CuPy start-up, one compile of each family's kernels), and each class reads its part."""

    param_names = ["contender", "case"]
    timeout = 900

    def setup_cache(self):
        if not on_gpu() and not SMOKE:
            return {"skip": "GPU benchmark: the backend is not CUDA"}
        out = {}
        for cls in _History.__subclasses__():
            family = cls()
            for case in cls.params[1]:
                out[cls.__name__, case] = family._measure_case(case)
        return out

    setup_cache.timeout = 1200

    def _measure_case(self, case):
        fns, result = {}, {}
        try:
            data = self.data(case)
            nbytes = self.nbytes(data)
        except Exception as exc:  # noqa: BLE001 - reported by this case's benchmarks
            return {
                "result": {
                    name: ("error", f"data: {type(exc).__name__}: {exc}") for name in self.params[0]
                },
                "bytes": 0,
            }
        for name in self.params[0]:
            try:
                fns[name] = self.contender[name](self, data)
                fns[name]()  # compile, plan, first touch
                sync()
            except NotImplementedError as exc:
                result[name] = ("skip", str(exc))
                fns.pop(name, None)
            except Exception as exc:  # noqa: BLE001 - reported by that contender's benchmarks
                result[name] = ("error", f"{type(exc).__name__}: {exc}")
                fns.pop(name, None)
        times = {name: [] for name in fns}
        for _ in range(ROUNDS):  # interleaved: a drift in clocks hits every contender alike
            for name, fn in fns.items():
                times[name].append(bench(fn, warmup=2, repeat=REPEAT))
        for name, ts in times.items():
            result[name] = ("ms", float(np.median(ts)))
        del fns, data
        return {"result": result, "bytes": nbytes}

    def _entry(self, cache, contender, case):
        return cache[type(self).__name__, case]["result"][contender]

    def setup(self, cache, contender, case):
        if "skip" in cache:
            raise NotImplementedError(cache["skip"])
        kind, value = self._entry(cache, contender, case)
        if kind == "skip":
            raise NotImplementedError(value)
        if kind == "error":
            raise RuntimeError(f"{contender}: {value}")

    def track_time_ms(self, cache, contender, case):
        """Median CUDA-event time of one call, ms."""
        return self._entry(cache, contender, case)[1]

    track_time_ms.unit = "ms"

    def track_gbps(self, cache, contender, case):
        """Bytes the operation must move at least once over that time, GB/s."""
        return gbps(
            cache[type(self).__name__, case]["bytes"], self._entry(cache, contender, case)[1]
        )

    track_gbps.unit = "GB/s"


def _call(name, *args, **kwargs):
    """A builder for ``primitives.<name>(*data, ...)``."""

    def build(self, data):
        fn = public(name)
        return lambda: fn(*data, *args, **kwargs)

    return build


def _cupy(expr):
    """A builder for a CuPy peer: ``expr(cupy, *data)``."""

    def build(self, data):
        cp = require_cupy()
        return lambda: expr(cp, *data)

    return build


def _cub(make, *args):
    """A builder for a CUB peer: ``make(*data, *args)`` returns the runner."""

    def build(self, data):
        require_cupy()
        return make(*data, *args)

    return build


class Copy(_History):
    """``cupy.copyto`` of 2^28 float32: the copy rate (bytes read plus bytes written), the
    ceiling of every other rate."""

    params = [["cupy"], ["float32 2^28"]]
    contender = {"cupy": _cupy(lambda cp, x, y: cp.copyto(y, x))}

    def data(self, case):
        x = device_data(size(2**28), "float32")
        return x, xp().empty_like(x)

    def nbytes(self, d):
        return 2 * d[0].nbytes


class Reduction(_History):
    """``prim.sum`` against ``cupy.sum`` and CUB's ``reduce_into`` (the input read once)."""

    params = [["primitives", "cupy", "cub"], ["float32 2^28"]]
    contender = {
        "primitives": _call("sum"),
        "cupy": _cupy(lambda cp, x: cp.sum(x)),
        "cub": _cub(_peers.cub_sum),
    }

    def data(self, case):
        return (device_data(size(2**28), "float32"),)

    def nbytes(self, d):
        return d[0].nbytes


class Scan(_History):
    """``prim.inclusive_scan`` against ``cupy.cumsum`` and CUB's ``inclusive_scan`` (read and
    written once)."""

    params = [["primitives", "cupy", "cub"], ["float32 2^28"]]
    contender = {
        "primitives": _call("inclusive_scan"),
        "cupy": _cupy(lambda cp, x: cp.cumsum(x)),
        "cub": _cub(_peers.cub_inclusive_sum),
    }

    def data(self, case):
        return (device_data(size(2**28), "float32"),)

    def nbytes(self, d):
        return 2 * d[0].nbytes


class Compaction(_History):
    """``prim.compact(x, mask)``, about half kept, against CuPy's ``x[mask]`` (x and the mask
    read, the kept half written)."""

    params = [["primitives", "cupy"], ["float32 2^28"]]
    contender = {"primitives": _call("compact"), "cupy": _cupy(lambda cp, x, m: x[m])}

    def data(self, case):
        n = size(2**28)
        return device_data(n, "float32"), device_data(n, "float32", seed=7) < 1.0

    def nbytes(self, d):
        x, mask = d
        return x.nbytes + mask.nbytes + x.nbytes // 2


class SegmentedReduce(_History):
    """``prim.segmented_reduce`` over 2^16 equal segments against ``sum(axis=1)`` of the same
    data as a matrix and CUB's ``segmented_reduce`` (the input read once)."""

    params = [["primitives", "cupy", "cub"], ["float32 2^28, 2^16 segments"]]
    contender = {
        "primitives": _call("segmented_reduce"),
        "cupy": _cupy(lambda cp, x, off: x.reshape(off.size - 1, -1).sum(axis=1)),
        "cub": _cub(_peers.cub_segmented_sum),
    }

    def data(self, case):
        n = size(2**28)
        return device_data(n, "float32"), xp().arange(0, n + 1, max(1, n >> 16), dtype=np.int64)

    def nbytes(self, d):
        return d[0].nbytes


class Histogram(_History):
    """256 bins: ``prim.bincount`` of uint8 against ``cupy.bincount``, ``prim.histogram(x, 256,
    (0, 1))`` of float32 against ``cupy.histogram``, and CUB's ``histogram_even`` on both (the
    samples read once)."""

    params = [["primitives", "cupy", "cub"], ["uint8 2^28", "float32 2^27"]]
    contender = {
        "primitives": lambda self, d: (
            _call("bincount", minlength=256)
            if d[0].dtype == np.uint8
            else _call("histogram", 256, (0.0, 1.0))
        )(self, d),
        "cupy": _cupy(
            lambda cp, x: (
                cp.bincount(x, minlength=256)
                if x.dtype == np.uint8
                else cp.histogram(x, 256, (0.0, 1.0))
            )
        ),
        "cub": lambda self, d: _cub(
            _peers.cub_histogram_even, 256, 0, 256 if d[0].dtype == np.uint8 else 1.0
        )(self, d),
    }

    def data(self, case):
        if case.startswith("uint8"):
            return (device_data(size(2**28), "uint8"),)
        return (device_data(size(2**27), "float32") - np.float32(0.5),)  # in [0, 1)

    def nbytes(self, d):
        return d[0].nbytes


class Sort(_History):
    """``prim.sort`` of random uint32 keys against ``cupy.sort`` and CUB's ``radix_sort`` (keys
    read and written once)."""

    params = [["primitives", "cupy", "cub"], ["uint32 2^27"]]
    contender = {
        "primitives": _call("sort"),
        "cupy": _cupy(lambda cp, x: cp.sort(x)),
        "cub": _cub(_peers.cub_radix_sort),
    }

    def data(self, case):
        rng = xp().random.default_rng(2026)  # every bit random: no pass can be skipped
        return ((rng.random(size(2**27)) * 2.0**32).astype(np.uint32),)

    def nbytes(self, d):
        return 2 * d[0].nbytes


class Searchsorted(_History):
    """``prim.searchsorted`` of 2^24 float32 queries into a sorted float32 array of 2^26 against
    ``cupy.searchsorted``: random queries, and the same queries sorted (the bytes: the queries
    read and the int64 answers written once)."""

    params = [["primitives", "cupy"], ["float32 2^24 into 2^26", "sorted float32 2^24 into 2^26"]]
    contender = {
        "primitives": _call("searchsorted"),
        "cupy": _cupy(lambda cp, a, v: cp.searchsorted(a, v)),
    }

    def data(self, case):
        a = xp().sort(device_data(size(2**26), "float32"))
        v = device_data(size(2**24), "float32", seed=2027)
        return a, (xp().sort(v) if case.startswith("sorted") else v)

    def nbytes(self, d):
        return d[1].size * (4 + 8)


class Spmv(_History):
    """``prim.spmv(A, x)`` of a CSR matrix of 2^22 rows with 16 random columns each against
    cuSPARSE (``cupyx.scipy.sparse`` ``A @ x``); the bytes are the matrix's arrays plus x and y
    once."""

    params = [["primitives", "cusparse"], ["float32 2^22 rows x 16"]]

    def _prim(self, d):
        A = public("sparse.CSR")(d[0])
        fn = public("spmv")
        return lambda: fn(A, d[1])

    contender = {"primitives": _prim, "cusparse": _cupy(lambda cp, A, x: A @ x)}

    def data(self, case):
        m, per_row = size(2**22), 16
        mod = xp()
        rng = mod.random.default_rng(2026)
        indices = rng.integers(0, m, m * per_row, dtype=np.int64).astype(np.int32)
        indptr = mod.arange(0, m * per_row + 1, per_row, dtype=np.int32)
        values = rng.random(m * per_row, dtype=np.float32)
        if mod is np:
            import scipy.sparse as sp
        else:
            import cupyx.scipy.sparse as sp
        return sp.csr_matrix((values, indices, indptr), shape=(m, m)), device_data(m, "float32")

    def nbytes(self, d):
        A, x = d
        return A.data.nbytes + A.indices.nbytes + A.indptr.nbytes + 2 * x.nbytes

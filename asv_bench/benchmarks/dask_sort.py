"""primitives.dask benchmarks, part sort/topk and the reductions: a 1-D Dask array of CuPy
chunks (8 chunks) on one GPU through Dask's threaded scheduler, each call timed until its chunks
are computed in memory (``dask.persist``), against CuPy on the concatenated array or, for the
sum and the histogram, against dask.array's own call on the same chunks and the library's call
on the one array (benchmarks of their own). GPU only (see ``_common``); GB/s counts the keys
read once.
"""

from ._common import _Timed, device_data, require_cuda, require_cupy, size, xp

N = 2**29
CHUNKS = 8


def _dask():
    try:
        import dask
        import dask.array as da

        import primitives.dask as pd
    except Exception as exc:  # Dask not installed, or no primitives.dask at this commit
        raise NotImplementedError(f"primitives.dask: not available ({exc})") from exc
    return dask, da, pd


class _Module(_Timed):
    """Every class of this module, measured once in one process (see ``_common._Timed``)."""

    def setup_cache(self):
        return _Timed.measure(_Module)

    setup_cache.timeout = 1800


class DaskSort(_Module):
    params = [["primitives.dask.sort", "primitives.dask.argsort", "cupy.sort"]]
    param_names = ["how"]

    def prepare(self, how):
        require_cuda()
        u = device_data(size(N), "float64") - 0.5  # uniform in [0, 1): distinct 32-bit keys
        keys = (u * 2.0**32).astype(xp().uint32)
        self.bytes = keys.nbytes
        if how == "cupy.sort":
            cupy = require_cupy()
            self.fn = lambda: cupy.sort(keys)
            return
        dask, da, pd = _dask()
        x = da.from_array(keys, chunks=-(-keys.size // CHUNKS), asarray=False)
        f = pd.sort if how.endswith(".sort") else pd.argsort
        self.fn = lambda: dask.persist(f(x), scheduler="threads")
        self.fn()


class DaskTopK(_Module):
    params = [["primitives.dask.topk", "cupy.argpartition"], [16, 1024]]
    param_names = ["how", "k"]

    def prepare(self, how, k):
        require_cuda()
        x = device_data(size(N), "float32")
        self.bytes = x.nbytes
        if how == "cupy.argpartition":
            cupy = require_cupy()
            self.fn = lambda: cupy.argpartition(x, x.size - k)
            return
        dask, da, pd = _dask()
        d = da.from_array(x, chunks=-(-x.size // CHUNKS), asarray=False)
        self.fn = lambda: dask.persist(*pd.topk(d, k), scheduler="threads")
        self.fn()


class DaskSum(_Module):
    params = [["primitives.dask.sum", "dask.array.sum", "primitives.sum"]]
    param_names = ["how"]

    def prepare(self, how):
        require_cuda()
        x = device_data(size(2 * N), "float32")
        self.bytes = x.nbytes
        if how == "primitives.sum":
            import primitives as prim

            self.fn = lambda: prim.sum(x)
            return
        dask, da, pd = _dask()
        d = da.from_array(x, chunks=-(-x.size // CHUNKS), asarray=False)
        f = pd.sum if how.startswith("primitives") else da.sum
        self.fn = lambda: dask.persist(f(d), scheduler="threads")
        self.fn()


class DaskHistogram(_Module):
    params = [["primitives.dask.histogram", "dask.array.histogram", "primitives.histogram"]]
    param_names = ["how"]

    def prepare(self, how):
        require_cuda()
        x = device_data(size(2 * N), "float32")  # in [0.5, 1.5)
        self.bytes = x.nbytes
        bins, rng = 256, (0.5, 1.5)
        if how == "primitives.histogram":
            import primitives as prim

            self.fn = lambda: prim.histogram(x, bins, rng)
            return
        dask, da, pd = _dask()
        d = da.from_array(x, chunks=-(-x.size // CHUNKS), asarray=False)
        f = pd.histogram if how.startswith("primitives") else da.histogram
        self.fn = lambda: dask.persist(f(d, bins=bins, range=rng)[0], scheduler="threads")
        self.fn()


class DaskCumsum(_Module):
    params = [["primitives.dask.cumsum", "dask.array.cumsum", "primitives.cumsum"]]
    param_names = ["how"]

    def prepare(self, how):
        require_cuda()
        x = device_data(size(2 * N), "float32")
        self.bytes = 2 * x.nbytes  # read once, written once
        if how == "primitives.cumsum":
            import primitives as prim

            self.fn = lambda: prim.cumsum(x)
            return
        dask, da, pd = _dask()
        d = da.from_array(x, chunks=-(-x.size // CHUNKS), asarray=False)
        f = pd.cumsum if how.startswith("primitives") else da.cumsum
        self.fn = lambda: dask.persist(f(d), scheduler="threads")
        self.fn()

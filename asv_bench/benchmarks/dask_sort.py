"""primitives.dask benchmarks, part sort/topk/spmv: a 1-D Dask array of CuPy chunks (8 chunks)
on one GPU through Dask's threaded scheduler, each call timed until its chunks are computed in
memory (``dask.persist``), against CuPy on the concatenated array (a benchmark of its own). GPU
only (see ``_common``); GB/s counts the keys read once.
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

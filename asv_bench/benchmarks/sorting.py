"""Sort-family benchmarks (the workloads of ``primitives/testing/workloads/sorting.py``): the
radix sorts against ``cupy.sort`` and CUB's radix sort (the block sort where the input fits its
one block), small calls (``auto``, the block sort and onesweep against ``cupy.sort``), pairs and
argsort against ``cupy.argsort``, the segmented sort against ``cupy.sort(axis=-1)``, the sort of
a matrix's rows (``sort(x, axis=-1)``) against ``cupy.sort(axis=-1)`` and ``torch.sort(dim=-1)``,
and ``lexsort`` against ``cupy.lexsort`` (each peer a benchmark of its own). GPU only
(see ``_common``); times are medians of CUDA-event timings; GB/s counts the keys (and values)
read and written once."""

from . import _peers
from ._common import _Timed, make, public, require_cuda, require_cupy, size, variants, workloads, xp

spec = workloads("sorting")


class _Module(_Timed):
    """Every class of this module, measured once in one process (see ``_common._Timed``)."""

    def setup_cache(self):
        return _Timed.measure(_Module)

    setup_cache.timeout = 1800


class Sort(_Module):
    params = [
        variants("sorting") + ["cupy.sort", "cub"],
        list(spec.KEYS.sweep()),
        list(spec.KEYS.params["asv_dtypes"]),
    ]
    param_names = ["variant", "n", "dtype"]

    def prepare(self, variant, n, dtype):
        require_cuda()
        x = make(spec.KEYS.data, n, dtype)
        if variant == "cupy.sort":
            cupy = require_cupy()
            self.fn = lambda: cupy.sort(x)
        elif variant == "cub":
            require_cupy()
            self.fn = _peers.cub_radix_sort(x)
        else:
            _fits_one_block(variant, x)
            sort = public("sort")
            self.fn = lambda: sort(x, variant=variant)
        self.bytes = 2 * x.nbytes
        self.fn()


def _fits_one_block(variant, x):
    """The block sort takes inputs up to its one block's capacity: a larger one is skipped."""
    if variant == "block":
        cap = public("tuning.policy")("sort", "block").capacity(max(4, x.dtype.itemsize))
        if x.size > cap:
            raise NotImplementedError(f"variant 'block' sorts at most {cap} keys")


class SmallSort(_Module):
    """A small call, where the host and the launches are the cost: one launch of the block sort
    against onesweep's histogram, plan and passes."""

    params = [list(spec.SMALL.variants) + ["cupy.sort"], list(spec.SMALL.sweep())]
    param_names = ["variant", "n"]

    def prepare(self, variant, n):
        require_cuda()
        x = make(spec.SMALL.data, n, spec.SMALL.dtypes[0])
        if variant == "cupy.sort":
            cupy = require_cupy()
            self.fn = lambda: cupy.sort(x)
        else:
            if variant not in ("auto", *variants("sorting")):
                raise NotImplementedError(f"no variant {variant!r} at this commit")
            _fits_one_block(variant, x)
            sort = public("sort")
            self.fn = lambda: sort(x, variant=variant)
        self.bytes = 2 * x.nbytes
        self.fn()


class Pairs(_Module):
    params = [["radix_sort", "argsort", "cupy.argsort"], list(spec.PAIRS.sweep())]
    param_names = ["how", "n"]

    def prepare(self, how, n):
        require_cuda()
        x = make(spec.PAIRS.data, n, "uint32")
        v = make(spec.PAIRS.data, n, "uint32", seed=1)
        if how == "cupy.argsort":
            cupy = require_cupy()
            self.fn = lambda: cupy.argsort(x)
        else:
            fn = public(how)
            self.fn = (lambda: fn(x, v)) if how == "radix_sort" else (lambda: fn(x))
        self.bytes = 2 * (x.nbytes + v.nbytes)
        self.fn()


class SegmentedSort(_Module):
    params = [["segmented_sort", "cupy.sort(axis=-1)"], list(spec.SEGMENTED.params["lengths"])]
    param_names = ["how", "segment"]

    def prepare(self, how, segment):
        require_cuda()
        n = size(spec.SEGMENTED.n)
        x = make(spec.SEGMENTED.data, n, "uint32")
        if how == "segmented_sort":
            seg_sort = public("segmented_sort")
            off = xp().arange(0, n + 1, segment, dtype="int64")
            self.fn = lambda: seg_sort(x, off)
        else:
            cupy = require_cupy()
            x2 = x.reshape(-1, segment)
            self.fn = lambda: cupy.sort(x2, axis=-1)
        self.bytes = 2 * x.nbytes
        self.fn()


def _torch():
    try:
        import torch
    except Exception as exc:  # not installed
        raise NotImplementedError(f"torch peer: PyTorch is not available ({exc})") from exc
    return torch


class RowSort(_Module):
    """``sort(x, axis=-1)`` of a (rows, cols) float32 array against cupy.sort(axis=-1) and
    torch.sort(dim=-1), each a benchmark of its own."""

    params = [["sort", "argsort", "cupy.sort", "cupy.argsort", "torch.sort"]]
    param_names = ["how"]

    def prepare(self, how):
        require_cuda()
        w = getattr(spec, "ROWS", None)
        if w is None:
            raise NotImplementedError("no row-sort workload at this commit")
        x = make(w.data, (w.n // w.params["cols"], w.params["cols"]), w.dtypes[0])
        if how.startswith("cupy."):
            cupy = require_cupy()
            fn = getattr(cupy, how.split(".")[1])
            self.fn = lambda: fn(x, axis=-1)
        elif how == "torch.sort":
            t = _torch().from_dlpack(x)
            self.fn = lambda: t.sort(dim=-1, stable=True)
        else:
            fn = public(how)
            self.fn = lambda: fn(x, axis=-1)
        self.bytes = 2 * x.nbytes
        try:
            self.fn()
        except TypeError as exc:  # a commit whose sort takes 1-D keys only
            raise NotImplementedError(f"{how} along an axis: not at this commit ({exc})") from exc


class Lexsort(_Module):
    """``lexsort`` of uint32 keys against cupy.lexsort (a benchmark of its own)."""

    params = [["lexsort", "cupy.lexsort"]]
    param_names = ["how"]

    def prepare(self, how):
        require_cuda()
        w = getattr(spec, "LEXSORT", None)
        if w is None:
            raise NotImplementedError("no lexsort workload at this commit")
        keys = [make(w.data, w.n, w.dtypes[0], seed=i) for i in range(w.params["keys"])]
        if how == "cupy.lexsort":
            cupy = require_cupy()
            stacked = cupy.stack(keys)
            self.fn = lambda: cupy.lexsort(stacked)
        else:
            fn = public("lexsort")
            self.fn = lambda: fn(keys)
        self.bytes = sum(k.nbytes for k in keys) + 8 * keys[0].size
        self.fn()


class KeyDistribution(_Module):
    """``sort``, ``argsort`` and CUB's radix sort of keys of each distribution of the suite
    (``spec.DISTRIBUTIONS``: uniform, low-entropy, few distinct, sorted, Zipf, floats...), each a
    benchmark of its own: how far each one's time moves from uniform keys'."""

    params = [list(spec.DISTRIBUTIONS.params["names"]), ["sort", "argsort", "cub"]]
    param_names = ["keys", "how"]

    def prepare(self, keys, how):
        require_cuda()
        x = spec.distribution(keys, size(spec.DISTRIBUTIONS.n), xp())
        if how == "cub":
            require_cupy()
            self.fn = _peers.cub_radix_sort(x)
        else:
            fn = public(how)
            self.fn = lambda: fn(x)
        self.bytes = 2 * x.nbytes
        self.fn()

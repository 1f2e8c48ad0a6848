"""Sort-family benchmarks (the workloads of ``primitives/testing/workloads/sorting.py``): the
radix sorts against ``cupy.sort`` and CUB's radix sort (the block sort where the input fits its
one block), small calls (``auto``, the block sort and onesweep against ``cupy.sort``), pairs and
argsort against ``cupy.argsort``, and the segmented sort against ``cupy.sort(axis=-1)``. GPU only
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

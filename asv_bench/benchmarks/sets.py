"""Sets-family benchmarks (the workloads of ``primitives/testing/workloads/sets.py``):
``unique(return_counts=True)`` (both variants) against
``cupy.unique``, and ``run_length_encode`` / ``reduce_by_key`` against a CuPy formulation (head
flags, ``cupy.flatnonzero``, ``cupy.add.reduceat``: CuPy has no reduce-by-key). GPU only (see
``_common``); times are medians of CUDA-event timings; GB/s counts the keys (and values) read
once and the runs' keys and counts (or sums) written once."""

from ._common import _Timed, make, public, require_cuda, require_cupy, size, variants, workloads

spec = workloads("sets")


class _Module(_Timed):
    """Every class of this module, measured once in one process (see ``_common._Timed``)."""

    def setup_cache(self):
        return _Timed.measure(_Module)

    setup_cache.timeout = 1800


def _cupy_reduce_by_key(cupy, keys, values):
    """CuPy's several passes: flags of the runs' heads, their indices, a segmented sum."""
    heads = cupy.empty(keys.size, dtype=bool)
    heads[:1] = True
    cupy.not_equal(keys[1:], keys[:-1], out=heads[1:])
    starts = cupy.flatnonzero(heads)
    return keys[starts], cupy.add.reduceat(values, starts)


class Unique(_Module):
    params = [variants("sets") + ["cupy.unique"], list(spec.UNIQUE.sweep())]
    param_names = ["variant", "n"]

    def prepare(self, variant, n):
        require_cuda()
        w = spec.UNIQUE
        n, distinct = size(n), w.params["distinct"]
        x = make(w.data, n, w.dtypes[0], distinct=distinct)
        if variant == "cupy.unique":
            cupy = require_cupy()
            self.fn = lambda: cupy.unique(x, return_counts=True)
        else:
            unique = public("unique")
            self.fn = lambda: unique(x, return_counts=True, variant=variant)
        self.bytes = x.nbytes + min(n, distinct) * 12
        self.fn()


class ReduceByKey(_Module):
    params = [["reduce_by_key", "run_length_encode", "cupy"], list(spec.RUNS.sweep())]
    param_names = ["how", "n"]

    def prepare(self, how, n):
        require_cuda()
        w = spec.RUNS
        keys = make(w.data, n, w.dtypes[0], mean=w.params["mean"])  # never 0
        values = make("positive", n, w.dtypes[1])
        runs = int(keys[-1])
        if how == "cupy":
            cupy = require_cupy()
            self.fn = lambda: _cupy_reduce_by_key(cupy, keys, values)
            self.bytes = keys.nbytes + values.nbytes + runs * 8
        elif how == "run_length_encode":
            rle = public(how)
            self.fn = lambda: rle(keys)
            self.bytes = keys.nbytes + runs * 12
        else:
            rbk = public(how)
            self.fn = lambda: rbk(keys, values)
            self.bytes = keys.nbytes + values.nbytes + runs * 8
        self.fn()

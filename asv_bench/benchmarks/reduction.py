"""Reduction benchmarks (the workloads of ``primitives/testing/workloads/reduction.py``): every
variant of ``primitives.reduce``, and ``cupy.sum`` and CUB's ``reduce_into`` as the peers, at
n = 2^20, 2^24 and 2^28 of float32, int32 and float64; NumPy's everyday reductions against CuPy's.

GPU only (see ``_common``). Times are medians of CUDA-event timings of 30 calls after 5 warm-up
calls; GB/s counts the bytes read.
"""

from . import _peers
from ._common import _Timed, make, public, require_cuda, require_cupy, size, variants, workloads, xp

spec = workloads("reduction")
SIZES, DTYPES = list(spec.PRODUCTION.sweep()), list(spec.PRODUCTION.dtypes)


class _Module(_Timed):
    """Every class of this module, measured once in one process (see ``_common._Timed``)."""

    def setup_cache(self):
        return _Timed.measure(_Module)

    setup_cache.timeout = 1800


class Reduce(_Module):
    """``prim.reduce(x, "sum", variant=v)`` on device arrays."""

    params = [variants("reduction"), SIZES, DTYPES]
    param_names = ["variant", "n", "dtype"]

    def prepare(self, variant, n, dtype):
        require_cuda()
        reduce = public("reduce")
        x = make(spec.PRODUCTION.data, size(n), dtype)
        self.fn = lambda: reduce(x, "sum", variant=variant)
        self.bytes = x.nbytes
        self.fn()  # compile and plan


class CupySum(_Module):
    """The peer: ``cupy.sum(x)`` on the same data (same result dtypes as ``prim.sum``)."""

    params = [SIZES, DTYPES]
    param_names = ["n", "dtype"]

    def prepare(self, n, dtype):
        cupy = require_cupy()
        x = make(spec.PRODUCTION.data, n, dtype)
        self.fn = lambda: cupy.sum(x)
        self.bytes = x.nbytes
        self.fn()


class CubSum(_Module):
    """The peer: CUB's ``reduce_into`` (``cuda.compute``) on the same data."""

    params = [SIZES, DTYPES]
    param_names = ["n", "dtype"]

    def prepare(self, n, dtype):
        require_cupy()
        x = make(spec.PRODUCTION.data, n, dtype)
        self.fn = _peers.cub_sum(x)
        self.bytes = x.nbytes
        self.fn()


class Api(_Module):
    """NumPy's everyday reductions against CuPy's twins: narrow dtypes, axes (C and F order,
    short rows), argmax/argmin, prod and mean; GB/s counts the bytes read."""

    params = [["primitives", "cupy"], list(spec.API_CASES)]
    param_names = ["contender", "case"]

    def prepare(self, contender, case):
        require_cuda()
        name, dtype, data, shape, axis, order = spec.API_CASES[case]
        x = make(data, shape, dtype)
        if order == "F":
            x = xp().asfortranarray(x)
        fn = getattr(require_cupy(), name) if contender == "cupy" else public(name)
        kw = {} if axis is None else {"axis": axis}
        self.x = x
        self.fn = lambda: fn(x, **kw)
        self.bytes = x.nbytes
        self.fn()

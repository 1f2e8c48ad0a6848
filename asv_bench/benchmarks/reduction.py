"""Reduction benchmarks: every variant of ``primitives.reduce``, and ``cupy.sum`` and CUB's
``reduce_into`` as the peers, at n = 2^20, 2^24 and 2^28 of float32, int32 and float64.

GPU only (see ``_common``). Times are medians of CUDA-event timings of 30 calls after 5 warm-up
calls; GB/s counts the bytes read.
"""

from . import _peers
from ._common import _Timed, device_data, public, require_cuda, require_cupy, size, variants, xp

SIZES = [2**20, 2**24, 2**28]
DTYPES = ["float32", "int32", "float64"]


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
        x = device_data(size(n), dtype)
        self.fn = lambda: reduce(x, "sum", variant=variant)
        self.bytes = x.nbytes
        self.fn()  # compile and plan


class CupySum(_Module):
    """The peer: ``cupy.sum(x)`` on the same data (same result dtypes as ``prim.sum``)."""

    params = [SIZES, DTYPES]
    param_names = ["n", "dtype"]

    def prepare(self, n, dtype):
        cupy = require_cupy()
        x = device_data(n, dtype)
        self.fn = lambda: cupy.sum(x)
        self.bytes = x.nbytes
        self.fn()


class CubSum(_Module):
    """The peer: CUB's ``reduce_into`` (``cuda.compute``) on the same data."""

    params = [SIZES, DTYPES]
    param_names = ["n", "dtype"]

    def prepare(self, n, dtype):
        require_cupy()
        x = device_data(n, dtype)
        self.fn = _peers.cub_sum(x)
        self.bytes = x.nbytes
        self.fn()


def _api_data(case):
    """The inputs of an :class:`Api` case (device arrays; sizes shrink off the GPU)."""
    mod = xp()
    if case == "sum bool 2^30":
        return device_data(size(2**30), "float32") < 1.0
    if case == "sum int8 2^30":
        return device_data(size(2**30), "int8")
    if case.startswith("sum(axis=0) C"):
        return device_data(size(2**28), "float32").reshape(-1, min(size(2**12), 2**12))
    if case.startswith("sum(axis=0) F"):
        return mod.asfortranarray(
            device_data(size(2**28), "float32").reshape(-1, min(size(2**12), 2**12))
        )
    if case.startswith("sum(axis=1) rows of 2"):
        return device_data(size(2**27), "float32").reshape(-1, 2)
    return device_data(size(2**28), "float32")  # argmax, argmin, prod, mean


class Api(_Module):
    """NumPy's everyday reductions against CuPy's twins: narrow dtypes, axes (C and F order,
    short rows), argmax/argmin, prod and mean; GB/s counts the bytes read."""

    params = [
        ["primitives", "cupy"],
        [
            "sum bool 2^30",
            "sum int8 2^30",
            "sum(axis=0) C (2^16, 2^12) float32",
            "sum(axis=0) F (2^16, 2^12) float32",
            "sum(axis=1) rows of 2, 2^27 float32",
            "argmax 2^28 float32",
            "argmin 2^28 float32",
            "prod 2^28 float32",
            "mean 2^28 float32",
        ],
    ]
    param_names = ["contender", "case"]

    def prepare(self, contender, case):
        require_cuda()
        x = _api_data(case)
        name = case.split("(")[0].split()[0]
        axis = None if "axis" not in case else int(case.split("axis=")[1][0])
        kw = {} if axis is None else {"axis": axis}
        if contender == "cupy":
            fn = getattr(require_cupy(), name)
        else:
            fn = public(name)
        if name == "prod":  # values within 1e-7 of 1: the product stays finite
            x = 1 + (x - 1) * x.dtype.type(1e-7)
        self.x = x
        self.fn = lambda: fn(x, **kw)
        self.bytes = x.nbytes
        self.fn()

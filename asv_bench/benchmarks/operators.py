"""User operators (``primitives.Op``) against the built-in ones and the peers that take a user's
operator: ``cupy.ReductionKernel`` (reductions; CuPy's scans take ``add`` alone) and CUB through
``cuda.compute`` with a Python operator (reductions and scans). float32 at n = 2^24 and 2^28; the
operators a sum (``a + b``) and a maximum (``a > b ? a : b``). Beside them, the tuples' linear
recurrence against CUB, a transform on load in a histogram against CuPy, and the bfloat16 sort
against torch.

GPU only (see ``_common``). Times are medians of CUDA-event timings of 30 calls after 5 warm-up
calls; GB/s counts the bytes read (and for the scans written).
"""

import numpy as np

from . import _peers
from ._common import _Timed, device_data, public, require_cuda, require_cupy, size

SIZES = [1 << 24, 1 << 28]
OPS = {"sum": ("a + b", 0.0), "max": ("a > b ? a : b", -np.inf)}


class _Module(_Timed):
    """Every class of this module, measured once in one process (see ``_common._Timed``)."""

    def setup_cache(self):
        return _Timed.measure(_Module)

    setup_cache.timeout = 1800


def _op(name):
    return public("Op")(*OPS[name])


class Reduce(_Module):
    """``prim.reduce(x, op)`` with the operator built in (``"sum"``, ``"max"``) or of the user's
    own (``prim.Op``)."""

    params = [["builtin", "user"], list(OPS), SIZES]
    param_names = ["kind", "op", "n"]

    def prepare(self, kind, op, n):
        require_cuda()
        reduce = public("reduce")
        x = device_data(size(n), np.float32)
        how = op if kind == "builtin" else _op(op)
        self.fn = lambda: reduce(x, how)
        self.bytes = x.nbytes
        self.fn()


class ReductionKernel(_Module):
    """The peer: ``cupy.ReductionKernel`` with the same C++ operator."""

    params = [list(OPS), SIZES]
    param_names = ["op", "n"]

    def prepare(self, op, n):
        cupy = require_cupy()
        x = device_data(size(n), np.float32)
        expr, ident = OPS[op]
        k = cupy.ReductionKernel(
            "T x",
            "T y",
            "x",
            expr,
            "y = a",
            repr(float(ident)).replace("inf", "INFINITY"),
            f"user_{op}",
        )
        self.fn = lambda: k(x)
        self.bytes = x.nbytes
        self.fn()


class CubReduce(_Module):
    """The peer: CUB's ``reduce_into`` (``cuda.compute``) with the operator as a Python
    function."""

    params = [list(OPS), SIZES]
    param_names = ["op", "n"]

    def prepare(self, op, n):
        require_cupy()
        x = device_data(size(n), np.float32)
        self.fn = _peers.cub_reduce_op(x, op, OPS[op][1])
        self.bytes = x.nbytes
        self.fn()


class Scan(_Module):
    """``prim.inclusive_scan(x, op)``, built in or the user's ``prim.Op``."""

    params = [["builtin", "user"], list(OPS), SIZES]
    param_names = ["kind", "op", "n"]

    def prepare(self, kind, op, n):
        require_cuda()
        scan = public("inclusive_scan")
        x = device_data(size(n), np.float32)
        how = op if kind == "builtin" else _op(op)
        self.fn = lambda: scan(x, how)
        self.bytes = 2 * x.nbytes
        self.fn()


class CubScan(_Module):
    """The peer: CUB's ``inclusive_scan`` (``cuda.compute``) with a Python operator."""

    params = [list(OPS), SIZES]
    param_names = ["op", "n"]

    def prepare(self, op, n):
        require_cupy()
        x = device_data(size(n), np.float32)
        self.fn = _peers.cub_inclusive_scan_op(x, op)
        self.bytes = 2 * x.nbytes
        self.fn()


class SumOfSquares(_Module):
    """``prim.sum(x, map="v * v")`` (no temporary) against ``cupy.sum(x * x)`` and a
    ``cupy.ReductionKernel`` that squares on load."""

    params = [["primitives", "cupy", "reductionkernel"], SIZES]
    param_names = ["contender", "n"]

    def prepare(self, contender, n):
        x = device_data(size(n), np.float32)
        if contender == "primitives":
            require_cuda()
            total = public("sum")
            self.fn = lambda: total(x, map="v * v")
        else:
            cupy = require_cupy()
            if contender == "cupy":
                self.fn = lambda: cupy.sum(x * x)
            else:
                k = cupy.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "sumsq")
                self.fn = lambda: k(x)
        self.bytes = x.nbytes
        self.fn()


class LinearRecurrence(_Module):
    """The linear recurrence ``x[i] = a[i] * x[i-1] + b[i]`` of float32 pairs as a 2-tuple scan:
    ``prim.inclusive_scan((a, b), affine, fields=1)`` (reads a and b, writes x) against CUB's
    ``inclusive_scan`` over a ``ZipIterator`` with a Python operator (writes the pairs). GB/s:
    the three arrays of the recurrence, a and b read and x written."""

    params = [["primitives", "cub"], [1 << 24, 1 << 27]]
    param_names = ["contender", "n"]

    def prepare(self, contender, n):
        a = device_data(size(n), np.float32)
        b = device_data(size(n), np.float32)
        if contender == "primitives":
            require_cuda()
            scan = public("inclusive_scan")
            affine = public("Op")(("a.f0 * b.f0", "b.f0 * a.f1 + b.f1"), identity=(1.0, 0.0))
            self.fn = lambda: scan((a, b), affine, fields=1)
        else:
            require_cupy()
            self.fn = _peers.cub_linear_recurrence(a, b)
        self.bytes = 3 * a.nbytes
        self.fn()


class HistogramOfSquares(_Module):
    """``prim.histogram(x, 256, (0, 1), map="v * v")`` (the squares binned as they are read)
    against ``cupy.histogram(x * x, 256, (0, 1))``; float32 uniform in [0, 1)."""

    params = [["primitives", "cupy"], SIZES]
    param_names = ["contender", "n"]

    def prepare(self, contender, n):
        x = device_data(size(n), np.float32)
        if contender == "primitives":
            require_cuda()
            hist = public("histogram")
            self.fn = lambda: hist(x, 256, (0.0, 1.0), map="v * v")
        else:
            cupy = require_cupy()
            self.fn = lambda: cupy.histogram(x * x, 256, (0.0, 1.0))
        self.bytes = x.nbytes
        self.fn()


class SortBFloat16(_Module):
    """``prim.sort`` of bfloat16 keys (two 8-bit digit passes over their own 16 bits) against
    ``torch.sort`` of the same tensor (read through DLPack); standard normal values. GB/s: the
    keys read and written once."""

    params = [["primitives", "torch"], [1 << 24, 1 << 28]]
    param_names = ["contender", "n"]

    def prepare(self, contender, n):
        cupy = require_cupy()
        require_cuda()
        try:
            import torch
        except ImportError as exc:
            raise NotImplementedError("torch peer: PyTorch is not installed") from exc
        t = torch.randn(size(n), device="cuda", dtype=torch.bfloat16)
        if contender == "primitives":
            sort, x = public("sort"), cupy.from_dlpack(t)
            self.fn = lambda: sort(x)
        else:
            self.fn = lambda: torch.sort(t)
        self.bytes = 2 * t.numel() * t.element_size()
        self.fn()

"""Reduction plans: the routes from an input's dtype to the result's, grids and the production
kernel's plan (the kernels' names: :mod:`._kernels`; the reductions over axes: :mod:`._axis`;
argmin/argmax: :mod:`._arg`).

The production kernel runs from a :class:`ProductionPlan` per (dtypes, op, n, policy, stream): its
block partials and last-block ticket (left at 0 by the kernel) are made once, and its launch
checked once. The ladder and zeta launch per call (their grids shrink level by level). Complex
products over axes run from a :class:`RowsPlan` per (dtype, op, rows, width, policy, stream): one
block per row of the reduced axes laid out last.
"""

from __future__ import annotations

import math

import numpy as np

from .._core import dtypes as _dtypes, launch as _launch, ops as _ops, plans as _plans
from . import _kernels, _policy
from ._kernels import NARROW_KERNELS, kernel, masked_kernel, mean_divide_kernel, rows_kernel

__all__ = [
    "kernel",
    "Route",
    "route",
    "ProductionPlan",
    "production_plan",
    "MaskedPlan",
    "masked_plan",
    "RowsPlan",
    "rows_plan",
    "run",
    "error_depth",
    "MeanDividePlan",
    "mean_divide_plan",
    "mean_divide",
    "MeanCall",
]

_ITEMS = {"alpha": 1, "beta": 1, "gamma": 1, "delta": 2, "epsilon": 2}  # elements per thread
#: the complex (input, accumulator) pairs, production kernel only (sum and prod)
_COMPLEX_PAIRS = tuple((d, d) for d in _dtypes.COMPLEX)
_PAIRS = _dtypes.ACC_PAIRS_SET | frozenset(_COMPLEX_PAIRS)
_NARROW = {(i, op): (a, r) for i, a, r, ops in NARROW_KERNELS for op in ops}
_U8 = np.dtype(np.uint8)


class Route(tuple):
    """How ``op`` over an array of ``in_dt`` gives a result of ``res`` for ``variant``:
    ``convs``, the dtypes the input is converted to first, in order (``astype``: one pass each);
    ``kin``, ``kacc``, ``kout``, the kernel's input (the converted input, or a view of it),
    accumulator and output dtypes; ``res`` the result's dtype (a view of the kernel's
    output when of its size, a conversion of the one value otherwise)."""

    __slots__ = ()
    convs = property(lambda self: self[0])
    kin = property(lambda self: self[1])
    kacc = property(lambda self: self[2])
    kout = property(lambda self: self[3])
    res = property(lambda self: self[4])

    def prepare(self, arr):
        """The array the kernel reads: ``arr`` converted (``convs``), then viewed as ``kin``."""
        for dt in self.convs:
            arr = arr.astype(dt)
        if arr.dtype.kind == "c" and _address(arr) % arr.dtype.itemsize:
            arr = arr.copy()  # NumPy aligns complex arrays to their parts only; kernels read whole
            # elements (16-byte loads of c128)
        return arr if arr.dtype == self.kin else arr.view(self.kin)

    def result(self, out):
        """The kernel's output ``out`` (of ``kout``) as the result dtype."""
        if out.dtype == self.res:
            return out
        return (
            out.view(self.res) if out.dtype.itemsize == self.res.itemsize else out.astype(self.res)
        )


def _address(arr):
    """The address of ``arr``'s first element (NumPy or CuPy)."""
    return arr.ctypes.data if isinstance(arr, np.ndarray) else arr.data.ptr


def route(in_dt, acc_dt, op, variant):
    """The :class:`Route` of ``op`` over ``in_dt`` into ``acc_dt`` (NumPy's result dtype or a
    ``dtype=`` request). Native pairs (``ACC_PAIRS``) run as they are; narrow inputs take the
    production kernel's own instantiations (``REDUCE_NARROW_KERNELS``) and are converted to that
    kernel's accumulator dtype for the ladder and zeta; any other request converts the input to
    ``acc_dt`` first, as NumPy casts the elements to ``dtype``."""
    if isinstance(op, _ops.Op):  # in its accumulator dtype: the elements cast to it
        return Route(((acc_dt,) if in_dt != acc_dt else (), acc_dt, acc_dt, acc_dt, acc_dt))
    convs, src = (), in_dt
    if (src, acc_dt) not in _PAIRS and acc_dt != _dtypes.reduce_result_dtype(src, op):
        convs, src = (acc_dt,), acc_dt
    if (src, acc_dt) in _PAIRS:
        return Route((convs, src, acc_dt, acc_dt, acc_dt))
    natural = _dtypes.reduce_result_dtype(src, op)
    if (src, natural) in _PAIRS:
        return Route((convs, src, natural, natural, acc_dt))
    kacc, kout = _NARROW[(src, op)]
    if variant != "production":  # the ladder and zeta read the accumulator dtype
        return Route((convs + (kacc,), kacc, kacc, kacc, acc_dt))
    return Route((convs, src, kacc, kout, acc_dt))


def production_grid(k, n, in_dt, pol):
    vec = 16 // in_dt.itemsize
    return _launch.cover_grid(n, pol.block, vec * pol.vectors, kernel=k, per_sm=pol.blocks_per_sm)


class ProductionPlan(_plans.Plan):
    """The production kernel for n elements reduced with ``op`` along the :class:`Route` ``rt``
    (input dtype ``rt.kin``, accumulator ``rt.kacc``): one launch into a new 0-d result."""

    def __init__(self, backend, rt, op, n, pol, m=None):
        k = kernel("production", rt.kin, rt.kacc, op, pol, rt.kout, m)
        grid = production_grid(k, n, rt.kin, pol)
        xp = self.xp = backend.xp
        self.partials = xp.empty(grid, dtype=rt.kacc)
        self.ticket = xp.zeros(1, dtype=np.uint32)
        slot = _plans.Launch.SLOT
        self.launch = _plans.Launch(
            k, grid, pol.block, args=(slot, _launch.i64(n), self.partials, self.ticket, slot)
        )
        self.route, self.host = rt, not backend.is_cuda
        self.nbytes = _plans.scratch_bytes(self.partials, self.ticket)

    def run(self, x):
        """The 0-d device result of reducing the contiguous device array ``x`` (of the route's
        input dtype, or converted to it here)."""
        rt = self.route
        out = self.xp.empty((), dtype=rt.kout)
        self.launch(rt.prepare(x), out)
        return rt.result(out)

    def __call__(self, x):
        """As the public function returns it for ``x`` of the backend's own type: a 0-d CuPy
        array on the GPU, a NumPy scalar on the emulator (NumPy in, NumPy out)."""
        out = self.run(x)
        return out[()] if self.host else out


def production_plan(backend, rt, op, n, m=None):
    """The :class:`ProductionPlan` of this configuration (``m``: the map its input is read
    through, or None)."""
    pol = _policy.production()
    key = ("reduce/production", rt.kin, rt, (op, m), n, pol, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: ProductionPlan(backend, rt, op, n, pol, m))


class MaskedPlan(_plans.Plan):
    """reduce_masked (``where=`` fused on load) for n elements along the production
    :class:`Route` ``rt``: one launch into a new 0-d result, the grid, partials and ticket as
    :class:`ProductionPlan`'s."""

    def __init__(self, backend, rt, op, n, pol):
        k = masked_kernel(rt.kin, rt.kacc, op, pol, rt.kout)
        grid = _launch.cover_grid(n, pol.block, kernel=k, per_sm=pol.blocks_per_sm)
        xp = self.xp = backend.xp
        self.partials = xp.empty(grid, dtype=rt.kacc)
        self.ticket = xp.zeros(1, dtype=np.uint32)
        slot = _plans.Launch.SLOT
        self.launch = _plans.Launch(
            k, grid, pol.block, args=(slot, slot, _launch.i64(n), self.partials, self.ticket, slot)
        )
        self.route = rt
        self.nbytes = _plans.scratch_bytes(self.partials, self.ticket)

    def run(self, x, mask):
        """The 0-d result of the C-contiguous backend array ``x`` (flat) where the bool array
        ``mask`` (C-contiguous, of x's size) is True."""
        rt = self.route
        out = self.xp.empty((), dtype=rt.kout)
        self.launch(rt.prepare(x), mask.view(_U8), out)
        return rt.result(out)

    __call__ = run


def masked_plan(backend, rt, op, n):
    pol = _policy.production()
    key = ("reduce/masked", rt.kin, rt, op, n, pol, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: MaskedPlan(backend, rt, op, n, pol))


# ---- rows: one block per contiguous row (complex prod/min/max over axes) ----------------------


class RowsPlan(_plans.Plan):
    """``op`` over each of ``rows`` contiguous rows of ``width`` elements of ``dt`` (a case of
    :data:`~._kernels.ROWS_CASES`): one launch of reduce_rows, a grid of one block per row
    capped at the resident grid."""

    def __init__(self, backend, dt, op, rows, width, pol):
        k = rows_kernel(dt, op, pol)
        grid = min(rows, _launch.resident_grid(k, pol.block))
        slot = _plans.Launch.SLOT
        self.xp, self.dt, self.rows = backend.xp, dt, rows
        self.launch = _plans.Launch(
            k, grid, pol.block, args=(slot, _launch.i64(rows), _launch.i64(width), slot)
        )

    def run(self, lines):
        """The 1-D array of the rows' results; ``lines``: the rows one after another, of the
        plan's dtype, C-contiguous and aligned to its itemsize."""
        out = self.xp.empty(self.rows, dtype=self.dt)
        self.launch(lines, out)
        return out

    __call__ = run


def rows_plan(backend, dt, op, rows, width):
    pol = _policy.rows()
    key = ("reduce/rows", dt, op, rows, width, pol, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: RowsPlan(backend, dt, op, rows, width, pol))


class TupleReducePlan(_plans.Plan):
    """The production kernel over n tuples of ``acc_dt`` (:func:`~primitives._core.ops.
    tuple_dtype`) read from the zipped arrays of its fields (kernels/util/zip.cuh), with the
    user operator ``op``: one launch into a new one-tuple result."""

    def __init__(self, backend, acc_dt, op, n, pol):
        z, t = _ops.zip_ctype(acc_dt), _ops.ctype(acc_dt)
        name = f"reduce_production<{z}, {t}, {_ops.functor(op, t)}, {pol.block}, {pol.vectors}>"
        k = _ops.kernel(_kernels.SOURCE, op, acc_dt, name)
        grid = _launch.cover_grid(n, pol.block, pol.vectors, kernel=k, per_sm=pol.blocks_per_sm)
        xp = self.xp = backend.xp
        self.partials = xp.empty(grid, dtype=acc_dt)
        self.ticket = xp.zeros(1, dtype=np.uint32)
        zipped, slot = _plans.Launch.zip_slot(len(acc_dt.names)), _plans.Launch.SLOT
        self.launch = _plans.Launch(
            k, grid, pol.block, args=(zipped, _launch.i64(n), self.partials, self.ticket, slot)
        )
        self.acc_dt = acc_dt
        self.nbytes = _plans.scratch_bytes(self.partials, self.ticket)

    def __call__(self, *xs):
        """The reduction of the contiguous arrays ``xs`` (n elements each, of the fields'
        dtypes): a tuple of 0-d arrays, one per field."""
        out = self.xp.empty(1, dtype=self.acc_dt)
        self.launch(xs, out)
        raw = out.view(np.uint8)
        fields = self.acc_dt.fields
        return tuple(
            raw[off : off + f.itemsize].view(f).reshape(())
            for f, off in (fields[name][:2] for name in self.acc_dt.names)
        )


def tuple_plan(backend, acc_dt, op, n):
    """The :class:`TupleReducePlan` of this configuration."""
    pol = _policy.production()
    key = ("reduce/tuple", acc_dt, op, n, pol, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: TupleReducePlan(backend, acc_dt, op, n, pol))


def run(x, rt, op, variant, backend, m=None):
    """Reduce the non-empty contiguous device array ``x`` along the :class:`Route` ``rt`` (each
    element read through the map ``m``, or as it is); returns a 1-element or 0-d array of
    ``rt.res``."""
    if variant == "production":
        return production_plan(backend, rt, op, x.size, m).run(x)
    return rt.result(_run_classic(rt.prepare(x), rt.kin, rt.kacc, op, variant, backend, m))


def _run_classic(x, in_dt, acc_dt, op, variant, backend, m=None):
    xp = backend.xp
    n = x.size
    if variant == "zeta":
        pol = _policy.zeta()
        k = kernel("zeta", in_dt, acc_dt, op, pol, None, m)  # the map on the input only
        grid = _launch.cover_grid(n, pol.block, 2, kernel=k)
        partials = xp.empty(grid, dtype=acc_dt)
        _launch.launch(k, grid, pol.block, (x, partials, _launch.i64(n)))
        if grid == 1:
            return partials
        out = xp.empty(1, dtype=acc_dt)
        k2 = kernel("zeta", acc_dt, acc_dt, op, pol)
        _launch.launch(k2, 1, pol.block, (partials, out, _launch.i64(grid)))
        return out
    # the ladder: one launch per level over the previous level's block partials
    pol = _policy.ladder()
    items, block = _ITEMS[variant], pol.block
    smem = block * acc_dt.itemsize
    cur, cur_dt, cur_m = x, in_dt, m
    while True:
        k = kernel(variant, cur_dt, acc_dt, op, pol, None, cur_m)
        grid = _launch.cover_grid(cur.size, block, items)
        out = xp.empty(grid, dtype=acc_dt)
        _launch.launch(k, grid, block, (cur, out, _launch.i64(cur.size)), shared_mem=smem)
        if grid == 1:
            return out
        cur, cur_dt, cur_m = out, acc_dt, None  # partials: no map


def error_depth(variant, n, in_dt=np.dtype(np.float32)):
    """Longest chain of roundings from any input to the result for ``variant`` at size ``n``.

    A float reduction whose additions form a tree of depth ``d`` has error at most
    ``d * eps / (1 - d * eps) * sum(|x|)`` (Higham, *Accuracy and Stability*, sec. 4.2). The tests
    use this bound; it is conservative because it counts the longest chain for every element.
    """
    if n <= 1:
        return 1
    in_dt = np.dtype(in_dt)
    # the 16-bit floats accumulate in float32 (the ladder and zeta convert them first)
    half = _dtypes.is_float16(in_dt)
    log_block = lambda b: int(math.log2(b))  # noqa: E731
    if variant in _ITEMS:
        block = _policy.ladder().block
        items, depth, m = _ITEMS[variant], 0, n
        while m > 1:
            depth += (items - 1) + log_block(block)
            m = _launch.cdiv(m, block * items)
        return depth
    if variant == "zeta":
        pol = _policy.zeta()
        acc = np.dtype(np.float32) if half else in_dt
        grid = _launch.cover_grid(n, pol.block, 2, kernel=kernel("zeta", acc, acc, "sum", pol))
        first = 2 * _launch.cdiv(n, 2 * pol.block * grid) + log_block(pol.block)
        second = 2 * _launch.cdiv(grid, 2 * pol.block) + log_block(pol.block)
        return first + (second if grid > 1 else 0)
    pol = _policy.production()
    k = (
        kernel("production", in_dt, np.dtype(np.float32), "sum", pol, in_dt)
        if half
        else kernel("production", in_dt, in_dt, "sum", pol)
    )
    grid = production_grid(k, n, in_dt, pol)
    threads = grid * pol.block
    per_thread = (_launch.cdiv(n, threads) + 16) + 3  # vector body + head/tail + 4-way regroup
    return per_thread + 2 * log_block(pol.block) + _launch.cdiv(grid, pol.block)


# ---- mean's last step: the sums divided by the count (kernels/reduction/finish.cu) -----------

_FINISH_BLOCK = 256


class MeanDividePlan(_plans.Plan):
    """``m`` sums of dtype ``acc`` divided by ``count`` into ``res`` (a pair of
    :data:`~._kernels.MEAN_PAIRS`): one grid-stride launch."""

    def __init__(self, backend, acc, res, m, count):
        k = mean_divide_kernel(acc, res)
        grid = _launch.cover_grid(m, _FINISH_BLOCK, kernel=k)
        slot = _plans.Launch.SLOT
        self.empty, self.res = backend.xp.empty, res
        self.launch = _plans.Launch(
            k, grid, _FINISH_BLOCK, args=(slot, _launch.i64(m), _launch.i64(count), slot)
        )

    def __call__(self, sums):
        """The quotients, shaped and laid out as ``sums`` (C- or F-contiguous, of the plan's
        accumulator dtype)."""
        if sums.flags.f_contiguous and not sums.flags.c_contiguous:  # as its reversed view
            return self(sums.T).T
        out = self.empty(sums.shape, dtype=self.res)
        self.launch(sums, out)
        return out


def mean_divide_plan(backend, acc, res, m, count):
    """The plan of ``m`` sums of ``acc`` divided by ``count`` into ``res``."""
    key = ("reduce/mean_divide", acc, res, m, count, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: MeanDividePlan(backend, acc, res, m, count))


def mean_divide(backend, sums, count, res):
    """``sums / count`` as NumPy's mean finishes (true_divide in the accumulator's dtype, then the
    cast to ``res``), in one launch of the plan of this configuration."""
    if not (sums.flags.c_contiguous or sums.flags.f_contiguous):
        sums = backend.xp.ascontiguousarray(sums)
    return mean_divide_plan(backend, np.dtype(sums.dtype), res, sums.size, count)(sums)


class MeanCall(_plans.Plan):
    """mean over every element of arrays like the first one's (the repeat-call path): the
    whole-array sum's plan, then the division's, as the public function returns it."""

    def __init__(self, summed, divide):
        self.summed, self.divide = summed, divide

    def __call__(self, x):
        s = self.summed(x)  # a 0-d device array, or a NumPy scalar on the emulator
        if isinstance(s, np.generic):
            return self.divide(np.asarray(s).reshape(1))[0]
        return self.divide(s)

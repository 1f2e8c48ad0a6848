"""Reduction plans: kernel names, grids and the production kernel's plan.

One module per variant (a test or tour touching one variant compiles only that one). The
production kernel runs from a :class:`ProductionPlan` per (dtypes, op, n, policy, stream): its
block partials and last-block ticket (left at 0 by the kernel) are made once, and its launch
checked once. The ladder and zeta launch per call (their grids shrink level by level).
"""

from __future__ import annotations

import math

import numpy as np

from .._core import dtypes as _dtypes, launch as _launch, loader as _loader, plans as _plans
from . import _policy

SOURCE = "reduction/reduce.cu"
VARIANTS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "production")
OPS = ("sum", "min", "max")
LADDER = ("alpha", "beta", "gamma", "delta", "epsilon")
_OP_TEMPLATE = {"sum": "prim::Sum", "min": "prim::Min", "max": "prim::Max"}
_ITEMS = {"alpha": 1, "beta": 1, "gamma": 1, "delta": 2, "epsilon": 2}  # elements per thread


def kernel_name(variant, in_dt, acc_dt, op, pol):
    in_c, acc_c = _dtypes.CTYPES[in_dt], _dtypes.CTYPES[acc_dt]
    tail = ""
    if variant == "zeta":
        tail = f", {pol.block}"
    elif variant == "production":
        tail = f", {pol.block}, {pol.vectors}"
    return f"reduce_{variant}<{in_c}, {acc_c}, {_OP_TEMPLATE[op]}<{acc_c}>{tail}>"


def _selector(variant):
    return "ladder" if variant in LADDER else variant


def names(variant, pol):
    return [kernel_name(variant, i, a, op, pol) for i, a in _dtypes.ACC_PAIRS for op in OPS]


_MODULES = _loader.PolicyModules(SOURCE, names, _policy.TABLE, VARIANTS, _selector)


def kernel(variant, in_dt, acc_dt, op, pol):
    """The kernel of ``variant`` under policy ``pol`` (one module per variant and policy)."""
    return _MODULES.kernel(variant, kernel_name(variant, in_dt, acc_dt, op, pol), pol)


def production_grid(k, n, in_dt, pol):
    vec = 16 // in_dt.itemsize
    return _launch.cover_grid(n, pol.block, vec * pol.vectors, kernel=k, per_sm=pol.blocks_per_sm)


class ProductionPlan(_plans.Plan):
    """The production kernel for n elements of ``in_dt`` reduced into ``acc_dt`` with ``op``:
    one launch into a new 0-d result."""

    def __init__(self, backend, in_dt, acc_dt, op, n, pol):
        k = kernel("production", in_dt, acc_dt, op, pol)
        grid = production_grid(k, n, in_dt, pol)
        xp = self.xp = backend.xp
        self.partials = xp.empty(grid, dtype=acc_dt)
        self.ticket = xp.zeros(1, dtype=np.uint32)
        slot = _plans.Launch.SLOT
        self.launch = _plans.Launch(k, grid, pol.block,
                                    args=(slot, _launch.i64(n), self.partials, self.ticket, slot))
        self.acc_dt, self.host = acc_dt, not backend.is_cuda
        self.nbytes = _plans.scratch_bytes(self.partials, self.ticket)

    def run(self, x):
        """The 0-d device result of reducing the contiguous device array ``x``."""
        out = self.xp.empty((), dtype=self.acc_dt)
        self.launch(x, out)
        return out

    def __call__(self, x):
        """As the public function returns it for ``x`` of the backend's own type: a 0-d CuPy
        array on the GPU, a NumPy scalar on the emulator (NumPy in, NumPy out)."""
        out = self.xp.empty((), dtype=self.acc_dt)
        self.launch(x, out)
        return out[()] if self.host else out


def production_plan(backend, in_dt, acc_dt, op, n):
    pol = _policy.production()
    key = ("reduce/production", in_dt, acc_dt, op, n, pol, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: ProductionPlan(backend, in_dt, acc_dt, op, n, pol))


def run(x, in_dt, acc_dt, op, variant, backend):
    """Reduce the non-empty contiguous device array ``x``; returns a 1-element or 0-d array."""
    xp = backend.xp
    n = x.size
    if variant == "production":
        return production_plan(backend, in_dt, acc_dt, op, n).run(x)
    if variant == "zeta":
        pol = _policy.zeta()
        k = kernel("zeta", in_dt, acc_dt, op, pol)
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
    cur, cur_dt = x, in_dt
    while True:
        k = kernel(variant, cur_dt, acc_dt, op, pol)
        grid = _launch.cover_grid(cur.size, block, items)
        out = xp.empty(grid, dtype=acc_dt)
        _launch.launch(k, grid, block, (cur, out, _launch.i64(cur.size)), shared_mem=smem)
        if grid == 1:
            return out
        cur, cur_dt = out, acc_dt


def error_depth(variant, n, in_dt=np.dtype(np.float32)):
    """Longest chain of roundings from any input to the result for ``variant`` at size ``n``.

    A float reduction whose additions form a tree of depth ``d`` has error at most
    ``d * eps / (1 - d * eps) * sum(|x|)`` (Higham, *Accuracy and Stability*, sec. 4.2). The tests
    use this bound; it is conservative because it counts the longest chain for every element.
    """
    if n <= 1:
        return 1
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
        grid = _launch.cover_grid(n, pol.block, 2, kernel=kernel("zeta", in_dt, in_dt, "sum", pol))
        first = 2 * _launch.cdiv(n, 2 * pol.block * grid) + log_block(pol.block)
        second = 2 * _launch.cdiv(grid, 2 * pol.block) + log_block(pol.block)
        return first + (second if grid > 1 else 0)
    pol = _policy.production()
    k = kernel("production", in_dt, in_dt, "sum", pol)
    grid = production_grid(k, n, in_dt, pol)
    threads = grid * pol.block
    per_thread = (_launch.cdiv(n, threads) + 16) + 3  # vector body + head/tail + 4-way regroup
    return per_thread + 2 * log_block(pol.block) + _launch.cdiv(grid, pol.block)

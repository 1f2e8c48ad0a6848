"""Scan plans: kernel names, the look-back scan's plan and the classic scans' launches.

One module per variant and policy (a test or tour touching one variant compiles only that one).
The look-back scan runs from a :class:`ScanPlan` per (dtypes, op, inclusive or exclusive, n,
policy, stream): its tile counter and tile states are made once and its launch checked once. The
classic scans launch per call (their grids shrink level by level).
"""

from __future__ import annotations

import math

import numpy as np

from .._core import checks as _checks, dtypes as _dtypes, launch as _launch, loader as _loader
from .._core import lookback as _lookback, plans as _plans
from . import _policy

SOURCE = "scan/scan.cu"
VARIANTS = ("hillis_steele", "blelloch", "decoupled_lookback")
OPS = _checks.OPS
_OP_TEMPLATE = {"sum": "prim::Sum", "min": "prim::Min", "max": "prim::Max"}
_TILE_PER_BLOCK = {"hillis_steele": 1, "blelloch": 2}  # elements per thread of the block scans


def _op(op, acc_c):
    return f"{_OP_TEMPLATE[op]}<{acc_c}>"


def kernel_name(variant, in_dt, acc_dt, op, exclusive, pol):
    in_c, acc_c = _dtypes.CTYPES[in_dt], _dtypes.CTYPES[acc_dt]
    ex = "true" if exclusive else "false"
    if variant == "decoupled_lookback":
        items = pol.items(in_dt, acc_dt)
        return f"scan_lookback<{in_c}, {acc_c}, {_op(op, acc_c)}, {pol.block}, {items}, {ex}>"
    return f"scan_{variant}<{in_c}, {acc_c}, {_op(op, acc_c)}, {ex}>"


def add_name(acc_dt, op):
    acc_c = _dtypes.CTYPES[acc_dt]
    return f"scan_add_prefix<{acc_c}, {_op(op, acc_c)}>"


def names(variant, pol):
    out = [kernel_name(variant, i, a, op, ex, pol) for i, a in _dtypes.ACC_PAIRS for op in OPS
           for ex in (False, True)]
    if variant != "decoupled_lookback":
        out += [add_name(d, op) for d in _dtypes.NUMERIC for op in OPS]
    return out


#: kernel(variant, name, pol): every variant's modules under every policy of the table
kernel = _loader.PolicyModules(SOURCE, names, _policy.TABLE, VARIANTS).kernel


# ---- single-pass decoupled look-back ---------------------------------------------------------


class ScanPlan(_lookback.LookbackPlan):
    """The look-back scan of n elements of ``in_dt`` into ``acc_dt`` with ``op``: one launch
    into a new 1-D result of n elements."""

    def __init__(self, backend, in_dt, acc_dt, op, exclusive, n, pol):
        name = kernel_name("decoupled_lookback", in_dt, acc_dt, op, exclusive, pol)
        k = kernel("decoupled_lookback", name, pol)
        tiles = _launch.cdiv(n, pol.block * pol.items(in_dt, acc_dt))
        super().__init__(k, tiles, pol.block, n, backend.xp, acc_dt.itemsize)
        self.empty, self.n, self.acc_dt = backend.xp.empty, n, acc_dt

    def __call__(self, x):
        """The scan of the contiguous array ``x`` of the backend's own type (any shape of n
        elements), as the public functions return it for such input."""
        out = self.empty(self.n, dtype=self.acc_dt)
        self.launch(x, out, self.n64)
        return out


def lookback_plan(backend, in_dt, acc_dt, op, exclusive, n):
    pol = _policy.current("decoupled_lookback")
    key = ("scan/lookback", in_dt, acc_dt, op, exclusive, n, pol, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: ScanPlan(backend, in_dt, acc_dt, op, exclusive, n, pol))


# ---- hierarchical (classic) scans ------------------------------------------------------------


def hierarchical(x, n, in_dt, acc_dt, op, exclusive, variant, backend):
    """The classic scan ``variant`` of the contiguous device array ``x``: block scans, the
    block sums scanned (recursively, same variant), the prefixes added back."""
    pol = _policy.current(variant)
    xp = backend.xp
    block = pol.block
    tile = block * _TILE_PER_BLOCK[variant]
    nblocks = _launch.cdiv(n, tile)
    out = xp.empty(n, dtype=acc_dt)
    sums = xp.empty(nblocks, dtype=acc_dt)
    k = kernel(variant, kernel_name(variant, in_dt, acc_dt, op, exclusive, pol), pol)
    if variant == "hillis_steele":
        smem = 2 * block * acc_dt.itemsize
    else:
        smem = (2 * block + 2 * block // 32) * acc_dt.itemsize
    _launch.launch(k, nblocks, block, (x, out, _launch.i64(n), sums), shared_mem=smem)
    if nblocks > 1:
        prefix = hierarchical(sums, nblocks, acc_dt, acc_dt, op, True, variant, backend)
        add = kernel(variant, add_name(acc_dt, op), pol)
        grid = _launch.cover_grid(n - tile, pol.add_block, pol.add_items, kernel=add)
        _launch.launch(add, grid, pol.add_block, (out, _launch.i64(n), prefix, _launch.i64(tile)))
    return out


def error_depth(variant, n, in_dt, acc_dt):
    """Per-position bound on the depth of the rounding tree of output ``i`` (array of n values):
    used by the tests with Higham's bound on each prefix."""
    idx = np.arange(n, dtype=np.float64)
    pol = _policy.current(variant)
    if variant == "decoupled_lookback":
        items = pol.items(np.dtype(in_dt), np.dtype(acc_dt))
        tile = pol.block * items
        per_tile = items + 2 * int(math.log2(pol.block)) + 8
        return 2 * per_tile + 7 * (np.floor(idx / tile) + 1)
    tile = pol.block * _TILE_PER_BLOCK[variant]
    levels = max(1, math.ceil(math.log(max(n, 2), tile)))
    return np.full(n, levels * (2 * int(math.log2(tile)) + 4) + 2, dtype=np.float64)

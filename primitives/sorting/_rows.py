"""Rows of equal length sorted each on its own, the building block of the sorts along an axis
and of selection: one launch of ``kernels/sorting/rows.cu`` whose row length is known (no
offsets read, no read-back), a lane, a warp or a block a row by the row's length
(:mod:`._rows_policy`); rows longer than a block holds are sorted device-wide (by key, then
stably by row, :func:`._segmented.sort_large`).

The kernels read the keys in their own dtype (1- and 2-byte keys too: no widening pass), write
them back in it, and generate argsort's column indices themselves (``indices=True``)."""

from __future__ import annotations

import numpy as np

from .._core import keys as _keys, launch as _launch, loader as _loader, plans as _plans
from .._core.dtypes import BFLOAT16
from .._core.keys import INDEX, KIND, KIND_BF16, U, native_values
from .._core.policy import SHARED_MAX
from . import _rows_policy, _segmented

__all__ = ["sort_rows", "capacity", "kernel_name"]

ROWS = "sorting/rows.cu"
#: C++ type of the stored keys, by width
KC = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long"}
#: rows::ValueMode
VM_NONE, VM_IOTA, VM_ARRAY = 0, 1, 2
#: the value configurations (mode, value bytes): none, the column as int64, 4- and 8-byte values
VCFGS = ((VM_NONE, 4), (VM_IOTA, 8), (VM_ARRAY, 4), (VM_ARRAY, 8))
#: the largest grid: the kernels loop over the rows past it
GRID_MAX = (1 << 31) - 1


def _counter_bytes(warps):
    """rows::counter_bytes: the rank counters and lane masks of ``warps`` warps (8-bit digits,
    prim::radix::rank_counters), rounded up to 16 bytes."""
    return -(-4 * warps * (257 + 32) // 16) * 16


def _slot_bytes(kb, vm):
    """rows::slot_bytes: a key as sorted (4 bytes, 8 for 8-byte keys), and its 16-bit position
    when values move."""
    return (8 if kb == 8 else 4) + (2 if vm != VM_NONE else 0)


def warp_smem(kb, vm, warps, items):
    """rows::rows_warp_smem: dynamic shared memory of rows_sort_warp."""
    return warps * (_counter_bytes(1) + 32 * items * _slot_bytes(kb, vm))


def block_smem(kb, vm, vb, tile):
    """rows::rows_block_smem: dynamic shared memory of rows_sort_block in ``tile``."""
    block, items = tile
    slot = _slot_bytes(kb, vm)
    return _counter_bytes(block // 32) + block * items * (
        vb if vm == VM_ARRAY and vb > slot else slot
    )


def kernel_name(kind, kb, vm, vb, shape, pol):
    """The instantiation of ``kind`` ("lanes", "warp" or "block") for ``kb``-byte keys, values
    of mode ``vm`` and ``vb`` bytes, ``shape`` (warps, items) or (block, items), under
    ``pol``."""
    args = f"{KC[kb]}, {KC[vb]}, {vm}, {shape[0]}, {shape[1]}"
    if kind == "lanes":
        return f"rows_sort_lanes<{args}>"
    if kind == "warp":
        return f"rows_sort_warp<{args}, {pol.match}>"
    return f"rows_sort_block<{args}, {pol.match}, {max(1, pol.resident // shape[0])}>"


def choose(m, kb, vm, vb, pol):
    """("lanes" | "warp" | "block", shape, shared memory) of rows of ``m`` keys, or None when a
    row is longer than every tile whose shared memory fits (sorted device-wide)."""
    if m <= 32:
        return "lanes", (pol.lanes_warps, pol.lanes_items), 0
    if m <= 32 * pol.warp_items:
        shape = (pol.warp_warps, pol.warp_items)
        smem = warp_smem(kb, vm, *shape)
        if smem <= SHARED_MAX:
            return "warp", shape, smem
    for tile in pol.tiles_for(vm != VM_NONE):
        smem = block_smem(kb, vm, vb, tile)
        if m <= tile[0] * tile[1] and smem <= SHARED_MAX:
            return "block", tile, smem
    return None


def capacity(kb, vm=VM_NONE, vb=4, pol=None):
    """The longest row of ``kb``-byte keys (values of mode ``vm``, ``vb`` bytes) sorted on chip."""
    pol = _rows_policy.rows() if pol is None else pol
    tiles = pol.tiles_for(vm != VM_NONE)
    fits = [b * i for b, i in tiles if block_smem(kb, vm, vb, (b, i)) <= SHARED_MAX]
    return max(fits + [32 * pol.warp_items, 32])


def _names(pol):
    names = []
    for kb in KC:
        for vm, vb in VCFGS:
            names.append(kernel_name("lanes", kb, vm, vb, (pol.lanes_warps, pol.lanes_items), pol))
            shape = (pol.warp_warps, pol.warp_items)
            if pol.warp_items > 1 and warp_smem(kb, vm, *shape) <= SHARED_MAX:
                names.append(kernel_name("warp", kb, vm, vb, shape, pol))
            names += [
                kernel_name("block", kb, vm, vb, t, pol)
                for t in pol.tiles_for(vm != VM_NONE)
                if block_smem(kb, vm, vb, t) <= SHARED_MAX
            ]
    return names


NAMES = list(dict.fromkeys(n for p in _rows_policy.TABLE.policies() for n in _names(p)))
_loader.register(ROWS, NAMES)


def _kernel(name):
    """Kernel ``name``: from the module of the table's policies, or (a policy being tuned) from
    a module of its own."""
    return _loader.load(ROWS, NAMES if name in NAMES else [name])(name)


class RowsPlan(_plans.Plan):
    """The one launch that sorts ``rows`` rows of ``m`` keys of ``kb`` bytes with values of
    mode ``vm`` (``vb`` bytes) under ``pol``: the kernel of the row length, checked once."""

    def __init__(self, kb, vm, vb, rows, m, pol):
        self.policy = pol
        kind, shape, smem = choose(m, kb, vm, vb, pol)
        kernel = _kernel(kernel_name(kind, kb, vm, vb, shape, pol))
        if kind == "lanes":
            per = 32 // m
            warps = _launch.cdiv(_launch.cdiv(rows, per), shape[1])
            grid, block = _launch.cdiv(warps, shape[0]), 32 * shape[0]
        elif kind == "warp":
            grid, block = _launch.cdiv(rows, shape[0]), 32 * shape[0]
        else:
            grid, block = rows, shape[0]
        self.kind = kind
        self.launch = _plans.Launch(kernel, min(grid, GRID_MAX), block, smem)


def _on_chip(backend, kbits, kind, desc, vm, vin, rows, m, write_keys):
    """Sort on chip: (keys or None, values or None) as flat arrays of the kernel's bits."""
    xp = backend.xp
    kb = kbits.dtype.itemsize
    vb = 8 if vm == VM_IOTA else (vin.dtype.itemsize if vm == VM_ARRAY else 4)
    pol = _rows_policy.rows()
    plan = _plans.PLANS.get(
        ("sort/rows", kb, vm, vb, rows, m, pol, _plans.stream_key()),
        lambda: RowsPlan(kb, vm, vb, rows, m, pol),
    )
    n = rows * m
    kout = xp.empty(n, dtype=kbits.dtype) if write_keys else _launch.stand_in(backend, kbits.dtype)
    vstand = _launch.stand_in(backend, U[vb])
    vout = vstand if vm == VM_NONE else xp.empty(n, dtype=U[vb])
    vin = vstand if vm != VM_ARRAY else vin
    plan.launch(
        kbits,
        kout,
        vin,
        vout,
        _launch.i64(rows),
        np.int32(m),
        np.int32(kind),
        np.int32(desc),
        np.int32(write_keys),
    )
    return (kout if write_keys else None), (None if vm == VM_NONE else vout)


def _stored(dt):
    """(unsigned dtype of the stored bits, prim::radix::KeyKind) of a key dtype."""
    if dt == np.bool_:
        return np.dtype(np.uint8), 0
    if dt == np.float16:
        return np.dtype(np.uint16), KIND["f"]
    if dt == BFLOAT16:
        return np.dtype(np.uint16), KIND_BF16
    if dt not in _keys.KEY_SET and not (dt.kind in "ui" and dt.itemsize in KC):
        raise TypeError(f"sort_rows: keys of dtype {dt} are not sorted")
    return np.dtype(f"u{dt.itemsize}"), KIND[dt.kind]


def sort_rows(backend, keys2, values2=None, descending=False, *, indices=False):
    """Each row of ``keys2`` (R, m) sorted stably (NumPy's order: NaNs last, -0.0 and 0.0
    equal; ``descending``: largest first, equal keys in input order, NaNs first, or a
    :data:`~primitives._core.keys.DESC_NAN_LAST` for NaNs last), ``values2``
    (R, m, any dtype) alongside: the keys, or (keys, values), as (R, m) arrays. With
    ``indices`` (no ``values2``): only each sorted key's column in its row, as int64 (R, m),
    generated in the kernel (argsort along the rows; the keys are not written). Either array
    may be any view (a slice, a broadcast): the kernels read C-contiguous copies of those that
    are not C-contiguous. Keys: the radix sorts' dtypes, float16, bfloat16 and bool."""
    if indices and values2 is not None:
        raise TypeError("sort_rows: indices takes no values")
    rows, m = keys2.shape
    xp = backend.xp
    bits_dt, kind = _stored(keys2.dtype)
    if keys2.size == 0:
        if indices:
            return xp.empty((rows, m), dtype=INDEX)
        return keys2 if values2 is None else (keys2, values2)
    kbits = xp.ascontiguousarray(keys2).reshape(-1).view(bits_dt)
    desc = int(descending)
    vnat = None if values2 is None else native_values(values2)
    if indices or (values2 is not None and vnat is None):
        vm, vin = VM_IOTA, None  # the columns, then (other widths) a gather of the values
    elif values2 is not None:
        vm, vin = VM_ARRAY, xp.ascontiguousarray(vnat).reshape(-1)
    else:
        vm, vin = VM_NONE, None
    vb = 8 if vm == VM_IOTA else (4 if vin is None else vin.dtype.itemsize)
    if choose(m, kbits.dtype.itemsize, vm, vb, _rows_policy.rows()) is not None:
        skeys, svals = _on_chip(backend, kbits, kind, desc, vm, vin, rows, m, not indices)
    else:
        skeys, svals = _long_rows(backend, keys2, kbits, desc, vm, vin, rows, m, not indices)
    if svals is not None:
        svals = svals.reshape(rows, m)
        if vm == VM_IOTA:
            svals = svals.view(INDEX)
    if indices:
        return svals
    out = skeys.view(keys2.dtype).reshape(rows, m)
    if values2 is None:
        return out
    if vm == VM_ARRAY:
        return out, svals.view(values2.dtype)
    return out, xp.take_along_axis(values2, svals, axis=1)


def _long_rows(backend, keys2, kbits, desc, vm, vin, rows, m, want_keys):
    """Rows longer than a block sorts: device-wide by key, then stably by row (the row of a
    position is known: no offsets searched). As :func:`_on_chip`."""
    xp = backend.xp
    sbits, kind, bits = _keys.key_bits(xp.ascontiguousarray(keys2).reshape(-1))
    perm = _segmented.sorted_by_segment(sbits, kind, bits, desc, rows, m, backend)
    skeys = kbits[perm] if want_keys else None
    if vm == VM_NONE:
        return skeys, None
    if vm == VM_IOTA:
        return skeys, (perm % m).astype(U[8])
    return skeys, vin[perm]

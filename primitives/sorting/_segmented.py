"""The segmented sort: segments of up to 32 * warp_items keys sorted by a warp each, up to
block * items by a block each, in one launch of each kind for all segments; inputs with longer
segments sorted device-wide by key, then stably by segment number (onesweep)."""

from __future__ import annotations

import numpy as np

from .._core import launch as _launch, loader as _loader, plans as _plans
from .._core.keys import U, index_dtype, native_values
from . import _kernels, _onesweep, _policy
from ._plans import Job


class SegmentedPlan(_plans.Plan):
    """The launches of the on-chip segmented sort of ``nseg`` segments of keys of ``kb`` bytes
    with ``vb``-byte values (0: none) under ``policy``: segsort_warp (4 warps, so 4 segments, a
    block) and segsort_block (a block a segment), checked once."""

    WARPS = 4  # segsort_warp's warps per block (seg::WARPS)

    def __init__(self, kb, vb, nseg, pol):
        self.policy = pol
        self.warp_max = 32 * pol.warp_items
        warp, block = _kernels.segmented_names(kb, vb, pol)
        _loader.prefetch(_kernels.SEGMENTED, [warp, block])  # compiled side by side
        kw = _kernels.kernel(_kernels.SEGMENTED, warp)
        kblk = _kernels.kernel(_kernels.SEGMENTED, block)
        self.warp = _plans.Launch(kw, _launch.cdiv(nseg, self.WARPS), 32 * self.WARPS)
        smem = _kernels.tile_smem(pol.block, pol.items, kb + 2, 8)  # keys and positions
        self.block = _plans.Launch(kblk, nseg, pol.block, smem)


def sort_segments(kbits, kind, bits, desc, varr, off, longest, on_chip, backend):
    """Every segment sorted, ``longest`` its longest: on chip (:func:`sort_small`) or
    device-wide (:func:`sort_large`), as ``on_chip`` says (:func:`._choose.on_chip`). (keys,
    values)."""
    if on_chip:
        return sort_small(kbits, kind, bits, desc, varr, off, longest, backend)
    return sort_large(kbits, kind, bits, desc, varr, off, backend)


def sort_small(kbits, kind, bits, desc, varr, off, longest, backend):
    """Every segment of at most :func:`._choose.block_max` keys sorted on chip: (keys, values)."""
    xp = backend.xp
    n, kb = kbits.size, kbits.dtype.itemsize
    nseg = off.size - 1
    vbits = None if varr is None else native_values(varr)
    if varr is not None and vbits is None:
        vbits = xp.arange(n, dtype=index_dtype(n))  # gather the values through a permutation
    vb = 0 if vbits is None else vbits.dtype.itemsize
    pol = _policy.segmented()
    plan = _plans.PLANS.get(
        ("sort/segmented", kb, vb, nseg, pol, _plans.stream_key()),
        lambda: SegmentedPlan(kb, vb, nseg, pol),
    )
    keys_out = xp.empty(n, dtype=kbits.dtype)
    vdummy = _launch.stand_in(backend, U[vb] if vb else np.dtype(np.uint32))
    vin = vbits if vb else vdummy
    vout = xp.empty(n, dtype=vbits.dtype) if vb else vdummy
    tail = (np.int32(kind), np.int32(desc), np.int32(0), np.int32(bits))
    plan.warp(kbits, keys_out, vin, vout, off, _launch.i64(nseg), *tail)
    if longest > plan.warp_max:
        plan.block(kbits, keys_out, vin, vout, off, _launch.i64(plan.warp_max), *tail)
    if varr is None:
        return keys_out, None
    if native_values(varr) is not None:
        return keys_out, vout.view(varr.dtype)
    return keys_out, varr[vout]


def sort_large(kbits, kind, bits, desc, varr, off, backend):
    """Stable sort by key, then stable sort by segment number: sorted within segments."""
    xp = backend.xp
    n = kbits.size
    nseg = off.size - 1

    def segment_of(perm):
        return xp.searchsorted(off[1:], xp.arange(n, dtype=np.int64), side="right")[perm]

    perm = _by_key_then_segment(kbits, kind, bits, desc, nseg, segment_of, backend)
    return kbits[perm], (None if varr is None else varr[perm])


def sorted_by_segment(kbits, kind, bits, desc, rows, m, backend):
    """The permutation that sorts each of ``rows`` rows of ``m`` keys (segments of one length:
    a position's row is its index over m, no offsets searched)."""
    return _by_key_then_segment(kbits, kind, bits, desc, rows, lambda perm: perm // m, backend)


def _by_key_then_segment(kbits, kind, bits, desc, nseg, segment_of, backend):
    """The permutation of a stable sort by key (onesweep, the index alongside), then a stable
    sort by segment number, ``segment_of(perm)`` giving the segment of each sorted key."""
    _, perm = _onesweep.run(Job(kbits, kind, 0, bits, desc, "iota", False, False, backend))
    seg_bits = max(1, int(nseg - 1).bit_length())
    seg_sorted = segment_of(perm).astype(np.uint32 if seg_bits <= 32 else np.uint64)
    _, perm = _onesweep.run(Job(seg_sorted, 0, 0, seg_bits, False, perm, False, False, backend))
    return perm

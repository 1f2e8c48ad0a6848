"""The block sort: a whole small input sorted by one block in registers and shared memory (LSD
8-bit digits, constant digits skipped), one launch and no scratch: the sort of small calls,
whose cost is the host's (``kernels/sorting/block.cu``)."""

from __future__ import annotations

import numpy as np

from .._core import launch as _launch, loader as _loader, plans as _plans
from .._core.keys import INDEX, U
from . import _kernels, _policy

IOTA, KEYS_DISCARD = 1, 4  # prim::radix::ValueFlags


def capacity(kb, pol=None):
    """The most keys of ``kb`` bytes (4 or 8) the block sort takes."""
    return (_policy.block() if pol is None else pol).capacity(kb)


class BlockSortPlan(_plans.Plan):
    """The one launch of the block sort of ``job``'s configuration (key width and kind, n, bit
    range, order, values, whether keys are wanted) under ``policy``, checked once.

    Values: none, 4- or 8-byte values moved alongside (gathered from the keys' original
    positions), or ``"iota"``: each key's original index, written by the kernel as int64.
    """

    def __init__(self, job, pol):
        be, kb, n = job.backend, job.kb, job.n
        if not 1 <= n <= pol.capacity(kb):
            raise ValueError(
                f"block sort: {n} keys of {kb} bytes; it takes 1 to {pol.capacity(kb)}"
            )
        self.policy = pol
        self.xp, self.n, self.want_keys = be.xp, n, job.want_keys
        self.kdt = U[kb]
        self.iota = job.iota
        # the kernel's values: the index as int64 (iota), the values' own bits, or none
        self.vdt = INDEX if job.iota else job.vdt
        vb = 0 if self.vdt is None else self.vdt.itemsize
        self.stand_k = _launch.stand_in(be, self.kdt)
        self.stand_v = _launch.stand_in(be, U[vb] if vb else np.dtype(np.uint32))
        flags = (IOTA if job.iota else 0) | (0 if job.want_keys else KEYS_DISCARD)
        tile = self.tile = pol.tile(kb, n)  # the smallest block that holds the n keys
        kernel = _kernels.kernel(_kernels.BLOCK, _kernels.block_name(kb, vb, tile))
        smem = _kernels.tile_smem(tile[0], tile[1], kb + 2, 8)  # keys, 16-bit positions
        slot = _plans.Launch.SLOT
        self.launch = _plans.Launch(
            kernel,
            1,
            tile[0],
            smem,
            args=(
                slot,
                slot,
                slot,
                slot,
                _launch.i64(n),
                *job.common(),
                np.int32(job.begin),
                np.int32(job.end),
                np.int32(flags),
            ),
        )

    def run(self, keys, values):
        """Sort ``keys`` (n keys of the plan's width and key kind, as their bits or as they are)
        with ``values`` (None, n values of the plan's value width, or ``"iota"``). Returns
        (sorted keys or None, values or None), in the dtypes of the inputs (int64 for
        ``"iota"``)."""
        dt, kdt, xp, n = keys.dtype, self.kdt, self.xp, self.n
        bits = keys if dt == kdt else keys.view(kdt)
        keys_out = xp.empty(n, dtype=kdt) if self.want_keys else self.stand_k
        vdt = self.vdt
        if vdt is None:
            vin = vout = self.stand_v
        elif self.iota:
            vin, vout = self.stand_v, xp.empty(n, dtype=INDEX)
        else:
            vin = values if values.dtype == vdt else values.view(vdt)
            vout = xp.empty(n, dtype=vdt)
        self.launch(bits, keys_out, vin, vout)
        out_keys = out_vals = None
        if self.want_keys:
            out_keys = keys_out if dt == kdt else keys_out.view(dt)
        if vdt is not None:
            out_vals = vout if self.iota or values.dtype == vdt else vout.view(values.dtype)
        return out_keys, out_vals

    def __call__(self, keys, values=None):
        """What the public function that made the plan returns for ``keys`` (and ``values``)
        of the backend's own type, like the ones it was made for: the permutation (int64) of a
        plan of :func:`~primitives.argsort`, else the sorted keys, or (keys, values)."""
        if self.iota:
            return self.run(keys, "iota")[1]
        skeys, svals = self.run(keys, values)
        return skeys if self.vdt is None else (skeys, svals)


def prefetch(kb, vb, n):
    """Ask for the kernel of a block sort of n ``kb``-byte keys with ``vb``-byte kernel values
    (0: none; 8: the index), compiled in the background where it is not loaded yet."""
    pol = _policy.block()
    _loader.prefetch(_kernels.BLOCK, [_kernels.block_name(kb, vb, pol.tile(kb, n))])


def plan(job):
    """The plan of ``job``'s configuration on the current stream (made once)."""
    pol = _policy.block()
    vkey = "iota" if job.iota else job.vb
    key = (
        "sort/block",
        job.kb,
        vkey,
        job.n,
        job.begin,
        job.end,
        job.kind,
        job.desc,
        job.want_keys,
        pol,
        _plans.stream_key(),
    )
    return _plans.PLANS.get(key, lambda: BlockSortPlan(job, pol))


def run(job):
    """Sort ``job`` with the block sort; returns (keys or None, values or None) as
    :meth:`~._plans.Job.finish` (the index of ``"iota"`` values as int64, and values widened to
    int64 where the job asks for it: the last word of a lexsort, whose values are the previous
    word's permutation)."""
    return job.finish(*plan(job).run(job.kbits, job.values))

"""The classic sort: 4-bit digits, three launches per pass (per-tile digit histograms, one scan
of them by the project's scan, a scatter that ranks each tile in shared memory)."""

from __future__ import annotations

import numpy as np

from .._core import launch as _launch, plans as _plans
from .._core.keys import U
from . import _kernels, _policy


class ClassicPlan(_plans.Plan):
    """The histogram and scatter launches of the classic sort of n keys of ``kb`` bytes with
    ``vb``-byte values (0: none) under ``policy``: one block per tile, checked once."""

    def __init__(self, kb, vb, n, pol):
        self.policy = pol
        self.tiles = _launch.cdiv(n, pol.block * pol.items)
        hist, scatter = _kernels.classic_names(kb, vb, pol)
        kh = _kernels.kernel(_kernels.CLASSIC, hist)
        ks = _kernels.kernel(_kernels.CLASSIC, scatter)
        smem = _kernels.tile_smem(pol.block, pol.items, max(kb, vb), pol.bits)
        self.hist = _plans.Launch(kh, self.tiles, pol.block)
        self.scatter = _plans.Launch(ks, self.tiles, pol.block, smem)

    def __call__(self, job):
        """Sort ``job`` (see :class:`~._plans.Job`, of this plan's widths and size); returns
        (keys or None, values or None)."""
        from ..scan import exclusive_scan

        pol = self.policy
        xp, n, vb = job.xp, job.n, job.vb
        vals = job.materialized_values()
        counts = xp.empty((1 << pol.bits) * self.tiles, dtype=np.uint32)
        passes = _launch.cdiv(job.end - job.begin, pol.bits)
        bufs = [job.buffers() for _ in range(min(2, passes))]
        vdummy = _launch.stand_in(job.backend, U[vb] if vb else np.dtype(np.uint32))
        src_k, src_v = job.kbits, vals
        for p in range(passes):
            shift = job.begin + p * pol.bits
            width = min(pol.bits, job.end - shift)
            dst_k, dst_v = bufs[p % 2]
            self.hist(
                src_k, _launch.i64(n), *job.common(), np.int32(shift), np.int32(width), counts
            )
            offsets = exclusive_scan(counts, dtype=np.uint64)
            self.scatter(
                src_k,
                dst_k,
                src_v if vb else vdummy,
                dst_v if vb else vdummy,
                _launch.i64(n),
                *job.common(),
                np.int32(shift),
                np.int32(width),
                offsets,
            )
            src_k, src_v = dst_k, dst_v
        return job.finish(src_k, src_v)


def run(job):
    """Sort ``job`` with the classic sort; returns (keys or None, values or None)."""
    return job.run("sort/classic", ClassicPlan, _policy.classic())

"""The split sort, the teaching variant: one bit per pass (flag the keys whose bit is 0, scan the
flags with the project's scan, scatter the 0s then the 1s)."""

from __future__ import annotations

import numpy as np

from .._core import launch as _launch, plans as _plans
from .._core.keys import U
from . import _kernels, _policy


class SplitPlan(_plans.Plan):
    """The flag and scatter launches of the split sort of n keys of ``kb`` bytes with
    ``vb``-byte values (0: none) under ``policy``: grid-stride, checked once."""

    def __init__(self, kb, vb, n, pol):
        self.policy = pol
        flags, scatter = _kernels.split_names(kb, vb)
        kf = _kernels.kernel(_kernels.SPLIT, flags)
        ks = _kernels.kernel(_kernels.SPLIT, scatter)
        grid = _launch.cover_grid(n, pol.block, pol.items, kernel=ks)
        self.flags = _plans.Launch(kf, grid, pol.block)
        self.scatter = _plans.Launch(ks, grid, pol.block)

    def __call__(self, job):
        """Sort ``job`` (see :class:`~._plans.Job`, of this plan's widths and size); returns
        (keys or None, values or None)."""
        from ..scan import exclusive_scan

        xp, n, vb = job.xp, job.n, job.vb
        vals = job.materialized_values()
        flags = xp.empty(n, dtype=np.uint32)
        src_k, src_v = job.kbits, vals
        bufs = [job.buffers() for _ in range(min(2, job.end - job.begin))]
        vdummy = _launch.stand_in(job.backend, U[vb] if vb else np.dtype(np.uint32))
        for i, bit in enumerate(range(job.begin, job.end)):
            dst_k, dst_v = bufs[i % 2]
            self.flags(src_k, _launch.i64(n), *job.common(), np.int32(bit), flags)
            zeros_before = exclusive_scan(flags, dtype=np.uint64)
            self.scatter(
                src_k,
                dst_k,
                src_v if vb else vdummy,
                dst_v if vb else vdummy,
                _launch.i64(n),
                *job.common(),
                np.int32(bit),
                zeros_before,
            )
            src_k, src_v = dst_k, dst_v
        return job.finish(src_k, src_v)


def run(job):
    """Sort ``job`` with the split sort; returns (keys or None, values or None)."""
    return job.run("sort/split", SplitPlan, _policy.split())

"""Tour of compaction: float32 with half the elements selected, against ``x[mask]`` and
``cupy.nonzero`` on a GPU (the workload of :mod:`primitives.testing.workloads.compaction`)."""

from __future__ import annotations

import numpy as np

import primitives as prim
from primitives import tour
from primitives._core import backend as _backend
from primitives.testing.workloads import compaction as spec, make, pow2


def sections(gpu, log2n=None):
    """Tour workload: compaction of float32 with half the elements selected, against ``x[mask]``
    on a GPU."""
    n = spec.COMPACT.size(gpu, log2n)

    def contenders():
        xp = _backend.get_backend().xp
        host = make(spec.COMPACT.data, n, "float32")
        hmask = make("half", n, "bool")
        x, mask = xp.asarray(host), xp.asarray(hmask)
        want = host[hmask]
        want_idx = np.flatnonzero(hmask)

        def same(ref):
            return lambda got: bool(np.array_equal(tour.to_host(got), ref))

        out = [
            tour.Contender("compact", lambda: prim.compact(x, mask), same(want)),
            tour.Contender("compact_indices", lambda: prim.compact_indices(mask), same(want_idx)),
        ]
        if gpu:
            out += [
                tour.Contender("x[mask] (peer)", lambda: x[mask], same(want)),
                tour.Contender("cupy.nonzero (peer)", lambda: xp.nonzero(mask)[0], same(want_idx)),
            ]
        return out

    return [
        tour.Section(
            title=f"compaction: float32, 50% selected, n = {pow2(n)}",
            nbytes=n * 4 + n + n * 2,
            contenders=contenders,
            count=4 if gpu else 2,
        )
    ]

"""Tour of compaction: float32 with half the elements selected, against ``x[mask]`` and
``cupy.nonzero`` on a GPU."""

from __future__ import annotations

import numpy as np

import primitives as prim
from primitives import tour
from primitives._core import backend as _backend


def sections(gpu, log2n=None):
    """Tour workload: compaction of float32 with half the elements selected, against ``x[mask]``
    on a GPU."""
    n = 1 << (log2n or (28 if gpu else 14))

    def contenders():
        xp = _backend.get_backend().xp
        rng = np.random.default_rng(n + 7)
        host = tour.random_data(rng, n, np.float32)
        hmask = rng.random(n) < 0.5
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
            title=f"compaction: float32, 50% selected, n = 2^{n.bit_length() - 1}",
            nbytes=n * 4 + n + n * 2,
            contenders=contenders,
            count=4 if gpu else 2,
        )
    ]

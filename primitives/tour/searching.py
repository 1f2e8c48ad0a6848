"""Tour of searchsorted: float32 queries into a sorted float32 array four times as long, every
variant (``cupy.searchsorted`` as the peer on a GPU)."""

from __future__ import annotations

import numpy as np

import primitives as prim
from primitives import tour
from primitives._core import backend as _backend
from primitives.searching import VARIANTS


def sections(gpu, log2n=None):
    """Tour workload: m = n / 4 random float32 queries into a sorted random float32 array of n
    (the issue's figure at n = 2^26 on a GPU): each variant and ``auto``, the peer on a GPU."""
    n = 1 << (log2n or (26 if gpu else 12))
    m = max(1, n // 4)

    def contenders():
        xp = _backend.get_backend().xp
        rng = np.random.default_rng(n + 21)
        ha = np.sort(tour.random_data(rng, n, np.float32))
        hv = tour.random_data(rng, m, np.float32)
        a, v = xp.asarray(ha), xp.asarray(hv)
        want = np.searchsorted(ha, hv)

        def same(got):
            return bool(np.array_equal(tour.to_host(got), want))

        out = [tour.Contender("auto", lambda: prim.searchsorted(a, v), same)]
        out += [
            tour.Contender(var, (lambda var=var: prim.searchsorted(a, v, variant=var)), same)
            for var in VARIANTS
        ]
        if gpu:
            out.append(
                tour.Contender("cupy.searchsorted (peer)", lambda: xp.searchsorted(a, v), same)
            )
        return out

    return [
        tour.Section(
            title=f"searchsorted: 2^{m.bit_length() - 1} float32 queries into a sorted float32 "
            f"array of 2^{n.bit_length() - 1} (GB/s: queries read + int64 results written)",
            nbytes=m * (4 + 8),
            contenders=contenders,
            count=len(VARIANTS) + 1 + (1 if gpu else 0),
            quick=True,
            quick_rows=("auto",),
        )
    ]

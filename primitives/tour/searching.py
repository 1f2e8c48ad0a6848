"""Tour of searchsorted: float32 queries into a sorted float32 array four times as long, every
variant (``cupy.searchsorted`` as the peer on a GPU; the workload of
:mod:`primitives.testing.workloads.searching`)."""

from __future__ import annotations

import numpy as np

import primitives as prim
from primitives import tour
from primitives._core import backend as _backend
from primitives.searching import VARIANTS
from primitives.testing.workloads import make, pow2, searching as spec


def sections(gpu, log2n=None):
    """Tour workload: m = n / 4 random float32 queries into a sorted random float32 array of n
    (the issue's figure at n = 2^26 on a GPU): each variant and ``auto``, the peer on a GPU."""
    w = spec.QUERIES
    n = w.size(gpu, log2n)
    m = max(1, n // w.params["per_query"])

    def contenders():
        xp = _backend.get_backend().xp
        ha = np.sort(make(w.data, n, "float32"))
        hv = make(w.data, m, "float32", seed=1)
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
            title=f"searchsorted: {pow2(m)} float32 queries into a sorted float32 "
            f"array of {pow2(n)} (GB/s: queries read + int64 results written)",
            nbytes=m * (4 + 8),
            contenders=contenders,
            count=len(VARIANTS) + 1 + (1 if gpu else 0),
            quick=True,
            quick_rows=("auto",),
        )
    ]

"""Tour of the segmented family: equal float32 segments scanned and reduced, against
``cupy.cumsum(axis=1)`` and ``sum(axis=1)`` on a GPU (the workload of
:mod:`primitives.testing.workloads.segmented`)."""

from __future__ import annotations

import numpy as np

import primitives as prim
from primitives import tour
from primitives._core import backend as _backend
from primitives.testing.workloads import make, pow2, segmented as spec


def sections(gpu, log2n=None):
    """Tour workload: equal float32 segments (2^14 x 2^12 on a GPU), scanned and reduced, against
    ``cupy.cumsum(axis=1)`` and ``sum(axis=1)`` on a GPU."""
    w = spec.EQUAL
    n = w.size(gpu, log2n)
    rows = max(1, n // w.params["segment" if gpu else "small_segment"])
    cols = n // rows

    def contenders():
        xp = _backend.get_backend().xp
        host = make(w.data, n, "float32")
        x = xp.asarray(host)
        x2 = x.reshape(rows, cols)
        off = xp.arange(0, n + 1, cols, dtype=np.int64)
        h2 = host.reshape(rows, cols).astype(np.float64)
        want_scan = np.cumsum(h2, axis=1).reshape(-1)
        want_red = h2.sum(axis=1)

        def near(ref):
            return lambda got: bool(np.allclose(tour.to_host(got).reshape(-1), ref, rtol=1e-4))

        out = [
            tour.Contender(
                "segmented_scan",
                lambda: prim.segmented_scan(x, offsets=off, check=False),
                near(want_scan),
            ),
            tour.Contender(
                "segmented_reduce",
                lambda: prim.segmented_reduce(x, off, check=False),
                near(want_red),
            ),
        ]
        if gpu:
            out += [
                tour.Contender(
                    "cupy.cumsum(axis=1) (peer)", lambda: xp.cumsum(x2, axis=1), near(want_scan)
                ),
                tour.Contender("sum(axis=1) (peer)", lambda: x2.sum(axis=1), near(want_red)),
            ]
        return out

    return [
        tour.Section(
            title=f"segmented: float32, {rows} segments x {cols}, n = {pow2(n)} "
            "(GB/s: one read + one write)",
            nbytes=2 * n * 4,
            contenders=contenders,
            count=4 if gpu else 2,
        )
    ]

"""Tour of the sets family: unique with counts (both variants), run-length encoding and
reduce-by-key, against ``cupy.unique`` and a CuPy formulation of reduce-by-key on a GPU (the
workloads of :mod:`primitives.testing.workloads.sets`)."""

from __future__ import annotations

import numpy as np

import primitives as prim
from primitives import tour
from primitives._core import backend as _backend
from primitives.testing.workloads import make, pow2, sets as spec


def sections(gpu, log2n=None):
    """Tour workloads: unique of uint32 with about n/128 distinct values and their counts;
    run-length encoding and reduce-by-key (sum) of float32 under int32 keys in runs of ~16."""
    w, r = spec.UNIQUE, spec.RUNS
    n, nr = w.size(gpu, log2n), r.size(gpu, log2n)
    per_value = w.n // w.params["distinct"]  # n / 128 distinct values

    def unique_contenders():
        xp = _backend.get_backend().xp
        host = make(w.data, n, w.dtypes[0], distinct=max(2, n // per_value))
        x = xp.asarray(host)
        counts = np.bincount(host)  # small integers: NumPy's unique without its sort
        values = np.flatnonzero(counts).astype(np.uint32)
        want = (values, counts[values])

        def check(got):
            return all(np.array_equal(tour.to_host(g), w) for g, w in zip(got, want))

        out = [
            tour.Contender(
                f"unique ({v})", lambda v=v: prim.unique(x, return_counts=True, variant=v), check
            )
            for v in prim.sets.VARIANTS
        ]
        if gpu:
            out.append(
                tour.Contender(
                    "cupy.unique (peer)", lambda: xp.unique(x, return_counts=True), check
                )
            )
        return out

    def runs_contenders():
        xp = _backend.get_backend().xp
        hkeys = make(r.data, nr, r.dtypes[0], mean=r.params["mean"])
        hvals = make("positive", nr, r.dtypes[1])
        keys, vals = xp.asarray(hkeys), xp.asarray(hvals)
        starts = np.flatnonzero(np.r_[True, hkeys[1:] != hkeys[:-1]])
        want_counts = np.diff(np.r_[starts, nr])
        want_sums = np.add.reduceat(hvals.astype(np.float64), starts)

        def check_rle(got):
            return np.array_equal(tour.to_host(got[0]), hkeys[starts]) and np.array_equal(
                tour.to_host(got[1]), want_counts
            )

        def check_rbk(got):
            return np.array_equal(tour.to_host(got[0]), hkeys[starts]) and np.allclose(
                tour.to_host(got[1]), want_sums, rtol=1e-4
            )

        out = [
            tour.Contender("run_length_encode", lambda: prim.run_length_encode(keys), check_rle),
            tour.Contender("reduce_by_key", lambda: prim.reduce_by_key(keys, vals), check_rbk),
        ]
        if gpu:
            from primitives.testing import peers

            out.append(
                tour.Contender(
                    "cupy flags + reduceat (peer)",
                    lambda: peers.cupy_reduce_by_key(keys, vals),
                    check_rbk,
                )
            )
        return out

    return [
        tour.Section(
            title=f"unique(return_counts=True): uint32, n/{per_value} distinct, n = {pow2(n)}",
            nbytes=n * 4,
            contenders=unique_contenders,
            count=len(prim.sets.VARIANTS) + (1 if gpu else 0),
            quick=True,
            quick_rows=("unique (rle)",),
        ),
        tour.Section(
            title=f"runs: int32 keys in runs of ~{r.params['mean']}, float32 values, n = {pow2(nr)}",
            nbytes=nr * 8 + (nr // r.params["mean"]) * 8,
            contenders=runs_contenders,
            count=3 if gpu else 2,
        ),
    ]

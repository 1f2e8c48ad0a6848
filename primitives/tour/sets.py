"""Tour of the sets family: unique with counts (both variants), run-length encoding and
reduce-by-key, against ``cupy.unique`` and a CuPy formulation of reduce-by-key on a GPU."""

from __future__ import annotations

import numpy as np

import primitives as prim
from primitives import tour
from primitives._core import backend as _backend


def _runs(rng, n, mean=16):
    """n int32 keys in runs of about ``mean``, neighbouring runs different, never zero."""
    heads = rng.random(n) < 1.0 / mean
    heads[:1] = True
    return (np.cumsum(heads) % 1000 + 1).astype(np.int32)


def sections(gpu, log2n=None):
    """Tour workloads: unique of uint32 with about n/128 distinct values and their counts;
    run-length encoding and reduce-by-key (sum) of float32 under int32 keys in runs of ~16."""
    n = 1 << (log2n or (27 if gpu else 14))
    p = n.bit_length() - 1

    def unique_contenders():
        xp = _backend.get_backend().xp
        rng = np.random.default_rng(n + 11)
        host = rng.integers(1, max(2, n // 128) + 1, n).astype(np.uint32)
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
        rng = np.random.default_rng(n + 12)
        hkeys = _runs(rng, n)
        hvals = tour.random_data(rng, n, np.float32)
        keys, vals = xp.asarray(hkeys), xp.asarray(hvals)
        starts = np.flatnonzero(np.r_[True, hkeys[1:] != hkeys[:-1]])
        want_counts = np.diff(np.r_[starts, n])
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
            title=f"unique(return_counts=True): uint32, n/128 distinct, n = 2^{p}",
            nbytes=n * 4,
            contenders=unique_contenders,
            count=len(prim.sets.VARIANTS) + (1 if gpu else 0),
            quick=True,
            quick_rows=("unique (rle)",),
        ),
        tour.Section(
            title=f"runs: int32 keys in runs of ~16, float32 values, n = 2^{p}",
            nbytes=n * 8 + (n // 16) * 8,
            contenders=runs_contenders,
            count=3 if gpu else 2,
        ),
    ]

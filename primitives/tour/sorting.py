"""Tour of the sorting family: every variant on uint32 keys (``cupy.sort`` as the peer on a GPU;
the block sort where the input fits its one block), a small call (block sort, onesweep and auto at
n = 10^4 or less), uint32 pairs and argsort, and a segmented sort of 128-key segments (the
workloads of :mod:`primitives.testing.workloads.sorting`)."""

from __future__ import annotations

import numpy as np

import primitives as prim
from primitives import tour
from primitives._core import backend as _backend
from primitives.sorting import VARIANTS
from primitives.testing.workloads import make, pow2, sorting as spec


def sections(gpu, log2n=None):
    """Tour workloads: uint32 keys (keys/s of every variant that takes n keys, with
    ``cupy.sort`` as the peer on a GPU), a small call, uint32 pairs and argsort, and a segmented
    sort of 128-key segments."""
    n = spec.KEYS.size(gpu, log2n)
    dtype = spec.KEYS.dtypes[0]
    # the block sort takes inputs up to its one block's capacity only
    variants = [
        v
        for v in reversed(VARIANTS)
        if v != "block" or n <= prim.tuning.policy("sort", "block").capacity(4)
    ]
    sections = []

    def keys_contenders():
        xp = _backend.get_backend().xp
        host = make(spec.KEYS.data, n, dtype)
        x = xp.asarray(host)
        want = np.sort(host)  # keys alone: any order of equal keys is the same array

        def same(got):
            return bool(np.array_equal(tour.to_host(got), want))

        out = [tour.Contender(v, (lambda v=v: prim.sort(x, variant=v)), same) for v in variants]
        if gpu:
            out.append(tour.Contender("cupy.sort (peer)", lambda: xp.sort(x), same))
        return out

    sections.append(
        tour.Section(
            title=f"sort: {dtype} keys, n = {pow2(n)} (GB/s: keys read + written once; "
            "speedup vs onesweep)",
            nbytes=2 * np.dtype(dtype).itemsize * n,
            contenders=keys_contenders,
            count=len(variants) + (1 if gpu else 0),
            quick=True,
            quick_rows=("onesweep",),
        )
    )

    m = min(n, spec.SMALL.n)

    def small_contenders():
        xp = _backend.get_backend().xp
        host = make(spec.SMALL.data, m, spec.SMALL.dtypes[0])
        x = xp.asarray(host)
        want = np.sort(host)

        def same(got):
            return bool(np.array_equal(tour.to_host(got), want))

        out = [
            tour.Contender(v, (lambda v=v: prim.sort(x, variant=v)), same)
            for v in spec.SMALL.variants
        ]
        if gpu:
            out.append(tour.Contender("cupy.sort (peer)", lambda: xp.sort(x), same))
        return out

    sections.append(
        tour.Section(
            title=f"sort: a small call, uint32 keys, n = {m} (the block sort's one launch against "
            "onesweep's histogram, plan and passes)",
            nbytes=2 * 4 * m,
            contenders=small_contenders,
            count=len(spec.SMALL.variants) + (1 if gpu else 0),
        )
    )

    n2 = spec.PAIRS.size(gpu, log2n)

    def pairs_contenders():
        xp = _backend.get_backend().xp
        host, hv = make(spec.PAIRS.data, n2, "uint32"), make(spec.PAIRS.data, n2, "uint32", seed=1)
        x, vals = xp.asarray(host), xp.asarray(hv)
        order = np.argsort(host, kind="stable")

        def pairs_ok(got):
            return bool(np.array_equal(tour.to_host(got[0]), host[order])) and bool(
                np.array_equal(tour.to_host(got[1]), hv[order])
            )

        def perm_ok(got):
            return bool(np.array_equal(tour.to_host(got), order))

        out = [
            tour.Contender(
                "radix_sort pairs (onesweep)",
                lambda: prim.radix_sort(x, vals, variant="onesweep"),
                pairs_ok,
            ),
            tour.Contender(
                "argsort (onesweep)", lambda: prim.argsort(x, variant="onesweep"), perm_ok
            ),
        ]
        if gpu:
            out.append(tour.Contender("cupy.argsort (peer)", lambda: xp.argsort(x), perm_ok))
        return out

    sections.append(
        tour.Section(
            title=f"sort: uint32 keys + uint32 values, n = {pow2(n2)} "
            "(GB/s: keys and values read + written once)",
            nbytes=2 * 8 * n2,
            contenders=pairs_contenders,
            count=3 if gpu else 2,
        )
    )

    ns, seg_len = spec.SEGMENTED.size(gpu, log2n), spec.SEGMENTED.params["segment"]

    def seg_contenders():
        xp = _backend.get_backend().xp
        host = make(spec.SEGMENTED.data, ns, "uint32")
        x = xp.asarray(host)
        off = xp.arange(0, ns + 1, seg_len, dtype=np.int64)
        want = np.sort(host.reshape(-1, seg_len), axis=-1).reshape(-1)

        def same(got):
            return bool(np.array_equal(tour.to_host(got).reshape(-1), want))

        out = [tour.Contender("segmented_sort", lambda: prim.segmented_sort(x, off), same)]
        if gpu:
            x2 = x.reshape(-1, seg_len)
            out.append(
                tour.Contender("cupy.sort(axis=-1) (peer)", lambda: xp.sort(x2, axis=-1), same)
            )
        return out

    sections.append(
        tour.Section(
            title=f"sort: segmented, uint32, {ns // seg_len} segments x {seg_len}, n = {pow2(ns)}",
            nbytes=2 * 4 * ns,
            contenders=seg_contenders,
            count=2 if gpu else 1,
        )
    )
    return sections

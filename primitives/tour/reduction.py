"""Tour of the reduction family: the whole ladder on float32 sums, and the production kernel
against CuPy at the sizes of the performance figures."""

from __future__ import annotations

import numpy as np

import primitives as prim
from primitives import tour
from primitives._core import backend as _backend, dtypes as _dtypes
from primitives.reduction import VARIANTS, error_depth
from primitives.testing import oracle as _oracle


def sections(gpu, log2n=None):
    """Tour workloads: the whole ladder on float32 sums, and the production kernel against CuPy
    on float32 sum/max and int32 sum at the sizes of the performance figures."""
    ladder_n = 1 << (log2n or (26 if gpu else 14))
    peer_n = 1 << (log2n or (28 if gpu else 14))
    specs = [("sum", np.float32, ladder_n, VARIANTS)]
    if gpu:
        specs.append(("sum", np.float32, peer_n, ("production",)))
    specs += [("sum", np.int32, peer_n, ("production",)), ("max", np.float32, peer_n,
                                                           ("production",))]
    sections = []
    for op, dtype, n, variants in specs:
        dt = np.dtype(dtype)

        def contenders(op=op, dt=dt, n=n, variants=variants):
            xp = _backend.get_backend().xp
            host = tour.random_data(np.random.default_rng(n), n, dt)
            x = xp.asarray(host)
            acc = _dtypes.sum_dtype(dt) if op == "sum" else dt

            def check(variant):
                depth = n if variant is None else error_depth(variant, n, dt)
                return lambda got: _oracle.reduce_matches(tour.to_host(got), host, op, acc,
                                                          depth)[0]

            out = [tour.Contender(v, (lambda v=v: prim.reduce(x, op, variant=v)), check(v))
                   for v in variants]
            if gpu:
                peer = getattr(xp, op)
                out.append(tour.Contender(f"cupy.{op} (peer)", lambda: peer(x), check(None)))
            return out

        sections.append(tour.Section(
            title=f"reduction: {op} {dt.name}, n = 2^{n.bit_length() - 1}",
            nbytes=n * dt.itemsize, contenders=contenders,
            count=len(variants) + (1 if gpu else 0),
            # the quick tour times the production kernel against cupy.sum on a GPU, the ladder on
            # the emulator (no peer there)
            quick=(op == "sum" and dt == np.float32
                   and (variants == ("production",) if gpu else len(variants) > 1))))
    return sections

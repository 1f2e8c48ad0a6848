"""searchsorted's indexed plan launch by launch, for sorted, nearly sorted and random queries:

    python -m tools.probes.search_paths [log2 n] [log2 m]

m float32 queries (2^24 by default) into a sorted float32 array of n (2^26), the workload of
``tools.figures --family searching`` (a small n and m run on the emulator: a check of the probe).
For each order of the queries, interleaved (primitives._core.timing.bench_many, 5 rounds x
(5 warm-ups + 20 samples) on a GPU), ms: the public call, the plan's call, and each of the plan's
launches alone with the call's arguments (the tile ranges; the index's build and the indexed
search, which return at once when every tile is near; ``search_near``), the plan's call and its
``search_near`` made with the other choice of the near tiles' L2 hint (``near_prefetch``), then
``cupy.searchsorted``. Each result is checked against NumPy's (CuPy's on a GPU) first. Also the
share of tiles that are near. What the sorted-query figure (at most half of CuPy's time) is made
of.
"""

from __future__ import annotations

import sys

import numpy as np

import primitives as prim
from primitives._core import backend as _backend, timing as _timing
from primitives.searching import _plans as _sp, _policy
from primitives.testing.workloads import searching as spec

backend = _backend.get_backend()
xp = backend.xp  # CuPy on a GPU, NumPy on the emulator
ROUNDS = (
    dict(rounds=5, warmup=5, repeat=20) if backend.is_cuda else dict(rounds=1, warmup=0, repeat=1)
)
F32 = np.dtype(np.float32)


def queries(rng, m, order):
    """m float32 queries in [0, 1) in one of the searching workload's orders (``spec.ORDERS``:
    random, sorted, nearly sorted)."""
    return spec.ordered(np, rng.random(m, dtype=np.float32), order)


def run(n, m):
    """``{order: (near share, {contender: ms})}`` for the three orders of the queries."""
    rng = np.random.default_rng(3)
    a = xp.asarray(np.sort(rng.random(n, dtype=np.float32)))
    plan = _sp.search_plan(backend, F32, n, m, "indexed")
    if plan.ranges is None:
        raise SystemExit("the policy in force has no near tiles (near_bytes 0)")
    # the same plan with the other choice of the near tiles' L2 hint (near_prefetch)
    other = 1 - _policy.current().near_prefetch
    with prim.tuning.override("search", near_prefetch=other):
        hinted = _sp.search_plan(backend, F32, n, m, "indexed")
    side = np.int32(0)
    out = xp.empty(m, dtype=np.int64)
    rows = {}
    for order in spec.ORDERS[1:] + spec.ORDERS[:1]:
        v = xp.asarray(queries(rng, m, order))
        want = xp.searchsorted(a, v)
        got = plan(a, v, False)
        assert bool((got == want).all()), order
        assert bool((hinted(a, v, False) == want).all()), order
        epoch = np.uint32(plan.epoch)  # the gate open exactly when the call found a far tile
        b = _backend.to_host(plan.bounds).reshape(-1, 2)
        near = float(np.mean(np.abs(b[:, 1] - b[:, 0]) <= int(plan.span)))
        fns = {
            "public": lambda v=v: prim.searchsorted(a, v),
            "plan": lambda v=v: plan(a, v, False),
            "ranges": lambda v=v: plan.ranges(
                a, plan.n64, v, plan.m64, side, plan.span, plan.bounds, plan.far, epoch
            ),
            "search": lambda v=v: plan.search(
                a,
                plan.n64,
                plan.index,
                plan.depth,
                v,
                plan.m64,
                side,
                plan.bounds,
                plan.span,
                plan.far,
                epoch,
                out,
            ),
            "near": lambda v=v: plan.near(
                a, plan.n64, v, plan.m64, side, plan.bounds, plan.span, out
            ),
            f"plan near_prefetch={other}": lambda v=v: hinted(a, v, False),
            # its near tiles alone, on the bounds the plan's ranges left (the same queries)
            f"near near_prefetch={other}": lambda v=v: hinted.near(
                a, plan.n64, v, plan.m64, side, plan.bounds, plan.span, out
            ),
        }
        if plan.build is not None:
            fns["build"] = lambda: plan.build(a, plan.n64, plan.depth, plan.index, plan.far, epoch)
        if backend.is_cuda:
            fns["cupy.searchsorted"] = lambda v=v: xp.searchsorted(a, v)
        rows[order] = (near, _timing.bench_many(fns, **ROUNDS))
    return rows


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    big = backend.is_cuda
    n = 1 << int(argv[0]) if argv else (1 << 26 if big else 1 << 16)
    m = 1 << int(argv[1]) if len(argv) > 1 else (1 << 24 if big else 1 << 14)
    for order, (near, t) in run(n, m).items():
        cells = ", ".join(f"{k} {ms:.4f}" for k, ms in t.items())
        print(f"{order} ({100 * near:.0f}% of tiles near): {cells}")


if __name__ == "__main__":
    main()

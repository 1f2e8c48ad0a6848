"""The pairs' pass tile over the key-distribution suite: ``radix_sort`` of 4-byte keys with
uint32 values and ``argsort`` (the same pass with an index), by plans made under several tiles
of the (4, 4) onesweep policy, against CUB's pairs:

    python -m tools.probes.pairs_tiles [log2 n] [distribution ...]

2^27 keys by default (a small n runs on the emulator: a check of the probe). For each
distribution (the suite's 4-byte ones by default,
:data:`primitives.testing.workloads.sorting.DISTRIBUTIONS`), interleaved
(primitives._core.timing.bench_many, 3 rounds x (3 warm-ups + 10 samples) on a GPU): the pairs
and argsort under each of :data:`TILES` (fields of the (4, 4) policy replaced through
``prim.tuning.override``; plans made under it, called without it) and CUB's radix sort of the
same pairs. Each result is checked against a stable argsort of the keys. Prints the medians in
ms, then per tile the worst pairs / CUB ratio and the sum of the pairs' and argsort's times
over the distributions: the figures behind the (4, 4) tile (docs/perf-log/2026-12/sort.md).
"""

import sys

import numpy as np

import primitives as prim
from primitives._core import backend as _backend, timing as _timing
from primitives.sorting import _kernels
from primitives.testing import peers
from primitives.testing.workloads import sorting as spec
from tools.probes import sort_ranking

backend = _backend.get_backend()
xp = backend.xp  # CuPy on a GPU, NumPy on the emulator
ROUNDS = (
    dict(rounds=3, warmup=3, repeat=10) if backend.is_cuda else dict(rounds=1, warmup=0, repeat=1)
)
# the (4, 4) tiles before the spread passes took their own: 256 x 32 for every pass, lane masks
_ONE_TILE = dict(spread_block=0, spread_items=0, match=1, skew=256, spread_constant_tiles=-1)
# the spread tile at any n
_SPREAD = dict(_kernels.SPREAD_CANDIDATE, large_from=0)
#: name -> the (4, 4) policy's fields under which the plans are made ({}: the policy)
TILES = {
    "policy": {},
    "256 x 32": _ONE_TILE,
    # the spread passes in 512 x 24 (one block an SM), the skewed ones in 256 x 32, the plan
    # kernel picking each pass's kernel: ranked by lane masks on both tiles, without and with
    # counted constant tiles on the spread one; "dominant": match 4, the skewed passes rank
    # their dominant digit apart (the spread tile ranks by lane masks whatever match says)
    "spread 512 x 24": dict(_SPREAD, match=1, spread_constant_tiles=-1),
    "spread 512 x 24 counted": dict(_SPREAD, match=1, spread_constant_tiles=2),
    "spread 512 x 24 dominant": dict(_SPREAD, match=4, spread_constant_tiles=-1),
    # the policy's from its large_from keys on (256 x 32 below)
    "spread 512 x 24 dominant counted": dict(_SPREAD, match=4, spread_constant_tiles=2),
}


def plans(x, values, fields):
    """(pairs, argsort) plans of x made under ``fields`` for the (4, 4) policy."""
    with prim.tuning.override("sort", selector=(4, 4), **fields):
        return prim.plan(prim.radix_sort, x, values), prim.plan(prim.argsort, x)


def run(n, names):
    cc = peers.cub() if backend.is_cuda else None
    values = xp.arange(n, dtype=np.uint32)[::-1].copy()  # any values: the pairs' payload
    rows = []
    for i, name in enumerate(names):
        x = spec.distribution(name, n, xp, seed=i)
        order = xp.argsort(x, kind="stable")
        srt, moved = x[order], values[order]
        fns = {}
        for label, fields in TILES.items():
            pp, pa = plans(x, values, fields)
            k2, v2 = pp(x, values)
            assert bool((k2 == srt).all()) and bool((v2 == moved).all()), f"{name} {label}: pairs"
            assert bool((pa(x) == order).all()), f"{name} {label}: argsort differs"
            fns[f"pairs {label}"] = lambda p=pp: p(x, values)
            fns[f"argsort {label}"] = lambda p=pa: p(x)
        if cc is not None:
            fns["CUB pairs"] = peers.cub_radix_sort(x, values)
        t = _timing.bench_many(fns, **ROUNDS)
        rows.append((name, t))
        print(f"{name}: " + ", ".join(f"{k} {v:.4f}" for k, v in t.items()), flush=True)
    sort_ranking.print_rows(rows)
    for label in TILES:
        total = sum(t[f"pairs {label}"] + t[f"argsort {label}"] for _, t in rows)
        worst = (
            max(t[f"pairs {label}"] / t["CUB pairs"] for _, t in rows) if cc is not None else None
        )
        print(
            f"{label}: pairs + argsort {total:.2f} ms"
            + (f", worst / CUB {worst:.3f}" if worst else "")
        )
    return rows


def main(argv=None):
    run(*sort_ranking.suite_args(sys.argv[1:] if argv is None else argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())

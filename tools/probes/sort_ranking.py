"""The onesweep pass's ranking on skewed keys: sort and argsort of the key-distribution suite
(:data:`primitives.testing.workloads.sorting.DISTRIBUTIONS`) under ranking policies, against
CUB:

    python -m tools.probes.sort_ranking [log2 n] [distribution ...]

2^27 keys by default (a small n runs on the emulator: a check of the probe). For each
distribution (all of the suite's 4-byte ones by default), interleaved
(primitives._core.timing.bench_many, 3 rounds x (3 warm-ups + 10 samples) on a GPU): ``sort``
(keys only) and ``argsort`` (the pairs pass with a 4-byte index) by plans made under each
setting of :data:`SETTINGS` (the onesweep policy's ``match``, ``skew`` and ``constant_tiles``,
for keys and for pairs) and called without an override, and CUB's radix sort of the keys and of
(keys, int64 index). Each result is checked against the sorted keys. Prints the medians in ms:
the figures behind those fields of the policy (``parts``, ballots and matches 2 and 3, measured
and left: docs/perf-log/2026-12/sort.md).
"""

import sys

import numpy as np

import primitives as prim
from primitives._core import backend as _backend, timing as _timing
from primitives.testing import peers
from primitives.testing.workloads import sorting as spec

backend = _backend.get_backend()
xp = backend.xp  # CuPy on a GPU, NumPy on the emulator
ROUNDS = (
    dict(rounds=3, warmup=3, repeat=10) if backend.is_cuda else dict(rounds=1, warmup=0, repeat=1)
)
#: name -> the onesweep policy's fields under which the plans are made
SETTINGS = {
    "lanes": dict(match=1),
    "lanes constant": dict(match=1, constant_tiles=1),
    "lanes counted constant": dict(match=1, constant_tiles=2),
    "per pass dominant 1/8": dict(match=4, skew=32),
    "per pass dominant 1/8 constant": dict(match=4, skew=32, constant_tiles=1),
    "per pass dominant 1/8 counted constant": dict(match=4, skew=32, constant_tiles=2),
    # lower bars: a pass whose most frequent digit holds 3/32 or 1/16 of the keys ranks it apart
    # (p = 1/4: digit 0 holds 10% of a pass's keys)
    "per pass dominant 3/32 counted constant": dict(match=4, skew=24, constant_tiles=2),
    "per pass dominant 1/16 counted constant": dict(match=4, skew=16, constant_tiles=2),
}


def plans(x, fields):
    """(sort, argsort) plans of x made under ``fields`` for the keys' and the pairs' policies
    (at any n: large_from 0)."""
    kb = x.dtype.itemsize
    fields = dict(fields, large_from=0)
    with (
        prim.tuning.override("sort", selector=(kb, 0), **fields),
        prim.tuning.override("sort", selector=(kb, 4), **fields),
    ):
        return prim.plan(prim.sort, x), prim.plan(prim.argsort, x)


def run(n, names):
    cc = peers.cub() if backend.is_cuda else None
    index = xp.arange(n, dtype=np.int64)
    rows = []
    for i, name in enumerate(names):
        x = spec.distribution(name, n, xp, seed=i)
        srt = xp.sort(x)
        fns = {}
        for label, fields in SETTINGS.items():
            ps, pa = plans(x, fields)
            assert bool((ps(x) == srt).all()), f"{name} {label}: sort differs"
            order = pa(x)
            assert bool((x[order] == srt).all()), f"{name} {label}: argsort differs"
            fns[f"sort {label}"] = lambda p=ps: p(x)
            fns[f"argsort {label}"] = lambda p=pa: p(x)
        if cc is not None:
            fns["CUB sort"] = peers.cub_radix_sort(x)
            fns["CUB pairs + index"] = peers.cub_radix_sort(x, index)
        t = _timing.bench_many(fns, **ROUNDS)
        rows.append((name, t))
        print(f"{name}: " + ", ".join(f"{k} {v:.4f}" for k, v in t.items()), flush=True)
    print_rows(rows)
    return rows


def print_rows(rows):
    """A table of (distribution, {contender: ms}) rows, a column per contender."""
    print("\n| keys | " + " | ".join(rows[0][1]) + " |")
    for name, t in rows:
        print(f"| {name} | " + " | ".join(f"{v:.4f}" for v in t.values()) + " |")


def suite_args(argv):
    """(n, distribution names) of a key-suite probe's command line ``[log2 n] [distribution
    ...]``: 2^27 keys on a GPU (2^13 on the emulator) and the suite's 4-byte distributions by
    default; prints the device and n."""
    log2 = [a for a in argv if a.isdigit()]
    names = [a for a in argv if not a.isdigit()] or [
        d for d in spec.DISTRIBUTIONS.params["names"] if "64" not in d
    ]
    n = 1 << int(log2[0]) if log2 else (1 << 27 if backend.is_cuda else 1 << 13)
    print(f"{prim.backend_info()['device']}, n = {n}")
    return n, names


def main(argv=None):
    run(*suite_args(sys.argv[1:] if argv is None else argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())

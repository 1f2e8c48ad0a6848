"""Tuning experiment for searchsorted (GPU only): the issue's case, 2^24 random float32 queries
into a sorted random float32 array of 2^26, for the cached, indexed, sorted and bucketed
variants under several policies (queries per thread, shared tree bytes; the indexed kernel's
queries per thread and top-level bytes; the sorted tiles' queries per thread and shared bytes;
the bucket kernel's block and shared bytes; the indexed kernel's near tiles' range, alone and
with the queries per thread that set a near tile's size), each a plan made under
``primitives.tuning.override("search", ...)`` and called without one (an override entered per
call adds its own host time, about 0.18 ms, to every sample), beside ``cupy.searchsorted`` and
the binary variant timed in the same interleaved rounds; then the auto thresholds' question: the
variants over the number of queries (2^10 to 2^24) and the array's size (2^16 to 2^28).

    python -m tools.tune.search [--quick] [--only VARIANT ...] [--no-crossover]
                                [--queries random|sorted]

Every result is checked against ``cupy.searchsorted`` before it is timed. The fastest policy is
printed as ``--override`` lines for ``python -m tools.figures``.
"""

import argparse

import cupy

import primitives as prim
from primitives._core import timing as _timing
from tools.figures.searching import data

REPS = {"rounds": 3, "warmup": 3, "repeat": 10}


CROSSOVER = ("binary", "cached", "indexed", "sorted", "bucketed")


def candidates(quick):
    """(variant, policy fields) of the sweep."""
    out = [
        ("cached", dict(items=it, tree_bytes=tb)) for it in (2, 4, 8) for tb in (16 << 10, 32 << 10)
    ]
    out += [
        ("indexed", dict(index_items=it, index_bytes=ib))
        for it in (1, 2, 4)
        for ib in (16 << 10, 64 << 10, 128 << 10)
    ]
    # near tiles: the range of a under which a tile of queries bisects it alone (0: never)
    out += [("indexed", dict(near_bytes=nb)) for nb in (0, 4 << 10, 8 << 10, 16 << 10, 64 << 10)]
    # ... and a near tile's queries (index_items a thread) with a range to hold them
    out += [
        ("indexed", dict(index_items=it, near_bytes=nb))
        for it, nb in ((4, 16 << 10), (4, 32 << 10), (8, 32 << 10), (8, 48 << 10))
    ]
    blocks = (256,) if quick else (128, 256, 512)
    shared = (24 << 10, 48 << 10) if quick else (12 << 10, 24 << 10, 48 << 10, 96 << 10)
    out += [("bucketed", dict(bucket_block=b, bucket_bytes=sb)) for b in blocks for sb in shared]
    out += [("sorted", dict(tile_items=it, tile_bytes=sb)) for it in (2, 4, 8) for sb in shared]
    return out


def sweep(a, v, want, quick, only):
    fns = {
        "cupy": lambda: cupy.searchsorted(a, v),
        "binary": lambda: prim.searchsorted(a, v, variant="binary"),
    }
    for variant, fields in candidates(quick):
        if only and variant not in only:
            continue
        name = variant + " " + " ".join(f"{k}={x}" for k, x in fields.items())

        with prim.tuning.override("search", **fields):
            plan = prim.plan(prim.searchsorted, a, v, variant=variant)

        def fn(plan=plan):
            return plan(a, v)

        assert bool(cupy.array_equal(fn(), want)), name
        fns[name] = fn
    t = _timing.bench_many(fns, **REPS)
    for name, ms in sorted(t.items(), key=lambda kv: kv[1]):
        print(f"{ms:9.4f} ms  {name}")
    best = min((k for k in t if "=" in k), key=t.get)
    print(f"fastest: {best} ({t['cupy'] / t[best]:.2f}x cupy)")
    for field in best.split()[1:]:
        print(f"--override search:None:{field}")


def crossover(variants):
    print(f"\nms of {' / '.join(variants)} / cupy over (n, m), the fastest of ours marked:")
    for logn in (16, 18, 20, 22, 24, 26, 28):
        for logm in (10, 14, 18, 20, 22, 24):
            a, v = data(1 << logn, 1 << logm, seed=logn * 100 + logm)
            fns = {var: (lambda var=var: prim.searchsorted(a, v, variant=var)) for var in variants}
            fns["cupy"] = lambda: cupy.searchsorted(a, v)
            t = _timing.bench_many(fns, **REPS)
            best = min(variants, key=t.get)
            print(
                f"n=2^{logn} m=2^{logm}: "
                + " ".join(f"{var} {t[var]:.4f}{'*' if var == best else ''}" for var in variants)
                + f" cupy {t['cupy']:.4f}",
                flush=True,
            )


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.tune.search")
    ap.add_argument("--quick", action="store_true", help="a smaller sweep")
    ap.add_argument(
        "--only",
        nargs="+",
        choices=CROSSOVER[1:],
        default=None,
        help="sweep these variants' policies only",
    )
    ap.add_argument("--no-crossover", action="store_true")
    ap.add_argument(
        "--queries",
        choices=("random", "sorted"),
        default="random",
        help="the queries in random order (the issue's case) or sorted",
    )
    args = ap.parse_args(argv)
    a, v = data()
    if args.queries == "sorted":
        v = cupy.sort(v)
    want = cupy.searchsorted(a, v)
    sweep(a, v, want, args.quick, args.only)
    del a, v, want
    if not args.no_crossover:
        crossover(CROSSOVER)


if __name__ == "__main__":
    main()

"""The block sort against onesweep over small n: the figures that set the ``"block"`` sort
policy's ``auto_4`` and ``auto_8`` (the largest n that ``variant="auto"`` sorts in one block).

    python -m tools.probes.block_sort_sweep [--rounds R] [--repeat K] [--only WORK ...]

For uint32 and uint64 keys (and, per key width, argsort and pairs with 4-byte values), at n = 2^8
.. 2^14 and at the block's capacities, each call is timed after its first one (the repeat call
through its filed plan, as in a loop over small arrays): ``variant="block"``,
``variant="onesweep"`` and ``cupy.sort``/``cupy.argsort`` on a GPU, in interleaved rounds
(:func:`primitives._core.timing.bench_many`: CUDA-event medians of rounds x repeat samples).
Prints a table per workload (microseconds a call; block / onesweep) and, per key width, the
largest n up to which the block sort is never slower than onesweep in any workload: the value
to put in primitives/sorting/_policy.py. Runs on the emulator too (host timings: the numbers
say nothing about a GPU).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import primitives as prim
from primitives._core import backend as _backend, timing as _timing
from primitives._core.backend import to_host

WORKS = (
    "sort uint32",
    "argsort uint32",
    "pairs uint32",
    "sort uint64",
    "argsort uint64",
    "pairs uint64",
)


def sizes(kb):
    """n = 2^8 .. 2^14 and the block sort's capacity for keys of ``kb`` bytes."""
    cap = prim.tuning.policy("sort", "block").capacity(kb)
    return sorted({1 << e for e in range(8, 15)} | {cap})


def calls(work, x, v, xp, gpu):
    """name -> callable of one workload on keys ``x`` (values ``v``)."""
    func, _ = work.split()
    out = {}
    for variant in ("block", "onesweep"):
        if func == "sort":
            out[variant] = lambda variant=variant: prim.sort(x, variant=variant)
        elif func == "argsort":
            out[variant] = lambda variant=variant: prim.argsort(x, variant=variant)
        else:
            out[variant] = lambda variant=variant: prim.radix_sort(x, v, variant=variant)
    if gpu:
        out["cupy"] = {
            "sort": lambda: xp.sort(x),
            "argsort": lambda: xp.argsort(x),
            "pairs": lambda: (lambda o: (x[o], v[o]))(xp.argsort(x)),
        }[func]
    return out


def sweep(work, rounds, repeat):
    """[(n, {name: microseconds})] of one workload."""
    backend = _backend.get_backend()
    xp, gpu = backend.xp, backend.is_cuda
    dt = np.dtype(work.split()[1])
    cap = prim.tuning.policy("sort", "block").capacity(dt.itemsize)
    rows = []
    for n in sizes(dt.itemsize):
        rng = np.random.default_rng(n)
        x = xp.asarray(rng.integers(0, np.iinfo(dt).max, n, dtype=dt, endpoint=True))
        v = xp.asarray(rng.integers(0, 2**31, n).astype(np.uint32))
        fns = calls(work, x, v, xp, gpu)
        if n > cap:
            fns.pop("block")
        want = np.argsort(to_host(x), kind="stable")
        for name, fn in fns.items():  # checked once, and the plan filed
            got = fn()
            got = got[1] if isinstance(got, tuple) else got
            host = to_host(got)
            ok = (
                np.array_equal(host, want)
                if work.startswith("argsort")
                else np.array_equal(host, to_host(v)[want])
                if work.startswith("pairs")
                else np.array_equal(host, to_host(x)[want])
            )
            if not ok:
                raise AssertionError(f"{work} n={n}: {name} differs from NumPy")
        t = _timing.bench_many(fns, rounds=rounds, warmup=5, repeat=repeat)
        rows.append((n, {name: ms * 1e3 for name, ms in t.items()}))
    return rows


def table(work, rows):
    out = [
        f"{work}: microseconds a call (repeat calls)",
        "",
        "| n | block | onesweep | cupy | block / onesweep |",
        "|---:|---:|---:|---:|---:|",
    ]
    for n, t in rows:
        b, o, c = t.get("block"), t["onesweep"], t.get("cupy")
        out.append(
            f"| {n} | {'' if b is None else f'{b:.1f}'} | {o:.1f} | "
            f"{'' if c is None else f'{c:.1f}'} | "
            f"{'' if b is None else f'{b / o:.2f}'} |"
        )
    return "\n".join(out) + "\n"


def limit(results, kb):
    """The largest swept n up to which the block sort was never slower than onesweep in the
    workloads of keys of ``kb`` bytes (0: slower at the smallest n)."""
    best = 0
    dt = f"uint{8 * kb}"
    ns = sizes(kb)
    for n in ns:
        row = [dict(rows)[n] for work, rows in results.items() if work.endswith(dt)]
        if not row or any("block" not in t or t["block"] > t["onesweep"] for t in row):
            break
        best = n
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python -m tools.probes.block_sort_sweep",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=40)
    ap.add_argument("--only", nargs="+", choices=WORKS, metavar="WORK")
    args = ap.parse_args(argv)
    backend = _backend.get_backend()
    device = backend.device_info().name if backend.is_cuda else "the emulator (host timings)"
    print(f"block sort vs onesweep on {device}; policy {prim.tuning.policy('sort', 'block')}\n")
    results = {}
    for work in args.only or WORKS:
        results[work] = sweep(work, args.rounds, args.repeat)
        print(table(work, results[work]), flush=True)
    for kb in (4, 8):
        if any(w.endswith(f"uint{8 * kb}") for w in results):
            print(
                f"{kb}-byte keys: block never slower than onesweep up to n = "
                f"{limit(results, kb)} (auto_{kb})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())

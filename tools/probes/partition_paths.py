"""partition and argpartition of one long row by either path, against CuPy:

    python -m tools.probes.partition_paths [log2 n]

float32 keys, n = 2^28 by default (a small n runs on the emulator: a check of the probe). For
kth = 5, 1000, n / 1000, n / 10 and n / 2, interleaved (primitives._core.timing.bench_many, 5
rounds x (5 warm-ups + 20 samples) on a GPU): ``partition`` and ``argpartition`` under the
``"partition"`` policy in force (which picks topk's selection of the m keys a kth needs ordered
when m * sort_share <= n, else the split by the kth values) and with the split by the kth values
forced (sort_share 2^30, sort_max_len 1: no sort of a short row either), the policy in force
with the first level's scatter bounded to 4 resident blocks an SM (``split_row_min_blocks``: a
plan made under that override, called without one), and ``cupy.partition`` /
``cupy.argpartition``. Each result is checked (the kth value is the sorted array's, no larger
value before it, no smaller after). Prints the medians in ms: the figures behind the policy's
sort_share and split_row_min_blocks.
"""

import sys

import numpy as np

import primitives as prim
from primitives._core import backend as _backend, timing as _timing

backend = _backend.get_backend()
xp = backend.xp  # CuPy on a GPU, NumPy on the emulator
ROUNDS = (
    dict(rounds=5, warmup=5, repeat=20) if backend.is_cuda else dict(rounds=1, warmup=0, repeat=1)
)
RANKS = 1 << 30  # a sort_share that sends every kth to the split by the kth values
ROW_BOUND = 4  # split_row_min_blocks tried: argpartition's row scatter in 64 registers


def check(x, srt, kth, got, arg):
    vals = x[got] if arg else got
    k = vals[kth]
    assert k == srt[kth], f"kth {kth}: {k} against {srt[kth]}"
    assert bool((vals[:kth] <= k).all()) and bool((vals[kth:] >= k).all()), f"kth {kth}"


def run(n):
    rng = np.random.default_rng(5)
    x = xp.asarray(rng.random(n, dtype=np.float32))
    srt = xp.sort(x)
    rows = []
    for kth in (5, 1000, n // 1000, n // 10, n // 2):
        fns = {}
        for func in ("partition", "argpartition"):
            ours = getattr(prim, func)
            for label, share in (("policy", None), ("ranks", RANKS)):

                def call(ours=ours, share=share, kth=kth):
                    if share is None:
                        return ours(x, kth)
                    with prim.tuning.override(
                        "selection", selector="partition", sort_share=share, sort_max_len=1
                    ):
                        return ours(x, kth)

                check(x, srt, kth, call(), func == "argpartition")
                fns[f"{func} {label}"] = call
            with prim.tuning.override(
                "selection", selector="partition", split_row_min_blocks=ROW_BOUND
            ):
                bounded = prim.plan(ours, x, kth)
            check(x, srt, kth, bounded(x), func == "argpartition")
            fns[f"{func} row bound {ROW_BOUND}"] = lambda p=bounded: p(x)
            if backend.is_cuda:
                fns[f"cupy.{func}"] = lambda f=getattr(xp, func), kth=kth: f(x, kth)
        t = _timing.bench_many(fns, **ROUNDS)
        rows.append((kth, t))
        print(f"kth {kth}: " + ", ".join(f"{k} {v:.4f}" for k, v in t.items()), flush=True)
    return rows


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    n = 1 << int(argv[0]) if argv else (1 << 28 if backend.is_cuda else 1 << 16)
    print(f"{prim.backend_info()['device']}, n = {n}")
    run(n)
    return 0


if __name__ == "__main__":
    sys.exit(main())

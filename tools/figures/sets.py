"""Sets figures (:mod:`primitives.testing.workloads.sets`): the issues' three cases, each against
its CuPy peer timed in the same run.

* ``unique(x, return_counts=True)`` of 2^27 uint32 keys with about 2^20 distinct values (never
  zero) against ``cupy.unique(x, return_counts=True)``: ours must be at least 2.5 times faster
  (CuPy took 7.41 ms on an H100 when the issue was written);
* ``unique(x, return_inverse=True)`` of the same keys against ``cupy.unique(x,
  return_inverse=True)``: ours at most 0.35 of CuPy's time;
* ``reduce_by_key`` (sum) of 2^28 float32 values under int32 keys in runs of about 16 against a
  CuPy formulation (:func:`primitives.testing.peers.cupy_reduce_by_key`): ours must reach 70% of
  the copy rate, counting the keys and values read once and the unique keys and sums written once.

Every variant of ``unique`` is timed (``count``, what ``auto`` runs on these keys: a histogram of
their range, no sort; ``rle``, the sort and the run kernel; ``compact``), and ``unique(x,
return_counts=True)`` also against ``torch.unique`` on the same memory (the issue asks at most
0.5 of its time). Each case checks ours and the peer against NumPy before timing them (CuPy's
``add.reduceat`` of 2^24 segments was seen to give wrong sums on an H200, CuPy 14.2: the peer is
timed all the same, and its column says so); "% limit" is the time the case's bytes take at the
measured copy rate over ours.
"""

from __future__ import annotations

import numpy as np

import primitives as prim
from primitives.testing import peers
from primitives.testing.workloads import make, pow2, sets as spec
from tools.figures.numpy_api import Case


def _unique(cp, rng):
    w = spec.UNIQUE
    distinct = w.params["distinct"]
    x = make(w.data, w.n, w.dtypes[0], distinct=distinct, xp=cp)
    nbytes = x.nbytes + distinct * (4 + 8)  # keys read once, unique keys and counts written

    def ours(variant):
        return lambda: prim.unique(x, return_counts=True, variant=variant)

    def oracle():  # NumPy: the keys lie in [1, distinct], so a bincount holds the answer
        counts = np.bincount(cp.asnumpy(x))
        u = np.flatnonzero(counts)
        return u.astype(np.uint32), counts[u].astype(np.int64)

    return (
        {"count (auto)": ours("auto"), "rle": ours("rle"), "compact": ours("compact")},
        lambda: cp.unique(x, return_counts=True),
        nbytes,
        oracle,
    )


def _unique_inverse(cp, rng):
    w = spec.UNIQUE
    distinct = w.params["distinct"]
    x = make(w.data, w.n, w.dtypes[0], distinct=distinct, xp=cp)
    nbytes = x.nbytes + w.n * 8  # keys read, the inverse written (int64)

    def oracle():  # NumPy: the keys lie in [1, distinct]; a key's place among the unique ones
        h = cp.asnumpy(x)
        present = np.bincount(h) > 0
        u = np.flatnonzero(present)
        place = np.cumsum(present) - 1
        return u.astype(np.uint32), place[h].astype(np.int64)

    return (
        {
            "count (auto)": lambda: prim.unique(x, return_inverse=True),
            "rle": lambda: prim.unique(x, return_inverse=True, variant="rle"),
        },
        lambda: cp.unique(x, return_inverse=True),
        nbytes,
        oracle,
    )


def _reduce_by_key(cp, rng):
    w = spec.RUNS
    keys = make(w.data, w.n, w.dtypes[0], mean=w.params["mean"], xp=cp)  # never 0
    values = make("positive", w.n, w.dtypes[1], xp=cp)
    runs = int(keys[-1])
    nbytes = keys.nbytes + values.nbytes + runs * (4 + 4)

    def oracle():  # NumPy: float64 sums over the runs
        hk, hv = cp.asnumpy(keys), cp.asnumpy(values)
        starts = np.flatnonzero(np.r_[True, hk[1:] != hk[:-1]])
        return hk[starts], np.add.reduceat(hv.astype(np.float64), starts)

    return (
        {"reduce_by_key": lambda: prim.reduce_by_key(keys, values)},
        lambda: peers.cupy_reduce_by_key(keys, values),
        nbytes,
        oracle,
    )


def cases():
    """The two cases, with the n of each."""
    u, r = spec.UNIQUE, spec.RUNS
    unique = (
        f"unique(return_counts=True) {pow2(u.n)} {u.dtypes[0]}, ~{pow2(u.params['distinct'])} "
        "distinct"
    )
    rbk = (
        f"reduce_by_key sum {pow2(r.n)} {r.dtypes[1]}, {r.dtypes[0]} keys in runs of "
        f"~{r.params['mean']}"
    )
    inverse = (
        f"unique(return_inverse=True) {pow2(u.n)} {u.dtypes[0]}, ~{pow2(u.params['distinct'])} "
        "distinct"
    )
    return [
        (Case(unique, _unique, 0, u.params["speedup"]), u.n),
        # the issue's <= 0.35x cupy.unique's time
        (Case(inverse, _unique_inverse, 0, 1 / 0.35), u.n),
        (Case(rbk, _reduce_by_key, r.params["pct"], 0), r.n),
    ]


def same(cp, got, want):
    """Whether a (keys, counts or sums) result equals NumPy's: keys and counts exactly, float32
    sums of a few tens of values within 1e-5 of the float64 ones."""
    if len(got) != len(want):
        return False
    for g, w in zip(got, want):
        g = cp.asnumpy(cp.asarray(g))
        if g.shape != w.shape:
            return False
        if w.dtype.kind == "f":
            if not np.allclose(g, w, rtol=1e-5, atol=0):
                return False
        elif not np.array_equal(g, w):
            return False
    return True


def run(ctx, only=""):
    import cupy as cp

    ctx.table(
        [
            "case",
            "contender",
            "ours ms",
            "cupy ms",
            "speed-up",
            "bytes",
            "% limit",
            "target",
            "met",
            "same as NumPy",
            "peer same as NumPy",
        ]
    )
    for case, n in cases():
        if only not in case.name:
            continue
        ours, peer, nbytes, oracle = case.make(cp, None)
        want = oracle()
        peer_ok = same(cp, peer(), want)
        ok = {name: same(cp, fn(), want) for name, fn in ours.items()}
        t = ctx.bench({**ours, "cupy": peer})
        limit_ms = nbytes / (ctx.copy * 1e9) * 1e3
        for name in ours:
            pct, speedup = 100 * limit_ms / t[name], t["cupy"] / t[name]
            ctx.add(
                case.name,
                name,
                f"{t[name]:.4f}",
                f"{t['cupy']:.4f}",
                f"{speedup:.2f}x",
                f"{nbytes / 2**20:.0f} MiB",
                f"{pct:.0f}%",
                case.target(),
                "yes" if case.met(pct, speedup) else "**no**",
                "yes" if ok[name] else "**NO**",
                "yes" if peer_ok else "no",
            )
            ctx.peer_record(f"{case.name} [{name}]", n, t[name], nbytes, "cupy", t["cupy"])
        del ours, peer, want
        cp.get_default_memory_pool().free_all_blocks()
    if only in cases()[0][0].name:  # the counts case
        _against_torch(ctx, cp)


#: unique(return_counts=True) at most this fraction of torch.unique's time (the issue's target)
TORCH_TARGET = 0.5


def _against_torch(ctx, cp):
    """unique(x, return_counts=True) of the counts case's keys against torch.unique on the
    same memory (DLPack, no copy), interleaved."""
    try:
        import torch
    except ImportError:
        print("torch unavailable: torch.unique is not measured")
        return
    w = spec.UNIQUE
    x = make(w.data, w.n, w.dtypes[0], distinct=w.params["distinct"], xp=cp)
    t = torch.from_dlpack(x)
    theirs = lambda: torch.unique(t, sorted=True, return_counts=True)  # noqa: E731
    ours = lambda: prim.unique(x, return_counts=True)  # noqa: E731
    u, c = ours()
    tu, tc = theirs()
    same = bool(cp.array_equal(u, cp.from_dlpack(tu))) and bool(
        cp.array_equal(c, cp.from_dlpack(tc).astype(np.int64))
    )
    ms = ctx.bench({"ours": ours, "torch": theirs})
    ratio = ms["ours"] / ms["torch"]
    ctx.rows(
        ["case", "ours (auto) ms", "torch.unique ms", "ours / torch", "target", "met", "same"],
        [
            [
                f"unique(return_counts=True) {pow2(w.n)} {w.dtypes[0]}, "
                f"~{pow2(w.params['distinct'])} distinct",
                f"{ms['ours']:.4f}",
                f"{ms['torch']:.4f}",
                f"{ratio:.3f}",
                f"<= {TORCH_TARGET}",
                "yes" if ratio <= TORCH_TARGET else "**no**",
                "yes" if same else "**NO**",
            ]
        ],
    )

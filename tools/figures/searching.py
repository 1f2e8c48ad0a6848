"""searchsorted figures (:mod:`primitives.testing.workloads.searching`): 2^24 random float32
queries into a sorted random float32 array of 2^26 (256 MB, five times the L2), every variant and
``auto`` against ``cupy.searchsorted`` and ``torch.searchsorted`` (on the same device arrays,
through DLPack) timed in the same interleaved rounds. The issue's target: ``searchsorted`` at
least 2x faster than both peers."""

import cupy

import primitives as prim
from primitives.searching import VARIANTS
from primitives.testing.workloads import make, pow2, searching as spec

W = spec.QUERIES
N, M = W.n, W.n // W.params["per_query"]
TARGET = W.params["speedup"]  # the peers' time over ours that the issue asks for


def data(n=N, m=M, seed=0):
    """(sorted a, queries) on the device: the workload's floats, never zero."""
    a = cupy.sort(make(W.data, n, "float32", seed=seed, xp=cupy))
    return a, make(W.data, m, "float32", seed=seed + 1, xp=cupy)


def torch_peer(a, v):
    """``torch.searchsorted`` on the arrays' memory (no copy), or None without PyTorch."""
    try:
        import torch
    except ImportError:
        return None
    ta, tv = torch.from_dlpack(a), torch.from_dlpack(v)
    return lambda: torch.searchsorted(ta, tv)


def run(ctx):
    a, v = data()
    want = cupy.searchsorted(a, v)
    fns = {"auto": lambda: prim.searchsorted(a, v)}
    for var in VARIANTS:
        fns[var] = lambda var=var: prim.searchsorted(a, v, variant=var)
    for name, fn in fns.items():
        assert bool(cupy.array_equal(fn(), want)), f"searchsorted {name} differs from CuPy"
    fns["cupy.searchsorted"] = lambda: cupy.searchsorted(a, v)
    torch_fn = torch_peer(a, v)
    if torch_fn is not None:
        assert bool(cupy.array_equal(cupy.from_dlpack(torch_fn()), want)), "torch differs"
        fns["torch.searchsorted"] = torch_fn
    else:
        print("torch unavailable: torch.searchsorted is not measured")
    del want
    t = ctx.bench(fns)
    nbytes = M * (4 + 8)  # the queries read and the int64 results written once
    peers = [p for p in ("cupy.searchsorted", "torch.searchsorted") if p in t]
    ctx.peer_table()
    for var in ("auto",) + VARIANTS:
        for peer in peers:
            ctx.peer_row(
                f"searchsorted {pow2(M)} float32 into {pow2(N)} float32 ({var})",
                M,
                t[var],
                nbytes,
                peer,
                t[peer],
            )
    ctx.table(
        [
            "case",
            "ours (auto) ms",
            *[f"{p} ms" for p in peers],
            "speed-up (slowest margin)",
            "target",
            "met",
        ]
    )
    speedup = min(t[p] for p in peers) / t["auto"]
    ctx.add(
        f"searchsorted {pow2(M)} float32 queries into sorted {pow2(N)} float32",
        f"{t['auto']:.4f}",
        *[f"{t[p]:.4f}" for p in peers],
        f"{speedup:.2f}x",
        f">= {TARGET:g}x both peers",
        "yes" if speedup >= TARGET else "**no**",
    )
    ctx.rows(
        ["variant", "ms"],
        [(name, f"{ms:.4f}") for name, ms in t.items()],
        caption="Every contender of the row (ms, medians of the same interleaved rounds):",
    )
    sorted_queries(ctx, a, v)


#: sorted queries: at most this fraction of cupy.searchsorted's time (the issue's target)
SORTED_TARGET = 0.5


def sorted_queries(ctx, a, v):
    """The same queries sorted, and nearly sorted (one query in 100 swapped with one 1 to 63
    places on: ``spec.ordered``), against the peers on the same arrays: auto's near tiles (a
    tile of queries whose answers lie in a short range of a bisects that range alone) against
    the variants."""
    cases = {order: spec.ordered(cupy, v, order) for order in spec.ORDERS[1:]}
    ctx.table(["queries", "contender", "ms", "over cupy.searchsorted"])
    met = []
    for label, q in cases.items():
        want = cupy.searchsorted(a, q)
        fns = {"auto": lambda q=q: prim.searchsorted(a, q)}
        for var in ("binary", "indexed", "sorted"):
            fns[var] = lambda var=var, q=q: prim.searchsorted(a, q, variant=var)
        for name, fn in fns.items():
            assert bool(cupy.array_equal(fn(), want)), f"searchsorted {name} ({label}) differs"
        fns["cupy.searchsorted"] = lambda q=q: cupy.searchsorted(a, q)
        torch_fn = torch_peer(a, q)
        if torch_fn is not None:
            fns["torch.searchsorted"] = torch_fn
        del want
        t = ctx.bench(fns)
        for name, ms in t.items():
            ctx.add(label, name, f"{ms:.4f}", f"{ms / t['cupy.searchsorted']:.3f}")
        met.append((label, t["auto"], t["cupy.searchsorted"]))
    ctx.table(["case", "ours (auto) ms", "cupy.searchsorted ms", "ratio", "target", "met"])
    for label, ours, peer in met:
        ctx.add(
            f"searchsorted {pow2(M)} {label} float32 queries into {pow2(N)}",
            f"{ours:.4f}",
            f"{peer:.4f}",
            f"{ours / peer:.3f}",
            f"<= {SORTED_TARGET}x cupy" if label == "sorted" else "(no target)",
            ("yes" if ours <= SORTED_TARGET * peer else "**no**") if label == "sorted" else "",
        )

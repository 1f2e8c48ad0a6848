"""statistics figures (:mod:`primitives.testing.workloads.statistics`): the headline one-pass
reductions over 2^28 float32 (every 1000th element NaN for the nan-functions) against their
``cupy`` and ``torch`` twins (torch's on the same device arrays through DLPack, where it has the
function), timed in the same interleaved rounds; var over each axis of a (2^14, 2^14) matrix.
The issue's targets: each headline function at least 90% of the copy rate (the input read
once), and var at least 2x faster than cupy.var."""

import warnings

import cupy
import numpy as np

import primitives as prim
from primitives.testing.workloads import make, pow2, statistics as spec

W, A = spec.FLAT, spec.AXIS
N = W.n
FRACTION, TARGET = W.params["read_fraction"], W.params["speedup"]
#: torch's twins (None: torch has no such function)
TORCH = {
    "nansum": "nansum",
    "nanmax": None,
    "nanargmax": None,
    "nanmean": "nanmean",
    "var": "var",
    "std": "std",
    "ptp": None,
}


def data(func, n=N):
    x = make(W.data, n, "float32", xp=cupy)
    if func.startswith("nan"):
        x[:: W.params["nan"]] = cupy.nan
    return x


def torch_fn(name, x, **kw):
    """torch's ``name`` on ``x``'s memory (no copy), or None without PyTorch or the function."""
    if name is None:
        return None
    try:
        import torch
    except ImportError:
        return None
    t = torch.from_dlpack(x)
    fn = getattr(torch, name)
    if name in ("var", "std"):
        return lambda: fn(t, correction=0, **kw)
    return lambda: fn(t, **kw)


def _close(got, want, what):
    g, w = cupy.asnumpy(cupy.asarray(got)), cupy.asnumpy(cupy.asarray(want))
    assert np.allclose(g, w, rtol=1e-3, equal_nan=True), f"{what}: {g} against {w}"


def run(ctx):
    ctx.peer_table()
    summary = []
    for func in W.params["functions"]:
        x = data(func)
        ours = lambda x=x, func=func: getattr(prim, func)(x)  # noqa: E731
        fns = {"ours": ours, f"cupy.{func}": lambda x=x, func=func: getattr(cupy, func)(x)}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            _close(ours(), fns[f"cupy.{func}"](), func)
        t_fn = torch_fn(TORCH[func], x)
        if t_fn is not None:
            fns[f"torch.{TORCH[func]}"] = t_fn
        t = ctx.bench(fns)
        for peer in [p for p in fns if p != "ours"]:
            ctx.peer_row(f"{func} float32", N, t["ours"], N * 4, peer, t[peer])
        gbs = N * 4 / (t["ours"] * 1e-3) / 1e9
        summary.append((func, t, gbs))
        del x
    ctx.table(["case", "ours ms", "GB/s", "% copy", "target", "met"])
    for func, t, gbs in summary:
        frac = gbs / ctx.copy
        ctx.add(
            f"{func} of {pow2(N)} float32",
            f"{t['ours']:.4f}",
            f"{gbs:.0f}",
            f"{100 * frac:.1f}%",
            f">= {100 * FRACTION:.0f}% of copy",
            "yes" if frac >= FRACTION else "**no**",
        )
    t = next(t for f, t, _ in summary if f == "var")
    speed = t["cupy.var"] / t["ours"]
    ctx.add(
        "var against cupy.var",
        f"{t['ours']:.4f}",
        "",
        "",
        f">= {TARGET:g}x",
        f"{speed:.2f}x " + ("yes" if speed >= TARGET else "**no**"),
    )
    rows = A.params["rows"]
    x = make(A.data, (rows, A.n // rows), "float32", xp=cupy)
    ctx.peer_table()
    for func in A.params["functions"]:
        for axis in (1, 0):
            fns = {
                "ours": lambda func=func, axis=axis: getattr(prim, func)(x, axis=axis),
                f"cupy.{func}": lambda func=func, axis=axis: getattr(cupy, func)(x, axis=axis),
            }
            _close(fns["ours"](), fns[f"cupy.{func}"](), f"{func} axis {axis}")
            t_fn = torch_fn(TORCH[func], x, dim=axis)
            if t_fn is not None:
                fns[f"torch.{TORCH[func]}"] = t_fn
            t = ctx.bench(fns)
            for peer in [p for p in fns if p != "ours"]:
                ctx.peer_row(
                    f"{func} float32 {rows} x {A.n // rows} axis {axis}",
                    A.n,
                    t["ours"],
                    A.n * 4,
                    peer,
                    t[peer],
                )

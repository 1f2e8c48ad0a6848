"""Reduction figures (:mod:`primitives.testing.workloads.reduction`): the production kernel on
its cases (sum and max of float32, sum of int32 at 2^28) against cupy and CUB; complex64 max and
argmax at 2^27 against cupy's; the alpha..zeta ladder at 2^26."""

import cupy
import numpy as np

import primitives as prim
from primitives import reduction
from primitives._core import dtypes as _dtypes
from primitives.testing import oracle as _oracle, peers
from primitives.testing.workloads import make, pow2, reduction as spec


def checked(fn, host, op, acc, variant):
    got = fn()
    depth = reduction.error_depth(variant, host.size, np.dtype(acc))
    ok, want, bound = _oracle.reduce_matches(cupy.asnumpy(got), host, op, acc, depth)
    assert ok, f"{variant} {op}: got {got}, want {want} (bound {bound})"


def run(ctx):
    w = spec.PRODUCTION
    hosts = {dt: make(w.data, w.n, dt) for dt in dict.fromkeys(c[1] for c in w.params["cases"])}
    ctx.peer_table()
    for op, dtype in w.params["cases"]:
        host = hosts[dtype]
        x = cupy.asarray(host)
        acc = _dtypes.sum_dtype(x.dtype) if op == "sum" else x.dtype
        checked(lambda: prim.reduce(x, op), host, op, acc, "production")
        fns = {"ours": lambda: prim.reduce(x, op), f"cupy.{op}": lambda: getattr(cupy, op)(x)}
        if ctx.cc is not None:
            fns["CUB reduce_into"] = peers.cub_reduce(x, op, cupy.empty(1, dtype=acc))
        t = ctx.bench(fns)
        for peer in list(fns)[1:]:
            ctx.peer_row(f"{op} {x.dtype.name} production", w.n, t["ours"], x.nbytes, peer, t[peer])
    del hosts

    w = spec.COMPLEX
    xc = make(w.data, w.n, w.dtypes[0], xp=cupy)
    for op in w.params["functions"]:
        ours, theirs = getattr(prim, op), getattr(cupy, op)
        assert bool(ours(xc) == theirs(xc)), f"complex {op} differs"
        t = ctx.bench(
            {"ours": lambda f=ours, x=xc: f(x), f"cupy.{op}": lambda f=theirs, x=xc: f(x)}
        )
        ctx.peer_row(
            f"{op} {xc.dtype.name}", w.n, t["ours"], xc.nbytes, f"cupy.{op}", t[f"cupy.{op}"]
        )
    del xc

    n = spec.LADDER.n
    xl_h = make(spec.LADDER.data, n, "float32")
    xl = cupy.asarray(xl_h)
    for v in reduction.VARIANTS:
        checked(lambda: prim.sum(xl, variant=v), xl_h, "sum", np.float32, v)
    times = ctx.bench({v: (lambda v=v: prim.sum(xl, variant=v)) for v in reduction.VARIANTS})
    ctx.table([f"ladder variant (sum float32, {pow2(n)})", "ms", "GB/s read", "% copy", "vs alpha"])
    for v, ms in times.items():
        gbs = xl.nbytes / (ms * 1e-3) / 1e9
        ctx.add(
            v,
            f"{ms:.4f}",
            f"{gbs:.0f}",
            f"{100 * gbs / ctx.copy:.1f}%",
            f"{times['alpha'] / ms:.2f}x",
        )

"""Reduction figures: production sum/max float32 and sum int32 at 2^28 against cupy and CUB;
the alpha..zeta ladder at 2^26."""

import cupy
import numpy as np

import primitives as prim
from primitives import reduction
from primitives.testing import oracle as _oracle, peers


def checked(fn, host, op, acc, variant):
    got = fn()
    depth = reduction.error_depth(variant, host.size, np.dtype(acc))
    ok, want, bound = _oracle.reduce_matches(got.get(), host, op, acc, depth)
    assert ok, f"{variant} {op}: got {got}, want {want} (bound {bound})"


def run(ctx):
    rng = np.random.default_rng(7)
    n = 1 << 28
    xf_h = rng.random(n, dtype=np.float32) + np.float32(0.5)
    xf = cupy.asarray(xf_h)
    xi_h = rng.integers(-(2**31), 2**31 - 1, n, dtype=np.int32)
    xi = cupy.asarray(xi_h)
    ctx.peer_table()
    for op, x, host, acc in (
        ("sum", xf, xf_h, np.float32),
        ("max", xf, xf_h, np.float32),
        ("sum", xi, xi_h, np.int64),
    ):
        checked(lambda: prim.reduce(x, op), host, op, acc, "production")
        fns = {
            "ours": lambda: prim.reduce(x, op),
            f"cupy.{op}": {"sum": lambda: cupy.sum(x), "max": lambda: cupy.max(x)}[op],
        }
        if ctx.cc is not None:
            fns["CUB reduce_into"] = peers.cub_reduce(x, op, cupy.empty(1, dtype=acc))
        t = ctx.bench(fns)
        for peer in list(fns)[1:]:
            ctx.peer_row(f"{op} {x.dtype.name} production", n, t["ours"], x.nbytes, peer, t[peer])

    n = 1 << 26
    xl_h, xl = xf_h[:n], xf[:n]
    for v in reduction.VARIANTS:
        checked(lambda: prim.sum(xl, variant=v), xl_h, "sum", np.float32, v)
    times = ctx.bench({v: (lambda v=v: prim.sum(xl, variant=v)) for v in reduction.VARIANTS})
    ctx.table(["ladder variant (sum float32, 2^26)", "ms", "GB/s read", "% copy", "vs alpha"])
    for v, ms in times.items():
        gbs = xl.nbytes / (ms * 1e-3) / 1e9
        ctx.add(
            v,
            f"{ms:.4f}",
            f"{gbs:.0f}",
            f"{100 * gbs / ctx.copy:.1f}%",
            f"{times['alpha'] / ms:.2f}x",
        )

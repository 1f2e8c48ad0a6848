"""Scan figures (:mod:`primitives.testing.workloads.scan`, ``compaction``, ``segmented``):
inclusive sums int32 -> int32 and float32 at 2^28 against CUB (cuda.compute inclusive_scan) and
cupy.cumsum; the three variants side by side; compaction against boolean indexing and
cupy.nonzero (the page's compaction section); segmented scan and reduce against CuPy's row-wise
calls and CUB's segmented_reduce (its segmented section: equal segments, our public call and
our plan from ``prim.plan`` against CUB's object made once; ragged ones)."""

import cupy
import numpy as np

import primitives as prim
from primitives import scan
from primitives.testing import peers
from primitives.testing.workloads import compaction, make, pow2, scan as spec, segmented


def run(ctx):
    w = spec.INCLUSIVE
    n = w.n
    ctx.peer_table()
    variants = {}
    for dt in map(np.dtype, w.dtypes):
        x = make(w.data, n, dt, xp=cupy)
        got = prim.inclusive_scan(x, dtype=dt)
        ref = cupy.cumsum(x, dtype=np.float64 if dt.kind == "f" else dt)
        if dt.kind == "i":
            assert bool(cupy.array_equal(got, ref)), "int32 scan differs from cupy.cumsum"
        else:
            rel = float(cupy.max(cupy.abs(got - ref) / ref))
            assert rel < 1e-3, f"float32 scan relative error {rel}"
        fns = {
            "ours": lambda: prim.inclusive_scan(x, dtype=dt),
            "cupy.cumsum": lambda: cupy.cumsum(x, dtype=dt),
        }
        if ctx.cc is not None:
            run_cub = peers.cub_inclusive_scan(x)
            cub_out = run_cub()
            if dt.kind == "i":
                assert bool(cupy.array_equal(cub_out, ref)), "CUB scan differs from cupy.cumsum"
            fns["CUB inclusive_scan"] = run_cub
        t = ctx.bench(fns)
        for peer in list(fns)[1:]:
            ctx.peer_row(
                f"inclusive sum {dt.name}->{dt.name} decoupled_lookback",
                n,
                t["ours"],
                2 * x.nbytes,
                peer,
                t[peer],
            )
        variants[dt.name] = ctx.bench(
            {v: (lambda v=v: prim.inclusive_scan(x, dtype=dt, variant=v)) for v in scan.VARIANTS}
        )
        del x, got, ref
    ctx.table(
        [
            f"scan variant (inclusive sum, {pow2(n)})",
            "dtype",
            "ms",
            "GB/s (read+write)",
            "% copy",
            "vs decoupled_lookback",
        ]
    )
    for dname, times in variants.items():
        for v, ms in times.items():
            gbs = 2 * n * 4 / (ms * 1e-3) / 1e9
            ctx.add(
                v,
                dname,
                f"{ms:.4f}",
                f"{gbs:.0f}",
                f"{100 * gbs / ctx.copy:.1f}%",
                f"{ms / times['decoupled_lookback']:.2f}x slower"
                if v != "decoupled_lookback"
                else "1.00x",
            )

    # compaction: float32, half selected, against boolean indexing and cupy.nonzero
    ctx.section("compaction")
    w = compaction.COMPACT
    n = w.n
    x, mask = make(w.data, n, "float32", xp=cupy), make("half", n, "bool", xp=cupy)
    assert bool(cupy.array_equal(prim.compact(x, mask), x[mask]))
    assert bool(cupy.array_equal(prim.compact_indices(mask), cupy.nonzero(mask)[0]))
    t = ctx.bench(
        {
            "compact": lambda: prim.compact(x, mask),
            "x[mask]": lambda: x[mask],
            "compact_indices": lambda: prim.compact_indices(mask),
            "cupy.nonzero": lambda: cupy.nonzero(mask)[0],
        }
    )
    moved = x.nbytes + mask.nbytes + x.nbytes // 2
    ctx.peer_table()
    ctx.peer_row("compact float32, 50% selected", n, t["compact"], moved, "x[mask]", t["x[mask]"])
    ctx.peer_row(
        "compact_indices, 50% selected",
        n,
        t["compact_indices"],
        mask.nbytes + 8 * (n // 2),
        "cupy.nonzero",
        t["cupy.nonzero"],
    )

    # segmented scan and reduce: equal segments, and ragged tiny segments
    ctx.section("segmented")
    w = segmented.EQUAL
    n, cols = w.n, w.params["segment"]
    rows = n // cols
    x = make(w.data, n, "float32", xp=cupy)
    x2 = x.reshape(rows, cols)
    off = cupy.arange(0, n + 1, cols, dtype=cupy.int64)
    ref = cupy.cumsum(x2, axis=1).reshape(-1)
    got = prim.segmented_scan(x, offsets=off)
    assert float(cupy.max(cupy.abs(got - ref) / ref)) < 1e-4
    red_ref = x2.sum(axis=1)
    assert float(cupy.max(cupy.abs(prim.segmented_reduce(x, off) - red_ref) / red_ref)) < 1e-4
    planned = prim.plan(prim.segmented_reduce, x, off, check=False)  # as CUB's object is made
    fns = {
        "segmented_scan": lambda: prim.segmented_scan(x, offsets=off, check=False),
        "cupy.cumsum(axis=1)": lambda: cupy.cumsum(x2, axis=1),
        "segmented_reduce": lambda: prim.segmented_reduce(x, off, check=False),
        "segmented_reduce (prim.plan)": lambda: planned(x, off),
        "cupy.sum(axis=1)": lambda: x2.sum(axis=1),
    }
    if ctx.cc is not None:
        fns["CUB segmented_reduce"] = peers.cub_segmented_reduce(x, off)
        out = fns["CUB segmented_reduce"]()
        assert float(cupy.max(cupy.abs(out - red_ref) / red_ref)) < 1e-4
    t = ctx.bench(fns)
    shape = f"{pow2(rows)} x {pow2(cols)}"
    ctx.peer_table()
    ctx.peer_row(
        f"segmented_scan float32 ({shape})",
        n,
        t["segmented_scan"],
        2 * x.nbytes,
        "cupy.cumsum(axis=1)",
        t["cupy.cumsum(axis=1)"],
    )
    for peer in ("cupy.sum(axis=1)", "CUB segmented_reduce"):
        if peer in t:
            ctx.peer_row(
                f"segmented_reduce float32 ({shape})",
                n,
                t["segmented_reduce"],
                x.nbytes,
                peer,
                t[peer],
            )
    if "CUB segmented_reduce" in t:  # both prepared once and called: CUB's object, our plan
        ctx.peer_row(
            f"segmented_reduce float32 ({shape}) through `prim.plan`",
            n,
            t["segmented_reduce (prim.plan)"],
            x.nbytes,
            "CUB segmented_reduce",
            t["CUB segmented_reduce"],
        )
    # ragged segments of 0..max_len elements against a plain reduce of the same data
    w = segmented.RAGGED
    lens = make("lengths", w.n, "int64", max_len=w.params["max_len"])
    offs = np.concatenate([[0], np.cumsum(lens)])
    m = int(offs[-1])
    y = x[:m] if m <= n else make(segmented.EQUAL.data, m, "float32", xp=cupy)
    offs_d = cupy.asarray(offs)
    want = np.add.reduceat(cupy.asnumpy(y).astype(np.float64), offs[:-1][lens > 0])
    got = cupy.asnumpy(prim.segmented_reduce(y, offs_d))[lens > 0]
    assert np.allclose(got, want, rtol=1e-4)
    fns = {
        "ragged": lambda: prim.segmented_reduce(y, offs_d, check=False),
        "plain": lambda: prim.sum(y),
    }
    if ctx.cc is not None:
        fns["CUB"] = peers.cub_segmented_reduce(y, offs_d)
        assert np.allclose(cupy.asnumpy(fns["CUB"]())[lens > 0], want, rtol=1e-4)
    t = ctx.bench(fns)
    label = f"segmented_reduce, {pow2(w.n)} ragged segments (0-{w.params['max_len']}), n={m}"
    ctx.peer_row(label, m, t["ragged"], y.nbytes, "prim.sum (same n)", t["plain"])
    if "CUB" in t:
        ctx.peer_row(label, m, t["ragged"], y.nbytes, "CUB segmented_reduce", t["CUB"])

"""Sort figures at 2^27 (:mod:`primitives.testing.workloads.sorting`): uint32 keys and pairs
against CUB (cuda.compute radix_sort), cupy.sort and cupy.argsort; float32/int32/uint64 keys; the
segmented sort of 2^20 segments of 128 keys against cupy.sort(axis=-1) (and CUB's segmented
sort); the rows of a float32 matrix (``sort(x, axis=-1)``) against cupy.sort(axis=-1) and
torch.sort(dim=-1); lexsort of uint32 keys against cupy.lexsort; complex64 keys against
cupy.sort; the key-distribution suite (sort, pairs and argsort against CUB on each); the variants
side by side (but the block sort, which takes small inputs only)."""

import cupy

import primitives as prim
from primitives.sorting import VARIANTS
from primitives.testing import peers
from primitives.testing.workloads import make, pow2, sorting as spec


def run(ctx):
    w = spec.KEYS
    n = w.n

    # ---- keys ----
    keys = {dt: make(w.data, n, dt, seed=i, xp=cupy) for i, dt in enumerate(w.dtypes)}
    for dt, x in keys.items():
        assert bool(cupy.array_equal(prim.sort(x), cupy.sort(x))), f"{dt} sort differs"
    fns = {f"ours {dt}": (lambda x=x: prim.sort(x)) for dt, x in keys.items()}
    fns["cupy.sort uint32"] = lambda: cupy.sort(keys["uint32"])
    if ctx.cc is not None:
        for dt in ("uint32", "uint64"):
            fns[f"CUB {dt}"] = peers.cub_radix_sort(keys[dt])
            assert bool(cupy.array_equal(fns[f"CUB {dt}"](), cupy.sort(keys[dt])))
    t = ctx.bench(fns)
    ctx.peer_table()
    for peer in ("CUB uint32", "cupy.sort uint32"):
        if peer in t:
            ctx.peer_row(
                "sort uint32 keys (onesweep)", n, t["ours uint32"], 2 * 4 * n, peer, t[peer]
            )
    if "CUB uint64" in t:
        ctx.peer_row(
            "sort uint64 keys (onesweep)",
            n,
            t["ours uint64"],
            2 * 8 * n,
            "CUB uint64",
            t["CUB uint64"],
        )
    for dt in ("int32", "float32"):
        ctx.peer_row(
            f"sort {dt} keys (onesweep)",
            n,
            t[f"ours {dt}"],
            2 * 4 * n,
            "ours uint32",
            t["ours uint32"],
        )
    del fns

    # ---- pairs and argsort ----
    x = keys["uint32"]  # the pairs' keys: spec.PAIRS's, at the same n
    v = make(spec.PAIRS.data, spec.PAIRS.n, "uint32", seed=len(keys), xp=cupy)
    order = cupy.argsort(x)
    k2, v2 = prim.radix_sort(x, v)
    assert bool(cupy.array_equal(k2, x[order])) and bool(cupy.array_equal(v2, v[order]))
    assert bool(cupy.array_equal(prim.argsort(x), order))
    del k2, v2
    fns = {
        "pairs": lambda: prim.radix_sort(x, v),
        "argsort": lambda: prim.argsort(x),
        "cupy.argsort": lambda: cupy.argsort(x),
    }
    if ctx.cc is not None:
        fns["CUB pairs"] = peers.cub_radix_sort(x, v)
        assert bool(cupy.array_equal(fns["CUB pairs"]()[1], v[order]))
    t = ctx.bench(fns)
    ctx.peer_table()
    if "CUB pairs" in t:
        ctx.peer_row(
            "radix_sort uint32 keys + uint32 values",
            n,
            t["pairs"],
            2 * 8 * n,
            "CUB pairs",
            t["CUB pairs"],
        )
    ctx.peer_row(
        "argsort uint32 (int64 result)",
        n,
        t["argsort"],
        4 * n + 8 * n,
        "cupy.argsort",
        t["cupy.argsort"],
    )
    del fns, order
    keys.pop("int32"), keys.pop("float32"), keys.pop("uint64")
    distributions(ctx)

    # ---- segmented: 2^20 segments of 128 keys ----
    cols = spec.SEGMENTED.params["segment"]
    rows = spec.SEGMENTED.n // cols
    x2 = x.reshape(rows, cols)
    off = cupy.arange(0, n + 1, cols, dtype=cupy.int64)
    assert bool(
        cupy.array_equal(prim.segmented_sort(x, off).reshape(rows, cols), cupy.sort(x2, axis=-1))
    )
    fns = {
        "segmented_sort": lambda: prim.segmented_sort(x, off),
        "cupy.sort(axis=-1)": lambda: cupy.sort(x2, axis=-1),
    }
    if ctx.cc is not None:
        try:
            fns["CUB segmented_sort"] = peers.cub_segmented_sort(x, off)
            fns["CUB segmented_sort"]()
        except Exception as exc:  # report and go on without it  # noqa: BLE001
            fns.pop("CUB segmented_sort", None)
            print(f"CUB segmented sort unavailable: {exc}")
    t = ctx.bench(fns)
    ctx.peer_table()
    for peer in list(fns)[1:]:
        ctx.peer_row(
            f"segmented_sort uint32, {rows} x {cols}",
            n,
            t["segmented_sort"],
            2 * 4 * n,
            peer,
            t[peer],
        )
    del fns

    # ---- the rows of a matrix: sort(x, axis=-1) ----
    w = spec.ROWS
    try:
        import torch
    except ImportError:
        torch = None
        print("torch.sort unavailable: PyTorch is not installed")
    ctx.peer_table()
    for cols in (w.params["cols"], *w.params["other_cols"]):
        xr = make(w.data, (w.n // cols, cols), w.dtypes[0], xp=cupy)
        assert bool(cupy.array_equal(prim.sort(xr, axis=-1), cupy.sort(xr, axis=-1)))
        fns = {
            "sort(axis=-1)": lambda xr=xr: prim.sort(xr, axis=-1),
            "cupy.sort(axis=-1)": lambda xr=xr: cupy.sort(xr, axis=-1),
        }
        if torch is not None:
            tr = torch.from_dlpack(xr)
            fns["torch.sort(dim=-1)"] = lambda tr=tr: tr.sort(dim=-1, stable=True)
        t = ctx.bench(fns)
        for peer in list(fns)[1:]:
            ctx.peer_row(
                f"sort {w.dtypes[0]} rows, {w.n // cols} x {cols}",
                w.n,
                t["sort(axis=-1)"],
                2 * xr.nbytes,
                peer,
                t[peer],
            )
        del fns, xr

    # ---- lexsort ----
    w = spec.LEXSORT
    lk = [make(w.data, w.n, w.dtypes[0], seed=i, xp=cupy) for i in range(w.params["keys"])]
    stacked = cupy.stack(lk)
    assert bool(cupy.array_equal(prim.lexsort(lk), cupy.lexsort(stacked)))
    t = ctx.bench(
        {
            "lexsort": lambda lk=lk: prim.lexsort(lk),
            "cupy.lexsort": lambda s=stacked: cupy.lexsort(s),
        }
    )
    ctx.peer_table()
    ctx.peer_row(
        f"lexsort of {len(lk)} {w.dtypes[0]} keys",
        w.n,
        t["lexsort"],
        sum(k.nbytes for k in lk) + 8 * w.n,
        "cupy.lexsort",
        t["cupy.lexsort"],
    )
    del lk, stacked

    # ---- complex keys ----
    w = spec.COMPLEX
    xc = make(w.data, w.n, w.dtypes[0], xp=cupy)
    assert bool(cupy.array_equal(prim.sort(xc), cupy.sort(xc))), "complex sort differs"
    t = ctx.bench({"ours": lambda x=xc: prim.sort(x), "cupy.sort": lambda x=xc: cupy.sort(x)})
    ctx.peer_table()
    ctx.peer_row(
        f"sort {w.dtypes[0]} keys", w.n, t["ours"], 2 * xc.nbytes, "cupy.sort", t["cupy.sort"]
    )
    del xc

    # ---- the variants ----
    cap = prim.tuning.policy("sort", "block").capacity(4)  # the block sort: small inputs only
    times = ctx.bench(
        {
            vr: (lambda vr=vr: prim.sort(x, variant=vr))
            for vr in VARIANTS
            if vr != "block" or n <= cap
        },
        rounds=2,
        warmup=2,
        repeat=5,
    )
    ctx.table(
        [
            f"sort variant (uint32 keys, {pow2(n)})",
            "ms",
            "keys/s (G)",
            "GB/s (keys r+w once)",
            "vs onesweep",
        ]
    )
    for vr, ms in times.items():
        ctx.add(
            vr,
            f"{ms:.3f}",
            f"{n / (ms * 1e-3) / 1e9:.2f}",
            f"{2 * 4 * n / (ms * 1e-3) / 1e9:.0f}",
            f"{ms / times['onesweep']:.2f}x slower" if vr != "onesweep" else "1.00x",
        )


def distributions(ctx):
    """The key-distribution suite (``spec.DISTRIBUTIONS``): on each distribution ``sort``,
    ``radix_sort`` with uint32 values and ``argsort``, interleaved with CUB's keys, pairs and
    pairs with an int64 index (argsort's peer) of the same keys; each ratio against CUB and
    against ours on uniform uint32 keys (the same operation)."""
    w = spec.DISTRIBUTIONS
    n = w.n
    target = w.params["target"]
    ops = ("sort", "pairs", "argsort")
    values = cupy.arange(n, dtype=cupy.uint32)[::-1].copy()  # any values: the pairs' payload
    index = cupy.arange(n, dtype=cupy.int64)
    rows, uniform = [], {}
    for i, name in enumerate(w.params["names"]):
        x = spec.distribution(name, n, cupy, seed=i)
        srt = cupy.sort(x)
        assert bool(cupy.array_equal(prim.sort(x), srt)), f"{name}: sort differs"
        order = prim.argsort(x)  # stable: a permutation, sorting x, ties in input order
        assert bool(cupy.array_equal(x[order], srt)), f"{name}: argsort differs"
        assert bool(cupy.array_equal(cupy.sort(order), index)), f"{name}: no permutation"
        assert bool(((srt[1:] != srt[:-1]) | (order[1:] > order[:-1])).all()), "not stable"
        k2, v2 = prim.radix_sort(x, values)
        assert bool(cupy.array_equal(k2, srt)) and bool(cupy.array_equal(v2, values[order]))
        del k2, v2
        fns = {
            "sort": lambda x=x: prim.sort(x),
            "pairs": lambda x=x: prim.radix_sort(x, values),
            "argsort": lambda x=x: prim.argsort(x),
        }
        if ctx.cc is not None:
            fns["CUB sort"] = peers.cub_radix_sort(x)
            fns["CUB pairs"] = peers.cub_radix_sort(x, values)
            fns["CUB argsort"] = peers.cub_radix_sort(x, index)
            assert bool(cupy.array_equal(fns["CUB sort"](), srt)), f"{name}: CUB differs"
            assert bool(cupy.array_equal(fns["CUB argsort"]()[1], order))
        t = ctx.bench(fns)
        if name == "uniform uint32":
            uniform = {op: t[op] for op in ops}
        for op in ops:
            if f"CUB {op}" in t:
                ctx.peer_record(
                    f"{op} of {name} keys", n, t[op], 2 * x.nbytes, f"CUB {op}", t[f"CUB {op}"]
                )
        rows.append((name, x.dtype, t))
        del x, srt, order, fns

    def ratio(a, b, bound):
        r = a / b
        return f"**{r:.2f}**" if r > bound else f"{r:.2f}"

    ctx.table(
        [
            f"keys ({pow2(n)})",
            *(c for op in ops for c in (f"{op} ms", f"CUB {op} ms", "/ CUB", "/ our uniform")),
            "met",
        ]
    )
    for name, dt, t in rows:
        cells, met = [], True
        for op in ops:
            cub = t.get(f"CUB {op}")
            own = dt == "uint32" or dt == "float32"  # beside our uniform uint32: 4-byte keys
            cells += [
                f"{t[op]:.4f}",
                "" if cub is None else f"{cub:.4f}",
                "" if cub is None else ratio(t[op], cub, target["cub"]),
                ratio(t[op], uniform[op], target["uniform"]) if own else "",
            ]
            met &= cub is None or t[op] <= target["cub"] * cub
            met &= not own or t[op] <= target["uniform"] * uniform[op]
        ctx.add(name, *cells, "no CUB" if ctx.cc is None else "yes" if met else "**no**")
    ctx.lines += [
        "",
        f"Targets: each at most {target['cub']}x CUB's time on the same keys (argsort against "
        "CUB's pairs with an int64 index) and, for 4-byte keys, at most "
        f"{target['uniform']}x ours on uniform uint32 (the same operation); bold: over.",
    ]

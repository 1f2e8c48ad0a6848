"""Selection figures (:mod:`primitives.testing.workloads.selection`): ``topk`` of float32 2^28 with k = 16, 1024 and 2^20 against ``torch.topk``,
``cupy.argpartition`` and ``prim.sort`` of the whole array, and per row, (2^16, 4096) with k = 32,
against ``torch.topk(dim=-1)``: the rows and targets of the top-k issue; ``median`` and
``quantile`` (q = 0.01, 0.5, 0.99) of float32 2^28 against ``cupy.median``/``cupy.quantile`` and
``torch.median``/``torch.quantile`` (where torch takes the input); ``partition`` and
``argpartition`` of float32 2^28 at four kth against CuPy's; the peers timed in the same
interleaved rounds. Inputs are random floats in [0.5, 1.5) (never zeros). Each of our
results is checked against the peer's values before it is timed (peers break ties their own way:
the sorted values must agree). "bytes" is one read of the keys; "% limit" the time that read takes
at the measured copy rate over ours."""

from __future__ import annotations

import cupy

import primitives as prim
from primitives.testing.workloads import make, pow2, selection as spec


def _torch():
    try:
        import torch
    except Exception as exc:  # report, go on without the torch rows  # noqa: BLE001
        print(f"torch unavailable: {exc}")
        return None
    return torch


def _values_agree(ours, theirs):
    a = cupy.sort(cupy.asarray(ours), axis=-1)
    b = cupy.sort(cupy.asarray(theirs), axis=-1)
    return bool(cupy.array_equal(a, b))


def _row(ctx, name, n, t, nbytes, peers):
    """One Markdown row per peer, and its CSV record: ``peers`` is (peer, target speed-up)."""
    ours = t["ours"]
    limit_ms = nbytes / (ctx.copy * 1e9) * 1e3
    for peer, target in peers:
        if peer not in t:
            continue
        speedup = t[peer] / ours
        ctx.peer_record(name, n, ours, nbytes, peer, t[peer])
        ctx.add(
            name,
            f"{ours:.4f}",
            peer,
            f"{t[peer]:.4f}",
            f"{speedup:.2f}x",
            f"{100 * limit_ms / ours:.0f}%",
            f">= {target:g}x",
            "yes" if speedup >= target else "**no**",
        )


def run(ctx):
    torch = _torch()
    ctx.table(["case", "ours ms", "peer", "peer ms", "speed-up", "% limit", "target", "met"])

    w = spec.TOPK
    N = w.n
    x = make(w.data, N, "float32", xp=cupy)
    tx = torch.from_dlpack(x) if torch is not None else None
    for k in w.params["k"]:
        targets = w.params["targets"][k]
        fns = {"ours": lambda k=k: prim.topk(x, k)}
        vals, _ = fns["ours"]()
        if tx is not None:
            fns["torch.topk"] = lambda k=k: torch.topk(tx, k)  # noqa: F821 - bound when the lambda runs (deleted after)
            assert _values_agree(vals, cupy.from_dlpack(fns["torch.topk"]()[0])), (
                f"k={k}: values differ from torch.topk"
            )
        if "cupy.argpartition" in dict(targets):
            fns["cupy.argpartition"] = lambda k=k: cupy.argpartition(x, N - k)
            assert _values_agree(vals, x[fns["cupy.argpartition"]()[N - k :]]), (
                f"k={k}: values differ from cupy.argpartition"
            )
        else:
            fns["prim.sort"] = lambda: prim.sort(x)
        del vals
        t = ctx.bench(fns)
        _row(ctx, f"topk float32 {pow2(N)}, k = {k}", N, t, x.nbytes, targets)
        cupy.get_default_memory_pool().free_all_blocks()
    del x, tx

    w = spec.ROWS
    cols, kr = w.params["cols"], w.params["k"]
    rows = w.n // cols
    x2 = make(w.data, (rows, cols), "float32", xp=cupy)
    fns = {"ours": lambda: prim.topk(x2, kr)}  # noqa: F821 - bound when the lambda runs (deleted after)
    if torch is not None:
        t2 = torch.from_dlpack(x2)
        fns["torch.topk(dim=-1)"] = lambda: torch.topk(t2, kr, dim=-1)
        assert _values_agree(fns["ours"]()[0], cupy.from_dlpack(fns["torch.topk(dim=-1)"]()[0])), (
            "rows: values differ from torch.topk"
        )
    t = ctx.bench(fns)
    label = f"topk per row float32 ({pow2(rows)}, {cols}), k = {kr}"
    _row(ctx, label, rows * cols, t, x2.nbytes, w.params["targets"])

    del x2, fns
    cupy.get_default_memory_pool().free_all_blocks()
    _quantiles(ctx, torch)  # its arrays freed on return
    _partitions(ctx, N)  # its arrays freed on return

    # the variants side by side on the 1-D case, k = 16
    cupy.get_default_memory_pool().free_all_blocks()
    w, k = spec.TOPK, spec.TOPK.params["k"][0]
    x = make(w.data, N, "float32", seed=1, xp=cupy)
    times = ctx.bench(
        {v: (lambda v=v: prim.topk(x, k, variant=v)) for v in w.params["table"]},
        rounds=2,
        warmup=2,
        repeat=5,
    )
    ctx.table([f"topk variant (float32 {pow2(N)}, k = {k})", "ms", "GB/s (keys read once)"])
    for v, ms in times.items():
        ctx.add(v, f"{ms:.4f}", f"{x.nbytes / (ms * 1e-3) / 1e9:.0f}")


#: partition and argpartition of float32 2^28: the issue's target (at most this many ms, any kth)
PARTITION_MS = 1.75


def _partitions(ctx, n):
    """partition and argpartition of float32 ``n`` at kth 5, n / 1000, n / 10 and n / 2 against
    cupy.partition / cupy.argpartition (variant "auto"); each result checked: the kth value the
    sorted array's, none larger before it, none smaller after."""
    x = make(spec.TOPK.data, n, "float32", seed=2, xp=cupy)
    srt = cupy.sort(x)
    rows = []
    for kth in (5, n // 1000, n // 10, n // 2):
        for func in ("partition", "argpartition"):
            ours, peer = getattr(prim, func), getattr(cupy, func)
            got = ours(x, kth)
            vals = x[got] if func == "argpartition" else got
            k = vals[kth]
            assert bool(k == srt[kth]), f"{func} kth {kth}: wrong value"
            assert bool((vals[:kth] <= k).all()) and bool((vals[kth:] >= k).all()), func
            del got, vals
            t = ctx.bench(
                {
                    "ours": lambda f=ours, k=kth, a=x: f(a, k),
                    "cupy": lambda f=peer, k=kth, a=x: f(a, k),
                }
            )
            rows.append((func, kth, t["ours"], t["cupy"]))
    ctx.table(["case", "ours ms", "cupy ms", "x cupy", "% of a read", "target", "met"])
    for func, kth, ours, peer in rows:
        ctx.add(
            f"{func} float32 {pow2(n)}, kth = {kth}",
            f"{ours:.4f}",
            f"{peer:.4f}",
            f"{peer / ours:.2f}x",
            f"{100 * x.nbytes / (ours * 1e-3) / 1e9 / ctx.copy:.1f}%",
            f"<= {PARTITION_MS} ms",
            "yes" if ours <= PARTITION_MS else "**no**",
        )
    del x, srt
    cupy.get_default_memory_pool().free_all_blocks()


def _quantiles(ctx, torch):
    """median and quantile of the ``QUANTILE`` workload against CuPy's and torch's: ours checked
    against each peer first (torch.median takes the lower middle value: our ``lower`` median;
    peers interpolate in their own arithmetic: within float32's rounding)."""
    w = spec.QUANTILE
    x = make(w.data, w.n, "float32", xp=cupy)
    qs = w.params["q"]
    qc = cupy.asarray(qs)
    tx = torch.from_dlpack(x) if torch is not None else None
    for fn in w.params["functions"]:
        if fn == "median":
            fns = {"ours": lambda: prim.median(x), "cupy.median": lambda: cupy.median(x)}
            like = {"cupy.median": prim.median(x)}
            if tx is not None:
                fns["torch.median"] = lambda: torch.median(tx)
                like["torch.median"] = prim.quantile(x, 0.5, method="lower")
        else:
            fns = {
                "ours": lambda: prim.quantile(x, qs),
                "cupy.quantile": lambda: cupy.quantile(x, qc),
            }
            like = {"cupy.quantile": prim.quantile(x, qs)}
            if tx is not None:
                tq = torch.tensor(qs, device=tx.device, dtype=tx.dtype)
                try:
                    torch.quantile(tx, tq)
                except RuntimeError as exc:  # torch.quantile refuses long inputs
                    print(f"torch.quantile: {exc}")
                else:
                    fns["torch.quantile"] = lambda: torch.quantile(tx, tq)
                    like["torch.quantile"] = prim.quantile(x, qs)
        for peer, ours in like.items():
            theirs = cupy.asarray(fns[peer]())
            assert bool(cupy.allclose(cupy.asarray(ours, dtype=theirs.dtype), theirs, rtol=1e-6)), (
                f"{fn}: values differ from {peer}"
            )
        t = ctx.bench(fns)
        label = f"{fn} float32 {pow2(w.n)}" + (f", q = {list(qs)}" if fn == "quantile" else "")
        _row(ctx, label, w.n, t, x.nbytes, w.params["targets"][fn])

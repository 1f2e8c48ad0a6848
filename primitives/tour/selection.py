"""Tour of selection: ``topk`` of float32 with k = 16 (every variant; ``torch.topk`` and
``cupy.argpartition`` as peers on a GPU) and per row, (rows, 4096) with k = 32; ``median`` and
``quantile`` of float32 (``cupy.median``/``cupy.quantile`` and ``torch.median``/``torch.quantile``
as peers on a GPU) (the workloads of :mod:`primitives.testing.workloads.selection`)."""

from __future__ import annotations

import numpy as np

import primitives as prim
from primitives import tour
from primitives._core import backend as _backend
from primitives import selection
from primitives.selection import VARIANTS
from primitives.testing.workloads import make, pow2, selection as spec


def _torch():
    try:
        import torch
    except Exception:  # no PyTorch: no torch peer  # noqa: BLE001
        return None
    return torch


def _want(host, k):
    """The indices of the k largest along the last axis, the lowest first among equal values,
    largest first: a stable sort of the candidates alone for a 1-D array (those at least the
    k-th largest value, found by a partition: a stable sort of 2^28 keys on the host would take
    most of the tour's minute), of every row otherwise."""
    if host.ndim != 1:
        return np.argsort(-host, axis=-1, kind="stable")[..., :k]
    kth = np.partition(host, host.size - k)[host.size - k]
    cand = np.flatnonzero(host >= kth)
    return cand[np.argsort(-host[cand], kind="stable")][:k]


def sections(gpu, log2n=None):
    """Tour workloads: a 1-D top-16 of float32 (every variant that takes its length) and a top-32
    of each row of 4096 float32."""
    n, k = spec.TOPK.size(gpu, log2n), spec.TOPK.params["k"][0]
    out = []

    def flat_contenders():
        xp = _backend.get_backend().xp
        host = make(spec.TOPK.data, n, "float32")
        x = xp.asarray(host)
        want = _want(host, k)

        def same(got):
            return bool(np.array_equal(tour.to_host(got[1]), want))

        c = [
            tour.Contender(v, (lambda v=v: prim.topk(x, k, variant=v)), same)
            for v in VARIANTS
            if selection.variant_takes(v, np.float32, n, k)
        ]
        if gpu:
            top = np.sort(host[want])  # peers break ties their own way: compare values

            torch = _torch()
            if torch is not None:
                t = torch.from_dlpack(x)
                c.append(
                    tour.Contender(
                        "torch.topk (peer)",
                        lambda: torch.topk(t, k),
                        lambda got: bool(np.array_equal(np.sort(got[0].cpu().numpy()), top)),
                    )
                )
            c.append(
                tour.Contender(
                    "cupy.argpartition (peer)",
                    lambda: xp.argpartition(x, n - k)[n - k :],
                    lambda got: bool(np.array_equal(np.sort(host[tour.to_host(got)]), top)),
                )
            )
        return c

    out.append(
        tour.Section(
            title=f"topk: float32, k = {k}, n = {pow2(n)} (GB/s: keys read once)",
            nbytes=4 * n,
            contenders=flat_contenders,
            count=(
                sum(selection.variant_takes(v, np.float32, n, k) for v in VARIANTS)
                + (1 + (_torch() is not None) if gpu else 0)
            ),
            # the quick tour times auto's choice for this k
            quick=True,
            quick_rows=(selection.auto_variant(np.float32, n, k),),
        )
    )

    w = spec.ROWS
    cols, kr = w.params["cols"], w.params["k"]
    rows = max(1, w.size(gpu, log2n) // cols)

    def rows_contenders():
        xp = _backend.get_backend().xp
        host = make(w.data, (rows, cols), "float32")
        x = xp.asarray(host)
        want = _want(host, kr)

        def same(got):
            return bool(np.array_equal(tour.to_host(got[1]), want))

        c = [tour.Contender(v, (lambda v=v: prim.topk(x, kr, variant=v)), same) for v in VARIANTS]
        if gpu:
            torch = _torch()
            if torch is not None:
                t = torch.from_dlpack(x)
                top = np.sort(np.take_along_axis(host, want, axis=-1), axis=-1)
                c.append(
                    tour.Contender(
                        "torch.topk(dim=-1) (peer)",
                        lambda: torch.topk(t, kr, dim=-1),
                        lambda got: bool(
                            np.array_equal(np.sort(got[0].cpu().numpy(), axis=-1), top)
                        ),
                    )
                )
        return c

    out.append(
        tour.Section(
            title=f"topk per row: float32 ({rows}, {cols}), k = {kr} (GB/s: keys read once)",
            nbytes=4 * rows * cols,
            contenders=rows_contenders,
            count=len(VARIANTS) + (1 if gpu and _torch() is not None else 0),
        )
    )
    out += [_quantile_section(gpu, log2n, fn) for fn in spec.QUANTILE.params["functions"]]
    return out


def _quantile_section(gpu, log2n, fn):
    """``median`` or ``quantile`` at the workload's q of a 1-D float32 array: ours against
    NumPy's value exactly, the peers within float32's rounding (torch.median takes the lower
    middle value: NumPy's ``lower`` quantile; torch.quantile refuses inputs past 2^24
    elements: no row there)."""
    w = spec.QUANTILE
    n, qs = w.size(gpu, log2n), w.params["q"]
    torch = _torch() if gpu else None

    def contenders():
        xp = _backend.get_backend().xp
        host = make(w.data, n, "float32")
        x = xp.asarray(host)
        if fn == "median":
            want, ours = np.median(host), (lambda: prim.median(x))
            peers = [("cupy.median (peer)", lambda: xp.median(x), want)]
            if torch is not None:
                t = torch.from_dlpack(x)
                low = np.quantile(host, 0.5, method="lower")
                peers.append(("torch.median (peer)", lambda: torch.median(t), low))
        else:
            want, ours = np.quantile(host, qs), (lambda: prim.quantile(x, qs))
            peers = [("cupy.quantile (peer)", lambda: xp.quantile(x, xp.asarray(qs)), want)]
            if torch is not None:
                t = torch.from_dlpack(x)
                tq = torch.tensor(qs, device=t.device, dtype=t.dtype)
                if _takes(torch.quantile, t, tq):
                    peers.append(("torch.quantile (peer)", lambda: torch.quantile(t, tq), want))

        c = [tour.Contender(fn, ours, lambda got: bool(np.array_equal(tour.to_host(got), want)))]
        if gpu:
            for name, run, ref in peers:
                c.append(
                    tour.Contender(
                        name,
                        run,
                        lambda got, ref=ref: bool(
                            np.allclose(_host(got), np.asarray(ref, np.float32), rtol=1e-6)
                        ),
                    )
                )
        return c

    what = f"q = {list(qs)}" if fn == "quantile" else "one value"
    return tour.Section(
        title=f"{fn}: float32, {what}, n = {pow2(n)} (GB/s: keys read once)",
        nbytes=4 * n,
        contenders=contenders,
        count=1 + (1 + (torch is not None) if gpu else 0),
    )


def _takes(fn, *args):
    """Whether a peer takes these arguments (torch.quantile refuses long inputs)."""
    try:
        fn(*args)
    except RuntimeError:
        return False
    return True


def _host(got):
    return got.cpu().numpy() if hasattr(got, "cpu") else tour.to_host(got)

"""Small calls: every public function's GPU-timed cost per call at n = 10^4 beside CuPy's for the
same work (the per-call host overhead figure).

    python -m tools.probes.small_calls [--n N] [--only NAME ...] [--out FILE]

At small sizes the kernels take microseconds and the host work of a call (argument checks, plan
lookup, launches) is most of its cost: a GPU that waits for the host is idle between the two
events around a call, so CUDA-event times show it. Each row times one function of
``primitives`` (after its first call, as in a loop over many small arrays) and CuPy's twin, or
the CuPy code that does the same work where CuPy has no such function, in interleaved rounds
(:func:`primitives._core.timing.bench_many`, 5 rounds of 40 samples: the median of 200), with
the stream not held (``hold=False``), so each call's host time counts. Every
function the family registry lists has a row (:data:`CALLS`); the tests check that. Runs on the
emulator too (host timings, no CuPy column).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import primitives as prim
from primitives._core import backend as _backend, registry as _registry, timing as _timing


def _csr(xp, n):
    import scipy.sparse as sp

    m = max(1, n // 8)  # a square matrix with about n nonzeros, eight a row
    host = sp.random(m, m, density=min(1.0, 8 / m), format="csr", dtype=np.float32, random_state=1)
    return prim.sparse.CSR(host), host


def _cusparse(host):
    import cupyx.scipy.sparse as csp

    return csp.csr_matrix(host)


def inputs(xp, n):
    """The arrays every row draws from (random, on the backend's device)."""
    rng = np.random.default_rng(n)
    f = rng.random(n, dtype=np.float32)
    d = {
        "f": xp.asarray(f),
        "d": xp.asarray(f.astype(np.float64) + 0.5),
        "i": xp.asarray(rng.integers(0, 1000, n, dtype=np.int32)),
        "u": xp.asarray(rng.integers(0, 1 << 32, n, dtype=np.uint32)),
        "b": xp.asarray(f > 0.5),
        "img": xp.asarray(rng.integers(0, 256, (n // 4, 4), dtype=np.uint8)),
        "off": xp.asarray(np.arange(0, n + 1, 100, dtype=np.int64)),
        "flags": xp.asarray(np.arange(n) % 100 == 0),
    }
    d["m"] = d["f"].reshape(-1, 100) if n % 100 == 0 else d["f"][:, None]
    d["kth"] = n // 10
    d["runs"] = xp.asarray(np.arange(n, dtype=np.int32) // 16)  # runs of 16 equal keys
    d["sorted"] = xp.asarray(np.sort(rng.random(n, dtype=np.float32)))
    return d


def _segments_cupy(xp, x, off):
    """CuPy's segmented sum: ``add.reduceat`` over the segment starts."""
    return xp.add.reduceat(x, off[:-1])


def _segmented_scan_cupy(xp, x, off):
    """CuPy's segmented inclusive sum: a cumsum less each segment's carry-in."""
    c = xp.cumsum(x)
    starts = xp.repeat(off[:-1], xp.diff(off))
    return c - (c[starts] - x[starts])


def _segmented_sort_cupy(xp, x, off):
    """CuPy's segmented sort: a lexicographic sort by (segment, key)."""
    seg = xp.repeat(xp.arange(off.size - 1), xp.diff(off))
    return x[xp.lexsort(xp.stack([x, seg]))]


def _topk_cupy(xp, x, k):
    """CuPy's top-k: argpartition, then the k winners sorted, largest first."""
    idx = xp.argpartition(x, x.size - k)[x.size - k :]
    order = xp.argsort(x[idx])[::-1]
    return x[idx[order]], idx[order]


def _run_heads(xp, keys):
    """Where a run of equal keys starts: the first element and each change."""
    return xp.flatnonzero(xp.concatenate([xp.ones(1, bool), keys[1:] != keys[:-1]]))


def _runs_cupy(xp, keys):
    """CuPy's run-length encoding: the run heads, their keys and the lengths between them."""
    heads = _run_heads(xp, keys)
    return keys[heads], xp.diff(xp.concatenate([heads, xp.asarray([keys.size])]))


def _reduce_by_key_cupy(xp, keys, values):
    """CuPy's reduce-by-key: sums over the runs of equal keys by ``add.reduceat``."""
    heads = _run_heads(xp, keys)
    return keys[heads], xp.add.reduceat(values, heads)


#: name -> (ours, CuPy's twin or the CuPy code for the same work); each takes (xp, inputs)
CALLS = {
    "reduce": (lambda xp, a: prim.reduce(a["f"], "max"), lambda xp, a: xp.max(a["f"])),
    "sum": (lambda xp, a: prim.sum(a["f"]), lambda xp, a: xp.sum(a["f"])),
    "min": (lambda xp, a: prim.min(a["f"]), lambda xp, a: xp.min(a["f"])),
    "max": (lambda xp, a: prim.max(a["f"]), lambda xp, a: xp.max(a["f"])),
    "mean": (lambda xp, a: prim.mean(a["f"]), lambda xp, a: xp.mean(a["f"])),
    "any": (lambda xp, a: prim.any(a["b"]), lambda xp, a: xp.any(a["b"])),
    "all": (lambda xp, a: prim.all(a["b"]), lambda xp, a: xp.all(a["b"])),
    "prod": (lambda xp, a: prim.prod(a["d"]), lambda xp, a: xp.prod(a["d"])),
    "argmin": (lambda xp, a: prim.argmin(a["f"]), lambda xp, a: xp.argmin(a["f"])),
    "argmax": (lambda xp, a: prim.argmax(a["f"]), lambda xp, a: xp.argmax(a["f"])),
    "sum axis=1": (lambda xp, a: prim.sum(a["m"], axis=1), lambda xp, a: xp.sum(a["m"], axis=1)),
    "spmv": (lambda xp, a: prim.spmv(a["A"], a["x"]), lambda xp, a: a["cuA"] @ a["x"]),
    "inclusive_scan": (lambda xp, a: prim.inclusive_scan(a["i"]), lambda xp, a: xp.cumsum(a["i"])),
    "exclusive_scan": (
        lambda xp, a: prim.exclusive_scan(a["i"]),
        lambda xp, a: xp.cumsum(a["i"]) - a["i"],
    ),
    "cumsum": (lambda xp, a: prim.cumsum(a["i"]), lambda xp, a: xp.cumsum(a["i"])),
    "cumprod": (lambda xp, a: prim.cumprod(a["d"]), lambda xp, a: xp.cumprod(a["d"])),
    "compact": (lambda xp, a: prim.compact(a["f"], a["b"]), lambda xp, a: a["f"][a["b"]]),
    "compact_indices": (
        lambda xp, a: prim.compact_indices(a["b"]),
        lambda xp, a: xp.flatnonzero(a["b"]),
    ),
    "segmented_scan": (
        lambda xp, a: prim.segmented_scan(a["f"], offsets=a["off"]),
        lambda xp, a: _segmented_scan_cupy(xp, a["f"], a["off"]),
    ),
    "segmented_reduce": (
        lambda xp, a: prim.segmented_reduce(a["f"], a["off"]),
        lambda xp, a: _segments_cupy(xp, a["f"], a["off"]),
    ),
    "histogram": (
        lambda xp, a: prim.histogram(a["f"], 100, (0, 1)),
        lambda xp, a: xp.histogram(a["f"], 100, (0, 1)),
    ),
    "bincount": (
        lambda xp, a: prim.bincount(a["i"], minlength=1000),
        lambda xp, a: xp.bincount(a["i"], minlength=1000),
    ),
    "histogram_even": (
        lambda xp, a: prim.histogram_even(a["f"], 100, 0.0, 1.0),
        lambda xp, a: xp.histogram(a["f"], 100, (0, 1))[0],
    ),
    "histogram_channels": (
        lambda xp, a: prim.histogram_channels(a["img"]),
        lambda xp, a: xp.stack([xp.bincount(a["img"][:, c], minlength=256) for c in range(4)]),
    ),
    "histogram2d": (
        lambda xp, a: prim.histogram2d(a["f"], a["f"][::-1], 16, [[0, 1], [0, 1]]),
        lambda xp, a: xp.histogram2d(a["f"], a["f"][::-1], 16, [[0, 1], [0, 1]]),
    ),
    "histogramdd": (
        lambda xp, a: prim.histogramdd(a["m3"], 8, [(0, 1)] * 3),
        lambda xp, a: xp.histogramdd(a["m3"], 8, [(0, 1)] * 3),
    ),
    "sort": (lambda xp, a: prim.sort(a["u"]), lambda xp, a: xp.sort(a["u"])),
    "argsort": (lambda xp, a: prim.argsort(a["u"]), lambda xp, a: xp.argsort(a["u"])),
    "radix_sort": (lambda xp, a: prim.radix_sort(a["u"]), lambda xp, a: xp.sort(a["u"])),
    "segmented_sort": (
        lambda xp, a: prim.segmented_sort(a["f"], a["off"]),
        lambda xp, a: _segmented_sort_cupy(xp, a["f"], a["off"]),
    ),
    "topk": (lambda xp, a: prim.topk(a["f"], 16), lambda xp, a: _topk_cupy(xp, a["f"], 16)),
    "partition": (
        lambda xp, a: prim.partition(a["f"], a["kth"]),
        lambda xp, a: xp.partition(a["f"], a["kth"]),
    ),
    "argpartition": (
        lambda xp, a: prim.argpartition(a["f"], a["kth"]),
        lambda xp, a: xp.argpartition(a["f"], a["kth"]),
    ),
    "unique": (
        lambda xp, a: prim.unique(a["i"], return_counts=True),
        lambda xp, a: xp.unique(a["i"], return_counts=True),
    ),
    "run_length_encode": (
        lambda xp, a: prim.run_length_encode(a["runs"]),
        lambda xp, a: _runs_cupy(xp, a["runs"]),
    ),
    "reduce_by_key": (
        lambda xp, a: prim.reduce_by_key(a["runs"], a["f"]),
        lambda xp, a: _reduce_by_key_cupy(xp, a["runs"], a["f"]),
    ),
    "searchsorted": (
        lambda xp, a: prim.searchsorted(a["sorted"], a["f"]),
        lambda xp, a: xp.searchsorted(a["sorted"], a["f"]),
    ),
    "nansum": (lambda xp, a: prim.nansum(a["f"]), lambda xp, a: xp.nansum(a["f"])),
    "nanprod": (lambda xp, a: prim.nanprod(a["f"]), lambda xp, a: xp.nanprod(a["f"])),
    "nanmin": (lambda xp, a: prim.nanmin(a["f"]), lambda xp, a: xp.nanmin(a["f"])),
    "nanmax": (lambda xp, a: prim.nanmax(a["f"]), lambda xp, a: xp.nanmax(a["f"])),
    "nanargmin": (lambda xp, a: prim.nanargmin(a["f"]), lambda xp, a: xp.nanargmin(a["f"])),
    "nanargmax": (lambda xp, a: prim.nanargmax(a["f"]), lambda xp, a: xp.nanargmax(a["f"])),
    "nanmean": (lambda xp, a: prim.nanmean(a["f"]), lambda xp, a: xp.nanmean(a["f"])),
    "nancumsum": (lambda xp, a: prim.nancumsum(a["f"]), lambda xp, a: xp.nancumsum(a["f"])),
    "nancumprod": (lambda xp, a: prim.nancumprod(a["f"]), lambda xp, a: xp.nancumprod(a["f"])),
    "var": (lambda xp, a: prim.var(a["f"]), lambda xp, a: xp.var(a["f"])),
    "std": (lambda xp, a: prim.std(a["f"]), lambda xp, a: xp.std(a["f"])),
    "nanvar": (lambda xp, a: prim.nanvar(a["f"]), lambda xp, a: xp.nanvar(a["f"])),
    "nanstd": (lambda xp, a: prim.nanstd(a["f"]), lambda xp, a: xp.nanstd(a["f"])),
    "ptp": (lambda xp, a: prim.ptp(a["f"]), lambda xp, a: xp.ptp(a["f"])),
    "count_nonzero": (
        lambda xp, a: prim.count_nonzero(a["f"]),
        lambda xp, a: xp.count_nonzero(a["f"]),
    ),
    "average": (lambda xp, a: prim.average(a["f"]), lambda xp, a: xp.average(a["f"])),
    "median": (lambda xp, a: prim.median(a["f"]), lambda xp, a: xp.median(a["f"])),
    "nanmedian": (lambda xp, a: prim.nanmedian(a["f"]), lambda xp, a: xp.nanmedian(a["f"])),
    "quantile": (lambda xp, a: prim.quantile(a["f"], 0.9), lambda xp, a: xp.quantile(a["f"], 0.9)),
    "nanquantile": (
        lambda xp, a: prim.nanquantile(a["f"], 0.9),
        lambda xp, a: xp.quantile(a["f"], 0.9),
    ),
    "percentile": (
        lambda xp, a: prim.percentile(a["f"], 90),
        lambda xp, a: xp.percentile(a["f"], 90),
    ),
    "nanpercentile": (
        lambda xp, a: prim.nanpercentile(a["f"], 90),
        lambda xp, a: xp.percentile(a["f"], 90),
    ),
    "lexsort": (
        lambda xp, a: prim.lexsort((a["u"], a["i"])),
        lambda xp, a: xp.lexsort(xp.stack([a["u"], a["i"].astype(a["u"].dtype)])),
    ),
}


def public_functions():
    """Every public function of every registered family."""
    return [name for fam in _registry.FAMILIES for name in fam.functions]


def run(n=10_000, only=None, rounds=5, repeat=40):
    """Rows ``(name, ours_us, cupy_us or None)`` for the functions of :data:`CALLS` (``only``:
    those named)."""
    backend = _backend.get_backend()
    xp = backend.xp
    a = inputs(xp, n)
    a["m3"] = a["f"][: n - n % 3].reshape(-1, 3)
    a["A"], host = _csr(xp, n)
    a["x"] = xp.asarray(np.random.default_rng(2).random(host.shape[1], dtype=np.float32))
    if backend.is_cuda:
        a["cuA"] = _cusparse(host)
    rows = []
    for name, (ours, twin) in CALLS.items():
        if only and name not in only:
            continue
        fns = {"ours": lambda: ours(xp, a)}
        if backend.is_cuda:
            fns["cupy"] = lambda: twin(xp, a)
        t = _timing.bench_many(fns, rounds=rounds, warmup=5, repeat=repeat, hold=False)
        rows.append((name, t["ours"] * 1e3, t.get("cupy", None) and t["cupy"] * 1e3))
    return rows


def table(rows, n, device):
    out = [
        f"Per call at n = {n} on {device} (CUDA events, median of 200, after warm-up):",
        "",
        "| function | primitives (us) | CuPy, same work (us) | CuPy / primitives |",
        "|---|---:|---:|---:|",
    ]
    for name, ours, cupy in rows:
        if cupy is None:
            out.append(f"| `{name}` | {ours:.1f} | | |")
        else:
            out.append(f"| `{name}` | {ours:.1f} | {cupy:.1f} | {cupy / ours:.2f}x |")
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.probes.small_calls", description=__doc__)
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--only", nargs="+", metavar="NAME")
    ap.add_argument("--out", default=None, help="also write the table to this file")
    args = ap.parse_args(argv)
    missing = sorted(set(public_functions()) - set(CALLS))
    if missing:
        print(f"small_calls: no row for {missing}", file=sys.stderr)
        return 2
    backend = _backend.get_backend()
    device = backend.device_info().name if backend.is_cuda else "the emulator"
    text = table(run(args.n, args.only), args.n, device)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

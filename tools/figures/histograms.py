"""Histogram figures (:mod:`primitives.testing.workloads.histograms`) against cupy and CUB
(``cuda.compute`` histogram_even), one run:

* float32 2^28 in [0, 1), 256 bins: ``histogram`` (NumPy's bins) and ``histogram_even``;
* uint8 2^28, 256 bins, uniform and all equal: ``histogram``, ``histogram_even``, ``bincount``;
* float32 2^28 with 4096, 65536 and 2^20 bins (65,536 bins and histogram2d 256 x 256 of 2^26
  pairs against their targets);
* an 8192 x 8192 RGB uint8 image: one ``histogram_channels`` call vs three ``cupy.bincount``,
  and its colour histogram (``histogramdd`` of its pixels, 16 x 16 x 16 bins) vs
  ``cupy.histogramdd``;
* every variant on uniform, all-equal and sky-image uint8 data (2^26) and uniform float32;
* sweeps of throughput against the bin count and against contention (2^28 samples), written as
  JSON to ``$OUT/histogram_sweeps.json`` (or ./) for
  ``python -m tools.figures.histograms --plot``.

Every result is checked (against NumPy's ``bincount`` of the same data, or by its total) before it
is timed; peers are timed in the same interleaved rounds.
"""

import json
import os
import sys

import numpy as np

from primitives.testing.workloads import histograms as spec, make, pow2

#: the sweeps behind the plot: bin counts (float32), shares of samples equal to one value (uint8)
SWEEP_BINS = (2, 16, 64, 256, 1024, 4096, 16384, 65536, 1 << 18, 1 << 20)
SWEEP_EQUAL = (0.0, 0.5, 0.9, 0.99, 1.0)


def _check_total(name, got, n):
    total = int(got.sum())
    assert total == n, f"{name}: counted {total} samples of {n}"


def run(ctx):
    import cupy

    import primitives as prim
    from primitives import histograms
    from primitives.testing.peers import cub_histogram_even

    out_dir = os.environ.get("OUT", ".")
    b = spec.BINS
    N = spec.FLOAT32.n
    xf = make(spec.FLOAT32.data, N, "float32", xp=cupy)
    u8 = make(spec.UINT8.data, spec.UINT8.n, "uint8", xp=cupy)
    eq8 = make(spec.EQUAL.data, spec.EQUAL.n, "uint8", xp=cupy)
    want_u8 = cupy.asnumpy(cupy.bincount(u8, minlength=b))

    def check_eq(name, got, want):
        got = cupy.asnumpy(got[0] if isinstance(got, tuple) else got)
        assert got.shape == want.shape and np.array_equal(got, want), f"{name}: wrong counts"

    ctx.peer_table()
    # -- float32, 256 bins: ours equal NumPy's bins; the peers are checked by their total ---------
    fns = {
        "histogram": lambda: prim.histogram(xf, b, (0.0, 1.0)),
        "histogram_even": lambda: prim.histogram_even(xf, b, 0.0, 1.0),
        "cupy.histogram": lambda: cupy.histogram(xf, b, (0.0, 1.0)),
    }
    if ctx.cc is not None:
        fns["CUB histogram_even"] = cub_histogram_even(xf, b, 0.0, 1.0, np.float32)
    want_f = np.histogram(cupy.asnumpy(xf), b, (0.0, 1.0))[0]
    check_eq("histogram float32", fns["histogram"](), want_f)
    check_eq("histogram_even float32", fns["histogram_even"](), want_f)  # no sample equals 1.0
    for name in list(fns)[2:]:
        got = fns[name]()
        _check_total(name, got[0] if isinstance(got, tuple) else got, N)
    t = ctx.bench(fns)
    for ours in ("histogram", "histogram_even"):
        for peer in [p for p in fns if not p.startswith("histogram")]:
            ctx.peer_row(f"{ours} float32 {b} bins", N, t[ours], xf.nbytes, peer, t[peer])

    weighted(ctx, xf, b)
    wide(ctx, xf)

    # -- uint8, 256 bins, uniform and all equal ---------------------------------------------------
    times = {}
    for label, x, want in (("uniform", u8, want_u8), ("all equal", eq8, None)):
        if want is None:
            want = np.zeros(b, np.int64)
            want[spec.EQUAL.params.get("value", 77)] = x.size
        fns = {
            "histogram": lambda x=x: prim.histogram(x, b, (0, b)),
            "histogram_even": lambda x=x: prim.histogram_even(x, b, 0, b),
            "bincount": lambda x=x: prim.bincount(x, minlength=b),
            "cupy.bincount": lambda x=x: cupy.bincount(x, minlength=b),
            "cupy.histogram": lambda x=x: cupy.histogram(x, b, (0, b)),
        }
        if ctx.cc is not None:
            fns["CUB histogram_even"] = cub_histogram_even(x, b, 0, b, np.int32)
        for name, f in fns.items():
            check_eq(f"uint8 {label} {name}", f(), want)
        t = ctx.bench(fns)
        times[label] = t
        for ours in ("histogram", "histogram_even", "bincount"):
            for peer in [p for p in fns if p.startswith(("cupy", "CUB"))]:
                ctx.peer_row(
                    f"{ours} uint8 {b} bins, {label}", x.size, t[ours], x.nbytes, peer, t[peer]
                )
    ctx.table([f"uint8 {pow2(u8.size)}, {b} bins", "all equal / uniform time"])
    for name in times["uniform"]:
        ctx.add(name, f"{times['all equal'][name] / times['uniform'][name]:.3f}")

    # -- float32 with many bins -------------------------------------------------------------------
    ctx.peer_table()
    many = spec.FLOAT32.params["bins"][1:]
    for nb in many:
        ours = cupy.asnumpy(prim.histogram(xf, nb, (0.0, 1.0))[0])
        if nb < max(many):  # exact on a sixteenth of the samples (NumPy's is slow at many bins)
            sub = xf[: N // 16]
            assert np.array_equal(
                cupy.asnumpy(prim.histogram(sub, nb, (0.0, 1.0))[0]),
                np.histogram(cupy.asnumpy(sub), nb, (0.0, 1.0))[0],
            ), f"{nb} bins"
        assert ours.sum() == N
        fns = {
            "histogram": lambda nb=nb: prim.histogram(xf, nb, (0.0, 1.0)),
            "cupy.histogram": lambda nb=nb: cupy.histogram(xf, nb, (0.0, 1.0)),
        }
        if ctx.cc is not None:
            fns["CUB histogram_even"] = cub_histogram_even(xf, nb, 0.0, 1.0, np.float32)
        t = ctx.bench(fns)
        for peer in list(fns)[1:]:
            ctx.peer_row(
                f"histogram float32 {nb} bins ({histograms.auto_variant(nb)})",
                N,
                t["histogram"],
                xf.nbytes,
                peer,
                t[peer],
            )

    # -- RGB image --------------------------------------------------------------------------------
    shape = spec.CHANNELS.params["shape"]
    img = make(spec.CHANNELS.data, shape, "uint8", xp=cupy)
    want = np.stack(
        [cupy.asnumpy(cupy.bincount(img[..., c].ravel(), minlength=b)) for c in range(shape[2])]
    )
    check_eq("histogram_channels", prim.histogram_channels(img), want)
    t = ctx.bench(
        {
            "ours": lambda: prim.histogram_channels(img),
            "3 x cupy.bincount": lambda: [
                cupy.bincount(img[..., c].ravel(), minlength=b) for c in range(shape[2])
            ],
        }
    )
    ctx.peer_row(
        f"histogram_channels RGB {shape[0]}x{shape[1]} uint8",
        img.size,
        t["ours"],
        img.nbytes,
        "3 x cupy.bincount",
        t["3 x cupy.bincount"],
    )
    # the same image's colour histogram: its (N, 3) pixels into 16 x 16 x 16 bins
    px = img.reshape(-1, shape[2])
    cube, cube_range = (16,) * shape[2], [(0, b)] * shape[2]
    got = prim.histogramdd(px, cube, cube_range)[0]
    assert bool((got == cupy.histogramdd(px, cube, cube_range)[0]).all()), "histogramdd"
    t = ctx.bench(
        {
            "ours": lambda: prim.histogramdd(px, cube, cube_range),
            "cupy.histogramdd": lambda: cupy.histogramdd(px, cube, cube_range),
        }
    )
    ctx.peer_row(
        f"histogramdd RGB {shape[0]}x{shape[1]} uint8 pixels, 16^3 bins",
        px.shape[0],
        t["ours"],
        img.nbytes,
        "cupy.histogramdd",
        t["cupy.histogramdd"],
    )
    img = px = None  # frees the image (the timed lambdas are done with it)

    # -- every variant on uniform / contended data ------------------------------------------------
    nv = spec.VARIANTS.n
    data = {
        label: make(w.data, nv, w.dtypes[0], xp=cupy)
        for label, w in spec.VARIANTS.params["samples"].items()
    }
    ctx.table(
        [f"variant ({pow2(nv)} samples, {b} bins)"] + [f"{k} ms" for k in data] + ["sky vs uniform"]
    )
    rows = {}
    for label, x in data.items():
        rng_ = (0.0, 1.0) if x.dtype == cupy.float32 else (0, b)
        want = np.histogram(cupy.asnumpy(x), b, rng_)[0]
        fns = {}
        for v in histograms.VARIANTS:
            got = cupy.asnumpy(prim.histogram_even(x, b, *rng_, variant=v))
            assert np.array_equal(got, want), f"{v} {label}"
            fns[v] = lambda v=v, x=x: prim.histogram_even(x, b, *rng_, variant=v)
        rows[label] = ctx.bench(fns, rounds=2, warmup=2, repeat=5)
    for v in histograms.VARIANTS:
        ctx.add(
            v,
            *[f"{rows[k][v]:.4f}" for k in data],
            f"{rows['uint8 sky image'][v] / rows['uint8 uniform'][v]:.2f}x",
        )

    # -- sweeps for the plot ----------------------------------------------------------------------
    sweeps = {"bins": {}, "contention": {}}
    x = xf
    for nb in SWEEP_BINS:
        fns = {
            "primitives": lambda nb=nb: prim.histogram(x, nb, (0.0, 1.0)),
            "cupy.histogram": lambda nb=nb: cupy.histogram(x, nb, (0.0, 1.0)),
        }
        if ctx.cc is not None:
            fns["CUB histogram_even"] = cub_histogram_even(x, nb, 0.0, 1.0, np.float32)
        t = ctx.bench(fns, rounds=2, warmup=2, repeat=5)
        sweeps["bins"][nb] = {k: x.nbytes / (ms * 1e-3) / 1e9 for k, ms in t.items()}
    base = u8
    for i, p in enumerate(SWEEP_EQUAL):
        mask = make("unit", base.size, "float32", seed=i + 1, xp=cupy) < p
        y = cupy.where(mask, cupy.uint8(77), base)
        fns = {
            "primitives": lambda y=y: prim.histogram(y, b, (0, b)),
            "privatized": lambda y=y: prim.histogram_even(y, b, 0, b, variant="privatized"),
            "coarsened_interleaved": lambda y=y: prim.histogram_even(
                y, b, 0, b, variant="coarsened_interleaved"
            ),
            "aggregated": lambda y=y: prim.histogram_even(y, b, 0, b, variant="aggregated"),
            "cupy.bincount": lambda y=y: cupy.bincount(y, minlength=b),
        }
        if ctx.cc is not None:
            fns["CUB histogram_even"] = cub_histogram_even(y, b, 0, b, np.int32)
        t = ctx.bench(fns, rounds=2, warmup=2, repeat=5)
        sweeps["contention"][p] = {k: y.nbytes / (ms * 1e-3) / 1e9 for k, ms in t.items()}
    path = os.path.join(out_dir, "histogram_sweeps.json")
    with open(path, "w") as f:
        json.dump(sweeps, f, indent=1)
    ctx.lines += [
        "",
        f"sweeps (GB/s) written to {os.path.basename(path)}",
        "```",
        json.dumps(sweeps),
        "```",
    ]


#: weighted histograms: the issue's targets (share of the copy rate for the bytes of samples and
#: weights, and speed-up over cupy.histogram with the same weights)
WEIGHTED_COPY, WEIGHTED_SPEEDUP = 0.60, 20.0


def weighted(ctx, xf, b):
    """float32 samples with float32 and float64 weights (uniform in [0, 1)), ``b`` bins: ours
    (float32 weights read as they are) against cupy.histogram with the same weights; checked
    against NumPy on a sixteenth of the samples and by the total of the weights."""
    import cupy

    import primitives as prim

    n = xf.size
    ctx.peer_table()
    rows = []
    for wdt in ("float32", "float64"):
        w = cupy.random.RandomState(5).random_sample(n, dtype=wdt)
        sub = slice(0, n // 16)
        want = np.histogram(cupy.asnumpy(xf[sub]), b, (0.0, 1.0), weights=cupy.asnumpy(w[sub]))[0]
        got = cupy.asnumpy(prim.histogram(xf[sub], b, (0.0, 1.0), weights=w[sub])[0])
        assert got.dtype == want.dtype and np.allclose(got, want, rtol=1e-4), f"weighted {wdt}"
        total = float(prim.histogram(xf, b, (0.0, 1.0), weights=w)[0].sum(dtype=np.float64))
        assert abs(total - float(w.sum(dtype=np.float64))) <= 1e-4 * total, f"total {wdt}"
        fns = {
            "histogram": lambda w=w: prim.histogram(xf, b, (0.0, 1.0), weights=w),
            "cupy.histogram": lambda w=w: cupy.histogram(xf, b, (0.0, 1.0), weights=w),
        }
        t = ctx.bench(fns)
        nbytes = xf.nbytes + w.nbytes
        ctx.peer_row(
            f"histogram float32 {b} bins, {wdt} weights",
            n,
            t["histogram"],
            nbytes,
            "cupy.histogram",
            t["cupy.histogram"],
        )
        rows.append((wdt, t["histogram"], t["cupy.histogram"], nbytes))
        del w
    ctx.table(["weights", "ours ms", "% of copy", "x cupy", "target", "met"])
    for wdt, ours, peer, nbytes in rows:
        share = nbytes / (ours * 1e-3) / 1e9 / ctx.copy
        met = share >= WEIGHTED_COPY and peer / ours >= WEIGHTED_SPEEDUP
        ctx.add(
            f"{wdt}, {b} bins, {pow2(xf.size)} float32",
            f"{ours:.4f}",
            f"{100 * share:.1f}%",
            f"{peer / ours:.1f}x",
            f">= {100 * WEIGHTED_COPY:.0f}% and >= {WEIGHTED_SPEEDUP:g}x cupy"
            if wdt == "float32"
            else "(no target)",
            ("yes" if met else "**no**") if wdt == "float32" else "",
        )


#: the wide histograms' targets: share of the copy rate for the bytes read (samples)
WIDE_TARGET = {"histogram 65536 bins": 0.40, "histogram2d 256 x 256": 0.60}


def wide(ctx, xf):
    """Histograms of many bins: float32 2^28 into 65,536 bins (16-bit shared counters) and
    histogram2d of the first 2^26 samples paired with 2^26 more, 256 x 256 bins, against
    cupy.histogram / cupy.histogram2d; checked bin for bin against CuPy (the same bins: none of
    the uniform samples lies on an edge where the two round apart, else the row fails)."""
    import cupy

    import primitives as prim

    n2 = xf.size // 4
    xs, ys = xf[:n2], xf[n2 : 2 * n2]
    r = [[0.0, 1.0], [0.0, 1.0]]
    cases = {
        "histogram 65536 bins": (
            lambda: prim.histogram(xf, 65536, (0.0, 1.0)),
            lambda: cupy.histogram(xf, 65536, (0.0, 1.0)),
            xf.nbytes,
            f"{pow2(xf.size)} float32",
        ),
        "histogram2d 256 x 256": (
            lambda: prim.histogram2d(xs, ys, 256, r),
            lambda: cupy.histogram2d(xs, ys, 256, r),
            xs.nbytes + ys.nbytes,
            f"{pow2(n2)} float32 pairs",
        ),
    }
    rows = []
    for name, (ours, peer, nbytes, what) in cases.items():
        got, want = ours()[0], peer()[0]
        assert bool((got == want).all()), f"{name}: differs from CuPy"
        t = ctx.bench({"ours": ours, "cupy": peer})
        rows.append((name, what, t["ours"], t["cupy"], nbytes))
    ctx.table(["case", "ours ms", "cupy ms", "x cupy", "% of copy (read)", "target", "met"])
    for name, what, ours, peer, nbytes in rows:
        share = nbytes / (ours * 1e-3) / 1e9 / ctx.copy
        ctx.add(
            f"{name}, {what}",
            f"{ours:.4f}",
            f"{peer:.4f}",
            f"{peer / ours:.1f}x",
            f"{100 * share:.1f}%",
            f">= {100 * WIDE_TARGET[name]:.0f}%",
            "yes" if share >= WIDE_TARGET[name] else "**no**",
        )


def plot(json_path, png_path):
    """Throughput against the bin count (float32) and against contention (uint8)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(json_path) as f:
        sw = json.load(f)
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    bins = sorted(sw["bins"], key=int)
    for name in sw["bins"][bins[0]]:
        a.plot([int(k) for k in bins], [sw["bins"][k][name] for k in bins], "o-", label=name)
    a.set_xscale("log", base=2)
    a.set_xlabel("bins (float32, 2^28 samples in [0, 1))")
    a.set_ylabel("GB/s of samples read")
    a.legend()
    a.grid(alpha=0.3)
    ps = sorted(sw["contention"], key=float)
    for name in sw["contention"][ps[0]]:
        b.plot([float(p) for p in ps], [sw["contention"][p][name] for p in ps], "o-", label=name)
    b.set_xlabel("fraction of samples equal to one value (uint8, 256 bins, 2^28)")
    b.set_ylabel("GB/s of samples read")
    b.set_yscale("log")
    b.legend(fontsize=8)
    b.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--plot":
        plot(sys.argv[2], sys.argv[3])
    else:
        print(
            "usage: python -m tools.figures.histograms --plot SWEEPS.json OUT.png "
            "(the measurements run through python -m tools.figures --family histograms)"
        )

"""Tour of the histograms family: every variant on uint8 samples (uniform, all equal, a sky
image) and float32 samples, against NumPy; on the GPU also against CuPy (the workloads of
:mod:`primitives.testing.workloads.histograms`)."""

from __future__ import annotations

import numpy as np

from primitives import tour
from primitives._core import backend as _backend
from primitives.histograms import VARIANTS, auto_variant, histogram2d, histogram_even
from primitives.testing.workloads import histograms as spec, make, pow2, sky


def sections(gpu, log2n=None):
    """Tour workloads: every variant on uint8 samples (256 bins) that are uniform, all equal, and a
    real sky image; float32 in [0, 1) with 256 and 4096 bins; and the peers on the GPU."""
    sections = []

    def section(title, w, dtype, bins, rng_, variants, peers, quick_rows=()):
        n = w.size(gpu, log2n)

        def contenders():
            xp = _backend.get_backend().xp
            host = make(w.data, n, dtype)
            x = xp.asarray(host)
            want = np.histogram(host, bins, rng_)[0]

            def check(got):
                return np.array_equal(tour.to_host(got), want)

            out = [
                tour.Contender(v, (lambda v=v: histogram_even(x, bins, *rng_, variant=v)), check)
                for v in variants
            ]
            if gpu:
                out += [tour.Contender(name, (lambda f=f: f(x)), check) for name, f in peers]
            return out

        sections.append(
            tour.Section(
                title=f"histogram: {title}, {bins} bins, n = {pow2(n)}",
                nbytes=n * np.dtype(dtype).itemsize,
                contenders=contenders,
                count=len(variants) + (len(peers) if gpu else 0),
                quick=bool(quick_rows),
                quick_rows=quick_rows,
            )
        )

    def u8_peers(nbins):
        import cupy

        return [
            ("cupy.bincount (peer)", lambda x: cupy.bincount(x, minlength=nbins)),
            ("cupy.histogram (peer)", lambda x: cupy.histogram(x, nbins, (0, nbins))[0]),
        ]

    b = spec.BINS
    u8 = u8_peers(b) if gpu else []
    # the quick tour: auto's kernel
    section(
        "uint8 uniform", spec.UINT8, "uint8", b, (0, b), VARIANTS, u8, (auto_variant(b, np.uint8),)
    )
    section("uint8 all equal (contended)", spec.EQUAL, "uint8", b, (0, b), VARIANTS, u8)
    if sky(1) is not None:
        title = "uint8 sky image (Hubble deep field, grey)"
        section(title, spec.SKY, "uint8", b, (0, b), VARIANTS, u8)
    w = spec.FLOAT32
    for nbins in w.params["bins"][:2]:
        peers = []
        if gpu:
            import cupy

            peers = [
                ("cupy.histogram (peer)", lambda x, nb=nbins: cupy.histogram(x, nb, (0.0, 1.0))[0])
            ]
        section("float32 uniform in [0, 1)", w, "float32", nbins, (0.0, 1.0), w.variants, peers)
    n2, b2 = spec.HISTOGRAM2D.size(gpu, log2n), spec.HISTOGRAM2D.params["bins"]
    edges = [[0, 1], [0, 1]]
    sections.append(
        tour.numpy_twin(
            f"histogram2d: float32 pairs, {b2} x {b2} bins, n = {pow2(n2)}",
            8 * n2,
            lambda: (
                make(spec.HISTOGRAM2D.data, n2, "float32"),
                make("unit", n2, "float32", seed=1),
            ),
            lambda x, y: histogram2d(x, y, b2, edges)[0],
            lambda cp, x, y: cp.histogram2d(x, y, b2, edges)[0],
            lambda x, y: np.histogram2d(x, y, b2, edges)[0],
            gpu,
            rtol=0,
        )
    )
    return sections

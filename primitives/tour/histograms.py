"""Tour of the histogram family: every variant on uint8 samples (uniform, all equal, a sky image)
and float32 samples, against NumPy; on the GPU also against CuPy."""

from __future__ import annotations

import numpy as np

from primitives import tour
from primitives._core import backend as _backend
from primitives.histograms import VARIANTS, auto_variant, histogram2d, histogram_even


def sky(n, rng):
    """A real sky image (scikit-image's Hubble deep field, grey levels) tiled to ``n`` uint8
    samples; None when scikit-image is not installed."""
    try:
        from skimage import data
    except ImportError:
        return None
    img = data.hubble_deep_field()
    grey = (img.astype(np.uint16).sum(axis=2) // 3).astype(np.uint8).reshape(-1)
    reps = -(-n // grey.size)
    return np.tile(grey, reps)[:n]


def sections(gpu, log2n=None):
    """Tour workloads: every variant on uint8 samples (256 bins) that are uniform, all equal, and a
    real sky image; float32 in [0, 1) with 256 and 4096 bins; and the peers on the GPU."""
    n8 = 1 << (log2n or (28 if gpu else 14))
    nc = 1 << (log2n or (26 if gpu else 13))  # contended data: global atomics serialize
    sections = []

    def section(title, nbytes, make, bins, rng_, variants, peers, quick_rows=()):
        def contenders():
            xp = _backend.get_backend().xp
            host = make()
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
                title=title,
                nbytes=nbytes,
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

    rng = np.random.default_rng(5)
    u8 = lambda n: lambda: rng.integers(0, 256, n, dtype=np.uint8)  # noqa: E731
    section(
        f"histogram: uint8 uniform, 256 bins, n = 2^{n8.bit_length() - 1}",
        n8,
        u8(n8),
        256,
        (0, 256),
        VARIANTS,
        u8_peers(256) if gpu else [],
        quick_rows=(auto_variant(256, np.uint8),),
    )  # the quick tour: auto's kernel
    section(
        f"histogram: uint8 all equal (contended), 256 bins, n = 2^{nc.bit_length() - 1}",
        nc,
        lambda: np.full(nc, 77, np.uint8),
        256,
        (0, 256),
        VARIANTS,
        u8_peers(256) if gpu else [],
    )
    if sky(1, rng) is not None:
        section(
            f"histogram: uint8 sky image (Hubble deep field, grey), 256 bins, "
            f"n = 2^{nc.bit_length() - 1}",
            nc,
            lambda: sky(nc, rng),
            256,
            (0, 256),
            VARIANTS,
            u8_peers(256) if gpu else [],
        )
    for nbins in (256, 4096):

        def f32(n=n8):
            return rng.random(n, dtype=np.float32)

        peers = []
        if gpu:
            import cupy

            peers = [
                ("cupy.histogram (peer)", lambda x, nb=nbins: cupy.histogram(x, nb, (0.0, 1.0))[0])
            ]
        section(
            f"histogram: float32 uniform in [0, 1), {nbins} bins, n = 2^{n8.bit_length() - 1}",
            4 * n8,
            f32,
            nbins,
            (0.0, 1.0),
            (
                "global_atomic_interleaved",
                "coarsened_interleaved",
                "aggregated",
                "warp_replicated",
                "partial_privatized",
                "global_vectorized",
            ),
            peers,
        )
    n2 = 1 << (log2n or (26 if gpu else 12))
    sections.append(
        tour.numpy_twin(
            f"histogram2d: float32 pairs, 256 x 256 bins, n = 2^{n2.bit_length() - 1}",
            8 * n2,
            lambda: (rng.random(n2, dtype=np.float32), rng.random(n2, dtype=np.float32)),
            lambda x, y: histogram2d(x, y, 256, [[0, 1], [0, 1]])[0],
            lambda cp, x, y: cp.histogram2d(x, y, 256, [[0, 1], [0, 1]])[0],
            lambda x, y: np.histogram2d(x, y, 256, [[0, 1], [0, 1]])[0],
            gpu,
            rtol=0,
        )
    )
    return sections

"""The two compile levels of a kernel compiled on first use, side by side on the GPU: what the
first call runs (NVRTC's fast level: ``PRIMITIVES_COMPILE_TIERS``) against the
default image that replaces it (:func:`primitives._core.lazy.settle`).

    python -m tools.probes.compile_tiers [--only NAME ...] [--n N]

For each workload, in this process, from an empty kernel cache (a temporary
``PRIMITIVES_CACHE_DIR``, no shipped binaries): the first call's wall time (fast compiles
included), the median of CUDA-event timings of the fast images, the wait for the default images
(:func:`settle`; their compiles are held back until then, so the fast images are timed alone and
the wait is the default compiles' whole time), the median of the default images, and whether
both give the same bits.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time

#: name -> (input maker, the call): ``n`` elements, ``rng`` a NumPy generator
WORKLOADS = {
    "sort uint32": (lambda xp, rng, n: xp.asarray(rng.integers(0, 2**32, n, dtype="u4")), "sort"),
    "sort float32": (lambda xp, rng, n: xp.asarray(rng.random(n, dtype="f4")), "sort"),
    "argsort uint32": (
        lambda xp, rng, n: xp.asarray(rng.integers(0, 2**32, n, dtype="u4")),
        "argsort",
    ),
    "topk float32": (lambda xp, rng, n: xp.asarray(rng.random(n, dtype="f4")), "topk"),
    "sum float32": (lambda xp, rng, n: xp.asarray(rng.random(n, dtype="f4")), "sum"),
    "sum float64": (lambda xp, rng, n: xp.asarray(rng.random(n)), "sum"),
    "cumsum float32": (lambda xp, rng, n: xp.asarray(rng.random(n, dtype="f4")), "cumsum"),
    "histogram float32": (lambda xp, rng, n: xp.asarray(rng.random(n, dtype="f4")), "histogram"),
    "quantile float32": (lambda xp, rng, n: xp.asarray(rng.random(n, dtype="f4")), "quantile"),
    "unique int32": (
        lambda xp, rng, n: xp.asarray(rng.integers(0, 1 << 20, n, dtype="i4")),
        "unique",
    ),
    "var float64": (lambda xp, rng, n: xp.asarray(rng.random(n)), "var"),
    "spmv float32": (None, "spmv"),
}


def _call(prim, name, x):
    if name == "topk":
        return prim.topk(x, 1000)
    if name == "histogram":
        return prim.histogram(x, 256, (0, 1))[0]
    if name == "quantile":
        return prim.quantile(x, [0.01, 0.5, 0.99])
    if name == "spmv":
        return prim.spmv(*x)
    return getattr(prim, name)(x)


def _spmv_input(xp, rng, n):
    import cupyx.scipy.sparse as sp
    import scipy.sparse

    rows = max(1, n // 32)
    a = scipy.sparse.random(rows, rows, density=32 / rows, format="csr", dtype="f4", rng=rng)
    return sp.csr_matrix(a), xp.asarray(rng.random(rows, dtype="f4"))


def _median_ms(fn):
    """The median of 20 CUDA-event timings of the images running now (no settle)."""
    from primitives._core import timing

    return timing.bench(fn, warmup=1, repeat=20, settle=False)


def _bits(r):
    import cupy

    rs = r if isinstance(r, tuple) else (r,)
    return [cupy.asnumpy(v).tobytes() for v in rs]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", help="workload names")
    ap.add_argument("--n", type=int, default=1 << 26)
    ap.add_argument("--level", default="on", help="PRIMITIVES_COMPILE_TIERS: on, min, mid, max")
    args = ap.parse_args(argv)
    os.environ["PRIMITIVES_CACHE_DIR"] = tempfile.mkdtemp(prefix="tiers-")
    os.environ["PRIMITIVES_KERNEL_BINARIES"] = "off"
    os.environ["PRIMITIVES_COMPILE_TIERS"] = args.level
    import cupy
    import numpy as np

    import primitives as prim
    from primitives._core import lazy, nvrtc

    finish = lazy._finish
    gate = threading.Event()

    def held(*key):  # the default compile waits for the fast images' timing
        gate.wait()
        finish(*key)

    lazy._finish = held
    print(f"NVRTC {nvrtc.version()}, fast level {lazy._tier_level()}, n = {args.n}")
    print(
        "| workload | first call s | fast ms | settle s | default ms | fast / default | same bits |"
    )
    print("|---|---|---|---|---|---|---|")
    for wname, (make, fname) in WORKLOADS.items():
        if args.only and wname not in args.only:
            continue
        rng = np.random.default_rng(7)
        x = _spmv_input(cupy, rng, args.n) if make is None else make(cupy, rng, args.n)
        cupy.cuda.runtime.deviceSynchronize()
        t0 = time.perf_counter()
        first = _call(prim, fname, x)
        cupy.cuda.runtime.deviceSynchronize()
        t_first = time.perf_counter() - t0
        fast_bits = _bits(first)
        fast_ms = _median_ms(lambda: _call(prim, fname, x))
        t0 = time.perf_counter()
        gate.set()
        waited = lazy.settle()
        gate.clear()
        t_settle = time.perf_counter() - t0
        final = _call(prim, fname, x)
        same = _bits(final) == fast_bits
        default_ms = _median_ms(lambda: _call(prim, fname, x))
        print(
            f"| {wname} | {t_first:.3f} | {fast_ms:.4f} | {t_settle:.3f}{'' if waited else ' (none)'}"
            f" | {default_ms:.4f} | {fast_ms / default_ms:.2f}x | {'yes' if same else '**no**'} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

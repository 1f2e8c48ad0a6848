"""Tour of the scan family: the three variants on int32 and float32 inclusive sums, against
``cupy.cumsum`` on a GPU."""

from __future__ import annotations

import numpy as np

import primitives as prim
from primitives import tour
from primitives._core import backend as _backend
from primitives.scan import VARIANTS, error_depth


def sections(gpu, log2n=None):
    """Tour workloads: the three variants on an int32 -> int32 and a float32 inclusive sum, with
    ``cupy.cumsum`` as the peer on a GPU."""
    n = 1 << (log2n or (28 if gpu else 14))
    sections = []
    for dt in (np.dtype(np.int32), np.dtype(np.float32)):

        def contenders(dt=dt):
            xp = _backend.get_backend().xp
            host = tour.random_data(np.random.default_rng(n + 1), n, dt)
            x = xp.asarray(host)
            want = np.cumsum(host, dtype=np.float64 if dt.kind == "f" else dt)

            def check(variant):
                def ok(got):
                    got = tour.to_host(got)
                    if dt.kind != "f":
                        return bool(np.array_equal(got, want))
                    depth = error_depth(variant, n, dt, dt) if variant else np.full(n, float(n))
                    bound = depth * np.finfo(dt).eps * np.cumsum(np.abs(host), dtype=np.float64)
                    return bool(np.all(np.abs(got - want) <= bound))

                return ok

            out = [
                tour.Contender(
                    v, (lambda v=v: prim.inclusive_scan(x, dtype=dt, variant=v)), check(v)
                )
                for v in VARIANTS
            ]
            if gpu:
                out.append(
                    tour.Contender(
                        "cupy.cumsum (peer)", lambda: xp.cumsum(x, dtype=dt), check(None)
                    )
                )
            return out

        sections.append(
            tour.Section(
                title=f"scan: inclusive sum {dt.name} -> {dt.name}, n = 2^{n.bit_length() - 1}",
                nbytes=2 * n * dt.itemsize,
                contenders=contenders,
                count=len(VARIANTS) + (1 if gpu else 0),
                quick=dt == np.int32,
                quick_rows=("decoupled_lookback",),
            )
        )
    return sections + api_sections(gpu, log2n)


def api_sections(gpu, log2n=None):
    """NumPy's scans along each axis of an int32 matrix (int64 results, as NumPy) and cumprod,
    against CuPy's."""
    n = 1 << (log2n or (28 if gpu else 14))
    cols = 1 << 16 if gpu else 1 << 7
    rng = np.random.default_rng(12)
    out = []
    for axis in (0, 1):
        out.append(
            tour.numpy_twin(
                f"scan: cumsum(axis={axis}) of an int32 ({n // cols}, {cols})",
                12 * n,
                lambda: (rng.integers(0, 100, (n // cols, cols), dtype=np.int32),),
                lambda x, a=axis: prim.cumsum(x, axis=a),
                lambda cp, x, a=axis: cp.cumsum(x, axis=a),
                lambda x, a=axis: np.cumsum(x, axis=a),
                gpu,
                rtol=0,
            )
        )
    m = n // 4
    out.append(
        tour.numpy_twin(
            f"scan: cumprod float64 near 1, n = 2^{m.bit_length() - 1}",
            16 * m,
            lambda: (1 + (rng.random(m) - 0.5) * 1e-9,),
            prim.cumprod,
            lambda cp, x: cp.cumprod(x),
            np.cumprod,
            gpu,
            rtol=1e-9,
        )
    )
    return out

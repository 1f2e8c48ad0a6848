"""Tour of the scan family: the three variants on int32 and float32 inclusive sums, against
``cupy.cumsum`` on a GPU (the workloads of :mod:`primitives.testing.workloads.scan`)."""

from __future__ import annotations

import numpy as np

import primitives as prim
from primitives import tour
from primitives._core import backend as _backend
from primitives.scan import VARIANTS, error_depth
from primitives.testing.workloads import make, pow2, scan as spec


def sections(gpu, log2n=None):
    """Tour workloads: the three variants on an int32 -> int32 and a float32 inclusive sum, with
    ``cupy.cumsum`` as the peer on a GPU."""
    n = spec.INCLUSIVE.size(gpu, log2n)
    sections = []
    for dt in map(np.dtype, spec.INCLUSIVE.dtypes):

        def contenders(dt=dt):
            xp = _backend.get_backend().xp
            host = make(spec.INCLUSIVE.data, n, dt)
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
                title=f"scan: inclusive sum {dt.name} -> {dt.name}, n = {pow2(n)}",
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
    n = spec.API.size(gpu, log2n)
    cols = spec.API.params["cols" if gpu else "small_cols"]
    out = []
    for axis in (0, 1):
        out.append(
            tour.numpy_twin(
                f"scan: cumsum(axis={axis}) of an int32 ({n // cols}, {cols})",
                12 * n,
                lambda: (make(spec.API.data, (n // cols, cols), "int32"),),
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
            f"scan: cumprod float64 near 1, n = {pow2(m)}",
            16 * m,
            lambda: (make("near1", m, "float64"),),
            prim.cumprod,
            lambda cp, x: cp.cumprod(x),
            np.cumprod,
            gpu,
            rtol=1e-9,
        )
    )
    out.append(
        tour.numpy_twin(
            f"scan: a linear recurrence x[i] = a[i] x[i-1] + b[i] as a 2-tuple scan (prim.Op) "
            f"float64, n = {pow2(m)}; peer: its closed form by cumprod and cumsum",
            24 * m,
            lambda: (make("near1", m, "float64"), make("unit", m, "float64", seed=1)),
            lambda a, b: prim.inclusive_scan((a, b), _AFFINE, fields=1),
            lambda cp, a, b: _closed_form(cp, a, b),
            lambda a, b: _closed_form(np, a, b),
            gpu,
            rtol=1e-6,
        )
    )
    return out


#: the composition of the affine maps x -> a x + b in index order: the recurrence's operator
_AFFINE = prim.Op(("a.f0 * b.f0", "b.f0 * a.f1 + b.f1"), identity=(1.0, 0.0))


def _closed_form(xp, a, b):
    """x[i] = P[i] * sum over j <= i of b[j] / P[j], with P the running products of a (a near 1:
    no overflow): what array code without a scan of pairs writes, four passes and a division."""
    p = xp.cumprod(a)
    return p * xp.cumsum(b / p)

"""Tour of the reduction family: the whole ladder on float32 sums, and the production kernel
against CuPy at the sizes of the performance figures (the workloads of
:mod:`primitives.testing.workloads.reduction`)."""

from __future__ import annotations

import functools

import numpy as np

import primitives as prim
from primitives import tour
from primitives._core import backend as _backend, dtypes as _dtypes
from primitives.reduction import VARIANTS, error_depth
from primitives.testing import oracle as _oracle
from primitives.testing.workloads import make, pow2, reduction as spec


def sections(gpu, log2n=None):
    """Tour workloads: the whole ladder on float32 sums, and the production kernel against CuPy
    on its cases (the float32 sum on a GPU only: the ladder has it on the emulator)."""
    work = [(spec.LADDER, "sum", "float32", VARIANTS)]
    for op, dtype in sorted(spec.PRODUCTION.params["cases"], key=lambda c: c[0] != "sum"):
        if gpu or (op, dtype) != ("sum", "float32"):
            work.append((spec.PRODUCTION, op, dtype, spec.PRODUCTION.variants))
    sections = []
    for w, op, dtype, variants in work:
        dt, n = np.dtype(dtype), w.size(gpu, log2n)

        def contenders(w=w, op=op, dt=dt, n=n, variants=variants):
            xp = _backend.get_backend().xp
            host = make(w.data, n, dt)
            x = xp.asarray(host)
            acc = _dtypes.sum_dtype(dt) if op == "sum" else dt

            def check(variant):
                depth = n if variant is None else error_depth(variant, n, dt)
                return lambda got: _oracle.reduce_matches(tour.to_host(got), host, op, acc, depth)[
                    0
                ]

            out = [
                tour.Contender(v, (lambda v=v: prim.reduce(x, op, variant=v)), check(v))
                for v in variants
            ]
            if gpu:
                peer = getattr(xp, op)
                out.append(tour.Contender(f"cupy.{op} (peer)", lambda: peer(x), check(None)))
            return out

        sections.append(
            tour.Section(
                title=f"reduction: {op} {dt.name}, n = {pow2(n)}",
                nbytes=n * dt.itemsize,
                contenders=contenders,
                count=len(variants) + (1 if gpu else 0),
                # the quick tour times the production kernel against cupy.sum on a GPU, the ladder on
                # the emulator (no peer there)
                quick=(
                    op == "sum"
                    and dt == np.float32
                    and (variants == ("production",) if gpu else len(variants) > 1)
                ),
            )
        )
    return sections + api_sections(gpu, log2n)


def api_sections(gpu, log2n=None):
    """NumPy's everyday reductions against CuPy's: a bool sum, sums over each axis of a
    matrix and over short rows, argmax, prod and mean."""
    n = spec.API.size(gpu, log2n)
    cols = spec.API.params["cols" if gpu else "small_cols"]
    f32 = lambda shape: make("positive", shape, "float32")  # noqa: E731
    mib = pow2(n)
    out = [
        tour.numpy_twin(
            f"reduction: sum of bool, n = {mib}",
            n,
            lambda: (make("half", n, "bool"),),
            prim.sum,
            lambda cp, x: cp.sum(x),
            np.sum,
            gpu,
        ),
        tour.numpy_twin(
            f"reduction: argmax float32, n = {mib}",
            4 * n,
            lambda: (f32(n),),
            prim.argmax,
            lambda cp, x: cp.argmax(x),
            np.argmax,
            gpu,
        ),
        tour.numpy_twin(
            f"reduction: mean float32 (float32 accumulation), n = {mib}",
            4 * n,
            lambda: (f32(n),),
            prim.mean,
            lambda cp, x: cp.mean(x),
            np.mean,
            gpu,
            rtol=1e-4,
        ),
        tour.numpy_twin(
            f"reduction: prod float64 near 1, n = {mib}",
            8 * n,
            lambda: (make("near1", n, "float64"),),
            prim.prod,
            lambda cp, x: cp.prod(x),
            np.prod,
            gpu,
            rtol=1e-9,
        ),
    ]
    for axis in (0, 1):
        out.append(
            tour.numpy_twin(
                f"reduction: sum(axis={axis}) of a C-ordered float32 ({n // cols}, {cols})",
                4 * n,
                lambda: (f32((n // cols, cols)),),
                lambda x, a=axis: prim.sum(x, axis=a),
                lambda cp, x, a=axis: cp.sum(x, axis=a),
                lambda x, a=axis: np.sum(x, axis=a),
                gpu,
                rtol=1e-4,
            )
        )
    out.append(
        tour.numpy_twin(
            f"reduction: sum(axis=1) of rows of 2 float32 ({n // 4}, 2)",
            2 * n,
            lambda: (f32((n // 4, 2)),),
            lambda x: prim.sum(x, axis=1),
            lambda cp, x: cp.sum(x, axis=1),
            lambda x: np.sum(x, axis=1),
            gpu,
        )
    )
    user = prim.Op("a > b ? a : b", identity=-np.inf)  # a user's operator; peer: ReductionKernel
    out.append(
        tour.numpy_twin(
            f"reduction: a user operator (prim.Op, a maximum) float32, n = {mib}",
            4 * n,
            lambda: (f32(n),),
            lambda x: prim.reduce(x, user),
            lambda cp, x: _user_max(cp)(x),
            np.max,
            gpu,
        )
    )
    out.append(
        tour.numpy_twin(
            f"reduction: a sum of squares by map= (no temporary) float32, n = {mib}",
            4 * n,
            lambda: (f32(n),),
            lambda x: prim.sum(x, map="v * v"),
            lambda cp, x: cp.sum(x * x),
            lambda x: np.sum(x * x),
            gpu,
            rtol=1e-4,
        )
    )
    return out


@functools.lru_cache(maxsize=None)
def _user_max(cp):
    """The peer of a user's maximum: a ``cupy.ReductionKernel`` with the same expression."""
    return cp.ReductionKernel("T x", "T y", "x", "a > b ? a : b", "y = a", "-INFINITY", "umax")

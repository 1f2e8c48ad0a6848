"""Tour of the reduction family: the whole ladder on float32 sums, and the production kernel
against CuPy at the sizes of the performance figures."""

from __future__ import annotations

import numpy as np

import primitives as prim
from primitives import tour
from primitives._core import backend as _backend, dtypes as _dtypes
from primitives.reduction import VARIANTS, error_depth
from primitives.testing import oracle as _oracle


def sections(gpu, log2n=None):
    """Tour workloads: the whole ladder on float32 sums, and the production kernel against CuPy
    on float32 sum/max and int32 sum at the sizes of the performance figures."""
    ladder_n = 1 << (log2n or (26 if gpu else 14))
    peer_n = 1 << (log2n or (28 if gpu else 14))
    specs = [("sum", np.float32, ladder_n, VARIANTS)]
    if gpu:
        specs.append(("sum", np.float32, peer_n, ("production",)))
    specs += [
        ("sum", np.int32, peer_n, ("production",)),
        ("max", np.float32, peer_n, ("production",)),
    ]
    sections = []
    for op, dtype, n, variants in specs:
        dt = np.dtype(dtype)

        def contenders(op=op, dt=dt, n=n, variants=variants):
            xp = _backend.get_backend().xp
            host = tour.random_data(np.random.default_rng(n), n, dt)
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
                title=f"reduction: {op} {dt.name}, n = 2^{n.bit_length() - 1}",
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
    n = 1 << (log2n or (28 if gpu else 14))
    cols = 1 << 12 if gpu else 1 << 6
    rng = np.random.default_rng(11)
    f32 = lambda shape: rng.random(shape, dtype=np.float32) + np.float32(0.5)  # noqa: E731
    mib = f"2^{n.bit_length() - 1}"
    out = [
        tour.numpy_twin(
            f"reduction: sum of bool, n = {mib}",
            n,
            lambda: (rng.random(n) < 0.5,),
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
            lambda: (1 + (rng.random(n) - 0.5) * 1e-9,),
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
    return out

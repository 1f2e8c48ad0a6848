"""map= along axes in the reductions (the axis kernels read each element through the map): NumPy
on the mapped array as the oracle (the map computed in the element's dtype), over every map
dtype, C- and F-ordered arrays and strided views, 2-D and 3-D shapes with axes of 1, 33 and
257 elements, int, negative and tuple axes, keepdims, named and user operators, ``out=`` and
``initial=``; and the errors (``where=``, a cast by ``dtype=`` or ``out=``, the map's own)."""

import numpy as np
import pytest

import primitives as prim
from primitives.testing import harness as H
from primitives.testing import oracle as _oracle

from tests.conftest import race_sample
from tests.user_ops import DTYPES, lowest

SHAPES = [(33, 257), (257, 1, 33), (1, 33), (3, 33, 257)]
LAYOUTS = ["C", "F", "strided"]
AXES = {2: [0, 1, -1, None, (0, 1)], 3: [0, 1, 2, -1, (0, 2), None, ()]}
#: one case in three of dtypes x shapes x layouts: each pair of them
CASES = race_sample(DTYPES, SHAPES, LAYOUTS, every=3)


def _id(value):
    return np.dtype(value).name if isinstance(value, type) else str(value)


def data(rng, shape, dtype, layout="C"):
    """Values of ``dtype`` (floats in [-1, 1), integers in [-1000, 1000), unsigned ones from 0)
    of ``shape`` laid out as ``layout``: C, F, or a view of every other element of a last axis
    twice as long (a strided view, neither C nor F)."""
    dt = np.dtype(dtype)
    full = shape[:-1] + (2 * shape[-1],) if layout == "strided" else shape
    if dt.kind == "f":
        x = rng.uniform(-1.0, 1.0, full).astype(dt)
    else:
        x = rng.integers(0 if dt.kind == "u" else -1000, 1000, full).astype(dt)
    if layout == "strided":
        return x[..., ::2]
    return np.asfortranarray(x) if layout == "F" else x


def check_sum(got, mapped, axis, keepdims):
    """``got`` against ``numpy.sum(mapped, axis, keepdims)``: the shape and dtype, integers
    exactly, floats per result within the error bound of a summation tree over the reduced
    elements (depth at most their count; :func:`primitives.testing.oracle.reduce_matches`)."""
    want = np.sum(mapped, axis=axis, keepdims=keepdims)
    got = H.to_host(got)
    assert np.shape(got) == np.shape(want) and np.asarray(got).dtype == want.dtype
    if mapped.dtype.kind != "f":
        np.testing.assert_array_equal(got, want)
        return
    axes = tuple(range(mapped.ndim)) if axis is None else np.atleast_1d(axis).tolist()
    axes = sorted(a % mapped.ndim for a in axes)
    rows = np.moveaxis(mapped, axes, list(range(mapped.ndim - len(axes), mapped.ndim)))
    width = int(np.prod([mapped.shape[a] for a in axes], dtype=np.int64))
    rows = rows.reshape(-1, width)
    flat = np.asarray(got).reshape(-1) if np.size(got) else np.zeros(0)
    assert flat.size == rows.shape[0]
    for r, g in zip(rows, flat):
        ok, ref, bound = _oracle.reduce_matches(g, r, "sum", mapped.dtype, max(width, 1))
        assert ok, (axis, g, ref, bound)


@pytest.mark.parametrize("dtype,shape,layout", CASES, ids=_id)
def test_sum_of_squares_along_axes(dtype, shape, layout, rng):
    x = data(rng, shape, dtype, layout)
    sq = x * x  # in the element's dtype, as the map computes
    for i, axis in enumerate(AXES[x.ndim]):
        keepdims = i % 2 == 1
        check_sum(prim.sum(x, axis=axis, keepdims=keepdims, map="v * v"), sq, axis, keepdims)


@pytest.mark.parametrize("dtype", DTYPES, ids=_id)
def test_prod_min_max_and_user_ops_along_axes(dtype, rng):
    dt = np.dtype(dtype)
    shape, layout = [((5, 33, 7), "C"), ((33, 6), "F"), ((4, 257), "strided")][
        DTYPES.index(dtype) % 3
    ]
    x = data(rng, shape, dtype, layout)
    floats = dt.kind == "f"
    axes = [0, -1, (0, x.ndim - 1)]
    expr, mapped = ("fabs(v)", np.abs(x)) if floats else ("v - 7", x - dt.type(7))
    for i, axis in enumerate(axes):
        kd = i == 1
        for f, npf in ((prim.min, np.min), (prim.max, np.max)):
            got = f(x, axis=axis, keepdims=kd, map=expr)
            want = npf(mapped, axis=axis, keepdims=kd)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
        # products near 1 (floats), or of odd integers (wrapping as NumPy's)
        p_expr, p_mapped = ("1 + v / 64", 1 + x / dt.type(64)) if floats else ("v | 1", x | 1)
        got = prim.reduce(x, "prod", axis=axis, keepdims=kd, map=p_expr)
        want = np.prod(p_mapped, axis=axis, keepdims=kd)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-4 if dt == np.float32 else 1e-12)
        user_max = prim.Op("a > b ? a : b", lowest(dt))
        got = prim.reduce(x, user_max, axis=axis, keepdims=kd, map="v * v")
        np.testing.assert_array_equal(got, np.max(x * x, axis=axis, keepdims=kd))
    if not floats:
        got = prim.reduce(x, prim.Op("a ^ b", 0), axis=0, map="v & 0xff")
        np.testing.assert_array_equal(got, np.bitwise_xor.reduce(x & dt.type(0xFF), axis=0))


def test_out_and_initial(rng):
    x = data(rng, (33, 257), np.int32, "F")
    sq = x * x
    for odt in (np.int32, np.int64, np.int16):  # integer sums into integer out: wrap as NumPy's
        out = np.empty(257, odt)
        assert prim.sum(x, axis=0, out=out, map="v * v") is out
        np.testing.assert_array_equal(out, np.sum(sq, axis=0, out=np.empty(257, odt)))
    out = np.empty((33, 1), np.float64)  # min into a dtype it casts to safely
    prim.min(x, axis=1, keepdims=True, out=out, map="v * v")
    np.testing.assert_array_equal(out, np.min(sq, axis=1, keepdims=True).astype(np.float64))
    out = np.empty((), np.int64)  # every axis
    prim.sum(x, axis=(0, 1), out=out, map="v * v")
    assert out == np.sum(sq)
    f = data(rng, (33, 257), np.float32)
    out = np.empty(33, np.float32)
    prim.sum(f, axis=1, out=out, map="v * v")
    check_sum(out, f * f, 1, False)
    for axis in (0, None):
        got = prim.sum(x, axis=axis, initial=5, map="v * v")
        np.testing.assert_array_equal(got, np.sum(sq, axis=axis, initial=5))
        got = prim.max(x, axis=axis, initial=10**7, map="v * v")
        np.testing.assert_array_equal(got, np.max(sq, axis=axis, initial=10**7))
    user_max = prim.Op("a > b ? a : b", lowest(np.int32))
    got = prim.reduce(x, user_max, axis=1, initial=500, map="-v")
    np.testing.assert_array_equal(got, np.maximum(np.max(-x, axis=1), 500))


def test_race(rng, race):
    x = data(rng, (33, 257), np.float32, "F")
    check_sum(prim.sum(x, axis=1, map="v * v"), x * x, 1, False)


def test_errors_along_axes(rng):
    x = data(rng, (10, 33), np.float32)
    with pytest.raises(TypeError, match="sum: map must be a str"):
        prim.sum(x, axis=0, map=3)
    with pytest.raises(ValueError, match="max: map: expr must be one C\\+\\+ expression"):
        prim.max(x, axis=1, map="v; v")
    with pytest.raises(ValueError, match="reduce: map: expr is empty"):
        prim.reduce(x, axis=-1, map=" ")
    with pytest.raises(TypeError, match="sum: map='v \\* v' reads int32, .* got x of dtype int8"):
        prim.sum(x.astype(np.int8), axis=0, map="v * v")
    with pytest.raises(TypeError, match="min: map='v' reads .* float16"):
        prim.min(x.astype(np.float16), axis=(0, 1), keepdims=True, map="v")
    with pytest.raises(TypeError, match="sum: map='v \\* v' .* cast to float64"):
        prim.sum(x, axis=1, dtype=np.float64, map="v * v")
    with pytest.raises(prim.KernelCompileError, match="compiling map='v \\* w' for float32"):
        prim.sum(x, axis=0, map="v * w")
    with pytest.raises(TypeError, match="sum: map='v \\* v' takes no where="):
        prim.sum(x, axis=0, where=x > 0, map="v * v")
    with pytest.raises(TypeError, match="max: map='v' takes no where="):
        prim.max(x, initial=0.0, where=x > 0, map="v")
    # out= whose dtype has NumPy cast the elements first: named in the error
    with pytest.raises(TypeError, match="sum: map='v' reads x's float32 .* out of dtype float64"):
        prim.sum(x, axis=0, out=np.empty(33, np.float64), map="v")
    with pytest.raises(TypeError, match="prod: map='v' reads x's int32 .* out of dtype float32"):
        prim.prod(x.astype(np.int32), out=np.empty((), np.float32), axis=None, map="v")
    with pytest.raises(TypeError, match="max: map='v' reads x's float32 .* out of dtype int32"):
        prim.max(x, axis=1, out=np.empty(10, np.int32), map="v")


def test_nvrtc_compiles_the_axis_kernels_with_a_map():
    """The axis kernels reading through a map's element type, through NVRTC (the GPU's compiler;
    CI has no GPU): every kind, for a sum of squares of int32 into int64 and of float32."""
    from primitives._core import loader, nvrtc, ops
    from primitives.reduction import _kernels, _policy

    try:
        nvrtc.load()
    except nvrtc.NVRTCNotFound:
        pytest.skip("no NVRTC library")
    m, pol = ops.Map("v * v"), _policy.axis()
    for dt, acc in ((np.int32, np.int64), (np.float32, np.float32)):
        dt, acc = np.dtype(dt), np.dtype(acc)
        names = [
            _kernels.axis_kernel_name(kind, dt, acc, acc, "sum", pol, None, m)
            for kind in ("axis_rows", "axis_slab", "axis_cols")
        ]
        names += [_kernels.packed_name(dt, acc, acc, "sum", 2, pol, m)]
        rel = ops.source(_kernels.AXIS_SOURCE, "sum", acc, m, dt)
        got = nvrtc.compile_check(loader.source(rel), names, options=loader.nvrtc_options())
        assert set(got) == set(names)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32], ids=_id)
def test_negating_maps_under_min_max_at_the_default_level(dtype, monkeypatch, rng):
    """ptxas for sm_90 (12.9, 13.0) fuses ``max(max(acc, -a), -b)`` into one three-input
    VIMNMX3 and drops one of the negations, at its default level only (a first call's image is
    at -Ofc=mid; the default one replaces it later): the column kernel read through ``-v`` gave
    wrong maxima. Here every image is the default one (no compile tiers), with maps no other
    test compiles, over the whole array, along each axis of C- and F-ordered arrays, and in the
    scans along an axis (prim::unfused keeps the negations)."""
    monkeypatch.setenv("PRIMITIVES_COMPILE_TIERS", "off")
    dt = np.dtype(dtype)
    base = rng.integers(-1000, 1000, (33, 257)).astype(dt)
    for expr in ("-(v)", "0 - (v)"):
        for x in (base, np.asfortranarray(base)):
            neg = (0 - x).astype(dt)  # in the element's dtype (unsigned: modulo 2**32)
            for f, npf in ((prim.max, np.max), (prim.min, np.min)):
                for axis in (None, 0, 1):
                    got = f(x, axis=axis, map=expr)
                    np.testing.assert_array_equal(got, npf(neg, axis=axis), err_msg=f"{axis}")
            for axis in (0, 1):
                got = prim.inclusive_scan(x, "max", axis=axis, map=expr)
                np.testing.assert_array_equal(got, np.maximum.accumulate(neg, axis=axis))

"""map= in the scans along an axis (the axis kernels read each element through the map): NumPy's
accumulate of the mapped array (the map computed in the element's dtype) as the oracle, over
every map dtype, C- and F-ordered arrays and strided views, the row kernels (one pass, and
split rows with their chunk totals) and the column kernels (one thread per column, and the
single-pass look-back over tiles), inclusive and exclusive, named and user operators; and the
errors of a map along an axis."""

import numpy as np
import pytest

import primitives as prim
from primitives.testing import harness as H
from primitives.testing import oracle as _oracle

from tests.conftest import race_sample
from tests.scan.test_scan_axis import reference
from tests.user_ops import DTYPES

#: (33, 257): rows in one pass (axis 1), columns by look-back (axis 0); (5, 257): columns in one
#: pass; (2, 4099): split rows; (3, 33, 257): each axis of a 3-D array
SHAPES = [(33, 257), (5, 257), (2, 4099), (3, 33, 257)]
LAYOUTS = ["C", "F", "strided"]
CASES = race_sample(DTYPES, SHAPES, LAYOUTS, every=3)


def _id(value):
    return np.dtype(value).name if isinstance(value, type) else str(value)


def data(rng, shape, dtype, layout):
    """Small integer values of ``dtype`` (some negative for signed dtypes), of ``shape``, laid
    out as ``layout``: C, F, or every other element of a last axis twice as long."""
    dt = np.dtype(dtype)
    full = shape[:-1] + (2 * shape[-1],) if layout == "strided" else shape
    x = rng.integers(0 if dt.kind == "u" else -100, 100, full).astype(dt)
    if layout == "strided":
        return x[..., ::2]
    return np.asfortranarray(x) if layout == "F" else x


def check(got, want, mapped, axis, exact=False):
    """Shape, dtype and values: integers and ``exact`` results (minima, maxima) exactly, float
    sums within the error bound of a chain of roundings as long as the axis
    (:func:`primitives.testing.oracle.gamma`)."""
    got = H.to_host(got)
    assert got.shape == want.shape and got.dtype == want.dtype
    if want.dtype.kind != "f" or exact:
        np.testing.assert_array_equal(got, want)
        return
    magnitude = np.cumsum(np.abs(mapped.astype(np.float64)), axis=axis)
    bound = _oracle.gamma(mapped.shape[axis], want.dtype) * magnitude
    assert np.all(np.abs(got.astype(np.float64) - want.astype(np.float64)) <= bound)


@pytest.mark.parametrize("dtype,shape,layout", CASES, ids=_id)
def test_scans_of_mapped_lines(dtype, shape, layout, rng):
    dt = np.dtype(dtype)
    x = data(rng, shape, dtype, layout)
    sq = x * x  # in the element's dtype, as the map computes
    dec = x - dt.type(1)
    for axis in range(-1, x.ndim):
        got = prim.inclusive_scan(x, axis=axis, map="v * v")
        check(got, reference(sq, "sum", axis), sq, axis)
        got = prim.exclusive_scan(x, "max", axis=axis, map="v - 1")
        check(got, reference(dec, "max", axis, exclusive=True), dec, axis, exact=True)


@pytest.mark.parametrize("dtype", DTYPES, ids=_id)
def test_products_minima_and_user_ops(dtype, rng):
    dt = np.dtype(dtype)
    layout = LAYOUTS[DTYPES.index(dtype) % 3]
    x = data(rng, (33, 40), dtype, layout)
    for axis in (0, 1):
        got = prim.exclusive_scan(x, "min", axis=axis, map="v * 3")
        check(got, reference(x * dt.type(3), "min", axis, exclusive=True), x, axis, exact=True)
        if dt.kind == "f":  # products of factors in (0.2, 1.8): rounded, not exact
            got = prim.inclusive_scan(x, "prod", axis=axis, map="1 + v / 128")
            want = reference(1 + x / dt.type(128), "prod", axis)
            assert H.to_host(got).dtype == want.dtype
            np.testing.assert_allclose(
                H.to_host(got), want, rtol=1e-5 if dt.itemsize == 4 else 1e-13
            )
            continue
        got = prim.inclusive_scan(x, "prod", axis=axis, map="v | 1")  # wraps as NumPy's
        check(got, reference(x | dt.type(1), "prod", axis), x, axis)
        got = prim.inclusive_scan(x, prim.Op("a ^ b", 0), axis=axis, map="v & 0xff")
        want = np.bitwise_xor.accumulate(x & dt.type(0xFF), axis=axis)
        np.testing.assert_array_equal(H.to_host(got), want)


def test_race(rng, race):
    x = data(rng, (33, 257), np.float32, "F")
    check(prim.inclusive_scan(x, axis=0, map="v * v"), reference(x * x, "sum", 0), x * x, 0)


def test_errors_along_an_axis(rng):
    x = data(rng, (10, 33), np.float32, "C")
    with pytest.raises(TypeError, match="inclusive_scan: map must be a str"):
        prim.inclusive_scan(x, axis=0, map=1.0)
    with pytest.raises(ValueError, match="exclusive_scan: map: expr is empty"):
        prim.exclusive_scan(x, axis=1, map="  ")
    with pytest.raises(ValueError, match="inclusive_scan: map: expr must be one C\\+\\+"):
        prim.inclusive_scan(x, axis=-1, map="v // 2")
    with pytest.raises(TypeError, match="exclusive_scan: map='v' reads .* int16"):
        prim.exclusive_scan(x.astype(np.int16), axis=0, map="v")
    with pytest.raises(TypeError, match="inclusive_scan: map='v' reads .* cast to float64"):
        prim.inclusive_scan(x, axis=0, dtype=np.float64, map="v")
    with pytest.raises(prim.KernelCompileError, match="compiling map='v \\* w' for float32"):
        prim.inclusive_scan(x, axis=1, map="v * w")


def test_nvrtc_compiles_the_axis_kernels_with_a_map():
    """The axis scans reading through a map's element type, through NVRTC (the GPU's compiler;
    CI has no GPU): rows (scan and chunk totals) and columns (vectors and single elements, one
    pass and look-back), for running sums of squares of int32 into int64 and of float32."""
    from primitives._core import loader, nvrtc, ops
    from primitives.scan import _axis, _policy

    try:
        nvrtc.load()
    except nvrtc.NVRTCNotFound:
        pytest.skip("no NVRTC library")
    m, pol = ops.Map("v * v"), _policy.current(_axis.SELECTOR)
    for dt, acc in ((np.int32, np.int64), (np.float32, np.float32)):
        combo = (np.dtype(dt), np.dtype(acc), np.dtype(acc), "sum")
        names = [_axis.rows_scan_name(combo, True, pol, m), _axis.rows_total_name(combo, pol, m)]
        for v in (4, 1):
            names += [_axis.cols_scan_name(combo, v, False, pol, m)]
            names += [_axis.cols_lookback_name(combo, v, pol, m)]
        rel = ops.source(_axis.SOURCE, "sum", combo[1], m, combo[0])
        got = nvrtc.compile_check(loader.source(rel), names, options=loader.nvrtc_options())
        assert set(got) == set(names)

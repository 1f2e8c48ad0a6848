"""quantile, nanquantile, percentile, nanpercentile, median and nanmedian against NumPy: every
method, dtypes, q scalars and arrays, axes (int, tuple, None), keepdims, out, NaNs, both the
radix selection (forced by the policy's min_len) and the sorted rows; every error branch."""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import primitives as prim
from primitives.selection import _quantile as Q
from primitives.testing import harness as H

RADIX = {"min_len": 1}  # every row selected, however short
SORT = {"min_len": 1 << 40}  # every row sorted

DTYPES = [np.float32, np.float64, np.float16, np.int32, np.uint8, np.int64, np.int8]


def make(rng, shape, dt, nans=0.0, distinct=None):
    dt = np.dtype(dt)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if distinct is not None:
        x = rng.integers(0, distinct, shape).astype(dt)
    elif dt.kind == "f":
        x = (rng.standard_normal(shape) * 10).astype(dt)
    else:
        info = np.iinfo(dt)
        x = rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
    if nans and x.size:
        x[rng.random(shape) < nans] = np.nan
    return x


def path(p):
    return prim.tuning.override("selection", selector="quantile", **p)


def both(fn, *args, **kwargs):
    """NumPy's answer and ours (warnings of both recorded alike)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = getattr(np, fn)(*args, **kwargs)
        got = getattr(prim, fn)(*args, **kwargs)
    return got, want


@pytest.mark.parametrize("p", [RADIX, SORT], ids=["radix", "sort"])
@pytest.mark.parametrize("method", Q.METHODS)
def test_methods(rng, p, method):
    x = make(rng, 1001, np.float32, distinct=300)
    with path(p):
        for q in (0.3, [0.0, 0.01, 0.5, 0.99, 1.0], np.array([[0.25], [0.75]], np.float32)):
            H.assert_same(*both("quantile", x, q, method=method), what=f"{method} q={q}")
        H.assert_same(*both("percentile", x, 37.5, method=method), what=method)


@pytest.mark.parametrize("p", [RADIX, SORT], ids=["radix", "sort"])
@pytest.mark.parametrize("dt", DTYPES)
def test_dtypes(rng, p, dt):
    x = make(rng, (3, 257), dt)
    with path(p):
        for method in ("linear", "lower", "midpoint", "nearest", "inverted_cdf"):
            for q in (0.5, [0.1, 0.9]):
                H.assert_same(*both("quantile", x, q, axis=1, method=method), what=f"{method}")
        H.assert_same(*both("median", x, axis=1))
        H.assert_same(*both("median", x))


@pytest.mark.parametrize("p", [RADIX, SORT], ids=["radix", "sort"])
def test_nans(rng, p):
    x = make(rng, (4, 6, 33), np.float64, nans=0.2)
    x[1, 2] = np.nan  # an all-NaN slice
    with path(p):
        for fn in ("quantile", "nanquantile"):
            for axis in (None, 2, (0, 2), -1):
                H.assert_same(*both(fn, x, [0.2, 0.5], axis=axis), what=f"{fn} {axis}")
        for fn in ("median", "nanmedian"):
            for axis in (None, 2, (0, 2)):
                H.assert_same(*both(fn, x, axis=axis), what=f"{fn} {axis}")
        H.assert_same(*both("nanpercentile", x, 90, axis=2, method="hazen"))


def test_all_nan_warns():
    x = np.array([[np.nan, np.nan], [1.0, 2.0]])
    with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
        got = prim.nanmedian(x, axis=1)
    H.assert_same(got, np.array([np.nan, 1.5]))
    with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
        got = prim.nanquantile(x, 0.5, axis=1)
    H.assert_same(got, np.array([np.nan, 1.5]))


def test_axes_keepdims_out(rng):
    x = make(rng, (5, 4, 7), np.float32)
    with path(RADIX):
        for axis in (0, 1, (0, 1), (1, 2), None):
            H.assert_same(*both("quantile", x, [0.3, 0.6], axis=axis, keepdims=True))
            H.assert_same(*both("median", x, axis=axis, keepdims=True))
        out = np.empty((2, 5, 7), np.float64)
        got = prim.quantile(x, [0.3, 0.6], axis=1, out=out)
        assert got is out
        H.assert_same(out, np.quantile(x, [0.3, 0.6], axis=1))
        out = np.empty((4,), np.float32)
        prim.median(x, axis=(0, 2), out=out)
        H.assert_same(out, np.median(x, axis=(0, 2)))
    xf = np.asfortranarray(x)
    H.assert_same(prim.quantile(xf, 0.4, axis=0), np.quantile(xf, 0.4, axis=0))


@pytest.mark.parametrize("n", [1, 2, 3, 4095, 4097])
def test_lengths(rng, n):
    x = make(rng, n, np.float32, distinct=max(1, n // 3))
    with path(RADIX):
        H.assert_same(*both("quantile", x, [0.0, 0.5, 1.0]))
        H.assert_same(*both("median", x))


def test_ties_and_extremes():
    with path(RADIX):
        x = np.full(999, 7, np.int64)
        H.assert_same(*both("quantile", x, [0.1, 0.5]))
        x = np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0, -5], np.int64)
        H.assert_same(*both("quantile", x, [0.0, 0.4, 1.0], method="lower"))
        H.assert_same(*both("median", x))
        x = np.array([-np.inf, np.inf, 1.0, -0.5], np.float32)
        H.assert_same(*both("quantile", x, [0.0, 0.5, 1.0]))


def test_scalar_and_empty():
    H.assert_same(*both("median", np.float32(3.5)))
    got, want = both("quantile", np.arange(5), 0.5)
    assert type(got) is type(want)
    with pytest.warns(RuntimeWarning):
        got = prim.median(np.empty((0, 3), np.float32), axis=0)
    H.assert_same(got, np.full(3, np.nan, np.float32))
    H.assert_same(prim.quantile(np.empty((0, 3)), 0.5, axis=1), np.empty(0))
    H.assert_same(prim.median(np.empty((0, 3)), axis=1), np.empty(0))


def test_bool():
    x = np.array([True, False, True, True])
    H.assert_same(*both("quantile", x, 0.5, method="lower"))
    H.assert_same(*both("median", x))


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.integers(1, 3),
    st.integers(1, 40),
    st.sampled_from(Q.METHODS),
    st.lists(st.floats(0, 1), min_size=1, max_size=4),
    st.sampled_from(["quantile", "nanquantile"]),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_property(rows, n, method, q, fn, radix, seed):
    rng = np.random.default_rng(seed)
    x = make(rng, (rows, n), np.float32, nans=0.1, distinct=max(1, n // 2))
    with path(RADIX if radix else SORT):
        H.assert_same(*both(fn, x, q, axis=1, method=method))


# ---- errors ----------------------------------------------------------------------------------


def test_errors():
    x = np.arange(10.0)
    with pytest.raises(ValueError, match="Quantiles must be in the range"):
        prim.quantile(x, 1.5)
    with pytest.raises(ValueError, match="Quantiles must be in the range"):
        prim.nanquantile(x, [0.5, np.nan])
    with pytest.raises(ValueError, match="Percentiles must be in the range"):
        prim.percentile(x, 101)
    H.raises_like(TypeError, "quantile", prim.quantile, x.astype(complex), 0.5, match="real")
    H.raises_like(TypeError, "median", prim.median, x.astype(complex))
    H.raises_like(ValueError, "quantile", prim.quantile, x, 0.5, method="cubic")
    H.raises_like(TypeError, "quantile", prim.quantile, x, "a")
    H.raises_like(ValueError, "quantile", prim.quantile, x, np.zeros((1, 1, 1)))
    H.raises_like(ValueError, "quantile", prim.quantile, x, 0.5, weights=x, method="linear")
    with pytest.raises(NotImplementedError):
        prim.quantile(x, 0.5, weights=x, method="inverted_cdf")
    H.raises_like(TypeError, "quantile", prim.quantile, x > 3, 0.5)
    H.raises_like(ValueError, "median", prim.median, np.ones((2, 2)), axis=(0, 0))
    with pytest.raises(np.exceptions.AxisError):
        prim.median(np.ones((2, 2)), axis=2)
    H.raises_like(ValueError, "median", prim.median, np.ones((2, 2)), axis=0, out=np.empty(3))
    H.raises_like(TypeError, "quantile", prim.quantile, x, 0.5, keepdims=1)
    H.raises_like(IndexError, "quantile", prim.quantile, np.empty(0), 0.5)
    with pytest.raises(TypeError, match="unexpected keyword"):
        prim.median(x, method="linear")

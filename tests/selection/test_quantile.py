"""quantile, nanquantile, percentile, nanpercentile, median and nanmedian against NumPy: every
method, dtypes, q scalars and arrays, axes (int, tuple, None), keepdims, out, NaNs, both the
radix selection (forced by the policy's min_len) and the sorted rows, the selection's shared
candidate buffer (small and large, digits narrow enough for many passes), results bit for bit
(-0.0, NaN payloads), weights (inverted_cdf); the nan-functions' one launch (rows of every NaN
count, the first slice's dtype, their warnings, no array arithmetic); every error branch."""

import types
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


@pytest.mark.parametrize("p", [RADIX, SORT], ids=["radix", "sort"])
@pytest.mark.parametrize("fn", ["quantile", "nanquantile", "percentile", "nanpercentile"])
def test_no_quantile_asked(rng, p, fn):
    """An empty q gives NumPy's empty result (its shape and dtype), whichever path the rows
    would take: the radix selection of no ranks divided by zero."""
    x, xi = make(rng, (4, 300), np.float32, nans=0.1), make(rng, (4, 300), np.int8)
    with path(p):
        for q in ([], np.empty(0, np.float32), ()):
            for method in ("linear", "inverted_cdf"):
                for kw in ({}, {"axis": 1}, {"axis": 0, "keepdims": True}):
                    H.assert_same(*both(fn, x, q, method=method, **kw))
                    H.assert_same(*both(fn, xi, q, method=method, **kw))
        w = np.ones(x.shape)
        H.assert_same(*both(fn, x, [], axis=1, method="inverted_cdf", weights=w))
        out = np.full((0, 4), 7.0)
        assert getattr(prim, fn)(x, [], axis=1, out=out) is out


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


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # all-zero weights, as NumPy
def test_errors():
    x = np.arange(10.0)
    with pytest.raises(ValueError, match="Quantiles must be in the range"):
        prim.quantile(x, 1.5)
    with pytest.raises(ValueError, match="Quantiles must be in the range"):
        prim.nanquantile(x, [0.5, np.nan])
    with pytest.raises(ValueError, match="Percentiles must be in the range"):
        prim.percentile(x, 101)
    H.raises_like(TypeError, "quantile", prim.quantile, x.astype(complex), 0.5, match="real")
    H.raises_like(TypeError, "median", prim.median, x.astype(np.clongdouble))
    H.raises_like(ValueError, "quantile", prim.quantile, x, 0.5, method="cubic")
    H.raises_like(TypeError, "quantile", prim.quantile, x, "a")
    H.raises_like(ValueError, "quantile", prim.quantile, x, np.zeros((1, 1, 1)))
    H.raises_like(ValueError, "quantile", prim.quantile, x, 0.5, weights=x, method="linear")
    w = dict(method="inverted_cdf")
    H.raises_like(ValueError, "quantile", prim.quantile, x, 0.5, weights=-x, match="non-neg", **w)
    H.raises_like(ValueError, "quantile", prim.quantile, x, 0.5, weights=0 * x, match="zero", **w)
    x2 = np.ones((2, 5))
    H.raises_like(TypeError, "quantile", prim.quantile, x2, 0.5, weights=x2[0], match="Axis", **w)
    H.raises_like(ValueError, "quantile", prim.quantile, x2, 0.5, weights=x2[0], axis=0, **w)
    H.raises_like(TypeError, "quantile", prim.quantile, x, 0.5, weights=x + 1j, **w)
    H.raises_like(TypeError, "quantile", prim.quantile, x > 3, 0.5)
    H.raises_like(ValueError, "median", prim.median, np.ones((2, 2)), axis=(0, 0))
    with pytest.raises(np.exceptions.AxisError):
        prim.median(np.ones((2, 2)), axis=2)
    H.raises_like(ValueError, "median", prim.median, np.ones((2, 2)), axis=0, out=np.empty(3))
    H.raises_like(TypeError, "quantile", prim.quantile, x, 0.5, keepdims=1)
    H.raises_like(IndexError, "quantile", prim.quantile, np.empty(0), 0.5)
    with pytest.raises(TypeError, match="unexpected keyword"):
        prim.median(x, method="linear")


# ---- the shared candidate buffer, bits, 0-d results, weights ---------------------------------


@pytest.mark.parametrize("div", [1, 3, 1 << 30])
def test_buffer_shares(rng, div, schedule):
    """Narrow digits (many passes) and buffers from a whole row to none: slots that take their
    share of the row's buffer, follow another's, or keep reading the row; slots of one prefix
    counted once (in index order and race-exposing on the emulator)."""
    p = dict(RADIX, buffer_div=div, first_bits=4, bits=3, group=4)
    q = [0.0, 0.01, 0.3, 0.31, 0.5, 0.99, 1.0]
    with path(p):
        for x in (
            make(rng, (2, 700), np.float32),
            make(rng, (2, 700), np.float64, distinct=5),
            make(rng, (2, 700), np.int32, distinct=200) - 100,
        ):
            for method in ("linear", "lower", "nearest"):
                H.assert_same(*both("quantile", x, q, axis=1, method=method), what=f"{div}")
            H.assert_same(*both("median", x, axis=1))


def bits(v):
    """The bits of each value (of each part of a complex one)."""
    v = np.asarray(H.to_host(v)).reshape(-1)
    return v.view(f"u{v.dtype.itemsize // (2 if v.dtype.kind == 'c' else 1)}")


@pytest.mark.parametrize("p", [RADIX, SORT], ids=["radix", "sort"])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_bits(p, dt):
    """An element taken is the element itself (-0.0 stays -0.0; a slice's NaN is its own,
    payload and sign), and a median is NumPy's mean of it (0.0 + -0.0 is 0.0)."""
    x = np.array([-0.0, -0.0, -0.0, 1.0, -2.0], dt)
    nan = np.array([1.0, 2.0, 3.0], dt)
    nan[1] = -np.nan
    payload = nan.copy()
    payload.view(f"u{nan.dtype.itemsize}")[1] |= 0x123  # a quiet NaN with a payload
    with path(p):
        for q, method in (
            (0.5, "lower"),
            ([0.5, 0.6], "nearest"),
            (0.5, "higher"),
            (0.5, "linear"),
        ):
            got, want = both("quantile", x, q, method=method)
            assert np.array_equal(bits(got), bits(want)), (method, got, want)
        for fn in ("median", "nanmedian"):
            got, want = both(fn, x)
            assert np.array_equal(bits(got), bits(want)), (fn, got, want)
        for y in (nan, payload):
            for fn, args in (("median", ()), ("quantile", (0.5,)), ("quantile", ([0.2, 0.5],))):
                got, want = both(fn, y, *args)
                assert np.array_equal(bits(got), bits(want)), (fn, got, want)


def test_zero_d():
    """0-d input: NumPy's scalar types."""
    for v in (np.float64(1), np.array(1.5), np.array(3, np.int32), np.float32(2), np.float16(1)):
        for fn, args in (("median", ()), ("quantile", (0.5,)), ("nanmedian", ())):
            got, want = both(fn, v, *args)
            assert type(got) is type(want), (fn, v, type(got), type(want))
            H.assert_same(got, want)


def weighted(fn, *args, **kwargs):
    return both(fn, *args, method="inverted_cdf", **kwargs)


@pytest.mark.parametrize("dt", [np.float32, np.int64, np.bool_])
def test_weights(rng, dt):
    x = make(rng, (3, 4, 41), dt, distinct=None if dt == np.bool_ else 15)
    w = rng.integers(0, 4, x.shape)
    q = [0.0, 0.1, 0.5, 0.999, 1.0]
    for fn in ("quantile", "nanquantile"):
        H.assert_same(*weighted(fn, x, q, weights=w))
        H.assert_same(*weighted(fn, x, 0.3, weights=w.astype(np.float32), axis=2))
    H.assert_same(
        *weighted("quantile", x, np.array([0.3, 0.7], np.float32), weights=w[0, 0], axis=2)
    )
    H.assert_same(*weighted("quantile", x, [0.3, 0.7], weights=w[:, :, 0] > 0, axis=(0, 1)))
    H.assert_same(*weighted("percentile", x, [30, 70], weights=w[:, 0], axis=(0, 2), keepdims=True))
    got, want = weighted("quantile", x[0, 0], 0.5, weights=w[0, 0])
    assert type(got) is type(want)  # NumPy's weighted path: a 0-d array
    H.assert_same(got, want)


def test_weights_nans(rng):
    x = make(rng, (4, 57), np.float64, distinct=20)
    x[0, ::3] = np.nan
    x[2] = np.nan
    w = rng.random(x.shape)
    w[1, :5] = 0  # leading zero weights
    for fn in ("quantile", "nanquantile", "nanpercentile"):
        q = [0, 20, 90, 100] if "percent" in fn else [0.0, 0.2, 0.9, 1.0]
        H.assert_same(*weighted(fn, x, q, weights=w, axis=1), what=fn)


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_complex_median(rng, dt):
    """NumPy's complex order (real, then imaginary; values with a NaN part last) and its mean of
    the middle values, bit for bit; a slice with NaNs gives its largest value."""
    for n in (1, 2, 3, 10, 101):
        x = (rng.integers(-3, 3, (4, n)) + 1j * rng.integers(-3, 3, (4, n))).astype(dt)
        for fn in ("median", "nanmedian"):
            for axis in (1, None, 0):
                got, want = both(fn, x, axis=axis)
                H.assert_same(got, want)
                assert np.array_equal(bits(got), bits(want))
        x[1, 0] = complex(np.nan, 1)
        x[2, -1] = complex(2, np.nan)
        x[3, :] = complex(np.nan, np.nan)
        x[0, n // 2] = complex(-np.inf, 0)
        for fn in ("median", "nanmedian"):
            got, want = both(fn, x, axis=1)
            assert np.array_equal(bits(got), bits(want)), (fn, got, want)
    got, want = both("median", dt(1 + 2j))
    assert type(got) is type(want) and got == want


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_fused_results(rng, dt):
    """The selection's state made NumPy's results in one launch (quantile_finish): every q dtype
    (the results' dtype and rounding follow it), rows with NaNs, bit for bit."""
    x = make(rng, (3, 999), dt, nans=0.002)
    x[0] = np.abs(x[0])  # a row without NaNs, likely
    x[0, 7] = -0.0
    with path(RADIX):
        for q in (0.37, [0.0, 0.01, 0.5, 0.99, 1.0], np.array([0.2, 0.7], np.float32)):
            for method in ("linear", "lower", "midpoint", "hazen", "averaged_inverted_cdf"):
                got, want = both("quantile", x, q, axis=1, method=method)
                assert got.dtype == want.dtype, (q, method)
                assert np.array_equal(bits(got), bits(want)), (q, method, got, want)
        for axis in (1, None):
            got, want = both("median", x, axis=axis)
            assert np.array_equal(bits(got), bits(want)), (axis, got, want)


# ---- the nan-functions' fused path ----------------------------------------------------------


def nan_rows(rng, dt, length=40):
    """Rows of each NaN count: none, some, all, all but one, about half; and a row of
    infinities of both signs (NaN from ``inf - inf`` in an interpolation)."""
    x = make(rng, (6, length), dt, distinct=length // 2)
    x[1, ::3] = np.nan
    x[2] = np.nan
    x[3, 1:] = np.nan
    x[4, rng.random(length) < 0.5] = np.nan
    x[5, :4] = [np.inf, -np.inf, np.inf, -np.inf]
    return x


def same_nan(fn, *args, **kwargs):
    """Ours is NumPy's bit for bit (dtype, shape, NaN bits), with as many warnings of all-NaN
    slices."""
    res = []
    for mod in (np, prim):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res.append(getattr(mod, fn)(*args, **kwargs))
        res.append(sum("All-NaN slice encountered" in str(w.message) for w in caught))
    want, warned, got, ours = res
    what = f"{fn} {args[1:]} {kwargs}"
    H.assert_same(got, want, what=what)
    assert np.array_equal(bits(got), bits(want)), (what, got, want)
    assert ours == warned, (what, ours, warned)
    return want


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("method", Q.METHODS)
def test_nan_fused_methods(rng, method, dt):
    """nanquantile and nanpercentile of selected rows (one launch): rows of every NaN count,
    Python-number and array quantiles (float64, float32, 2-D), along either axis."""
    x = nan_rows(rng, dt)
    qs = (0.3, [0.0, 0.01, 0.5, 0.99, 1.0], np.array([0.2, 0.7], np.float32), [[0.25], [0.75]])
    with path(RADIX):
        for q in qs:
            same_nan("nanquantile", x, q, axis=1, method=method)
        same_nan("nanquantile", np.ascontiguousarray(x.T), 0.6, axis=0, method=method)
        same_nan("nanpercentile", x, 37.5, axis=1, method=method)
        same_nan("nanpercentile", x, np.array([5, 95], np.float32), axis=-1, method=method)


@pytest.mark.parametrize("p", [RADIX, SORT], ids=["radix", "sort"])
def test_nan_first_slice_dtype(rng, p):
    """NumPy's nan-functions' results take the first slice's dtype: float32 rows with a float64
    quantile array give float32 when the first slice is all NaN (the float64 results rounded),
    float64 otherwise; a Python number or a float32 array float32 throughout."""
    x = make(rng, (4, 33), np.float32)
    x[0] = np.nan
    x[2, ::4] = np.nan
    q = np.linspace(0.01, 0.99, 7)
    with path(p):
        for method in ("linear", "hazen", "midpoint", "lower"):
            assert same_nan("nanquantile", x, q, axis=1, method=method).dtype == np.float32
            rest = same_nan("nanquantile", x[1:], q, axis=1, method=method)
            assert rest.dtype == (np.float32 if method == "lower" else np.float64)
            same_nan("nanquantile", x[::-1], q, axis=1, method=method)  # a later one all NaN
            same_nan("nanquantile", x, q.astype(np.float32), axis=1, method=method)
            same_nan("nanquantile", x, 0.3, axis=1, method=method)
            same_nan("nanquantile", x[0], q, method=method)  # one slice, all NaN
            same_nan("nanquantile", x.T, q, axis=0, method=method)
        # the float64 results rounded, not float32 arithmetic: they differ here
        single = np.nanquantile(x, q.astype(np.float32), axis=1)
        assert not np.array_equal(bits(np.nanquantile(x, q, axis=1)), bits(single))


@pytest.mark.parametrize("p", [RADIX, SORT], ids=["radix", "sort"])
def test_nan_axes_keepdims_out(rng, p):
    x = make(rng, (5, 4, 37), np.float64, nans=0.3)
    x[2, 1] = np.nan
    x[:, 3, :] = np.nan  # all-NaN slices along axis 0 and (0, 2)
    with path(p):
        # each axis form once (one reduced axis, moved last by a copy; two; all), keepdims on
        # one: the emulator runs each shape's selection passes (the last axis: the tests above)
        for i, axis in enumerate((1, (0, 2), None)):
            kw = dict(axis=axis, keepdims=bool(i % 2))
            same_nan("nanquantile", x, [0.3, 0.6], **kw)
            same_nan("nanquantile", x.astype(np.float32), 0.45, method="nearest", **kw)
            same_nan("nanmedian", x, **kw)
        out = np.empty((2, 5, 37), np.float64)
        got, want = both("nanquantile", x, [0.3, 0.6], axis=1, out=out)
        assert got is out
        H.assert_same(got, np.nanquantile(x, [0.3, 0.6], axis=1))
        out = np.empty((4,), np.float64)
        got, want = both("nanmedian", x, axis=(0, 2), out=out)
        H.assert_same(got, np.nanmedian(x, axis=(0, 2)))


@pytest.mark.parametrize("p", [RADIX, SORT], ids=["radix", "sort"])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_nanmedian_counts(rng, p, dt):
    """nanmedian: rows of every non-NaN count n from 11 down to 0 (odd and even: one middle
    value or the mean of two), -0.0, infinities (their mean NaN), all-NaN rows."""
    x = make(rng, (12, 11), dt, distinct=7)
    for r in range(12):
        x[r, rng.permutation(11)[:r]] = np.nan
    x[1, ~np.isnan(x[1])] = -0.0
    x[3, np.flatnonzero(~np.isnan(x[3]))[:2]] = np.inf
    y = x.copy()
    y[4, ~np.isnan(y[4])] = [np.inf, -np.inf, np.inf, -np.inf, 1.0, 2.0, -np.inf]
    y[5, ~np.isnan(y[5])] = [np.inf, -np.inf] * 3  # the middle two: -inf and inf
    with path(p):
        for v in (x, y, x[::-1], y[:, ::-1]):
            same_nan("nanmedian", v, axis=1)
            same_nan("nanmedian", np.ascontiguousarray(v.T), axis=0)
            same_nan("nanquantile", v, [0.5, 0.1], axis=1)
        same_nan("nanmedian", x[2])
        same_nan("nanmedian", x[11])


class Recorded(np.ndarray):
    """A host array that records its arithmetic (ufuncs) and casts in :data:`ARITH_CALLS`."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        ARITH_CALLS.append(ufunc.__name__)
        inputs = tuple(i.view(np.ndarray) if isinstance(i, Recorded) else i for i in inputs)
        if "out" in kwargs:
            kwargs["out"] = tuple(
                o.view(np.ndarray) if isinstance(o, Recorded) else o for o in kwargs["out"]
            )
        res = getattr(ufunc, method)(*inputs, **kwargs)
        return res.view(Recorded) if isinstance(res, np.ndarray) else res

    def astype(self, dtype, *args, **kwargs):
        if np.dtype(dtype) != self.dtype:
            ARITH_CALLS.append(f"astype {self.dtype} {np.dtype(dtype)}")
        return self.view(np.ndarray).astype(dtype, *args, **kwargs).view(Recorded)


ARITH_CALLS: list = []


class RecordedModule(types.ModuleType):
    """NumPy as the backend's array module, its functions recorded in :data:`ARITH_CALLS`,
    their array results :class:`Recorded`: the CuPy calls a GPU would make, each of which
    (but allocations and copies) compiles an elementwise kernel on first use."""

    def __init__(self):
        super().__init__("recorded_numpy")

    def __getattr__(self, name):
        attr = getattr(np, name)
        if isinstance(attr, type) or not callable(attr):
            return attr

        def call(*args, **kwargs):
            ARITH_CALLS.append(name)
            res = attr(*args, **kwargs)
            return res.view(Recorded) if type(res) is np.ndarray else res

        return call


#: array-module calls that compile nothing (allocations, host-to-device copies, a C-contiguous
#: array as it is)
NO_KERNEL = {"zeros", "empty", "asarray", "ascontiguousarray"}


def test_nan_fused_launches_only_kernels(monkeypatch, on_gpu):
    """Selected float32 and float64 rows of the nan-functions: no array arithmetic (a GPU's
    CuPy would compile each operation), the package's kernels only, as quantile's and
    median's; integer rows of the nan-functions make quantile's and median's calls."""
    if on_gpu:
        pytest.skip("records the emulator's array module")
    from primitives._core import backend as _backend, plans as _plans

    _plans.clear_caches()
    monkeypatch.setattr(_backend.get_backend(), "xp", RecordedModule())
    rng = np.random.default_rng(7)
    calls = []
    with path(RADIX), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for dt in (np.float32, np.float64):
            x = nan_rows(rng, dt)
            for fn, args, kw in (
                ("nanquantile", (0.3,), {}),
                ("nanquantile", ([0.1, 0.9],), {"method": "lower"}),
                ("nanquantile", (np.array([0.2, 0.6]),), {"method": "hazen"}),
                ("nanpercentile", (np.array([20], np.float32),), {}),
                ("nanmedian", (), {}),
            ):
                ARITH_CALLS.clear()
                getattr(prim, fn)(x, *args, axis=1, **kw)
                assert set(ARITH_CALLS) <= NO_KERNEL, (fn, dt, ARITH_CALLS)
        x = make(rng, (3, 40), np.int32)
        for fn, args in (("quantile", (0.3,)), ("median", ())):
            for f in (fn, "nan" + fn):
                ARITH_CALLS.clear()
                got = getattr(prim, f)(x, *args, axis=1)
                calls.append([c for c in ARITH_CALLS if c not in NO_KERNEL])
                H.assert_same(got, getattr(np, f)(x, *args, axis=1))
    monkeypatch.undo()
    _plans.clear_caches()
    assert calls[0] == calls[1] and calls[2] == calls[3], calls


# ---- partitions by selected ranks ------------------------------------------------------------

RANKS = {"min_len": 1}  # the order statistics select rows of any length


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int8, np.uint16, np.bool_, np.float16])
def test_partition_by_ranks(rng, dt):
    """argpartition and partition by the values of their kth (RankPartitionRun): each kth
    holds what a sort puts there, smaller before, larger after; with several kth each part in
    index order (one kth: the split's order where it takes a row, tests/selection/
    test_partition_split.py)."""
    from primitives.selection import _partition

    calls = []
    run = _partition.RankPartitionRun.__call__

    def spy(self, x):
        calls.append(1)
        return run(self, x)

    cases = [((3, 1000), 500), ((5000,), [100, 2500, -1000]), ((2, 7), [3, 3, -1]), ((4, 300), 150)]
    with (
        path(RANKS),
        prim.tuning.override("selection", selector="partition", sort_max_len=1),
        pytest.MonkeyPatch.context() as mp,
    ):
        mp.setattr(_partition.RankPartitionRun, "__call__", spy)
        for shape, kth in cases:
            nans = 0.03 if np.dtype(dt).kind == "f" else 0.0
            x = make(rng, shape, dt, nans=nans, distinct=None if dt == np.bool_ else 40)
            idx = H.to_host(prim.argpartition(x, kth))
            part = H.to_host(prim.partition(x, kth))
            vals = np.take_along_axis(x, idx, -1)
            want = np.sort(x, axis=-1)
            assert part.dtype == x.dtype and np.array_equal(bits(part), bits(vals))
            for k in np.atleast_1d(kth) % shape[-1]:
                H.assert_same(vals[..., k], want[..., k])
                below, above = vals[..., :k], vals[..., k + 1 :]
                kv = vals[..., k : k + 1]
                assert np.all((below <= kv) | np.isnan(kv)) and np.all(
                    (above >= kv) | np.isnan(above)
                )
            assert np.array_equal(np.sort(idx, -1), np.broadcast_to(np.arange(shape[-1]), shape))
        assert len(calls) == 2 * len(cases)
    # many small tiles (64 x 4 keys): full aligned tiles (16-byte loads) and misaligned rows
    # (key by key), blocks of several tiles, partial last tiles, up to four kth (nine buckets)
    small = dict(RANKS, block=64, items=4)
    for shape, kth, dt in (
        ((2, 30001), [7, 15000, -3, 20000], np.float32),
        ((1, 40000), 1 << 14, np.float64),
        ((3, 2049), 1000, np.int16),
    ):
        x = make(rng, shape, dt, nans=0.02 if np.dtype(dt).kind == "f" else 0.0, distinct=300)
        with path(small), prim.tuning.override("selection", selector="partition", sort_max_len=1):
            idx = H.to_host(prim.argpartition(x, kth))
            part = H.to_host(prim.partition(x, kth))
        vals = np.take_along_axis(x, idx, -1)
        assert np.array_equal(bits(part), bits(vals))
        want = np.sort(x, axis=-1)
        ks = sorted(np.atleast_1d(kth) % shape[-1])
        for k in ks:
            H.assert_same(vals[..., k], want[..., k])
        for r in range(shape[0] if len(ks) > 1 else 0):  # the buckets in order, in index order
            kv = np.unique(want[r, ks])  # the kth values, NaN last (one)
            lo = np.searchsorted(kv, vals[r], "left")
            hit = np.zeros(shape[-1], bool)
            inside = lo < kv.size
            hit[inside] = (vals[r][inside] == kv[lo[inside]]) | (
                np.isnan(vals[r][inside]) & np.isnan(kv[lo[inside]])
            )
            bucket = 2 * lo + hit
            assert np.all(np.diff(bucket) >= 0)
            for b in np.unique(bucket):
                assert np.all(np.diff(idx[r][bucket == b]) > 0)
        assert np.array_equal(np.sort(idx, -1), np.broadcast_to(np.arange(shape[-1]), shape))
    # a single kth of a row the split leaves (its first digit's bin holds every key): the keys
    # below it and above it in index order
    x = rng.permutation(3000).astype(np.int32)
    with path(RANKS), prim.tuning.override("selection", selector="partition", sort_max_len=1):
        idx = H.to_host(prim.argpartition(x, 1234))
    assert np.all(np.diff(idx[:1234]) > 0) and np.all(np.diff(idx[1235:]) > 0)
    assert x[idx[1234]] == 1234

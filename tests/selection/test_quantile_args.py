"""quantile's and median's arguments as NumPy takes them: q from a device array (any array the
library reads), q of ``fractions.Fraction`` (NumPy's exact arithmetic, its result type), weights
of Python objects, an ``out`` the result broadcasts to, axes as lists, one warning per all-NaN
slice, C-contiguous results."""

import warnings
from fractions import Fraction

import numpy as np
import pytest

import primitives as prim
from primitives.testing import harness as H


Exporter = H.DLPackOnly  # an array of another library, read through DLPack


@pytest.mark.parametrize("fn", ["quantile", "percentile", "nanquantile", "nanpercentile"])
def test_q_from_an_array_the_library_reads(fn):
    x = np.arange(40.0).reshape(4, 10)
    scale = 100 if "percent" in fn else 1
    q = np.array([0.1, 0.5, 0.95]) * scale
    H.assert_same(getattr(prim, fn)(x, Exporter(q), axis=1), getattr(np, fn)(x, q, axis=1))
    bad = Exporter(np.array([0.5, 2.0]) * scale)
    H.raises_like(ValueError, fn, getattr(prim, fn), x, bad)


def test_q_fraction():
    """NumPy computes with Fraction exactly: a Fraction (or an object array) comes back."""
    for args, kwargs in (
        (([1, 2], Fraction(1)), {}),
        (([1, 2], Fraction(1, 2)), {}),
        ((np.arange(12).reshape(3, 4), [Fraction(1, 3), Fraction(1, 2)]), {"axis": 1}),
        ((np.arange(7, dtype=np.uint8), [[Fraction(2, 7)]]), {}),
    ):
        for fn in ("quantile", "nanquantile"):
            got, want = getattr(prim, fn)(*args, **kwargs), getattr(np, fn)(*args, **kwargs)
            assert type(got) is type(want), (fn, got, want)
            assert np.asarray(got).dtype == np.asarray(want).dtype
            assert np.array_equal(got, want), (fn, got, want)
    got = prim.percentile([1, 2, 3, 4], Fraction(50))
    assert got == np.percentile([1, 2, 3, 4], Fraction(50)) and type(got) is Fraction
    # float values: NumPy's NaN test of the virtual index refuses the objects
    H.raises_like(TypeError, "quantile", prim.quantile, np.arange(5.0), Fraction(1, 3))


def test_weights_of_objects():
    arr = np.array([[1, 2, 3, 4]] * 2)
    for w in ([1, np.inf, 1, 1], [0, 0, 0, 0], [1, np.nan, 1, 1]):
        wgts = np.array([w, [0.5] * 4], dtype=object)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            H.raises_like(
                ValueError,
                "quantile",
                prim.quantile,
                arr,
                0.5,
                weights=wgts,
                method="inverted_cdf",
                axis=1,
                match="Weights included NaN, inf or were all zero",
            )
    wgts = np.array([[1, 2, 1, 1], [0.5] * 4], dtype=object)
    kw = dict(weights=wgts, method="inverted_cdf", axis=1)
    H.assert_same(prim.quantile(arr, 0.5, **kw), np.quantile(arr, 0.5, **kw))


def test_out_broadcast():
    """NumPy broadcasts an interpolation (and the nan-functions' results) into out; it takes
    values into an out of the result's shape only."""
    x = np.arange(12.0).reshape(3, 4)
    for fn, method, shape in (
        ("percentile", "linear", (1,)),
        ("percentile", "midpoint", (2, 3)),
        ("nanpercentile", "lower", (3,)),
        ("quantile", "linear", ()),
    ):
        q = 50 if "percent" in fn else 0.5
        o, p = np.full(shape, -1.0), np.full(shape, -1.0)
        got = getattr(prim, fn)(x, q, out=o, method=method)
        getattr(np, fn)(x, q, out=p, method=method)
        assert got is o
        H.assert_same(o, p)
    o = np.empty(1)
    H.raises_like(ValueError, "percentile", prim.percentile, x, 50, out=o, method="lower")
    o, p = np.empty(2), np.empty(2)
    H.assert_same(prim.nanmedian(x, out=o), np.nanmedian(x, out=p))
    H.raises_like(ValueError, "median", prim.median, x, out=np.empty(2))


def test_axis_list():
    x = np.arange(60.0).reshape(3, 4, 5)
    x[0, 0, 0] = np.nan
    for fn, args in (("nanmedian", ()), ("median", ()), ("quantile", (0.3,))):
        for keepdims in (False, True):
            kw = dict(axis=[0, 1], keepdims=keepdims)
            H.assert_same(getattr(prim, fn)(x, *args, **kw), getattr(np, fn)(x, *args, **kw))


@pytest.mark.parametrize("dt", [np.float32, np.complex64])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_a_warning_per_all_nan_slice(dt, axis):
    mat = np.full((3, 3), np.nan).astype(dt)
    for fn, args in (("nanmedian", ()), ("nanquantile", (0.4,))):
        if dt == np.complex64 and fn == "nanquantile":
            continue
        with pytest.warns(RuntimeWarning, match="All-NaN slice") as got:
            getattr(prim, fn)(mat, *args, axis=axis)
        with pytest.warns(RuntimeWarning, match="All-NaN slice") as want:
            getattr(np, fn)(mat, *args, axis=axis)
        assert len(got) == len(want), (fn, len(got), len(want))


def test_results_c_contiguous():
    for method in ("lower", "linear", "nearest"):
        for x, q in ((np.arange(1001, dtype=np.int8), [0.99, 0.999]), (np.ones((3, 40)), [0.5])):
            got = prim.quantile(x, q, method=method, axis=-1)
            assert got.flags.c_contiguous
            H.assert_same(got, np.quantile(x, q, method=method, axis=-1))

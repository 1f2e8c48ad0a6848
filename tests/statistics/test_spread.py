"""var, std, nanvar, nanstd, ptp, count_nonzero and average against NumPy: every dtype, axes,
ddof/correction, keepdims, where, mean, out, the warnings, and the variance's stability on data
far from zero."""

import warnings

import numpy as np
import pytest

import primitives as prim
from primitives.testing import harness as H

from .test_nan import COMPLEX, FLOATS, INTS, data

ALL = FLOATS + COMPLEX + INTS
MOMENTS = ["var", "std", "nanvar", "nanstd"]


def rtol(dt):
    return {"e": 5e-3, "f": 2e-6, "F": 2e-6}.get(np.dtype(dt).char, 1e-12)


def quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*a, **k)


@pytest.mark.parametrize("func", MOMENTS)
@pytest.mark.parametrize("dt", ALL)
@pytest.mark.parametrize("axis", [None, 1, (0, 2)])
def test_moments(rng, func, dt, axis):
    x = data(rng, dt, (5, 40, 3), nan=0.1 if func.startswith("nan") else 0.0)
    got = quiet(getattr(prim, func), x, axis=axis, ddof=1)
    want = quiet(getattr(np, func), x, axis=axis, ddof=1)
    H.assert_same(got, want, rtol=rtol(dt), atol=1e-6, what=f"{func} {np.dtype(dt)} {axis}")


@pytest.mark.parametrize("func", MOMENTS)
def test_nan_propagates_or_is_skipped(func):
    x = np.array([[1.0, np.nan, 3.0], [1.0, 2.0, 4.0]], np.float32)
    H.assert_same(getattr(prim, func)(x, axis=1), getattr(np, func)(x, axis=1), rtol=1e-6)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("axis", [None, 0])
def test_variance_far_from_zero(rng, dt, axis):
    """1e8 + noise (float32 holds it to steps of 8): no cancellation, within the result dtype's
    rounding of the variance of the same values (taken in extended precision: NumPy's own
    float64 variance down a strided axis is 300 roundings off here)."""
    x = (1e8 + rng.integers(-64, 64, (3000, 2)) * 8.0).astype(dt)
    want = np.var(x.astype(np.longdouble), axis=axis).astype(np.float64)
    got = prim.var(x, axis=axis)
    np.testing.assert_allclose(H.to_host(got), want, rtol=4 * np.finfo(dt).eps)
    np.testing.assert_allclose(
        H.to_host(prim.std(x, axis=axis)), np.sqrt(want), rtol=4 * np.finfo(dt).eps
    )


def test_long_flat_and_split_axes(rng):
    x = rng.standard_normal(5003).astype(np.float32)[3:] * 3 + 7
    H.assert_same(prim.var(x), np.var(x.astype(np.float64)).astype(np.float32), rtol=2e-6)
    y = rng.standard_normal((2, 3000)) + 100
    for axis, z in ((1, y), (0, np.ascontiguousarray(y.T)), (0, y.T)):
        H.assert_same(prim.var(z, axis=axis), np.var(z, axis=axis), rtol=1e-12)
        H.assert_same(prim.nanstd(z, axis=axis), np.nanstd(z, axis=axis), rtol=1e-12)


@H.twins(rtol=1e-12)
def test_ddof_correction_keepdims_out(xp):
    x = data(np.random.default_rng(2), np.float64, (4, 6), nan=0.0)
    out = np.empty((1, 6), np.float32)
    return (
        xp.var(x, axis=0, correction=1.5),
        xp.std(x, ddof=2, keepdims=True),
        xp.nanvar(x, axis=1, ddof=1),
        xp.var(x, axis=0, keepdims=True, out=out),
        xp.var(x.astype(np.float32), dtype=np.float64),
    )


@H.twins(rtol=1e-12)
def test_where_and_mean(xp):
    x = data(np.random.default_rng(3), np.float64, (4, 6), nan=0.0)
    w = np.arange(6) % 2 == 0
    m = x.mean(axis=1, keepdims=True)
    return (
        xp.var(x, axis=1, where=w),
        xp.std(x, axis=1, mean=m),
        xp.nanvar(x, axis=0, where=w[None, :].repeat(4, 0)),
    )


@H.twins()
def test_degrees_of_freedom_warnings(xp):
    x = np.array([[1.0, np.nan], [np.nan, np.nan]])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = (
            xp.var(np.ones(3), ddof=3),
            xp.nanvar(x, axis=1, ddof=1),
            xp.var(np.empty((0, 2)), axis=0),
        )
    return r, sorted({str(m.message) for m in w if "Degrees" in str(m.message)})


@pytest.mark.parametrize("dt", [d for d in ALL if d not in COMPLEX and d != np.bool_])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_ptp(rng, dt, axis):
    x = data(rng, dt, (7, 33), nan=0.05)
    H.assert_same(prim.ptp(x, axis=axis), np.ptp(x, axis=axis))


@H.twins()
def test_ptp_wraps_as_numpy(xp):
    return xp.ptp(np.array([-128, 127], np.int8)), xp.ptp(np.array([0, 2**63 - 1, -(2**63)]))


@pytest.mark.parametrize("dt", ALL)
@pytest.mark.parametrize("axis", [None, 0, (0, 1)])
def test_count_nonzero(rng, dt, axis):
    x = data(rng, dt, (6, 10, 3))
    if np.dtype(dt).kind in "fc":
        x[rng.random(x.shape) < 0.3] = 0
    got, want = prim.count_nonzero(x, axis=axis), np.count_nonzero(x, axis=axis)
    H.assert_same(got, want, what=f"{np.dtype(dt)} {axis}")
    assert type(got) is type(want)


@H.twins(rtol=1e-12)
def test_average(xp):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((4, 5))
    w = rng.random((4, 5))
    return (
        xp.average(x),
        xp.average(x, axis=1, weights=w, returned=True),
        xp.average(x, axis=0, weights=w[:, 0]),
        xp.average(np.arange(6, dtype=np.int32).reshape(2, 3), axis=1, keepdims=True),
        xp.average(np.arange(6).reshape(2, 3), weights=np.ones((2, 3), np.float32), returned=True),
    )


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.complex128, np.int16])
def test_average_one_pass(rng, dt):
    """Every element with weights of its shape: one pass over both (stat_weighted)."""
    x = data(rng, dt, (3, 701), nan=0.0)
    w = rng.random((3, 701)).astype(np.float32)
    got = prim.average(x, weights=w, returned=True)
    H.assert_same(
        got, np.average(x, weights=w, returned=True), rtol=1e-5 if dt != np.float64 else 1e-12
    )


def test_average_errors():
    x = np.ones((2, 3))
    H.run_twins(lambda xp: xp.average(x, weights=np.ones(3)))  # TypeError: no axis
    H.run_twins(lambda xp: xp.average(x, axis=1, weights=np.ones(2)))  # ValueError: shape
    H.run_twins(lambda xp: xp.average(x, axis=1, weights=np.zeros((2, 3))))  # ZeroDivisionError
    H.run_twins(lambda xp: xp.average(x, weights=np.zeros((2, 3))))  # the same, one pass

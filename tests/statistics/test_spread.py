"""var, std, nanvar, nanstd, ptp, count_nonzero and average against NumPy: every dtype, axes,
ddof/correction, keepdims, where, mean, out, the warnings, and the variance's stability on data
far from zero."""

import warnings

import numpy as np
import pytest

import primitives as prim
from primitives.testing import harness as H

from .test_nan import COMPLEX, FLOATS, INTS, NUMBERS, ODD_COMPLEX, data, parts

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


@pytest.mark.parametrize("func", MOMENTS)
@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.int16, np.bool_])
@pytest.mark.parametrize("axis", [None, 1, (0, 2)])
def test_where_and_mean_every_dtype(rng, func, dt, axis):
    """where= (NaNs kept by it propagate in var, are skipped by nanvar), mean= (any mean, not
    only the slices' own: M2 + n |mean - m|^2), both, ddof, F order."""
    x = data(rng, dt, (4, 30, 3), nan=0.1 if np.dtype(dt).kind in "fc" else 0.0)
    w = rng.random(x.shape) < 0.7
    keep = np.mean(x, axis=axis, keepdims=True)
    off = keep + (0.5 if np.dtype(dt).kind != "c" else 0.5 - 0.25j)
    for kw in (
        dict(where=w),
        dict(mean=keep),
        dict(mean=off, ddof=1),
        dict(where=w, mean=off),
        dict(where=w[0, :, 0][None, :, None]),
    ):
        for y in (x, np.asfortranarray(x)):
            got = quiet(getattr(prim, func), y, axis=axis, **kw)
            want = quiet(getattr(np, func), y, axis=axis, **kw)
            H.assert_same(got, want, rtol=rtol(dt), atol=1e-6, what=f"{func} {dt} {axis} {kw}")


@pytest.mark.parametrize("func", ["var", "std"])
def test_mean_keyword_gives_the_same_bits(func):
    """NumPy's own test: var(a, mean=mean(a)) is var(a) to the bit (the given mean's difference
    from the pass's own, squared, is below M2's rounding), with where= too."""
    a = np.random.RandomState(1234).randn(10, 20, 5) + 0.5
    f = getattr(prim, func)
    m = prim.mean(a, axis=1, keepdims=True)
    assert np.array_equal(f(a, axis=1, mean=m), f(a, axis=1))
    w = a > 0.5
    m = prim.mean(a, axis=1, keepdims=True, where=w)
    assert np.array_equal(f(a, axis=1, mean=m, where=w), f(a, axis=1, where=w))


def messages(fn, *a, **k):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = fn(*a, **k)
    return r, [str(m.message) for m in w]


WHERE5 = np.array([[True], [False], [True], [True], [True]])


@pytest.mark.parametrize("func", MOMENTS)
@pytest.mark.parametrize(
    "kw",
    [
        dict(where=False),
        dict(axis=1, where=WHERE5),
        dict(axis=1, ddof=5),
        dict(axis=1, ddof=5, where=WHERE5),
        dict(axis=1, ddof=3, where=WHERE5, mean=np.full((5, 1), 2.0)),
        dict(ddof=25, keepdims=True),
        dict(axis=0, ddof=4),
        dict(axis=1),  # no warning
    ],
)
def test_warnings_as_numpy(func, kw):
    """NumPy's warnings, in NumPy's order: "Degrees of freedom <= 0 for slice" (nanvar: with a
    full stop, and nothing else), the mean's 0 / 0 and the division's "divide by zero" /
    "invalid value" ("scalar divide" for a scalar result)."""
    a = np.arange(25.0).reshape(5, 5)
    a[0, 0] = np.nan
    got, got_w = messages(getattr(prim, func), a, **kw)
    want, want_w = messages(getattr(np, func), a, **kw)
    H.assert_same(got, want, rtol=1e-12)
    assert got_w == want_w


def test_warnings_follow_errstate():
    with np.errstate(invalid="ignore", divide="ignore"):
        assert messages(prim.var, np.ones(3), where=False)[1] == [
            "Degrees of freedom <= 0 for slice"
        ]
    with np.errstate(invalid="raise"), pytest.raises(FloatingPointError):
        quiet(prim.var, np.ones(3), where=False)


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


def test_bool_bytes_beyond_one(rng):
    """A bool array whose bytes are not 0/1 (np.frombuffer of any bytes): any nonzero byte is
    True, as NumPy reads it, in every kernel that reads bool (count_nonzero, the moments)."""
    raw = rng.integers(0, 256, 3 * 700, dtype=np.uint8).tobytes()
    b = np.frombuffer(raw, dtype=bool).reshape(3, 700)
    for func in ("count_nonzero", "var", "std", "nanvar", "nanstd"):
        for axis in (None, 0, 1):
            got, want = getattr(prim, func)(b, axis=axis), getattr(np, func)(b, axis=axis)
            H.assert_same(got, want, rtol=1e-12, what=f"{func} {axis}")
    w = np.arange(700) % 3 > 0
    H.assert_same(prim.var(b, axis=1, where=w), np.var(b, axis=1, where=w), rtol=1e-12)


@pytest.mark.parametrize("func", ["nansum", "nanargmax", "nancumsum"])
def test_bool_bytes_beyond_one_plain(func):
    """nan-functions of bool are the plain reductions and scans (sum, argmax, cumsum), which
    read any nonzero byte as True, as NumPy: 0x02 counts 1 in a sum, ties with 0x01 in argmax."""
    b = np.frombuffer(b"\x01\x02\xff\x00" * 50, dtype=bool).reshape(20, 10)
    for axis in (None, 1):
        H.assert_same(getattr(prim, func)(b, axis=axis), getattr(np, func)(b, axis=axis))


@pytest.mark.parametrize("dt", [d for d in ALL if d != np.bool_])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_ptp(rng, dt, axis):
    x = data(rng, dt, (7, 33), nan=0.05)
    H.assert_same(prim.ptp(x, axis=axis), np.ptp(x, axis=axis))


@pytest.mark.parametrize("dt", COMPLEX)
def test_ptp_complex_nans(rng, dt):
    """Lexicographic max - min; a slice holding a NaN gives its first NaN minus itself (0 for a
    finite part, NaN for a NaN or infinite one), in C and F order and over several blocks."""
    v = np.array(ODD_COMPLEX, dt)
    x = v[rng.integers(0, len(v), (8, 41))]
    x[2] = v[NUMBERS][rng.integers(0, 6, 41)]  # a row without NaN
    for y in (x, np.asfortranarray(x)):
        for axis in (None, 0, 1, (0, 1)):
            H.assert_same(
                parts(quiet(prim.ptp, y, axis=axis)),
                parts(quiet(np.ptp, y, axis=axis)),
                what=f"{axis}",
            )
    big = np.array([3 + 1j, -2 + 5j, 0.5 - 1j], dt)[rng.integers(0, 3, 4001)][1:]
    big[2500] = complex(1, np.nan)
    big[3100] = complex(np.nan, 1)
    for y in (big, big[:2400]):
        H.assert_same(parts(prim.ptp(y)), parts(quiet(np.ptp, y)))


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


def test_average_returned_types():
    """NumPy's types for NumPy input (scalars over every axis, arrays otherwise), for both
    members of the returned tuple; CuPy's test passes NumPy arrays to cupy.average, which
    converts them to CuPy arrays: the caller's kind is kept here instead."""
    a = np.arange(6.0).reshape(2, 3)
    for axis, w in ((1, None), (None, a), (1, a), (None, None)):
        got = prim.average(a, axis=axis, weights=w, returned=True)
        want = np.average(a, axis=axis, weights=w, returned=True)
        assert [type(g) for g in got] == [type(v) for v in want], (axis, w is None)
        H.assert_same(got, want, rtol=1e-12)


@pytest.mark.gpu
def test_average_returned_device_types(on_gpu):
    if not on_gpu:
        pytest.skip("needs the CUDA backend")
    import cupy

    a = cupy.arange(6.0).reshape(2, 3)
    for axis, w in ((1, None), (None, a), (1, a), (None, None)):
        got = prim.average(a, axis=axis, weights=w, returned=True)
        assert all(isinstance(g, cupy.ndarray) for g in got), (axis, w is None)


def test_average_errors():
    x = np.ones((2, 3))
    H.run_twins(lambda xp: xp.average(x, weights=np.ones(3)))  # TypeError: no axis
    H.run_twins(lambda xp: xp.average(x, axis=1, weights=np.ones(2)))  # ValueError: shape
    H.run_twins(lambda xp: xp.average(x, axis=1, weights=np.zeros((2, 3))))  # ZeroDivisionError
    H.run_twins(lambda xp: xp.average(x, weights=np.zeros((2, 3))))  # the same, one pass


@pytest.mark.parametrize("func", ["nanmin", "nanmax", "ptp"])
@pytest.mark.parametrize("dt", ALL)
def test_order_cases_of_cupy(rng, func, dt):
    """CuPy's TestOrder cases (test_nanmin_*, test_nanmax_*, test_ptp_*): random values of every
    dtype (complex with both parts random) over every axis of (2, 3, 4), the whole of (2, 3), and
    axis 0 of (3, 1000)."""
    if func == "ptp" and dt == np.bool_:
        pytest.skip("NumPy has no boolean subtraction (the error test covers it)")

    def shaped_random(shape):
        v = rng.random(shape) * 10
        if np.dtype(dt).kind == "c":
            v = v + 1j * rng.random(shape) * 10
        return v.astype(dt) if dt != np.bool_ else v > 5

    cases = [(shaped_random((2, 3)), None), (shaped_random((3, 1000)), 0)]
    cases += [(shaped_random((2, 3, 4)), axis) for axis in (0, 1, 2)]
    for x, axis in cases:
        H.assert_same(getattr(prim, func)(x, axis=axis), getattr(np, func)(x, axis=axis))


@pytest.mark.parametrize("func", ["var", "std", "nanvar", "nanstd"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("axis", [None, 1])
def test_complex_dtype_of_real_input(rng, func, dtype, axis):
    """dtype=complex of real input: NumPy squares the deviations in the complex dtype (x * x),
    a result of that complex dtype (imaginary part 0), not the real one of complex input."""
    x = rng.standard_normal((5, 7))
    x[1, 2] = np.nan
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        H.run_twins(lambda xp: getattr(xp, func)(x, axis=axis, dtype=dtype), rtol=1e-5, name=func)
    # numpy.nanvar's ComplexWarning (its complex mean subtracted into the real input's copy),
    # once from NumPy's call and once from this library's; var's neither
    complex_warnings = [w for w in got if issubclass(w.category, np.exceptions.ComplexWarning)]
    assert len(complex_warnings) == (2 if func.startswith("nan") else 0)

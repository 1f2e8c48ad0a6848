"""nansum, nanprod, nanmin, nanmax, nanmean, nanargmin, nanargmax, nancumsum, nancumprod against
NumPy: every dtype, NaNs, axes, layouts, keepdims, out, initial, where, warnings."""

import warnings

import numpy as np
import pytest

import primitives as prim
from primitives.testing import harness as H

FLOATS = [np.float16, np.float32, np.float64]
COMPLEX = [np.complex64, np.complex128]
INTS = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.uint64]
REDUCTIONS = ["nansum", "nanprod", "nanmin", "nanmax", "nanmean"]
ARGS = ["nanargmin", "nanargmax"]


def data(rng, dt, shape, nan=0.2):
    """Values of ``dt`` (small, with ties), a fraction ``nan`` of them NaN for float/complex."""
    dt = np.dtype(dt)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        lo = 0 if dt.kind == "u" else -9
        return rng.integers(lo, 9, shape).astype(dt)
    x = (rng.integers(-8, 9, shape) / 4 + 1).astype(dt)
    if dt.kind == "c":
        x = x + 1j * (rng.integers(-8, 9, shape) / 4).astype(dt)
    x[rng.random(shape) < nan] = np.nan
    return x


def rtol(dt, func=""):
    dt = np.dtype(dt)
    if func.endswith("prod"):
        return 2e-2 if dt in (np.float16,) else 1e-4 if dt in (np.float32, np.complex64) else 1e-12
    return {"e": 5e-3, "f": 2e-6, "F": 2e-6}.get(dt.char, 1e-12)


def quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*a, **k)


@pytest.mark.parametrize("func", REDUCTIONS)
@pytest.mark.parametrize("dt", FLOATS + COMPLEX + INTS)
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 2), -1])
def test_reductions(rng, func, dt, axis):
    x = data(rng, dt, (5, 7, 9))
    if func == "nanprod" and np.dtype(dt).kind in "iu":
        x = x % 3  # no wrap-around beyond NumPy's own
    got = quiet(getattr(prim, func), x, axis=axis)
    want = quiet(getattr(np, func), x, axis=axis)
    H.assert_same(got, want, rtol=rtol(dt, func), what=f"{func} {np.dtype(dt)} {axis}")


@pytest.mark.parametrize("func", ARGS)
@pytest.mark.parametrize("dt", FLOATS + COMPLEX + [np.int32, np.bool_])
@pytest.mark.parametrize("axis", [None, 0, 1, 2])
def test_args(rng, func, dt, axis):
    x = data(rng, dt, (6, 5, 40), nan=0.1)
    if np.dtype(dt).kind in "fc":
        x[..., 0] = 1  # no slice of NaNs alone
        x[0, 0, 3] = np.inf
    H.assert_same(getattr(prim, func)(x, axis=axis), getattr(np, func)(x, axis=axis))


def parts(v):
    """The real and imaginary parts of a complex result, compared apart (which part of a complex
    NaN is NaN shows)."""
    v = np.asarray(H.to_host(v))
    return v.real, v.imag


NAN = np.nan
#: complex NaNs of every kind (either part, both, beside an infinity), finite values, infinities
ODD_COMPLEX = [
    complex(NAN, 1),
    complex(1, NAN),
    1 + 2j,
    1 + 1j,
    complex(NAN, NAN),
    complex(np.inf, 5),
    complex(np.inf, -1),
    complex(-np.inf, 0),
    complex(np.inf, NAN),
    -3 + 0j,
]
NANS, NUMBERS = [0, 1, 4, 8], [2, 3, 5, 6, 7, 9]


@pytest.mark.parametrize("dt", COMPLEX)
@pytest.mark.parametrize("func", ["nanmin", "nanmax", "nanargmin", "nanargmax"])
def test_complex_order_and_nans(rng, dt, func):
    """NumPy's lexicographic order, a complex NaN (either part) skipped by nanmin/nanmax and read
    as (+-inf, 0) by nanargmin/nanargmax (so (inf, -1) < NaN < (inf, 5) for the minimum), a
    slice of NaNs alone giving its first element; every kernel (rows, columns, whole array)."""
    v = np.array(ODD_COMPLEX, dt)
    x = v[rng.integers(0, len(v), (9, 37))]
    x[:, 0] = v[NUMBERS][rng.integers(0, 6, 9)]  # a non-NaN in every row for the arg-functions
    x[3] = v[NANS][rng.integers(0, 4, 37)]  # a row of NaNs alone (nanmin/nanmax)
    for axis in (None, 0, 1):
        y = x if func in ("nanmin", "nanmax") or axis != 1 else np.delete(x, 3, 0)
        if func.startswith("nanarg") and axis == 0:
            y = x[:, 1:][[0, 1, 2, 4]]  # columns with a non-NaN
            y[0] = v[NUMBERS][rng.integers(0, 6, y.shape[1])]
        got = quiet(getattr(prim, func), y, axis=axis)
        want = quiet(getattr(np, func), y, axis=axis)
        H.assert_same(parts(got), parts(want), what=f"{func} {axis}")
    big = v[rng.integers(0, len(v), 3001)][1:]  # several blocks, an unaligned start
    H.assert_same(parts(quiet(getattr(prim, func), big)), parts(quiet(getattr(np, func), big)))


@H.twins()
def test_complex_all_nan_and_initial(xp):
    x = np.array([[complex(1, NAN), complex(NAN, 1)], [complex(NAN, 2), 3 + 0j]])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = xp.nanmin(x, axis=1), xp.nanmax(x)
    low = xp.nanmin(x, axis=1, initial=-1 + 5j), xp.nanmax(x, axis=1, initial=2 + 0j)
    return [parts(v) for v in r + low], sorted({str(m.message) for m in w})


@pytest.mark.parametrize("func", REDUCTIONS + ARGS)
def test_long_flat(rng, func):
    """Several blocks of the whole-array kernel, an unaligned start (a view from element 1)."""
    x = data(rng, np.float32, 3001, nan=0.05)[1:]
    if func == "nanprod":
        x = np.where(np.isnan(x), x, 1 + (x - 1) / 1000).astype(np.float32)
    H.assert_same(getattr(prim, func)(x), getattr(np, func)(x), rtol=1e-4)


@pytest.mark.parametrize("order", ["C", "F", "strided"])
@pytest.mark.parametrize("axis", [0, 1, (0, 1), None])
def test_layouts(rng, order, axis):
    x = data(rng, np.float64, (33, 70))
    x = np.asfortranarray(x) if order == "F" else x[:, ::2] if order == "strided" else x
    for func in ("nansum", "nanmax", "nanmean"):
        H.assert_same(
            getattr(prim, func)(x, axis=axis), getattr(np, func)(x, axis=axis), rtol=1e-12
        )
    if not isinstance(axis, tuple):
        H.assert_same(prim.nanargmax(x, axis=axis), np.nanargmax(x, axis=axis))


def test_long_rows_and_columns_split(rng):
    """Few long rows (split into chunks, then combined) and few long columns."""
    x = data(rng, np.float32, (3, 2000), nan=0.1)
    for func in ("nansum", "nanmin", "nanmean", "nanargmin"):
        H.assert_same(getattr(prim, func)(x, axis=1), getattr(np, func)(x, axis=1), rtol=1e-5)
        H.assert_same(getattr(prim, func)(x.T, axis=0), getattr(np, func)(x.T, axis=0), rtol=1e-5)
        y = np.ascontiguousarray(x.T)
        H.assert_same(getattr(prim, func)(y, axis=0), getattr(np, func)(y, axis=0), rtol=1e-5)


@H.twins()
def test_keepdims_out(xp):
    x = data(np.random.default_rng(1), np.float64, (4, 6))
    out = np.empty((1, 6), np.float32)
    r = xp.nansum(x, axis=0, keepdims=True, out=out)
    return r, xp.nanmax(x, axis=1, keepdims=True)


@H.twins(rtol=1e-12)
def test_initial_where(xp):
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, np.nan]])
    w = np.array([True, False, True])
    return (
        xp.nansum(x, axis=1, initial=10.0),
        xp.nanprod(x, initial=2.0),
        xp.nanmin(x, axis=0, initial=0.5),
        xp.nansum(x, axis=1, where=w),
        xp.nanmean(x, axis=0, where=w),
        xp.nanmax(x, where=w, initial=-1.0),
    )


@H.twins(rtol=1e-12)
def test_dtype(xp):
    x = np.array([1.5, np.nan, 2.25], np.float32)
    return (
        xp.nansum(x, dtype=np.float64),
        xp.nanmean(x, dtype=np.float64),
        xp.nansum(x, dtype=np.int64),
    )


@H.twins()
def test_all_nan_slices(xp):
    x = np.array([[np.nan, np.nan], [1.0, np.nan]])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = (xp.nanmin(x, axis=1), xp.nanmax(x, axis=1), xp.nanmean(x, axis=1))
    return r, sorted({str(m.message) for m in w})


@pytest.mark.parametrize("func", ARGS)
def test_all_nan_arg_raises(func):
    x = np.array([[np.nan, 1.0], [np.nan, np.nan]])
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        getattr(prim, func)(x, axis=1)
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        getattr(prim, func)(np.full(5, np.nan, np.float32))


@H.twins()
def test_empty(xp):
    e = np.empty((0, 3), np.float32)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = (xp.nansum(e, axis=0), xp.nanprod(e), xp.nanmean(e, axis=0), xp.nansum(e, axis=1))
    return r, sorted({str(m.message) for m in w})


@pytest.mark.parametrize("func", ["nanmin", "nanmax"])
def test_empty_min_max_raise(func):
    H.run_twins(lambda xp: getattr(xp, func)(np.empty((0, 3))), name=func)


@pytest.mark.parametrize("func", ARGS)
def test_empty_arg_raises(func):
    H.run_twins(lambda xp: getattr(xp, func)(np.empty(0)))


@pytest.mark.parametrize("func", ["nancumsum", "nancumprod"])
@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.int32, np.bool_])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_cumulative(rng, func, dt, axis):
    x = data(rng, dt, (4, 9))
    if func == "nancumprod" and np.dtype(dt).kind in "fc":
        x = np.where(np.isnan(x), x, 1 + (x - 1) / 8).astype(dt)
    H.assert_same(
        getattr(prim, func)(x, axis=axis), getattr(np, func)(x, axis=axis), rtol=rtol(dt, func)
    )


@pytest.mark.parametrize("func", ["nancumsum", "nancumprod"])
@pytest.mark.parametrize("out_dt", [np.bool_, np.int8, np.float16])
def test_cumulative_out_scans_in_the_promotion_of_out(func, out_dt):
    """With out= and no dtype, the scan runs in the promotion of out's dtype and the input's, as
    cumsum's (NumPy calls it): uint8 sums into a bool out add in uint8, so a running sum of
    exactly 256 wraps to 0 and reads False (a wider scan would read True there)."""
    x = np.full(300, 2 if func == "nancumsum" else 1, np.uint8)
    if func == "nancumprod":
        x[[10, 20]] = 16  # the running product 256 at index 20
    want = getattr(np, func)(x, out=np.empty(300, out_dt))
    if out_dt == np.bool_:
        assert not want[127 if func == "nancumsum" else 20]
    H.assert_same(getattr(prim, func)(x, out=np.empty(300, out_dt)), want)
    with pytest.raises(ValueError, match=func):  # out's shape checked before any launch
        getattr(prim, func)(np.array([1.0, np.nan]), out=np.empty(3))


def test_device_results_stay_on_device(backend):
    if not backend.is_cuda:
        pytest.skip("GPU only")
    import cupy

    x = cupy.asarray(np.array([1.0, np.nan, 2.0], np.float32))
    r = prim.nansum(x)
    assert isinstance(r, cupy.ndarray) and r.shape == () and float(r) == 3.0


@pytest.mark.parametrize("func", ["nansum", "nanargmax", "nanmean"])
def test_race_exposing_order(rng, func, schedule):
    """The whole-array kernel (block reductions, the last block's combination) and the split
    axes, in index order and with the emulator's race-exposing scheduler."""
    x = data(rng, np.float32, (3, 700), nan=0.1)
    for axis in (None, 1):
        H.assert_same(getattr(prim, func)(x, axis=axis), getattr(np, func)(x, axis=axis), rtol=1e-5)
    H.assert_same(
        prim.var(x, axis=axis),
        np.var(x.astype(np.float64), axis=axis).astype(np.float32),
        rtol=1e-5,
    )

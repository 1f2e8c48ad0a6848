"""Hypothesis properties: every reduction of the family equals NumPy's over random shapes, axes,
layouts (C, F, strided views), dtypes and NaN patterns."""

import warnings

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import primitives as prim
from primitives.testing import harness as H

FUNCS = ["nansum", "nanmax", "nanmean", "var", "nanstd", "ptp", "count_nonzero", "nanargmin"]
FUNCS += ["nanmin", "nanargmax", "std"]
DTYPES = [np.float32, np.float64, np.int32, np.complex64, np.complex128]
RTOL = {np.float32: 1e-5, np.float64: 1e-12, np.int32: 1e-12, np.complex64: 1e-5}
RTOL[np.complex128] = 1e-12
NAN = np.nan
#: a complex NaN has either part NaN (or both); which part shows in nanmin/nanmax of NaNs alone
#: and in ptp (the first NaN minus itself)
COMPLEX_NANS = np.array([complex(NAN, 1), complex(2, NAN), complex(NAN, NAN), complex(NAN, 0)])


@st.composite
def cases(draw):
    shape = tuple(draw(st.lists(st.integers(1, 9), min_size=1, max_size=3)))
    dt = draw(st.sampled_from(DTYPES))
    func = draw(st.sampled_from(FUNCS))
    if func.startswith("nanarg"):
        axis = draw(st.one_of(st.none(), st.integers(0, len(shape) - 1)))
    else:
        axes = draw(st.lists(st.integers(0, len(shape) - 1), unique=True, max_size=len(shape)))
        axis = draw(st.one_of(st.none(), st.just(tuple(axes))))
    layout = draw(st.sampled_from(["C", "F", "strided"]))
    seed = draw(st.integers(0, 2**16))
    nan = draw(st.sampled_from([0.0, 0.3]))
    mean = func in ("var", "std") and draw(st.booleans())  # mean= (its own, shifted)
    return shape, dt, func, axis, layout, seed, nan, mean


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_matches_numpy(case):
    shape, dt, func, axis, layout, seed, nan, mean = case
    rng = np.random.default_rng(seed)
    x = rng.integers(-5, 6, shape).astype(dt)
    cplx = np.dtype(dt).kind == "c"
    if cplx:  # ties in the real parts: the imaginary parts order them
        x += 1j * rng.integers(-2, 3, shape)
    if np.dtype(dt).kind in "fc" and not func.startswith("nanarg"):
        holes = rng.random(shape) < nan
        x[holes] = COMPLEX_NANS[rng.integers(0, 4, int(holes.sum()))] if cplx else np.nan
    if layout == "F":
        x = np.asfortranarray(x)
    elif layout == "strided":
        x = np.repeat(x, 2, axis=-1)[..., ::2]
    kw = {}
    if mean:
        kw["mean"] = np.mean(x, axis=axis, keepdims=True) + 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = getattr(np, func)(x, axis=axis, **kw)
        got = getattr(prim, func)(x, axis=axis, **kw)
    what = f"{func} {x.dtype} {shape} {axis} {kw}"
    if cplx and func in ("nanmin", "nanmax", "ptp"):  # which part of a NaN is NaN, too
        got, want = np.asarray(H.to_host(got)), np.asarray(want)
        got, want = (got.real, got.imag), (want.real, want.imag)
    H.assert_same(got, want, rtol=RTOL[dt], atol=1e-9, what=what)

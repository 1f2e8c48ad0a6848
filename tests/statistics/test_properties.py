"""Hypothesis properties: every reduction of the family equals NumPy's over random shapes, axes,
layouts (C, F, strided views), dtypes and NaN patterns."""

import warnings

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import primitives as prim
from primitives.testing import harness as H

FUNCS = ["nansum", "nanmax", "nanmean", "var", "nanstd", "ptp", "count_nonzero", "nanargmin"]
DTYPES = [np.float32, np.float64, np.int32, np.complex64]
RTOL = {np.float32: 1e-5, np.float64: 1e-12, np.int32: 1e-12, np.complex64: 1e-5}


@st.composite
def cases(draw):
    shape = tuple(draw(st.lists(st.integers(1, 9), min_size=1, max_size=3)))
    dt = draw(st.sampled_from(DTYPES))
    func = draw(st.sampled_from(FUNCS))
    if func == "nanargmin":
        axis = draw(st.one_of(st.none(), st.integers(0, len(shape) - 1)))
    else:
        axes = draw(st.lists(st.integers(0, len(shape) - 1), unique=True, max_size=len(shape)))
        axis = draw(st.one_of(st.none(), st.just(tuple(axes))))
    layout = draw(st.sampled_from(["C", "F", "strided"]))
    seed = draw(st.integers(0, 2**16))
    nan = draw(st.sampled_from([0.0, 0.3]))
    return shape, dt, func, axis, layout, seed, nan


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_matches_numpy(case):
    shape, dt, func, axis, layout, seed, nan = case
    rng = np.random.default_rng(seed)
    x = rng.integers(-5, 6, shape).astype(dt)
    if np.dtype(dt).kind in "fc" and func != "nanargmin":
        x[rng.random(shape) < nan] = np.nan
    if np.dtype(dt).kind == "c" and func in ("nanmax", "ptp", "nanargmin"):
        x = x.real.copy()
    if layout == "F":
        x = np.asfortranarray(x)
    elif layout == "strided":
        x = np.repeat(x, 2, axis=-1)[..., ::2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = getattr(np, func)(x, axis=axis)
        got = getattr(prim, func)(x, axis=axis)
    H.assert_same(got, want, rtol=RTOL[dt], atol=1e-9, what=f"{func} {x.dtype} {shape} {axis}")

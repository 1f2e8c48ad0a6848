"""The layout of a reduction's result, as NumPy's: the kept axes in the input's memory order
(NumPy allocates the result in order "K"), so that a reduction of an F-ordered array is F-ordered,
with and without ``keepdims``, over one axis or several; argmin/argmax, whose results NumPy
makes C-ordered, stay C-ordered."""

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

import primitives as prim
from primitives.testing import harness as H
from tests.test_properties import REAL, SETTINGS, arrays, axes


def _base():
    return np.arange(120.0).reshape(4, 5, 6)


LAYOUTS = {
    "F": lambda: np.asfortranarray(_base()),
    "transposed": lambda: _base().transpose(2, 0, 1),
    "reversed": lambda: _base()[::-1],
    "sliced": lambda: np.arange(240.0).reshape(4, 5, 12)[:, :, ::2],
    "unit axis": lambda: np.asfortranarray(np.ones((4, 1, 6))),
}


def _same_layout(got, want):
    got = H.to_host(got)
    assert got.flags.c_contiguous == want.flags.c_contiguous
    assert got.flags.f_contiguous == want.flags.f_contiguous
    for d, g, w in zip(want.shape, got.strides, want.strides):
        assert d == 1 or g == w, (got.strides, want.strides)


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("name", ["sum", "prod", "min", "max", "mean", "any", "all"])
@pytest.mark.parametrize("axis", [0, 1, (0, 2), (1, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_layout_follows_input(layout, name, axis, keepdims):
    x = LAYOUTS[layout]()
    got = H.run_twins(
        lambda xp: getattr(xp, name)(x, axis=axis, keepdims=keepdims), name=name, rtol=1e-12
    )
    _same_layout(got, getattr(np, name)(x, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("name", ["argmin", "argmax"])
@pytest.mark.parametrize("keepdims", [False, True])
def test_arg_results_are_c_ordered(name, keepdims):
    x = np.asfortranarray(_base())
    got = getattr(prim, name)(x, axis=1, keepdims=keepdims)
    _same_layout(got, getattr(np, name)(x, axis=1, keepdims=keepdims))


@SETTINGS
@given(data=st.data(), name=st.sampled_from(("sum", "max", "mean", "any")))
def test_layout_property(data, name):
    """Every layout of tests/test_properties.py (C, F, reversed, sliced, transposed) and axis
    form: the result's contiguity and its strides on axes longer than 1 are NumPy's."""
    x = data.draw(arrays(dtypes=REAL, min_ndim=1), "x")
    assume(x.size)
    axis = data.draw(axes(x.ndim), "axis")
    keepdims = data.draw(st.booleans(), "keepdims")
    try:
        want = getattr(np, name)(x, axis=axis, keepdims=keepdims)
    except Exception:  # an axis out of range: the error tests cover it  # noqa: BLE001
        assume(False)
    if np.ndim(want) == 0:
        return
    _same_layout(getattr(prim, name)(x, axis=axis, keepdims=keepdims), want)

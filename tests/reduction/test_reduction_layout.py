"""The layout of a reduction's result, as NumPy's: the kept axes in the input's memory order
(NumPy allocates the result in order "K"), so that a reduction of an F-ordered array is F-ordered,
with and without ``keepdims``, over one axis or several; argmin/argmax, whose results NumPy
makes C-ordered, stay C-ordered."""

import numpy as np
import pytest

import primitives as prim
from primitives.testing import harness as H


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

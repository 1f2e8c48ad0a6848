"""sum/min/max/reduce with NumPy's axis, keepdims and out (the flattened reductions are in
test_reduction.py)."""

import numpy as np
import pytest

import primitives as prim
from primitives.testing import harness as H

FUNCS = {"sum": np.sum, "min": np.min, "max": np.max}


def _data(rng, shape, dtype, order="C"):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return np.asarray(rng.random(shape) < 0.5, order=order)
    if dt.kind == "f":
        x = rng.uniform(-1, 1, shape).astype(dt)
    else:
        x = rng.integers(-100 if dt.kind == "i" else 0, 100, shape).astype(dt)
    return np.asarray(x, order=order)


AXES = {2: [None, 0, 1, -1, (0, 1), (1, 0), (-2,)],
        3: [None, 0, 1, 2, -1, (0, 2), (1, 2), (0, 1, 2), (2, 0)]}


@pytest.mark.parametrize("func", sorted(FUNCS))
@pytest.mark.parametrize("shape", [(6, 5), (1, 7), (7, 1), (3, 4, 5), (2, 1, 3)])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.int8, np.bool_, np.float16],
                         ids=lambda d: np.dtype(d).name)
def test_axis_and_keepdims_equal_numpy(func, shape, order, dtype, rng):
    """Every axis form (None, int, negative, tuple in any order) with and without keepdims, on
    C- and F-ordered arrays and a strided view: values, dtype and shape as NumPy's."""
    x = _data(rng, shape, dtype, order)
    for y in (x, x[..., ::-1]):
        for axis in AXES[y.ndim]:
            for keepdims in (False, True):
                got = getattr(prim, func)(y, axis=axis, keepdims=keepdims)
                want = FUNCS[func](y, axis=axis, keepdims=keepdims)
                assert np.shape(got) == np.shape(want), (axis, keepdims)
                assert np.asarray(got).dtype == np.asarray(want).dtype
                np.testing.assert_allclose(np.asarray(got, np.float64),
                                           np.asarray(want, np.float64),
                                           rtol=1e-2 if x.dtype == np.float16 else 1e-12,
                                           atol=2e-2 if x.dtype == np.float16 else 0)


def test_reduce_takes_axis(rng):
    x = _data(rng, (4, 6), np.float32)
    np.testing.assert_allclose(prim.reduce(x, "max", axis=1), x.max(axis=1))
    np.testing.assert_allclose(prim.reduce(x, "sum", axis=0, keepdims=True),
                               x.sum(axis=0, keepdims=True), rtol=1e-6)


def test_out(rng):
    """out receives the result (cast to its dtype, as NumPy's reductions cast) and is
    returned; a full reduction into a 0-d out too."""
    x = _data(rng, (5, 3), np.int32)
    out = np.empty(3, np.int64)
    assert prim.sum(x, axis=0, out=out) is out
    assert np.array_equal(out, x.sum(axis=0))
    outf = np.empty((5, 1), np.float64)
    assert prim.max(x, axis=1, keepdims=True, out=outf) is outf
    assert np.array_equal(outf, x.max(axis=1, keepdims=True))
    y = x * 1.7
    outi = np.empty(3, np.int32)
    assert np.array_equal(prim.sum(y, axis=0, out=outi), np.sum(y, axis=0, out=np.empty_like(outi)))
    out0 = np.empty((), np.float32)
    assert prim.sum(x, out=out0) is out0 and out0 == x.sum()


def test_empty_axes():
    """A sum over a zero-length axis is zeros; a min or max raises NumPy's ValueError."""
    x = np.ones((0, 3), np.float32)
    assert np.array_equal(prim.sum(x, axis=0), np.sum(x, axis=0))
    assert prim.sum(x, axis=1).shape == (0,)
    with pytest.raises(ValueError):
        np.min(x, axis=0)
    H.raises_like(ValueError, "min", prim.min, x, axis=0)
    assert prim.max(x, axis=1).shape == (0,)


@pytest.mark.parametrize("func,kw,exc", [
    ("sum", {"axis": 2}, np.exceptions.AxisError),
    ("min", {"axis": -3}, np.exceptions.AxisError),
    ("max", {"axis": (0, 0)}, ValueError),
    ("sum", {"axis": 0.5}, TypeError),
    ("sum", {"axis": 0, "out": np.empty(4)}, ValueError),
    ("sum", {"axis": 0, "out": np.empty((2, 3))}, ValueError),
])
def test_axis_errors(func, kw, exc):
    """NumPy's error types (a bad axis, a repeated axis, a non-integer axis, out of another
    shape), each message naming the function."""
    x = np.ones((2, 3), np.float64)
    with pytest.raises(exc):
        FUNCS[func](x, **kw)
    H.raises_like(exc, func, getattr(prim, func), x, **kw)

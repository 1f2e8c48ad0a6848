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


# ---- mean, any, all ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint64, np.float16, np.float32,
                                   np.float64, np.bool_], ids=lambda d: np.dtype(d).name)
def test_mean_any_all_equal_numpy(dtype, rng):
    """mean (NumPy's accumulator and result dtypes), any and all over every axis form, with and
    without keepdims: values, dtypes and shapes (NumPy scalars for a full reduction)."""
    x = _data(rng, (4, 5, 3), dtype)
    for axis in (None, 0, (0, 2), -1):
        for keepdims in (False, True):
            got, want = prim.mean(x, axis=axis, keepdims=keepdims), np.mean(x, axis=axis,
                                                                             keepdims=keepdims)
            assert np.asarray(got).dtype == np.asarray(want).dtype
            assert np.shape(got) == np.shape(want) and type(got) is type(want)
            tol = {np.float16: 1e-2, np.float32: 1e-5}.get(x.dtype.type, 1e-12)
            np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64),
                                       rtol=tol, atol=tol)  # float sums: another order
            for f in ("any", "all"):
                got = getattr(prim, f)(x, axis=axis, keepdims=keepdims)
                want = getattr(np, f)(x, axis=axis, keepdims=keepdims)
                assert type(got) is type(want) and np.array_equal(got, want)


def test_any_all_edge_cases():
    """NaN is true; nothing reduced gives False (any) and True (all); out receives the result."""
    assert prim.any(np.array([0.0, np.nan])) == np.any(np.array([0.0, np.nan]))
    assert np.array_equal(prim.any(np.zeros((0, 3)), axis=0), np.zeros(3, bool))
    assert np.array_equal(prim.all(np.zeros((0, 3)), axis=0), np.ones(3, bool))
    assert prim.all(np.zeros(0)) is np.all(np.zeros(0))
    out = np.empty(2, bool)
    assert prim.any(np.eye(2), axis=1, out=out) is out and out.all()


def test_mean_edge_cases():
    """An empty mean is NaN with NumPy's warning; dtype= chooses the accumulator and result;
    out receives the result; the plan equals the function."""
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        assert np.isnan(prim.mean(np.zeros(0)))
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    got = prim.mean(x, axis=0, dtype=np.float32)
    assert got.dtype == np.float32 and np.allclose(got, np.mean(x, axis=0, dtype=np.float32))
    out = np.empty(3)
    assert prim.mean(x, axis=1, out=out) is out and np.allclose(out, x.mean(axis=1))
    assert np.allclose(prim.mean.plan(x, axis=1)(x), x.mean(axis=1))


@pytest.mark.parametrize("func", ["mean", "any", "all"])
def test_mean_any_all_errors(func):
    """A string array, a bad axis and out of another shape: NumPy's error types, named."""
    H.raises_like(TypeError, func, getattr(prim, func), np.array(["a", "b"]))
    H.raises_like(np.exceptions.AxisError, func, getattr(prim, func), np.ones((2, 3)), axis=2)
    H.raises_like(ValueError, func, getattr(prim, func), np.ones((2, 3)), axis=0,
                  out=np.empty(2))

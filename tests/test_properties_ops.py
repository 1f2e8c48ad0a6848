"""Property tests of user operators (prim.Op) against NumPy's ufunc.reduce and ufunc.accumulate,
over the layouts and axis forms of test_properties (C, F, negative-stride, sliced, transposed
views; None, an int, a tuple, ``()``; keepdims; 0-d, empty and length-1 axes): every example the
same values and shapes as NumPy, or the same exception type where NumPy raises. Values are small
integers (exact in every dtype, so sums agree to the bit whatever the order), NaNs in floats."""

import numpy as np
from hypothesis import given, strategies as st

import primitives as prim
from primitives.testing import harness as H

from tests.test_properties import SETTINGS, arrays, axes
from tests.user_ops import MAX, lowest

INTS = tuple(np.dtype(t) for t in (np.int32, np.uint64))
FLOATS = tuple(np.dtype(t) for t in (np.float32, np.float64))
#: name -> (expression, NumPy ufunc, dtypes): exact on small integers, NaN-propagating on floats
OPS = {
    "add": ("a + b", np.add, INTS + FLOATS),
    "xor": ("a ^ b", np.bitwise_xor, INTS),
    "max": (MAX, np.maximum, INTS),
}


def _identity(name, dt):
    return lowest(dt) if name == "max" else 0


def _same(got, want):
    got = np.asarray(H.to_host(got))
    assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
    np.testing.assert_array_equal(got, want)


def _compare(ours, numpys):
    """Our call against NumPy's: the same result, or the same exception type."""
    try:
        want = np.asarray(numpys())
    except Exception as exc:  # noqa: BLE001 - ours must raise its type
        try:
            ours()
        except type(exc):
            return
        raise AssertionError(f"NumPy raised {type(exc).__name__}; we did not")
    _same(ours(), want)


@SETTINGS
@given(data=st.data())
def test_user_reduce(data):
    name = data.draw(st.sampled_from(sorted(OPS)))
    expr, ufunc, dtypes = OPS[name]
    x = data.draw(arrays(dtypes=dtypes))
    axis = data.draw(axes(x.ndim))
    keepdims = data.draw(st.booleans())
    ident = _identity(name, x.dtype)
    op = prim.Op(expr, ident)
    _compare(
        lambda: prim.reduce(x, op, axis=axis, keepdims=keepdims),
        lambda: ufunc.reduce(
            x, axis=axis, dtype=x.dtype, keepdims=keepdims, initial=x.dtype.type(ident)
        ),
    )


@SETTINGS
@given(data=st.data())
def test_user_scan(data):
    name = data.draw(st.sampled_from(sorted(OPS)))
    expr, ufunc, dtypes = OPS[name]
    x = data.draw(arrays(dtypes=dtypes, min_ndim=1))
    axis = data.draw(st.one_of(st.none(), st.integers(-x.ndim - 1, x.ndim)))
    exclusive = data.draw(st.booleans())
    ident = x.dtype.type(_identity(name, x.dtype))
    op = prim.Op(expr, _identity(name, x.dtype))
    scan = prim.exclusive_scan if exclusive else prim.inclusive_scan

    def numpys():
        a, ax = (x.ravel(), 0) if axis is None else (x, axis)
        acc = ufunc.accumulate(a, axis=ax, dtype=x.dtype)
        if not exclusive:
            return acc
        out = np.roll(acc, 1, axis=ax)
        np.moveaxis(out, ax, 0)[:1] = ident
        return out

    _compare(lambda: scan(x, op, axis=axis), numpys)

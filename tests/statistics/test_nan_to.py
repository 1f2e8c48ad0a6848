"""The NaN -> value pass of the nan-functions (kernels/statistics/nan_to.cu,
primitives.statistics._plans.nan_to) against ``numpy.where(numpy.isnan(x), value, x)`` bit for
bit, and the calls that run it (nancumsum, nancumprod, the plain reductions of a ``dtype=`` of
another kind) against NumPy: every float and complex dtype, NaNs of every sign and payload,
complex NaNs in either part, layouts, 0-d and empty arrays."""

import warnings

import numpy as np
import pytest

import primitives as prim
from primitives.statistics import _plans
from primitives.testing import harness as H

FLOATS = [np.float16, np.float32, np.float64]
COMPLEX = [np.complex64, np.complex128]

#: float bits beside ordinary values: NaNs of both signs and several payloads, +-0.0, +-inf
_SPECIAL_BITS = {
    2: [0x7E00, 0xFE00, 0x7C01, 0xFD55, 0x0000, 0x8000, 0x7C00, 0xFC00],
    4: [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFA5A5A5, 0x0, 0x80000000, 0x7F800000, 0xFF800000],
    8: [
        0x7FF8000000000000,
        0xFFF8000000000000,
        0x7FF0000000000001,
        0xFFF5A5A5A5A5A5A5,
        0x0,
        0x8000000000000000,
        0x7FF0000000000000,
        0xFFF0000000000000,
    ],
}


def _part(rng, n, dt, special=0.25):
    dt = np.dtype(dt)
    x = (rng.integers(-8, 9, n) / 8 + 1).astype(dt)
    bits = np.array(_SPECIAL_BITS[dt.itemsize], dtype=f"u{dt.itemsize}").view(dt)
    where = rng.random(n) < special
    x[where] = rng.choice(bits, int(where.sum()))
    return x


def data(rng, dt, shape, special=0.25):
    """Values of ``dt`` near 1 (products stay finite), a share ``special`` of the floats (of
    each part, complex) special bit patterns: so complex elements with a NaN real part, a NaN
    imaginary part, both, or neither."""
    dt = np.dtype(dt)
    n = int(np.prod(shape))
    if dt.kind == "c":
        part = np.dtype(f"f{dt.itemsize // 2}")
        x = np.empty(n, dt)
        x.real, x.imag = _part(rng, n, part, special), _part(rng, n, part, special)
    else:
        x = _part(rng, n, dt, special)
    return x.reshape(shape)


def bits(x):
    """The unsigned bits of every float of ``x`` (both parts of a complex element)."""
    x = np.ascontiguousarray(H.to_host(x))
    return x.view(f"u{x.itemsize // 2}" if x.dtype.kind == "c" else f"u{x.itemsize}")


@pytest.mark.parametrize("dt", FLOATS + COMPLEX)
@pytest.mark.parametrize("value", [0, 1, np.nan])
def test_nan_to_bit_for_bit(dt, value, rng, backend):
    """Every layout the nan-functions pass (C- and F-ordered, 0-d, empty): the NaN elements
    (complex: either part NaN) replaced by the value of the dtype, the others bit for bit (NaN
    payloads never kept, -0.0 kept), the layout kept."""
    x = data(rng, dt, (7, 45))
    for arr in (x, np.asfortranarray(x), x[3, 5].copy(), x[:0], x[:2, :3].copy().reshape(6)):
        dev = backend.xp.asarray(arr, order="K")
        arr = H.to_host(dev)  # as it arrived (CuPy moves a 0-d -0.0 as 0.0)
        want = np.where(np.isnan(arr), np.dtype(dt).type(value), arr)
        got = _plans.nan_to(dev, value, backend)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(bits(got), bits(want))
        if arr.ndim > 1 and arr.flags.f_contiguous:
            assert got.flags.f_contiguous


def test_complex_nan_in_one_part(backend):
    """NumPy's nan-functions take a complex number with a NaN in either part for a NaN: the whole
    element is replaced (its other part too)."""
    nan = np.nan
    x = np.array([1 + 2j, complex(3, nan), complex(nan, 4), complex(nan, nan), -0.0 + 5j])
    for dt in COMPLEX:
        a = x.astype(dt)
        got = H.to_host(_plans.nan_to(backend.xp.asarray(a), 0, backend))
        np.testing.assert_array_equal(bits(got), bits(np.array([1 + 2j, 0, 0, 0, -0.0 + 5j], dt)))
        H.assert_same(prim.nancumsum(a), np.nancumsum(a))
        H.assert_same(prim.nancumprod(a), np.nancumprod(a))


def _rtol(dt, func):
    dt = np.dtype(dt)
    if dt.itemsize <= 2 or dt == np.complex64 and func == "nancumprod":
        return 1e-2
    return 1e-4 if dt in (np.float32, np.complex64) else 1e-12


@pytest.mark.parametrize("func", ["nancumsum", "nancumprod"])
@pytest.mark.parametrize("dt", FLOATS + COMPLEX)
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_cumulative_every_dtype(func, dt, axis, rng):
    """NaNs of every sign and payload (no infinities: a cumulative product of them is NaN in
    one order and not in another) counted as the identity."""
    x = data(rng, dt, (6, 23))
    x[np.isinf(x)] = 1  # complex: either part infinite
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = getattr(np, func)(x, axis=axis)
    got = getattr(prim, func)(x, axis=axis)
    H.assert_same(got, want, rtol=_rtol(dt, func), what=f"{func} {np.dtype(dt)} {axis}")
    got = getattr(prim, func)(np.asfortranarray(x), axis=axis)
    H.assert_same(got, want, rtol=_rtol(dt, func), what=f"{func} F {np.dtype(dt)} {axis}")


@pytest.mark.parametrize("func", ["nansum", "nanprod"])
@pytest.mark.parametrize("dt", FLOATS)
def test_reduction_to_another_kind(func, dt, rng):
    """A ``dtype=`` of another kind (an integer): the NaNs replaced by the identity first (this
    pass), then the plain reduction, of C- and F-ordered input."""
    x = data(rng, dt, (5, 8), special=0.0) * 2
    x[rng.random(x.shape) < 0.3] = np.nan
    for arr in (x, np.asfortranarray(x)):
        for axis in (None, 0, 1):
            want = getattr(np, func)(arr, axis=axis, dtype=np.int64)
            got = getattr(prim, func)(arr, axis=axis, dtype=np.int64)
            H.assert_same(got, want, what=f"{func} {np.dtype(dt)} {axis}")

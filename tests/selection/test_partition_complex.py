"""argpartition and partition of complex64 and complex128 against NumPy: its complex order (real
part, then imaginary; values with a NaN part last: ``R + nan j`` by real, ``nan + R j`` by
imaginary, then ``nan + nan j``), every variant, axes, several kth, values bit for bit (NaN
payloads, -0.0)."""

import numpy as np
import pytest

import primitives as prim
from primitives.selection import VARIANTS

DTYPES = [np.complex64, np.complex128]


def bits(a):
    return np.ascontiguousarray(np.atleast_1d(np.asarray(a))).view(np.uint8)


def multiset(a):
    """Each row's values as a multiset of bit patterns (sorted as bytes)."""
    a = np.ascontiguousarray(a)
    return np.sort(a.view(f"V{a.itemsize}"), axis=-1)


def numpy_order(x, axis):
    """NumPy's sort of ``x`` along ``axis`` (the values every kth must hold)."""
    return np.sort(x, axis=axis) if axis is not None else np.sort(x.reshape(-1))


def check(x, kth, axis=-1, **kw):
    got = prim.partition(x, kth, axis=axis, **kw)
    want = np.partition(x, kth, axis=axis)
    assert got.dtype == want.dtype and got.shape == want.shape
    idx = prim.argpartition(x, kth, axis=axis, **kw)
    assert idx.dtype == np.int64 and idx.shape == want.shape
    taken = np.take_along_axis(x, idx, axis) if axis is not None else x.reshape(-1)[idx]
    assert np.array_equal(bits(taken), bits(got)), "the indices give the values"
    ax = -1 if axis is None else axis
    g, s = np.moveaxis(got, ax, -1), np.moveaxis(numpy_order(x, axis), ax, -1)
    for k in np.atleast_1d(kth):
        k = int(k) % g.shape[-1]
        np.testing.assert_array_equal(g[..., k], s[..., k])  # -0.0 and 0.0 tie
        # the values before kth are the k smallest, those after the largest (as a multiset)
        assert np.array_equal(multiset(g[..., :k]), multiset(s[..., :k])), k
        assert np.array_equal(multiset(g[..., k + 1 :]), multiset(s[..., k + 1 :])), k


def awkward(rng, shape, dt):
    x = (rng.integers(-3, 3, shape) + 1j * rng.integers(-3, 3, shape)).astype(dt)
    flat = x.reshape(-1)
    n = flat.size
    flat[rng.integers(0, n, max(1, n // 20))] = complex(np.nan, 1)
    flat[rng.integers(0, n, max(1, n // 20))] = complex(2, np.nan)
    flat[rng.integers(0, n, max(1, n // 30))] = complex(np.nan, np.nan)
    flat[rng.integers(0, n, max(1, n // 30))] = complex(-np.inf, 0)
    flat[rng.integers(0, n, max(1, n // 30))] = complex(-0.0, -0.0)
    return x


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("variant", VARIANTS + ("auto",))
def test_variants(rng, dt, variant):
    x = awkward(rng, (5, 67), dt)
    for kth in (0, 9, [3, 20, 66], -1):
        check(x, kth, variant=variant)


@pytest.mark.parametrize("dt", DTYPES)
def test_axes_and_sizes(rng, dt):
    for shape, axis, kth in (
        ((3, 7, 4), 1, [0, 6]),
        ((3, 7, 4), 0, 1),
        ((151,), -1, [5, 70, 150]),
        ((2, 3000), 1, [5, 1500, 2999]),  # rows split by the values at their kth
        ((4000,), -1, 2000),  # one long row (the image's selection, or the sort)
        ((6, 5), None, [2, 29]),
    ):
        check(awkward(rng, shape, dt), kth, axis=axis)


@pytest.mark.parametrize("dt", DTYPES)
def test_payloads_and_zero_d(dt):
    x = np.array([1 + 1j, complex(np.nan, 0), -0.0 + 0j, 0.0 - 0j, complex(0, np.nan)], dt)
    x.view(f"u{x.itemsize // 2}")[2] |= 0x3  # a NaN real part with a payload
    check(x, [0, 2, 4])
    z = np.array(1 + 2j, dt)
    assert np.array_equal(prim.partition(z, 0, axis=None), np.partition(z, 0, axis=None))
    assert np.array_equal(prim.argpartition(z, 0), np.argpartition(z, 0))

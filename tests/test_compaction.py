"""Compaction vs NumPy boolean indexing and flatnonzero."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import primitives as prim
from primitives._core import dtypes as _dtypes

from conftest import to_host

# tiles of 4096 elements; 16 per thread
SIZES = [1, 15, 16, 17, 31, 32, 33, 4095, 4096, 4097, 12289, 140001]
DENSITIES = [0.0, 0.03, 0.5, 1.0]


def make(rng, n, dt):
    return (rng.random(n) * 1000 + 1).astype(dt)


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", _dtypes.NUMERIC, ids=lambda d: d.name)
def test_compact(dtype, n, density, rng, schedule):
    x = make(rng, n, dtype)
    mask = rng.random(n) < density
    got = prim.compact(x, mask)
    assert got.dtype == x.dtype
    assert np.array_equal(to_host(got), x[mask])


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("n", SIZES)
def test_compact_indices(n, density, rng, schedule):
    mask = rng.random(n) < density
    got = prim.compact_indices(mask)
    assert got.dtype == np.int64
    assert np.array_equal(to_host(got), np.flatnonzero(mask))


def test_runs_and_alternation(rng):
    n = 50000
    for mask in (np.arange(n) % 2 == 0, (np.arange(n) // 4097) % 2 == 1, np.zeros(n, bool)):
        x = make(rng, n, np.float64)
        assert np.array_equal(prim.compact(x, mask), x[mask])
        assert np.array_equal(prim.compact_indices(mask), np.flatnonzero(mask))


def test_misaligned_and_multidimensional(rng):
    base = make(rng, 30000, np.float32)
    bmask = rng.random(30000) < 0.4
    for off in (1, 3):
        assert np.array_equal(prim.compact(base[off:], bmask[off:]), base[off:][bmask[off:]])
    x = base[:6000].reshape(60, 100)
    m = bmask[:6000].reshape(60, 100)
    assert np.array_equal(prim.compact(x, m), x[m])
    assert np.array_equal(prim.compact(x[:, ::2], m[:, ::2]), x[:, ::2][m[:, ::2]])


def test_repeated_calls(rng):
    x = make(rng, 70000, np.int32)
    for density in (0.1, 0.9, 0.5):
        mask = rng.random(x.size) < density
        assert np.array_equal(prim.compact(x, mask), x[mask])


def test_empty():
    assert prim.compact(np.array([], np.float32), np.array([], bool)).shape == (0,)
    assert prim.compact_indices(np.array([], bool)).dtype == np.int64


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), dtype=st.sampled_from(_dtypes.NUMERIC))
def test_property(data, dtype):
    n = data.draw(st.integers(1, 9000))
    mask = data.draw(hnp.arrays(np.bool_, n))
    x = np.arange(n).astype(dtype)
    assert np.array_equal(prim.compact(x, mask), x[mask])
    assert np.array_equal(prim.compact_indices(mask), np.flatnonzero(mask))


def test_mask_not_bool():
    with pytest.raises(TypeError, match="mask must be a boolean array"):
        prim.compact(np.ones(4, np.float32), np.ones(4, np.int8))
    with pytest.raises(TypeError, match="mask must be a boolean array"):
        prim.compact_indices(np.ones(4, np.float32))


def test_mask_length_mismatch():
    with pytest.raises(ValueError, match="mask has 3 elements, x has 4"):
        prim.compact(np.ones(4, np.float32), np.ones(3, bool))


def test_bad_x():
    with pytest.raises(TypeError, match="x has dtype"):
        prim.compact(np.ones(4, np.float16), np.ones(4, bool))
    with pytest.raises(TypeError, match="x must be"):
        prim.compact("abc", np.ones(3, bool))
    with pytest.raises(TypeError, match="mask must be"):
        prim.compact(np.ones(3, np.float32), None)

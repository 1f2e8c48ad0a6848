"""Compaction vs NumPy boolean indexing and flatnonzero; plans and the repeat-call path."""

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import primitives as prim
from primitives._core import backend as _backend, dtypes as _dtypes
from primitives.compaction._plans import DTYPES
from primitives.testing import harness as H

# tiles of 4096 elements (2048 for 16-byte elements); 16 per thread
SIZES = [1, 15, 16, 17, 31, 32, 33, 4095, 4096, 4097, 12289, 140001]
DENSITIES = [0.0, 0.03, 0.5, 1.0]
#: the dtypes moved as words of their size (no kernel of their own)
MOVED = [d for d in DTYPES if d not in _dtypes.NUMERIC]
WIDE_TILE = 2048
MOVED_SIZES = [1, 15, 17, 33, 2047, 2048, 2049, 4095, 4096, 4097, 6145, 12289]


def make(rng, n, dt):
    dt = np.dtype(dt)
    if dt == np.bool_:
        return rng.random(n) < 0.5
    if dt.kind == "c":
        return (rng.random(n) * 1000 + 1 + 1j * rng.random(n)).astype(dt)
    return (rng.random(n) * 100 + 1).astype(dt)


def bits(rng, n, dt):
    """n elements of ``dt`` with random bit patterns (NaNs with payloads, negative zeros,
    infinities, subnormals), for a copy that must be bit for bit; bool stays 0 or 1."""
    dt = np.dtype(dt)
    if dt == np.bool_:
        return rng.random(n) < 0.5
    return rng.integers(0, 256, n * dt.itemsize, dtype=np.uint8).view(dt)


def assert_same_bits(got, want, what=""):
    got = H.to_host(got)
    assert got.dtype == want.dtype and got.shape == want.shape, what
    assert got.tobytes() == want.tobytes(), what


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", _dtypes.NUMERIC, ids=lambda d: d.name)
def test_compact(dtype, n, density, rng, schedule):
    x = make(rng, n, dtype)
    mask = rng.random(n) < density
    H.assert_same(prim.compact(x, mask), x[mask])


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("n", SIZES)
def test_compact_indices(n, density, rng, schedule):
    mask = rng.random(n) < density
    H.assert_same(prim.compact_indices(mask), np.flatnonzero(mask))


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("n", MOVED_SIZES)
@pytest.mark.parametrize("dtype", MOVED, ids=lambda d: d.name)
def test_compact_moved_dtypes(dtype, n, density, rng, schedule):
    """bool, the 8- and 16-bit integers, float16 and the complex dtypes: moved as words of their
    size, bit for bit, in the dtype of x (as x[mask]); the 16-byte elements in tiles of their
    own size (2048)."""
    x = bits(rng, n, dtype)
    mask = rng.random(n) < density
    got = prim.compact(x, mask)
    assert got.dtype == dtype
    assert_same_bits(got, x[mask], what=f"{dtype} n={n}")


@pytest.mark.parametrize("dtype", MOVED, ids=lambda d: d.name)
def test_moved_dtypes_misaligned_and_multidimensional(dtype, rng):
    base = bits(rng, 9000, dtype)
    bmask = rng.random(9000) < 0.4
    for off in (1, 3, 8):  # views off the 16-byte boundary take the element-wise loads
        assert_same_bits(prim.compact(base[off:], bmask[off:]), base[off:][bmask[off:]])
    x, m = base[:6000].reshape(60, 100), bmask[:6000].reshape(60, 100)
    assert_same_bits(prim.compact(x, m), x[m])
    assert_same_bits(prim.compact(x[:, ::3], m[:, ::3]), x[:, ::3][m[:, ::3]])
    assert_same_bits(prim.compact(x.T, m.T), x.T[m.T])


def test_moved_dtypes_inputs_untouched_and_values(rng):
    """The values NumPy would give, for the values that matter: -0.0, NaN, inf and float16's
    largest, and True/False; the inputs are not written."""
    x16 = np.array([-0.0, np.nan, np.inf, -np.inf, 65504, 6e-8, 1.0], np.float16)
    xc = np.array([complex(np.nan, -0.0), complex(-np.inf, 1), -0.0, 1j], np.complex128)
    xb = np.array([True, False, True, True])
    for x in (x16, xc, xb, xc.astype(np.complex64), np.array([-128, 127, 0], np.int8)):
        mask = np.arange(x.size) % 2 == 0
        x0, m0 = x.copy(), mask.copy()
        assert_same_bits(prim.compact(x, mask), x[mask])
        assert_same_bits(x, x0)
        assert_same_bits(mask, m0)


def test_moved_dtypes_plans(rng):
    """One plan per dtype; a dtype moved as another's word shares its kernel, not its plan
    (results keep the caller's dtype); the explicit plan serves every dtype."""
    xp = _backend.get_backend().xp
    n = 5000
    mask = xp.asarray(rng.random(n) < 0.3)
    hmask = H.to_host(mask)
    prim.clear_caches()
    for dt in (
        np.int16,
        np.uint16,
        np.float16,
        np.complex64,
        np.uint64,
        np.complex128,
        np.bool_,
        np.int8,
    ):
        x = xp.asarray(bits(rng, n, dt))
        assert_same_bits(prim.compact(x, mask), H.to_host(x)[hmask])
        builds = prim.cache_info()["builds"]
        y = xp.asarray(bits(rng, n, dt))
        assert_same_bits(prim.compact(y, mask), H.to_host(y)[hmask])
        assert prim.cache_info()["builds"] == builds, dt
    p = prim.plan(prim.compact, bits(rng, n, np.complex128), H.to_host(mask))
    for dt in (np.complex128, np.float16, np.bool_, np.float32):
        x = bits(rng, n, dt)
        assert_same_bits(p(x, hmask), x[hmask])


def test_wide_elements_take_their_own_policy(rng):
    """16-byte elements run under the ``16`` selector of the compaction policy (a tile that
    fits the static shared memory); a policy whose tile does not fit is refused."""
    pol = prim.tuning.policy("compaction", 16)
    assert pol.block * pol.items == WIDE_TILE
    assert prim.tuning.policy("compaction").block * 16 > WIDE_TILE
    x = bits(rng, 5000, np.complex128)
    mask = rng.random(5000) < 0.5
    with prim.tuning.override("compaction", selector=16, block=64):
        assert_same_bits(prim.compact(x, mask), x[mask])
        x8 = bits(rng, 5000, np.complex64)  # 8 bytes: the default policy, not the override
        assert_same_bits(prim.compact(x8, mask), x8[mask])
    with prim.tuning.override("compaction", selector=16, block=256):
        H.raises_like(
            ValueError, "compact", prim.compact, x, mask, match="does not fit the kernel's 48 KiB"
        )


def test_runs_and_alternation(rng):
    n = 50000
    for mask in (np.arange(n) % 2 == 0, (np.arange(n) // 4097) % 2 == 1, np.zeros(n, bool)):
        x = make(rng, n, np.float64)
        H.assert_same(prim.compact(x, mask), x[mask])
        H.assert_same(prim.compact_indices(mask), np.flatnonzero(mask))


def test_misaligned_and_multidimensional(rng):
    base = make(rng, 30000, np.float32)
    bmask = rng.random(30000) < 0.4
    for off in (1, 3):
        H.assert_same(prim.compact(base[off:], bmask[off:]), base[off:][bmask[off:]])
    x = base[:6000].reshape(60, 100)
    m = bmask[:6000].reshape(60, 100)
    H.assert_same(prim.compact(x, m), x[m])
    H.assert_same(prim.compact(x[:, ::2], m[:, ::2]), x[:, ::2][m[:, ::2]])


def test_repeated_calls(rng):
    x = make(rng, 70000, np.int32)
    for density in (0.1, 0.9, 0.5):
        mask = rng.random(x.size) < density
        H.assert_same(prim.compact(x, mask), x[mask])


def test_repeat_calls_take_the_filed_plan(rng):
    """Calls on arrays like an earlier call's find its plan by their arguments (no new plan, the
    same answers); other arrays take the checked path and bad ones are still refused."""
    xp = _backend.get_backend().xp
    prim.clear_caches()
    n = 9000
    x, y = xp.asarray(make(rng, n, np.float32)), xp.asarray(make(rng, n, np.float32))
    m1, m2 = xp.asarray(rng.random(n) < 0.3), xp.asarray(rng.random(n) < 0.7)
    H.assert_same(prim.compact(x, m1), H.to_host(x)[H.to_host(m1)])
    H.assert_same(prim.compact_indices(m1), np.flatnonzero(H.to_host(m1)))
    builds = prim.cache_info()["builds"]
    H.assert_same(prim.compact(y, m2), H.to_host(y)[H.to_host(m2)])
    H.assert_same(prim.compact_indices(m2), np.flatnonzero(H.to_host(m2)))
    assert prim.cache_info()["builds"] == builds
    H.assert_same(prim.compact(x[::2], m1[::2]), H.to_host(x)[::2][H.to_host(m1)[::2]])
    with pytest.raises(TypeError, match="mask must be a boolean array"):
        prim.compact(y, xp.ones(n, np.int8))
    with pytest.raises(ValueError, match="mask has"):
        prim.compact(y, m2[1:])
    H.assert_same(
        prim.compact(y.astype(np.float16), m2), H.to_host(y).astype(np.float16)[H.to_host(m2)]
    )
    with pytest.raises(TypeError, match="x has dtype"):
        prim.compact(np.ones(n, np.longdouble), H.to_host(m2))


def test_explicit_plan(rng):
    """``prim.plan(prim.compact, x, mask)`` (and of compact_indices) equal the functions on
    like arrays and on others."""
    x, mask = make(rng, 5000, np.int64), rng.random(5000) < 0.4
    p, q = prim.plan(prim.compact, x, mask), prim.compact_indices.plan(mask)
    for n, dt in ((5000, np.int64), (5000, np.float32), (33, np.int64)):
        y, m = make(rng, n, dt), rng.random(n) < 0.6
        H.assert_same(p(y, m), y[m])
        H.assert_same(q(m), np.flatnonzero(m))
    H.assert_same(p(x[:4000].reshape(40, 100), mask[:4000].reshape(40, 100)), x[:4000][mask[:4000]])


def test_bad_plan_arguments_raise_at_plan_time():
    H.raises_like(
        TypeError,
        "compact",
        prim.plan,
        prim.compact,
        np.ones(4, np.float32),
        np.ones(4, np.int8),
        match="mask must be a boolean array",
    )
    H.raises_like(
        ValueError,
        "compact",
        prim.compact.plan,
        np.ones(4, np.float32),
        np.ones(3, bool),
        match="mask has 3 elements",
    )
    H.raises_like(
        TypeError,
        "compact_indices",
        prim.plan,
        prim.compact_indices,
        np.ones(4, np.float32),
        match="mask must be a boolean array",
    )


def test_empty():
    H.assert_same(
        prim.compact(np.array([], np.float32), np.array([], bool)), np.array([], np.float32)
    )
    H.assert_same(prim.compact_indices(np.array([], bool)), np.array([], np.int64))


@pytest.mark.parametrize("mask", [[], ()], ids=["list", "tuple"])
def test_empty_mask_sequence(mask):
    """An empty list or tuple is an empty boolean mask (not NumPy's float64 array)."""
    H.run_twins(lambda xp, m: np.flatnonzero(m) if xp is np else xp.compact_indices(m), (mask,))
    H.assert_same(prim.compact(np.array([], np.float32), mask), np.array([], np.float32))


@pytest.mark.parametrize("n", [0, 1, 700])
@pytest.mark.parametrize("dtype", [">f8", ">i4", ">u8", ">f4", ">f2", ">i2", ">c8", ">c16"])
def test_non_native_byte_order(dtype, n, rng):
    """``compact`` of an array of non-native byte order keeps its dtype, as ``x[mask]`` does,
    also after a call on a native array of the same shape (whose filed plan must not read the
    swapped bytes) and through a plan made for native arrays. (``compact_indices`` takes only a
    boolean mask, which has no byte order.)"""
    x = rng.integers(0, 100, n).astype(dtype)
    mask = x.real % 3 == 0
    native = x.astype(x.dtype.newbyteorder("="))
    H.assert_same(prim.compact(native, mask), native[mask])  # files the plan of native arrays
    H.assert_same(prim.compact(x, mask), x[mask])
    H.assert_same(prim.plan(prim.compact, native, mask)(x, mask), x[mask])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), dtype=st.sampled_from(DTYPES))
def test_property(data, dtype):
    n = data.draw(st.integers(1, 9000))
    mask = data.draw(hnp.arrays(np.bool_, n))
    x = bits(np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))), n, dtype)
    off = data.draw(st.integers(0, min(3, n - 1)))  # a view off the 16-byte boundary
    assert_same_bits(prim.compact(x[off:], mask[off:]), x[off:][mask[off:]])
    H.assert_same(prim.compact_indices(mask), np.flatnonzero(mask))


def test_mask_not_bool():
    H.raises_like(
        TypeError,
        "compact",
        prim.compact,
        np.ones(4, np.float32),
        np.ones(4, np.int8),
        match="mask must be a boolean array",
    )
    H.raises_like(
        TypeError,
        "compact_indices",
        prim.compact_indices,
        np.ones(4, np.float32),
        match="mask must be a boolean array",
    )


def test_mask_length_mismatch():
    H.raises_like(
        ValueError,
        "compact",
        prim.compact,
        np.ones(4, np.float32),
        np.ones(3, bool),
        match="mask has 3 elements, x has 4",
    )


@pytest.mark.parametrize(
    "dt", [np.longdouble, np.clongdouble, "M8[s]", "m8[s]", "U1", object, [("a", np.int32)]]
)
def test_bad_x_dtype(dt):
    H.raises_like(
        TypeError,
        "compact",
        prim.compact,
        np.zeros(4, dt),
        np.ones(4, bool),
        match=re.escape(f"x has dtype {np.dtype(dt).name}; supported dtypes are bool, int8"),
    )


def test_bad_x():
    H.raises_like(TypeError, "compact", prim.compact, "abc", np.ones(3, bool), match="x must be")
    H.raises_like(
        TypeError, "compact", prim.compact, np.ones(3, np.float32), None, match="mask must be"
    )

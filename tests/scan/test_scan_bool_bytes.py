"""Scans of bool arrays whose bytes are not all 0 and 1 (``np.frombuffer`` of any bytes, a uint8
array viewed as bool): NumPy reads any nonzero byte as True, and so does every scan (the look-back
kernel reads bool as prim::Flag, kernels/util/flag.cuh; the classic scans and the scans along an
axis convert it first, as NumPy casts): flat and along axes, every variant, inclusive and
exclusive, C- and F-ordered, strided, reversed and misaligned views. bool results hold the bytes
0 and 1."""

import numpy as np
import pytest

import primitives as prim
from primitives import scan
from primitives.testing import harness as H

#: the nonzero bytes a bool element may hold: 1 and bytes that differ from it in every bit place
BYTES = np.array([1, 2, 0x7F, 0x80, 0xFE, 0xFF], np.uint8)
UFUNC = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum}


def flags(rng, shape, p_false=0.3):
    """A bool array of ``shape`` whose True elements hold random nonzero bytes."""
    b = rng.choice(BYTES, shape)
    b[rng.random(shape) < p_false] = 0
    return b.view(np.bool_)


views = H.byte_views


def canonical(r, xp=prim):
    """``r``; a bool result of ``primitives`` holds the bytes 0 and 1 alone (NumPy's may hold
    others: its cumsum with dtype=bool starts a line with the line's first byte)."""
    h = np.asarray(H.to_host(r))
    if xp is not np and h.dtype == np.bool_:
        assert (h.view(np.uint8) <= 1).all(), f"bool result bytes {np.unique(h.view(np.uint8))}"
    return r


def reference(x, op, axis, exclusive):
    """NumPy's scan of the elements as booleans (sums and products in int64, min/max in bool);
    the exclusive scan starts at the identity."""
    c = np.ascontiguousarray(x).view(np.uint8) != 0
    if axis is None:
        c, axis = c.ravel(), 0
    dt = np.bool_ if op in ("min", "max") else np.int64
    inc = UFUNC[op].accumulate(c.astype(dt), axis=axis, dtype=dt)
    if not exclusive:
        return inc
    first = np.full_like(np.take(inc, [0], axis=axis), op in ("prod", "min"))
    return np.concatenate([first, np.delete(inc, -1, axis=axis)], axis=axis)


@pytest.fixture
def small():
    """Small tiles for every variant: a few thousand elements span many look-back tiles and
    three levels of the classic scans."""
    with (
        prim.tuning.override("scan", selector="decoupled_lookback", block=32, bytes=64),
        prim.tuning.override("scan", selector="hillis_steele", block=32, add_block=32),
        prim.tuning.override("scan", selector="blelloch", block=32, add_block=32),
    ):
        yield


@pytest.mark.parametrize("func", ["cumsum", "cumprod"])
@pytest.mark.parametrize("shape", [(4099,), (30, 70), (3, 4, 5)], ids=str)
@H.twins()
def test_twin_of_numpy(xp, func, shape):
    """cumsum and cumprod of bool, flattened and along every axis, over every view."""
    x = flags(np.random.default_rng(len(shape)), shape, 0.3 if func == "cumsum" else 0.001)
    axes = [None] + list(range(x.ndim))
    return [getattr(xp, func)(y, axis=a) for y in views(x) for a in axes]


@pytest.mark.parametrize("exclusive", [False, True], ids=["inclusive", "exclusive"])
@pytest.mark.parametrize("op", ["sum", "prod", "min", "max"])
@pytest.mark.parametrize("variant", scan.VARIANTS)
def test_every_variant(variant, op, exclusive, rng, small):
    """Flat scans of every variant (look-back: bool read in place, 16 bytes per load on full
    tiles; the classic scans: converted first), inclusive and exclusive, at awkward sizes and a
    byte into the buffer (unaligned: the look-back's scalar loads)."""
    f = prim.exclusive_scan if exclusive else prim.inclusive_scan
    for n in (1, 17, 513, 2049):
        p = 0.002 if op in ("prod", "min") else 0.3
        for x in (flags(rng, (n,), p), flags(rng, (n + 1,), p)[1:]):
            got = f(x, op, variant=variant)
            H.assert_same(canonical(got), reference(x, op, None, exclusive), what=f"n={n}")


@pytest.mark.parametrize("exclusive", [False, True], ids=["inclusive", "exclusive"])
@pytest.mark.parametrize("op", ["sum", "prod", "min", "max"])
def test_along_axes(op, exclusive, rng, small):
    """Scans along every axis (the axis kernels take bool converted), over every view."""
    f = prim.exclusive_scan if exclusive else prim.inclusive_scan
    x = flags(rng, (9, 40, 3), 0.01 if op in ("prod", "min") else 0.3)
    for y in views(x):
        for axis in (0, 1, 2):
            got = f(y, op, axis=axis)
            H.assert_same(canonical(got), reference(y, op, axis, exclusive), what=f"{axis}")


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.float32])
@H.twins()
def test_dtype_requests(xp, dtype):
    """``dtype=``: the elements cast to it as NumPy casts them (a bool's any nonzero byte to 1)."""
    x = flags(np.random.default_rng(5), (23, 45))
    return [canonical(xp.cumsum(y, axis=a, dtype=dtype), xp) for y in views(x) for a in (None, 1)]


def test_numpys_bool_bytes():
    """A bool array of 0xff bytes (NumPy's TestBool data): each counts one."""
    d = np.frombuffer(b"\xff\xff" * 100, dtype=bool)
    for y in (d, d[::2], d[::-2]):
        H.assert_same(prim.cumsum(y), np.cumsum(y))

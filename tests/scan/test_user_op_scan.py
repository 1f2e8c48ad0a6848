"""User operators (prim.Op) in the scans, against NumPy's accumulate: every variant and
accumulator dtype at awkward sizes, inclusive and exclusive, along axes of C- and F-ordered
arrays, dtype=, empty inputs, a non-commutative operator, and the error branches."""

import numpy as np
import pytest

import primitives as prim
from primitives import scan
from primitives.testing import harness as H

from tests.user_ops import DTYPES, MAX, lowest, make

SIZES = [1, 31, 257, 4099, 70001]


def exclusive(acc, ident, axis=0):
    out = np.roll(acc, 1, axis=axis)
    np.moveaxis(out, axis, 0)[0] = ident
    return out


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("variant", scan.VARIANTS)
def test_flat(variant, dtype, n, rng):
    x = make(rng, n, dtype)
    op = prim.Op(MAX, lowest(dtype))
    want = np.maximum.accumulate(x)
    got = H.to_host(prim.inclusive_scan(x, op, variant=variant))
    np.testing.assert_array_equal(got, want)
    assert got.dtype == x.dtype
    got = H.to_host(prim.exclusive_scan(x, op, variant=variant))
    np.testing.assert_array_equal(got, exclusive(want, op.identity_of(x.dtype)))
    if np.dtype(dtype).kind in "iu":  # exact sums: wrapping in the dtype, as NumPy's
        got = H.to_host(prim.inclusive_scan(x, prim.Op("a + b", 0), variant=variant))
        np.testing.assert_array_equal(got, np.cumsum(x, dtype=x.dtype))


def test_race(rng, race):
    x = make(rng, 4099, np.uint32)
    got = H.to_host(prim.inclusive_scan(x, prim.Op("a ^ b", 0)))
    np.testing.assert_array_equal(got, np.bitwise_xor.accumulate(x))


def test_order_is_kept(rng):
    """A non-commutative operator: the scans combine in index order (the affine maps
    x -> m x + c composed left to right, packed as (m, c) in the bits of a uint64: m in the high
    and c in the low 32 bits, modulo 2^32)."""
    n = 3000
    m = rng.integers(0, 2**32, n, dtype=np.uint64) | 1
    c = rng.integers(0, 2**32, n, dtype=np.uint64)
    x = (m << np.uint64(32)) | c
    op = prim.Op(
        "(((a >> 32) * (b >> 32)) << 32) | (((a & 0xffffffffull) * (b >> 32)"
        " + (b & 0xffffffffull)) & 0xffffffffull)",
        1 << 32,
    )
    want = np.empty(n, np.uint64)
    am, ac = 1, 0
    for i in range(n):
        am, ac = (am * int(m[i])) % 2**32, (ac * int(m[i]) + int(c[i])) % 2**32
        want[i] = (am << 32) | ac
    for variant in scan.VARIANTS:
        got = H.to_host(prim.inclusive_scan(x, op, variant=variant))
        np.testing.assert_array_equal(got, want, err_msg=variant)


@pytest.mark.parametrize(
    "shape,axis", [((7, 33, 5), 0), ((7, 33, 5), 1), ((7, 33, 5), 2), ((300, 3), 0), ((3, 3000), 1)]
)
@pytest.mark.parametrize("dtype", [np.int32, np.uint64, np.float32], ids=lambda d: np.dtype(d).name)
def test_axes(shape, axis, dtype, rng):
    x = make(rng, shape, dtype)
    op = prim.Op(MAX, lowest(dtype))
    want = np.maximum.accumulate(x, axis=axis)
    for a in (x, np.asfortranarray(x)):
        np.testing.assert_array_equal(H.to_host(prim.inclusive_scan(a, op, axis=axis)), want)
        got = H.to_host(prim.exclusive_scan(a, op, axis=axis))
        np.testing.assert_array_equal(got, exclusive(want, op.identity_of(x.dtype), axis))


def test_dtype_and_empty(rng):
    x = rng.integers(-100, 100, 1000, dtype=np.int8)
    got = prim.inclusive_scan(x, prim.Op("a + b", 0), dtype=np.int64)
    np.testing.assert_array_equal(H.to_host(got), np.cumsum(x, dtype=np.int64))
    got = prim.exclusive_scan(np.zeros(0, np.float32), prim.Op("a * b", 1))
    assert H.to_host(got).shape == (0,) and H.to_host(got).dtype == np.float32
    got = prim.inclusive_scan(np.zeros((0, 3), np.int32), prim.Op("a + b", 0), axis=0)
    assert H.to_host(got).shape == (0, 3)


def test_errors(rng):
    x = make(rng, 100, np.float32)
    with pytest.raises(TypeError, match="inclusive_scan: Op.* computes in int32"):
        prim.inclusive_scan(x.astype(np.int16), prim.Op("a + b", 0))
    with pytest.raises(TypeError, match="exclusive_scan: x has dtype complex64; Op"):
        prim.exclusive_scan(x.astype(np.complex64), prim.Op("a + b", 0))
    with pytest.raises(ValueError, match="inclusive_scan: the identity of Op.* no value in int32"):
        prim.inclusive_scan(x.astype(np.int32), prim.Op("a + b", np.inf))
    with pytest.raises(prim.KernelCompileError, match=r"compiling Op\('a \+ c', identity=0\)"):
        prim.inclusive_scan(x, prim.Op("a + c", 0))

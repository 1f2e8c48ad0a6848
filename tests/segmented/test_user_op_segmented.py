"""User operators (prim.Op) in segmented_reduce and segmented_scan, against NumPy per segment:
every accumulator dtype, short and long segments (both reduction paths), empty segments, flags
and offsets, inclusive and exclusive, dtype=, and the error branches."""

import numpy as np
import pytest

import primitives as prim
from primitives.testing import harness as H

from tests.user_ops import DTYPES, MAX, lowest, make


def offsets(rng, n, nseg):
    cuts = np.sort(rng.integers(0, n + 1, nseg - 1))
    return np.concatenate([[0], cuts, [n]]).astype(np.int64)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n,nseg", [(1, 1), (1000, 7), (20000, 2), (20000, 3000)])
def test_reduce(dtype, n, nseg, rng):
    """Few long segments and many short ones (the two reduction paths), some empty."""
    x, off = make(rng, n, dtype), offsets(rng, n, nseg)
    op = prim.Op(MAX, lowest(dtype))
    got = H.to_host(prim.segmented_reduce(x, off, op))
    ident = op.identity_of(x.dtype)
    want = [x[a:b].max() if b > a else ident for a, b in zip(off[:-1], off[1:])]
    np.testing.assert_array_equal(got, np.array(want, dtype=x.dtype))
    assert got.dtype == x.dtype


@pytest.mark.parametrize("dtype", [np.int32, np.uint64, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("inclusive", [True, False])
def test_scan(dtype, inclusive, rng):
    n = 9000
    x, off = make(rng, n, dtype), offsets(rng, n, 40)
    op = prim.Op(MAX, lowest(dtype))
    ident = op.identity_of(x.dtype)
    parts = []
    for a, b in zip(off[:-1], off[1:]):
        acc = np.maximum.accumulate(x[a:b])
        parts.append(acc if inclusive else np.concatenate([[ident], acc[:-1]])[: b - a])
    want = np.concatenate(parts).astype(x.dtype)
    got = prim.segmented_scan(x, offsets=off, op=op, inclusive=inclusive)
    np.testing.assert_array_equal(H.to_host(got), want)
    flags = np.zeros(n, bool)
    flags[off[:-1][off[:-1] < n]] = True
    flags[0] = True
    got = prim.segmented_scan(x, flags=flags, op=op, inclusive=inclusive)
    np.testing.assert_array_equal(H.to_host(got), want)


def test_dtype_empty_and_errors(rng):
    x = rng.integers(-(2**31), 2**31, 1000, dtype=np.int64).astype(np.int32)
    off = np.array([0, 10, 10, 1000], np.int64)
    got = prim.segmented_reduce(x, off, prim.Op("a + b", 0), dtype=np.int64)
    want = [x[0:10].sum(dtype=np.int64), 0, x[10:].sum(dtype=np.int64)]
    np.testing.assert_array_equal(H.to_host(got), np.array(want, np.int64))
    got = prim.segmented_reduce(np.zeros(0, np.float32), np.zeros(3, np.int64), prim.Op(MAX, -1.5))
    np.testing.assert_array_equal(H.to_host(got), np.full(2, -1.5, np.float32))
    with pytest.raises(TypeError, match="segmented_reduce: Op.* computes in int32"):
        prim.segmented_reduce(x, off, prim.Op("a + b", 0), dtype=np.int16)
    with pytest.raises(ValueError, match="segmented_scan: the identity of Op.* no value in uint32"):
        prim.segmented_scan(x.astype(np.uint32), offsets=off, op=prim.Op(MAX, -1))

"""User operators (prim.Op) in reduce_by_key, against NumPy per run: every accumulator dtype,
runs of one and of many keys, sort=True, and the error branches."""

import numpy as np
import pytest

import primitives as prim
from primitives.testing import harness as H

from tests.user_ops import DTYPES, MAX, lowest, make


def runs(keys, values, ufunc):
    heads = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
    return keys[heads], ufunc.reduceat(values, heads)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n,distinct", [(1, 1), (5000, 3), (5000, 4000)])
def test_runs(dtype, n, distinct, rng):
    keys = np.sort(rng.integers(0, distinct, n)).astype(np.int64)
    values = make(rng, n, dtype)
    got_k, got_v = prim.reduce_by_key(keys, values, prim.Op(MAX, lowest(dtype)))
    want_k, want_v = runs(keys, values, np.maximum)
    np.testing.assert_array_equal(H.to_host(got_k), want_k)
    np.testing.assert_array_equal(H.to_host(got_v), want_v)
    assert H.to_host(got_v).dtype == values.dtype


def test_sort_and_errors(rng):
    keys = rng.integers(0, 30, 3000).astype(np.int32)
    values = rng.integers(0, 2**32, 3000, dtype=np.uint32)
    got_k, got_v = prim.reduce_by_key(keys, values, prim.Op("a ^ b", 0), sort=True)
    order = np.argsort(keys, kind="stable")
    want_k, want_v = runs(keys[order], values[order], np.bitwise_xor)
    np.testing.assert_array_equal(H.to_host(got_k), want_k)
    np.testing.assert_array_equal(H.to_host(got_v), want_v)
    with pytest.raises(TypeError, match="reduce_by_key: Op.* computes in int32"):
        prim.reduce_by_key(keys, values.astype(np.uint8), prim.Op("a ^ b", 0))
    with pytest.raises(TypeError, match="reduce_by_key: op=Op.* complex"):
        prim.reduce_by_key(keys, values.astype(np.complex64), prim.Op("a + b", 0))

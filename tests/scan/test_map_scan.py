"""map= in the scans, against NumPy's cumsum of the transformed array: every variant and
element dtype, with named and user operators, and the error branches."""

import numpy as np
import pytest

import primitives as prim
from primitives import scan
from primitives.testing import harness as H

from tests.user_ops import DTYPES


@pytest.mark.parametrize("n", [1, 257, 70001])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("variant", scan.VARIANTS)
def test_running_sums_of_squares(variant, dtype, n, rng):
    dt = np.dtype(dtype)
    x = rng.integers(0 if dt.kind == "u" else -1000, 1000, n).astype(dt)
    got = H.to_host(prim.inclusive_scan(x, map="v * v", variant=variant))
    want = np.cumsum(x * x)
    if dt == np.float32:  # sums of integers beyond 2^24 round: against the exact sums
        exact = np.cumsum((x * x).astype(np.float64))
        np.testing.assert_allclose(got, exact, rtol=1e-4)
    else:
        np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype
    got = H.to_host(prim.exclusive_scan(x, "max", map="v - 1", variant=variant))
    run = np.maximum.accumulate(x - dt.type(1))
    np.testing.assert_array_equal(got[1:], run[:-1])


def test_user_operator_and_errors(rng):
    x = rng.integers(0, 2**32, 5000, dtype=np.uint32)
    got = prim.inclusive_scan(x, prim.Op("a ^ b", 0), map="v >> 3")
    np.testing.assert_array_equal(H.to_host(got), np.bitwise_xor.accumulate(x >> 3))
    got = prim.inclusive_scan(x.reshape(50, 100), axis=1, map="v >> 3")  # along an axis
    np.testing.assert_array_equal(H.to_host(got), np.cumsum((x >> 3).reshape(50, 100), axis=1))
    with pytest.raises(TypeError, match="exclusive_scan: map='v' reads .* int16"):
        prim.exclusive_scan(x.astype(np.int16), map="v")
    with pytest.raises(TypeError, match="inclusive_scan: map must be a str"):
        prim.inclusive_scan(x, map=1.0)

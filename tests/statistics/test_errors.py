"""One test per error branch of the statistics family: NumPy's exception type, the message
naming the function called."""

import numpy as np
import pytest

import primitives as prim
from primitives.testing import harness as H

REDUCTIONS = ["nansum", "nanprod", "nanmin", "nanmax", "nanmean", "var", "std", "nanvar"]
REDUCTIONS += ["nanstd", "ptp", "count_nonzero"]


@pytest.mark.parametrize("func", REDUCTIONS + ["nanargmin", "nanargmax", "average"])
def test_not_an_array(func):
    H.raises_like(TypeError, func, getattr(prim, func), object())


@pytest.mark.parametrize("func", REDUCTIONS + ["nanargmin", "nanargmax", "nancumsum"])
def test_unsupported_dtype(func):
    H.raises_like(TypeError, func, getattr(prim, func), np.array(["a", "b"]))


def test_ptp_of_bool():
    H.raises_like(TypeError, "ptp", prim.ptp, np.ones(4, bool))


@pytest.mark.parametrize("func", REDUCTIONS)
def test_axis_out_of_range(func):
    H.run_twins(lambda xp: getattr(xp, func)(np.ones((2, 3)), axis=2), name=func)


@pytest.mark.parametrize("func", ["nansum", "var", "ptp", "count_nonzero"])
def test_repeated_axis(func):
    H.run_twins(lambda xp: getattr(xp, func)(np.ones((2, 3)), axis=(0, 0)), name=func)


@pytest.mark.parametrize("func", ["nansum", "nanmax", "var", "ptp"])
def test_out_of_another_shape(func):
    H.raises_like(ValueError, func, getattr(prim, func), np.ones((2, 3)), axis=0, out=np.empty(2))


def test_ddof_and_correction():
    H.raises_like(ValueError, "var", prim.var, np.ones(3), ddof=1, correction=1)


def test_ddof_not_a_number():
    H.raises_like(TypeError, "std", prim.std, np.ones(3), ddof="1")


def test_dtype_not_a_dtype():
    H.raises_like(TypeError, "nansum", prim.nansum, np.ones(3), dtype="nope")


@pytest.mark.parametrize("func", ["nansum", "nanmean", "var", "nanstd"])
@pytest.mark.parametrize("dtype", [np.longdouble, np.clongdouble])
def test_dtype_extended_precision(func, dtype):
    """dtype=longdouble/clongdouble: no GPU type holds them (NumPy's own computes on the host)."""
    if np.dtype(np.longdouble).itemsize == 8:
        pytest.skip("longdouble is float64 on this platform")
    H.raises_like(TypeError, func, getattr(prim, func), np.ones(3), dtype=dtype, match="extended")


def test_var_dtype_not_float():
    H.raises_like(TypeError, "var", prim.var, np.ones(3), dtype=np.int32)


def test_nanmean_inexact_dtype():
    H.raises_like(TypeError, "nanmean", prim.nanmean, np.ones(3), dtype=np.int64)


def test_where_does_not_broadcast():
    H.raises_like(ValueError, "nansum", prim.nansum, np.ones((2, 3)), where=np.ones(2, bool))


@pytest.mark.parametrize("func", ["var", "nanstd"])
def test_mean_of_another_shape(func):
    x = np.ones((2, 3, 4))
    H.raises_like(ValueError, func, getattr(prim, func), x, axis=1, mean=np.ones((2, 3, 1)))
    H.raises_like(ValueError, func, getattr(prim, func), x, axis=1, mean=np.ones((2, 3, 4)))


def test_mean_complex_for_real_input():
    H.raises_like(TypeError, "var", prim.var, np.ones(3), mean=np.ones(1, complex))


def test_where_does_not_broadcast_var():
    H.raises_like(ValueError, "var", prim.var, np.ones((2, 3)), where=np.ones(2, bool))


def test_keepdims_not_a_bool():
    H.raises_like(TypeError, "nansum", prim.nansum, np.ones(3), keepdims="yes")


def test_nanargmin_axis_tuple():
    H.run_twins(lambda xp: xp.nanargmin(np.ones((2, 3)), axis=(0, 1)))


def test_unexpected_keyword():
    with pytest.raises(TypeError, match="nansum"):
        prim.nansum(np.ones(3), bogus=1)

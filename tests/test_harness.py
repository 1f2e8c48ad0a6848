"""The shared harness fails when it should: values, dtypes, shapes, errors."""

import numpy as np
import pytest

import primitives as prim
from primitives.testing import harness as H


def test_twins_pass_on_agreement():
    got = H.run_twins(lambda xp: xp.sum(np.arange(10, dtype=np.int32)))
    assert got == 45


@pytest.mark.parametrize(
    "body, what",
    [
        (lambda xp: xp.sum(np.arange(10, dtype=np.int32)) + (xp is prim), "value"),
        (lambda xp: np.float32(1) if xp is prim else np.float64(1), "dtype"),
        (lambda xp: np.zeros(3) if xp is prim else np.zeros(4), "shape"),
        (lambda xp: (1, 2) if xp is prim else (1, 2, 3), "items"),
    ],
)
def test_twins_catch_disagreement(body, what):
    with pytest.raises(AssertionError):
        H.run_twins(body)


def test_twins_compare_errors():
    def same(xp):
        return xp.min(np.array([], np.float32))  # both raise ValueError

    assert isinstance(H.run_twins(same, name="zero-size").exc, ValueError)

    for raises, match in (
        ({np: ValueError}, "primitives returned"),
        ({np: ValueError, prim: TypeError}, "primitives raised"),
        ({prim: ValueError}, "primitives raised"),
    ):

        def body(xp, raises=raises):  # raises the error named for xp, else returns
            if xp in raises:
                raise raises[xp]("x")
            return 1

        with pytest.raises(AssertionError, match=match):
            H.run_twins(body)


def test_twins_pass_arguments():
    seen = []
    H.run_twins(lambda xp, a, b=0: seen.append((a, b)) or a + b, (1,), {"b": 2})
    assert seen == [(1, 2), (1, 2)]


def test_assert_same_tolerances_and_nans():
    H.assert_same(np.float32(1.0 + 1e-7), np.float32(1.0), rtol=1e-6)
    with pytest.raises(AssertionError):
        H.assert_same(np.float32(1.1), np.float32(1.0), rtol=1e-6)
    H.assert_same(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]))
    with pytest.raises(AssertionError):
        H.assert_same(np.array([np.nan]), np.array([np.nan]), rtol=1e-6, equal_nan=False)


def test_raises_like():
    H.raises_like(
        ValueError, "reduce", prim.reduce, np.ones(3, np.float32), "mean", match="op must be"
    )
    with pytest.raises(AssertionError, match="does not start with"):
        H.raises_like(ValueError, "histogram", prim.reduce, np.ones(3), "mean")
    with pytest.raises(AssertionError, match="does not start with"):  # a name inside another
        H.raises_like(ValueError, "sort", prim.radix_sort, np.ones((2, 2), np.uint32))
    with pytest.raises(AssertionError, match="expected ValueError"):
        H.raises_like(ValueError, "sum", prim.sum, np.ones(3))

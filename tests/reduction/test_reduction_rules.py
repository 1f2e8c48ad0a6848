"""NumPy's rules where the reductions and scans once differed from it: the layout of a mean over
an axis of an F-ordered array, ``out=`` of another dtype (the reduction runs in ``out``'s
promotion), 0-d input (no axes), ``mean`` with a narrow ``dtype``, complex products that overflow,
and the errors of empty reductions. Each case is one NumPy call run both ways by the shared
harness."""

import numpy as np
import pytest

import primitives as prim
from primitives.testing import harness as H


def _into(name, x, out, **kwargs):
    """``name(x, out=<a copy of out>, **kwargs)`` in the harness: the filled ``out``, which the
    call must return."""

    def body(xp):
        o = out.copy()
        got = getattr(xp, name)(x, out=o, **kwargs)
        assert got is o
        return o

    body.__name__ = f"{name}({x.dtype}{x.shape}, out={out.dtype}{out.shape}, {kwargs})"
    return body


# -- mean over an axis of an F-ordered array: the right values in the right places


@pytest.mark.parametrize("axis", [0, 1, 2, (0, 2), (1, 2), -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_mean_f_ordered(axis, keepdims):
    x = np.asfortranarray(np.arange(24.0).reshape(2, 3, 4))
    got = H.run_twins(lambda xp: xp.mean(x, axis=axis, keepdims=keepdims), name="mean")
    # NumPy's result of an F-ordered input is F-ordered; so is this one
    assert got.flags.f_contiguous == np.mean(x, axis=axis, keepdims=keepdims).flags.f_contiguous


@H.twins()
def test_mean_f_ordered_issue_case(xp):
    return xp.mean(np.asfortranarray(np.arange(24.0).reshape(2, 3, 4)), axis=0)[0]


# -- out= of another dtype: NumPy reduces in the promotion of out's dtype and the input's


OUT_CASES = [
    ("sum", np.array([2**63, 2**63], np.uint64), np.zeros((), np.float64), {}),
    ("sum", np.array([[100, 100], [100, 27]], np.int32), np.zeros(2, np.int8), {"axis": 0}),
    ("sum", np.array([1.7, 2.6]), np.zeros((), np.int64), {}),
    ("sum", np.array([-0.5, 0.5]), np.zeros((), np.bool_), {}),
    ("sum", np.array([1, 2], np.int8), np.zeros((), np.complex64), {}),
    ("prod", np.array([1.7, 2.6]), np.zeros((), np.int64), {}),
    ("prod", np.array([2**32, 2**32], np.uint64), np.zeros((), np.float64), {}),
    ("max", np.array([[-1, 1]], np.int8), np.zeros(1, np.uint8), {"axis": 1}),
    ("max", np.array([[-3, 2], [5, -7]], np.int16), np.zeros(2, np.uint8), {"axis": 0}),
    ("min", np.array([[3, -2], [5, -7]], np.int16), np.zeros((), np.uint8), {"axis": (0, 1)}),
    ("min", np.array([-3, 0], np.int8), np.zeros((), np.bool_), {}),
    ("min", np.array([0, -3], np.int8), np.zeros((), np.bool_), {}),
    ("min", np.array([[-3, 0], [1, 2]], np.int8), np.zeros((), np.bool_), {}),
    (
        "min",
        np.array([[[-3, 0], [1, 2]]], np.int8),
        np.zeros((1, 2, 1), np.bool_),
        {"axis": (0, 2), "keepdims": True},
    ),
    ("max", np.array([1.5, -0.5, 2.7]), np.zeros((), np.int64), {}),
    ("mean", np.array([1.7, 2.6]), np.zeros((), np.int64), {}),
    ("mean", np.arange(3000.0).reshape(3, 1000) / 7, np.zeros(3, np.float32), {"axis": 1}),
    ("mean", np.ones((3, 300), np.int8), np.zeros(3, np.int8), {"axis": 1}),
    ("mean", np.arange(6, dtype=np.float16).reshape(2, 3), np.zeros(3, np.float16), {"axis": 0}),
    ("cumsum", np.array([2**62] * 3, np.int64), np.zeros(3), {}),
    ("cumsum", np.array([[2**62] * 3] * 2, np.int64), np.zeros((2, 3)), {"axis": 1}),
    ("cumsum", np.array([1.7, 2.6, 0.9]), np.zeros(3, np.int64), {}),
    ("cumsum", np.array([-1, 1, 3], np.int8), np.zeros(3, np.uint8), {}),
    ("cumsum", np.array([100, 100, 100], np.int8), np.zeros(3, np.int8), {}),
    ("cumprod", np.array([1.5] * 4), np.zeros(4, np.int64), {}),
]


@pytest.mark.parametrize(
    "name, x, out, kwargs", OUT_CASES, ids=[f"{c[0]}-{c[1].dtype}-{c[2].dtype}" for c in OUT_CASES]
)
def test_out_of_another_dtype(name, x, out, kwargs):
    H.run_twins(_into(name, x, out, **kwargs), name=name)


@pytest.mark.parametrize("op", ["sum", "prod", "min", "max"])
def test_reduce_out_of_another_dtype(op):
    x = np.array([[-3, 0, 2**40], [1, 2, -5]], np.int64)
    for odt in (np.float64, np.int8, np.uint8, np.bool_, np.float16):
        want = np.zeros(3, odt)
        getattr(np, op)(x, axis=0, out=want)
        got = np.zeros(3, odt)
        assert prim.reduce(x, op, axis=0, out=got) is got
        H.assert_same(got, want, what=f"reduce {op} into {np.dtype(odt)}")


# -- 0-d input has no axes


Z = np.array(5.0)


@pytest.mark.parametrize(
    "call",
    [
        lambda xp: xp.sum(Z, keepdims=True),
        lambda xp: xp.sum(Z, axis=(), keepdims=True),
        lambda xp: xp.sum(Z, axis=0),  # NumPy's ufunc reductions take 0 and -1 on a 0-d array
        lambda xp: xp.max(Z, axis=-1, keepdims=True),
        lambda xp: xp.sum(Z, axis=(0,)),
        lambda xp: xp.sum(Z, axis=1),
        lambda xp: xp.prod(Z, axis=(0, 0)),
        lambda xp: xp.min(Z, axis=(0,)),
        lambda xp: xp.mean(Z, axis=0),
        lambda xp: xp.mean(Z, axis=(0,)),
        lambda xp: xp.mean(Z, keepdims=True),
        lambda xp: xp.any(Z, axis=(0,)),
        lambda xp: xp.all(Z, keepdims=True),
        lambda xp: xp.argmax(Z, keepdims=True),
        lambda xp: xp.cumsum(Z),
        lambda xp: xp.cumsum(Z, axis=1),
    ],
    ids=lambda c: None,
)
def test_zero_d(call):
    H.run_twins(call)


def test_zero_d_out():
    H.run_twins(_into("sum", Z, np.zeros(()), keepdims=True), name="sum")
    H.run_twins(_into("mean", Z, np.zeros((), np.float32)), name="mean")


# -- mean with a narrow integer dtype divides by the count, not the count cast to that dtype


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.bool_])
@H.twins()
def test_mean_narrow_dtype(xp, dtype):
    return xp.mean(np.ones(300, np.int8), dtype=dtype)


@H.twins()
def test_mean_narrow_dtype_axis(xp):
    return xp.mean(np.full((2, 300), 3, np.int16), axis=1, dtype=np.int8)


@H.twins()
def test_mean_complex_rounds_as_numpy(xp):
    # NumPy divides a complex sum by count + 0j through the reciprocal: -9 * 0.1, not -0.9
    x = np.array([[2 + 1j, 1 + 3j, 0j, -2 + 1j, -1 + 3j], [-3 + 2j, -3 + 1j, -3, -2, 2 + 3j]])
    return xp.mean(x)


# -- complex products that overflow are NaN, as NumPy's textbook product (no fused multiply-add)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_prod_overflow(dtype):
    rng = np.random.default_rng(7)
    x = (
        rng.standard_normal((128, 2, 2, 128)) * 30 + 1j * rng.standard_normal((128, 2, 2, 128)) * 30
    ).astype(dtype)
    with np.errstate(all="ignore"):
        want = np.prod(x, axis=(1, 2, 3))
        got = H.to_host(prim.prod(x, axis=(1, 2, 3)))
        flat_want, flat_got = np.prod(x), H.to_host(prim.prod(x))
    assert np.isnan(want).all()  # every row overflows: inf - inf in the real part
    H.assert_same(np.isnan(got), np.isnan(want), what="NaN where NumPy's is")
    H.assert_same(np.isnan(flat_got), np.isnan(flat_want), what="the whole product")


def test_complex_multiply_overflow_is_nan():
    # one product whose parts overflow: re = inf - inf (NumPy's cumprod is left out: its
    # accumulate loop is compiled with fused multiply-adds on some machines, -inf there)
    big = np.array([1e200 + 1e200j, 1e200 + 1e200j])
    with np.errstate(all="ignore"):
        H.assert_same(H.to_host(prim.prod(big)), np.prod(big))
        assert np.isnan(H.to_host(prim.cumprod(big))[1].real)


# -- errors of empty reductions name the function


@pytest.mark.parametrize("func", ["min", "max"])
def test_empty_min_max_names_function(func):
    H.raises_like(
        ValueError,
        func,
        getattr(prim, func),
        np.zeros(0),
        match="zero-size array to reduction operation",
    )
    H.run_twins(lambda xp: getattr(xp, func)(np.zeros(0)), name=func)
    H.raises_like(ValueError, "reduce", prim.reduce, np.zeros(0), func)

"""Property tests of bfloat16 (``ml_dtypes.bfloat16``) through every family that takes it, over
the layouts and axis forms of :func:`tests.test_properties.arrays`: sort, argsort,
searchsorted and topk (NumPy's order of the values, NaN last), min/max/argmin/argmax, sums and
means (float32 accumulation, rounded once to bfloat16, as torch), cumsum, and histogram against
NumPy's own (edges in bfloat16).

The oracle is NumPy on the float32 values (each bfloat16 holds a float32 exactly), the result
rounded to bfloat16 where the function returns that dtype: small integers, so sums are exact in
float32 and the one rounding is the library's too.
"""

import ml_dtypes
import numpy as np
from hypothesis import given, strategies as st

from primitives.testing import harness as H

from tests.test_properties import SETTINGS, arrays, axes

BF16 = np.dtype(ml_dtypes.bfloat16)
F32 = np.dtype(np.float32)


def _prim():
    import primitives as prim

    return prim


def _as_bf16(r):
    r = np.asarray(r)
    return r.astype(BF16) if r.dtype == F32 else r


@SETTINGS
@given(data=st.data(), name=st.sampled_from(("sort", "argsort")))
def test_sort_argsort(data, name):
    prim = _prim()
    x = data.draw(arrays(dtypes=(BF16,)), "x")
    axis = data.draw(st.sampled_from((None, -1) + tuple(range(x.ndim))), "axis")
    f = x.astype(F32)
    kw = {"axis": axis} if name == "sort" else {"axis": axis, "kind": "stable"}
    try:
        want = _as_bf16(getattr(np, name)(f, **kw))
    except Exception as exc:  # the same error type, naming the function  # noqa: BLE001
        H.raises_like(type(exc), name, getattr(prim, name), x, **kw)
        return
    H.assert_same(getattr(prim, name)(x, **kw), want, what=f"{name} bfloat16{x.shape} {kw}")


@SETTINGS
@given(data=st.data(), name=st.sampled_from(("min", "max", "argmin", "argmax")))
def test_extrema(data, name):
    prim = _prim()
    x = data.draw(arrays(dtypes=(BF16,), min_ndim=1), "x")
    arg = name.startswith("arg")
    axis = data.draw(axes(x.ndim, tuples=not arg), "axis")
    keepdims = data.draw(st.booleans(), "keepdims")
    f = x.astype(F32)
    try:
        want = _as_bf16(getattr(np, name)(f, axis=axis, keepdims=keepdims))
    except Exception as exc:  # the same error type, naming the function  # noqa: BLE001
        H.raises_like(type(exc), name, getattr(prim, name), x, axis=axis, keepdims=keepdims)
        return
    got = getattr(prim, name)(x, axis=axis, keepdims=keepdims)
    H.assert_same(got, want, what=f"{name} bfloat16{x.shape} axis={axis}")


@SETTINGS
@given(data=st.data(), name=st.sampled_from(("sum", "mean")))
def test_sum_mean(data, name):
    prim = _prim()
    x = data.draw(arrays(dtypes=(BF16,)), "x")
    axis = data.draw(axes(x.ndim), "axis")
    f = x.astype(F32)
    try:
        with np.errstate(all="ignore"):
            want = _as_bf16(getattr(np, name)(f, axis=axis))
    except Exception as exc:  # noqa: BLE001
        H.raises_like(type(exc), name, getattr(prim, name), x, axis=axis)
        return
    with np.errstate(all="ignore"):
        got = getattr(prim, name)(x, axis=axis)
    # a mean's quotient is rounded to float32 before bfloat16 (NumPy's too): one ulp of bfloat16
    H.assert_same(got, want, rtol=2**-7 if name == "mean" else 0.0, what=f"{name} axis={axis}")


@SETTINGS
@given(data=st.data())
def test_cumsum(data):
    prim = _prim()
    x = data.draw(arrays(dtypes=(BF16,)), "x")
    axis = data.draw(st.sampled_from((None,) + tuple(range(x.ndim))), "axis")
    want = _as_bf16(np.cumsum(x.astype(F32), axis=axis))
    H.assert_same(prim.cumsum(x, axis=axis), want, what=f"cumsum bfloat16{x.shape} axis={axis}")


@SETTINGS
@given(data=st.data())
def test_searchsorted_topk(data):
    prim = _prim()
    a = np.sort(data.draw(arrays(dtypes=(BF16,), min_ndim=1), "a").reshape(-1))
    v = data.draw(arrays(dtypes=(BF16,)), "v")
    side = data.draw(st.sampled_from(("left", "right")), "side")
    want = np.searchsorted(a.astype(F32), v.astype(F32), side=side)
    H.assert_same(prim.searchsorted(a, v, side=side), want, what="searchsorted")
    k = data.draw(st.integers(0, a.size), "k")
    largest = data.draw(st.booleans(), "largest")
    vals, idx = H.to_host(prim.topk(a[::-1], k, largest=largest))
    f = a[::-1].astype(F32)
    rank = np.unique(f, return_inverse=True)[1]
    order = np.lexsort((np.arange(f.size), -rank if largest else rank))[:k]
    H.assert_same((vals, idx), (a[::-1][order], order.astype(np.int64)), what="topk")


@SETTINGS
@given(data=st.data())
def test_histogram(data):
    prim = _prim()
    x = data.draw(arrays(dtypes=(BF16,)), "x")
    x = np.where(np.isnan(x.astype(F32)), 0, x).astype(BF16)  # NumPy's range refuses NaN
    bins = data.draw(st.sampled_from((1, 4, 7)), "bins")
    rng = data.draw(st.sampled_from((None, (-2.0, 2.0))), "range")
    # NumPy's own histogram of bfloat16 (ml_dtypes' ufuncs): its edges in bfloat16 too
    H.assert_same(prim.histogram(x, bins, range=rng), np.histogram(x, bins, range=rng))

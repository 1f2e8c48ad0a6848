"""Reductions of structured arrays: one array of a NumPy structured dtype reduced as the tuple of
its fields (the tuple reduction of tests/reduction/test_tuple_reduce.py), the operator naming
the fields by their names, against NumPy: an argmax as a (value, index) reduction by names over
packed and aligned dtypes, four fields of mixed dtypes, a 2-d array, empty input, the result
type (a numpy.void of x's dtype for host input), and every error branch."""

import numpy as np
import pytest

import primitives as prim
from primitives.testing import harness as H

#: the larger value, ties to the lower index (commutative, as a reduction's operator must be)
ARGMAX = prim.Op(
    "b.value > a.value || (b.value == a.value && b.index < a.index) ? b : a",
    identity=(-np.inf, 2**31 - 1),
)

PAIRS = {
    "packed": np.dtype([("value", "f8"), ("index", "i4")]),  # 12 bytes: value unaligned
    "aligned": np.dtype([("value", "f8"), ("index", "i4")], align=True),
}


def pairs(rng, dt, shape):
    x = np.zeros(shape, dt)
    x["value"] = rng.integers(0, 100, shape)  # many ties
    x["index"] = np.arange(x.size).reshape(shape)
    return x


@pytest.mark.parametrize("layout", list(PAIRS))
@pytest.mark.parametrize("n", [1, 33, 4099, 65537])
def test_argmax_by_names(n, layout, rng):
    dt = PAIRS[layout]
    x = pairs(rng, dt, n)
    got = prim.reduce(x, ARGMAX)
    assert isinstance(got, np.void) and got.dtype == dt
    want = np.array((x["value"].max(), x["value"].argmax()), dt)[()]
    H.assert_same(got, want)


def test_a_2d_array_is_reduced_whole(rng):
    x = pairs(rng, PAIRS["packed"], (61, 67))
    got = prim.reduce(x, ARGMAX)
    assert (got["value"], got["index"]) == (x["value"].max(), x["value"].argmax())


def test_four_fields_of_mixed_dtypes(rng):
    """A sum of int64, a minimum of float32, a maximum of uint32 and an exclusive or of uint64,
    each by its name, in a dtype laid out with offsets of its own."""
    n = 10007
    dt = np.dtype(
        {
            "names": ["total", "low", "high", "bits"],
            "formats": ["i8", "f4", "u4", "u8"],
            "offsets": [16, 0, 4, 8],
            "itemsize": 32,
        }
    )
    x = np.zeros(n, dt)
    x["total"] = rng.integers(-(2**40), 2**40, n)
    x["low"] = rng.standard_normal(n)
    x["high"] = rng.integers(0, 2**32, n, dtype=np.uint32)
    x["bits"] = rng.integers(0, 2**64, n, dtype=np.uint64, endpoint=False)
    op = prim.Op(
        (
            "a.total + b.total",
            "a.low < b.low ? a.low : b.low",
            "a.high > b.high ? a.high : b.high",
            "a.bits ^ b.bits",
        ),
        identity=(0, np.inf, 0, 0),
    )
    got = prim.reduce(x, op)
    assert got.dtype == dt
    assert got["total"] == x["total"].sum() and got["low"] == x["low"].min()
    assert got["high"] == x["high"].max()
    assert got["bits"] == np.bitwise_xor.reduce(x["bits"])


def test_empty_input_gives_the_identity():
    got = prim.reduce(np.zeros(0, PAIRS["packed"]), ARGMAX)
    assert isinstance(got, np.void) and got.dtype == PAIRS["packed"]
    assert got["value"] == -np.inf and got["index"] == 2**31 - 1


def test_the_same_as_the_tuple_of_fields(rng):
    x = pairs(rng, PAIRS["aligned"], 3000)
    positional = prim.Op("b.f0 > a.f0 || (b.f0 == a.f0 && b.f1 < a.f1) ? b : a", (-np.inf, -1))
    got = prim.reduce(x, positional)
    v, i = prim.reduce((x["value"], x["index"]), positional)
    assert (got["value"], got["index"]) == (H.to_host(v), H.to_host(i))


@pytest.mark.parametrize(
    "kwargs, exc, words",
    [
        ({"axis": 0}, TypeError, "structured array is reduced whole, as it is: no axis="),
        ({"dtype": np.float64}, TypeError, "no dtype="),
        ({"out": np.zeros((), PAIRS["packed"])}, TypeError, "no out="),
        ({"initial": (0, 0)}, TypeError, "no initial="),
        ({"keepdims": True}, TypeError, "no keepdims="),
        ({"where": np.ones(5, bool)}, TypeError, "no where="),
        ({"map": "v * v"}, TypeError, "no map="),
        ({"variant": "atomic"}, ValueError, "production"),
        ({"variant": "zeta"}, ValueError, "variant"),
    ],
)
def test_errors_of_the_keywords(kwargs, exc, words):
    x = np.zeros(5, PAIRS["packed"])
    H.raises_like(exc, "reduce", prim.reduce, x, ARGMAX, match=words, **kwargs)


def test_errors_of_the_dtype_and_the_operator():
    with pytest.raises(TypeError, match="2 to 4 of them; got 1"):
        prim.reduce(np.zeros(3, [("value", "f8")]), ARGMAX)
    with pytest.raises(TypeError, match="field 'index' of dtype int8"):
        prim.reduce(np.zeros(3, [("value", "f8"), ("index", "i1")]), ARGMAX)
    with pytest.raises(TypeError, match="'v' of a subarray of shape \\(2,\\)"):
        prim.reduce(np.zeros(3, [("value", "f8"), ("v", "f4", (2,))]), ARGMAX)
    with pytest.raises(ValueError, match="no C\\+\\+ identifier"):
        prim.reduce(np.zeros(3, [("value", "f8"), ("in-dex", "i4")]), ARGMAX)
    x = np.zeros(3, PAIRS["packed"])
    with pytest.raises(TypeError, match="structured x of 2 fields takes a prim.Op"):
        prim.reduce(x, prim.Op(("a.f0", "b.f1", "a.f2"), identity=(0, 0, 0)))
    with pytest.raises(TypeError, match="structured x of 2 fields takes a prim.Op"):
        prim.reduce(x, "max")
    with pytest.raises(ValueError, match="has no value in int32"):
        prim.reduce(x, prim.Op("a", identity=(0.0, 2**40)))
    wrong = prim.Op("b.value > a.value ? b : a.idx", identity=(-np.inf, 0))
    with pytest.raises(prim.KernelCompileError, match="idx"):
        prim.reduce(x, wrong)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", list(PAIRS))
def test_device_input_gives_a_0d_device_array(on_gpu, layout, rng):
    if not on_gpu:
        pytest.skip("needs the CUDA backend")
    import cupy

    x = pairs(rng, PAIRS[layout], 100003)
    got = prim.reduce(cupy.asarray(x), ARGMAX)
    assert isinstance(got, cupy.ndarray) and got.shape == () and got.dtype == x.dtype
    host = got.get()[()]
    assert (host["value"], host["index"]) == (x["value"].max(), x["value"].argmax())

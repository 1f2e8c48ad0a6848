"""Scans of structured arrays: one array of a NumPy structured dtype scanned as the tuple of its
fields (the tuple scan of tests/scan/test_tuple_scan.py), the operator naming the fields by
their names or as f0, f1, ..., against sequential NumPy oracles: the linear recurrence over
packed, aligned and explicitly laid out dtypes (fields aligned or not to their size), the
exclusive scan, a running argmax by names, a 2-d and a strided array flattened, non-native byte
order, empty input, the renaming of the fields in the generated source, and every error
branch."""

import numpy as np
import pytest

import primitives as prim
from primitives._core import loader, nvrtc, ops
from primitives.scan import _plans as sp
from primitives.testing import harness as H

SIZES = [1, 33, 4099, 65537]

#: the affine maps v -> a * v + b composed in index order, the fields named a and b
REC = prim.Op(("a.a * b.a", "b.a * a.b + b.b"), identity=(1.0, 0.0))

#: fields (a, b) laid out every way: packed, aligned, f8 at 4 bytes into 12-byte elements (no
#: field view of it on a GPU: read as 4-byte words), b before a with padding after
DTYPES = {
    "f8f8": np.dtype([("a", "f8"), ("b", "f8")]),
    "f8f8-aligned": np.dtype([("a", "f8"), ("b", "f8")], align=True),
    "f4f8-packed": np.dtype([("a", "f4"), ("b", "f8")]),
    "f4f8-aligned": np.dtype([("a", "f4"), ("b", "f8")], align=True),
    "f8f4-offsets": np.dtype(
        {"names": ["a", "b"], "formats": ["f8", "f4"], "offsets": [8, 0], "itemsize": 24}
    ),
}


def recurrence(a, b):
    """y[i] = a[i] * y[i-1] + b[i] from y[-1] = 0, and the running products of a (float64)."""
    y, p = np.empty(a.size), np.empty(a.size)
    acc, prod = 0.0, 1.0
    for i, (ai, bi) in enumerate(zip(a.tolist(), b.tolist())):
        acc = ai * acc + bi
        prod = prod * ai
        y[i], p[i] = acc, prod
    return p, y


def make(rng, dt, shape):
    x = np.zeros(shape, dt)
    x["a"] = rng.uniform(0.5, 1.0, shape)
    x["b"] = rng.uniform(-1.0, 1.0, shape)
    return x


def oracle(x, exclusive=False):
    """The scan of REC over the flattened x, as x's dtype."""
    p, y = recurrence(x["a"].ravel().astype(np.float64), x["b"].ravel().astype(np.float64))
    if exclusive:
        p, y = np.concatenate([[1.0], p[:-1]]), np.concatenate([[0.0], y[:-1]])
    want = np.zeros(x.size, x.dtype)
    want["a"], want["b"] = p, y
    return want


def assert_struct(got, want, single):
    """got is a structured array of want's dtype (the same dtype: names, offsets, size) and
    shape, each field within float32's or float64's rounding of the tree of the scan."""
    got = H.to_host(got)
    assert got.dtype == want.dtype and got.dtype.fields == want.dtype.fields
    assert got.dtype.itemsize == want.dtype.itemsize
    assert got.shape == want.shape
    tol = {"rtol": 1e-4, "atol": 1e-5} if single else {"rtol": 1e-10, "atol": 1e-12}
    for name in want.dtype.names:
        H.assert_same(got[name], want[name], what=name, **tol)


@pytest.mark.parametrize("layout", list(DTYPES))
@pytest.mark.parametrize("n", SIZES)
def test_linear_recurrence(n, layout, rng):
    dt = DTYPES[layout]
    x = make(rng, dt, n)
    got = prim.inclusive_scan(x, REC)
    assert got.dtype == dt
    assert_struct(got, oracle(x), single="f4" in layout)


@pytest.mark.parametrize("n", [33, 4099])
def test_exclusive_scan(n, rng):
    x = make(rng, DTYPES["f4f8-packed"], n)
    assert_struct(prim.exclusive_scan(x, REC), oracle(x, exclusive=True), single=True)


def test_a_2d_and_a_strided_array_are_flattened(rng):
    """C order, as the tuple form flattens; a strided view of packed elements (f8 fields not
    aligned to 8 bytes in every element) read as it is on the host."""
    x = make(rng, DTYPES["f8f8"], (37, 29))
    got = prim.inclusive_scan(x, REC)
    assert got.shape == (x.size,)
    assert_struct(got, oracle(x), single=False)
    y = make(rng, np.dtype([("a", "f4"), ("b", "f8")]), (40, 30))[::3, 1::2]
    assert not y.flags.c_contiguous
    assert_struct(prim.inclusive_scan(y, REC), oracle(y), single=True)


def test_positional_names_and_names_mixed(rng):
    """a.f0 is field 0 whatever its name; the same operator over a tuple of the fields."""
    x = make(rng, DTYPES["f8f8"], 1000)
    mixed = prim.Op(("a.f0 * b.a", "b.f0 * a.b + b.f1"), identity=(1.0, 0.0))
    assert_struct(prim.inclusive_scan(x, mixed), oracle(x), single=False)
    positional = prim.Op(("a.f0 * b.f0", "b.f0 * a.f1 + b.f1"), identity=(1.0, 0.0))
    got = prim.inclusive_scan(x, positional)
    tup = prim.inclusive_scan((x["a"], x["b"]), positional)
    for name, t in zip(x.dtype.names, tup):
        np.testing.assert_array_equal(H.to_host(got)[name], H.to_host(t))


def test_running_argmax_by_names(rng):
    """A whole-tuple expression over (value float64, index int32), packed (12-byte elements)."""
    n = 5000
    dt = np.dtype([("value", "f8"), ("index", "i4")])
    x = np.zeros(n, dt)
    x["value"] = rng.integers(0, 50, n)
    x["index"] = np.arange(n)
    op = prim.Op("b.value > a.value ? b : a", identity=(-np.inf, -1))
    got = H.to_host(prim.inclusive_scan(x, op))
    assert got.dtype == dt
    run = np.maximum.accumulate(x["value"])
    np.testing.assert_array_equal(got["value"], run)
    first = np.array([np.flatnonzero(x["value"][: k + 1] == run[k])[0] for k in range(n)])
    np.testing.assert_array_equal(got["index"], first)


def test_non_native_byte_order_comes_back_native(rng):
    x = make(rng, DTYPES["f8f8"], 100)
    big = x.astype(x.dtype.newbyteorder(">"))
    got = H.to_host(prim.inclusive_scan(big, REC))
    assert got.dtype == x.dtype  # the names, offsets and size; native order, as NumPy's scans
    assert_struct(got, oracle(x), single=False)


def test_empty_input():
    dt = DTYPES["f4f8-packed"]
    got = H.to_host(prim.inclusive_scan(np.zeros((0, 3), dt), REC))
    assert got.dtype == dt and got.shape == (0,)


def test_the_names_are_translated_in_the_source_only():
    """a.<name> and b.<name>, whole words, become a.fK and b.fK; a source that names fields by
    their names is named by them too (two dtypes of other names never share it), one that does
    not is the tuple form's."""
    dt = ops.tuple_dtype((np.float64, np.int32), ("value", "i"))
    op = prim.Op("b.value > a . value || a.i < b.i_ ? a : b.values + avalue.i", (0.0, 0))
    assert ops._renamed(op, dt) == "b.f0 > a.f0 || a.f1 < b.i_ ? a : b.values + avalue.i"
    assert ops._renamed(REC, ops.tuple_dtype((np.float64,) * 2, ("b", "a"))) == (
        "a.f1 * b.f1",
        "b.f1 * a.f0 + b.f0",
    )
    assert "a.f1 * b.f1" in ops.prelude(REC, ops.tuple_dtype((np.float64,) * 2, ("b", "a")))
    names = [
        ops.source(sp.SOURCE, REC, ops.tuple_dtype((np.float64,) * 2, ns))
        for ns in (("a", "b"), ("b", "a"), ("x", "y"), None)
    ]
    assert len(set(names[:3])) == 3 and names[2] == names[3]  # REC names no x: not renamed
    positional = prim.Op(("a.f0 * b.f0", "b.f0 * a.f1 + b.f1"), identity=(1.0, 0.0))
    assert ops.source(sp.SOURCE, positional, ops.tuple_dtype((np.float64,) * 2, ("a", "b"))) == (
        ops.source(sp.SOURCE, positional, ops.tuple_dtype((np.float64,) * 2))
    )


def test_the_renamed_instantiation_compiles_with_nvrtc():
    dt = ops.tuple_dtype((np.float32, np.float64), ("a", "b"))
    pol = sp._policy.current("tuple")
    names = [sp.tuple_kernel_name(dt, REC, ex, pol) for ex in (False, True)]
    rel = ops.source(sp.SOURCE, REC, dt)
    lowered = nvrtc.compile_check(loader.source(rel), names, options=loader.nvrtc_options())
    assert set(lowered) == set(names)


@pytest.mark.parametrize(
    "kwargs, exc, words",
    [
        ({"fields": 1}, TypeError, "fields= selects"),
        ({"fields": "a"}, TypeError, "fields= selects"),
        ({"axis": 0}, TypeError, "structured array is scanned flattened, as it is: no axis="),
        ({"dtype": np.float64}, TypeError, "no dtype="),
        ({"map": "v * v"}, TypeError, "no map="),
        ({"variant": "blelloch"}, ValueError, "decoupled_lookback"),
    ],
)
def test_errors_of_the_keywords(kwargs, exc, words):
    x = np.ones(10, DTYPES["f8f8"])
    H.raises_like(exc, "inclusive_scan", prim.inclusive_scan, x, REC, match=words, **kwargs)


@pytest.mark.parametrize(
    "dt, exc, words",
    [
        (np.dtype([("a", "f8")]), TypeError, "2 to 4 of them; got 1"),
        (np.dtype([(f"f{i}", "f8") for i in range(5)]), TypeError, "2 to 4 of them; got 5"),
        (np.dtype([("a", "f8"), ("b", "f2")]), TypeError, "field 'b' of dtype float16"),
        (np.dtype([("a", "f8"), ("b", "?")]), TypeError, "field 'b' of dtype bool"),
        (np.dtype([("a", "c8"), ("b", "f8")]), TypeError, "field 'a' of dtype complex64"),
        (np.dtype([("a", "i2"), ("b", "f8")]), TypeError, "field 'a' of dtype int16"),
        (np.dtype([("a", "f8"), ("v", "f4", (2,))]), TypeError, "'v' of a subarray"),
        (np.dtype([("a", "f8"), ("s", [("p", "f4"), ("q", "f4")])]), TypeError, "nested"),
        (np.dtype([("a", "f8"), ("s", "U3")]), TypeError, "field 's' of dtype <U3"),
        (np.dtype([("a", "f8"), ("b c", "f8")]), ValueError, "'b c' of x is no C\\+\\+ ident"),
        (np.dtype([("a", "f8"), ("1b", "f8")]), ValueError, "no C\\+\\+ identifier"),
        (np.dtype([("f1", "f8"), ("f0", "f8")]), ValueError, "'f1' of x is its field 0"),
        (np.dtype([("a", "f8"), ("f3", "f8")]), ValueError, "'f3' of x is its field 1"),
    ],
)
def test_errors_of_the_dtype(dt, exc, words):
    H.raises_like(exc, "exclusive_scan", prim.exclusive_scan, np.zeros(4, dt), REC, match=words)


def test_errors_of_the_operator():
    x = np.ones(10, DTYPES["f8f8"])
    with pytest.raises(TypeError, match="structured x of 2 fields takes a prim.Op"):
        prim.inclusive_scan(x, prim.Op(("a.f0", "b.f1", "a.f2"), identity=(0, 0, 0)))
    with pytest.raises(TypeError, match="structured x of 2 fields takes a prim.Op"):
        prim.inclusive_scan(x, prim.Op("a + b", identity=0))
    with pytest.raises(TypeError, match="structured x of 2 fields takes a prim.Op"):
        prim.inclusive_scan(x, "sum")
    with pytest.raises(TypeError, match="or a structured array of 2 fields"):
        prim.inclusive_scan(np.ones(10), REC)
    with pytest.raises(ValueError, match="has no value in int32"):
        prim.inclusive_scan(
            np.ones(3, [("a", "f8"), ("i", "i4")]), prim.Op(("a.a", "b.i"), (0.0, 0.5))
        )
    unknown = prim.Op(("a.a * b.a", "b.a * a.nope + b.b"), identity=(1.0, 0.0))
    with pytest.raises(prim.KernelCompileError, match="nope") as info:
        prim.inclusive_scan(x, unknown)
    assert "Op(" in str(info.value)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", ["f8f8-aligned", "f4f8-packed", "f8f4-offsets"])
def test_device_in_device_out(on_gpu, layout, rng):
    """A CuPy structured array: its fields split on the device (field views, or words of a
    field unaligned to its size), the result one CuPy structured array of its dtype."""
    if not on_gpu:
        pytest.skip("needs the CUDA backend")
    import cupy

    x = make(rng, DTYPES[layout], (50, 41))
    got = prim.inclusive_scan(cupy.asarray(x), REC)
    assert isinstance(got, cupy.ndarray) and got.dtype == x.dtype
    assert_struct(got, oracle(x), single="f4" in layout)
    strided = cupy.asarray(x)[:, ::2]
    if layout == "f4f8-packed":  # b unaligned in a strided device array: no copy of it
        with pytest.raises(ValueError, match="not contiguous"):
            prim.inclusive_scan(strided, REC)
    else:
        assert_struct(prim.inclusive_scan(strided, REC), oracle(x[:, ::2]), single="f4" in layout)

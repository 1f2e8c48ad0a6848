"""Scans of tuples: several arrays zipped index by index and scanned with a prim.Op over tuples
(kernels/util/zip.cuh through the look-back kernel), against sequential NumPy oracles: the
linear recurrence (a non-commutative 2-tuple), fields of mixed dtypes, a whole-tuple
expression (a running argmax), 4 fields (values wider than a look-back descriptor), fields=,
empty input, and every error branch."""

import numpy as np
import pytest

import primitives as prim
from primitives._core import backend as _backend, loader, nvrtc, ops
from primitives._core import plans as _plans
from primitives.scan import _plans as sp
from primitives.testing import harness as H

SIZES = [1, 31, 2305, 70001]  # 2304 pairs of float64 to a tile: one, a tile and one, 31 tiles

REC = prim.Op(("a.f0 * b.f0", "b.f0 * a.f1 + b.f1"), identity=(1.0, 0.0))


def recurrence(a, b):
    """x[i] = a[i] * x[i-1] + b[i] from x[-1] = 0, and the running products of a."""
    x, p = np.empty_like(b), np.empty_like(a)
    acc, prod = 0.0, 1.0
    for i in range(a.size):
        acc = a[i] * acc + b[i]
        prod = prod * a[i]
        x[i], p[i] = acc, prod
    return p, x


def pairs(rng, n):
    return rng.uniform(0.5, 1.0, n), rng.uniform(-1.0, 1.0, n)


@pytest.mark.parametrize("n", SIZES)
def test_linear_recurrence(n, rng):
    a, b = pairs(rng, n)
    p, x = recurrence(a, b)
    got_p, got_x = (H.to_host(r) for r in prim.inclusive_scan((a, b), REC))
    np.testing.assert_allclose(got_x, x, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got_p, p, rtol=1e-10, atol=1e-300)
    ex_p, ex_x = (H.to_host(r) for r in prim.exclusive_scan((a, b), REC))
    np.testing.assert_allclose(ex_x, np.concatenate([[0.0], x[:-1]]), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ex_p, np.concatenate([[1.0], p[:-1]]), rtol=1e-10, atol=1e-300)
    assert got_x.dtype == got_p.dtype == np.float64


def test_fields_selects_results(rng):
    a, b = pairs(rng, 5000)
    p, x = recurrence(a, b)
    only = H.to_host(prim.inclusive_scan((a, b), REC, fields=1))  # one array: field 1 alone
    np.testing.assert_allclose(only, x, rtol=1e-10, atol=1e-12)
    got = prim.inclusive_scan((a, b), REC, fields=[-1, 0])
    assert isinstance(got, tuple) and len(got) == 2
    np.testing.assert_allclose(H.to_host(got[0]), x, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(H.to_host(got[1]), p, rtol=1e-10, atol=1e-300)


@pytest.mark.parametrize("n", [1, 4099, 70001])
def test_fields_of_mixed_dtypes(n, rng):
    """Three fields, each its own operator and dtype: an int32 sum (wrapping), a float32
    maximum, a uint64 exclusive or."""
    i = rng.integers(-(2**31), 2**31, n, dtype=np.int32)
    f = rng.standard_normal(n).astype(np.float32)
    u = rng.integers(0, 2**64, n, dtype=np.uint64, endpoint=False)
    op = prim.Op(("a.f0 + b.f0", "a.f1 > b.f1 ? a.f1 : b.f1", "a.f2 ^ b.f2"), (0, -np.inf, 0))
    got = [H.to_host(r) for r in prim.inclusive_scan([i, f, u], op)]
    np.testing.assert_array_equal(got[0], np.cumsum(i, dtype=np.int32))
    np.testing.assert_array_equal(got[1], np.maximum.accumulate(f))
    np.testing.assert_array_equal(got[2], np.bitwise_xor.accumulate(u))
    assert [g.dtype for g in got] == [np.int32, np.float32, np.uint64]


def test_a_whole_tuple_expression(rng):
    """A running argmax, the first index of the maximum so far: one expression whose value is a
    whole tuple."""
    n = 9000
    v = rng.integers(0, 50, n).astype(np.float32)
    idx = np.arange(n, dtype=np.int32)
    op = prim.Op("b.f0 > a.f0 ? b : a", identity=(-np.inf, -1))
    got_v, got_i = (H.to_host(r) for r in prim.inclusive_scan((v, idx), op))
    run = np.maximum.accumulate(v)
    np.testing.assert_array_equal(got_v, run)
    first = np.array([np.flatnonzero(v[: k + 1] == run[k])[0] for k in range(n)])
    np.testing.assert_array_equal(got_i, first)


def test_four_fields_wider_than_a_descriptor(rng, race):
    """24 bytes of tuple: published value, fence, status (device/lookback.cuh), on a racing
    schedule of the blocks."""
    n = 20000
    xs = [
        rng.integers(-1000, 1000, n, dtype=np.int64),
        rng.integers(0, 1000, n, dtype=np.uint32),
        rng.integers(-1000, 1000, n).astype(np.float64),
        rng.integers(0, 2**32, n, dtype=np.uint64),
    ]
    op = prim.Op(tuple(f"a.f{k} + b.f{k}" for k in range(4)), identity=(0, 0, 0, 0))
    got = prim.exclusive_scan(tuple(xs), op)
    for g, x in zip(got, xs):
        np.testing.assert_array_equal(
            H.to_host(g), np.concatenate([[0], np.cumsum(x)[:-1]]).astype(x.dtype)
        )


def test_any_shape_is_flattened_and_empty_input():
    a = np.arange(12.0).reshape(3, 4)
    b = np.ones((3, 4))
    p, x = (H.to_host(r) for r in prim.inclusive_scan((a, b), REC))
    assert p.shape == x.shape == (12,)
    np.testing.assert_allclose(x, recurrence(a.ravel(), b.ravel())[1])
    e = prim.inclusive_scan((np.empty(0), np.empty(0, np.float32)), REC_MIXED)
    assert [H.to_host(r).dtype for r in e] == [np.float64, np.float32] and e[0].size == 0


REC_MIXED = prim.Op(("a.f0 * b.f0", "b.f0 * a.f1 + b.f1"), identity=(1.0, 0.0))


@pytest.mark.parametrize(
    "kwargs, exc, words",
    [
        ({"fields": 2}, ValueError, "fields must be"),
        ({"fields": (0, 0)}, ValueError, "distinct"),
        ({"fields": "x"}, ValueError, "fields must be"),
        ({"fields": []}, ValueError, "fields must be"),
        ({"axis": 0}, TypeError, "no axis="),
        ({"dtype": np.float64}, TypeError, "no dtype="),
        ({"map": "v * v"}, TypeError, "no map="),
        ({"variant": "blelloch"}, ValueError, "decoupled_lookback"),
    ],
)
def test_errors_of_the_keywords(kwargs, exc, words):
    a = np.ones(10)
    with pytest.raises(exc, match=words):
        prim.inclusive_scan((a, a), REC, **kwargs)


def test_errors_of_the_arrays():
    a = np.ones(10)
    with pytest.raises(ValueError, match="one size"):
        prim.inclusive_scan((a, a[:-1]), REC)
    with pytest.raises(TypeError, match="tuple of 3 arrays"):
        prim.inclusive_scan((a, a, a), REC)
    with pytest.raises(TypeError, match="combines tuples of 2 fields"):
        prim.inclusive_scan(a, REC)
    with pytest.raises(TypeError, match=r"x\[1\] of dtype float16"):
        prim.inclusive_scan((a, a.astype(np.float16)), REC)
    with pytest.raises(ValueError, match="has no value in int32"):
        prim.inclusive_scan((a, a.astype(np.int32)), prim.Op(("a.f0", "b.f1"), (0.0, 0.5)))
    with pytest.raises(TypeError, match="fields= selects"):
        prim.inclusive_scan(a, "sum", fields=0)


def test_errors_of_the_operator():
    with pytest.raises(ValueError, match="2 to 4 values"):
        prim.Op("a", identity=(0,))
    with pytest.raises(ValueError, match="2 to 4 values"):
        prim.Op("a", identity=(0, 0, 0, 0, 0))
    with pytest.raises(ValueError, match="as many values"):
        prim.Op(("a.f0", "b.f1"), identity=0)
    with pytest.raises(ValueError, match="as many values"):
        prim.Op(("a.f0", "b.f1", "a.f2"), identity=(0, 0))
    with pytest.raises(TypeError, match="real number"):
        prim.Op(("a.f0", "b.f1"), identity=(0, "x"))
    with pytest.raises(ValueError, match="one C\\+\\+ expression"):
        prim.Op(("a.f0; b.f0", "b.f1"), identity=(0, 0))
    bad = prim.Op(("a.f0 + b.nope", "b.f1"), identity=(0.0, 0.0))
    with pytest.raises(prim.KernelCompileError, match="nope"):
        prim.inclusive_scan((np.ones(4), np.ones(4)), bad)


def test_equal_operators_are_one_key():
    a = prim.Op(["a.f0 * b.f0", "b.f0 * a.f1 + b.f1"], identity=[1.0, 0.0])
    assert a == REC and hash(a) == hash(REC)
    assert a != prim.Op(("a.f0 * b.f0", "b.f0 * a.f1 + b.f1"), identity=(1, 0))  # int identities


@pytest.mark.parametrize(
    "dts",
    [
        (np.float32, np.float32),
        (np.float64, np.int32, np.float32),
        (np.int64, np.uint32, np.float64, np.float32),
    ],
)
def test_the_instantiations_compile_with_nvrtc(dts):
    dt = ops.tuple_dtype(dts)
    op = prim.Op(tuple(f"a.f{i} + b.f{i}" for i in range(len(dts))), (0,) * len(dts))
    pol = sp._policy.current("tuple")
    names = [sp.tuple_kernel_name(dt, op, ex, pol) for ex in (False, True)]
    rel = ops.source(sp.SOURCE, op, dt)
    lowered = nvrtc.compile_check(loader.source(rel), names, options=loader.nvrtc_options())
    assert set(lowered) == set(names)


def test_repeat_calls_take_the_filed_run(rng):
    """A tuple of arrays of the backend's type read as they are (1-D, contiguous) files its
    run under the arrays' dtypes, shapes and strides: a like call takes it without checks or a
    new plan, and the filed run holds none of the first call's arrays; lists and tuples are two
    keys; a converted array (a cast, a strided view) takes the checked path."""
    xp = _backend.get_backend().xp
    a, b = (xp.asarray(v) for v in pairs(rng, 4099))
    c, d = (xp.asarray(v) for v in pairs(rng, 4099))
    prim.inclusive_scan((a, b), REC, fields=1)
    key = prim.inclusive_scan.entry.key(((c, d), REC), {"fields": 1})
    assert _plans.PLANS.find(key) is not None
    builds = prim.cache_info()["builds"]
    got = prim.inclusive_scan((c, d), REC, fields=1)
    assert prim.cache_info()["builds"] == builds
    np.testing.assert_allclose(H.to_host(got), recurrence(H.to_host(c), H.to_host(d))[1])
    assert prim.inclusive_scan.entry.key(([c, d], REC), {"fields": 1}) != key
    ref = H.weak(a)
    del a
    H.assert_released(ref, "the first call's arrays (the filed run keeps none)")
    prim.reduce((c, d), prim.Op(("a.f0 + b.f0", "a.f1 + b.f1"), (0.0, 0.0)))
    key = prim.reduce.entry.key(((c, d), prim.Op(("a.f0 + b.f0", "a.f1 + b.f1"), (0.0, 0.0))), {})
    assert _plans.PLANS.find(key) is not None
    got = prim.reduce((d, c), prim.Op(("a.f0 + b.f0", "a.f1 + b.f1"), (0.0, 0.0)))
    np.testing.assert_allclose([float(g) for g in got], [H.to_host(d).sum(), H.to_host(c).sum()])
    strided = xp.asarray(np.repeat(H.to_host(c), 2))[::2]
    p, x = recurrence(H.to_host(strided), H.to_host(d))
    got = prim.inclusive_scan((strided, d), REC)
    np.testing.assert_allclose(H.to_host(got[1]), x)
    key = prim.inclusive_scan.entry.key(((strided, d), REC), {})
    assert _plans.PLANS.find(key) is None  # a strided view is copied: nothing filed

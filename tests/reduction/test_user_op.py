"""User operators (prim.Op) in the reductions, against NumPy: every variant and accumulator
dtype at awkward sizes, over axes, dtype= and out=, empty inputs, and every error branch."""

import numpy as np
import pytest

import primitives as prim
from primitives import reduction
from primitives.testing import harness as H

from tests.user_ops import DTYPES, MAX, case_id, lowest, make, variant_pairs
from primitives.testing import oracle as _oracle


PAIRS = variant_pairs(reduction.VARIANTS)


SIZES = [1, 33, 513, 4099, 65537]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("variant,dtype", PAIRS, ids=case_id)
def test_whole_array(variant, dtype, n, rng):
    """A maximum and (integers) an exclusive or, exact; a float sum within the sum's bound."""
    x = make(rng, n, dtype)
    got = prim.reduce(x, prim.Op(MAX, lowest(dtype)), variant=variant)
    assert H.to_host(got) == x.max() and np.asarray(got).dtype == x.dtype
    if np.dtype(dtype).kind in "iu":
        got = prim.reduce(x, prim.Op("a ^ b", 0), variant=variant)
        assert H.to_host(got) == np.bitwise_xor.reduce(x)
    else:
        got = prim.reduce(x, prim.Op("a + b", 0.0), variant=variant)
        depth = reduction.error_depth(variant, n, np.dtype(dtype))
        ok, want, bound = _oracle.reduce_matches(H.to_host(got), x, "sum", dtype, depth)
        assert ok, (got, want, bound)


def test_race(rng, race):
    """The production kernel's user sum and xor in race-exposing mode."""
    x = make(rng, 4099, np.uint32)
    assert H.to_host(prim.reduce(x, prim.Op("a ^ b", 0))) == np.bitwise_xor.reduce(x)
    assert H.to_host(prim.reduce(x, prim.Op("a + b", 0))) == x.sum(dtype=np.uint32)


@pytest.mark.parametrize(
    "shape,axis",
    [
        ((7, 33, 5), 0),
        ((7, 33, 5), 1),
        ((7, 33, 5), 2),
        ((7, 33, 5), (0, 2)),
        ((300, 3), 0),
        ((3, 300), 1),
        ((64, 2), 1),
        ((5, 4, 2), (1, 2)),
    ],
)
@pytest.mark.parametrize(
    "dtype", [np.int32, np.uint64, np.float32, np.float64], ids=lambda d: np.dtype(d).name
)
def test_axes(shape, axis, dtype, rng):
    x = make(rng, shape, dtype)
    got = prim.reduce(x, prim.Op(MAX, lowest(dtype)), axis=axis)
    np.testing.assert_array_equal(H.to_host(got), x.max(axis=axis))
    got = prim.reduce(x, prim.Op(MAX, lowest(dtype)), axis=axis, keepdims=True)
    np.testing.assert_array_equal(H.to_host(got), x.max(axis=axis, keepdims=True))
    got = prim.reduce(
        np.asfortranarray(x),
        prim.Op(
            "a < b ? a : b", -lowest(dtype) if np.dtype(dtype).kind == "f" else np.iinfo(dtype).max
        ),
        axis=axis,
    )
    np.testing.assert_array_equal(H.to_host(got), x.min(axis=axis))
    if np.dtype(dtype).kind in "iu":
        got = prim.reduce(x, prim.Op("a | b", 0), axis=axis)
        np.testing.assert_array_equal(H.to_host(got), np.bitwise_or.reduce(x, axis=axis))


def test_dtype_casts_the_elements(rng):
    """dtype=: the elements cast to it (as NumPy's ufunc.reduce), then reduced in it."""
    x = rng.integers(-100, 100, 1000, dtype=np.int8)
    got = prim.reduce(x, prim.Op("a + b", 0), dtype=np.int32)
    assert H.to_host(got) == x.astype(np.int32).sum() and np.asarray(got).dtype == np.int32
    m = x.reshape(10, 100)
    got = prim.reduce(m, prim.Op("a * b + 0", 1), axis=1, dtype=np.float64)
    np.testing.assert_allclose(H.to_host(got), m.astype(np.float64).prod(axis=1))
    with pytest.raises(TypeError, match=r"reduce: Op\('a \+ b', identity=0\) computes in int32"):
        prim.reduce(x, prim.Op("a + b", 0))


def test_out_of_another_dtype(rng):
    x = make(rng, (20, 30), np.int32)
    out = np.zeros(20, np.int64)
    res = prim.reduce(x, prim.Op("a ^ b", 0), axis=1, out=out)
    assert res is out
    np.testing.assert_array_equal(out, np.bitwise_xor.reduce(x, axis=1).astype(np.int64))


def test_empty_gives_the_identity():
    got = prim.reduce(np.zeros(0, np.float32), prim.Op("a * b", 1.5))
    assert H.to_host(got) == np.float32(1.5)
    got = prim.reduce(np.zeros((3, 0), np.int64), prim.Op(MAX, -7), axis=1)
    np.testing.assert_array_equal(H.to_host(got), np.full(3, -7, np.int64))
    got = prim.reduce(np.zeros((0, 4), np.float64), prim.Op(MAX, -np.inf), axis=0)
    np.testing.assert_array_equal(H.to_host(got), np.full(4, -np.inf))


def test_op_object():
    a, b = prim.Op("a  +\n b", 0), prim.Op("a + b", 0)
    assert a == b and hash(a) == hash(b) and a.expr == "a + b"
    assert repr(a) == "Op('a + b', identity=0)"
    assert prim.Op("a + b", 0.0) != a and prim.Op("a - b", 0) != a
    assert prim.Op("a + b", np.int64(3)).identity == 3


@pytest.mark.parametrize(
    "args,exc,match",
    [
        ((1, 0), TypeError, "Op: expr must be a str"),
        (("  ", 0), ValueError, "Op: expr is empty"),
        (("a; b", 0), ValueError, "one C\\+\\+ expression"),
        (("a /* x */ + b", 0), ValueError, "one C\\+\\+ expression"),
        (("#define x", 0), ValueError, "one C\\+\\+ expression"),
        (("a + b", "0"), TypeError, "identity must be a real number"),
        (("a + b", True), TypeError, "identity must be a real number"),
        (("a + b", 1j), TypeError, "identity must be a real number"),
    ],
)
def test_op_errors(args, exc, match):
    with pytest.raises(exc, match=match):
        prim.Op(*args)


def test_call_errors(rng):
    x = make(rng, 100, np.float32)
    with pytest.raises(ValueError, match="reduce: the identity of Op.* has no value in int32"):
        prim.reduce(x.astype(np.int32), prim.Op("a + b", 0.5))
    with pytest.raises(ValueError, match="reduce: the identity of Op.* has no value in uint32"):
        prim.reduce(x.astype(np.uint32), prim.Op(MAX, -1))
    with pytest.raises(TypeError, match="reduce: x has dtype complex64"):
        prim.reduce(x.astype(np.complex64), prim.Op("a + b", 0))
    with pytest.raises(ValueError, match="reduce: op"):
        prim.reduce(x, "a + b")


def test_compile_error_names_the_operator(rng):
    x = make(rng, 100, np.float32)
    with pytest.raises(prim.KernelCompileError) as err:
        prim.reduce(x, prim.Op("a + bb", 0))
    msg = str(err.value)
    assert msg.startswith("compiling Op('a + bb', identity=0) for float32 failed")
    assert "bb" in msg.split(": ", 1)[1] and "\n" not in msg


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_nvrtc_compiles_a_user_operator(dtype):
    """The functor's source through NVRTC (the GPU's compiler; CI has no GPU): the production,
    masked and axis kernels of a user operator for every accumulator dtype, infinities and integer
    limits as identities."""
    from primitives._core import loader, nvrtc, ops
    from primitives.reduction import _kernels, _policy

    try:
        nvrtc.load()
    except nvrtc.NVRTCNotFound:
        pytest.skip("no NVRTC library")
    dt = np.dtype(dtype)
    op = prim.Op(MAX, lowest(dt))
    pol = _policy.production()
    name = _kernels.kernel_name("production", dt, dt, op, pol)
    rel = ops.source(_kernels.SOURCE, op, dt)
    masked = _kernels.masked_name(dt, dt, op, pol)  # where= over every element
    lowered = nvrtc.compile_check(
        loader.source(rel), [name, masked], options=loader.nvrtc_options()
    )
    assert set(lowered) == {name, masked}
    apol = _policy.axis()
    name = _kernels.axis_kernel_name("axis_rows", dt, dt, dt, op, apol)
    rel = ops.source(_kernels.AXIS_SOURCE, op, dt)
    assert set(nvrtc.compile_check(loader.source(rel), [name], options=loader.nvrtc_options()))


def test_a_repeat_call_takes_the_fast_path(monkeypatch, rng):
    """An operator is keyed by its value (entry.keyed_option): a repeat call with it, or with an
    equal one, skips the checks and the plan's lookup, as with a named operator."""
    from primitives._core import backend
    from primitives.reduction import _api

    seen = []
    whole = _api._whole
    monkeypatch.setattr(_api, "_whole", lambda *a: seen.append(a[1]) or whole(*a))
    prim.clear_caches()
    x = backend.get_backend().xp.asarray(make(rng, 1000, np.float32))  # keyed: the backend's type
    first = float(prim.reduce(x, prim.Op(MAX, -np.inf)))
    assert float(prim.reduce(x, prim.Op(MAX, -np.inf))) == first == float(x.max())
    assert float(prim.reduce(x, prim.Op("a + b", 0.0))) != first  # another operator: its own key
    assert seen == [prim.Op(MAX, -np.inf), prim.Op("a + b", 0.0)]


def test_identities_are_exact():
    """Identities keyed and written by their exact value: integers past float64's precision give
    operators of their own, and their bits in the kernel."""
    big, bigger = prim.Op(MAX, 2**62), prim.Op(MAX, 2**62 + 1)
    assert big != bigger and big.key != bigger.key
    x = np.array([-5, -7], np.int64)
    assert H.to_host(prim.reduce(x, prim.Op("a < b ? a : b", 2**63 - 1))) == -7
    got = prim.reduce(np.zeros(0, np.uint64), prim.Op("a & b", 2**64 - 1))
    assert H.to_host(got) == np.uint64(2**64 - 1)
    got = prim.reduce(np.zeros(0, np.int64), prim.Op(MAX, -(2**63)))
    assert H.to_host(got) == np.iinfo(np.int64).min


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
@pytest.mark.parametrize("dtype", [np.int32, np.uint64, np.float64], ids=lambda d: np.dtype(d).name)
def test_initial_and_where(axis, dtype, rng):
    """NumPy's ufunc.reduce(initial=, where=) in the input's dtype: initial combined first, the
    masked-out elements read as the operator's identity; over nothing, initial (or the
    identity)."""
    x = make(rng, (30, 40), dtype)
    mask = rng.random((30, 40)) < 0.4
    ops = [(prim.Op(MAX, lowest(dtype)), np.maximum)]
    if np.dtype(dtype).kind in "iu":
        ops.append((prim.Op("a ^ b", 0), np.bitwise_xor))
    for op, ufunc in ops:
        start = x.dtype.type(x.flat[0])
        want = ufunc.reduce(x, axis=axis, dtype=x.dtype, where=mask, initial=start)
        got = prim.reduce(x, op, axis=axis, where=mask, initial=start)
        np.testing.assert_array_equal(H.to_host(got), want)
        want = ufunc.reduce(x, axis=axis, dtype=x.dtype, initial=start)
        np.testing.assert_array_equal(H.to_host(prim.reduce(x, op, axis=axis, initial=start)), want)
    empty = np.zeros((0, 3), dtype)
    got = prim.reduce(empty, prim.Op(MAX, lowest(dtype)), axis=0, initial=5)
    np.testing.assert_array_equal(H.to_host(got), np.full(3, 5, dtype))
    got = prim.reduce(x, prim.Op(MAX, lowest(dtype)), axis=1, where=np.zeros((30, 40), bool))
    np.testing.assert_array_equal(H.to_host(got), np.full(30, lowest(dtype), dtype))

"""Reductions of tuples: several arrays zipped index by index and reduced with a prim.Op over
tuples (the production kernel over kernels/util/zip.cuh's zipped arrays), against NumPy: an
argmax as a (value, index) reduction with ties, fields of mixed dtypes, empty input, the result
types, and every error branch."""

import numpy as np
import pytest

import primitives as prim
from primitives._core import loader, nvrtc, ops
from primitives.reduction import _kernels, _policy
from primitives.testing import harness as H

#: the larger value, ties to the lower index: commutative, as a reduction's operator must be
ARGMAX = prim.Op("b.f0 > a.f0 || (b.f0 == a.f0 && b.f1 < a.f1) ? b : a", identity=(-np.inf, 2**62))


@pytest.mark.parametrize("n", [1, 31, 4099, 200001])
def test_argmax_as_a_value_index_reduction(n, rng):
    x = rng.integers(0, 100, n).astype(np.float32)  # many ties
    idx = np.arange(n, dtype=np.int64)
    v, i = prim.reduce((x, idx), ARGMAX)
    assert float(v) == x.max() and int(i) == x.argmax()
    assert H.to_host(v).dtype == np.float32 and H.to_host(i).dtype == np.int64


@pytest.mark.parametrize("n", [7, 100003])
def test_fields_of_mixed_dtypes(n, rng):
    i = rng.integers(-(2**40), 2**40, n, dtype=np.int64)
    f = rng.standard_normal(n)
    u = rng.integers(0, 2**32, n, dtype=np.uint32)
    op = prim.Op(
        ("a.f0 + b.f0", "a.f1 < b.f1 ? a.f1 : b.f1", "a.f2 > b.f2 ? a.f2 : b.f2"), (0, np.inf, 0)
    )
    got = prim.reduce([i, f, u], op)
    assert [H.to_host(g)[()] for g in got] == [i.sum(), f.min(), u.max()]
    assert [H.to_host(g).dtype for g in got] == [np.int64, np.float64, np.uint32]


def test_empty_input_gives_the_identity():
    got = prim.reduce((np.empty(0, np.float32), np.empty(0, np.int64)), ARGMAX)
    assert float(got[0]) == -np.inf and int(got[1]) == 2**62


def test_host_input_gives_numpy_scalars(rng):
    x = rng.standard_normal(100).astype(np.float32)
    v, i = prim.reduce((x, np.arange(100)), ARGMAX)
    assert isinstance(v, (np.generic, np.ndarray)) and np.ndim(v) == 0


@pytest.mark.parametrize(
    "kwargs, exc, words",
    [
        ({"axis": 0}, TypeError, "no axis="),
        ({"dtype": np.float64}, TypeError, "no dtype="),
        ({"initial": (0, 0)}, TypeError, "no initial="),
        ({"keepdims": True}, TypeError, "keepdims"),
        ({"where": np.ones(5, bool)}, TypeError, "where"),
        ({"variant": "zeta"}, ValueError, "production"),
    ],
)
def test_errors(kwargs, exc, words):
    x = np.ones(5)
    with pytest.raises(exc, match=words):
        prim.reduce((x, np.arange(5)), ARGMAX, **kwargs)


def test_errors_of_the_arrays():
    x = np.ones(5)
    with pytest.raises(ValueError, match="one size"):
        prim.reduce((x, np.arange(4)), ARGMAX)
    with pytest.raises(TypeError, match="combines tuples of 2 fields"):
        prim.reduce(x, ARGMAX)
    with pytest.raises(TypeError, match=r"x\[0\] of dtype int8"):
        prim.reduce((x.astype(np.int8), np.arange(5)), ARGMAX)


def test_the_instantiation_compiles_with_nvrtc():
    dt = ops.tuple_dtype((np.float32, np.int64))
    pol = _policy.production()
    z, t = ops.zip_ctype(dt), ops.ctype(dt)
    name = f"reduce_production<{z}, {t}, {ops.functor(ARGMAX, t)}, {pol.block}, {pol.vectors}>"
    rel = ops.source(_kernels.SOURCE, ARGMAX, dt)
    assert set(nvrtc.compile_check(loader.source(rel), [name], options=loader.nvrtc_options())) == {
        name
    }

"""map= (a transform of each element as it is read) in the reductions, against NumPy on the
transformed array: every variant and element dtype, with named and user operators, and every
error branch."""

import numpy as np
import pytest

import primitives as prim
from primitives import reduction
from primitives.testing import harness as H
from primitives.testing import oracle as _oracle

from tests.user_ops import DTYPES, case_id, variant_pairs


PAIRS = variant_pairs(reduction.VARIANTS)


SIZES = [1, 33, 4099, 65537]


def small(rng, n, dt):
    dt = np.dtype(dt)
    if dt.kind == "f":
        return rng.uniform(-1.0, 1.0, n).astype(dt)
    return rng.integers(0 if dt.kind == "u" else -1000, 1000, n).astype(dt)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("variant,dtype", PAIRS, ids=case_id)
def test_sum_of_squares(variant, dtype, n, rng):
    x = small(rng, n, dtype)
    got = prim.sum(x, map="v * v", variant=variant)
    sq = x * x  # in the element's dtype, as the map computes
    if np.dtype(dtype).kind == "f":
        depth = reduction.error_depth(variant, n, np.dtype(dtype))
        ok, want, bound = _oracle.reduce_matches(H.to_host(got), sq, "sum", dtype, depth)
        assert ok, (got, want, bound)
    else:
        assert H.to_host(got) == np.sum(sq) and np.asarray(got).dtype == np.sum(sq).dtype


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_min_max_prod_and_user_ops(dtype, rng):
    x = small(rng, 5000, dtype)
    expr = "fabs(v)" if np.dtype(dtype).kind == "f" else "v / 3"
    mapped = np.abs(x) if np.dtype(dtype).kind == "f" else (x / 3).astype(dtype)
    if np.dtype(dtype).kind in "iu":
        mapped = np.trunc(x / 3).astype(dtype)  # C++ division truncates
    assert H.to_host(prim.max(x, map=expr)) == mapped.max()
    assert H.to_host(prim.min(x, map=expr)) == mapped.min()
    head = x[:20]
    m_head = mapped[:20] + (0.5 if np.dtype(dtype).kind == "f" else 1)
    got = prim.prod(head, map=expr + (" + 0.5" if np.dtype(dtype).kind == "f" else " + 1"))
    np.testing.assert_allclose(H.to_host(got), np.prod(m_head), rtol=1e-5)
    if np.dtype(dtype).kind in "iu":
        got = prim.reduce(x, prim.Op("a ^ b", 0), map="v & 0xff")
        assert H.to_host(got) == np.bitwise_xor.reduce(x & dtype(0xFF))


def test_race(rng, race):
    x = small(rng, 4099, np.int32)
    assert H.to_host(prim.sum(x, map="v * v")) == np.sum(x * x)


def test_errors(rng):
    x = small(rng, 100, np.float32)
    with pytest.raises(TypeError, match="sum: map must be a str"):
        prim.sum(x, map=3)
    with pytest.raises(ValueError, match="sum: map: expr must be one C\\+\\+ expression"):
        prim.sum(x, map="v; v")
    with pytest.raises(ValueError, match="reduce: map: expr is empty"):
        prim.reduce(x, map=" ")
    with pytest.raises(TypeError, match="sum: map='v \\* v' takes no where="):
        prim.sum(x, where=x > 0, map="v * v")
    assert H.to_host(prim.max(x, initial=0.5, map="v * v")) == np.max(x * x, initial=0.5)
    with pytest.raises(TypeError, match="sum: map='v \\* v' reads int32, .* got x of dtype int8"):
        prim.sum(x.astype(np.int8), map="v * v")
    with pytest.raises(TypeError, match="cast to float64"):
        prim.sum(x, dtype=np.float64, map="v * v")
    with pytest.raises(prim.KernelCompileError, match="compiling map='v \\* w' for float32"):
        prim.sum(x, map="v * w")


def test_nvrtc_compiles_a_map():
    """A map's element type through NVRTC (the GPU's compiler; CI has no GPU): the production
    kernel of a sum of squares of every element dtype."""
    from primitives._core import loader, nvrtc, ops
    from primitives.reduction import _kernels, _policy

    try:
        nvrtc.load()
    except nvrtc.NVRTCNotFound:
        pytest.skip("no NVRTC library")
    m = ops.Map("v * v")
    for dt in map(np.dtype, DTYPES):
        acc = np.dtype(np.int64) if dt == np.int32 else dt
        acc = np.dtype(np.uint64) if dt == np.uint32 else acc
        name = _kernels.kernel_name("production", dt, acc, "sum", _policy.production(), None, m)
        rel = ops.source(_kernels.SOURCE, "sum", acc, m, dt)
        got = nvrtc.compile_check(loader.source(rel), [name], options=loader.nvrtc_options())
        assert set(got) == {name}

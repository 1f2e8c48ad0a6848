"""bfloat16 reductions (ml_dtypes' dtype) vs float32-computed oracles: accumulated in float32 and
rounded once to bfloat16, as torch's and as the library's float16; result dtype bfloat16."""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import primitives as prim
from primitives import reduction
from primitives.testing import harness as H

BF16 = np.dtype(ml_dtypes.bfloat16)
SIZES = [0, 1, 15, 16, 17, 31, 1000, 4097]
#: bfloat16's unit roundoff (8 significant bits)
U = 2.0**-8


def make(rng, n, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, n).astype(BF16)


def f32(a):
    return np.asarray(H.to_host(a)).astype(np.float32)


def check(got, x, op):
    """``got`` is bfloat16 and within one bfloat16 rounding (plus float32's accumulation) of
    ``op`` over ``x`` computed in float64: exactly NumPy's for min and max."""
    got = H.to_host(got)
    assert np.asarray(got).dtype == BF16, (op, got)
    if op in ("min", "max"):
        want = getattr(np, op)(x)
        H.assert_same(np.asarray(got).view(np.uint16), np.asarray(want).view(np.uint16))
        return
    xd = x.astype(np.float64)
    exact = float(np.sum(xd) if op == "sum" else np.prod(xd))
    mag = float(np.sum(np.abs(xd))) if op == "sum" else abs(exact)
    bound = U * abs(exact) + 2 * (x.size + 16) * 2.0**-24 * mag + 1e-30
    assert abs(float(np.float32(got)) - exact) <= bound, (op, x.size, got, exact, bound)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.sampled_from(SIZES),
    offset=st.integers(0, 15),
    op=st.sampled_from(["sum", "prod", "min", "max", "reduce sum", "reduce max"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_whole_array_matches_float32_oracle(n, offset, op, seed):
    """sum, prod, min, max and reduce at sizes around one 16-byte load, views starting off a
    16-byte boundary: bfloat16 results within one rounding of the float32 computation."""
    rng = np.random.default_rng(seed)
    name = op.split()[-1]
    lo, hi = (0.9, 1.1) if name == "prod" else (-1.0, 1.0)
    x = make(rng, n + offset, lo, hi)[offset:]
    if n == 0 and name in ("min", "max"):
        H.raises_like(ValueError, name, getattr(prim, name), x)
        return
    got = prim.reduce(x, name) if op.startswith("reduce") else getattr(prim, name)(x)
    if n == 0:
        assert np.asarray(got).dtype == BF16 and float(got) == (1.0 if name == "prod" else 0.0)
        return
    check(got, x, name)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.sampled_from([1, 17, 4097]),
    op=st.sampled_from(["sum", "min", "max"]),
    variant=st.sampled_from(reduction.VARIANTS[:-1]),
    seed=st.integers(0, 2**32 - 1),
)
def test_ladder_variants(n, op, variant, seed):
    """The ladder and zeta convert bfloat16 to their float32 accumulator first."""
    x = make(np.random.default_rng(seed), n)
    check(prim.reduce(x, op, variant=variant), x, op)


def test_float32_result_and_sum_exact_in_float32():
    """``dtype=float32`` gives float32 (the float32 sum); 3000 sixteenths add exactly in float32
    (NumPy's own bfloat16 sum rounds every partial sum), then round once to bfloat16."""
    x = np.full(3000, 0.0625, BF16)
    got = prim.sum(x, dtype=np.float32)
    assert np.asarray(got).dtype == np.float32 and got == np.float32(187.5)
    assert prim.sum(x) == BF16.type(188.0) and prim.sum(x).dtype == BF16
    assert prim.mean(x) == BF16.type(0.0625) and prim.mean(x).dtype == BF16


def test_nan_inf_and_rounding():
    """NaN propagates through sum, min and max (float16's rules); infinities order; a sum past
    bfloat16's largest finite value is inf; ties round to even."""
    h = np.ones(1000, BF16)
    h[3] = -np.inf
    assert prim.min(h) == -np.inf and prim.max(h) == 1
    h[999] = np.nan
    for f in (prim.sum, prim.min, prim.max, prim.prod):
        r = f(h)
        assert np.isnan(np.float32(r)) and r.dtype == BF16
    big = np.full(4, float(ml_dtypes.finfo(BF16).max), BF16)
    assert prim.sum(big) == np.inf
    # 1 + 2^-8 is halfway between 1 and 1 + 2^-7: rounded to even (1.0)
    assert prim.sum(np.array([1.0, 2.0**-8], BF16)) == 1.0
    assert prim.sum(np.array([1.0, 3 * 2.0**-8], BF16)) == 1.0 + 2.0**-6


@pytest.mark.parametrize(
    "shape,axis",
    [((7, 33), 0), ((7, 33), 1), ((40, 300), (0, 1)), ((3, 5, 9), (0, 2)), ((4097, 2), 0)],
)
@pytest.mark.parametrize("op", ["sum", "prod", "min", "max"])
def test_over_axes(shape, axis, op):
    """Reductions over axes: bfloat16 results, each within a rounding of float32's."""
    rng = np.random.default_rng(7)
    lo, hi = (0.95, 1.05) if op == "prod" else (-1.0, 1.0)
    x = make(rng, int(np.prod(shape)), lo, hi).reshape(shape)
    got = getattr(prim, op)(x, axis=axis, keepdims=True)
    want = getattr(np, op)(x.astype(np.float64), axis=axis, keepdims=True)
    assert got.dtype == BF16 and got.shape == want.shape
    if op in ("min", "max"):
        H.assert_same(f32(got), want.astype(np.float32))
    else:
        np.testing.assert_allclose(f32(got), want, rtol=2 * U, atol=1e-3)


def test_mean_where_initial():
    """mean (float32 sums, bfloat16 result), where= and initial= as NumPy's."""
    rng = np.random.default_rng(3)
    x = make(rng, 35 * 9).reshape(35, 9)
    m = prim.mean(x, axis=0)
    assert m.dtype == BF16
    np.testing.assert_allclose(f32(m), x.astype(np.float64).mean(0), rtol=2 * U, atol=1e-3)
    mask = x > 0
    s = prim.sum(x, where=mask)
    assert s.dtype == BF16
    exact = float(np.sum(x.astype(np.float64), where=mask))
    assert abs(float(np.float32(s)) - exact) <= 2 * U * abs(exact)
    got = prim.max(x, axis=1, initial=-5.0, where=mask)
    want = np.max(x.astype(np.float32), axis=1, initial=-5.0, where=mask)
    H.assert_same(f32(got), want)
    assert prim.any(x) and prim.all(x + BF16.type(2))


@pytest.mark.parametrize("op", ["sum", "min", "max"])
@H.twins()
def test_twin_of_numpy_small_values(xp, op):
    """Small integers, exact in every order: NumPy's (ml_dtypes) value and dtype."""
    return getattr(xp, op)((np.arange(35).reshape(7, 5) % 3).astype(BF16))


def test_dtype_errors_list_bfloat16():
    """The accepted dtypes named in the error include bfloat16 (argmin's too)."""
    H.raises_like(TypeError, "sum", prim.sum, np.array(["a"]), match="bfloat16")
    H.raises_like(
        TypeError, "sum", prim.sum, np.ones(3), dtype="U2", match=r"is not a dtype|bfloat16"
    )
    H.raises_like(TypeError, "argmin", prim.argmin, np.array(["a"]), match="bfloat16")


def test_sums_round_to_nearest_even():
    """prim::bf16's conversion from float: each row of two bfloat16 numbers sums in float32 and
    rounds to nearest even (ties, carries into the exponent, overflow to inf, NaN kept), bit
    for bit ml_dtypes' rounding of the float32 sum. Normal magnitudes only (a GPU may flush
    float32 subnormals)."""
    rng = np.random.default_rng(11)
    n = 20000
    sign = rng.integers(0, 2, (n, 2)) << 15
    exp = rng.integers(28, 255, (n, 2))  # 2^-99 up to the infinities and NaNs
    exp[: n // 2, 1] = np.clip(exp[: n // 2, 0] - rng.integers(0, 10, n // 2), 28, 254)
    man = rng.integers(0, 128, (n, 2))
    x = ((sign | (exp << 7) | man).astype(np.uint16)).view(BF16)
    got = prim.sum(x, axis=1)
    with np.errstate(over="ignore", invalid="ignore"):
        want = (x[:, 0].astype(np.float32) + x[:, 1].astype(np.float32)).astype(BF16)
    assert got.dtype == BF16
    nan = np.isnan(want.astype(np.float32))
    H.assert_same(np.isnan(f32(got)), nan)
    H.assert_same(np.asarray(H.to_host(got)).view(np.uint16)[~nan], want.view(np.uint16)[~nan])

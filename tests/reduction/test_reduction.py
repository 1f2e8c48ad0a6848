"""Reduction family vs the NumPy oracle: every variant x dtype x op at awkward sizes."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import primitives as prim
from primitives import reduction
from primitives.testing import harness as H
from primitives.testing import oracle as _oracle

from tests.conftest import race_sample

DTYPES = [np.int32, np.int64, np.uint32, np.uint64, np.float32, np.float64]
# block = 256 threads; delta/epsilon/zeta cover 512 per block; 65537 needs three ladder levels
SIZES = [1, 2, 31, 32, 33, 255, 256, 257, 511, 512, 513, 1000, 4099, 65537]


def make(rng, n, dtype, op="sum"):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        x = rng.uniform(-1.0, 1.0, n).astype(dt)
        x[x == 0] = dt.type(0.25)
        return x
    info = np.iinfo(dt)
    if op == "sum" and dt.itemsize == 8:
        # full range: the sum wraps around, as NumPy's does
        return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    return rng.integers(max(info.min, -(2**31)), min(info.max, 2**31 - 1), n, dtype=dt)


def check(got, x, op, acc_dtype, variant):
    depth = reduction.error_depth(variant, x.size, np.dtype(acc_dtype))
    ok, want, bound = _oracle.reduce_matches(H.to_host(got), x, op, acc_dtype, depth)
    assert ok, f"{variant} {op} n={x.size}: got {got!r}, want {want!r} (bound {bound})"


def _id(value):
    return np.dtype(value).name if isinstance(value, type) else str(value)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("variant", reduction.VARIANTS)
def test_sum(variant, dtype, n, rng):
    """Every variant x dtype x size (in index order on the emulator)."""
    sum_case(variant, dtype, n, rng)


@pytest.mark.parametrize("variant,dtype,n", race_sample(reduction.VARIANTS, DTYPES, SIZES), ids=_id)
def test_sum_race(variant, dtype, n, rng, race):
    """Half the sums in race-exposing mode: each variant with every size and every dtype."""
    sum_case(variant, dtype, n, rng)


def sum_case(variant, dtype, n, rng):
    x = make(rng, n, dtype)
    got = prim.sum(x, variant=variant)
    want_dt = np.sum(x).dtype  # NumPy's result dtype (int32 -> int64, uint32 -> uint64)
    assert np.asarray(got).dtype == want_dt
    check(got, x, "sum", want_dt, variant)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", ["min", "max"])
@pytest.mark.parametrize("variant", reduction.VARIANTS)
def test_min_max(variant, op, dtype, n, rng):
    """Every variant x op x dtype x size (in index order on the emulator)."""
    min_max_case(variant, op, dtype, n, rng)


@pytest.mark.parametrize(
    "variant,op,dtype,n", race_sample(reduction.VARIANTS, ["min", "max"], DTYPES, SIZES), ids=_id
)
def test_min_max_race(variant, op, dtype, n, rng, race):
    """Half the extrema in race-exposing mode: each variant with both ops, every size and every
    dtype."""
    min_max_case(variant, op, dtype, n, rng)


def min_max_case(variant, op, dtype, n, rng):
    x = make(rng, n, dtype, op)
    got = prim.reduce(x, op, variant=variant)
    want = getattr(np, op)(x)
    assert np.asarray(got).dtype == x.dtype
    assert got == want, f"{variant} {op} n={n}: got {got}, want {want}"


@pytest.mark.parametrize("variant", reduction.VARIANTS)
@pytest.mark.parametrize("dtype", [np.int32, np.uint32])
def test_sum_dtype_same_width(variant, dtype, rng):
    """``dtype=`` equal to the input: 32-bit accumulation that wraps like numpy.sum(dtype=...)."""
    x = rng.integers(0, np.iinfo(dtype).max, 4099, dtype=dtype)
    got = prim.sum(x, dtype=dtype, variant=variant)
    assert np.asarray(got).dtype == np.dtype(dtype)
    assert got == np.sum(x, dtype=dtype)


@pytest.mark.parametrize("variant", ["gamma", "production"])
def test_dtype_conversion(variant, rng):
    x = rng.integers(-1000, 1000, 3000, dtype=np.int64)
    got = prim.sum(x, dtype=np.float64, variant=variant)
    assert np.asarray(got).dtype == np.float64 and got == float(x.sum())
    got = prim.reduce(x.astype(np.float32), "max", dtype=np.int32, variant=variant)
    assert np.asarray(got).dtype == np.int32 and got == x.max()


@pytest.mark.parametrize("variant", reduction.VARIANTS)
@pytest.mark.parametrize("op", ["min", "max", "sum"])
@pytest.mark.parametrize("where", [0, 255, 256, 700, -1])
def test_nan_propagates(variant, op, where, rng):
    x = rng.uniform(-1, 1, 1001).astype(np.float32)
    x[where] = np.nan
    assert np.isnan(prim.reduce(x, op, variant=variant))


@pytest.mark.parametrize("variant", reduction.VARIANTS)
def test_infinities(variant):
    x = np.array([1.0, np.inf, -np.inf, 2.0] * 100, dtype=np.float64)
    assert prim.max(x, variant=variant) == np.inf
    assert prim.min(x, variant=variant) == -np.inf
    assert np.isnan(prim.sum(x, variant=variant))


def test_default_variant_is_production(rng):
    prim.clear_caches()
    prim.sum(make(rng, 100, np.float32))
    assert {k[0] for k in _plan_keys()} == {"reduce/production"}


def _plan_keys():
    from primitives._core.plans import PLANS

    return [k for k in PLANS._plans if isinstance(k[0], str) and k[0].startswith("reduce/")]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", ["sum", "min", "max"])
@H.twins()
def test_empty(xp, op, dtype):
    """Empty input: sum is 0 of NumPy's result dtype; min/max raise NumPy's ValueError."""
    return getattr(xp, op)(np.array([], dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", ["sum", "min", "max"])
@pytest.mark.parametrize("shape", [(), (1,), (7, 5), (3, 4, 5)])
@H.twins()
def test_twin_of_numpy(xp, op, dtype, shape):
    """Result value and dtype of NumPy's function, for every dtype and ndim (flattened)."""
    x = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape) % 97
    return getattr(xp, op)(x)


def test_host_in_host_out(rng):
    x = make(rng, 100, np.float64)
    got = prim.sum(x)
    assert isinstance(got, np.float64)
    assert isinstance(prim.max(np.arange(5, dtype=np.int32) + 1), np.int32)


def test_any_ndim_is_flattened(rng):
    x = make(rng, 6 * 7 * 9, np.int64).reshape(6, 7, 9)
    assert prim.sum(x) == np.sum(x)
    assert prim.max(np.int32(7)) == 7  # 0-d
    assert prim.sum([[1, 2], [3, 4]]) == 10  # anything numpy.asarray takes


def test_non_contiguous(rng):
    base = make(rng, 4000, np.float32)
    x = base[::3]
    check(prim.sum(x), x, "sum", np.float32, "production")
    y = make(rng, 64 * 64, np.int32).reshape(64, 64).T
    assert prim.sum(y) == np.sum(y)
    assert prim.min(y) == np.min(y)


def test_misaligned_start(rng):
    """A view that starts off a 16-byte boundary takes the scalar head path."""
    base = make(rng, 5000, np.float32)
    for off in range(1, 4):
        x = base[off:]
        check(prim.sum(x), x, "sum", np.float32, "production")
        assert prim.max(x) == x.max()


def test_repeated_calls_reuse_ticket(rng):
    """The production kernel leaves its last-block ticket at zero for the next launch."""
    for n in (10, 100000, 7, 33333):
        x = make(rng, n, np.int64)
        assert prim.sum(x) == np.sum(x)


def test_repeat_calls_take_the_filed_plan(rng):
    """A call on an array like an earlier call's finds its plan by its arguments and gives the
    same answers; other arguments (another op, dtype, variant) are checked again."""
    prim.clear_caches()
    x, y = make(rng, 5000, np.float32), make(rng, 5000, np.float32)
    assert prim.sum(x) == np.float32(prim.sum(x))
    builds = prim.cache_info()["builds"]
    check(prim.sum(y), y, "sum", np.float32, "production")
    assert prim.cache_info()["builds"] == builds  # no new plan
    assert prim.max(y) == y.max()
    with pytest.raises(ValueError, match="variant must be"):
        prim.sum(y, variant="omega")
    with pytest.raises(TypeError, match="dtype="):
        prim.sum(y, dtype="U3")


def test_repeat_calls_choose_the_variant_once(rng, monkeypatch):
    """The variant choice runs in the prepare step: once for the first call on an array of the
    backend's own type, never for repeat calls on like arrays (whole-array and over an axis)."""
    from primitives._core import backend as _backend
    from primitives.reduction import _choose

    calls = []
    choose = _choose.variant
    monkeypatch.setattr(
        _choose, "variant", lambda name, func: calls.append(name) or choose(name, func)
    )
    prim.clear_caches()
    xp = _backend.get_backend().xp
    xs = [xp.asarray(make(rng, 3000, np.float32)) for _ in range(3)]
    for x in xs:
        check(prim.sum(x), H.to_host(x), "sum", np.float32, "production")
    assert calls == ["auto"]
    for x in xs:
        H.assert_same(prim.max(x.reshape(30, 100), axis=1), H.to_host(x).reshape(30, 100).max(1))
    assert calls == ["auto", "auto"]
    prim.sum(xs[0], variant="zeta")  # another option: its own prepare, then its own plan
    prim.sum(xs[1], variant="zeta")
    assert calls == ["auto", "auto", "zeta"]


@pytest.mark.parametrize("op", ["sum", "min", "max"])
def test_explicit_plan(rng, op):
    """``prim.plan(prim.<op>, like)`` equals the function on like arrays and on others."""
    x = make(rng, 3001, np.int32)
    p = prim.plan(getattr(prim, op), x)
    for y in (make(rng, 3001, np.int32), make(rng, 17, np.int32), make(rng, 3001, np.float64)):
        # a float sum adds in a tree, NumPy pairwise: equal up to rounding
        tol = 1e-12 if op == "sum" and y.dtype.kind == "f" else 0.0
        H.assert_same(p(y), getattr(np, op)(y), rtol=tol)
    q = prim.reduce.plan(x, op, variant="zeta")
    H.assert_same(q(x), getattr(np, op)(x))
    with pytest.raises(ValueError, match="variant must be"):
        prim.plan(prim.sum, x, variant="omega")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    dtype=st.sampled_from(DTYPES),
    op=st.sampled_from(["sum", "min", "max"]),
    variant=st.sampled_from(reduction.VARIANTS),
)
def test_property_matches_numpy(data, dtype, op, variant):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        elems = st.floats(-1e6, 1e6, width=dt.itemsize * 8, allow_nan=False)
    else:
        info = np.iinfo(dt)
        elems = st.integers(int(info.min), int(info.max))
    x = data.draw(hnp.arrays(dt, st.integers(1, 3000), elements=elems))
    got = prim.reduce(x, op, variant=variant)
    acc = np.sum(x).dtype if op == "sum" else dt
    check(got, x, op, acc, variant)


# ---- narrow dtypes: bool, int8, uint8, int16, uint16, float16 --------------------------------

NARROW = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.float16]
NARROW_SIZES = [0, 1, 15, 16, 17, 1000, 4099]


def make_narrow(rng, n, dtype):
    """Values over the dtype's whole range (float16: [-1, 1], a sum far from overflow)."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(dt)
    if dt.kind == "f":
        return rng.uniform(-1.0, 1.0, n).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)


def check_narrow(got, x, op, variant="production"):
    """Value and dtype of NumPy's; float16 sums within the bound of the tree (float32
    accumulation, one final rounding to float16), NumPy's own pairwise float16 sum within it too."""
    want = getattr(np, op)(x)
    assert np.asarray(H.to_host(got)).dtype == want.dtype, (op, x.dtype, got)
    if x.dtype == np.float16 and op == "sum":
        exact = np.sum(x, dtype=np.float64)
        bound = 2.0**-11 * (abs(exact) + 1e-3) + 2.0**-24 * np.abs(x).astype(np.float64).sum()
        assert abs(float(H.to_host(got)) - exact) <= bound, (variant, x.size, got, exact)
        assert abs(float(want) - exact) <= 8 * bound + 2.0**-10 * np.abs(x).sum(dtype=float)
    else:
        H.assert_same(got, want, what=f"{variant} {op} {x.dtype} n={x.size}")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    dtype=st.sampled_from(NARROW),
    n=st.sampled_from(NARROW_SIZES),
    offset=st.integers(0, 15),
    op=st.sampled_from(["sum", "min", "max", "reduce sum", "reduce min", "reduce max"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_narrow_dtypes_match_numpy(dtype, n, offset, op, seed):
    """Every narrow dtype x {sum, min, max, reduce} at sizes around one 16-byte load, views that
    start off a 16-byte boundary (offset elements in): NumPy's values and result dtypes."""
    rng = np.random.default_rng(seed)
    x = make_narrow(rng, n + offset, dtype)[offset:]
    name = op.split()[-1]
    if n == 0 and name != "sum":
        H.run_twins(lambda xp, a: getattr(xp, name)(a), (x,), name=name)
        return
    got = prim.reduce(x, name) if op.startswith("reduce") else getattr(prim, name)(x)
    check_narrow(got, x, name)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    dtype=st.sampled_from(NARROW),
    n=st.sampled_from([1, 17, 4099]),
    op=st.sampled_from(["sum", "min", "max"]),
    variant=st.sampled_from(reduction.VARIANTS[:-1]),
    seed=st.integers(0, 2**32 - 1),
)
def test_narrow_dtypes_ladder_variants(dtype, n, op, variant, seed):
    """The ladder and zeta convert narrow input to their accumulator dtype: NumPy's results."""
    x = make_narrow(np.random.default_rng(seed), n, dtype)
    check_narrow(prim.reduce(x, op, variant=variant), x, op, variant)


@pytest.mark.parametrize("dtype", NARROW, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", ["sum", "min", "max"])
@H.twins()
def test_narrow_twin_of_numpy(xp, op, dtype):
    """2-D narrow input, flattened: NumPy's value and dtype (sum of bool is int64, min of bool
    is bool)."""
    return getattr(xp, op)((np.arange(35).reshape(7, 5) % 3).astype(dtype))


@pytest.mark.parametrize("dtype", NARROW, ids=lambda d: np.dtype(d).name)
@H.twins()
def test_narrow_empty_sum(xp, dtype):
    return xp.sum(np.array([], dtype))


@pytest.mark.parametrize(
    "dtype,value,want",
    [
        (np.int8, 100, 30000),
        (np.bool_, True, 300),
        (np.uint8, 255, 76500),
        (np.int16, -30000, -9000000),
    ],
)
def test_narrow_sums_do_not_overflow(dtype, value, want):
    """300 values of a narrow type sum in 64 bits, as NumPy's: no wrap at the input's width."""
    x = np.full(300, value, dtype=dtype)
    got = prim.sum(x)
    assert got == want and got.dtype == np.sum(x).dtype
    big = np.full(70000, value, dtype=dtype)[1:]  # past 16 * 65535 per 32-bit packet sum
    assert prim.sum(big) == np.sum(big)


def test_narrow_extremes():
    """Min/max at the ends of each narrow integer range, and float16's infinities and NaN."""
    for dt in (np.int8, np.uint8, np.int16, np.uint16):
        info = np.iinfo(dt)
        x = np.full(1001, 3, dtype=dt)
        x[500], x[17] = info.min, info.max
        assert prim.min(x) == info.min and prim.max(x) == info.max
    h = np.ones(1000, np.float16)
    h[3] = -np.inf
    assert prim.min(h) == -np.inf and prim.max(h) == 1
    h[999] = np.nan
    for f in (prim.sum, prim.min, prim.max):
        assert np.isnan(f(h)) and f(h).dtype == np.float16
    assert prim.sum(np.full(100, 1000, np.float16)) == np.float16(np.inf)  # past 65504
    tiny = np.full(64, 2.0**-20, np.float16)  # subnormal inputs, a normal sum
    assert prim.sum(tiny) == np.float16(2.0**-14)
    assert prim.min(np.array([True, False, True])) == np.False_


@pytest.mark.parametrize(
    "dtype,request_dt",
    [
        (np.int8, np.int8),
        (np.int8, np.int32),
        (np.uint16, np.int16),
        (np.bool_, np.bool_),
        (np.int32, np.bool_),
        (np.float32, np.int8),
        (np.float32, np.float16),
        (np.float16, np.float32),
        (np.int16, np.uint8),
        (np.bool_, np.float64),
    ],
)
@pytest.mark.parametrize("variant", ["production", "gamma"])
def test_narrow_dtype_requests(dtype, request_dt, variant):
    """``dtype=`` as NumPy's: the elements cast to it, narrow integer sums wrap in it, a bool
    sum is a logical or."""
    x = (np.arange(-500, 1500) % 211 - 60).astype(dtype)
    if np.dtype(request_dt) == np.float16:
        x = x[:300]  # a float16 sum far from overflow
    got = prim.sum(x, dtype=request_dt, variant=variant)
    want = np.sum(x, dtype=request_dt)
    if np.dtype(request_dt) == np.float16:
        exact = np.sum(x.astype(np.float16), dtype=np.float64)
        assert got.dtype == want.dtype and abs(float(got) - exact) <= 2.0**-10 * abs(exact)
    else:
        H.assert_same(got, want)


def test_narrow_plans(rng):
    """The filed plan of a narrow call and ``prim.plan`` give NumPy's answers for like arrays."""
    for dt in NARROW:
        x, y = make_narrow(rng, 3001, dt), make_narrow(rng, 3001, dt)
        for op in ("sum", "min", "max"):
            getattr(prim, op)(x)
            check_narrow(getattr(prim, op)(y), y, op)
            check_narrow(prim.plan(getattr(prim, op), x)(y), y, op)


# ---- byte order ---------------------------------------------------------------------------------

# name -> body(xp, x): the function (or a variant of reduce) and its NumPy twin
BYTE_ORDER_CALLS = {
    "sum": lambda xp, x: xp.sum(x),
    "min": lambda xp, x: xp.min(x),
    "max": lambda xp, x: xp.max(x),
    "reduce gamma": lambda xp, x: xp.sum(x) if xp is np else xp.reduce(x, variant="gamma"),
    "reduce zeta max": lambda xp, x: xp.max(x) if xp is np else xp.reduce(x, "max", variant="zeta"),
}


@pytest.mark.parametrize("dtype", [">f8", ">i4", ">u8"])
@pytest.mark.parametrize("name", list(BYTE_ORDER_CALLS))
def test_non_native_byte_order(name, dtype, rng):
    """Arrays of non-native byte order are read in native order and give NumPy's native result,
    also after a call on a native array of the same shape (whose filed plan must not read the
    swapped bytes) and through a plan made for native arrays."""
    body = BYTE_ORDER_CALLS[name]
    x = rng.integers(0, 100, 700).astype(dtype)
    native = x.astype(x.dtype.newbyteorder("="))
    H.assert_same(body(prim, native), body(np, native))  # files the plan of native arrays
    H.run_twins(body, (x,))
    H.run_twins(body, (x[::3],))
    if name in ("sum", "min", "max"):
        H.assert_same(prim.plan(getattr(prim, name), native)(x), body(np, x))


# ---- errors: one test per branch --------------------------------------------------------------


@pytest.mark.parametrize("bad", [np.dtype("M8[s]"), np.dtype("m8[s]")], ids=str)
@pytest.mark.parametrize("func", ["min", "max"])
def test_unsupported_dtype(func, bad):
    """min/max of datetimes: no kernel (complex is ordered as NumPy's: see
    tests/reduction/test_reduction_complex.py)."""
    with pytest.raises(TypeError, match=rf"{func}: x has dtype"):
        getattr(prim, func)(np.zeros(10, dtype=bad))


@pytest.mark.parametrize("func", ["sum", "min", "max"])
def test_str_input_is_a_type_error(func):
    """Strings: NumPy's sum raises a TypeError (its min/max compare strings; ours have no
    kernel): a TypeError naming the function, the argument and the dtype, before any launch."""
    H.raises_like(
        TypeError,
        func,
        getattr(prim, func),
        np.array(["a", "bc"]),
        match=r"x has dtype <U2; supported dtypes are .*bool, int8.*float16",
    )


@pytest.mark.parametrize("func", ["sum", "min", "max"])
def test_object_input_is_a_type_error(func):
    x = np.array([1, 2, 3], dtype=object)
    H.raises_like(
        TypeError,
        func,
        getattr(prim, func),
        x,
        match=r"x has dtype object; supported dtypes are .*bool, int8.*float16",
    )


def test_datetime64_sum_is_a_type_error():
    x = np.array(["2024-01-01", "2024-01-02"], dtype="datetime64[D]")
    with pytest.raises(TypeError):
        np.sum(x)  # NumPy's own refusal
    H.raises_like(
        TypeError, "sum", prim.sum, x, match=r"x has dtype datetime64\[D\]; supported .*uint16"
    )
    H.raises_like(TypeError, "reduce", prim.reduce, x, "max", match=r"x has dtype datetime64")


@pytest.mark.parametrize("bad", ["abc", None, {"a": 1}, object()])
def test_not_an_array(bad):
    with pytest.raises(TypeError, match="x must be"):
        prim.sum(bad)


def test_bad_op():
    H.raises_like(
        ValueError, "reduce", prim.reduce, np.ones(4, np.float32), "mul", match="op must be one of"
    )


def test_bad_variant():
    H.raises_like(
        ValueError,
        "sum",
        prim.sum,
        np.ones(4, np.float32),
        variant="omega",
        match="variant must be",
    )


@pytest.mark.parametrize("bad", ["U3", "datetime64[s]", object])
@pytest.mark.parametrize("func", ["sum", "prod"])
def test_bad_result_dtype(func, bad):
    with pytest.raises(TypeError, match="dtype="):
        getattr(prim, func)(np.ones(4, np.float32), dtype=bad)
    with pytest.raises(TypeError, match="dtype="):
        getattr(prim, func)(np.ones((2, 2), np.float32), axis=0, dtype=bad)


@pytest.mark.parametrize("dtype", ["nonsense", np.str_, np.longdouble, np.clongdouble])
def test_mean_bad_dtype_names_mean(dtype):
    """mean sums through sum: a dtype it has no kernel for is mean's TypeError, not sum's."""
    if np.dtype(np.longdouble).itemsize == 8 and dtype in (np.longdouble, np.clongdouble):
        pytest.skip("longdouble is float64 on this platform")
    H.raises_like(TypeError, "mean", prim.mean, np.ones((2, 2)), dtype=dtype, match="dtype")
    H.raises_like(TypeError, "mean", prim.mean, np.ones((2, 2)), axis=0, dtype=dtype)


def test_bad_result_dtype_not_a_dtype():
    with pytest.raises(TypeError, match="is not a dtype"):
        prim.sum(np.ones(4, np.float32), dtype="nonsense")


@pytest.mark.gpu
def test_device_input_stays_on_device(on_gpu, rng):
    if not on_gpu:
        pytest.skip("needs the CUDA backend")
    import cupy

    x = cupy.asarray(make(rng, 100000, np.float32))
    got = prim.sum(x)
    assert isinstance(got, cupy.ndarray) and got.shape == ()
    check(got, x.get(), "sum", np.float32, "production")


@pytest.mark.gpu
def test_more_than_2_31_elements(on_gpu):
    """64-bit indexing: 2^31 + 7 elements (8.6 GB of int32) on the GPU."""
    if not on_gpu:
        pytest.skip("needs the CUDA backend")
    import cupy

    n = 2**31 + 7
    x = cupy.ones(n, dtype=cupy.int32)
    x[-3:] = 5
    x[12345] = -4
    want = n - 3 + 15 - 5
    assert int(prim.sum(x)) == want
    assert int(prim.sum(x, variant="zeta")) == want
    assert int(prim.sum(x, variant="gamma")) == want
    assert int(prim.max(x)) == 5 and int(prim.min(x)) == -4
    del x
    cupy.get_default_memory_pool().free_all_blocks()


# ---- prod ---------------------------------------------------------------------------------------

PROD_DTYPES = [
    np.bool_,
    np.int8,
    np.uint8,
    np.int16,
    np.uint16,
    np.int32,
    np.uint32,
    np.int64,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
]
PROD_SIZES = [1, 2, 15, 16, 17, 257, 1000, 4099]


def make_prod(rng, n, dtype):
    """Values whose products stay finite for floats (near 1); for integers small factors whose
    product overflows and wraps (exactly, in any order); bool mostly True."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(n) > 1.0 / max(n, 2)
    if dt.kind == "f":
        spread = 0.01 if dt == np.float16 else 0.05
        return rng.uniform(1 - spread, 1 + spread, n).astype(dt)
    lo = -3 if dt.kind == "i" else 1
    x = rng.integers(lo, 4, n).astype(dt)
    x[x == 0] = 1
    return x


def check_prod(got, x, what="", dtype=None):
    """NumPy's result dtype; integers exactly (they wrap modulo 2^64, so modulo the result's
    width); floats within a tree's bound of the exact product (float16: accumulated in float32,
    rounded once at the end)."""
    want = np.prod(x, dtype=dtype)
    got = H.to_host(got)
    assert np.asarray(got).dtype == want.dtype, (what, np.asarray(got).dtype, want.dtype)
    if want.dtype.kind != "f":
        assert got == want, (what, got, want)
        return
    exact = np.prod(x.astype(np.float64))
    acc = np.float32 if want.dtype == np.float16 else want.dtype
    tol = 2 * (x.size + 16) * np.finfo(acc).eps + (2.0**-11 if want.dtype == np.float16 else 0)
    assert abs(float(got) - exact) <= tol * abs(exact), (what, got, exact, tol)


@pytest.mark.parametrize("n", PROD_SIZES)
@pytest.mark.parametrize("dtype", PROD_DTYPES, ids=lambda d: np.dtype(d).name)
def test_prod(dtype, n, rng, schedule):
    """The production kernel over every real dtype (narrow ones read in place), at sizes around
    one 16-byte load, and from a view one element in (the scalar head)."""
    x = make_prod(rng, n + 1, dtype)
    keep = x.copy()
    check_prod(prim.prod(x[:n]), x[:n], f"prod n={n}")
    check_prod(prim.prod(x[1:]), x[1:], f"prod n={n} view")
    check_prod(prim.reduce(x, "prod"), x, f"reduce n={n}")
    np.testing.assert_array_equal(x, keep)


@pytest.mark.parametrize("dtype", PROD_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("variant", reduction.VARIANTS)
def test_prod_variants(variant, dtype, rng):
    """Every variant multiplies real dtypes (the ladder and zeta convert narrow ones to their
    accumulator first); 4099 needs two ladder levels."""
    for n in (1, 513, 4099):
        x = make_prod(rng, n, dtype)
        check_prod(prim.prod(x, variant=variant), x, f"{variant} n={n}")


@pytest.mark.parametrize(
    "dtype", [np.int8, np.uint16, np.int32, np.float32, np.float64], ids=lambda d: np.dtype(d).name
)
def test_prod_many_blocks(dtype, rng):
    """64-thread blocks with one load in flight: thousands of elements span many blocks and the
    last block's pass over the partials."""
    from primitives import tuning

    with tuning.override("reduction", selector="production", block=64, vectors=1):
        for n in (100, 4099):
            x = make_prod(rng, n, dtype)
            check_prod(prim.prod(x), x, f"n={n}")


def test_prod_overflow_wraps(rng):
    """Integer products wrap as NumPy's: 64-bit products modulo 2^64, narrow ones in 64 bits
    (no wrap at the input's width), and in the requested width with ``dtype=``."""
    big = rng.integers(-(2**63), 2**63 - 1, 3001, dtype=np.int64, endpoint=True) | 1  # odd: no 0
    H.assert_same(prim.prod(big), np.prod(big))
    ubig = rng.integers(0, 2**64 - 1, 3001, dtype=np.uint64, endpoint=True) | 1
    H.assert_same(prim.prod(ubig), np.prod(ubig))
    for dt in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32):
        x = np.full(200, np.iinfo(dt).max, dtype=dt)
        H.assert_same(prim.prod(x), np.prod(x))
        H.assert_same(prim.prod(x, dtype=dt), np.prod(x, dtype=dt))  # wraps in the input width
    x = np.full(39, 3, np.int8)  # 3^39 < 2^63
    assert prim.prod(x) == 3**39 and prim.prod(x).dtype == np.int64


@pytest.mark.parametrize("variant", ["production", "gamma", "zeta"])
def test_prod_nan_and_inf(variant):
    x = np.full(1001, 1.5, np.float64)
    x[700] = np.nan
    assert np.isnan(prim.prod(x, variant=variant))
    y = np.ones(1001, np.float32)
    y[3] = -np.inf
    assert prim.prod(y, variant=variant) == -np.inf
    y[500] = 0
    assert np.isnan(prim.prod(y, variant=variant))  # inf * 0
    h = np.full(100, 4, np.float16)  # 4^100 overflows float16 (and float32): inf
    assert prim.prod(h, variant=variant) == np.float16(np.inf)
    z = np.array([-0.0, 1.0, 2.0], np.float32)
    assert np.signbit(prim.prod(z, variant=variant))


@pytest.mark.parametrize("dtype", PROD_DTYPES, ids=lambda d: np.dtype(d).name)
@H.twins()
def test_prod_empty(xp, dtype):
    """The product of nothing is 1 of NumPy's result dtype."""
    return xp.prod(np.array([], dtype))


@pytest.mark.parametrize("dtype", PROD_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(), (1,), (7, 5), (3, 4, 5)])
@H.twins()
def test_prod_twin_of_numpy(xp, dtype, shape):
    x = ((np.arange(int(np.prod(shape))).reshape(shape) % 7 == 3) + 1).astype(dtype)  # 1s, 2s
    return xp.prod(x)


@pytest.mark.parametrize("dtype", PROD_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("axis", [0, 1, -1, (0, 2), (1, 2), None], ids=str)
def test_prod_axes(dtype, axis, rng):
    """Over axes (reduce_axis), keepdims: NumPy's values and dtypes."""
    x = make_prod(rng, 6 * 7 * 9, dtype).reshape(6, 7, 9)
    keep = x.copy()
    got, want = prim.prod(x, axis=axis), np.prod(x, axis=axis)
    if want.dtype.kind == "f":
        tol = 2**-9 if want.dtype == np.float16 else 300 * np.finfo(want.dtype).eps
        H.assert_same(got, want, rtol=tol)
    else:
        H.assert_same(got, want)
    got = prim.prod(x, axis=axis, keepdims=True)
    assert np.asarray(got).shape == np.prod(x, axis=axis, keepdims=True).shape
    np.testing.assert_array_equal(x, keep)


def test_prod_axes_out_dtype_and_empty(rng):
    x = make_prod(rng, 4 * 50, np.int16).reshape(4, 50)
    out = np.empty(4, np.float64)
    assert prim.prod(x, axis=1, out=out) is out
    H.assert_same(out, np.prod(x, axis=1).astype(np.float64))
    H.assert_same(prim.prod(x, axis=0, dtype=np.int8), np.prod(x, axis=0, dtype=np.int8))
    H.assert_same(
        prim.reduce(x, "prod", axis=1, dtype=np.uint16), np.prod(x, axis=1, dtype=np.uint16)
    )
    full = np.empty((1, 1), np.int64)
    assert prim.prod(x, axis=None, out=full, keepdims=True) is full
    assert full[0, 0] == np.prod(x)
    e = np.zeros((3, 0), np.float32)
    H.assert_same(prim.prod(e, axis=1), np.prod(e, axis=1))
    H.assert_same(prim.prod(e, axis=0), np.prod(e, axis=0))
    H.assert_same(prim.prod(e), np.prod(e))


@pytest.mark.parametrize(
    "dtype,request_dt",
    [
        (np.int8, np.int8),
        (np.int16, np.int32),
        (np.uint8, np.int16),
        (np.bool_, np.bool_),
        (np.int32, np.float64),
        (np.float32, np.float64),
        (np.float64, np.float32),
        (np.float16, np.float32),
        (np.int64, np.uint64),
        (np.int32, np.bool_),
    ],
)
@pytest.mark.parametrize("variant", ["production", "gamma"])
def test_prod_dtype_requests(dtype, request_dt, variant):
    """``dtype=`` as NumPy's: the elements cast to it, integer products wrap in it, a bool
    product is a logical and."""
    x = (np.arange(-50, 250) % 7 - 2).astype(dtype)
    if np.dtype(dtype).kind in "bu" or np.dtype(request_dt).kind in "bu":
        x = (np.arange(300) % 5 + 1).astype(dtype)
    got = prim.prod(x, dtype=request_dt, variant=variant)
    want = np.prod(x, dtype=request_dt)
    if want.dtype.kind == "f":
        H.assert_same(got, want, rtol=1e-5)
    else:
        H.assert_same(got, want)


def test_prod_plans(rng):
    """The filed plan and ``prim.plan(prim.prod, ...)`` give NumPy's answers for like arrays."""
    for dt in PROD_DTYPES:
        x, y = make_prod(rng, 3001, dt), make_prod(rng, 3001, dt)
        prim.prod(x)
        check_prod(prim.prod(y), y, f"filed {np.dtype(dt)}")
        check_prod(prim.plan(prim.prod, x)(y), y, f"plan {np.dtype(dt)}")
    p = prim.prod.plan(x, axis=0)
    H.assert_same(p(y.reshape(1, -1)), np.prod(y.reshape(1, -1), axis=0), rtol=1e-12)


def test_prod_errors():
    """Every error branch names ``prod`` (or ``reduce``), before any launch."""
    x = np.ones(4, np.float32)
    H.raises_like(ValueError, "prod", prim.prod, x, variant="omega", match="variant must be")
    H.raises_like(TypeError, "prod", prim.prod, np.array(["a"]), match="x has dtype <U1")
    H.raises_like(TypeError, "prod", prim.prod, "abc", match="x must be")
    H.raises_like(TypeError, "prod", prim.prod, x, dtype="nonsense", match="is not a dtype")
    H.raises_like(TypeError, "reduce", prim.reduce, x, "prod", dtype="U2", match="dtype=")
    with pytest.raises(np.exceptions.AxisError, match="prod: axis 1"):
        prim.prod(x, axis=1)
    with pytest.raises(ValueError, match="prod: duplicate"):
        prim.prod(x.reshape(2, 2), axis=(0, 0))
    with pytest.raises(ValueError, match="prod: out has shape"):
        prim.prod(x.reshape(2, 2), axis=0, out=np.empty(3, np.float32))
    with pytest.raises(ValueError, match="prod: out has shape"):
        prim.prod(x, out=np.empty(3, np.float32))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(), dtype=st.sampled_from(PROD_DTYPES), variant=st.sampled_from(reduction.VARIANTS)
)
def test_prod_property_matches_numpy(data, dtype, variant):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        elems = st.floats(float(dt.type(0.99)), float(dt.type(1.01)), width=dt.itemsize * 8)
    elif dt.kind == "b":
        elems = st.booleans()
    else:
        info = np.iinfo(dt)
        elems = st.integers(int(info.min), int(info.max))
    x = data.draw(hnp.arrays(dt, st.integers(0, 2000), elements=elems))
    if dt == np.float16:  # NumPy rounds every float16 step: compare with the exact product
        x = x[:200]
    check_prod(prim.prod(x, variant=variant), x, variant)

"""Flat scans of every dtype vs NumPy: bool, the 8/16-bit integers, float16, bfloat16 and complex
with every
op ("sum", "prod", "min", "max"; complex: sum and prod) and variant, inclusive and exclusive, at
awkward and multi-tile sizes (small policies make a few thousand elements span many tiles and
levels); result dtypes, wraparound, ``dtype=`` casts, the exclusive identities, ``cumprod``, the
plans, and every error branch."""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import primitives as prim
from primitives import scan
from primitives._core import dtypes as _dtypes
from primitives.scan import _plans as _sp
from primitives.testing import harness as H
from primitives.testing.harness import to_host
from tests.conftest import race_sample

BF16 = np.dtype(ml_dtypes.bfloat16)
NARROW = [np.dtype(d) for d in (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.float16)]
NARROW.append(BF16)
COMPLEX = [np.dtype(np.complex64), np.dtype(np.complex128)]
WIDE = [np.dtype(d) for d in (np.int32, np.int64, np.uint32, np.uint64, np.float32, np.float64)]
# look-back tiles of 32 threads (512 narrow elements at most, 128 complex128), classic tiles of
# 32/64 elements: 2049 spans several look-back tiles and three levels of the classic scans
SIZES = [1, 31, 513, 2049]
UFUNC = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum}


def ops_of(dt):
    return ("sum", "prod") if dt.kind == "c" else ("sum", "prod", "min", "max")


@pytest.fixture
def small():
    """Small tiles for every variant (the policies' fields replaced; plans made anew)."""
    with (
        prim.tuning.override("scan", selector="decoupled_lookback", block=32, bytes=64),
        prim.tuning.override("scan", selector="hillis_steele", block=32, add_block=32),
        prim.tuning.override("scan", selector="blelloch", block=32, add_block=32),
    ):
        yield


def make(rng, n, dt, op):
    """Values that keep products in range and sums exact or well conditioned."""
    if dt.kind == "b":
        return rng.random(n) < (0.9 if op == "prod" else 0.5)
    if dt.kind == "c":
        if op == "prod":  # near the unit circle: products neither vanish nor overflow
            r = rng.uniform(0.999, 1.001, n) * np.exp(1j * rng.uniform(-np.pi, np.pi, n))
            return r.astype(dt)
        return (rng.uniform(-1, 1, n) + 1j * rng.uniform(-1, 1, n)).astype(dt)
    if _dtypes.is_float(dt):
        if op == "prod":
            return rng.uniform(0.999, 1.001, n).astype(dt)
        return (
            rng.uniform(0.5, 1.0, n).astype(dt)
            if op == "sum"
            else rng.uniform(-10, 10, n).astype(dt)
        )
    info = np.iinfo(dt)
    if op == "prod":  # small factors: 64-bit products wrap around as NumPy's do
        return rng.integers(0 if dt.kind == "u" else -3, 4, n).astype(dt)
    return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)


def identity(op, dt):
    if dt.kind == "b":
        return np.bool_(op in ("prod", "min"))
    if op in ("sum", "prod"):
        return dt.type(op == "prod")
    if dt.kind == "c" or _dtypes.is_float(dt):
        return dt.type(np.inf if op == "min" else -np.inf)
    info = np.iinfo(dt)
    return dt.type(info.max if op == "min" else info.min)


def result_dtype(dt, op):
    if op in ("min", "max"):
        return dt
    return (np.cumsum if op == "sum" else np.cumprod)(np.zeros(1, dt)).dtype


def reference(x, op, res, exclusive):
    """NumPy's scan (float16, bfloat16 and complex64 in a wider dtype, rounded once at the
    end)."""
    wider = {
        np.dtype(np.float16): np.float64,
        BF16: np.float64,
        np.dtype(np.complex64): np.complex128,
    }
    work = wider.get(res, res)
    with np.errstate(over="ignore"):
        inc = UFUNC[op].accumulate(x.astype(work), dtype=work)
    if exclusive:
        inc = np.concatenate([np.array([identity(op, res)], dtype=work), inc[:-1]])
    return inc


def check(got, x, op, res, exclusive):
    got = to_host(got)
    assert got.dtype == res and got.shape == (x.size,)
    want = reference(x, op, res, exclusive)
    if not (res.kind == "c" or _dtypes.is_float(res)) or op in ("min", "max"):
        H.assert_same(got, want.astype(res))
        return
    eps = float(_dtypes.finfo(res).eps)
    if _dtypes.is_float16(res):  # float32 accumulation, one rounding per output
        tol = eps / 2 * np.abs(want) + 4 * x.size * np.finfo(np.float32).eps * np.abs(want)
    elif op == "sum":  # Higham's bound with the whole length as depth
        cumabs = np.cumsum(np.abs(x.astype(np.complex128)))
        tol = 4 * x.size * eps * cumabs
    else:
        tol = 8 * x.size * eps * np.abs(want)
    err = np.abs(got.astype(want.dtype) - want)
    bad = np.flatnonzero(~(err <= tol + float(_dtypes.finfo(res).tiny)))
    assert bad.size == 0, f"first bad {bad[:5]}: got {got[bad[:5]]} want {want[bad[:5]]}"


CASES = [(dt, op) for dt in NARROW + COMPLEX for op in ops_of(dt)] + [(dt, "prod") for dt in WIDE]
#: every variant with every (dtype, op) in one of the two kinds of scan, and every (dtype, op) and
#: every variant in both kinds (race_sample's pairs of the three axes): each triple is an
#: instantiation of its own under the small tiles, half of them compiled (204 to 102)
GRID = race_sample(scan.VARIANTS, CASES, [False, True])


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize(
    "variant,dt,op,exclusive",
    [(v, dt, op, e) for v, (dt, op), e in GRID],
    ids=[f"{v}-{d.name}-{o}-{'ex' if e else 'in'}clusive" for v, (d, o), e in GRID],
)
def test_every_dtype_op_variant(variant, dt, op, n, exclusive, rng, small):
    x = make(rng, n, dt, op)
    keep = x.copy()
    f = prim.exclusive_scan if exclusive else prim.inclusive_scan
    check(f(x, op, variant=variant), x, op, result_dtype(dt, op), exclusive)
    H.assert_same(x, keep)  # inputs are never modified


@pytest.mark.parametrize(
    "dt,op,n",
    [
        ("int8", "sum", 9000),
        ("uint8", "min", 17000),
        ("float16", "sum", 19000),
        ("bfloat16", "max", 19000),
        ("bool", "prod", 9000),
        ("complex128", "prod", 5000),
        ("complex64", "sum", 10000),
    ],
)
def test_default_policy_full_tiles(dt, op, n, rng):
    """The table's policy (ITEMS rounded to whole 16-byte vectors of the narrow type): full
    tiles take the vector path."""
    dt = np.dtype(dt)
    pol = prim.tuning.policy("scan", "decoupled_lookback")
    res = result_dtype(dt, op)
    acc = _sp.direct("decoupled_lookback", dt, res, op)[1]
    assert n > 2 * pol.block * _sp.items(pol, dt, acc, res)
    x = make(rng, n, dt, op)
    check(prim.inclusive_scan(x, op), x, op, res, False)
    check(prim.exclusive_scan(x, op), x, op, res, True)


@pytest.mark.parametrize(
    "dt,op",
    [
        (np.dtype(np.int8), "sum"),
        (np.dtype(np.float16), "max"),
        (BF16, "sum"),
        (np.dtype(np.complex128), "prod"),
        (np.dtype(np.uint16), "min"),
    ],
    ids=str,
)
def test_race_mode(dt, op, rng, small, schedule):
    """The narrow and complex look-back paths in race-exposing mode."""
    x = make(rng, 2049, dt, op)
    check(prim.inclusive_scan(x, op), x, op, result_dtype(dt, op), False)


@pytest.mark.parametrize("dt", NARROW + COMPLEX, ids=lambda d: d.name)
@pytest.mark.parametrize("variant", scan.VARIANTS)
@H.twins()
def test_result_dtypes_follow_numpy(xp, variant, dt):
    x = (np.arange(100) % 3).astype(dt)  # exact in every order, products included (0 on)
    kw = {} if xp is np else {"variant": variant}
    return xp.cumsum(x, **kw), xp.cumprod(x, **kw)


@pytest.mark.parametrize(
    "dt,op",
    [
        ("int8", "sum"),
        ("uint8", "sum"),
        ("int16", "prod"),
        ("uint16", "prod"),
        ("int32", "prod"),
        ("uint64", "prod"),
    ],
)
@pytest.mark.parametrize("variant", scan.VARIANTS)
@H.twins()
def test_wraparound_like_numpy(xp, variant, dt, op):
    """``dtype=x.dtype`` keeps sums and products in the input's width, wrapping as NumPy's."""
    rng = np.random.default_rng(7)
    x = rng.integers(1, 100, 3000).astype(dt)
    f = xp.cumsum if op == "sum" else xp.cumprod
    with np.errstate(over="ignore"):
        return f(x, dtype=x.dtype, **({} if xp is np else {"variant": variant}))


@pytest.mark.parametrize("dt", ["int8", "uint8", "int16", "uint16"])
@pytest.mark.parametrize("op", ["sum", "prod"])
def test_narrow_into_its_own_dtype_runs_in_place(dt, op, rng, monkeypatch):
    """A sum or product of a narrow integer type into that type (``dtype=x.dtype``) is one
    look-back scan that reads and writes the narrow type (no 64-bit temporary), wrapping as
    NumPy's, at sizes around the tiles and with exclusive scans' identities."""
    dt = np.dtype(dt)
    assert _sp.direct("decoupled_lookback", dt, dt, op) is not None
    plans = []
    made = _sp.lookback_plan
    monkeypatch.setattr(_sp, "lookback_plan", lambda *a: plans.append(a[1:3]) or made(*a))
    for n in (1, 4097, 70001):
        x = rng.integers(-3 if dt.kind == "i" else 0, 4, n).astype(dt)
        for exclusive in (False, True):
            with np.errstate(over="ignore"):
                want = (np.cumsum if op == "sum" else np.cumprod)(x, dtype=dt)
            if exclusive:
                want = np.concatenate([[0 if op == "sum" else 1], want[:-1]]).astype(dt)
            f = prim.exclusive_scan if exclusive else prim.inclusive_scan
            H.assert_same(f(x, op=op, dtype=dt), want)
    assert plans and set(plans) == {(dt, dt)}


CASTS = [
    ("int32", "int8"),
    ("int8", "int32"),
    ("uint8", "int64"),
    ("float32", "int16"),
    ("int64", "bool"),
    ("bool", "bool"),
    ("int16", "float32"),
    ("float64", "complex64"),
    ("complex64", "complex128"),
    ("float16", "float64"),
    ("bfloat16", "float32"),
    ("uint16", "uint8"),
]


@pytest.mark.parametrize("src,dst", CASTS, ids=lambda c: str(c))
@pytest.mark.parametrize("variant", scan.VARIANTS)
@H.twins()
def test_dtype_casts_the_elements_first(xp, variant, src, dst):
    """As NumPy: the elements are cast to ``dtype`` and scanned in it (exact values here; the
    float -> int16 case truncates 0.75 away first)."""
    x = np.random.default_rng(9).integers(0, 4, 1500) + (0.75 if src[0] in "fc" else 0)
    x = x.astype(src)
    kw = {} if xp is np else {"variant": variant}
    with np.errstate(over="ignore"):
        return xp.cumsum(x, dtype=dst, **kw), xp.cumprod(x[:6], dtype=dst, **kw)  # exact


@pytest.mark.parametrize("variant", scan.VARIANTS)
def test_float16_result_dtype(variant):
    """``dtype=float16`` of a float32 input: the elements rounded to float16, accumulated in
    float32 and each output rounded once."""
    x = np.random.default_rng(8).uniform(0.5, 1, 1500).astype(np.float32)
    got = prim.cumsum(x, dtype=np.float16, variant=variant)
    check(got, x.astype(np.float16), "sum", np.dtype(np.float16), False)


@pytest.mark.parametrize(
    "src,dst,op",
    [
        ("int64", "int8", "min"),
        ("int32", "uint8", "max"),
        ("float32", "float16", "min"),
        ("uint16", "int16", "max"),
    ],
)
@pytest.mark.parametrize("variant", scan.VARIANTS)
def test_min_max_with_dtype_cast_first(variant, src, dst, op):
    x = np.random.default_rng(2).integers(-40000, 40000, 1000).astype(src)
    want = UFUNC[op].accumulate(x.astype(dst))
    H.assert_same(prim.inclusive_scan(x, op, dtype=dst, variant=variant), want)


@pytest.mark.parametrize("dt", NARROW + COMPLEX, ids=lambda d: d.name)
@pytest.mark.parametrize("variant", scan.VARIANTS)
def test_exclusive_identities(variant, dt):
    x = np.ones(40, dt)
    for op in ops_of(dt):
        got = to_host(prim.exclusive_scan(x, op, variant=variant))
        res = result_dtype(dt, op)
        assert got.dtype == res and got[0] == identity(op, res), (op, got[0])


@pytest.mark.parametrize("variant", scan.VARIANTS)
@pytest.mark.parametrize("op", ["min", "max", "sum", "prod"])
def test_float16_nan_and_inf(variant, op):
    x = np.linspace(0.5, 1.5, 1000).astype(np.float16)
    x[700] = np.nan
    got = to_host(prim.inclusive_scan(x, op, variant=variant))
    assert got.dtype == np.float16
    assert not np.isnan(got[:700]).any() and np.isnan(got[700:]).all()
    big = np.full(10, 60000, np.float16)  # the sum overflows float16 at the second element
    assert np.isinf(to_host(prim.cumsum(big, variant=variant))[1:]).all()


@pytest.mark.parametrize("variant", scan.VARIANTS)
@pytest.mark.parametrize("op", ["min", "max", "sum", "prod"])
def test_bfloat16_nan_and_inf(variant, op):
    """As float16's: a NaN propagates from where it is; a sum past bfloat16's largest finite
    value is inf."""
    x = np.linspace(0.5, 1.5, 1000).astype(BF16)
    x[700] = np.nan
    got = to_host(prim.inclusive_scan(x, op, variant=variant)).astype(np.float32)
    assert prim.inclusive_scan(x, op, variant=variant).dtype == BF16
    assert not np.isnan(got[:700]).any() and np.isnan(got[700:]).all()
    big = np.full(10, 3e38, BF16)  # the sum overflows bfloat16 at the second element
    assert np.isinf(to_host(prim.cumsum(big, variant=variant)).astype(np.float32)[1:]).all()


@pytest.mark.parametrize("variant", scan.VARIANTS)
def test_bfloat16_rounds_once(variant):
    """bfloat16 sums accumulate in float32 (NumPy's bfloat16 cumsum rounds each step: it stalls
    at 32 for steps of 0.125), then round to bfloat16 once per output."""
    x = np.full(3000, 0.125, BF16)
    got = to_host(prim.cumsum(x, variant=variant))
    H.assert_same(got.view(np.uint16), (np.arange(1, 3001) * 0.125).astype(BF16).view(np.uint16))


@pytest.mark.parametrize("variant", scan.VARIANTS)
def test_float16_rounds_once(variant):
    """float16 sums accumulate in float32: exact where float32 is, then rounded to float16."""
    x = np.full(3000, 0.125, np.float16)
    got = to_host(prim.cumsum(x, variant=variant))
    H.assert_same(got, (np.arange(1, 3001) * 0.125).astype(np.float16))


def test_misaligned_narrow_views_take_the_scalar_path(small):
    base = np.arange(3000, dtype=np.int16)
    for off in (1, 3, 7):
        H.assert_same(prim.cumsum(base[off:]), np.cumsum(base[off:]))
        H.assert_same(prim.inclusive_scan(base[off:], "max"), np.maximum.accumulate(base[off:]))


# ---- cumprod ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dt", ["int8", "uint16", "int32", "float32", "complex64", "bool"])
@H.twins(rtol=1e-5)
def test_cumprod(xp, dt):
    x = np.random.default_rng(4).integers(1, 3, 3000).astype(dt)
    if np.dtype(dt).kind == "c":  # on the unit circle: products stay finite
        x = np.exp(1j * np.random.default_rng(5).uniform(-1, 1, 3000)).astype(dt)
    with np.errstate(over="ignore"):
        return (
            xp.cumprod(x[:60]),
            xp.cumprod(x.reshape(30, 100)),
            xp.cumprod(x[:1]),
            xp.cumprod(x, dtype=np.complex128 if x.dtype.kind == "c" else np.float64),
        )


@pytest.mark.parametrize("axis", [0, -1, 1])
@H.twins()
def test_cumprod_along_an_axis(xp, axis):
    x = np.random.default_rng(6).integers(-2, 3, (7, 9)).astype(np.int32)
    return xp.cumprod(x, axis=axis)


def test_cumprod_plans(rng):
    x = rng.integers(1, 3, 5000).astype(np.int8)
    p = prim.plan(prim.cumprod, x)
    H.assert_same(p(x), np.cumprod(x))
    H.assert_same(prim.cumprod.plan(x, dtype=np.int8)(x), np.cumprod(x, dtype=np.int8))
    for _ in range(2):  # the second call takes the plan the first filed
        H.assert_same(prim.cumprod(x), np.cumprod(x))
    H.assert_same(prim.plan(prim.inclusive_scan, x, "min")(x), np.minimum.accumulate(x))


def test_empty():
    for dt in NARROW + COMPLEX:
        H.assert_same(prim.cumsum(np.array([], dt)), np.cumsum(np.array([], dt)))
        H.assert_same(prim.cumprod(np.array([], dt)), np.cumprod(np.array([], dt)))


# ---- property test ---------------------------------------------------------------------------


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    dt=st.sampled_from(NARROW + COMPLEX),
    op=st.sampled_from(["sum", "prod", "min", "max"]),
    variant=st.sampled_from(scan.VARIANTS),
    exclusive=st.booleans(),
    n=st.integers(1, 1200),
)
def test_property_matches_numpy(data, dt, op, variant, exclusive, n):
    if dt.kind == "c" and op in ("min", "max"):
        op = "sum"
    seed = data.draw(st.integers(0, 2**32 - 1))
    x = make(np.random.default_rng(seed), n, dt, op)
    f = prim.exclusive_scan if exclusive else prim.inclusive_scan
    check(f(x, op, variant=variant), x, op, result_dtype(dt, op), exclusive)


# ---- errors ----------------------------------------------------------------------------------

FUNCS = [prim.inclusive_scan, prim.exclusive_scan, prim.cumsum, prim.cumprod]


@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("bad", [np.longdouble, "U1", "M8[s]", np.clongdouble])
def test_unsupported_dtype(f, bad):
    H.raises_like(TypeError, f.__name__, f, np.zeros(10, dtype=bad), match="x has dtype")


@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
def test_unsupported_result_dtype(f):
    H.raises_like(
        TypeError,
        f.__name__,
        f,
        np.ones(4, np.int8),
        dtype=np.longdouble,
        match="dtype=.* is not supported",
    )
    H.raises_like(
        TypeError, f.__name__, f, np.ones(4, np.int8), dtype="nonsense", match="is not a dtype"
    )


@pytest.mark.parametrize("op", ["min", "max"])
@pytest.mark.parametrize("f", [prim.inclusive_scan, prim.exclusive_scan], ids=lambda f: f.__name__)
def test_complex_min_max(f, op):
    H.raises_like(
        TypeError,
        f.__name__,
        f,
        np.ones(4, np.complex64),
        op,
        match="op='.*' is not defined for complex dtype complex64",
    )
    H.raises_like(
        TypeError,
        f.__name__,
        f,
        np.ones(4, np.float32),
        op,
        dtype=np.complex128,
        match="complex dtype complex128",
    )
    H.raises_like(
        TypeError, f.__name__, f.plan, np.ones(4, np.complex64), op, match="not defined for complex"
    )


@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
def test_complex_into_real_dtype(f):
    H.raises_like(
        TypeError,
        f.__name__,
        f,
        np.ones(4, np.complex128),
        dtype=np.float64,
        match="imaginary part",
    )


def test_cumprod_bad_arguments():
    H.raises_like(TypeError, "cumprod", prim.cumprod, "abc", match="x must be")
    H.raises_like(
        TypeError,
        "cumprod",
        prim.cumprod,
        np.ones((2, 2)),
        axis=1.5,
        match="axis must be an integer",
    )
    H.raises_like(
        np.exceptions.AxisError,
        "cumprod",
        prim.cumprod,
        np.ones((2, 2)),
        axis=2,
        match="out of bounds",
    )
    with pytest.raises(TypeError):  # NumPy refuses a bool axis; so do the scans
        np.cumprod(np.ones((2, 2)), axis=True)
    H.raises_like(
        TypeError,
        "cumprod",
        prim.cumprod,
        np.ones((2, 2)),
        axis=True,
        match="axis must be an integer",
    )
    H.raises_like(
        ValueError,
        "cumprod",
        prim.cumprod,
        np.ones(4),
        variant="kogge_stone",
        match="variant must be",
    )
    H.raises_like(
        ValueError,
        "inclusive_scan",
        prim.inclusive_scan,
        np.ones(4),
        "mul",
        match=r"op must be one of \('sum', 'prod', 'min', 'max'\)",
    )


def test_registered_instantiations():
    """Every instantiation the scans can launch under the table's policies is registered for
    the NVRTC check, narrow and complex modules included."""
    from primitives._core import loader as _loader

    names = set(_loader.registered_modules()["scan/scan.cu"])
    pol = prim.tuning.policy("scan", "decoupled_lookback")
    for variant in scan.VARIANTS:
        for module, ts in _sp.triples(variant).items():
            for i, a, r, op in ts:
                assert (
                    _sp.kernel_name(
                        variant, i, a, op, True, pol if variant == "decoupled_lookback" else None, r
                    )
                    in names
                )
    ahead = f", {pol.prefetch}" if pol.prefetch else ""
    assert (
        f"scan_lookback<prim::f16, float, prim::Min<float>, 128, 72, true, prim::f16{ahead}>"
        in names
    )
    assert (
        "scan_lookback<signed char, int, prim::MinOf<int, signed char>, 128, 64, false, "
        f"signed char{ahead}>"
    ) in names
    assert "scan_blelloch<prim::c128, prim::c128, prim::Prod<prim::c128>, false>" in names

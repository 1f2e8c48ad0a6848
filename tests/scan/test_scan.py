"""Scan family vs NumPy: every variant x dtype pair x op x inclusive/exclusive at awkward sizes,
plans and the repeat-call path, the look-back protocol on hand-made tile states, and every error
branch."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import primitives as prim
from primitives import scan
from primitives._core import backend as _backend, dtypes as _dtypes, loader as _loader
from primitives._core import lookback as _lookback, plans as _plans
from primitives.testing import harness as H
from primitives.testing.harness import to_host

from tests.conftest import race_sample

PAIRS = [(np.dtype(a), np.dtype(b)) for a, b in _dtypes.ACC_PAIRS]
# hillis_steele tiles 256, blelloch 512, look-back 9216 (4-byte values) or 4608; 300001 needs more
# than 32 look-back tiles and three levels of the classic scans
SIZES = [1, 2, 31, 32, 33, 255, 256, 257, 511, 512, 513, 2049, 4609, 9215, 9216, 9217, 300001]
ACCUMULATE = {"sum": np.add, "min": np.minimum, "max": np.maximum}


def pair_id(p):
    return f"{p[0].name}->{p[1].name}"


def case_id(value):
    return pair_id(value) if isinstance(value, tuple) else str(value)


def make(rng, n, dtype):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        x = rng.uniform(-1.0, 1.0, n).astype(dt)
        x[x == 0] = dt.type(0.25)
        return x
    info = np.iinfo(dt)
    if dt.itemsize == 8:  # full range: sums wrap around
        return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)


# Float sums are compared with a reference accumulated in extended precision; where long double is
# no wider than double, the reference's own rounding (sequential: i roundings at i) joins the bound.
WIDE = np.longdouble
WIDE_EXTRA = np.finfo(WIDE).eps >= np.finfo(np.float64).eps


def reference(x, op, acc, exclusive):
    """Exact for integers (wrapping in acc); extended precision for float sums."""
    work = WIDE if (acc.kind == "f" and op == "sum") else acc
    with np.errstate(over="ignore"):
        inc = ACCUMULATE[op].accumulate(x.astype(work), dtype=work)
    if exclusive:
        inc = np.concatenate([[_dtypes.identity(op, acc)], inc[:-1]]).astype(work)
    return inc


def check(got, x, op, acc, exclusive, variant, in_dt):
    got = to_host(got)
    assert got.dtype == acc and got.shape == (x.size,)
    want = reference(x, op, acc, exclusive)
    if acc.kind == "f" and op == "sum":
        depth = scan.error_depth(variant, x.size, in_dt, acc)
        cumabs = np.cumsum(np.abs(x.astype(WIDE)))
        if exclusive:
            cumabs = np.concatenate([[WIDE(0)], cumabs[:-1]])
        u = np.finfo(acc).eps / 2
        bound = depth * u / (1 - depth * u) * cumabs + np.finfo(acc).tiny
        if WIDE_EXTRA:
            bound += np.arange(1, x.size + 1) * (np.finfo(np.float64).eps / 2) * cumabs
        err = np.abs(got.astype(WIDE) - want)
        bad = np.flatnonzero(~(err <= bound))
        assert bad.size == 0, f"first bad index {bad[:5]}: got {got[bad[:5]]} want {want[bad[:5]]}"
    else:
        H.assert_same(got, want.astype(acc), what=f"{variant} {op}")


KINDS = ["inclusive", "exclusive"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("pair", PAIRS, ids=pair_id)
@pytest.mark.parametrize("variant", scan.VARIANTS)
def test_sum(variant, pair, n, kind, rng):
    """Every variant x dtype pair x size x kind (in index order on the emulator)."""
    sum_case(variant, pair, n, kind, rng)


@pytest.mark.parametrize(
    "variant,pair,n,kind", race_sample(scan.VARIANTS, PAIRS, SIZES, KINDS), ids=case_id
)
def test_sum_race(variant, pair, n, kind, rng, race):
    """Half the sums in race-exposing mode: each variant with every size, pair and kind."""
    sum_case(variant, pair, n, kind, rng)


def sum_case(variant, pair, n, kind, rng):
    in_dt, acc = pair
    x = make(rng, n, in_dt)
    exclusive = kind == "exclusive"
    f = prim.exclusive_scan if exclusive else prim.inclusive_scan
    check(f(x, "sum", dtype=acc, variant=variant), x, "sum", acc, exclusive, variant, in_dt)


MIN_MAX_SIZES = [1, 33, 257, 513, 4097, 12289]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", MIN_MAX_SIZES)
@pytest.mark.parametrize("dtype", _dtypes.NUMERIC, ids=lambda d: d.name)
@pytest.mark.parametrize("op", ["min", "max"])
@pytest.mark.parametrize("variant", scan.VARIANTS)
def test_min_max(variant, op, dtype, n, kind, rng):
    """Every variant x op x dtype x size x kind (in index order on the emulator)."""
    min_max_case(variant, op, dtype, n, kind, rng)


@pytest.mark.parametrize(
    "variant,op,dtype,n,kind",
    race_sample(scan.VARIANTS, ["min", "max"], _dtypes.NUMERIC, MIN_MAX_SIZES, KINDS),
    ids=case_id,
)
def test_min_max_race(variant, op, dtype, n, kind, rng, race):
    """Half the extrema in race-exposing mode: each variant with both ops, every dtype, size and
    kind."""
    min_max_case(variant, op, dtype, n, kind, rng)


def min_max_case(variant, op, dtype, n, kind, rng):
    x = make(rng, n, dtype)
    exclusive = kind == "exclusive"
    f = prim.exclusive_scan if exclusive else prim.inclusive_scan
    check(f(x, op, variant=variant), x, op, np.dtype(dtype), exclusive, variant, dtype)


@pytest.mark.parametrize("dtype", _dtypes.NUMERIC, ids=lambda d: d.name)
@pytest.mark.parametrize("variant", scan.VARIANTS)
@H.twins()
def test_default_dtypes_follow_numpy(xp, variant, dtype):
    x = (np.arange(100) % 17).astype(dtype)  # exact sums in every order
    kw = {} if xp is np else {"variant": variant}
    return xp.cumsum(x, **kw)


@pytest.mark.parametrize("variant", scan.VARIANTS)
def test_min_max_keep_the_dtype(variant, rng):
    for dt in _dtypes.NUMERIC:
        x = make(rng, 100, dt)
        H.assert_same(prim.inclusive_scan(x, "max", variant=variant), np.maximum.accumulate(x))


@pytest.mark.parametrize("variant", scan.VARIANTS)
@H.twins()
def test_int32_wraps_like_numpy(xp, variant):
    x = np.random.default_rng(3).integers(2**30, 2**31 - 1, 5000, dtype=np.int32)
    with np.errstate(over="ignore"):
        return xp.cumsum(x, dtype=np.int32, **({} if xp is np else {"variant": variant}))


@pytest.mark.parametrize("variant", scan.VARIANTS)
@pytest.mark.parametrize("op", ["min", "max", "sum"])
def test_nan_propagates_from_its_position(variant, op, rng):
    x = rng.uniform(-1, 1, 5000).astype(np.float32)
    x[3001] = np.nan
    got = prim.inclusive_scan(x, op, variant=variant)
    assert not np.isnan(got[:3001]).any() and np.isnan(got[3001:]).all()


@pytest.mark.parametrize("variant", scan.VARIANTS)
@H.twins()
def test_dtype_conversion(xp, variant):
    x = np.random.default_rng(5).integers(-1000, 1000, 3000, dtype=np.int64)
    return xp.cumsum(x, dtype=np.float64, **({} if xp is np else {"variant": variant}))


@pytest.mark.parametrize("off", [1, 2, 3])
@pytest.mark.parametrize("dtype", [None, np.int32])
@H.twins()
def test_misaligned_views_take_the_scalar_path(xp, off, dtype):
    base = make(np.random.default_rng(11), 20000, np.int32)
    return xp.cumsum(base[off:], dtype=dtype)


@pytest.mark.parametrize("prefetch", [0, 1, 5])
def test_lookback_prefetch_distances(prefetch, rng):
    # each block hints the L2 cache with the input of the tile `prefetch` ids ahead (clipped at
    # n; every zipped array of a tuple scan): a hint, so the results are those without it
    pol = prim.tuning.policy("scan", "decoupled_lookback")
    n = 5 * pol.block * pol.items(np.dtype(np.float32), np.dtype(np.float32)) + 13
    x = make(rng, n + 3, np.int64)
    a = rng.uniform(0.5, 1.0, n).astype(np.float32)
    b = rng.uniform(-1.0, 1.0, n).astype(np.float32)
    rec = prim.Op(("a.f0 * b.f0", "b.f0 * a.f1 + b.f1"), identity=(1.0, 0.0))
    want = prim.inclusive_scan((a, b), rec), prim.cumsum(a[1:], dtype=np.float64)
    with prim.tuning.override("scan", prefetch=prefetch):  # the flat and the tuple policies
        for v in (x[:n], x[3:]):
            H.assert_same(prim.cumsum(v), np.cumsum(v))
        got = prim.inclusive_scan((a, b), rec), prim.cumsum(a[1:], dtype=np.float64)
        H.assert_same(got, want)


def test_repeated_calls_and_epochs(rng):
    """Plans are reused across calls (new epoch each); an epoch wrap clears the status words."""
    x = make(rng, 50000, np.int64)
    d = _backend.get_backend().xp.asarray(x)  # read as it is: the plan is the calls' own
    want = np.cumsum(x)
    for _ in range(3):
        H.assert_same(prim.cumsum(d), want)
    plan = prim.plan(prim.cumsum, d).core  # the look-back plan the calls above ran
    assert plan.epoch >= 3
    plan.epoch = _lookback.EPOCH_LIMIT - 2
    for _ in range(4):  # crosses the wrap
        H.assert_same(prim.cumsum(d), want)
    assert 1 <= plan.epoch <= 3


def test_repeat_calls_take_the_filed_plan(rng):
    """A call on an array like an earlier call's (the backend's type, C-contiguous, a dtype pair
    a kernel takes) finds the earlier call's plan by its arguments: no new plan, the same
    answers; conversions, strided views and other variants take the checked path, and bad
    arguments are still refused."""
    xp = _backend.get_backend().xp
    prim.clear_caches()
    x, y = make(rng, 3000, np.int32), make(rng, 3000, np.int32)
    d, e = xp.asarray(x), xp.asarray(y)
    for dt in (None, np.int32, np.dtype(np.int64), "int64"):
        H.assert_same(prim.cumsum(d, dtype=dt), np.cumsum(x, dtype=dt))
        builds = prim.cache_info()["builds"]
        H.assert_same(prim.cumsum(e, dtype=dt), np.cumsum(y, dtype=dt))
        assert prim.cache_info()["builds"] == builds
        assert _plans.PLANS.find(prim.cumsum.entry.key((e,), {"dtype": dt})) is not None
    want = np.concatenate([[np.iinfo(np.int32).min], np.maximum.accumulate(y)[:-1]]).astype(
        np.int32
    )
    prim.exclusive_scan(d, "max")
    builds = prim.cache_info()["builds"]
    H.assert_same(prim.exclusive_scan(e, "max"), want)
    assert prim.cache_info()["builds"] == builds
    H.assert_same(prim.cumsum(d, dtype=np.float64), np.cumsum(x, dtype=np.float64))  # converted
    strided = xp.asarray(make(rng, 6000, np.int32))[::2]
    H.assert_same(prim.cumsum(strided), np.cumsum(to_host(strided)))
    H.assert_same(prim.cumsum(d, variant="blelloch"), np.cumsum(x))
    with pytest.raises(ValueError, match="op"):
        prim.inclusive_scan(d, op="mul")
    with pytest.raises(ValueError, match="op"):
        prim.inclusive_scan(d, op=["sum"])
    with pytest.raises(TypeError, match="dtype"):
        prim.inclusive_scan(d, dtype="U1")
    with pytest.raises(ValueError, match="variant"):
        prim.inclusive_scan(d, variant=["auto"])
    with pytest.raises(ValueError, match="axis"):
        prim.cumsum(e, axis=1)


@pytest.mark.parametrize("variant", ["auto", "blelloch"])
@pytest.mark.parametrize("f", [prim.inclusive_scan, prim.exclusive_scan])
def test_explicit_plan(rng, f, variant):
    """``prim.plan(f, like, ...)`` equals ``f`` on like arrays and on others."""
    x = make(rng, 5001, np.int32)
    p = prim.plan(f, x, "max", variant=variant)
    for y in (
        make(rng, 5001, np.int32),
        make(rng, 17, np.int32),
        make(rng, 5001, np.float64),
        make(rng, 10002, np.int32)[::2],
    ):
        H.assert_same(p(y), f(y, "max", variant=variant))
    q = f.plan(x, dtype=np.int64)
    H.assert_same(q(x), f(x, dtype=np.int64))


@pytest.mark.parametrize("axis", [None, 0])
def test_explicit_plan_cumsum(rng, axis):
    x = make(rng, 4000, np.uint32)
    p = prim.plan(prim.cumsum, x, axis)
    for y in (make(rng, 4000, np.uint32), make(rng, 3, np.uint32), make(rng, 4000, np.int64)):
        H.assert_same(p(y), np.cumsum(y, axis))
    H.assert_same(prim.cumsum.plan(x, dtype=np.float64)(x), np.cumsum(x, dtype=np.float64))


def test_repeat_calls_do_not_choose_again(rng, monkeypatch):
    """The variant is chosen by the first call on like arrays (its prepare step), never by a
    repeat call nor by a plan's calls: flat, along an axis, and into ``out``."""
    from primitives.scan import _choose

    chosen = []
    real = _choose.variant
    monkeypatch.setattr(_choose, "variant", lambda *a: chosen.append(a) or real(*a))
    xp = _backend.get_backend().xp
    prim.clear_caches()
    x = make(rng, 3000, np.int32)
    d, m = xp.asarray(x), xp.asarray(x.reshape(60, 50))
    for call, want in (
        (lambda: prim.cumsum(d), np.cumsum(x)),
        (lambda: prim.inclusive_scan(d, "max", variant="auto"), np.maximum.accumulate(x)),
        (lambda: prim.cumsum(m, axis=1), np.cumsum(x.reshape(60, 50), axis=1)),
        (lambda: prim.cumprod(m.T, axis=0), np.cumprod(x.reshape(60, 50).T, axis=0)),
    ):
        before = len(chosen)
        for _ in range(3):
            H.assert_same(call(), want)
        assert len(chosen) == before + 1
    p = prim.plan(prim.exclusive_scan, d, "min")
    assert len(chosen) == 5
    for _ in range(3):
        p(d)
    assert len(chosen) == 5
    out = xp.empty(3000, np.int64)
    prim.cumsum(d, out=out)  # out=: no call key of its own; the scan into it takes one
    prim.cumsum(d, out=out)
    assert len(chosen) == 6
    H.assert_same(out, np.cumsum(x))


def test_bad_plan_options_raise_at_plan_time():
    x = np.ones(10, np.float32)
    H.raises_like(
        ValueError,
        "inclusive_scan",
        prim.plan,
        prim.inclusive_scan,
        x,
        variant="kogge_stone",
        match="variant must be",
    )
    H.raises_like(
        ValueError, "exclusive_scan", prim.exclusive_scan.plan, x, "mul", match="op must be one of"
    )
    H.raises_like(TypeError, "cumsum", prim.plan, prim.cumsum, x, dtype="U1", match="dtype=")
    H.raises_like(ValueError, "cumsum", prim.plan, prim.cumsum, x, axis=1, match="axis")
    H.raises_like(
        TypeError,
        "inclusive_scan",
        prim.plan,
        prim.inclusive_scan,
        np.ones(4, np.longdouble),
        match="x has dtype",
    )


@pytest.mark.parametrize("f", [prim.inclusive_scan, prim.exclusive_scan])
def test_empty(f):
    H.assert_same(f(np.array([], np.int32)), np.array([], np.int64))


@pytest.mark.parametrize("case", ["empty", "3-D", "strided", "axis 0", "list"])
@H.twins()
def test_empty_and_shapes(xp, case):
    x = np.arange(1, 25, dtype=np.float64).reshape(2, 3, 4)
    return {
        "empty": lambda: xp.cumsum(np.array([], np.int32)),
        "3-D": lambda: xp.cumsum(x),  # flattened, as numpy without axis
        "strided": lambda: xp.cumsum(x[:, ::2]),  # non-contiguous
        "axis 0": lambda: xp.cumsum(np.arange(5), axis=0),
        "list": lambda: xp.cumsum([1, 2, 3]),
    }[case]()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    pair=st.sampled_from(PAIRS),
    op=st.sampled_from(["sum", "min", "max"]),
    variant=st.sampled_from(scan.VARIANTS),
    exclusive=st.booleans(),
)
def test_property_matches_numpy(data, pair, op, variant, exclusive):
    in_dt, acc = pair
    if op != "sum":
        acc = in_dt
    if in_dt.kind == "f":
        elems = st.floats(-1e6, 1e6, width=in_dt.itemsize * 8, allow_nan=False)
    else:
        info = np.iinfo(in_dt)
        elems = st.integers(int(info.min), int(info.max))
    x = data.draw(hnp.arrays(in_dt, st.integers(1, 9000), elements=elems))
    f = prim.exclusive_scan if exclusive else prim.inclusive_scan
    check(f(x, op, dtype=acc, variant=variant), x, op, acc, exclusive, variant, in_dt)


# ---- the look-back protocol on hand-made tile states -------------------------------------------

PROBE = r"""
#include "util/prim.cuh"
#include "util/segmented.cuh"
#include "device/lookback.cuh"
// One warp per launch computes the exclusive prefix of tile `tile` from prepared tile states.
template <class T>
__global__ void lookback_probe(unsigned char* state, unsigned epoch, long long tile, T* out) {
    const prim::TileStatus<T> ts(state, epoch);
    const T p = prim::lookback_prefix<T>(ts, tile, prim::Sum<T>());
    if (threadIdx.x == 0) *out = p;
}
// The same with the segmented (non-commutative) operator on (value, head) pairs, whose 16 bytes
// take the fenced layout (status words, aggregates, inclusive prefixes). Launch with tiles blocks.
__global__ void lookback_probe_segmented(unsigned char* state, unsigned epoch, long long tile,
                                         prim::Flagged<long long>* out) {
    typedef prim::Flagged<long long> P;
    const prim::TileStatus<P> ts(state, epoch);
    if (blockIdx.x != 0) return;
    const P p = prim::lookback_prefix<P>(ts, tile, prim::Segmented<prim::Sum<long long>>());
    if (threadIdx.x == 0) *out = p;
}
"""


def _probe_kernel(name):
    return H.probe_kernel(PROBE, name)
    from primitives._core import emulator as _emulator

    mod = _emulator.compile_module(
        PROBE, [name], include_dirs=[str(_loader.kernels_root())], cache_key=_loader.tree_hash()
    )
    return mod.get_function(name)


SLOT_WORDS = _lookback.STATUS_SPACING // 4  # each tile's polled word(s) in a slot of their own


def _packed_state(kind, value, epoch, dt):
    """Descriptors of TileStatus<T> for a value of at most 12 bytes, one at the start of each
    tile's slot: 8 bytes (status, value) for 4-byte values, 16 bytes (status, pad, value) for
    8-byte ones."""
    tiles = len(kind)
    width = 8 if dt.itemsize == 4 else 16
    words = np.zeros((tiles, SLOT_WORDS), np.uint32)
    words[:, 0] = (np.uint32(epoch) << np.uint32(2)) | kind
    words[:, width // 4 - dt.itemsize // 4 : width // 4] = (
        np.asarray(value, dt).view(np.uint32).reshape(tiles, -1)
    )
    words[:, width // 4 :] = 0xDEADBEEF  # the rest of the slot is never read
    assert _lookback.state_bytes(tiles, dt.itemsize) == words.nbytes
    return words.view(np.uint8).reshape(-1)


def _probe(state, epoch, tiles, dt):
    xp = _backend.get_backend().xp
    out = xp.zeros(1, dt)
    k = _probe_kernel(f"lookback_probe<{'int' if dt.itemsize == 4 else 'long long'}>")
    k((1,), (32,), (xp.asarray(state), np.uint32(epoch), np.int64(tiles), out))
    return int(to_host(out)[0])


@pytest.mark.parametrize("dt", [np.dtype(np.int32), np.dtype(np.int64)])
@pytest.mark.parametrize("tiles", [1, 2, 31, 32, 33, 64, 100, 127, 128, 129, 300])
@pytest.mark.parametrize("pattern", ["all_aggregate", "inclusive_far", "inclusive_near", "mixed"])
def test_lookback_prefix(tiles, pattern, dt, rng):
    """Predecessors that published only aggregates (a path that blocks running in index order never
    take on the emulator), and inclusive prefixes at various distances, across several windows;
    8- and 16-byte descriptors."""
    epoch = 5
    agg = rng.integers(-1000, 1000, tiles).astype(dt)
    kind = np.full(tiles, 1, np.uint32)
    if pattern == "inclusive_far":
        kind[0] = 2
    elif pattern == "inclusive_near":
        kind[-1] = 2
    elif pattern == "mixed":
        kind[rng.random(tiles) < 0.2] = 2
    value = np.where(kind == 2, np.cumsum(agg), agg)
    assert _probe(_packed_state(kind, value, epoch, dt), epoch, tiles, dt) == int(agg.sum())


@pytest.mark.parametrize("dt", [np.dtype(np.int32), np.dtype(np.int64)])
def test_lookback_prefix_nearest_inclusive_anywhere(dt, rng):
    """One inclusive prefix d tiles before the nearest predecessor, for d across a dozen windows
    of 32 (every lane, the window edges); a farther one must not be counted again."""
    epoch, tiles = 3, 400
    agg = rng.integers(-1000, 1000, tiles).astype(dt)
    for d in sorted(set(range(0, 390, 5)) | {1, 2, 3, 4, 127, 128, 129, 255, 256, 257, 383, 384}):
        kind = np.full(tiles, 1, np.uint32)
        kind[0] = 2
        kind[tiles - 1 - d] = 2
        value = np.where(kind == 2, np.cumsum(agg), agg)
        got = _probe(_packed_state(kind, value, epoch, dt), epoch, tiles, dt)
        assert got == int(agg.sum()), f"inclusive prefix {d} tiles before the nearest"


@pytest.mark.parametrize("tiles", [2, 33, 70, 100, 129, 300])
def test_lookback_prefix_keeps_order(tiles, rng):
    """The segmented operator does not commute: predecessors must fold farthest first. Pairs are
    (value, head) with words (value lo, value hi, head, pad); 16-byte values take the fenced
    layout: a status word per slot, the aggregates, the inclusive prefixes."""
    xp = _backend.get_backend().xp
    epoch = 9
    vals = rng.integers(-100, 100, tiles)
    heads = (rng.random(tiles) < 0.3).astype(np.int64)
    kind = np.where(rng.random(tiles) < 0.15, 2, 1).astype(np.uint32)
    kind[0] = 1  # at least the farthest stays an aggregate
    # host reference: fold (value, head) pairs in order, inclusive prefixes per tile
    inc_vals, inc_heads, run_v, run_h = [], [], 0, 0
    for v, h in zip(vals, heads):
        run_v, run_h = (v if h else run_v + v), (run_h | h)
        inc_vals.append(run_v)
        inc_heads.append(run_h)

    def pairs(values, hs):
        words = np.zeros((tiles, 4), np.uint32)
        words[:, :2] = np.asarray(values, np.int64).view(np.uint32).reshape(tiles, 2)
        words[:, 2] = np.asarray(hs, np.uint32)
        return words.reshape(-1)

    status = np.full((tiles, SLOT_WORDS), 0xDEADBEEF, np.uint32)  # only word 0 is read
    status[:, 0] = (np.uint32(epoch) << np.uint32(2)) | kind
    status = status.reshape(-1)
    # values never published (inclusive prefixes of aggregate-only tiles) must never be read
    inc = pairs(inc_vals, inc_heads).reshape(tiles, 4)
    inc[kind == 1] = 0xDEADBEEF
    state = np.concatenate([status, pairs(vals, heads), inc.reshape(-1)]).view(np.uint8)
    assert state.nbytes == _lookback.state_bytes(tiles, 16)
    out = xp.zeros(4, np.uint32)
    k = _probe_kernel("lookback_probe_segmented")
    k((tiles,), (32,), (xp.asarray(state), np.uint32(epoch), np.int64(tiles), out))
    got = to_host(out)
    assert int(got[:2].view(np.int64)[0]) == inc_vals[-1]
    assert int(got[2]) == inc_heads[-1]


def test_lookback_ignores_an_older_epoch(backend):
    """A status word of the previous launch reads as 'nothing published yet': the look-back waits
    for it (on the emulator, where nothing else runs, that wait is reported as a spin that never
    finishes, not taken as a published value)."""
    if backend.is_cuda:
        pytest.skip("on a GPU the wait would never end; the emulator detects it")
    from primitives._core import emulator as _emulator

    dt = np.dtype(np.int64)
    kind = np.full(4, 2, np.uint32)  # inclusive prefixes, but of epoch 4
    with pytest.raises(_emulator.EmulatorError, match="spin"):
        _probe(_packed_state(kind, np.arange(4), 4, dt), 5, 4, dt)


# ---- byte order ---------------------------------------------------------------------------------


def _exclusive_sum(x):
    inc = np.cumsum(x)
    return np.concatenate([np.zeros(1, inc.dtype), inc[:-1]])


# name -> body(xp, x): a scan (or a variant) and its NumPy twin
BYTE_ORDER_CALLS = {
    "cumsum": lambda xp, x: xp.cumsum(x),
    "inclusive_scan": lambda xp, x: np.cumsum(x) if xp is np else xp.inclusive_scan(x),
    "exclusive_scan": lambda xp, x: _exclusive_sum(x) if xp is np else xp.exclusive_scan(x),
    "inclusive_scan min hillis_steele": lambda xp, x: (
        np.minimum.accumulate(x.ravel())
        if xp is np
        else xp.inclusive_scan(x, "min", variant="hillis_steele")
    ),
    "exclusive_scan blelloch": lambda xp, x: (
        _exclusive_sum(x) if xp is np else xp.exclusive_scan(x, variant="blelloch")
    ),
}


@pytest.mark.parametrize("dtype", [">f8", ">i4", ">u8"])
@pytest.mark.parametrize("name", list(BYTE_ORDER_CALLS))
def test_non_native_byte_order(name, dtype, rng):
    """Arrays of non-native byte order give NumPy's native results, also after a call on a
    native array of the same shape (whose filed plan must not read the swapped bytes) and
    through a plan made for native arrays."""
    body = BYTE_ORDER_CALLS[name]
    x = rng.integers(0, 100, 700).astype(dtype)
    native = x.astype(x.dtype.newbyteorder("="))
    H.assert_same(body(prim, native), body(np, native))  # files the plan of native arrays
    H.run_twins(body, (x,))
    H.run_twins(body, (x.reshape(7, 100)[:, ::3],))
    if name in ("cumsum", "inclusive_scan", "exclusive_scan"):
        H.assert_same(prim.plan(getattr(prim, name), native)(x), body(np, x))


@H.twins()
def test_non_native_result_dtype(xp):
    """``dtype=x.dtype`` of a non-native array asks for that dtype in native order, as
    ``numpy.cumsum`` takes it."""
    x = (np.arange(-50, 50) * 40000000).astype(">i4")  # wraps around in 32 bits
    return xp.cumsum(x, dtype=x.dtype)


# ---- errors --------------------------------------------------------------------------------------


@pytest.mark.parametrize("f", [prim.inclusive_scan, prim.exclusive_scan, prim.cumsum])
@pytest.mark.parametrize("bad", [np.longdouble, "U1", "M8[s]"])
def test_unsupported_dtype(f, bad):
    H.raises_like(TypeError, f.__name__, f, np.zeros(10, dtype=bad), match="x has dtype")


@pytest.mark.parametrize("bad", ["abc", None, object()])
def test_not_an_array(bad):
    H.raises_like(TypeError, "inclusive_scan", prim.inclusive_scan, bad, match="x must be")


def test_bad_op():
    H.raises_like(
        ValueError,
        "inclusive_scan",
        prim.inclusive_scan,
        np.ones(4, np.float32),
        "mul",
        match="op must be one of",
    )


def test_bad_variant():
    H.raises_like(
        ValueError,
        "exclusive_scan",
        prim.exclusive_scan,
        np.ones(4, np.float32),
        variant="kogge_stone",
        match="variant must be 'auto' or one of",
    )


def test_bad_result_dtype():
    H.raises_like(
        TypeError, "cumsum", prim.cumsum, np.ones(4, np.float32), dtype="U1", match="dtype="
    )


@pytest.mark.parametrize("shape,axis", [((4,), 1), ((4,), -2), ((4, 4), 2), ((2, 3, 4), -4)])
def test_cumsum_axis_out_of_bounds(shape, axis):
    """NumPy's AxisError (a ValueError), named."""
    with pytest.raises(np.exceptions.AxisError):
        np.cumsum(np.ones(shape), axis=axis)
    H.raises_like(
        np.exceptions.AxisError,
        "cumsum",
        prim.cumsum,
        np.ones(shape, np.float32),
        axis=axis,
        match="axis",
    )


def test_cumsum_axis_not_an_integer():
    with pytest.raises(TypeError):
        np.cumsum(np.ones(4), axis=0.5)
    H.raises_like(TypeError, "cumsum", prim.cumsum, np.ones(4, np.float32), axis=0.5, match="axis")


@pytest.mark.parametrize("shape", [(3, 5, 7), (1, 4), (4, 1), (0, 3), (6, 2)])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", [np.int32, np.float64], ids=lambda d: np.dtype(d).name)
def test_cumsum_along_every_axis(shape, order, dtype, rng):
    """cumsum(x, axis) equals NumPy's (values, dtype, shape) for every axis, negative too, of
    C- and F-ordered arrays and strided views."""
    x = np.asarray(make(rng, int(np.prod(shape)), dtype).reshape(shape), order=order)
    for y in (x, x[..., ::-1]):
        for axis in range(-y.ndim, y.ndim):
            got, want = prim.cumsum(y, axis=axis), np.cumsum(y, axis=axis)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=1e-12)
            assert prim.cumsum.plan(y, axis=axis)(y).shape == want.shape


@pytest.mark.parametrize("op,ufunc", [("sum", np.add), ("min", np.minimum), ("max", np.maximum)])
def test_scans_along_an_axis(op, ufunc, rng):
    """inclusive_scan/exclusive_scan with ``axis``: ufunc.accumulate along it, and the exclusive
    scan that accumulation shifted by one with the identity first."""
    x = rng.integers(-50, 50, (3, 5, 7)).astype(np.int64)
    ident = {"sum": 0, "min": np.iinfo(np.int64).max, "max": np.iinfo(np.int64).min}[op]
    for axis in (0, 1, -1):
        want = ufunc.accumulate(x, axis=axis)
        assert np.array_equal(prim.inclusive_scan(x, op, axis=axis), want)
        m = np.moveaxis(want, axis, -1)
        shifted = np.concatenate([np.full(m.shape[:-1] + (1,), ident), m[..., :-1]], axis=-1)
        got = prim.exclusive_scan(x, op, axis=axis)
        assert np.array_equal(got, np.moveaxis(shifted, -1, axis))
        assert np.array_equal(prim.exclusive_scan.plan(x, op, axis=axis)(x), got)


@pytest.mark.gpu
def test_device_in_device_out(on_gpu, rng):
    if not on_gpu:
        pytest.skip("needs the CUDA backend")
    import cupy

    x = cupy.asarray(make(rng, 1 << 20, np.int32))
    got = prim.cumsum(x)
    assert isinstance(got, cupy.ndarray)
    assert cupy.array_equal(got, cupy.cumsum(x))


@pytest.mark.gpu
def test_more_than_2_31_elements(on_gpu):
    if not on_gpu:
        pytest.skip("needs the CUDA backend")
    import cupy

    n = 2**31 + 3
    x = cupy.ones(n, dtype=cupy.int32)
    out = prim.cumsum(x, dtype=cupy.int64)
    assert int(out[-1]) == n and int(out[2**31]) == 2**31 + 1 and int(out[12345]) == 12346
    del out
    out = prim.inclusive_scan(x, dtype=cupy.int32)  # 32-bit sum wraps at 2^31
    assert int(out[2**31 - 1]) == 2**31 - 2**32 and int(out[-1]) == 2**31 + 3 - 2**32
    del x, out
    cupy.get_default_memory_pool().free_all_blocks()


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize(
    "dt,op",
    [
        (dt, op)
        for dt in (np.int32, np.float64, np.int8, np.float16, np.bool_)
        for op in ("sum", "prod", "min", "max")
    ]
    + [(np.complex64, "sum"), (np.complex64, "prod")],
)
def test_continued_scan_is_the_scan_of_the_whole(dt, op, exclusive):
    """primitives.scan._api.continued (the scan of a chunk after the chunks before it, the seed
    read by the look-back kernel's first tile): the scan of a then of b seeded with a's total is
    the scan of a + b; without a seed it is the plain scan."""
    from primitives.scan._api import continued

    rng = np.random.default_rng(7)
    n, dt = 3001 + 4 * 1024, np.dtype(dt)
    if op == "prod":  # products of +-1 (and of values near 1 for floats): no overflow
        whole = rng.choice([1, -1] if dt.kind in "ifc" else [1], n).astype(dt)
        if dt.kind in "fc":
            whole = (whole * rng.uniform(0.999, 1.001, n)).astype(dt)
    elif dt.kind == "b":
        whole = rng.random(n) < 0.5
    else:
        whole = rng.integers(-50, 50, n).astype(dt)
    a, b = whole[:3001], whole[3001:]
    xp = _backend.get_backend().xp
    scan = prim.exclusive_scan if exclusive else prim.inclusive_scan
    want = to_host(scan(xp.asarray(whole), op))
    first = to_host(continued(xp.asarray(a), op, None, exclusive=exclusive))
    total = (
        prim.reduce(xp.asarray(a), op, dtype=want.dtype)
        if op in ("sum", "prod")
        else prim.reduce(xp.asarray(a), op)
    )
    rest = to_host(continued(xp.asarray(b), op, xp.asarray(total).reshape(1), exclusive=exclusive))
    got = np.concatenate([first, rest])
    assert got.dtype == want.dtype
    if np.dtype(dt).kind in "fc" and op in ("sum", "prod"):
        np.testing.assert_allclose(got, want, rtol=1e-2 if dt == np.float16 else 1e-5)
    else:
        np.testing.assert_array_equal(got, want)

"""Scan family vs NumPy: every variant x dtype pair x op x inclusive/exclusive at awkward sizes,
the look-back protocol on hand-made tile states, and every error branch."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import primitives as prim
from primitives._core import backend as _backend, dtypes as _dtypes, loader as _loader, lookback as _lookback
from primitives import scan

from conftest import to_host

PAIRS = [(np.dtype(a), np.dtype(b)) for a, b in _dtypes.ACC_PAIRS]
# hillis_steele tiles 256, blelloch 512, look-back 9216 (4-byte values) or 4608; 300001 needs more
# than 32 look-back tiles and three levels of the classic scans
SIZES = [1, 2, 31, 32, 33, 255, 256, 257, 511, 512, 513, 2049, 4609, 9215, 9216, 9217, 300001]
ACCUMULATE = {"sum": np.add, "min": np.minimum, "max": np.maximum}


def pair_id(p):
    return f"{p[0].name}->{p[1].name}"


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
        depth = scan._error_depth(variant, x.size, in_dt, acc)
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
        bad = np.flatnonzero(got != want)
        assert bad.size == 0, f"first bad index {bad[:5]}: got {got[bad[:5]]} want {want[bad[:5]]}"


@pytest.mark.parametrize("exclusive", [False, True], ids=["inclusive", "exclusive"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("pair", PAIRS, ids=pair_id)
@pytest.mark.parametrize("variant", scan.VARIANTS)
def test_sum(variant, pair, n, exclusive, rng, schedule):
    in_dt, acc = pair
    x = make(rng, n, in_dt)
    f = prim.exclusive_scan if exclusive else prim.inclusive_scan
    check(f(x, "sum", dtype=acc, variant=variant), x, "sum", acc, exclusive, variant, in_dt)


@pytest.mark.parametrize("exclusive", [False, True], ids=["inclusive", "exclusive"])
@pytest.mark.parametrize("n", [1, 33, 257, 513, 4097, 12289])
@pytest.mark.parametrize("dtype", _dtypes.NUMERIC, ids=lambda d: d.name)
@pytest.mark.parametrize("op", ["min", "max"])
@pytest.mark.parametrize("variant", scan.VARIANTS)
def test_min_max(variant, op, dtype, n, exclusive, rng, schedule):
    x = make(rng, n, dtype)
    f = prim.exclusive_scan if exclusive else prim.inclusive_scan
    check(f(x, op, variant=variant), x, op, np.dtype(dtype), exclusive, variant, dtype)


@pytest.mark.parametrize("variant", scan.VARIANTS)
def test_default_dtypes_follow_numpy(variant, rng):
    for dt in _dtypes.NUMERIC:
        x = make(rng, 100, dt)
        assert prim.cumsum(x, variant=variant).dtype == np.cumsum(x).dtype
        assert prim.inclusive_scan(x, "max", variant=variant).dtype == dt


@pytest.mark.parametrize("variant", scan.VARIANTS)
def test_int32_wraps_like_numpy(variant, rng):
    x = rng.integers(2**30, 2**31 - 1, 5000, dtype=np.int32)
    got = prim.cumsum(x, dtype=np.int32, variant=variant)
    with np.errstate(over="ignore"):
        assert np.array_equal(got, np.cumsum(x, dtype=np.int32))


@pytest.mark.parametrize("variant", scan.VARIANTS)
@pytest.mark.parametrize("op", ["min", "max", "sum"])
def test_nan_propagates_from_its_position(variant, op, rng):
    x = rng.uniform(-1, 1, 5000).astype(np.float32)
    x[3001] = np.nan
    got = prim.inclusive_scan(x, op, variant=variant)
    assert not np.isnan(got[:3001]).any() and np.isnan(got[3001:]).all()


@pytest.mark.parametrize("variant", scan.VARIANTS)
def test_dtype_conversion(variant, rng):
    x = rng.integers(-1000, 1000, 3000, dtype=np.int64)
    got = prim.cumsum(x, dtype=np.float64, variant=variant)
    assert got.dtype == np.float64 and np.array_equal(got, np.cumsum(x).astype(np.float64))


def test_misaligned_views_take_the_scalar_path(rng):
    base = make(rng, 20000, np.int32)
    for off in (1, 2, 3):
        x = base[off:]
        assert np.array_equal(prim.cumsum(x), np.cumsum(x))
        assert np.array_equal(prim.cumsum(x, dtype=np.int32), np.cumsum(x, dtype=np.int32))


def test_repeated_calls_and_epochs(rng, monkeypatch):
    """Plans are reused across calls (new epoch each); an epoch wrap clears the status words."""
    x = make(rng, 50000, np.int64)
    want = np.cumsum(x)
    for _ in range(3):
        assert np.array_equal(prim.cumsum(x), want)
    plan = next(p for k, p in scan._plans.items() if k[4] == 50000)
    plan.epoch = _lookback.EPOCH_LIMIT - 2
    for _ in range(4):  # crosses the wrap
        assert np.array_equal(prim.cumsum(x), want)
    assert 1 <= plan.epoch <= 3


def test_direct_calls_skip_the_general_path(rng, monkeypatch):
    """A C-contiguous array of the backend's type whose (dtype, result dtype) pair a kernel takes
    goes to the look-back kernel without op_input; conversions, strided views and bad arguments
    take the general path, and every answer is NumPy's."""
    xp = _backend.get_backend().xp
    calls = []
    real = scan._checks.op_input
    monkeypatch.setattr(scan._checks, "op_input", lambda *a, **k: calls.append(1) or real(*a, **k))
    x = make(rng, 3000, np.int32)
    d = xp.asarray(x)
    for dt in (None, np.int32, np.dtype(np.int64), "int64"):
        want = np.cumsum(x, dtype=dt)
        got = to_host(prim.cumsum(d, dtype=dt))
        assert got.dtype == want.dtype and np.array_equal(got, want)
    assert np.array_equal(to_host(prim.exclusive_scan(d, "max")),
                          np.concatenate([[np.iinfo(np.int32).min],
                                          np.maximum.accumulate(x)[:-1]]))
    assert calls == []
    want = np.cumsum(x, dtype=np.float64)  # int32 -> float64: converted first
    assert np.array_equal(to_host(prim.cumsum(d, dtype=np.float64)), want)
    strided = xp.asarray(make(rng, 6000, np.int32))[::2]
    assert np.array_equal(to_host(prim.cumsum(strided)), np.cumsum(to_host(strided)))
    assert np.array_equal(to_host(prim.cumsum(d, variant="blelloch")), np.cumsum(x))
    assert len(calls) == 3
    with pytest.raises(ValueError, match="op"):
        prim.inclusive_scan(d, op="prod")
    with pytest.raises(ValueError, match="op"):
        prim.inclusive_scan(d, op=["sum"])
    with pytest.raises(TypeError, match="dtype"):
        prim.inclusive_scan(d, dtype=np.float16)
    with pytest.raises(ValueError, match="variant"):
        prim.inclusive_scan(d, variant=["auto"])


def test_empty_and_shapes():
    for f in (prim.inclusive_scan, prim.exclusive_scan, prim.cumsum):
        out = f(np.array([], np.int32))
        assert out.shape == (0,) and out.dtype == np.int64
    x = np.arange(1, 25, dtype=np.float64).reshape(2, 3, 4)
    assert np.array_equal(prim.cumsum(x), np.cumsum(x))  # flattened, as numpy without axis
    assert np.array_equal(prim.cumsum(x[:, ::2]), np.cumsum(x[:, ::2]))  # non-contiguous
    assert np.array_equal(prim.cumsum(np.arange(5), axis=0), np.cumsum(np.arange(5), axis=0))
    assert np.array_equal(prim.cumsum([1, 2, 3]), [1, 3, 6])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), pair=st.sampled_from(PAIRS), op=st.sampled_from(["sum", "min", "max"]),
       variant=st.sampled_from(scan.VARIANTS), exclusive=st.booleans())
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
#include "common/prim.cuh"
#include "common/scan.cuh"
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
    backend = _backend.get_backend()
    if backend.is_cuda:
        import cupy

        mod = cupy.RawModule(code=PROBE, options=_loader.nvrtc_options(), name_expressions=[name])
        return mod.get_function(name)
    from primitives._core import emulator as _emulator

    mod = _emulator.compile_module(PROBE, [name], include_dirs=[str(_loader.kernels_root())],
                                   cache_key=_loader.tree_hash())
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
    words[:, width // 4 - dt.itemsize // 4:width // 4] = (
        np.asarray(value, dt).view(np.uint32).reshape(tiles, -1))
    words[:, width // 4:] = 0xDEADBEEF  # the rest of the slot is never read
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


# ---- errors --------------------------------------------------------------------------------------


@pytest.mark.parametrize("f", [prim.inclusive_scan, prim.exclusive_scan, prim.cumsum])
@pytest.mark.parametrize("bad", [np.bool_, np.complex64, np.float16, np.int16])
def test_unsupported_dtype(f, bad):
    with pytest.raises(TypeError, match="x has dtype"):
        f(np.ones(10, dtype=bad))


@pytest.mark.parametrize("bad", ["abc", None, object()])
def test_not_an_array(bad):
    with pytest.raises(TypeError, match="x must be"):
        prim.inclusive_scan(bad)


def test_bad_op():
    with pytest.raises(ValueError, match="op must be one of"):
        prim.inclusive_scan(np.ones(4, np.float32), "prod")


def test_bad_variant():
    with pytest.raises(ValueError, match="variant must be 'auto' or one of"):
        prim.exclusive_scan(np.ones(4, np.float32), variant="kogge_stone")


def test_bad_result_dtype():
    with pytest.raises(TypeError, match="dtype="):
        prim.cumsum(np.ones(4, np.float32), dtype=np.bool_)


@pytest.mark.parametrize("axis", [1, -2, 0.5])
def test_cumsum_bad_axis_1d(axis):
    with pytest.raises(ValueError, match="axis"):
        prim.cumsum(np.ones(4, np.float32), axis=axis)


def test_cumsum_axis_on_2d():
    with pytest.raises(ValueError, match="not supported"):
        prim.cumsum(np.ones((4, 4), np.float32), axis=1)


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

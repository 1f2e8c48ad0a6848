"""Segmented scan and reduce vs NumPy per segment (and numpy.add.reduceat); plans and the
repeat-call path."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import primitives as prim
from primitives._core import backend as _backend, dtypes as _dtypes
from primitives.testing import harness as H
from primitives.testing.harness import to_host

from tests.conftest import race_sample, ragged_offsets

PAIRS = [(np.dtype(a), np.dtype(b)) for a, b in _dtypes.ACC_PAIRS]
ACC = {"sum": np.add, "min": np.minimum, "max": np.maximum}


def make(rng, n, dt):
    dt = np.dtype(dt)
    if dt.kind == "f":
        return (rng.uniform(-1, 1, n) + 0.001).astype(dt)
    return rng.integers(-1000 if dt.kind == "i" else 0, 1000, n).astype(dt)


WIDE = np.longdouble  # float references in extended precision (x86-64: 64-bit mantissa)


def _ones(x, offsets):
    """(starts of the segments of one element, the other segments' (start, end) pairs) when the
    offsets are non-decreasing within [0, x.size], else None. A segment of one element is
    answered for all of them at once (its scan and its reduction are the element itself, or the
    identity before it): the same values as a call of NumPy per segment, without a Python loop
    over tens of thousands of them."""
    o = np.asarray(offsets, np.int64)
    if o.size == 0 or o[0] < 0 or o[-1] > x.size or np.any(o[1:] < o[:-1]):
        return None
    lens = o[1:] - o[:-1]
    one = lens == 1
    longer = np.flatnonzero(lens > 1)
    return o[:-1][one], zip(o[:-1][longer], o[1:][longer])


def per_segment(x, offsets, op, acc, inclusive):
    work = WIDE if acc.kind == "f" else acc
    out = np.empty(x.size, dtype=work)
    split = _ones(x, offsets)
    if split is not None:
        ones, pairs = split
        out[ones] = x[ones].astype(work) if inclusive else _dtypes.identity(op, acc)
    else:
        pairs = zip(offsets[:-1], offsets[1:])
    for a, b in pairs:
        if b > a:
            inc = ACC[op].accumulate(x[a:b].astype(work), dtype=work)
            if inclusive:
                out[a:b] = inc
            else:
                out[a] = _dtypes.identity(op, acc)
                out[a + 1 : b] = inc[:-1]
    return out


def reduce_segments(x, offsets, op, acc):
    work = WIDE if acc.kind == "f" else acc
    o = np.asarray(offsets, np.int64)
    if o.size and o.min() >= 0 and o.max() <= x.size:
        # empty segments and segments of one element at once, NumPy's reduction of each other
        out = np.empty(o.size - 1, dtype=work)
        lens = o[1:] - o[:-1]
        out[lens <= 0] = _dtypes.identity(op, acc)
        one = lens == 1
        out[one] = x[o[:-1][one]].astype(work)
        for i in np.flatnonzero(lens > 1):
            out[i] = ACC[op].reduce(x[o[i] : o[i + 1]].astype(work), dtype=work)
        return out
    return np.array(
        [
            ACC[op].reduce(x[a:b].astype(work), dtype=work) if b > a else _dtypes.identity(op, acc)
            for a, b in zip(offsets[:-1], offsets[1:])
        ],
        dtype=work,
    )


def magnitude(x, offsets, per_element):
    """Sum of |x| over what each result depends on: the segment up to the element (scans) or the
    whole segment (reductions)."""
    a = np.abs(x.astype(WIDE))
    if per_element:
        return np.abs(per_segment(a, offsets, "sum", np.dtype(np.float64), True))
    return reduce_segments(a, offsets, "sum", np.dtype(np.float64))


def close(got, want, acc, x, offsets, per_element):
    """Integers exactly; float sums within Higham's bound for the look-back's summation depth
    (as primitives.scan.error_depth: a few dozen roundings per tile plus seven per earlier
    tile, tiles of at least 2048 elements)."""
    got = to_host(got)
    assert got.dtype == acc
    if acc.kind == "f":
        depth = 2 * (16 + 2 * 8 + 8) + 7 * (x.size / 2048 + 2)
        u = np.finfo(acc).eps / 2
        bound = depth * u / (1 - depth * u) * magnitude(x, offsets, per_element)
        with np.errstate(invalid="ignore"):  # inf - inf where both are the identity
            err = np.abs(got.astype(WIDE) - want)
        exact = got.astype(WIDE) == want  # min/max results and identities (infinities) are exact
        bad = np.flatnonzero(~(exact | (err <= bound + np.finfo(acc).tiny)))
        assert bad.size == 0, f"first bad {bad[:5]}: got {got[bad[:5]]} want {want[bad[:5]]}"
    else:
        H.assert_same(got, want.astype(acc))


# tiles hold 4096 (4-byte input) or 2048 elements; 70001 spans many tiles
SIZES = [1, 31, 33, 257, 2049, 4097, 12289, 70001]


def pair_id(p):
    return f"{p[0].name}->{p[1].name}"


def case_id(value):
    return pair_id(value) if isinstance(value, tuple) else str(value)


REDUCE_MAX_LENS = [0, 3, 40, 5000]


@pytest.mark.parametrize("max_len", REDUCE_MAX_LENS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("pair", PAIRS, ids=pair_id)
def test_reduce_sum(pair, n, max_len, rng):
    """Every dtype pair x size x segment length (in index order on the emulator)."""
    reduce_sum_case(pair, n, max_len, rng)


@pytest.mark.parametrize("pair,n,max_len", race_sample(PAIRS, SIZES, REDUCE_MAX_LENS), ids=case_id)
def test_reduce_sum_race(pair, n, max_len, rng, race):
    """Half the sums in race-exposing mode: each pair, size and segment length with the others."""
    reduce_sum_case(pair, n, max_len, rng)


def reduce_sum_case(pair, n, max_len, rng):
    in_dt, acc = pair
    x = make(rng, n, in_dt)
    off = ragged_offsets(rng, n, max_len)
    got = prim.segmented_reduce(x, off, dtype=acc)
    close(got, reduce_segments(x, off, "sum", acc), acc, x, off, False)


@pytest.mark.parametrize("op", ["min", "max"])
@pytest.mark.parametrize("n", [33, 4097, 70001])
@pytest.mark.parametrize("dtype", _dtypes.NUMERIC, ids=lambda d: d.name)
def test_reduce_min_max(dtype, n, op, rng, schedule):
    x = make(rng, n, dtype)
    off = ragged_offsets(rng, n, 60)
    close(
        prim.segmented_reduce(x, off, op),
        reduce_segments(x, off, op, np.dtype(dtype)),
        np.dtype(dtype),
        x,
        off,
        False,
    )


def test_reduce_matches_reduceat(rng):
    x = make(rng, 10000, np.float64)
    starts = np.unique(rng.integers(0, 10000, 300))
    off = np.concatenate([starts, [10000]])
    if off[0] != 0:
        pass  # elements before offsets[0] belong to no segment
    H.assert_same(prim.segmented_reduce(x, off), np.add.reduceat(x, starts), rtol=1e-12)


def test_reduce_partial_coverage_and_empties(rng):
    x = make(rng, 1000, np.int64)
    off = np.array([5, 5, 5, 10, 10, 700, 990, 990])  # nothing before 5 or after 990 counts
    want = [0, 0, x[5:10].sum(), 0, x[10:700].sum(), x[700:990].sum(), 0]
    H.assert_same(prim.segmented_reduce(x, off), np.array(want, np.int64))
    H.assert_same(prim.segmented_reduce(x, [0]), np.array([], np.int64))
    H.assert_same(prim.segmented_reduce(x, [3, 3]), np.array([0], np.int64))
    H.assert_same(
        prim.segmented_reduce(np.array([], np.int32), [0, 0, 0]), np.array([0, 0], np.int64)
    )


def split_offsets(n, chunk):
    """Offsets around chunk boundaries: empty and tiny segments, a segment of exactly one chunk
    and one of a chunk and one element, long segments starting on and off a chunk boundary (one
    spanning several chunks), the last ending at n."""
    c = chunk
    return np.array(
        [
            0,
            3,
            3,
            5,
            c,
            2 * c,
            3 * c + 1,
            3 * c + 1,
            7 * c + 5,
            7 * c + 6,
            9 * c,
            9 * c + 33,
            n - 7,
            n,
        ],
        np.int64,
    )


def test_reduce_kind_follows_mean_length():
    """A block per segment from the policy's mean segment length on; tiles below it."""
    from primitives.segmented import _choose, _plans as gp

    pol = prim.tuning.policy("segmented", "reduce")
    m = pol.per_segment_from
    assert _choose.per_segment(m * 100, 100, pol)
    assert not _choose.per_segment(m * 100 - 1, 100, pol)
    with prim.tuning.override("segmented", selector="reduce", per_segment_from=0):
        assert not _choose.per_segment(1 << 30, 1, prim.tuning.policy("segmented", "reduce"))
        assert _choose.reduction(1 << 30, 1) != "segments"
    f32 = np.dtype(np.float32)
    be = _backend.get_backend()
    assert _choose.reduction(m * 10, 10) == "segments"
    assert _choose.reduction(m * 10, 11) in ("exchange", "tiles")
    for nseg, kind in ((10, gp.SegmentsPlan), (11, gp.ReducePlan)):
        variant = _choose.reduction(m * 10, nseg)
        assert isinstance(gp.reduce_plan(be, f32, f32, "sum", m * 10, nseg, variant), kind)


@pytest.mark.parametrize("op", ["sum", "min", "max"])
@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0].name}->{p[1].name}")
def test_reduce_per_segment_split(pair, op, rng, schedule):
    """A block per segment with segments longer than a chunk split among chunk blocks (the
    policy's split into many chunks), whole and partly covered arrays, aligned and not."""
    from primitives.segmented import _plans as gp

    in_dt, acc = pair
    if op != "sum":
        acc = in_dt
    n = 50001
    with prim.tuning.override("segmented", selector="reduce", per_segment_from=1, split_blocks=n):
        pol = prim.tuning.policy("segmented", "reduce")
        chunk = pol.segment_block * pol.segment_items(in_dt, acc)  # one tile per chunk
        x = make(rng, n + 1, in_dt)
        off = split_offsets(n, chunk)
        assert (
            gp.SegmentsPlan(_backend.get_backend(), in_dt, acc, op, n, off.size - 1, pol).chunk
            == chunk
        )
        for xv in (x[:n], x[1:]):  # 16-byte aligned, and one element past
            for o in (off, off[1:-1], off[2:-3]):  # whole, and nothing before 3 or after n - 7
                want = reduce_segments(xv, o, op, acc)
                for _ in range(2):  # a second launch, a new epoch
                    close(prim.segmented_reduce(xv, o, op, dtype=acc), want, acc, xv, o, False)


@pytest.mark.parametrize("split_blocks", [1, 7, 1 << 20])
def test_reduce_per_segment_ragged(split_blocks, rng, schedule):
    """Every segment its own block (tiny, empty and a few long ones), chunks of every size."""
    n = 30000
    x = make(rng, n, np.float32)
    off = np.unique(np.concatenate([ragged_offsets(rng, n, 40), [9000, 9000, 21000]]))
    off = np.sort(np.concatenate([off, [9000, 9000, 15000, 15000]]))
    acc = np.dtype(np.float32)
    with prim.tuning.override(
        "segmented", selector="reduce", per_segment_from=1, split_blocks=split_blocks
    ):
        for op in ("sum", "max"):
            close(
                prim.segmented_reduce(x, off, op),
                reduce_segments(x, off, op, acc),
                acc,
                x,
                off,
                False,
            )


def test_reduce_per_segment_invalid_then_valid(rng):
    """Unchecked invalid offsets leave nothing behind: a later valid call on the same plan is
    right (the arrival words of a launch are its own)."""
    n = 40000
    x = make(rng, n, np.int64)
    good = np.array([0, 100, 30000, n], np.int64)
    bad = np.array([0, 39000, 10, n], np.int64)
    acc = np.dtype(np.int64)
    with prim.tuning.override("segmented", selector="reduce", per_segment_from=1, split_blocks=64):
        assert prim.segmented_reduce(x, bad, check=False).shape == (3,)
        H.assert_same(
            prim.segmented_reduce(x, good, check=False), reduce_segments(x, good, "sum", acc)
        )


def test_reduce_per_segment_epoch_wrap(rng):
    """The block-per-segment plan's epochs wrap as the look-back plans' do (its arrival words
    cleared): split segments stay right across the wrap."""
    from primitives._core import lookback as _lookback
    from primitives.segmented import _choose, _plans as gp

    n = 40000
    x = _backend.get_backend().xp.asarray(make(rng, n, np.int64))
    off = np.array([0, 100, 30000, n], np.int64)
    want = reduce_segments(H.to_host(x), off, "sum", np.dtype(np.int64))
    with prim.tuning.override("segmented", selector="reduce", per_segment_from=1, split_blocks=64):
        i64 = np.dtype(np.int64)
        nseg = off.size - 1
        plan = gp.reduce_plan(
            _backend.get_backend(), i64, i64, "sum", n, nseg, _choose.reduction(n, nseg)
        )
        assert isinstance(plan, gp.SegmentsPlan) and plan.chunks > 1
        H.assert_same(H.to_host(prim.segmented_reduce(x, off)), want)
        plan.epoch = _lookback.EPOCH_LIMIT - 2
        for _ in range(4):  # crosses the wrap
            H.assert_same(H.to_host(prim.segmented_reduce(x, off)), want)
        assert 1 <= plan.epoch <= 3


SCAN_MAX_LENS = [1, 40, 5000]


@pytest.mark.parametrize("kind", ["inclusive", "exclusive"])
@pytest.mark.parametrize("by", ["flags", "offsets"])
@pytest.mark.parametrize("max_len", SCAN_MAX_LENS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("pair", PAIRS, ids=pair_id)
def test_scan_sum(pair, n, max_len, by, kind, rng):
    """Every dtype pair x size x segment length x segments' form x kind (in index order on the
    emulator)."""
    scan_sum_case(pair, n, max_len, by, kind == "inclusive", rng)


@pytest.mark.parametrize(
    "pair,n,max_len,by,kind",
    race_sample(PAIRS, SIZES, SCAN_MAX_LENS, ["flags", "offsets"], ["inclusive", "exclusive"]),
    ids=case_id,
)
def test_scan_sum_race(pair, n, max_len, by, kind, rng, race):
    """Half the scans in race-exposing mode: each pair, size, segment length, form and kind with
    the others."""
    scan_sum_case(pair, n, max_len, by, kind == "inclusive", rng)


def scan_sum_case(pair, n, max_len, by, inclusive, rng):
    in_dt, acc = pair
    x = make(rng, n, in_dt)
    off = ragged_offsets(rng, n, max_len)
    if by == "flags":
        flags = np.zeros(n, bool)
        flags[off[:-1][off[:-1] < n]] = True
        got = prim.segmented_scan(x, flags=flags, inclusive=inclusive, dtype=acc)
    else:
        got = prim.segmented_scan(x, offsets=off, inclusive=inclusive, dtype=acc)
    close(got, per_segment(x, off, "sum", acc, inclusive), acc, x, off, True)


@pytest.mark.parametrize("inclusive", [True, False], ids=["inclusive", "exclusive"])
@pytest.mark.parametrize("op", ["min", "max"])
@pytest.mark.parametrize("dtype", _dtypes.NUMERIC, ids=lambda d: d.name)
def test_scan_min_max(dtype, op, inclusive, rng, schedule):
    n = 9000
    x = make(rng, n, dtype)
    off = ragged_offsets(rng, n, 100)
    got = prim.segmented_scan(x, offsets=off, op=op, inclusive=inclusive)
    close(got, per_segment(x, off, op, np.dtype(dtype), inclusive), np.dtype(dtype), x, off, True)


# boundaries at and around every power-of-two tile size from 2048: segments that end or start
# exactly at a tile's edge, empty segments there, tiles inside one segment, trailing empties
EDGES = [
    0,
    2047,
    2048,
    2048,
    2049,
    4095,
    4096,
    4096,
    4097,
    8191,
    8192,
    8192,
    16384,
    40961,
    57344,
    57345,
]


@pytest.mark.parametrize("op", ["sum", "max"])
def test_tile_edges(op, rng, schedule):
    n = 57345
    x = make(rng, n, np.int64)
    off = np.array(EDGES + [n, n], np.int64)
    acc = np.dtype(np.int64)
    H.assert_same(prim.segmented_reduce(x, off, op), reduce_segments(x, off, op, acc))
    for inclusive in (True, False):
        H.assert_same(
            prim.segmented_scan(x, offsets=off, op=op, inclusive=inclusive),
            per_segment(x, off, op, acc, inclusive),
        )
    # partial coverage: nothing before 2047 or from 40961 on counts
    part = np.array(EDGES[1:14], np.int64)
    H.assert_same(prim.segmented_reduce(x, part, op), reduce_segments(x, part, op, acc))


@pytest.mark.parametrize("dtype", [np.int64, np.float32], ids=lambda d: np.dtype(d).name)
def test_reduce_crowded_tile(dtype, rng, schedule):
    """More than 2^16 offsets in one tile (empty segments piled on a few positions): the
    reduction finds segment indices by searching instead of its per-tile table."""
    n = 20000
    x = make(rng, n, dtype)
    off = np.concatenate(
        [
            [0, 1, 100],
            np.full(70000, 5000),
            [5001, 6000],
            np.full(30000, 8191),
            [8192, 8193],
            np.full(3, n),
        ]
    ).astype(np.int64)
    acc = np.dtype(np.float32 if np.dtype(dtype).kind == "f" else np.int64)
    got = prim.segmented_reduce(x, off)
    close(got, reduce_segments(x, off, "sum", acc), acc, x, off, False)
    part = off[1:-3]  # partial coverage: nothing before 1 or from 8193 on counts
    close(
        prim.segmented_reduce(x, part, "max"),
        reduce_segments(x, part, "max", acc),
        acc,
        x,
        part,
        False,
    )


def test_unaligned_views(rng, schedule):
    n = 20001
    x = make(rng, n + 1, np.float32)[1:]  # 4 bytes past a 16-byte boundary
    flags = np.zeros(n + 3, bool)[3:]
    off = ragged_offsets(rng, n, 300)
    flags[off[:-1][off[:-1] < n]] = True
    want = per_segment(x, off, "sum", np.dtype(np.float32), True)
    close(prim.segmented_scan(x, flags=flags), want, np.dtype(np.float32), x, off, True)
    close(prim.segmented_scan(x, offsets=off), want, np.dtype(np.float32), x, off, True)
    close(
        prim.segmented_reduce(x, off),
        reduce_segments(x, off, "sum", np.dtype(np.float32)),
        np.dtype(np.float32),
        x,
        off,
        False,
    )


@pytest.mark.parametrize("op", ["sum", "min"])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float64], ids=lambda d: d.__name__)
def test_reduce_device_arrays(dtype, op, rng, on_gpu):
    """Device input, unchecked: the common call, which skips the general input conversion, and
    a strided view and int32 offsets, which take it."""
    if not on_gpu:
        pytest.skip("device arrays need the CUDA backend")
    import cupy

    n = 50001
    x = make(rng, n, dtype)
    off = ragged_offsets(rng, n, 200)
    acc = np.dtype(_dtypes.sum_dtype(dtype) if op == "sum" else dtype)
    want = reduce_segments(x, off, op, acc)
    xd, od = cupy.asarray(x), cupy.asarray(off)
    for a, o in ((xd, od), (cupy.asarray(np.repeat(x, 2))[::2], od), (xd, od.astype(np.int32))):
        got = prim.segmented_reduce(a, o, op, check=False)
        assert isinstance(got, cupy.ndarray)
        close(got, want, acc, x, off, False)


def test_unchecked_invalid_offsets_stay_in_bounds():
    # check=False with invalid offsets: unspecified values, but the right shape and no fault
    x = np.ones(10000, np.float32)
    assert prim.segmented_reduce(x, [0, 9000, 10, 10000], check=False).shape == (3,)
    assert prim.segmented_reduce(x, [-5, 20000, 30000], check=False).shape == (2,)
    assert prim.segmented_scan(x, offsets=[0, 9000, 10, 20000], check=False).shape == (10000,)


def test_flags_start_at_zero_implicitly(rng):
    x = np.arange(1, 11, dtype=np.int32)
    flags = np.zeros(10, bool)
    flags[4] = True
    H.assert_same(
        prim.segmented_scan(x, flags=flags),
        np.array([1, 3, 6, 10, 5, 11, 18, 26, 35, 45], np.int64),
    )


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), op=st.sampled_from(["sum", "min", "max"]))
def test_property(data, op):
    n = data.draw(st.integers(1, 6000))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    x = make(rng, n, np.int64)
    off = ragged_offsets(rng, n, data.draw(st.sampled_from([1, 8, 300])))
    acc = np.dtype(np.int64)
    H.assert_same(prim.segmented_reduce(x, off, op), reduce_segments(x, off, op, acc))
    H.assert_same(prim.segmented_scan(x, offsets=off, op=op), per_segment(x, off, op, acc, True))


def test_repeat_calls_take_the_filed_plan(rng):
    """Calls on arrays like an earlier call's find its plan by their arguments (no new plan, the
    same answers; checked offsets are still checked); other arrays take the checked path and bad
    arguments are still refused."""
    xp = _backend.get_backend().xp
    prim.clear_caches()
    n = 20000
    x, y = make(rng, n, np.float32), make(rng, n, np.float32)
    off, off2 = ragged_offsets(rng, n, 300), ragged_offsets(rng, n, 300)[:50]
    off2 = np.concatenate([off2, [n]])
    flags = np.zeros(n, bool)
    flags[off[:-1][off[:-1] < n]] = True
    f32 = np.dtype(np.float32)
    d, e, o, o2, fl = (xp.asarray(a) for a in (x, y, off, off2, flags))
    for check in (True, False):
        prim.segmented_reduce(d, o, check=check)
        prim.segmented_scan(d, offsets=o, check=check)
        prim.segmented_scan(d, flags=fl, inclusive=False)
        builds = prim.cache_info()["builds"]
        close(
            prim.segmented_reduce(e, o, check=check),
            reduce_segments(y, off, "sum", f32),
            f32,
            y,
            off,
            False,
        )
        close(
            prim.segmented_scan(e, offsets=o, check=check),
            per_segment(y, off, "sum", f32, True),
            f32,
            y,
            off,
            True,
        )
        close(
            prim.segmented_scan(e, flags=fl, inclusive=False),
            per_segment(y, off, "sum", f32, False),
            f32,
            y,
            off,
            True,
        )
        assert prim.cache_info()["builds"] == builds
    # another number of segments (the pre-pass launch follows it), int32 offsets, a strided x
    close(
        prim.segmented_reduce(e, o2, check=False),
        reduce_segments(y, off2, "sum", f32),
        f32,
        y,
        off2,
        False,
    )
    close(
        prim.segmented_reduce(e, o.astype(np.int32)),
        reduce_segments(y, off, "sum", f32),
        f32,
        y,
        off,
        False,
    )
    z = xp.asarray(np.repeat(y, 2))[::2]
    close(prim.segmented_reduce(z, o), reduce_segments(y, off, "sum", f32), f32, y, off, False)
    bad = xp.asarray(np.array([0, 5, 3] + [n] * (off.size - 3), np.int64))
    with pytest.raises(ValueError, match="non-decreasing"):
        prim.segmented_reduce(e, bad)
    with pytest.raises(ValueError, match="non-decreasing"):
        prim.segmented_scan(e, offsets=bad)
    with pytest.raises(ValueError, match="op must be one of"):
        prim.segmented_reduce(e, o, op="prod")
    with pytest.raises(ValueError, match="flags has"):
        prim.segmented_scan(e, flags=fl[1:])


def test_explicit_plan(rng):
    """``prim.plan`` of both functions equals them on like arrays and on others; bound flags or
    offsets of segmented_scan are checked once, when the plan is made."""
    n = 9000
    x = make(rng, n, np.int64)
    off = ragged_offsets(rng, n, 100)
    p = prim.plan(prim.segmented_reduce, x, off, "max")
    q = prim.segmented_scan.plan(x, offsets=off, inclusive=False)
    r = prim.plan(prim.segmented_reduce, x, off, check=False)
    acc = np.dtype(np.int64)
    for m, dt in ((n, np.int64), (n, np.int32), (400, np.int64)):
        y = make(rng, m, dt)
        o = off if m == n else ragged_offsets(rng, m, 10)
        want_acc = np.dtype(dt)
        H.assert_same(p(y, o), reduce_segments(y, o, "max", want_acc))
        H.assert_same(r(y, o), reduce_segments(y, o, "sum", acc))
        if m == n:
            H.assert_same(q(y), per_segment(y, off, "sum", acc, False))
    with pytest.raises(ValueError, match="non-decreasing"):
        p(x, off[::-1].copy())


def test_offsets_read_once_per_call_and_the_variant_chosen_once(rng, monkeypatch):
    """With ``check=True`` the offsets' values are read once per call (a first call's by its
    prepare step, a repeat call's by its run), a plan of segmented_scan reads its bound offsets
    once, when it is made, a plan of segmented_reduce each call's; ``check=False`` reads none.
    The reduction's variant is chosen once per plan, never by a repeat call."""
    from primitives._core import offsets as _offs
    from primitives.segmented import _choose

    reads, chosen = [], []
    check, choose = _offs.check_values, _choose.reduction
    monkeypatch.setattr(_offs, "check_values", lambda *a, **k: reads.append(1) or check(*a, **k))
    monkeypatch.setattr(_choose, "reduction", lambda *a: chosen.append(a) or choose(*a))
    xp = _backend.get_backend().xp
    prim.clear_caches()
    n = 6000
    h, off = make(rng, n, np.int64), ragged_offsets(rng, n, 60)
    x, o = xp.asarray(h), xp.asarray(off)
    acc = np.dtype(np.int64)
    for k in range(3):
        H.assert_same(prim.segmented_reduce(x, o), reduce_segments(h, off, "sum", acc))
        H.assert_same(prim.segmented_scan(x, offsets=o), per_segment(h, off, "sum", acc, True))
        assert len(reads) == 2 * (k + 1)
    assert len(chosen) == 1
    for _ in range(2):
        prim.segmented_reduce(x, o, check=False)
        prim.segmented_scan(x, offsets=o, check=False)
    assert len(reads) == 6 and len(chosen) == 2  # another key: prepared once
    q = prim.segmented_scan.plan(x, offsets=o, inclusive=False)
    p = prim.plan(prim.segmented_reduce, x, o, "max")
    assert len(reads) == 8 and len(chosen) == 3
    for k in range(3):
        H.assert_same(q(x), per_segment(h, off, "sum", acc, False))
        H.assert_same(p(x, o), reduce_segments(h, off, "max", acc))
        assert len(reads) == 8 + k + 1
    assert len(chosen) == 3
    bad = xp.asarray(off[::-1].copy())
    with pytest.raises(ValueError, match="non-decreasing"):  # a repeat call checks its own
        prim.segmented_scan(x, offsets=bad)


def test_bad_plan_arguments_raise_at_plan_time():
    x = np.ones(10, np.float32)
    H.raises_like(
        ValueError, "segmented_scan", prim.plan, prim.segmented_scan, x, match="exactly one of"
    )
    H.raises_like(
        ValueError,
        "segmented_scan",
        prim.segmented_scan.plan,
        x,
        offsets=[0, 5],
        match="start at 0 and end at x.size",
    )
    H.raises_like(
        ValueError,
        "segmented_reduce",
        prim.plan,
        prim.segmented_reduce,
        x,
        np.array([0, 5, 3, 10]),
        match="non-decreasing",
    )
    H.raises_like(
        ValueError,
        "segmented_reduce",
        prim.segmented_reduce.plan,
        x,
        np.array([0, 10]),
        "prod",
        match="op must be one of",
    )


# ---- byte order ---------------------------------------------------------------------------------

BYTE_ORDER_OFFSETS = [0, 3, 250, 251, 700]  # non-empty segments: numpy.ufunc.reduceat's twin


def _scan_segments(accumulate, x, offsets):
    return np.concatenate([accumulate(x[a:b]) for a, b in zip(offsets[:-1], offsets[1:])])


# name -> body(xp, x, offsets): a segmented function and its NumPy twin
BYTE_ORDER_CALLS = {
    "segmented_reduce": lambda xp, x, o: (
        np.add.reduceat(x, o[:-1]) if xp is np else xp.segmented_reduce(x, o)
    ),
    "segmented_reduce min": lambda xp, x, o: (
        np.minimum.reduceat(x, o[:-1]) if xp is np else xp.segmented_reduce(x, o, "min")
    ),
    "segmented_scan offsets": lambda xp, x, o: (
        _scan_segments(np.cumsum, x, o) if xp is np else xp.segmented_scan(x, offsets=o)
    ),
    "segmented_scan flags max": lambda xp, x, o: (
        _scan_segments(np.maximum.accumulate, x, o)
        if xp is np
        else xp.segmented_scan(x, flags=np.isin(np.arange(x.size), o), op="max")
    ),
}


@pytest.mark.parametrize("offsets_dtype", ["<i8", ">i4"])
@pytest.mark.parametrize("dtype", [">f8", ">i4", ">u8"])
@pytest.mark.parametrize("name", list(BYTE_ORDER_CALLS))
def test_non_native_byte_order(name, dtype, offsets_dtype, rng):
    """``x`` and ``offsets`` of non-native byte order give NumPy's native results, also after a
    call on native arrays of the same shapes (whose filed plan must not read the swapped
    bytes)."""
    body = BYTE_ORDER_CALLS[name]
    x = rng.integers(0, 100, 700).astype(dtype)
    o = np.array(BYTE_ORDER_OFFSETS, dtype=offsets_dtype)
    native, o_native = x.astype(x.dtype.newbyteorder("=")), o.astype(np.int64)
    H.assert_same(body(prim, native, o_native), body(np, native, o_native))  # files the plan
    H.run_twins(body, (x, o))
    H.run_twins(body, (x, o_native))
    H.run_twins(body, (native, o))


# ---- errors ----------------------------------------------------------------------------------------


def test_flags_and_offsets_exclusive():
    x = np.ones(4, np.float32)
    H.raises_like(ValueError, "segmented_scan", prim.segmented_scan, x, match="exactly one of")
    H.raises_like(
        ValueError,
        "segmented_scan",
        prim.segmented_scan,
        x,
        flags=np.ones(4, bool),
        offsets=[0, 4],
        match="exactly one of",
    )


def test_flags_wrong():
    x = np.ones(4, np.float32)
    H.raises_like(
        TypeError,
        "segmented_scan",
        prim.segmented_scan,
        x,
        flags=np.ones(4, np.int32),
        match="flags must be a boolean array",
    )
    H.raises_like(
        ValueError,
        "segmented_scan",
        prim.segmented_scan,
        x,
        flags=np.ones(3, bool),
        match="flags has 3 elements, x has 4",
    )


@pytest.mark.parametrize(
    "exc,offsets,match",
    [
        (ValueError, [0, 5, 3, 10], "non-decreasing"),
        (ValueError, [0, 11], r"lie in \[0, 10\]"),
        (ValueError, [-1, 4], r"lie in \[0, 10\]"),
        (TypeError, np.array([0.0, 10.0]), "offsets must be an integer array"),
        (ValueError, np.array([], np.int64), "at least one value"),
        (ValueError, np.zeros((2, 2), np.int64), "must be 1-D"),
    ],
)
def test_offsets_wrong(exc, offsets, match):
    H.raises_like(
        exc,
        "segmented_reduce",
        prim.segmented_reduce,
        np.ones(10, np.float32),
        offsets,
        match=match,
    )


@pytest.mark.parametrize("offsets", [[], ()], ids=["list", "tuple"])
@pytest.mark.parametrize("func", ["segmented_reduce", "segmented_scan"])
def test_empty_offsets_sequence(func, offsets):
    """An empty list or tuple is an empty integer sequence (not NumPy's float64 array): the
    empty-offsets ValueError, from the function and from its plan."""
    x = np.ones(10, np.float32)
    f = getattr(prim, func)
    if func == "segmented_reduce":
        args, kwargs = (x, offsets), {}
    else:
        args, kwargs = (x,), {"offsets": offsets}
    H.raises_like(ValueError, func, f, *args, match="at least one value", **kwargs)
    H.raises_like(ValueError, func, f.plan, *args, match="at least one value", **kwargs)


@pytest.mark.parametrize("flags", [[], ()], ids=["list", "tuple"])
def test_empty_flags_sequence(flags):
    """An empty list or tuple of flags is an empty boolean array: the scan of an empty ``x``."""
    H.assert_same(
        prim.segmented_scan(np.zeros(0, np.float32), flags=flags), np.zeros(0, np.float32)
    )
    H.assert_same(
        prim.segmented_scan(np.zeros(0, np.int32), flags=flags, op="max"), np.zeros(0, np.int32)
    )


def test_offsets_not_covering():
    H.raises_like(
        ValueError,
        "segmented_scan",
        prim.segmented_scan,
        np.ones(10, np.float32),
        offsets=[0, 5],
        match="start at 0 and end at x.size",
    )


def test_x_wrong():
    H.raises_like(
        ValueError,
        "segmented_reduce",
        prim.segmented_reduce,
        np.ones((2, 2), np.float32),
        [0, 4],
        match="x must be 1-D",
    )
    H.raises_like(
        TypeError,
        "segmented_reduce",
        prim.segmented_reduce,
        np.ones(4, np.float16),
        [0, 4],
        match="x has dtype",
    )
    H.raises_like(
        ValueError,
        "segmented_reduce",
        prim.segmented_reduce,
        np.ones(4, np.float32),
        [0, 4],
        op="prod",
        match="op must be one of",
    )


def test_tuning_variants_agree(capsys, monkeypatch):
    """The policies and kernel variants tools/tune/segmented.py compares (searched tile bounds,
    the tile prefix not overlapped, other block shapes) give the peers' answers (small n): every
    other policy of each kind, the day's parity choosing which half (each policy's
    instantiations compile on the emulator), every policy within two days."""
    import datetime

    from tools.tune import segmented as tune

    seed = datetime.date.today().toordinal()
    half = seed % 2
    monkeypatch.setattr(tune, "REDUCE_POLICIES", tune.REDUCE_POLICIES[half::2])
    monkeypatch.setattr(tune, "SEGMENT_POLICIES", tune.SEGMENT_POLICIES[half::2])
    monkeypatch.setattr(tune, "SCAN_POLICIES", tune.SCAN_POLICIES[half::2])
    tune.main(13)
    out = capsys.readouterr().out
    want = 3 + 3 * (len(tune.REDUCE_POLICIES) + len(tune.SEGMENT_POLICIES))
    want += 3 * 2 * len(tune.SCAN_POLICIES)
    assert out.count("ok=True") >= want and "ok=False" not in out, (f"day {seed}", out)

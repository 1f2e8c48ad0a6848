"""searchsorted against numpy.searchsorted: every variant, dtype and side, awkward sizes, mixed
dtypes, sorter, shapes and scalars, unsorted input, plans, and one test per error branch."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import primitives as prim
from primitives._core import backend as _backend, dtypes as _dtypes, lookback as _lookback
from primitives.searching import DTYPES, VARIANTS
from primitives.searching import _plans as _sp
from primitives.testing import harness as H

SIDES = ["left", "right"]
# tiles of the cached kernel: 256 threads x 4 queries
TILE = 1024
SIZES = [1, 2, 31, 32, 33, 255, 256, 257, 4095, 4096, 4097]
QUERIES = [1, 31, 33, TILE - 1, TILE + 1]


def sorted_data(rng, n, dt):
    """n sorted elements of ``dt`` with runs of equal values (and NaNs last for floats)."""
    dt = np.dtype(dt)
    if dt == np.bool_:
        return np.sort(rng.random(n) < 0.5)
    if (
        dt.kind == "c"
    ):  # every class of NumPy's order: no NaN part, R + nan j, nan + R j, nan + nan j
        return np.sort(_complex(rng, n, dt))
    if _dtypes.is_float(dt):
        a = np.round(rng.standard_normal(n) * 50).astype(dt)
        a[rng.random(n) < 0.05] = np.nan
        if n > 2:
            a[:2] = [-0.0, 0.0]
        return np.sort(a)
    info = np.iinfo(dt)
    lo, hi = max(info.min, -200), min(info.max, 200)
    a = np.sort(rng.integers(lo, hi, n, dtype=dt, endpoint=True))
    if n > 2:
        a[0], a[-1] = info.min, info.max  # the extremes
        a = np.sort(a)
    return a


def _complex(rng, n, dt):
    """n complex numbers with few distinct parts (equal real parts order by imag), -0.0 parts,
    infinities and NaNs in either part."""
    part = np.array([-np.inf, -2.0, -0.0, 0.0, 1.0, 3.0, np.inf, np.nan])
    out = np.empty(n, dt)
    out.real = rng.choice(part, n, p=[0.05, 0.2, 0.1, 0.1, 0.2, 0.2, 0.05, 0.1])
    out.imag = rng.choice(part, n)
    return out


def queries(rng, a, m):
    """m queries of a's dtype: elements of a, values between and beyond them (NaN, -0.0)."""
    dt = a.dtype
    if dt == np.bool_:
        return rng.random(m) < 0.5
    if dt.kind == "c":
        q = _complex(rng, m, dt)
    elif _dtypes.is_float(dt):
        q = (rng.standard_normal(m) * 60).astype(dt)
        q[rng.random(m) < 0.05] = np.nan
        q[rng.random(m) < 0.05] = -0.0
        q[rng.random(m) < 0.05] = np.inf
    else:
        info = np.iinfo(dt)
        q = rng.integers(max(info.min, -250), min(info.max, 250), m, dtype=dt, endpoint=True)
    hit = rng.random(m) < 0.4
    q[hit] = rng.choice(a, int(hit.sum()))
    return q


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_dtypes(dtype, variant, side, rng):
    a = sorted_data(rng, 3000, dtype)
    v = queries(rng, a, 700)
    got = prim.searchsorted(a, v, side, variant=variant)
    H.assert_same(got, np.searchsorted(a, v, side), what=f"{dtype} {variant} {side}")


@pytest.mark.parametrize("m", QUERIES)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_sizes(variant, n, m, rng):
    a = sorted_data(rng, n, np.float32)
    v = queries(rng, a, m)
    for side in SIDES:
        H.assert_same(
            prim.searchsorted(a, v, side, variant=variant),
            np.searchsorted(a, v, side),
            what=f"n={n} m={m} {side}",
        )


@pytest.mark.parametrize("variant", ["cached", "indexed", "sorted", "bucketed"])
def test_race_schedule(variant, rng, schedule):
    """The one barrier (after the tree's copy) under the race-exposing schedule."""
    a = sorted_data(rng, 5000, np.int32)
    v = queries(rng, a, 2 * TILE + 3)
    H.assert_same(prim.searchsorted(a, v, variant=variant), np.searchsorted(a, v))


@pytest.mark.parametrize("bucket_queries", [1, 1 << 10])
@pytest.mark.parametrize("bucket_bytes", [16, 1 << 10, 48 << 10])
@pytest.mark.parametrize("n", [1, 3, 1000, 40000])
def test_buckets(n, bucket_bytes, bucket_queries, rng):
    """Buckets whose part of a fits the shared memory and buckets searched in global memory;
    buckets of paths that end above the bucket level (n below 2^levels), empty buckets."""
    a = sorted_data(rng, n, np.float32)
    v = queries(rng, a, 2500)
    with prim.tuning.override(
        "search", bucket_bytes=bucket_bytes, bucket_queries=bucket_queries, bucket_max_levels=10
    ):
        for side in SIDES:
            H.assert_same(
                prim.searchsorted(a, v, side, variant="bucketed"),
                np.searchsorted(a, v, side),
                what=f"{bucket_bytes} {side}",
            )


@pytest.mark.parametrize("tree_bytes", [16, 64, 1 << 16])
@pytest.mark.parametrize("dtype", [np.uint8, np.int64, np.float64], ids=lambda d: d.__name__)
def test_tree_levels(dtype, tree_bytes, rng):
    """Tree of 1 to 15 levels: searches that end in shared memory and searches that go on in
    global memory (a deeper than the tree)."""
    a = sorted_data(rng, 6000, dtype)
    v = queries(rng, a, 1100)
    with prim.tuning.override("search", tree_bytes=tree_bytes, bucket_bytes=64, tile_bytes=64):
        for variant in ("cached", "sorted", "bucketed"):
            for side in SIDES:
                H.assert_same(
                    prim.searchsorted(a, v, side, variant=variant),
                    np.searchsorted(a, v, side),
                    what=f"{tree_bytes} {variant} {side}",
                )


@pytest.mark.parametrize("index_bytes", [16, 256, 1 << 16])
@pytest.mark.parametrize(
    "dtype", [np.uint8, np.int16, np.float32, np.int64, np.float64], ids=lambda d: d.__name__
)
def test_index_levels(dtype, index_bytes, rng):
    """The indexed variant's levels: a top of 16 entries (up to four levels of groups below it),
    a few hundred and all of a in shared memory; sizes that leave the last group of every level
    part full, ties across groups, and a that starts off a 16-byte boundary (its groups read
    element by element). No near tiles (near_bytes 0): every query goes through the index."""
    xp = _backend.get_backend().xp
    with prim.tuning.override("search", index_bytes=index_bytes, near_bytes=0):
        for n in (1, 17, 16 * 16 * 16 + 1, 6000):
            base = sorted_data(rng, n + 1, dtype)
            v = queries(rng, base, 1100)
            for a in (base[:n], xp.asarray(base)[1:]):
                ha = H.to_host(a)
                for side in SIDES:
                    H.assert_same(
                        prim.searchsorted(a, xp.asarray(v), side, variant="indexed"),
                        np.searchsorted(ha, v, side),
                        what=f"{n} {side}",
                    )
    # runs of one value much longer than a group: every level's groups hold only ties
    a = np.repeat(np.arange(5, dtype=dtype), 1000)
    v = np.arange(-1, 7).astype(dtype)
    with prim.tuning.override("search", index_bytes=64, near_bytes=0):
        for side in SIDES:
            H.assert_same(
                prim.searchsorted(a, v, side, variant="indexed"),
                np.searchsorted(a, v, side),
                what=f"ties {side}",
            )


def _near_queries(rng, a, m, kind):
    """m queries of a's dtype in one of the orders the near tiles are for: sorted, sorted with
    a few swaps, sorted runs in random order, sorted descending, or random."""
    v = np.sort(queries(rng, a, m))
    if kind == "swapped":
        i = rng.integers(0, m, max(1, m // 200))
        j = np.minimum(i + rng.integers(1, 40, i.size), m - 1)
        v[i], v[j] = v[j], v[i]
    elif kind == "runs":
        runs = np.array_split(v, 7)
        v = np.concatenate([runs[k] for k in rng.permutation(len(runs))])
    elif kind == "descending":
        v = v[::-1].copy()
    elif kind == "random":
        v = rng.permutation(v)
    return v


@pytest.mark.parametrize("kind", ["sorted", "swapped", "runs", "descending", "random"])
@pytest.mark.parametrize(
    "dtype",
    [
        np.bool_,
        np.uint8,
        np.int16,
        np.float16,
        _dtypes.BFLOAT16,
        np.float32,
        np.int64,
        np.complex64,
    ],
    ids=lambda d: np.dtype(d).name,
)
def test_near_tiles(dtype, kind, rng):
    """The indexed variant's near tiles (search_tile_range, search_near): a tile of queries whose
    range (from its first query's answer to the next tile's first's, the last query's for the
    last tile) spans at most near_bytes of a bisects that range alone, copied into shared memory
    (answers outside it, of unsorted queries, found past its ends); the others go through the
    index.
    Queries sorted, nearly sorted, in sorted runs, descending and random, with NaNs, duplicates
    and values past both ends; spans that make some tiles near and others not (and a tile count
    that leaves the last tile part full); each number of groups of the ranges' warps. The bounds
    kernel's ranges are checked against NumPy's answers of those two queries of each tile."""
    xp = _backend.get_backend().xp
    n, m = 5000, 2 * 512 + 300  # search_indexed's tiles: 256 x 2 queries
    a = sorted_data(rng, n, dtype)
    kdt = _sp.SEARCHED_AS.get(a.dtype, a.dtype)  # the kernels' dtype (float16: float32)
    v = _near_queries(rng, a, m, kind)
    mid = kdt.itemsize * n * 6 // 10  # a sorted tile's range (about 0.39 n) in, a random one's out
    # a top level of 64 entries (two levels of groups below it), and all of a (none)
    cases = [(64, 256, g) for g in (2, 4, 8)] + [
        (mid, 256, 4),
        (mid, 256, 8),
        (1 << 16, 1 << 16, 4),
    ]
    for near, top, groups in cases:
        policy = dict(near_bytes=near, index_bytes=top, range_groups=groups)
        with prim.tuning.override("search", **policy):
            for side in SIDES:
                got = prim.searchsorted(a, xp.asarray(v), side, variant="indexed")
                H.assert_same(got, np.searchsorted(a, v, side), what=f"{kind} {near} {side}")
                plan = _sp.search_plan(_backend.get_backend(), kdt, n, m, "indexed")
                bounds = H.to_host(plan.bounds).reshape(-1, 2)
                ends = [(t, min(t + 512, m - 1)) for t in range(0, m, 512)]
                want = np.array([np.searchsorted(a, v[[f, e]], side) for f, e in ends])
                # a tile found wide at the top level is (0, n): its answers truly are further
                # apart than near_bytes; the others' bounds are the answers
                wide = (bounds[:, 0] == 0) & (bounds[:, 1] == n)
                wide &= (want[:, 0] != 0) | (want[:, 1] != n)  # not the true answers
                assert np.array_equal(bounds[~wide], want[~wide]), (kind, near, groups, side)
                apart = np.abs(want[:, 1] - want[:, 0])
                assert (apart[wide] > near // kdt.itemsize).all(), (kind, near, groups)
                spans = np.abs(bounds[:, 1] - bounds[:, 0])
                if near == 1 << 16:  # a's 5000 elements fit: every tile is near
                    assert (spans <= near // kdt.itemsize).all()
                if near == mid and dtype != np.bool_:  # both paths in one call
                    if kind in ("sorted", "descending"):
                        assert (spans <= near // kdt.itemsize).sum() >= 2, spans
                if near == 64 and kind == "sorted" and kdt.itemsize >= 4:  # stopped at the top
                    assert wide.sum() >= 2, spans


@pytest.mark.parametrize("prefetch", [0, 1])
@pytest.mark.parametrize("kind", ["sorted", "runs", "random"])
def test_near_tiles_many_small(kind, prefetch, rng):
    """Tiles of 32 queries (32 x 1): more tiles than the near kernel's blocks read the bounds of
    at once (a thread a tile, BLOCK at a time; 128 blocks on the emulator), near and far tiles
    mixed in each batch; with and without the L2 hint of each batch's next near tile
    (near_prefetch: the same answers; its span past a's ends clipped)."""
    a = sorted_data(rng, 30000, np.float32)
    v = _near_queries(rng, a, 4200 * 32 + 17, kind)  # over 128 blocks x 32 tiles
    policy = dict(near_bytes=1024, index_block=32, index_items=1, near_prefetch=prefetch)
    with prim.tuning.override("search", **policy):
        for side in SIDES:
            got = prim.searchsorted(a, v, side, variant="indexed")
            H.assert_same(got, np.searchsorted(a, v, side), what=f"{kind} {side}")


def test_near_tiles_gate_the_index(rng):
    """With every tile near, the index's build and the indexed search return at once (gated on
    the device: search_tile_range marks a call that has a tile not near with the call's epoch);
    calls of sorted and random queries on one plan, in turn, each get NumPy's answers, so a
    mark left by an earlier call gates nothing later."""
    a = sorted_data(rng, 30000, np.float32)
    m = 4000
    sorted_v = _near_queries(rng, a, m, "sorted")
    random_v = _near_queries(rng, a, m, "random")
    with prim.tuning.override("search", near_bytes=32768, index_bytes=256):
        plan = _sp.search_plan(_backend.get_backend(), np.dtype(np.float32), a.size, m, "indexed")
        assert plan.build is not None  # a has levels above it
        for kind in ("sorted", "random", "sorted", "random", "random", "sorted"):
            v = sorted_v if kind == "sorted" else random_v
            for side in SIDES:
                got = prim.searchsorted(a, v, side, variant="indexed")
                H.assert_same(got, np.searchsorted(a, v, side), what=f"{kind} {side}")
                gated_open = int(H.to_host(plan.far)[0]) == plan.epoch
                assert gated_open == (kind == "random"), (kind, side)
        # at the epoch limit the mark is cleared and the epochs start again
        plan.epoch = _lookback.EPOCH_LIMIT - 2
        for kind in ("random", "sorted", "sorted"):
            v = sorted_v if kind == "sorted" else random_v
            got = prim.searchsorted(a, v, variant="indexed")
            H.assert_same(got, np.searchsorted(a, v), what=f"{kind} past the limit")
            assert (int(H.to_host(plan.far)[0]) == plan.epoch) == (kind == "random"), kind
        assert 1 <= plan.epoch <= 2


def test_near_tiles_off_and_on_agree(rng):
    """near_bytes 0 takes no bounds (and launches no bounds kernel); the answers are the same."""
    a = sorted_data(rng, 20000, np.float32)
    v = np.sort(queries(rng, a, 3000))
    with prim.tuning.override("search", near_bytes=0):
        off = H.to_host(prim.searchsorted(a, v, variant="indexed"))
        plan = _sp.search_plan(
            _backend.get_backend(), np.dtype(np.float32), a.size, v.size, "indexed"
        )
        assert plan.ranges is None
    on = H.to_host(prim.searchsorted(a, v, variant="indexed"))
    assert np.array_equal(off, on) and np.array_equal(on, np.searchsorted(a, v))


@pytest.mark.parametrize("near_bytes", [0, 1024])
@pytest.mark.parametrize("variant", VARIANTS)
def test_a_plans_kernels_asked_for_at_once(variant, near_bytes, monkeypatch):
    """A plan asks for every kernel it launches (compiled side by side on first use) before it
    loads any, and loads no other."""
    from primitives._core import loader

    events = []
    monkeypatch.setattr(loader, "prefetch", lambda rel, names: events.append(("ask", *names)))
    load = _sp.MODULES.kernel

    def kernel(key, name, pol):
        events.append(("load", name))
        return load(key, name, pol)

    monkeypatch.setattr(_sp.MODULES, "kernel", kernel)
    with prim.tuning.override("search", near_bytes=near_bytes):
        _sp.SearchPlan(
            _backend.get_backend(), np.dtype(np.float32), 5000, 700, variant, _sp._policy.current()
        )
    assert events[0][0] == "ask" and all(e[0] == "load" for e in events[1:])
    assert sorted(e[1] for e in events[1:]) == sorted(events[0][1:])


def test_index_levels_policy():
    pol = _sp._policy.current()
    cap = pol.index_bytes // 4
    assert _sp.index_levels(np.float32, cap, pol) == (0, [cap])
    assert _sp.index_levels(np.float32, cap + 1, pol) == (1, [cap + 1, cap // 16 + 1])
    depth, sizes = _sp.index_levels(np.float32, 1 << 26, pol)
    assert sizes[-1] <= cap < sizes[-2] and sizes[1] == 1 << 22
    assert _sp.index_levels(np.uint8, 1, pol) == (0, [1])


def test_levels_policy():
    pol = _sp._policy.current()
    assert _sp.levels(np.float32, 1 << 26, pol) == (pol.tree_bytes // 4).bit_length() - 1
    assert _sp.levels(np.float32, 5, pol) == 3  # no deeper than the search
    assert _sp.levels(np.float64, 1, pol) == 1
    cap, q = pol.bucket_bytes // 4, pol.bucket_queries
    assert _sp.bucket_levels(np.float32, cap, 1, pol) == 1
    assert _sp.bucket_levels(np.float32, 4 * cap, 1, pol) == 2
    assert _sp.bucket_levels(np.float32, 4 * cap + 1, 1, pol) == 3
    assert _sp.bucket_levels(np.float32, 4 * cap + 1, 16 * q, pol) == 4  # 16 buckets of q
    assert _sp.bucket_levels(np.float32, 1 << 40, 1, pol) == pol.bucket_max_levels
    assert _sp.bucket_levels(np.float32, 5, 1 << 30, pol) == 3  # no deeper than the search


@pytest.mark.parametrize(
    "a_dt,v",
    [
        (np.int8, 1000),
        (np.uint8, -1),
        (np.uint8, [-1, 300, 7]),
        (np.float32, 0.1),
        (np.int64, np.array([2**62 + 2, 3], np.uint64)),
        (np.float16, np.float32(0.1)),
        (np.float16, 0.1),
        (_dtypes.BFLOAT16, np.float32(0.1)),
        (_dtypes.BFLOAT16, np.array([0.1, 2.0], _dtypes.BFLOAT16)),
        (np.bool_, 1),
        (np.bool_, 0.5),
        (np.int32, [np.nan, 2.5, -np.inf]),
        (np.uint64, 2**63 + 2),
        (np.int16, np.array([3], np.uint32)),
        (np.float32, True),
        (np.float32, [1 + 2j, np.nan + 0j]),
        (np.complex64, 0.5),
        (np.int16, np.array([3 - 1j], np.complex64)),
    ],
    ids=str,
)
@pytest.mark.parametrize("side", SIDES)
def test_mixed_dtypes(a_dt, v, side, rng):
    """a and v compared in NumPy's common dtype (Python scalars as their arrays' dtypes)."""
    a = np.sort(
        np.concatenate(
            [
                sorted_data(rng, 50, a_dt),
                np.asarray(
                    [0.1, 1, 2**62 + 1]
                    if np.dtype(a_dt).kind in "fiu" and np.dtype(a_dt).itemsize == 8
                    else [1]
                ).astype(a_dt),
            ]
        )
    )
    H.run_twins(lambda xp: xp.searchsorted(a, v, side), name="searchsorted")


def test_float32_rounding_of_python_float():
    a = np.array([np.float32(0.1)], np.float32)  # compared in float64: 0.1f > 0.1
    for side in SIDES:
        H.run_twins(lambda xp, side=side: xp.searchsorted(a, 0.1, side))


@pytest.mark.parametrize("shape", [(), (0,), (3, 0), (1,), (7, 5), (2, 3, 4)], ids=str)
def test_shapes(shape, rng):
    a = sorted_data(rng, 100, np.float64)
    v = rng.standard_normal(shape) * 60
    H.run_twins(lambda xp: xp.searchsorted(a, v))
    H.run_twins(lambda xp: xp.searchsorted(a, v, "right"))


def test_scalars_and_lists():
    a = np.array([1.0, 2.0, 2.0, 3.0])
    for v in (2.0, 2, np.float32(2.5), np.int64(-1), [2.0, 9.0], [[1, 2], [3, 4]], True):
        got = prim.searchsorted(a, v)
        want = np.searchsorted(a, v)
        H.assert_same(got, want, what=repr(v))
        assert type(got) is type(want), repr(v)
    H.run_twins(lambda xp: xp.searchsorted([1, 2, 3], 2))


def test_empty():
    H.run_twins(lambda xp: xp.searchsorted(np.array([], np.float32), np.array([1.0, 2.0])))
    H.run_twins(lambda xp: xp.searchsorted(np.array([], np.int32), 5))
    H.run_twins(lambda xp: xp.searchsorted(np.arange(5), np.array([], np.int64)))
    H.run_twins(lambda xp: xp.searchsorted([], []))


@pytest.mark.parametrize("sorter_dt", [np.int64, np.int32, np.uint16])
@pytest.mark.parametrize("variant", VARIANTS)
def test_sorter(variant, sorter_dt, rng):
    a = rng.integers(-500, 500, 3000).astype(np.float32)
    order = np.argsort(a).astype(sorter_dt)
    v = queries(rng, np.sort(a), 500)
    for side in SIDES:
        H.assert_same(
            prim.searchsorted(a, v, side, order, variant=variant),
            np.searchsorted(a, v, side, order),
        )


@pytest.mark.parametrize("variant", VARIANTS)
def test_unsorted_a_stays_in_bounds(variant, rng):
    """Undefined results for an unsorted a, but always indices in [0, n], and no hang."""
    for n in (1, 7, 1000, 5000):
        a = rng.standard_normal(n)
        a[rng.random(n) < 0.1] = np.nan
        v = rng.standard_normal(3000)
        for side in SIDES:
            got = H.to_host(prim.searchsorted(a, v, side, variant=variant))
            assert got.dtype == np.int64 and got.min() >= 0 and got.max() <= n


def test_inputs_not_modified(rng):
    a = sorted_data(rng, 2000, np.float32)
    v = queries(rng, a, 900)
    order = np.arange(2000)
    a0, v0, o0 = a.copy(), v.copy(), order.copy()
    for variant in VARIANTS:
        prim.searchsorted(a, v, "right", order, variant=variant)
        prim.searchsorted(a, v, variant=variant)
    for x, x0 in ((a, a0), (v, v0), (order, o0)):
        assert x.tobytes() == x0.tobytes()


def test_byte_order(rng):
    a = sorted_data(rng, 500, np.float64)
    v = queries(rng, a, 200)
    H.run_twins(lambda xp: xp.searchsorted(a.astype(">f8"), v.astype(">f4"), "right"))


def test_plans_reused(rng):
    """A repeat call on like backend arrays builds no plan; prim.plan gives the same answers."""
    xp = _backend.get_backend().xp
    a = xp.asarray(sorted_data(rng, 3000, np.int32))
    v = xp.asarray(queries(rng, H.to_host(a), 1000))
    want = np.searchsorted(H.to_host(a), H.to_host(v), "right")
    prim.clear_caches()
    for variant in ("auto",) + VARIANTS:
        H.assert_same(prim.searchsorted(a, v, "right", variant=variant), want)
        builds = prim.cache_info()["builds"]
        H.assert_same(prim.searchsorted(a, v, "right", variant=variant), want)
        assert prim.cache_info()["builds"] == builds, variant
        p = prim.plan(prim.searchsorted, a, v, "right", variant=variant)
        H.assert_same(p(a, v), want)
    b = xp.asarray(np.sort(H.to_host(a)[::-1]) + 1)
    H.assert_same(prim.searchsorted(b, v), np.searchsorted(H.to_host(b), H.to_host(v)))
    pb = prim.plan(prim.searchsorted, a.astype(np.bool_), v.astype(np.bool_))
    H.assert_same(
        pb(a.astype(np.bool_), v.astype(np.bool_)),
        np.searchsorted(H.to_host(a).astype(bool), H.to_host(v).astype(bool)),
    )


def test_repeat_calls_choose_the_variant_once(rng, monkeypatch):
    """The variant is chosen where a call is prepared (``_choose.choose``), once per plan: a
    repeat call on like arrays runs the filed plan without choosing again."""
    from primitives.searching import _choose

    chosen = []
    choose = _choose.choose
    monkeypatch.setattr(_choose, "choose", lambda *args: chosen.append(args[0]) or choose(*args))
    xp = _backend.get_backend().xp
    a = xp.asarray(sorted_data(rng, 3000, np.int32))
    v = xp.asarray(queries(rng, H.to_host(a), 1000))
    want = np.searchsorted(H.to_host(a), H.to_host(v))
    prim.clear_caches()
    for _ in range(3):
        H.assert_same(prim.searchsorted(a, v), want)
    assert chosen == ["auto"]
    prim.searchsorted(a, v, "right")  # another side: another call key, prepared again
    assert chosen == ["auto", "auto"]


def test_auto_policy(rng):
    """auto takes the binary search below binary_max_queries queries, else indexed for an a of
    indexed_min_bytes or more (a's bytes in the kernels' dtype: bool's 1, float16's 4) and at
    most indexed_max_ratio elements per query, else cached."""
    a = sorted_data(rng, 2000, np.float32)
    v = queries(rng, a, 1500)
    h, b = a.astype(np.float16), a > 0
    cases = [
        (a, v, 8000, 2, 0, "indexed"),
        (a, v, 8001, 2, 0, "cached"),
        (a, v, 0, 2, 1501, "binary"),
        (a, v, 8001, 2, 1500, "cached"),
        (a, v, 8000, 1, 0, "cached"),
        (a, v[:1000], 8000, 2, 0, "indexed"),
        (a, v[:999], 8000, 2, 0, "cached"),
        (h, v.astype(np.float16), 8000, 2, 0, "indexed"),
        (b, v > 0, 2000, 2, 0, "indexed"),
        (b, v > 0, 2001, 2, 0, "cached"),
    ]
    for a_, v_, limit, ratio, binary, variant in cases:
        prim.clear_caches()
        with prim.tuning.override(
            "search", indexed_min_bytes=limit, indexed_max_ratio=ratio, binary_max_queries=binary
        ):
            H.assert_same(prim.searchsorted(a_, v_), np.searchsorted(a_, v_))
            assert {
                p.variant
                for p in prim._core.plans.PLANS._plans.values()
                if isinstance(p, _sp.SearchPlan)
            } == {variant}, (a_.dtype, limit, binary)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    a=st.lists(st.integers(-20, 20), max_size=60),
    v=st.lists(st.integers(-25, 25), min_size=1, max_size=40),
    side=st.sampled_from(SIDES),
    variant=st.sampled_from(VARIANTS),
)
def test_property(a, v, side, variant):
    a = np.sort(np.array(a, np.int16))
    v = np.array(v, np.int16)
    got = H.to_host(prim.searchsorted(a, v, side, variant=variant))
    assert np.array_equal(got, np.searchsorted(a, v, side))
    # the defining property: a[:i] < v <= a[i:] (left) or a[:i] <= v < a[i:] (right)
    for q, i in zip(v, got):
        assert (a[:i] < q).all() if side == "left" else (a[:i] <= q).all()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    a=st.lists(st.integers(-50, 50), min_size=1, max_size=300),
    v=st.lists(st.integers(-60, 60), min_size=1, max_size=400),
    order=st.sampled_from(["sorted", "swapped", "runs", "descending", "random"]),
    swaps=st.lists(st.tuples(st.integers(0, 399), st.integers(1, 40)), max_size=8),
    side=st.sampled_from(SIDES),
    near=st.sampled_from([16, 64, 4096]),
)
def test_near_tiles_property(a, v, order, swaps, side, near):
    """The near tiles on tiles of 32 queries (many tiles, tasks of the ranges' warps cut short
    at the end) against NumPy: duplicates in a and in the queries, values past both ends, the
    queries sorted, with a few swapped (answers outside a tile's range: the gallop on either
    side), in sorted runs, descending or random, ranges that fit the span or not."""
    a = np.sort(np.array(a, np.float32))
    v = np.sort(np.array(v, np.float32))
    if order == "swapped":
        for i, d in swaps:
            i, j = i % v.size, min(i % v.size + d, v.size - 1)
            v[i], v[j] = v[j], v[i]
    elif order == "runs":
        v = np.concatenate(np.array_split(v, 5)[::-1])
    elif order == "descending":
        v = v[::-1].copy()
    elif order == "random":
        v = np.random.default_rng(len(swaps)).permutation(v)
    policy = dict(near_bytes=near, index_block=32, index_items=1)
    with prim.tuning.override("search", **policy):
        got = prim.searchsorted(a, v, side, variant="indexed")
    H.assert_same(got, np.searchsorted(a, v, side), what=f"{order} {near} {side}")


# ---- errors -----------------------------------------------------------------------------------


def test_error_a_not_1d():
    H.run_twins(lambda xp: xp.searchsorted(np.zeros((2, 2)), 1.0), name="searchsorted")
    H.run_twins(lambda xp: xp.searchsorted(np.float32(1), 1.0), name="searchsorted")


def test_error_bad_side():
    H.run_twins(lambda xp: xp.searchsorted(np.arange(3), 1, "middle"), name="searchsorted")
    H.run_twins(lambda xp: xp.searchsorted(np.arange(3), 1, "L"), name="searchsorted")


def test_error_side_not_str():
    H.run_twins(lambda xp: xp.searchsorted(np.arange(3), 1, None), name="searchsorted")


def test_error_sorter_length():
    H.run_twins(lambda xp: xp.searchsorted(np.arange(3), 1, sorter=[0, 1]), name="searchsorted")


def test_error_sorter_dtype():
    H.run_twins(
        lambda xp: xp.searchsorted(np.arange(3), 1, sorter=[0.0, 1, 2]), name="searchsorted"
    )
    H.run_twins(
        lambda xp: xp.searchsorted(np.arange(3), 1, sorter=[True, False, True]), name="searchsorted"
    )


def test_error_sorter_not_1d():
    H.run_twins(
        lambda xp: xp.searchsorted(np.arange(3), 1, sorter=[[0, 1, 2]]), name="searchsorted"
    )


def test_error_sorter_out_of_range():
    a, v = np.arange(4.0), np.arange(-1.0, 5.0, 0.5)
    H.run_twins(lambda xp: xp.searchsorted(a, v, sorter=[0, 1, 2, 9]), name="searchsorted")
    H.raises_like(
        ValueError,
        "searchsorted",
        prim.searchsorted,
        a,
        v,
        sorter=[-1, 1, 2, 3],
        match="out of range",
    )


@pytest.mark.parametrize(
    "bad", [np.array(["a", "b"]), np.array(["2020-01-01"], "datetime64[D]")], ids=str
)
def test_error_unsupported_dtype_of_a(bad):
    H.raises_like(TypeError, "searchsorted", prim.searchsorted, bad, bad[:1], match="a has dtype")


@pytest.mark.parametrize("bad", [np.array(["a"]), np.array([None], object)], ids=str)
def test_error_unsupported_dtype_of_v(bad):
    H.raises_like(
        TypeError, "searchsorted", prim.searchsorted, np.arange(3.0), bad, match="v has dtype"
    )


def test_error_object_input():
    H.raises_like(TypeError, "searchsorted", prim.searchsorted, np.array([None, 1], object), 1)
    H.raises_like(TypeError, "searchsorted", prim.searchsorted, None, 1)
    H.raises_like(TypeError, "searchsorted", prim.searchsorted, np.arange(3), "a")


def test_error_bad_variant():
    H.raises_like(
        ValueError,
        "searchsorted",
        prim.searchsorted,
        np.arange(3),
        1,
        variant="eytzinger",
        match="variant",
    )


@pytest.mark.skipif(not _backend.get_backend().is_cuda, reason="2^31 elements: GPU only")
def test_past_2_31(on_gpu):
    """Indices past 2^31 (64-bit positions): int8 a of 2^31 + 2^20 elements."""
    import cupy

    n = (1 << 31) + (1 << 20)
    a = cupy.zeros(n, cupy.int8)
    a[(1 << 31) + 5 :] = 1
    v = cupy.asarray(np.array([0, 1, 2], np.int8))
    want = np.array([0, (1 << 31) + 5, n])
    wright = np.array([(1 << 31) + 5, n, n])
    for variant in VARIANTS:
        H.assert_same(prim.searchsorted(a, v, variant=variant), want)
        H.assert_same(prim.searchsorted(a, v, "right", variant=variant), wright)
    del a
    cupy.get_default_memory_pool().free_all_blocks()


@pytest.mark.skipif(not _backend.get_backend().is_cuda, reason="device arrays: GPU only")
def test_device_inputs(rng):
    import cupy

    ha = sorted_data(rng, 1 << 16, np.float32)
    hv = queries(rng, ha, 1 << 14)
    want = np.searchsorted(ha, hv)
    got = prim.searchsorted(cupy.asarray(ha), cupy.asarray(hv))
    assert isinstance(got, cupy.ndarray)
    H.assert_same(got, want)
    assert isinstance(prim.searchsorted(cupy.asarray(ha), hv), cupy.ndarray)
    assert isinstance(prim.searchsorted(ha, cupy.asarray(hv)), cupy.ndarray)
    s = prim.searchsorted(cupy.asarray(ha), 0.5)
    assert isinstance(s, cupy.ndarray) and s.shape == ()

"""topk, argpartition and partition against NumPy oracles built from stable sorts: every variant,
key dtype, awkward row lengths (the tile and the candidate buffers' boundaries), heavy ties, NaNs,
N-D axes; NumPy's partition guarantees (kth positions and the partition property); every error
branch; plans."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import primitives as prim
from primitives._core import backend as _backend, dtypes as _dtypes, keys as _core_keys
from primitives.selection import DTYPES, VARIANTS
from primitives.sorting import sort_rows
from primitives.selection import _choose, _select
from primitives.selection import _plans as _sp
from primitives.testing import harness as H

# one tile of the pass kernel is 256 x 16 = 4096 keys; rows of <= 8192 float32 fit "rows"
LENGTHS = [1, 31, 32, 33, 4095, 4097]
FLOATS = [d for d in DTYPES if d.kind == "f"]


def make(rng, shape, dt, distinct=None):
    """Random keys of ``dt``; ``distinct``: drawn from that many values (ties); floats get NaNs,
    infinities and both zeros."""
    dt = np.dtype(dt)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if distinct is not None:
        x = rng.integers(0, distinct, shape).astype(dt)
    elif _dtypes.is_float(dt):
        x = rng.standard_normal(shape).astype(dt)
    else:
        info = np.iinfo(dt)
        x = rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
    if _dtypes.is_float(dt) and x.size:
        flat = x.reshape(-1)
        pick = rng.integers(0, flat.size, max(1, flat.size // 16))
        flat[pick] = rng.choice(np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], dtype=dt), pick.size)
    return x


def order(x, largest, axis=-1):
    """The oracle: each row's stable order, largest first (NaNs first) or smallest first (NaNs
    last), equal keys by increasing index."""
    x = np.moveaxis(np.asarray(x), axis, -1)
    if x.dtype == np.bool_:
        x = x.astype(np.uint8)
    if not largest:
        return np.argsort(x, axis=-1, kind="stable")
    n = x.shape[-1]
    rev = np.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1]
    return n - 1 - rev


def want_topk(x, k, largest, axis=-1):
    idx = order(x, largest, axis)[..., :k]
    vals = np.take_along_axis(np.moveaxis(x, axis, -1), idx, axis=-1)
    return np.moveaxis(vals, -1, axis), np.moveaxis(idx, -1, axis)


def check(x, k, largest=True, axis=-1, variant="auto"):
    got = prim.topk(x, k, axis=axis, largest=largest, variant=variant)
    H.assert_same(got, want_topk(x, k, largest, axis), what=f"k={k} largest={largest}")
    vals, idx = prim.topk(x, k, axis=axis, largest=largest, sorted=False, variant=variant)
    want_idx = want_topk(x, k, largest, axis)[1]
    srt = np.sort(H.to_host(idx), axis=axis)
    H.assert_same(srt, np.sort(want_idx, axis=axis), what="sorted=False: the same set")
    H.assert_same(vals, np.take_along_axis(x, H.to_host(idx), axis=axis))


#: the largest k of the variants that have one (their default policies)
K_MAX = {"small_k": 256, "warp_rows": 128}


def ks(n, variant=None):
    """Awkward k for a row of n (within the variant's largest k)."""
    out = {0, 1, min(n, 7), n // 2, n}
    return sorted(min(k, K_MAX.get(variant, n)) for k in out)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("n", LENGTHS)
def test_topk_1d_float32(variant, n, rng, schedule):
    x = make(rng, n, np.float32)
    for k in ks(n, variant):
        for largest in (True, False):
            check(x, k, largest, variant=variant)


@pytest.mark.parametrize("dtype", DTYPES + (_dtypes.BFLOAT16,), ids=lambda d: d.name)
@pytest.mark.parametrize("variant", ["warp_rows", "rows", "filter", "small_k", "radix_select"])
def test_topk_dtypes(dtype, variant, rng):
    n = 1000
    x = make(rng, n, dtype)
    for k in (1, 100, K_MAX.get(variant, n)):
        for largest in (True, False):
            check(x, k, largest, variant=variant)


@pytest.mark.parametrize("variant", ["warp_rows", "rows", "small_k", "radix_select"])
@pytest.mark.parametrize("distinct", [1, 2, 50])
def test_ties_take_the_lowest_indices(variant, distinct, rng, schedule):
    """Equal keys: the lowest indices win, and sorted results list them by index. One distinct
    value keeps every key a candidate through the image's digits (the index digits decide)."""
    x = make(rng, 5000 if variant.endswith("rows") else 9000, np.int32, distinct=distinct)
    for k in (1, 33, K_MAX.get(variant, 2500)):
        for largest in (True, False):
            check(x, k, largest, variant=variant)


def test_nan_order_and_bit_patterns():
    """NaN is the largest (first with largest=True, last otherwise); values keep their bits."""
    payload = np.array([0x7FC00001, 0xFFC00002], dtype=np.uint32).view(np.float32)
    x = np.array([1.0, payload[0], -0.0, 0.0, payload[1], -np.inf, np.inf], dtype=np.float32)
    for variant in VARIANTS:
        v, i = prim.topk(x, 3, variant=variant)
        H.assert_same(i, np.array([1, 4, 6]))
        assert v.tobytes() == x[[1, 4, 6]].tobytes()
        v, i = prim.topk(x, 4, largest=False, variant=variant)
        H.assert_same(i, np.array([5, 2, 3, 0]))  # -0.0 and 0.0 equal: by index
        assert v.tobytes() == x[[5, 2, 3, 0]].tobytes()


def test_bfloat16_nan_order_and_bit_patterns():
    """bfloat16 as float32's: NaN the largest, -0.0 and 0.0 equal (by index), values keep their
    bits (NaN payloads and signs); rows along either axis at awkward lengths."""
    bits = np.array([0x3F80, 0x7FC1, 0x8000, 0x0000, 0xFFC2, 0xFF80, 0x7F80], np.uint16)
    x = bits.view(_dtypes.BFLOAT16)
    for variant in VARIANTS:
        v, i = prim.topk(x, 3, variant=variant)
        H.assert_same(i, np.array([1, 4, 6]))
        assert v.dtype == x.dtype and v.tobytes() == x[[1, 4, 6]].tobytes()
        v, i = prim.topk(x, 4, largest=False, variant=variant)
        H.assert_same(i, np.array([5, 2, 3, 0]))
        assert v.tobytes() == x[[5, 2, 3, 0]].tobytes()
    rng = np.random.default_rng(5)
    for shape, axis in (((5, 31), -1), ((4097, 3), 0)):
        x = make(rng, shape, _dtypes.BFLOAT16)
        for k in (1, 5):
            for largest in (True, False):
                got = prim.topk(x, k, axis=axis, largest=largest)
                want = want_topk(x, k, largest, axis)
                H.assert_same(got[1], want[1])
                H.assert_same(got[0].view(np.uint16), want[0].view(np.uint16))


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(
    "shape,axis", [((5, 33), -1), ((5, 33), 0), ((3, 4, 5), 1), ((2, 1, 4097), 2), ((8, 32), 1)]
)
def test_topk_rows(variant, shape, axis, rng):
    x = make(rng, shape, np.float32)
    n = shape[axis]
    for k in (1, min(n, 5), min(n, K_MAX.get(variant, n))):
        check(x, k, True, axis, variant)
        check(x, k, False, axis, variant)


def test_topk_axis_none_and_0d(rng):
    x = make(rng, (7, 9), np.float64)
    H.assert_same(prim.topk(x, 4, axis=None), want_topk(x.reshape(-1), 4, True))
    H.assert_same(prim.topk(np.float32(3.0), 1), (np.array([3.0], np.float32), np.array([0])))


def test_radix_select_buffers_and_sort_paths(rng, schedule):
    """Rows longer than the candidate buffers (a row of one value never fits them); k above
    sort_small (winners ordered by two segmented sorts) and above rows' sort_max."""
    x = make(rng, (2, 20000), np.float32)
    x[1] = 2.5
    with prim.tuning.override("selection", selector="radix_select", sort_small=64):
        for k in (1, 65, 300):
            check(x, k, True, variant="radix_select")
        # the winners ordered as packed 64-bit keys: one row (a sort), many (a segmented sort);
        # 64-bit keys: two stable sorts
        for row in (x[0], x[1], make(rng, 20000, np.float64), make(rng, (2, 9000), np.int64)):
            check(row, 300, False, variant="radix_select")
    with prim.tuning.override("selection", selector="rows", sort_max=8):
        check(x[:, :3000], 100, False, variant="rows")


def _filter_state(x, k, largest=True):
    """The filtered radix plan's state after its sample, filter and done launches on the rows
    ``x`` (R, L) float32: (state rows, candidate indices of row 0)."""
    be = _backend.get_backend()
    xp = be.xp
    x = xp.asarray(x)
    kbits, kind, bits = _core_keys.key_bits(x)
    rows, n = x.shape
    plan = _sp.radix_plan(be, 4, rows, n, k, kind, bits, largest, True, filtered=True)
    be.copy_into(plan.state, plan.init)
    img = xp.empty(rows * plan.cap, dtype=np.uint32)
    idx = xp.empty(rows * plan.cap, dtype=np.int64)
    sample, sargs, filt, fargs, done = plan.filt
    sample(kbits, *sargs, plan.state, plan.kind, plan.desc)
    filt(
        kbits,
        *fargs,
        img,
        idx,
        xp.empty_like(img),
        xp.empty_like(idx),
        plan.cap64,
        plan.state,
        plan.kind,
        plan.desc,
    )
    count = int(H.to_host(plan.state)[0, _sp.FIELDS - 3])  # WRITE_COUNT before done resets it
    done(plan.state, np.int64(rows), plan.k64, plan.cap64)
    return H.to_host(plan.state), H.to_host(idx)[: min(count, plan.cap)]


SRC_BUFFER = 7


def test_filter_keeps_the_winners_or_reads_the_row(rng, schedule):
    """The sample filter's three outcomes, one per row: random keys (the candidates hold the k
    winners: the passes read buffer 0), one value (the candidates overflow the buffer: the row)
    and the sample's positions holding the smallest keys (too few candidates: the row). Each
    result is the oracle's."""
    n, k = 6000, 40
    x = make(rng, (3, n), np.float32)
    x[0] = rng.random(n).astype(np.float32)
    x[1] = 1.5
    with prim.tuning.override("selection", selector="filter", sample=256, min_ratio=4):
        step = [i * n // 256 for i in range(256)]
        x[2] = rng.random(n).astype(np.float32) + 1
        x[2, step] = -np.arange(256, dtype=np.float32)  # the sample: the 256 smallest
        state, cand = _filter_state(x, k, largest=False)
        assert state[:, SRC_BUFFER].tolist() == [1, 0, 0]
        assert set(order(x[0], False)[:k].tolist()) <= set(cand.tolist())
        for variant in ("filter", "auto"):
            check(x, k, False, variant=variant)
            check(x, 1, True, variant=variant)


def test_filter_rank_and_auto_rule():
    assert _sp.sample_rank(16, 1 << 28, 8192, 4.0) == 1
    assert _sp.sample_rank(1024, 1 << 28, 8192, 4.0) == 2
    assert _sp.sample_rank(1 << 20, 1 << 28, 8192, 4.0) == 56
    assert _sp.sample_rank(10, 10, 8192, 4.0) == 8192  # within the sample
    assert _choose.filters(16, 1 << 28) and _choose.filters(1 << 20, 1 << 28)
    assert not _choose.filters(1 << 26, 1 << 28)  # a quarter of the buffer: the radix select
    assert not _choose.filters(16, 20000)  # rows shorter than min_ratio samples


def test_warp_rows_leaves_tied_rows_to_the_block(rng, schedule):
    """select_warp_rows finishes rows whose keys at or below its threshold fit its stage and
    lists the others (here rows of one value: every key is at the threshold) for select_rows;
    both write their rows in order, whatever M the k takes."""
    n = 3000
    x = make(rng, (4, n), np.float32)
    x[1] = 7.0
    # row 2: the largest keys all in lane 0's vectors (positions 128 j .. 128 j + 3), so the
    # lanes' kept keys miss most winners and the threshold is looser (not a miss: it is still
    # at or above k keys)
    x[2] = rng.standard_normal(n).astype(np.float32)
    x[2, np.arange(n) % 128 < 4] += 100
    x[3] = rng.standard_normal(n).astype(np.float32)  # no NaN or infinity above the ties
    x[3, ::2] = 9.0  # half the row ties at the top
    be = _backend.get_backend()
    kbits, kind, _ = _core_keys.key_bits(be.xp.asarray(x))
    for k, stage in ((1, 512), (33, 64), (100, 512)):  # a stage of 64: a sort of 64 entries
        with prim.tuning.override("selection", selector="warp_rows", cand_max=stage):
            plan, sorts = _sp.rows_plan(be, 4, 4, n, k, kind, True, True, warp=True)
            plan(kbits)
            assert int(H.to_host(plan.count)[0]) >= 2  # rows 1 and 3 at least
            for largest in (True, False):
                check(x, k, largest, variant="warp_rows")
    # rows of three chunks: one pass (the threshold from the first chunk) for k * 3 up to
    # one_pass_max, else two
    for one_pass_max in (32, 300, 0):
        with prim.tuning.override("selection", selector="warp_rows", one_pass_max=one_pass_max):
            for k in (1, 33, 100):
                plan, sorts = _sp.rows_plan(be, 4, 4, n, k, kind, True, True, warp=True)
                assert sorts
                assert int(plan.warp_args[-1]) == (3 * k <= one_pass_max)
                plan(kbits)
                assert int(H.to_host(plan.count)[0]) == 2  # rows 1 and 3
                for largest in (True, False):
                    check(x, k, largest, variant="warp_rows")


def test_warp_rows_stage_and_m():
    assert [_sp.warp_m(k) for k in (1, 16, 17, 32, 33, 64, 65, 128, 129)] == [
        1,
        1,
        2,
        2,
        4,
        4,
        4,
        4,
        None,
    ]
    assert _sp.warp_m(20, m_max=1) == 1 and _sp.warp_m(40, m_max=2) == 2
    assert _choose.warp_k_max() == 128
    with prim.tuning.override("selection", selector="warp_rows", m_max=2):
        assert _choose.warp_k_max() == 64
    with pytest.raises(ValueError, match="cand_max=300 is not allowed: a power of two"):
        with prim.tuning.override("selection", selector="warp_rows", cand_max=300):
            pass


def test_digit_schedule():
    assert _sp.digits(32, 13, 11) == [(19, 13), (8, 11), (0, 8)]
    assert _sp.digits(8, 12, 11) == [(0, 8)]
    assert sum(w for _, w in _sp.digits(64, 13, 11)) == 64


def test_empty_and_k_zero(rng):
    for shape, axis in (((0,), -1), ((3, 0), -1), ((0, 5), -1), ((4, 6), 0)):
        x = np.zeros(shape, np.float32)
        H.assert_same(prim.topk(x, 0, axis=axis), want_topk(x, 0, True, axis))


def test_inputs_untouched_and_device_kinds(rng):
    x = make(rng, (4, 300), np.float32)
    before = x.copy()
    prim.topk(x, 10)
    prim.argpartition(x, 5)
    assert x.tobytes() == before.tobytes()
    big = x.astype(">f4")
    v, i = prim.topk(big, 10)
    assert v.dtype == np.dtype(">f4")
    H.assert_same(i, want_topk(x, 10, True)[1])


# ---- argpartition / partition ------------------------------------------------------------------


def assert_partitioned(x, kth, got_idx, axis=-1):
    """NumPy's guarantees: each kth position holds the value a sort puts there, the others are on
    the right side of it; the indices are a permutation."""
    x = np.moveaxis(np.asarray(x), axis, -1)
    idx = np.moveaxis(H.to_host(got_idx), axis, -1)
    assert idx.dtype == np.int64 and idx.shape == x.shape
    assert np.array_equal(np.sort(idx, axis=-1), np.broadcast_to(np.arange(x.shape[-1]), x.shape))
    vals = np.take_along_axis(x, idx, axis=-1)
    srt = np.sort(x, axis=-1)
    n = x.shape[-1]
    for k in np.atleast_1d(kth):
        k = int(k) % n
        np.testing.assert_array_equal(vals[..., k], srt[..., k])
        pivot = srt[..., k : k + 1]
        before, after = vals[..., :k], vals[..., k + 1 :]
        if x.dtype.kind == "f":  # NaN is the largest
            assert not np.any(np.isnan(before) & ~np.isnan(pivot))
            assert np.all((before <= pivot) | np.isnan(pivot))
            assert np.all((after >= pivot) | np.isnan(after))
        else:
            assert np.all(before <= pivot) and np.all(after >= pivot)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("n", [1, 2, 33, 4097])
def test_argpartition(variant, n, rng):
    x = make(rng, n, np.float32)
    for kth in sorted({0, n // 3, n - 1, -1}) + [[0, n - 1], [n // 4, n // 2]]:
        if variant in K_MAX and n > K_MAX[variant]:
            kth = [n - 3, n - 1] if isinstance(kth, list) else min(kth % n, 100)
        got = prim.argpartition(x, kth, variant=variant)
        assert_partitioned(x, kth, got)
        part = prim.partition(x, kth, variant=variant)
        want = np.partition(x, kth)
        for k in np.atleast_1d(kth):
            np.testing.assert_array_equal(part[int(k)], want[int(k)])


@pytest.mark.parametrize("path", ["sort", "select"])
@pytest.mark.parametrize("n", [1, 7, 300, 5000])
def test_argpartition_auto_1d_paths(path, n, rng):
    """variant='auto' on 1-D input: a short array (or a large share selected) is sorted (the
    "partition" policy); otherwise the selection and the compaction of the others, which come
    in index order after the m smallest (or before the m largest, reversed)."""
    x = make(rng, n, np.float32)
    kths = sorted({0, n // 3, n - 1}) + [[n // 4, n // 2]]
    with prim.tuning.override(
        "selection",
        selector="partition",
        **({"sort_max_len": 0, "sort_share": 0} if path == "select" else {"sort_max_len": 1 << 40}),
    ):
        for kth in kths:
            got = H.to_host(prim.argpartition(x, kth))
            assert_partitioned(x, kth, got)
            part = H.to_host(prim.partition(x, kth))
            H.assert_same(part, np.asarray(x)[got])
            ks = np.atleast_1d(kth) % n
            lo, hi = int(ks.min()), int(ks.max())
            if path == "sort":
                H.assert_same(got, np.argsort(x, kind="stable"))
            elif hi + 1 <= n - lo:  # the m smallest first, then the others in index order
                assert np.all(np.diff(got[hi + 1 :]) > 0)
            else:  # the others in index order, then the m largest ascending
                assert np.all(np.diff(got[:lo]) > 0)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_argpartition_dtypes_and_axes(dtype, rng):
    x = make(rng, (6, 50), dtype, distinct=5 if dtype.kind in "iu" else None)
    for axis in (0, 1, -1):
        for kth in (0, 3, [1, 4]):
            assert_partitioned(x, kth, prim.argpartition(x, kth, axis=axis), axis)
            got = prim.partition(x, kth, axis=axis)
            want = np.partition(x, kth, axis=axis)
            for k in np.atleast_1d(kth):
                H.assert_same(np.take(got, k, axis=axis), np.take(want, k, axis=axis))


def test_partition_axis_none_and_empty(rng):
    x = make(rng, (5, 7), np.float64)
    got = prim.partition(x, 17, axis=None)
    assert got.shape == (35,)
    H.assert_same(got[17], np.partition(x, 17, axis=None)[17])
    H.assert_same(prim.argpartition(np.zeros((2, 0)), 5), np.argpartition(np.zeros((2, 0)), 5))
    H.assert_same(prim.partition(np.zeros(0, np.int32), 0), np.partition(np.zeros(0, np.int32), 0))


def with_variant(xp, variant):
    """The variant keyword of a twin body: primitives takes it, NumPy has none."""
    return {} if xp is np else {"variant": variant}


@pytest.mark.parametrize("func", ["argpartition", "partition"])
def test_sort_variant_on_rows_of_one(func):
    """Three or more rows of one element (regression): the sort variant's index rows, a
    broadcast iota, reached the segmented sort with its rows' zero stride kept by the reshape
    of rows of one, and the kernel read past its one element (garbage indices; an illegal
    address on a GPU)."""
    x = np.array([[5.0], [7.0], [6.0]])
    H.run_twins(lambda xp: getattr(xp, func)(x, 0, **with_variant(xp, "sort")), name=func)
    H.assert_same(prim.topk(x, 1, variant="sort"), want_topk(x, 1, True))


def test_sort_rows_reads_views_as_their_values(rng):
    """The selection's segmented sort of rows (the sort variant; winners ordered) given views
    whose reshape keeps odd strides: a broadcast (rows of one key too), a strided slice and a
    transpose, of the keys and of the values; each as NumPy's stable sort of the rows."""
    be = _backend.get_backend()
    xp = be.xp
    for rows, length in ((3, 1), (7, 1), (5, 2), (4, 33)):
        keys = xp.asarray(make(rng, (length, rows), np.float32)).T
        wide = xp.arange(rows * 2 * length, dtype=np.int64).reshape(rows, 2 * length)
        for vals in (
            xp.broadcast_to(xp.arange(length, dtype=np.int64), (rows, length)),
            wide[:, ::2],
            wide[:, :length],
        ):
            got = sort_rows(be, keys, vals)
            hk, hv = H.to_host(keys), H.to_host(vals)
            order = np.argsort(hk, axis=-1, kind="stable")
            H.assert_same(
                got,
                (np.take_along_axis(hk, order, axis=-1), np.take_along_axis(hv, order, axis=-1)),
            )


@pytest.mark.parametrize("axis", [-1, 0, 1, None])
@pytest.mark.parametrize(
    "x", [np.array(5.0), np.float32(2.5), 7, [[3.0]]], ids=["0d", "numpy-scalar", "int", "2d-list"]
)
@pytest.mark.parametrize("func", ["argpartition", "partition"])
def test_partition_of_0d_input_as_numpy(func, x, axis):
    """numpy.partition of a 0-d array has no axis (AxisError but for axis=None), while
    numpy.argpartition reads it as 1-D (regression: partition returned ``array([5.])``)."""
    for kth in (0, -1, 1):
        H.run_twins(lambda xp: getattr(xp, func)(x, kth, axis=axis), name=func)
    if np.ndim(x) == 0 and axis is not None and func == "partition":
        H.raises_like(
            np.exceptions.AxisError, func, getattr(prim, func), x, 0, axis=axis, match="dimension 0"
        )
        with pytest.raises(np.exceptions.AxisError, match=func):
            prim.plan(getattr(prim, func), x, 0, axis=axis)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    x=hnp.arrays(st.sampled_from([np.int16, np.float32, np.uint64]), st.integers(1, 300)),
    data=st.data(),
)
def test_property_topk_and_partition(x, data):
    n = x.size
    k = data.draw(st.integers(0, n))
    largest = data.draw(st.booleans())
    variant = data.draw(st.sampled_from(("warp_rows", "rows", "small_k", "radix_select")))
    k = min(k, K_MAX.get(variant, k))
    H.assert_same(prim.topk(x, k, largest=largest, variant=variant), want_topk(x, k, largest))
    # variants with a largest k select at most that many: kth within it from the small end
    kth = (
        data.draw(st.integers(0, min(n, K_MAX[variant]) - 1))
        if variant in K_MAX
        else data.draw(st.integers(-n, n - 1))
    )
    assert_partitioned(x, kth, prim.argpartition(x, kth, variant=variant))


# ---- rows at the edges --------------------------------------------------------------------------

#: one, two, three and several rows
ROW_COUNTS = (1, 2, 3, 7)
#: the key dtypes the edge tests cycle through: 1-, 2-, 4- and 8-byte keys, bool and float16
EDGE_DTYPES = [
    np.dtype(d)
    for d in (np.float32, np.int64, np.uint8, np.float16, np.bool_, np.float64, np.int16, np.uint32)
]


def distinct_rows(rng, rows, length, dt):
    """(rows, length) keys of ``dt`` (length <= 2), distinct within each row: NumPy's
    argpartition then has one answer."""
    perm = np.argsort(rng.random((rows, length)), axis=-1)
    return perm.astype(np.bool_) if dt == np.bool_ else (perm * 3 - 2).astype(dt)


@pytest.mark.parametrize("variant", VARIANTS + ("auto",))
def test_rows_of_length_0_1_2(variant, rng):
    """Every variant on 1, 2, 3 and several rows of 0, 1 and 2 keys, each k and kth, against
    NumPy (argpartition's indices too: the rows' keys are distinct)."""
    cases = [(r, n) for r in ROW_COUNTS for n in (0, 1, 2)]
    for i, (rows, length) in enumerate(cases):
        dt = EDGE_DTYPES[i % len(EDGE_DTYPES)]
        x = distinct_rows(rng, rows, length, dt)
        for k in range(length + 1):
            check(x, k, True, variant=variant)
            check(x, k, False, variant=variant)
        for kth in sorted({0, length - 1}) if length else [0]:
            for func in ("argpartition", "partition"):
                H.run_twins(
                    lambda xp: getattr(xp, func)(x, kth, **with_variant(xp, variant)), name=func
                )


def capacity(variant, dt):
    """((row length, k) at the variant's capacity for keys of ``dt`` under its policies, [(row
    length, k) one past it]) and whether the variant refuses those (else it routes them). The
    rows variants hold a row of row_bytes in shared memory (keys of 1 or 2 bytes as 4-byte
    images); warp_rows and small_k take k up to 32 * m_max and k_max. filter, radix_select and
    sort take any row and k: their edges are where the work changes hands (k above the radix
    select's sort_small is ordered by segmented sorts; rows longer than a block of the segmented
    sort holds are sorted device-wide)."""
    from primitives.selection import _policy

    longest = _policy.rows().row_bytes // max(4, np.dtype(dt).itemsize)
    if variant == "warp_rows":
        k_max = _choose.warp_k_max()
        return (longest, k_max), [(longest + 1, 1), (longest, k_max + 1)], True
    if variant == "rows":
        return (longest, longest), [(longest + 1, 1)], True
    if variant == "small_k":  # rows long enough that argpartition selects k from the small end
        k_max = _policy.small_k().k_max
        return (2 * k_max + 1, k_max), [(2 * k_max + 1, k_max + 1)], True
    top = (
        _policy.radix_select().sort_small
        if variant in ("filter", "radix_select")
        else _segmented_block_max()
    )
    return (top, top), [(top + 1, top + 1)], False


def _segmented_block_max():
    """The longest row the segmented sort of rows sorts on chip (its policy's block * items)."""
    pol = prim.tuning.policy("sorting", "segmented")
    return pol.block * pol.items


def check_partitions(x, kth, variant):
    """argpartition's guarantees and partition's values at kth, against NumPy's."""
    assert_partitioned(x, kth, prim.argpartition(x, kth, variant=variant))
    got, want = H.to_host(prim.partition(x, kth, variant=variant)), np.partition(x, kth)
    H.assert_same(got[..., kth], want[..., kth])


@pytest.mark.parametrize("variant", VARIANTS)
def test_rows_at_capacity(variant, rng):
    """Every variant at its capacity (its policy's longest row and largest k) on 1, 2, 3 and
    several rows of several dtypes, against NumPy; one past it refused with a ValueError naming
    the function (then ``auto`` routes it), or routed by the variant itself."""
    for i, rows in enumerate(ROW_COUNTS):
        dt = EDGE_DTYPES[(i + VARIANTS.index(variant)) % len(EDGE_DTYPES)]
        (length, k), past, refuses = capacity(variant, dt)
        x = make(rng, (rows, length), dt)
        check(x, k, True, variant=variant)
        check(x, k, False, variant=variant)
        for kth in ([k - 1], [0, k - 1], [length - k]):  # k selected, from either end
            check_partitions(x, kth, variant)
        for n, kp in past:
            y = make(rng, (rows, n), dt)
            if refuses:
                for func, arg in (("topk", kp), ("argpartition", kp - 1)):
                    H.raises_like(
                        ValueError,
                        func,
                        getattr(prim, func),
                        y,
                        arg,
                        variant=variant,
                        match=f"{variant}' (holds|takes)",
                    )
            routed = "auto" if refuses else variant
            check(y, kp, True, variant=routed)
            check_partitions(y, [kp - 1], routed)


# ---- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize("k", [-1, 6])
def test_error_k_out_of_range(k):
    H.raises_like(ValueError, "topk", prim.topk, np.arange(5.0), k, match="out of range")


@pytest.mark.parametrize("k", [2.0, "2", True, None])
def test_error_k_not_integer(k):
    H.raises_like(TypeError, "topk", prim.topk, np.arange(5.0), k, match="integer")


@pytest.mark.parametrize("func", ["topk", "argpartition", "partition"])
def test_error_axis(func):
    f = getattr(prim, func)
    with pytest.raises(np.exceptions.AxisError, match=func):
        f(np.ones((2, 3)), 1, axis=2)
    H.raises_like(TypeError, func, f, np.ones((2, 3)), 1, axis=1.0)


@pytest.mark.parametrize("dtype", [np.complex64, "U3", object, "M8[s]", np.longdouble])
@pytest.mark.parametrize("func", ["topk", "argpartition", "partition"])
def test_error_dtype(func, dtype):
    if dtype == np.complex64 and func != "topk":
        pytest.skip("the partitions order complex numbers (test_partition_complex.py)")
    x = np.zeros(4, dtype=dtype)
    H.raises_like(TypeError, func, getattr(prim, func), x, 1, match="dtype")


def test_error_not_an_array():
    H.raises_like(TypeError, "topk", prim.topk, "abc", 1)


@pytest.mark.parametrize("arg", ["largest", "sorted"])
def test_error_flags_not_bool(arg):
    H.raises_like(TypeError, "topk", prim.topk, np.arange(5.0), 2, **{arg: 1})


@pytest.mark.parametrize("func", ["topk", "argpartition"])
def test_error_variant(func):
    H.raises_like(ValueError, func, getattr(prim, func), np.arange(5.0), 1, variant="heap")


def test_error_small_k_variant_k_too_large():
    H.raises_like(
        ValueError,
        "topk",
        prim.topk,
        np.zeros(10000, np.float32),
        257,
        variant="small_k",
        match="up to 256",
    )


def test_small_k_guards_its_kernel_limit():
    with pytest.raises(ValueError, match="k_max=300 is not allowed: an integer from 1 to 256"):
        with prim.tuning.override("selection", selector="small_k", k_max=300):
            pass


def test_auto_picks_small_k_for_long_rows(rng):
    x = make(rng, 9000, np.float32)
    H.assert_same(prim.topk(x, 256), want_topk(x, 256, True))
    H.assert_same(prim.topk(x, 257), want_topk(x, 257, True))


def test_small_k_merges_in_levels(rng, schedule):
    """Blocks' winners folded one level at a time (a merging block of one tile) before the last
    block of the row merges them; with ties, so the index digits decide across levels."""
    x = make(rng, (2, 30000), np.float32)
    x[1] = make(rng, 30000, np.float32, distinct=3)
    with prim.tuning.override("selection", selector="small_k", merge_tiles=1):
        for k in (5, 256):
            check(x, k, True, variant="small_k")


def test_error_warp_rows_k_too_large():
    H.raises_like(
        ValueError,
        "topk",
        prim.topk,
        np.zeros(1000, np.float32),
        129,
        variant="warp_rows",
        match="up to 128",
    )


def test_auto_picks_warp_rows_then_rows(rng):
    x = make(rng, (3, 700), np.float32)
    for k in (128, 129):
        H.assert_same(prim.topk(x, k), want_topk(x, k, True))


@pytest.mark.parametrize("variant", ["rows", "warp_rows"])
def test_error_rows_variant_row_too_long(variant):
    H.raises_like(
        ValueError,
        "topk",
        prim.topk,
        np.zeros(10000, np.float32),
        1,
        variant=variant,
        match="at most 8192",
    )


@H.twins(name="argpartition")
def test_error_kth_out_of_bounds(xp):
    return xp.argpartition(np.arange(5.0), 5)


@H.twins(name="argpartition")
def test_error_kth_negative_out_of_bounds(xp):
    return xp.argpartition(np.arange(5.0), [-6])


@H.twins(name="argpartition")
def test_error_kth_not_integer(xp):
    return xp.argpartition(np.arange(5.0), 1.5)


@H.twins(name="argpartition")
def test_error_kth_bool(xp):
    return xp.argpartition(np.arange(5.0), True)


@H.twins(name="partition")
def test_error_kth_2d(xp):
    return xp.partition(np.arange(5.0), [[1]])


@H.twins(name="partition")
def test_error_kth_empty(xp):
    return xp.partition(np.arange(5.0), [])


@H.twins(name="argpartition")
def test_error_kind(xp):
    return xp.argpartition(np.arange(5.0), 1, kind="quicksort")


@H.twins(name="argpartition")
def test_error_order(xp):
    return xp.argpartition(np.arange(5.0), 1, order="f")


# ---- plans -------------------------------------------------------------------------------------


def test_one_plan_per_configuration(rng):
    x = make(rng, 6000, np.float32)
    prim.topk(x, 10, variant="radix_select")
    builds = prim.cache_info()["builds"]
    for _ in range(3):
        H.assert_same(prim.topk(x, 10, variant="radix_select"), want_topk(x, 10, True))
    assert prim.cache_info()["builds"] == builds


def test_repeat_calls_take_the_filed_call(rng):
    """A call on an array like an earlier call's (dtype, shape, strides, options) finds that
    call's checked configuration and skips the checks; each layout its own."""
    for shape, axis in (((6, 40), -1), ((6, 40), 0), ((3, 4, 5), None), ((0, 5), -1), ((), -1)):
        for _ in range(2):
            x = make(rng, shape, np.float32)
            k = 3 if x.size >= 3 else x.size
            want = want_topk(
                x.reshape(-1) if axis is None or x.ndim == 0 else x,
                k,
                True,
                -1 if axis is None else axis,
            )
            H.assert_same(prim.topk(x, k, axis=axis), want)
    x = make(rng, (6, 40), np.float32)
    prim.topk(x, 3)
    before = prim.cache_info()["keys"]
    prim.topk(make(rng, (6, 40), np.float32), 3)
    assert prim.cache_info()["keys"] == before


@pytest.mark.parametrize(
    "dtype", [np.float32, np.int64, np.int16, np.float16, np.bool_], ids=lambda d: np.dtype(d).name
)
def test_repeat_partition_of_a_sorted_1d_array(dtype, rng):
    """partition/argpartition of a 1-D array that 'auto' sorts, read as it is: the call files a
    runner under its key, which a like call runs directly. Where the sort reads the keys as they
    are (a key dtype of 4 or 8 bytes) that runner is the sort's own (the stable sort is the
    partition), without the partition's reshapes; dtypes converted to keys first file the
    partition's replay of the sort, and the selection's path its replay of the selection."""
    from primitives._core import plans as P

    own = np.dtype(dtype).itemsize >= 4  # the sort's plan reads keys of 4 and 8 bytes as they are
    xp = _backend.get_backend().xp  # arrays of the backend's own type take the repeat path
    replays = (_select.SortedRun, _select.PartitionRun)
    for func, oracle in ((prim.partition, np.sort), (prim.argpartition, np.argsort)):
        for kth in (100, -7, (3, 2000)):
            hx = make(rng, 3000, dtype)
            x = xp.asarray(hx)
            key = func.entry.key((x, kth), {})
            H.assert_same(H.to_host(func(x, kth)), oracle(hx, kind="stable"))
            run = P.PLANS.find(key)
            assert run is not None
            if own:
                assert not isinstance(run, replays)
            elif np.dtype(dtype) in (np.float16, np.bool_):
                assert isinstance(run, _select.SortedRun)
            hy = make(rng, 3000, dtype)  # a like array: the filed runner, its own result
            H.assert_same(H.to_host(func(xp.asarray(hy), kth)), oracle(hy, kind="stable"))
    x = xp.asarray(make(rng, 3000, dtype))
    with prim.tuning.override("selection", selector="partition", sort_max_len=0, sort_share=0):
        for func in (prim.partition, prim.argpartition):
            key = func.entry.key((x, 100), {})
            func(x, 100)
            assert isinstance(P.PLANS.find(key), _select.PartitionRun)


@pytest.mark.parametrize(
    "call",
    [
        lambda x: prim.topk(x, 5),
        lambda x: prim.topk(x, 5, axis=0, sorted=False),
        lambda x: prim.argpartition(x, 3),
        lambda x: prim.partition(x, (2, 30), axis=0, variant="radix_select"),
    ],
)
def test_a_repeat_call_does_not_choose_again(call, rng, monkeypatch):
    """The variant is chosen once per plan, by the first call on arrays of a layout; a repeat
    call on like arrays runs what that call prepared, without the checks or the choice."""
    xp = _backend.get_backend().xp
    chosen = []
    choose = _choose.variant
    monkeypatch.setattr(_choose, "variant", lambda *args: chosen.append(args[0]) or choose(*args))
    prim.clear_caches()
    for _ in range(3):
        x = xp.asarray(make(rng, (40, 300), np.float32))
        call(x)
    assert len(chosen) == 1
    call(xp.asarray(make(rng, (40, 301), np.float32)))  # another layout: its own choice
    assert len(chosen) == 2
    p = prim.plan(prim.topk, x, 7)
    assert len(chosen) == 3
    p(xp.asarray(make(rng, (40, 300), np.float32)))
    assert len(chosen) == 3


def test_refusals_are_not_filed():
    """A variant that refuses a configuration refuses it on every call (nothing is filed)."""
    x = _backend.get_backend().xp.zeros(10000, np.float32)
    for _ in range(2):
        with pytest.raises(ValueError, match="topk: variant 'rows' holds rows of at most 8192"):
            prim.topk(x, 1, variant="rows")


def test_the_choice_for_readers():
    """auto_variant and variant_takes: auto's choice and the refusals, as topk makes them."""
    from primitives import selection

    assert selection.auto_variant(np.float32, 700, 128) == "warp_rows"
    assert selection.auto_variant(np.float32, 700, 129) == "rows"
    assert selection.auto_variant(np.float32, 9000, 256) == "small_k"
    assert selection.auto_variant(np.float32, 9000, 257) == "radix_select"
    assert selection.auto_variant(np.float32, 1 << 28, 16) == "filter"
    assert selection.variant_takes("rows", np.float32, 8192, 1)
    assert not selection.variant_takes("rows", np.float64, 8192, 1)
    assert not selection.variant_takes("warp_rows", np.float32, 1000, 129)
    assert not selection.variant_takes("small_k", np.float32, 10000, 257)
    assert selection.variant_takes("radix_select", np.float32, 1 << 28, 1 << 20)
    with pytest.raises(ValueError, match="variant_takes: name must be one of"):
        selection.variant_takes("heap", np.float32, 10, 1)


def test_explicit_plans(rng):
    x = make(rng, (4, 300), np.float32)
    p = prim.plan(prim.topk, x, 9, largest=False)
    H.assert_same(p(x), want_topk(x, 9, False))
    q = prim.argpartition.plan(x, [2, 7])
    assert_partitioned(x, [2, 7], q(x))
    r = prim.plan(prim.partition, x, 1, axis=0)
    H.assert_same(r(x)[1], np.partition(x, 1, axis=0)[1])
    with pytest.raises(ValueError, match="partition: kth"):
        prim.plan(prim.partition, x, 4, axis=0)

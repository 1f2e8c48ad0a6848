"""unique vs numpy.unique; run_length_encode and reduce_by_key vs NumPy oracles (runs found by
comparing neighbours, reductions by ``ufunc.reduceat``); plans; one test per error branch."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import primitives as prim
from primitives._core import backend as _backend, dtypes as _dtypes
from primitives.sets import _plans as _rp
from primitives.sets._checks import VALUE_DTYPES
from primitives.testing import harness as H

TILE = 4096  # the default policy's tile: 256 threads x 16 keys
SIZES = [1, 2, 31, 32, 33, 511, 513, TILE - 1, TILE, TILE + 1, 3 * TILE + 17]
KEY_DTYPES = _rp.KEY_DTYPES
_REDUCEAT = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum}


def keys_with_runs(rng, n, dt, mean_run=4):
    """n keys of ``dt`` in runs of about ``mean_run``, neighbouring runs of different keys (and
    some equal keys in runs that are not consecutive)."""
    dt = np.dtype(dt)
    starts = rng.random(n) < 1.0 / mean_run
    starts[:1] = True
    ids = np.cumsum(starts) - 1
    span = 2 if dt == np.bool_ else 100
    labels = rng.integers(0, span, ids[-1] + 1)
    labels[1:] += labels[1:] == labels[:-1]  # neighbouring runs differ
    k = labels[ids]
    if dt == np.bool_:
        return (k % 2).astype(np.bool_)
    if dt.kind == "f":
        return (k - 50).astype(dt) / dt.type(4)
    return k.astype(dt)


def rle_ref(x, equal_nan=False):
    """NumPy's run-length encoding: (first element of each run, lengths)."""
    x = np.asarray(x)
    if x.size == 0:
        return x[:0], np.zeros(0, np.int64)
    same = x[1:] == x[:-1]
    if equal_nan and x.dtype.kind == "f":
        same |= np.isnan(x[1:]) & np.isnan(x[:-1])
    starts = np.flatnonzero(np.r_[True, ~same])
    return x[starts], np.diff(np.r_[starts, x.size]).astype(np.int64)


def rbk_ref(keys, values, op, sort=False):
    """(first key of each run, reduceat of the values over the runs) in NumPy's result dtype."""
    if sort:
        order = np.argsort(keys, kind="stable")
        keys, values = keys[order], values[order]
    res = (
        np.add.reduce(values[:0]).dtype
        if op == "sum"
        else (np.multiply.reduce(values[:0]).dtype if op == "prod" else values.dtype)
    )
    uk, counts = rle_ref(keys)
    starts = np.r_[0, np.cumsum(counts)[:-1]].astype(np.intp)
    work = values.astype(np.float32) if _dtypes.is_float16(values.dtype) else values.astype(res)
    with np.errstate(over="ignore"):
        red = _REDUCEAT[op].reduceat(work, starts).astype(res) if keys.size else work[:0]
    return uk, red


def values_of(rng, n, dt, op):
    dt = np.dtype(dt)
    if dt == np.bool_:
        return rng.random(n) < 0.5
    if dt.kind == "c":
        return (rng.random(n) + 0.5 + 1j * (rng.random(n) - 0.5)).astype(dt)
    if dt.kind == "f":
        return (rng.random(n) + 0.5).astype(dt)  # products stay finite over short runs
    lo, hi = (-3, 4) if dt.kind == "i" else (0, 7)
    return rng.integers(lo, hi, n).astype(dt)


def _tol(dt, op):
    dt = np.dtype(dt)
    if dt == np.float16:
        return 2e-3
    if dt == _dtypes.BFLOAT16:  # 8 significant bits
        return 1.6e-2
    if dt in (np.float32, np.complex64):
        return 1e-5
    if dt.kind in "fc":
        return 1e-12
    return 0.0


# ---- run_length_encode ------------------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
def test_rle_sizes(n, rng, schedule):
    x = keys_with_runs(rng, n, np.int32)
    H.assert_same(prim.run_length_encode(x), rle_ref(x))


@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("n", [33, TILE + 1])
def test_rle_key_dtypes(dtype, n, rng):
    x = keys_with_runs(rng, n, dtype)
    H.assert_same(prim.run_length_encode(x), rle_ref(x))


@pytest.mark.parametrize("mean_run", [1, 40, 5000])
def test_rle_run_lengths_across_tiles(mean_run, rng):
    """Runs of one element, runs across threads and warps, runs across tiles; one run of all."""
    x = keys_with_runs(rng, 3 * TILE + 5, np.int64, mean_run)
    H.assert_same(prim.run_length_encode(x), rle_ref(x))
    k32 = x.astype(np.int32)  # sums of runs that end in another warp or tile than they start
    v = rng.integers(-9, 9, x.size).astype(np.float32)
    H.assert_same(prim.reduce_by_key(k32, v), rbk_ref(k32, v, "sum"), rtol=1e-5)
    same = np.full(2 * TILE + 3, 7, np.uint16)
    H.assert_same(prim.run_length_encode(same), (same[:1], np.array([same.size], np.int64)))


def test_rle_floats_compare_as_numbers():
    """-0.0 equals 0.0 (the run keeps its first element); a NaN equals nothing (CUB's ==)."""
    for dt in (np.float16, np.float32, np.float64):
        x = np.array([-0.0, 0.0, np.nan, np.nan, 1, 1, np.inf, np.inf, -0.0], dt)
        v, c = prim.run_length_encode(x)
        H.assert_same(c, np.array([2, 1, 1, 2, 2, 1], np.int64))
        assert np.signbit(H.to_host(v)[0]) and v.dtype == dt


def test_rle_misaligned_views_and_inputs_untouched(rng):
    base = keys_with_runs(rng, 2 * TILE + 40, np.int32)
    b0 = base.copy()
    for off in (1, 3):  # off the 16-byte boundary: element-wise loads
        H.assert_same(prim.run_length_encode(base[off:]), rle_ref(base[off:]))
    H.assert_same(prim.run_length_encode(base[::2]), rle_ref(base[::2]))
    np.testing.assert_array_equal(base, b0)


def test_rle_empty():
    H.assert_same(
        prim.run_length_encode(np.array([], np.float32)),
        (np.array([], np.float32), np.array([], np.int64)),
    )


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hnp.arrays(np.int8, st.integers(1, 300), elements=st.integers(-2, 2)))
def test_rle_rebuilds_its_input(x):
    v, c = (H.to_host(a) for a in prim.run_length_encode(x))
    np.testing.assert_array_equal(np.repeat(v, c), x)
    assert (v[1:] != v[:-1]).all() and (c > 0).all()


# ---- reduce_by_key ----------------------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("op", ["sum", "max"])
def test_rbk_sizes(n, op, rng, schedule):
    k = keys_with_runs(rng, n, np.int32, 16)
    v = values_of(rng, n, np.float32, op)
    H.assert_same(prim.reduce_by_key(k, v, op), rbk_ref(k, v, op), rtol=1e-5)


@pytest.mark.parametrize("op", _rp.OPS)
@pytest.mark.parametrize("dtype", VALUE_DTYPES, ids=lambda d: d.name)
def test_rbk_value_dtypes(dtype, op, rng):
    if np.dtype(dtype).kind == "c" and op in ("min", "max"):
        pytest.skip("no ordering of complex values (an error branch, tested below)")
    n = TILE + 77
    k = keys_with_runs(rng, n, np.int32, 6)
    v = values_of(rng, n, dtype, op)
    H.assert_same(prim.reduce_by_key(k, v, op), rbk_ref(k, v, op), rtol=_tol(dtype, op))


@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: d.name)
def test_rbk_key_dtypes(dtype, rng):
    n = 2 * TILE + 9
    k = keys_with_runs(rng, n, dtype, 10)
    v = values_of(rng, n, np.int64, "sum")
    H.assert_same(prim.reduce_by_key(k, v), rbk_ref(k, v, "sum"))


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.int16], ids=lambda d: d.__name__)
@pytest.mark.parametrize("n", [1, 100, TILE + 3])
def test_rbk_sort_groups_keys_stably(dtype, n, rng):
    """sort=True: each key once, ascending; a group reduces its values in input order (the
    running max of a group's first elements shows the order; float sums match reduceat of the
    stably sorted values)."""
    k = rng.integers(0, 30, n).astype(np.int32)
    v = values_of(rng, n, dtype, "sum")
    H.assert_same(
        prim.reduce_by_key(k, v, "sum", sort=True), rbk_ref(k, v, "sum", sort=True), rtol=1e-12
    )
    kf = rng.integers(0, 30, n).astype(np.float32)
    kf[::13] = np.nan  # NaNs sort last, each a group of its own
    got = prim.reduce_by_key(kf, v, "max", sort=True)
    H.assert_same(got, rbk_ref(kf, v, "max", sort=True))


def test_rbk_float_keys_and_nan_values(rng):
    k = np.array([1.5, 1.5, -0.0, 0.0, np.nan, np.nan, 2.0], np.float64)
    v = np.array([1.0, np.nan, 2.0, 3.0, 4.0, 5.0, 6.0])
    uk, s = prim.reduce_by_key(k, v, "sum")
    H.assert_same(s, np.array([np.nan, 5.0, 4.0, 5.0, 6.0]))
    H.assert_same(prim.reduce_by_key(k, v, "min")[1], np.array([np.nan, 2.0, 4.0, 5.0, 6.0]))


def test_rbk_empty_and_untouched(rng):
    got = prim.reduce_by_key(np.array([], np.int32), np.array([], np.int16), "sum")
    H.assert_same(got, (np.array([], np.int32), np.array([], np.int64)))
    k, v = keys_with_runs(rng, 500, np.int32), values_of(rng, 500, np.float32, "sum")
    k0, v0 = k.copy(), v.copy()
    prim.reduce_by_key(k, v, sort=True)
    prim.reduce_by_key(k, v)
    np.testing.assert_array_equal(k, k0)
    np.testing.assert_array_equal(v, v0)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 400), st.integers(0, 2**32 - 1), st.sampled_from(["sum", "min", "prod"]))
def test_rbk_matches_reduceat(n, seed, op):
    rng = np.random.default_rng(seed)
    k = rng.integers(0, 4, n).astype(np.int64)
    v = rng.integers(-5, 6, n).astype(np.int32)
    H.assert_same(prim.reduce_by_key(k, v, op), rbk_ref(k, v, op))


# ---- unique -----------------------------------------------------------------------------------

FLAGS = [
    dict(),
    dict(return_counts=True),
    dict(return_index=True),
    dict(return_inverse=True),
    dict(return_index=True, return_inverse=True, return_counts=True),
]


@pytest.mark.parametrize("variant", ["auto", "compact", "count"])
@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: "-".join(f) or "plain")
@pytest.mark.parametrize("n", [1, 33, TILE + 1])
@H.twins()
def test_unique_flags(xp, n, flags, variant):
    x = np.random.default_rng(n).integers(0, max(2, n // 3), n).astype(np.uint32)
    kw = dict(flags, variant=variant) if xp is prim else flags
    return xp.unique(x, **kw)


INT_KEYS = [d for d in KEY_DTYPES if d.kind in "biu"]


def _count_spy(monkeypatch):
    """A list that records, per call of unique's counting step, whether it counted (True) or
    found the range too wide (False)."""
    from primitives.sets import _unique

    taken, counted = [], _unique._counted

    def spy(*args):
        out = counted(*args)
        taken.append(out is not None)
        return out

    monkeypatch.setattr(_unique, "_counted", spy)
    return taken


@pytest.mark.parametrize("where", ["low end", "high end", "one value", "around zero", "wide"])
@pytest.mark.parametrize("dtype", INT_KEYS, ids=lambda d: d.name)
def test_unique_count_ranges(dtype, where, monkeypatch):
    """The "count" variant over ranges at both ends of each integer type, of one value, around
    zero and over the whole type (too wide: sorted instead, but for 8-bit keys, always counted
    over their 256 values), with the inverse and the counts."""
    rng = np.random.default_rng(5)
    n = 3000
    if dtype == np.bool_:
        x = rng.integers(0, 2, n).astype(bool) if where != "one value" else np.ones(n, bool)
    else:
        info = np.iinfo(dtype)
        d = rng.integers(0, min(1000, int(info.max)), n).astype(dtype)
        x = {
            "low end": np.array(info.min, dtype) + d,
            "high end": np.array(info.max, dtype) - d,
            "one value": np.full(n, info.max, dtype),
            "around zero": (d.astype(np.int64) - 500 * (info.min < 0)).astype(dtype),
            "wide": np.array([info.min, info.max, 0] * n, dtype)[:n],
        }[where]
        rng.shuffle(x)
    taken = _count_spy(monkeypatch)
    got = prim.unique(x, return_inverse=True, return_counts=True, variant="count")
    H.assert_same(got, np.unique(x, return_inverse=True, return_counts=True))
    assert taken == [where != "wide" or x.itemsize == 1], taken


def test_unique_auto_counts_from_the_policys_size(monkeypatch):
    """``auto`` counts integer keys of a narrow range from count_min_size keys on, sorts fewer,
    and sorts when return_index is asked for, when count_max_ratio is 0 or when the range is
    wider than count_max_bins; 8-bit keys are counted whatever their number."""
    rng = np.random.default_rng(6)
    taken = _count_spy(monkeypatch)
    x = rng.integers(-40, 40, 5000).astype(np.int32)
    with prim.tuning.override("sets", selector="unique", count_min_size=5000):
        H.assert_same(prim.unique(x, return_counts=True), np.unique(x, return_counts=True))
        H.assert_same(prim.unique(x[:4999]), np.unique(x[:4999]))
        assert taken == [True, False]  # the second call: too few keys, sorted
        H.assert_same(prim.unique(x, True), np.unique(x, True))
        H.assert_same(prim.unique(x.astype(np.int8)[:10]), np.unique(x.astype(np.int8)[:10]))
        assert taken == [True, False, True]  # return_index: sorted, no count asked
    with prim.tuning.override("sets", selector="unique", count_min_size=0, count_max_ratio=0):
        H.assert_same(prim.unique(x), np.unique(x))
        assert taken == [True, False, True, False]
    width = int(x.max()) - int(x.min()) + 1  # count_max_bins bounds the range's width
    for bins, counts in ((width - 1, False), (width, True)):
        with prim.tuning.override("sets", selector="unique", count_min_size=0, count_max_bins=bins):
            H.assert_same(prim.unique(x), np.unique(x))
            assert taken[-1] is counts, bins


@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: d.name)
@H.twins()
def test_unique_dtypes(xp, dtype):
    x = keys_with_runs(np.random.default_rng(3), 700, dtype)
    np.random.default_rng(4).shuffle(x)
    return xp.unique(x, return_counts=True, return_index=True)


@pytest.mark.parametrize("equal_nan", [True, False])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=lambda d: d.__name__)
@H.twins()
def test_unique_nan(xp, dtype, equal_nan):
    x = np.array([2.0, np.nan, -1.0, np.nan, 2.0, np.inf, np.nan, -np.inf, 0.5], dtype)
    return xp.unique(
        x, return_index=True, return_inverse=True, return_counts=True, equal_nan=equal_nan
    )


def _complex_classes(rng, n, dt):
    """n complex numbers of every class of NumPy's order (no NaN part, R + nan j, nan + R j,
    nan + nan j), with -0.0 parts and infinities, few distinct parts."""
    part = np.array([-np.inf, -2.0, -0.0, 0.0, 1.0, np.inf, np.nan])
    x = np.empty(n, dt)
    x.real, x.imag = rng.choice(part, n), rng.choice(part, n)
    return x


@pytest.mark.parametrize("equal_nan", [True, False])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=lambda d: d.__name__)
@H.twins()
def test_unique_complex(xp, dtype, equal_nan):
    """NumPy's complex order; with equal_nan every number with a NaN part is one."""
    x = _complex_classes(np.random.default_rng(5), 300, dtype)
    return xp.unique(
        x, return_index=True, return_inverse=True, return_counts=True, equal_nan=equal_nan
    )


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=lambda d: d.__name__)
@H.twins()
def test_unique_complex_rows(xp, dtype):
    x = _complex_classes(np.random.default_rng(6), 90, dtype).reshape(30, 3)
    x = np.concatenate([x, x[:12], x[:, ::-1]])
    return xp.unique(x, axis=0, return_index=True, return_inverse=True, return_counts=True)


@pytest.mark.parametrize("shape", [(3, 4), (2, 1, 5), (6,)])
@H.twins()
def test_unique_inverse_has_the_input_shape(xp, shape):
    x = np.random.default_rng(0).integers(0, 5, shape).astype(np.int64)
    return xp.unique(x, return_inverse=True)


@pytest.mark.parametrize(
    "dtype",
    [np.int8, np.int32, np.uint64, np.float32, np.float16, np.bool_],
    ids=lambda d: d.__name__,
)
@pytest.mark.parametrize("rows", [1, 40, 700])
@H.twins()
def test_unique_rows(xp, rows, dtype):
    rng = np.random.default_rng(rows)
    x = rng.integers(0, 3, (rows, 3)).astype(dtype)
    return xp.unique(x, axis=0, return_index=True, return_inverse=True, return_counts=True)


@H.twins()
def test_unique_rows_with_nan_and_signed_zeros(xp):
    x = np.array([[np.nan, 1], [np.nan, 1], [0.0, 2], [-0.0, 2], [-0.0, 1], [3, -1]])
    return xp.unique(x, axis=0, return_inverse=True, return_counts=True)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=lambda d: d.__name__)
@H.twins()
def test_unique_rows_sort_nan_as_numpy_compares_fields(xp, dtype):
    """NumPy compares float16 fields with NaN first (before -inf), float32 and float64 fields
    with NaN last (after inf)."""
    x = np.array(
        [
            [np.nan, np.nan],
            [np.nan, 1],
            [1, np.nan],
            [2, 1],
            [np.inf, 0],
            [np.nan, 0],
            [-np.inf, 2],
            [-0.0, 1],
            [0.0, 1],
            [-np.inf, np.nan],
        ],
        dtype,
    )
    return (
        xp.unique(x, axis=0, return_index=True, return_inverse=True, return_counts=True),
        xp.unique(x.T, axis=1),
    )


@pytest.mark.parametrize("equal_nan", [True, False])
@pytest.mark.parametrize("axis", [0, -1])
@H.twins()
def test_unique_1d_with_an_axis_compares_elements(xp, axis, equal_nan):
    """The axis of a 1-D array holds its elements: NumPy's path of elements, whose equal_nan
    collapses the NaNs (not the rows' comparison, under which no NaN equals another)."""
    x = np.array([1.0, np.nan, -0.0, np.nan, 0.0, 1.0, np.nan])
    return (
        xp.unique(x[:3], axis=axis, equal_nan=equal_nan),
        xp.unique(x, True, True, True, axis=axis, equal_nan=equal_nan),
    )


@pytest.mark.parametrize("axis", [1, -1, 2])
@H.twins()
def test_unique_other_axes(xp, axis):
    x = np.random.default_rng(axis + 5).integers(0, 2, (2, 3, 6)).astype(np.int16)
    return xp.unique(x, axis=axis, return_index=True, return_inverse=True, return_counts=True)


@pytest.mark.parametrize("case", ["empty", "empty2d", "rows0", "cols0", "scalar"])
@H.twins()
def test_unique_empty_and_0d(xp, case):
    if case == "empty":
        return xp.unique(np.array([], np.int32), True, True, True)
    if case == "empty2d":
        return xp.unique(np.zeros((2, 0), np.float32), True, True, True)
    if case == "rows0":
        return xp.unique(np.zeros((0, 3), np.int64), True, True, True, axis=0)
    if case == "cols0":
        return xp.unique(np.zeros((3, 0), np.int64), return_counts=True, axis=0)
    return xp.unique(np.array(5, np.int32), return_inverse=True)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    hnp.arrays(
        np.float32,
        st.integers(1, 200),
        elements=st.sampled_from([0.0, -0.0, 1.0, -2.5, np.nan, np.inf]),
    )
)
def test_unique_property(x):
    got = prim.unique(x, return_index=True, return_inverse=True, return_counts=True)
    H.assert_same(got, np.unique(x, return_index=True, return_inverse=True, return_counts=True))


def test_unique_input_untouched_and_device_kind(rng):
    x = rng.integers(0, 9, 300).astype(np.int32)
    x0 = x.copy()
    u = prim.unique(x, return_inverse=True)
    np.testing.assert_array_equal(x, x0)
    assert isinstance(u[0], np.ndarray)  # NumPy in, NumPy out
    xp = _backend.get_backend().xp
    d = prim.unique(xp.asarray(x), return_counts=True)
    assert type(d[0]) is xp.ndarray


# ---- plans ------------------------------------------------------------------------------------


def test_repeat_calls_take_the_plan(rng):
    xp = _backend.get_backend().xp
    k = xp.asarray(keys_with_runs(rng, 5000, np.int32))
    v = xp.asarray(values_of(rng, 5000, np.float32, "sum"))
    prim.run_length_encode(k)
    prim.reduce_by_key(k, v)
    builds = prim.cache_info()["builds"]
    k2 = xp.asarray(keys_with_runs(rng, 5000, np.int32))
    H.assert_same(prim.run_length_encode(k2), rle_ref(H.to_host(k2)))
    H.assert_same(prim.reduce_by_key(k2, v), rbk_ref(H.to_host(k2), H.to_host(v), "sum"), rtol=1e-5)
    assert prim.cache_info()["builds"] == builds


def test_unique_chooses_its_variant_once_per_plan(rng, monkeypatch):
    """unique's variant is chosen by the first call's prepare step: a repeat call on a like array
    of the backend's own type runs the same steps without the checks and the choice."""
    from primitives.sets import _choose

    chosen = []
    choose = _choose.variant
    monkeypatch.setattr(_choose, "variant", lambda name: chosen.append(name) or choose(name))
    xp = _backend.get_backend().xp
    prim.clear_caches()
    for _ in range(3):
        x = keys_with_runs(rng, 3000, np.int32)
        got = prim.unique(xp.asarray(x), return_inverse=True, variant="compact")
        H.assert_same(got, np.unique(x, return_inverse=True))
    assert chosen == ["compact"]
    x = keys_with_runs(rng, 3000, np.int32)
    H.assert_same(prim.unique(x.reshape(60, 50), axis=1), np.unique(x.reshape(60, 50), axis=1))
    H.assert_same(prim.unique(x.reshape(60, 50)), np.unique(x))  # flattened: checked again
    assert chosen == ["compact", "auto", "auto"]


def test_explicit_plans(rng):
    k = keys_with_runs(rng, 3000, np.int64)
    v = values_of(rng, 3000, np.int32, "sum")
    p = prim.plan(prim.reduce_by_key, k, v, "max")
    H.assert_same(p(k, v), rbk_ref(k, v, "max"))
    r = prim.plan(prim.run_length_encode, k)
    H.assert_same(r(k), rle_ref(k))
    u = prim.plan(prim.unique, k, return_counts=True)
    H.assert_same(u(k), np.unique(k, return_counts=True))


def test_policy_override(rng):
    x = keys_with_runs(rng, 3000, np.int32)
    with prim.tuning.override("sets", block=64, items=32):
        H.assert_same(prim.run_length_encode(x), rle_ref(x))
    for warp_out in (0, 1):  # results stored by each lane, or parked by the warp first
        with prim.tuning.override("sets", block=64, items=32, warp_out=warp_out):
            H.assert_same(prim.run_length_encode(x), rle_ref(x))
            H.assert_same(prim.unique(x, return_counts=True), np.unique(x, return_counts=True))
            v = (x % 7).astype(np.float32)
            H.assert_same(prim.reduce_by_key(x, v, "max"), rbk_ref(x, v, "max"))
            H.assert_same(prim.reduce_by_key(x[1:], v[1:]), rbk_ref(x[1:], v[1:], "sum"))
    for prefetch in (0, 1, 3):  # L2 prefetches of the tile 1 or 3 ids ahead: past n, clipped
        with prim.tuning.override("sets", block=64, items=32, prefetch=prefetch):
            v = (x % 5).astype(np.float64)
            for a, b in ((x, v), (x[1:], v[1:]), (x[3:-2], v[3:-2])):  # views of odd offsets
                H.assert_same(prim.reduce_by_key(a, b), rbk_ref(a, b, "sum"))
                H.assert_same(prim.run_length_encode(a), rle_ref(a))
    with prim.tuning.override("sets", block=512, items=16):  # 64 KiB of 8-byte exchanges
        H.raises_like(
            ValueError,
            "sets",
            prim.run_length_encode,
            x.astype(np.int64),
            match="static shared memory",
        )


# ---- the benchmarks and the tour --------------------------------------------------------------


def test_asv_benchmarks_skip_without_cuda():
    """asv's sets module: every class skips cleanly (NotImplementedError) without a GPU; the
    peers are benchmarks of their own."""
    from tests.conftest import load_benchmark

    if _backend.get_backend().is_cuda:
        pytest.skip("CUDA backend present: asv runs them")
    mod = load_benchmark("sets")
    assert "cupy.unique" in mod.Unique.params[0] and "cupy" in mod.ReduceByKey.params[0]
    cache = mod._Module().setup_cache()
    for cls in (mod.Unique, mod.ReduceByKey):
        with pytest.raises(NotImplementedError, match="GPU benchmark"):
            cls().setup(cache, *[p[0] for p in cls.params])


def test_tour_sections_check(capsys):
    from primitives import tour

    assert tour.main(["--log2n", "10", "--family", "sets", "--full"]) == 0
    assert "FAIL" not in capsys.readouterr().out


# ---- errors (one test per branch) -------------------------------------------------------------


def test_error_rle_not_1d():
    H.raises_like(ValueError, "run_length_encode", prim.run_length_encode, np.zeros((2, 2)))


def test_error_rle_bad_dtype():
    H.raises_like(
        TypeError,
        "run_length_encode",
        prim.run_length_encode,
        np.zeros(3, np.complex64),
        match="dtype complex64",
    )


def test_error_rle_not_an_array():
    H.raises_like(TypeError, "run_length_encode", prim.run_length_encode, "abc")


def test_error_rbk_mismatched_lengths():
    H.raises_like(
        ValueError,
        "reduce_by_key",
        prim.reduce_by_key,
        np.zeros(4, np.int32),
        np.zeros(5),
        match="values has 5 elements, keys has 4",
    )


def test_error_rbk_bad_op():
    H.raises_like(
        ValueError,
        "reduce_by_key",
        prim.reduce_by_key,
        np.zeros(4, np.int32),
        np.zeros(4),
        "mean",
        match="op must be one of",
    )


def test_error_rbk_keys_not_1d():
    H.raises_like(
        ValueError,
        "reduce_by_key",
        prim.reduce_by_key,
        np.zeros((2, 2), np.int32),
        np.zeros(4),
        match="keys must be 1-D",
    )


def test_error_rbk_values_not_1d():
    H.raises_like(
        ValueError,
        "reduce_by_key",
        prim.reduce_by_key,
        np.zeros(4, np.int32),
        np.zeros((2, 2)),
        match="values must be 1-D",
    )


def test_error_rbk_bad_key_dtype():
    H.raises_like(
        TypeError,
        "reduce_by_key",
        prim.reduce_by_key,
        np.zeros(4, np.complex128),
        np.zeros(4),
        match="keys has dtype complex128",
    )


def test_error_rbk_bad_value_dtype():
    H.raises_like(
        TypeError,
        "reduce_by_key",
        prim.reduce_by_key,
        np.zeros(4, np.int32),
        np.array(["a", "b", "c", "d"]),
        match="values has dtype",
    )


def test_error_rbk_complex_min():
    H.raises_like(
        TypeError,
        "reduce_by_key",
        prim.reduce_by_key,
        np.zeros(4, np.int32),
        np.zeros(4, np.complex64),
        "min",
        match="not defined for complex",
    )


def test_error_rbk_sort_not_bool():
    H.raises_like(
        TypeError, "reduce_by_key", prim.reduce_by_key, np.zeros(4, np.int32), np.zeros(4), sort=1
    )


def test_error_unique_bad_dtype():
    H.raises_like(TypeError, "unique", prim.unique, np.zeros(3, "m8[s]"), match="dtype timedelta64")


def test_error_unique_axis_out_of_bounds():
    H.run_twins(lambda xp: xp.unique(np.zeros((2, 2)), axis=2), name="unique")


@pytest.mark.parametrize("axis", [0, -1, 1])
def test_error_unique_axis_of_a_0d_array(axis):
    """A 0-d array has no axis, as in NumPy (with axis=None it is one element)."""
    H.run_twins(lambda xp: xp.unique(np.array(5.0), axis=axis), name="unique")
    H.raises_like(
        np.exceptions.AxisError,
        "unique",
        prim.unique,
        np.array(5, np.int8),
        return_counts=True,
        axis=axis,
        match="dimension 0",
    )


def test_error_unique_axis_not_an_integer():
    H.run_twins(lambda xp: xp.unique(np.zeros((2, 2)), axis=1.0), name="unique")


def test_error_unique_flag_not_bool():
    H.raises_like(TypeError, "unique", prim.unique, np.zeros(3), return_counts="yes")


def test_error_unique_bad_variant():
    H.raises_like(ValueError, "unique", prim.unique, np.zeros(3), variant="hash")

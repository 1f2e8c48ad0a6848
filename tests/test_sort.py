"""Radix sort family vs NumPy's stable sort: every variant x key dtype x values x order, awkward
sizes, stability, float special values, bit ranges, onesweep's pass skipping and portions,
segmented sorts, hypothesis properties, and every error branch."""

import contextlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import primitives as prim
from primitives._core import launch as _launch, lookback as _lookback
from primitives.testing import oracle as _oracle
from primitives import sorting

from conftest import ragged_offsets, to_host

KEY_DTYPES = sorting.KEY_DTYPES
VARIANTS = sorting.VARIANTS
# tiles of onesweep (keys only, per key width) and classic
OS_TILE = {kb: sorting._OS_POLICY[(kb, 0)][0] * sorting._OS_POLICY[(kb, 0)][1] for kb in (4, 8)}
CL_TILE = sorting._CL_BLOCK * sorting._CL_ITEMS


def bits_of(x):
    return np.ascontiguousarray(x).view(f"u{x.dtype.itemsize}")


def make_keys(rng, n, dt, dups=False):
    """Random keys: full-range integers or, with ``dups``, a handful of distinct values; floats
    seeded with NaNs of both signs, +-0.0, +-inf and subnormals."""
    dt = np.dtype(dt)
    if dt.kind == "f":
        x = (rng.standard_normal(n) * 1e3).astype(dt)
        if dups:
            x = rng.integers(-2, 3, n).astype(dt)
        special = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0,
                            np.finfo(dt).smallest_subnormal, -np.finfo(dt).smallest_subnormal * 3],
                           dtype=dt)
        where = rng.random(n) < 0.2
        x[where] = rng.choice(special, int(where.sum()))
        return x
    info = np.iinfo(dt)
    if dups:
        return rng.integers(max(info.min, -2), 3, n).astype(dt)
    return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)


def stable_order(x, descending=False):
    """numpy's stable order; descending: largest first, equal keys (NaNs too) in input order."""
    if not descending:
        return np.argsort(x, kind="stable")
    return (x.size - 1 - np.argsort(x[::-1], kind="stable"))[::-1]


def make_values(rng, n, vdt):
    vdt = np.dtype(vdt)
    if vdt == np.bool_:
        return rng.random(n) < 0.5
    if vdt.kind == "c":
        return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(vdt)
    return (rng.random(n) * 1000).astype(vdt)


def check_sorted(x, order, got_keys, got_values=None, values=None):
    got_keys = to_host(got_keys)
    assert got_keys.dtype == x.dtype and got_keys.shape == x.shape
    bad = np.flatnonzero(bits_of(got_keys) != bits_of(x[order]))
    assert bad.size == 0, f"keys differ first at {bad[:5]}: {got_keys[bad[:5]]} vs " \
                          f"{x[order][bad[:5]]}"
    if values is not None:
        got_values = to_host(got_values)
        assert got_values.dtype == values.dtype
        assert np.array_equal(got_values, values[order])


# ---- the main matrix --------------------------------------------------------------------------

VALUE_KINDS = {"keys": None, "v4": np.float32, "v8": np.int64}


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("vkind", list(VALUE_KINDS))
@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("variant", VARIANTS)
def test_matrix(variant, dtype, vkind, descending, rng, schedule):
    n = 9001  # two or three tiles of every variant
    x = make_keys(rng, n, dtype, dups=rng.random() < 0.5)
    order = stable_order(x, descending)
    vdt = VALUE_KINDS[vkind]
    if vdt is None:
        check_sorted(x, order, prim.radix_sort(x, descending=descending, variant=variant))
    else:
        v = make_values(rng, n, vdt)
        k, got_v = prim.radix_sort(x, v, descending=descending, variant=variant)
        check_sorted(x, order, k, got_v, v)


def _sizes(variant, itemsize):
    tile = {"onesweep": OS_TILE[itemsize], "classic": CL_TILE, "split": 4096}[variant]
    return sorted({0, 1, 2, 31, 32, 33, 255, 257, tile - 1, tile, tile + 1, 2 * tile + 77})


@pytest.mark.parametrize("dtype", [np.uint32, np.float64], ids=["uint32", "float64"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_awkward_sizes(variant, dtype, rng, schedule):
    dt = np.dtype(dtype)
    for n in _sizes(variant, dt.itemsize):
        x = make_keys(rng, n, dt, dups=n % 2 == 0)
        v = np.arange(n, dtype=np.uint32)
        k, got_v = prim.radix_sort(x, v, variant=variant)
        check_sorted(x, stable_order(x), k, got_v, v)


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: d.name)
def test_sort_and_argsort_match_numpy(dtype, descending, rng):
    x = make_keys(rng, 7001, dtype, dups=True)
    order = stable_order(x, descending)
    got = prim.argsort(x, descending=descending)
    assert got.dtype == np.int64 and np.array_equal(got, order)
    check_sorted(x, order, prim.sort(x, descending=descending))
    if not descending:
        assert np.array_equal(prim.sort(x), np.sort(x, kind="stable"),
                              equal_nan=x.dtype.kind == "f")


@pytest.mark.parametrize("variant", VARIANTS)
def test_argsort_variants(variant, rng, schedule):
    for dt in (np.int32, np.float64):
        x = make_keys(rng, 5000, dt, dups=True)
        for desc in (False, True):
            got = prim.argsort(x, descending=desc, variant=variant)
            assert got.dtype == np.int64 and np.array_equal(got, stable_order(x, desc))


# ---- stability, floats, order -----------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_stability_with_duplicate_heavy_keys(variant, rng):
    x = rng.integers(0, 3, 20000).astype(np.uint16)
    idx = np.arange(x.size, dtype=np.int64)
    k, v = prim.radix_sort(x, idx, variant=variant)
    for key in range(3):
        got = v[k == key]
        assert np.all(np.diff(got) > 0), "equal keys must keep their input order"
    _, vd = prim.radix_sort(x, idx, descending=True, variant=variant)
    assert np.array_equal(vd, stable_order(x, True))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_float_special_values(variant, dtype):
    dt = np.dtype(dtype)
    tiny = np.finfo(dt).smallest_subnormal
    x = np.array([1.0, np.nan, -0.0, 0.0, -np.inf, np.inf, -np.nan, tiny, -tiny, -0.0, -1.0, 0.0,
                  np.nan, -5.0, 3.0], dtype=dt)
    payload = bits_of(x)
    payload[12] |= 1  # a NaN with another payload keeps it
    got = prim.sort(x, variant=variant)
    check_sorted(x, stable_order(x), got)
    assert np.isnan(got[-3:]).all() and not np.isnan(got[:-3]).any()
    # -0.0 and 0.0 compare equal: input order kept (-0.0, 0.0, -0.0, 0.0)
    zeros = np.flatnonzero(got == 0)
    assert list(np.signbit(got[zeros])) == [True, False, True, False]
    desc = prim.sort(x, descending=True, variant=variant)
    assert np.isnan(desc[:3]).all(), "descending puts NaNs first"
    assert bits_of(desc)[:3].tolist() == payload[[1, 6, 12]].tolist()  # in input order
    assert desc[3] == np.inf and desc[-1] == -np.inf


def test_descending_is_not_a_reversed_ascending_sort():
    x = np.array([2, 1, 2, 1], dtype=np.int32)
    assert prim.argsort(x, descending=True).tolist() == [0, 2, 1, 3]
    assert prim.argsort(x).tolist() == [1, 3, 0, 2]


@pytest.mark.parametrize("variant", VARIANTS)
def test_bit_range(variant, rng):
    x = rng.integers(0, 2**32, 6000, dtype=np.uint64).astype(np.uint32)
    k = prim.radix_sort(x, begin_bit=8, end_bit=20, variant=variant)
    field = (x >> np.uint32(8)) & np.uint32(0xFFF)
    assert np.array_equal(k, x[np.argsort(field, kind="stable")])
    # signed keys: the range is over the order-preserving image (sign bit flipped)
    y = rng.integers(-2**31, 2**31, 6000).astype(np.int32)
    image = y.view(np.uint32) ^ np.uint32(1 << 31)
    k = prim.radix_sort(y, begin_bit=24, end_bit=32, variant=variant)
    assert np.array_equal(k, y[np.argsort(image >> np.uint32(24), kind="stable")])
    # floats: over the image of radix_sort's docstring (NaNs folded, negative numbers negated)
    f = rng.standard_normal(6000).astype(np.float32)
    f[::7], f[::11], f[5], f[13] = -0.0, 0.0, np.nan, -np.nan
    field = _oracle.radix_image(f) & np.uint32(0xFFF)  # low bits: the negation's + 1 shows
    k = prim.radix_sort(f, begin_bit=0, end_bit=12, variant=variant)
    assert np.array_equal(bits_of(k), bits_of(f[np.argsort(field, kind="stable")]))
    # an empty range keeps the input order
    k, v = prim.radix_sort(x, np.arange(x.size), begin_bit=5, end_bit=5, variant=variant)
    assert np.array_equal(k, x) and np.array_equal(v, np.arange(x.size))


@pytest.mark.parametrize("vdt", [np.bool_, np.int8, np.float16, np.complex128],
                         ids=["bool", "int8", "float16", "complex128"])
def test_values_of_other_widths_go_through_a_permutation(vdt, rng):
    x = make_keys(rng, 3000, np.int32, dups=True)
    v = make_values(rng, x.size, vdt)
    order = stable_order(x)
    for variant in VARIANTS:
        k, got = prim.radix_sort(x, v, variant=variant)
        check_sorted(x, order, k, got, v)
    k, got = prim.segmented_sort(x, np.array([0, 1000, x.size]), v)
    assert np.array_equal(got, v[np.concatenate([np.argsort(x[:1000], kind="stable"),
                                                 1000 + np.argsort(x[1000:], kind="stable")])])


def test_inputs_are_not_modified_and_views_work(rng):
    x = make_keys(rng, 5001, np.float32)
    keep = x.copy()
    v = np.arange(x.size, dtype=np.int32)
    prim.radix_sort(x, v)
    assert np.array_equal(bits_of(x), bits_of(keep)) and np.array_equal(v, np.arange(x.size))
    sub = x[1::2]  # strided view, and an offset start (not 16-byte aligned)
    check_sorted(sub, stable_order(sub), prim.sort(sub))
    off = x[3:]
    check_sorted(off, stable_order(off), prim.sort(off))


def test_list_input_gives_numpy():
    got = prim.sort([3, 1, 2])
    assert isinstance(got, np.ndarray) and got.tolist() == [1, 2, 3]


# ---- onesweep specifics -----------------------------------------------------------------------


@pytest.mark.parametrize("pattern", ["all_equal", "low_byte", "middle_byte", "high_byte",
                                     "two_bytes"])
def test_onesweep_skips_constant_digits(pattern, rng, schedule):
    n = 2 * OS_TILE[4] + 5
    r = rng.integers(0, 256, n).astype(np.uint32)
    base = np.uint32(0x5A3C7E11)
    x = {"all_equal": np.full(n, base, np.uint32),
         "low_byte": (base & np.uint32(0xFFFFFF00)) | r,
         "middle_byte": (base & np.uint32(0xFF00FFFF)) | (r << np.uint32(16)),
         "high_byte": (base & np.uint32(0x00FFFFFF)) | (r << np.uint32(24)),
         "two_bytes": ((base & np.uint32(0x00FF00FF)) | (r << np.uint32(24))
                       | (r[::-1] << np.uint32(8))),
         }[pattern]
    order = stable_order(x)
    v = rng.random(n).astype(np.float64)
    k, got_v = prim.radix_sort(x, v, variant="onesweep")
    check_sorted(x, order, k, got_v, v)
    assert np.array_equal(prim.argsort(x), order)
    check_sorted(x, order, prim.sort(x))
    check_sorted(x, stable_order(x, True), prim.sort(x, descending=True))


def test_onesweep_repeated_calls_alternate_epochs(rng):
    # the look-back status words are never cleared: each run's epoch bit must differ from the
    # previous run's, whatever number of passes the device skipped in between
    n = 3 * OS_TILE[4] + 1
    for i in range(6):
        width = [32, 8, 16, 24, 1, 32][i]
        x = (rng.integers(0, 2**32, n, dtype=np.uint64) % (1 << width)).astype(np.uint32)
        check_sorted(x, stable_order(x), prim.sort(x))


@pytest.fixture
def fresh_plans(monkeypatch):
    """Empty plan caches for the test (plans keep the policies they were made under); returns
    the table of filed plans (sorting._direct)."""
    for name in ("_os_plans", "_os_scratch", "_direct"):
        monkeypatch.setattr(sorting, name, _lookback.PlanCache())
    return sorting._direct


def test_onesweep_portions(monkeypatch, rng, schedule, fresh_plans):
    # inputs past 2^29 keys run in portions; make portions two tiles long to exercise them
    monkeypatch.setattr(sorting, "_COUNT_LIMIT", 2 * OS_TILE[4] + 100)
    for dt, n in ((np.uint32, 5 * OS_TILE[4] + 33), (np.float64, 4 * OS_TILE[8] + 1)):
        x = make_keys(rng, n, dt)
        v = np.arange(n, dtype=np.uint64)
        k, got_v = prim.radix_sort(x, v)
        check_sorted(x, stable_order(x), k, got_v, v)
        assert np.array_equal(prim.argsort(x, descending=True), stable_order(x, True))


def test_onesweep_plan_kernel_skips_and_orders_buffers():
    n = 1000
    x = np.full(n, 7, dtype=np.uint64)
    x[::3] = 7 | (1 << 40)  # only the digit of bits 40..47 varies
    sorting.sort(x)
    key = next(k for k in sorting._os_scratch._plans if k[:3] == (8, 0, n))
    plan = to_host(sorting._os_scratch._plans[key].plan).reshape(-1, sorting._OS_PLAN_WORDS)
    assert plan[:, 0].tolist() == [0, 0, 0, 0, 0, 1, 0, 0]  # one active pass
    assert plan[5, 1] == 1 and plan[5, 2] == 1  # it reads the input and writes the output


def test_onesweep_plan_folds_floats_only_when_needed():
    # the histogram pass flags NaN keys; only then do the passes fold float images (-0.0 needs
    # no fold: its image, a negation, is +0.0's)
    def fold_word(x):
        sorting.sort(x)
        key = next(k for k in sorting._os_scratch._plans if k[:3] == (x.dtype.itemsize, 0, x.size))
        plan = to_host(sorting._os_scratch._plans[key].plan).reshape(-1, sorting._OS_PLAN_WORDS)
        return set(plan[:, 6].tolist())

    rng = np.random.default_rng(8)
    for dt in (np.float32, np.float64):
        plain = rng.standard_normal(3001).astype(dt)
        assert fold_word(plain) == {0}
        for special, fold in ((np.nan, 1), (-np.nan, 1), (-0.0, 0), (0.0, 0)):
            x = plain.copy()
            x[1717] = special
            x[2000] = -special  # both signs: equal, so kept in input order
            assert fold_word(x) == {fold}
            got = to_host(sorting.sort(x))
            assert np.array_equal(got.view(f"u{x.itemsize}"),
                                  np.sort(x, kind="stable").view(f"u{x.itemsize}"))
        assert fold_word(plain) == {0}  # the flag does not stick to the next sort
    assert fold_word(rng.integers(-9, 9, 3001).astype(np.int32)) == {0}


def run_os_hist(backend, x, offset, n, begin, end, descending, grid=None):
    """onesweep_histogram over x[offset:offset + n] (a device view: offset 1-3 is not 16-byte
    aligned), with the library's grid or the given one."""
    kb = x.itemsize
    kh = sorting._kernel(sorting._OS_SOURCE,
                         f"onesweep_histogram<{sorting._C[kb]}, {sorting._OS_HIST_BLOCK}>")
    keys = backend.xp.asarray(bits_of(x))[offset:offset + n]
    passes = -(-(end - begin) // 8)
    hist = backend.xp.zeros(passes * 256 + 1, np.uint32)
    _launch.set_dynamic_shared(kh, sorting._OS_HIST_SMEM)
    if grid is None:
        grid = sorting._os_hist_grid(kh, n, kb)
    _launch.launch(kh, grid, sorting._OS_HIST_BLOCK,
                   (keys, np.int64(n), np.int32(sorting._KIND[x.dtype.kind]),
                    np.int32(descending), np.int32(begin), np.int32(end), hist),
                   shared_mem=sorting._OS_HIST_SMEM)
    return to_host(hist)


@pytest.mark.parametrize("dtype", [np.uint32, np.int32, np.float32, np.uint64, np.int64,
                                   np.float64], ids=lambda d: np.dtype(d).name)
def test_onesweep_histogram_kernel(dtype, backend, rng, schedule):
    # the all-pass histogram against NumPy: scalar heads of misaligned views, tails, grids with
    # idle blocks, partial bit ranges, descending images, repeated and all-equal keys
    dt = np.dtype(dtype)
    bits = 8 * dt.itemsize
    x = make_keys(rng, 70011, dt)
    dups = make_keys(rng, 30003, dt, dups=True)
    same = np.full(20005, make_keys(rng, 1, dt)[0], dt)
    cases = [(x, 0, 70011, 0, bits, False, None),
             (x, 1, 70007, 0, bits, True, None),
             (x, 3, 5000, 3, bits - 5, False, 7),  # blocks 2.. have no packets
             (x, 1, 3, 0, bits, False, 4),  # 4-byte keys: every key in the head
             (x, 1, 41, 9, 10, True, None),  # one pass, one bit
             (x, 0, 9001, 4, 4 + 8 * (bits // 8 - 1), True, 2),  # one pass fewer than all
             (dups, 1, 30001, 0, bits, False, None),
             (same, 0, 20005, 0, bits, False, None),
             (same, 3, 20001, 0, bits, True, 3)]
    for keys, offset, n, begin, end, desc, grid in cases:
        got = run_os_hist(backend, keys, offset, n, begin, end, desc, grid)
        want = _oracle.radix_histogram(keys[offset:offset + n], begin, end, desc)
        bad = np.flatnonzero(got != want)
        assert bad.size == 0, (f"offset {offset} n {n} bits [{begin}, {end}) desc {desc} grid "
                               f"{grid}: words {bad[:5]} are {got[bad[:5]]}, not {want[bad[:5]]}")


def test_onesweep_histogram_16_bit_halves_at_the_limit(backend):
    # 8-byte keys count two passes per word (16-bit halves): one block at the largest share the
    # grid sizing gives a thread, every key of a lane column on one counter, must not carry over
    block, per = sorting._OS_HIST_BLOCK, 2
    per_thread = (0xFFFF // (block // 32) - 2) // per * per
    n = 1 + per_thread * block + 1  # a head key, whole packets, a tail key
    x = np.full(n + 1, 0x0123456789ABCDEF, np.uint64)
    got = run_os_hist(backend, x, 1, n, 0, 64, False, grid=1)
    assert np.array_equal(got, _oracle.radix_histogram(x[1:n + 1], 0, 64, False))


def test_onesweep_histogram_grid_bounds_the_counters():
    # every lane column of a block (BLOCK / 32 threads) stays below its counters' limit
    block = sorting._OS_HIST_BLOCK
    for kb in (4, 8):
        kh = sorting._kernel(sorting._OS_SOURCE, f"onesweep_histogram<{sorting._C[kb]}, {block}>")
        _launch.set_dynamic_shared(kh, sorting._OS_HIST_SMEM)
        resident = _launch.resident_grid(kh, block, sorting._OS_HIST_SMEM)
        per = 16 // kb
        for n in (1, 1000, 2**21 + 3, 2**27, 10**9 + 7, 2**32 - 1):
            grid = sorting._os_hist_grid(kh, n, kb)
            packets = -(-(n // per) // (grid * block))  # the most a thread takes
            column = block // 32 * (packets * per + 2)
            assert column <= (0xFFFF if kb == 8 else 0xFFFFFFFF), (kb, n, grid)
            assert grid <= resident or grid % resident == 0, (kb, n, grid)  # whole waves


# ---- repeated calls: the filed plan (sorting._direct) -----------------------------------------

DIRECT_DTYPES = [np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64]


def _refuse(*args, **kwargs):
    raise AssertionError("the checks ran")


@contextlib.contextmanager
def _no_checks(monkeypatch):
    """Within it, any call that takes the checked path fails."""
    with monkeypatch.context() as m:
        for name in ("_keys_input", "_radix_sort", "_argsort"):
            m.setattr(sorting, name, _refuse)
        yield


@pytest.mark.parametrize("dtype", DIRECT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_repeated_calls_take_the_filed_plan(dtype, backend, rng, fresh_plans, monkeypatch):
    """sort, argsort and radix_sort (with values of 4 and 8 bytes, with a bit range) of arrays
    of the backend's own type file their onesweep plan; a later call on arrays of the same
    dtypes, shapes, strides, bit range and order launches it without the checks and sorts its
    own data as NumPy does."""
    xp = backend.xp
    n = 2 * OS_TILE[np.dtype(dtype).itemsize] + 77
    calls = {
        "sort": lambda x, v, desc: prim.sort(x, descending=desc),
        "argsort": lambda x, v, desc: prim.argsort(x, descending=desc),
        "radix_sort f32": lambda x, v, desc: prim.radix_sort(x, v.astype(np.float32),
                                                             descending=desc),
        "radix_sort i64 bits": lambda x, v, desc: prim.radix_sort(x, v, begin_bit=3, end_bit=20,
                                                                  descending=desc),
    }
    for desc in (False, True):
        for name, call in calls.items():
            x1, x2 = make_keys(rng, n, dtype), make_keys(rng, n, dtype, dups=True)
            v1, v2 = (xp.asarray(rng.integers(-9, 2**40, n)) for _ in range(2))
            d1, d2 = xp.asarray(x1), xp.asarray(x2)
            before = len(fresh_plans._plans)
            first = call(d1, v1, desc)
            assert len(fresh_plans._plans) == before + 1, name
            with _no_checks(monkeypatch):
                second = call(d2, v2, desc)
            for x, v, got in ((x1, v1, first), (x2, v2, second)):
                v = to_host(v)
                if name == "argsort":
                    assert to_host(got).dtype == np.int64
                    assert np.array_equal(to_host(got), stable_order(x, desc))
                elif name == "sort":
                    assert type(got) is type(d2)
                    check_sorted(x, stable_order(x, desc), got)
                elif name == "radix_sort f32":
                    order = stable_order(x, desc)
                    check_sorted(x, order, got[0], got[1], v.astype(np.float32))
                else:
                    image = _oracle.radix_image(x, desc)
                    order = np.argsort((image >> image.dtype.type(3)) &
                                       image.dtype.type((1 << 17) - 1), kind="stable")
                    assert np.array_equal(bits_of(to_host(got[0])), bits_of(x[order]))
                    assert np.array_equal(to_host(got[1]), v[order])


def test_filed_plans_keep_the_checks(backend, rng, fresh_plans):
    """A filed plan serves only inputs that passed the same checks: other order types, variants,
    strides, shapes and dtypes take the checked path and its errors."""
    xp = backend.xp
    n = 5000
    x = make_keys(rng, n, np.float32)
    d = xp.asarray(x)
    prim.sort(d, descending=True)
    assert len(fresh_plans._plans) == 1
    with pytest.raises(TypeError, match="descending must be a bool"):
        prim.sort(d, descending=1)
    with pytest.raises(TypeError, match="descending must be a bool"):
        prim.argsort(d, descending=1)
    with pytest.raises(ValueError, match="variant"):
        prim.sort(d, variant="bogus")
    check_sorted(x, stable_order(x, True), prim.sort(d, descending=np.bool_(True)))
    wide = make_keys(rng, 2 * n, np.float32)
    for _ in range(2):  # same shape, strided: copied first, never filed
        check_sorted(wide[::2], stable_order(wide[::2], True),
                     prim.sort(xp.asarray(wide)[::2], descending=True))
    with pytest.raises(ValueError, match="1-D"):
        prim.sort(d.reshape(2, n // 2), descending=True)
    for variant in ("split", "classic"):
        check_sorted(x, stable_order(x), prim.sort(d, variant=variant))
    small = make_keys(rng, n, np.int16)
    check_sorted(small, stable_order(small), prim.sort(xp.asarray(small)))
    prim.sort(xp.asarray(small))
    assert to_host(prim.sort(xp.asarray(x[:0]))).size == 0
    # filed: onesweep only (also by its name), keys of 4 or 8 bytes, bool orders
    prim.sort(d, variant="onesweep")
    assert sorted((k[7], k[8]) for k in fresh_plans._plans) == [(False, "onesweep"),
                                                                 (True, "auto")]
    # values that are not read as they are (1 byte, strided) are never filed
    v8 = xp.asarray(rng.integers(0, 100, n).astype(np.uint8))
    v4 = xp.asarray(rng.integers(0, 100, 2 * n).astype(np.uint32))[::2]
    for v in (v8, v8, v4, v4):
        k2, got_v = prim.radix_sort(d, v)
        check_sorted(x, stable_order(x), k2, got_v, to_host(v))
    with pytest.raises(ValueError, match="values has"):
        prim.radix_sort(d, v8[:-1])
    assert len(fresh_plans._plans) == 2


def test_filed_plans_are_per_stream(backend, rng, fresh_plans):
    if not backend.is_cuda:
        pytest.skip("streams are the GPU's")
    import cupy

    x = make_keys(rng, 40000, np.uint32)
    d = cupy.asarray(x)
    prim.sort(d)
    prim.sort(d)
    with cupy.cuda.Stream(non_blocking=True) as s:
        got = prim.sort(d)
        got2 = prim.sort(d)
        s.synchronize()
    check_sorted(x, stable_order(x), got)
    check_sorted(x, stable_order(x), got2)
    assert len({k[-1] for k in fresh_plans._plans}) == 2


# ---- segmented sort ---------------------------------------------------------------------------



def segment_order(x, offsets, descending=False):
    parts = [a + stable_order(x[a:b], descending) for a, b in zip(offsets[:-1], offsets[1:])]
    return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)


@pytest.mark.parametrize("max_len", [1, 7, 128, 129, 700, 2048, 5000])
@pytest.mark.parametrize("dtype", [np.uint32, np.int64, np.float32, np.int16],
                         ids=["uint32", "int64", "float32", "int16"])
def test_segmented_sort(dtype, max_len, rng, schedule):
    n = 6000 if max_len < 2048 else 9000
    x = make_keys(rng, n, dtype, dups=max_len % 2 == 1)
    off = ragged_offsets(rng, n, max_len)
    if max_len >= 2048:  # make sure the longest segment really is that long
        off = np.unique(np.concatenate([off[off < n - max_len], [n - max_len, n]]))
    for desc in (False, True):
        order = segment_order(x, off, desc)
        check_sorted(x, order, prim.segmented_sort(x, off, descending=desc))
        v = np.arange(n, dtype=np.float64)
        k, got_v = prim.segmented_sort(x, off, v, descending=desc)
        check_sorted(x, order, k, got_v, v)


def test_segmented_sort_equal_rows_match_numpy_axis(rng):
    x = make_keys(rng, 64 * 100, np.float32).reshape(100, 64)
    off = np.arange(0, x.size + 1, 64)
    got = prim.segmented_sort(x.reshape(-1), off).reshape(100, 64)
    assert np.array_equal(bits_of(got), bits_of(np.sort(x, axis=-1, kind="stable")))


def test_segmented_sort_edge_cases():
    x = np.array([3, 1, 2], dtype=np.int32)
    assert prim.segmented_sort(x, [0, 0, 3, 3]).tolist() == [1, 2, 3]
    assert prim.segmented_sort(x, [0, 1, 2, 3]).tolist() == [3, 1, 2]
    k, v = prim.segmented_sort(np.zeros(0, np.float32), [0], np.zeros(0, np.int8))
    assert k.size == 0 and v.size == 0 and v.dtype == np.int8
    assert prim.segmented_sort(np.array([5.0]), [0, 1]).tolist() == [5.0]


# ---- hypothesis -------------------------------------------------------------------------------

key_dtypes = st.sampled_from(KEY_DTYPES)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), dtype=key_dtypes, variant=st.sampled_from(VARIANTS),
       descending=st.booleans())
def test_hypothesis_matches_numpy_stable_sort(data, dtype, variant, descending):
    x = data.draw(hnp.arrays(dtype, st.integers(0, 300)), label="keys")
    v = np.arange(x.size, dtype=np.int32)
    k, got_v = prim.radix_sort(x, v, descending=descending, variant=variant)
    check_sorted(x, stable_order(x, descending), k, got_v, v)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), dtype=key_dtypes)
def test_hypothesis_segmented(data, dtype):
    x = data.draw(hnp.arrays(dtype, st.integers(0, 400)), label="keys")
    cuts = data.draw(st.lists(st.integers(0, x.size), max_size=12), label="cuts")
    off = np.array([0] + sorted(cuts) + [x.size], dtype=np.int64)
    check_sorted(x, segment_order(x, off), prim.segmented_sort(x, off))


# ---- errors -------------------------------------------------------------------------------------


def test_error_keys_not_an_array():
    with pytest.raises(TypeError, match="radix_sort: keys must be an array"):
        prim.radix_sort("abc")


def test_error_keys_not_1d():
    with pytest.raises(ValueError, match="keys must be 1-D"):
        prim.sort(np.zeros((2, 2), np.float32))


def test_error_key_dtype():
    with pytest.raises(TypeError, match="keys has dtype float16"):
        prim.sort(np.zeros(3, np.float16))
    with pytest.raises(TypeError, match="keys has dtype complex64"):
        prim.argsort(np.zeros(3, np.complex64))


def test_error_values_not_1d():
    with pytest.raises(ValueError, match="values must be 1-D"):
        prim.radix_sort(np.zeros(4, np.uint32), np.zeros((2, 2), np.uint32))


def test_error_values_length():
    with pytest.raises(ValueError, match="values has 3 elements, keys has 4"):
        prim.radix_sort(np.zeros(4, np.uint32), np.zeros(3, np.uint32))


def test_error_bit_range_outside_key():
    with pytest.raises(ValueError, match=r"end_bit=33.*<= 32"):
        prim.radix_sort(np.zeros(4, np.uint32), end_bit=33)
    with pytest.raises(ValueError, match=r"end_bit=9.*<= 8"):
        prim.radix_sort(np.zeros(4, np.int8), end_bit=9)
    with pytest.raises(ValueError, match="begin_bit=-1"):
        prim.radix_sort(np.zeros(4, np.uint64), begin_bit=-1)


def test_error_bit_range_reversed():
    with pytest.raises(ValueError, match="begin_bit=10, end_bit=4"):
        prim.radix_sort(np.zeros(4, np.uint32), begin_bit=10, end_bit=4)


def test_error_bit_not_int():
    with pytest.raises(TypeError, match="end_bit must be an int, got float"):
        prim.radix_sort(np.zeros(4, np.uint32), end_bit=8.0)


def test_error_descending_not_bool():
    with pytest.raises(TypeError, match="descending must be a bool, got str"):
        prim.sort(np.zeros(4, np.uint32), descending="yes")


def test_error_variant():
    with pytest.raises(ValueError, match="variant must be 'auto' or one of"):
        prim.radix_sort(np.zeros(4, np.uint32), variant="bitonic")


def test_error_offsets_dtype():
    with pytest.raises(TypeError, match="offsets must be an integer array, got dtype float64"):
        prim.segmented_sort(np.zeros(4, np.uint32), np.array([0.0, 4.0]))


def test_error_offsets_empty():
    with pytest.raises(ValueError, match="offsets must hold at least one value"):
        prim.segmented_sort(np.zeros(4, np.uint32), np.zeros(0, np.int64))


def test_error_offsets_decreasing():
    with pytest.raises(ValueError, match=r"non-decreasing \(1 decreasing steps\)"):
        prim.segmented_sort(np.zeros(4, np.uint32), [0, 3, 2, 4])


def test_error_offsets_not_covering():
    with pytest.raises(ValueError, match="start at 0 and end at keys.size=4"):
        prim.segmented_sort(np.zeros(4, np.uint32), [0, 3])
    with pytest.raises(ValueError, match="got 1 .. 4"):
        prim.segmented_sort(np.zeros(4, np.uint32), [1, 4])


def test_error_segmented_values_length():
    with pytest.raises(ValueError, match="values has 2 elements, keys has 4"):
        prim.segmented_sort(np.zeros(4, np.uint32), [0, 4], np.zeros(2))


def test_errors_come_before_empty_input_returns():
    with pytest.raises(TypeError):
        prim.sort(np.zeros(0, np.float16))
    with pytest.raises(ValueError):
        prim.radix_sort(np.zeros(0, np.uint32), end_bit=40)


def test_empty_and_single_element():
    for variant in VARIANTS:
        e = prim.radix_sort(np.zeros(0, np.int16), variant=variant)
        assert e.dtype == np.int16 and e.size == 0
        k, v = prim.radix_sort(np.zeros(0, np.float64), np.zeros(0, np.int32), variant=variant)
        assert k.size == 0 and v.dtype == np.int32
        k, v = prim.radix_sort(np.array([-3.5]), np.array([9], np.int64), variant=variant)
        assert k.tolist() == [-3.5] and v.tolist() == [9]
        assert prim.argsort(np.array([4], np.uint8), variant=variant).tolist() == [0]
    a = prim.argsort(np.zeros(0, np.uint32))
    assert a.dtype == np.int64 and a.size == 0


# ---- the GPU ------------------------------------------------------------------------------------


@pytest.mark.gpu
def test_device_arrays_stay_on_device(backend, rng):
    if not backend.is_cuda:
        pytest.skip("needs the CUDA backend")
    import cupy

    x = cupy.asarray(make_keys(rng, 100_003, np.float32))
    v = cupy.arange(x.size, dtype=cupy.int64)
    k, got_v = prim.radix_sort(x, v)
    assert isinstance(k, cupy.ndarray) and isinstance(got_v, cupy.ndarray)
    hx = x.get()
    check_sorted(hx, stable_order(hx), k, got_v, v.get())
    assert bool(cupy.array_equal(prim.argsort(x), cupy.asarray(stable_order(hx))))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.uint32, np.int64, np.float32], ids=["u32", "i64", "f32"])
def test_large_on_gpu(backend, dtype, rng):
    if not backend.is_cuda:
        pytest.skip("needs the CUDA backend")
    import cupy

    n = (1 << 24) + 12345
    hx = make_keys(rng, n, dtype)
    x = cupy.asarray(hx)
    order = stable_order(hx)
    got = prim.argsort(x)
    assert np.array_equal(got.get(), order)
    for variant in VARIANTS[1:]:
        check_sorted(hx, order, prim.sort(x, variant=variant))
    off = cupy.arange(0, n + 1, 1000, dtype=cupy.int64)
    off[-1] = n
    ho = off.get()
    check_sorted(hx, segment_order(hx, ho), prim.segmented_sort(x, off))


@pytest.mark.parametrize("policy", [(256, 8, 1, 1, 0), (512, 6, 1, 4, 1)],
                         ids=["ballot-window1", "atomic_or-block512"])
def test_onesweep_other_policies(policy, monkeypatch, rng, schedule, fresh_plans):
    # the tuning script sweeps these template parameters: every choice must sort correctly
    monkeypatch.setitem(sorting._OS_POLICY, (4, 0), policy)
    monkeypatch.setitem(sorting._OS_POLICY, (4, 4), policy)
    n = 4 * policy[0] * policy[1] + 17
    x = make_keys(rng, n, np.float32, dups=True)
    check_sorted(x, stable_order(x, True), prim.sort(x, descending=True))
    assert np.array_equal(prim.argsort(x), stable_order(x))

"""Radix sort family vs NumPy's stable sort: every variant x key dtype x values x order, awkward
sizes, stability, float special values, bit ranges, onesweep's pass skipping and portions, other
tuning policies, filed and explicit plans, segmented sorts, hypothesis properties, and every
error branch."""

import dataclasses
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import primitives as prim
from primitives import sorting
from primitives._core import checks as _checks, dtypes as _dtypes, launch as _launch
from primitives._core import plans as _plans
from primitives.sorting import _block, _choose, _kernels, _onesweep
from primitives.testing import harness as H
from primitives.testing import oracle as _oracle
from primitives.testing.oracle import sort_order

from tests.conftest import race_sample, ragged_offsets

KEY_DTYPES = sorting.KEY_DTYPES
VARIANTS = sorting.VARIANTS
KIND = {"u": 0, "i": 1, "f": 2}  # prim::radix::KeyKind
to_host = H.to_host


def tile(selector):
    pol = prim.tuning.policy("sort", selector)
    return pol.block * pol.items


# tiles of onesweep (keys only, per key width) and classic; the block sort's capacity and the
# largest n auto gives it (per key width: 1- and 2-byte keys sort as 4-byte images)
OS_TILE = {kb: tile((kb, 0)) for kb in (2, 4, 8)}
CL_TILE = tile("classic")
BLOCK_CAP = {kb: prim.tuning.policy("sort", "block").capacity(max(kb, 4)) for kb in (1, 2, 4, 8)}
BLOCK_AUTO = {kb: prim.tuning.policy("sort", "block").auto_max(max(kb, 4)) for kb in (1, 2, 4, 8)}


def bits_of(x):
    return np.ascontiguousarray(x).view(f"u{x.dtype.itemsize}")


def make_keys(rng, n, dt, dups=False):
    """Random keys: full-range integers or, with ``dups``, a handful of distinct values; floats
    seeded with NaNs of both signs, +-0.0, +-inf and subnormals."""
    dt = np.dtype(dt)
    if _dtypes.is_float(dt):
        x = (rng.standard_normal(n) * 1e3).astype(dt)
        if dups:
            x = rng.integers(-2, 3, n).astype(dt)
        special = np.array(
            [
                np.nan,
                -np.nan,
                np.inf,
                -np.inf,
                0.0,
                -0.0,
                1.0,
                -1.0,
                _dtypes.finfo(dt).smallest_subnormal,
                -_dtypes.finfo(dt).smallest_subnormal * 3,
            ],
            dtype=dt,
        )
        where = rng.random(n) < 0.2
        x[where] = rng.choice(special, int(where.sum()))
        return x
    info = np.iinfo(dt)
    if dups:
        return rng.integers(max(info.min, -2), 3, n).astype(dt)
    return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)


def stable_order(x, descending=False):
    """numpy's stable order; descending: radix_sort's, largest first, equal keys (NaNs too,
    first) in input order (NumPy's descending order, NaNs last: oracle.sort_order)."""
    if not descending:
        return np.argsort(x, kind="stable")
    return (x.size - 1 - np.argsort(x[::-1], kind="stable"))[::-1]


def stable(xp, name, x):
    """``numpy.sort``/``numpy.argsort`` with ``kind="stable"``, or primitives' (always stable):
    the twin bodies."""
    f = getattr(xp, name)
    return f(x, kind="stable") if xp is np else f(x)


def make_values(rng, n, vdt):
    vdt = np.dtype(vdt)
    if vdt == np.bool_:
        return rng.random(n) < 0.5
    if vdt.kind == "c":
        return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(vdt)
    return (rng.random(n) * 1000).astype(vdt)


def check_sorted(x, order, got_keys, got_values=None, values=None):
    """``got_keys`` is ``x[order]`` bit for bit (NaN payloads, signs of zeros) in x's dtype, and
    ``got_values`` is ``values[order]``."""
    got_keys = to_host(got_keys)
    assert got_keys.dtype == x.dtype
    H.assert_same(bits_of(got_keys), bits_of(x[order]), what="keys")
    if values is not None:
        H.assert_same(got_values, values[order], what="values")


def filed(func, *args, **kwargs):
    """The run that the call ``func(*args, **kwargs)`` filed under its call key, or None."""
    return _plans.PLANS.find(func.entry.key(args, kwargs))


def checks_ran(call):
    """(``call()``, whether any argument check of :mod:`primitives._core.checks` ran in it)."""
    seen = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename == _checks.__file__:
            seen.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        out = call()
    finally:
        sys.setprofile(None)
    return out, bool(seen)


# ---- the main matrix --------------------------------------------------------------------------

VALUE_KINDS = {"keys": None, "v4": np.float32, "v8": np.int64}


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("vkind", list(VALUE_KINDS))
@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("variant", VARIANTS)
def test_matrix(variant, dtype, vkind, descending, rng):
    """Every variant x key dtype x values x order (in index order on the emulator)."""
    matrix_case(variant, dtype, vkind, descending, rng)


@pytest.mark.parametrize(
    "variant,dtype,vkind,order",
    race_sample(VARIANTS, KEY_DTYPES, list(VALUE_KINDS), ["asc", "desc"]),
    ids=str,
)
def test_matrix_race(variant, dtype, vkind, order, rng, race):
    """The matrix in race-exposing mode: every variant x key dtype x values, one order each (by
    turns)."""
    matrix_case(variant, dtype, vkind, order == "desc", rng)


def matrix_case(variant, dtype, vkind, descending, rng):
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
    if variant == "block":  # one block: up to its capacity
        cap = BLOCK_CAP[itemsize]
        return sorted({0, 1, 2, 31, 32, 33, 255, 257, cap - 1, cap})
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


@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("func", ["sort", "argsort"])
@H.twins()
def test_twin_of_numpy_stable_sort(xp, func, dtype):
    """Values and dtypes of ``numpy.sort``/``numpy.argsort(kind="stable")`` for every key
    dtype, with many equal keys (and every special float)."""
    x = make_keys(np.random.default_rng(dtype.num), 7001, dtype, dups=True)
    return stable(xp, func, x)


@pytest.mark.parametrize("case", ["empty", "one", "list", "strided", "offset", "int8 ragged"])
@pytest.mark.parametrize("func", ["sort", "argsort"])
@H.twins()
def test_twin_of_numpy_inputs(xp, func, case):
    """Empty and one-key arrays, Python lists, strided views and views off a 16-byte start."""
    x = make_keys(np.random.default_rng(3), 5001, np.float32)
    arg = {
        "empty": x[:0],
        "one": x[:1],
        "list": [3, 1, 2, 1],
        "strided": x[1::2],
        "offset": x[3:],
        "int8 ragged": (np.arange(300) % 256 - 128).astype(np.int8)[::-3],
    }[case]
    return stable(xp, func, arg)


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: d.name)
def test_sort_and_argsort_match_numpy(dtype, descending, rng):
    x = make_keys(rng, 7001, dtype, dups=True)
    order = sort_order(x, -1, descending)  # NumPy's descending: NaNs last
    H.assert_same(prim.argsort(x, descending=descending), order)
    check_sorted(x, order, prim.sort(x, descending=descending))


@pytest.mark.parametrize("variant", VARIANTS)
def test_argsort_variants(variant, rng, schedule):
    for dt in (np.int32, np.float64):
        x = make_keys(rng, 5000, dt, dups=True)
        for desc in (False, True):
            got = prim.argsort(x, descending=desc, variant=variant)
            H.assert_same(got, sort_order(x, -1, desc))


# ---- stability, floats, order -----------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_stability_with_duplicate_heavy_keys(variant, rng):
    x = rng.integers(0, 3, 20000 if variant != "block" else BLOCK_CAP[2]).astype(np.uint16)
    idx = np.arange(x.size, dtype=np.int64)
    k, v = prim.radix_sort(x, idx, variant=variant)
    for key in range(3):
        got = v[k == key]
        assert np.all(np.diff(got) > 0), "equal keys must keep their input order"
    _, vd = prim.radix_sort(x, idx, descending=True, variant=variant)
    H.assert_same(vd, stable_order(x, True))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_float_special_values(variant, dtype):
    dt = np.dtype(dtype)
    tiny = np.finfo(dt).smallest_subnormal
    x = np.array(
        [
            1.0,
            np.nan,
            -0.0,
            0.0,
            -np.inf,
            np.inf,
            -np.nan,
            tiny,
            -tiny,
            -0.0,
            -1.0,
            0.0,
            np.nan,
            -5.0,
            3.0,
        ],
        dtype=dt,
    )
    payload = bits_of(x)
    payload[12] |= 1  # a NaN with another payload keeps it
    got = prim.sort(x, variant=variant)
    check_sorted(x, stable_order(x), got)
    assert np.isnan(got[-3:]).all() and not np.isnan(got[:-3]).any()
    # -0.0 and 0.0 compare equal: input order kept (-0.0, 0.0, -0.0, 0.0)
    zeros = np.flatnonzero(got == 0)
    assert list(np.signbit(got[zeros])) == [True, False, True, False]
    desc = prim.sort(x, descending=True, variant=variant)
    check_sorted(x, sort_order(x, -1, True), desc)
    assert np.isnan(desc[-3:]).all(), "NumPy's descending sort puts NaNs last"
    assert bits_of(desc)[-3:].tolist() == payload[[1, 6, 12]].tolist()  # in input order
    assert desc[0] == np.inf and desc[-4] == -np.inf
    rdesc = prim.radix_sort(x, descending=True, variant=variant)
    assert np.isnan(rdesc[:3]).all(), "radix_sort's descending order puts NaNs first"
    assert bits_of(rdesc)[:3].tolist() == payload[[1, 6, 12]].tolist()  # in input order
    assert rdesc[3] == np.inf and rdesc[-1] == -np.inf


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_nan_payloads_in_some_histogram_blocks(dtype, rng):
    """NaNs of both signs and many payloads in the second half of the keys only: the onesweep
    histogram's blocks that meet them mend their counts to the one folded NaN, the others do
    not; every NaN sorts last (in NumPy's descending order too; first in radix_sort's) in input
    order, its bits kept."""
    dt = np.dtype(dtype)
    n = 200_003
    x = (rng.standard_normal(n) * 1e3).astype(dt)
    bits = bits_of(x)
    nan = np.flatnonzero(rng.random(n) < 0.05)
    nan = nan[nan >= n // 2]
    exp = np.uint64(0x7FF0000000000000) if dt.itemsize == 8 else np.uint32(0x7F800000)
    sign = np.uint64(1 << 63) if dt.itemsize == 8 else np.uint32(1 << 31)
    payload = rng.integers(1, 1 << 20, nan.size).astype(bits.dtype)
    bits[nan] = exp | payload | np.where(rng.random(nan.size) < 0.5, sign, 0).astype(bits.dtype)
    assert np.isnan(x[nan]).all()
    check_sorted(x, stable_order(x), prim.sort(x, variant="onesweep"))
    check_sorted(x, sort_order(x, -1, True), prim.sort(x, descending=True, variant="onesweep"))
    got = prim.radix_sort(x, descending=True, variant="onesweep")
    check_sorted(x, stable_order(x, True), got)
    H.assert_same(prim.argsort(x, variant="onesweep"), stable_order(x))


def test_descending_is_not_a_reversed_ascending_sort():
    x = np.array([2, 1, 2, 1], dtype=np.int32)
    H.assert_same(prim.argsort(x, descending=True), np.array([0, 2, 1, 3]))
    H.assert_same(prim.argsort(x), np.array([1, 3, 0, 2]))


@pytest.mark.parametrize("variant", VARIANTS)
def test_bit_range(variant, rng):
    x = rng.integers(0, 2**32, 6000, dtype=np.uint64).astype(np.uint32)
    k = prim.radix_sort(x, begin_bit=8, end_bit=20, variant=variant)
    field = (x >> np.uint32(8)) & np.uint32(0xFFF)
    H.assert_same(k, x[np.argsort(field, kind="stable")])
    # signed keys: the range is over the order-preserving image (sign bit flipped)
    y = rng.integers(-(2**31), 2**31, 6000).astype(np.int32)
    image = y.view(np.uint32) ^ np.uint32(1 << 31)
    k = prim.radix_sort(y, begin_bit=24, end_bit=32, variant=variant)
    H.assert_same(k, y[np.argsort(image >> np.uint32(24), kind="stable")])
    # floats: over the image of radix_sort's docstring (NaNs folded, negative numbers negated)
    f = rng.standard_normal(6000).astype(np.float32)
    f[::7], f[::11], f[5], f[13] = -0.0, 0.0, np.nan, -np.nan
    field = _oracle.radix_image(f) & np.uint32(0xFFF)  # low bits: the negation's + 1 shows
    k = prim.radix_sort(f, begin_bit=0, end_bit=12, variant=variant)
    check_sorted(f, np.argsort(field, kind="stable"), k)
    # the top bits in a narrower last pass
    field = _oracle.radix_image(f) >> np.uint32(20)
    for desc in (False, True):
        k = prim.radix_sort(f, begin_bit=20, end_bit=32, descending=desc, variant=variant)
        check_sorted(f, stable_order(field, desc), k)
    # an empty range keeps the input order
    k, v = prim.radix_sort(x, np.arange(x.size), begin_bit=5, end_bit=5, variant=variant)
    H.assert_same((k, v), (x, np.arange(x.size)))


@pytest.mark.parametrize(
    "vdt",
    [np.bool_, np.int8, np.float16, np.complex128],
    ids=["bool", "int8", "float16", "complex128"],
)
def test_values_of_other_widths_go_through_a_permutation(vdt, rng):
    x = make_keys(rng, 3000, np.int32, dups=True)
    v = make_values(rng, x.size, vdt)
    order = stable_order(x)
    for variant in VARIANTS:
        k, got = prim.radix_sort(x, v, variant=variant)
        check_sorted(x, order, k, got, v)
    k, got = prim.segmented_sort(x, np.array([0, 1000, x.size]), v)
    H.assert_same(
        got,
        v[
            np.concatenate(
                [np.argsort(x[:1000], kind="stable"), 1000 + np.argsort(x[1000:], kind="stable")]
            )
        ],
    )


def test_inputs_are_not_modified_and_views_work(rng):
    x = make_keys(rng, 5001, np.float32)
    keep = x.copy()
    v = np.arange(x.size, dtype=np.int32)
    prim.radix_sort(x, v)
    H.assert_same((bits_of(x), v), (bits_of(keep), np.arange(x.size, dtype=np.int32)))
    sub = x[1::2]  # strided view, and an offset start (not 16-byte aligned)
    check_sorted(sub, stable_order(sub), prim.sort(sub))
    off = x[3:]
    check_sorted(off, stable_order(off), prim.sort(off))


def test_list_input_gives_numpy():
    got = prim.sort([3, 1, 2])
    assert isinstance(got, np.ndarray)
    H.assert_same(got, np.sort([3, 1, 2]))


# ---- byte order ---------------------------------------------------------------------------------

BYTE_ORDER_OFFSETS = np.array([0, 3, 3, 200, 301], dtype=">i4")


def _offsets(x):
    """Non-native offsets over ``x`` (301 keys, or none)."""
    return BYTE_ORDER_OFFSETS[BYTE_ORDER_OFFSETS <= x.size]


def _by_segment(x):
    """The stable order of ``x`` within each segment of :func:`_offsets`."""
    o = _offsets(x)
    return np.concatenate(
        [a + np.argsort(x[a:b], kind="stable") for a, b in zip(o[:-1], o[1:])]
        + [np.zeros(0, np.int64)]
    )


# name -> body(xp, keys, values): a sort and its NumPy twin (NumPy keeps a non-native byte order
# in sorted keys and permuted values; argsort's indices are native int64)
BYTE_ORDER_CALLS = {
    "sort": lambda xp, k, v: stable(xp, "sort", k),
    "argsort": lambda xp, k, v: stable(xp, "argsort", k),
    "sort descending": lambda xp, k, v: (
        k[sort_order(k, -1, True)] if xp is np else xp.sort(k, descending=True)
    ),
    "radix_sort": lambda xp, k, v: (
        (np.sort(k, kind="stable"), v[stable_order(k)]) if xp is np else xp.radix_sort(k, v)
    ),
    "radix_sort classic": lambda xp, k, v: (
        (np.sort(k, kind="stable"), v[stable_order(k)])
        if xp is np
        else xp.radix_sort(k, v, variant="classic")
    ),
    "radix_sort split": lambda xp, k, v: (
        (np.sort(k, kind="stable"), v[stable_order(k)])
        if xp is np
        else xp.radix_sort(k, v, variant="split")
    ),
    "segmented_sort": lambda xp, k, v: (
        (k[_by_segment(k)], v[_by_segment(k)]) if xp is np else xp.segmented_sort(k, _offsets(k), v)
    ),
}


@pytest.mark.parametrize("dtype", [">f8", ">i2", ">u4"])
@pytest.mark.parametrize("name", list(BYTE_ORDER_CALLS))
def test_non_native_byte_order(name, dtype, rng):
    """Keys, values and offsets of non-native byte order sort as NumPy's, in their own dtypes,
    also after a call on native arrays of the same shapes (whose filed plan must not read the
    swapped bytes) and through a plan made for native arrays."""
    body = BYTE_ORDER_CALLS[name]
    k = make_keys(rng, 301, dtype, dups=True)
    v = np.arange(301, dtype=">f4")
    native = k.astype(k.dtype.newbyteorder("="))
    H.assert_same(
        body(prim, native, v.astype(np.float32)), body(np, native, v.astype(np.float32))
    )  # files the plan of native arrays
    H.run_twins(body, (k, v))
    H.run_twins(body, (k[:0], v[:0]))
    if name in ("sort", "argsort"):
        H.assert_same(prim.plan(getattr(prim, name), native)(k), body(np, k, v))


# ---- onesweep specifics -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "pattern", ["all_equal", "low_byte", "middle_byte", "high_byte", "two_bytes"]
)
def test_onesweep_skips_constant_digits(pattern, rng, schedule):
    n = 2 * OS_TILE[4] + 5
    r = rng.integers(0, 256, n).astype(np.uint32)
    base = np.uint32(0x5A3C7E11)
    x = {
        "all_equal": np.full(n, base, np.uint32),
        "low_byte": (base & np.uint32(0xFFFFFF00)) | r,
        "middle_byte": (base & np.uint32(0xFF00FFFF)) | (r << np.uint32(16)),
        "high_byte": (base & np.uint32(0x00FFFFFF)) | (r << np.uint32(24)),
        "two_bytes": (
            (base & np.uint32(0x00FF00FF)) | (r << np.uint32(24)) | (r[::-1] << np.uint32(8))
        ),
    }[pattern]
    order = stable_order(x)
    v = rng.random(n).astype(np.float64)
    k, got_v = prim.radix_sort(x, v, variant="onesweep")
    check_sorted(x, order, k, got_v, v)
    H.assert_same(prim.argsort(x), order)
    check_sorted(x, order, prim.sort(x))
    check_sorted(x, sort_order(x, -1, True), prim.sort(x, descending=True))


def test_onesweep_repeated_calls_alternate_epochs(rng):
    # the look-back status words are never cleared: each run's epoch bit must differ from the
    # previous run's, whatever number of passes the device skipped in between
    n = 3 * OS_TILE[4] + 1
    for i in range(6):
        width = [32, 8, 16, 24, 1, 32][i]
        x = (rng.integers(0, 2**32, n, dtype=np.uint64) % (1 << width)).astype(np.uint32)
        check_sorted(x, stable_order(x), prim.sort(x))


def test_onesweep_portions(backend, rng, schedule):
    # inputs past 2^29 keys run in portions; make portions two tiles long to exercise them
    with prim.tuning.override("sort", portion=2 * OS_TILE[4] + 100):
        for dt, n in ((np.uint32, 5 * OS_TILE[4] + 33), (np.float64, 4 * OS_TILE[8] + 1)):
            x = make_keys(rng, n, dt)
            v = np.arange(n, dtype=np.uint64)
            k, got_v = prim.radix_sort(x, v)
            check_sorted(x, stable_order(x), k, got_v, v)
            H.assert_same(prim.argsort(x, descending=True), sort_order(x, -1, True))
            core = prim.plan(prim.sort, backend.xp.asarray(x)).core
            assert core.portions >= 2 and len(core.pass_launches) == core.passes * core.portions


def test_onesweep_prefetch_distances(rng):
    # each block prefetches the keys (and values) of the portion's tile `prefetch` ids ahead into
    # the L2 cache: clipped at the portion's end and at n, from views of any offset
    n = 5 * OS_TILE[4] + 33
    x = make_keys(rng, n + 3, np.uint32)
    v = np.arange(n + 3, dtype=np.uint32)
    for prefetch in (0, 1, 4):
        with prim.tuning.override("sort", portion=2 * OS_TILE[4] + 100, prefetch=prefetch):
            for a, b in ((x[:n], v[:n]), (x[3:], v[3:])):
                k, got_v = prim.radix_sort(a, b)
                check_sorted(a, stable_order(a), k, got_v, b)
                H.assert_same(prim.argsort(a), stable_order(a))


HALF_DTYPES = [np.dtype(np.uint16), np.dtype(np.int16), np.dtype(np.float16), _dtypes.BFLOAT16]


@pytest.mark.parametrize("dtype", HALF_DTYPES, ids=lambda d: d.name)
def test_onesweep_sorts_2_byte_keys_as_their_own_bits(dtype, backend, rng, schedule):
    # two 8-bit passes over the 16-bit image (float16 and bfloat16 by their own infinities and
    # NaNs), the keys moved as their bits: NaN payloads and the signs of zeros come back
    for n in (1, 33, OS_TILE[2] + 1, 3 * OS_TILE[2] + 17):
        for dups in (False, True):
            x = make_keys(rng, n, dtype, dups=dups)
            for desc in (False, True):
                order = sort_order(x, -1, True) if desc else stable_order(x)
                check_sorted(x, order, prim.sort(x, descending=desc, variant="onesweep"))
                got = prim.argsort(x, descending=desc, variant="onesweep")
                H.assert_same(got, order)
    core = prim.plan(prim.sort, backend.xp.asarray(x), variant="onesweep").core
    assert core.kdt == np.uint16 and core.passes == 2
    core = prim.plan(prim.argsort, backend.xp.asarray(x), variant="onesweep").core
    assert core.kdt == np.uint16 and core.passes == 2


def test_onesweep_2_byte_pairs_bit_ranges_and_nan_flags(backend, rng, schedule):
    n = 2 * OS_TILE[2] + 5
    for dt in (np.uint16, np.int16):
        x = make_keys(rng, n, dt)
        for v in (rng.random(n), np.arange(n, dtype=np.uint32)):
            k, got_v = prim.radix_sort(x, v, variant="onesweep")
            check_sorted(x, stable_order(x), k, got_v, v)
        img = _oracle.radix_image(x)  # the sign bit flipped for int16
        for begin, end in ((0, 16), (3, 11), (8, 16), (0, 1), (15, 16)):
            field = (img >> np.uint16(begin)) & np.uint16((1 << (end - begin)) - 1)
            for desc in (False, True):
                k = prim.radix_sort(
                    x, begin_bit=begin, end_bit=end, descending=desc, variant="onesweep"
                )
                check_sorted(x, stable_order(field, desc), k)
    # the pass plan folds 16-bit float images only when a key is a NaN of its own format:
    # 0x7e00 is a float16 NaN but a finite bfloat16 (and 0x7f90 a bfloat16 NaN)
    for dt, nan_bits, finite_bits in (
        (np.float16, 0x7E00, 0x7B00),
        (_dtypes.BFLOAT16, 0x7F90, 0x7E00),
    ):
        plain = make_keys(rng, 3001, dt)
        plain[np.isnan(plain.astype(np.float32))] = 1
        for bits, fold in ((nan_bits, 1), (finite_bits, 0)):
            x = plain.copy()
            x.view(np.uint16)[1717] = bits
            x.view(np.uint16)[2000] = bits | 0x8000
            rows, got = sort_plan_rows(backend, x)
            check_sorted(x, stable_order(x), got)
            assert set(rows[:, 6].tolist()) == {fold}, (np.dtype(dt).name, hex(bits))


def sort_plan_rows(backend, x):
    """Sort ``x`` through its plan; returns the pass plan the plan kernel wrote for that sort
    (a row per digit pass: active, first, last, src, dst, epoch, fold, dominant digit) and the
    result."""
    d = backend.xp.asarray(x)
    p = prim.plan(prim.sort, d, variant="onesweep")
    got = p(d)
    return to_host(p.core.scratch.plan).reshape(p.core.passes, -1), got


def test_onesweep_plan_kernel_skips_and_orders_buffers(backend):
    n = 1000
    x = np.full(n, 7, dtype=np.uint64)
    x[::3] = 7 | (1 << 40)  # only the digit of bits 40..47 varies
    rows, got = sort_plan_rows(backend, x)
    check_sorted(x, stable_order(x), got)
    assert rows[:, 0].tolist() == [0, 0, 0, 0, 0, 1, 0, 0]  # one active pass
    assert rows[5, 1] == 1 and rows[5, 2] == 1  # it reads the input and writes the output


def test_onesweep_plan_folds_floats_only_when_needed(backend):
    # the histogram pass flags NaN keys; only then do the passes fold float images (-0.0 needs
    # no fold: its image, a negation, is +0.0's)
    def fold_word(x):
        rows, got = sort_plan_rows(backend, x)
        check_sorted(x, stable_order(x), got)
        return set(rows[:, 6].tolist())

    rng = np.random.default_rng(8)
    for dt in (np.float32, np.float64):
        plain = rng.standard_normal(3001).astype(dt)
        assert fold_word(plain) == {0}
        for special, fold in ((np.nan, 1), (-np.nan, 1), (-0.0, 0), (0.0, 0)):
            x = plain.copy()
            x[1717] = special
            x[2000] = -special  # both signs: equal, so kept in input order
            assert fold_word(x) == {fold}
        assert fold_word(plain) == {0}  # the flag does not stick to the next sort
    assert fold_word(rng.integers(-9, 9, 3001).astype(np.int32)) == {0}


def os_hist(backend, dt, n):
    """The histogram launch (kernel, grid, block, shared memory) of the onesweep plan of a sort
    of n keys of ``dt``."""
    return prim.plan(prim.sort, backend.xp.zeros(n, dt), variant="onesweep").core.hist


def run_os_hist(backend, x, offset, n, begin, end, descending, grid=None):
    """onesweep_histogram over x[offset:offset + n] (a device view: offset 1-3 is not 16-byte
    aligned), with the library's grid or the given one."""
    h = os_hist(backend, x.dtype, n)
    keys = backend.xp.asarray(bits_of(x))[offset : offset + n]
    passes = -(-(end - begin) // 8)
    hist = backend.xp.zeros(passes * 256 + 1, np.uint32)
    _launch.launch(
        h.kernel,
        h.grid if grid is None else grid,
        h.block,
        (
            keys,
            np.int64(n),
            np.int32(3 if x.dtype == _dtypes.BFLOAT16 else KIND[x.dtype.kind]),
            np.int32(descending),
            np.int32(begin),
            np.int32(end),
            hist,
        ),
        shared_mem=h.shared_mem,
    )
    return to_host(hist)


@pytest.mark.parametrize(
    "dtype",
    [*HALF_DTYPES, np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64],
    ids=lambda d: np.dtype(d).name,
)
def test_onesweep_histogram_kernel(dtype, backend, rng, schedule):
    # the all-pass histogram against NumPy: scalar heads of misaligned views, tails, grids with
    # idle blocks, partial bit ranges, descending images, repeated and all-equal keys
    dt = np.dtype(dtype)
    bits = 8 * dt.itemsize
    x = make_keys(rng, 70011, dt)
    dups = make_keys(rng, 30003, dt, dups=True)
    same = np.full(20005, make_keys(rng, 1, dt)[0], dt)
    cases = [
        (x, 0, 70011, 0, bits, False, None),
        (x, 1, 70007, 0, bits, True, None),
        (x, 3, 5000, 3, bits - 5, False, 7),  # blocks 2.. have no packets
        (x, 1, 3, 0, bits, False, 4),  # 4-byte keys: every key in the head
        (x, 1, 41, 9, 10, True, None),  # one pass, one bit
        (x, 0, 9001, 4, 4 + 8 * (bits // 8 - 1), True, 2),  # one pass fewer than all
        (dups, 1, 30001, 0, bits, False, None),
        (same, 0, 20005, 0, bits, False, None),
        (same, 3, 20001, 0, bits, True, 3),
    ]
    if _dtypes.is_float(dt):  # infinities and the largest finite numbers without NaNs
        edges = x[:30011].copy()
        edges[np.isnan(edges.astype(np.float64))] = 1.0
        edges[::97] = np.inf
        edges[5::89] = -_dtypes.finfo(dt).max
        cases += [
            (edges, 0, 30011, 0, bits, False, None),
            (edges, 1, 30009, 3, bits, True, 5),
            (x, 1, 20001, 3, bits, False, None),
        ]  # NaNs, the top bits in 5-bit digits
    for keys, offset, n, begin, end, desc, grid in cases:
        got = run_os_hist(backend, keys, offset, n, begin, end, desc, grid)
        want = _oracle.radix_histogram(keys[offset : offset + n], begin, end, desc)
        bad = np.flatnonzero(got != want)
        assert bad.size == 0, (
            f"offset {offset} n {n} bits [{begin}, {end}) desc {desc} grid "
            f"{grid}: words {bad[:5]} are {got[bad[:5]]}, not {want[bad[:5]]}"
        )


def test_onesweep_histogram_16_bit_halves_at_the_limit(backend):
    # 8-byte keys count two passes per word (16-bit halves): one block at the largest share the
    # grid sizing gives a thread, every key of a lane column on one counter, must not carry over
    block, per = prim.tuning.policy("sort", "histogram").block, 2
    per_thread = (0xFFFF // (block // 32) - 2) // per * per
    n = 1 + per_thread * block + 1  # a head key, whole packets, a tail key
    x = np.full(n + 1, 0x0123456789ABCDEF, np.uint64)
    got = run_os_hist(backend, x, 1, n, 0, 64, False, grid=1)
    H.assert_same(got, _oracle.radix_histogram(x[1 : n + 1], 0, 64, False))


def test_onesweep_histogram_grid_bounds_the_counters(backend):
    # every lane column of a block (BLOCK / 32 threads) stays below its counters' limit
    hpol = prim.tuning.policy("sort", "histogram")
    block = hpol.block
    for kb in (4, 8):
        kh = os_hist(backend, np.dtype(f"u{kb}"), 1000).kernel
        resident = _launch.resident_grid(kh, block, hpol.smem)
        per = 16 // kb
        for n in (1, 1000, 2**21 + 3, 2**27, 10**9 + 7, 2**32 - 1):
            grid = _onesweep.hist_grid(kh, n, kb, hpol)
            packets = -(-(n // per) // (grid * block))  # the most a thread takes
            column = block // 32 * (packets * per + 2)
            assert column <= (0xFFFF if kb == 8 else 0xFFFFFFFF), (kb, n, grid)
            assert grid <= resident or grid % resident == 0, (kb, n, grid)  # whole waves


@pytest.mark.parametrize(
    "policy",
    [
        dict(block=256, items=8, min_blocks=1, window=1, match=0),
        dict(block=512, items=6, min_blocks=1, window=4, match=1),
        dict(block=256, items=8, min_blocks=1, window=8, match=1, parts=4),
        dict(block=512, items=4, min_blocks=1, window=8, match=2, skew=1, parts=2),
        dict(block=256, items=8, min_blocks=1, window=8, match=1, constant_tiles=1),
        dict(block=512, items=4, min_blocks=1, window=8, match=4, skew=1, constant_tiles=2),
    ],
    ids=[
        "ballot-window1",
        "lane_masks-block512",
        "parts4",
        "per_pass-all_ballots-parts2",
        "constant_tiles",
        "per_pass_dominant-counted_constant-block512",
    ],
)
def test_onesweep_other_policies(policy, backend, rng, schedule):
    # the tuning tool sweeps these template parameters: every choice must sort correctly
    n = 4 * policy["block"] * policy["items"] + 17
    x = make_keys(rng, n, np.float32, dups=True)
    policy = dict(policy, large_from=0)  # the policy at any n (the pairs' takes the table's)
    with (
        prim.tuning.override("sort", selector=(4, 0), **policy),
        prim.tuning.override("sort", selector=(4, 4), **policy),
    ):
        check_sorted(x, sort_order(x, -1, True), prim.sort(x, descending=True, variant="onesweep"))
        H.assert_same(prim.argsort(x, variant="onesweep"), stable_order(x))
        core = prim.plan(prim.sort, backend.xp.asarray(x), variant="onesweep").core
        assert core.policy == prim.tuning.policy("sort", (4, 0))
        assert (core.policy.block, core.policy.items) == (policy["block"], policy["items"])
    assert (
        prim.plan(prim.sort, backend.xp.asarray(x), variant="onesweep").core.policy != core.policy
    )


@pytest.mark.parametrize("match,parts", [(2, 1), (2, 4), (3, 1), (3, 2), (4, 1), (4, 2)])
@pytest.mark.parametrize("kb", [4, 8])
def test_onesweep_ranks_skewed_passes_apart(kb, match, parts, backend, rng, schedule):
    """match 2 to 4: the plan marks a pass skewed when its most frequent digit holds at least
    skew / 256 of the keys (the row's last word: that digit, else 256), and that pass ranks with
    ballots (2) or with the digit apart (3, 4), the others with lane masks (2, 4), in one sort.
    Keys whose low bytes are skewed (each bit set with p = 1/8: digit 0's share 0.34) and whose
    high bytes are uniform, so both rankings run; with values too, and the plan rows read back."""
    dt = np.dtype(f"u{kb}")
    n = 3 * 256 * 8 + 101
    words = [rng.integers(0, 2 ** (8 * kb), n, dtype=dt, endpoint=False) for _ in range(3)]
    low = np.array(256 ** (kb // 2) - 1, dt)  # the low half skewed, the high half uniform
    x = (words[0] & words[1] & words[2] & low) | (words[0] & ~low)
    v = rng.integers(0, 2**31, n).astype(np.int32)
    policy = dict(block=256, items=8, min_blocks=1, window=8, match=match, skew=64, parts=parts)
    policy.update(large_from=0)  # the match at any n
    with (
        prim.tuning.override("sort", selector=(kb, 0), **policy),
        prim.tuning.override("sort", selector=(kb, 4), **policy),
    ):
        k, got_v = prim.radix_sort(x, v, variant="onesweep")
        check_sorted(x, stable_order(x), k, got_v, v)
        rows, got = sort_plan_rows(backend, x)
        H.assert_same(got, np.sort(x))
    counts = [
        np.bincount(((x >> np.array(8 * p, dt)) & np.array(255, dt)).astype(np.int64))
        for p in range(kb)
    ]
    want = [int(c.argmax()) if c.max() * 256 >= 64 * n else 256 for c in counts]
    assert rows[:, 7].tolist() == want, (rows, [c.max() / n for c in counts])
    assert want[: kb // 2] == [0] * (kb // 2) and want[kb // 2 :] == [256] * (kb // 2)


@pytest.mark.parametrize(
    "policy",
    [
        dict(block=256, items=8, match=1, spread_block=512, spread_items=6),
        dict(block=512, items=4, match=4, spread_block=256, spread_items=3, constant_tiles=2),
    ],
    ids=["spread_larger", "spread_smaller-dominant"],
)
def test_onesweep_spread_tile(policy, backend, rng, schedule):
    """A second tile for the spread passes: the plan kernel picks each pass's kernel from the
    pass's skew (the row's last word: 256 for the spread tile's), the other kernel's grid skips
    the pass. One plan sorts keys with skewed and spread passes in several mixes, odd runs of
    each kernel among them (each kernel's look-back epochs alternate with its own runs: a stale
    status word
    of an earlier run would miscount: the rows' epochs are checked against each kernel's runs),
    in portions of a few tiles, with values and argsort."""
    n = 7 * 512 * 6 + 101
    policy = dict(policy, min_blocks=1, window=4, skew=64, portion=3 * 512 * 6 + 5, large_from=0)
    kb = 4

    def keys(skewed):  # skewed[p]: the digit of pass p skewed, else uniform
        w = [rng.integers(0, 2**32, n, dtype=np.uint32) for _ in range(3)]
        mask = np.uint32(sum(255 << (8 * p) for p in range(4) if skewed[p]))
        return (w[0] & w[1] & w[2] & mask) | (w[0] & ~mask)  # p = 1/8 a bit: digit 0 holds 0.34

    overrides = [prim.tuning.override("sort", selector=(kb, v), **policy) for v in (0, 4, 8)]
    with overrides[0], overrides[1], overrides[2]:
        core = prim.plan(prim.sort, backend.xp.asarray(keys([0] * 4)), variant="onesweep").core
        kernels = {launch.kernel for launch in core.pass_launches}
        assert len(kernels) == 2 and len(core.pass_launches) > 2 * core.passes  # in portions
        for skewed in ((1, 0, 0, 0), (0, 0, 0, 0), (1, 1, 1, 0), (0, 1, 0, 1), (1, 1, 1, 1)):
            x = keys(skewed)
            runs = to_host(core.scratch.launches).tolist()  # each kernel's runs so far
            rows, got = sort_plan_rows(backend, x)
            check_sorted(x, stable_order(x), got)
            spread = [int(r == 256) for r in rows[:, 7]]
            assert spread == [1 - s for s in skewed], rows
            for p in range(core.passes):  # all four passes run
                assert rows[p, 5] == runs[spread[p]] % 2, (p, rows, runs)
                runs[spread[p]] += 1
            assert to_host(core.scratch.launches).tolist() == runs
            v = make_values(rng, n, np.float64)
            k, got_v = prim.radix_sort(x, v, variant="onesweep")
            check_sorted(x, stable_order(x), k, got_v, v)
            H.assert_same(prim.argsort(x, descending=True), sort_order(x, -1, True))


@pytest.mark.parametrize("dtype", [np.float32, np.uint64, np.int16, np.float64])
def test_onesweep_spread_tile_keys(dtype, backend, rng):
    """The spread tile with keys of every width and kind (floats with NaNs of both signs, +-0.0
    and infinities: the fold), a bit range whose last pass is narrower, both orders, few keys (one
    tile of either kernel), values of 4 and 8 bytes and argsort; the plan rows name both kernels
    (40% of the keys share their top byte: small integers, or floats in [1, 2))."""
    dt = np.dtype(dtype)
    kb = dt.itemsize
    policy = dict(block=256, items=4, min_blocks=1, window=4, skew=64, large_from=0)
    policy.update(spread_block=512, spread_items=3)
    n = 5 * 1536 + 29
    x = make_keys(rng, n, dt)
    some = rng.random(n) < 0.4  # 40% of the keys share their top byte: in [1, 2), or in [0, 256)
    x[some] = 1 + rng.random(some.sum()) if dt.kind == "f" else rng.integers(0, 256, some.sum())
    overrides = [prim.tuning.override("sort", selector=(kb, v), **policy) for v in (0, 4, 8)]
    with overrides[0], overrides[1], overrides[2]:
        rows, got = sort_plan_rows(backend, x)
        check_sorted(x, stable_order(x), got)
        assert {int(r == 256) for r, on in zip(rows[:, 7], rows[:, 0]) if on} == {0, 1}, rows
        for m in (n, 700, 1):  # one tile of each kernel, and one key
            y = x[:m]
            for desc in (False, True):
                got = prim.sort(y, descending=desc, variant="onesweep")
                check_sorted(y, sort_order(y, -1, desc), got)
            for vdt in (np.int32, np.float64):
                v = make_values(rng, m, vdt)
                k, got_v = prim.radix_sort(y, v, variant="onesweep")
                check_sorted(y, stable_order(y), k, got_v, v)
            H.assert_same(prim.argsort(y, variant="onesweep"), stable_order(y))
        if kb >= 4:  # a bit range: passes of 8, 8 and 4 bits
            k = prim.radix_sort(x, begin_bit=kb * 8 - 20, end_bit=kb * 8, variant="onesweep")
            field = _oracle.radix_image(x) >> np.array(kb * 8 - 20, f"u{kb}")
            check_sorted(x, stable_order(field), k)


@pytest.mark.parametrize("constant, spread_constant", [(0, 2), (2, 0), (1, -1)])
def test_onesweep_spread_constant_tiles(constant, spread_constant, backend, rng):
    """spread_constant_tiles: the spread tile's constant_tiles (-1: the policy's), the skewed
    tile keeping the policy's; the plan's two kernels are those of each setting. Keys of eight
    values in their low three bytes (spread passes: after the first, whole tiles of one digit)
    under a top byte that is 0 for 60% of them (a skewed pass), with values and argsort."""
    n = 8 * 3 * 1536 + 55
    policy = dict(block=256, items=4, min_blocks=1, window=4, skew=64, match=1, large_from=0)
    policy.update(constant_tiles=constant, spread_constant_tiles=spread_constant)
    policy.update(spread_block=512, spread_items=3)
    values = (np.arange(8, dtype=np.uint64) * 0x9E3779B1 & 0xFFFFFF).astype(np.uint32)
    x = values[rng.integers(0, 8, n)]
    top = rng.integers(1, 256, n, dtype=np.uint32) * (rng.random(n) < 0.4)
    x |= (top << 24).astype(np.uint32)
    overrides = [prim.tuning.override("sort", selector=(4, v), **policy) for v in (0, 4, 8)]
    with overrides[0], overrides[1], overrides[2]:
        want = constant if spread_constant < 0 else spread_constant
        skewed = prim.tuning.policy("sort", (4, 0))
        spread = skewed.spread()
        assert (skewed.constant_tiles, spread.constant_tiles) == (constant, want)
        assert spread.spread_constant_tiles == -1 and spread.match == 1
        core = prim.plan(prim.sort, backend.xp.asarray(x), variant="onesweep").core
        names = {launch.kernel for launch in core.pass_launches}
        assert len(names) == 2
        rows, got = sort_plan_rows(backend, x)
        check_sorted(x, stable_order(x), got)
        assert [int(r == 256) for r in rows[:, 7]] == [1, 1, 1, 0], rows
        for desc in (False, True):
            got = prim.sort(x, descending=desc, variant="onesweep")
            check_sorted(x, sort_order(x, -1, desc), got)
        v = make_values(rng, n, np.float32)
        k, got_v = prim.radix_sort(x, v, variant="onesweep")
        check_sorted(x, stable_order(x), k, got_v, v)
        H.assert_same(prim.argsort(x, variant="onesweep"), stable_order(x))


@pytest.mark.parametrize("match", [1, 4])
def test_onesweep_large_from(match, backend, rng):
    """large_from: plans of fewer keys run every pass in the policy's tile ranked by lane masks
    (one pass kernel, match 1), from large_from keys on the policy as it is (two pass kernels,
    its match); both sort. The table's (4, 4) policy resolves the same way."""
    big = 4 * 1536 + 3
    policy = dict(block=256, items=4, min_blocks=1, window=4, skew=64, match=match)
    policy.update(spread_block=512, spread_items=3, spread_constant_tiles=2, large_from=big)
    x = make_keys(rng, big, np.uint32, dups=True)
    with prim.tuning.override("sort", selector=(4, 4), **policy) as pol:
        assert pol.at(big) is pol and pol.at(big + 1) is pol
        small = pol.at(big - 1)
        assert (small.block, small.items, small.match, small.spread()) == (256, 4, 1, None)
        assert small.at(1) is small and small.large_from == 0
        assert pol.at(1) is small  # made once: plans are looked up with it on every call
        assert pol.spread() == dataclasses.replace(
            small, block=512, items=3, min_blocks=1, constant_tiles=2
        )
        for m, kernels, want in ((big - 1, 1, small), (big, 2, pol)):
            y = x[:m]
            core = prim.plan(prim.argsort, backend.xp.asarray(y), variant="onesweep").core
            assert core.policy == want
            assert len({launch.kernel for launch in core.pass_launches}) == kernels
            H.assert_same(prim.argsort(y, variant="onesweep"), stable_order(y))
            v = make_values(rng, m, np.float32)
            k, got_v = prim.radix_sort(y, v, variant="onesweep")
            check_sorted(y, stable_order(y), k, got_v, v)
    table = prim.tuning.policy("sort", (4, 4))
    assert table.large_from > 0 and table.at(table.large_from) is table
    assert table.at(table.large_from - 1).spread() is None


def test_onesweep_spread_pass_names():
    # each kernel's name carries its own tile and constant_tiles, and its SELECT
    pol = dataclasses.replace(
        prim.tuning.policy("sort", (4, 4)),
        constant_tiles=0,
        spread_block=512,
        spread_items=24,
        spread_constant_tiles=2,
    )
    skewed, spread = _kernels.pass_names(4, 4, pol)
    assert f", {pol.block}, {pol.items}, {pol.min_blocks}, " in skewed
    assert skewed.endswith(", 0, 2>") and spread.endswith(", 2, 1>"), (skewed, spread)
    assert ", 512, 24, 1, " in spread


@pytest.mark.parametrize("fields", [dict(spread_block=512), dict(spread_items=24)])
def test_onesweep_spread_tile_half_given(fields):
    # a second tile takes both its block and its items: one alone is refused before any launch,
    # on entering the override, and by spread() for a policy made by hand
    x = np.arange(5000, dtype=np.uint32)[::-1].copy()
    with pytest.raises(ValueError, match="spread_block and spread_items"):
        with prim.tuning.override("sort", selector=(4, 0), **fields):
            pass
    half = dataclasses.replace(prim.tuning.policy("sort", (4, 0)), **fields)
    with pytest.raises(ValueError, match="spread_block and spread_items"):
        half.spread()
    H.assert_same(prim.sort(x, variant="onesweep"), np.sort(x))


@pytest.mark.parametrize("constant", [1, 2])
@pytest.mark.parametrize("match", [1, 4])
@pytest.mark.parametrize("dtype", [np.uint32, np.float32, np.uint64, np.int16])
def test_onesweep_constant_tiles(dtype, match, constant, backend, rng, schedule):
    """constant_tiles: a full tile whose keys share one digit is neither counted nor ranked (1),
    or a tile whose counts put every key on one digit is not ranked (2). Keys in runs of one value
    (2.25 tiles each: whole tiles of one key in every pass, beside tiles that straddle two runs,
    two tiles of one run with a key of another, and the short last tile: of the largest integer,
    every digit the padding's in ascending order), both orders, with values (the pairs' rank
    path) and argsort."""
    dt = np.dtype(dtype)
    tile = 256 * 8
    n = 9 * tile + 77
    kinds = make_keys(rng, 4, dt, dups=False)
    if dt.kind in "iu":
        kinds[3] = np.iinfo(dt).max
    x = np.repeat(kinds, -(-n // 4))[:n]  # runs of 2.25 tiles: whole tiles of one key
    x[tile // 2 : tile // 2 + 3] = kinds[1:]  # a tile of the first run not constant
    x[tile + 7 * 32 + 5] = kinds[2]  # nor the next: the last item of a thread differs
    policy = dict(block=256, items=8, min_blocks=1, window=8, match=match, constant_tiles=constant)
    policy.update(large_from=0)  # the match at any n
    kb = dt.itemsize
    with (
        prim.tuning.override("sort", selector=(kb, 0), **policy),
        prim.tuning.override("sort", selector=(kb, 4), **policy),
        prim.tuning.override("sort", selector=(kb, 8), **policy),
    ):
        for desc in (False, True):
            got = prim.sort(x, descending=desc, variant="onesweep")
            check_sorted(x, sort_order(x, -1, desc), got)
        H.assert_same(prim.argsort(x, variant="onesweep"), stable_order(x))
        v = make_values(rng, n, np.float32)
        k, got_v = prim.radix_sort(x, v, variant="onesweep")
        check_sorted(x, stable_order(x), k, got_v, v)


# ---- the block sort ----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: d.name)
def test_block_sizes(dtype, rng):
    """The one-block sort of every key dtype from one key to its capacity: keys (both orders),
    argsort, and values of 4 and 8 bytes."""
    dt = np.dtype(dtype)
    cap = BLOCK_CAP[dt.itemsize]
    for i, n in enumerate((1, 2, 31, 33, 1000, cap - 1, cap)):
        x = make_keys(rng, n, dt, dups=i % 2 == 1)
        desc = i % 2 == 0
        check_sorted(x, sort_order(x, -1, desc), prim.sort(x, descending=desc, variant="block"))
        H.assert_same(
            prim.argsort(x, descending=not desc, variant="block"), sort_order(x, -1, not desc)
        )
        v = make_values(rng, n, np.float32 if i % 2 else np.int64)
        k, got_v = prim.radix_sort(x, v, variant="block")
        check_sorted(x, stable_order(x), k, got_v, v)


def test_block_bit_ranges_and_constant_digits(rng):
    """Bit ranges that start and end inside a digit, and keys whose digits are constant in
    some places (the passes the block skips)."""
    n = 3001
    x = rng.integers(0, 2**64, n, dtype=np.uint64)
    for begin, end in ((0, 64), (5, 13), (13, 64), (60, 64), (0, 1), (31, 33)):
        shift, mask = np.uint64(begin), np.uint64((1 << (end - begin)) - 1)
        for desc in (False, True):
            field = (x >> shift) & mask
            got = prim.radix_sort(x, begin_bit=begin, end_bit=end, descending=desc, variant="block")
            H.assert_same(got, x[stable_order(field, desc)])
    y = (x & np.uint64(0x00FF0000000000FF)) | np.uint64(0x1200340056007800)
    v = rng.integers(0, 2**31, n).astype(np.int32)
    k, got_v = prim.radix_sort(y, v, variant="block")
    check_sorted(y, stable_order(y), k, got_v, v)
    same = np.full(777, -3.25, np.float32)
    H.assert_same(prim.argsort(same, descending=True, variant="block"), np.arange(777))


def test_auto_takes_the_block_sort_up_to_its_limit(backend, rng):
    """``auto`` sorts inputs of 1 to the policy's limit of keys in one block (the block sort's
    plan is filed), larger ones with onesweep; 1- and 2-byte keys by their 4-byte limit (widened:
    the filed run widens them, no variant's plan)."""
    xp = backend.xp
    prim.clear_caches()
    for dt in (np.float32, np.int64):
        kb = np.dtype(dt).itemsize
        for n, plan_type in (
            (BLOCK_AUTO[kb], _block.BlockSortPlan),
            (BLOCK_AUTO[kb] + 1, _onesweep.OnesweepPlan),
        ):
            x = make_keys(rng, n, dt)
            d = xp.asarray(x)
            check_sorted(x, stable_order(x), prim.sort(d))
            assert type(filed(prim.sort, d)) is plan_type
            H.assert_same(prim.argsort(d, descending=True), sort_order(x, -1, True))
            assert type(filed(prim.argsort, d, descending=True)) is plan_type
    x = make_keys(rng, BLOCK_AUTO[2], np.int16)
    d = xp.asarray(x)
    check_sorted(x, stable_order(x), prim.sort(d))
    assert not isinstance(filed(prim.sort, d), (_block.BlockSortPlan, _onesweep.OnesweepPlan))


def test_block_plan_repeat_call_is_one_launch(backend, rng, monkeypatch):
    """The repeat call of sort, argsort and radix_sort on a small array goes through the filed
    block plan: one launch, one output allocation (two with values)."""
    xp = backend.xp
    n = 2000
    x = make_keys(rng, n, np.float64)
    d, v = xp.asarray(x), xp.asarray(rng.random(n))
    calls = {
        "sort": (prim.sort, (d,), 1),
        "argsort": (prim.argsort, (d,), 1),
        "radix_sort": (prim.radix_sort, (d, v), 2),
    }
    for name, (func, args, allocations) in calls.items():

        def call():
            return func(*args)

        want = to_host(call())
        launches, empties = [], []
        plan = filed(func, *args)
        assert type(plan) is _block.BlockSortPlan
        launch, empty = plan.launch.__call__, xp.empty
        monkeypatch.setattr(plan, "launch", lambda *a: launches.append(1) or launch(*a))
        monkeypatch.setattr(xp, "empty", lambda *a, **kw: empties.append(1) or empty(*a, **kw))
        got = call()
        monkeypatch.undo()
        H.assert_same(got, want)
        assert (len(launches), len(empties)) == (1, allocations), name


def test_partition_of_a_small_array_files_the_block_plan(backend, rng, monkeypatch):
    """partition/argpartition sort a small 1-D array with auto's sort: the block sort, whose
    plan they file under their own call key; a like call runs it (one launch, no checks) and is
    still a partition."""
    xp = backend.xp
    for func, oracle, sorter in (
        (prim.partition, np.sort, prim.sort),
        (prim.argpartition, np.argsort, prim.argsort),
    ):
        for dt in (np.float32, np.uint64):
            hx = make_keys(rng, 3000, dt, dups=True)
            x = xp.asarray(hx)
            H.assert_same(func(x, 5), oracle(hx, kind="stable"))
            assert filed(func, x, 5) is not None
            plan = prim.plan(sorter, x).core
            assert type(plan) is _block.BlockSortPlan
            launches, launch = [], plan.launch.__call__
            monkeypatch.setattr(plan, "launch", lambda *a: launches.append(1) or launch(*a))
            hy = make_keys(rng, 3000, dt)
            got, ran = checks_ran(lambda: func(xp.asarray(hy), 5))
            monkeypatch.undo()
            assert not ran and launches == [1]
            H.assert_same(got, oracle(hy, kind="stable"))


def test_block_sort_takes_the_smallest_tile_that_holds_the_keys(backend, rng):
    """Inputs up to the small block's capacity go to the small tile, longer ones to the large
    one; both sort every key width, at and around the boundary."""
    pol = prim.tuning.policy("sort", "block")
    xp = backend.xp
    for dt in (np.float32, np.uint64):
        kb = np.dtype(dt).itemsize
        tiles = pol.tiles(kb)
        assert len(tiles) == 2 and tiles[0][0] * tiles[0][1] < tiles[1][0] * tiles[1][1]
        small = tiles[0][0] * tiles[0][1]
        for n, tile in ((1, tiles[0]), (small, tiles[0]), (small + 1, tiles[1])):
            hx = make_keys(rng, n, dt, dups=True)
            x = xp.asarray(hx)
            H.assert_same(prim.sort(x, variant="block"), np.sort(hx, kind="stable"))
            H.assert_same(prim.argsort(x, variant="block"), np.argsort(hx, kind="stable"))
            plan = filed(prim.sort, x, variant="block")
            assert plan.tile == tile


def test_error_block_above_its_capacity():
    for dt in (np.uint8, np.float32, np.int64):
        dt = np.dtype(dt)
        cap = BLOCK_CAP[dt.itemsize]
        x = np.zeros(cap + 1, dt)
        H.raises_like(
            ValueError,
            "sort",
            prim.sort,
            x,
            variant="block",
            match=rf"variant 'block' sorts at most {cap} keys of {dt.itemsize} bytes.*"
            rf"got {cap + 1}",
        )
        H.raises_like(ValueError, "argsort", prim.argsort, x, variant="block", match=str(cap))
        H.raises_like(
            ValueError,
            "radix_sort",
            prim.radix_sort.plan,
            x,
            x,
            variant="block",
            match="variant 'block'",
        )
        check_sorted(x, np.arange(cap + 1), prim.sort(x))  # auto: onesweep


# ---- repeated calls: the filed plan -----------------------------------------------------------

DIRECT_DTYPES = [np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64]


@pytest.mark.parametrize("sorter", ["onesweep", "block"])
@pytest.mark.parametrize("dtype", DIRECT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_repeated_calls_take_the_filed_plan(dtype, sorter, backend, rng):
    """sort, argsort and radix_sort (with values of 4 and 8 bytes, with a bit range) of arrays
    of the backend's own type file their plan (onesweep's, or the block sort's for a small
    input: what auto picks); a later call on arrays of the same dtypes, shapes, strides, bit
    range and order launches it with no check and no new plan, and sorts its own data as NumPy
    does. sort in both orders (a plan filed for one order does not serve the other); the other
    calls in one order each, ascending and descending by turns (the other way round for every
    other dtype), so that each of them meets both orders over the dtypes."""
    xp = backend.xp
    kb = np.dtype(dtype).itemsize
    n = 2 * OS_TILE[kb] + 77 if sorter == "onesweep" else BLOCK_AUTO[kb] - 5
    assert (n > BLOCK_AUTO[kb]) == (sorter == "onesweep")
    plan_type = {"onesweep": _onesweep.OnesweepPlan, "block": _block.BlockSortPlan}[sorter]
    calls = {
        "sort": lambda x, v, desc: prim.sort(x, descending=desc),
        "argsort": lambda x, v, desc: prim.argsort(x, descending=desc),
        "radix_sort f32": lambda x, v, desc: prim.radix_sort(
            x, v.astype(np.float32), descending=desc
        ),
        "radix_sort i64 bits": lambda x, v, desc: prim.radix_sort(
            x, v, begin_bit=3, end_bit=20, descending=desc
        ),
    }
    flip = DIRECT_DTYPES.index(dtype) % 2
    runs = [(False, "sort"), (True, "sort")]
    runs += [((i + flip) % 2 == 1, name) for i, name in enumerate(list(calls)[1:])]
    prim.clear_caches()
    for desc, name in runs:
        call = calls[name]
        x1, x2 = make_keys(rng, n, dtype), make_keys(rng, n, dtype, dups=True)
        v1, v2 = (xp.asarray(rng.integers(-9, 2**40, n)) for _ in range(2))
        d1, d2 = xp.asarray(x1), xp.asarray(x2)
        first, ran = checks_ran(lambda: call(d1, v1, desc))
        assert ran, name
        func = getattr(prim, name.split()[0])
        if func is not prim.radix_sort:
            assert type(filed(func, d1, descending=desc)) is plan_type
        elif name.endswith("bits"):
            plan = filed(func, d1, v1, begin_bit=3, end_bit=20, descending=desc)
            assert type(plan) is plan_type
        else:
            assert type(filed(func, d1, v1.astype(np.float32), descending=desc)) is plan_type
        info = prim.cache_info()
        second, ran = checks_ran(lambda: call(d2, v2, desc))
        assert not ran and prim.cache_info() == info, name  # the filed plan, no new one
        for x, v, got in ((x1, v1, first), (x2, v2, second)):
            v = to_host(v)
            if name == "argsort":
                H.assert_same(got, sort_order(x, -1, desc))
            elif name == "sort":
                assert type(got) is type(d2)
                check_sorted(x, sort_order(x, -1, desc), got)
            elif name == "radix_sort f32":
                order = stable_order(x, desc)
                check_sorted(x, order, got[0], got[1], v.astype(np.float32))
            else:
                image = _oracle.radix_image(x, desc)
                order = np.argsort(
                    (image >> image.dtype.type(3)) & image.dtype.type((1 << 17) - 1), kind="stable"
                )
                check_sorted(x, order, got[0], got[1], v)


def test_a_repeat_call_chooses_the_variant_once(backend, rng, monkeypatch):
    """The variant is chosen by a call's prepare step, once per plan: the repeat calls that its
    filed plan serves, and the calls of an explicit plan, choose none."""
    chosen = []
    choose = _choose.variant
    monkeypatch.setattr(_choose, "variant", lambda *a: chosen.append(a[0]) or choose(*a))
    xp = backend.xp
    prim.clear_caches()
    x = make_keys(rng, 3000, np.float32)
    d = xp.asarray(x)
    for _ in range(3):
        check_sorted(x, stable_order(x), prim.sort(d))
        H.assert_same(prim.argsort(d, descending=True), sort_order(x, -1, True))
    assert chosen == ["auto", "auto"]
    p = prim.plan(prim.sort, d, variant="onesweep")
    for _ in range(2):
        check_sorted(x, stable_order(x), p(d))
    assert chosen == ["auto", "auto", "onesweep"]


def test_filed_plans_keep_the_checks(backend, rng):
    """A filed plan serves only inputs that passed the same checks: other order types, variants,
    strides, shapes, dtypes and tuning policies take the checked path and its errors."""
    xp = backend.xp
    n = 5000
    x = make_keys(rng, n, np.float32)
    d = xp.asarray(x)

    def checked(call):
        """``call()`` ran the checks; returns its result."""
        out, ran = checks_ran(call)
        assert ran
        return out

    prim.clear_caches()
    prim.sort(d, descending=True)
    assert not checks_ran(lambda: prim.sort(d, descending=True))[1]
    H.raises_like(TypeError, "sort", prim.sort, d, descending=1, match="descending must be a bool")
    H.raises_like(
        TypeError, "argsort", prim.argsort, d, descending=1, match="descending must be a bool"
    )
    H.raises_like(ValueError, "sort", prim.sort, d, variant="bogus", match="variant")
    check_sorted(x, sort_order(x, -1, True), checked(lambda: prim.sort(d, descending=np.True_)))
    wide = make_keys(rng, 2 * n, np.float32)
    for _ in range(2):  # same shape, strided: copied first, never filed
        check_sorted(
            wide[::2],
            sort_order(wide[::2], -1, True),
            checked(lambda: prim.sort(xp.asarray(wide)[::2], descending=True)),
        )
    rows, x2 = d.reshape(2, n // 2), x.reshape(2, n // 2)  # along an axis: the rows' sort
    for _ in range(2):  # read as it is: filed too
        got = prim.sort(rows, descending=True)
        assert filed(prim.sort, rows, descending=True) is not None
        for r in range(2):
            check_sorted(x2[r], sort_order(x2[r], -1, True), to_host(got)[r])
    for variant in ("split", "classic", "split"):  # never filed
        check_sorted(x, stable_order(x), checked(lambda: prim.sort(d, variant=variant)))
    small = make_keys(rng, n, np.int16)
    for _ in range(2):  # widened first: never filed
        check_sorted(small, stable_order(small), checked(lambda: prim.sort(xp.asarray(small))))
    for _ in range(2):  # empty: never filed
        assert to_host(checked(lambda: prim.sort(xp.asarray(x[:0])))).size == 0
    # filed: onesweep and the block sort only (also by their names), keys of 4 or 8 bytes
    for variant in ("onesweep", "block"):
        checked(lambda: prim.sort(d, variant=variant))
        assert not checks_ran(lambda: prim.sort(d, variant=variant))[1]
    # values that are not read as they are (1 byte, strided) are never filed
    v8 = xp.asarray(rng.integers(0, 100, n).astype(np.uint8))
    v4 = xp.asarray(rng.integers(0, 100, 2 * n).astype(np.uint32))[::2]
    for v in (v8, v8, v4, v4):
        k2, got_v = checked(lambda: prim.radix_sort(d, v))
        check_sorted(x, stable_order(x), k2, got_v, to_host(v))
    H.raises_like(ValueError, "radix_sort", prim.radix_sort, d, v8[:-1], match="values has")
    # a tuning override makes its own plans, checked once; after it, the earlier plans serve
    with prim.tuning.override("sort", selector="block", items_4=8):
        check_sorted(x, sort_order(x, -1, True), checked(lambda: prim.sort(d, descending=True)))
        assert not checks_ran(lambda: prim.sort(d, descending=True))[1]
        assert prim.plan(prim.sort, d).core.policy.items_4 == 8
    builds = prim.cache_info()["builds"]
    check_sorted(x, sort_order(x, -1, True), checked(lambda: prim.sort(d, descending=True)))
    assert prim.cache_info()["builds"] == builds


def test_filed_plans_are_per_stream(backend, rng):
    if not backend.is_cuda:
        pytest.skip("streams are the GPU's")
    import cupy

    x = make_keys(rng, 40000, np.uint32)
    d = cupy.asarray(x)
    prim.clear_caches()
    prim.sort(d)
    prim.sort(d)
    core = prim.plan(prim.sort, d).core
    with cupy.cuda.Stream(non_blocking=True) as s:
        got = prim.sort(d)
        got2 = prim.sort(d)
        other = prim.plan(prim.sort, d).core
        s.synchronize()
    check_sorted(x, stable_order(x), got)
    check_sorted(x, stable_order(x), got2)
    assert other is not core and other.scratch is not core.scratch


# ---- explicit plans (prim.plan) ---------------------------------------------------------------


@pytest.mark.parametrize("variant", ["auto", "onesweep"])
@pytest.mark.parametrize("func", ["sort", "argsort", "radix_sort"])
def test_explicit_plan(func, variant, backend, rng):
    """``prim.plan(f, like, ...)`` (and ``f.plan``) equals ``f`` with the same options on like
    arrays (its plan: launches only; the block sort's for this size under auto) and on others
    (the function's own path)."""
    xp = backend.xp
    n = 4001
    like = xp.asarray(make_keys(rng, n, np.float32))
    vals = xp.asarray(rng.integers(0, 2**40, n))
    if func == "radix_sort":
        p = prim.radix_sort.plan(
            like, vals, begin_bit=3, end_bit=14, descending=True, variant=variant
        )

        def want(k, v):
            return prim.radix_sort(k, v, begin_bit=3, end_bit=14, descending=True, variant=variant)
    else:
        f = getattr(prim, func)
        p = prim.plan(f, like, descending=True, variant=variant)

        def want(k, v):
            return f(k, descending=True, variant=variant)

    if variant == "auto":
        assert type(p.core) is _block.BlockSortPlan
        assert p.core.policy == prim.tuning.policy("sort", "block")
    else:
        assert p.core.policy == prim.tuning.policy(
            "sort", (4, 8 if func == "radix_sort" else 4 if func == "argsort" else 0)
        ).at(n)
    others = [
        xp.asarray(make_keys(rng, n, np.float32, dups=True)),  # like
        xp.asarray(make_keys(rng, 777, np.float32)),  # another size
        xp.asarray(make_keys(rng, n, np.int16)),  # another dtype
        xp.asarray(make_keys(rng, 2 * n, np.float64))[::2],  # strided
        make_keys(rng, n, np.uint64),
    ]  # host memory
    for k in others:
        v = xp.asarray(rng.integers(0, 2**40, k.shape[0]))
        args = (k, v) if func == "radix_sort" else (k,)
        H.assert_same(p(*args), to_host(want(k, v)))
    k = others[0]
    args = (k, vals) if func == "radix_sort" else (k,)
    got, ran = checks_ran(lambda: p(*args))
    assert not ran
    H.assert_same(got, to_host(want(k, vals)))


def test_explicit_plan_of_other_variants_and_segmented_sort(backend, rng):
    xp = backend.xp
    x = xp.asarray(make_keys(rng, 3000, np.int64, dups=True))
    for variant in ("split", "classic"):
        p = prim.sort.plan(x, variant=variant)
        H.assert_same(p(x), to_host(prim.sort(x, variant=variant)))
    off = xp.asarray(ragged_offsets(rng, 3000, 300))
    v = xp.asarray(rng.random(3000))
    p = prim.plan(prim.segmented_sort, x, off, v, descending=True)
    H.assert_same(p(x, off, v), to_host(prim.segmented_sort(x, off, v, descending=True)))
    y = xp.asarray(make_keys(rng, 500, np.float32))
    off2 = xp.asarray(np.array([0, 100, 100, 500]))
    H.assert_same(p(y, off2, y), to_host(prim.segmented_sort(y, off2, y, descending=True)))
    q = prim.segmented_sort.plan(x, off)
    H.assert_same(q(x, off), to_host(prim.segmented_sort(x, off)))


def test_explicit_plan_checks_its_options():
    x = np.zeros(10, np.uint32)
    H.raises_like(
        ValueError, "sort", prim.plan, prim.sort, x, variant="bogus", match="variant must be"
    )
    H.raises_like(TypeError, "sort", prim.sort.plan, x, descending=1, match="bool")
    H.raises_like(TypeError, "argsort", prim.plan, prim.argsort, x, descending="yes", match="bool")
    H.raises_like(
        ValueError, "radix_sort", prim.plan, prim.radix_sort, x, end_bit=33, match="end_bit=33"
    )
    H.raises_like(ValueError, "radix_sort", prim.radix_sort.plan, x, np.zeros(3), match="values")
    H.raises_like(TypeError, "sort", prim.plan, prim.sort, np.zeros(3, "U1"), match="a has dtype")
    H.raises_like(
        ValueError, "segmented_sort", prim.plan, prim.segmented_sort, x, [0, 3], match="start at 0"
    )
    H.raises_like(
        TypeError,
        "segmented_sort",
        prim.segmented_sort.plan,
        x,
        [0, 10],
        descending=None,
        match="bool",
    )


# ---- segmented sort ---------------------------------------------------------------------------


def segment_order(x, offsets, descending=False):
    parts = [a + stable_order(x[a:b], descending) for a, b in zip(offsets[:-1], offsets[1:])]
    return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)


SEG_MAX_LENS = [1, 7, 128, 129, 700, 2048, 5000]


@pytest.mark.parametrize("max_len", SEG_MAX_LENS)
@pytest.mark.parametrize(
    "dtype",
    [np.uint32, np.int64, np.float32, np.int16],
    ids=["uint32", "int64", "float32", "int16"],
)
def test_segmented_sort(dtype, max_len, rng, schedule):
    # short segments: the warp kernel, hundreds of segments at 2500 keys (the emulator runs each
    # warp's exchanges one lane at a time: 6000 keys of 7-key segments took 25-32 s in CI)
    n = 2500 if max_len < 128 else 6000 if max_len < 2048 else 9000
    x = make_keys(rng, n, dtype, dups=max_len % 2 == 1)
    off = ragged_offsets(rng, n, max_len)
    if max_len >= 2048:  # make sure the longest segment really is that long
        off = np.unique(np.concatenate([off[off < n - max_len], [n - max_len, n]]))
    # both orders and both kinds of call (keys alone, keys with values) in every case, paired
    # one way at even positions of the lengths and the other way at odd ones: each dtype meets
    # all four pairs (each segmented sort of 2500 keys in 7-key segments takes about 0.6 s of
    # the emulator)
    with_values = (False, True) if SEG_MAX_LENS.index(max_len) % 2 == 0 else (True, False)
    for desc, values in zip((False, True), with_values):
        order = segment_order(x, off, desc)
        if not values:
            check_sorted(x, order, prim.segmented_sort(x, off, descending=desc))
            continue
        v = np.arange(n, dtype=np.float64)
        k, got_v = prim.segmented_sort(x, off, v, descending=desc)
        check_sorted(x, order, k, got_v, v)


def test_segmented_sort_equal_rows_match_numpy_axis(rng):
    x = make_keys(rng, 64 * 100, np.float32).reshape(100, 64)
    off = np.arange(0, x.size + 1, 64)
    got = prim.segmented_sort(x.reshape(-1), off).reshape(100, 64)
    H.assert_same(bits_of(got), bits_of(np.sort(x, axis=-1, kind="stable")))


def test_segmented_sort_edge_cases():
    x = np.array([3, 1, 2], dtype=np.int32)
    H.assert_same(prim.segmented_sort(x, [0, 0, 3, 3]), np.array([1, 2, 3], np.int32))
    H.assert_same(prim.segmented_sort(x, [0, 1, 2, 3]), x)
    k, v = prim.segmented_sort(np.zeros(0, np.float32), [0], np.zeros(0, np.int8))
    H.assert_same((k, v), (np.zeros(0, np.float32), np.zeros(0, np.int8)))
    H.assert_same(prim.segmented_sort(np.array([5.0]), [0, 1]), np.array([5.0]))


_SEG = prim.tuning.policy("sort", "segmented")
#: the segment lengths where the segmented sort's paths meet (its policy's): rows of 0, 1 and 2
#: keys, a warp's 32 * warp_items keys, a block's block * items, and one past each
SEG_EDGES = [
    0,
    1,
    2,
    32 * _SEG.warp_items,
    32 * _SEG.warp_items + 1,
    _SEG.block * _SEG.items,
    _SEG.block * _SEG.items + 1,
]


@pytest.mark.parametrize("length", SEG_EDGES)
def test_segmented_sort_rows_at_the_edges(length, rng):
    """Equal segments (rows) at each path's edge, on 1, 2, 3 and several rows of several key
    dtypes, keys alone and with values of 8 bytes, 4 bytes and 1 byte (gathered through a
    permutation), both orders: each row as NumPy's stable sort of it. One past a warp's
    segment goes to the block kernel, one past a block's to the device-wide sort."""
    for i, rows in enumerate((1, 2, 3, 7)):
        dt = KEY_DTYPES[(3 * i + SEG_EDGES.index(length)) % len(KEY_DTYPES)]
        x = make_keys(rng, rows * length, dt, dups=i % 2 == 1)
        off = np.arange(rows + 1, dtype=np.int64) * length
        v = make_values(rng, x.size, (np.float64, np.uint32, np.int8)[i % 3])
        for desc in (False, True):
            order = segment_order(x, off, desc)
            check_sorted(x, order, prim.segmented_sort(x, off, descending=desc))
            k, got_v = prim.segmented_sort(x, off, v, descending=desc)
            check_sorted(x, order, k, got_v, v)


# ---- hypothesis -------------------------------------------------------------------------------

key_dtypes = st.sampled_from(KEY_DTYPES)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(), dtype=key_dtypes, variant=st.sampled_from(VARIANTS), descending=st.booleans()
)
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
    H.raises_like(TypeError, "radix_sort", prim.radix_sort, "abc", match="keys must be an array")


def test_error_keys_not_1d():
    H.raises_like(
        ValueError,
        "radix_sort",
        prim.radix_sort,
        np.zeros((2, 2), np.float32),
        match="keys must be 1-D",
    )


def test_error_key_dtype():
    H.raises_like(
        TypeError,
        "radix_sort",
        prim.radix_sort,
        np.zeros(3, np.float16),
        match="keys has dtype float16",
    )
    H.raises_like(
        TypeError, "argsort", prim.argsort, np.zeros(3, "datetime64[s]"), match="a has dtype"
    )


def test_error_values_not_1d():
    H.raises_like(
        ValueError,
        "radix_sort",
        prim.radix_sort,
        np.zeros(4, np.uint32),
        np.zeros((2, 2), np.uint32),
        match="values must be 1-D",
    )


def test_error_values_length():
    H.raises_like(
        ValueError,
        "radix_sort",
        prim.radix_sort,
        np.zeros(4, np.uint32),
        np.zeros(3, np.uint32),
        match="values has 3 elements, keys has 4",
    )


def test_error_bit_range_outside_key():
    H.raises_like(
        ValueError,
        "radix_sort",
        prim.radix_sort,
        np.zeros(4, np.uint32),
        end_bit=33,
        match=r"end_bit=33.*<= 32",
    )
    H.raises_like(
        ValueError,
        "radix_sort",
        prim.radix_sort,
        np.zeros(4, np.int8),
        end_bit=9,
        match=r"end_bit=9.*<= 8",
    )
    H.raises_like(
        ValueError,
        "radix_sort",
        prim.radix_sort,
        np.zeros(4, np.uint64),
        begin_bit=-1,
        match="begin_bit=-1",
    )


def test_error_bit_range_reversed():
    H.raises_like(
        ValueError,
        "radix_sort",
        prim.radix_sort,
        np.zeros(4, np.uint32),
        begin_bit=10,
        end_bit=4,
        match="begin_bit=10, end_bit=4",
    )


def test_error_bit_not_int():
    H.raises_like(
        TypeError,
        "radix_sort",
        prim.radix_sort,
        np.zeros(4, np.uint32),
        end_bit=8.0,
        match="end_bit must be an int, got float",
    )


def test_error_descending_not_bool():
    H.raises_like(
        TypeError,
        "sort",
        prim.sort,
        np.zeros(4, np.uint32),
        descending="yes",
        match="descending must be a bool, got str",
    )


def test_error_variant():
    H.raises_like(
        ValueError,
        "radix_sort",
        prim.radix_sort,
        np.zeros(4, np.uint32),
        variant="bitonic",
        match="variant must be 'auto' or one of",
    )


def test_error_offsets_dtype():
    H.raises_like(
        TypeError,
        "segmented_sort",
        prim.segmented_sort,
        np.zeros(4, np.uint32),
        np.array([0.0, 4.0]),
        match="offsets must be an integer array, got dtype float64",
    )


def test_error_offsets_empty():
    H.raises_like(
        ValueError,
        "segmented_sort",
        prim.segmented_sort,
        np.zeros(4, np.uint32),
        np.zeros(0, np.int64),
        match="offsets must hold at least one value",
    )


@pytest.mark.parametrize("offsets", [[], ()], ids=["list", "tuple"])
def test_error_offsets_empty_sequence(offsets):
    """An empty list or tuple is an empty integer sequence (not NumPy's float64 array)."""
    H.raises_like(
        ValueError,
        "segmented_sort",
        prim.segmented_sort,
        np.zeros(4, np.uint32),
        offsets,
        match="offsets must hold at least one value",
    )
    H.raises_like(
        ValueError,
        "segmented_sort",
        prim.segmented_sort.plan,
        np.zeros(4, np.uint32),
        offsets,
        match="offsets must hold at least one value",
    )


def test_error_offsets_decreasing():
    H.raises_like(
        ValueError,
        "segmented_sort",
        prim.segmented_sort,
        np.zeros(4, np.uint32),
        [0, 3, 2, 4],
        match=r"non-decreasing \(1 decreasing steps\)",
    )


def test_error_offsets_not_covering():
    H.raises_like(
        ValueError,
        "segmented_sort",
        prim.segmented_sort,
        np.zeros(4, np.uint32),
        [0, 3],
        match="start at 0 and end at keys.size=4",
    )
    H.raises_like(
        ValueError,
        "segmented_sort",
        prim.segmented_sort,
        np.zeros(4, np.uint32),
        [1, 4],
        match="got 1 .. 4",
    )


def test_error_segmented_values_length():
    H.raises_like(
        ValueError,
        "segmented_sort",
        prim.segmented_sort,
        np.zeros(4, np.uint32),
        [0, 4],
        np.zeros(2),
        match="values has 2 elements, keys has 4",
    )


def test_error_segmented_descending_not_bool():
    H.raises_like(
        TypeError,
        "segmented_sort",
        prim.segmented_sort,
        np.zeros(4, np.uint32),
        [0, 4],
        descending=1,
        match="descending must be a bool",
    )


def test_errors_come_before_empty_input_returns():
    H.raises_like(TypeError, "sort", prim.sort, np.zeros(0, "U1"))
    H.raises_like(ValueError, "radix_sort", prim.radix_sort, np.zeros(0, np.uint32), end_bit=40)
    H.raises_like(TypeError, "argsort", prim.argsort, np.zeros(0, "U1"))


def test_empty_and_single_element():
    for variant in VARIANTS:
        H.assert_same(
            prim.radix_sort(np.zeros(0, np.int16), variant=variant), np.zeros(0, np.int16)
        )
        k, v = prim.radix_sort(np.zeros(0, np.float64), np.zeros(0, np.int32), variant=variant)
        H.assert_same((k, v), (np.zeros(0, np.float64), np.zeros(0, np.int32)))
        k, v = prim.radix_sort(np.array([-3.5]), np.array([9], np.int64), variant=variant)
        H.assert_same((k, v), (np.array([-3.5]), np.array([9], np.int64)))
        H.assert_same(
            prim.argsort(np.array([4], np.uint8), variant=variant), np.array([0], np.int64)
        )
    H.assert_same(prim.argsort(np.zeros(0, np.uint32)), np.zeros(0, np.int64))


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
    H.assert_same(got, order)
    for variant in VARIANTS[1:]:
        if variant != "block":  # one block sorts only small inputs
            check_sorted(hx, order, prim.sort(x, variant=variant))
    off = cupy.arange(0, n + 1, 1000, dtype=cupy.int64)
    off[-1] = n
    ho = off.get()
    check_sorted(hx, segment_order(hx, ho), prim.segmented_sort(x, off))

"""Histogram family vs the NumPy oracle: every variant x dtype x bin count at awkward sizes,
samples on the edges, weights, density, contention (all-equal data, real photographs and a sky
image), bincount, histogram_even, histogram_channels, and every NumPy error branch."""

import contextlib
import dataclasses
import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import primitives as prim
from primitives import histograms
from primitives._core import dtypes as _dtypes, plans as P
from primitives.testing import harness as H
from primitives.histograms import _choose
from primitives.testing.harness import to_host

#: the variants that sum weights (bucketed counts samples only)
WEIGHTED = tuple(v for v in histograms.VARIANTS if _choose.VARIANT_TABLE[v].weights)

DTYPES = [
    np.int8,
    np.uint8,
    np.int16,
    np.uint16,
    np.int32,
    np.uint32,
    np.int64,
    np.uint64,
    np.float32,
    np.float64,
]
BINS = [1, 7, 255, 256, 257, 4096, 65536, 1 << 20]
# textbook blocks hold 256 threads, production blocks 1024; 16-byte packets hold 1..16 samples
SIZES = [0, 1, 31, 32, 33, 255, 256, 257, 1023, 1025, 4099, 65537]
# variants that keep every bin in one block's shared memory (4-byte counters)
ALL_SHARED = (
    "privatized",
    "coarsened_contiguous",
    "coarsened_interleaved",
    "aggregated",
    "warp_replicated",
)
IDS = lambda d: np.dtype(d).name  # noqa: E731


def fits(variant, nbins, acc="count"):
    return variant not in ALL_SHARED or nbins <= histograms.shared_capacity(acc)


def samples(rng, n, dtype, lo=-300, hi=300):
    """Random samples in [lo, hi] (clipped to the dtype), a tenth of them exactly on integers."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        x = rng.uniform(lo, hi, n)
        k = rng.random(n) < 0.1
        x[k] = np.round(x[k])
        return x.astype(dt)
    info = np.iinfo(dt)
    return rng.integers(max(lo, info.min), min(hi, info.max), n, endpoint=True).astype(dt)


def twin(*args, func="histogram", variant=None, rtol=0.0, **kwargs):
    """``prim.<func>(*args, **kwargs, variant=variant)`` against ``numpy.<func>(*args,
    **kwargs)`` through the harness: the same values (within ``rtol``), dtypes and shapes, or
    the same error."""

    def body(xp):
        extra = {} if xp is np or variant is None else {"variant": variant}
        return getattr(xp, func)(*args, **kwargs, **extra)

    return H.run_twins(body, kwargs={}, rtol=rtol, name=func)


def _device_like_as_input(monkeypatch):
    """as_input refusing host data the device has no arrays for: strings, objects and datetimes
    (CuPy: ``ValueError: Unsupported dtype``). The family's checks must deal with these first;
    non-native byte order is as_input's own to convert (the real one runs)."""
    from primitives._core import checks

    real = checks.as_input

    def as_input(x, **kw):
        dt = getattr(x, "dtype", None)
        if dt is None and isinstance(x, (list, tuple)):
            dt = np.asarray(x).dtype
        if dt is not None and np.dtype(dt).kind not in "biufc":
            raise ValueError(f"Unsupported dtype {dt}")
        return real(x, **kw)

    monkeypatch.setattr(checks, "as_input", as_input)


# ---- every variant x dtype x bin count ----------------------------------------------------------


@pytest.mark.parametrize("nbins", BINS)
@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("variant", histograms.VARIANTS)
def test_variant_dtype_bins(variant, dtype, nbins, rng, schedule):
    x = samples(rng, 3001, dtype)
    lo, hi = (-300, 300) if np.dtype(dtype).kind in "if" else (0, 300)
    # half of the bins' edges also appear as samples
    edges = np.histogram_bin_edges(x, min(nbins, 64), (lo, hi))
    x[::7][: edges.size] = edges.astype(dtype)[: x[::7].size]
    if not fits(variant, nbins):
        with pytest.raises(ValueError, match="shared memory"):
            prim.histogram(x, nbins, (lo, hi), variant=variant)
        return
    twin(x, nbins, (lo, hi), variant=variant)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.int64], ids=IDS)
@pytest.mark.parametrize("variant", histograms.VARIANTS)
def test_sizes(variant, dtype, n, rng, schedule):
    x = samples(rng, n, dtype, 0, 255)
    twin(x, 256, (0, 256), variant=variant)


@pytest.mark.parametrize("variant", histograms.VARIANTS)
def test_misaligned_views(variant, rng):
    """Views that start off a 16-byte boundary take the scalar head of the vectorized loops."""
    base = samples(rng, 5000, np.uint8, 0, 255)
    for off in range(1, 16, 5):
        x = base[off:]
        twin(x, 256, (0, 256), variant=variant)
    basef = samples(rng, 5000, np.float32, 0, 1)
    x = basef[3:]
    twin(x, 100, (0, 1), variant=variant)


# ---- exactly NumPy's bins -----------------------------------------------------------------------


RANGES = [(0.0, 1.0), (0.1, 0.7), (-3, 5), (1000.0, 1001.0), (-1e-3, 2e-3)]


@pytest.mark.parametrize("rng_", RANGES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=IDS)
@pytest.mark.parametrize("nbins", [1, 3, 10, 255, 4096])
def test_samples_on_and_next_to_edges(dtype, nbins, rng_, rng):
    """Every edge, its neighbours one ulp away and the range ends, for float data."""
    edges = np.histogram_bin_edges(np.zeros(1, dtype), nbins, rng_)
    e = edges.astype(dtype)
    x = np.concatenate(
        [
            e,
            np.nextafter(e, dtype(np.inf)),
            np.nextafter(e, dtype(-np.inf)),
            samples(rng, 500, dtype, *rng_),
        ]
    ).astype(dtype)
    for variant in ("warp_replicated", "coarsened_interleaved", "global_vectorized"):
        twin(x, nbins, rng_, variant=variant)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8], ids=IDS)
@pytest.mark.parametrize(
    "kind",
    ["numpy-float64", "numpy-dtype", "python-int", "python-float", "autodetect", "single-value"],
)
def test_range_scalar_types(dtype, kind, rng):
    """NumPy's comparisons depend on the scalar types of range (NEP 50): Python scalars adapt to
    the samples' dtype, NumPy scalars do not."""
    x = samples(rng, 2000, dtype, 0, 100)
    r = {
        "numpy-float64": (np.float64(0.1), np.float64(90.3)),
        "numpy-dtype": (np.dtype(dtype).type(3), np.dtype(dtype).type(77)),
        "python-int": (3, 77),
        "python-float": (0.1, 90.3),
        "autodetect": None,
        "single-value": (5, 5),
    }[kind]
    if kind == "single-value":
        x[::3] = 5
    for nbins in (7, 64):
        edges = np.histogram_bin_edges(x, nbins, r)
        y = np.concatenate([x, edges.astype(dtype)])
        twin(y, nbins, r)


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("edge_dtype", [np.int64, np.float64, np.float32, np.int16], ids=IDS)
def test_array_bins(dtype, edge_dtype, rng):
    x = samples(rng, 3000, dtype, 0, 200)
    edges = np.unique(np.concatenate([[0, 200], rng.choice(x, 20)]).astype(edge_dtype))
    edges = np.concatenate([edges, edges[-1:]])  # a repeated last edge: an empty, closed bin
    y = np.concatenate([x, edges.astype(dtype)])
    for variant in ("warp_replicated", "privatized", "partial_privatized"):
        twin(y, edges, variant=variant)


def test_array_bins_with_infinite_edges(rng):
    x = samples(rng, 1000, np.float64)
    x[:3] = [np.inf, -np.inf, np.nan]
    edges = np.array([-np.inf, -10, 0, 10, np.inf])
    twin(x, edges)


def test_large_bin_counts_exact(rng):
    """2^20 bins of float32 data: the edge check is on for every sample."""
    x = rng.random(20000, dtype=np.float32)
    twin(x, 1 << 20, (0, 1))
    twin(x, 99991, (0.1, 0.9))


def test_subnormal_samples(rng):
    """Float32 subnormals next to an edge at zero: exact although CuPy compiles kernels with
    flush-to-zero (comparisons on order keys, exact float32 -> float64 widening)."""
    tiny = np.float32(np.finfo(np.float32).smallest_subnormal)
    sub = np.array(
        [
            tiny,
            -tiny,
            3 * tiny,
            -7 * tiny,
            np.float32(1e-39),
            np.float32(-1e-39),
            np.float32(0.0),
            np.float32(-0.0),
        ],
        np.float32,
    )
    x = np.concatenate([np.repeat(sub, 5), samples(rng, 300, np.float32, -1, 1)])
    for bins, r in ((2, (-1, 1)), (4, (-1.0, 1.0)), (3, (0, 1)), (2, (np.float64(-1), 1))):
        for variant in ("warp_replicated", "aggregated", "global_vectorized"):
            twin(x, bins, r, variant=variant)
    for edges in (
        np.array([-1, 0, 1], np.float32),
        np.array([-1, -tiny, 0, tiny, 1], np.float32),
        np.array([-1.0, -1e-45, 0.0, 1e-45, 1.0]),
    ):
        twin(x, edges)
    y = np.array([tiny, 2 * tiny, 5 * tiny], np.float32)  # autodetected range of subnormals
    twin(y, 4)
    twin(-y, 3)


def test_nan_and_inf_samples(rng):
    x = samples(rng, 1000, np.float32, 0, 10)
    x[[3, 500]] = np.nan
    x[[7, 9]] = [np.inf, -np.inf]
    twin(x, 10, (0, 10))
    with pytest.raises(ValueError, match=r"autodetected range of \[nan, nan\] is not finite"):
        prim.histogram(x)
    with pytest.raises(ValueError):
        np.histogram(x)
    y = x.copy()
    y[[3, 500]] = 1.0
    with pytest.raises(ValueError, match=r"autodetected range of \[-inf, inf\] is not finite"):
        prim.histogram(y)


@pytest.mark.parametrize("wdtype", [np.float64, np.float32, np.int32, np.int64, np.uint32], ids=IDS)
@pytest.mark.parametrize("variant", WEIGHTED)
def test_weights(variant, wdtype, rng, schedule):
    x = samples(rng, 2001, np.float32, 0, 1)
    w = (rng.random(2001) * 10).astype(wdtype)
    got, edges = prim.histogram(x, 33, (0, 1), weights=w, variant=variant)
    # NumPy adds float weights in float64 per chunk: the float64 oracle, cast to the weights' dtype
    want = np.histogram(x, 33, (0, 1), weights=w.astype(np.float64))[0].astype(wdtype)
    assert got.dtype == np.histogram(x, 33, (0, 1), weights=w)[0].dtype == np.dtype(wdtype)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_array_equal(edges, np.histogram_bin_edges(x, 33, (0, 1)))


def test_weights_with_array_bins_and_ints(rng):
    x = samples(rng, 3000, np.int32, 0, 50)
    w = rng.integers(-5, 5, 3000).astype(np.int64)
    edges = [0, 3, 3, 10, 49.5, 50]
    twin(x, edges, weights=w)
    w2 = w.reshape(30, 100)
    twin(x.reshape(30, 100), 5, weights=w2)


@pytest.mark.parametrize(
    "wdtype", [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.float16], ids=IDS
)
def test_weights_of_every_real_dtype(wdtype, rng):
    """NumPy returns the sums in the weights' dtype, whatever it is (int8 sums wrap)."""
    x = samples(rng, 300, np.float64, 0, 10)
    w = rng.integers(0, 3, 300).astype(wdtype)
    twin(x, 7, (0, 10), weights=w)
    twin(x, 7, (0, 10), weights=w, density=True, rtol=1e-12)
    if wdtype is not np.bool_:  # (bool weights over an edges array: test below)
        twin(x, [0, 1, 2.5, 10], weights=w)
    twin(np.zeros(300), 1, weights=np.ones(300, np.int8))  # 300 wraps to 44, as in NumPy


def test_bool_weights_with_an_edges_array():
    # NumPy adds the weights' int64 cumsum into bool counts, which its casting rule refuses
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' output"):
        np.histogram([1.0, 2.0], [0, 1, 3], weights=[True, False])
    H.raises_like(
        TypeError,
        "histogram",
        prim.histogram,
        [1.0, 2.0],
        [0, 1, 3],
        weights=[True, False],
        match="Cannot cast ufunc 'add' output",
    )


@pytest.mark.parametrize("density", [False, True])
def test_bool_weights_with_an_edges_array_and_no_samples(density):
    """With no samples NumPy adds nothing into its bool cumulative counts: their diff, bool
    zeros (NaN densities, 0 / 0), not its casting error."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the density's 0 / 0, in both
        for a, edges in (
            (np.zeros(0), [0.0, 1.0, 2.0]),
            (np.zeros((2, 0), np.int32), [0, 1, 3]),
            (np.zeros(0, np.float16), np.array([0, 1], np.int8)),
            (np.array([], "m8[s]"), np.array([0, 5, 10], "m8[s]")),
        ):
            twin(a, edges, weights=np.zeros(a.shape, bool), density=density)


def test_bool_weights_in_every_function():
    """Bool weights: NumPy's histogram over int bins adds them into bool counts (any); its
    histogram2d, histogramdd and bincount read them as float64."""
    x = np.array([0.5, 1.5, 1.7, 0.2])
    w = np.array([True, False, True, False])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the densities' 0 / 0, in both
        for n in (4, 0):
            for density in (False, True):
                twin(x[:n], 3, (0, 2), weights=w[:n], density=density)
                twin(x[:n], x[:n], 2, [[0, 2], [0, 2]], density, w[:n], func="histogram2d")
                twin(x[:n, None], 2, [(0, 2)], density, w[:n], func="histogramdd")
            twin(np.array([0, 2, 2, 1])[:n], w[:n], func="bincount")


def test_object_weights():
    """NumPy sums object weights with Python's arithmetic and returns object counts."""
    from fractions import Fraction

    x = np.array([0.5, 1.5, 1.7, 2.5, 2.9])
    twin(x, 3, (0, 3), weights=np.array([1, 2, 3, 4, 5], object))
    twin(x, [0, 1, 3], weights=np.array([True, False, True, True, 2], object))
    twin(x, 3, (0, 3), weights=np.array([0.5, 2, 3.25, 4, 5], object))  # sums exact in float64
    twin(x, 3, (0, 3), weights=np.array([1, 2, 3, 4, 5], object), density=True)
    twin(x, 3, (0, 3), weights=[Fraction(1, 2), 2, 3, 4, 5])
    # densities are Python's divisions: a zero total or a bin of zero width raises
    twin(x, 3, (0, 3), weights=np.array([1, -1, 0, 2, -2], object), density=True)
    twin(x, 3, (5, 6), weights=np.array([1, 2, 3, 4, 5], object), density=True)
    twin(x[:0], [0, 1, 3], weights=np.array([], object), density=True)
    twin(x, [0, 1, 1, 3], weights=np.array([1, 2, 3, 4, 5], object), density=True)
    with np.errstate(divide="ignore", invalid="ignore"):  # float weights: inf and NaN
        twin(x, [0, 1, 1, 3], weights=np.array([1, 2, 3, 4, 5.0]), density=True)
    twin_raises(
        "histogram",
        TypeError,
        "",
        x,
        3,
        weights=np.array([None, 2, 3, 4, 5], object),
        numpy_match=False,
    )
    twin_raises(
        "histogram", TypeError, "", x, 3, weights=np.array(list("abcde"), object), numpy_match=False
    )


DATES = np.array(
    ["2020-01-01", "2020-01-03", "NaT", "2020-01-02T12", "2019-12-31", "2020-01-04"], "M8[h]"
)
DAYS = np.array(["2020-01-01", "2020-01-02", "2020-01-04"], "M8[D]")


def test_datetime_samples_with_an_edges_array():
    """datetime64/timedelta64 samples compare with the edges in their common dtype; NaT sorts
    after every date, so it counts only in a last bin that ends at NaT."""
    twin(DATES, DAYS)
    twin(DATES.reshape(2, 3), DAYS.astype("M8[s]"))
    twin(list(DATES), DAYS)
    twin(DATES, DAYS, weights=np.arange(6.0))
    twin(DATES, DAYS, weights=np.arange(6, dtype=np.int8))
    twin(DATES, DAYS, density=True)
    twin(DATES, np.array(["2020-01-01", "NaT"], "M8[D]"))
    twin(DATES, np.array(["2020-01-01", "2020-01-02", "NaT", "NaT"], "M8[ns]"))
    td = np.array([1, 5, -3, 7, 10, 3], "m8[s]")
    twin(td, [0, 3, 10])
    twin(td, np.array([0, 3000, 10000], "m8[ms]"))
    twin(td, np.array([0, 1], "m8[m]"))
    twin(td, np.array([0, 3, 10], np.uint32))
    twin(np.array([], "m8[s]"), [0, 1])


def test_datetime_samples_without_an_edges_array():
    """NumPy makes equal-width and estimated edges with linspace, which takes no datetimes: its
    own exception types (DTypePromotionError is a TypeError)."""
    td = np.array([1, 5, -3, 7], "m8[s]")
    for args, kw in [
        ((td, 3), {}),
        ((td, 3), {"range": (0, 5)}),
        ((np.array([], "M8[s]"), 4), {}),
        ((td, "auto"), {}),
        ((DATES, "sqrt"), {}),
        ((td, 0), {}),
        ((td, 2.0), {}),
    ]:
        twin_raises("histogram", Exception, "", *args, numpy_match=False, **kw)


def test_datetime_samples_against_edges_that_do_not_compare():
    for edges in ([0, 10**6], [0.0, 1e6], np.array([0, 10], "m8[h]")):
        twin_raises("histogram", TypeError, "cannot be compared", DATES, edges, numpy_match=False)
    twin_raises(
        "histogram",
        TypeError,
        "cannot be compared",
        np.array([1, 2], "m8[s]"),
        np.array([0, 3], np.uint64),
        numpy_match=False,
    )
    twin_raises("histogram", ValueError, "monotonically", DATES, DAYS[::-1])


def test_non_native_byte_order(rng, monkeypatch):
    """Big-endian samples, weights and edges are read in native order on the host, as NumPy reads
    them, before anything moves to the device (CuPy would read their bytes as native ones):
    as_input converts samples and weights, the edges are converted where they are read."""
    _device_like_as_input(monkeypatch)
    x = samples(rng, 200, np.float64, 0, 10)
    twin(x.astype(">f8"), 5)
    twin(x.astype(">i4"), 5, (0, 10))
    twin(x.astype(">i2"), "auto")
    twin(x, [0, 2, 5.5, 10], weights=np.arange(200, dtype=">u8"))
    twin(x, np.array([0, 2, 5.5, 10], ">f8"), density=True, rtol=1e-12)
    twin(np.arange(3, dtype=">i4"), func="bincount")
    twin(np.array([1, 0, 4], ">u2"), np.ones(3, ">f4"), 6, func="bincount")
    big = x.astype(">f4")
    H.assert_same(
        prim.histogram_even(big, 9, 0, 10), prim.histogram_even(big.astype(np.float32), 9, 0, 10)
    )
    img = rng.integers(0, 60000, (8, 5, 3)).astype(">u2")
    H.assert_same(
        prim.histogram_channels(img, 16, (0, 65536)),
        prim.histogram_channels(img.astype(np.uint16), 16, (0, 65536)),
    )


def test_weights_byte_order_in_the_result(rng):
    """NumPy's sums over int ``bins`` keep the weights' dtype, byte order included; over an edges
    array they come from a native diff."""
    x = samples(rng, 200, np.float64, 0, 10)
    twin(x, 5, (0, 10), weights=np.arange(200, dtype=">f8"))
    twin(x, 5, (0, 10), weights=np.arange(200, dtype=">i2"))
    twin(x, [0, 2, 5.5, 10], weights=np.arange(200, dtype=">i2"))
    half = x.astype(np.float16)  # int bins over float16 samples: NumPy's equal-width sums too
    twin(half, 5, weights=np.arange(200, dtype=">f8"))
    twin(half, 5, (0, 10), weights=np.arange(200, dtype=">i2"))
    twin(half[:0], 5, weights=np.arange(0, dtype=">u4"))


@pytest.mark.parametrize("weighted", [False, True])
def test_density(weighted, rng):
    x = samples(rng, 3000, np.float64, -5, 5)
    w = rng.random(3000) if weighted else None
    for bins in (10, [-5, -1, 0, 0.5, 5]):
        got, edges = prim.histogram(x, bins, (-5, 5), weights=w, density=True)
        want, wedges = np.histogram(x, bins, (-5, 5), weights=w, density=True)
        assert got.dtype == want.dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=1e-12)
        np.testing.assert_array_equal(edges, wedges)


def test_string_bins(rng):
    x = samples(rng, 2000, np.float64)
    for est in ("auto", "fd", "sturges", "sqrt"):
        twin(x, est)
    twin(x, "auto", (0, 100))


def test_bool_samples_warn_and_count_as_uint8():
    x = np.array([True, False, True, True])
    with pytest.warns(RuntimeWarning, match="Converting input from bool"):
        got = prim.histogram(x, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        H.assert_same(got, np.histogram(x, 2))


def test_empty_input():
    for dt in (np.float32, np.int16):
        x = np.array([], dt)
        twin(x)
        twin(x, 5, (1, 2))
        twin(x, [1, 2, 4])


def test_any_shape_non_contiguous_and_lists(rng):
    x = samples(rng, 6 * 7 * 9, np.float64).reshape(6, 7, 9)
    twin(x, 13)
    y = samples(rng, 4000, np.int32)[::3]
    twin(y, 13)
    twin([1, 2, 2, 3, 7], 3)


def count_plans():
    """The count plans in the plan cache, oldest first (public attributes: ``variant``,
    ``kernel``, ``stages``, ``replicas``...)."""
    return [p for k, p in P.PLANS._plans.items() if k[0] == "histogram/count"]


def twin_plan(*args, **kwargs):
    """:func:`twin` on an empty plan cache; returns the one count plan the call built."""
    prim.clear_caches()
    twin(*args, **kwargs)
    (plan,) = count_plans()
    return plan


def test_auto_rule(rng):
    cap = histograms.shared_capacity()
    auto = histograms.auto_variant
    assert auto(256) == auto(cap) == "warp_replicated"
    assert auto(cap + 1) == auto(1 << 20) == "partial_privatized"
    assert auto(cap // 2 + 1, weighted=True) == "partial_privatized"
    assert [histograms.replicas_for(b) for b in (256, 383, 384, 1024, 2048, 4096, cap)] == [
        32,
        32,
        4,
        4,
        2,
        1,
        1,
    ]
    prim.clear_caches()
    x = samples(rng, 517, np.float32)
    prim.histogram(x, 256)
    prim.histogram(x, 1 << 20)
    assert [p.variant for p in count_plans()] == ["warp_replicated", "partial_privatized"]


def wrap_counts(rng, nbins, sms):
    """Integer samples for bins 0..nbins-1 that wrap 16-bit counters: with one block per SM
    (blocks_per_sm=1), each block sees more than 65536 samples of bin 0 (a low field), bin 1
    (the high field of the same word: the low field's carries land there), and the last bin
    (with nbins odd the low field of a word whose high field is past the bins); a few samples
    spread over the other bins."""
    per = 3 * 70000  # samples each block sees of the three busy bins together
    n = sms * per
    x = rng.choice(np.array([0, 1, nbins - 1]), n, p=[0.45, 0.4, 0.15])
    spread = rng.integers(0, nbins, 5000)
    return np.concatenate([x, spread]).astype(np.int32)


#: partial_privatized's packed walks: the returning adds, the bounded adds
PACKED_WALKS = {"returning": dict(packed_bounded=False), "bounded": dict(packed_bounded=True)}


@pytest.mark.parametrize("walk", PACKED_WALKS)
@pytest.mark.parametrize("nbins", [70001, 1 << 17])
def test_packed_counters_wrap(nbins, walk, rng):
    """partial_privatized counts bins beyond 32-bit shared counters in 16-bit counters, two a
    word (Packed16): fields that wrap, many times, and the carries of low fields into high
    ones, under any interleaving the device runs (the returning adds), or settled between
    rounds (the bounded adds: settlements of both fields of a word); the last word's high field
    past the bins (nbins odd); the bins past shared memory (1 << 17: global atomics)."""
    info = prim._core.backend.get_backend().device_info()
    x = wrap_counts(rng, nbins, info.sm_count)
    partial = dict(bucketed_from_bins=0)  # auto: partial_privatized at any count of bins
    with prim.tuning.override(
        "histogram", selector="production", blocks_per_sm=1, **PACKED_WALKS[walk], **partial
    ):
        plan = twin_plan(x, nbins, (0, nbins))
        assert plan.variant == "partial_privatized" and plan.shared < 4 * nbins
    with prim.tuning.override("histogram", selector="production", packed=False, **partial):
        plan = twin_plan(x, nbins, (0, nbins))
        assert plan.shared >= 4 * min(nbins, histograms.shared_capacity())


#: the even binner's inner edges in its bands: computed as linspace computed them (the record's
#: start and step, _binning.edge_formula), or loaded
EDGE_RULES = {"computed": dict(f32_edges_computed=True), "loaded": dict(f32_edges_computed=False)}

#: ranges of the many-bin edge test, with the edge formula each takes when computed (linspace in
#: float64: 1; float32 arithmetic: 2, for float32 scalars, or float64 edges it reproduces (a
#: width of 2^-16); None: the range of the samples, float32 scalars); float64 scalars make
#: float64 edges
NEAR_EDGE_RANGES = [
    ((0.0, 1.0), 1),
    ((0.0, 70001 / 65536), 2),
    ((np.float64(-3.0), np.float64(5.0)), 1),  # float64 edges
    ((-3.0, 5.0), 1),
    ((0.1, 0.7), 1),
    ((1000.0, 1064.0), 1),
    ((np.float32(-2.5), np.float32(7.25)), 2),
    (None, 2),
]


@pytest.mark.parametrize("rule", EDGE_RULES)
@pytest.mark.parametrize("walk", PACKED_WALKS)
@pytest.mark.parametrize("rng_,mode", NEAR_EDGE_RANGES, ids=str)
def test_many_bins_near_edges(rng_, mode, walk, rule, rng):
    """Bins beyond 32-bit shared counters (partial_privatized, Packed16, each packed walk) of
    float32 samples: the samples in the bands about inner edges compared with that edge alone
    (BinEven::many: the edge computed as linspace made it, or loaded), the outer edges, NaN and
    infinities, out of range (bands as wide as a bin at (1000, 1064): every sample compared with
    the edges); every edge, its neighbours one ulp away and random samples, exact against
    NumPy. Without a range the samples' own minimum and maximum make the edges (in float32)."""
    nbins = 70001
    lo, hi = (-2.5, 7.25) if rng_ is None else rng_
    if rng_ is None:
        x0 = rng.uniform(lo, hi, 50000).astype(np.float32)
        x0[:2] = lo, hi
        edges = np.histogram_bin_edges(x0, nbins)
    else:
        x0 = rng.uniform(lo - 0.1, hi + 0.1, 50000).astype(np.float32)
        edges = np.histogram_bin_edges(np.zeros(1, np.float32), nbins, rng_)
    edges = edges.astype(np.float32)
    x = np.concatenate(
        [edges, np.nextafter(edges, np.float32(np.inf)), np.nextafter(edges, np.float32(-np.inf))]
    )
    if rng_ is None:  # the added samples inside the samples' range
        x = x[(x >= x0.min()) & (x <= x0.max())]
    else:
        x = np.concatenate([x, np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], np.float32)])
    x = rng.permutation(np.concatenate([x0, x]))
    fields = {**PACKED_WALKS[walk], **EDGE_RULES[rule]}
    with prim.tuning.override("histogram", selector="production", **fields):
        plan = twin_plan(x, nbins, rng_)
    (binning,) = [k[1] for k in P.PLANS._plans if k[0] == "histogram/binning"]
    assert plan.variant == "partial_privatized" and plan.shared < 4 * nbins
    assert binning.edge_rule[0] == (mode if rule == "computed" else 0)


def _device_edges(mode, start, step, n, e_dt):
    """The inner edges 1..n-1 as kernels/histograms/bins.cuh's BinEvenF32::edge computes them
    (mode 1: float64, rounded once to the edges' dtype; mode 2: float32 product and sum)."""
    i = np.arange(1, n, dtype=np.float64)
    if mode == 1:
        return (i * step + start).astype(e_dt)
    return (i.astype(np.float32) * np.float32(step) + np.float32(start)).astype(e_dt)


@settings(max_examples=80, deadline=None)
@given(
    lo=st.floats(-1e6, 1e6),
    width=st.floats(1e-2, 1e6),
    n=st.integers(2, 3000),
    f32_scalars=st.booleans(),
    e_dt=st.sampled_from([np.float32, np.float64]),
)
def test_edge_formula_reproduces_linspace(lo, width, n, f32_scalars, e_dt):
    """_binning.edge_formula: for linspace's increasing edges of any normal range, a rule (float32
    scalars: 2; float64 linspace: 1, or 2 where float32 arithmetic agrees) whose device
    arithmetic gives every inner edge bit for bit; for edges with one moved, none (0) or a rule that gives them; none
    through float32 subnormals."""
    from primitives.histograms import _binning

    start, stop = (np.float32(lo), np.float32(lo + width)) if f32_scalars else (lo, lo + width)
    edges = np.linspace(start, stop, n + 1, dtype=e_dt)
    assume(bool(np.all(edges[1:] > edges[:-1])))  # histogram's own condition on its edges
    mode, s0, step = _binning.edge_formula(edges, start, stop)
    assert mode == 2 if f32_scalars else mode in (1, 2)
    np.testing.assert_array_equal(_device_edges(mode, s0, step, n, e_dt), edges[1:n])
    moved = edges.copy()  # another rule may still fit: then it gives these edges
    moved[n // 2] = np.nextafter(moved[n // 2], e_dt(np.inf))
    mode, s0, step = _binning.edge_formula(moved, start, stop)
    if mode:
        np.testing.assert_array_equal(_device_edges(mode, s0, step, n, e_dt), moved[1:n])
    moved = np.linspace(0.0, 1.0, 1001, dtype=np.float32)
    moved[500] = np.nextafter(moved[500], np.float32(1))
    assert _binning.edge_formula(moved, 0.0, 1.0)[0] == 0
    tiny = np.linspace(np.float32(0), np.float32(1e-40), 9, dtype=np.float32)
    assert _binning.edge_formula(tiny, np.float32(0), np.float32(1e-40))[0] == 0


def _ulps_around(e, k):
    """Every value of ``e`` and its neighbours up to ``k`` ulps away on either side."""
    out, up, down = [e], e, e
    for _ in range(k):
        up = np.nextafter(up, e.dtype.type(np.inf))
        down = np.nextafter(down, e.dtype.type(-np.inf))
        out += [up, down]
    return np.concatenate(out)


#: (bins, range) of the edge band's test: RANGES for the bins that fit in shared memory, and
#: for 70,001 bins the ones whose float32 edges are distinct ((1000, 1064) for (1000, 1001))
BAND_CASES = [(nb, r) for nb in (255, 4096) for r in RANGES] + [
    (70001, r if r != (1000.0, 1001.0) else (1000.0, 1064.0)) for r in RANGES
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=IDS)
@pytest.mark.parametrize("nbins,rng_", BAND_CASES, ids=str)
def test_edge_band_at_its_bound(dtype, nbins, rng_, rng):
    """The production policy's f32_edge_band at 3, the least its knob takes (float32 edges'
    rounding bound is 2.5, float32 samples over histogram2d's float64 edges 2: _binning._guard;
    other samples over float64 edges take 8 whatever the policy): samples on every edge and up
    to three ulps either side, and random ones, exact against NumPy in histogram (the
    shared-memory kernel, the partial privatization past it, the global one), histogram_even
    and histogram2d."""
    edges = np.histogram_bin_edges(np.zeros(1, dtype), nbins, rng_).astype(dtype)
    x = np.concatenate([_ulps_around(edges, 3), samples(rng, 20000, dtype, *rng_)]).astype(dtype)
    x = rng.permutation(x)
    variants = ["partial_privatized", "global_vectorized"]
    if nbins <= 4096:
        variants.append("warp_replicated")
    with prim.tuning.override("histograms", selector="production", f32_edge_band=3):
        for variant in variants:
            twin(x, nbins, rng_, variant=variant)
        e = np.linspace(rng_[0], rng_[1], nbins + 1, dtype=np.float32)
        xe = np.concatenate([_ulps_around(e, 3), x.astype(np.float32)[:5000]])
        got = prim.histogram_even(xe, nbins, rng_[0], rng_[1])
        np.testing.assert_array_equal(got, even_oracle(xe, nbins, rng_[0], rng_[1]))
        if nbins <= 4096:
            y = rng.permutation(x)
            got2 = prim.histogram2d(x, y, [nbins, 7], [rng_, rng_])[0]
            want2 = np.histogram2d(x, y, [nbins, 7], [rng_, rng_])[0]
            np.testing.assert_array_equal(to_host(got2), want2)


#: histogram2d ranges whose float64 edges start at no float32 normal, or whose scale (bins / span)
#: is none: the float32 samples over them take no float32 position (_binning._guard: 1.0)
PAST_F32 = [
    [(1e-300, 1.0), (0.0, 1.0)],
    [(0.0, 1e-39), (-1e-38, 1e-38)],
    [(-1.0, 1.0), (-3e38, 3e38)],
]


@pytest.mark.parametrize("ranges", PAST_F32, ids=str)
def test_histogram2d_float32_over_edges_past_float32(ranges, rng):
    """Float32 samples over float64 edges take a float32 position only where first and scale are
    float32 normals (_binning._guard, kernels/histograms/bins.cuh: BinEvenF32); past that every
    sample is compared with the edges, and lands where NumPy puts it."""
    from primitives.histograms import _binning

    nb = [7, 5]
    cols = []
    for (lo, hi), n in zip(ranges, nb):
        e = np.linspace(lo, hi, n + 1)
        guard = _binning._guard(np.dtype(np.float32), e, n, np.float32(lo), np.float32(hi), 8)
        assert guard == 1.0 or (lo, hi) == (0.0, 1.0) or (lo, hi) == (-1.0, 1.0)
        near = _ulps_around(e.astype(np.float32), 2)
        inside = rng.uniform(lo, hi, 3000).astype(np.float32)
        cols.append(np.concatenate([near, inside, np.float32([np.nan, 0.0, -0.0])]))
    m = min(c.size for c in cols)
    x, y = (rng.permutation(c)[:m] for c in cols)
    got = prim.histogram2d(x, y, nb, ranges)[0]
    np.testing.assert_array_equal(to_host(got), np.histogram2d(x, y, nb, ranges)[0])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lo=st.floats(-1e6, 1e6),
    width=st.floats(1e-3, 1e6),
    nx=st.integers(1, 300),
    seed=st.integers(0, 2**32 - 1),
)
def test_histogram2d_float32_any_range(lo, width, nx, seed):
    """Float32 samples over histogram2d's float64 edges, any range: on every edge and two ulps
    about it, and inside, as NumPy bins them (the float32 position's band, _binning._guard,
    from ranges many bins wide to ones far narrower than their magnitude)."""
    rng = np.random.default_rng(seed)
    hi = lo + width
    e = np.linspace(lo, hi, nx + 1)
    x = np.concatenate([_ulps_around(e.astype(np.float32), 2), rng.uniform(lo, hi, 2000)])
    x = rng.permutation(x.astype(np.float32))
    y = rng.random(x.size, dtype=np.float32)
    r = [(lo, hi), (0.0, 1.0)]
    got = prim.histogram2d(x, y, [nx, 3], r)[0]
    np.testing.assert_array_equal(to_host(got), np.histogram2d(x, y, [nx, 3], r)[0])


def test_policies_are_data():
    """The tuning in force is read through primitives.tuning; an override lasts for its block."""
    prod = prim.tuning.policy("histogram", "production")
    assert dataclasses.is_dataclass(prod) and prod.block % 32 == 0 and not prod.aggregate
    assert prim.tuning.policy("histogram", "uint8").vectors >= 1
    assert prim.tuning.policy("histogram", "textbook").block % 32 == 0
    with prim.tuning.override("histogram", selector="int32", stages=3) as pol:
        assert pol.stages == 3 and prim.tuning.policy("histogram", "int32").stages == 3
        assert prim.tuning.policy("histogram", "int64").stages == 0
    assert prim.tuning.policy("histogram", "int32").stages == 0


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64], ids=IDS)
def test_packet_aggregation(dtype, rng, schedule):
    """The production kernel's optional packet aggregation (off by default, see auto_variant):
    packets of one bin take one atomic; mixed packets, heads and tails one atomic per sample."""
    x = samples(rng, 4099, dtype, 0, 255)
    x[100:3000] = 7  # long runs: whole packets in one bin
    with prim.tuning.override("histogram", aggregate=True):
        for args in ((256, (0, 256)), (7, (0, 255)), (np.array([0, 7, 7.5, 300]),)):
            assert twin_plan(x[1:], *args, variant="warp_replicated").aggregate


# ---- staged loads: the production kernel's packets copied to shared memory (cp.async) -----------

#: stage counts per sample size (16, 8, 4 and 2 samples per packet): (with one histogram copy
#: per lane, with fewer copies); the library's own policies may stage none of these dtypes
STAGED = {
    np.dtype(np.uint8): (4, 3),
    np.dtype(np.int16): (3, 2),
    np.dtype(np.float32): (2, 5),
    np.dtype(np.float64): (5, 2),
}


@pytest.fixture
def staged():
    """warp_replicated with its count walk staged as STAGED (every other dtype on the register
    walk), through tuning overrides: plans of their own."""
    with contextlib.ExitStack() as stack:
        for dt in histograms.SAMPLE_DTYPES:
            s, s_few = STAGED.get(dt, (0, 0))
            stack.enter_context(
                prim.tuning.override(
                    "histogram", selector=dt.name, stages=s, stages_few_copies=s_few
                )
            )
        yield


@pytest.mark.parametrize("dtype", list(STAGED), ids=IDS)
def test_staged_walk(dtype, staged, backend, rng, schedule):
    """Awkward sizes (none, less than a packet, one packet and a sample around it), misaligned
    views (a scalar head), and a size at which every thread's ring of slots wraps around a few
    times, against NumPy; the plan took the staged kernel."""
    s, s_few = STAGED[dtype]
    per_pass = prim.backend_info()["sm_count"] * 2 * 1024 * (16 // dtype.itemsize)
    base = samples(rng, per_pass * (s + 2) + 64, dtype, 0, 255)
    for n in (0, 1, 15, 16, 17, 4099, per_pass * (s + 2) + 37):
        for off in (0, 1, 3) if n < 5000 else (3,):
            x = base[off : off + n]
            if n:
                assert twin_plan(x, 256, (0, 256), variant="warp_replicated").stages == s
            else:
                twin(x, 256, (0, 256), variant="warp_replicated")
    x = base[5 : 5 + 3001]
    for args in ((7, (0, 255)), (np.array([0, 7, 7.5, 300]),)):  # other binners
        twin(x, *args)
    for n in (17, per_pass * (s_few + 2) + 37):  # fewer copies than lanes: the other stage count
        x = base[3 : 3 + n]
        plan = twin_plan(x, 1000, (0, 256), variant="warp_replicated")
        assert plan.replicas < 32 and plan.stages == s_few
    x = native(base[:3000], backend)
    for _ in range(3):  # the cached launch
        assert np.array_equal(
            to_host(prim.histogram_even(x, 256, 0, 256)),
            np.histogram(base[:3000], 256, (0, 256))[0],
        )


@pytest.mark.parametrize("dtype", [np.uint8, np.float64], ids=IDS)
def test_staged_walk_with_packet_aggregation(dtype, staged, rng, schedule):
    x = samples(rng, 40000, dtype, 0, 255)
    x[100:30000] = 7  # long runs: whole packets in one bin
    with prim.tuning.override("histogram", aggregate=True):
        plan = twin_plan(x[1:], 256, (0, 256), variant="warp_replicated")
        assert plan.stages == STAGED[np.dtype(dtype)][0] and plan.aggregate


def test_staged_rules(staged, backend, rng):
    """The register walk for weights, before sm_80, and where the slots do not fit next to the
    counters; the variant rules (bins per block) are those of the counters alone."""
    dev = backend.device_info()
    f32 = np.dtype(np.float32)
    stages_for = histograms.stages_for
    assert stages_for(f32, 1024, "count", dev) == 2
    assert stages_for(f32, 1024, "count", dev, lane_copies=False) == 5
    assert stages_for(f32, 1024, "weight", dev) == 0
    assert stages_for(np.dtype(np.int32), 1024, "count", dev) == 0  # not in STAGED
    for cc, want in (("70", 0), ("75", 0), ("80", 2), ("90", 2), ("100", 2)):
        assert (
            stages_for(f32, 1024, "count", dataclasses.replace(dev, compute_capability=cc)) == want
        )
    room = dev.shared_per_block_optin - 2 * 1024 * 16  # bytes of counters that leave two slots
    assert stages_for(f32, room, "count", dev) == 2
    assert stages_for(f32, room + 1, "count", dev) == 0
    stage_offset = histograms.stage_offset
    assert stage_offset(1) == 16 and stage_offset(32) == 32 and stage_offset(33) == 48
    x = samples(rng, 5003, np.float32, 0, 255)
    plan = twin_plan(x, 256, (0, 256))  # the staged kernel, the only one the plan loaded
    assert plan.variant == "warp_replicated" and plan.stages == 2
    assert plan.kernel.name.endswith(", 2>")
    w = rng.random(5003)
    prim.clear_caches()
    np.testing.assert_allclose(
        to_host(prim.histogram(x, 256, (0, 256), weights=w)[0]),
        np.histogram(x, 256, (0, 256), weights=w)[0],
        rtol=1e-12,
    )
    assert [p.stages for p in count_plans()] == [0]
    cap = histograms.shared_capacity()
    assert histograms.auto_variant(cap) == "warp_replicated"
    plan = twin_plan(x, cap, (0, 256))
    assert plan.stages == 0 and plan.replicas == 1


@pytest.mark.parametrize("weighted", [False, True])
def test_sort_reduce_by_key_runs(weighted, rng):
    """Every bin a run of the sorted keys, dropped samples (out of range, NaN) the last run, bins
    beyond 2^16 (keys of 17 bits) and empty bins between runs."""
    x = rng.random(5000).astype(np.float32) * 1.2 - 0.1
    x[::97] = np.nan
    w = rng.random(5000) if weighted else None
    for nbins in (1, 3, 70000):
        got, edges = prim.histogram(x, nbins, range=(0, 1), weights=w, variant="sort_reduce_by_key")
        want, want_edges = np.histogram(x, nbins, range=(0, 1), weights=w)
        assert np.array_equal(edges, want_edges)
        if weighted:
            assert np.allclose(got, want, rtol=1e-12, atol=1e-12)
        else:
            assert np.array_equal(got, want)


# ---- contention: all-equal data, real images ----------------------------------------------------


def _images():
    data = pytest.importorskip("skimage.data")
    astro = data.astronaut()  # a photograph, (512, 512, 3) uint8
    sky = data.hubble_deep_field()  # a sky image: mostly dark, (872, 1000, 3) uint8
    return {"astronaut": astro, "coffee": data.coffee(), "hubble_deep_field": sky}


@pytest.mark.parametrize("image", ["astronaut", "coffee", "hubble_deep_field"])
@pytest.mark.parametrize("variant", histograms.VARIANTS)
def test_real_images(variant, image):
    img = _images()[image]
    grey = (img.astype(np.uint16).sum(axis=2) // 3).astype(np.uint8)
    for x in (grey, img[..., 0]):
        twin(x, 256, (0, 256), variant=variant)
    twin(img.astype(np.float32) / 255, 64, (0, 1), variant=variant)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.int64], ids=IDS)
@pytest.mark.parametrize("variant", histograms.VARIANTS)
def test_all_equal(variant, dtype, schedule):
    x = np.full(20000, 77, dtype)
    twin(x, 256, (0, 256), variant=variant)
    assert np.array_equal(
        prim.bincount(x.astype(np.uint8), variant=variant), np.bincount(x.astype(np.uint8))
    )


# ---- repeated calls: the cached production launch ----------------------------------------------


def native(x, backend):
    """``x`` in the backend's own memory (CuPy on the GPU): the input a cached launch replays."""
    return backend.xp.asarray(x)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64], ids=IDS)
def test_repeated_calls(dtype, backend, rng, schedule):
    """Later calls with the same arguments replay one cached launch whose last block writes the
    counts and the edges: every call equals NumPy on new data (the accumulator was left zero)
    and returns new arrays (changing one does not change the next result)."""
    for nbins in (1, 7, 256, 4096, 4097):
        for _ in range(3):
            x = samples(rng, 3001, dtype, 0, 255)
            got = prim.histogram(native(x, backend), nbins, (0, 256))
            H.assert_same(got, np.histogram(x, nbins, (0, 256)), what=f"{nbins} bins")
            even = prim.histogram_even(native(x, backend), nbins, 0, 256)
            assert np.array_equal(to_host(even), np.histogram(x, nbins, (0, 256))[0])
            got[0][...] = -1
            got[1][...] = -1
            even[...] = -1


@pytest.mark.parametrize(
    "func,args",
    [
        ("histogram", (256, (0, 256))),
        ("histogram", (7, (1.0, 200.0))),
        ("histogram_even", (256, 0, 256)),
        ("bincount", ()),
        ("bincount", (None, 300)),
        ("histogram_channels", (16, (0, 256))),
    ],
)
def test_repeat_calls_take_the_filed_plan(func, args, backend, rng):
    """A call on samples like an earlier call's (with the same other arguments) takes that
    call's plan: no plan is built, the answers are NumPy's; other arguments are still checked."""
    prim.clear_caches()
    f = getattr(prim, func)
    want = {
        "histogram": lambda x: np.histogram(x, *args),
        "histogram_even": lambda x: np.histogram(x, 256, (0, 256))[0],
        "bincount": lambda x: np.bincount(x, *args),
        "histogram_channels": lambda x: np.stack(
            [np.histogram(x[..., c], *args)[0] for c in range(3)]
        ),
    }[func]
    shape = (1001, 3) if func == "histogram_channels" else (3003,)
    xs = [samples(rng, 3003, np.uint8, 0, 255).reshape(shape) for _ in range(3)]
    H.assert_same(f(native(xs[0], backend), *args), want(xs[0]))
    builds = prim.cache_info()["builds"]
    for x in xs[1:]:
        H.assert_same(f(native(x, backend), *args), want(x))
    assert prim.cache_info()["builds"] == builds  # no new plan: the filed one
    bad = native(xs[0], backend)
    with pytest.raises(ValueError, match="variant must be|range"):
        if func == "histogram_channels":
            f(bad, 16, (5, 1))
        else:
            f(bad, *args, variant="omega")
    if func == "bincount":
        with pytest.raises(ValueError, match="must not be negative"):
            f(bad, None, -1)
    else:
        with pytest.raises(ValueError, match="positive"):
            f(bad, 0, *args[1:])


@pytest.mark.parametrize("variant", [v for v in histograms.VARIANTS if v != "sort_reduce_by_key"])
def test_repeat_calls_of_every_variant_take_the_filed_plan(variant, backend, rng):
    """The repeat path is every variant's, not only the production kernel's: like calls of
    ``histogram`` and ``histogram_even`` with an explicit variant build no plan, equal NumPy,
    and return new arrays (edges included: changing one result leaves the next alone)."""
    prim.clear_caches()
    xs = [samples(rng, 2999, np.uint8, 0, 255) for _ in range(3)]
    prim.histogram(native(xs[0], backend), 37, (0, 256), variant=variant)
    prim.histogram_even(native(xs[0], backend), 37, 0, 256, variant=variant)
    builds = prim.cache_info()["builds"]
    like = native(xs[0], backend)
    for func, args in (("histogram", (like, 37, (0, 256))), ("histogram_even", (like, 37, 0, 256))):
        key = getattr(prim, func).entry.key(args, {"variant": variant})
        assert P.PLANS.find(key) is not None, func
    for x in xs[1:]:
        want = np.histogram(x, 37, (0, 256))
        got = prim.histogram(native(x, backend), 37, (0, 256), variant=variant)
        H.assert_same(got, want, what=variant)
        even = prim.histogram_even(native(x, backend), 37, 0, 256, variant=variant)
        assert np.array_equal(to_host(even), want[0])
        got[0][...] = -1
        got[1][...] = -1
        even[...] = -1
    assert prim.cache_info()["builds"] == builds


@pytest.mark.parametrize(
    "func,args,want",
    [
        ("histogram", (16, (0, 256)), lambda h: np.histogram(h, 16, (0, 256))),
        ("histogram_even", (16, 0, 256), lambda h: np.histogram(h, 16, (0, 256))[0]),
        ("bincount", (), np.bincount),
    ],
)
def test_repeat_calls_choose_the_variant_once(func, args, want, backend, rng, monkeypatch):
    """The variant choice runs in the prepare step of a call: a repeat call on like samples
    takes the filed plan without choosing again."""
    from primitives.histograms import _choose

    chosen = []
    choose = _choose.choose

    def counted(*a, **k):
        chosen.append(a[0])
        return choose(*a, **k)

    monkeypatch.setattr(_choose, "choose", counted)
    prim.clear_caches()
    f = getattr(prim, func)
    for _ in range(3):
        x = samples(rng, 2999, np.uint8, 0, 255)  # below 256: histogram_even's open bin alike
        H.assert_same(f(native(x, backend), *args), want(x))
    assert chosen == ["auto"]


@pytest.mark.parametrize(
    "func,args,kw",
    [
        ("histogram", (256, (0, 256)), {}),
        ("histogram", (7,), {"variant": "privatized"}),
        ("histogram", (), {"bins": [0, 7, 99.5, 300]}),
        ("histogram", (16, (0, 256)), {"density": True}),
        ("histogram_even", (256, 0, 256), {}),
        ("histogram_even", (33, 5, 250), {"variant": "aggregated"}),
        ("bincount", (), {}),
        ("bincount", (), {"minlength": 300, "variant": "global_vectorized"}),
        ("histogram_channels", (64, (0, 256)), {}),
    ],
)
def test_explicit_plan(func, args, kw, backend, rng):
    """``prim.plan(f, like, ...)`` and ``f.plan(like, ...)`` equal ``f`` on like samples and on
    others (another size, dtype, a host array on the GPU)."""
    f = getattr(prim, func)
    shape = (1001, 3) if func == "histogram_channels" else (3003,)
    like = native(samples(rng, 3003, np.uint8, 0, 255).reshape(shape), backend)
    p, q = prim.plan(f, like, *args, **kw), f.plan(like, *args, **kw)
    others = [
        samples(rng, 3003, np.uint8, 0, 255).reshape(shape),
        samples(rng, 999, np.uint8, 0, 255).reshape((-1, 3) if len(shape) > 1 else -1),
        samples(rng, 3003, np.int16, 0, 255).reshape(shape),
    ]
    for x in others:
        for y in (native(x, backend), x):
            want = f(y, *args, **kw)
            H.assert_same(p(y), to_host(want), what=f"{func} {y.shape} {y.dtype}")
            H.assert_same(q(y), to_host(want))


def test_plan_refuses_bad_arguments():
    """A plan checks its arguments when it is made, and raises as the function would."""
    x = np.zeros(100, np.uint8)
    with pytest.raises(ValueError, match="variant must be"):
        prim.plan(prim.histogram, x, 10, (0, 1), variant="omega")
    with pytest.raises(ValueError, match="max must be larger than min"):
        prim.histogram.plan(x, 10, (1, 0))
    with pytest.raises(ValueError, match="need finite lower < upper"):
        prim.plan(prim.histogram_even, x, 10, 1, 0)
    with pytest.raises(ValueError, match="'minlength' must not be negative"):
        prim.plan(prim.bincount, x, minlength=-1)
    with pytest.raises(ValueError, match="channel axis"):
        prim.plan(prim.histogram_channels, x)


def test_repeated_calls_take_each_argument_with_its_type(backend, rng):
    x = samples(rng, 2999, np.uint8, 0, 255)
    for rng_ in ((0, 256), (0.0, 256.0), (np.float32(0), np.float32(256)), [0, 256]) * 2:
        H.assert_same(
            prim.histogram(native(x, backend), 16, rng_), np.histogram(x, 16, rng_), what=str(rng_)
        )
    for bins in (16, np.int64(16), True):
        H.assert_same(
            prim.histogram(native(x, backend), bins, (0, 256)),
            np.histogram(x, bins, (0, 256)),
            what=repr(bins),
        )
    img = native(x[:2990].reshape(23, 130), backend)  # any C-contiguous shape
    for _ in range(2):
        H.assert_same(prim.histogram(img, 9, (3, 200)), np.histogram(x[:2990], 9, (3, 200)))
    base = native(np.stack([x, x]).T.copy(), backend)  # same shape, not contiguous
    for cols in (base[:, 0].copy(), base[:, 1]):
        H.assert_same(prim.histogram(cols, 16, (0, 256)), np.histogram(x, 16, (0, 256)))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8], ids=IDS)
def test_repeated_bincount(dtype, backend, rng, schedule):
    """The cached 8-bit bincount reads its length (the last non-zero count) back from the kernel:
    the length follows the data from call to call, negative int8 values still raise."""
    top = {np.bool_: (0, 1), np.int8: (0, 3, 127, 90)}.get(dtype, (0, 3, 255, 90))
    for minlength in (0, 5, 300):
        for hi in top * 2:
            x = rng.integers(0, hi, 2000, endpoint=True).astype(dtype)
            got = to_host(prim.bincount(native(x, backend), minlength=minlength))
            want = np.bincount(x, minlength=minlength)
            assert got.dtype == want.dtype and np.array_equal(got, want), (minlength, hi)
    if dtype is np.int8:
        x[1234] = -3
        with pytest.raises(ValueError, match="must have no negative elements"):
            prim.bincount(native(x, backend), minlength=300)
        x[1234] = 3
        assert np.array_equal(
            to_host(prim.bincount(native(x, backend), minlength=300)), np.bincount(x, minlength=300)
        )


def test_repeated_calls_without_a_spare_result(backend, rng):
    """A call whose spare result another thread took allocates its own."""
    x = samples(rng, 1003, np.float32, 0, 1)
    plan = prim.plan(prim.histogram, native(x, backend), 10, (0, 1)).core  # the filed plan
    for i in range(4):
        if i >= 2:
            plan.spares.clear()
        H.assert_same(prim.histogram(native(x, backend), 10, (0, 1)), np.histogram(x, 10, (0, 1)))
        assert prim.plan(prim.histogram, native(x, backend), 10, (0, 1)).core is plan


def test_repeated_bincount_without_its_extent(backend, rng):
    """When the flag after the extent never comes, the host gives up once the stream is done."""
    x = native(rng.integers(0, 9, 1001).astype(np.uint8), backend)
    prim.bincount(x)
    plan = prim.bincount.plan(x).core  # the plan the call filed
    plan.launch = lambda *args: None  # launches nothing
    with pytest.raises(RuntimeError, match="did not report its extent"):
        prim.bincount(x)


# ---- bincount -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dtype",
    [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64],
    ids=IDS,
)
@pytest.mark.parametrize("variant", histograms.VARIANTS)
def test_bincount(variant, dtype, rng, schedule):
    hi = 1 if dtype is np.bool_ else 120
    x = rng.integers(0, hi, 3001, endpoint=True).astype(dtype)
    for minlength in (0, 5, 300):
        twin(x, minlength=minlength, func="bincount", variant=variant)
    if variant in WEIGHTED:
        twin(x, rng.random(3001), func="bincount", variant=variant, rtol=1e-12)


@pytest.mark.parametrize("func", ["histogram", "bincount"])
def test_bucketed_takes_no_weights(func, rng):
    x = rng.integers(0, 100, 500).astype(np.int32)
    args = (x, 10) if func == "histogram" else (x,)
    with pytest.raises(ValueError, match="variant 'bucketed' counts samples and takes no weights"):
        getattr(prim, func)(*args, weights=np.ones(500), variant="bucketed")


def test_bucketed_bins_at_most(rng):
    x = samples(rng, 100, np.float32, 0, 1)
    most = _choose.BUCKETED_MAX_BINS
    got = prim.histogram(x, most, (0, 1), variant="bucketed")[0]
    assert int(got.sum()) == 100 and got.size == most
    with pytest.raises(ValueError, match=f"variant 'bucketed' takes at most {most} bins"):
        prim.histogram(x, most + 1, (0, 1), variant="bucketed")


def test_bincount_edge_cases(rng):
    assert np.array_equal(prim.bincount(np.array([], np.int32)), np.bincount(np.array([], int)))
    twin(np.array([], np.uint8), minlength=4, func="bincount")
    # NumPy returns intp zeros for empty x and never reads the weights
    twin(np.array([], np.uint8), np.array([]), 2, func="bincount")
    twin(np.array([0], np.uint8), func="bincount")
    assert prim.bincount(np.array([255], np.uint8)).tolist() == [0] * 255 + [1]
    twin(np.array([127, 0], np.int8), func="bincount")
    twin(rng.integers(0, 70000, 5000).astype(np.int64), func="bincount")
    w = np.zeros(3, np.float32)  # zero weights still set the length
    twin(np.array([1, 9, 3], np.uint8), w, func="bincount")
    twin([1, 2, 2], func="bincount")


@pytest.mark.parametrize(
    "bad,exc,match",
    [
        (np.ones((2, 2), int), ValueError, "1-D"),
        (np.array(3), ValueError, "1-D"),
        (np.ones(3, float), TypeError, "Cannot cast array data from dtype\\('float64'\\)"),
        (np.ones(3, np.complex64), TypeError, "Cannot cast array data from dtype\\('complex64'\\)"),
        (np.array([-1, 2]), ValueError, "must have no negative elements"),
        (np.array([-1, 2], np.int8), ValueError, "must have no negative elements"),
        (np.array([5, -30000], np.int16), ValueError, "must have no negative elements"),
    ],
)
def test_bincount_input_errors(bad, exc, match):
    twin_raises("bincount", exc, match, bad, numpy_match=False)


def test_bincount_argument_errors():
    x = np.array([1, 2])
    for kw, exc, match in [
        ({"minlength": -1}, ValueError, "'minlength' must not be negative"),
        ({"minlength": None}, TypeError, "use 0 instead of None"),
        ({"minlength": 2.0}, TypeError, "'float' object cannot be interpreted as an integer"),
        ({"weights": [1.0]}, ValueError, "don't have the same length"),
        ({"weights": np.array([1j, 2j])}, TypeError, "Cannot cast"),
    ]:
        twin_raises("bincount", exc, match, x, numpy_match=False, **kw)
    H.raises_like(TypeError, "bincount", prim.bincount, "abc", match="x must be")
    H.raises_like(ValueError, "bincount", prim.bincount, x, variant="nope", match="variant must be")


def test_bincount_empty_list():
    """NumPy reads an empty list or tuple as an empty intp array."""
    twin([], func="bincount")
    twin([], minlength=3, func="bincount")
    twin((), minlength=2, func="bincount")
    twin_raises("bincount", ValueError, "must not be negative", [], minlength=-1)
    twin_raises("bincount", ValueError, "", [[]], numpy_match=False)


def test_bincount_empty_with_weights():
    """Empty ``x``: NumPy returns intp zeros and never reads the weights."""
    twin(np.array([], np.intp), np.array([]), func="bincount")
    twin(np.array([], np.intp), np.array([]), 3, func="bincount")
    twin(np.array([], np.uint8), np.array([1j, 2j]), 2, func="bincount")
    twin([], [1.0, 2.0], func="bincount")


def test_bincount_minlength_as_numpy_reads_it():
    x = np.array([1, 2])
    twin_raises("bincount", TypeError, "an integer is required", x, minlength=True)
    twin_raises("bincount", TypeError, "only integer scalar arrays", x, minlength=np.array(2.0))
    twin_raises("bincount", OverflowError, "too large to convert to C long", x, minlength=2**63)
    # x is read before minlength
    twin_raises("bincount", ValueError, "too deep", np.ones((2, 2), int), minlength=None)
    twin(x, minlength=np.array(4), func="bincount")


def test_bincount_weights_like_numpy():
    from fractions import Fraction

    # a list of numbers is converted one by one to float64
    twin([0, 1, 1], [Fraction(1, 2), 2, Fraction(1, 4)], func="bincount")
    twin_raises("bincount", ValueError, "too small depth", [1], weights=2.0)


# ---- histogram_even -----------------------------------------------------------------------------


def even_oracle(x, bins, lower, upper):
    e_dt = np.float32 if x.dtype == np.float32 else np.float64
    e = np.linspace(lower, upper, bins + 1, dtype=e_dt)
    v = x.astype(e_dt)
    v = v[(v >= e[0]) & (v < e[-1])]
    return np.bincount(np.searchsorted(e, v, "right") - 1, minlength=bins)


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize(
    "spec",
    [(7, 97, 125), (256, 0, 256), (10, 0.5, 99.5), (3, -20, 300), (1, 0, 1), (4096, -300, 300)],
    ids=str,
)
def test_histogram_even(dtype, spec, rng):
    x = samples(rng, 3001, dtype)
    e = np.linspace(spec[1], spec[2], spec[0] + 1)
    x[::11][: e.size] = e.astype(dtype)[: x[::11].size]
    for variant in ("auto", "aggregated", "global_atomic_interleaved"):
        got = prim.histogram_even(x, *spec, variant=variant)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, even_oracle(x, *spec), err_msg=variant)


@pytest.mark.parametrize(
    "spec",
    [(256, 0.0, 1.0), (100, -3.0, 5.0), (7, 1000.0, 1001.0), (64, -1e-3, 2e-3), (3, -1e-38, 1e-38)],
    ids=str,
)
def test_histogram_even_float32_next_to_edges(spec, rng):
    """float32 samples on every edge and one ulp either side, NaN, infinities, signed zeros and
    subnormals: the float binner's fast test must hand all of them to the exact path (the
    threshold below the open upper edge is one ulp inside it)."""
    nb, lo, hi = spec
    e = np.linspace(lo, hi, nb + 1, dtype=np.float32)
    odd = np.array([np.nan, np.inf, -np.inf, 1e-40, -1e-40, 0.0, -0.0], np.float32)
    x = np.concatenate(
        [
            e,
            np.nextafter(e, np.float32(np.inf)),
            np.nextafter(e, np.float32(-np.inf)),
            odd,
            samples(rng, 700, np.float32, lo - (hi - lo), hi + (hi - lo)),
        ]
    )
    x = x.astype(np.float32)
    for variant in ("auto", "coarsened_interleaved", "global_vectorized"):
        got = prim.histogram_even(x, nb, lo, hi, variant=variant)
        np.testing.assert_array_equal(got, even_oracle(x, nb, lo, hi), err_msg=variant)


def test_histogram_even_upper_is_open():
    x = np.array([0, 1, 2, 3, 4], np.int32)
    assert prim.histogram_even(x, 2, 0, 4).tolist() == [2, 2]
    assert prim.histogram(x, 2, (0, 4))[0].tolist() == [2, 3]  # numpy.histogram: closed


def test_histogram_even_errors():
    x = np.ones(4, np.float32)
    for args, exc in [
        ((0, 0, 1), ValueError),
        ((2.5, 0, 1), TypeError),
        ((2, 1, 1), ValueError),
        ((2, 0, np.inf), ValueError),
        ((2, np.nan, 1), ValueError),
        ((2, "a", 1), TypeError),
        ((1000, 1, 1.00001), ValueError),
    ]:
        H.raises_like(exc, "histogram_even", prim.histogram_even, x, *args)


# ---- histogram_channels -------------------------------------------------------------------------


def channels_oracle(img, bins, r):
    return np.stack([np.histogram(img[..., c], bins, r)[0] for c in range(img.shape[-1])])


@pytest.mark.parametrize("channels", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32, np.int32], ids=IDS)
def test_channels(dtype, channels, rng, schedule):
    img = samples(rng, 37 * 41 * channels, dtype, 0, 255).reshape(37, 41, channels)
    for bins, r in ((256, (0, 256)), (7, (10, 200)), (100, (0.5, 255.5))):
        got = prim.histogram_channels(img, bins, r)
        assert got.shape == (channels, bins) and got.dtype == np.int64
        np.testing.assert_array_equal(got, channels_oracle(img, bins, r))


def test_channels_real_images():
    for name, img in _images().items():
        np.testing.assert_array_equal(
            prim.histogram_channels(img), channels_oracle(img, 256, (0, 256))
        )
        rgba = np.concatenate([img, img[..., :1]], axis=2)
        np.testing.assert_array_equal(
            prim.histogram_channels(rgba, 64, (0, 256)), channels_oracle(rgba, 64, (0, 256))
        )


def test_channels_errors():
    f = prim.histogram_channels
    H.raises_like(ValueError, "histogram_channels", f, np.ones(10, np.uint8), match="channel axis")
    H.raises_like(
        ValueError, "histogram_channels", f, np.ones((2, 65), np.uint8), match="1 to 64 channels"
    )
    H.raises_like(
        ValueError,
        "histogram_channels",
        f,
        np.ones((2, 3), np.uint8),
        range=None,
        match="range must be given",
    )
    H.raises_like(
        ValueError,
        "histogram_channels",
        f,
        np.ones((2, 3), np.uint8),
        range=(5, 1),
        match="max must be larger than min",
    )
    H.raises_like(
        ValueError,
        "histogram_channels",
        f,
        np.ones((2, 4), np.uint8),
        bins=20000,
        match="do not fit",
    )
    H.raises_like(
        TypeError, "histogram_channels", f, np.ones((2, 3), np.complex64), match="image has dtype"
    )


# ---- hypothesis: properties against NumPy -------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), dtype=st.sampled_from(DTYPES), variant=st.sampled_from(histograms.VARIANTS))
def test_property_histogram_matches_numpy(data, dtype, variant):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        elems = st.floats(-1e4, 1e4, width=dt.itemsize * 8, allow_nan=False)
    else:
        info = np.iinfo(dt)
        elems = st.integers(max(int(info.min), -(2**40)), min(int(info.max), 2**40))
    x = data.draw(hnp.arrays(dt, st.integers(1, 2000), elements=elems))
    kind = data.draw(st.sampled_from(["int", "range", "edges"]))
    if kind == "int":
        args = (data.draw(st.integers(1, 300)),)
    elif kind == "range":
        a, b = sorted(data.draw(st.lists(elems, min_size=2, max_size=2)))
        args = (data.draw(st.integers(1, 300)), (a, b))
    else:
        e = np.unique(np.asarray(data.draw(st.lists(elems, min_size=2, max_size=40)), dt))
        if e.size < 2:
            e = np.array([0, 1], dt)
        args = (e,)
    try:
        want = np.histogram(x, *args)
    except ValueError as exc:  # e.g. too many bins for the range: the same error
        with pytest.raises(ValueError, match=str(exc).split(".")[0]):
            prim.histogram(x, *args, variant=variant)
        return
    H.assert_same(prim.histogram(x, *args, variant=variant), want, what=f"{variant} {args}")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    x=hnp.arrays(
        st.sampled_from([np.uint8, np.int16, np.int32, np.int64]),
        st.integers(1, 2000),
        elements=st.integers(0, 127),
    ),
    minlength=st.integers(0, 300),
    variant=st.sampled_from(histograms.VARIANTS),
)
def test_property_bincount_matches_numpy(x, minlength, variant):
    got = prim.bincount(x, minlength=minlength, variant=variant)
    assert np.array_equal(got, np.bincount(x, minlength=minlength))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    dtype=st.sampled_from([np.float32, np.float64, np.int32, np.uint16, np.int64]),
    nbins=st.one_of(
        st.sampled_from([1, 65535, 65536, 65537, 131072, 3 * 65536 + 17]), st.integers(1, 4 * 65536)
    ),
    n=st.integers(1, 40000),
    spread=st.sampled_from(["uniform", "few", "outside"]),
    bounded=st.booleans(),
)
def test_property_bucketed_wide_bins(data, dtype, nbins, n, spread, bounded):
    """The bucketed variant over many bins: several 65,536-bin ranges, tiles and tally slices
    that straddle them, dropped samples (outside the range), samples in a few bins only."""
    dt = np.dtype(dtype)
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    hi = 60000 if dt == np.uint16 else 1e6
    x = rng.uniform(0, hi, n)
    if spread == "few":
        x = rng.choice(x[:5], n)
    rng_ = (hi * 0.1, hi * 0.9) if spread == "outside" else (0, hi)
    x = x.astype(dt)
    want = np.histogram(x, nbins, rng_)
    with prim.tuning.override("histograms", selector="production", bucket_tally_bounded=bounded):
        got = prim.histogram(x, nbins, rng_, variant="bucketed")
    H.assert_same(got, want, what=f"{nbins} {rng_}")


@pytest.mark.parametrize("block", [32, 96])
def test_bucketed_small_blocks(block, rng):
    """Blocks of fewer threads than buckets (256 at most): each thread scans several buckets'
    sizes and reserves several buckets' places."""
    x = rng.integers(0, 250 * 65536, 30000).astype(np.int64)
    x[::3] = 7  # one bucket far fuller than the others
    with prim.tuning.override("histograms", selector="production", block=block):
        got = prim.bincount(x, minlength=250 * 65536, variant="bucketed")
    assert np.array_equal(got, np.bincount(x, minlength=250 * 65536))


@pytest.mark.parametrize("bounded", [False, True], ids=["returning", "bounded"])
@pytest.mark.parametrize("dtype", [np.float32, np.uint32])
def test_bucketed_one_bin_past_16_bits(dtype, bounded):
    """A bin counted more than 65,535 times within one block's slice (the emulator's tally grid
    takes slices of 75,000): the 16-bit shared counters hand the wraps to the result (Packed16's
    returning adds), or settle between rounds of 32,768 samples (the bounded adds)."""
    with prim.tuning.override("histograms", selector="production", bucket_tally_bounded=bounded):
        if dtype is np.float32:
            x = np.full(300000, 0.75, np.float32)
            x[::5] = 0.25
            want = np.histogram(x, 131072, (0, 1))
            H.assert_same(prim.histogram(x, 131072, (0, 1), variant="bucketed"), want)
        else:
            x = np.full(300000, 70001, np.uint32)  # an odd bin: a word's high field
            x[::7] = 3
            x[1::7] = 70000  # its neighbour in its word
            assert np.array_equal(prim.bincount(x, variant="bucketed"), np.bincount(x))


# ---- errors: NumPy's branches, one test each ----------------------------------------------------


def twin_raises(func, exc, match, *args, numpy_match=True, named=True, **kw):
    """``numpy.<func>`` and ``prim.<func>`` on the same arguments both raise ``exc`` (the
    harness's twins: the same type, primitives naming the function unless not ``named``),
    primitives' message matching ``match`` (and NumPy's too, with ``numpy_match``: NumPy's own
    text)."""
    raised = {}

    def body(xp):
        try:
            return getattr(xp, func)(*args, **kw)
        except Exception as e:
            raised[xp is np] = e
            raise

    got = H.run_twins(body, kwargs={}, name=func if named else None)
    assert isinstance(got, H.Raised) and isinstance(got.exc, exc), got
    for e in [raised[False]] + ([raised[True]] if numpy_match else []):
        assert re.search(match, str(e)), f"{e!r} does not match {match!r}"


def both_raise(exc, match, *args, **kw):
    twin_raises("histogram", exc, match, *args, **kw)


def test_bins_not_an_integer():
    both_raise(TypeError, "`bins` must be an integer, a string, or an array", [1, 2], bins=2.0)


def test_bins_not_positive():
    both_raise(ValueError, "`bins` must be positive, when an integer", [1, 2], bins=0)


def test_bins_not_1d():
    both_raise(ValueError, "`bins` must be 1d, when an array", [1, 2], bins=[[1, 2]])


def test_bins_not_monotone():
    both_raise(ValueError, "`bins` must increase monotonically, when an array", [1, 2], bins=[2, 1])


def test_range_reversed():
    both_raise(ValueError, "max must be larger than min in range parameter", [1, 2], range=(2, 1))


def test_range_not_finite():
    both_raise(ValueError, r"supplied range of \[0, inf\] is not finite", [1, 2], range=(0, np.inf))


def test_range_not_a_pair():
    # Python's own unpacking error, in NumPy and here: the message names no function
    twin_raises(
        "histogram", ValueError, "too many values to unpack", [1, 2], range=(1, 2, 3), named=False
    )


def test_autodetected_range_not_finite():
    both_raise(
        ValueError, r"autodetected range of \[1.0, inf\] is not finite", np.array([1, np.inf])
    )


def test_unknown_estimator():
    both_raise(ValueError, "'foo' is not a valid estimator for `bins`", [1.0, 2.0], bins="foo")


def test_estimator_with_weights():
    both_raise(
        TypeError, "not supported for weighted data", [1.0, 2.0], bins="auto", weights=[1, 1]
    )


def test_weights_shape():
    both_raise(ValueError, "weights should have the same shape as a", [1, 2], weights=[1])


def test_too_many_bins_for_range():
    both_raise(
        ValueError,
        "Too many bins for data range",
        np.array([1.0, 2], np.float32),
        bins=1000,
        range=(1, 1.00001),
    )


def test_nan_in_edges():
    H.raises_like(
        ValueError,
        "histogram",
        prim.histogram,
        [1.0, 2.0],
        bins=[0, np.nan, 3],
        match="must not contain NaN",
    )


def test_float16_samples(rng):
    """float16 samples as numpy.histogram's: float16 edges (its linspace, its estimators, its
    arithmetic for a constant array), each sample binned exactly (float32 holds every float16)
    against them; device input too."""
    x = (rng.standard_normal(5000) * 3).astype(np.float16)
    x[::97] = np.float16(5.0)  # on the top edge of the range below: the closed last bin
    for bins, kw in (
        (10, {}),
        (37, {"range": (-2, 5)}),
        ([-1, 0, 0.5, 3.0], {}),
        (np.array([-1, 0, 0.5, 3], np.float16), {}),
        ("auto", {}),
        ("fd", {}),
        (16, {"density": True}),
        (5, {"range": (0, 1e-3)}),
    ):
        twin(x, bins, **kw)
        twin(x.reshape(50, 100), bins, **kw)
    twin(x, 8, weights=rng.random(5000), rtol=1e-12)  # float sums in another order
    twin(x.astype(">f2"), 9)  # another byte order
    twin(np.full(7, 3, np.float16), 4)  # a constant array: NumPy's +-0.5 in float16
    twin(np.empty(0, np.float16), 4)
    twin_raises(
        "histogram",
        ValueError,
        "not finite",
        np.array([np.nan, 1], np.float16),
        3,
        numpy_match=False,
    )


def test_bfloat16_samples(rng):
    """bfloat16 samples (ml_dtypes) as numpy.histogram's, as float16's: bfloat16 edges of int
    bins and estimators (NumPy's arithmetic in bfloat16), each sample binned exactly as float32
    against them."""
    bf16 = _dtypes.BFLOAT16
    x = (rng.standard_normal(4097) * 3).astype(bf16)
    x[::97] = bf16.type(5.0)  # on the top edge of the range below: the closed last bin
    for bins, kw in (
        (10, {}),
        (37, {"range": (-2, 5)}),
        ([-1, 0, 0.5, 3.0], {}),
        ("auto", {}),
        (16, {"density": True}),
    ):
        twin(x, bins, **kw)
        twin(x[:1000].reshape(10, 100), bins, **kw)
    twin(x[:31], 8, weights=rng.random(31), rtol=1e-12)
    twin(np.full(7, 3, bf16), 4)  # a constant array: NumPy's +-0.5 in bfloat16
    twin(np.empty(0, bf16), 4)
    twin(x[:1], 3)
    twin_raises(
        "histogram", ValueError, "not finite", np.array([np.nan, 1], bf16), 3, numpy_match=False
    )


@pytest.mark.parametrize("bad", [np.complex64, np.longdouble, "U1"])
def test_unsupported_sample_dtype(bad):
    H.raises_like(
        TypeError, "histogram", prim.histogram, np.ones(4).astype(bad), match="a has dtype"
    )


@pytest.mark.parametrize(
    "func,arg,call",
    [
        ("bincount", "x", lambda: prim.bincount(np.array(["a"]))),
        ("bincount", "x", lambda: prim.bincount(["a", "b"])),
        ("bincount", "weights", lambda: prim.bincount([0, 1], np.array(["a", "b"]))),
        ("bincount", "weights", lambda: prim.bincount([0, 1], ["a", "b"])),
        ("histogram", "a", lambda: prim.histogram(np.array(["a"]))),
        ("histogram", "weights", lambda: prim.histogram([1.0, 2.0], weights=["a", "b"])),
        ("histogram_even", "a", lambda: prim.histogram_even(np.array(["a"]), 4, 0, 1)),
        (
            "histogram_channels",
            "image",
            lambda: prim.histogram_channels(np.array([["a", "b"]]), 4, (0, 1)),
        ),
    ],
)
def test_string_input_is_named_before_it_moves(func, arg, call, monkeypatch):
    _device_like_as_input(monkeypatch)
    H.raises_like(TypeError, func, call, match=f"{arg} has dtype <U1")


def test_unsupported_weight_dtype():
    # NumPy takes timedelta64 weights; the float64 sums here cannot hold them
    H.raises_like(
        TypeError,
        "histogram",
        prim.histogram,
        np.ones(4),
        weights=np.ones(4, "m8[s]"),
        match="weights has dtype timedelta64",
    )


@pytest.mark.parametrize("wdtype", [np.complex64, np.complex128, ">c16"], ids=str)
def test_complex_weights(wdtype, rng):
    """NumPy sums complex weights as complex: each part summed on its own here."""
    x = samples(rng, 300, np.float64, 0, 10)
    w = (rng.integers(-3, 4, 300) + 1j * rng.integers(-3, 4, 300)).astype(wdtype)
    twin(x, 7, (0, 10), weights=w)
    twin(x, 7, (0, 10), weights=w, density=True, rtol=1e-12)
    twin(x, [0, 1, 2.5, 10], weights=w)


def test_unsupported_edge_dtype():
    H.raises_like(
        TypeError,
        "histogram",
        prim.histogram,
        np.ones(4),
        bins=np.array([1 + 1j, 2 + 1j]),
        match="bin edges must be integers or floats",
    )


@pytest.mark.parametrize("bad", ["abc", None, {"a": 1}, object()])
def test_not_an_array(bad):
    H.raises_like(TypeError, "histogram", prim.histogram, bad, match="a must be")


def test_bad_variant():
    H.raises_like(
        ValueError,
        "histogram",
        prim.histogram,
        np.ones(4),
        variant="omega",
        match="variant must be",
    )


@pytest.mark.parametrize("variant", ALL_SHARED)
def test_too_many_bins_for_shared_memory(variant):
    nbins = histograms.shared_capacity() + 1
    H.raises_like(
        ValueError,
        "histogram",
        prim.histogram,
        np.ones(4, np.float32),
        nbins,
        variant=variant,
        match="use 'partial_privatized' or 'auto'",
    )


# ---- the asv suite ------------------------------------------------------------------------------


def test_asv_benchmarks_skip_without_cuda(backend):
    import inspect

    from tests.conftest import load_benchmark

    mod = load_benchmark("histograms")
    classes = [
        c
        for _, c in inspect.getmembers(mod, inspect.isclass)
        if c.__module__ == mod.__name__ and not c.__name__.startswith("_")
    ]
    assert {c.__name__ for c in classes} == {"Variants", "Bins", "Bincount", "Peers", "Histogram2d"}
    assert mod.Variants.params[0] == list(histograms.VARIANTS)
    for cls in classes:
        assert len(cls.params) == len(cls.param_names)
        assert cls.track_time_ms.unit == "ms" and cls.track_gbps.unit == "GB/s"
        if not backend.is_cuda:
            with pytest.raises(NotImplementedError, match="GPU benchmark"):
                cls().setup(mod._Module().setup_cache(), *[p[0] for p in cls.params])


# ---- GPU only -----------------------------------------------------------------------------------


@pytest.mark.gpu
def test_device_in_device_out(on_gpu, rng):
    if not on_gpu:
        pytest.skip("needs the CUDA backend")
    import cupy

    x = samples(rng, 100000, np.float32, 0, 1)
    hist, edges = prim.histogram(cupy.asarray(x), 256, (0, 1))
    assert isinstance(hist, cupy.ndarray) and isinstance(edges, cupy.ndarray)
    H.assert_same((hist, edges), np.histogram(x, 256, (0, 1)))
    assert isinstance(prim.bincount(cupy.asarray(x.astype(np.uint8))), cupy.ndarray)


@pytest.mark.gpu
def test_large_inputs_on_gpu(on_gpu):
    """2^28 samples through every production path, and 2^31 + 77 uint8 samples (64-bit
    indexing, blocks counting up to 2^31 samples each)."""
    if not on_gpu:
        pytest.skip("needs the CUDA backend")
    import cupy

    r = cupy.random.default_rng(3)
    x = r.random(1 << 28, dtype=cupy.float32)
    for nbins in (256, 4096, 65536, 1 << 20):
        got = cupy.asnumpy(prim.histogram(x, nbins, (0, 1))[0])
        want = cupy.asnumpy(cupy.histogram(x, nbins, (0, 1))[0])
        assert got.sum() == x.size
        # cupy.histogram bins by position alone: it may differ from NumPy's edges by one bin for
        # samples within an ulp of an edge; compare counts only up to those few samples
        assert np.abs(got - want).sum() <= max(8, x.size >> 20)
    del x
    n = 2**31 + 77
    y = cupy.full(n, 200, dtype=cupy.uint8)
    y[-5:] = 3
    y[12345] = 255
    got = prim.bincount(y)
    assert got.shape == (256,) and int(got[200]) == n - 6 and int(got[3]) == 5
    assert int(got[255]) == 1
    del y
    cupy.get_default_memory_pool().free_all_blocks()


@pytest.mark.gpu
def test_repeated_calls_on_two_streams(on_gpu, rng):
    """Each stream replays its own cached launch (its accumulator and ticket)."""
    if not on_gpu:
        pytest.skip("needs the CUDA backend")
    import cupy

    xs = [samples(rng, 1 << 20, np.float32, 0, 1) for _ in range(2)]
    streams = [cupy.cuda.Stream(non_blocking=True) for _ in range(2)]
    outs = []
    for _ in range(3):
        for x, stream in zip(xs, streams):
            with stream:
                xd, bd = cupy.asarray(x), cupy.asarray((x * 200).astype(np.uint8))
                outs.append((x, prim.histogram(xd, 256, (0, 1)), prim.bincount(bd), xd, bd))
    for stream in streams:
        stream.synchronize()
    for x, got, counts, _, _ in outs:
        H.assert_same(got, np.histogram(x, 256, (0, 1)))
        assert np.array_equal(cupy.asnumpy(counts), np.bincount((x * 200).astype(np.uint8)))


# ---- histogramdd / histogram2d ----------------------------------------------------------------


def _same_dd(got, want):
    """hist and every edge array equal NumPy's, values and dtypes."""
    (h, edges), (wh, wedges) = got, want
    h = to_host(h)
    assert h.dtype == wh.dtype and h.shape == wh.shape
    np.testing.assert_allclose(h, wh, rtol=1e-12)
    assert len(edges) == len(wedges)
    for e, we in zip(edges, wedges):
        e = to_host(e)
        assert e.dtype == we.dtype and np.array_equal(e, we)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8], ids=IDS)
@pytest.mark.parametrize("bins", [5, (3, 4, 2), "mixed"])
def test_histogramdd_equals_numpy(dtype, bins, backend, rng):
    """Counts, weights and densities of (N, 3) samples in NumPy's bins, edges included: int
    bins (one or per dimension, with and without range) and edge arrays mixed with ints."""
    s = (rng.random((777, 3)) * 10).astype(dtype)
    s[5] = 10  # on the last edge of the autodetected range: the last bin
    if bins == "mixed":
        bins = [np.array([0, 1, 2.5, 9]), 4, np.linspace(0, 10, 7)]
    w = rng.random(777)
    for range_ in (None, [(0, 5), None, (1, 8)]):
        for density in (None, True):
            for weights in (None, w):
                _same_dd(
                    prim.histogramdd(
                        native(s, backend),
                        bins,
                        range_,
                        density,
                        None if weights is None else native(weights, backend),
                    ),
                    np.histogramdd(s, bins, range_, density, weights),
                )


def test_histogram2d_equals_numpy(backend, rng):
    """histogram2d's forms of ``bins`` (int, pair, one edges array, pair of edges and int) with
    NaN samples (dropped) and samples on edges."""
    x = rng.standard_normal(3001).astype(np.float32)
    y = rng.standard_normal(3001).astype(np.float32)
    x[::7] = np.nan
    y[::11] = 1.0  # an inner edge of the bins below
    for bins in (10, [5, 7], np.linspace(-2, 2, 9), [np.linspace(-1, 1, 5), 6]):
        got = prim.histogram2d(native(x, backend), native(y, backend), bins, [[-2, 2], [-3, 3]])
        want = np.histogram2d(x, y, bins, [[-2, 2], [-3, 3]])
        _same_dd((got[0], got[1:]), (want[0], want[1:]))


def test_histogramdd_sample_forms(backend, rng):
    """A sequence of D 1-D arrays is the same sample as their (N, D) stack; an empty sample
    gives zeros; the plan equals the function."""
    cols = [rng.random(300), rng.random(300)]
    want = np.histogramdd(np.stack(cols, axis=1), 4)
    _same_dd(prim.histogramdd([native(c, backend) for c in cols], 4), want)
    _same_dd(prim.histogramdd(np.zeros((0, 2)), 3), np.histogramdd(np.zeros((0, 2)), 3))
    s = native(np.stack(cols, axis=1), backend)
    _same_dd(prim.histogramdd.plan(s, bins=4)(s), want)


@pytest.mark.parametrize(
    "args,kw,exc",
    [
        ((np.ones((4, 2)), [3, 3, 3]), {}, ValueError),  # bins of another dimension
        ((np.ones((4, 2)), [3, 0]), {}, ValueError),  # a bin count < 1
        ((np.ones((4, 2)), [np.array([0, 2, 1]), 3]), {}, ValueError),  # edges not monotone
        ((np.ones((4, 2)), 3), {"range": [(1, 0), None]}, ValueError),  # a reversed range
        ((np.ones((4, 2)), 3), {"weights": np.ones(3)}, ValueError),  # weights of another length
        ((np.array([[np.nan, 1.0]]), 3), {}, ValueError),  # autodetected range not finite
    ],
)
def test_histogramdd_errors(args, kw, exc):
    """NumPy's error types, each message naming histogramdd."""
    with pytest.raises(exc):
        np.histogramdd(*args, **kw)
    H.raises_like(exc, "histogramdd", prim.histogramdd, *args, **kw)


def test_histogram2d_errors():
    """x and y of different lengths and a string sample, named histogram2d."""
    H.raises_like(ValueError, "histogram2d", prim.histogram2d, np.ones(3), np.ones(4))
    H.raises_like(TypeError, "histogram2d", prim.histogram2d, np.array(["a"]), np.ones(1))


@pytest.mark.parametrize("func", ["histogram", "histogram_even"])
def test_the_bool_warning_points_at_the_caller(func):
    """NumPy's warning for bool samples names the line that called, not a line of the library."""
    x = np.array([True, False, True])
    args = {"histogram": (x,), "histogram_even": (x, 2, 0, 2)}[func]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        getattr(prim, func)(*args)
    mine = [w for w in seen if "Converting input from bool" in str(w.message)]
    assert mine and all(w.filename == __file__ for w in mine)


@pytest.mark.parametrize(
    "small, large",
    [
        (np.float16, np.float32),
        (np.float16, np.float64),
        (np.float16, np.longdouble),
        (np.float32, np.float64),
        (np.float32, np.longdouble),
        (np.float64, np.longdouble),
    ],
    ids=str,
)
def test_float16_samples_against_a_wider_range(small, large):
    """NumPy compares samples with the edges in the range's dtype: a range just above (below)
    1.0 in float64 leaves out a sample 1.0 that float32 edges would count; a longdouble range
    (host samples only) makes longdouble edges, which the samples meet rounded outward."""
    eps = np.finfo(large).eps
    x = np.array([1.0], small)
    for rng in (np.array([1.0 + eps, 2.0], large), np.array([0.0, 1.0 - eps], large)):
        if large is np.longdouble:  # host input only: device arrays hold no longdouble edges
            for density in (False, True):
                got = prim.histogram(x, 1, rng, density=density)
                want = np.histogram(x, 1, rng, density=density)
                H.assert_same(got[0], want[0])
                H.assert_same(got[1], want[1])
        else:
            twin(x, 1, rng)
    if large is np.longdouble:  # many bins, samples on and beside the longdouble edges
        edges = np.linspace(np.longdouble(1) / 3, np.longdouble(0.9), 8)
        y = np.concatenate([np.random.default_rng(0).random(1000), edges.astype(float)])
        y = y.astype(small)
        got, want = (
            prim.histogram(y, 7, (edges[0], edges[-1])),
            np.histogram(y, 7, (edges[0], edges[-1])),
        )
        H.assert_same(got[0], want[0])
        H.assert_same(got[1], want[1])


#: interleavings of Packed16's carry that one thread plays in order (kernels/histograms/bins.cuh):
#: A's add to bin 0 wraps the low field; before A takes the carry back, B adds to bin 1
_PACKED16_STEPS = r"""
#include "histograms/bins.cuh"
// up: both fields at 0xffff; A's add wraps the low field and its carry wraps the high one; B adds
// one to bin 1; A hands over both wraps and takes the carry back (which crosses nothing now).
// down: low 0xffff, high 0; A's add wraps the low field, its carry makes the high field 1; B adds
// 0xffff to bin 1 (its last add wraps the high field: B hands that over); A's take-back moves the
// high field from 0 to 0xffff.
extern "C" __global__ void packed16_steps(unsigned* h, unsigned long long* out) {
    if (threadIdx.x != 0) return;
    h[0] = 0xffffffffu;
    unsigned old = atomicAdd(h, 1u);
    prim::Packed16::add(h, 1, 2, out);
    prim::Packed16::wrapped(h, 0, old, 2, out);
    h[2] = 0x0000ffffu;
    old = atomicAdd(h + 2, 1u);
    for (int i = 0; i < 0xffff; ++i) prim::Packed16::add(h + 2, 1, 2, out + 2);
    prim::Packed16::wrapped(h + 2, 0, old, 2, out + 2);
}
"""


def test_packed16_carry_interleavings(backend):
    """The carry protocol of the 16-bit counters under the two interleavings the kernels' tests
    cannot force: another thread's add to the high field between a low field's wrap and the
    take-back of its carry, with the high field crossing 0xffff -> 0 by the carry (handed over
    as +65536) or 0 -> 0xffff by the take-back (-65536); out + fields = the counts."""
    from primitives._core import emulator as emu, loader

    root = loader.kernels_root()
    h = backend.xp.zeros(4, np.uint32)
    out = backend.xp.zeros(4, np.uint64)
    if backend.is_cuda:
        import cupy

        mod = cupy.RawModule(code=_PACKED16_STEPS, options=loader.nvrtc_options())
        mod.get_function("packed16_steps")((1,), (32,), (h, out))
    else:
        mod = emu.compile_module(
            _PACKED16_STEPS, ["packed16_steps"], include_dirs=[root], cache_key=loader.tree_hash()
        )
        mod.get_function("packed16_steps")(1, 32, (h, out))
    h, out = to_host(h), to_host(out).astype(np.int64)  # the -65536 hand-over wraps in uint64
    fields = np.array([h[0] & 0xFFFF, h[0] >> 16, h[2] & 0xFFFF, h[2] >> 16], np.int64)
    want = np.array([0x10000, 0x10000, 0x10000, 0xFFFF])  # bin 0, bin 1; then the second pair
    np.testing.assert_array_equal(out + fields, want)
    assert out.tolist() == [65536, 65536, 65536, 0]  # the carry's crossings handed over

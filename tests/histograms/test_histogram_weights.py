"""Weighted histograms on the production kernels against the NumPy oracle: float32 weights read
as they are (no float64 copy) and float64 weights, every sample dtype, sizes that leave partial
16-byte packets, views of the samples and of the weights that start off a 16-byte boundary
(each alone, both alike, both differently), many bins (partial_privatized), NaN, infinities,
negative and subnormal weights; and the weights the kernels receive."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import primitives as prim
from primitives import histograms
from primitives._core import plans as P
from primitives.histograms import SAMPLE_DTYPES, _plans
from primitives.testing import harness as H

DTYPES = list(SAMPLE_DTYPES)  # every dtype the kernels take
WDTYPES = [np.float32, np.float64]
#: the variants that read float32 weights as they are, and auto (which runs them)
PRODUCTION = ["auto", "warp_replicated", "partial_privatized"]
#: a 16-byte packet holds 16, 8, 4 or 2 samples: a sample dtype of each size
PACKET_DTYPES = [np.uint8, np.int16, np.float32, np.int64]
SIZES = [1, 3, 15, 16, 17, 33, 4097]
#: (samples' offset, weights' offset) in elements from a 64-byte boundary: both aligned, the
#: samples alone off (x[1:]), the weights alone off (w[3:]), both off alike, both differently
OFFSETS = [(0, 0), (1, 0), (0, 3), (1, 1), (3, 3), (1, 3)]
#: the weight tests' tolerances (test_histogram.py: test_weights, test_staged_rules)
RTOL = {np.dtype(np.float32): 1e-6, np.dtype(np.float64): 1e-12}
IDS = lambda d: np.dtype(d).name  # noqa: E731


def aligned(a):
    """A copy of ``a`` that starts on a 64-byte boundary (device allocations start on 256-byte
    ones), so that a view's offset from it is the view's misalignment."""
    buf = np.empty(a.nbytes + 64, np.uint8)
    skip = -buf.ctypes.data % 64
    out = buf[skip : skip + a.nbytes].view(a.dtype)
    out[...] = a
    return out


def data(rng, n, dtype, wdtype, lo=0, hi=255):
    """Samples of ``dtype`` in [lo, hi] and weights of ``wdtype`` of both signs, each ``n`` long
    and 64-byte aligned."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        x = rng.uniform(lo, hi, n)
    else:
        x = rng.integers(lo, hi, n, endpoint=True)
    w = rng.standard_normal(n) * 4
    return aligned(x.astype(dt)), aligned(w.astype(wdtype))


def check(x, w, n, offsets, variant, backend, bins=256, rng_=(0, 256)):
    """prim.histogram of ``n`` samples and weights at ``offsets`` into ``x`` and ``w``, views made
    in the backend's memory, against NumPy's of the same host views, through the harness. NumPy
    adds float32 sums of 65536-sample chunks in float32: the oracle is NumPy's float64 sums
    cast to the weights' dtype (as test_histogram.py's test_weights)."""
    xo, wo = offsets
    xd, wd = backend.xp.asarray(x)[xo : xo + n], backend.xp.asarray(w)[wo : wo + n]

    def body(xp):
        if xp is np:
            wx = w[wo : wo + n]
            h, edges = np.histogram(x[xo : xo + n], bins, rng_, weights=wx.astype(np.float64))
            return h.astype(wx.dtype), edges
        return prim.histogram(xd, bins, rng_, weights=wd, variant=variant)

    tol = RTOL[w.dtype]
    # float64 sums added in another order (atomics) differ by rounding that grows with a bin's
    # sum of |w| (measured on an H200: 7e-12 on a bin of -0.6 from ~34,000 weights in [-1, 1))
    wv = w[wo : wo + n].astype(np.float64)
    mass = float(np.abs(wv[np.isfinite(wv)]).sum()) / bins
    body.__name__ = f"{variant} {x.dtype}/{w.dtype} n={n} offsets={offsets} bins={bins}"
    return H.run_twins(body, rtol=tol, atol=tol * max(1.0, 1e-3 * mass), name="histogram")


def count_plans():
    return [p for k, p in P.PLANS._plans.items() if k[0] == "histogram/count"]


# ---- sizes and views: every packet width ---------------------------------------------------------


@pytest.mark.parametrize("wdtype", WDTYPES, ids=IDS)
@pytest.mark.parametrize("variant", [*PRODUCTION, "global_vectorized"])
def test_sizes_and_views(variant, wdtype, backend, rng):
    """Heads and tails of every length, no whole packet, one, and packets with a partial one
    after; the samples' and the weights' views aligned alike (the 16-byte walk) or not (the
    scalar walk); and enough samples for every thread to take a few packets."""
    per_pass = prim.backend_info()["sm_count"] * 2 * 1024
    for dtype in PACKET_DTYPES:
        big = per_pass * (16 // np.dtype(dtype).itemsize) * 2 + 37
        x, w = data(rng, big + 8, dtype, wdtype)
        for n in SIZES:
            for offsets in OFFSETS:
                check(x, w, n, offsets, variant, backend)
        for offsets in ((0, 0), (1, 3)):
            check(x, w, big, offsets, variant, backend)


@pytest.mark.parametrize("wdtype", WDTYPES, ids=IDS)
@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_every_sample_dtype(dtype, wdtype, backend, rng, schedule):
    """Every sample dtype, with bins of width one over [0, 256) and of width 9 over [0, 252) (the
    dtype's binners: the byte itself, shifts, tables, even bins), both production variants and
    auto."""
    x, w = data(rng, 4200, dtype, wdtype)
    for variant in PRODUCTION:
        for n, offsets in ((17, (1, 1)), (4097, (0, 0)), (4097, (3, 1))):
            check(x, w, n, offsets, variant, backend)
        check(x, w, 3001, (2, 2), variant, backend, bins=28, rng_=(0, 252))


def test_packets_in_flight(backend, rng):
    """More loads in flight than the library's policies take (four sample packets' bytes, one
    policy override for both dtypes: one module): two packets and their weights per iteration for
    float32 samples with float32 weights and for int64 samples with float32 ones, one with
    float64 weights."""
    with (
        prim.tuning.override("histogram", selector="float32", vectors=4),
        prim.tuning.override("histogram", selector="int64", vectors=4),
    ):
        for dtype in (np.float32, np.int64):
            per_pass = prim.backend_info()["sm_count"] * 2 * 1024 * (16 // np.dtype(dtype).itemsize)
            for wdtype in WDTYPES:
                x, w = data(rng, 3 * per_pass + 64, dtype, wdtype)
                for n in (17, 4097, 3 * per_pass + 5):
                    for offsets in ((0, 0), (1, 1), (1, 0)):
                        check(x, w, n, offsets, "warp_replicated", backend)


# ---- many bins: partial_privatized, the bins beyond shared memory with global atomics ------------


@pytest.mark.parametrize("wdtype", WDTYPES, ids=IDS)
def test_many_bins(wdtype, backend, rng):
    nbins = histograms.shared_capacity("weight") + 1
    assert histograms.auto_variant(nbins, weighted=True) == "partial_privatized"
    x, w = data(rng, 20000, np.float32, wdtype, 0, 1)
    for variant in ("auto", "partial_privatized"):
        for n, offsets in ((20000 - 8, (0, 0)), (4097, (1, 1)), (4097, (0, 3))):
            prim.clear_caches()
            check(x, w, n, offsets, variant, backend, bins=nbins, rng_=(0, 1))
            (plan,) = count_plans()
            assert plan.variant == "partial_privatized"
            assert plan.weights_dtype == np.dtype(wdtype)


# ---- special weights -----------------------------------------------------------------------------


@pytest.mark.parametrize("wdtype", WDTYPES, ids=IDS)
@pytest.mark.parametrize("variant", PRODUCTION)
def test_nan_inf_and_negative_weights(variant, wdtype, backend, rng):
    """NaN weights make their bin NaN, inf and -inf in one bin make it NaN, alone they stay
    infinite; negative weights subtract (sums of both signs, and of zero)."""
    x, w = data(rng, 4100, np.uint8, wdtype)
    x[[100, 200]] = 13
    w[x == 7] = np.nan
    w[x == 9] = np.inf
    w[x == 11] = -np.inf
    w[np.flatnonzero(x == 13)[:2]] = [np.inf, -np.inf]
    w[x == 20] = -np.abs(w[x == 20])
    w[x == 21] = 0.0
    for n, offsets in ((4097, (0, 0)), (4097, (1, 1)), (4099, (0, 1))):
        got = check(x, w, n, offsets, variant, backend)
        if offsets[0] == offsets[1]:  # each sample with its own weight
            h = H.to_host(got[0])
            assert np.isnan(h[[7, 13]]).all() and h[9] == np.inf and h[11] == -np.inf
            assert h[20] < 0 and h[21] == 0


@pytest.mark.parametrize("variant", ["warp_replicated", "partial_privatized"])
def test_subnormal_float32_weights(variant, backend):
    """Float32 subnormal weights are summed exactly (widened, not flushed to zero as a plain
    conversion does on the GPU under -ftz): the sums of multiples of 2^-149 are exact."""
    x = aligned(np.repeat(np.arange(8, dtype=np.float32), 130))
    w = aligned((np.arange(x.size) % 7 + 1).astype(np.uint32).view(np.float32))  # 2^-149 .. 7
    for offsets in ((0, 0), (1, 1), (0, 1)):
        n = x.size - 1
        got = prim.histogram(
            backend.xp.asarray(x)[offsets[0] : offsets[0] + n],
            8,
            (0, 8),
            weights=backend.xp.asarray(w)[offsets[1] : offsets[1] + n],
            variant=variant,
        )
        want = np.histogram(
            x[offsets[0] : offsets[0] + n],
            8,
            (0, 8),
            weights=w[offsets[1] : offsets[1] + n].astype(np.float64),
        )[0]
        assert np.all(want > 0)
        H.assert_same(got[0], want.astype(np.float32), what=f"{variant} {offsets}")


def test_float32_results_keep_subnormals():
    """The float64 sums narrowed to float32 as NumPy narrows them, subnormals kept (CuPy's cast
    flushes them): the bit path, run here on NumPy through a namespace that is not NumPy."""
    from primitives._core import dtypes

    class Other:
        def __getattr__(self, name):
            return getattr(np, name)

    a = np.array([7.2e-43, -3e-45, 1e-45, 0.7e-45, 2.1e-45, 2.0**-126, 2.0**-126 * (1 - 2**-25)])
    a = np.r_[a, -a, 1.0, -0.0, 0.0, 1e-300, 3.4e38, np.inf, -np.inf]
    with np.errstate(over="ignore"):
        want = a.astype(np.float32)
        got = dtypes.to_float32(a, Other())
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


# ---- the weights the kernels receive -------------------------------------------------------------


def address(a):
    """The first element's address of a host or device array."""
    iface = getattr(a, "__cuda_array_interface__", None) or a.__array_interface__
    return iface["data"][0]


@pytest.fixture
def received(monkeypatch):
    """The (count plan, weights) of every count plan launch while the test runs."""
    seen = []
    real = _plans.CountPlan.__call__

    def spy(self, arr, spec, weights=None):
        seen.append((self, weights))
        return real(self, arr, spec, weights)

    monkeypatch.setattr(_plans.CountPlan, "__call__", spy)
    return seen


def test_float32_weights_are_not_converted(received, backend, rng):
    """Float32 weights reach the production kernels as they are: the very array (a view at an
    offset too), no float64 copy; float64 weights too. Other variants and other weight dtypes
    get float64 copies."""
    xp = backend.xp
    cap = histograms.shared_capacity("weight")
    x, w = data(rng, 3000, np.float32, np.float32, 0, 1)
    x, w32, w64 = xp.asarray(x), xp.asarray(w), xp.asarray(w.astype(np.float64))
    cases = [
        ("auto", 256, "warp_replicated"),
        ("auto", cap + 1, "partial_privatized"),
        ("warp_replicated", 1000, "warp_replicated"),
        ("partial_privatized", 256, "partial_privatized"),
    ]
    for variant, nbins, ran in cases:
        for weights in (w32, w32[1:], w64):
            n = weights.size
            received.clear()
            prim.histogram(x[:n], nbins, (0, 1), weights=weights, variant=variant)
            ((plan, got),) = received
            assert plan.variant == ran
            assert plan.weights_dtype == weights.dtype
            assert f"prim::WeightAcc<{'float' if weights.dtype == np.float32 else 'double'}>" in (
                plan.kernel.name
            )
            assert got.dtype == weights.dtype and address(got) == address(weights)
    ints = xp.asarray((w * 4).astype(np.int32))
    for variant, weights in (("privatized", w32), ("global_vectorized", w32), ("auto", ints)):
        received.clear()
        prim.histogram(x, 256, (0, 1), weights=weights, variant=variant)
        ((plan, got),) = received
        assert plan.weights_dtype == got.dtype == np.float64
        assert "prim::WeightAcc<double>" in plan.kernel.name


# ---- hypothesis: any dtype, size, views and variant ----------------------------------------------


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    dtype=st.sampled_from(DTYPES),
    wdtype=st.sampled_from(WDTYPES),
    variant=st.sampled_from(PRODUCTION),
    n=st.integers(1, 600),
    offsets=st.tuples(st.integers(0, 15), st.integers(0, 7)),
    seed=st.integers(0, 2**32 - 1),
)
def test_property_weighted_histogram_matches_numpy(dtype, wdtype, variant, n, offsets, seed):
    from primitives._core import backend as _backend

    x, w = data(np.random.default_rng(seed), n + 16, dtype, wdtype)
    check(x, w, n, offsets, variant, _backend.get_backend(), bins=37, rng_=(3, 250))

"""map= (a transform of each sample as it is read) in histogram and histogram_even, against
NumPy's histogram of the transformed array: every variant with every sample dtype the map reads
(a sample of the pairs, each at one of the awkward sizes), ranges given and found from the mapped
values, bins as an int and as an edges array, weights, density, repeat calls, and every error
branch."""

import numpy as np
import pytest

import primitives as prim
from primitives import histograms
from primitives.testing import harness as H

from tests.user_ops import DTYPES

SIZES = [1, 33, 4099, 65537]
VARIANTS = histograms.VARIANTS
IDS = lambda d: np.dtype(d).name  # noqa: E731


def make(rng, n, dt):
    """Samples of ``dt`` whose squares fit it: floats in [-3, 3) (a tenth of them integers, on
    the edges of the bins below), integers in [-60, 60] (unsigned: [0, 60])."""
    dt = np.dtype(dt)
    if dt.kind == "f":
        x = rng.uniform(-3.0, 3.0, n)
        k = rng.random(n) < 0.1
        x[k] = np.round(x[k])
        return x.astype(dt)
    return rng.integers(0 if dt.kind == "u" else -60, 60, n, endpoint=True).astype(dt)


def twin(x, expr, mapped, *args, variant=None, rtol=0.0, **kwargs):
    """``prim.histogram(x, *args, map=expr, variant=variant, **kwargs)`` against
    ``numpy.histogram(mapped, *args, **kwargs)`` through the harness: the same counts and edges
    (values, dtypes, shapes), or the same error."""

    def body(xp):
        if xp is np:
            return np.histogram(mapped, *args, **kwargs)
        extra = {} if variant is None else {"variant": variant}
        return prim.histogram(x, *args, map=expr, **kwargs, **extra)

    return H.run_twins(body, rtol=rtol, name="histogram")


def even_oracle(mapped, bins, lower, upper):
    """histogram_even's counts of the mapped samples: NumPy's over linspace(lower, upper) in
    float32 for float32 samples (float64 otherwise), the last bin open."""
    e_dt = np.float32 if mapped.dtype == np.float32 else np.float64
    edges = np.linspace(lower, upper, bins + 1, dtype=e_dt)
    counts = np.histogram(mapped.astype(e_dt), edges)[0]
    counts[-1] -= np.count_nonzero(mapped.astype(e_dt) == edges[-1])
    return counts


def pairs():
    """(variant, dtype, n): each variant with every dtype, the sizes turning over the pairs (each
    variant and each dtype meets every size)."""
    return [
        (v, d, SIZES[(i + j) % len(SIZES)])
        for i, v in enumerate(histograms.VARIANTS)
        for j, d in enumerate(DTYPES)
    ]


# ---- every variant x dtype ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "variant,dtype,n", pairs(), ids=lambda p: IDS(p) if isinstance(p, type) else str(p)
)
def test_squares(variant, dtype, n, rng):
    x = make(rng, n, dtype)
    sq = x * x  # in the samples' dtype, as the map computes
    twin(x, "v * v", sq, 13, (0, 9), variant=variant)
    twin(x, "v * v", sq, 13, variant=variant)  # the range from the mapped values
    if variant in ("warp_replicated", "partial_privatized", "sort_reduce_by_key"):
        lower, upper = 0.5, 9.5  # histogram_even: the last edge open, no sample on it
        got = prim.histogram_even(x, 9, lower, upper, map="v * v", variant=variant)
        H.assert_same(got, even_oracle(sq, 9, lower, upper))


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_other_maps_and_edges_arrays(dtype, rng):
    """A map that is not monotone (C++'s truncating remainder, NumPy's fmod), an edges array
    (of the samples' dtype, of float64, of int64: 32-bit integers against int64 edges compare
    exactly), a 2-D input, and the auto variant at an awkward size."""
    dt = np.dtype(dtype)
    x = make(rng, 4099, dt)
    rem = np.fmod(x, dt.type(7))
    expr = {"f": "fmodf(v, 7.0f)" if dt == np.float32 else "fmod(v, 7.0)"}.get(dt.kind, "v % 7")
    twin(x, expr, rem, 7)
    edges = np.array([-7, -2, 0, 1, 3, 6.5])
    if dt.kind == "u":
        edges = edges[2:]
    twin(x, expr, rem, edges)
    sq = x * x
    for e_dt in (dt, np.float64, np.int64):
        e = np.array([0, 1, 4, 9, 100, 3601], dtype=e_dt)
        twin(x, "v * v", sq, e)
    big = np.array([0, 10, 2**40, 2**62], dtype=np.int64)  # edges beyond every 32-bit sample
    twin(x, "v * v", sq, big)
    twin(x[:4097].reshape(17, 241)[:, 1:], "v * v", sq[:4097].reshape(17, 241)[:, 1:], 5)


def test_floats_to_nan_and_inf(rng):
    """A map that makes NaN: dropped where the range is given, NumPy's error where it is found;
    infinities as NumPy bins them."""
    x = make(rng, 4099, np.float32)
    expr = "sqrtf(v)"
    with np.errstate(invalid="ignore"):
        root = np.sqrt(x)
    twin(x, expr, root, 10, (0, 2))
    twin(x, expr, root, 10)  # ValueError: autodetected range of [nan, nan] is not finite
    twin(x, expr, root, [0, 0.5, 1, 2])
    y = make(rng, 1000, np.float64)
    with np.errstate(divide="ignore"):
        inv = 1.0 / y
    twin(y, "1.0 / v", inv, [-np.inf, -1, 0, 1, np.inf])


# ---- weights, density, repeat calls -------------------------------------------------------------


@pytest.mark.parametrize(
    "variant", [v for v in VARIANTS if histograms._choose.VARIANT_TABLE[v].weights]
)
def test_weights(variant, rng):
    x = make(rng, 4099, np.float32)
    sq = x * x
    for wdt in (np.float64, np.float32, np.int32):
        w = (rng.random(4099) * 10).astype(wdt)
        twin(x, "v * v", sq, 11, (0, 9), weights=w, variant=variant, rtol=1e-6)
    if variant in ("warp_replicated", "sort_reduce_by_key"):
        w = rng.random(4099)
        twin(x, "v * v", sq, [0, 1, 2.5, 9], weights=w, variant=variant, rtol=1e-12)
        twin(x, "v * v", sq, 7, weights=w + 1j * w[::-1], variant=variant, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.uint32], ids=IDS)
def test_density(dtype, rng):
    x = make(rng, 3001, dtype)
    sq = x * x
    w = rng.random(3001)
    for bins in (10, [0, 1, 4, 9, 50, 3601]):
        twin(x, "v * v", sq, bins, density=True, rtol=1e-12)
        twin(x, "v * v", sq, bins, weights=w, density=True, rtol=1e-12)
    twin(x, "v * v", sq, 10, (1, 30), density=True, rtol=1e-12)


def test_repeat_calls(backend, rng):
    """Later like calls take the filed plan, which reads through the map; a call without the map
    (or with another) on like samples is keyed apart and bins the samples as they are."""
    prim.clear_caches()
    xs = [make(rng, 3001, np.float32) for _ in range(3)]
    for x in xs:
        a = backend.xp.asarray(x)
        H.assert_same(prim.histogram(a, 16, (0, 9), map="v * v"), np.histogram(x * x, 16, (0, 9)))
        H.assert_same(prim.histogram(a, 16, (0, 9)), np.histogram(x, 16, (0, 9)))
        H.assert_same(
            prim.histogram(a, 16, (0, 9), map="v * v + 1"), np.histogram(x * x + 1, 16, (0, 9))
        )
        got = prim.histogram_even(a, 16, 0, 9, map="fabsf(v)")
        H.assert_same(got, even_oracle(np.abs(x), 16, 0, 9))
        H.assert_same(prim.histogram_even(a, 16, 0, 9), even_oracle(x, 16, 0, 9))


def test_race(rng, race):
    x = make(rng, 4099, np.int32)
    twin(x, "v * v", x * x, 300, (0, 3600), variant="warp_replicated")
    twin(x, "v * v", x * x, 300, (0, 3600), variant="partial_privatized")


# ---- errors -------------------------------------------------------------------------------------


def test_errors(rng):
    x = make(rng, 100, np.float32)
    for func, args, dts in (
        ("histogram", (10, (0, 1)), (np.int8, np.uint16, np.bool_, np.float16)),
        ("histogram_even", (10, 0, 1), (np.int8, np.uint16, np.bool_)),
    ):
        f = getattr(prim, func)
        with pytest.raises(TypeError, match=f"^{func}: map must be a str"):
            f(x, *args, map=3)
        with pytest.raises(ValueError, match=f"^{func}: map: expr is empty"):
            f(x, *args, map=" ")
        with pytest.raises(ValueError, match=f"^{func}: map: expr must be one C\\+\\+ expression"):
            f(x, *args, map="v; v")
        for dt in dts:
            with pytest.raises(
                TypeError,
                match=f"^{func}: map='v \\* v' reads int32, .* got a of dtype {np.dtype(dt)}",
            ):
                f(x.astype(dt), *args, map="v * v")
        with pytest.raises(prim.KernelCompileError, match="compiling map='v \\* w' for float32"):
            f(x, *args, map="v * w")
    with pytest.raises(prim.KernelCompileError, match="map='v \\* w'"):  # the range's min and max
        prim.histogram(x, 10, map="v * w")
    dates = np.array(["2024-01-01", "2024-02-01"], dtype="datetime64[D]")
    with pytest.raises(TypeError, match="^histogram: map='v' reads .* got a of dtype datetime64"):
        prim.histogram(dates, dates, map="v")
    for est in ("auto", "fd"):
        with pytest.raises(
            TypeError,
            match=f"^histogram: map='v \\* v' takes bins as an int or an edges array; bins='{est}'",
        ):
            prim.histogram(x, est, map="v * v")
    with pytest.raises(TypeError, match="unexpected keyword argument 'map'"):
        prim.histogram2d(x, x, map="v * v")


# ---- NVRTC ------------------------------------------------------------------------------------


def test_nvrtc_compiles_a_map():
    """A map's element type through NVRTC (the GPU's compiler; CI has no GPU), for every sample
    dtype the map reads: every variant's count kernel, the production variants' weighted ones,
    partial_privatized's with each binner of the dtype (its packed walk takes the float binner's
    many-bin path), and warp_replicated's staged walk."""
    from primitives._core import loader, nvrtc, ops
    from primitives.histograms import _binning, _choose, _kernels, _policy

    try:
        nvrtc.load()
    except nvrtc.NVRTCNotFound:
        pytest.skip("no NVRTC library")
    m = ops.Map("v * v")
    prod = _policy.production()
    for dt in map(np.dtype, DTYPES):
        pol = _policy.loads(dt)
        binners = _binning.BINNERS[dt]
        cases = [(v, binners[0], acc) for v in VARIANTS for acc in _choose.accumulations(v)]
        cases = [c for c in cases if c[2] == "count" or _choose.VARIANT_TABLE[c[0]].production]
        cases += [("partial_privatized", b, "count") for b in binners[1:]]
        names = [
            _kernels.kernel_name(v, dt, kind, extra, acc, prod, pol, 0, m)
            for v, (kind, extra), acc in cases
        ]
        staged = pol.stages or _kernels.STAGED_CHECK
        kind, extra = binners[0]
        names.append(
            _kernels.kernel_name("warp_replicated", dt, kind, extra, "count", prod, pol, staged, m)
        )
        rel = ops.source(_kernels.SOURCE, None, dt, m, dt)
        got = nvrtc.compile_check(loader.source(rel), names, options=loader.nvrtc_options())
        assert set(got) == set(names)

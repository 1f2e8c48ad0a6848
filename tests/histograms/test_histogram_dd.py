"""histogramdd and histogram2d in one pass (kernels/histograms/dd.cu) against numpy.histogramdd:
counts, weights, densities and edges for D = 1 to 4 (and the generic loop beyond 3), uniform and
explicit edges and their mix, samples on edges, out of range and NaN, both sample forms, small
policies (many blocks, bins beyond shared memory), and every error branch."""

import contextlib
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import primitives as prim
from primitives import tuning
from primitives._core import plans as P
from primitives.histograms import _kernels, _plans_dd
from primitives.testing import harness as H
from primitives.testing.harness import to_host


def native(a, backend):
    """``a`` on the backend under test (CuPy on the GPU, NumPy on the emulator)."""
    return backend.xp.asarray(a) if backend.is_cuda else a


@contextlib.contextmanager
def small_policy(block=64, shared_bytes=64):
    """hist_dd with small blocks (many of them) and only shared_bytes of shared counters (the
    other bins counted with global atomics)."""
    with tuning.override("histogram", selector="dd", block=block, shared_bytes=shared_bytes):
        yield


@contextlib.contextmanager
def one_pass(expected=True):
    """Asserts that the call(s) inside took the one-pass kernel (or the per-dimension path)."""
    calls = {"one": 0, "per": 0}
    one, per = _plans_dd.one_pass, _plans_dd.per_dimension

    def one_(*a, **k):
        calls["one"] += 1
        return one(*a, **k)

    def per_(*a, **k):
        calls["per"] += 1
        return per(*a, **k)

    _plans_dd.one_pass, _plans_dd.per_dimension = one_, per_
    try:
        yield
    finally:
        _plans_dd.one_pass, _plans_dd.per_dimension = one, per
    assert calls["one" if expected else "per"] >= 1
    assert calls["per" if expected else "one"] == 0


def same(got, want, rtol=1e-12):
    """hist and every edge array equal NumPy's, values and dtypes."""
    (h, edges), (wh, wedges) = got, want
    h = to_host(h)
    assert h.dtype == wh.dtype and h.shape == wh.shape
    if rtol:
        np.testing.assert_allclose(h, wh, rtol=rtol)
    else:
        np.testing.assert_array_equal(h, wh)
    assert len(edges) == len(wedges)
    for e, we in zip(edges, wedges):
        e = to_host(e)
        assert e.dtype == we.dtype and np.array_equal(e, we, equal_nan=True)


def check(sample, *args, backend, expected=True, rtol=1e-12, **kw):
    """prim.histogramdd equals numpy.histogramdd on ``sample`` (an array or list of arrays)."""
    if isinstance(sample, list):
        dev = [native(c, backend) for c in sample]
    else:
        dev = native(sample, backend)
    w = kw.get("weights")
    if w is not None:
        kw = dict(kw, weights=native(w, backend))
    with one_pass(expected):
        got = prim.histogramdd(dev, *args, **kw)
    want = np.histogramdd(sample, *args, **dict(kw, weights=w) if w is not None else kw)
    same(got, want, rtol=rtol if w is not None or kw.get("density") else 0)
    return got


# ---- counts in every dimension count ---------------------------------------------------------


@pytest.mark.parametrize("d", [1, 2, 3, 4, 5])
@pytest.mark.parametrize(
    "dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8, np.int16, np.uint64]
)
def test_dims_and_dtypes(d, dtype, backend, rng):
    """(N, D) samples of every dtype, D = 1..5 (4 and 5: the generic loop), int bins with and
    without range: counts and edges exactly NumPy's."""
    n = 1203
    s = (
        (rng.random((n, d)) * 40 - 10).astype(dtype)
        if np.dtype(dtype).kind != "u"
        else (rng.random((n, d)) * 40).astype(dtype)
    )
    bins = [3, 5, 2, 4, 3][:d]
    check(s, bins, backend=backend)
    rng_ = [(0, 20), (-3.5, 17.25), None, (2, 2), (1, 9)][:d]
    check(s, bins, rng_, backend=backend)
    with small_policy():
        check(s, bins, rng_, backend=backend)


@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_edges_on_boundaries_out_of_range_nan(d, backend, rng):
    """Samples on every inner edge (the bin on the right), on the last edge (the last bin),
    outside the edges, NaN and +-inf (dropped), with explicit and uniform edges mixed."""
    edges = [
        np.array([0.0, 0.5, 1.25, 3.0]),
        np.linspace(-1, 1, 6),
        np.array([-2.0, 0, 2]),
        np.array([0.0, 1, 2, 3, 4]),
    ][:d]
    n = 997
    s = np.stack([e[0] + (e[-1] - e[0]) * (rng.random(n) * 1.4 - 0.2) for e in edges], axis=1)
    for j, e in enumerate(edges):
        s[j::7, j] = e[rng.integers(0, e.size, size=s[j::7, j].size)]  # exactly on an edge
        s[j + 3 :: 29, j] = e[-1]
    s[::31, 0] = np.nan
    s[5::37, d - 1] = np.inf
    s[6::41, 0] = -np.inf
    for dtype in (np.float64, np.float32):
        x = s.astype(dtype)
        check(x, edges, backend=backend)  # explicit edges
        check(x, [e.size - 1 for e in edges], [(e[0], e[-1]) for e in edges], backend=backend)
        mixed = [e if j % 2 else e.size - 1 for j, e in enumerate(edges)]
        check(
            x,
            mixed,
            [None if j % 2 else (e[0], e[-1]) for j, e in enumerate(edges)],
            backend=backend,
        )
        with small_policy(shared_bytes=32):
            check(x, edges, backend=backend)


def test_weights_and_density(backend, rng, schedule):
    """Weights of any real dtype (summed in float64), density, both together, D = 2 and 4."""
    for d in (2, 4):
        s = rng.standard_normal((1500, d))
        for w in (
            rng.random(1500),
            rng.integers(-3, 9, 1500).astype(np.int32),
            rng.random(1500).astype(np.float32),
            rng.random(1500) < 0.5,
        ):
            check(s, 4, [(-2, 2)] * d, weights=w, backend=backend)
            with small_policy(shared_bytes=64):
                check(s, 4, [(-2, 2)] * d, weights=w, backend=backend)
        check(s, 3, density=True, backend=backend)
        check(s, 3, density=True, weights=rng.random(1500), backend=backend)


def test_list_of_arrays(backend, rng):
    """A sequence of D arrays is read where it lies; unaligned columns and tails; mixed dtypes
    promote as NumPy's stack does; equals the (N, D) stack."""
    n = 1001
    cols = [rng.random(n + 1), (rng.random(n + 1) * 9).astype(np.float32), rng.random(n + 1)]
    for d in (1, 2, 3, 4):
        c = [cols[j % 3][:n] for j in range(d)]
        check(c, 4, backend=backend)
        check([x[1:] for x in cols[: min(d, 3)]], 5, backend=backend)  # unaligned columns
    # the list equals its stack
    c = [cols[0][:n], cols[2][:n]]
    got = prim.histogramdd([native(x, backend) for x in c], 4)
    same(got, np.histogramdd(np.stack(c, axis=1), 4))
    ints = [rng.integers(0, 10, n).astype(np.int64), rng.random(n).astype(np.float32)]
    check(ints, [5, 3], backend=backend)


def test_layouts(backend, rng):
    """Non-contiguous (N, D) views and an unaligned (N, D) array give NumPy's counts."""
    base = rng.random((800, 6)).astype(np.float32)
    check(base[:, ::2], 4, backend=backend)
    check(base[:, 1:3], [4, 3], backend=backend)
    flat = rng.random(2 * 999 + 1).astype(np.float32)
    check(flat[1:].reshape(999, 2), 4, backend=backend)  # 4 bytes off 16-byte alignment
    check(rng.random(777), 6, backend=backend)  # a 1-D sample: one dimension


def test_float16_bool_and_small_ints(backend, rng):
    """float16 samples (counted as float32, edges float16 like NumPy's), bool (NumPy's warning)
    and 8/16-bit integers, with int bins and explicit edges."""
    h = (rng.standard_normal((999, 2)) * 3).astype(np.float16)
    h[3] = [np.nan, 1]
    h[4] = [np.inf, 1]
    check(h, 5, [(-4, 4), (-3, 3)], backend=backend)
    check(h[5:], 5, backend=backend)  # autodetected: float16 edges, searched
    hf = np.where(np.isfinite(h), h, 0).astype(np.float16)
    check(hf, [4, 6], backend=backend)
    check(hf, [np.array([-2, 0, 1, 3], np.float16), np.array([-1.0, 0.5, 2])], backend=backend)
    i8 = rng.integers(-128, 127, (999, 3)).astype(np.int8)
    check(i8, [3, 4, np.array([-100, -5, 0, 60])], backend=backend)
    u16 = rng.integers(0, 60000, (999, 2)).astype(np.uint16)
    check(u16, [7, 3], [(0, 70000), None], backend=backend)
    b = rng.random((300, 2)) < 0.3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with one_pass():
            got = prim.histogramdd(native(b, backend), 2)
    same(got, np.histogramdd(b.astype(np.uint8), 2))


def test_integer_edges_and_fallback(backend, rng):
    """int64 samples against int64 edges in one dimension and float64 ones in another: no one
    binner compares both exactly, so each dimension is binned in a pass of its own."""
    s = rng.integers(-(2**40), 2**40, (700, 2))
    s[::5, 0] = 2**53 + 1  # float64 would round it onto the edge 2**53
    e0 = np.array([-(2**40), 0, 2**53, 2**53 + 2], np.int64)
    check(s, [e0, 4], backend=backend, expected=False)
    check(s, [e0, e0], backend=backend)
    check(s, [6, 4], backend=backend)
    i32 = rng.integers(-50, 50, (700, 2)).astype(np.int32)
    check(i32, [np.array([-50, 0, 49], np.int32), 4], backend=backend)  # compared in float64


def test_histogram2d(backend, rng, schedule):
    """histogram2d's forms of bins, NaN dropped, samples on edges, weights, density; the
    production-like shape (many bins, beyond shared memory)."""
    x = rng.standard_normal(3001).astype(np.float32)
    y = rng.standard_normal(3001).astype(np.float32)
    x[::7] = np.nan
    y[::11] = 1.0
    for bins in (10, [5, 7], np.linspace(-2, 2, 9), [np.linspace(-1, 1, 5), 6], 256):
        with one_pass():
            got = prim.histogram2d(native(x, backend), native(y, backend), bins, [[-2, 2], [-3, 3]])
        want = np.histogram2d(x, y, bins, [[-2, 2], [-3, 3]])
        same((got[0], got[1:]), (want[0], want[1:]), rtol=0)
    w = rng.random(3001)
    got = prim.histogram2d(
        native(x, backend),
        native(y, backend),
        8,
        [[-2, 2], [-3, 3]],
        density=True,
        weights=native(w, backend),
    )
    want = np.histogram2d(x, y, 8, [[-2, 2], [-3, 3]], density=True, weights=w)
    same((got[0], got[1:]), (want[0], want[1:]))
    with small_policy(block=32, shared_bytes=1024):
        got = prim.histogram2d(native(x, backend), native(y, backend), 64, [[-2, 2], [-3, 3]])
    want = np.histogram2d(x, y, 64, [[-2, 2], [-3, 3]])
    same((got[0], got[1:]), (want[0], want[1:]), rtol=0)


def test_plans_reused(backend, rng):
    """One kernel plan per configuration: a second call on like samples finds it; the range's
    binning records are kept too; prim.plan equals the function."""
    s = native(rng.random((500, 2)), backend)
    prim.histogramdd(s, 4, [(0, 1), (0, 1)])
    before = P.cache_info()
    prim.histogramdd(s, 4, [(0, 1), (0, 1)])
    assert P.cache_info() == before
    keys = [k for k in P.PLANS._plans if isinstance(k, tuple) and k[0] == "histogram/dd"]
    assert keys
    p = prim.plan(prim.histogramdd, s, bins=4)
    same(p(s), np.histogramdd(to_host(s), 4))


def test_empty_and_dropped(backend):
    """No samples: zeros; every sample outside the range: zeros (no launch needed)."""
    same(prim.histogramdd(np.zeros((0, 3)), 3), np.histogramdd(np.zeros((0, 3)), 3))
    s = np.full((40, 2), 5.0)
    check(s, 3, [(0, 1), (0, 1)], backend=backend)
    check(s.astype(np.float32), 3, [(6, 7), (0, 10)], backend=backend)


def test_beyond_kernel_dimensions(backend, rng, monkeypatch):
    """More dimensions than the kernel takes (DD_MAX, lowered here): the per-dimension path,
    still NumPy's counts."""
    s = rng.random((60, 4))
    monkeypatch.setattr(_kernels, "DD_MAX", 3)
    check(s, [2, 3, 1, 2], backend=backend, expected=False)
    check(s[:, :3], [2, 3, 1], backend=backend)


@pytest.mark.parametrize(
    "args,kw",
    [
        ((np.array(5.0), 2), {}),
        ((np.array(5, np.int16), 3), {"density": True}),
        ((np.array(0.5, np.float32), [[0, 1, 2]]), {"weights": [2.0]}),
    ],
)
def test_0d_sample(args, kw):
    """A 0-d sample array is one sample of one dimension (NumPy's ``atleast_2d(sample).T``)."""
    H.run_twins(lambda xp: xp.histogramdd(*args, **kw), name="histogramdd")


@pytest.mark.parametrize(
    "weights", [np.ones(3), np.ones((2, 2)), np.array(1.0), np.array([], complex)]
)
def test_weights_of_an_empty_sample_are_not_read(weights):
    """NumPy's bincount reads no weights when there are no samples: float64 zeros whatever
    they are."""
    H.run_twins(lambda xp: xp.histogramdd(np.zeros((0, 2)), 2, weights=weights))
    H.run_twins(lambda xp: xp.histogram2d(np.zeros(0), np.zeros(0), [2, 3], weights=weights))


# ---- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args,kw,exc",
    [
        ((np.ones((4, 2)), [3, 3, 3]), {}, ValueError),  # bins of another dimension
        ((np.ones((4, 2)), [3, 0]), {}, ValueError),  # a bin count < 1
        ((np.ones((4, 2)), [3.5, 2]), {}, TypeError),  # a float bin count
        ((np.ones((4, 2)), [np.array([0, 2, 1]), 3]), {}, ValueError),  # edges not monotone
        ((np.ones((4, 2)), [np.ones((2, 2)), 3]), {}, ValueError),  # edges of 2 dimensions
        ((np.ones((4, 2)), 3), {"range": [(1, 0), None]}, ValueError),  # a reversed range
        ((np.ones((4, 2)), 3), {"range": [(0, 1)]}, ValueError),  # range of another dimension
        ((np.ones((4, 2)), 3), {"range": [(0, np.inf), None]}, ValueError),  # range not finite
        ((np.ones((4, 2)), 3), {"weights": np.ones(3)}, ValueError),  # weights of another length
        ((np.ones((4, 2)), 3), {"weights": np.ones(4) * 1j}, TypeError),  # complex weights
        ((np.ones((4, 2)), 3), {"weights": np.ones((2, 2))}, ValueError),  # 2-D weights
        ((np.ones((1, 2)), 3), {"weights": np.array(1.0)}, ValueError),  # 0-d weights
        ((np.array([[np.nan, 1.0]]), 3), {}, ValueError),  # autodetected range not finite
        ((np.ones((2, 2, 2)), 3), {}, ValueError),  # a 3-D sample array
        (([np.ones(3), np.ones(4)], 3), {}, ValueError),  # columns of two lengths
        ((np.array([["a", "b"]]), 3), {}, TypeError),  # strings
    ],
)
def test_errors(args, kw, exc):
    """NumPy's error types, each message naming histogramdd."""
    with pytest.raises(Exception):
        np.histogramdd(*args, **kw)
    H.raises_like(exc, "histogramdd", prim.histogramdd, *args, **kw)


def test_errors_ours():
    """Where NumPy has no error of its own (or a different one): named for the function."""
    H.raises_like(ValueError, "histogramdd", prim.histogramdd, [], 3)  # no dimension
    H.raises_like(
        ValueError, "histogramdd", prim.histogramdd, np.ones((4, 2)), [np.array([1.0]), 3]
    )  # one edge
    H.raises_like(TypeError, "histogramdd", prim.histogramdd, 5, 3)  # not a sample
    H.raises_like(
        TypeError, "histogramdd", prim.histogramdd, np.ones((4, 1)), [np.array(["a", "b"])]
    )  # string edges
    H.raises_like(TypeError, "histogramdd", prim.histogramdd, np.ones((4, 2), complex), 3)
    H.raises_like(
        TypeError,
        "histogramdd",
        prim.histogramdd,
        [np.ones(4), np.ones(4, np.float16), np.ones(4, complex)],
        3,
    )
    H.raises_like(ValueError, "histogram2d", prim.histogram2d, np.ones(3), np.ones(4))
    H.raises_like(TypeError, "histogram2d", prim.histogram2d, np.array(["a"]), np.ones(1))


def test_inputs_untouched(backend, rng):
    s = rng.random((300, 3)).astype(np.float32)
    w = rng.random(300)
    s0, w0 = s.copy(), w.copy()
    prim.histogramdd(s, [3, np.array([0, 0.3, 1]), 2], weights=w)
    assert np.array_equal(s, s0) and np.array_equal(w, w0)
    # returned edges are the caller's own: writing them changes no later result
    _, edges = prim.histogramdd(native(s, backend), 4, [(0, 1)] * 3)
    edges[0][0] = 7
    _, edges = prim.histogramdd(native(s, backend), 4, [(0, 1)] * 3)
    assert float(to_host(edges[0])[0]) == 0.0


# ---- property test -----------------------------------------------------------------------------


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_property_equals_numpy(data):
    """Random D, dtypes, sizes, bins (ints, edge arrays, a mix), ranges, weights, density."""
    d = data.draw(st.integers(1, 4))
    n = data.draw(st.integers(0, 600))
    dtype = data.draw(st.sampled_from([np.float32, np.float64, np.int32, np.int16, np.uint8]))
    seed = data.draw(st.integers(0, 2**32 - 1))
    r = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        s = (r.standard_normal((n, d)) * 4).astype(dtype)
        if n and data.draw(st.booleans()):
            s[r.integers(0, n, max(1, n // 10)), r.integers(0, d)] = np.nan
    else:
        s = r.integers(0, 100, (n, d)).astype(dtype)
    bins, ranges = [], []
    for _ in range(d):
        kind = data.draw(st.sampled_from(["int", "range", "edges"]))
        if kind == "edges":
            e = np.sort(
                r.choice(np.arange(-8.0, 101.0, 0.5), data.draw(st.integers(2, 7)), replace=False)
            )
            bins.append(e)
            ranges.append(None)
        else:
            bins.append(data.draw(st.integers(1, 9)))
            ranges.append((-3.0, 50.0) if kind == "range" else None)
    if (
        n
        and any(rr is None and not isinstance(b, np.ndarray) for rr, b in zip(ranges, bins))
        and np.isnan(s.astype(np.float64)).any()
    ):
        ranges = [
            (-3.0, 50.0) if rr is None and not isinstance(b, np.ndarray) else rr
            for rr, b in zip(ranges, bins)
        ]
    weights = r.random(n) if data.draw(st.booleans()) else None
    density = data.draw(st.sampled_from([None, True]))
    as_list = data.draw(st.booleans())
    sample = [s[:, j].copy() for j in range(d)] if as_list else s
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # density of an empty histogram
        want = np.histogramdd(sample, bins, ranges, density, weights)
        got = prim.histogramdd(sample, bins, ranges, density, weights)
    (h, edges), (wh, wedges) = got, want
    h = to_host(h)
    assert h.shape == wh.shape and h.dtype == wh.dtype
    np.testing.assert_allclose(h, wh, rtol=1e-12, equal_nan=True)
    for e, we in zip(edges, wedges):
        assert to_host(e).dtype == we.dtype and np.array_equal(to_host(e), we)


@pytest.mark.parametrize("bounded", [False, True], ids=["returning", "bounded"])
@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16])
def test_small_samples_in_packet_chunks(dtype, bounded, backend, rng):
    """8- and 16-bit samples, whose packet groups (16 or 8 samples a 16-byte word) are binned and
    counted 8 samples at a time (kernels/histograms/dd.cu): D = 1 to 3, (N, D) rows and separate
    columns, N not a multiple of a group, every bin in 32-bit shared counters, every bin in
    packed 16-bit ones, and most bins by global atomics; returning and bounded packed adds.
    Exact against NumPy."""
    info = np.iinfo(dtype)
    n = 4096 * 3 + 37
    s = rng.integers(info.min, info.max, (n, 3), endpoint=True).astype(dtype)
    packed = []
    for d in (1, 2, 3):
        x = np.ascontiguousarray(s[:, :d])
        bins = [16, 8, 4][:d]
        for shared_bytes in (4096, 1040, 64):
            with tuning.override(
                "histogram",
                selector="dd",
                block=64,
                shared_bytes=shared_bytes,
                packed_bounded=bounded,
            ):
                P.PLANS.clear()
                check(x, bins, backend=backend)
                check([np.ascontiguousarray(x[:, j]) for j in range(d)], bins, backend=backend)
                packed += [p.packed for k, p in P.PLANS._plans.items() if k[0] == "histogram/dd"]
                if d == 1:
                    check(x[:, 0], 16, backend=backend)
    assert any(packed) and not all(packed)


@pytest.mark.parametrize("bounded", [False, True], ids=["returning", "bounded"])
def test_packed_counters_wrap(backend, rng, bounded):
    """Counts of more bins than 32-bit shared counters hold go to 16-bit counters, two a word
    (Packed16): with one block per SM each block counts more than 65536 samples of linear bin 0
    (a low field), bin 1 (its word's high field, where the low field's carries land) and bin 14
    (the last one: 3 x 5 bins, the high field of its word past the bins); a few samples spread
    over the others. Exact against NumPy; and with 16 bytes of counters (three words and the
    spare one), the bins from 6 on go to global atomics. Returning adds (wraps handed over) and
    bounded ones (settled between the packet walk's rounds)."""
    sms = backend.device_info().sm_count
    n = sms * 3 * 70000
    pick = rng.choice(3, n, p=[0.45, 0.4, 0.15])
    s = np.array([[0.5, 0.5], [0.5, 1.5], [2.5, 4.5]])[pick]
    s = np.concatenate([s, rng.random((5000, 2)) * [3, 5]])
    rng_ = [(0, 3), (0, 5)]
    for shared_bytes in (36, 16):  # 15 bins (a padded last word) or 6 in 16-bit counters
        with tuning.override(
            "histogram",
            selector="dd",
            block=64,
            blocks_per_sm=1,
            shared_bytes=shared_bytes,
            packed_bounded=bounded,
        ):
            P.PLANS.clear()
            got = prim.histogramdd(native(s, backend), (3, 5), rng_)
            plan = [p for k, p in P.PLANS._plans.items() if k[0] == "histogram/dd"]
            assert [(p.shared_bins, p.packed) for p in plan] == [
                (min(15, shared_bytes // 4 * 2 - 2), True)
            ]
        same(got, np.histogramdd(s, (3, 5), rng_))


def test_repeat_calls_take_the_filed_run(backend, rng, monkeypatch):
    """Edges from bin counts and a range for every dimension, samples of the backend's type
    read as they are, no weights: a like call takes the filed run (no checks, no edges made
    again) and counts its own samples, the filed run holding none of the first call's arrays;
    edges from the samples (no range) or a cast sample take the checked path every call."""
    xp = backend.xp
    e = prim.histogram2d.entry
    prepared, prepare = [], e.prepare
    monkeypatch.setattr(e, "prepare", lambda *a, **k: prepared.append(1) or prepare(*a, **k))
    rng_ = [[-1.0, 1.0], [0.0, 2.0]]
    first = [xp.asarray(rng.uniform(-1, 2, 3001).astype(np.float32)) for _ in range(2)]
    prim.histogram2d(*first, [16, 12], rng_, density=True)
    key = prim.histogram2d.entry.key((*first, [16, 12], rng_), {"density": True})
    assert key is not None and P.PLANS.find(key) is not None
    ref = H.weak(first[0])
    del first
    H.assert_released(ref, "the first call's arrays (the filed run keeps none)")
    for _ in range(2):
        x, y = (rng.uniform(-1, 2, 3001).astype(np.float32) for _ in range(2))
        got = prim.histogram2d(xp.asarray(x), xp.asarray(y), [16, 12], rng_, density=True)
        want = np.histogram2d(x, y, [16, 12], rng_, density=True)
        for g, w in zip(got, want):
            np.testing.assert_allclose(to_host(g), w, rtol=1e-12)
    assert prepared == [1]  # the like calls took the filed run
    # an (N, D) sample of histogramdd; then no range: the edges of each call's samples
    for r in ([(0, 1)] * 3, None):
        for _ in range(2):
            s = rng.uniform(0, 1 + rng.random(), (2000, 3))
            got, edges = prim.histogramdd(xp.asarray(s), 5, r)
            want, wedges = np.histogramdd(s, 5, r)
            np.testing.assert_array_equal(to_host(got), want)
            for g, w in zip(edges, wedges):
                np.testing.assert_allclose(to_host(g), w, rtol=1e-14)
    s = xp.asarray(rng.uniform(0, 1, (500, 2)))
    prim.histogramdd(s.astype(np.float32), 4, [(0, 1)] * 2)  # a cast: not the caller's array
    assert P.PLANS.find(prim.histogramdd.entry.key((s, 4, [(0, 1)] * 2), {})) is None

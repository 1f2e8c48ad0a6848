"""primitives.dask reductions (sum, prod, min, max, mean, any, all, argmin, argmax) and
histograms (histogram, bincount) vs NumPy, on a distributed cluster (conftest.py's: two
workers in this process with NumPy chunks on the emulator, one dask-cuda worker with CuPy chunks
on a GPU) and on the threaded scheduler: awkward chunkings with empty chunks, N-D arrays along
axes, every error branch."""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import primitives as prim
from primitives._core import backend as _backend
from primitives.testing import harness as H

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("primitives.dask")

from tests.dask.conftest import CHUNKINGS, chunked  # noqa: E402

DTYPES = [
    np.bool_,
    np.int8,
    np.uint8,
    np.int32,
    np.int64,
    np.float16,
    np.float32,
    np.float64,
    np.complex64,
]


def chunked_nd(host, chunks):
    """An N-D Dask array of ``host`` with ``chunks`` (a tuple per axis), of the backend's chunks."""
    x = da.from_array(host, chunks=chunks)
    if _backend.get_backend().is_cuda:
        import cupy

        x = x.map_blocks(
            cupy.asarray, dtype=host.dtype, meta=cupy.empty((0,) * host.ndim, host.dtype)
        )
    return x


def data(rng, shape, dt):
    """Small integers in ``dt`` (exact sums in every dtype; ties for argmin/argmax)."""
    dt = np.dtype(dt)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind == "u":
        return rng.integers(0, 50, shape).astype(dt)
    if dt.kind == "c":
        return (rng.integers(-50, 50, shape) + 1j * rng.integers(-50, 50, shape)).astype(dt)
    return rng.integers(-50, 50, shape).astype(dt)


def tol(dt):
    return {"rtol": 2e-3} if np.dtype(dt) == np.float16 else {"rtol": 1e-6}


def check(results, oracles, what=""):
    for name, got in results.items():
        want = oracles[name]
        H.assert_same(
            np.asarray(H.to_host(got)),
            np.asarray(want),
            what=f"{what} {name}",
            **tol(np.asarray(want).dtype),
        )


# ---- reductions of 1-D arrays -----------------------------------------------------------------


@pytest.mark.parametrize("dt", DTYPES)
def test_reductions_dtypes(client, dt):
    rng = np.random.default_rng(np.dtype(dt).itemsize)
    chunks = (33, 0, 31, 1, 0, 2000)
    h = data(rng, sum(chunks), dt)
    x = chunked(h, chunks)
    names = ["sum", "prod", "mean"] + (
        [] if np.dtype(dt).kind == "c" else ["min", "max", "any", "all", "argmin", "argmax"]
    )
    lazy = {n: getattr(pd, n)(x if n != "prod" else x[:6], split_every=3) for n in names}
    for n, r in lazy.items():
        assert isinstance(r, da.Array) and r.dtype == getattr(np, n)(h[:1]).dtype, n
    got = dict(zip(lazy, dask.compute(*lazy.values())))
    want = {n: getattr(np, n)(h if n != "prod" else h[:6]) for n in names}
    check(got, want, np.dtype(dt).name)


@pytest.mark.parametrize("chunks", CHUNKINGS)
def test_reductions_chunkings(client, chunks):
    rng = np.random.default_rng(len(chunks))
    h = rng.standard_normal(sum(chunks)).astype(np.float32)
    x = chunked(h, chunks)
    got = dask.compute(pd.sum(x), pd.min(x), pd.max(x), pd.mean(x), pd.argmin(x), pd.argmax(x))
    H.assert_same(np.asarray(H.to_host(got[0])), np.asarray(h.sum()), rtol=1e-5, atol=1e-5)
    H.assert_same(np.asarray(H.to_host(got[1])), np.asarray(h.min()))
    H.assert_same(np.asarray(H.to_host(got[2])), np.asarray(h.max()))
    H.assert_same(np.asarray(H.to_host(got[3])), np.asarray(h.mean()), rtol=1e-5, atol=1e-6)
    H.assert_same(np.asarray(H.to_host(got[4])), np.asarray(h.argmin()))
    H.assert_same(np.asarray(H.to_host(got[5])), np.asarray(h.argmax()))


def test_reductions_threads_tree():
    """Many chunks (three levels of the tree), float16 and the mean of integers, on threads."""
    rng = np.random.default_rng(4)
    h = rng.standard_normal(3000).astype(np.float16)
    i = rng.integers(-(2**40), 2**40, 3000)
    with dask.config.set(scheduler="threads"):
        x, y = chunked(h, 37), chunked(i, (0, 1000, 0, 1999, 1))
        got = dask.compute(
            pd.sum(x, split_every=4),
            pd.mean(x),
            pd.sum(y),
            pd.mean(y),
            pd.mean(x, dtype=np.float64),
            pd.sum(x, dtype=np.float32),
        )
    H.assert_same(np.asarray(H.to_host(got[0])), np.asarray(h.sum()), rtol=5e-3)
    H.assert_same(np.asarray(H.to_host(got[1])), np.asarray(h.mean()), rtol=5e-3)
    H.assert_same(np.asarray(H.to_host(got[2])), np.asarray(i.sum()))
    H.assert_same(np.asarray(H.to_host(got[3])), np.asarray(i.mean()), rtol=1e-12)
    H.assert_same(np.asarray(H.to_host(got[4])), np.asarray(h.mean(dtype=np.float64)), rtol=1e-12)
    H.assert_same(np.asarray(H.to_host(got[5])), np.asarray(h.sum(dtype=np.float32)), rtol=1e-5)


def test_argminmax_nan_ties():
    """NaN wins (the first one), ties take the first index, across chunks and empty chunks."""
    h = np.array([3, 1, 7, 1, 7, np.nan, 0, np.nan, 7, 0], np.float64)
    with dask.config.set(scheduler="threads"):
        for chunks in ((2, 0, 3, 1, 4), (1,) * 10, (10,), (0, 5, 0, 5)):
            x = chunked(h, chunks)
            assert int(pd.argmin(x, split_every=2).compute()) == 5
            assert int(pd.argmax(x).compute()) == 5
            y = chunked(np.nan_to_num(h, nan=-1.0), chunks)
            assert int(pd.argmin(y, split_every=2).compute()) == 5
            assert int(pd.argmax(y, split_every=2).compute()) == 2
            z = chunked(np.array([-0.0, 0.0] * 5), chunks)  # -0.0 == 0.0: the first
            assert int(pd.argmin(z).compute()) == 0 and int(pd.argmax(z).compute()) == 0


# ---- N-D arrays along axes ---------------------------------------------------------------------


ND_CHUNKS = ((3, 0, 9, 1), (4, 0, 1, 15))
AXES = [None, 0, 1, -1, (0, 1), (1,)]


@pytest.mark.parametrize("dt", [np.int8, np.float32, np.complex64])
def test_reductions_axes(client, dt):
    rng = np.random.default_rng(11)
    h = data(rng, (13, 20), dt)
    x = chunked_nd(h, ND_CHUNKS)
    names = ["sum", "mean"] + ([] if np.dtype(dt).kind == "c" else ["min", "max", "any", "all"])
    lazy, want = {}, {}
    for i, n in enumerate(names):
        for j, ax in enumerate(AXES):
            kd = (i + j) % 2 == 1  # by turns: every function and every axis with both (36 to 18)
            lazy[n, ax, kd] = getattr(pd, n)(x, axis=ax, keepdims=kd, split_every=2)
            want[n, ax, kd] = getattr(np, n)(h, axis=ax, keepdims=kd)
            assert lazy[n, ax, kd].shape == np.shape(want[n, ax, kd]), (n, ax, kd)
    check(dict(zip(lazy, dask.compute(*lazy.values()))), want, np.dtype(dt).name)


@pytest.mark.parametrize("dt", [np.uint8, np.float64])
def test_argminmax_axes(client, dt):
    rng = np.random.default_rng(12)
    h = data(rng, (13, 20), dt)
    if np.dtype(dt).kind == "f":
        h[rng.random(h.shape) < 0.05] = np.nan
    x = chunked_nd(h, ND_CHUNKS)
    lazy, want = {}, {}
    for n in ("argmin", "argmax"):
        for ax in (None, 0, 1, -2):
            for kd in (False, True):
                lazy[n, ax, kd] = getattr(pd, n)(x, axis=ax, keepdims=kd, split_every=2)
                want[n, ax, kd] = getattr(np, n)(h, axis=ax, keepdims=kd)
    check(dict(zip(lazy, dask.compute(*lazy.values()))), want)


def test_reductions_axes_threads_empty_axis():
    h = np.zeros((4, 0), np.float32)
    with dask.config.set(scheduler="threads"):
        x = chunked_nd(h, ((1, 3), (0,)))
        H.assert_same(pd.sum(x, axis=1).compute(), np.zeros(4, np.float32))
        H.assert_same(pd.prod(x, axis=1, keepdims=True).compute(), np.ones((4, 1), np.float32))
        H.assert_same(pd.all(x, axis=1).compute(), np.ones(4, bool))
        H.assert_same(pd.min(x, axis=0).compute(), np.zeros(0, np.float32))
        with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
            m = pd.mean(x, axis=1)
        H.assert_same(m.compute(), np.full(4, np.nan, np.float32))


def test_unknown_chunk_sizes_threads():
    """sum/min/mean take unknown chunk sizes; min of nothing raises when computed."""
    h = np.arange(-20, 30, dtype=np.int32)
    with dask.config.set(scheduler="threads"):
        x = chunked(h, 7)
        H.assert_same(H.to_host(pd.sum(x[x > 3]).compute()), np.asarray(h[h > 3].sum()))
        H.assert_same(H.to_host(pd.min(x[x > 3]).compute()), np.asarray(h[h > 3].min()))
        H.assert_same(H.to_host(pd.mean(x[x > 3]).compute()), np.asarray(h[h > 3].mean()))
        with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
            pd.max(x[x > 100]).compute()


@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(st.integers(0, 40), min_size=1, max_size=5).filter(lambda c: sum(c) > 0),
    st.integers(2, 5),
    st.integers(0, 2**31),
)
def test_reductions_property(chunks, split_every, seed):
    rng = np.random.default_rng(seed)
    h = rng.integers(-3, 3, sum(chunks)).astype(np.int16)
    with dask.config.set(scheduler="threads"):
        x = chunked(h, chunks)
        got = dask.compute(
            pd.sum(x, split_every=split_every),
            pd.argmax(x, split_every=split_every),
            pd.min(x, split_every=split_every),
        )
    H.assert_same(np.asarray(H.to_host(got[0])), np.asarray(h.sum()))
    H.assert_same(np.asarray(H.to_host(got[1])), np.asarray(h.argmax()))
    H.assert_same(np.asarray(H.to_host(got[2])), np.asarray(h.min()))


def test_small_partials_leave_their_tasks_on_the_host(client, rng):
    """A chunk's device partial of at most the policy's host_bytes leaves its task as a NumPy
    array (it crosses workers as a host frame); a larger one stays on the device; the result of
    the reduction is of the chunks' kind. Host chunks are left as they are."""
    from primitives import tuning
    from primitives.dask import _histogram as _dh, _reduce as _dr

    host = data(rng, (40, 30), np.float32)
    x = chunked_nd(host, ((25, 15), (10, 20)))
    device = _backend.get_backend().is_cuda
    xp = _backend.get_backend().xp
    limit = tuning.policy("dask_reduce").host_bytes
    assert limit > 0 and _dr._host_bytes(x) == (limit if device else 0)
    block = xp.asarray(host[:25, :10])
    f32 = np.dtype(np.float32)
    small = _dr._chunk(block, axis=(0,), op="sum", acc=f32, host=limit)  # 40 bytes
    assert isinstance(small, np.ndarray) and small.shape == (1, 10)
    kept = _dr._chunk(block, axis=(0,), op="sum", acc=f32, host=16)  # over 16 bytes: as it is
    assert type(kept) is type(block)
    mean = _dr._mean_chunk(block, axis=(0, 1), acc=np.dtype(np.float64), host=limit)
    assert isinstance(mean[0], np.ndarray) and mean[1] == 250
    for got, want in ((pd.sum(x, axis=0), host.sum(axis=0)), (pd.mean(x), host.mean())):
        res = got.compute()
        assert type(res) is type(block) or (not device and np.isscalar(res))
        H.assert_same(np.asarray(H.to_host(res)), np.asarray(want), rtol=1e-6)
    # nothing to reduce over axes of length 1: the chunk is its own partial, no launch
    row = xp.asarray(host[:1, :10])
    assert _dr._chunk(row, axis=(0,), op="sum", acc=f32, host=16) is row
    # host partials of device chunks are reduced by NumPy where they are, not by the library
    # (which would build a plan for them: the cache is empty, so any library call builds one)
    parts = np.arange(30, dtype=np.float32).reshape(3, 10)
    prim.clear_caches()
    builds = prim.cache_info()["builds"]
    got = _dr._reduce_block(parts, "sum", (0,), True, f32, host=limit)
    assert prim.cache_info()["builds"] == builds
    assert isinstance(got, np.ndarray) and got.shape == (1, 10)
    H.assert_same(got, parts.sum(axis=0, keepdims=True))
    _dr._reduce_block(parts, "sum", (0,), True, f32)  # the library's call, for contrast
    assert prim.cache_info()["builds"] > builds
    # a histogram's row of counts leaves its task on the host, and the sum is of the chunks' kind
    row = _dh._hist_chunk(block, bins=8, range=(0.0, 1.0), host=limit)
    assert (isinstance(row, np.ndarray) or not device) and row.shape == (1, 1, 8)
    hist = pd.histogram(x, 8, (0.0, 1.0))[0].compute()
    assert type(hist) is type(block)
    H.assert_same(H.to_host(hist), np.histogram(host, 8, (0.0, 1.0))[0])


# ---- histogram / bincount ---------------------------------------------------------------------


HIST_DTYPES = [np.int8, np.uint8, np.int32, np.int64, np.float16, np.float32, np.float64]


@pytest.mark.parametrize("dt", HIST_DTYPES)
def test_histogram(client, dt):
    rng = np.random.default_rng(np.dtype(dt).itemsize + 1)
    chunks = ((17, 0, 30, 1), (0, 9, 31))
    v = rng.standard_normal((48, 40)) * 40
    if np.dtype(dt).kind == "u":
        v = np.abs(v)
    h = v.astype(dt)
    x = chunked_nd(h, chunks)
    cases = [(10, None), (256, (-50, 60)), (5, (3, 3)), (np.array([-30, -1, 0, 0.5, 20, 90]), None)]
    hists, edges = [], []
    for bins, rg in cases:
        hist, e = pd.histogram(x, bins, rg, split_every=2)
        want_h, want_e = np.histogram(h, bins, rg)
        H.assert_same(e, want_e, what=f"edges bins={bins} range={rg}")
        assert isinstance(hist, da.Array) and hist.dtype == want_h.dtype
        hists.append(hist)
        edges.append(want_h)
    for got, want, c in zip(dask.compute(*hists), edges, cases):
        H.assert_same(got, want, what=f"hist {c}")


def test_histogram_weights_density_threads():
    rng = np.random.default_rng(21)
    h = rng.standard_normal(3000).astype(np.float32)
    w = rng.integers(-4, 5, 3000).astype(np.int16)
    wf = rng.random(3000)
    with dask.config.set(scheduler="threads"):
        x = chunked(h, (1000, 0, 999, 1001))
        hist, e = pd.histogram(x, 20, weights=chunked(w, 128))  # rechunked as x
        H.assert_same(hist.compute(), np.histogram(h, 20, weights=w)[0])
        hist, e = pd.histogram(x, 20, (-1, 1), weights=chunked(wf, (1000, 0, 999, 1001)))
        H.assert_same(hist.compute(), np.histogram(h, 20, (-1, 1), weights=wf)[0], rtol=1e-12)
        hist, e = pd.histogram(x, 7, density=True)
        H.assert_same(hist.compute(), np.histogram(h, 7, density=True)[0], rtol=1e-12)
        empty, e = pd.histogram(chunked(np.zeros(0, np.float64), (0,)), 4)
        H.assert_same((empty.compute(), e), np.histogram(np.zeros(0), 4))
        with pytest.warns(RuntimeWarning, match="bool"):
            hist, e = pd.histogram(x > 0, 3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = np.histogram(h > 0, 3)
        H.assert_same((hist.compute(), e), want)


@pytest.mark.parametrize("dt", [np.bool_, np.uint8, np.int16, np.int64, np.uint64])
def test_bincount(client, dt):
    rng = np.random.default_rng(3)
    top = 2 if dt is np.bool_ else 250
    h = rng.integers(0, top, 2500).astype(dt)
    x = chunked(h, (0, 1000, 1, 1499))
    wf = rng.standard_normal(2500)
    got = dask.compute(
        pd.bincount(x),
        pd.bincount(x, minlength=400, split_every=2),
        pd.bincount(x, weights=chunked(wf, 100)),
    )
    H.assert_same(got[0], np.bincount(h))
    H.assert_same(got[1], np.bincount(h, minlength=400))
    H.assert_same(got[2], np.bincount(h, weights=wf), rtol=1e-12, atol=1e-12)


def test_bincount_empty_threads():
    with dask.config.set(scheduler="threads"):
        x = chunked(np.zeros(0, np.int32), (0, 0))
        H.assert_same(
            pd.bincount(x, minlength=3).compute(), np.bincount(np.zeros(0, np.int32), minlength=3)
        )
        H.assert_same(pd.bincount(x).compute(), np.zeros(0, np.int64))


# ---- errors -----------------------------------------------------------------------------------


def test_reduce_errors():
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = da.from_array(host, chunks=2)
    for f in ("sum", "prod", "min", "max", "mean", "any", "all", "argmin", "argmax"):
        name = f"primitives.dask.{f}"
        H.raises_like(TypeError, name, getattr(pd, f), host, match="dask.array.Array")
        H.raises_like(
            np.exceptions.AxisError, name, getattr(pd, f), x, axis=2, match="out of bounds"
        )
        H.raises_like(TypeError, name, getattr(pd, f), x.astype("U1"), match="dtype")
    for f in ("sum", "min", "mean", "any"):
        H.raises_like(
            ValueError, f"primitives.dask.{f}", getattr(pd, f), x, axis=(0, 0), match="duplicate"
        )
    for f in ("min", "max", "argmin", "argmax", "any"):
        H.raises_like(
            TypeError,
            f"primitives.dask.{f}",
            getattr(pd, f),
            x.astype(np.complex64),
            match="complex64",
        )
    H.raises_like(TypeError, "primitives.dask.sum", pd.sum, x, dtype="U3")
    H.raises_like(TypeError, "primitives.dask.argmin", pd.argmin, x, axis=(0,))
    H.raises_like(TypeError, "primitives.dask.argmax", pd.argmax, x, axis=1.0)
    H.raises_like(
        ValueError, "primitives.dask.argmin", pd.argmin, x[x > 3], match="unknown chunk sizes"
    )
    with pytest.raises(ValueError, match="attempt to get argmin of an empty sequence"):
        pd.argmin(x[:, :0])
    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        pd.argmax(x[:0], axis=0)
    with pytest.raises(ValueError, match="zero-size array to reduction operation minimum"):
        pd.min(x[:0])
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        pd.max(x[:, :0], axis=1)
    with pytest.warns(np.exceptions.ComplexWarning):
        s = pd.sum(x.astype(np.complex64) + 1j, dtype=np.float64)
    H.assert_same(s.compute(), np.asarray(host.sum(dtype=np.float64)))
    # into bool: whether each element is nonzero (here the imaginary part), NumPy's cast, unwarned
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        b = pd.sum((x % 2).astype(np.complex64) * 1j, axis=0, dtype=np.bool_)
    want = np.sum((host % 2).astype(np.complex64) * 1j, axis=0, dtype=np.bool_)
    H.assert_same(b.compute(), want)


def test_histogram_errors():
    host = np.arange(10, dtype=np.float32)
    x = da.from_array(host, chunks=4)
    name = "primitives.dask.histogram"
    H.raises_like(TypeError, name, pd.histogram, host, match="dask.array.Array")
    H.raises_like(TypeError, name, pd.histogram, x.astype(np.complex64), match="complex64")
    H.raises_like(TypeError, name, pd.histogram, x, bins=2.5, match="bins")
    H.raises_like(ValueError, name, pd.histogram, x, bins="auto", match="estimators")
    H.raises_like(ValueError, name, pd.histogram, x, bins=0, match="positive")
    H.raises_like(ValueError, name, pd.histogram, x, bins=np.ones((2, 2)), match="1d")
    H.raises_like(ValueError, name, pd.histogram, x, bins=[3, 1, 2], match="monotonically")
    H.raises_like(ValueError, name, pd.histogram, x, 4, (5, 1), match="max must be larger")
    H.raises_like(ValueError, name, pd.histogram, x / 0, 4, match="not finite")
    H.raises_like(ValueError, name, pd.histogram, x[x > 3], match="unknown chunk sizes")
    H.raises_like(TypeError, name, pd.histogram, x, weights=host, match="weights")
    H.raises_like(ValueError, name, pd.histogram, x, weights=x[:5], match="same shape")
    H.raises_like(
        TypeError, name, pd.histogram, x, weights=x.astype(np.complex64), match="complex64"
    )
    name = "primitives.dask.bincount"
    i = x.astype(np.int32)
    H.raises_like(TypeError, name, pd.bincount, host.astype(np.int32), match="dask.array.Array")
    H.raises_like(TypeError, name, pd.bincount, x, match="float32")
    H.raises_like(ValueError, name, pd.bincount, i.reshape(2, 5), match="1-D")
    H.raises_like(ValueError, name, pd.bincount, i - 3, match="negative")
    H.raises_like(ValueError, name, pd.bincount, i, minlength=-1)
    H.raises_like(TypeError, name, pd.bincount, i, minlength=None)
    H.raises_like(ValueError, name, pd.bincount, i[i > 3], match="unknown chunk sizes")
    H.raises_like(ValueError, name, pd.bincount, i, weights=x[:3], match="same shape")

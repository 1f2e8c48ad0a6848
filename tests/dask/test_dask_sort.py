"""primitives.dask sort/argsort, topk and spmv vs NumPy/SciPy, on a distributed cluster (the
``client`` of conftest.py: two workers in this process, NumPy chunks on the emulator; on a GPU
one dask-cuda worker with CuPy chunks when dask-cuda is installed) and on the threaded
scheduler."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import primitives as prim
from primitives.testing import harness as H

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("primitives.dask")

from tests.dask.conftest import CHUNKINGS, chunked  # noqa: E402

SORT_DTYPES = [
    np.uint8,
    np.int8,
    np.uint16,
    np.int16,
    np.uint32,
    np.int32,
    np.uint64,
    np.int64,
    np.float32,
    np.float64,
]


def keys(rng, n, dt, distinct=None):
    """n keys of ``dt``: random bits (NaNs, -0.0, infinities for floats), or ``distinct``
    values for many ties."""
    dt = np.dtype(dt)
    if distinct is not None:
        return rng.integers(0, distinct, n).astype(dt)
    k = rng.integers(0, 256, n * dt.itemsize, dtype=np.uint8).view(dt)
    if dt.kind == "f" and n > 8:
        k[::5] = np.nan
        k[1::7] = -0.0
        k[2::7] = 0.0
    return k


# ---- sort / argsort ---------------------------------------------------------------------------


#: every dtype on a small awkward chunking; every chunking on a 4-byte and an 8-byte dtype
SORT_CASES = sorted(
    {(dt, (33, 0, 31)) for dt in SORT_DTYPES}
    | {(dt, c) for dt in (np.float32, np.int64) for c in CHUNKINGS},
    key=lambda c: (np.dtype(c[0]).name, c[1]),
)


@pytest.mark.parametrize("dt,chunks", SORT_CASES)
def test_sort_argsort(client, chunks, dt):
    rng = np.random.default_rng(sum(chunks) + np.dtype(dt).itemsize)
    host = keys(rng, sum(chunks), dt)
    x = chunked(host, chunks)
    s, a = pd.sort(x), pd.argsort(x)
    assert s.numblocks == a.numblocks == x.numblocks and s.dtype == host.dtype
    H.assert_same(s.compute(), np.sort(host, kind="stable"), what="sort")
    H.assert_same(a.compute(), np.argsort(host, kind="stable"), what="argsort")


@pytest.mark.parametrize("distinct", [1, 2, 5, 100])
def test_argsort_stable_ties(client, distinct):
    rng = np.random.default_rng(distinct)
    host = keys(rng, 5000, np.int32, distinct)
    x = chunked(host, (700, 0, 1300, 33, 2967))
    a = pd.argsort(x)
    H.assert_same(a.compute(), np.argsort(host, kind="stable"), what="argsort")
    H.assert_same(pd.sort(x).compute(), np.sort(host), what="sort")
    # runs of equal keys longer than a chunk are split: the outputs stay balanced
    assert max(a.chunks[0]) <= 1.1 * 1000


def test_sort_balance(client):
    rng = np.random.default_rng(7)
    host = rng.integers(0, 2**32, 8 * 4096, dtype=np.uint64).astype(np.uint32)
    x = chunked(host, 4096)
    s = pd.sort(x)
    sizes = np.array(s.chunks[0])
    assert sizes.size == 8 and sizes.sum() == host.size
    assert sizes.max() <= 1.1 * sizes.min(), sizes
    H.assert_same(s.compute(), np.sort(host), what="sort")


def test_sort_pieces_run_where_their_chunks_live(client):
    """Every piece of the exchange is cut on the worker holding its sorted chunk (pinned: the
    scheduler would take the group of pieces for root tasks and place them anywhere)."""
    rng = np.random.default_rng(11)
    host = rng.integers(0, 2**32, 4 * 2048, dtype=np.uint64).astype(np.uint32)
    x = client.persist(chunked(host, 2048))
    distributed.wait(x)
    with distributed.get_task_stream(client) as ts:
        s = client.persist(pd.sort(x))
        distributed.wait(s)
    ran = {rec["key"]: rec["worker"] for rec in ts.data}
    holder = {k[1]: w[0] for k, w in client.who_has(x).items()}  # input chunk i -> its worker
    pieces = [k for k in ran if isinstance(k, tuple) and k[0].startswith("primitives-dask-piece")]
    assert len(pieces) >= 8
    # piece (i, j) ran where input chunk i lives, where chunk i was sorted
    assert {k: ran[k] for k in pieces} == {k: holder[k[1]] for k in pieces}
    H.assert_same(s.compute(), np.sort(host), what="sort")


def test_spmv_gathers_run_where_x_lives(client):
    """With x persisted on a cluster, each gather of x's entries runs on the worker holding its
    chunk (no transfer in front of any gather), and consecutive halo columns are taken as views
    (a slice: no index array through the scheduler)."""
    from primitives.dask import _spmv

    halo = np.array([3, 4, 5, 6, 9], np.int64)
    assert _spmv._needed(halo, 0, 4, 2) == slice(1, 5)
    H.assert_same(_spmv._needed(halo, 2, 5, 2), np.array([3, 4, 7], np.int64))
    rng = np.random.default_rng(12)
    n = 4096
    m = sp.diags(
        [np.ones(n - 1), 4 * np.ones(n), np.ones(n - 1)], [-1, 0, 1], format="csr", dtype=np.float32
    )  # banded: every block's halo is consecutive columns
    A = pd.CSR(m, row_chunks=1024)
    hx = rng.random(n, dtype=np.float32)
    x = client.persist(chunked(hx, 1024))
    distributed.wait(x)
    with distributed.get_task_stream(client) as ts:
        y = client.persist(pd.spmv(A, x))
        distributed.wait(y)
    takes = [rec for rec in ts.data if str(rec["key"]).startswith("_take")]
    assert len(takes) >= 7  # the interior blocks read two or three chunks of x
    assert not [
        rec["key"] for rec in takes if any(ss["action"] == "transfer" for ss in rec["startstops"])
    ]
    H.assert_same(y.compute(), m @ hx, rtol=1e-5, check_dtype=False)


def test_sort_threads():
    rng = np.random.default_rng(3)
    host = keys(rng, 3000, np.float32)
    x = chunked(host, (1000, 0, 999, 1001))
    with dask.config.set(scheduler="threads"):
        H.assert_same(pd.sort(x).compute(), np.sort(host), what="sort")
        H.assert_same(pd.argsort(x).compute(), np.argsort(host, kind="stable"), what="argsort")


def test_sort_empty_and_lazy(client):
    x = chunked(np.zeros(0, np.float64), (0,))
    assert pd.sort(x).compute().size == 0
    a = pd.argsort(x).compute()
    assert a.size == 0 and a.dtype == np.int64
    host = np.arange(10, 0, -1, dtype=np.int16)
    x = chunked(host, (4, 6))
    before = host.copy()
    s = pd.sort(x)
    assert isinstance(s, da.Array)
    H.assert_same(s.compute(), np.sort(before))
    H.assert_same(host, before, what="input unchanged")


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(st.integers(0, 60), min_size=1, max_size=5), st.integers(1, 20), st.integers(0, 2**31)
)
def test_sort_property(client, chunks, distinct, seed):
    rng = np.random.default_rng(seed)
    host = keys(rng, sum(chunks), np.int64, distinct)
    x = chunked(host, chunks)
    H.assert_same(pd.argsort(x).compute(), np.argsort(host, kind="stable"), what="argsort")


# ---- topk -------------------------------------------------------------------------------------


TOPK_DTYPES = [
    np.bool_,
    np.uint8,
    np.int16,
    np.uint32,
    np.int64,
    np.float16,
    np.float32,
    np.float64,
]


@pytest.mark.parametrize("dt", TOPK_DTYPES)
@pytest.mark.parametrize("k", [0, 1, 31, 33, 1000])
def test_topk(client, dt, k):
    rng = np.random.default_rng(k)
    n = 2100
    host = rng.random(n) < 0.5 if dt is np.bool_ else keys(rng, n, dt, None if k % 2 else 7)
    chunks = (1, 0, 999, 33, 1000, 0, 67)
    x = chunked(host, chunks)
    # the four calls' values and indices in one computation (the sorted and unsorted calls
    # share their chunks' candidate lists)
    lazy = [
        part
        for largest in (True, False)
        for ordered in (True, False)
        for part in pd.topk(x, k, largest=largest, sorted=ordered)
    ]
    got = iter(dask.compute(*lazy))
    for largest in (True, False):
        rv, ri = prim.topk(host, k, largest=largest)
        v, i = next(got), next(got)
        H.assert_same((v, i), (rv, ri), what=f"topk largest={largest}")
        v, i = H.to_host(next(got)), H.to_host(next(got))
        H.assert_same(np.sort(i), np.sort(ri), what="unsorted indices")
        H.assert_same(v, host[i], what="unsorted values")


def test_topk_many_chunks_threads():
    rng = np.random.default_rng(11)
    host = keys(rng, 4000, np.float32, 50)
    x = chunked(host, 37)  # 109 chunks: a tree of three levels
    with dask.config.set(scheduler="threads"):
        v, i = pd.topk(x, 100)
        H.assert_same(dask.compute(v, i), prim.topk(host, 100))


# ---- spmv -------------------------------------------------------------------------------------


def matrix(rng, m, n, dt, density=0.05):
    M = sp.random(m, n, density=density, format="lil", random_state=rng, dtype=np.float64)
    if m > 60:
        M[20:60, :] = 0  # empty rows: a partition without nonzeros
    M = M.tocsr()
    if np.dtype(dt).kind == "c":
        M = M + 1j * M
    return M.astype(dt)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize(
    "row_chunks,x_chunks", [(64, 100), ((20, 40, 0, 1, 239), (1, 0, 33, 266)), ((300,), (300,))]
)
def test_spmv(client, dt, row_chunks, x_chunks):
    rng = np.random.default_rng(5)
    M = matrix(rng, 300, 300, dt)
    xv = rng.standard_normal(300).astype(dt)
    A = pd.CSR(M, row_chunks)
    y = pd.spmv(A, chunked(xv, x_chunks))
    assert y.chunks[0] == A.row_chunks and y.dtype == np.result_type(dt, dt)
    tol = 1e-5 if np.dtype(dt) in (np.float32, np.complex64) else 1e-12
    H.assert_same(y.compute(), M @ xv, rtol=tol, atol=tol)


def test_spmv_parts_halo_threads():
    rng = np.random.default_rng(9)
    M = matrix(rng, 200, 500, np.float64, density=0.01)
    A = pd.CSR.from_parts([M[:70], M[70:70], M[70:]])
    assert A.row_chunks == (70, 0, 130) and A.shape == M.shape
    for (part, halo), lo, hi in zip(A.parts, (0, 70, 70), (70, 70, 200)):
        # each partition reads only the columns its rows touch
        H.assert_same(halo, np.unique(M[lo:hi].indices).astype(np.int64))
        assert part.shape == (hi - lo, halo.size)
    xv = np.arange(500, dtype=np.int32)  # integer x: a float64 result, as SciPy's
    with dask.config.set(scheduler="threads"):
        y = pd.spmv(A, chunked(xv, 128)).compute()
    H.assert_same(y, M @ xv, rtol=1e-12)


def _lazy_blocks(M, bounds):
    """(delayed row blocks over their halos, halos, row counts) of SciPy matrix ``M``: the
    blocks made by tasks, as a program that builds them where they are used would."""
    blocks, halos = [], []
    for lo, hi in bounds:
        rows = M[lo:hi]
        halo = np.unique(rows.indices).astype(np.int64)
        local = sp.csr_matrix(
            (rows.data, np.searchsorted(halo, rows.indices), rows.indptr),
            shape=(hi - lo, halo.size),
        )
        blocks.append(dask.delayed(prim.sparse.CSR)(local))
        halos.append(halo)
    return blocks, halos, [hi - lo for lo, hi in bounds]


def test_spmv_from_delayed():
    """CSR.from_delayed: blocks given lazily (with their halos and row counts) make the same
    products as the matrix partitioned on the client; nothing is computed at construction."""
    rng = np.random.default_rng(11)
    M = matrix(rng, 200, 300, np.float32, density=0.02)
    bounds = [(0, 64), (64, 64), (64, 200)]
    blocks, halos, rows = _lazy_blocks(M, bounds)
    A = pd.CSR.from_delayed(blocks, halos, 300, np.float32, row_chunks=rows, nnz=M.nnz)
    assert A.shape == M.shape and A.row_chunks == (64, 0, 136) and A.nnz == M.nnz
    assert all(part is None for part, _ in A.parts)
    B = pd.CSR.from_delayed(tuple(blocks), halos, 300, "float32", row_chunks=tuple(rows))
    assert B.nnz is None and "nnz=unknown" in repr(B)
    xv = rng.standard_normal(300).astype(np.float32)
    with dask.config.set(scheduler="threads"):
        for mat in (A, B):
            y = pd.spmv(mat, chunked(xv, 128))
            assert y.chunks[0] == (64, 0, 136)
            H.assert_same(y.compute(), M @ xv, rtol=1e-5, atol=1e-5)
            # blocks made on the host stay NumPy; the client's partition goes to the device
            H.assert_same(
                H.to_host(y.compute()),
                H.to_host(pd.spmv(pd.CSR(M, rows), chunked(xv, 128)).compute()),
            )


def test_spmv_from_delayed_errors():
    M = sp.random(10, 10, density=0.3, format="csr", random_state=0, dtype=np.float64)
    blocks, halos, rows = _lazy_blocks(M, [(0, 4), (4, 10)])
    name = "primitives.dask.CSR.from_delayed"
    f = pd.CSR.from_delayed

    def call(b=blocks, h=halos, n=10, dt=np.float64, r=rows, **kw):
        return f(b, h, n, dt, row_chunks=r, **kw)

    H.raises_like(TypeError, name, call, b=blocks[0], match="blocks must be a list or tuple")
    H.raises_like(TypeError, name, call, h=np.arange(3), match="halos must be a list or tuple")
    H.raises_like(TypeError, name, call, r=10, match="row_chunks must be a list or tuple")
    H.raises_like(ValueError, name, call, b=[], h=[], r=[], match="empty")
    H.raises_like(ValueError, name, call, h=halos[:1], match="differ in length")
    H.raises_like(TypeError, name, call, b=[M, blocks[1]], match=r"blocks\[0\] must be")
    H.raises_like(
        TypeError,
        name,
        call,
        h=[halos[0].astype(float), halos[1]],
        match=r"halos\[0\] must hold integers",
    )
    H.raises_like(ValueError, name, call, h=[halos[0][None], halos[1]], match="1-D")
    assert halos[0].size >= 2  # reversed: decreasing
    for bad in (halos[0][::-1], np.array([0, 0]), np.array([-1, 2]), np.array([3, 10])):
        H.raises_like(
            ValueError, name, call, h=[bad, halos[1]], match="strictly increasing columns in"
        )
    H.raises_like(TypeError, name, call, dt=np.int32, match="int32")
    H.raises_like(TypeError, name, call, n=10.0, match="ncols must be an integer")
    H.raises_like(ValueError, name, call, n=-1, match="ncols must be non-negative")
    H.raises_like(TypeError, name, call, r=[4, 6.0], match=r"row_chunks\[1\] must be")
    H.raises_like(ValueError, name, call, r=[4, -6], match="non-negative")
    H.raises_like(TypeError, name, call, nnz=True, match="nnz must be an integer")


# ---- errors -----------------------------------------------------------------------------------


def test_errors():
    host = np.arange(10, dtype=np.float32)
    x = da.from_array(host, chunks=4)
    for f in (pd.sort, pd.argsort):
        name = f"primitives.dask.{f.__name__}"
        H.raises_like(TypeError, name, f, host, match="dask.array.Array")
        H.raises_like(TypeError, name, f, x.astype(np.float16), match="float16")
        H.raises_like(ValueError, name, f, da.ones((3, 3), chunks=2), match="1-D")
        H.raises_like(ValueError, name, f, x[x > 3], match="unknown chunk sizes")
    name = "primitives.dask.topk"
    H.raises_like(TypeError, name, pd.topk, host, 3, match="dask.array.Array")
    H.raises_like(TypeError, name, pd.topk, x.astype(np.complex64), 3, match="complex64")
    H.raises_like(TypeError, name, pd.topk, x, 2.0, match="k must be an int")
    H.raises_like(ValueError, name, pd.topk, x, 11, match="0 <= k <= x.size")
    H.raises_like(ValueError, name, pd.topk, x, -1, match="0 <= k")
    H.raises_like(TypeError, name, pd.topk, x, 1, largest=1, match="largest")
    H.raises_like(TypeError, name, pd.topk, x, 1, sorted=None, match="sorted")
    M = sp.random(10, 10, density=0.3, format="csr", random_state=0)
    A = pd.CSR(M, 4)
    name = "primitives.dask.spmv"
    H.raises_like(TypeError, name, pd.spmv, M, x, match="primitives.dask.CSR")
    H.raises_like(TypeError, name, pd.spmv, A, host, match="dask.array.Array")
    H.raises_like(ValueError, name, pd.spmv, A, x[:9], match="9 elements, A has 10 columns")
    H.raises_like(TypeError, name, pd.spmv, A, x > 2, match="bool")
    H.raises_like(ValueError, name, pd.spmv, A, da.ones((10, 1), chunks=5), match="1-D")
    name = "primitives.dask.CSR"
    H.raises_like(TypeError, name, pd.CSR, host, 4)
    H.raises_like(TypeError, name, pd.CSR, M, 2.5, match="row_chunks")
    H.raises_like(ValueError, name, pd.CSR, M, (4, 4), match="do not cover")
    H.raises_like(ValueError, name, pd.CSR, M, 0, match="positive")
    name = "primitives.dask.CSR.from_parts"
    H.raises_like(TypeError, name, pd.CSR.from_parts, M, match="list or tuple")
    H.raises_like(ValueError, name, pd.CSR.from_parts, [], match="empty")
    H.raises_like(ValueError, name, pd.CSR.from_parts, [M, M[:, :5]], match="column counts")
    H.raises_like(TypeError, name, pd.CSR.from_parts, [M, M.astype(np.float32)], match="dtypes")

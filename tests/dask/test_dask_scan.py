"""primitives.dask cumsum, cumprod, inclusive_scan and exclusive_scan vs NumPy: both 1-D graphs
(the chain of seeded chunk scans, and the totals then seeded scans), on a distributed cluster
(conftest.py's: two workers in this process with NumPy chunks on the emulator, one dask-cuda
worker with CuPy chunks on a GPU) and on the threaded scheduler; N-D arrays along an axis."""

import numpy as np
import pytest

from primitives.testing import harness as H

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("primitives.dask")

from tests.dask.conftest import CHUNKINGS, chunked  # noqa: E402

OPS = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum}


def data(rng, n, dt, op):
    """Values whose scans are exact or nearly so: small integers, +-1 for products."""
    dt = np.dtype(dt)
    if dt.kind == "b":
        return rng.random(n) < 0.5
    if op == "prod":
        v = rng.choice([1, -1] if dt.kind in "ifc" else [1, 2], n).astype(dt)
        return v if dt.kind != "f" else (v * rng.uniform(0.999, 1.001, n)).astype(dt)
    if dt.kind == "u":
        return rng.integers(0, 50, n).astype(dt)
    if dt.kind == "c":
        return (rng.integers(-50, 50, n) + 1j * rng.integers(-50, 50, n)).astype(dt)
    return rng.integers(-50, 50, n).astype(dt)


def oracle(h, op, exclusive, dtype=None):
    """NumPy's scan in the result dtype of the scans (NumPy's cumsum/cumprod widening);
    exclusive: the identity first."""
    from primitives.scan import identity
    from primitives.scan._plans import result_dtype

    res = np.dtype(dtype) if dtype is not None else result_dtype(h.dtype, op)
    inc = OPS[op].accumulate(h.astype(res))
    if not exclusive:
        return inc
    return np.concatenate([np.array([identity(op, res)], dtype=res), inc[:-1]])


def check(got, want):
    got = H.to_host(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=2e-3 if want.dtype == np.float16 else 1e-5)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("method", ["chain", "totals"])
@pytest.mark.parametrize("chunks", CHUNKINGS)
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("op", list(OPS))
def test_scan_1d_on_the_cluster(client, op, exclusive, chunks, method):
    rng = np.random.default_rng(sum(chunks) + len(op))
    h = data(rng, sum(chunks), np.int32, op)
    x = chunked(h, chunks)
    f = pd.exclusive_scan if exclusive else pd.inclusive_scan
    out = f(x, op, method=method)
    assert out.chunks == x.chunks
    check(out.compute(), oracle(h, op, exclusive))


@pytest.mark.parametrize("exclusive", [False, True])
def test_totals_fold_in_the_scans_or_a_seeds_task(client, exclusive):
    """ "totals" over at most the dask_scan policy's fold_max chunks: each scan task folds the
    totals before it (no seeds task); over more, one task of seeds first. Both give the scan,
    empty chunks included."""
    from primitives._core import policy as _policy

    fold_max = _policy.current("dask_scan").fold_max
    rng = np.random.default_rng(9)
    for count in (fold_max, fold_max + 3):
        chunks = [7 if i % 5 else 0 for i in range(count)]
        h = data(rng, sum(chunks), np.int64, "sum")
        out = (pd.exclusive_scan if exclusive else pd.inclusive_scan)(
            chunked(h, chunks), "sum", method="totals"
        )
        names = {
            str(k[0] if isinstance(k, tuple) else k).rsplit("-", 1)[0]
            for k in dict(out.__dask_graph__())
        }
        assert ("_seeds" in names) == (count > fold_max), names
        check(out.compute(), oracle(h, "sum", exclusive))


@pytest.mark.parametrize(
    "dt",
    [
        np.bool_,
        np.int8,
        np.uint8,
        np.int16,
        np.uint16,
        np.int32,
        np.uint32,
        np.int64,
        np.uint64,
        np.float16,
        np.float32,
        np.float64,
        np.complex64,
        np.complex128,
    ],
)
@pytest.mark.parametrize("method", ["chain", "totals"])
def test_cumsum_cumprod_dtypes_threaded(dt, method):
    rng = np.random.default_rng(3)
    chunks = (700, 0, 1301, 2047)
    for op, f in (("sum", pd.cumsum), ("prod", pd.cumprod)):
        h = data(rng, sum(chunks), dt, op)
        out = f(chunked(h, chunks), method=method).compute(scheduler="threads")
        want = np.cumsum(h) if op == "sum" else np.cumprod(h)
        if np.dtype(dt) == np.float16:  # NumPy accumulates float16 in float16, we in float32
            want = (np.cumsum if op == "sum" else np.cumprod)(h.astype(np.float32)).astype(dt)
        check(out, want)


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("dt", [np.int32, np.float32, np.uint8])
def test_min_max_and_dtype_argument(dt, exclusive):
    rng = np.random.default_rng(5)
    h = data(rng, 3000, dt, "max")
    x = chunked(h, (1000, 1000, 1000))
    f = pd.exclusive_scan if exclusive else pd.inclusive_scan
    for op in ("min", "max"):
        check(f(x, op).compute(scheduler="threads"), oracle(h, op, exclusive))
    check(
        f(x, "sum", dtype=np.float64).compute(scheduler="threads"),
        oracle(h, "sum", exclusive, np.float64),
    )


@pytest.mark.parametrize("axis", [0, 1, -1, None])
@pytest.mark.parametrize("exclusive", [False, True])
def test_along_an_axis(axis, exclusive):
    rng = np.random.default_rng(11)
    h = data(rng, 37 * 29, np.int64, "sum").reshape(37, 29)
    x = chunked(h.reshape(-1), (h.size,)).reshape(h.shape).rechunk((10, 8))
    f = pd.exclusive_scan if exclusive else pd.inclusive_scan
    out = f(x, "sum", axis=axis)
    want = np.cumsum(h, axis=axis)
    if exclusive:
        want = want - (h if axis is not None else h.reshape(-1))
    check(out.compute(scheduler="threads"), want)
    if axis is not None:
        assert out.chunks == x.chunks


def test_cumsum_axis_none_flattens_nd():
    h = np.arange(60, dtype=np.int32).reshape(3, 4, 5)
    x = chunked(h.reshape(-1), (60,)).reshape(3, 4, 5).rechunk((2, 3, 5))
    check(pd.cumsum(x).compute(scheduler="threads"), np.cumsum(h))
    check(pd.cumsum(x, axis=2).compute(scheduler="threads"), np.cumsum(h, axis=2))


def test_auto_method_on_the_cluster_and_threads(client):
    """``auto`` takes the parallel graph on a cluster of several workers, the chain otherwise;
    both agree with NumPy."""
    from primitives.dask import _scan

    workers = len(client.scheduler_info()["workers"])
    assert _scan._auto_method() == ("totals" if workers > 1 else "chain")
    h = np.arange(5000, dtype=np.int64) % 7
    x = chunked(h, (2500, 2500))
    check(pd.cumsum(x).compute(), np.cumsum(h))
    with dask.config.set(scheduler="threads"):
        assert _scan._auto_method() == "chain"


def test_chain_is_one_task_per_chunk():
    """The chain's chunks run the seeded look-back scan: one scan task per chunk and, as the
    output's chunks themselves, one that takes its output from the (output, carry) pair; no
    pass that adds carries, no alias tasks."""
    h = np.arange(1, 3001, dtype=np.int64)
    x = chunked(h, (1000, 1000, 1000))
    out = pd.cumsum(x, method="chain")
    kinds = {}
    inputs = set(dict(x.__dask_graph__()))
    for key in dict(out.__dask_graph__()):
        if key in inputs:
            continue
        name = (key[0] if isinstance(key, tuple) else key).rsplit("-", 1)[0]
        kinds[name] = kinds.get(name, 0) + 1
    assert kinds.pop("_chain_task") == 3 and kinds.pop(out.name.rsplit("-", 1)[0]) == 3
    # the rest: the input's chunks under their delayed names
    assert all(k.startswith(("array", "delayed")) for k in kinds), kinds
    check(out.compute(scheduler="threads"), np.cumsum(h))


def test_errors():
    x = chunked(np.arange(10, dtype=np.float32), (5, 5))
    with pytest.raises(TypeError, match="cumsum: x must be a dask.array.Array, got ndarray"):
        pd.cumsum(np.arange(3))
    with pytest.raises(ValueError, match="inclusive_scan: op"):
        pd.inclusive_scan(x, "mean")
    with pytest.raises(ValueError, match="cumsum: method"):
        pd.cumsum(x, method="fast")
    with pytest.raises(TypeError, match="cumsum: x has dtype str"):
        pd.cumsum(da.from_array(np.array(list("abc"))))
    with pytest.raises(TypeError, match="exclusive_scan: op='max' is not defined for complex"):
        pd.exclusive_scan(x.astype(np.complex64), "max")
    with pytest.raises(TypeError, match="cumsum: dtype=float32 would discard the imaginary"):
        pd.cumsum(x.astype(np.complex64), dtype=np.float32)
    with pytest.raises(np.exceptions.AxisError):
        pd.cumsum(x, axis=1)
    unknown = x[x > 3]
    with pytest.raises(ValueError, match="cumprod: x has unknown chunk sizes"):
        pd.cumprod(unknown)


@pytest.mark.parametrize("exclusive", [False, True])
def test_along_an_axis_with_empty_chunks(exclusive):
    """Empty chunks along the scanned axis (Dask's cumreduction carries the last slice of the
    chunk before, which an empty chunk lacks) and along the other axis."""
    h = np.arange(1, 61, dtype=np.int32).reshape(12, 5)
    x = chunked(h.reshape(-1), (60,)).reshape(12, 5).rechunk(((4, 0, 8), (2, 0, 3)))
    f = pd.exclusive_scan if exclusive else pd.inclusive_scan
    for axis in (0, 1):
        out = f(x, "sum", axis=axis)
        assert out.chunks == x.chunks
        want = np.cumsum(h, axis=axis, dtype=np.int64)
        check(out.compute(scheduler="threads"), want - h if exclusive else want)

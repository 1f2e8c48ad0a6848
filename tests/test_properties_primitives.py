"""Property tests of the primitives without a NumPy function of their own, against oracles
composed of NumPy: topk, segmented_reduce and segmented_scan (offsets and flags, empty
segments), reduce_by_key (consecutive runs or sorted groups), run_length_encode, compact and
compact_indices, the scans with every named operator along any axis, radix_sort (descending
included), and histogram2d/histogramdd against NumPy's own.

Inputs come from :func:`tests.test_properties.arrays` (every layout, 0-d and empty arrays,
small integers with NaNs), so ties and runs are the rule and every result is exact. topk,
segmented_reduce and compact are handed them as NumPy arrays, DLPack producers or nested lists
(the oracle then reads NumPy's array of those lists).
"""

import numpy as np
from hypothesis import assume, given, strategies as st

from primitives.testing import harness as H

from tests.test_properties import ALL, REAL, SETTINGS, arrays, oracle_input, producers

NUMERIC = tuple(d for d in REAL if d.kind != "b")
SEGMENTED = tuple(np.dtype(c) for c in "iIqQfd")  # the segmented primitives' dtypes
RADIX = tuple(np.dtype(c) for c in "bBhHiIqQfd")  # radix_sort's key dtypes


def _prim():
    import primitives as prim

    return prim


def _seed(data):
    return np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), "seed"))


def _dense_rank(v):
    """Each element's rank among the distinct values of ``v`` (NumPy's sort order: -0.0 equal
    to 0.0, every NaN equal and last)."""
    return np.unique(v, return_inverse=True)[1].reshape(v.shape)


def _stable_order(v, largest):
    """The indices of a stable sort of the 1-D ``v`` (descending where ``largest``: equal
    elements by increasing index, NaNs first)."""
    rank = _dense_rank(v)
    return np.lexsort((np.arange(v.size), -rank if largest else rank))


@SETTINGS
@given(data=st.data())
def test_topk(data):
    """topk along an axis: the first k of a stable sort (largest: NaN first, ties by index);
    with ``sorted=False`` the same elements in any order."""
    prim = _prim()
    x = data.draw(arrays(dtypes=NUMERIC, min_ndim=1), "x")
    axis = data.draw(st.sampled_from((-1, 0, x.ndim - 1)), "axis")
    n = x.shape[axis]
    k = data.draw(st.integers(0, n), "k")
    largest = data.draw(st.booleans(), "largest")
    ordered = data.draw(st.booleans(), "sorted")
    wrap = data.draw(producers(x, sequences=True), "producer")
    assume(oracle_input(x, wrap).shape == x.shape)  # lists of an empty (0, 0): a 1-D empty one
    got = prim.topk(wrap(x) if wrap else x, k, axis=axis, largest=largest, sorted=ordered)
    x = oracle_input(x, wrap)  # the oracle's reading of what the library was handed
    vals, idx = H.to_host(got)  # NumPy's arrays (DLPackOnly's library has no from_dlpack)
    a = axis % x.ndim
    assert vals.dtype == x.dtype and idx.dtype == np.int64
    assert vals.shape == idx.shape == x.shape[:a] + (k,) + x.shape[a + 1 :]
    if k == 0 or x.size == 0:
        return
    lines = np.moveaxis(x, axis, -1).reshape(-1, n)
    want = np.stack([_stable_order(line, largest)[:k] for line in lines])
    got_idx = np.moveaxis(idx, axis, -1).reshape(-1, k)
    got_vals = np.moveaxis(vals, axis, -1).reshape(-1, k)
    np.testing.assert_array_equal(got_vals, np.take_along_axis(lines, got_idx, axis=1))
    if not ordered:  # the same elements: the first k of the stable order, in any order
        got_idx, want = np.sort(got_idx, axis=1), np.sort(want, axis=1)
    np.testing.assert_array_equal(got_idx, want)


def _offsets(data, n, cover):
    """nseg + 1 non-decreasing boundaries in [0, n] (empty segments included); ``cover``: from
    0 to n."""
    rng = _seed(data)
    nseg = data.draw(st.integers(0 if not cover or n == 0 else 1, 6), "segments")
    inner = np.sort(rng.integers(0, n + 1, max(nseg - 1, 0)))
    if cover:
        ends = [0, n] if nseg else ([0] if n == 0 else None)
        assume(ends is not None)
        return np.concatenate([[0], inner, [n]]).astype(np.int64) if nseg else np.zeros(1, np.int64)
    lo, hi = np.sort(rng.integers(0, n + 1, 2))
    return np.concatenate([[lo], np.clip(inner, lo, hi), [hi]]).astype(np.int64)[: nseg + 1]


_IDENT = {"sum": None, "min": "max", "max": "min"}


def _identity(op, dt):
    if op == "sum":
        return 0
    if dt.kind == "f":
        return np.inf if op == "min" else -np.inf
    info = np.iinfo(dt)
    return info.max if op == "min" else info.min


@SETTINGS
@given(data=st.data(), op=st.sampled_from(("sum", "min", "max")))
def test_segmented_reduce(data, op):
    prim = _prim()
    dt = np.dtype(data.draw(st.sampled_from(SEGMENTED), "dtype"))
    x = data.draw(arrays(dtypes=(dt,), min_ndim=1), "x").reshape(-1)
    offsets = _offsets(data, x.size, cover=False)
    assume(offsets.size >= 1)
    wrap = data.draw(producers(x, sequences=True), "producer")
    got = H.to_host(prim.segmented_reduce(wrap(x) if wrap else x, offsets, op))
    x = oracle_input(x, wrap)
    dt = x.dtype
    parts = [x[a:b] for a, b in zip(offsets[:-1], offsets[1:])]
    res_dt = np.sum(x[:0]).dtype if op == "sum" else dt
    want = np.array(
        [getattr(np, op)(p) if p.size else _identity(op, dt) for p in parts], dtype=res_dt
    )
    H.assert_same(got, want, what=f"segmented_reduce {op}")


@SETTINGS
@given(data=st.data(), op=st.sampled_from(("sum", "min", "max")), inclusive=st.booleans())
def test_segmented_scan(data, op, inclusive):
    prim = _prim()
    dt = np.dtype(data.draw(st.sampled_from(SEGMENTED), "dtype"))
    x = data.draw(arrays(dtypes=(dt,), min_ndim=1), "x").reshape(-1)
    by_flags = data.draw(st.booleans(), "flags")
    if by_flags:
        flags = _seed(data).random(x.size) < 0.3
        starts = np.flatnonzero(flags).tolist()
        offsets = np.array(sorted({0, *starts, x.size}) if x.size else [0], np.int64)
        got = prim.segmented_scan(x, flags=flags, op=op, inclusive=inclusive)
    else:
        offsets = _offsets(data, x.size, cover=True)
        got = prim.segmented_scan(x, offsets=offsets, op=op, inclusive=inclusive)
    acc = {"sum": np.cumsum, "min": np.minimum.accumulate, "max": np.maximum.accumulate}[op]
    res_dt = np.cumsum(x[:0]).dtype if op == "sum" else dt
    want = np.empty(x.size, res_dt)
    for a, b in zip(offsets[:-1], offsets[1:]):
        seg = x[a:b].astype(res_dt)
        if seg.size:
            run = acc(seg)
            want[a:b] = run if inclusive else np.concatenate([[_identity(op, dt)], run[:-1]])
    H.assert_same(got, want, what=f"segmented_scan {op} inclusive={inclusive}")


def _runs(keys):
    """The starts of the runs of equal consecutive keys (``==``: a NaN equals nothing)."""
    if keys.size == 0:
        return np.zeros(0, np.int64)
    with np.errstate(invalid="ignore"):
        new = np.concatenate([[True], keys[1:] != keys[:-1]])
    return np.flatnonzero(new)


@SETTINGS
@given(data=st.data(), op=st.sampled_from(("sum", "prod", "min", "max")))
def test_reduce_by_key(data, op):
    prim = _prim()
    keys = data.draw(arrays(dtypes=NUMERIC, min_ndim=1), "keys").reshape(-1)
    rng = _seed(data)
    vdt = np.dtype(data.draw(st.sampled_from(NUMERIC), "values dtype"))
    values = rng.integers(-1 if op == "prod" else -3, 2 if op == "prod" else 4, keys.size)
    values = values.astype(vdt) if vdt.kind != "u" else np.abs(values).astype(vdt)
    sort = data.draw(st.booleans(), "sort")
    got = prim.reduce_by_key(keys, values, op, sort=sort)
    k, v = keys, values
    if sort:
        order = np.argsort(keys, kind="stable")
        k, v = keys[order], values[order]
    starts = _runs(k)
    ends = np.append(starts[1:], k.size)
    red = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum}[op]
    want_vals = [red.reduce(v[a:b]) for a, b in zip(starts, ends)]
    res_dt = (
        red.reduce(v[:1]).dtype
        if v.size
        else (np.sum(v).dtype if op in ("sum", "prod") else v.dtype)
    )
    want = (k[starts], np.array(want_vals, dtype=res_dt))
    H.assert_same(got, want, what=f"reduce_by_key {op} sort={sort}")


@SETTINGS
@given(data=st.data())
def test_run_length_encode(data):
    prim = _prim()
    x = data.draw(arrays(dtypes=NUMERIC, min_ndim=1), "x").reshape(-1)
    starts = _runs(x)
    counts = np.diff(np.append(starts, x.size)).astype(np.int64)
    H.assert_same(prim.run_length_encode(x), (x[starts], counts), what="run_length_encode")


@SETTINGS
@given(data=st.data())
def test_compact(data):
    prim = _prim()
    x = data.draw(arrays(dtypes=ALL), "x")
    mask = _seed(data).random(x.shape) < data.draw(st.sampled_from((0.0, 0.3, 1.0)), "share")
    wrap = data.draw(producers(x, sequences=True), "producer")
    got = prim.compact(wrap(x) if wrap else x, mask)
    x = oracle_input(x, wrap)
    H.assert_same(got, x.reshape(-1)[mask.reshape(-1)], what="compact")
    H.assert_same(prim.compact_indices(mask), np.flatnonzero(mask), what="compact_indices")


@SETTINGS
@given(data=st.data(), op=st.sampled_from(("sum", "prod", "min", "max")))
def test_scans_along_axes(data, op):
    """inclusive_scan and exclusive_scan with every named operator, along any axis or the
    flattened array: NumPy's accumulate (the exclusive scan shifted, the identity first)."""
    prim = _prim()
    x = data.draw(arrays(dtypes=REAL, small=op == "prod"), "x")
    axis = data.draw(st.sampled_from((None,) + tuple(range(-x.ndim, x.ndim))), "axis")
    inclusive = data.draw(st.booleans(), "inclusive")
    if op in ("sum", "prod"):
        acc = np.cumsum if op == "sum" else np.cumprod
        want = acc(x, axis=axis)
    else:
        ufunc = np.minimum if op == "min" else np.maximum
        flat = x.reshape(-1) if axis is None else x
        want = ufunc.accumulate(flat, axis=0 if axis is None else axis) if flat.ndim else flat
        want = want.reshape(-1) if axis is None else want
    if not inclusive:
        line = -1 if axis is None else axis
        dt = want.dtype
        if op in ("min", "max"):
            ident = (
                (np.inf if op == "min" else -np.inf)
                if dt.kind == "f"
                else (np.iinfo(dt).max if op == "min" else np.iinfo(dt).min)
                if dt.kind in "iu"
                else op == "min"
            )
        else:
            ident = 0 if op == "sum" else 1
        if want.ndim and want.shape[line]:
            head = np.full_like(np.take(want, [0], axis=line), ident)
            rest = np.take(want, range(want.shape[line] - 1), axis=line)
            want = np.concatenate([head, rest], axis=line)
    scan = prim.inclusive_scan if inclusive else prim.exclusive_scan
    with np.errstate(all="ignore"):
        got = scan(x, op, axis=axis)
    H.assert_same(got, want, what=f"{scan.__name__} {op} axis={axis}")


@SETTINGS
@given(data=st.data())
def test_radix_sort(data):
    """Keys alone or with values, ascending or descending: a stable sort (NumPy's order, NaNs
    last ascending and first descending)."""
    prim = _prim()
    # float16 keys are sort's (radix_sort documents the dtypes it takes)
    keys = data.draw(arrays(dtypes=RADIX, min_ndim=1), "keys").reshape(-1)
    descending = data.draw(st.booleans(), "descending")
    with_values = data.draw(st.booleans(), "values")
    order = _stable_order(keys, descending)
    if with_values:
        values = np.arange(keys.size, dtype=np.int32) * 3
        got = prim.radix_sort(keys, values, descending=descending)
        H.assert_same(got, (keys[order], values[order]), what="radix_sort pairs")
    else:
        H.assert_same(prim.radix_sort(keys, descending=descending), keys[order], what="radix_sort")


@SETTINGS
@given(data=st.data(), dims=st.integers(1, 3))
def test_histogramdd(data, dims):
    """histogram2d (two dimensions) and histogramdd against NumPy's, with bin counts, edges,
    ranges, weights and density."""
    rng = _seed(data)
    n = data.draw(st.sampled_from((0, 1, 7, 130)), "samples")
    dt = np.dtype(data.draw(st.sampled_from((np.float32, np.float64, np.int32)), "dtype"))
    sample = rng.integers(-3, 4, (n, dims)).astype(dt)
    kwargs = {}
    form = data.draw(st.sampled_from(("count", "edges", "range")), "bins")
    if form == "count":
        kwargs["bins"] = data.draw(st.sampled_from((1, 3, 8)), "bins")
    elif form == "edges":
        kwargs["bins"] = [np.array([-3.0, -1.0, 0.5, 3.0])] * dims
    else:
        kwargs["bins"] = data.draw(st.sampled_from((2, 5)), "bins")
        kwargs["range"] = [(-2.0, 2.5)] * dims
    if data.draw(st.booleans(), "weights"):
        kwargs["weights"] = rng.integers(0, 4, n).astype(np.float64)
    kwargs["density"] = data.draw(st.booleans(), "density")
    assume(not (form == "count" and n == 0 and "range" not in kwargs and dims > 0))

    if dims == 2 and data.draw(st.booleans(), "as histogram2d"):

        def body(xp):
            return xp.histogram2d(sample[:, 0], sample[:, 1], **kwargs)

        name = "histogram2d"
    else:

        def body(xp):
            return xp.histogramdd(sample, **kwargs)

        name = "histogramdd"
    body.__name__ = f"{name}({dt}, {n}x{dims}, {form}, {kwargs.get('density')})"
    with np.errstate(all="ignore"):
        H.run_twins(body, name=name, rtol=1e-12 if kwargs["density"] else 0.0)


@SETTINGS
@given(data=st.data())
def test_segmented_sort(data):
    """Each segment sorted stably on its own (descending: NaNs first, ties in input order),
    values alongside; segments of a warp's, a block's and a device-wide sort's lengths."""
    prim = _prim()
    n = data.draw(st.sampled_from((0, 1, 7, 130, 3000)), "n")
    dt = np.dtype(data.draw(st.sampled_from(RADIX), "dtype"))
    rng = _seed(data)
    keys = rng.integers(0 if dt.kind == "u" else -3, 4, n).astype(dt)
    if dt.kind == "f" and n:
        keys[rng.random(n) < 0.1] = np.nan
    offsets = _offsets(data, n, cover=True)
    descending = data.draw(st.booleans(), "descending")
    values = np.arange(n, dtype=np.int64) * 7
    want_k, want_v = keys.copy(), values.copy()
    for a, b in zip(offsets[:-1], offsets[1:]):
        order = _stable_order(keys[a:b], descending) if b > a else np.zeros(0, np.int64)
        want_k[a:b], want_v[a:b] = keys[a:b][order], values[a:b][order]
    got = prim.segmented_sort(keys, offsets, values, descending=descending)
    H.assert_same(got, (want_k, want_v), what=f"segmented_sort {dt} descending={descending}")

"""Property tests of the order-based functions against NumPy: sort and argsort along any axis
(``kind``, ``stable``, NaNs and complex), unique with each of its outputs, searchsorted (``side``,
``sorter``, scalar and n-d queries), lexsort, histogram (bin counts, edges, ``range``,
``weights``, ``density``) and bincount, over the layouts of :func:`tests.test_properties.arrays`
(C, F, reversed, sliced and transposed views; 0-d, empty and length-1 axes), handed over as
NumPy arrays, DLPack producers or nested lists (NumPy then handed the same lists).

Values are small integers with NaNs, so ties are the rule and every result is exact: argsort
and the indices of unique are compared where NumPy's are defined (a stable sort's; unique's first
occurrences), histograms by their counts and edges.
"""

import numpy as np
from hypothesis import assume, given, strategies as st

from primitives.testing import harness as H

from tests.test_properties import ALL, REAL, SETTINGS, arrays, as_sequence, oracle_input, producers

NUMERIC = tuple(d for d in REAL if d.kind != "b")
SORTABLE = tuple(d for d in ALL if d.kind != "b") + (np.dtype(bool),)


def _twins(name, body, x, rtol=0.0):
    before = x.copy()
    H.run_twins(body, name=name, rtol=rtol, atol=rtol)
    H.assert_same(x, before, what=f"{name} left its input unchanged")


def _given(xp, x, wrap):
    """``x`` as the library is handed it (``wrap``: :func:`tests.test_properties.producers`);
    NumPy is handed the same lists, else its own array."""
    if xp is np:
        return as_sequence(x) if wrap is as_sequence else x
    return x if wrap is None else wrap(x)


def _axis(data, x):
    """An ``axis`` of one axis: any in range (maybe negative), None, or one out of range."""
    if x.ndim == 0:
        return data.draw(st.sampled_from((None, -1, 0)), "axis")
    return data.draw(st.one_of(st.none(), st.integers(-x.ndim - 1, x.ndim)), "axis")


@SETTINGS
@given(data=st.data(), name=st.sampled_from(("sort", "argsort")))
def test_sort_argsort(data, name):
    """Along any axis; argsort stable (NumPy's order among equal keys), with ``kind="stable"`` or
    ``stable=True``; sort of any kind (the values are the same whatever the order of ties)."""
    x = data.draw(arrays(dtypes=SORTABLE), "x")
    axis = _axis(data, x)
    how = data.draw(st.sampled_from(("default", "kind", "stable")), "stability")
    kwargs = {"axis": axis}
    if how == "kind":
        kwargs["kind"] = "stable"
    elif how == "stable":
        kwargs["stable"] = True
    elif name == "argsort":  # NumPy's default quicksort orders ties in its own way
        kwargs["kind"] = "stable"

    wrap = data.draw(producers(x, sequences=True), "producer")

    def body(xp):
        return getattr(xp, name)(_given(xp, x, wrap), **kwargs)

    body.__name__ = f"{name}({x.dtype}{x.shape}, {kwargs})"
    _twins(name, body, x)


@SETTINGS
@given(data=st.data())
def test_unique(data):
    x = data.draw(arrays(dtypes=SORTABLE), "x")
    flags = {
        k: data.draw(st.booleans(), k) for k in ("return_index", "return_inverse", "return_counts")
    }
    if data.draw(st.booleans(), "equal_nan given"):
        flags["equal_nan"] = data.draw(st.booleans(), "equal_nan")

    nan_inverse = (
        flags["return_inverse"]
        and not flags.get("equal_nan", True)
        and x.dtype.kind in "fc"
        and np.isnan(x).sum() > 1
    )

    wrap = data.draw(producers(x, sequences=True), "producer")

    def body(xp):
        res = xp.unique(_given(xp, x, wrap), **flags)
        if not nan_inverse:
            return res
        # NaNs kept apart: which of them each NaN of x maps to follows NumPy's unstable sort
        # (undefined); the rest is compared, and the unique values at the inverse must give x
        res = list(res)
        i = 1 + flags["return_index"]
        uniq, inv = H.to_host(res[0]), H.to_host(res[i])
        want = oracle_input(x, wrap).reshape(-1)
        H.assert_same(uniq[inv].reshape(-1), want, what="unique[inverse]")
        del res[i]
        return tuple(res)

    body.__name__ = f"unique({x.dtype}{x.shape}, {flags})"
    _twins("unique", body, x)


@SETTINGS
@given(data=st.data())
def test_searchsorted(data):
    """Sorted ``a`` (NaNs last, as NumPy sorts them) or an unsorted one with a ``sorter``;
    queries of any shape and layout, or a Python scalar."""
    a = data.draw(arrays(dtypes=NUMERIC, min_ndim=1), "a").reshape(-1)
    v = data.draw(arrays(dtypes=(a.dtype,)), "v")
    if data.draw(st.booleans(), "scalar query") and v.size:
        v = v.reshape(-1)[0].item()
    side = data.draw(st.sampled_from(("left", "right")), "side")
    with_sorter = data.draw(st.booleans(), "sorter")
    sorter = np.argsort(a, kind="stable") if with_sorter else None
    keys = a if with_sorter else np.sort(a)

    wrap_a, wrap_v = data.draw(producers(keys, sequences=True), "producer of a"), None
    if isinstance(v, np.ndarray):
        wrap_v = data.draw(producers(v, sequences=True), "producer of v")

    def body(xp):
        return xp.searchsorted(
            _given(xp, keys, wrap_a), _given(xp, v, wrap_v), side=side, sorter=sorter
        )

    body.__name__ = f"searchsorted({keys.dtype}{keys.shape}, {v!r:.60}, {side}, {with_sorter})"
    H.run_twins(body, name="searchsorted")


@SETTINGS
@given(data=st.data())
def test_lexsort(data):
    """Two or three keys of one shape (any layout, dtypes mixed), along an axis."""
    first = data.draw(arrays(dtypes=SORTABLE, min_ndim=1), "key 0")
    count = data.draw(st.integers(2, 3), "keys")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), "seed"))
    keys = [first]
    for _ in range(count - 1):
        dt = np.dtype(data.draw(st.sampled_from(NUMERIC), "dtype"))
        keys.append(rng.integers(0, 3, first.shape).astype(dt))
    axis = data.draw(st.sampled_from((-1, 0)), "axis")

    def body(xp):
        return xp.lexsort(tuple(keys), axis=axis)

    body.__name__ = f"lexsort({[k.dtype.name for k in keys]}{first.shape}, axis={axis})"
    H.run_twins(body, name="lexsort")


@SETTINGS
@given(data=st.data())
def test_histogram(data):
    x = data.draw(arrays(dtypes=NUMERIC), "x")
    form = data.draw(st.sampled_from(("count", "edges", "range")), "bins")
    kwargs = {}
    if form == "count":
        kwargs["bins"] = data.draw(st.sampled_from((1, 2, 5, 10, 33)), "bin count")
    elif form == "edges":
        kwargs["bins"] = np.array(sorted({-3, 0, 1, 2, 4} - {data.draw(st.sampled_from((0, 2)))}))
    else:
        kwargs["bins"] = data.draw(st.sampled_from((3, 7)), "bin count")
        kwargs["range"] = data.draw(st.sampled_from(((-1, 2), (0, 3), (-3.5, 3.5))), "range")
    if data.draw(st.booleans(), "weights"):
        rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), "seed"))
        kwargs["weights"] = rng.integers(0, 4, x.shape).astype(
            data.draw(st.sampled_from((np.float64, np.float32, np.int64)), "weights dtype")
        )
    kwargs["density"] = data.draw(st.booleans(), "density")
    assume(not (x.dtype.kind == "f" and np.isnan(x).any() and form == "count"))  # NumPy raises

    wrap = data.draw(producers(x, sequences=True), "producer")

    def body(xp):
        return xp.histogram(_given(xp, x, wrap), **kwargs)

    body.__name__ = f"histogram({x.dtype}{x.shape}, {kwargs})"
    with np.errstate(all="ignore"):
        _twins("histogram", body, x, rtol=1e-12 if kwargs["density"] else 0.0)


@SETTINGS
@given(data=st.data())
def test_bincount(data):
    dt = np.dtype(data.draw(st.sampled_from(tuple(d for d in NUMERIC if d.kind in "iu"))))
    x = data.draw(arrays(dtypes=(dt,), min_ndim=1), "x").reshape(-1)
    x = np.abs(x) if dt.kind == "i" else x  # negative counts raise in both
    kwargs = {"minlength": data.draw(st.sampled_from((0, 1, 5)), "minlength")}
    if data.draw(st.booleans(), "weights"):
        rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), "seed"))
        kwargs["weights"] = rng.integers(0, 4, x.shape).astype(
            data.draw(st.sampled_from((np.float64, np.float32, np.int64)), "weights dtype")
        )

    wrap = data.draw(producers(x, sequences=True), "producer")

    def body(xp):
        return xp.bincount(_given(xp, x, wrap), **kwargs)

    body.__name__ = f"bincount({x.dtype}{x.shape}, {kwargs})"
    _twins("bincount", body, x)

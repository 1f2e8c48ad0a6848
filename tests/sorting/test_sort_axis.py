"""sort, argsort and lexsort as NumPy's: every sort dtype (bool, integers, float16/32/64,
bfloat16, complex64/128) in NumPy's order, any axis and axis=None, C, F, reversed, sliced and transposed
layouts and the layouts of the results, 0-d and empty arrays, descending order, kind/stable/order,
lexsort's keys and axes, hypothesis properties, and every error branch against NumPy's."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import primitives as prim
from primitives import sorting
from primitives._core import dtypes as _dtypes, keys as _keys
from primitives.testing import harness as H
from primitives.testing.oracle import sort_order

SORT_DTYPES = sorting.SORT_DTYPES
to_host = H.to_host


def make(rng, shape, dt):
    """Keys with many ties; floats with NaNs, +-0.0 and +-inf; complex numbers of every NaN
    class (NumPy's four)."""
    dt = np.dtype(dt)
    n = int(np.prod(shape))
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind in "ui":
        return rng.integers(0 if dt.kind == "u" else -3, 4, n).astype(dt).reshape(shape)
    special = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.0])
    part = rng.integers(-2, 3, n).astype(np.float64)
    where = rng.random(n) < 0.3
    part[where] = rng.choice(special, int(where.sum()))
    if _dtypes.is_float(dt):
        return part.astype(dt).reshape(shape)
    imag = rng.integers(-2, 3, n).astype(np.float64)
    where = rng.random(n) < 0.3
    imag[where] = rng.choice(special, int(where.sum()))
    x = np.empty(n, dt)
    x.real, x.imag = part, imag
    return x.reshape(shape)


def bits(x):
    x = np.ascontiguousarray(x)
    return x.view(f"u{x.dtype.itemsize}") if x.dtype.kind != "c" else x.view(f"u{x.itemsize // 2}")


def check(x, axis=-1, descending=False):
    """prim.sort and prim.argsort of host array ``x`` against NumPy's stable order: the
    indices, the sorted keys bit for bit (NaN payloads, signs of zeros) and the layouts."""
    order = sort_order(x, axis, descending)
    got = prim.argsort(x, axis=axis, descending=descending)
    H.assert_same(got, order, what=f"argsort axis={axis} desc={descending}")
    assert to_host(got).flags.c_contiguous
    want = np.take_along_axis(
        x.reshape(-1) if axis is None else x, order, axis=-1 if axis is None else axis
    )
    got = to_host(prim.sort(x, axis=axis, descending=descending))
    assert got.dtype == x.dtype and got.shape == want.shape
    H.assert_same(bits(got), bits(want), what=f"sort axis={axis} desc={descending}")
    if not descending:  # NumPy's layout: its copy in order "K", sorted in place
        ref = np.sort(x, axis=axis, kind="stable")
        assert (got.flags.c_contiguous, got.flags.f_contiguous) == (
            ref.flags.c_contiguous,
            ref.flags.f_contiguous,
        )


def layouts(x):
    """x in the layouts a caller hands over: C, F, reversed, sliced, transposed."""
    return {
        "C": x,
        "F": np.asfortranarray(x),
        "reversed": x[(slice(None, None, -1),) * x.ndim],
        "sliced": np.concatenate([x, x], axis=0)[::2],
        "transposed": x.T,
    }


@pytest.mark.parametrize("dtype", SORT_DTYPES, ids=lambda d: d.name)
def test_dtypes_axes_layouts(dtype, rng):
    x = make(rng, (3, 7, 5), dtype)
    for name, y in layouts(x).items():
        for axis in (0, 1, -1, None):
            check(y, axis, descending=bool(rng.random() < 0.5))
    check(make(rng, (33,), dtype), 0, descending=True)
    check(make(rng, (33,), dtype), None)


def test_complex_classes():
    """NumPy's complex order: no NaN part by (real, imag); R + nan j by real; nan + R j by
    imag; nan + nan j last; -0.0 = 0.0 and NaNs of any payload and sign tied (input order)."""
    parts = [np.nan, -np.nan, -np.inf, -1.0, -0.0, 0.0, 2.0, np.inf]
    for dt in (np.complex64, np.complex128):
        x = np.empty(len(parts) ** 2, dt)
        x.real = np.repeat(parts, len(parts))
        x.imag = np.tile(parts, len(parts))
        x = np.concatenate([x, x[::-1], x[::3]])
        for desc in (False, True):
            check(x, -1, desc)
            check(x.reshape(-1, 5), 0, desc)


def test_float16_every_value():
    x = np.arange(1 << 16, dtype=np.uint16).view(np.float16)[::-7].copy()
    check(x)
    check(x, descending=True)
    h = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    b, kind, width = _keys.key_bits(h)
    assert (kind, width, _keys.key_width(h.dtype)) == (2, 32, 32)
    H.assert_same(_keys.key_back(b, h.dtype).view(np.uint16), h.view(np.uint16))


def test_bfloat16_every_value():
    """Every bfloat16 bit pattern (NaNs of both signs and every payload, +-0.0, subnormals):
    NumPy's stable order (ml_dtypes' comparisons) bit for bit, both orders, flat and in rows;
    the keys widen to the float32 numbers they are and back bit for bit."""
    x = np.arange(1 << 16, dtype=np.uint16).view(_dtypes.BFLOAT16)[::-7].copy()
    check(x)
    check(x, descending=True)
    check(x[: 37 * 250].reshape(37, 250), axis=1, descending=True)
    check(x[: 37 * 250].reshape(37, 250), axis=0)
    h = np.arange(1 << 16, dtype=np.uint16).view(_dtypes.BFLOAT16)
    b, kind, width = _keys.key_bits(h)
    assert (kind, width, _keys.key_width(h.dtype)) == (2, 32, 32)
    H.assert_same(b.view(np.float32), h.astype(np.float32))
    H.assert_same(_keys.key_back(b, h.dtype).view(np.uint16), h.view(np.uint16))


@pytest.mark.parametrize("shape", [(), (0,), (1,), (0, 3), (3, 0), (2, 0, 4), (1, 1), (4, 1)])
def test_small_and_empty(shape, rng):
    x = make(rng, shape, np.float32)
    axes = [None] if x.ndim == 0 else [None, *range(-x.ndim, x.ndim)]
    for axis in axes:
        check(x, axis)
    if x.ndim == 0:  # argsort reads a 0-d array as one element; sort refuses its axis
        H.assert_same(prim.argsort(x), np.argsort(x))
        H.assert_same(prim.argsort(x, axis=0), np.argsort(x, axis=0))
        with pytest.raises(np.exceptions.AxisError, match="sort"):
            prim.sort(x)
        with pytest.raises(np.exceptions.AxisError):
            np.sort(x)


def test_kinds_and_stable(rng):
    x = make(rng, (4, 6), np.int16)
    want = np.sort(x, kind="stable")
    for kw in (
        {"kind": "quicksort"},
        {"kind": "mergesort"},
        {"kind": "heapsort"},
        {"kind": "stable"},
        {"kind": "Q"},
        {"stable": True},
        {"stable": False},
        {"kind": None, "stable": None},
        {"order": None},
    ):
        H.assert_same(prim.sort(x, **kw), want, what=str(kw))
        H.assert_same(prim.argsort(x, **kw), np.argsort(x, kind="stable"), what=str(kw))


@pytest.mark.parametrize(
    "kw",
    [
        {"kind": "bogus"},
        {"kind": ""},
        {"kind": 3},
        {"kind": "stable", "stable": True},
        {"order": "f"},
        {"axis": 2},
        {"axis": -3},
        {"axis": 1.0},
        {"axis": "x"},
    ],
    ids=str,
)
@pytest.mark.parametrize("func", ["sort", "argsort"])
def test_errors_as_numpy(func, kw):
    x = np.arange(6.0).reshape(2, 3)
    H.run_twins(lambda xp: getattr(xp, func)(x, **kw), name=func)


def test_errors_own(rng):
    x = np.arange(4.0)
    for func in (prim.sort, prim.argsort):
        name = func.__name__
        H.raises_like(TypeError, name, func, "abc", match="a must be an array")
        H.raises_like(TypeError, name, func, np.array(["a", "b"]), match="dtype")
        H.raises_like(TypeError, name, func, x, descending=1, match="descending must be a bool")
        H.raises_like(ValueError, name, func, x, variant="bogus", match="variant")
        H.raises_like(ValueError, name, func, x, kind="x", match="sort kind")
    with pytest.raises(TypeError, match="sort"):
        prim.sort(x, keys=x)  # the first parameter is NumPy's ``a``


def test_inputs_unchanged_and_byte_order(rng):
    x = make(rng, (5, 6), np.float64)
    keep = x.copy()
    prim.sort(x, axis=0)
    prim.argsort(x.T, axis=1, descending=True)
    H.assert_same(x, keep)
    big = x.astype(">f8")
    got = prim.sort(big, axis=0)
    assert got.dtype == np.dtype(">f8")
    H.assert_same(got, np.sort(big, axis=0, kind="stable"))


# ---- lexsort -----------------------------------------------------------------------------------


def test_lexsort_keys_forms(rng):
    a = rng.integers(0, 3, 50).astype(np.uint32)
    b = rng.integers(0, 3, 50).astype(np.uint32)
    for keys in (
        [a, b],
        (b, a),
        np.stack([a, b]),
        [a],
        [[3, 1, 2]],
        [a.tolist(), b.tolist()],
        np.array([[9, 4, 0, 4, 0, 2, 1], [1, 5, 1, 4, 3, 4, 4]]),  # NumPy's example
        np.array([0.3, 0.1]),  # two 0-d keys
        rng.random((2, 4, 5)),  # keys of 2 dimensions
    ):
        H.assert_same(prim.lexsort(keys), np.lexsort(keys))
    # two 32-bit keys are one 64-bit word: one sort of (word, index) pairs
    words = _keys.pack_words([f for k in (b, a) for f in _keys.image_fields(k)])
    assert [(w.dtype, n) for w, n in words] == [(np.dtype(np.uint64), 64)]


@pytest.mark.parametrize("dtype", SORT_DTYPES, ids=lambda d: d.name)
def test_lexsort_dtypes(dtype, rng):
    """Every key dtype as the primary and the secondary key, beside keys of other widths (the
    images straddle 64-bit words)."""
    n = 77
    x = make(rng, (n,), dtype)
    others = [make(rng, (n,), d) for d in (np.int8, np.float16, np.bool_, np.uint64)]
    for keys in ([x], [others[0], x], [x, others[1]], [others[2], x, others[3], x, others[1]]):
        H.assert_same(prim.lexsort(keys), np.lexsort(keys), what=str([k.dtype for k in keys]))


def test_lexsort_axes(rng):
    a = make(rng, (4, 5, 6), np.int32)
    b = make(rng, (4, 5, 6), np.float32)
    for axis in (0, 1, 2, -1, -3):
        H.assert_same(prim.lexsort([a, b], axis=axis), np.lexsort([a, b], axis=axis))
        fa, fb = np.asfortranarray(a), np.asfortranarray(b)
        H.assert_same(prim.lexsort([fa, fb], axis=axis), np.lexsort([fa, fb], axis=axis))
        H.assert_same(prim.lexsort([fa, b.T.T], axis=axis), np.lexsort([fa, b], axis=axis))
    H.assert_same(prim.lexsort([np.array(1.0)]), np.lexsort([np.array(1.0)]))
    H.assert_same(prim.lexsort([np.ones((2, 0))]), np.lexsort([np.ones((2, 0))]))


@pytest.mark.parametrize(
    "args",
    [
        ([],),
        (np.array(1.0),),
        ([np.arange(3), np.arange(4)],),
        ([np.ones((2, 3)), np.ones(3)],),
        ([np.ones((2, 3))], None),
        ([np.ones((2, 3))], 2),
        ([np.ones((2, 3))], -3),
    ],
    ids=str,
)
def test_lexsort_errors_as_numpy(args):
    H.run_twins(lambda xp: xp.lexsort(*args), name="lexsort")


def test_lexsort_errors_own():
    H.raises_like(TypeError, "lexsort", prim.lexsort, [np.array(["a", "b"])], match="dtype")
    H.raises_like(TypeError, "lexsort", prim.lexsort, ["ab", np.arange(2)])


# ---- properties ----------------------------------------------------------------------------------


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    shape=st.lists(st.integers(0, 6), min_size=0, max_size=3),
    dtype=st.sampled_from(SORT_DTYPES),
    axis=st.integers(-3, 3) | st.none(),
    descending=st.booleans(),
    layout=st.sampled_from(["C", "F", "reversed", "sliced", "transposed"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_property(shape, dtype, axis, descending, layout, seed):
    rng = np.random.default_rng(seed)
    x = make(rng, tuple(shape), dtype)
    if x.ndim:
        x = layouts(x)[layout]
    if axis is not None and not -x.ndim <= axis < x.ndim:
        with pytest.raises(np.exceptions.AxisError):
            prim.sort(x, axis=axis, descending=descending)
        return
    check(x, axis, descending)


@pytest.mark.parametrize("shape", [(5000,), (40, 70)])
def test_lexsort_repeat_calls_take_the_filed_run(shape, monkeypatch):
    """Keys given as a tuple (or list) of 2-4 arrays of the backend's type read as they are: a
    like call runs the first call's filed run over its own keys, unchecked; the filed run holds
    none of the first call's keys; a tuple and a list are two keys."""
    from primitives._core import backend as _backend

    xp = _backend.get_backend().xp
    e = prim.lexsort.entry
    prepared, prepare = [], e.prepare
    monkeypatch.setattr(e, "prepare", lambda *a, **k: prepared.append(1) or prepare(*a, **k))
    prim.clear_caches()
    rng = np.random.default_rng(9)

    def keys():
        return (
            rng.integers(0, 5, shape).astype(np.int32),
            rng.random(shape).astype(np.float32),
            rng.integers(0, 3, shape).astype(np.uint16),
        )

    first = tuple(xp.asarray(k) for k in keys())
    prim.lexsort(first)
    ref = H.weak(first[0])
    del first
    H.assert_released(ref, "the first call's arrays (the filed run keeps none)")
    for _ in range(2):
        h = keys()
        got = prim.lexsort(tuple(xp.asarray(k) for k in h))
        np.testing.assert_array_equal(H.to_host(got), np.lexsort(h))
    assert prepared == [1]
    h = keys()
    np.testing.assert_array_equal(
        H.to_host(prim.lexsort([xp.asarray(k) for k in h])), np.lexsort(h)
    )
    assert prepared == [1, 1]  # a list: a key of its own

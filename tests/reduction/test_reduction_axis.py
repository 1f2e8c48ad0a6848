"""sum/min/max/reduce with NumPy's axis, keepdims and out (the flattened reductions are in
test_reduction.py)."""

import numpy as np
import pytest

import primitives as prim
from primitives.testing import harness as H
from primitives._core import backend as _backend, dtypes as _dtypes

FUNCS = {"sum": np.sum, "min": np.min, "max": np.max}


def _data(rng, shape, dtype, order="C"):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return np.asarray(rng.random(shape) < 0.5, order=order)
    if dt.kind == "f":
        x = rng.uniform(-1, 1, shape).astype(dt)
    else:
        x = rng.integers(-100 if dt.kind == "i" else 0, 100, shape).astype(dt)
    return np.asarray(x, order=order)


AXES = {
    2: [None, 0, 1, -1, (0, 1), (1, 0), (-2,)],
    3: [None, 0, 1, 2, -1, (0, 2), (1, 2), (0, 1, 2), (2, 0)],
}


@pytest.mark.parametrize("func", sorted(FUNCS))
@pytest.mark.parametrize("shape", [(6, 5), (1, 7), (7, 1), (3, 4, 5), (2, 1, 3)])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize(
    "dtype", [np.int32, np.float64, np.int8, np.bool_, np.float16], ids=lambda d: np.dtype(d).name
)
def test_axis_and_keepdims_equal_numpy(func, shape, order, dtype, rng):
    """Every axis form (None, int, negative, tuple in any order) with and without keepdims, on
    C- and F-ordered arrays and a strided view: values, dtype and shape as NumPy's."""
    x = _data(rng, shape, dtype, order)
    for y in (x, x[..., ::-1]):
        for axis in AXES[y.ndim]:
            for keepdims in (False, True):
                got = getattr(prim, func)(y, axis=axis, keepdims=keepdims)
                want = FUNCS[func](y, axis=axis, keepdims=keepdims)
                assert np.shape(got) == np.shape(want), (axis, keepdims)
                assert np.asarray(got).dtype == np.asarray(want).dtype
                np.testing.assert_allclose(
                    np.asarray(got, np.float64),
                    np.asarray(want, np.float64),
                    rtol=1e-2 if x.dtype == np.float16 else 1e-12,
                    atol=2e-2 if x.dtype == np.float16 else 0,
                )


def test_reduce_takes_axis(rng):
    x = _data(rng, (4, 6), np.float32)
    np.testing.assert_allclose(prim.reduce(x, "max", axis=1), x.max(axis=1))
    np.testing.assert_allclose(
        prim.reduce(x, "sum", axis=0, keepdims=True), x.sum(axis=0, keepdims=True), rtol=1e-6
    )


def test_out(rng):
    """out receives the result (cast to its dtype, as NumPy's reductions cast) and is
    returned; a full reduction into a 0-d out too."""
    x = _data(rng, (5, 3), np.int32)
    out = np.empty(3, np.int64)
    assert prim.sum(x, axis=0, out=out) is out
    assert np.array_equal(out, x.sum(axis=0))
    outf = np.empty((5, 1), np.float64)
    assert prim.max(x, axis=1, keepdims=True, out=outf) is outf
    assert np.array_equal(outf, x.max(axis=1, keepdims=True))
    y = x * 1.7
    outi = np.empty(3, np.int32)
    assert np.array_equal(prim.sum(y, axis=0, out=outi), np.sum(y, axis=0, out=np.empty_like(outi)))
    out0 = np.empty((), np.float32)
    assert prim.sum(x, out=out0) is out0 and out0 == x.sum()


def test_empty_axes():
    """A sum over a zero-length axis is zeros; a min or max raises NumPy's ValueError."""
    x = np.ones((0, 3), np.float32)
    assert np.array_equal(prim.sum(x, axis=0), np.sum(x, axis=0))
    assert prim.sum(x, axis=1).shape == (0,)
    with pytest.raises(ValueError):
        np.min(x, axis=0)
    H.raises_like(ValueError, "min", prim.min, x, axis=0)
    assert prim.max(x, axis=1).shape == (0,)


@pytest.mark.parametrize(
    "func,kw,exc",
    [
        ("sum", {"axis": 2}, np.exceptions.AxisError),
        ("min", {"axis": -3}, np.exceptions.AxisError),
        ("max", {"axis": (0, 0)}, ValueError),
        # a repeat and an axis out of range: NumPy checks every axis before the repeats
        ("sum", {"axis": (0, -2, 2)}, np.exceptions.AxisError),
        ("sum", {"axis": 0.5}, TypeError),
        ("sum", {"axis": True}, TypeError),  # NumPy refuses a bool axis
        ("min", {"axis": (0, np.True_)}, TypeError),
        ("sum", {"axis": 0, "out": np.empty(4)}, ValueError),
        ("sum", {"axis": 0, "out": np.empty((2, 3))}, ValueError),
    ],
)
def test_axis_errors(func, kw, exc):
    """NumPy's error types (a bad axis, a repeated axis, both, a non-integer axis, out of
    another shape), each message naming the function."""
    x = np.ones((2, 3), np.float64)
    with pytest.raises(exc):
        FUNCS[func](x, **kw)
    H.raises_like(exc, func, getattr(prim, func), x, **kw)


# ---- mean, any, all ---------------------------------------------------------------------------


@pytest.mark.parametrize("acc", _dtypes.REDUCE_COMPLEX_DTYPES, ids=lambda d: d.name)
def test_mean_with_dtype_divides_as_numpy(acc, rng):
    """mean(dtype=acc): the sums in ``acc`` divided by the count as NumPy's true_divide in
    ``acc`` then cast back (every pair of kernels/reduction/finish.cu's mean_divide)."""
    x = rng.integers(0, 3, (3, 7)).astype(np.int8)
    for axis in (None, 1):
        got, want = prim.mean(x, axis=axis, dtype=acc), np.mean(x, axis=axis, dtype=acc)
        assert np.asarray(got).dtype == np.asarray(want).dtype == acc
        np.testing.assert_allclose(
            np.asarray(got).astype(np.complex128), np.asarray(want).astype(np.complex128), rtol=1e-3
        )


@pytest.mark.parametrize(
    "dtype",
    [np.int8, np.int32, np.uint64, np.float16, np.float32, np.float64, np.bool_],
    ids=lambda d: np.dtype(d).name,
)
def test_mean_any_all_equal_numpy(dtype, rng):
    """mean (NumPy's accumulator and result dtypes), any and all over every axis form, with and
    without keepdims: values, dtypes and shapes (NumPy scalars for a full reduction)."""
    x = _data(rng, (4, 5, 3), dtype)
    for axis in (None, 0, (0, 2), -1):
        for keepdims in (False, True):
            got, want = (
                prim.mean(x, axis=axis, keepdims=keepdims),
                np.mean(x, axis=axis, keepdims=keepdims),
            )
            assert np.asarray(got).dtype == np.asarray(want).dtype
            assert np.shape(got) == np.shape(want) and type(got) is type(want)
            tol = {np.float16: 1e-2, np.float32: 1e-5}.get(x.dtype.type, 1e-12)
            np.testing.assert_allclose(
                np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=tol, atol=tol
            )  # float sums: another order
            for f in ("any", "all"):
                got = getattr(prim, f)(x, axis=axis, keepdims=keepdims)
                want = getattr(np, f)(x, axis=axis, keepdims=keepdims)
                assert type(got) is type(want) and np.array_equal(got, want)


def test_any_all_edge_cases():
    """NaN is true; nothing reduced gives False (any) and True (all); out receives the result."""
    assert prim.any(np.array([0.0, np.nan])) == np.any(np.array([0.0, np.nan]))
    assert np.array_equal(prim.any(np.zeros((0, 3)), axis=0), np.zeros(3, bool))
    assert np.array_equal(prim.all(np.zeros((0, 3)), axis=0), np.ones(3, bool))
    assert prim.all(np.zeros(0)) is np.all(np.zeros(0))
    out = np.empty(2, bool)
    assert prim.any(np.eye(2), axis=1, out=out) is out and out.all()


def test_mean_edge_cases():
    """An empty mean is NaN with NumPy's warning; dtype= chooses the accumulator and result;
    out receives the result; the plan equals the function."""
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        assert np.isnan(prim.mean(np.zeros(0)))
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    got = prim.mean(x, axis=0, dtype=np.float32)
    assert got.dtype == np.float32 and np.allclose(got, np.mean(x, axis=0, dtype=np.float32))
    out = np.empty(3)
    assert prim.mean(x, axis=1, out=out) is out and np.allclose(out, x.mean(axis=1))
    assert np.allclose(prim.mean.plan(x, axis=1)(x), x.mean(axis=1))


@pytest.mark.parametrize("func", ["mean", "any", "all"])
def test_mean_any_all_errors(func):
    """A string array, a bad axis and out of another shape: NumPy's error types, named."""
    H.raises_like(TypeError, func, getattr(prim, func), np.array(["a", "b"]))
    H.raises_like(np.exceptions.AxisError, func, getattr(prim, func), np.ones((2, 3)), axis=2)
    H.raises_like(ValueError, func, getattr(prim, func), np.ones((2, 3)), axis=0, out=np.empty(2))


# ---- the axis kernels (kernels/reduction/axis.cu): every op, dtype and layout ---------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from primitives import tuning  # noqa: E402
from primitives._core import launch as _launch, plans as _plans  # noqa: E402
from primitives.reduction import _axis, _kernels  # noqa: E402

OPS4 = {"sum": np.sum, "prod": np.prod, "min": np.min, "max": np.max}
ALL_DTYPES = [
    np.bool_,
    np.int8,
    np.uint8,
    np.int16,
    np.uint16,
    np.int32,
    np.int64,
    np.uint32,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
]
_DT_IDS = lambda d: np.dtype(d).name  # noqa: E731


def _op_data(rng, shape, dtype, op):
    """Data for ``op``: products of numbers near 1 (floats) or small integers (whose products
    wrap exactly as NumPy's), sums and extrema of anything."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < (0.9 if op == "prod" else 0.5)
    if dt.kind == "f":
        lo, hi = (0.7, 1.3) if op == "prod" else (-1, 1)
        return rng.uniform(lo, hi, shape).astype(dt)
    if op == "prod":
        return rng.integers(-3 if dt.kind == "i" else 1, 4, shape).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), shape, endpoint=True).astype(dt)


def _want(op, x, axis, keepdims=False):
    """NumPy's result; float16 sums and products as NumPy's dtype but computed in float64 (NumPy
    rounds float16 partial results to float16; the kernels accumulate in float32)."""
    want = OPS4[op](x, axis=axis, keepdims=keepdims)
    if x.dtype == np.float16 and op in ("sum", "prod"):
        exact = OPS4[op](x.astype(np.float64), axis=axis, keepdims=keepdims)
        want = np.asarray(exact).astype(np.float16)
    return want


def _assert_matches(got, want, x, op, axis):
    got_a, want_a = np.asarray(got), np.asarray(want)
    assert got_a.shape == want_a.shape, (op, axis, got_a.shape, want_a.shape)
    assert got_a.dtype == want_a.dtype, (op, axis, got_a.dtype, want_a.dtype)
    if want_a.dtype.kind != "f" or op in ("min", "max"):
        assert np.array_equal(got_a, want_a, equal_nan=want_a.dtype.kind == "f"), (op, axis)
        return
    # float sums and products: another order of the same operations
    scale = np.abs(x.astype(np.float64))
    mag = np.sum(scale, axis=axis) if op == "sum" else np.prod(np.maximum(scale, 1.0), axis=axis)
    rel = {np.float16: 2e-3, np.float32: 1e-5, np.float64: 1e-13}[want_a.dtype.type]
    err = np.abs(got_a.astype(np.float64) - want_a.astype(np.float64))
    bound = rel * np.asarray(mag).reshape(err.shape) + rel * np.abs(want_a.astype(np.float64))
    assert np.all(err <= bound + 1e-30), (op, axis, float(np.max(err - bound)))


_AXES_OF = {
    1: [None, 0, -1],
    2: [0, 1, -1, (0, 1)],
    3: [0, 1, 2, (0, 2), (1, 2), (0, 1), (-1, -3)],
    4: [0, 3, (1, 2), (0, 2), (1, 3), (0, 1, 3), (-4, -2, -1)],
}


def _layouts(x):
    """The array C-ordered, F-ordered, and as a strided view of a larger one."""
    yield x
    yield np.asfortranarray(x)
    big = np.concatenate([x, x], axis=-1)
    yield big[..., ::2]


@pytest.mark.parametrize("op", sorted(OPS4))
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=_DT_IDS)
def test_axis_kernels_every_op_dtype_layout(op, dtype, rng):
    """Every op x dtype over C-, F-ordered and strided 1-D..4-D arrays, every kind of axis (None,
    int, negative, tuples contiguous or not): values, result dtype and shape as NumPy's; the input
    is not modified."""
    for shape in [(7,), (5, 6), (3, 4, 5), (2, 3, 2, 3)]:
        x = _op_data(rng, shape, dtype, op)
        for y in _layouts(x):
            before = y.copy()
            for axis in _AXES_OF[len(shape)]:
                got = getattr(prim, op)(y, axis=axis)
                _assert_matches(got, _want(op, y, axis), y, op, axis)
            assert np.array_equal(y, before)


@pytest.mark.parametrize("width", [2, 3, 4, 8, 16, 32])
@pytest.mark.parametrize(
    "dtype", [np.float32, np.int8, np.float64, np.float16, np.bool_, np.uint16], ids=_DT_IDS
)
def test_short_rows(width, dtype, rng):
    """Rows of 2..32 elements (several rows per 16-byte load where they fit), from an aligned
    array and from a view starting one element in (the kernels' scalar head and fallback)."""
    base = _op_data(rng, 700 * width + 1, dtype, "sum")
    for x in (base[:-1].reshape(700, width), base[1:].reshape(700, width)):
        for op in ("sum", "max"):
            _assert_matches(getattr(prim, op)(x, axis=1), _want(op, x, 1), x, op, 1)
        y = np.asfortranarray(x)  # the same rows as columns of the reversed view
        _assert_matches(prim.sum(y, axis=1), _want("sum", y, 1), y, "sum", 1)


# ---- short rows, several per 16-byte packet (axis_rows_packed) -------------------------------

#: every input dtype that can reach axis_rows_packed (rows of 2, 4 or 8 bytes)
PACKED_DTYPES = [
    np.bool_,
    np.int8,
    np.uint8,
    np.int16,
    np.uint16,
    np.float16,
    np.int32,
    np.uint32,
    np.float32,
]
#: the layouts of the "axis" policy: packets per thread (0: the fewest making 16-byte stores),
#: adjacent loads or a warp's coalesced loads with a shuffle exchange
PACKED_POLICIES = [
    {},
    {"packed_packets": 1},
    {"packed_packets": 2},
    {"packed_packets": 4},
    {"packed_packets": 2, "packed_exchange": 1},
    {"packed_packets": 4, "packed_exchange": 1},
]


def _packed_views(rng, dtype, op, R, rows):
    """(rows, R) C-ordered backend views of one buffer, starting at each multiple of R below a
    16-byte boundary (head rows before the first boundary: every alignment of the kernel's
    packed output; ``rows`` not a multiple of any unit: tail rows) and one element past a
    boundary (the boundary inside a row: every row alone); with their NumPy twins."""
    xp = _backend.get_backend().xp
    dt = np.dtype(dtype)
    K = 16 // dt.itemsize
    host = _op_data(rng, rows * R + 2 * K, dtype, op)
    dev = xp.asarray(host)
    addr = dev.data.ptr if hasattr(dev.data, "ptr") else dev.__array_interface__["data"][0]
    first = (-addr % 16) // dt.itemsize  # the buffer's first 16-byte boundary
    for off in list(range(0, K, R)) + [1]:
        lo = first + off
        yield dev[lo : lo + rows * R].reshape(rows, R), host[lo : lo + rows * R].reshape(rows, R)


#: the ops of an overridden policy whose other ops are tested under another policy (each
#: override compiles its own emulator modules): one instantiation of each result width (the
#: accumulator's, the input's); prod and min are the same instantiations with another operator
SMALL_GRID_OPS = ("sum", "max")


@pytest.mark.parametrize("dtype", PACKED_DTYPES, ids=_DT_IDS)
def test_packed_rows_every_op_and_offset(dtype, rng):
    """Rows of 2, 4 and 8 bytes (several per 16-byte packet): every op, mean, any and all,
    keepdims; views starting at every row offset below a 16-byte boundary (non-empty head rows,
    so that the packed results start at every alignment: 16-, 8-, 4-byte or element stores) and
    inside a row; row counts leaving tail rows. Sum, max, mean, any and all on a small grid, so
    that threads loop over several batches; prod and min (the instantiations of sum and max with
    another operator; each override compiles its own emulator modules) under the default
    policy."""
    _plans.clear_caches()
    for op in sorted(set(OPS4) - set(SMALL_GRID_OPS)):
        for R in _kernels.packed_rows(np.dtype(dtype)):
            for rows in (3, 1029):
                for x, h in _packed_views(rng, dtype, op, R, rows):
                    _assert_matches(
                        H.to_host(getattr(prim, op)(x, axis=1)), _want(op, h, 1), h, op, 1
                    )
    assert "axis_rows_packed" in _kinds()
    _plans.clear_caches()
    with tuning.override("reduction", selector="axis", block=32, blocks_per_sm=1):
        for R in _kernels.packed_rows(np.dtype(dtype)):
            for rows in (3, 1029):
                for op in SMALL_GRID_OPS:
                    for x, h in _packed_views(rng, dtype, op, R, rows):
                        _assert_matches(
                            H.to_host(getattr(prim, op)(x, axis=1)), _want(op, h, 1), h, op, 1
                        )
                x, h = next(_packed_views(rng, dtype, "sum", R, rows))
                got = H.to_host(prim.max(x, axis=-1, keepdims=True))
                _assert_matches(got, _want("max", h, -1, True), h, "max", -1)
                for f in ("any", "all"):
                    got = H.to_host(getattr(prim, f)(x, axis=1, keepdims=True))
                    H.assert_same(got, getattr(np, f)(h, axis=1, keepdims=True))
                H.assert_same(
                    H.to_host(prim.mean(x, axis=1)),
                    np.mean(h, axis=1),
                    rtol=2e-3 if dtype == np.float16 else 1e-6,
                    atol=1e-3,
                )
        assert "axis_rows_packed" in _kinds()


@pytest.mark.parametrize("fields", PACKED_POLICIES, ids=str)
def test_packed_rows_layouts(fields, rng, schedule):
    """Each packed layout of the policy (1, 2 or 4 packets per thread, adjacent loads or a
    warp's coalesced loads and a shuffle exchange) gives NumPy's result: rows of 2 and 4 of
    1-, 2- and 4-byte elements into 1- to 8-byte results, every row offset, row counts that
    leave partial units (a warp's 32 * packets packets) and tail rows."""
    _plans.clear_caches()
    cases = [
        (np.float32, 2, ("sum", "max")),
        (np.int8, 2, ("sum", "min")),
        (np.int8, 4, ("max",)),
        (np.float16, 2, ("sum",)),
        (np.uint16, 4, ("prod",)),
        (np.bool_, 2, ("max",)),
    ]
    if fields:  # each override compiles its own modules on the emulator: one dtype per layout
        # beyond the default (the layouts' code does not depend on the dtype), every row length
        cases = [(np.float32, 2, ("sum",)), (np.int8, 4, ("sum",))]
    with tuning.override("reduction", selector="axis", block=32, blocks_per_sm=1, **fields):
        for dtype, R, ops in cases:
            for rows in (5, 2 * 32 * 4 * 8 + 37):
                for op in ops:
                    for x, h in _packed_views(rng, dtype, op, R, rows):
                        _assert_matches(
                            H.to_host(getattr(prim, op)(x, axis=1)), _want(op, h, 1), h, op, 1
                        )
        assert "axis_rows_packed" in _kinds()


def test_packed_rows_into_misaligned_out(rng):
    """``out=`` a view at an odd element offset receives rows of 2 and 4 (cast to its dtype)."""
    xp = _backend.get_backend().xp
    for dtype, R in ((np.float32, 2), (np.int16, 4), (np.uint8, 2)):
        for x, h in _packed_views(rng, dtype, "sum", R, 301):
            buf = xp.zeros(303, np.float64)
            out = buf[1:302]
            assert prim.sum(x, axis=1, out=out) is out
            H.assert_same(H.to_host(out), np.sum(h, axis=1).astype(np.float64), rtol=1e-6)
            assert H.to_host(buf)[0] == 0 and H.to_host(buf)[302] == 0
            kept = xp.zeros((302, 1), h.dtype)[1:]
            assert prim.min(x, axis=1, keepdims=True, out=kept) is kept
            H.assert_same(H.to_host(kept), np.min(h, axis=1, keepdims=True))


def _kinds():
    """The axis kernels of the plans made since the last call (names and grids)."""
    out = []
    for plan in list(_plans.PLANS._plans.values()):
        if isinstance(plan, _axis.AxisPlan):
            out += [s[0].kernel.name.split("<")[0] for s in plan.steps]
    return out


SPLIT_CASES = [
    ((3, 4000), 1),
    ((4000, 3), 0),
    ((2, 1500, 2), 1),
    ((600, 64), 0),
    ((2, 500, 40), 1),
    ((1, 3001), 1),
    ((4, 777, 5), (0, 1)),
]


@pytest.mark.parametrize("shape,axis", SPLIT_CASES, ids=str)
@pytest.mark.parametrize("block", [32, 64])
def test_long_rows_and_split_r(shape, axis, block, rng, schedule):
    """Few long rows or few columns: R split across blocks and a second launch over the
    partials (small blocks here so that the emulator's 4 multiprocessors need the split); every
    op on float32 and int16, one float16 sum (blocks of 64: sum and max alone, one instantiation
    of each result width, as each override compiles its own emulator modules)."""
    _plans.clear_caches()
    ops4 = OPS4 if block == 32 else SMALL_GRID_OPS
    with tuning.override("reduction", selector="axis", block=block, min_chunk=1):
        for dtype, ops in ((np.float32, ops4), (np.int16, ops4), (np.float16, ("sum",))):
            for op in ops:
                x = _op_data(rng, shape, dtype, op)
                _assert_matches(getattr(prim, op)(x, axis=axis), _want(op, x, axis), x, op, axis)
        kinds = _kinds()
    assert len(kinds) >= 2  # the partials' pass


@pytest.mark.parametrize("shape,axis", [((4000, 3), 0), ((600, 64), 0), ((2, 5000, 40), 1)])
def test_parts_in_one_wave(shape, axis, rng, schedule, monkeypatch):
    """one_wave=1: too few columns (axis_cols) cut in parts for at most one wave of the
    kernel's resident threads (its occupancy, here half the policy's blocks per SM), the
    partials then reduced: NumPy's results, and the first launch's units within the resident
    threads."""
    _plans.clear_caches()
    real = _launch.resident_grid

    def half(kernel, block, shared_mem=0, *, per_sm=None):  # registers for half the blocks
        return max(1, real(kernel, block, shared_mem, per_sm=per_sm) // 2)

    monkeypatch.setattr(_launch, "resident_grid", half)
    with tuning.override("reduction", selector="axis", block=32, min_chunk=1, one_wave=1):
        for dtype, ops in ((np.float32, ("sum", "max")), (np.int16, ("sum",))):
            for op in ops:
                x = _op_data(rng, shape, dtype, op)
                _assert_matches(getattr(prim, op)(x, axis=axis), _want(op, x, axis), x, op, axis)
        plans = [p for p in _plans.PLANS._plans.values() if isinstance(p, _axis.AxisPlan)]
        for plan in plans:
            first = plan.steps[0][0]
            assert first.kernel.name.startswith("axis_cols")
            outer, splits, inner = (int(first.args[i]) for i in (1, 4, 3))
            k = 16 // plan.route.kin.itemsize  # elements of a 16-byte packet
            units = outer * splits * (inner // k if inner % k == 0 else inner)
            per_sm = tuning.policy("reduction", "axis").blocks_per_sm
            resident = half(first.kernel, 32, per_sm=per_sm) * 32
            assert splits > 1 and units <= resident, (shape, splits, units, resident)
            # the wave filled, or the parts as short as they go (two rows)
            assert units * 2 > resident or splits * 2 >= int(first.args[2])


@pytest.mark.parametrize(
    "dtype,packets",
    [(np.float32, 2), (np.float32, 4), (np.float64, 2), (np.int8, 4), (np.int16, 2)],
)
@pytest.mark.parametrize("block", [32, 64])
def test_wide_rows_as_slabs(dtype, packets, block, rng, schedule):
    """slab_wide: rows of 2 or 4 whole 16-byte packets reduced along the other axis by blocks
    over contiguous slabs (axis_slab_wide): every op, one slab and several (outer > 1), chunks
    that split a slab across blocks (the partials reduced again), views that start 1 .. K - 1
    elements before a 16-byte boundary (the head in the last thread), element counts that
    leave a partial last packet (the tail in the thread whose packets it continues), blocks
    that reduce several slabs in turn."""
    k = 16 // np.dtype(dtype).itemsize
    inner = packets * k
    _plans.clear_caches()
    ops = ("sum", "max") if block == 64 else OPS4
    with tuning.override("reduction", selector="axis", block=block, min_chunk=1, slab_wide=4):
        for shape, axis in (((700, inner), 0), ((3, 301, inner), 1), ((41, inner), 0)):
            for op in ops:
                x = _op_data(rng, shape, dtype, op)
                _assert_matches(getattr(prim, op)(x, axis=axis), _want(op, x, axis), x, op, axis)
                for lead in (1, k - 1):  # the slab starts `lead` elements past a boundary
                    buf = np.empty(x.size + lead, dtype)
                    y = buf[lead:].reshape(shape)
                    y[...] = x
                    got = getattr(prim, op)(y, axis=axis)
                    _assert_matches(got, _want(op, y, axis), y, op, axis)
        assert "axis_slab_wide" in _kinds()
    pol = dict(block=block, min_chunk=1, slab_wide=4, blocks_per_sm=1)
    with tuning.override("reduction", selector="axis", **pol):  # blocks of several slabs each
        x = _op_data(rng, (23, 40, inner), dtype, "sum")
        _assert_matches(prim.sum(x, axis=1), _want("sum", x, 1), x, "sum", 1)


@pytest.mark.parametrize(
    "dtype,width",
    [
        (np.float32, 4),
        (np.float32, 8),
        (np.float32, 12),
        (np.int8, 32),
        (np.float64, 64),
        (np.uint16, 24),
    ],
    ids=str,
)
def test_short_rows_in_batches(dtype, width, rng, schedule):
    """Rows of whole 16-byte packets, at most one per lane: axis_rows takes VECS batches of rows
    per iteration (a small grid here, so that the emulator's threads loop over several batches
    and a partial last batch and the general loop's remainder), every op (sum and max on the
    small grid, one instantiation of each result width; prod and min, the same instantiations
    with another operator, under the default policy); a row count that leaves lanes and rows
    past the end."""
    counts = (1, 97, 4 * 128 + 3, 5000)
    _plans.clear_caches()
    for rows in counts:
        for op in sorted(set(OPS4) - set(SMALL_GRID_OPS)):
            xo = _op_data(rng, (rows, width), dtype, op)
            _assert_matches(getattr(prim, op)(xo, axis=1), _want(op, xo, 1), xo, op, 1)
    assert "axis_rows" in _kinds()
    _plans.clear_caches()
    with tuning.override("reduction", selector="axis", block=32, blocks_per_sm=1):
        for rows in counts:
            x = _op_data(rng, (rows, width), dtype, "sum")
            for op in SMALL_GRID_OPS:
                xo = _op_data(rng, (rows, width), dtype, op)
                _assert_matches(getattr(prim, op)(xo, axis=1), _want(op, xo, 1), xo, op, 1)
            off = np.empty(rows * width + 1, dtype)[1:].reshape(rows, width)  # not 16-byte aligned
            off[...] = x
            _assert_matches(prim.sum(off, axis=1), _want("sum", off, 1), off, "sum", 1)
        assert "axis_rows" in _kinds()


def test_every_kernel_kind_runs(rng, schedule):
    """Each of the four kernels serves some layout: packed short rows, lane groups per row,
    slabs (the float view of complex data: inner 2), columns (in index order and in the
    emulator's race-exposing order)."""
    _plans.clear_caches()
    for shape, axis in (((4000, 2), 1), ((300, 40), 1), ((2, 3000, 2), 1), ((300, 40), 0)):
        x = _op_data(rng, shape, np.float32, "sum")
        _assert_matches(prim.sum(x, axis=axis), _want("sum", x, axis), x, "sum", axis)
    assert set(_kinds()) == {"axis_rows_packed", "axis_rows", "axis_slab", "axis_cols"}


def test_complex_float_view(rng):
    """A complex sum over an axis is the sum of its float view (last axis of 2 kept): the slab
    kernel's inner == 2."""
    z = (rng.standard_normal((3, 2500)) + 1j * rng.standard_normal((3, 2500))).astype(np.complex64)
    parts = z.view(np.float32).reshape(3, 2500, 2)
    got = prim.sum(parts, axis=1)
    want = np.stack([z.real.astype(np.float64).sum(1), z.imag.astype(np.float64).sum(1)], -1)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)


def test_axis_empty():
    """A reduction over a zero-length axis: zeros (sum), ones (prod), NumPy's ValueError naming
    the function (min, max); zero kept positions: an empty result of NumPy's dtype."""
    x = np.ones((0, 3, 2), np.int16)
    for op in ("sum", "prod"):
        for axis in (0, (0, 2)):
            got, want = getattr(prim, op)(x, axis=axis), OPS4[op](x, axis=axis)
            assert got.dtype == want.dtype and np.array_equal(got, want)
    for op in ("min", "max"):
        H.raises_like(ValueError, op, getattr(prim, op), x, axis=0)
        got, want = getattr(prim, op)(x, axis=1), OPS4[op](x, axis=1)
        assert got.shape == want.shape == (0, 2) and got.dtype == want.dtype
    assert prim.prod(np.ones((3, 0)), axis=0).shape == (0,)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=_DT_IDS)
def test_axis_nan_propagates(dtype, rng):
    """min/max propagate NaN wherever it is (first, middle, last of a row or a column), as
    numpy.min/max; sums too."""
    for shape, axis in (((40, 300), 1), ((300, 40), 0), ((50, 2), 1), ((2, 700, 2), 1)):
        x = _op_data(rng, shape, dtype, "sum")
        flat = np.moveaxis(x, axis, -1)
        flat[0, ..., 0] = np.nan
        flat[-1, ..., -1] = np.nan
        flat[len(flat) // 2, ..., flat.shape[-1] // 2] = np.nan
        for op in ("min", "max", "sum"):
            got, want = getattr(prim, op)(x, axis=axis), OPS4[op](x, axis=axis)
            assert np.array_equal(np.isnan(got), np.isnan(want)), (op, shape)
            if op != "sum":
                assert np.array_equal(got, want, equal_nan=True)


def test_axis_overflow_wraps():
    """Integer sums and products wrap as NumPy's: int8 sums widen to int64 (no wrap), int64 and
    uint64 sums wrap, int32 with dtype=int32 wraps at 32 bits, products of int64 wrap."""
    x8 = np.full((3, 500), 127, np.int8)
    assert np.array_equal(prim.sum(x8, axis=1), np.sum(x8, axis=1))
    big = np.full((400, 3), 2**62, np.int64)
    assert np.array_equal(prim.sum(big, axis=0), np.sum(big, axis=0))
    ubig = np.full((3, 400), 2**63 + 5, np.uint64)
    assert np.array_equal(prim.sum(ubig, axis=1), np.sum(ubig, axis=1))
    x32 = np.full((5, 300), 2**30, np.int32)
    got = prim.sum(x32, axis=1, dtype=np.int32)
    assert got.dtype == np.int32 and np.array_equal(got, np.sum(x32, axis=1, dtype=np.int32))
    p = np.full((3, 70), 3, np.int64)
    assert np.array_equal(prim.prod(p, axis=1), np.prod(p, axis=1))
    u = np.full((70, 3), 255, np.uint8)
    assert np.array_equal(prim.prod(u, axis=0), np.prod(u, axis=0))


def test_axis_dtype_requests(rng):
    """``dtype=`` as NumPy: the elements cast first (int8 into float32, float32 into int32), or
    an integer result of an integer sum (equal modulo the same power of two)."""
    x = _op_data(rng, (30, 40), np.int8, "sum")
    for dt in (np.float32, np.int16, np.uint32, np.float64):
        got, want = prim.sum(x, axis=0, dtype=dt), np.sum(x, axis=0, dtype=dt)
        assert got.dtype == want.dtype and np.allclose(got, want)
    f = _op_data(rng, (30, 40), np.float32, "sum") * 50
    got, want = prim.sum(f, axis=1, dtype=np.int32), np.sum(f, axis=1, dtype=np.int32)
    assert got.dtype == want.dtype and np.array_equal(got, want)


def test_axis_plan_reused(rng):
    """A second call on a like array builds no plan."""
    x = _op_data(rng, (20, 30, 4), np.float32, "sum")
    prim.sum(x, axis=(0, 2))
    builds = _plans.cache_info()["builds"]
    y = _op_data(rng, (20, 30, 4), np.float32, "sum")
    _assert_matches(prim.sum(y, axis=(0, 2)), _want("sum", y, (0, 2)), y, "sum", (0, 2))
    assert _plans.cache_info()["builds"] == builds


@st.composite
def _cases(draw):
    ndim = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(1, 7), min_size=ndim, max_size=ndim)))
    axes = draw(st.lists(st.integers(-ndim, ndim - 1), unique_by=lambda a: a % ndim, max_size=ndim))
    axis = None if draw(st.booleans()) and not axes else tuple(axes)
    return (
        shape,
        axis,
        draw(st.sampled_from(["C", "F", "strided"])),
        draw(st.sampled_from(ALL_DTYPES)),
        draw(st.sampled_from(sorted(OPS4))),
        draw(st.integers(0, 2**32 - 1)),
        draw(st.booleans()),
    )


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(_cases())
def test_axis_property(case):
    """Random shapes, axes, orders, dtypes and ops against NumPy (keepdims too)."""
    shape, axis, order, dtype, op, seed, keepdims = case
    x = _op_data(np.random.default_rng(seed), shape, dtype, op)
    if order == "F":
        x = np.asfortranarray(x)
    elif order == "strided":
        x = np.repeat(x, 2, axis=-1)[..., ::2]
    got = getattr(prim, op)(x, axis=axis, keepdims=keepdims)
    _assert_matches(got, _want(op, x, axis, keepdims), x, op, axis)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("keepdims", [False, True])
def test_repeat_axis_call_takes_the_filed_replay(order, keepdims, rng):
    """A second call on an array like the first runs the replay filed under its call key (no
    checks) and gives the second array's result, in its layout, with keepdims (the replay itself
    without keepdims: no reshape)."""
    xp = _backend.get_backend().xp  # the path of arrays of the backend's own type
    ha = np.asarray(rng.random((6, 40)), dtype=np.float32, order=order)
    hb = np.asarray(rng.random((6, 40)), dtype=np.float32, order=order)
    lay = xp.asfortranarray if order == "F" else xp.ascontiguousarray
    a, b = lay(xp.asarray(ha)), lay(xp.asarray(hb))
    for axis in (0, 1):
        H.assert_same(
            H.to_host(prim.sum(a, axis=axis, keepdims=keepdims)),
            np.sum(ha, axis=axis, keepdims=keepdims),
            rtol=1e-5,
        )
        key = prim.sum.entry.key((a,), {"axis": axis, "keepdims": keepdims})
        # the replay itself, wrapped to reshape its result only for keepdims
        assert isinstance(_plans.PLANS.find(key), _axis.Shaped if keepdims else _axis.AxisReplay)
        H.assert_same(
            H.to_host(prim.sum(b, axis=axis, keepdims=keepdims)),
            np.sum(hb, axis=axis, keepdims=keepdims),
            rtol=1e-5,
        )


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.complex64, np.int32])
def test_repeat_mean_takes_the_filed_call(dtype, rng):
    """A whole-array mean of an array like an earlier call's replays the sum's plan and the
    division's (where the sum reads the array as it is), with NumPy's answer and result type;
    other arguments take the checked path."""
    prim.clear_caches()
    xp = _backend.get_backend().xp  # the path of arrays of the backend's own type
    hs = [(rng.random(3001) * 10).astype(dtype) for _ in range(3)]
    xs = [xp.asarray(h) for h in hs]
    first = prim.mean(xs[0])
    key = prim.mean.entry.key((xs[1],), {})
    assert _plans.PLANS.find(key) is not None  # the sum reads these dtypes as they are
    tol = 2e-3 if dtype == np.float16 else 1e-5
    for x, h in zip(xs, hs):
        got, want = prim.mean(x), np.mean(h)
        assert (
            type(got) is type(want) if xp is np else (got.shape == () and got.dtype == want.dtype)
        )
        np.testing.assert_allclose(H.to_host(got), want, rtol=tol)
    np.testing.assert_allclose(
        H.to_host(prim.mean(xs[1], keepdims=True)), np.mean(hs[1], keepdims=True), rtol=tol
    )
    assert first.dtype == np.mean(hs[0]).dtype
    np.testing.assert_allclose(prim.mean(hs[2]), np.mean(hs[2]), rtol=tol)  # NumPy in, out


@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.float16, np.float64, np.bool_])
@pytest.mark.parametrize("op", ["sum", "max"])
def test_long_rows_a_block_per_row(dtype, op, rng):
    """slab_min_packets (the reductions' "axis" policy): rows at least that many 16-byte packets
    long are reduced a block per row (axis_slab) however many rows there are; every layout and
    length (whole packets or not, shorter rows still a warp each) gives NumPy's result."""
    with prim.tuning.override("reduction", selector="axis", slab_min_packets=64):
        for shape in [(40, 4096), (5, 4099), (9, 300), (3, 2, 2050)]:
            x = _data(rng, shape, dtype)
            for order in ("C", "F"):
                a = np.asarray(x, order=order)
                axis = -1 if order == "C" else 0
                want = getattr(np, op)(a, axis=axis)
                got = getattr(prim, op)(a, axis=axis)
                tight = np.dtype(dtype).kind not in "f" or op == "max"
                H.assert_same(
                    got,
                    want,
                    rtol=0 if tight else 2e-3 if dtype == np.float16 else 1e-5,
                    atol=0 if tight else 1e-3 * a.shape[axis] ** 0.5,
                )


@pytest.mark.parametrize("slab_block", [0, 64], ids=lambda b: f"slab_block={b}")
def test_medium_rows_a_block_each(slab_block, rng):
    """Rows of slab_min_packets to slab_max_packets 16-byte packets, with rows enough for every
    resident block, are reduced one block of slab_block threads (0: the policy's block) a row,
    one block per row; shorter, longer or fewer rows take the other kernels; all as NumPy."""
    _plans.clear_caches()
    xp = _backend.get_backend().xp
    fields = dict(
        slab_min_packets=16, slab_max_packets=64, slab_block=slab_block, block=128, blocks_per_sm=1
    )
    with tuning.override("reduction", selector="axis", **fields):
        blocks = _backend.get_backend().device_info().sm_count
        cases = [
            ((blocks + 3, 256), True),
            ((2 * blocks, 250), True),
            ((blocks + 1, 63), False),
            ((blocks + 1, 600), False),
            ((2, 256), False),
        ]
        for shape, medium in cases:
            # (each override compiles its own modules on the emulator: fewer dtypes for slab 0)
            for op, dtype in (
                (("sum", np.float32), ("max", np.int16), ("sum", np.float16))
                if slab_block
                else (("sum", np.float32),)
            ):
                _plans.clear_caches()
                h = _data(rng, shape, dtype)
                got = H.to_host(getattr(prim, op)(xp.asarray(h), axis=1))
                _assert_matches(got, _want(op, h, 1), h, op, 1)
                launches = [
                    s[0]
                    for plan in list(_plans.PLANS._plans.values())
                    if isinstance(plan, _axis.AxisPlan)
                    for s in plan.steps
                ]
                one_each = [
                    la
                    for la in launches
                    if la.kernel.name.startswith("axis_slab<")
                    and la.block[0] == (slab_block or 128)
                    and la.grid[0] == shape[0]
                ]
                assert bool(one_each) == medium, (shape, op, [la.kernel.name for la in launches])


@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.float64, np.uint8])
@pytest.mark.parametrize("block", [32, 64])
def test_split_slabs_finished_in_one_launch(dtype, block, rng, schedule):
    """slab_finish: a slab split across blocks (fewer rows than resident blocks) is finished by
    the block that takes its row's last ticket, which folds the row's partials in part order:
    one launch. Every op; rows of any length (a head and a tail off the 16-byte packets),
    several rows at once, inner positions of 2 (the slot per position), the reduced axes
    coalesced; the same plan called again (the tickets left 0 for it)."""
    _plans.clear_caches()
    ops = OPS4 if block == 32 else ("sum", "max")
    pol = dict(block=block, min_chunk=1, slab_finish=1)
    with tuning.override("reduction", selector="axis", **pol):
        cases = (((3, 5001), 1), ((2, 7, 601), (1, 2)), ((4, 999, 2), 1), ((1, 4096), 1))
        for shape, axis in cases:
            for op in ops:
                for _ in range(2):  # other data through the same plan
                    x = _op_data(rng, shape, dtype, op)
                    _assert_matches(
                        getattr(prim, op)(x, axis=axis), _want(op, x, axis), x, op, axis
                    )
        plans = [p for p in _plans.PLANS._plans.values() if isinstance(p, _axis.AxisPlan)]
        assert plans and all(len(p.steps) == 1 for p in plans), [len(p.steps) for p in plans]
        assert "axis_slab_finish" in _kinds()  # (a slab of one block needs no finish)


@pytest.mark.parametrize("percent", [0, 150, 300])
def test_slab_rows_split_below_the_policys_share(percent, rng, schedule):
    """slab_split_percent: a slab's rows are split across blocks only while they number fewer
    than percent / 100 per multiprocessor (0: while at least two resident blocks a row); from
    there on one block a row in one launch. NumPy's results either way, rows of a head and a
    tail off the 16-byte packets, and the reduced axes coalesced."""
    sms = _backend.get_backend().device_info().sm_count
    pol = dict(block=32, min_chunk=1, slab_split_percent=percent, slab_finish=0)
    with tuning.override("reduction", selector="axis", **pol):
        blocks = sms * tuning.policy("reduction", "axis").blocks_per_sm
        # the fewest rows not split (0: a split needs two blocks a row)
        cut = blocks // 2 + 1 if not percent else -(-sms * percent // 100)
        for rows in (cut - 1, cut):
            for shape, axis in (((rows, 2053), 1), ((rows, 3, 701), (1, 2))):
                _plans.clear_caches()
                for op in ("sum", "max"):
                    x = _op_data(rng, shape, np.float32, op)
                    _assert_matches(
                        getattr(prim, op)(x, axis=axis), _want(op, x, axis), x, op, axis
                    )
                plans = [p for p in _plans.PLANS._plans.values() if isinstance(p, _axis.AxisPlan)]
                first = [p.steps[0][0] for p in plans]
                assert all(f.kernel.name.startswith("axis_slab<") for f in first), _kinds()
                splits = {int(f.args[4]) for f in first}
                if rows < cut:
                    assert min(splits) > 1 and all(len(p.steps) == 2 for p in plans), splits
                else:
                    assert splits == {1} and all(len(p.steps) == 1 for p in plans), splits

"""argmin/argmax against NumPy: every dtype, ties, NaN, infinities, axes, keepdims, out, errors."""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import primitives as prim
from primitives._core import launch as _launch, plans as _plans
from primitives.reduction import _arg, _kernels
from primitives.testing import harness as H

DTYPES = [
    np.dtype(d)
    for d in (
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
        ml_dtypes.bfloat16,
    )
]
FUNCS = ["argmin", "argmax"]

#: small blocks so that a few thousand elements span several blocks on the emulator
SMALL = dict(block=32, vectors=1, blocks_per_sm=2, rows_block=64, cols_block=64, warp_row_max=40)


@pytest.fixture
def small():
    with prim.tuning.override("reduction", selector="arg", **SMALL):
        yield


def _random(rng, dt, shape):
    """Values of ``dt`` with many repeats (ties), spanning the dtype's sign."""
    if dt == np.bool_:
        return rng.random(shape) < 0.3
    if dt.kind == "f":
        return (rng.integers(-20, 20, shape) / 4).astype(dt)
    lo = 0 if dt.kind == "u" else -50
    return rng.integers(lo, 50, shape).astype(dt)


def _check(x, func, **kw):
    got = getattr(prim, func)(x, **kw)
    want = getattr(np, func)(x, **kw)
    H.assert_same(got, want, what=f"{func} {x.dtype} {x.shape} {kw}")
    return got


def test_exported():
    assert prim.argmin is prim.reduction.argmin and prim.argmax is prim.reduction.argmax
    assert {"argmin", "argmax"} <= set(prim.__all__)
    from primitives._core import registry

    assert {"argmin", "argmax"} <= set(registry.family("reduction").functions)


def test_policy_has_provenance_entry():
    pol = prim.tuning.policy("reduction", "arg")
    assert pol.block % 32 == 0 and pol.rows_block % 32 == 0 and pol.cols_block % 32 == 0
    assert pol.vectors >= 1


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("n", [1, 2, 7, 33, 1000, 3001])
def test_every_dtype_default_policy(func, dt, n, rng):
    _check(_random(rng, dt, n), func)


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("n", [1, 5, 129, 2049, 4099])
def test_every_dtype_several_blocks(func, dt, n, rng, small):
    _check(_random(rng, dt, n), func)


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("offset", [1, 3, 5, 7])
def test_misaligned_start(func, offset, rng, small):
    for dt in (np.dtype(np.int8), np.dtype(np.float16), np.dtype(np.float32)):
        x = _random(rng, dt, 3000 + offset)
        _check(x[offset:], func)


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_all_equal_gives_zero(func, dt, small):
    for n in (1, 17, 2500):
        x = np.ones(n, dtype=dt)
        assert prim.argmin(x) == 0 and prim.argmax(x) == 0
        _check(x, func)


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_ties_first_occurrence(func, dt, small):
    n = 3000
    x = np.zeros(n, dtype=dt)
    ext = (
        np.ones(1, dtype=dt)[0]
        if func == "argmax"
        else (np.zeros(1, dtype=dt)[0] if dt.kind in "bu" else -np.ones(1, dtype=dt)[0])
    )
    if dt.kind in "bu" and func == "argmin":
        x[:] = 1
    for where in ([5, 6, 2999], [1500, 1501, 2900], [2999], [0, 2999], [31, 32, 33, 2000]):
        y = x.copy()
        y[where] = ext
        assert getattr(prim, func)(y) == where[0]
        _check(y, func)


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("dt", ["float16", "float32", "float64"])
@pytest.mark.parametrize("where", [[0], [7], [1234, 1235], [2999], [100, 2500]])
def test_nan_first(func, dt, where, rng, small):
    x = _random(rng, np.dtype(dt), 3000)
    x[where] = np.nan
    assert getattr(prim, func)(x) == where[0]
    _check(x, func)
    x2 = x.reshape(30, 100)
    for axis in (0, 1, -1):
        _check(x2, func, axis=axis)


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("dt", ["float16", "float32", "float64"])
def test_infinities_and_signed_zero(func, dt, small):
    dt = np.dtype(dt)
    cases = [
        [np.inf, -np.inf, 0.0, np.inf, -np.inf],
        [-np.inf] * 40,
        [np.inf] * 40,
        [0.0, -0.0, 0.0],
        [-0.0, 0.0, -0.0],
        [np.inf, np.nan, -np.inf, np.nan],
        [np.nan] * 3,
        [1.0] * 50 + [-np.inf] + [np.inf] + [1.0] * 60,
    ]
    for c in cases:
        x = np.array(c, dtype=dt)
        _check(x, func)
    big = np.full(2000, -np.inf if func == "argmax" else np.inf, dtype=dt)
    _check(big, func)  # every element equal to the identity of the combine
    big[1777] = 0
    _check(big, func)


@pytest.mark.parametrize("func", FUNCS)
def test_integer_extremes(func, small):
    for dt in DTYPES:
        if dt.kind not in "iu":
            continue
        info = np.iinfo(dt)
        x = np.full(2100, info.max if func == "argmax" else info.min, dtype=dt)
        _check(x, func)
        x[700] = info.min if func == "argmax" else info.max
        _check(x, func)
        y = np.zeros(2100, dtype=dt)
        y[[5, 1800]] = info.max if func == "argmax" else info.min
        _check(y, func)


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("dt", ["bool", "int8", "uint16", "int32", "uint64", "float16", "float64"])
@pytest.mark.parametrize(
    "shape",
    [(1,), (5,), (3, 1), (1, 4), (4, 37), (37, 4), (3, 50, 7), (2, 3, 4, 5), (6, 130), (130, 6)],
)
def test_axes(func, dt, shape, rng, small):
    x = _random(rng, np.dtype(dt), shape)
    _check(x, func)
    for axis in range(-len(shape), len(shape)):
        _check(x, func, axis=axis)
        _check(x, func, axis=axis, keepdims=True)
    _check(x, func, keepdims=True)


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("shape", [(7, 300), (300, 7), (2, 2000)])
def test_axes_default_policy(func, shape, rng):
    """Rows long and short for a warp, and columns, under the table's policy."""
    x = _random(rng, np.dtype(np.float32), shape)
    for axis in (0, 1):
        _check(x, func, axis=axis)


def _col_plans():
    return [p for p in list(_plans.PLANS._plans.values()) if isinstance(p, _arg.AxisPlan)]


@pytest.mark.parametrize("stack", [1, 2, 4])
@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("dt", DTYPES + [np.dtype(np.complex64), np.dtype(np.complex128)], ids=str)
def test_columns_in_parts(func, dt, stack, rng, monkeypatch):
    """Many columns, long enough to be cut in parts (arg_cols, then arg_cols_merge combining
    the parts' pairs in order; with ``stack``, that many of a column's parts walked by one
    block and combined in shared memory first): ties and NaNs in later parts and at their
    boundaries, the packets of columns and single columns (an odd inner, a view one element
    in), outer > 1."""
    monkeypatch.setattr(_arg, "COLS_COPY_SHARE", 2**40)  # never copied to rows, on any device
    pol = dict(SMALL, cols_block=32 * max(2, stack), cols_stack=stack)
    with prim.tuning.override("reduction", selector="arg", cols_min_chunk=8, **pol):
        for shape, axis in (((100, 512), 0), ((3, 70, 301), 1), ((2, 64, 256), -2)):
            _plans.clear_caches()
            x = _random(rng, dt, shape)
            if dt.kind == "c":
                x = x + 1j * _random(rng, np.dtype(np.float32), shape)
            # the first extreme in a later part, tied again in the next
            ext = x.max() if func == "argmax" else x.min()
            idx = [slice(None)] * x.ndim
            for row in (9, 17, 40):
                idx[axis] = row
                x[tuple(idx)] = ext
            if dt.kind in "fc":  # a NaN after the first part in some columns, two in others
                idx[axis] = 33
                x[tuple(idx)][..., ::3] = np.nan
                idx[axis] = 50
                x[tuple(idx)][..., ::5] = np.nan
            _check(x, func, axis=axis)
            plans = _col_plans()
            assert any(p.merge is not None for p in plans), "not cut in parts"
            assert any(p.stack == stack for p in plans), "not stacked"
            _check(x[..., 1:], func, axis=axis)  # single columns, unaligned


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("dt", ["float32", "uint8", "float16", "float64", "complex128"])
def test_rows_pipelined(func, dt, schedule, rng):
    """rows_pipeline: a warp per row of whole 16-byte packets (up to 32 * vectors of them)
    with the next row's loads in flight: rows filling a warp's loads or fewer (some lanes
    without packets), many rows a warp (a small grid), ties and NaNs, the last row; a view one
    element in (rows not 16-byte aligned: the row walk of arg_rows) and rows of a length that
    is not whole packets (arg_rows)."""
    dt = np.dtype(dt)
    n = 16 // dt.itemsize
    pol = dict(SMALL, rows_block=64, vectors=2, warp_row_max=4096, rows_pipeline=1)
    with prim.tuning.override("reduction", selector="arg", **pol):
        for width in (64 * n, 5 * n, n):
            _plans.clear_caches()
            x = _random(rng, dt, (701, width))
            ext = x.max() if func == "argmax" else x.min()
            x[::7, width // 2] = ext  # a tie after the first extreme in some rows
            x[::5, -1] = ext
            x[-1, 0] = ext
            if dt.kind in "fc":
                x[::11, width // 3] = np.nan
            _check(x, func, axis=1)
            names = [
                p.launch.kernel.name
                for p in list(_plans.PLANS._plans.values())
                if isinstance(p, _arg.AxisPlan)
            ]
            assert names and all(n_.startswith("arg_rows_pipe<") for n_ in names), names
            flat = np.empty(x.size + 1, dt)[1:]
            flat[...] = x.reshape(-1)
            _check(flat.reshape(x.shape), func, axis=1)  # one element in: the row walk
        _check(_random(rng, dt, (300, 3 * n + 1)), func, axis=1)  # not whole packets


def test_columns_stacked_grid_stride(schedule, rng, monkeypatch):
    """Stacked tiles on a grid of two blocks: each block walks several tiles, reusing its
    shared pairs (a barrier before the next tile's sub-parts write them)."""
    monkeypatch.setattr(_arg, "COLS_COPY_SHARE", 2**40)
    real = _launch.resident_grid

    def two(kernel, block, shared_mem=0, *, per_sm=None):  # the stacked grid asks with smem
        return 2 if shared_mem else real(kernel, block, shared_mem, per_sm=per_sm)

    monkeypatch.setattr(_launch, "resident_grid", two)
    pol = dict(SMALL, cols_block=128, cols_stack=4, cols_min_chunk=1, cols_max_splits=4)
    with prim.tuning.override("reduction", selector="arg", **pol):
        for func in FUNCS:
            _plans.clear_caches()
            x = _random(rng, np.dtype(np.float32), (64, 4, 200))
            _check(x, func, axis=1)
            _check(x, func, axis=0)
            assert all(p.stack > 1 for p in _col_plans()), "not stacked"


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("dt", ["float32", "int8", "float16", "complex128"])
def test_columns_stacked(func, dt, schedule, rng, monkeypatch):
    """arg_cols with a column's parts stacked in blocks: every part of a column in one block
    (no partials, no merge), sub-parts past the axis's end (the identity, never an index),
    the first extreme and the first NaN in each sub-part, single columns and tiles that
    overhang the columns; in index order and with the threads permuted between barriers."""
    dt = np.dtype(dt)
    monkeypatch.setattr(_arg, "COLS_COPY_SHARE", 2**40)
    for length, splits_cap, want_merge in ((64, 4, False), (9, 8, True), (13, 2, False)):
        pol = dict(SMALL, cols_block=128, cols_stack=4, cols_min_chunk=1)
        pol["cols_max_splits"] = splits_cap
        with prim.tuning.override("reduction", selector="arg", **pol):
            for shape in ((length, 96), (3, length, 40), (length, 33)):
                _plans.clear_caches()
                x = _random(rng, dt, shape)
                axis = -2
                ext = x.max() if func == "argmax" else x.min()
                idx = [slice(None)] * x.ndim
                for row in (length // 3, length - 1):  # a tie in a later sub-part
                    idx[axis] = row
                    x[tuple(idx)] = ext
                if dt.kind in "fc":
                    idx[axis] = length // 2
                    x[tuple(idx)][..., ::4] = np.nan
                    idx[axis] = length - 1
                    x[tuple(idx)][..., 1::4] = np.nan
                _check(x, func, axis=axis)
                plans = _col_plans()
                assert [p.stack for p in plans] == [min(4, splits_cap)], plans
                assert (plans[0].merge is not None) == want_merge


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("dt", ["float32", "float16", "int8", "complex64"])
def test_f_ordered_read_in_place(func, dt, rng):
    """An F-ordered array is read as its C-ordered transpose (no copy): every axis, keepdims,
    ties and NaNs, the indices C-ordered as NumPy's."""
    dt = np.dtype(dt)
    for shape in ((37, 300), (300, 37), (5, 40, 70), (3, 4, 5, 60)):
        x = _random(rng, dt, shape)
        if dt.kind == "c":
            x = x + 1j * _random(rng, np.dtype(np.float32), shape)
        if dt.kind in "fc":
            x.reshape(-1)[::97] = np.nan
        f = np.asfortranarray(x)
        for axis in range(-1, len(shape)):
            got = _check(f, func, axis=axis)
            _check(f, func, axis=axis, keepdims=True)
            assert H.to_host(got).flags.c_contiguous
    with prim.tuning.override("reduction", selector="arg", **SMALL):
        _plans.clear_caches()
        _check(np.asfortranarray(_random(rng, dt, (300, 700))), func, axis=1)


@pytest.mark.parametrize("func", FUNCS)
def test_rows_warp_and_block(func, rng):
    """Rows up to warp_row_max take a warp each, longer ones a block (both with ties)."""
    with prim.tuning.override("reduction", selector="arg", **{**SMALL, "warp_row_max": 100}):
        for length in (1, 3, 100, 101, 700):
            x = _random(rng, np.dtype(np.int16), (9, length))
            _check(x, func, axis=1)
            _check(x[:, ::-1].copy(), func, axis=-1)


@pytest.mark.parametrize("func", FUNCS)
def test_zero_dim(func):
    for v in (np.float32(3.0), np.array(2, dtype=np.int8), np.array(np.nan)):
        _check(np.asarray(v), func)
        _check(np.asarray(v), func, axis=0)
        _check(np.asarray(v), func, axis=-1)
        _check(np.asarray(v), func, keepdims=True)


@pytest.mark.parametrize("func", FUNCS)
def test_non_contiguous_and_byte_order(func, rng):
    x = _random(rng, np.dtype(np.float64), (40, 60))
    _check(x[::2, 1::3], func)
    _check(x.T, func, axis=0)
    _check(x.T, func, axis=1)
    _check(x.astype(">f8"), func)
    _check(x.astype(">i4"), func, axis=1)


@pytest.mark.parametrize("func", FUNCS)
def test_empty_axis_other_than_reduced(func):
    for shape, axis in (((0, 3), 1), ((3, 0), 0), ((2, 0, 4), 2)):
        _check(np.zeros(shape, np.float32), func, axis=axis)
        _check(np.zeros(shape, np.float32), func, axis=axis, keepdims=True)


@pytest.mark.parametrize("func", FUNCS)
def test_out(func, rng):
    x = _random(rng, np.dtype(np.float32), (6, 45))
    f, g = getattr(prim, func), getattr(np, func)
    for axis, shape, kd in (
        (0, (45,), False),
        (1, (6,), False),
        (1, (6, 1), True),
        (None, (), False),
        (None, (1, 1), True),
    ):
        for dt in (np.int64, np.int32):
            out = np.full(shape, -7, dtype=dt)
            want = g(x, axis=axis, out=np.full(shape, -7, dtype=dt), keepdims=kd)
            got = f(x, axis=axis, out=out, keepdims=kd)
            assert got is out
            H.assert_same(out, want)
    out = np.zeros(90, np.int64)[::2]  # a strided out
    f(x, axis=0, out=out)
    H.assert_same(out, g(x, axis=0))


@pytest.mark.parametrize("func", FUNCS)
def test_input_not_modified(func, rng):
    x = _random(rng, np.dtype(np.float16), (20, 33))
    x[3, 4] = np.nan
    keep = x.copy()
    getattr(prim, func)(x)
    getattr(prim, func)(x, axis=0)
    getattr(prim, func)(x, axis=1)
    H.assert_same(x, keep)


def _raises_like(func, x, **kw):
    """prim raises what NumPy raises, naming the function."""
    try:
        getattr(np, func)(x, **kw)
    except Exception as exc:  # noqa: BLE001 - the type is what is compared
        want = type(exc)
    else:
        raise AssertionError(f"numpy.{func} did not raise for {kw}")
    with pytest.raises(want) as info:
        getattr(prim, func)(x, **kw)
    return info


@pytest.mark.parametrize("func", FUNCS)
def test_empty_raises_numpys_message(func):
    for x, kw in (
        (np.zeros(0, np.float32), {}),
        (np.zeros((3, 0)), {}),
        (np.zeros((0, 3)), {"axis": 0}),
        (np.zeros((2, 0, 1)), {"axis": 1}),
        (np.zeros(0, np.int8), {"keepdims": True}),
    ):
        info = _raises_like(func, x, **kw)
        assert str(info.value) == f"{func}: attempt to get {func} of an empty sequence"


@pytest.mark.parametrize("func", FUNCS)
def test_axis_errors(func):
    x = np.arange(12.0).reshape(3, 4)
    for axis in (2, -3, (0,), (0, 1), 1.0, True, "0"):
        info = _raises_like(func, x, axis=axis)
        assert func in str(info.value)
    _raises_like(func, np.float64(1.0), axis=1)


@pytest.mark.parametrize("func", FUNCS)
def test_out_errors(func):
    x = np.arange(12.0).reshape(3, 4)
    ro = np.zeros(4, np.int64)
    ro.flags.writeable = False
    for kw in (
        {"axis": 0, "out": np.zeros(3, np.int64)},
        {"axis": 0, "out": np.zeros((1, 4), np.int64)},
        {"axis": 0, "out": np.zeros(4, np.float64)},
        {"axis": 0, "out": np.zeros(4, np.uint64)},
        {"out": np.zeros(1, np.int64)},
        {"out": np.zeros((), np.float32)},
        {"axis": 0, "out": [0, 0, 0, 0]},
        {"axis": 0, "out": ro},
    ):
        info = _raises_like(func, x, **kw)
        assert func in str(info.value)


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize(
    "bad",
    [
        np.array(["a", "b"]),
        np.array([1, "a"], dtype=object),
        np.zeros(3, "M8[s]"),
        np.zeros(3, "m8[s]"),
    ],
    ids=str,
)
def test_unsupported_dtypes_are_type_errors(func, bad):
    with pytest.raises(TypeError, match=func):
        getattr(prim, func)(bad)
    with pytest.raises(TypeError, match=func):
        getattr(prim, func)(bad, axis=0)


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("bad", [None, "abc", {1: 2}])
def test_not_an_array(func, bad):
    with pytest.raises(TypeError, match=func):
        getattr(prim, func)(bad)


@pytest.mark.parametrize("func", FUNCS)
def test_lists_and_scalars(func):
    _check(np.asarray([3, 1, 4, 1, 5, 9, 2, 6]), func)
    assert getattr(prim, func)([3, 1, 4, 1, 5]) == getattr(np, func)([3, 1, 4, 1, 5])


def test_plans_reused_and_filed(rng):
    from primitives._core.plans import PLANS

    x = rng.random(3001).astype(np.float32)
    prim.argmax(x)
    n = PLANS.info()["builds"]
    for _ in range(3):
        assert prim.argmax(x) == np.argmax(x)
        assert prim.argmax(x, axis=0) == np.argmax(x)  # one line: the same whole-array plan
        y = x[:3000].reshape(6, 500)
        H.assert_same(prim.argmin(y, axis=1), np.argmin(y, axis=1))
    assert PLANS.info()["builds"] == n + 1  # the rows plan, once
    # a call on the backend's own array type reads it as it is and files its plan under it
    # (a NumPy array on the GPU is copied first: nothing to file)
    d = prim._core.backend.get_backend().xp.asarray(x)
    assert int(prim.argmax(d)) == np.argmax(x) and PLANS.info()["builds"] == n + 1
    assert PLANS.find(prim.argmax.entry.key((d,), {})) is not None


@pytest.mark.parametrize("func", FUNCS)
def test_explicit_plan(func, rng):
    x = _random(rng, np.dtype(np.int32), 2222)
    p = prim.plan(getattr(prim, func), x)
    assert getattr(prim, func).plan(x)(x) == getattr(np, func)(x)
    for _ in range(2):
        y = _random(rng, np.dtype(np.int32), 2222)
        H.assert_same(p(y), getattr(np, func)(y))
    q = prim.plan(getattr(prim, func), x.reshape(22, 101), axis=1, keepdims=True)
    y = _random(rng, np.dtype(np.int32), (22, 101))
    H.assert_same(q(y), getattr(np, func)(y, axis=1, keepdims=True))
    with pytest.raises(np.exceptions.AxisError):
        prim.plan(getattr(prim, func), x, axis=3)
    with pytest.raises(ValueError, match="empty"):
        prim.plan(getattr(prim, func), np.zeros(0))


def test_kernel_instantiations_registered():
    from primitives._core import loader

    names = loader.registered_modules()[_kernels.ARG_SOURCE]
    for dt in DTYPES:
        c = _kernels.arg_ctype(dt)
        for kind in ("arg_flat", "arg_rows", "arg_cols"):
            assert any(n.startswith(f"{kind}<{c}, true") for n in names)
            assert any(n.startswith(f"{kind}<{c}, false") for n in names)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), dt=st.sampled_from(DTYPES), func=st.sampled_from(FUNCS))
def test_property_matches_numpy(data, dt, func):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=40))
    bf16 = dt == ml_dtypes.bfloat16  # drawn as float32 numbers, each rounded to bfloat16
    draw_dt = np.dtype(np.float32) if bf16 else dt
    if draw_dt.kind == "f":
        elems = st.floats(width=draw_dt.itemsize * 8, allow_nan=True, allow_infinity=True)
    elif dt.kind == "b":
        elems = st.booleans()
    else:
        info = np.iinfo(dt)
        elems = st.integers(int(info.min), int(info.max))
    x = data.draw(hnp.arrays(draw_dt, shape, elements=elems)).astype(dt)
    axis = data.draw(st.sampled_from([None] + list(range(-len(shape), len(shape)))))
    keepdims = data.draw(st.booleans())
    with prim.tuning.override("reduction", selector="arg", **SMALL):
        _check(x, func, axis=axis, keepdims=keepdims)


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("dt", ["uint8", "float16", "int32", "float64"])
def test_schedules(func, dt, schedule, rng, small):
    """In index order and with the threads permuted between barriers (emulator's race mode)."""
    x = _random(rng, np.dtype(dt), 2999)
    x[[1000, 2000]] = np.nan if x.dtype.kind == "f" else x[0]
    _check(x, func)
    x2 = x[:2996].reshape(428, 7)
    for axis in (0, 1):
        _check(x2, func, axis=axis)
    _check(x.reshape(1, 2999), func, axis=1)  # one long row: the whole-array kernel
    _check(x.reshape(2999, 1), func, axis=0)
    with prim.tuning.override("reduction", selector="arg", **{**SMALL, "warp_row_max": 10}):
        _check(x[:2990].reshape(13, 230), func, axis=1)  # a block per row


def test_device_input_stays_on_device(on_gpu, rng):
    if not on_gpu:
        pytest.skip("needs the CUDA backend")
    import cupy

    x = rng.random(100003).astype(np.float32)
    got = prim.argmax(cupy.asarray(x))
    assert isinstance(got, cupy.ndarray) and got.shape == () and got.dtype == np.int64
    assert int(got) == np.argmax(x)
    m = x[: 1003 * 99].reshape(1003, 99)
    got = prim.argmin(cupy.asarray(m)[:, :50], axis=1)  # a strided device view
    assert isinstance(got, cupy.ndarray)
    H.assert_same(got, np.argmin(m[:, :50], axis=1))
    out = cupy.zeros(99, dtype=cupy.int64)
    assert prim.argmax(cupy.asarray(x[: 1003 * 99]).reshape(1003, 99), axis=0, out=out) is out
    H.assert_same(out, np.argmax(x[: 1003 * 99].reshape(1003, 99), axis=0))


@pytest.mark.gpu
def test_more_than_2_31_elements(on_gpu):
    """64-bit indexing: 2^31 + 7 int8 elements, flat, by rows and by columns."""
    if not on_gpu:
        pytest.skip("needs the CUDA backend")
    import cupy

    n = 2**31 + 7
    x = cupy.zeros(n, dtype=cupy.int8)
    x[n - 3] = 5
    x[n - 2] = 5
    x[2**31 - 3] = 4  # the largest of the first 2^31, past index 2^31 - 2^30
    x[12345] = -4
    assert int(prim.argmax(x)) == n - 3
    assert int(prim.argmin(x)) == 12345
    rows = x[: 2**31].reshape(2, 2**30)
    H.assert_same(prim.argmax(rows, axis=1), np.array([0, 2**30 - 3]))
    H.assert_same(prim.argmin(rows, axis=1), np.array([12345, 0]))
    cols = x[: 2**31].reshape(2**21, 2**10)
    got = prim.argmax(cols, axis=0)
    assert int(got[(2**31 - 3) % 2**10]) == (2**31 - 3) // 2**10


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("dt", ["int8", "float16", "float32", "uint64"])
@pytest.mark.parametrize("shape", [(2, 3000), (3, 2501), (5, 1111)])
def test_few_long_rows_and_columns(func, dt, shape, rng, small):
    """A few long rows: several blocks per row (arg_flat, a grid row per row); a few long
    columns: laid out as rows first."""
    x = _random(rng, np.dtype(dt), shape)
    x[-1, -5] = x.max() if func == "argmax" else x.min()  # a tie late in the last row
    _check(x, func, axis=1)
    _check(x, func, axis=-1, keepdims=True)
    _check(x.T.copy(), func, axis=0)
    _check(x.reshape(shape[0], 1, -1), func, axis=2)
    _check(np.ascontiguousarray(np.moveaxis(x.reshape(shape[0], 1, -1), 2, 1)), func, axis=1)
    with prim.tuning.override("reduction", selector="arg", **SMALL):
        plan = _arg.axis_plan(
            prim._core.backend.get_backend(), np.dtype(dt), True, shape[0], shape[1], 1
        )
    assert plan.launch.grid[1] == shape[0]
    if shape[0] <= 3:  # the emulator's 4 multiprocessors x 2 blocks: several blocks per row
        assert plan.launch.grid[0] > 1

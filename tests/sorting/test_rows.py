"""The row sort (primitives/sorting/_rows.py, kernels/sorting/rows.cu): rows of one length, each
sorted stably on its own, against NumPy's stable sort along the last axis, at the row lengths
where its kernels meet (a lane, a warp, a block of each tile a row; device-wide past them), for
every key dtype, NaNs and signed zeros, both orders, values of every width and argsort's column
indices."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import primitives as prim
from primitives._core.dtypes import BFLOAT16
from primitives._core.policy import SHARED_MAX
from primitives.sorting import _rows, _rows_policy, sort_rows as _sort_rows
from primitives.sorting._rows import capacity, choose
from primitives.testing import harness as H
from tests.sorting.test_sort import KEY_DTYPES, bits_of, make_keys, make_values, stable_order

_POL = _rows_policy.rows()
#: the row lengths where the kernels meet, and the brief's awkward ones
LENGTHS = sorted(
    {1, 2, 31, 32, 33, 255, 256, 257, 4095, 4096, 4097, 16384, 16385}
    | {32 * _POL.warp_items, 32 * _POL.warp_items + 1}
    | {b * i + d for b, i in _POL.tiles + _POL.value_tiles for d in (0, 1)}
)


def sort_rows(backend, keys2, values2=None, *args, **kwargs):
    """The building block on arrays of the backend's memory (it takes no host arrays on a GPU):
    the test's NumPy rows moved there first."""
    xp = backend.xp
    values2 = None if values2 is None else xp.asarray(values2)
    return _sort_rows(backend, xp.asarray(keys2), values2, *args, **kwargs)


def row_order(x2, descending=False):
    """Each row's stable order (NumPy's; descending: largest first, NaNs first, ties in input
    order), as column indices."""
    return np.stack([stable_order(row, descending) for row in x2]).reshape(x2.shape)


def check_rows(x2, got, descending=False, values=None, got_values=None):
    order = row_order(x2, descending)
    want = np.take_along_axis(x2, order, axis=1)
    got = H.to_host(got)
    assert got.dtype == x2.dtype and got.shape == x2.shape
    H.assert_same(bits_of(got), bits_of(want), what="keys")
    if values is not None:
        H.assert_same(H.to_host(got_values), np.take_along_axis(values, order, axis=1))


def keys2(rng, rows, m, dt, dups=False):
    return make_keys(rng, rows * m, dt, dups=dups).reshape(rows, m)


@pytest.mark.parametrize("m", LENGTHS)
def test_rows_at_the_edges(m, rng, backend):
    """A few rows of each length: keys alone, 8-byte values, 4-byte values and argsort's
    indices, both orders, a key dtype per length (all of them over the lengths)."""
    rows = 3 if m <= 4097 else 2
    for j, desc in enumerate((False, True)):
        dt = KEY_DTYPES[(LENGTHS.index(m) + 5 * j) % len(KEY_DTYPES)]
        x = keys2(rng, rows, m, dt, dups=j == 1)
        check_rows(x, sort_rows(backend, x, descending=desc), desc)
        v = make_values(rng, x.size, (np.float64, np.int32)[j]).reshape(x.shape)
        k, got_v = sort_rows(backend, x, v, descending=desc)
        check_rows(x, k, desc, v, got_v)
        idx = sort_rows(backend, x, descending=desc, indices=True)
        assert idx.dtype == np.int64
        H.assert_same(H.to_host(idx), row_order(x, desc))


@pytest.mark.parametrize(
    "dt", KEY_DTYPES + (np.dtype(np.bool_), np.dtype(np.float16), BFLOAT16), ids=str
)
@pytest.mark.parametrize("m", [7, 32, 100, 700])
def test_every_key_dtype_in_every_kernel(dt, m, rng, backend, schedule):
    """Every key dtype through the lane, warp and block kernels (rows of 7, 32, 100 and 700),
    with duplicates, NaNs, -0.0 and values of 1 byte (gathered through the column indices)."""
    rows = 5
    if dt == np.bool_:
        x = rng.random((rows, m)) < 0.5
    else:
        x = keys2(rng, rows, m, dt, dups=m % 2 == 1)
    v = make_values(rng, x.size, np.int8).reshape(x.shape)
    for desc in (False, True):
        check_rows(x, sort_rows(backend, x, descending=desc), desc)
        k, got_v = sort_rows(backend, x, v, descending=desc)
        check_rows(x, k, desc, v, got_v)


def test_float_specials_in_one_row(backend):
    """NaNs of both signs and payloads last (first descending), -0.0 and 0.0 equal in input
    order, infinities and subnormals in place: bit for bit NumPy's stable sort."""
    for dt in (np.float16, BFLOAT16, np.float32, np.float64):
        u = np.dtype(f"u{np.dtype(dt).itemsize}")
        nan2 = np.array([np.nan], dt).view(u) | u.type(1)  # another payload
        row = np.array(
            [np.nan, -0.0, 1.0, 0.0, -np.inf, -np.nan, np.inf, -0.0, 0.0, -1.0, 5e-324, -6e-8],
            dtype=np.float64,
        ).astype(dt)
        row = np.concatenate([row, nan2.view(dt), row[::-1]])
        for m_rows in (row[None, :], np.tile(row, 24)[None, :], np.tile(row, 300)[None, :]):
            for desc in (False, True):
                check_rows(m_rows, sort_rows(backend, m_rows, descending=desc), desc)


def test_kernel_of_each_length():
    """A lane a key up to 32 keys, a warp a row up to its 32 * warp_items, then the smallest
    block tile that holds the row, and none (device-wide) past the largest."""
    assert choose(1, 4, 0, 4, _POL)[0] == "lanes" and choose(32, 8, 0, 4, _POL)[0] == "lanes"
    assert choose(33, 4, 0, 4, _POL)[0] == "warp"
    assert choose(32 * _POL.warp_items, 4, 0, 4, _POL)[0] == "warp"
    first = _POL.tiles[0]
    assert choose(32 * _POL.warp_items + 1, 4, 0, 4, _POL)[:2] == ("block", first)
    for vm, tiles in ((_rows.VM_NONE, _POL.tiles), (_rows.VM_IOTA, _POL.value_tiles)):
        for small, big in zip(tiles, tiles[1:]):
            assert choose(small[0] * small[1] + 1, 4, vm, 8, _POL)[:2] == ("block", big)
    top = capacity(4)
    assert top == 16384 and choose(top + 1, 4, 0, 4, _POL) is None
    for kb in (1, 2, 4, 8):
        for vm, vb in _rows.VCFGS:
            kind, shape, smem = choose(capacity(kb, vm, vb), kb, vm, vb, _POL)
            assert smem <= SHARED_MAX
            assert _rows.kernel_name(kind, kb, vm, vb, shape, _POL) in _rows.NAMES


def test_policy_override_compiles_its_own_kernels(rng, backend):
    """Other shapes (a tuning experiment): a block of 512 x 2, no warp kernel, ballots."""
    x = keys2(rng, 3, 900, np.float32)
    tiles = ((512, 2), (256, 8))
    with prim.tuning.override(
        "sorting_rows", warp_items=1, tiles=tiles, value_tiles=tiles, resident=512, match=0
    ):
        assert choose(900, 4, 0, 4, _rows_policy.rows())[:2] == ("block", (512, 2))
        assert choose(40, 4, 0, 4, _rows_policy.rows())[:2] == ("block", (512, 2))
        check_rows(x, sort_rows(backend, x))
        idx = sort_rows(backend, x, descending=True, indices=True)
        H.assert_same(H.to_host(idx), row_order(x, True))


def test_policy_refuses_bad_tiles():
    for tiles in (((128, 8),), ((256, 8), (256, 4)), ((1024, 128),), ()):
        with pytest.raises(ValueError, match="tiles"):
            with prim.tuning.override("sorting_rows", value_tiles=tiles):
                pass


def test_views_empty_rows_and_inputs_kept(rng, backend):
    xp = backend.xp
    x = keys2(rng, 6, 40, np.int32)
    dx = xp.asarray(x)
    view = dx[::2, 3:37]  # neither C-contiguous nor a whole row
    check_rows(x[::2, 3:37], sort_rows(backend, view))
    H.assert_same(H.to_host(dx), x)  # not modified
    assert sort_rows(backend, xp.zeros((0, 5), np.float32)).shape == (0, 5)
    assert sort_rows(backend, xp.zeros((4, 0), np.float32), indices=True).shape == (4, 0)
    with pytest.raises(TypeError, match="sort_rows"):
        sort_rows(backend, xp.zeros((2, 2), np.complex64))
    with pytest.raises(TypeError, match="sort_rows"):
        sort_rows(backend, dx, dx, indices=True)


@settings(deadline=None, max_examples=15, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    dt=st.sampled_from(KEY_DTYPES),
    m=st.integers(1, 600),
    rows=st.integers(1, 4),
    desc=st.booleans(),
)
def test_hypothesis_rows(data, dt, m, rows, desc):
    from primitives._core import backend as _backend

    be = _backend.get_backend()
    seed = data.draw(st.integers(0, 2**31))
    x = keys2(np.random.default_rng(seed), rows, m, dt, dups=seed % 2 == 0)
    check_rows(x, sort_rows(be, x, descending=desc), desc)
    H.assert_same(H.to_host(sort_rows(be, x, descending=desc, indices=True)), row_order(x, desc))

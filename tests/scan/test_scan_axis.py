"""Scans along an axis of an N-D array (kernels/scan/axis.cu through primitives/scan/_axis.py):
every axis of C-, F-ordered and strided arrays against NumPy's accumulate, inclusive and
exclusive, the row and column kernels, their split paths (the rows' chunk totals, the columns'
single-pass look-back and its protocol on hand-made states), wraparound and NaN."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import primitives as prim
from primitives._core import backend as _backend, loader as _loader, lookback as _lookback
from primitives._core import plans as _plans
from primitives.scan import _axis
from primitives.testing import harness as H
from primitives.testing.harness import to_host

UFUNC = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum}
REAL = [np.int32, np.int64, np.uint32, np.uint64, np.float32, np.float64]


def ident(op, dt):
    dt = np.dtype(dt)
    if op == "sum":
        return dt.type(0)
    if op == "prod":
        return dt.type(1)
    if dt.kind == "b":
        return dt.type(op == "min")
    if dt.kind == "f":
        return dt.type(np.inf if op == "min" else -np.inf)
    info = np.iinfo(dt)
    return dt.type(info.max if op == "min" else info.min)


def reference(x, op, axis, exclusive=False, dtype=None):
    """NumPy's scan along ``axis`` (``ufunc.accumulate``; cumsum's default dtypes for sums), and
    for ``exclusive`` the same shifted one place along the axis with the identity first."""
    if dtype is None:
        widen = {"sum": np.cumsum, "prod": np.cumprod}.get(op)
        dtype = widen(np.zeros(1, x.dtype)).dtype if widen else x.dtype
    with np.errstate(over="ignore", invalid="ignore"):
        want = UFUNC[op].accumulate(x.astype(dtype), axis=axis, dtype=dtype)
    if not exclusive:
        return want
    m = np.moveaxis(want, axis, -1)
    first = np.full(m.shape[:-1] + (1,), ident(op, dtype), dtype=dtype)
    return np.moveaxis(np.concatenate([first, m[..., :-1]], axis=-1), -1, axis)


def scan(x, op, axis, exclusive, dtype=None):
    f = prim.exclusive_scan if exclusive else prim.inclusive_scan
    return f(x, op, axis=axis, dtype=dtype)


def values(rng, shape, dtype):
    """Small integer values (exact sums in any dtype), some negative for signed dtypes."""
    dt = np.dtype(dtype)
    lo = 0 if dt.kind == "u" else -9
    return rng.integers(lo, 10, shape).astype(dt)


def layouts(x):
    """The array as C-ordered, F-ordered and a strided view with the same shape."""
    big = np.zeros(tuple(2 * s for s in x.shape), dtype=x.dtype)
    view = big[tuple(slice(None, None, 2) for _ in x.shape)]
    view[...] = x
    return {"C": np.ascontiguousarray(x), "F": np.asfortranarray(x), "strided": view}


def check_all_axes(x, op, exclusive, dtype=None):
    for name, y in layouts(x).items():
        for axis in range(-y.ndim, y.ndim):
            got = scan(y, op, axis, exclusive, dtype)
            want = reference(y, op, axis, exclusive, dtype)
            assert got.shape == want.shape and got.dtype == want.dtype, (name, axis)
            H.assert_same(got, want)


SHAPES = [(3, 5), (4, 1), (1, 7), (2, 3, 4), (2, 1, 3, 5), (3, 37), (37, 3, 2)]


@pytest.mark.parametrize("dtype", REAL, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", ["sum", "min", "max", "prod"])
@pytest.mark.parametrize("exclusive", [False, True], ids=["inclusive", "exclusive"])
def test_every_axis_every_layout(dtype, op, exclusive, rng):
    for shape in SHAPES:
        x = values(rng, shape, dtype)
        if op == "prod":  # keep products small: mostly ones
            x = np.where(rng.random(shape) < 0.8, 1, x).astype(dtype)
        check_all_axes(x, op, exclusive)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32], ids=lambda d: np.dtype(d).name)
def test_cumsum_widens_and_keeps_32_bits(dtype, rng):
    x = values(rng, (5, 9, 3), dtype)
    for axis in (0, 1, 2):
        got = prim.cumsum(x, axis=axis)
        assert got.dtype == np.cumsum(x, axis=axis).dtype
        H.assert_same(got, np.cumsum(x, axis=axis))
        H.assert_same(prim.cumsum(x, axis=axis, dtype=dtype), np.cumsum(x, axis=axis, dtype=dtype))


@pytest.mark.parametrize(
    "shape,axis",
    [
        ((3, 1), 1),
        ((1, 1), 0),
        ((2, 1, 3), 1),
        ((5, 1), 0),
        ((1, 6), 1),  # lengths 1
        ((3, 513), 1),
        ((2, 1031), 1),
        ((4, 2049), 1),
        ((3, 640), 1),  # rows over several tiles
        ((7, 33), 1),
        ((2, 31), 1),  # odd rows: unaligned, scalar tiles
        ((515, 3), 0),
        ((129, 7), 0),
        ((33, 8), 0),
        ((9, 2, 5), 0),
        ((300, 12), 0),  # columns
    ],
    ids=str,
)
@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.int64], ids=lambda d: np.dtype(d).name)
def test_awkward_sizes(shape, axis, dtype, schedule, rng):
    """Lengths 1, rows over several warp tiles with a partial last one, unaligned rows,
    columns of widths that do and do not fill 16-byte vectors; in index order and with the
    threads permuted between barriers (a missing __syncwarp shows)."""
    x = values(rng, shape, dtype)
    for exclusive in (False, True):
        for op in ("sum", "max"):
            H.assert_same(scan(x, op, axis, exclusive), reference(x, op, axis, exclusive))


def plan_of(shape, axis, dtype, op="sum"):
    dt = np.dtype(dtype)
    res = np.cumsum(np.zeros(1, dt)).dtype if op == "sum" else dt
    outer, L, inner = _axis.layout(shape, axis)
    return _axis.axis_plan(_backend.get_backend(), (dt, res, res, op), False, outer, L, inner)


@pytest.mark.parametrize(
    "shape,axis",
    [
        ((3, 2000), 1),
        ((2, 1, 1500), 2),
        ((1500, 4), 0),
        ((2, 700, 6), 1),
        ((2100, 1), 0),
        ((1001, 5), 0),
    ],
    ids=str,
)
@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.uint64], ids=lambda d: np.dtype(d).name)
def test_split_path(shape, axis, dtype, schedule, rng):
    """Few long lines split into chunks (rows: a chunk-total pass and the scan seeded by the
    earlier chunks' totals; columns: the single-pass look-back over tiles of rows): small chunks
    on the emulator through a tuning override."""
    x = values(rng, shape, dtype)
    with prim.tuning.override("scan", selector="axis", split_per_sm=4096, min_chunk=64):
        assert plan_of(shape, axis, dtype).chunks > 1
        for exclusive in (False, True):
            for op in ("sum", "min", "max"):
                H.assert_same(scan(x, op, axis, exclusive), reference(x, op, axis, exclusive))
    with prim.tuning.override("scan", selector="axis", split_per_sm=0):
        assert plan_of(shape, axis, dtype).chunks == 1  # no thread target: no split


# ---- the single-pass column scan (axis_cols_lookback) --------------------------------------------


def column_plan(shape, axis, dtype, op="sum"):
    p = plan_of(shape, axis, dtype, op)
    assert p.state is not None and p.chunks > 1, "expected the single-pass column scan"
    return p


@pytest.mark.parametrize(
    "shape,axis,tile_bytes",
    [
        ((300, 8), 0, 64),  # 2 or 4 groups: many chunks of a group in one tile (strided scan)
        ((257, 5), 0, 16),  # 5 scalar columns (G does not divide the tile), chunks across tiles
        ((3, 41, 7), 1, 64),  # outer > 1, scalar columns, a short last chunk
        ((45, 96), 0, 64),  # 24 groups of 4 int32 (G < BLOCK), 48 of 2 float64 (G > BLOCK)
        ((70, 160), 0, 16),  # G = 40 or 80 > BLOCK: a unit per group per tile, tiles across chunks
        ((33, 2, 64), 0, 64),  # G = 32 == BLOCK for int32; a last chunk of one row
        ((19, 300), 0, 16),  # G = 75 or 150, one row per tile for int32
        ((2, 37, 130), 1, 64),  # 130 % 4 != 0: scalar columns, G = 260, a short last chunk
    ],
    ids=str,
)
@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.uint64], ids=lambda d: np.dtype(d).name)
def test_single_pass_columns(shape, axis, tile_bytes, dtype, schedule, rng):
    """Many chunks per column (tiles of 32 threads of a few rows), groups fewer or more than a
    tile's threads (the strided block scan, a unit per group per tile), columns that do not fill
    16-byte vectors, short last chunks, every op (tiles of 16 bytes: sum and max, one
    instantiation of each result dtype; prod and min are the same instantiations with another
    operator, and each tile size compiles its own emulator modules), inclusive and exclusive; in
    index order and with the threads permuted between barriers."""
    x = values(rng, shape, dtype)
    with prim.tuning.override(
        "scan", selector="axis", block=32, tile_bytes=tile_bytes, split_per_sm=4096
    ):
        column_plan(shape, axis, dtype)
        for op in ("sum", "min", "max", "prod") if tile_bytes == 64 else ("sum", "max"):
            y = np.where(rng.random(shape) < 0.9, 1, x).astype(dtype) if op == "prod" else x
            for exclusive in (False, True):
                H.assert_same(scan(y, op, axis, exclusive), reference(y, op, axis, exclusive))


@pytest.mark.parametrize("ahead", [1, 3, 1000])
def test_single_pass_columns_prefetch(ahead, schedule, rng):
    """tile_prefetch: each block's hint for the tile drawn ``ahead`` ids later (past the last
    tile for some, or all) leaves the results as they are: strided and unit-per-group tiles,
    scalar columns, outer > 1 (the hint's own span is the GPU's; here its arithmetic runs)."""
    with prim.tuning.override(
        "scan", selector="axis", block=32, tile_bytes=16, split_per_sm=4096, tile_prefetch=ahead
    ):
        for shape, axis in (((300, 8), 0), ((70, 160), 0), ((2, 37, 130), 1)):
            x = values(rng, shape, np.int32)
            p = column_plan(shape, axis, np.int32)
            assert int(p.scan.args[-2]) == ahead
            for exclusive in (False, True):
                H.assert_same(scan(x, "sum", axis, exclusive), reference(x, "sum", axis, exclusive))


@pytest.mark.parametrize("dtype", [np.int32, np.uint32], ids=lambda d: np.dtype(d).name)
def test_single_pass_columns_store_exchange(dtype, schedule, rng):
    """tile_store_exchange: results of two 16-byte words a thread (int32 and uint32 summed into
    64 bits) stored a warp's row at a time through shared memory where the warp's units are
    consecutive groups of one chunk and slab, each thread its own words elsewhere (tiles across
    chunks and slab ends, a short last chunk): NumPy's results either way. (Narrower integers
    are widened before the scan: their rows are 16 bytes a thread.)"""
    with prim.tuning.override(
        "scan", selector="axis", block=32, tile_bytes=32, split_per_sm=4096, tile_store_exchange=1
    ):
        for shape, axis in (((70, 160), 0), ((3, 50, 256), 1), ((41, 512), 0)):
            x = values(rng, shape, dtype)
            column_plan(shape, axis, dtype)
            for op in ("sum", "max"):
                for exclusive in (False, True):
                    got, want = scan(x, op, axis, exclusive), reference(x, op, axis, exclusive)
                    H.assert_same(got, want)


@pytest.mark.parametrize(
    "dtype",
    [np.complex64, np.complex128, np.float16, np.int8, np.bool_],
    ids=lambda d: np.dtype(d).name,
)
def test_single_pass_columns_other_dtypes(dtype, rng):
    """Complex (scalar columns; sums as float pairs, products direct) and the converted narrow
    dtypes through the single-pass column scan."""
    shape = (150, 6)
    x = values(rng, shape, np.int8)
    if np.dtype(dtype).kind == "c":
        x = (x + 1j * values(rng, shape, np.int8)).astype(dtype)
    else:
        x = (x % 2).astype(dtype) if dtype == np.bool_ else x.astype(dtype)
    with prim.tuning.override("scan", selector="axis", block=32, tile_bytes=16, split_per_sm=4096):
        for exclusive in (False, True):
            H.assert_same(scan(x, "sum", 0, exclusive), reference(x, "sum", 0, exclusive))
        units = [1, -1, 1j, -1j] if np.dtype(dtype).kind == "c" else [1, 1, 1, -1, 0]
        small = rng.choice(units, shape)  # products of these are exact in every dtype
        small = (small != 0) if dtype == np.bool_ else small.astype(dtype)
        H.assert_same(prim.cumprod(small, axis=0), np.cumprod(small, axis=0))
        if np.dtype(dtype).kind != "c":
            for op in ("min", "max"):
                H.assert_same(scan(x, op, 0, True), reference(x, op, 0, True))


def test_single_pass_columns_by_default(rng):
    """Few columns take the single-pass scan under the policy in force; many do not."""
    pol = prim.tuning.policy("scan", "axis")
    sms = _backend.get_backend().device_info().sm_count
    few = max(1, pol.split_per_sm * sms // 4 - 1)  # groups of 4 int32 columns, under the target
    x = values(rng, (3 * pol.tile_rows(np.dtype(np.int32), 4) + 1, 4 * few), np.int32)
    assert column_plan(x.shape, 0, np.int32).chunks == 4
    H.assert_same(prim.cumsum(x, axis=0), np.cumsum(x, axis=0))
    assert plan_of((40, 4 * pol.split_per_sm * sms), 0, np.int32).state is None


def test_single_pass_epochs(rng):
    """Repeated calls take a new epoch each (the status words are never cleared); at the epoch
    limit the words are cleared and the epochs start again."""
    x = values(rng, (100, 12), np.int64)
    want = np.cumsum(x, axis=0)
    with prim.tuning.override("scan", selector="axis", block=32, tile_bytes=16, split_per_sm=4096):
        plan = column_plan(x.shape, 0, np.int64)
        for _ in range(3):
            H.assert_same(prim.cumsum(x, axis=0), want)
        assert plan.epoch >= 3
        plan.epoch = _lookback.EPOCH_LIMIT - 2
        for _ in range(3):
            H.assert_same(prim.cumsum(x, axis=0), want)
        assert 1 <= plan.epoch <= 3
        assert int(to_host(plan.counter)[0]) == 0  # the last tile left the counter at 0


# the look-back walk (cols_lookback) on hand-made column states: predecessors that published
# only aggregates, a path that blocks running in index order (the emulator) never take
PROBE = r"""
#include "scan/axis.cu"
// PEEK: the nearest status read first, as axis_cols_lookback does for G >= BLOCK
template <int V, bool PEEK>
__global__ void cols_lookback_probe(unsigned char* state, long long units, unsigned epoch,
                                    long long u, long long G, long long tile_units,
                                    long long* out) {
    typedef prim::Sum<long long> Op;
    const prim::axis::ColStatus<long long, V> st(state, units, epoch);
    long long prefix[V];
    for (int k = 0; k < V; ++k) prefix[k] = Op::identity();
    const unsigned kind = PEEK ? st.load(u - G, prefix) : 0u;
    prim::axis::cols_lookback<long long, Op, V>(st, u - G, G, tile_units, kind, prefix, Op());
    for (int k = 0; k < V; ++k) out[k] = prefix[k];
}
"""


def _probe_kernel(name):
    return H.probe_kernel(PROBE, name)
    from primitives._core import emulator as _emulator

    mod = _emulator.compile_module(
        PROBE, [name], include_dirs=[str(_loader.kernels_root())], cache_key=_loader.tree_hash()
    )
    return mod.get_function(name)


def _column_state(agg, kinds, G, B, epoch):
    """ColStatus<long long, V> state of units with aggregates ``agg`` ((units, V)) in tiles of
    ``B`` units: each group's last unit in a tile has status ``kinds[u]`` (1: its op-sum over the
    group's units of its tile up to it, 2: its inclusive prefix); every other word is of an older
    epoch. Values never to be read are garbage."""
    units, v = agg.shape
    row = -(-v * 8 // 16) * 16 // 8  # int64s per 16-byte-aligned row
    status = np.full(-(-units // 4) * 4, ((epoch - 1) << 2) | 2, np.uint32)
    aggs = np.full((units, row), 0x5A5A5A5A, np.int64)
    incs = np.full((units, row), 0x5A5A5A5A, np.int64)
    for u in range(units):
        if u % B + G < B or u + G >= units:
            continue  # not a group's last unit in its tile, or the line's last chunk
        tile_first = u - G * ((u % B) // G)
        status[u] = (epoch << 2) | kinds[u]
        aggs[u, :v] = agg[tile_first : u + 1 : G].sum(axis=0)
        incs[u, :v] = agg[u % G : u + 1 : G].sum(axis=0)
    state = np.concatenate(
        [status.view(np.uint8), aggs.view(np.uint8).ravel(), incs.view(np.uint8).ravel()]
    )
    assert state.nbytes == _axis.state_bytes(units, v, np.dtype(np.int64))
    return state


@pytest.mark.parametrize("peek", [False, True], ids=["", "peek"])
@pytest.mark.parametrize("v", [1, 2])
@pytest.mark.parametrize("G,B", [(1, 8), (3, 8), (5, 8), (8, 8), (11, 8), (40, 8)], ids=str)
@pytest.mark.parametrize("pattern", ["all_aggregate", "inclusive_first", "mixed"])
def test_cols_lookback(G, B, pattern, v, peek, rng):
    """A unit's exclusive prefix from the statuses of its group's earlier tiles: aggregates
    only (back to the tile holding chunk 0, which publishes its inclusive prefix), an inclusive
    prefix in the nearest tile, or a mix; groups fewer than, as many as and more than a tile's
    units, 16-byte rows of one and two values; the walk from nothing read, or from the nearest
    status already read and folded (the kernel's first read for G >= BLOCK)."""
    xp = _backend.get_backend().xp
    epoch, chunks = 7, 30
    units = chunks * G
    agg = rng.integers(-1000, 1000, (units, v)).astype(np.int64)
    kinds = np.ones(units, np.uint32)
    kinds[:G] = 2  # chunk 0 is always an inclusive prefix; a tile's group that starts there too
    for u in range(units):
        if u - G * ((u % B) // G) < G:
            kinds[u] = 2
    if pattern == "mixed":
        kinds[rng.random(units) < 0.3] = 2
    name = f"cols_lookback_probe<{v}, {'true' if peek else 'false'}>"
    k = _probe_kernel(name)
    lookers = [u for u in range(G, units) if u % B < G]  # a group's first unit in its tile
    for u in sorted(set(lookers[:8] + lookers[-8:] + list(rng.choice(lookers, 8)))):
        if pattern == "inclusive_first":
            kinds = np.ones(units, np.uint32)
            kinds[u - G] = 2
            for w in range(units):
                if w - G * ((w % B) // G) < G:
                    kinds[w] = 2
        state = xp.asarray(_column_state(agg, kinds, G, B, epoch))
        out = xp.zeros(v, np.int64)
        k(
            (1,),
            (1,),
            (state, np.int64(units), np.uint32(epoch), np.int64(u), np.int64(G), np.int64(B), out),
        )
        want = agg[u % G : u : G].sum(axis=0)
        np.testing.assert_array_equal(to_host(out), want, err_msg=f"unit {u}")


@pytest.mark.gpu
def test_device_columns_past_2_31(on_gpu):
    """On the GPU: cumsum(axis=0) of a (2^15 + 3, 2^16) int32 array (more than 2^31 elements,
    the single-pass column scan) against cupy.cumsum on slices of columns."""
    if not on_gpu:
        pytest.skip("needs the CUDA backend")
    import cupy

    x = cupy.random.default_rng(1).integers(-100, 100, ((1 << 15) + 3, 1 << 16), dtype=np.int32)
    assert x.size > 2**31
    assert column_plan(x.shape, 0, np.int32).chunks > 1
    got = prim.cumsum(x, axis=0)
    for lo in (0, 12345, (1 << 16) - 8):
        assert cupy.array_equal(got[:, lo : lo + 8], cupy.cumsum(x[:, lo : lo + 8], axis=0))
    del got
    ex = prim.exclusive_scan(x, "max", axis=0)
    want = np.maximum.accumulate(x[:, -8:].get(), axis=0)  # CuPy has no ufunc accumulate
    assert np.array_equal(ex[1:, -8:].get(), want[:-1])


@pytest.mark.parametrize("shape,axis", [((3, 40), 1), ((2, 5, 33), 2), ((4, 64), -1)], ids=str)
@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.uint32], ids=lambda d: np.dtype(d).name)
def test_long_rows_by_segments(shape, axis, dtype, rng):
    """Rows at least segmented_min_len long are the segments of one segmented look-back scan
    (every op it has, inclusive and exclusive); 0 switches that off."""
    x = values(rng, shape, dtype)
    with prim.tuning.override("scan", selector="axis", segmented_min_len=32):
        assert plan_of(shape, axis % len(shape), dtype).segments is not None
        for exclusive in (False, True):
            for op in ("sum", "min", "max"):
                H.assert_same(scan(x, op, axis, exclusive), reference(x, op, axis, exclusive))
    with prim.tuning.override("scan", selector="axis", segmented_min_len=0):
        assert plan_of(shape, axis % len(shape), dtype).segments is None


def test_split_row_chunks_are_whole_warp_tiles():
    with prim.tuning.override(
        "scan", selector="axis", split_per_sm=4096, min_chunk=10, segmented_min_len=0
    ):
        p = plan_of((2, 5000), 1, np.int32)
        items = prim.tuning.policy("scan", "axis").items(*(np.dtype(np.int64),) * 3)
        assert p.chunks > 1 and p.chunk_len % (32 * items) == 0


def test_small_block_policy(rng):
    """Another block size (a template parameter of the row kernels) gives the same results."""
    x = values(rng, (6, 300), np.int32)
    with prim.tuning.override("scan", selector="axis", block=64, row_bytes=32, unroll=2):
        for axis in (0, 1):
            H.assert_same(prim.cumsum(x, axis=axis), np.cumsum(x, axis=axis))


@pytest.mark.parametrize(
    "dtype", [np.int32, np.uint32, np.int64, np.uint64], ids=lambda d: np.dtype(d).name
)
def test_integer_wraparound(dtype, rng):
    """Integer sums wrap modulo 2^bits as NumPy's (dtype=x.dtype keeps 32-bit sums in 32 bits)."""
    info = np.iinfo(dtype)
    x = rng.integers(info.max // 4, info.max // 2, (6, 40), dtype=dtype)
    for axis in (0, 1):
        for exclusive in (False, True):
            H.assert_same(
                scan(x, "sum", axis, exclusive, dtype=dtype),
                reference(x, "sum", axis, exclusive, dtype=dtype),
            )


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", ["min", "max"])
def test_nan_propagates(dtype, op, rng):
    """min/max propagate NaN from its position on along the axis, as minimum.accumulate."""
    x = rng.standard_normal((9, 70)).astype(dtype)
    x[rng.random(x.shape) < 0.03] = np.nan
    x[2, 0] = np.nan
    for axis in (0, 1):
        for exclusive in (False, True):
            H.assert_same(scan(x, op, axis, exclusive), reference(x, op, axis, exclusive))
    with prim.tuning.override("scan", selector="axis", split_per_sm=4096, min_chunk=16):
        H.assert_same(scan(x.T.copy(), op, 0, False), reference(x.T.copy(), op, 0, False))


def test_float_sums_close(rng):
    x = rng.standard_normal((40, 600)).astype(np.float32)
    for axis in (0, 1):
        np.testing.assert_allclose(
            prim.cumsum(x, axis=axis),
            np.cumsum(x.astype(np.float64), axis=axis),
            rtol=1e-4,
            atol=1e-4,
        )


def test_f_ordered_in_place_and_result_order(rng):
    """An F-ordered array is read as its transpose (no copy) and the result is F-ordered, as
    NumPy's; a C-ordered one gives a C-ordered result."""
    x = np.asfortranarray(values(rng, (6, 7, 5), np.int64))
    for axis in range(3):
        got, want = prim.cumsum(x, axis=axis), np.cumsum(x, axis=axis)
        H.assert_same(got, want)
        assert got.flags.f_contiguous == want.flags.f_contiguous
    c = np.ascontiguousarray(x)
    assert prim.cumsum(c, axis=1).flags.c_contiguous


def test_input_not_modified_and_plans_reused(rng):
    x = values(rng, (8, 50), np.int32)
    before = x.copy()
    _plans.PLANS.clear()
    first = prim.cumsum(x, axis=0)
    builds = _plans.PLANS.info()["builds"]
    # a call on the backend's own array type reads it as it is and files its plan under it
    # (a NumPy array on the GPU is copied first: nothing to file)
    d = _backend.get_backend().xp.asarray(x)
    H.assert_same(prim.cumsum(d, axis=0), first)
    key = prim.cumsum.entry.key((d,), {"axis": 0})
    assert isinstance(_plans.PLANS.find(key), _axis.AxisCall)
    for _ in range(3):
        H.assert_same(prim.cumsum(x, axis=0), first)
    H.assert_same(prim.cumsum(x.copy(), axis=0), first)
    assert _plans.PLANS.info()["builds"] == builds  # one plan per configuration
    np.testing.assert_array_equal(x, before)
    p = prim.plan(prim.exclusive_scan, x, "min", axis=1)
    H.assert_same(p(x), reference(x, "min", 1, True))
    f = np.asfortranarray(x)
    H.assert_same(prim.cumsum(f, axis=1), np.cumsum(x, axis=1))
    H.assert_same(prim.cumsum(f, axis=1), np.cumsum(x, axis=1))  # through the filed plan


def test_strided_views_copied_not_filed(rng):
    x = values(rng, (6, 20), np.int64)[:, ::3]
    key = prim.cumsum.entry.key((x,), {"axis": 1})
    H.assert_same(prim.cumsum(x, axis=1), np.cumsum(x, axis=1))
    assert _plans.PLANS.find(key) is None


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=lambda d: np.dtype(d).name)
def test_complex_sum_and_prod(dtype, rng):
    x = values(rng, (5, 6, 3), np.float64) + 1j * values(rng, (5, 6, 3), np.float64)
    x = x.astype(dtype)
    for axis in range(3):
        H.assert_same(prim.cumsum(x, axis=axis), np.cumsum(x, axis=axis))
        small = (np.where(rng.random(x.shape) < 0.7, 1, x)).astype(dtype)
        np.testing.assert_allclose(
            prim.inclusive_scan(small, "prod", axis=axis), np.cumprod(small, axis=axis), rtol=1e-5
        )
        got = prim.exclusive_scan(x, "sum", axis=axis)
        H.assert_same(got, reference(x, "sum", axis, True))


@pytest.mark.parametrize(
    "dtype",
    [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.float16],
    ids=lambda d: np.dtype(d).name,
)
def test_narrow_dtypes(dtype, rng):
    x = values(rng, (4, 9, 3), np.int8 if dtype != np.bool_ else np.uint8)
    x = (x % 2).astype(dtype) if dtype == np.bool_ else x.astype(dtype)
    for axis in range(3):
        H.assert_same(prim.cumsum(x, axis=axis), np.cumsum(x, axis=axis))
        for op in ("min", "max"):
            for exclusive in (False, True):
                H.assert_same(scan(x, op, axis, exclusive), reference(x, op, axis, exclusive))


def test_bad_arguments_name_the_function():
    x = np.ones((3, 4), np.float32)
    H.raises_like(ValueError, "inclusive_scan", prim.inclusive_scan, x, "mean", axis=0, match="op")
    H.raises_like(TypeError, "cumsum", prim.cumsum, x.astype(object), axis=0)
    H.raises_like(
        np.exceptions.AxisError, "exclusive_scan", prim.exclusive_scan, x, axis=2, match="axis"
    )


def test_empty_along_and_across():
    for shape, axis in (((0, 3), 0), ((3, 0), 0), ((3, 0), 1), ((2, 0, 4), 2)):
        x = np.ones(shape, np.int32)
        got = prim.cumsum(x, axis=axis)
        assert got.shape == shape and got.dtype == np.int64


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_property_matches_numpy(data):
    dtype = data.draw(st.sampled_from([np.int32, np.int64, np.uint32, np.float64]))
    shape = data.draw(hnp.array_shapes(min_dims=2, max_dims=4, min_side=1, max_side=9))
    elements = st.integers(0 if np.dtype(dtype).kind == "u" else -20, 20)
    x = data.draw(hnp.arrays(dtype, shape, elements=elements))
    order = data.draw(st.sampled_from(["C", "F", "strided"]))
    y = layouts(x)[order]
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    op = data.draw(st.sampled_from(["sum", "min", "max"]))
    exclusive = data.draw(st.booleans())
    H.assert_same(scan(y, op, axis, exclusive), reference(y, op, axis, exclusive))


def test_cumprod_along_an_axis(rng):
    x = np.where(rng.random((4, 6, 5)) < 0.7, 1, values(rng, (4, 6, 5), np.int32))
    x = x.astype(np.int32)
    for axis in range(3):
        H.assert_same(prim.cumprod(x, axis=axis), np.cumprod(x, axis=axis))


@pytest.mark.gpu
@pytest.mark.parametrize("axis", [0, 1])
def test_device_against_cupy(on_gpu, axis):
    """On the GPU: both kernels on a (2^10, 2^14) int32 array, against cupy.cumsum."""
    if not on_gpu:
        pytest.skip("needs the CUDA backend")
    import cupy

    x = cupy.random.default_rng(0).integers(-100, 100, (1 << 10, 1 << 14), dtype=np.int32)
    got = prim.cumsum(x, axis=axis)
    assert isinstance(got, cupy.ndarray)
    assert cupy.array_equal(got, cupy.cumsum(x, axis=axis))
    assert cupy.array_equal(prim.cumsum(x.T, axis=1 - axis), cupy.cumsum(x.T, axis=1 - axis))


@pytest.mark.parametrize("func", ["cumsum", "cumprod"])
def test_out_receives_the_result_cast(func, rng):
    """``out`` as NumPy's: the result's shape (1-D of the size with axis=None), cast to out's
    dtype whatever it is, returned; host or device out; through a plan too."""
    x = values(rng, (5, 7), np.int32) % 3 + 1
    for axis in (None, 0, 1, -1):
        shape = (x.size,) if axis is None else x.shape
        for dt in (np.int64, np.float64, np.int16):
            out, want = np.zeros(shape, dt), np.zeros(shape, dt)
            assert getattr(prim, func)(x, axis=axis, out=out) is out
            getattr(np, func)(x, axis=axis, out=want)
            H.assert_same(out, want)
    xp = _backend.get_backend().xp
    d = xp.zeros(x.shape, np.float32)
    assert getattr(prim, func)(xp.asarray(x), 0, None, d) is d
    H.assert_same(d, getattr(np, func)(x, 0).astype(np.float32))
    o = np.zeros(x.shape)
    p = prim.plan(getattr(prim, func), x, 1, None, o)
    assert p(x) is o
    H.assert_same(o, getattr(np, func)(x, 1).astype(np.float64))


@pytest.mark.parametrize("func", ["cumsum", "cumprod"])
@pytest.mark.parametrize("producer", ["array", "dlpack", "list"])
def test_out_scans_in_the_promotion_of_out_whatever_the_input(func, producer):
    """With out= and no dtype, NumPy scans in the promotion of out's dtype and the input's,
    read as the input will be read: a DLPack producer's dtype (which has no ``dtype`` of
    NumPy's) and a sequence's (NumPy's array of it) too. uint8 sums into a bool out add in
    uint8, so a running sum of exactly 256 wraps to 0 and reads False; the same numbers as a
    list are int64 and never wrap."""
    x = np.full(300, 2 if func == "cumsum" else 1, np.uint8)
    if func == "cumprod":
        x[[10, 20]] = 16  # the running product 256 at index 20
    arg = {"array": x, "dlpack": H.DLPackOnly(x), "list": x.tolist()}[producer]
    want = getattr(np, func)(x.tolist() if producer == "list" else x, out=np.empty(300, bool))
    assert want[127 if func == "cumsum" else 20] == (producer == "list")
    H.assert_same(getattr(prim, func)(arg, out=np.empty(300, bool)), want)


@pytest.mark.parametrize("func", ["cumsum", "cumprod"])
def test_out_errors(func):
    """A wrong shape or a read-only out: ValueError; not an array: TypeError; named, before
    any launch."""
    x = np.ones((3, 4), np.float32)
    f = getattr(prim, func)
    H.raises_like(ValueError, func, f, x, out=np.empty(11), match="out has shape")
    H.raises_like(ValueError, func, f, x, axis=0, out=np.empty(12), match="out has shape")
    H.raises_like(TypeError, func, f, x, out=[0.0] * 12, match="out must be an array")
    ro = np.empty(12)
    ro.flags.writeable = False
    H.raises_like(ValueError, func, f, x, out=ro, match="read-only")
    H.raises_like(ValueError, func, prim.plan, f, x, out=np.empty(5), match="out has shape")

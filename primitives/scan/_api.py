"""Scan family: ``inclusive_scan``, ``exclusive_scan`` and ``cumsum``.

Variants (``variant=``), each a named kernel in ``kernels/scan/scan.cu``:

====================  =============================================================================
hillis_steele         step-efficient block scan (O(n log n) work, log n steps), double-buffered;
                      multi-block by scanning the block sums and adding them back
blelloch              work-efficient up-sweep/down-sweep block scan (O(n) work), padded shared
                      indices against bank conflicts; same multi-block scheme
decoupled_lookback    single pass: each tile publishes its aggregate, looks back over its
                      predecessors' published values and writes its outputs; one read and one write
auto                  ``decoupled_lookback``
====================  =============================================================================
"""

from __future__ import annotations

import math

import numpy as np

from ._core import backend as _backend, checks as _checks, dtypes as _dtypes, launch as _launch, loader as _loader, lookback as _lookback

__all__ = ["inclusive_scan", "exclusive_scan", "cumsum", "VARIANTS"]

VARIANTS = ("hillis_steele", "blelloch", "decoupled_lookback")
OPS = _checks.OPS

_SOURCE = "scan/scan.cu"
_OP_TEMPLATE = {"sum": "prim::Sum", "min": "prim::Min", "max": "prim::Max"}
_BLOCK = {"hillis_steele": 256, "blelloch": 256}
_TILE_PER_BLOCK = {"hillis_steele": 1, "blelloch": 2}
# decoupled look-back policy: threads per block; items per thread from the accumulator's width.
# Measured on an H100 (tools/tune_scan.py, int32 and float32 at 2^28): large tiles win, as each
# tile pays one look-back and a few barriers; with the tiles' status words in separate sectors,
# 128 threads x 72 four-byte items (288 bytes each) ran at 94% of the copy rate, 128 x 64 at 93%,
# 128 x 56 at 92% (--bounds), 128 x 32 at 1.08x the copy time and 256 x 40 above it (sweep).
_LB_BLOCK = 128
_LB_BYTES = 288


def _lb_items(in_dt, acc_dt):
    """Items per thread: _LB_BYTES of the wider of input and accumulator."""
    return _LB_BYTES // max(in_dt.itemsize, acc_dt.itemsize)


def _op(op, acc_c):
    return f"{_OP_TEMPLATE[op]}<{acc_c}>"


def _name(variant, in_dt, acc_dt, op, exclusive):
    in_c, acc_c = _dtypes.CTYPES[in_dt], _dtypes.CTYPES[acc_dt]
    ex = "true" if exclusive else "false"
    if variant == "decoupled_lookback":
        items = _lb_items(in_dt, acc_dt)
        return f"scan_lookback<{in_c}, {acc_c}, {_op(op, acc_c)}, {_LB_BLOCK}, {items}, {ex}>"
    return f"scan_{variant}<{in_c}, {acc_c}, {_op(op, acc_c)}, {ex}>"


def _add_name(acc_dt, op):
    acc_c = _dtypes.CTYPES[acc_dt]
    return f"scan_add_prefix<{acc_c}, {_op(op, acc_c)}>"


def _names(variant):
    names = [_name(variant, i, a, op, ex) for i, a in _dtypes.ACC_PAIRS for op in OPS
             for ex in (False, True)]
    if variant != "decoupled_lookback":
        names += [_add_name(d, op) for d in _dtypes.NUMERIC for op in OPS]
    return names


for _v in VARIANTS:
    _loader.register(_SOURCE, _names(_v))


def _get(variant, name):
    return _loader.load(_SOURCE, _names(variant))(name)


# ---- hierarchical (classic) scans ------------------------------------------------------------


def _hierarchical(x, n, in_dt, acc_dt, op, exclusive, variant, backend):
    xp = backend.xp
    block = _BLOCK[variant]
    tile = block * _TILE_PER_BLOCK[variant]
    nblocks = _launch.cdiv(n, tile)
    out = xp.empty(n, dtype=acc_dt)
    sums = xp.empty(nblocks, dtype=acc_dt)
    k = _get(variant, _name(variant, in_dt, acc_dt, op, exclusive))
    if variant == "hillis_steele":
        smem = 2 * block * acc_dt.itemsize
    else:
        smem = (2 * block + 2 * block // 32) * acc_dt.itemsize
    _launch.launch(k, nblocks, block, (x, out, _launch.i64(n), sums), shared_mem=smem)
    if nblocks > 1:
        prefix = _hierarchical(sums, nblocks, acc_dt, acc_dt, op, True, variant, backend)
        add = _get(variant, _add_name(acc_dt, op))
        grid = _launch.cover_grid(n - tile, 256, 4, kernel=add)
        _launch.launch(add, grid, 256, (out, _launch.i64(n), prefix, _launch.i64(tile)))
    return out


# ---- single-pass decoupled look-back -------------------------------------------------------

_plans = _lookback.PlanCache()


def _lookback_scan(x, n, in_dt, acc_dt, op, exclusive, backend):
    def make():
        k = _get("decoupled_lookback", _name("decoupled_lookback", in_dt, acc_dt, op, exclusive))
        tiles = _launch.cdiv(n, _LB_BLOCK * _lb_items(in_dt, acc_dt))
        return _lookback.LookbackPlan(k, tiles, _LB_BLOCK, n, backend.xp, acc_dt.itemsize)

    plan = _plans.get((in_dt, acc_dt, op, exclusive, n, backend.stream_key()), make)
    out = backend.xp.empty(n, dtype=acc_dt)
    plan.launch(x, out, plan.n64)
    return out


def _scan(x, op, dtype, variant, exclusive, func):
    if isinstance(variant, str) and variant in ("auto", "decoupled_lookback"):
        backend = _backend.get_backend()
        direct = _checks.direct_input(x, op, dtype, backend)
        if direct is not None:
            return _lookback_scan(x, x.size, *direct, op, exclusive, backend)
    variant = _checks.check_choice(variant, VARIANTS, func=func, arg="variant",
                                   auto="decoupled_lookback")
    inp, arr, in_dt, acc_dt = _checks.op_input(x, op, dtype, func=func)
    n = arr.size
    if n == 0:
        return inp.result(inp.backend.xp.empty(0, dtype=acc_dt))
    if variant == "decoupled_lookback":
        out = _lookback_scan(arr, n, in_dt, acc_dt, op, exclusive, inp.backend)
    else:
        out = _hierarchical(arr, n, in_dt, acc_dt, op, exclusive, variant, inp.backend)
    return inp.result(out)


def inclusive_scan(x, op="sum", *, dtype=None, variant="auto"):
    """Inclusive prefix scan: ``out[i] = x[0] op x[1] op ... op x[i]``.

    Args:
        x: array of int32, int64, uint32, uint64, float32 or float64 (CuPy, NumPy, or anything with
            ``__cuda_array_interface__`` / DLPack). Any ndim: the array is flattened, as
            ``numpy.cumsum(x)`` does without ``axis``.
        op: ``"sum"``, ``"min"`` or ``"max"``.
        dtype: accumulator and result dtype. Default as NumPy's ``cumsum``: ``sum`` widens int32 to
            int64 and uint32 to uint64; ``min``/``max`` keep the input dtype. ``dtype=x.dtype``
            keeps 32-bit integer sums in 32 bits (wrapping around on overflow).
        variant: ``"hillis_steele"``, ``"blelloch"``, ``"decoupled_lookback"`` or ``"auto"``
            (= ``"decoupled_lookback"``).

    Returns:
        A 1-D array of ``x.size`` elements: CuPy for device input (no host synchronization), NumPy
        for host input.

    Raises:
        TypeError: ``x`` is not an array, or its dtype or ``dtype`` is unsupported.
        ValueError: unknown ``op`` or ``variant``.

    Integer scans are exact modulo 2^bits. ``min``/``max`` propagate NaN from its position on,
    as ``numpy.minimum.accumulate`` does. Float sums: each output is rounded along a tree whose
    depth grows with the number of tiles before it (see the docs for the bound); the single-pass
    variant's rounding order depends on timing, so float sums may differ in the last bits from
    run to run.

    See Also:
        :func:`numpy.cumsum`, :func:`numpy.minimum.accumulate <numpy.ufunc.accumulate>`,
        :func:`cupy.cumsum`.
    """
    return _scan(x, op, dtype, variant, False, "inclusive_scan")


def exclusive_scan(x, op="sum", *, dtype=None, variant="auto"):
    """Exclusive prefix scan: ``out[0]`` is the identity of ``op`` (0, the dtype's maximum for
    ``min``, its minimum for ``max``; infinities for floats) and
    ``out[i] = x[0] op ... op x[i-1]``.

    Arguments, result and errors as :func:`inclusive_scan`.
    """
    return _scan(x, op, dtype, variant, True, "exclusive_scan")


def cumsum(x, axis=None, dtype=None, *, variant="auto"):
    """Cumulative sum, as :func:`numpy.cumsum`.

    Args:
        x: array (see :func:`inclusive_scan`).
        axis: ``None`` (flatten), or for 1-D input ``0``/``-1``.
        dtype: result dtype; default as NumPy (int32 -> int64, uint32 -> uint64).
        variant: see :func:`inclusive_scan`.

    Returns:
        The inclusive sum scan, 1-D.

    Raises:
        TypeError: as :func:`inclusive_scan`.
        ValueError: ``axis`` other than ``None`` for input of more than one dimension, or out of
            range.

    See Also:
        :func:`numpy.cumsum`, :func:`cupy.cumsum`.
    """
    if axis is not None:
        ndim = getattr(x, "ndim", None)
        if ndim is None:
            ndim = np.ndim(x)
        if ndim > 1:
            raise ValueError(
                f"cumsum: axis={axis!r} for {ndim}-D input is not supported; flatten "
                "(axis=None) or use segmented_scan for rows"
            )
        if not isinstance(axis, (int, np.integer)) or axis not in (0, -1):
            raise ValueError(f"cumsum: axis {axis!r} is out of bounds for a 1-D array")
    return _scan(x, "sum", dtype, variant, False, "cumsum")


def _error_depth(variant, n, in_dt, acc_dt):
    """Per-position bound on the depth of the rounding tree of output ``i`` (array of n values):
    used by the tests with Higham's bound on each prefix."""
    idx = np.arange(n, dtype=np.float64)
    if variant == "decoupled_lookback":
        items = _lb_items(np.dtype(in_dt), np.dtype(acc_dt))
        tile = _LB_BLOCK * items
        per_tile = items + 2 * int(math.log2(_LB_BLOCK)) + 8
        return 2 * per_tile + 7 * (np.floor(idx / tile) + 1)
    tile = _BLOCK[variant] * _TILE_PER_BLOCK[variant]
    levels = max(1, math.ceil(math.log(max(n, 2), tile)))
    return np.full(n, levels * (2 * int(math.log2(tile)) + 4) + 2, dtype=np.float64)


def tour_sections(gpu, log2n=None):
    """Tour workloads: the three variants on an int32 -> int32 and a float32 inclusive sum, with
    ``cupy.cumsum`` as the peer on a GPU."""
    from ._core import backend as _backend
    from . import tour as _tour

    n = 1 << (log2n or (28 if gpu else 14))
    sections = []
    for dt in (np.dtype(np.int32), np.dtype(np.float32)):

        def contenders(dt=dt):
            xp = _backend.get_backend().xp
            host = _tour.random_data(np.random.default_rng(n + 1), n, dt)
            x = xp.asarray(host)
            want = np.cumsum(host, dtype=np.float64 if dt.kind == "f" else dt)

            def check(variant):
                def ok(got):
                    got = _tour.to_host(got)
                    if dt.kind != "f":
                        return bool(np.array_equal(got, want))
                    depth = (_error_depth(variant, n, dt, dt) if variant else
                             np.full(n, float(n)))
                    bound = depth * np.finfo(dt).eps * np.cumsum(np.abs(host), dtype=np.float64)
                    return bool(np.all(np.abs(got - want) <= bound))
                return ok

            out = [_tour.Contender(v, (lambda v=v: inclusive_scan(x, dtype=dt, variant=v)),
                                   check(v)) for v in VARIANTS]
            if gpu:
                out.append(_tour.Contender("cupy.cumsum (peer)",
                                           lambda: xp.cumsum(x, dtype=dt), check(None)))
            return out

        sections.append(_tour.Section(
            title=f"scan: inclusive sum {dt.name} -> {dt.name}, n = 2^{n.bit_length() - 1}",
            nbytes=2 * n * dt.itemsize, contenders=contenders,
            count=len(VARIANTS) + (1 if gpu else 0)))
    return sections

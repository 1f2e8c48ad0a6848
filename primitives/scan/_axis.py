"""Scans along one axis of an N-D array, read and written in place in its layout.

The array is viewed as ``(outer, L, inner)`` (C order), the scanned axis of length ``L``:

- ``inner == 1`` (the scanned axis is the contiguous one): a warp per row walks it in tiles with
  16-byte vector loads, carrying the running total (several rows per block); when the rows give
  too few threads to fill the device (few, long rows), each row is split into chunks over more
  warps: a pass writes every chunk's total and the scan pass seeds each chunk with the totals of
  the chunks before it;
- ``inner > 1``: a thread per ``V`` consecutive inner positions (16-byte vectors where ``inner``
  allows) walks down the column carrying its running values; when those give too few threads,
  the columns are cut into tiles of a few rows (the policy's ``tile_bytes`` per thread) scanned
  in one pass with a decoupled look-back per column down the tiles (each element read once).

Contiguous lines at least the policy's ``segmented_min_len`` long (0, off, by default: see the
policy) are instead the segments of one segmented look-back scan (``kernels/segmented/segmented.cu``,
offsets every ``L`` elements): one read and one write of the array, with no chunk-total pass.
The kernels are ``kernels/scan/axis.cu``; their tuning is the ``"axis"`` selector of the
``"scan"`` family of :mod:`primitives.tuning`. One :class:`AxisPlan` per configuration lives in
:data:`~primitives._core.plans.PLANS` (with the single-pass scan's tile counter and look-back
state, made once: each launch marks the state with a new epoch, see
``kernels/device/lookback.cuh``).
"""

from __future__ import annotations

import numpy as np

from .._core import checks as _checks, dtypes as _dtypes, launch as _launch, loader as _loader
from .._core import ops as _ops
from .._core import lookback as _lookback, plans as _plans
from . import _policy

__all__ = ["SOURCE", "combos", "AxisPlan", "axis_plan", "layout", "scan_call", "AxisCall"]

SOURCE = "scan/axis.cu"
SELECTOR = "axis"
OPS = ("sum", "prod", "min", "max")
#: the element types of kernels/util/load.cuh's 16-byte vectors (Vec16)
_VEC16 = frozenset(_dtypes.NUMERIC)
_COMPLEX = (np.dtype(np.complex64), np.dtype(np.complex128))
_CTYPES = _dtypes.KERNEL_CTYPES
#: the dtype a result of a dtype without kernels is computed in (then cast to the result's):
#: integers modulo 2^8/2^16 and bool (0 or 1) are exact in 32 bits, float16 as CuPy's in float32
#: (bfloat16 likewise)
_WORK = {
    np.dtype(k): np.dtype(v)
    for k, v in (
        (np.bool_, np.int32),
        (np.int8, np.int32),
        (np.int16, np.int32),
        (np.uint8, np.uint32),
        (np.uint16, np.uint32),
        (np.float16, np.float32),
        (_dtypes.BFLOAT16, np.float32),
    )
}


def combos():
    """Every (input, accumulator, output dtype, op) the axis kernels are instantiated for: the
    flat scans' 4- and 8-byte (input, accumulator) pairs with each op, the result in the
    accumulator's dtype, and complex products. Complex sums run as float sums of the complex
    array's float view (a trailing axis of 2); other dtypes run converted (:func:`scan`)."""
    real = [(i, a, a, op) for i, a in _dtypes.ACC_PAIRS for op in OPS]
    return tuple(real + [(c, c, c, "prod") for c in _COMPLEX])


def _ctype(dt):
    return _CTYPES[np.dtype(dt)]


def _vec(dt):
    """Elements of one 16-byte vector of ``dt`` (1 when kernels/util/load.cuh has none)."""
    return 16 // dt.itemsize if dt in _VEC16 else 1


def _in_ctype(dt, m):
    """The C++ type the kernels read elements of ``dt`` as: through the map ``m`` where given
    (its element type, :func:`~primitives._core.ops.map_prelude`)."""
    return _ctype(dt) if m is None else m.ctype(dt)


def rows_scan_name(combo, exclusive, pol, m=None):
    i, a, o, op = combo
    a_c = _ctype(a)
    items = pol.items(i, a, o)
    ex = "true" if exclusive else "false"
    return (
        f"axis_rows_scan<{_in_ctype(i, m)}, {a_c}, {_ops.functor(op, a_c)}, {_ctype(o)}, "
        f"{pol.block}, {items}, {ex}>"
    )


def rows_total_name(combo, pol, m=None):
    i, a, _, op = combo
    a_c = _ctype(a)
    return f"axis_rows_total<{_in_ctype(i, m)}, {a_c}, {_ops.functor(op, a_c)}, {pol.block}>"


def cols_scan_name(combo, v, exclusive, pol, m=None):
    i, a, o, op = combo
    a_c = _ctype(a)
    ex = "true" if exclusive else "false"
    return (
        f"axis_cols_scan<{_in_ctype(i, m)}, {a_c}, {_ops.functor(op, a_c)}, {_ctype(o)}, {v}, "
        f"{pol.unroll}, {ex}>"
    )


def cols_lookback_name(combo, v, pol, m=None):
    """The single-pass column scan (inclusive or exclusive: a kernel argument, so that one
    instantiation serves both)."""
    i, a, o, op = combo
    a_c = _ctype(a)
    return (
        f"axis_cols_lookback<{_in_ctype(i, m)}, {a_c}, {_ops.functor(op, a_c)}, {_ctype(o)}, "
        f"{v}, {pol.block}, {pol.tile_rows(i, v)}, {pol.tile_blocks_per_sm}>"
    )


def names(combo, pol):
    """The name expressions of one combination's module: rows (totals, scans) and columns
    (unsplit and single-pass scans, vector and scalar widths), inclusive and exclusive."""
    vs = tuple(dict.fromkeys((_vec(combo[0]), 1)))
    out = [rows_total_name(combo, pol)]
    out += [rows_scan_name(combo, ex, pol) for ex in (False, True)]
    out += [cols_scan_name(combo, v, ex, pol) for v in vs for ex in (False, True)]
    out += [cols_lookback_name(combo, v, pol) for v in vs]
    return out


_COMBOS = frozenset(combos())

#: one module per (input, accumulator, output, op) and policy
_named_kernel = _loader.PolicyModules(
    SOURCE, names, _policy.TABLE, combos(), selector=lambda _: SELECTOR
).kernel


def kernel(combo, name, pol, m=None):
    """The instantiation ``name`` of the module of ``combo`` under ``pol`` (a user operator's
    or a map's ``m``: a source of its own)."""
    if isinstance(combo[3], _ops.Op) or m is not None:
        return _ops.kernel(SOURCE, combo[3], combo[1], name, m, combo[0])
    return _named_kernel(combo, name, pol)


def _known(combo):
    """Whether the axis kernels take ``combo`` as it is: an instantiated combination, or a user
    operator in its accumulator dtype."""
    in_dt, acc_dt, out_dt, op = combo
    if isinstance(op, _ops.Op):
        return in_dt == acc_dt == out_dt and np.dtype(acc_dt) in _ops.DTYPES
    return combo in _COMBOS


def layout(shape, axis):
    """``(outer, L, inner)`` of a C-ordered array of ``shape`` scanned along ``axis``."""
    outer = int(np.prod(shape[:axis], dtype=np.int64))
    inner = int(np.prod(shape[axis + 1 :], dtype=np.int64))
    return outer, int(shape[axis]), inner


def split(lines_threads, L, pol, sm_count, granule=1):
    """``(chunks, chunk_len)`` for lines of length ``L`` run on ``lines_threads`` threads when
    unsplit: chunks enough to give ``pol.split_per_sm`` threads per SM, none shorter than
    ``pol.min_chunk``; ``chunk_len`` a multiple of ``granule``."""
    target = pol.split_per_sm * sm_count
    chunks = 1
    if lines_threads < target and L > pol.min_chunk:
        chunks = min(_launch.cdiv(target, lines_threads), _launch.cdiv(L, pol.min_chunk))
    if chunks <= 1:
        return 1, L
    chunk_len = _launch.cdiv(_launch.cdiv(L, chunks), granule) * granule
    return _launch.cdiv(L, chunk_len), chunk_len


def split_columns(groups, L, pol, sm_count, rows):
    """Whether ``groups`` column groups (threads when unsplit) of lines of length ``L`` take the
    single-pass scan over tiles of ``rows`` rows: fewer than ``pol.split_per_sm`` threads per SM,
    and lines longer than one tile."""
    return groups < pol.split_per_sm * sm_count and L > rows


def state_bytes(units, v, acc_dt):
    """Bytes of ``ColStatus<AccT, V>`` state of ``units`` units (``kernels/scan/axis.cu``): a
    status word per unit (rounded up to 16 bytes), then two 16-byte-aligned rows of ``v``
    accumulators per unit (aggregates, inclusive prefixes)."""
    row = _launch.cdiv(v * acc_dt.itemsize, 16) * 16
    return _launch.cdiv(4 * units, 16) * 16 + 2 * units * row


def _zeros16(xp, nbytes):
    """``nbytes`` zero bytes of ``xp`` starting 16-byte aligned."""
    buf = xp.zeros(nbytes + 16, dtype=np.uint8)
    addr = buf.data.ptr if hasattr(buf.data, "ptr") else buf.ctypes.data
    off = -addr % 16
    return buf[off : off + nbytes]


def by_segments(combo, L, inner, pol):
    """Whether lines of ``combo`` (contiguous when ``inner`` is 1) of length ``L`` are scanned as
    the segments of the segmented look-back scan (the ops and dtypes it has, rows at least
    ``pol.segmented_min_len`` long)."""
    in_dt, acc_dt, out_dt, op = combo
    return (
        inner == 1
        and 0 < pol.segmented_min_len <= L
        and op in _checks.OPS
        and (in_dt, acc_dt) in _dtypes.ACC_PAIRS_SET
        and out_dt == acc_dt
    )


class AxisPlan(_plans.Plan):
    """The scan of a C-contiguous array viewed as ``(outer, L, inner)`` along its middle axis:
    ``plan(x)`` takes ``x`` (any shape of ``outer * L * inner`` elements, the backend's array
    type) and returns a new 1-D result of as many elements in C order. With a map ``m`` every
    kernel reads the elements through it (never the segmented scan, which has none)."""

    def __init__(self, backend, combo, exclusive, outer, L, inner, pol, m=None):
        xp = backend.xp
        in_dt, acc_dt, out_dt, op = combo
        self.empty, self.out_dt, self.size = xp.empty, out_dt, outer * L * inner
        sms = backend.device_info().sm_count
        i64 = _launch.i64
        slot = _plans.Launch.SLOT
        self.segments = self.state = None
        # long rows: one pass over every row at once (a map's rows: the rows kernels)
        if m is None and by_segments(combo, L, inner, pol):
            from ..segmented import scan_plan

            self.segments = scan_plan(
                backend,
                in_dt,
                acc_dt,
                op,
                "exclusive" if exclusive else "inclusive",
                True,
                self.size,
            )
            # the rows' offsets, made on the host (no device kernel to compile) and copied once
            self.offsets = xp.asarray(np.arange(0, self.size + 1, L, dtype=np.int64))
            self.nbytes = _plans.scratch_bytes(self.offsets)
            return
        if inner == 1:
            items = pol.items(in_dt, acc_dt, out_dt)
            warps = pol.block // 32
            self.chunks, self.chunk_len = split(outer * 32, L, pol, sms, granule=32 * items)
            units = outer * self.chunks
            self.totals = xp.empty(max(units, 1) if self.chunks > 1 else 1, dtype=acc_dt)
            scan = kernel(combo, rows_scan_name(combo, exclusive, pol, m), pol, m)
            grid = _launch.cover_grid(units, warps, kernel=scan)
            dims = (i64(units), i64(L), i64(self.chunks), i64(self.chunk_len))
            self.scan = _plans.Launch(
                scan, grid, pol.block, args=(slot, slot) + dims + (self.totals,)
            )
            self.total = None
            if self.chunks > 1:
                tk = kernel(combo, rows_total_name(combo, pol, m), pol, m)
                self.total = _plans.Launch(
                    tk,
                    _launch.cover_grid(units, warps, kernel=tk),
                    pol.block,
                    args=(slot, self.totals) + dims,
                )
        else:
            v = _vec(in_dt) if inner % _vec(in_dt) == 0 else 1
            groups = outer * (inner // v)
            rows = pol.tile_rows(in_dt, v)
            dims = (i64(outer), i64(L), i64(inner))
            self.total = None
            self.totals = None
            if split_columns(groups, L, pol, sms, rows):  # one pass over tiles of rows
                self.chunks, self.chunk_len = _launch.cdiv(L, rows), rows
                units = self.chunks * groups
                scan = kernel(combo, cols_lookback_name(combo, v, pol, m), pol, m)
                self.counter = xp.zeros(1, dtype=np.uint32)
                self.state = _zeros16(xp, state_bytes(units, v, acc_dt))
                self.epoch = 0
                self.scan = _plans.Launch(
                    scan,
                    _launch.cdiv(units, pol.block),
                    pol.block,
                    args=(slot, slot)
                    + dims
                    + (self.counter, self.state, slot, np.int32(exclusive))
                    + (np.int32(pol.tile_prefetch), np.int32(pol.tile_store_exchange)),
                )
                self.nbytes = _plans.scratch_bytes(self.counter, self.state)
                return
            self.chunks, self.chunk_len = 1, L
            scan = kernel(combo, cols_scan_name(combo, v, exclusive, pol, m), pol, m)
            grid = _launch.cover_grid(groups, pol.block, kernel=scan)
            self.scan = _plans.Launch(scan, grid, pol.block, args=(slot, slot) + dims)
        self.nbytes = _plans.scratch_bytes(self.totals)

    def __call__(self, x):
        if self.segments is not None:
            return self.segments(x.reshape(-1), None, self.offsets)
        out = self.empty(self.size, dtype=self.out_dt)
        if self.state is not None:  # the single-pass column scan: a new epoch per launch
            self.epoch = _lookback.advance_epoch(self.epoch, self.state)
            self.scan(x, out, np.uint32(self.epoch))
            return out
        if self.total is not None:
            self.total(x)
        self.scan(x, out)
        return out


def axis_plan(backend, combo, exclusive, outer, L, inner, m=None):
    """The plan of one configuration (made once, then found in the plan cache); ``m``: the map
    the input is read through, or None."""
    pol = _policy.current(SELECTOR)
    key = ("scan/axis", combo, m, exclusive, outer, L, inner, pol, _plans.stream_key())
    return _plans.PLANS.get(
        key, lambda: AxisPlan(backend, combo, exclusive, outer, L, inner, pol, m)
    )


def _identity(op, dt):
    """The identity of ``op`` in ``dt`` (bool min: True, bool max: False)."""
    if dt.kind == "b":
        return op == "min"
    return _dtypes.identity(op, dt)


def map_cast(in_dt, res_dt, op):
    """The dtype a scan of ``in_dt`` into ``res_dt`` casts the elements to before its kernels
    (None: they are read as they are): what a map refuses
    (:func:`~primitives._core.ops.check_map`)."""
    return None if _known((in_dt, res_dt, res_dt, op)) else res_dt


def scan_call(backend, in_dt, res_dt, op, exclusive, shape, axis, m=None):
    """The scan along ``axis`` of C-contiguous backend arrays of ``in_dt`` and ``shape`` (at least
    one element) into a new C-ordered array of ``res_dt`` and ``shape``, its plans made here;
    ``m``: the map the kernels read the elements through (a combination read as it is:
    :func:`map_cast`).

    Returns ``(run, plan)``: ``run(arr)`` computes the scan of ``arr``; ``plan`` is the
    :class:`AxisPlan` that reads ``arr`` as it is (no conversion: a later call on a like array
    may run it directly), or None."""
    outer, length, inner = layout(shape, axis)
    combo = (in_dt, res_dt, res_dt, op)
    if _known(combo):
        plan = axis_plan(backend, combo, exclusive, outer, length, inner, m)
        return (lambda arr: plan(arr).reshape(shape)), plan
    assert m is None, "a map reads the elements as they are (map_cast)"
    cast = in_dt != res_dt  # NumPy's dtype=: the elements are cast first
    if res_dt.kind == "c" and op == "sum":  # the float sums of the real and imaginary parts
        real = np.dtype(res_dt.char.lower())
        plan = axis_plan(backend, (real, real, real, op), exclusive, outer, length, 2 * inner)

        def run(arr):
            arr = arr.astype(res_dt) if cast else arr
            return plan(arr.reshape(-1).view(real)).view(res_dt).reshape(shape)

        return run, None
    if _known((res_dt, res_dt, res_dt, op)):
        plan = axis_plan(backend, (res_dt, res_dt, res_dt, op), exclusive, outer, length, inner)
        return (lambda arr: plan(arr.astype(res_dt) if cast else arr).reshape(shape)), None
    work = _WORK[res_dt]
    plan = axis_plan(backend, (work, work, work, op), exclusive, outer, length, inner)

    def converted(arr):
        arr = arr.astype(res_dt) if cast else arr
        out = plan(arr.astype(work)).astype(res_dt).reshape(shape)
        if exclusive and op in ("min", "max"):  # the identity of the narrower dtype
            out.reshape(outer, length, inner)[:, 0, :] = _identity(op, res_dt)
        return out

    return converted, None


class AxisCall:
    """The run of a scan along an axis of an array read where it lies (filed for later calls on
    like arrays): the plan, with the view that makes the array C-ordered (its transpose for an
    F-ordered one) and the result's shape."""

    __slots__ = ("plan", "shape", "flipped")

    def __init__(self, plan, shape, flipped):
        self.plan, self.shape, self.flipped = plan, shape, flipped

    def __call__(self, x):
        a = x.T if self.flipped else x
        out = self.plan(a).reshape(self.shape)
        return out.T if self.flipped else out

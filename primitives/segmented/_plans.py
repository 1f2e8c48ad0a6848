"""Segmented plans: kernel names and the look-back plans of ``segmented_scan`` and
``segmented_reduce``.

A :class:`ScanPlan` per (dtypes, op, mode, flags or offsets, n, policy, stream) and a
:class:`ReducePlan` per (dtypes, op, load kind, n, policy, stream) hold the tile counter, the
tile states and the tile bounds of the pre-pass, made once, and their launches, checked once. A
call is the pre-pass (offsets) and the tiles kernel. A reduction whose segments are long on
average (the policy's ``per_segment_from``: :mod:`._choose`) runs a :class:`SegmentsPlan`
instead, per (dtypes, op, n, nseg, policy, stream): one launch of a block per segment, no
pre-pass. :class:`CheckedScan` and :class:`CheckedReduce` are what later calls on like arrays run
when their offsets' values are checked (per call).
"""

from __future__ import annotations

import numpy as np

from .._core import checks as _checks, dtypes as _dtypes, launch as _launch, loader as _loader
from .._core import lookback as _lookback, offsets as _offs, ops as _ops, plans as _plans
from . import _policy

SOURCE = "segmented/segmented.cu"


def identity(op, dt):
    """The identity of ``op`` (a named operator or a user :class:`~.._core.ops.Op`) in ``dt``."""
    return op.identity_of(dt) if isinstance(op, _ops.Op) else _dtypes.identity(op, dt)


MODES = {"inclusive": 0, "exclusive": 1, "reduce": 2}
# how a tile finds its head flags (kernels/segmented/segmented.cu): flags, or offsets whose per-tile
# bounds come from the segmented_bounds pre-pass
SEG_FLAGS, SEG_SEARCH, SEG_BOUNDS = 0, 1, 2
SEG_OFFSETS = SEG_BOUNDS


def bounds_name(pol):
    """The segmented_bounds pre-pass of the policy ``pol`` (its block: a warp a bound)."""
    return f"segmented_bounds<{pol.bounds_block}>"


def scan_name(in_dt, acc_dt, op, mode, segs, pol):
    in_c, acc_c = _dtypes.CTYPES[in_dt], _dtypes.CTYPES[acc_dt]
    return (
        f"segmented_lookback<{in_c}, {acc_c}, {_ops.functor(op, acc_c)}, "
        f"{pol.block}, {pol.items(in_dt, acc_dt)}, {MODES[mode]}, {segs}, "
        f"{pol.min_blocks}>"
    )


def reduce_name(in_dt, acc_dt, op, exchange, pol):
    in_c, acc_c = _dtypes.CTYPES[in_dt], _dtypes.CTYPES[acc_dt]
    return (
        f"segmented_reduce_tiles<{in_c}, {acc_c}, {_ops.functor(op, acc_c)}, {pol.block}, "
        f"{pol.items(in_dt, acc_dt)}, {pol.min_blocks}, "
        f"{'true' if exchange else 'false'}, {'true' if pol.drawn else 'false'}>"
    )


def segments_name(in_dt, acc_dt, op, pol):
    in_c, acc_c = _dtypes.CTYPES[in_dt], _dtypes.CTYPES[acc_dt]
    return (
        f"segmented_reduce_segments<{in_c}, {acc_c}, {_ops.functor(op, acc_c)}, "
        f"{pol.segment_block}, {pol.segment_items(in_dt, acc_dt)}, {pol.segment_min_blocks}>"
    )


def upper_name(tile):
    return f"segmented_upper_bounds<{tile}>"


def names(mode, pol):
    """The instantiations of ``mode``'s module under ``pol`` (the pre-passes included)."""
    if mode == "reduce":
        return (
            [
                reduce_name(i, a, op, e, pol)
                for i, a in _dtypes.ACC_PAIRS
                for op in _checks.OPS
                for e in (True, False)
            ]
            + [segments_name(i, a, op, pol) for i, a in _dtypes.ACC_PAIRS for op in _checks.OPS]
            + sorted({upper_name(pol.block * pol.items(i, a)) for i, a in _dtypes.ACC_PAIRS})
        )
    return [
        scan_name(i, a, op, mode, g, pol)
        for i, a in _dtypes.ACC_PAIRS
        for op in _checks.OPS
        for g in (SEG_FLAGS, SEG_OFFSETS)
    ] + [bounds_name(pol)]


#: every mode's modules under every policy of the table
_named_kernel = _loader.PolicyModules(SOURCE, names, _policy.TABLE, MODES).kernel


def kernel(mode, name, pol, op=None, acc_dt=None):
    """The instantiation ``name`` of the module of ``mode`` under ``pol``; of ``op``'s own
    source for a user operator (its accumulator dtype ``acc_dt``)."""
    if isinstance(op, _ops.Op):
        return _ops.kernel(SOURCE, op, acc_dt, name)
    return _named_kernel(mode, name, pol)


class ScanPlan(_lookback.LookbackPlan):
    """segmented_lookback over n elements, segments given by flags (``segs`` SEG_FLAGS) or by
    offsets (SEG_OFFSETS: the segmented_bounds pre-pass first writes each tile's bound words)."""

    def __init__(self, backend, in_dt, acc_dt, op, mode, segs, n, pol):
        xp = backend.xp
        tile = pol.block * pol.items(in_dt, acc_dt)
        tiles = _launch.cdiv(n, tile)
        k = kernel(mode, scan_name(in_dt, acc_dt, op, mode, segs, pol), pol, op, acc_dt)
        # one Flagged<AccT> per tile: the value, the head flag, padding to the value's alignment
        super().__init__(k, tiles, pol.block, n, xp, 2 * acc_dt.itemsize)
        # stand-ins for the arguments a kind does not use; the tile bounds of the offsets
        self.bounds = xp.zeros(tiles + 1 if segs == SEG_BOUNDS else 1, dtype=np.int64)
        self.stand_flags, self.stand_offsets = xp.zeros(1, np.uint8), xp.zeros(1, np.int64)
        self.nbytes += _plans.scratch_bytes(self.bounds, self.stand_flags, self.stand_offsets)
        self.pre = None
        if segs == SEG_BOUNDS:  # a warp per boundary word
            grid = _launch.cdiv(self.bounds.size * 32, pol.bounds_block)
            self.pre = _plans.Launch(kernel(mode, bounds_name(pol), pol), grid, pol.bounds_block)
            self.tile64, self.words64 = _launch.i64(tile), _launch.i64(self.bounds.size)
        self.empty, self.n, self.acc_dt = xp.empty, n, acc_dt

    def __call__(self, x, flags, offsets):
        """The scan of ``x`` (``flags`` or int64 ``offsets`` given, the other None)."""
        out = self.empty(self.n, dtype=self.acc_dt)
        nseg = _launch.i64(0 if offsets is None else offsets.size - 1)
        if self.pre is not None:  # the pre-pass: each tile's boundary words
            self.pre(offsets, nseg, self.tile64, self.words64, self.bounds)
        self.launch(
            x,
            self.n64,
            self.stand_flags if flags is None else flags,
            self.stand_offsets if offsets is None else offsets,
            nseg,
            self.bounds,
            out,
        )
        return out


def scan_plan(backend, in_dt, acc_dt, op, mode, by_offsets, n):
    """The plan of a segmented scan (``mode`` "inclusive" or "exclusive") of ``n`` elements of
    ``in_dt`` in ``acc_dt`` under ``op``, its segments by offsets (``by_offsets``) or by head
    flags, under the policy in force: made once per configuration and stream. A building block
    of the scans along an axis (:mod:`primitives.scan`)."""
    pol = _policy.current(mode)
    segs = SEG_OFFSETS if by_offsets else SEG_FLAGS
    key = ("segmented/scan", in_dt, acc_dt, op, mode, segs, n, pol, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: ScanPlan(backend, in_dt, acc_dt, op, mode, segs, n, pol))


class ReducePlan(_lookback.LookbackPlan):
    """A reduction's launches: the segmented_upper_bounds pre-pass, which writes the tile words
    to ``bounds``, then the tiles (``segmented_reduce_tiles``, with ``smem`` bytes of dynamic
    shared memory for its load exchange). The pre-pass's grid follows the number of segments:
    its launch is prepared for the last number seen, and made (and checked) again when it
    changes."""

    def __init__(self, backend, in_dt, acc_dt, op, exchange, n, pol, *, tiles_kernel=None):
        xp = backend.xp
        tile = pol.block * pol.items(in_dt, acc_dt)
        tiles = _launch.cdiv(n, tile)
        name = reduce_name(in_dt, acc_dt, op, exchange, pol)
        k = tiles_kernel or kernel("reduce", name, pol, op, acc_dt)
        # one Flagged<AccT> per tile: the value, the head flag, padding to the value's alignment
        super().__init__(
            k,
            tiles,
            pol.block,
            n,
            xp,
            2 * acc_dt.itemsize,
            smem=tile * in_dt.itemsize if exchange else 0,
        )
        self.upper_kernel = kernel("reduce", upper_name(tile), pol)
        self.words64 = _launch.i64(tiles + 1)
        self.bounds = xp.empty(tiles + 1, dtype=np.int64)  # every word written by the pre-pass
        self.nbytes += self.bounds.nbytes
        self.bounds_block = pol.bounds_block
        self.empty, self.acc_dt = xp.empty, acc_dt
        self.nseg, self.nseg64, self.upper = None, None, None

    def _prepare(self, nseg):
        grid = _launch.cdiv(nseg + 2, self.bounds_block)  # a thread per index 0 .. nseg + 1
        slot = _plans.Launch.SLOT
        self.nseg64 = _launch.i64(nseg)
        self.upper = _plans.Launch(
            self.upper_kernel,
            grid,
            self.bounds_block,
            args=(slot, self.nseg64, self.words64, self.bounds),
        )
        self.nseg = nseg

    def __call__(self, x, offsets, out=None):
        """Both launches over ``x`` with int64 ``offsets``; ``out`` (nseg values) is allocated
        once the pre-pass is on its way when not given, so that the allocation overlaps it."""
        nseg = offsets.size - 1
        if nseg != self.nseg:
            self._prepare(nseg)
        self.upper(offsets)
        if out is None:
            out = self.empty(nseg, dtype=self.acc_dt)  # every segment written, empty ones too
        self.launch(x, self.n64, offsets, self.nseg64, self.bounds, out)
        return out


class SegmentsPlan(_plans.Plan):
    """A reduction's one launch with a block per segment (``segmented_reduce_segments``), over n
    elements in nseg segments: ``chunks`` blocks of ``chunk`` elements first, which take the
    parts of segments longer than one chunk past their first chunk (their scratch: a partial and
    an arrival word per chunk, made once), then a block per segment. Each launch has its own
    epoch, so the arrival words are never cleared."""

    def __init__(self, backend, in_dt, acc_dt, op, n, nseg, pol):
        xp = backend.xp
        tile = pol.segment_block * pol.segment_items(in_dt, acc_dt)
        self.chunk = tile * _launch.cdiv(_launch.cdiv(n, pol.split_blocks), tile)
        self.chunks = _launch.cdiv(n, self.chunk)
        self.kernel = kernel("reduce", segments_name(in_dt, acc_dt, op, pol), pol, op, acc_dt)
        self.smem = 0
        self.partials = xp.empty(self.chunks, dtype=acc_dt)
        self.arrivals = xp.zeros(self.chunks, dtype=np.uint64)
        self.nbytes = _plans.scratch_bytes(self.partials, self.arrivals)
        slot = _plans.Launch.SLOT  # x, offsets, out and the epoch per call
        self.segments = _plans.Launch(
            self.kernel,
            self.chunks + nseg,
            pol.segment_block,
            args=(
                slot,
                _launch.i64(n),
                slot,
                _launch.i64(nseg),
                _launch.i64(self.chunk),
                _launch.i64(self.chunks),
                slot,
                self.partials,
                self.arrivals,
                slot,
            ),
        )
        self.nseg, self.epoch = nseg, 0
        self.empty, self.acc_dt = xp.empty, acc_dt

    def next_epoch(self):
        self.epoch = _lookback.advance_epoch(self.epoch, self.arrivals)
        return np.uint32(self.epoch)

    def __call__(self, x, offsets, out=None):
        """The launch over ``x`` with int64 ``offsets`` (nseg + 1 of them) into ``out``."""
        if out is None:
            out = self.empty(self.nseg, dtype=self.acc_dt)  # every segment written
        self.segments(x, offsets, out, self.next_epoch())
        return out


def reduce_plan(backend, in_dt, acc_dt, op, n, nseg, variant):
    """The plan of a reduction of n elements in nseg segments by ``variant`` (one of
    :data:`._choose.REDUCTIONS`) under the ``"reduce"`` policy in force."""
    pol = _policy.current("reduce")
    if variant == "segments":
        key = ("segmented/reduce", in_dt, acc_dt, op, "segments", n, nseg, pol, _plans.stream_key())
        return _plans.PLANS.get(key, lambda: SegmentsPlan(backend, in_dt, acc_dt, op, n, nseg, pol))
    exchange = variant == "exchange"
    key = ("segmented/reduce", in_dt, acc_dt, op, exchange, n, pol, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: ReducePlan(backend, in_dt, acc_dt, op, exchange, n, pol))


# ---- the kernels a first call asks for at once ------------------------------------------------


def prefetch_scan(in_dt, acc_dt, op, mode, by_offsets, check):
    """Start compiling (where kernels compile on first use) the kernels of the scan's plan and,
    where ``check``, the offsets' check, side by side, before the check waits for its own."""
    pol = _policy.current(mode)
    segs = SEG_OFFSETS if by_offsets else SEG_FLAGS
    names = [bounds_name(pol)] if segs == SEG_BOUNDS else []
    if not isinstance(op, _ops.Op):  # a user operator compiles its own source when asked
        names.append(scan_name(in_dt, acc_dt, op, mode, segs, pol))
    _prefetch(names, check and by_offsets)


def prefetch_reduce(in_dt, acc_dt, op, n, nseg, variant, check):
    """:func:`prefetch_scan` for a reduction of ``variant`` (n elements in nseg segments)."""
    pol = _policy.current("reduce")
    named = not isinstance(op, _ops.Op)
    if variant == "segments":
        names = [segments_name(in_dt, acc_dt, op, pol)] if named else []
    else:
        tiles = reduce_name(in_dt, acc_dt, op, variant == "exchange", pol)
        names = [upper_name(pol.block * pol.items(in_dt, acc_dt))] + ([tiles] if named else [])
    _prefetch(names, check)


def _prefetch(names, check):
    if check:
        _offs.prefetch()
    if names:
        _loader.prefetch(SOURCE, names)


# ---- the runs of later calls ------------------------------------------------------------------


class CheckedScan:
    """What a segmented scan by offsets on arrays like a first call's runs when ``check``: each
    call's offsets' values checked (one small read), then the plan."""

    __slots__ = ("plan",)

    def __init__(self, plan):
        self.plan = plan

    def __call__(self, x, flags, offsets):
        _offs.check_values(offsets, x.size, func="segmented_scan", cover=True)
        return self.plan(x, flags, offsets)


class CheckedReduce:
    """What a segmented reduction on arrays like a first call's runs when ``check``: each call's
    offsets' values checked (one small read), then the plan."""

    __slots__ = ("plan",)

    def __init__(self, plan):
        self.plan = plan

    def __call__(self, x, offsets):
        _offs.check_values(offsets, x.size, func="segmented_reduce", cover=False)
        return self.plan(x, offsets)

"""The plans of ``argmin`` and ``argmax`` (the index of the first minimum/maximum, as NumPy's).

Kernels in ``kernels/reduction/arg.cu``: the whole array in one launch (``arg_flat``: 16-byte
loads, a block reduction of (key, index) pairs, block partials reduced by the last block), and
along one axis (see :class:`AxisPlan`) ``arg_rows`` (the axis last: a warp per short row, a block
per long one), ``arg_flat`` again for a few long rows (several blocks per row), or ``arg_cols``
(another axis: threads on consecutive output positions, 16-byte packets of them where the layout
allows, walking down the axis, coalesced; the axis cut in parts when the positions alone leave
threads idle, ``arg_cols_merge`` then combining the parts' pairs; too few long columns to fill
the device are copied to rows first). Each runs
from a plan per (dtype, op, shape, policy, stream), filed in :data:`primitives._core.plans.PLANS`.
"""

from __future__ import annotations

import numpy as np

from .._core import launch as _launch, plans as _plans
from . import _policy
from ._kernels import (
    arg_cols_merge_name,
    arg_cols_name,
    arg_ctype,
    arg_flat_name,
    arg_kernel,
    arg_key_words,
    arg_pair_bytes,
    arg_rows_name,
    arg_rows_pipe_name,
)

__all__ = ["FlatPlan", "AxisPlan", "flat_plan", "axis_plan"]

#: columns that keep fewer than this share of arg_cols' resident threads busy (each with a
#: part's 16-byte loads in flight) are copied to rows instead
COLS_COPY_SHARE = 8


class FlatPlan(_plans.Plan):
    """``arg_flat`` over ``n`` elements of ``dt``: one launch into a new 0-d int64 result; the
    partials and the ticket (left at 0 by the kernel) made once."""

    def __init__(self, backend, dt, is_max, n, pol):
        k = arg_kernel("flat", dt, arg_flat_name(arg_ctype(dt), is_max, pol), pol)
        per_thread = (16 // dt.itemsize) * pol.vectors
        grid = _launch.cover_grid(n, pol.block, per_thread, kernel=k, per_sm=pol.blocks_per_sm)
        self.xp = backend.xp
        self.scratch = self.xp.empty(2 * arg_key_words(dt) * grid, dtype=np.int64)
        self.ticket = self.xp.zeros(1, dtype=np.uint32)
        slot = _plans.Launch.SLOT
        self.launch = _plans.Launch(
            k, grid, pol.block, args=(slot, _launch.i64(n), self.scratch, self.ticket, slot)
        )
        self.host = not backend.is_cuda
        self.nbytes = _plans.scratch_bytes(self.scratch, self.ticket)

    def run(self, x):
        """The 0-d int64 device array of the index, ``x`` a contiguous device array."""
        out = self.xp.empty((), dtype=np.int64)
        self.launch(x, out)
        return out

    def __call__(self, x):
        """As the public function returns it for ``x`` of the backend's own type: a 0-d CuPy
        array on the GPU, a NumPy scalar on the emulator (NumPy in, NumPy out)."""
        out = self.run(x)
        return out[()] if self.host else out


class AxisPlan(_plans.Plan):
    """An (outer, length, inner) C-ordered array reduced along its middle axis (length >= 1,
    outer * inner >= 2): one launch into a new int64 array of the outer * inner indices.

    Rows (inner 1): a warp per row up to ``warp_row_max`` elements (rows of at most 32 *
    ``vectors`` whole packets with the next row's loads in flight: the policy's
    ``rows_pipeline``); longer rows ``arg_flat``
    with a grid row per row when there are fewer rows than resident blocks (several blocks per
    row), else a block per row. Columns (inner > 1): ``arg_cols`` (:meth:`_columns`); when
    they are longer than ``warp_row_max`` and too few to keep the device busy even cut in
    parts (:meth:`_few_columns`), they are laid out as rows first (a copy) and taken as rows."""

    def __init__(self, backend, dt, is_max, outer, length, inner, pol):
        c, block = arg_ctype(dt), pol.rows_block
        lines = outer * inner
        slot = _plans.Launch.SLOT
        self.xp, self.size, self.lines, self.scratch = backend.xp, lines, None, None
        self.nbytes, self.merge = 0, None
        self.stack, self.splits = 1, 1  # arg_cols' sub-parts a block and parts merged after
        if inner > 1:
            kc = arg_kernel("axis", dt, arg_cols_name(c, is_max, pol), pol)
            threads = _launch.resident_grid(kc, pol.cols_block) * pol.cols_block
            units = self._units(dt, outer, inner)
            if length <= pol.warp_row_max or not self._few_columns(units, length, threads, pol):
                self._columns(backend, kc, dt, is_max, outer, length, inner, units, threads, pol)
                return
            self.lines = (outer, length, inner)  # few long columns: made rows by a copy
        if length <= pol.warp_row_max:
            pipe = (
                pol.rows_pipeline
                and length % (16 // dt.itemsize) == 0
                and length // (16 // dt.itemsize) <= 32 * pol.vectors
            )
            name = (
                arg_rows_pipe_name(c, is_max, pol) if pipe else arg_rows_name(c, is_max, pol, True)
            )
            k = arg_kernel("axis", dt, name, pol)
            grid = _launch.cover_grid(lines, block // 32, kernel=k)
            args = (slot, _launch.i64(lines), _launch.i64(length), slot)
        else:
            k = arg_kernel("flat", dt, arg_flat_name(c, is_max, pol), pol)
            resident = _launch.resident_grid(k, pol.block, per_sm=pol.blocks_per_sm)
            if lines < resident and lines <= _launch.MAX_GRID_YZ:
                per_thread = (16 // dt.itemsize) * pol.vectors
                gx = _launch.cdiv(length, pol.block * per_thread)
                gx = max(1, min(gx, resident // lines))
                self.scratch = self.xp.empty(2 * arg_key_words(dt) * gx * lines, dtype=np.int64)
                tickets = self.xp.zeros(lines, dtype=np.uint32)
                self.nbytes = _plans.scratch_bytes(self.scratch, tickets)
                self.launch = _plans.Launch(
                    k,
                    (gx, lines),
                    pol.block,
                    args=(slot, _launch.i64(length), self.scratch, tickets, slot),
                )
                return
            k = arg_kernel("axis", dt, arg_rows_name(c, is_max, pol, False), pol)
            grid = _launch.cover_grid(lines, 1, kernel=k)
            args = (slot, _launch.i64(lines), _launch.i64(length), slot)
        self.launch = _plans.Launch(k, grid, block, args=args)

    @staticmethod
    def _units(dt, outer, inner):
        """arg_cols' threads of one part: a thread per 16-byte packet of columns where inner
        is a multiple of a packet's elements, else per column."""
        per = 16 // dt.itemsize
        return outer * (inner // per if inner % per == 0 else inner)

    @staticmethod
    def _few_columns(units, length, threads, pol):
        """Whether ``units`` columns (or packets of them), cut in as many parts as they may be
        (the policy's ``cols_min_chunk`` and ``cols_max_splits``), still leave most of arg_cols'
        ``threads`` resident threads idle (fewer than a :data:`COLS_COPY_SHARE`-th of them
        busy): then they are copied to rows."""
        parts = max(1, min(pol.cols_max_splits, length // pol.cols_min_chunk))
        return units * parts * COLS_COPY_SHARE < threads

    @staticmethod
    def _stack(parts, block, pol):
        """The sub-parts of a column one block walks together (arg_cols' ``stack``): the
        largest power of two at most the policy's ``cols_stack`` and ``parts`` that leaves
        whole warps to each sub-part; 1 (no stacking) when ``parts`` is 1."""
        s = 1
        while 2 * s <= min(pol.cols_stack, parts) and block % (32 * 2 * s) == 0:
            s *= 2
        return s

    def _columns(self, backend, k, dt, is_max, outer, length, inner, units, threads, pol):
        """``arg_cols``: threads on consecutive columns (16-byte packets of them where inner
        allows), the axis cut in parts when the columns alone leave resident threads idle
        (each part at least the policy's ``cols_min_chunk`` rows, at most ``cols_max_splits``
        parts). Up to the policy's ``cols_stack`` of a column's parts are walked by one block
        together and combined there (:meth:`_stack`); the pairs of the parts left, if more than
        one, are combined by ``arg_cols_merge``."""
        c, block, slot, i64 = arg_ctype(dt), pol.cols_block, _plans.Launch.SLOT, _launch.i64
        parts = 1
        if units < threads:  # one wave: a second, partial one would walk its parts alone
            most = max(1, min(pol.cols_max_splits, length // pol.cols_min_chunk))
            parts = min(threads // units, most)
        stack = self._stack(parts, block, pol)
        chunk = _launch.cdiv(length, parts)
        splits = _launch.cdiv(_launch.cdiv(length, chunk), stack)  # each holds a row
        smem = 0
        if stack == 1:
            grid = min(_launch.cdiv(units * splits, block), threads // block)
        else:  # tiles of block // stack units (columns or packets of them), a block each
            k = arg_kernel("axis", dt, arg_cols_name(c, is_max, pol, True), pol)
            tiles = outer * splits * _launch.cdiv(units // outer, block // stack)
            smem = (stack - 1) * (block // stack) * (16 // dt.itemsize) * arg_pair_bytes(dt)
            grid = min(tiles, _launch.resident_grid(k, block, smem))
        self.stack, self.splits = stack, splits
        stand_in = _launch.stand_in(backend, np.int64)
        args = [slot, i64(outer), i64(length), i64(inner), i64(splits), i64(chunk), np.int32(1)]
        args.append(np.int32(stack))  # the sub-parts of each of the splits parts
        if splits == 1:
            self.launch = _plans.Launch(
                k, grid, block, smem, args=(*args, stand_in, stand_in, slot)
            )
            return
        pairs = outer * splits * inner
        keys = self.xp.empty(pairs * arg_key_words(dt), dtype=np.int64)
        idx = self.xp.empty(pairs, dtype=np.int64)
        self.nbytes = _plans.scratch_bytes(keys, idx)
        self.launch = _plans.Launch(k, grid, block, smem, args=(*args, keys, idx, stand_in))
        km = arg_kernel("axis", dt, arg_cols_merge_name(c, is_max, pol), pol)
        lines = outer * inner
        self.merge = _plans.Launch(
            km,
            _launch.cover_grid(lines, block, kernel=km),
            block,
            args=(keys, idx, i64(outer), i64(splits), i64(inner), slot),
        )

    def run(self, x):
        if self.lines is not None:
            outer, length, inner = self.lines
            x = self.xp.ascontiguousarray(self.xp.swapaxes(x.reshape(outer, length, inner), 1, 2))
        out = self.xp.empty(self.size, dtype=np.int64)
        if self.merge is not None:
            self.launch(x)
            self.merge(out)
        else:
            self.launch(x, out)
        return out


def flat_plan(backend, dt, is_max, n):
    pol = _policy.arg()
    key = ("reduce/arg_flat", dt, is_max, n, pol, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: FlatPlan(backend, dt, is_max, n, pol))


def axis_plan(backend, dt, is_max, outer, length, inner):
    pol = _policy.arg()
    key = ("reduce/arg_axis", dt, is_max, outer, length, inner, pol, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: AxisPlan(backend, dt, is_max, outer, length, inner, pol))

"""Scan tuning, as data (see :mod:`primitives.tuning`).

Selectors: the variant, ``"decoupled_lookback"``, ``"hillis_steele"`` or ``"blelloch"``, and
``"axis"`` for the scans along an axis of an N-D array (:mod:`._axis`). One
provenance line per tuned value; the experiments behind them are in docs/perf-log/.
"""

from __future__ import annotations

import dataclasses

from .._core import policy as _policy


@dataclasses.dataclass(frozen=True)
class LookbackPolicy:
    block: int  # threads per block (a template parameter)
    bytes: int  # bytes per thread of the wider of input and accumulator: ITEMS = bytes // width

    def items(self, in_dt, acc_dt):
        """Items per thread for input ``in_dt`` scanned in ``acc_dt``."""
        return self.bytes // max(in_dt.itemsize, acc_dt.itemsize)


@dataclasses.dataclass(frozen=True)
class HierarchicalPolicy:
    block: int  # threads per block of the block scan (dynamic: not a template parameter)
    add_block: int  # threads per block of scan_add_prefix
    add_items: int  # elements per thread of scan_add_prefix (its grid is capped at resident)


#: the most rows a thread of the single-pass column scan holds (AxisPolicy.tile_rows)
MAX_TILE_ROWS = 32


@dataclasses.dataclass(frozen=True)
class AxisPolicy:
    block: int  # threads per block of the axis kernels (a template parameter of the row kernels)
    row_bytes: int  # bytes per lane per row tile of the widest of input, accumulator and output
    unroll: int  # rows of an unsplit column one thread loads before it folds them (in flight)
    split_per_sm: int  # lines are split into chunks when fewer threads per SM would work
    min_chunk: int  # elements along the axis of the shortest chunk a row is split into
    # input bytes a thread holds per tile of the single-pass column scan (axis_cols_lookback):
    # ROWS = tile_bytes // (16-byte vector or element) rows loaded at once, ROWS rows per chunk,
    # at most MAX_TILE_ROWS (scalar columns: 64 rows of 4-byte elements spilled on sm_90)
    tile_bytes: int
    # resident blocks per SM the single-pass column kernel's registers are bounded for
    # (__launch_bounds__: 2 of 256 threads allow 128 registers)
    tile_blocks_per_sm: int
    # contiguous lines (rows) at least this long are scanned as the segments of one segmented
    # look-back scan (kernels/scan/segmented.cu: one read and one write, however few the rows)
    # instead of a warp per row (0: never)
    segmented_min_len: int = 0

    def items(self, in_dt, acc_dt, out_dt):
        """Items per lane of the row kernels."""
        return max(1, self.row_bytes // max(in_dt.itemsize, acc_dt.itemsize, out_dt.itemsize))

    def tile_rows(self, in_dt, v):
        """Rows per tile of the single-pass column scan, ``v`` elements of ``in_dt`` per row."""
        return max(1, min(MAX_TILE_ROWS, self.tile_bytes // (v * in_dt.itemsize)))


TABLE = _policy.register("scan", {
    ("default", "decoupled_lookback"): LookbackPolicy(
        block=128,  # H100, int32/float32 2^28: 128 x 72 at 94% of copy, 256 x 40 slower (tune/scan)
        bytes=288,  # H100, as block: 72 four-byte items; 64 at 93% of copy, 56 at 92%, 32 slower
        # narrow and complex dtypes use the same block and bytes (ITEMS rounded down to whole
        # 16-byte vectors of the narrowest type): not tuned yet; to be measured on an H100
    ),
    # the classic block scans' textbook block size (not tuned)
    ("default", "hillis_steele"): HierarchicalPolicy(block=256, add_block=256, add_items=4),
    ("default", "blelloch"): HierarchicalPolicy(block=256, add_block=256, add_items=4),
    # scans along an axis: not tuned yet; to be measured on an H100
    # segmented_min_len 0 (never): H100, cumsum(axis=1) of (4096, 65536) int32 (int64 result)
    # took 1.94 ms through the segmented look-back scan (segmented_min_len=4096, at 222a610)
    # against 1.22 ms with a warp per row (chunked, at 94b411d)
    # tile_bytes 256 (16 rows of 16-byte vectors per thread; 124 registers, no spills on sm_90
    # for int32 in, int64 out, with tile_blocks_per_sm 2), tile_blocks_per_sm 2: not tuned yet;
    # to be measured on an H200 (python -m tools.tune.axis)
    ("default", "axis"): AxisPolicy(block=256, row_bytes=128, unroll=4, split_per_sm=512,
                                    min_chunk=256, tile_bytes=256, tile_blocks_per_sm=2,
                                    segmented_min_len=0),
}, doc="the look-back scan's block and bytes per thread; the classic scans' block sizes; the "
       "axis scans' block, row tile, column unroll, split threshold and column tile")


def current(variant):
    return _policy.current("scan", variant)

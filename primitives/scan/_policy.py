"""Scan tuning, as data (see :mod:`primitives.tuning`).

Selectors: the variant, ``"decoupled_lookback"``, ``"hillis_steele"`` or ``"blelloch"``,
``"tuple"`` for the look-back scans of tuples (zipped arrays), and ``"axis"`` for the scans along
an axis of an N-D array (:mod:`._axis`). One
provenance line per tuned value; the experiments behind them are in docs/perf-log/.
"""

from __future__ import annotations

import dataclasses

from .._core import policy as _policy
from .._core.policy import knob


@dataclasses.dataclass(frozen=True)
class LookbackPolicy:
    block: int = knob(_policy.BLOCK)  # threads per block (a template parameter; the block scan)
    # bytes per thread of the wider of input and accumulator: ITEMS = bytes // width (rounded
    # down to whole 16-byte vectors, at least one); scan_lookback's exchange of block * bytes
    # is static shared memory: 1536 at the smallest block of 32 fills its 48 KiB
    bytes: int = knob(_policy.Range(16, _policy.STATIC_SHARED_MAX // 32))
    # tiles ahead: a block prefetches into the L2 cache the input of the tile that many ids after
    # its own (0: none; kernels/util/load.cuh, prefetch_in)
    prefetch: int = knob(_policy.Range(0), 0)

    def items(self, in_dt, acc_dt):
        """Items per thread for input ``in_dt`` scanned in ``acc_dt``."""
        return self.bytes // max(in_dt.itemsize, acc_dt.itemsize)


@dataclasses.dataclass(frozen=True)
class HierarchicalPolicy:
    # threads per block of the block scan (dynamic: not a template parameter; scan.cu: a power
    # of two, at most 1024; whole warps)
    block: int = knob(_policy.Range(32, 1024, pow2=True))
    add_block: int = knob(_policy.BLOCK)  # threads per block of scan_add_prefix (grid-stride)
    # elements per thread of scan_add_prefix (its grid is capped at resident)
    add_items: int = knob(_policy.Range(1))


#: the most rows a thread of the single-pass column scan holds (AxisPolicy.tile_rows)
MAX_TILE_ROWS = 32


@dataclasses.dataclass(frozen=True)
class AxisPolicy:
    # threads per block of the axis kernels (a template parameter of the row kernels, whole
    # warps: axis_rows_scan's static_assert)
    block: int = knob(_policy.BLOCK)
    # bytes per lane per row tile of the widest of input, accumulator and output: the warp
    # tiles of axis_rows_scan are static shared memory, 1536 bytes a lane at a block of 32
    # fill its 48 KiB
    row_bytes: int = knob(_policy.Range(1, _policy.STATIC_SHARED_MAX // 32))
    # rows of an unsplit column one thread loads before it folds them (in flight, in registers)
    unroll: int = knob(_policy.Range(1, 32))
    # lines are split into chunks when fewer threads per SM would work (0: never split)
    split_per_sm: int = knob(_policy.Range(0))
    # elements along the axis of the shortest chunk a row is split into
    min_chunk: int = knob(_policy.Range(1))
    # input bytes a thread holds per tile of the single-pass column scan (axis_cols_lookback):
    # ROWS = tile_bytes // (16-byte vector or element) rows loaded at once, ROWS rows per chunk,
    # at most MAX_TILE_ROWS (scalar columns: 64 rows of 4-byte elements spilled on sm_90); more
    # bytes than MAX_TILE_ROWS 16-byte vectors would hold no more rows
    tile_bytes: int = knob(_policy.Range(1, MAX_TILE_ROWS * 16))
    # resident blocks per SM the single-pass column kernel's registers are bounded for
    # (__launch_bounds__: 2 of 256 threads allow 128 registers)
    tile_blocks_per_sm: int = knob(_policy.PER_SM)
    # the single-pass column scan's L2 prefetch: a block asks for the rows of the tile drawn
    # this many ids after its own before it loads its own (0: none)
    tile_prefetch: int = knob(_policy.Range(0), 0)
    # the single-pass column scan's stores of results wider than 16 bytes a thread (int32 into
    # int64: 32 bytes a row): 1 = a warp's row through shared memory, each store instruction
    # whole sectors; 0 = each thread its own 16-byte words (two sectors half-written a store)
    tile_store_exchange: int = knob(_policy.OneOf(0, 1), 0)
    # contiguous lines (rows) at least this long are scanned as the segments of one segmented
    # look-back scan (kernels/segmented/segmented.cu: one read and one write, however few the rows)
    # instead of a warp per row (0: never)
    segmented_min_len: int = knob(_policy.Range(0), 0)

    def items(self, in_dt, acc_dt, out_dt):
        """Items per lane of the row kernels."""
        return max(1, self.row_bytes // max(in_dt.itemsize, acc_dt.itemsize, out_dt.itemsize))

    def tile_rows(self, in_dt, v):
        """Rows per tile of the single-pass column scan, ``v`` elements of ``in_dt`` per row."""
        return max(1, min(MAX_TILE_ROWS, self.tile_bytes // (v * in_dt.itemsize)))


TABLE = _policy.register(
    "scan",
    {
        ("default", "decoupled_lookback"): LookbackPolicy(
            block=128,  # H100, int32/float32 2^28: 128 x 72 at 94% of copy, 256 x 40 slower (tune/scan)
            bytes=288,  # H100, as block: 72 four-byte items; 64 at 93% of copy, 56 at 92%, 32 slower
            # narrow and complex dtypes use the same block and bytes (ITEMS rounded down to whole
            # 16-byte vectors of the narrowest type): not tuned yet; to be measured on an H100
            # prefetch 16: H200, float32 cumsum 2^27 through plans made directly, one interleaved
            # run (.probe-style sweep, 5 rounds): 0 / 8 / 16 / 24 tiles ahead 0.3171 / 0.3087 /
            # 0.3082 / 0.3071 ms (84.1% / 86.4% / 86.6% / 86.9% of copy)
            prefetch=16,
        ),
        # the scans of tuples (zipped arrays, kernels/util/zip.cuh): H200, the linear recurrence
        # of 2^27 float32 pairs (fields=1) in the same run: 128 x 288 bytes (36 pairs) 0.5020 ms
        # (79.7% of copy) without prefetch, 0.4903 with 16; 128 x 192 (24 pairs) 0.4855 / 0.4820
        # / 0.4866 / 0.4804 ms at prefetch 0 / 8 / 16 / 24; 128 x 160, 224, 256 and 64 x 384 at 16:
        # 0.4884 / 0.4968 / 0.4818 / 0.4932 ms. Prefetch 128 (H200, plans made directly, two
        # runs, interleaved copy): 16 / 128 / 192 / 256 / 384 / 512 tiles ahead 83.9-84.7% /
        # 85.7-86.4% / 85.7-86.2% / 85.2-85.7% / 84.9-85.4% / 84.3-84.8% of copy; 1024 and 2048
        # 62% (the L2 overrun). The flat scans' float32 cumsum at 128: 85.4-85.6% against
        # 84.7-85.6% at 16 (256: 84%, 384: 71%): not changed
        ("default", "tuple"): LookbackPolicy(block=128, bytes=192, prefetch=128),
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
        ("default", "axis"): AxisPolicy(
            block=256,
            row_bytes=128,
            unroll=4,
            split_per_sm=512,
            min_chunk=256,
            tile_bytes=256,
            tile_blocks_per_sm=2,
            # H100 (tools.tune.axis at c185119), cumsum(axis=0) of (4096, 65536) int32: 8 / 32 /
            # 128 tiles ahead 1.4634 / 1.5053 / 1.5644 ms against 1.4478 without
            tile_prefetch=0,
            # the same run: 1.4478 -> 1.3165 ms (with prefetch 32: 1.3083); axis=1 unchanged
            tile_store_exchange=1,
            segmented_min_len=0,
        ),
    },
    doc="the look-back scan's block, bytes per thread and L2 prefetch distance (its own for "
    "tuples); the classic scans' block sizes; the "
    "axis scans' block, row tile, column unroll, split threshold and column tile (its L2 "
    "prefetch and its stores through shared memory)",
)


def current(variant):
    return _policy.current("scan", variant)

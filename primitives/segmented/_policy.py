"""Segmented scan and reduction tuning, as data (see :mod:`primitives.tuning`).

Selectors: the mode, ``"inclusive"``, ``"exclusive"`` (segmented_scan) or ``"reduce"``
(segmented_reduce). One provenance line per tuned value; the experiments behind them are in
docs/perf-log/.
"""

from __future__ import annotations

import dataclasses

from .._core import policy as _policy
from .._core.policy import knob

#: the look-back kernels' blocks: whole warps, at least two (segmented.cu's static_asserts)
_TWO_WARPS = _policy.Range(64, 1024, multiple=32)
#: bytes per thread: ITEMS = bytes // width must be 8, 16 or 32 (a thread's head or end bits in
#: one word; segmented.cu's static_asserts) for the 4- and 8-byte types alike
_BYTES = _policy.OneOf(64, 128)


@dataclasses.dataclass(frozen=True)
class ScanPolicy:
    block: int = knob(_TWO_WARPS)  # threads per block of segmented_lookback (a template parameter)
    # bytes per thread of the wider of input and accumulator: ITEMS = bytes // width
    bytes: int = knob(_BYTES)
    # resident blocks per multiprocessor the compiler leaves registers for
    min_blocks: int = knob(_policy.PER_SM)
    # threads per block of the segmented_bounds pre-pass (a warp per word)
    bounds_block: int = knob(_policy.BLOCK)

    def items(self, in_dt, acc_dt):
        return self.bytes // max(in_dt.itemsize, acc_dt.itemsize)


@dataclasses.dataclass(frozen=True)
class ReducePolicy:
    # threads per block of segmented_reduce_tiles (a template parameter)
    block: int = knob(_TWO_WARPS)
    bytes: int = knob(_BYTES)  # bytes per thread of the wider of input and accumulator
    # resident blocks per multiprocessor the compiler leaves registers for
    min_blocks: int = knob(_policy.PER_SM)
    # mean segment length under which loads are per thread, not exchanged
    per_thread_below: int = knob(_policy.Range(0))
    drawn: bool = knob(_policy.Flag())  # tiles drawn from the counter (True) or in block order
    # threads per block of the segmented_upper_bounds pre-pass (a thread per offset)
    bounds_block: int = knob(_policy.BLOCK)
    # a block per segment (segmented_reduce_segments, no pre-pass) from this mean segment length
    # n / nseg on (0: never), with these threads (whole warps, at most 1024: its static_assert),
    # bytes per thread and resident blocks
    per_segment_from: int = knob(_policy.Range(0))
    segment_block: int = knob(_policy.BLOCK)
    segment_bytes: int = knob(_BYTES)
    segment_min_blocks: int = knob(_policy.PER_SM)
    # a block per segment: the most chunks long segments are split into
    split_blocks: int = knob(_policy.Range(1))

    def items(self, in_dt, acc_dt):
        return self.bytes // max(in_dt.itemsize, acc_dt.itemsize)

    def segment_items(self, in_dt, acc_dt):
        return self.segment_bytes // max(in_dt.itemsize, acc_dt.itemsize)


_SCAN = ScanPolicy(
    block=256,  # H100, float32 sums 2^28, equal segments: tools/tune/segmented.py scan policies
    bytes=64,  # H100, as block: 16 four-byte items per thread
    min_blocks=6,  # H100, as block
    bounds_block=256,  # a warp per boundary word, 8 per block (not tuned)
)

TABLE = _policy.register(
    "segmented",
    {
        ("default", "inclusive"): _SCAN,
        ("default", "exclusive"): _SCAN,
        ("default", "reduce"): ReducePolicy(
            block=128,  # H100, float32 sums 2^28, equal and ragged: tools/tune/segmented.py policies
            bytes=128,  # H100, as block: 32 four-byte items per thread
            min_blocks=8,  # H100, as block
            # H100 float32 2^28: 2^16 segments of 4096 exchanged 0.3762 ms vs per thread 0.4022; 2^22
            # of 0..128 0.5393 vs 0.5209; the threshold between the measured means (64, 4096) a guess
            per_thread_below=256,
            drawn=True,  # H100: drawn tiles 1-4% faster than block order (tools/tune/segmented.py)
            bounds_block=256,  # a thread per offset (not tuned)
            # H200, float32 sums 2^28 (tools/probes/segreduce_vs_cub.py sweep, equal and ragged
            # lengths): a block per segment wins from a mean of 2048 (0.3017 vs tiles 0.3096 ms
            # equal, 0.3332 vs 0.4059 ragged), tiles below (mean 1024: 0.3171 vs 0.4454 equal)
            per_segment_from=2048,
            segment_block=256,  # as CUB's reduction policy: 256 threads, 16 four-byte items (not tuned)
            segment_bytes=64,  # as segment_block
            # 8 x 256 threads: the whole multiprocessor; at most 32 registers, no spills (ptxas, sm_90;
            # 94 registers without a bound: 2 blocks)
            segment_min_blocks=8,
            split_blocks=256,  # a guess: at most 256 chunk blocks searching their segment (not tuned)
        ),
    },
    doc="per mode: block, bytes per thread and resident blocks of the segmented kernels; the "
    "reduction's load threshold and tile order; the pre-passes' blocks; the reduction with a "
    "block per segment: from which mean length, its shape and its split of long segments",
)


def current(mode):
    return _policy.current("segmented", mode)

"""Scan tuning, as data (see :mod:`primitives.tuning`).

Selectors: the variant, ``"decoupled_lookback"``, ``"hillis_steele"`` or ``"blelloch"``. One
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


TABLE = _policy.register("scan", {
    ("default", "decoupled_lookback"): LookbackPolicy(
        block=128,  # H100, int32/float32 2^28: 128 x 72 at 94% of copy, 256 x 40 slower (tune/scan)
        bytes=288,  # H100, as block: 72 four-byte items; 64 at 93% of copy, 56 at 92%, 32 slower
    ),
    # the classic block scans' textbook block size (not tuned)
    ("default", "hillis_steele"): HierarchicalPolicy(block=256, add_block=256, add_items=4),
    ("default", "blelloch"): HierarchicalPolicy(block=256, add_block=256, add_items=4),
}, doc="the look-back scan's block and bytes per thread; the classic scans' block sizes")


def current(variant):
    return _policy.current("scan", variant)

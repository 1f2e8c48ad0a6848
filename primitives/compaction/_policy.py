"""Compaction tuning, as data (see :mod:`primitives.tuning`).

One policy for every dtype (selector None), except 16-byte elements (complex128, selector
:data:`WIDE`, their element size), whose exchange buffers and packed tile must fit the kernel's
48 KiB of static shared memory. One provenance line per tuned value; the experiments behind them
are in docs/perf-log/.
"""

from __future__ import annotations

import dataclasses

from .._core import policy as _policy
from .._core.policy import knob

#: the selector of 16-byte elements (their size in bytes)
WIDE = 16
#: the largest tile (block * items) of 16-byte elements: 32 KiB of exchange buffers or packed
#: outputs, under the 48 KiB of static shared memory with the block's scan words
WIDE_MAX_TILE = 2048


@dataclasses.dataclass(frozen=True)
class CompactPolicy:
    block: int = knob(_policy.BLOCK)  # threads per block (a template parameter; the block scan)
    # mask bytes per thread: 16, one 16-byte load (compact_lookback's static_assert)
    items: int = knob(_policy.OneOf(16))


TABLE = _policy.register(
    "compaction",
    {
        # tiles of 4096 elements, 256 threads of one 16-byte mask load each (no recorded sweep)
        ("default", None): CompactPolicy(block=256, items=16),
        # 16-byte elements: not tuned yet; to be measured on an H100 (the largest block whose tile
        # fits the static shared memory)
        ("default", WIDE): CompactPolicy(block=128, items=16),
    },
    doc="the compaction kernel's block and items per thread (16-byte elements: their own)",
)


def fits_wide(pol):
    """Whether a tile of ``pol`` fits the kernel's static shared memory for 16-byte elements."""
    return pol.block * pol.items <= WIDE_MAX_TILE


def current(selector=None):
    """The policy in force for ``selector`` (None: every dtype but the 16-byte ones, and the
    indices; :data:`WIDE`: 16-byte elements)."""
    return _policy.current("compaction", selector)

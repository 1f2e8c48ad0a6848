"""Compaction tuning, as data (see :mod:`primitives.tuning`).

One policy for every dtype (selector None). One provenance line per tuned value; the
experiments behind them are in docs/perf-log/.
"""

from __future__ import annotations

import dataclasses

from .._core import policy as _policy


@dataclasses.dataclass(frozen=True)
class CompactPolicy:
    block: int  # threads per block (a template parameter)
    items: int  # mask bytes per thread: 16, one 16-byte load (the kernel requires 16)


TABLE = _policy.register("compaction", {
    # tiles of 4096 elements, 256 threads of one 16-byte mask load each (no recorded sweep)
    ("default", None): CompactPolicy(block=256, items=16),
}, doc="the compaction kernel's block and items per thread")


def current():
    return _policy.current("compaction")

"""Statistics tuning, as data (see :mod:`primitives.tuning`).

One policy (selector None): the whole-array kernel's block, 16-byte loads in flight and grid cap
(``stat_flat``: the reduction family's production structure, its values to start from), the axis
kernels' block and the shortest chunk of a reduced axis split across threads. One provenance
line per tuned value; the experiments behind them go to docs/perf-log/.
"""

from __future__ import annotations

import dataclasses

from .._core import policy as _policy
from .._core.policy import knob

__all__ = ["StatsPolicy", "TABLE", "current"]


@dataclasses.dataclass(frozen=True)
class StatsPolicy:
    block: int = knob(_policy.BLOCK)  # threads of stat_flat (block_reduce: whole warps, <= 1024)
    vectors: int = knob(_policy.LOADS)  # 16-byte loads in flight per thread of stat_flat
    blocks_per_sm: int = knob(_policy.PER_SM)  # stat_flat's grid: resident blocks per SM, capped
    axis_block: int = knob(_policy.BLOCK)  # threads of stat_rows (whole warps) and stat_cols
    axis_per_sm: int = knob(_policy.PER_SM)  # the axis kernels' grid cap per SM
    # the fewest elements of a reduced axis a thread (a group of lanes for rows) folds before the
    # axis is split across more of them (and a second launch combines the parts)
    min_chunk: int = knob(_policy.Range(1))


TABLE = _policy.register(
    "statistics",
    {
        ("default", None): StatsPolicy(
            # the reduction family's production values (H100, sum float32 2^28: 1024 threads,
            # 4 loads, 2 blocks per SM); not tuned for these aggregates yet: to be measured on
            # an H200 (tools/figures/statistics.py)
            block=1024,
            vectors=4,
            blocks_per_sm=2,
            axis_block=256,  # not tuned yet; to be measured on an H200
            axis_per_sm=8,  # not tuned yet (2048 threads per SM)
            min_chunk=32,  # not tuned yet
        )
    },
    doc="the whole-array kernel's block, loads in flight and grid cap; the axis kernels' block, "
    "grid cap and shortest chunk of a split axis",
)


def current():
    """The policy in force."""
    return _policy.current("statistics")

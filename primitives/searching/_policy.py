"""Search tuning, as data (see :mod:`primitives.tuning`).

One policy for every dtype (selector None): the cached kernel's block, queries per thread and the
bytes of the search tree's top levels kept in shared memory, the binary kernel's block, and the
thresholds at which ``variant="auto"`` sorts the queries first. One provenance line per tuned
value; the experiments behind them go to docs/perf-log/.
"""

from __future__ import annotations

import dataclasses

from .._core import policy as _policy


@dataclasses.dataclass(frozen=True)
class SearchPolicy:
    block: int  # threads per block of search_cached (a template parameter)
    items: int  # queries per thread searched together (ITEMS, the loads in flight per thread)
    tree_bytes: int  # shared memory for the top levels: 2^levels splitters fit in it
    binary_block: int  # threads per block of search_binary
    sorted_min_queries: int  # "auto" sorts the queries first from this many queries...
    sorted_min_n: int  # ... into an array of at least this many elements


TABLE = _policy.register("search", {
    # not tuned yet (to be measured on an H100 with tools.figures --family search): 256 threads
    # of 4 queries, 8192 float32 splitters (13 levels) in 32 KiB; sorting the queries pays off
    # once they are many and the array is well past the 50 MB L2 (estimates, not measurements)
    ("default", None): SearchPolicy(block=256, items=4, tree_bytes=32 * 1024, binary_block=256,
                                    sorted_min_queries=1 << 20, sorted_min_n=1 << 22),
}, doc="searchsorted's cached kernel (block, queries per thread, shared tree bytes), the binary "
       "kernel's block and auto's thresholds for sorting the queries")


def current():
    """The policy in force."""
    return _policy.current("search")

"""Search tuning, as data (see :mod:`primitives.tuning`).

One policy for every dtype (selector None): the cached kernel's block, queries per thread and the
bytes of the search tree's top levels kept in shared memory, the binary kernel's block, the
indexed kernel's block, queries per thread and top level, the sorted variant's tiles, the
bucketed variant's buckets, and the thresholds by which ``variant="auto"`` chooses. One
provenance line per tuned value; the experiments behind them go to docs/perf-log/.
"""

from __future__ import annotations

import dataclasses

from .._core import policy as _policy
from .._core.policy import knob

#: bytes of a block's dynamic shared memory (the kernels stage their part of a in it)
_SHARED = _policy.Range(1, _policy.SHARED_MAX)
#: queries per thread searched together (ITEMS: arrays of that many in registers)
_ITEMS = _policy.Range(1, 32)


@dataclasses.dataclass(frozen=True)
class SearchPolicy:
    block: int = knob(_policy.BLOCK)  # threads per block of search_cached (a template parameter)
    items: int = knob(_ITEMS)  # queries per thread searched together (the loads in flight)
    tree_bytes: int = knob(_SHARED)  # shared memory for the top levels: 2^levels splitters fit
    binary_block: int = knob(_policy.BLOCK)  # threads per block of search_binary
    # sorted queries per thread of search_sorted_tiles (tiles of block x this)
    tile_items: int = knob(_ITEMS)
    # shared memory of search_sorted_tiles: a tile's range of a, when it fits
    tile_bytes: int = knob(_SHARED)
    # threads per block of search_buckets (a template parameter)
    bucket_block: int = knob(_policy.BLOCK)
    # shared memory of search_buckets: a bucket's part of a, when it fits
    bucket_bytes: int = knob(_SHARED)
    # queries a bucket should average (more buckets for more queries)
    bucket_queries: int = knob(_policy.Range(1))
    # at most 2^this buckets: search_scatter's 12 bytes of shared counters per bucket fit a
    # block's shared memory up to 2^14 of them
    bucket_max_levels: int = knob(_policy.Range(1, 14))
    # threads per block of search_indexed (a template parameter; its static_assert: whole warps)
    index_block: int = knob(_policy.BLOCK)
    # queries per thread of search_indexed, searched together (ITEMS)
    index_items: int = knob(_ITEMS)
    index_bytes: int = knob(_SHARED)  # shared memory for the index's top level (its entries fit)
    # "auto" takes "binary" (one launch, no tree) below this many queries,
    binary_max_queries: int = knob(_policy.Range(0))
    # else "indexed" for an a of at least this many bytes...
    indexed_min_bytes: int = knob(_policy.Range(0))
    # ... and at most this many elements per query (the index's build reads a's every 16th
    # element), else "cached"
    indexed_max_ratio: int = knob(_policy.Range(0))
    # a tile of search_indexed whose answers lie in at most this many bytes of a (sorted or
    # nearly sorted queries: search_tile_range's bounds) is searched by search_near, which copies
    # that range into shared memory (this many bytes a block) and skips the index; 0: never (no
    # bounds kernel)
    near_bytes: int = knob(_policy.Range(0))
    # search_tile_range's warp searches this many queries at once (a group of 32 / this lanes
    # each): the first queries of this many tiles less one, and the next tile's first (each
    # tile's range runs from its first query's answer to the next tile's first's)
    range_groups: int = knob(_policy.OneOf(2, 4, 8))  # _kernels.RANGE_GROUPS
    # 1: search_near asks the L2 cache for the next near tile of its batch (range and queries)
    # before it copies the current one's range (util/load.cuh's prefetch_l2); 0: no hint
    near_prefetch: int = knob(_policy.OneOf(0, 1), 0)


TABLE = _policy.register(
    "searching",
    {
        # H200, 2^24 random float32 queries into a sorted random float32 array of 2^26
        # (tools.tune.search; cupy.searchsorted 2.49-2.67 ms in the same runs):
        # cached 256 x 2 with 16 KiB of tree 2.98 ms (x 4 with 32 KiB: 5.1; random reads past the
        # L2 are bound by DRAM sectors, so more queries in flight do not help; binary 2.72);
        # sorted 256 x 4 with a 24 KiB tile range 1.63 ms (x 2: 1.62, x 8: 1.69; 48 KiB: 1.63),
        # of which about 0.45 the radix sort of the queries;
        # bucketed: 256 threads, 48 KiB of a bucket's range, buckets of 1024 queries, at most 2^13:
        # 1.88 ms (bucket 0.34, grouping 0.83, search 0.44, answers back 0.26; 24 KiB: 3.7);
        # indexed (d282b40): 256 x 2 with 64 KiB of top 1.41-1.45 ms in the sweep's rounds, 1.29 in
        # tools.figures' (x 1: 1.62, x 4: 1.65; 16 KiB of top, one level more: 1.67-1.86);
        # auto (tools.tune.search's crossover at d282b40, H200, n 2^16..2^28 x m 2^10..2^24):
        # binary fastest for every n up to m = 2^18 (n 2^26 m 2^18: 0.064 ms, cached 0.072, indexed
        # 0.117: the index's build); from m = 2^20 indexed fastest for n >= 2^20 with at most 64
        # elements per query (n 2^20 m 2^24: 0.867 ms, cached 0.914; n 2^26 m 2^20: 0.173, binary
        # 0.200; n 2^28 m 2^22: 0.672, bucketed 0.734) and for n = 2^18 (1 MiB) from m = 2^22
        # (0.198, cached 0.201; m 2^20: 0.080 against binary's 0.076), cached below (n 2^16 m 2^24:
        # 0.451 against 0.588) and for fewer queries (n 2^28 m 2^20: cached 0.365, indexed 0.392);
        # near tiles (H100, 2^24 float32 queries into 2^26, one interleaved run at b22711f,
        # docs/perf-log/2026-12/search.md): the tile ranges with 2 / 4 / 8 groups a warp took
        # 0.0629 / 0.0350 / 0.0317 ms for sorted queries, 0.0456 / 0.0271 / 0.0219 for random
        # ones; search_near's tiles of 256 x 2 with 16 KiB 0.181 ms, faster than 128 x 2 (8 KiB)
        # 0.199, 256 x 2 (32 KiB) 0.196, 128 x 4 (16 KiB) 0.208 and 256 x 4 (32 KiB) 0.226
        ("default", None): SearchPolicy(
            block=256,
            items=2,
            tree_bytes=16 * 1024,
            binary_block=256,
            tile_items=4,
            tile_bytes=24 * 1024,
            bucket_block=256,
            bucket_bytes=48 * 1024,
            bucket_queries=1024,
            bucket_max_levels=13,
            index_block=256,
            index_items=2,
            index_bytes=64 * 1024,
            binary_max_queries=1 << 19,
            indexed_min_bytes=1 << 20,
            indexed_max_ratio=64,
            near_bytes=16 * 1024,
            range_groups=8,
        )
    },
    doc="searchsorted's cached kernel (block, queries per thread, shared tree bytes), the binary "
    "kernel's block, the indexed kernel (block, queries per thread, top-level bytes), the "
    "sorted variant's tiles, the bucketed variant's buckets and auto's thresholds",
)


def current():
    """The policy in force."""
    return _policy.current("searching")

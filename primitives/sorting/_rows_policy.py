"""The row sort's tuning, as data (see :mod:`primitives.tuning`): the kernels of
``kernels/sorting/rows.cu`` that sort rows of one length each on its own, and the row lengths
each takes.

One policy (selector None): rows of up to 32 keys take ``rows_sort_lanes`` (a lane a key),
rows of up to ``32 * warp_items`` keys ``rows_sort_warp`` (a warp a row), longer rows the
smallest tile of ``tiles`` that holds them (``rows_sort_block``, a block a row), as long as the
tile's shared memory fits; longer rows are sorted device-wide. One provenance line per tuned
value.
"""

from __future__ import annotations

import dataclasses

from .._core import policy as _policy
from .._core.policy import knob


def _tiles_ok(tiles):
    """(block, items) pairs, capacities increasing: blocks of 256, 512, 768 or 1024 threads
    (block_count's digit-major scan: a multiple of 8 warps), positions 16-bit (a tile of at
    most 65536 keys)."""
    caps = [b * i for b, i in tiles]
    return (
        isinstance(tiles, tuple)
        and len(tiles) >= 1
        and all(
            isinstance(b, int) and isinstance(i, int) and b in (256, 512, 768, 1024) and i >= 1
            for b, i in tiles
        )
        and all(c <= 65536 for c in caps)
        and caps == sorted(set(caps))
    )


@dataclasses.dataclass(frozen=True)
class RowsPolicy:
    # warps per block of rows_sort_lanes (rows of up to 32 keys)
    lanes_warps: int = knob(_policy.Range(1, 32))
    # groups of rows a warp of rows_sort_lanes loads before it ranks them (loads in flight)
    lanes_items: int = knob(_policy.Range(1, 16))
    # warps per block of rows_sort_warp (a warp a row)
    warp_warps: int = knob(_policy.Range(1, 32))
    # keys per lane of rows_sort_warp: rows of up to 32 * warp_items keys (1: none, every row
    # above 32 keys takes a block); its shared memory, 8 warps of 8-byte keys and positions,
    # fills SHARED_MAX at 90
    warp_items: int = knob(_policy.Range(1, 90))
    # the tiles of rows_sort_block, smallest first: a row takes the first that holds it
    tiles: tuple = knob(
        _policy.Rule(
            _tiles_ok,
            "a tuple of (block, items) pairs, blocks of 256, 512, 768 or 1024 threads, "
            "capacities block * items increasing and at most 65536",
        )
    )
    # 0: eight ballots a key; 1: shared lane masks (prim::radix::Match)
    match: int = knob(_policy.OneOf(0, 1))


TABLE = _policy.register(
    "sorting_rows",
    {
        # not tuned yet (tools/probes/row_sort.py times them against torch.sort and cupy.sort);
        # reasoning for an H200 (228 KiB of shared memory and 64 K registers an SM):
        # rows_sort_lanes: 8 warps of 4 groups, a few registers a key, occupancy bound by
        # nothing; rows_sort_warp: 8 warps of 8 keys a lane (rows of up to 256), 8 * 3.2 KiB of
        # shared memory for 4-byte keys with positions; rows_sort_block: 256 x 4 (1024 keys),
        # 256 x 8 (2048), 256 x 16 (4096: 25 KiB for 4-byte keys alone, about 56 registers,
        # four blocks an SM), 512 x 16 (8192) and 1024 x 16 (16384: 100 KiB, one block of
        # 1024 an SM at 64 registers); lane masks (onesweep's choice on an H100)
        ("default", None): RowsPolicy(
            lanes_warps=8,
            lanes_items=4,
            warp_warps=8,
            warp_items=8,
            tiles=((256, 4), (256, 8), (256, 16), (512, 16), (1024, 16)),
            match=1,
        )
    },
    doc="the row sort (sort along an axis): the lane, warp and block kernels' shapes and the "
    "row lengths each takes",
)


def rows():
    return _policy.current("sorting_rows")

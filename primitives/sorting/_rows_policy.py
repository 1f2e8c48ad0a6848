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


_TILES = _policy.Rule(
    _tiles_ok,
    "a tuple of (block, items) pairs, blocks of 256, 512, 768 or 1024 threads, capacities "
    "block * items increasing and at most 65536",
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
    # the tiles of rows_sort_block for keys alone, smallest first: a row takes the first that
    # holds it
    tiles: tuple = knob(_TILES)
    # the same with values or argsort's indices (each key's 16-bit position rides along)
    value_tiles: tuple = knob(_TILES)
    # threads of rows_sort_block resident an SM that its __launch_bounds__ keep room for (the
    # kernel's MIN_BLOCKS: resident // block, at least 1): 65536 / resident registers a thread
    resident: int = knob(_policy.Range(256, 2048, multiple=256))
    # 0: eight ballots a key; 1: shared lane masks (prim::radix::Match)
    match: int = knob(_policy.OneOf(0, 1))

    def tiles_for(self, values):
        """The block tiles of keys alone, or with values (``values`` true)."""
        return self.value_tiles if values else self.tiles


TABLE = _policy.register(
    "sorting_rows",
    {
        # not tuned yet (tools/probes/row_sort.py times them against torch.sort and cupy.sort);
        # reasoning for an H200 (228 KiB of shared memory and 64 K registers an SM) and
        # nvcc --resource-usage (sm_90): rows_sort_lanes (48 registers) 8 warps of 4 groups;
        # rows_sort_warp (48 registers) 8 warps of 8 keys a lane, rows of up to 256; the block
        # tiles at 1024 resident threads an SM (64 registers): for keys alone 256 x 16 (4096
        # keys: 63 registers, no spills, 25 KiB of shared memory, four blocks an SM) and 1024 x
        # 16 (16384: 64 registers, no spills for 4-byte keys; 100 KiB, one block an SM), where
        # 512 x 32 takes 126 registers (spills at 64); with values 8 keys a thread (56-64
        # registers, no spills for 4- and 8-byte keys, where 16 spill 76-112 bytes at 64): 512 x
        # 8 for 4096 and 1024 x 8, then 1024 x 16 (spills) for 16384; lane masks (onesweep's
        # choice on an H100)
        ("default", None): RowsPolicy(
            lanes_warps=8,
            lanes_items=4,
            warp_warps=8,
            warp_items=8,
            tiles=((256, 4), (256, 8), (256, 16), (512, 16), (1024, 16)),
            value_tiles=((256, 4), (256, 8), (512, 8), (1024, 8), (1024, 16)),
            resident=1024,
            match=1,
        )
    },
    doc="the row sort (sort along an axis): the lane, warp and block kernels' shapes and the "
    "row lengths each takes",
)


def rows():
    return _policy.current("sorting_rows")

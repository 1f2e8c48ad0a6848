"""Sort tuning, as data (see :mod:`primitives.tuning`).

Selectors: ``(key bytes, value bytes)`` (2, 4 or 8, and 0 for keys only, 4 or 8) for the
onesweep pass kernel; ``"histogram"`` for onesweep's all-pass histogram; ``"classic"``, ``"split"``,
``"segmented"`` and ``"block"`` for the other variants (``"block"`` also says up to which size
``auto`` takes it). One provenance line per tuned value; the experiments
behind them are in docs/perf-log/ (``python -m tools.tune.sort`` sweeps the onesweep tiles).
"""

from __future__ import annotations

import dataclasses
import functools

from .._core import policy as _policy
from .._core.policy import knob

#: keys one portion of onesweep's grid ranks at most: the 29-bit counts of a look-back status
#: word (kernels/sorting/onesweep.cu: COUNT_MASK)
COUNT_LIMIT = (1 << 29) - 1


#: the blocks of the 8-bit digit ranking (sorting/radix.cuh: block_count's scan entries of a
#: thread share a digit only when the warps are a multiple of 8) and of onesweep's look-back
#: (a thread per digit): multiples of 256 threads
_RANK_BLOCK = _policy.Range(256, 1024, multiple=256)
#: keys per thread of the on-chip sorts (sorting/block.cuh): a tile of 256 threads' 4-byte keys
#: and 16-bit positions, after the rank counters, fills SHARED_MAX at 145 (and the positions
#: are 16-bit: block * items <= 65536)
_TILE_ITEMS = _policy.Range(1, 145)


@dataclasses.dataclass(frozen=True)
class OnesweepPolicy:
    block: int = knob(_RANK_BLOCK)  # threads per block of the pass kernel
    # keys per thread: a tile is block * items keys, in dynamic shared memory after the rank
    # counters: 256 threads' 4-byte keys fill SHARED_MAX at 217
    items: int = knob(_policy.Range(1, 217))
    # __launch_bounds__ blocks per SM (the register budget of a thread): 2048 threads a
    # multiprocessor hold at most 8 blocks of 256
    min_blocks: int = knob(_policy.Range(1, 8))
    # predecessor tiles the look-back reads at once (a register each; a generous bound)
    window: int = knob(_policy.Range(1, 32))
    # 0: eight ballots per key; 1: shared lane masks; 2: per pass, ballots where the pass's
    # digits are skewed (``skew``), else lane masks; 3: lane masks, a skewed pass's most frequent
    # digit counted and ranked apart, by one ballot; 4: per pass, 3 where the pass's digits are
    # skewed, else lane masks (prim::radix::Match)
    match: int = knob(_policy.OneOf(0, 1, 2, 3, 4))
    # keys of one portion of the grid, at most COUNT_LIMIT
    portion: int = knob(_policy.Range(1, COUNT_LIMIT), COUNT_LIMIT)
    # tiles ahead: a block prefetches into the L2 cache the keys (and values) of the portion's
    # tile that many ids after its own (0: none; kernels/util/load.cuh, prefetch_l2)
    prefetch: int = knob(_policy.Range(0), 0)
    # match 2 to 4: a pass's digits are skewed when one digit holds at least skew / 256 of the keys
    # (the plan kernel reads the all-pass histogram; 256: only a constant digit, whose pass is
    # skipped anyway)
    skew: int = knob(_policy.Range(1, 256), 256)
    # sets of a warp's digit counters (1, 2 or 4): lane l counts into set l % parts, so the lanes
    # of one shared atomicAdd that share a digit meet on fewer words (prim::radix::block_count)
    parts: int = knob(_policy.OneOf(1, 2, 4), 1)
    # 1: a full tile whose digit is constant is neither counted nor ranked (its keys are in digit
    # order already); the check costs every full tile a comparison a key and one barrier. 2: every
    # tile is counted, and one whose counts put all its keys on one digit is not ranked (the
    # count's closing barrier tells, a __syncthreads_or in place of its __syncthreads)
    constant_tiles: int = knob(_policy.OneOf(0, 1, 2), 0)
    # a second tile for the passes whose digits are spread (0: none, every pass takes the tile
    # above): spread_block x spread_items keys, spread_min_blocks blocks an SM, lane masks (or
    # ballots where match is 0); the plan kernel picks each pass's kernel from the all-pass
    # histogram (``skew``), on the device, and the other kernel's grid skips the pass
    spread_block: int = knob(_policy.Range(256, 1024, multiple=256, zero=True), 0)
    spread_items: int = knob(_policy.Range(1, 217, zero=True), 0)
    spread_min_blocks: int = knob(_policy.Range(1, 8), 1)
    # constant_tiles of the spread tile (-1: constant_tiles'): the spread passes of keys with few
    # distinct values put each tile on one digit once a pass has grouped them
    spread_constant_tiles: int = knob(_policy.OneOf(-1, 0, 1, 2), -1)
    # the fewest keys whose plans take the large-input fields, the spread tile (spread_*) and a
    # ranking other than lane masks (match above 1); plans of fewer keys run every pass in this
    # tile ranked by lane masks (0: every n): a small grid pays for a second pass kernel's
    # launches and for a slower ranking's latency with no throughput to win
    large_from: int = knob(_policy.Range(0), 0)

    def at(self, n):
        """The policy the plans of ``n`` keys take: this one from ``large_from`` keys on, else
        :meth:`one_tile` (made once per policy: plans are looked up with it on every call)."""
        return self if n >= self.large_from else self.one_tile()

    def one_tile(self):
        """This tile alone (no spread tile, no large_from), ranked by lane masks where ``match``
        is above 1: the policy of plans under ``large_from`` keys, and the spread tile's base."""
        return _one_tile(self)

    def conflict(self):
        """What the fields disagree on (policy.check), or None."""
        if (self.spread_block == 0) != (self.spread_items == 0):
            return (
                "fields spread_block and spread_items are set together (a second tile) or both "
                f"0, got {self.spread_block} and {self.spread_items}"
            )
        return None

    def spread(self):
        """The policy of the spread passes' kernel, or None when every pass takes this one's
        tile. ``ValueError`` when the fields disagree (:meth:`conflict`)."""
        text = self.conflict()
        if text:
            raise ValueError(f"tuning: sort policy {text}")
        if not self.spread_block:
            return None
        return dataclasses.replace(
            self.one_tile(),
            block=self.spread_block,
            items=self.spread_items,
            min_blocks=self.spread_min_blocks,
            constant_tiles=(
                self.constant_tiles
                if self.spread_constant_tiles < 0
                else self.spread_constant_tiles
            ),
        )


@functools.lru_cache(maxsize=64)
def _one_tile(pol):
    return dataclasses.replace(
        pol,
        match=min(pol.match, 1),
        spread_block=0,
        spread_items=0,
        spread_constant_tiles=-1,
        large_from=0,
    )


@dataclasses.dataclass(frozen=True)
class HistogramPolicy:
    # threads per block of onesweep_histogram (a template parameter; its static_assert: whole
    # warps)
    block: int = knob(_policy.BLOCK)
    # 16-byte loads in flight per thread: the kernel's VECS, which sizes the grid
    vectors: int = knob(_policy.LOADS)
    # dynamic shared memory: the lane-private counters, the kernel's layout (OsHist::WORDS
    # words: 4 rows of 256 digits x 32 lanes, 4 bytes each), not a choice
    smem: int = knob(_policy.OneOf(4 * 256 * 32 * 4))


@dataclasses.dataclass(frozen=True)
class ClassicPolicy:
    # threads per block of the histogram and scatter kernels (at least 2^bits: a thread per
    # digit, checked by classic_scatter's static_assert)
    block: int = knob(_policy.BLOCK)
    # keys per thread: a tile is block * items keys (a thread's in registers; a generous bound)
    items: int = knob(_policy.Range(1, 64))
    # digit width: 2^bits counters per tile (radix.cuh packs a thread's digits four to a word)
    bits: int = knob(_policy.Range(1, 8))


@dataclasses.dataclass(frozen=True)
class SplitPolicy:
    block: int = knob(_policy.BLOCK)  # threads per block (grid-stride kernels)
    # keys per thread before the grid is capped at the resident blocks (grid size only)
    items: int = knob(_policy.Range(1))


@dataclasses.dataclass(frozen=True)
class SegmentedPolicy:
    # keys per lane of segsort_warp: segments of up to 32 * warp_items keys; its static shared
    # memory (4 warps' counters, 8-byte keys and positions) fills 48 KiB at 29
    warp_items: int = knob(_policy.Range(1, 29))
    block: int = knob(_RANK_BLOCK)  # threads per block of segsort_block
    # keys per thread of segsort_block: segments of up to block * items keys
    items: int = knob(_TILE_ITEMS)


@dataclasses.dataclass(frozen=True)
class BlockPolicy:
    block: int = knob(_RANK_BLOCK)  # threads of block_sort's one block (64 registers a thread)
    # keys per thread for 4-byte keys: up to block * items_4 keys
    items_4: int = knob(_TILE_ITEMS)
    # keys per thread for 8-byte keys (and 16-bit positions: 256 threads fill SHARED_MAX at 87)
    items_8: int = knob(_policy.Range(1, 87))
    auto_4: int = knob(_policy.Range(0))  # the largest n "auto" sorts with "block", 4-byte keys
    auto_8: int = knob(_policy.Range(0))  # the same for 8-byte keys
    # a smaller block for the smallest inputs (0: none): the kernel ranks every slot of its tile
    # in every digit pass, padding included, so few keys sort sooner in a small tile
    small_block: int = knob(_policy.Range(256, 1024, multiple=256, zero=True), 0)
    # keys per thread of the small block, for keys of either width (0 without a small block)
    small_items: int = knob(_policy.Range(1, 87, zero=True), 0)

    def conflict(self):
        """What the fields disagree on (policy.check), or None: the small tile takes both its
        block and its items, and holds fewer keys than the block's tiles."""
        if (self.small_block == 0) != (self.small_items == 0):
            return (
                "fields small_block and small_items are set together (a smaller tile) or both "
                f"0, got {self.small_block} and {self.small_items}"
            )
        small = self.small_block * self.small_items
        if small and small >= min(self.capacity(4), self.capacity(8)):
            return (
                f"the small tile ({self.small_block} x {self.small_items} = {small} keys) holds "
                f"fewer keys than the block's (block x items_4 = {self.capacity(4)}, "
                f"block x items_8 = {self.capacity(8)})"
            )
        return None

    def items(self, kb):
        """Keys per thread for keys of ``kb`` bytes."""
        return self.items_4 if kb == 4 else self.items_8

    def capacity(self, kb):
        """The most keys of ``kb`` bytes the block sorts."""
        return self.block * self.items(kb)

    def auto_max(self, kb):
        """The largest n of keys of ``kb`` bytes that ``auto`` sends to the block sort."""
        return min(self.auto_4 if kb == 4 else self.auto_8, self.capacity(kb))

    def tiles(self, kb):
        """The (block, items) tiles of keys of ``kb`` bytes, smallest first."""
        big = (self.block, self.items(kb))
        return ((self.small_block, self.small_items), big) if self.small_block else (big,)

    def tile(self, kb, n):
        """The (block, items) tile that sorts ``n`` keys of ``kb`` bytes: the smallest that
        holds them."""
        for block, items in self.tiles(kb):
            if n <= block * items:
                return block, items
        return self.tiles(kb)[-1]


def _os(items, prefetch=33, match=1, skew=256):
    # every tile: two blocks of 256 per SM (the register file), look-back over 8 tiles at once,
    # lane masks by default (H100: eight ballots 12-18% slower)
    return OnesweepPolicy(
        block=256, items=items, min_blocks=2, window=8, match=match, prefetch=prefetch, skew=skew
    )


# prefetch (H200, 2^27 random keys, prim.tuning.override, ms with 0 / 16 / 33 / 48 / 66 / 100
# tiles ahead): uint32 keys 2.534 / 2.450 / 2.442 / 2.443 / 2.443 / 2.442; uint32 pairs 3.927 /
# 3.683 / 3.690 / 3.690 / 3.702 / 3.728; uint64 keys 6.696 / 6.731 / 6.675 / 6.672 / 6.665 /
# 6.678; and 0 / 33 in another run: argsort (the pairs' pass) 3.829 / 3.589, uint32 keys with
# 8-byte values 5.227 / 4.942, uint64 keys with 4-byte values 9.547 / 9.594 and 8-byte values
# 12.186 / 12.300 (those two keep 0)
TABLE = _policy.register(
    "sorting",
    {
        # H200, uint32 keys 2^27 (tools.probes.compare_trees, the keys staged as they are ranked):
        # 256 x 44 2.3637 ms, x 46 2.3611, x 41 2.4004, x 48 2.4263 (8 bytes of spills); 256 x 24
        # and x 28 at three blocks 2.4626 and 2.4740 (spills). H100 before: 256 x 41 1.3% faster
        # than x 40, x 42 slower.
        # match 4, skew 32 (a pass whose most frequent digit holds 1/8 of the keys counts and
        # ranks it apart): H200, 2^27 keys at 0b66e8c (tools/probes/sort_ranking.py, one
        # interleaved run), ms with lane masks / match 4: uniform uint32 2.3688 / 2.3648, each
        # bit set with p = 1/8 3.2881 / 2.8876, Zipf(1.2) 3.1055 / 2.6276, float32 uniform
        # [0, 1) 2.6440 / 2.6330, 256 distinct 3.2504 / 3.2480 (CUB 2.7300 / 2.8293 / 2.4261 /
        # 2.9213 / 2.2963). The pairs keep lane masks: match 4 took argsort 3.5855 -> 4.2074 ms
        # on uniform keys (its rank path spills).
        # constant_tiles 2 (a tile whose counts put every key on one digit is not ranked): H100,
        # 2^27 keys at 5862410 (the same probe), ms with 0 / 2: uniform uint32 2.4835 / 2.4918,
        # p = 1/8 2.9136 / 2.9787, 256 distinct 3.2809 / 2.2388, Zipf(1.2) 2.6530 / 2.6867,
        # float32 uniform [0, 1) 2.6773 / 2.7130 (CUB 2.7779 / 2.8070 / 2.4184 / 2.5238 /
        # 2.9337); 1 took 2.5704 / 3.0640 / 2.2675 / 2.7314 / 2.8234. The pairs keep 0: 2 took
        # argsort of uniform keys 4.3804 -> 4.8498 ms
        # The dominant digit is counted by shared atomics as the others (it was counted in
        # registers behind a branch a key until 952f4f2): H100, 2^27 keys at bc13da8, plans made
        # in registers / by atomics timed in one interleaved run, sort ms: uniform uint32 2.4879
        # / 2.4880, p = 1/8 2.9134 / 2.7308, p = 1/4 2.8868 / 2.9167, Zipf(1.2) 2.6184 / 2.4220,
        # float32 uniform [0, 1) 2.6816 / 2.6158, 256 distinct 2.2322 / 2.2367 (CUB 2.7752 /
        # 2.8210 / 2.8836 / 2.5311 / 2.9468 / 2.4359); a p = 1/8 tile counts in 4.3 us, not 5.3
        # skew 24 (a pass whose most frequent digit holds 3/32 of the keys ranks it apart; p = 1/4
        # puts 10% of a pass's keys on digit 0): H100, 2^27 keys at 0ed9d08 (tools/probes/
        # sort_ranking.py, one interleaved run), sort ms with skew 32 / 24 / 16: uniform uint32
        # 2.4804 / 2.4806 / 2.4754, p = 1/4 2.9147 / 2.7463 / 2.7455, p = 1/8 2.7279 / 2.7279 /
        # 2.7279, Zipf(1.2) 2.4241 / 2.4268 / 2.4230 (CUB 2.7846 / 2.8810 / 2.8177 / 2.5213)
        ("default", (4, 0)): dataclasses.replace(_os(44, match=4, skew=24), constant_tiles=2),
        # H100, uint32 pairs 2^27: 256 x 32 4.99 ms (x 28: 5.09; 256 x 16: 6.03). Over the key
        # suite (tools/probes/pairs_tiles.py at 385877f, H100): one block of 512 x 24 an SM takes
        # 11% off uniform, sorted and reversed keys and adds 12-18% on skewed ones (p = 1/8,
        # p = 1/4, Zipf, 256 distinct); pairs + argsort summed over the suite 93.25 ms under
        # 256 x 32, 95.33 under 512 x 24
        # The spread passes take a tile of their own, 512 x 24 (one block an SM) with counted
        # constant tiles, the skewed ones 256 x 32 ranking their dominant digit apart (match 4,
        # skew 24): H100, 2^27 keys with uint32 values at 0af4510 (tools.probes.pairs_tiles, one
        # interleaved run), pairs ms 256 x 32 (lane masks) / this: uniform uint32 4.7581 /
        # 4.5475, p = 1/8 4.2560 / 4.3170, p = 1/4 4.2686 / 4.4506, 256 distinct 4.4944 /
        # 4.1655, sorted 4.8123 / 4.5425, Zipf(1.2) 4.3939 / 4.2149, float32 uniform [0, 1)
        # 4.6590 / 4.6288, float32 normal 4.5255 / 4.5951 (CUB pairs 4.7425 / 4.3627 / 4.5267
        # / 4.0129 / 4.6375 / 4.0899 / 4.5608 / 4.5626); pairs + argsort over the suite 91.81 /
        # 90.40 ms, the worst pairs / CUB 1.120 / 1.038
        # From 2^26 keys on (large_from): below it 256 x 32 with lane masks alone is faster (one
        # pass kernel, no match-4 latency): H100 at 1d75f27 (the same probe at 2^14 to 2^26),
        # pairs ms 256 x 32 / the two tiles as above: 2^14 uniform 0.0605 / 0.0788; 2^20 uniform
        # 0.0789 / 0.0919, Zipf 0.0829 / 0.1038; 2^24 uniform 0.6386 / 0.6694, Zipf 0.6369 /
        # 0.7054, 256 distinct 0.6437 / 0.5892, p = 1/4 0.6133 / 0.7341; 2^25 1.2221 / 1.2442,
        # 1.1806 / 1.2209, 1.2028 / 1.1168, 1.1301 / 1.2732; 2^26 2.3841 / 2.3325, 2.2516 /
        # 2.2116, 2.3005 / 2.1540, 2.1765 / 2.3422
        ("default", (4, 4)): dataclasses.replace(
            _os(32, match=4, skew=24),
            spread_block=512,
            spread_items=24,
            spread_min_blocks=1,
            spread_constant_tiles=2,
            large_from=1 << 26,
        ),
        # H100, uint32 keys + 8-byte values 2^27: 256 x 24 6.81 ms (x 12: 8.17)
        ("default", (4, 8)): _os(24),
        # H200, uint64 keys 2^27, the keys staged as they are ranked: 256 x 26 6.5093 ms (no
        # spills), x 28 6.5799 (16 bytes of spills), x 24 6.6425. H100 before: 256 x 28 7.76 ms
        # (x 24: 7.94)
        # 2-byte keys (two passes over their 16 bits), H200, bfloat16 2^28 (docs/perf-log/
        # 2026-12/sort.md): keys 256 x 32 / 44 / 64 / 88 / 120 2.991 / 2.783 / 3.662 / 4.796 /
        # 7.439 ms; argsort (4-byte index values) 256 x 24 / 32 / 48 4.302 / 4.068 / 5.067 ms;
        # 8-byte values: the 4-byte keys' tile, not measured
        ("default", (2, 0)): _os(44),
        ("default", (2, 4)): _os(32),
        ("default", (2, 8)): _os(24),
        ("default", (8, 0)): _os(26),
        # H100, uint64 keys + 4-byte values 2^27: 256 x 24 13.41 ms (x 12: 16.08)
        ("default", (8, 4)): _os(24, prefetch=0),
        # H100, uint64 pairs 2^27: 256 x 20 16.71 ms (x 12: 18.53)
        ("default", (8, 8)): _os(20, prefetch=0),
        ("default", "histogram"): HistogramPolicy(
            block=1024,  # one block per SM: 128 KB of lane-private counters (not tuned)
            vectors=8,  # H100, uint32 keys 2^27: 0.186 ms (4: 0.194, 2: 0.204)
            smem=4 * 256 * 32 * 4,  # the kernel's layout: 4 rows of 256 digits x 32 lanes, 4 bytes
        ),
        # the classic three-kernel sort's textbook tile: 256 x 16 keys, 4-bit digits (not tuned)
        ("default", "classic"): ClassicPolicy(block=256, items=16, bits=4),
        # the one-bit split sort: 256 threads, 4 keys each (not tuned)
        ("default", "split"): SplitPolicy(block=256, items=4),
        # segments of up to 128 keys per warp, 2048 per block of 256 (not tuned)
        ("default", "segmented"): SegmentedPolicy(warp_items=4, block=256, items=8),
        # one block of 1024 sorts a whole small input: 12288 4-byte keys (108 KiB of shared memory),
        # 10240 8-byte keys (136 KiB; both within sm_80's 163 KiB), no spills at 64 registers
        # (nvcc --resource-usage, sm_90); the auto limits are the capacities
        # H200 (tools.probes.block_sort_sweep at 733d9ce): the block of 1024 beats onesweep at every
        # n up to its capacities, 0.65-0.71x of onesweep's time for 4-byte keys (sort, argsort,
        # pairs), 0.70-0.86x for 8-byte keys; but at n <= 2048 it took 44-47 us (4-byte keys) and
        # 68-74 us (8-byte) against cupy.sort's 31-38 us: its whole tile is ranked whatever n, so
        # inputs of up to 2048 keys take a block of 256 x 8 (segsort_block's tile; not tuned yet)
        ("default", "block"): BlockPolicy(
            block=1024,
            items_4=12,
            items_8=10,
            auto_4=12288,
            auto_8=10240,
            small_block=256,
            small_items=8,
        ),
    },
    doc="onesweep's pass tiles per (key bytes, value bytes) and its histogram; the classic, "
    "split, segmented and block kernels' blocks and items, and the largest input auto sorts "
    "in one block",
)


def onesweep(kb, vb):
    return _policy.current("sorting", (kb, vb))


def histogram():
    return _policy.current("sorting", "histogram")


def classic():
    return _policy.current("sorting", "classic")


def split():
    return _policy.current("sorting", "split")


def segmented():
    return _policy.current("sorting", "segmented")


def block():
    return _policy.current("sorting", "block")

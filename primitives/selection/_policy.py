"""Selection tuning, as data (see :mod:`primitives.tuning`).

Selectors: ``"radix_select"`` for the device-wide radix select (its pass kernel's tile, the digit
widths, the candidate buffers and the largest ``k`` whose winners are ordered by counting),
``"filter"`` for the sample filter in front of it (the filter's tile, the sample, the rank's
margin, the shortest row auto filters), ``"small_k"`` for the block-local candidate sets (tile,
largest k), ``"rows"`` for the block-per-row kernel (its block, the longest row it holds in shared
memory and the largest sorted ``k`` it orders itself), ``"warp_rows"`` for the warp-per-row
kernel (warps per block, keys per lane, candidates staged), ``"quantile"`` for the order
statistics' radix select (tile, digits, slots a block, buffers, when rows are sorted instead)
and ``"partition"`` for when a 1-D partition sorts instead. One provenance line per tuned value; the experiments behind them are in
docs/perf-log/.
"""

from __future__ import annotations

import dataclasses

from .._core import policy as _policy
from .._core.policy import knob

#: the largest k of select_small_k: its per-thread runs hold the tile + 256 candidates
#: (kernels/selection/topk.cu: RUN)
SMALL_K_LIMIT = 256
#: the widest digit the pass kernel counts (its 8192 shared counters, kernels/selection/topk.cu)
MAX_BITS = 13


#: a block of select_rows, select_small_k and the sample's rank: at least a thread per 8-bit
#: digit (topk.cu: digit_bucket's, select_rows' and block_select's static_asserts)
_DIGIT_BLOCK = _policy.Range(256, 1024, multiple=32)


@dataclasses.dataclass(frozen=True)
class RadixSelectPolicy:
    block: int = knob(_policy.BLOCK)  # threads per block of select_pass (a template parameter)
    # keys per thread and tile (a template parameter): whole 16-byte vectors of 4-byte keys, at
    # most 16 (select_pass's static_asserts: two order bits per key in one word)
    items: int = knob(_policy.Range(4, 16, multiple=4))
    # the first digit's width, and the later digits' (the pass kernel counts up to 2^MAX_BITS)
    first_bits: int = knob(_policy.Range(1, MAX_BITS))
    bits: int = knob(_policy.Range(1, MAX_BITS))
    # candidate buffers hold len / buffer_div keys of a row (two of them)
    buffer_div: int = knob(_policy.Range(1))
    # the largest k whose winners select_rank_sort orders (O(k^2) work; 0: never)
    sort_small: int = knob(_policy.Range(0))


@dataclasses.dataclass(frozen=True)
class FilterPolicy:
    block: int = knob(_policy.BLOCK)  # threads per block of select_filter (a template parameter)
    # keys per thread and tile (a template parameter): whole 16-byte vectors, at most 32
    # (select_filter's static_assert: a bit per key)
    items: int = knob(_policy.Range(4, 32, multiple=4))
    # keys of a row's strided sample (select_sample's dynamic shared memory: 8-byte keys fill
    # SHARED_MAX at 29056)
    sample: int = knob(_policy.Range(1, _policy.SHARED_MAX // 8))
    # the sample rank's margin, in standard deviations, over the winners' expected share
    sigmas: float = knob(_policy.Real(0.0))
    # auto filters rows of at least min_ratio * sample keys
    min_ratio: int = knob(_policy.Range(0))


@dataclasses.dataclass(frozen=True)
class SmallKPolicy:
    block: int = knob(_DIGIT_BLOCK)  # threads per block of select_small_k (a template parameter)
    # keys per thread and tile (a template parameter; whole 16-byte vectors: its static_assert);
    # the candidate set of a tile of 256 threads' 4-byte keys, 256 more and their 8-byte
    # indices (dynamic shared memory) fills SHARED_MAX at 74 keys a thread
    items: int = knob(_policy.Range(4, 72, multiple=4))
    # the largest k it takes (at most SMALL_K_LIMIT: its candidate sets hold tile + 256 keys)
    k_max: int = knob(_policy.Range(1, SMALL_K_LIMIT))
    # tiles of the blocks' winners one merging block reads (a level per fold)
    merge_tiles: int = knob(_policy.Range(1))


@dataclasses.dataclass(frozen=True)
class RowsPolicy:
    block: int = knob(_DIGIT_BLOCK)  # threads per block of select_rows (a template parameter)
    # the longest row (in key bytes: 4 or 8 per key) held in (dynamic) shared memory
    row_bytes: int = knob(_policy.Range(8, _policy.SHARED_MAX))
    # the largest k select_rows orders by counting (larger: a segmented sort; 0: never)
    sort_max: int = knob(_policy.Range(0))


@dataclasses.dataclass(frozen=True)
class WarpRowsPolicy:
    # warps (rows) per block of select_warp_rows (a template parameter): at most 1024 threads
    warps: int = knob(_policy.Range(1, 32))
    # the most keys a lane keeps for the threshold: k up to 32 * m_max (the kernel is
    # instantiated for M = 1, 2 and 4)
    m_max: int = knob(_policy.OneOf(1, 2, 4))
    # the candidates a warp stages in shared memory (more: select_rows): a power of two of at
    # least 32 (its bitonic sort); one warp's stage of 12-byte candidates (8-byte keys) fills
    # SHARED_MAX at 19370
    cand_max: int = knob(_policy.Range(32, 16384, pow2=True))
    # the threshold from the row's first chunk only (one read of the row, but about k
    # candidates per chunk to sort) when k * chunks <= one_pass_max (0: never; else two reads)
    one_pass_max: int = knob(_policy.Range(0))


@dataclasses.dataclass(frozen=True)
class QuantilePolicy:
    block: int = knob(_policy.BLOCK)  # threads per block of the passes (a template parameter)
    # keys per thread and tile (a template parameter): whole 16-byte vectors, at most 16 (a
    # tile's counts are packed in 16 bits: quantile_pass's static_assert)
    items: int = knob(_policy.Range(4, 16, multiple=4))
    # the first digit's width (one histogram of 2^first_bits counters a row: at most 8192)
    first_bits: int = knob(_policy.Range(1, MAX_BITS))
    # the later digits' width: group * 2^bits counters in a block's shared memory (8192)
    bits: int = knob(_policy.Range(1, MAX_BITS))
    # slots (ranks) a block of quantile_pass serves, sharing its reads of the row (a template
    # parameter, at most 8: two 64-bit scan words of 16-bit counts)
    group: int = knob(_policy.OneOf(1, 2, 4, 8))
    # a row's candidate buffer (shared by its slots) holds len / buffer_div keys
    buffer_div: int = knob(_policy.Range(1))
    # rows shorter than min_len are sorted (a segmented sort) instead of selected
    min_len: int = knob(_policy.Range(1))
    # the selection's histograms (8 bytes a counter, 2^first_bits a row) at most hist_bytes,
    # else the rows are sorted
    hist_bytes: int = knob(_policy.Range(1))


@dataclasses.dataclass(frozen=True)
class PartitionPolicy:
    # a 1-D argpartition/partition sorts the whole array (a sort is a partition for every kth)
    # when it has at most sort_max_len elements, or when the selection would take more than
    # len / sort_share of them (0: never); otherwise it selects (topk) and compacts the others
    sort_max_len: int = knob(_policy.Range(0))
    sort_share: int = knob(_policy.Range(0))
    # the split by one kth (split.cu): threads a block, keys a thread and tile
    # (whole 16-byte vectors, at most 16: two bits a key's range), and whether its scatter loads
    # the next tile before this tile's work (template parameters)
    split_block: int = knob(_policy.BLOCK)
    split_items: int = knob(_policy.Range(4, 16, multiple=4))
    split_prefetch: int = knob(_policy.OneOf(0, 1))
    # the first level's scatter (the whole rows): resident blocks an SM its registers must allow
    # (__launch_bounds__' second argument; 1: no bound)
    split_row_min_blocks: int = knob(_policy.Range(1, 32))


TABLE = _policy.register(
    "selection",
    {
        # tiles of 256 x 16 keys (one 16-byte load per 4 keys); a 13-bit first digit splits floats
        # of one binade into 16 bins, so the candidates of random floats in [0.5, 1.5) fit buffers of
        # len / 8 keys after it (H200, 2^28: with 12 bits they did not, and a third pass read every
        # key: 3.2 ms for k = 16); the rest not tuned yet
        ("default", "radix_select"): RadixSelectPolicy(
            block=256, items=16, first_bits=13, bits=11, buffer_div=8, sort_small=4096
        ),
        # tiles of 256 x 16 keys; a sample of 8192 keys (32 KiB of 32-bit images); the rank 4
        # standard deviations above the winners' expected share: a miss (the row read again) has a
        # Poisson tail of about 5e-4 for k = 16 and k = 1024 of 2^28 random keys (rank 1 and 2), 1e-5
        # for k = 2^20 (rank 56). H200, float32 2^28 at 9607fb9: k = 16 0.41 ms, k = 1024 0.46,
        # k = 2^20 0.80; the tile and sample not tuned yet
        ("default", "filter"): FilterPolicy(
            block=256, items=16, sample=8192, sigmas=4.0, min_ratio=4
        ),
        # tiles of 256 x 8 keys, candidate sets of 2048 + k; a merging block reads 8 tiles of the
        # winners, so k = 256 over ~900 blocks merges in two levels (not tuned yet)
        ("default", "small_k"): SmallKPolicy(block=256, items=8, k_max=256, merge_tiles=8),
        # rows of up to 8192 float32 (32 KiB of shared memory), 256 threads (not tuned yet)
        ("default", "rows"): RowsPolicy(block=256, row_bytes=32768, sort_max=256),
        # 8 rows per block, stages of 512 candidates (H200, topk of (2^16, 4096) float32, k = 32:
        # 0.82 ms against 0.83 with 256 and 0.91 with 1024, at c0f3731); one pass for k * chunks up
        # to 32 (same rows, at 1e47d71: k = 1 0.45 ms in one pass against 0.68 in two; k = 32 0.81
        # against 0.73, k = 64 1.27 against 0.93: past that the larger sort costs more than the read)
        ("default", "warp_rows"): WarpRowsPolicy(warps=8, m_max=4, cand_max=512, one_pass_max=32),
        # H100, 1-D float32 n = 10^4, kth = 1000 (tools/probes/small_calls, at 222a610): select and
        # compact 1152 us (partition) and 832 us (argpartition), prim.sort 78 us and prim.argsort
        # 96 us; sort_max_len 2^16 and sort_share 4 not measured further yet (at 2^28, k = 2^20,
        # topk took 2.85 ms, prim.sort 4.13 ms: selecting 1/256 of the keys beats sorting them)
        # tiles of 256 x 16 keys as the radix select's; a 13-bit first digit (its argument there),
        # 10-bit later digits for 8 slots a block (three quantiles and their neighbours share one
        # read of the row); a buffer of len / 8 keys a row, its slots' shares taken as their
        # candidates fit (slots of one prefix share theirs): uniform float32 holds len / 32 keys
        # in a top-digit bin near 1, so 0.01, 0.5 and 0.99 fit after the first digit (len / 16
        # left 0.99 reading the row once more); rows under 2^14 keys sorted, and histograms up
        # to 64 MiB (none of it measured yet)
        ("default", "quantile"): QuantilePolicy(
            block=256,
            items=16,
            first_bits=13,
            bits=10,
            group=8,
            buffer_div=8,
            min_len=1 << 14,
            hist_bytes=1 << 26,
        ),
        # sort_share: where the split by the kth values does not take the rows (more than four
        # distinct kth), topk's selection while it takes at most 1 / 100 of the row, else a sort
        # (H200, float32 2^28, at 4c2cc1a: topk's selection for kth = n / 10 took 9.31 ms,
        # against about 2.7 ms for a sort of the array in the sorting figures)
        # split: tiles of 256 x 16 keys, no prefetch (H200, partition / argpartition of float32
        # 2^28 uniform at d913f39, kth 5 and n / 2 under overrides: 1.67-1.68 / 1.86-1.99 ms;
        # prefetch, 256 x 8, 512 x 8, 128 x 16, 512 x 16 within the spread or slower: perf log
        # 2026-12/selection.md)
        ("default", "partition"): PartitionPolicy(
            sort_max_len=1 << 16,
            sort_share=100,
            split_block=256,
            split_items=16,
            split_prefetch=0,
            # 4: argpartition's row scatter takes 76 registers unbounded (3 blocks of 256 an SM),
            # 64 with no spills bounded at 4 (ptxas, sm_90). H200, float32 2^28 at 0b66e8c
            # (tools/probes/partition_paths.py, one interleaved run), ms unbounded / bounded at 4:
            # partition kth 5 1.4427 / 1.2642, n / 2 1.4996 / 1.3018; argpartition kth 5 1.6508 /
            # 1.4065, n / 2 1.7843 / 1.5952 (cupy.partition 6.99, cupy.argpartition 18.14)
            split_row_min_blocks=4,
        ),
    },
    doc="the radix select's tile, digits and buffers; its sample filter; the block-per-row "
    "kernel's block and longest row; the warp-per-row kernel's rows per block and candidates; "
    "the order statistics' radix select; when a 1-D partition sorts instead of selecting",
)


def radix_select():
    return _policy.current("selection", "radix_select")


def filter_():
    return _policy.current("selection", "filter")


def warp_rows():
    return _policy.current("selection", "warp_rows")


def small_k():
    return _policy.current("selection", "small_k")


def rows():
    return _policy.current("selection", "rows")


def quantile():
    return _policy.current("selection", "quantile")


def partition():
    return _policy.current("selection", "partition")

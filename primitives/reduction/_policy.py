"""Reduction tuning, as data (see :mod:`primitives.tuning`).

Selectors: ``"ladder"`` (alpha..epsilon), ``"zeta"``, ``"production"``, ``"rows"``, ``"arg"``
(argmin/argmax), ``"axis"`` (reductions over axes). One provenance line per tuned value; the
experiments behind them are in docs/perf-log/.
"""

from __future__ import annotations

import dataclasses

from .._core import policy as _policy
from .._core.policy import knob

#: the ladder's and zeta's tree: a power of two from 64 to 1024 threads (kernels/reduction/
#: reduce.cu: the ladder's launch contract, epsilon's unrolled last warp; reduce_zeta's
#: static_assert)
_TREE = _policy.Range(64, 1024, pow2=True)


@dataclasses.dataclass(frozen=True)
class LadderPolicy:
    block: int = knob(_TREE)  # threads per block (dynamic shared memory: one accumulator each)


@dataclasses.dataclass(frozen=True)
class ZetaPolicy:
    block: int = knob(_TREE)  # threads per block, a template parameter (the tree unrolled)


@dataclasses.dataclass(frozen=True)
class ProductionPolicy:
    block: int = knob(_policy.BLOCK)  # threads per block (block_reduce)
    vectors: int = knob(_policy.LOADS)  # 16-byte loads in flight per thread
    blocks_per_sm: int = knob(_policy.PER_SM)  # cap on resident blocks per multiprocessor


@dataclasses.dataclass(frozen=True)
class RowsPolicy:
    block: int = knob(_policy.BLOCK)  # threads per block, one row per block (reduce_rows)


@dataclasses.dataclass(frozen=True)
class ArgPolicy:
    block: int = knob(_policy.BLOCK)  # threads per block of the whole-array kernel
    vectors: int = knob(_policy.LOADS)  # 16-byte loads in flight per thread (array and rows)
    blocks_per_sm: int = knob(_policy.PER_SM)  # cap on resident blocks per SM (whole array)
    # threads per block of the rows kernels (whole warps: a warp per short row)
    rows_block: int = knob(_policy.BLOCK)
    # threads per block of the columns kernels (arg_cols, arg_cols_merge; whole warps)
    cols_block: int = knob(_policy.BLOCK)
    # rows up to this length take one warp each, longer ones a block (0: a block each)
    warp_row_max: int = knob(_policy.Range(0))
    # arg_cols cuts a column in parts of at least this many rows (a part's walk amortizes the
    # store and merge of its pair) and in at most cols_max_splits parts (arg_cols_merge walks a
    # column's parts in one thread)
    cols_min_chunk: int = knob(_policy.Range(1), 64)
    cols_max_splits: int = knob(_policy.Range(1, 4096), 64)
    # at most this many of a column's parts walked by one block together (a power of two; each
    # takes cols_block / cols_stack consecutive columns), their pairs combined in shared memory:
    # no partials and no merge launch where the parts fit (1: a thread per part, merged after)
    cols_stack: int = knob(_policy.Range(1, 32, pow2=True), 1)
    # rows of whole 16-byte packets, at most 32 * vectors of them (a warp's loads at once): 1 =
    # each warp issues its next row's loads before it folds this one (arg_rows_pipe); 0 = row by
    # row (arg_rows)
    rows_pipeline: int = knob(_policy.OneOf(0, 1), 0)


@dataclasses.dataclass(frozen=True)
class AxisPolicy:
    block: int = knob(_policy.BLOCK)  # threads per block (a template parameter of every kernel)
    # 16-byte loads in flight per thread (rows, slabs) or rows in flight (columns)
    vectors: int = knob(_policy.LOADS)
    blocks_per_sm: int = knob(_policy.PER_SM)  # resident blocks per multiprocessor the grids aim at
    # split R across blocks only in chunks of at least this many 16-byte loads
    min_chunk: int = knob(_policy.Range(1))
    # rows (a contiguous reduced axis) of at least this many 16-byte packets (and at most
    # slab_max_packets, 0: no bound) are reduced a block per row (axis_slab) rather than a warp
    # per row: where there are rows enough for every resident block, one block of slab_block
    # threads (0: block) a row and a grid of one block per row (no grid-stride loop: the
    # hardware starts a block as another ends, and the resident blocks read a few consecutive
    # rows at a time, not one row a warp each); otherwise a grid of resident blocks of `block`
    # (0: never)
    slab_min_packets: int = knob(_policy.Range(0), 0)
    slab_max_packets: int = knob(_policy.Range(0), 0)
    slab_block: int = knob(_policy.Range(32, 1024, multiple=32, zero=True), 0)
    # short rows, several per 16-byte packet (axis_rows_packed): consecutive packets per thread,
    # 1, 2 or 4 (axis.cu's static_assert; 0: the fewest whose results make a 16-byte store, at
    # most 4: 2 for rows of 2 float32)
    packed_packets: int = knob(_policy.OneOf(0, 1, 2, 4), 0)
    # with several packets per thread: 1 = a warp loads its packets coalesced (lane l: packets
    # l, l + 32, ...) and the lanes exchange their results by shuffles; 0 = each thread loads
    # its own packets, adjacent 16-byte loads
    packed_exchange: int = knob(_policy.OneOf(0, 1), 0)
    # how columns (axis_cols) too few for the device are cut in parts: 1 = at most one wave of
    # units on the threads the kernel keeps resident (its occupancy); 0 = counted as
    # blocks_per_sm blocks of `block` on every SM, rounded up (more than one wave where the
    # kernel's registers allow fewer blocks, a partial one last). Slabs keep blocks_per_sm
    one_wave: int = knob(_policy.OneOf(0, 1), 0)
    # rows of 2 or 4 whole 16-byte packets (at most slab_wide packets; 1: none) reduced along
    # the other axis as slabs (axis_slab: a block reads a contiguous chunk of rows, each thread
    # its packets' positions) rather than as columns (axis_cols: a thread down each packet
    # column): (2^24, 8) float32 along axis 0
    slab_wide: int = knob(_policy.OneOf(1, 2, 4), 1)
    # slabs split across blocks (fewer rows than resident blocks: (256, 2^18) over axis 1): 1 =
    # the block that takes a row's last ticket folds its partials (axis_slab_finish: one
    # launch); 0 = the partials reduced by a further launch
    slab_finish: int = knob(_policy.OneOf(0, 1), 0)
    # slabs' rows are split across blocks only while they number fewer than
    # slab_split_percent / 100 per multiprocessor (0: while fewer than the resident blocks):
    # above it one block a row and one launch, the rows' blocks alone reading at the memory's rate
    slab_split_percent: int = knob(_policy.Range(0), 0)


TABLE = _policy.register(
    "reduction",
    {
        # the classic ladder's textbook block size (not tuned)
        ("default", "ladder"): LadderPolicy(block=256),
        # zeta: 256 threads, as in the textbook (not tuned)
        ("default", "zeta"): ZetaPolicy(block=256),
        ("default", "production"): ProductionPolicy(
            block=1024,  # H100, sum float32 2^28: 256/512/1024 swept with 2/4/8 loads (tune_reduce --sweep)
            vectors=4,  # H100, sum float32 2^28: 3.1 TB/s at 4 loads, 2 and 8 slower
            blocks_per_sm=2,  # H100, sum float32/int32 2^28: 2 per SM best of 1, 2, 4, occupancy
        ),
        # reduce_rows (complex products over axes): not tuned yet; to be measured on an H100
        ("default", "rows"): RowsPolicy(block=256),
        # argmin/argmax (kernels/reduction/arg.cu): block, vectors, blocks_per_sm and warp_row_max
        # not tuned yet (to be measured on an H100); rows_block below
        ("default", "arg"): ArgPolicy(
            block=512,
            vectors=4,
            blocks_per_sm=2,
            # H200, argmax along each axis of C/F (65536, 4096) and (256, 512, 512) float32
            # (tools.probes.arg_policies, rows_block 128/256/512 x vectors 2/4/8): 128 with 4
            # best or within 2% of the best everywhere but C (65536, 4096) axis=0 (0.364 ms;
            # vectors 8: 0.322, but 33% slower rows of 512); C axis=1 0.279 ms (256: 0.330)
            rows_block=128,
            # H100, two runs (tools.probes.arg_policies --stack at c185119 and 5862410, when one
            # block size served rows and columns): blocks of 256 with cols_stack 4 took every
            # columns case 1-6% under 128 with 1 in both (F (65536, 4096) axis=1 0.3818 / 0.3735
            # -> 0.3704 / 0.3695 ms, C axis=0 0.3864 / 0.3852 -> 0.3734 / 0.3723, (256, 512, 512)
            # axis=0 0.1104 / 0.1094 -> 0.1037 / 0.1030, axis=1 0.1115 / 0.1110 -> 0.1071 /
            # 0.1056); the H200's loss at 256 was the rows' (C axis=1, a block a row), which
            # rows_block keeps at 128. Not yet measured on an H200 with stacked parts
            cols_block=256,
            warp_row_max=1024,
            cols_min_chunk=64,  # not tuned yet
            # H200 (tools.probes.arg_policies, 64/128/256/512): C (65536, 4096) axis=0 0.3771 ->
            # 0.3045 ms (67% -> 83% of the limit) from 64 to 128 parts (64 ran half the resident
            # threads); 256 and 512 0.311-0.313; the other five cases within 3% at every value
            cols_max_splits=128,
            cols_stack=4,  # with cols_block 256: above
            rows_pipeline=0,  # not measured yet (tools.probes.arg_policies --stack)
        ),
        ("default", "axis"): AxisPolicy(
            block=256,  # not tuned yet; to be measured on an H100
            vectors=4,  # not tuned yet; to be measured on an H100
            blocks_per_sm=8,  # not tuned yet; to be measured on an H100 (2048 threads per SM)
            min_chunk=8,  # not tuned yet; to be measured on an H100
            # H200, sum(axis=1) of C (65536, 4096) float32 (tools.probes.axis_policies, each policy
            # beside cupy.sum): a warp per row 0.985x CuPy's time (0.975-0.98x in the figures), a
            # block of 256 per row on resident blocks 0.907x, a block of 256 per row one block a
            # row 0.963x, a block of 128 per row one block a row 1.016x (VECS 8: 1.015x); rows of
            # 65536 (F axis 0) and 2^20 lost 1-4% that way, so from 256 to 4096 packets only
            slab_min_packets=256,
            slab_max_packets=4096,
            slab_block=128,
            # H100 (tools.tune.axis at c185119; axis_cols<float, ..., 256, 4>: 52 registers, 4
            # blocks of 256 an SM, not 8): sum(axis=1) of F (65536, 4096) 0.4202 -> 0.3698 ms,
            # C (65536, 4096) axis 0 0.3760 -> 0.3720; the same rule for slabs lost (rows of 2^20
            # 0.3761 -> 0.3960, (256, 512, 512) over (1, 2) 0.1098 -> 0.1122): columns alone
            one_wave=1,
            # the same run: sum(axis=0) of C (2^24, 8) float32 0.2536 -> 0.2000 ms (5 launches
            # -> 2), the other eleven sums within 1%
            slab_wide=4,
            # H100 at 2fffb57 (device times): slab_finish 1 took sum(axis=(1, 2)) of
            # (256, 512, 512) float32 0.0924 -> 0.0950 ms and sum(axis=1) of (256, 2^20) 0.3427 ->
            # 0.3471 (CuPy 0.0893, 0.3415)
            slab_finish=0,
            # H100, sum(axis=1) of (rows, 2^18 or 2^20) float32 at b0860c6, ms split / one block
            # a row (CuPy): (256, 512, 512) over (1, 2) 0.0931 / 0.0900 (0.0893); 132 x 2^18
            # 0.0520 / 0.0532 (0.0532); 192 x 2^18 0.0746 / 0.0701 (0.0695); 512 x 2^18 0.1765 /
            # 0.1728 (0.1719); 136 x 2^20 0.1934 / 0.2001 (0.2036); 160 x 2^20 0.2269 / 0.2234
            # (0.2256); 256 x 2^20 0.3434 / 0.3416 (0.3416). A row's block reads about 21 GB/s
            # alone, so a row a block keeps the memory busy from about 145 rows on this H100 and
            # from about 200 at the H200's rate: split below 1.5 rows per multiprocessor
            slab_split_percent=150,
        ),
    },
    doc="block sizes of the ladder and zeta; the production kernel's block, loads and grid cap; "
    "argmin/argmax's blocks, loads and column parts (stacked in a block or merged after); "
    "the axis kernels' block, loads, grid, split threshold and waves, rows of a few packets "
    "as slabs, and split slabs finished in one launch",
)


def ladder():
    return _policy.current("reduction", "ladder")


def zeta():
    return _policy.current("reduction", "zeta")


def production():
    return _policy.current("reduction", "production")


def arg():
    return _policy.current("reduction", "arg")


def rows():
    return _policy.current("reduction", "rows")


def axis():
    return _policy.current("reduction", "axis")

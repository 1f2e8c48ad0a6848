"""Sets tuning, as data (see :mod:`primitives.tuning`).

One policy (selector None) for the one-pass run kernel of ``kernels/sets/runs.cu``, which
``unique``, ``run_length_encode`` and ``reduce_by_key`` all run. One provenance line per tuned
value; the experiments behind them are in docs/perf-log/.
"""

from __future__ import annotations

import dataclasses

from .._core import policy as _policy
from .._core.policy import knob


@dataclasses.dataclass(frozen=True)
class RunsPolicy:
    # threads per block of runs_lookback (a template parameter, whole warps, >= 64: runs.cu's
    # static_assert)
    block: int = knob(_policy.Range(64, 1024, multiple=32))
    # keys per thread: 16 or 32 (a thread's 1-byte keys fill whole 16-byte vectors; runs.cu's
    # static_assert)
    items: int = knob(_policy.OneOf(16, 32))
    # resident blocks per multiprocessor the compiler leaves registers for: min_blocks for keys
    # of at most 4 bytes with no values or sums of at most 4 bytes, wide_min_blocks for wider
    # items (8-byte keys or sums), which spill sooner (:func:`min_blocks_for`)
    min_blocks: int = knob(_policy.PER_SM, 1)
    wide_min_blocks: int = knob(_policy.PER_SM, 1)
    # 1: a warp parks its results (consecutive runs) in shared memory and writes them out in
    # coalesced rows, where a warp's span of them fits the static shared memory; 0: each lane
    # stores its own
    warp_out: int = knob(_policy.OneOf(0, 1), 1)
    # tiles ahead: a block prefetches into the L2 cache the keys and values of the tile that many
    # ids after its own (0: none; kernels/util/load.cuh, prefetch_l2)
    prefetch: int = knob(_policy.Range(0), 0)


@dataclasses.dataclass(frozen=True)
class UniquePolicy:
    # unique's "count" variant (integer keys of 2 bytes or more; 8-bit keys are always counted
    # over their 256 values): the keys counted in a histogram of their range [min, max] when it
    # holds at most this many bins per key (0: never) and at most count_max_bins bins, else
    # sorted
    count_max_ratio: int = knob(_policy.Range(0))
    count_max_bins: int = knob(_policy.Range(1, 2**31 - 1))
    # "auto" counts from this many keys on (fewer: the sort, without the read back of the
    # minimum and maximum)
    count_min_size: int = knob(_policy.Range(0))


TABLE = _policy.register(
    "sets",
    {
        # tiles of 4096 elements. H200, reduce_by_key of 2^28 float32 under int32 keys in runs of
        # ~16 (5fddea1, one run): 256 x 16 0.849 ms, 256 x 32 0.849, 512 x 16 0.849, 128 x 32 0.863,
        # 128 x 16 0.910 with warp_out=1; 0.872 at 256 x 16 with warp_out=0. At 23e6fd4: 256 x 16
        # 0.845 (warp_out=0: 0.874), 128 x 32 0.852. At 9fd7b31 (the results parked in the pair's
        # walk, 56 registers): min_blocks=5 (48 registers, no spills) 0.820 ms, min_blocks=1 0.876,
        # warp_out=0 0.867. Earlier sweeps of block, items and min_blocks: docs/perf-log/. Wider
        # items keep the compiler's own budget: at five blocks int32's int64 sums and 8-byte keys
        # with float64 sums spilled 304-608 bytes (nvcc -Xptxas -v, sm_90); not timed.
        # prefetch: H200, the same case with the tile 264 ids ahead prefetched (bulk, sm_90) 0.7467
        # ms against 0.7756 without (132: 0.7478; 660: 0.8425, the L2 overrun; 128-byte line
        # prefetches, 66 to 330 ahead: 0.752-0.755).
        ("default", None): RunsPolicy(
            block=256, items=16, min_blocks=5, wide_min_blocks=1, warp_out=1, prefetch=264
        ),
        # H200, 2^27 uint32 keys in [1, 2^20] (tools.figures --family sets at 45e4820): count
        # 1.6695 ms, rle 2.1595 (the histogram of 2^20 bins 1.30 ms, the keys-only sort 1.80).
        # At most a bin per key (the counts no larger than the keys) and 2^22 bins (32 MiB of
        # int64 counts, within the L2): wider ranges not measured yet; from 2^14 keys: not tuned
        ("default", "unique"): UniquePolicy(
            count_max_ratio=1, count_max_bins=1 << 22, count_min_size=1 << 14
        ),
    },
    doc="the run kernel's block and keys per thread (unique, run_length_encode, reduce_by_key); "
    "unique's choice of counting integer keys over their range",
)


def current():
    """The policy in force (the run kernel's)."""
    return _policy.current("sets")


def unique():
    """unique's policy in force: when integer keys are counted over their range."""
    return _policy.current("sets", "unique")


def min_blocks_for(key_bytes, acc_bytes, pol):
    """The run kernel's MIN_BLOCKS under ``pol`` for keys of ``key_bytes`` and sums of
    ``acc_bytes`` (0: no values)."""
    return pol.min_blocks if key_bytes <= 4 and acc_bytes <= 4 else pol.wide_min_blocks

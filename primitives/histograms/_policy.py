"""Histogram tuning, as data (see :mod:`primitives.tuning`).

Selectors: ``"textbook"`` (the book's variants and the sort's key kernel), ``"production"``
(warp_replicated, partial_privatized, global_vectorized: block, grid cap, histogram copies, the
finish, the repeat-call bincount), one per sample dtype name (``"uint8"``, ``"float32"``...: the
production kernels' loads in flight and staging, which depend on the sample size),
``"channels"`` (histogram_channels), ``"dd"`` (histogramdd and histogram2d) and ``"minmax"``
(the autodetected range's kernel). One provenance line per tuned value; the experiments behind
them are in docs/perf-log/.
"""

from __future__ import annotations

import dataclasses

from .._core import policy as _policy
from .._core.policy import knob

#: bytes of shared memory a block may take (the counters' budgets below)
_SHARED = _policy.Range(1, _policy.SHARED_MAX)


@dataclasses.dataclass(frozen=True)
class TextbookPolicy:
    # threads per block of the textbook variants (dynamic shared memory: the bins; any block
    # of whole warps, histogram.cu's launch contract)
    block: int = knob(_policy.BLOCK)


@dataclasses.dataclass(frozen=True)
class ProductionPolicy:
    block: int = knob(_policy.BLOCK)  # threads per block (a template parameter)
    blocks_per_sm: int = knob(_policy.PER_SM)  # cap on resident blocks per multiprocessor
    # histogram copies per block while they take at most lane_copies_bytes (32: one per lane;
    # fewer: warp w counts into copy w % copies)
    lane_copies: int = knob(_policy.Range(1, 32))
    lane_copies_bytes: int = knob(_SHARED)  # bytes the lane copies may take together
    # beyond them: copies per block (a power of two), at most this many...
    max_replicas: int = knob(_policy.Range(1, 32, pow2=True))
    # ... taking at most this many bytes together (at least one copy)
    replica_bytes: int = knob(_SHARED)
    # packet aggregation: one atomic for a packet whose samples share a bin
    aggregate: bool = knob(_policy.Flag())
    # the last block moves up to this many counters to the result (0: never)
    finish_max_bins: int = knob(_policy.Range(0))
    # the same two budgets for weight sums (8-byte counters, summed by compare-and-swap loops)
    weight_lane_copies_bytes: int = knob(_SHARED)
    weight_max_replicas: int = knob(_policy.Range(1, 32, pow2=True))
    # partial_privatized counts beyond the bins 32-bit shared counters hold: 16-bit counters,
    # two a word (twice the bins in shared memory; kernels/histograms/bins.cuh: Packed16)
    packed: bool = knob(_policy.Flag())
    # ... counted with adds that return nothing, the block's samples in rounds with the fields
    # past 0x7fff settled between them (True), or with adds that return the word, a wrap
    # handed over by the add that made it (False)
    packed_bounded: bool = knob(_policy.Flag())
    # the even bins' edge bands over float32 edges (histograms/_binning.py: _guard): a sample
    # within f32_edge_band * eps * nbins * (1 + max|edge| / span) bins of an edge is compared
    # with the edge itself; 3 covers the position's and the edges' rounding (their bound is 2.5),
    # more is room (float64 edges keep 8, near their bound)
    f32_edge_band: int = knob(_policy.Range(3, 64))
    # ... and such a sample's edge computed as linspace computed it (the edges' start and step in
    # the record, kernels/histograms/bins.cuh: BinEvenF32::edge), where that arithmetic
    # reproduces every inner edge (_binning.edge_formula), instead of loaded (False: loaded)
    f32_edges_computed: bool = knob(_policy.Flag())
    # counts of at least this many bins go to the bucketed variant (the bins grouped by ranges
    # of 65,536 first, each range counted in shared memory); 0: never
    bucketed_from_bins: int = knob(_policy.Range(0))
    # ... for float samples (their binning, not the counting, leads at 2^18-2^20 bins: 0: never)
    bucketed_float_from_bins: int = knob(_policy.Range(0))
    # the bucketed tally's 16-bit counters: adds that return nothing, settled between rounds of
    # 32,768 samples (True), or Packed16's adds, each returning its word to catch a wrap (False)
    bucket_tally_bounded: bool = knob(_policy.Flag())


#: cp.async slots per thread: 0 to 32 (util/pack16.cuh: for_each_packet_staged's static_assert)
_STAGES = _policy.Range(0, 32)


@dataclasses.dataclass(frozen=True)
class LoadPolicy:
    vectors: int = knob(_policy.LOADS)  # 16-byte loads in flight per thread (the register walk)
    # warp_replicated counts, one copy per lane: cp.async slots per thread (0: none)
    stages: int = knob(_STAGES)
    stages_few_copies: int = knob(_STAGES)  # the same with fewer copies than lanes


@dataclasses.dataclass(frozen=True)
class ChannelsPolicy:
    # threads per block (a template parameter; loads: the dtype's LoadPolicy)
    block: int = knob(_policy.BLOCK)
    blocks_per_sm: int = knob(_policy.PER_SM)  # cap on resident blocks per multiprocessor


@dataclasses.dataclass(frozen=True)
class DDPolicy:
    # threads per block of histogramdd's kernel (a template parameter)
    block: int = knob(_policy.BLOCK)
    blocks_per_sm: int = knob(_policy.PER_SM)  # cap on resident blocks per multiprocessor
    # shared counters per block at most (capped by the device): the bins beyond them are
    # counted with global atomics (0: every bin)
    shared_bytes: int = knob(_policy.Range(0))
    # counts of more bins than shared_bytes of 32-bit counters hold: 16-bit counters, two a
    # word (Packed16)
    packed: bool = knob(_policy.Flag())
    # ... with adds that return nothing, settled between rounds of the packet walk (True), as
    # the production policy's packed_bounded
    packed_bounded: bool = knob(_policy.Flag())


@dataclasses.dataclass(frozen=True)
class MinmaxPolicy:
    block: int = knob(_policy.BLOCK)  # threads per block (a template parameter; block_reduce)


_PRODUCTION = ProductionPolicy(
    block=1024,  # H100, uint8 and float32 2^28, 256 bins: 1024 threads (tune/histogram.py)
    blocks_per_sm=2,  # H100, uint8 and float32 2^28: two resident blocks per SM
    lane_copies=32,  # H100, uniform uint8 2^28, 256 bins: a copy per lane 0.122 -> 0.097 ms
    lane_copies_bytes=48 * 1024,  # H100: the lane copies of up to 383 bins
    max_replicas=4,  # H100, 256 bins: four copies matched one (4096 bins: one copy 2% faster)
    replica_bytes=16 * 1024,  # H100, 4096 bins: one 16 KiB copy beat two
    aggregate=False,  # H100, uniform uint8/float32: up to 4% slower; all-equal data no faster
    finish_max_bins=4096,  # the last block's move of 4096 counters beat a memset (not swept)
    # H200, float32 samples 2^28, 256 bins, float32 / float64 weights: four copies 2.61 / 2.81
    # ms, one copy 1.66 / 1.73, a copy per lane (66 KiB) 0.737 / 0.956; the lane copies of up
    # to 383 bins, as the counts' (beyond: not measured)
    weight_lane_copies_bytes=96 * 1024,
    weight_max_replicas=1,  # the same run: one copy beat four
    # H200, float32 2^28 over [0, 1): 65,536 bins 1.78 ms packed against 3.14 (4c2cc1a), 1.68
    # against 3.23 (de3ca92); 100,000 bins 2.31 against 3.69 (de3ca92)
    packed=True,
    # H100, tools/probes/wide_bins.py at 31dc353, 2^28 float32 over [0, 1), returning / bounded
    # adds: 65,536 bins 0.894 / 1.219 ms, 131,072 1.363 / 1.679, 262,144 2.702 / 2.712. Loading
    # the next iteration's packets before binning this one's (3033ee3) won nothing at band 3:
    # 0.878-1.077 / 1.194-1.355 / 2.654-2.659 ms against 0.894 / 1.184 / 2.662 (removed)
    packed_bounded=False,
    # the least band the rounding bound allows (_binning._guard: 2.5): at 65,536 bins over [0, 1)
    # 3/32 of float32 samples fall in a band (8: a quarter). H100, tools/probes/wide_bins.py at
    # 5862410, 2^28 float32, 65,536 bins: band 8 / 4 / 2 0.9259 / 0.9077 / 0.8646 ms (2 is below
    # the bound); at 31dc353 band 8 / 4 / 3 0.921 / 0.905 / 0.907
    f32_edge_band=3,
    # H100, tools/probes/wide_bins.py at 508667c, 2^28 float32 over [0, 1), computed / loaded:
    # 65,536 bins 0.891 / 0.904 ms, 131,072 0.965 / 1.125, 262,144 1.977 / 2.716
    f32_edges_computed=True,
    # H100 (tools/probes/wide_bins.py at c185119): integer keys, bincount of 2^27 uint32 over 2^20
    # bins: bucketed 1.33 ms, partial_privatized 1.87, global 1.99; unique(return_counts=True) of
    # 2^27 int32 (~2^20 distinct) 1.563 ms bucketed from 2^17 against 1.963 (0.470x torch, 0.604
    # before); 65,536 bins of uint16 keys stay partial_privatized (0.46 ms against 1.52)
    bucketed_from_bins=1 << 17,
    # the same run, 2^28 float32 samples: 2^18 bins partial 6.86 ms, bucketed 7.63; 2^20 global
    # 7.18, partial 7.70, bucketed 8.43; 2^22 bucketed 9.05, global 13.03, partial 14.42; 2^24
    # bucketed 15.24, partial 27.71
    bucketed_float_from_bins=1 << 22,
    # not measured yet: Packed16's returning adds, as partial_privatized's; the bounded rounds
    # are the alternative tools/probes/wide_bins.py times
    bucket_tally_bounded=False,
)

#: the register walk: 2 loads in flight (H100, float32 2^28, 256 bins: 1, 2, 4 swept)
_LOADS = LoadPolicy(vectors=2, stages=0, stages_few_copies=0)

TABLE = _policy.register(
    "histograms",
    {
        ("default", "textbook"): TextbookPolicy(
            block=256  # the textbook's block size (not tuned)
        ),
        ("default", "production"): _PRODUCTION,
        **{
            ("default", t): _LOADS
            for t in ("int16", "uint16", "int32", "uint32", "int64", "uint64", "float64")
        },
        # bytes: 16 samples of cheap work per packet (H100, uint8 2^28: 4 loads best of 4 and 8)
        ("default", "int8"): dataclasses.replace(_LOADS, vectors=4),
        ("default", "uint8"): dataclasses.replace(_LOADS, vectors=4),
        ("default", "float32"): dataclasses.replace(
            _LOADS,
            stages=5,  # H100, float32 2^28, 256 bins, kernel only: 0.416 ms (registers) -> 0.360
            stages_few_copies=2,  # H100, float32 2^28, 4096 bins: 0.481 -> 0.472 (5: 0.566)
        ),
        ("default", "channels"): ChannelsPolicy(
            block=1024,  # H100, RGB uint8 8192 x 8192: as the production kernel (not swept)
            blocks_per_sm=2,  # as the production kernel (not swept)
        ),
        ("default", "dd"): DDPolicy(
            block=1024,  # not tuned yet; to be measured on an H100
            blocks_per_sm=2,  # not tuned yet (two while the counters allow); to be measured on an H100
            # not tuned yet: all of a block's shared memory (256 x 256 bins: 89% of them in shared
            # memory, one block per SM); to be measured on an H100 against half of it
            shared_bytes=227 * 1024,
            # H200, 2^26 float32 pairs, 256 x 256 bins: 0.514 ms packed against 0.604 (4c2cc1a);
            # 0.432 against 0.434 with two packets in flight a thread (de3ca92)
            packed=True,
            packed_bounded=False,  # not measured yet (tools/probes/wide_bins.py times both)
        ),
        ("default", "minmax"): MinmaxPolicy(
            block=256  # autodetected ranges: one pass, not timed against peers (not tuned)
        ),
    },
    doc="block sizes of the textbook variants, the production kernels' block, grid cap, histogram "
    "copies and finish, loads and staging per sample dtype, histogram_channels, histogramdd, "
    "minmax",
)


def textbook():
    return _policy.current("histograms", "textbook")


def production():
    return _policy.current("histograms", "production")


def loads(dt):
    """The loads policy of samples of dtype ``dt``."""
    return _policy.current("histograms", dt.name)


def channels():
    return _policy.current("histograms", "channels")


def dd():
    return _policy.current("histograms", "dd")


def minmax():
    return _policy.current("histograms", "minmax")

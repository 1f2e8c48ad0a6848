"""The variant choice: each variant's launch shape, the rules that choose ``variant="auto"``, the
production kernel's histogram copies and its staging on the device in use, and the refusals of a
variant the bins do not fit. :func:`check` and :func:`choose` are called from the public
functions' prepare steps only: once per plan, never per repeat call."""

from __future__ import annotations

import dataclasses

import numpy as np

from .._core import backend as _backend, dtypes as _dtypes
from . import _policy
from ._binning import F32, SHARED_SIZE

VARIANTS = (
    "global_atomic_contiguous",
    "global_atomic_interleaved",
    "privatized",
    "coarsened_contiguous",
    "coarsened_interleaved",
    "aggregated",
    "warp_replicated",
    "partial_privatized",
    "global_vectorized",
    "sort_reduce_by_key",
    "bucketed",
)


@dataclasses.dataclass(frozen=True)
class Variant:
    """How a variant is launched. ``kernel``: its ``__global__``; ``shape``: the launch planner
    (:class:`primitives.histograms._plans.CountPlan`; ``"sort"``: the sort then reduce by key);
    ``production``: instantiated with the production policy's BLOCK and the dtype's VECS (and
    warp_replicated with STAGES after them), launched with the production block; otherwise
    launched with the textbook block. ``f32_weights``: also instantiated with float32 weights
    (``WeightAcc<float>``), which it reads as they are; the other variants read float64 weights
    (any other dtype converted first). ``weights``: it sums weights at all (``bucketed`` counts
    samples only)."""

    kernel: str
    shape: str
    production: bool = False
    f32_weights: bool = False
    weights: bool = True


#: every variant's kernel and launch shape: "resident" (a resident grid, global counters),
#: "per_sample" (a thread per sample, the bins in shared memory), "resident_shared" (a resident
#: grid, the bins in shared memory), "replicated" (histogram copies per block, an accumulator and
#: a finish), "partial" (the bins that fit in shared memory), "vectorized" (16-byte loads, global
#: counters), "sort" (bins as sort keys), "bucketed" (the bins grouped by ranges of 65,536, each
#: range counted in shared memory)
VARIANT_TABLE = {
    "global_atomic_contiguous": Variant("hist_global_contiguous", "resident"),
    "global_atomic_interleaved": Variant("hist_global_interleaved", "resident"),
    "privatized": Variant("hist_privatized", "per_sample"),
    "coarsened_contiguous": Variant("hist_coarsened_contiguous", "resident_shared"),
    "coarsened_interleaved": Variant("hist_coarsened_interleaved", "resident_shared"),
    "aggregated": Variant("hist_aggregated", "resident_shared"),
    # the variants auto runs: float32 weights read as they are
    "warp_replicated": Variant(
        "hist_warp_replicated", "replicated", production=True, f32_weights=True
    ),
    "partial_privatized": Variant(
        "hist_partial_privatized", "partial", production=True, f32_weights=True
    ),
    "global_vectorized": Variant("hist_global_vectorized", "vectorized", production=True),
    # the bins as sort keys (radix sort), then a reduction of the runs of equal keys
    "sort_reduce_by_key": Variant("hist_bin_keys", "sort"),
    # wide histograms without global atomics per sample: the samples' bins grouped by their
    # 65,536-bin range (two passes), then each range counted in shared memory (a third)
    "bucketed": Variant("hist_bucket_scatter", "bucketed", production=True, weights=False),
}
assert VARIANTS == tuple(VARIANT_TABLE)


def accumulations(variant):
    """The accumulations (:data:`._binning.ACCS`) ``variant``'s kernel is instantiated with:
    counts and float64 weights, and float32 weights where it reads them (``f32_weights``);
    counts alone where it sums no weights."""
    spec = VARIANT_TABLE[variant]
    if not spec.weights:
        return ("count",)
    return ("count", "weight") + (("weight_f32",) if spec.f32_weights else ())


def accumulation(variant, weights_dtype):
    """What ``variant`` accumulates for weights of ``weights_dtype`` (None: no weights, counts):
    ``"weight_f32"`` for float32 weights where its kernel reads them as they are, ``"weight"``
    for any other dtype (the weights converted to float64 first)."""
    if weights_dtype is None:
        return "count"
    if weights_dtype == F32 and VARIANT_TABLE[variant].f32_weights:
        return "weight_f32"
    return "weight"


def replicas_for(nbins, acc="count", info=None):
    """Copies of the histogram warp_replicated keeps per block: 32 (one per lane: no bank
    conflicts) while they take at most 48 KiB (weight sums: 96 KiB, the same 383 bins);
    otherwise the largest power of two up to four (weight sums: one) whose tables take at most
    16 KiB together (at least one); 0 if one copy does not fit in a block's shared memory. Each
    copy also holds a slot for dropped samples. (The numbers are the production policy's:
    ``primitives.tuning.policy("histogram", "production")``.)"""
    info = info or _backend.get_backend().device_info()
    if nbins > shared_capacity(acc, info):
        return 0
    pol = _policy.production()
    weights = acc != "count"
    lanes = pol.weight_lane_copies_bytes if weights else pol.lane_copies_bytes
    if pol.lane_copies * (nbins + 1) * SHARED_SIZE[acc] <= lanes:
        return pol.lane_copies
    return fewer_copies(nbins * SHARED_SIZE[acc], pol, weights)


def fewer_copies(table, pol, weights=False):
    """The largest power of two up to ``pol.max_replicas`` (weight sums:
    ``pol.weight_max_replicas``) copies of ``table`` bytes that take at most
    ``pol.replica_bytes`` together (at least one)."""
    most = pol.weight_max_replicas if weights else pol.max_replicas
    r = 1
    while r * 2 <= most and 2 * r * table <= pol.replica_bytes:
        r *= 2
    return r


def shared_capacity(acc="count", info=None):
    """Bins a privatized variant can hold in one block's shared memory on the current device
    (one counter less than fit: warp_replicated keeps a slot for dropped samples)."""
    info = info or _backend.get_backend().device_info()
    return info.shared_per_block_optin // SHARED_SIZE[acc] - 1


def shared_bins(nb, acc, budget, packed):
    """The bins of ``nb`` a block counts in ``budget`` bytes of shared memory, the others going
    to global atomics, whether in 16-bit counters, and the shared bytes they take: 32-bit
    counters (or the weights' 8-byte sums) while they hold every bin; counts of more bins with
    ``packed`` (the policy's): two 16-bit counters a word and a spare word
    (kernels/histograms/bins.cuh: Packed16::words), about twice the bins. Returns ``(bins,
    packed, bytes)``."""
    size = SHARED_SIZE[acc]
    if acc == "count" and packed and nb > budget // size:
        sb = min(nb, (budget // 4 - 1) * 2)
        return sb, True, 4 * ((sb + 1) // 2 + 1)
    sb = min(nb, budget // size)
    return sb, False, sb * size


def stage_offset(counters):
    """Byte offset of warp_replicated's staging slots: after ``counters`` bytes of counters,
    rounded up to 16 (kernels/histograms/histogram.cu)."""
    return -(-counters // 16) * 16


def stages_for(dtype, counters, acc="count", info=None, lane_copies=True):
    """Staging slots per thread warp_replicated's kernel takes for samples of ``dtype`` with
    ``counters`` bytes of counters per block (one copy per lane or fewer) on ``info``'s device:
    the dtype's loads policy (``stages``, ``stages_few_copies``) for counts, 0 (the register
    walk) with weights, before sm_80 (no cp.async), or when the slots do not fit next to the
    counters in a block's shared memory. The variant rules (:func:`replicas_for`,
    :func:`shared_capacity`, :func:`auto_variant`) count the counters only: the slots are
    dropped, not the bins."""
    info = info or _backend.get_backend().device_info()
    if acc != "count":
        return 0
    pol = _policy.loads(np.dtype(dtype))
    s = pol.stages if lane_copies else pol.stages_few_copies
    if not s:
        return 0
    cc = info.compute_capability
    if cc.isdigit() and int(cc) < 80:
        return 0
    if stage_offset(counters) + s * _policy.production().block * 16 > info.shared_per_block_optin:
        return 0
    return s


def check(func, variant):
    """``variant`` is ``"auto"`` or one of :data:`VARIANTS` (a ``ValueError`` naming ``func``)."""
    if variant != "auto" and variant not in VARIANT_TABLE:
        raise ValueError(f"{func}: variant must be 'auto' or one of {VARIANTS}, got {variant!r}")


def choose(variant, binning, acc, n, info=None):
    """The variant that counts ``n`` samples binned like ``binning`` into ``acc`` ("count", or a
    weighted accumulation: 8 bytes a bin): ``variant`` itself, or :func:`auto_variant`'s for
    ``"auto"``. A variant that keeps every bin in shared memory is refused (``ValueError``) when
    they do not fit. Where nothing is launched (no samples, no sample kept,
    ``sort_reduce_by_key``) ``variant`` as it is."""
    if n == 0 or binning.empty or variant == "sort_reduce_by_key":
        return variant
    nb = binning.nbins
    if variant == "auto":
        return auto_variant(nb, binning.dtype, acc != "count")
    shape = VARIANT_TABLE[variant].shape
    info = info or _backend.get_backend().device_info()
    if shape in ("per_sample", "resident_shared") and nb > shared_capacity(acc, info):
        raise ValueError(
            f"histogram: variant {variant!r} keeps all {nb} bins in shared memory "
            f"({nb * SHARED_SIZE[acc]} bytes); the device allows "
            f"{info.shared_per_block_optin} per block ({shared_capacity(acc, info)} bins): use "
            f"'partial_privatized' or 'auto'"
        )
    if shape == "bucketed" and acc != "count":
        raise ValueError(
            "histogram: variant 'bucketed' counts samples and takes no weights: use "
            "'partial_privatized' or 'auto'"
        )
    if shape == "bucketed" and nb > BUCKETED_MAX_BINS:
        raise ValueError(
            f"histogram: variant 'bucketed' takes at most {BUCKETED_MAX_BINS} bins (256 ranges "
            f"of 65,536), got {nb}: use 'partial_privatized' or 'auto'"
        )
    if shape == "replicated" and not replicas_for(nb, acc, info):
        raise ValueError(
            f"histogram: variant 'warp_replicated' keeps {nb} bins in shared memory "
            f"({nb * SHARED_SIZE[acc]} bytes); the device allows {info.shared_per_block_optin} "
            f"per block ({shared_capacity(acc, info)} bins): use 'partial_privatized' or 'auto'"
        )
    return variant


#: the most bins ``bucketed`` takes: 256 ranges of 65,536 (kernels/histograms/histogram.cu:
#: MAX_BUCKETS, BUCKET_BITS)
BUCKETED_MAX_BINS = 256 * 65536


def auto_variant(nbins, dtype=np.float32, weighted=False):
    """The variant ``variant="auto"`` runs for ``nbins`` bins of samples of ``dtype``.

    Rule: ``warp_replicated`` while one copy of the histogram fits in a block's shared memory
    (4-byte counters: 58111 bins on an H100, 8-byte weight sums about half as many), with one
    copy per lane up to 383 bins and up to four copies per block beyond (:func:`replicas_for`);
    ``partial_privatized`` beyond that, with the lowest bins in shared memory; counts of at
    least the production policy's ``bucketed_from_bins`` bins (``bucketed_float_from_bins`` for
    float samples; 0: never) and at most :data:`BUCKETED_MAX_BINS` by ``bucketed``.
    The dtype selects the binner, the loads in flight and that threshold. Contention takes no
    decision and no look at the data (which would cost a synchronization): measured on an H100,
    the production kernel runs all-equal and sky-image data faster than uniform data, because the
    hardware merges same-address shared-memory atomics of a warp; per-warp copies and a
    packet-level aggregation (``kernels/histograms/bins.cuh``: ``add_packet``, off by default)
    bring nothing more there.
    """
    acc = "weight" if weighted else "count"
    if replicas_for(nbins, acc):
        return "warp_replicated"
    prod = _policy.production()
    start = prod.bucketed_float_from_bins if _dtypes.is_float(dtype) else prod.bucketed_from_bins
    if not weighted and start and start <= nbins <= BUCKETED_MAX_BINS:
        return "bucketed"
    return "partial_privatized"

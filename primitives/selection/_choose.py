"""Selection's variant choice, in one place: the variant ``"auto"`` takes for a configuration, the
refusals of the variants that hold only some configurations, and when a 1-D partition sorts
instead of selecting. The prepare steps of :mod:`._api` call it once per plan; a repeat call
runs the plan it chose."""

from __future__ import annotations

import numpy as np

from .._core import checks as _checks
from . import _plans, _policy

__all__ = [
    "VARIANTS",
    "key_width",
    "row_fits",
    "filters",
    "warp_k_max",
    "variant",
    "partition_sorts",
    "auto_variant",
    "variant_takes",
]

VARIANTS = ("warp_rows", "rows", "filter", "small_k", "radix_select", "sort")


def key_width(dtype):
    """The bytes of the key bits the kernels read for keys of ``dtype``: 4 or 8 (1- and 2-byte
    keys, bool and float16 among them, as 32-bit images)."""
    return max(4, np.dtype(dtype).itemsize)


def warp_k_max(pol=None):
    """The largest k select_warp_rows takes under the policy (32 keys per M)."""
    pol = _policy.warp_rows() if pol is None else pol
    return 32 * max((m for m in _plans.WARP_MS if m <= pol.m_max), default=0)


def filters(k, length, pol=None):
    """Whether auto puts the sample filter in front of the radix select: rows of at least
    min_ratio samples, and candidates expected (rank * length / sample) within a quarter of the
    buffer."""
    pol = _policy.filter_() if pol is None else pol
    if length < pol.min_ratio * pol.sample:
        return False
    rank = _plans.sample_rank(k, length, pol.sample, pol.sigmas)
    return 4 * rank * length <= pol.sample * (length // _policy.radix_select().buffer_div)


def row_fits(ub, length, pol=None):
    """Whether rows of ``length`` keys of ``ub`` bytes fit the block-per-row kernel."""
    pol = _policy.rows() if pol is None else pol
    return length * ub <= pol.row_bytes


def variant(name, ub, length, k, func):
    """The variant that selects ``k`` (at least 1) of each row of ``length`` keys of ``ub``
    bytes: auto's choice (``"warp_rows"`` for k up to its limit or ``"rows"`` when a row fits
    shared memory, else ``"filter"`` when k is small against the row, else ``"small_k"`` for k
    up to its k_max, else ``"radix_select"``), or the ``name`` given, a ValueError naming
    ``func`` where that variant does not hold the configuration."""
    if name == "auto":
        if row_fits(ub, length):
            return "warp_rows" if k <= warp_k_max() else "rows"
        if filters(k, length):
            return "filter"
        return "small_k" if k <= _policy.small_k().k_max else "radix_select"
    if name in ("rows", "warp_rows"):
        if not row_fits(ub, length):
            longest = _policy.rows().row_bytes // ub
            raise ValueError(
                f"{func}: variant {name!r} holds rows of at most {longest} keys "
                f"of {ub} bytes in shared memory, got {length}; use 'radix_select'"
            )
        if name == "warp_rows" and k > warp_k_max():
            raise ValueError(
                f"{func}: variant 'warp_rows' takes k up to {warp_k_max()} "
                f"(32 keys per lane kept, its policy's m_max), got k={k}; use "
                f"'rows'"
            )
    elif name == "small_k":
        k_max = _policy.small_k().k_max
        if k > k_max:
            raise ValueError(
                f"{func}: variant 'small_k' takes k up to {k_max}, got k={k}; use 'radix_select'"
            )
    return name


def partition_sorts(name, rows, length, m):
    """Whether a partition of ``rows`` rows of ``length`` keys, whose selection would take
    ``m`` of them, sorts instead (a stable sort is a partition for every kth): ``"auto"`` on
    one row that is short or of which the selection would take a large share (the
    ``"partition"`` policy's figures)."""
    pol = _policy.partition()
    return (
        name == "auto" and rows == 1 and (length <= pol.sort_max_len or m * pol.sort_share > length)
    )


def partition_by_ranks(name, rows, length):
    """Whether ``"auto"`` partitions rows by the values of their kth (the order statistics'
    selection and one scatter: :class:`~._partition.RankPartitionRun`, where it takes the rows)
    rather than selecting the keys a kth needs ordered, whatever the kth: but for a 1-D array
    short enough to sort (the ``"partition"`` policy's sort_max_len). H200, float32 2^28
    (tools/probes/partition_paths at de3ca92): the split took 2.44-3.12 ms at kth 5, 1000,
    n / 1000, n / 10 and n / 2, topk's selection 3.20-4.79 ms at the first three."""
    pol = _policy.partition()
    return name == "auto" and (rows > 1 or length > pol.sort_max_len)


# ---- the choice, for the tour and other readers ----------------------------------------------


def auto_variant(dtype, length, k):
    """The variant ``topk(..., variant="auto")`` takes for rows of ``length`` keys of
    ``dtype`` and ``1 <= k <= length`` (under the current tuning policies)."""
    return variant("auto", key_width(dtype), length, k, "auto_variant")


def variant_takes(name, dtype, length, k):
    """Whether the variant ``name`` selects ``k`` of rows of ``length`` keys of ``dtype`` (under
    the current tuning policies): ``"rows"`` and ``"warp_rows"`` hold a row in shared memory,
    ``"warp_rows"`` and ``"small_k"`` take k up to their limits; the others take any."""
    _checks.check_choice(name, VARIANTS + ("auto",), func="variant_takes", arg="name")
    try:
        variant(name, key_width(dtype), length, k, "variant_takes")
    except ValueError:
        return False
    return True

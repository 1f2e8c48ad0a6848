"""Selection: ``topk`` (the k largest or smallest along an axis, as ``torch.topk``),
``argpartition`` and ``partition`` (NumPy's), all built on one selection of the k smallest
order-preserving key images (``kernels/selection/topk.cu``).

Variants (``variant=``):

============  ==================================================================================
warp_rows     a warp per row, k up to 128, rows a block's shared memory holds: each lane keeps
              its smallest keys; the k-th of those is a threshold at or above k keys; the keys
              at or below it are staged and put in order by a warp bitonic sort (rows with
              more, ties, go to ``rows`` through a device-side list). One or two reads of a row
rows          a block per row, the row in shared memory (rows up to the policy's
              ``row_bytes``): an MSD radix select of 8-bit digits over the shared copy, then one
              block scan that writes the winners in index order
filter        ``radix_select`` with a sample filter in front: a threshold from a strided sample
              of the row (the key of a rank a few standard deviations above the winners'
              expected share of it), one read of every key that keeps those at or below it, and
              the radix passes over those candidates only. When the candidates miss some winner
              or overflow the buffer, the passes read the whole row as ``radix_select`` does
small_k       k up to 256 (the policy's k_max), one row or many: each block keeps a candidate
              set of its part of the row in shared memory, admitting only keys below the running
              threshold (the largest of its k best so far) and cutting the set back to k by an
              in-block radix select when it fills; one block per row merges the blocks' winners.
              One read of the keys on random data
radix_select  device-wide, any row length, one row or many in one launch per pass: a histogram
              pass of the top 13 bits of every key, then passes of 11-bit digits over the
              candidates only (compacted into a buffer once they fit) until every candidate
              left is a winner; ties resolved by index digits
sort          the full-sort baseline: ``argsort`` (one row) or ``segmented_sort`` (many), then
              the first k
auto          ``warp_rows`` (k up to 128) or ``rows`` when a row fits the block's shared
              memory, else ``filter`` when k is small against the row (the ``"filter"``
              policy), else ``small_k`` for k up to its k_max, else ``radix_select``
============  ==================================================================================

``quantile``, ``percentile``, ``median`` and their nan-twins (NumPy's) select the order
statistics they need by a multi-rank radix select (``kernels/selection/quantile.cu``), rows
shorter than the ``"quantile"`` policy's min_len by a segmented sort; float32 and float64
results come out of one launch over the selection's state. Weighted quantiles (``weights=``,
``inverted_cdf``) and complex medians sort their slices. With ``variant="auto"``,
``argpartition`` and ``partition`` split rows by the values at their kth (selected the same
way) where the keys a kth needs ordered are a large share of the row.

Equal keys are taken from the lowest indices (a stable selection) and ``sorted=True`` orders
them by index; floats in NumPy's order, NaN the largest.
"""

from __future__ import annotations

from ._api import (
    DTYPES,
    VARIANTS,
    argpartition,
    median,
    nanmedian,
    nanpercentile,
    nanquantile,
    partition,
    percentile,
    quantile,
    topk,
)
from ._choose import auto_variant, variant_takes  # the choice, for the tour and other readers

__all__ = [
    "topk",
    "argpartition",
    "partition",
    "quantile",
    "nanquantile",
    "percentile",
    "nanpercentile",
    "median",
    "nanmedian",
    "VARIANTS",
    "DTYPES",
    "auto_variant",
    "variant_takes",
]

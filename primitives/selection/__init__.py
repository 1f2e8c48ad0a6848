"""Selection: ``topk`` (the k largest or smallest along an axis, as ``torch.topk``),
``argpartition`` and ``partition`` (NumPy's), all built on one selection of the k smallest
order-preserving key images (``kernels/select/topk.cu``).

Variants (``variant=``):

============  ==================================================================================
rows          a block per row, the row in shared memory: an MSD radix select of 8-bit digits
              over the shared copy, then one block scan that writes the winners in index order
              (rows up to the policy's ``row_bytes``)
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
auto          ``rows`` when a row fits the block's shared memory, else ``small_k`` for k up to
              its k_max, else ``radix_select``
============  ==================================================================================

Equal keys are taken from the lowest indices (a stable selection) and ``sorted=True`` orders
them by index; floats in NumPy's order, NaN the largest.
"""

from __future__ import annotations

from ._api import DTYPES, VARIANTS, argpartition, partition, topk

__all__ = ["topk", "argpartition", "partition", "VARIANTS", "DTYPES"]

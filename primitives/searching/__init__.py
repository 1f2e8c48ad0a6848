"""Binary search: ``searchsorted(a, v, side, sorter)`` as NumPy's, for a sorted 1-D ``a`` on the
device and many queries ``v`` (``kernels/searching/searchsorted.cu``).

``side="left"`` is the lower bound of each query (the first index whose element is not less than
it), ``side="right"`` the upper bound (the first index whose element is greater).

Variants (``variant=``):

========  ======================================================================================
binary    one thread per query, a plain binary search in global memory (the teaching variant)
cached    the top levels of the implicit search tree copied once per call into a level-ordered
          array that every block keeps in shared memory; each thread searches several queries
          together
sorted    the queries radix-sorted first (with their positions); each tile of sorted queries
          finds the range of ``a`` its answers lie in, copies it into shared memory when it
          fits and searches there; each answer is written to its query's place
bucketed  each query's bucket (its node at a level of the tree, from the shared tree), the
          queries grouped by bucket (counted and placed through shared memory), a block per
          bucket searching the bucket's range of ``a`` in shared memory, the answers gathered
          back into the queries' order
indexed   a static index over a (every 16th element, every 256th, ... up to a top level that
          shared memory holds), a group of 16 entries read per level; tiles of sorted or nearly
          sorted queries whose answers lie close together bisect that range of a alone
          (``near_bytes``)
auto      ``binary`` for few queries, ``indexed`` for many into an a of at least
          ``indexed_min_bytes``, else ``cached`` (the ``"search"`` policy's thresholds)
========  ======================================================================================

Each runs from a plan per configuration; its tuning is the ``"search"`` family of
:mod:`primitives.tuning`.
"""

from __future__ import annotations

from ._api import searchsorted
from ._checks import DTYPES, VARIANTS

__all__ = ["searchsorted", "VARIANTS", "DTYPES"]

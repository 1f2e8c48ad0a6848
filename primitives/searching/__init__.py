"""Binary search: ``searchsorted(a, v, side, sorter)`` as NumPy's, for a sorted 1-D ``a`` on the
device and many queries ``v`` (``kernels/search/searchsorted.cu``).

``side="left"`` is the lower bound of each query (the first index whose element is not less than
it), ``side="right"`` the upper bound (the first index whose element is greater).

Variants (``variant=``):

======  ========================================================================================
binary  one thread per query, a plain binary search in global memory (the teaching variant)
cached  the top levels of the implicit search tree copied once per call into a level-ordered
        array that every block keeps in shared memory; each thread searches several queries
        together, so several of the bottom levels' random reads are in flight per thread
sorted  the queries radix-sorted first (with their positions), then the cached search, each
        result scattered to its query's place: neighbouring threads then walk neighbouring
        paths and share their cache lines
auto    ``sorted`` for many queries into a large array (the ``"search"`` policy's thresholds),
        else ``cached``
======  ========================================================================================

Each runs from a plan per configuration; its tuning is the ``"search"`` family of
:mod:`primitives.tuning`.
"""

from __future__ import annotations

from ._api import DTYPES, VARIANTS, searchsorted

__all__ = ["searchsorted", "VARIANTS", "DTYPES"]

"""Radix sort family: ``sort``, ``argsort``, ``lexsort``, ``radix_sort`` and
``segmented_sort``.

Variants (``variant=``), each named kernels in ``kernels/sorting/`` built from the helpers of
``kernels/sorting/radix.cuh``:

=========  ====================================================================================
split      one bit per pass: flag the keys whose bit is 0, scan the flags (the project's scan),
           scatter the 0s then the 1s; the teaching variant (``split.cu``)
classic    4-bit digits, three launches per pass: per-tile digit histograms, one scan of them
           (the project's scan), a scatter that ranks each tile in shared memory so writes are
           coalesced (``classic.cu``)
onesweep   8-bit digits: one histogram pass for all digit passes, then one kernel per pass that
           ranks a tile in shared memory and finds its output position by decoupled look-back
           over tiles; passes whose digit is constant are skipped, decided on the device
           (``onesweep.cu``)
block      one block sorts the whole input in registers and shared memory (8-bit digits, constant
           digits skipped): one launch, for inputs up to the block's capacity (``block.cu``; the
           sort of segsort_block, ``block.cuh``)
auto       ``block`` up to the ``"block"`` policy's limit, else ``onesweep``
=========  ====================================================================================

Keys are sorted as unsigned bit patterns (16, 32 or 64 bits) under an order-preserving image
computed on the fly (sign flip for signed integers; for floats NumPy's order: -inf < ... < -0.0 =
0.0 < ... < inf < NaN). ``onesweep`` sorts 16-bit keys (uint16, int16, float16, bfloat16) as their
own bits in two digit passes; the other variants, and 8-bit keys (bool too) everywhere, widen them
to 32 bits first (float16 and bfloat16 to float32 bits of the same order). Complex keys, and the keys of ``lexsort``, sort by order-preserving
images packed into 64-bit words (``primitives._core.keys``), one stable sort of (word, index)
pairs per word. ``sort`` and ``argsort`` along an axis of an N-D array sort the rows of a 2-D view
(``sort_rows``). Every sort is stable.
"""

from __future__ import annotations

from ._api import (
    KEY_DTYPES,
    SORT_DTYPES,
    VARIANTS,
    argsort,
    lexsort,
    radix_sort,
    segmented_sort,
    sort,
)
from ._plans import complex_image  # building blocks of the other families (selection)
from ._rows import sort_rows

__all__ = [
    "sort",
    "argsort",
    "lexsort",
    "radix_sort",
    "segmented_sort",
    "VARIANTS",
    "KEY_DTYPES",
    "SORT_DTYPES",
    "sort_rows",
    "complex_image",
]

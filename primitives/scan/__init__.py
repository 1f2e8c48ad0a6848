"""Scan family: ``inclusive_scan``, ``exclusive_scan``, ``cumsum`` and ``cumprod``.

Variants (``variant=``), each a named kernel in ``kernels/scan/scan.cu``:

====================  =============================================================================
hillis_steele         step-efficient block scan (O(n log n) work, log n steps), double-buffered;
                      multi-block by scanning the block sums and adding them back
blelloch              work-efficient up-sweep/down-sweep block scan (O(n) work), padded shared
                      indices against bank conflicts; same multi-block scheme
decoupled_lookback    single pass: each tile publishes its aggregate, looks back over its
                      predecessors' published values and writes its outputs; one read and one write
auto                  ``decoupled_lookback``
====================  =============================================================================

The look-back scan runs from a plan per configuration (its tile counter and tile states made
once); its tuning is the ``"scan"`` family of :mod:`primitives.tuning`.
"""

from __future__ import annotations

from ._api import OPS, VARIANTS, cumprod, cumsum, exclusive_scan, inclusive_scan
from ._plans import error_depth

__all__ = [
    "inclusive_scan",
    "exclusive_scan",
    "cumsum",
    "cumprod",
    "VARIANTS",
    "OPS",
    "error_depth",
]

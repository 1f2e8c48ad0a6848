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

Files: :mod:`._api` (the public functions on the entry protocol, :mod:`primitives._core.entry`),
:mod:`._checks` (argument checks), :mod:`._choose` (the variant), :mod:`._plans` (kernel names
and the plans of a flat scan), :mod:`._axis` (the scans along an axis), :mod:`._policy`.

Building blocks of the other families and of the Dask layer: :data:`DTYPES` (the dtypes the
scans take), :func:`continued` (a chunk's scan continued from the total before it),
:func:`checked_result_dtype`, :func:`identity` and :data:`UFUNC` (each op's ufunc).
"""

from __future__ import annotations

from ._api import OPS, VARIANTS, continued, cumprod, cumsum, exclusive_scan, inclusive_scan
from ._checks import checked_result_dtype
from ._plans import DTYPES, UFUNC, error_depth, identity

__all__ = [
    "inclusive_scan",
    "exclusive_scan",
    "cumsum",
    "cumprod",
    "VARIANTS",
    "OPS",
    "error_depth",
    # building blocks of the other families and the Dask layer
    "DTYPES",
    "UFUNC",
    "continued",
    "checked_result_dtype",
    "identity",
]

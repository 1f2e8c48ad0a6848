"""Statistics family: the everyday functions around the reductions, as NumPy's: ``nansum``,
``nanprod``, ``nanmin``, ``nanmax``, ``nanargmin``, ``nanargmax``, ``nanmean``, ``nancumsum``,
``nancumprod``, ``var``, ``std``, ``nanvar``, ``nanstd``, ``ptp``, ``count_nonzero``,
``average``.

Each reduction is one pass over the elements (``kernels/statistics/stats.cu``): an aggregate of
``kernels/statistics/aggregates.cuh`` (NaN read as the identity on load; Welford per thread and
Chan's combination for the variance; (min, max) pairs for ptp) run by the whole-array kernel (16-byte
loads, one launch) or the axis kernels (rows, coalesced columns). No variants.

Modules: ``_api`` (the nan-functions), ``_spread`` (var, std, nanvar, nanstd, ptp,
count_nonzero, average), ``_checks`` (argument checks), ``_choose`` (the kernel a layout takes),
``_plans`` (the plans), ``_kernels`` (the instantiations), ``_policy`` (tuning).
"""

from __future__ import annotations

from ._api import (
    nanargmax,
    nanargmin,
    nancumprod,
    nancumsum,
    nanmax,
    nanmean,
    nanmin,
    nanprod,
    nansum,
)
from ._spread import average, count_nonzero, nanstd, nanvar, ptp, std, var

#: the family has no variants: one kernel per layout
VARIANTS: tuple[str, ...] = ()

__all__ = [
    "nansum",
    "nanprod",
    "nanmin",
    "nanmax",
    "nanargmin",
    "nanargmax",
    "nanmean",
    "nancumsum",
    "nancumprod",
    "var",
    "std",
    "nanvar",
    "nanstd",
    "ptp",
    "count_nonzero",
    "average",
    "VARIANTS",
]

"""Histogram family: ``histogram``, ``bincount``, ``histogram_even``, ``histogram_channels`` and the
textbook sequence of variants.

Variants (``variant=``), each a named kernel in ``kernels/histograms/histogram.cu``:

==========================  ======================================================================
global_atomic_contiguous    each thread a contiguous section, a global atomic per sample
                            (uncoalesced loads: the slow one)
global_atomic_interleaved   grid-stride (coalesced) loads, a global atomic per sample
privatized                  one sample per thread, a shared-memory histogram per block, merged with
                            global atomics
coarsened_contiguous        privatized, grid sized to the machine, a contiguous section per thread
coarsened_interleaved       privatized, grid sized to the machine, grid-stride samples per thread
aggregated                  coarsened_interleaved + run aggregation (equal consecutive bins are
                            added in a register before one atomic)
warp_replicated             shared histograms per block (one per lane up to 383 bins, else up to
                            four), 16-byte loads, machine-sized grid: the production kernel while
                            the bins fit in shared memory
partial_privatized          bins beyond shared memory: the first bins in shared memory, the others
                            with global atomics
global_vectorized           the fully global fallback: 16-byte loads, a global atomic per sample
sort_reduce_by_key          the bin of every sample as a key, radix-sorted, then the runs of equal
                            keys counted (or their weights summed by segmented reduction): no
                            atomics on the output
bucketed                    counts of many bins: the bins grouped by ranges of 65,536 (two passes),
                            each range then counted in 16-bit shared counters (no weights)
auto                        see :func:`auto_variant`
==========================  ======================================================================

How a sample finds its bin is separate from how it is counted: ``kernels/histograms/bins.cuh`` holds
the *binners* (the byte itself, a shift for power-of-two integer widths, a table for 8- and
16-bit integers, even bins with an edge check, binary search over arbitrary edges); every variant
is instantiated with each binner, so every variant computes exactly NumPy's bins.

``map=`` (``histogram``, ``histogram_even``) transforms each sample as it is read: every variant's
kernel is instantiated with the map's element type (:class:`primitives._core.ops.Map`: a struct of
one sample whose conversion to the binner's sample type applies the expression), in a source of
its own compiled on first use; the binning is that of the mapped samples.

The package: :mod:`._api` (the public functions, each declared with its prepare step through
:mod:`primitives._core.entry`), :mod:`._checks` and :mod:`._checks_dd` (argument checks of the
1-D functions and of histogramdd), :mod:`._choose` (the variant table and the rules that choose
``"auto"``, copies and staging, and refuse a variant the bins do not fit), :mod:`._binning`
(binnings and exact thresholds), :mod:`._plans` (the plans: binnings in device memory, count
launches, repeat calls, channels) and :mod:`._plans_dd` (histogramdd's), :mod:`._kernels`
(kernel names) and :mod:`._policy` (the tuning, see :mod:`primitives.tuning`).
"""

from __future__ import annotations

from ._api import bincount, histogram, histogram2d, histogram_channels, histogram_even, histogramdd
from ._binning import SAMPLE_DTYPES  # noqa: F401 - re-exported

# building blocks of primitives.dask's histogram and bincount
from ._checks import is_histogram_sample
from ._checks_bincount import check_minlength
from ._choose import (
    VARIANTS,
    auto_variant,
    replicas_for,  # noqa: F401 - re-exported
    shared_capacity,  # noqa: F401 - re-exported
    stage_offset,  # noqa: F401 - re-exported
    stages_for,  # noqa: F401 - re-exported
)

# the count step of primitives.sets' unique (its "count" variant)
from ._plans import range_counts  # noqa: F401 - re-exported

__all__ = [
    "histogram",
    "bincount",
    "histogram_even",
    "histogram_channels",
    "histogram2d",
    "histogramdd",
    "auto_variant",
    "VARIANTS",
    "is_histogram_sample",
    "check_minlength",
]

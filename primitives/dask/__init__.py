"""The primitives on Dask arrays: ``dask.array`` arrays whose chunks are CuPy arrays (one worker
per GPU) or NumPy arrays (no GPU: the emulator), in ordinary Dask task graphs that any scheduler
runs (threads, ``distributed``, ``dask_cuda.LocalCUDACluster``).

Each function takes and returns ``dask.array`` arrays and runs this library's kernels on each
chunk; Dask does the scheduling, spilling and transfers: the sample sort (``sort``,
``argsort``), ``topk`` with a tree merge, ``spmv`` of a row-partitioned ``CSR``, the scans
(``cumsum``, ``cumprod``, ``inclusive_scan``, ``exclusive_scan``: seeded chunk scans), the
reductions (``sum``, ``prod``, ``min``, ``max``, ``mean``, ``any``, ``all``, ``argmin``,
``argmax``: per-chunk reductions and a tree of partial results, Dask's ``reduction``) and the
histograms (``histogram``, ``bincount``: per-chunk counts into the same bins, summed); see
docs/dask.rst.
"""

from __future__ import annotations

from ._histogram import bincount, histogram
from ._argreduce import argmax, argmin
from ._reduce import all, any, max, mean, min, prod, sum  # noqa: A004 - NumPy's
from ._scan import cumprod, cumsum, exclusive_scan, inclusive_scan
from ._sort import argsort, sort
from ._spmv import CSR, spmv
from ._topk import topk

__all__ = [
    "sort",
    "argsort",
    "topk",
    "CSR",
    "spmv",
    "cumsum",
    "cumprod",
    "inclusive_scan",
    "exclusive_scan",
    "sum",
    "prod",
    "min",
    "max",
    "mean",
    "any",
    "all",
    "argmin",
    "argmax",
    "histogram",
    "bincount",
]

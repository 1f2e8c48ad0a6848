"""Segmented scan and segmented reduction (``kernels/segmented/segmented.cu``).

Both are one pass of the decoupled look-back scan over (value, head) pairs, balanced over
elements rather than segments: each thread block takes a fixed-size tile of elements whatever
the segment lengths, so many tiny segments and a few huge ones cost about the same. With offsets,
a small pre-pass first records where each tile's offsets begin; each tile then builds a bitmap of
its segment heads (scans) or ends (reduction) in shared memory. The reduction keeps no scanned
value per element: each thread sums its runs in registers, and only the run open at its start
takes what came before it. A reduction of segments long on average runs a block per segment
instead, with no pre-pass (its longest segments split among blocks by chunks of the array).

Each runs from a plan per configuration (tile counter, tile states and tile bounds made once);
its tuning is the ``"segmented"`` family of :mod:`primitives.tuning`, one policy per mode.

Files: :mod:`._api` (the public functions on the entry protocol, :mod:`primitives._core.entry`),
:mod:`._checks` (argument checks), :mod:`._choose` (the reduction's variant), :mod:`._plans`
(kernel names, plans and the runs of later calls), :mod:`._policy`. :func:`scan_plan` (the
look-back plan of a segmented scan) is a building block of the scans along an axis.
"""

from __future__ import annotations

from ._api import segmented_reduce, segmented_scan
from ._plans import scan_plan  # a building block of the other families (scan, along an axis)

__all__ = ["segmented_scan", "segmented_reduce", "scan_plan"]

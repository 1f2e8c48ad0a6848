"""Stream compaction: ``compact(x, mask)`` (as ``x[mask]``) and ``compact_indices(mask)`` (as
``numpy.flatnonzero(mask)``), each one pass of the decoupled look-back scan fused with the scatter
(``kernels/compaction/compact.cu``).

Each runs from a plan per configuration (tile counter, tile states and the count made once); its
tuning is the ``"compaction"`` family of :mod:`primitives.tuning`.

Files: :mod:`._api` (the public functions on the entry protocol, :mod:`primitives._core.entry`),
:mod:`._checks` (argument checks), :mod:`._plans` (kernel names and plans), :mod:`._policy`.
"""

from __future__ import annotations

from ._api import compact, compact_indices
from ._plans import compact_plan, prefetch_plan  # building blocks of the other families

__all__ = ["compact", "compact_indices", "compact_plan", "prefetch_plan"]

"""Sets: ``unique`` (as :func:`numpy.unique`), ``run_length_encode`` and ``reduce_by_key`` (CUB's
run-length encoding and reduce-by-key over consecutive equal keys).

All three run one kernel, ``kernels/sets/runs.cu``: a single pass of the decoupled look-back
scan over (op-sum since the last run head, number of heads) pairs, writing each run's first key
and its count or reduction. ``unique`` sorts first (:func:`primitives.sort`, keys only, or keys
and an index when the first indices or the inverse are asked for) and runs it once over the
sorted keys: one sort and one pass.

Variants of ``unique`` (``variant=``):

=======  =====================================================================================
rle      sort, then one pass of the run kernel: unique elements and counts at once
compact  sort, head flags (a comparison of neighbours), :func:`primitives.compact` of the heads
         and :func:`primitives.compact_indices` for the counts: the several passes of NumPy's
         and CuPy's formulation, kept for comparison
auto     ``rle``
=======  =====================================================================================

Each runs from a plan per configuration (tile counter, tile states and the count made once);
the tuning is the ``"sets"`` family of :mod:`primitives.tuning`.
"""

from __future__ import annotations

from ._api import OPS, VARIANTS, reduce_by_key, run_length_encode, unique

__all__ = ["unique", "run_length_encode", "reduce_by_key", "VARIANTS", "OPS"]

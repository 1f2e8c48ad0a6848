"""Variant choice: the kernel ``variant="auto"`` runs (:func:`choose`, called where a product is
prepared), and csr_vector's group width."""

from __future__ import annotations

import numpy as np

from . import _base, _checks, _policy
from ._ell import skips_empty


def _vector_policy(dtype):
    """The ``("csr_vector", dtype name)`` policy in force; a dtype without its own takes
    float32's."""
    dt = np.dtype(dtype)
    return _policy.current_vector(dt.name if dt in _base.VALUE_DTYPES else "float32")


def vector_lanes(mean, dtype=np.float32):
    """``csr_vector``'s lanes per row, from the mean row length and the value type.

    Measured on an H100 over the suite's even matrices (``tools/figures/spmv.py``): the best
    group is narrower than the row, as each lane then walks a few consecutive entries whose
    cache lines it reuses, and more rows share a warp. float32 rows of fewer than 8 entries get
    2 lanes, of fewer than 16 get 4, of fewer than 96 get 8 (the 27-point stencil's 27 entries
    ran 7% faster on 8 lanes than on 4), longer ones about one lane per 12 entries; float64 rows
    (12 bytes per entry with int32 indices) get about one lane per 2 entries. Always a power of
    two between 2 and 32. complex64 and complex128 rows take float64's rule (not tuned yet).
    (The rule is the ``("csr_vector", dtype name)`` policy of :mod:`primitives.tuning`'s
    ``"spmv"`` family; a dtype without its own policy takes float32's.)
    """
    pol = _vector_policy(dtype)
    if pol.lanes:
        return pol.lanes
    for below, lanes in pol.steps:
        if mean < below:
            target = lanes
            break
    else:
        target = mean / pol.per_lane
    for lanes in _policy.LANES:
        if target <= lanes:
            return lanes
    return _policy.LANES[-1]


def choose_variant(A):
    """The kernel ``variant="auto"`` runs for ``A`` (a container or a SciPy/CuPy matrix).

    A matrix already in ELL, COO or HYB runs that format's kernel. For CSR the row statistics
    (:meth:`primitives.sparse.CSR.row_stats`, computed once per container) decide, in order:

    * at least 2^16 rows, the longest at most 2 times the mean (ELL's padding at most the
      nonzeros): ``ell``, on a conversion made at the first product and kept on the container
      (its arrays cost up to twice the memory of the CSR ones). One thread per row reads its
      entries column-major, every load of a warp coalesced, with no row pointers. Rows and mean
      count the rows the conversion stores: without the empty ones when their padding would
      outweigh the matrix's rows (:class:`primitives.sparse.ELL`'s ``skip_empty``), so that a
      matrix of many empty rows and even others runs ELL over the others;
    * rows *even* (coefficient of variation at most 0.5, longest row at most 4 times the mean),
      fewer than 2^16 (too few for ELL's thread per row), and enough of them to fill the GPU
      with groups of :func:`vector_lanes` lanes (rows x lanes at least 2^15 threads for
      float32, 2^17 for the wider types: the ``("csr_vector", dtype)`` policy's
      ``min_threads``): ``csr_vector``;
    * otherwise ``merge_path``: skewed rows, a few long rows or many empty rows (its tiles hold
      the same number of rows plus nonzeros whatever the lengths, so every thread has work).

    The measurements behind the thresholds are in the ``"auto"`` policy's comment and
    docs/spmv.rst; pass a variant by name to keep a CSR container unconverted.

    (The thresholds are the ``"auto"`` policy of :mod:`primitives.tuning`'s ``"spmv"`` family.)
    """
    M = _checks.as_matrix(A, func="choose_variant")
    if M.format != "csr":
        return M.format
    s = M.row_stats()
    if s.rows == 0 or s.nnz == 0:
        return "csr_scalar"
    pol = _policy.auto()
    stored = s.rows - s.empty if skips_empty(s, s.max) else s.rows  # the rows ELL would hold
    if (
        pol.ell_max_fill
        and stored >= pol.ell_min_rows
        and stored * s.max <= pol.ell_max_fill * s.nnz
    ):
        return "ell"
    even = s.cv <= pol.even_cv and s.max <= pol.even_max_over_mean * s.mean
    if (
        even
        and s.rows < pol.ell_min_rows
        and s.rows * vector_lanes(s.mean, M.dtype) >= _vector_policy(M.dtype).min_threads
    ):
        return "csr_vector"
    return "merge_path"


def choose(M, variant):
    """The variant a product of container ``M`` runs: ``variant`` itself, or for ``"auto"``
    :func:`choose_variant`'s (its row statistics: computed once per container)."""
    return choose_variant(M) if variant == "auto" else variant

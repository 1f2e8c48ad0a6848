"""Sparse matrices on the device, ``CSR``, ``ELL``, ``COO`` and ``HYB``, and their product
``spmv(A, x, y=, alpha=, beta=, variant=)``: y <- alpha*A*x + beta*y.

Each container holds one matrix in one format, in the backend's memory (CuPy arrays on the GPU,
NumPy arrays on the emulator), with float32, float64, complex64 or complex128 values and int32
indices (int64 when the nonzeros or a dimension reach 2^31, or on request). Build one from a
``scipy.sparse`` or ``cupyx.scipy.sparse`` matrix (any format: duplicates are summed and column
indices sorted on the way in) or from another container (converted on the device);
``to_scipy()`` and ``to_cupy()`` hand it back.

============  ==================================================================================
CSR           row pointers (m+1), column indices and values (nnz each), rows in order
ELL           every row padded to ``width`` slots, stored column-major (slot k of row r at
              ``k*ld + r``, ``ld`` = m rounded up to 32) so that consecutive rows are adjacent;
              padding: column -1, value 0. Rows without entries may be left out: ``rows``
              then lists the stored rows (``skip_empty``)
COO           row index, column index and value per nonzero, sorted by row, then column
HYB           an ELL part of a chosen ``width`` plus the entries past it in a COO part
============  ==================================================================================

Containers are immutable views of their arrays: a conversion may share arrays with its source
(CSR to COO shares the column indices and values), so never write to them.

``row_stats()`` summarizes the row lengths (mean, max, coefficient of variation, empty rows);
:func:`primitives.spmv` with ``variant="auto"`` chooses its kernel from it. ``nbytes`` is the
format's footprint: what a product must read of the matrix.

SpMV variants (``variant=``), each a named kernel in ``kernels/sparse/``:

============  ==================================================================================
csr_scalar    CSR, one thread per row
csr_vector    CSR, a group of 2..32 lanes per row (width from the mean row length), shuffle sum
ell           ELL, one thread per row over column-major padded slots
coo           COO, a segmented reduction over row keys (tiles, then a carry fix-up)
hyb           HYB: the ELL kernel on the ELL part, then the COO kernel on the overflow
merge_path    CSR, merge-based load balancing over rows and nonzeros (Merrill & Garland)
auto          by format; for CSR from the row statistics (see :func:`choose_variant`)
============  ==================================================================================

A variant runs on its format: a matrix in another format is converted on the device first (for
repeated products, convert once). ``primitives.spmv`` is the function; this package holds it
with the containers (``from primitives.sparse import VARIANTS, choose_variant``).

Modules: ``_base`` (dtypes, row statistics, the containers' base), ``_csr``, ``_coo``,
``_ell``, ``_hyb`` (one container each), ``_convert`` (the conversions between formats),
``_checks`` (foreign matrices and spmv's arguments), ``_choose`` (variant choice), ``_kernels``
(kernel names), ``_plans`` (plans), ``_api`` (the function), ``_policy`` (tuning);
``matches`` and ``reference``, the SciPy reference the tests and the tour check against, come
from :mod:`primitives.testing.oracle`.
"""

from __future__ import annotations

from ._base import (
    DEFAULT_MAX_FILL,  # noqa: F401 - re-exported
    ELL_ALIGN,  # noqa: F401 - re-exported
    FORMATS,
    INDEX_DTYPES,
    VALUE_DTYPES,
    RowStats,
)
from ._checks import (
    VARIANTS,
    as_matrix,  # noqa: F401 - re-exported
    check_value_dtype,  # noqa: F401 - re-exported: primitives.dask's CSR checks its dtype
)
from ._choose import choose_variant, vector_lanes
from ._coo import COO
from ._csr import CSR
from ._ell import ELL, skips_empty  # noqa: F401 - re-exported
from ._hyb import HYB, hyb_width  # noqa: F401 - re-exported
from ..testing.oracle import spmv_matches as matches, spmv_reference as reference
from ._plans import FORMAT_OF, LANES  # noqa: F401 - re-exported
from ._api import spmv

__all__ = [
    "CSR",
    "ELL",
    "COO",
    "HYB",
    "RowStats",
    "FORMATS",
    "VALUE_DTYPES",
    "INDEX_DTYPES",
    "spmv",
    "choose_variant",
    "vector_lanes",
    "VARIANTS",
    "FORMAT_OF",
    "matches",
    "reference",
]

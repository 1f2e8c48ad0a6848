"""Conversions between the formats on the device: the wrappers of ``kernels/sparse/convert.cu``
(its names: :func:`._kernels.convert_names`).

Each is a one-off grid-stride launch over its items (checked per call: its grid follows the
matrix); the prefix sums that turn row lengths into row offsets run on the array library.
"""

from __future__ import annotations

from .._core import backend as _backend, launch as _launch
from . import _kernels, _policy
from ._kernels import cname as _ct


def _launch_over(name, n, args):
    """Launch conversion kernel ``name`` (a grid-stride loop) over ``n`` > 0 items."""
    k = _kernels.convert_module()(name)
    block = _policy.convert().block
    _launch.launch(k, _launch.cover_grid(n, block, kernel=k), block, args)


def _xp():
    return _backend.get_backend().xp


def expand_rows(indptr, m, nnz):
    """The row of each of the ``nnz`` entries of a CSR's row pointers (CSR -> COO)."""
    rows = _xp().empty(nnz, dtype=indptr.dtype)
    if nnz:
        _launch_over(
            f"sparse_expand_rows<{_ct(indptr.dtype)}>",
            nnz,
            (indptr, _launch.i64(m), _launch.i64(nnz), rows),
        )
    return rows


def rowptr_from_rows(row, nnz, m):
    """Row pointers (m + 1) of the sorted row indices ``row`` (COO -> CSR)."""
    rowptr = _xp().empty(m + 1, dtype=row.dtype)
    _launch_over(
        f"sparse_rowptr_from_rows<{_ct(row.dtype)}>",
        m + 1,
        (row, _launch.i64(nnz), _launch.i64(m), rowptr),
    )
    return rowptr


def ell_from_csr(csr, width, ld):
    """(cols, vals) of shape (width, ld), column-major ELL of ``csr`` truncated at ``width``."""
    xp = _xp()
    cols = xp.empty((width, ld), dtype=csr.index_dtype)
    vals = xp.empty((width, ld), dtype=csr.dtype)
    if width and ld:
        _launch_over(
            f"sparse_csr_to_ell<{_ct(csr.dtype)}, {_ct(csr.index_dtype)}>",
            ld,
            (
                csr.indptr,
                csr.indices,
                csr.data,
                _launch.i64(csr.shape[0]),
                _launch.i64(width),
                _launch.i64(ld),
                cols,
                vals,
            ),
        )
    return cols, vals


def ell_lengths(cols, m, width, ld):
    """Entries per row of an ELL's ``cols`` (slots before the first padding)."""
    lengths = _xp().zeros(m, dtype=cols.dtype)
    if m and width:
        _launch_over(
            f"sparse_ell_lengths<{_ct(cols.dtype)}>",
            m,
            (cols, _launch.i64(m), _launch.i64(width), _launch.i64(ld), lengths),
        )
    return lengths


def ell_to_csr(ell_cols, ell_vals, m, width, ld, indptr, cols, vals):
    """Copy row r's ELL entries to ``cols``/``vals`` from ``indptr[r]`` on."""
    if m and width:
        _launch_over(
            f"sparse_ell_to_csr<{_ct(ell_vals.dtype)}, {_ct(ell_cols.dtype)}>",
            m,
            (
                ell_cols,
                ell_vals,
                _launch.i64(m),
                _launch.i64(width),
                _launch.i64(ld),
                indptr,
                cols,
                vals,
            ),
        )


def hyb_overflow(csr, width, ovf, total):
    """(rows, cols, vals) of the ``total`` entries of ``csr``'s rows past ``width``, placed at
    the offsets ``ovf`` (exclusive prefix sum of the overflow per row)."""
    xp = _xp()
    idt = csr.index_dtype
    rows = xp.empty(total, dtype=idt)
    cols = xp.empty(total, dtype=idt)
    vals = xp.empty(total, dtype=csr.dtype)
    if total:
        _launch_over(
            f"sparse_hyb_overflow<{_ct(csr.dtype)}, {_ct(idt)}>",
            total,
            (
                csr.indptr,
                csr.indices,
                csr.data,
                _launch.i64(csr.shape[0]),
                _launch.i64(width),
                ovf.astype(idt),
                _launch.i64(total),
                rows,
                cols,
                vals,
            ),
        )
    return rows, cols, vals


def coo_to_csr_part(coo, coo_rowptr, indptr, skip, cols, vals):
    """Place a COO part's entries in a CSR after the first ``skip[r]`` entries of each row."""
    if coo.nnz:
        _launch_over(
            f"sparse_coo_to_csr_part<{_ct(coo.dtype)}, {_ct(coo.index_dtype)}>",
            coo.nnz,
            (
                coo.row,
                coo.col,
                coo.data,
                _launch.i64(coo.nnz),
                coo_rowptr,
                indptr,
                skip,
                cols,
                vals,
            ),
        )

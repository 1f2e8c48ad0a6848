"""The ELL (ELLPACK) container: every row padded to ``width`` slots, column-major."""

from __future__ import annotations

import numpy as np

from .._core import backend as _backend
from . import _base, _checks, _convert
from ._csr import CSR


class ELL(_base.Matrix):
    """ELLPACK: every row padded to ``width`` slots, column-major.

    ``cols`` and ``data`` have shape ``(width, ld)``: slot k of stored row i is ``cols[k, i]``,
    ``data[k, i]``, with ``ld`` the stored row count rounded up to a multiple of 32. A row's
    entries fill its first slots in column order; the rest hold column -1 and value 0. Every
    row is stored (``rows`` is None), or only the rows that hold entries: stored row i is then
    row ``rows[i]`` of the matrix (ascending), and a product writes ``beta * y`` to the others
    first (one pass over y) before it computes the stored rows.

    Args:
        A: as for :class:`CSR`.
        width: slots per row; ``None`` for the longest row. Must hold the longest row (use
            :class:`HYB` to cut rows).
        max_fill: refuse (``ValueError``) a padded size above ``max_fill`` times the nonzeros
            (plus 32 slots per column of padding); ``None`` for no limit. Default 8.
        index_dtype: as for :class:`CSR`.
        skip_empty: store only the rows that hold entries (True), every row (False), or
            ``None`` (default): skip the empty rows when their padding would take more slots
            than the matrix has rows (``empty * width > rows``), where the slots left unread
            outweigh the row list and the pass over y.

    Attributes:
        rows: the stored rows' numbers (index dtype), or None when every row is stored.

    Raises:
        TypeError: as :class:`CSR`; ``skip_empty`` is not a bool or None.
        ValueError: as :class:`CSR`; ``width`` below the longest row or negative; the padding
            would exceed ``max_fill``.
    """

    format = "ell"
    __slots__ = ("cols", "data", "width", "ld", "rows")

    def __init__(
        self, A, width=None, *, max_fill=_base.DEFAULT_MAX_FILL, index_dtype=None, skip_empty=None
    ):
        if skip_empty is not None and not isinstance(skip_empty, (bool, np.bool_)):
            raise TypeError(f"ELL: skip_empty must be True, False or None, got {skip_empty!r}")
        if (
            isinstance(A, ELL)
            and A._keeps(width, skip_empty)
            and index_dtype in (None, A.index_dtype)
        ):
            self._init_from(A.data, A.cols, A.width, A.shape, A.nnz, A.rows)
            self._stats = A._stats
            return
        csr = _checks.source_csr(A, func="ELL", index_dtype=index_dtype)
        m = csr.shape[0]
        stats = csr.row_stats()
        longest = stats.max
        if width is None:
            width = longest
        elif not isinstance(width, (int, np.integer)) or isinstance(width, bool) or width < 0:
            raise ValueError(f"ELL: width must be a non-negative integer, got {width!r}")
        elif width < longest:
            raise ValueError(
                f"ELL: width={width} is below the longest row ({longest} entries); use HYB to "
                f"hold the rest of the long rows"
            )
        width = int(width)
        if skip_empty is None:
            skip_empty = skips_empty(stats, width)
        rows = None
        if skip_empty and stats.empty:  # the stored rows' CSR: their entries, row pointers
            xp = _backend.get_backend().xp
            rows = xp.nonzero(xp.diff(csr.indptr))[0].astype(csr.index_dtype)
            indptr = xp.concatenate([csr.indptr[rows], csr.indptr[m:]])
            stored = CSR._from_arrays(csr.data, csr.indices, indptr, (rows.size, csr.shape[1]))
        else:
            stored = csr
        ld = _base.round_up(stored.shape[0], _base.ELL_ALIGN)
        if max_fill is not None and width * ld > max_fill * csr.nnz + _base.ELL_ALIGN * width:
            raise ValueError(
                f"ELL: padding every {'stored ' if rows is not None else ''}row to the longest "
                f"({width} entries) makes {width * ld} slots for {csr.nnz} nonzeros, over "
                f"max_fill={max_fill} times; use HYB or CSR, or pass max_fill=None"
            )
        cols, vals = _convert.ell_from_csr(stored, width, ld)
        self._init_from(vals, cols, width, csr.shape, csr.nnz, rows)
        self._stats = csr._stats

    def _init_from(self, data, cols, width, shape, nnz, rows=None):
        self._init_common(shape, data.dtype, cols.dtype, nnz)
        self.data, self.cols, self.width, self.rows = data, cols, int(width), rows
        self.ld = int(cols.shape[1]) if cols.ndim == 2 else 0

    @property
    def stored_rows(self):
        """Rows held in ``cols`` and ``data``: all of them, or ``len(rows)``."""
        return self.shape[0] if self.rows is None else int(self.rows.size)

    def _arrays(self):
        return (self.cols, self.data) + (() if self.rows is None else (self.rows,))

    def _row_lengths(self):
        lengths = _convert.ell_lengths(self.cols, self.stored_rows, self.width, self.ld)
        if self.rows is None:
            return lengths
        full = _backend.get_backend().xp.zeros(self.shape[0], dtype=lengths.dtype)
        full[self.rows] = lengths
        return full

    def _to_csr(self):
        xp = _backend.get_backend().xp
        m = self.shape[0]
        lengths = self._row_lengths()
        indptr = xp.zeros(m + 1, dtype=self.index_dtype)
        if m:
            xp.cumsum(lengths, out=indptr[1:])
        cols = xp.empty(self.nnz, dtype=self.index_dtype)
        vals = xp.empty(self.nnz, dtype=self.dtype)
        starts = indptr if self.rows is None else indptr[self.rows]  # of the stored rows
        _convert.ell_to_csr(
            self.cols, self.data, self.stored_rows, self.width, self.ld, starts, cols, vals
        )
        out = CSR._from_arrays(vals, cols, indptr, self.shape)
        out._stats = self._stats
        return out

    def _astype(self, dt):
        out = ELL.__new__(ELL)
        out._init_from(self.data.astype(dt), self.cols, self.width, self.shape, self.nnz, self.rows)
        out._stats = self._stats
        return out

    def _keeps(self, width, skip_empty):
        # this ELL already has the layout asked for (None: any width, either row layout)
        return width in (None, self.width) and skip_empty in (None, self.rows is not None)

    def to_ell(self, width=None, *, max_fill=_base.DEFAULT_MAX_FILL, skip_empty=None):
        if self._keeps(width, skip_empty):
            return self
        return ELL(self, width=width, max_fill=max_fill, skip_empty=skip_empty)


def skips_empty(stats, width):
    """Whether an ELL of ``width`` slots stores only the rows that hold entries by default: when
    the empty rows' padding would take more slots than the matrix has rows (``stats``: its
    :class:`RowStats`). Each stored row then costs one more index read, and the product one
    pass over y, against ``width`` slots (column and value) not read per empty row."""
    return stats.empty > 0 and stats.empty * width > stats.rows

"""The ELL (ELLPACK) container: every row padded to ``width`` slots, column-major."""

from __future__ import annotations

import numpy as np

from .._core import backend as _backend
from . import _base, _convert
from ._csr import CSR


class ELL(_base.Matrix):
    """ELLPACK: every row padded to ``width`` slots, column-major.

    ``cols`` and ``data`` have shape ``(width, ld)``: slot k of row r is ``cols[k, r]``,
    ``data[k, r]``, with ``ld`` the row count rounded up to a multiple of 32. A row's entries
    fill its first slots in column order; the rest hold column -1 and value 0.

    Args:
        A: as for :class:`CSR`.
        width: slots per row; ``None`` for the longest row. Must hold the longest row (use
            :class:`HYB` to cut rows).
        max_fill: refuse (``ValueError``) a padded size above ``max_fill`` times the nonzeros
            (plus 32 slots per column of padding); ``None`` for no limit. Default 8.
        index_dtype: as for :class:`CSR`.

    Raises:
        TypeError: as :class:`CSR`.
        ValueError: as :class:`CSR`; ``width`` below the longest row or negative; the padding
            would exceed ``max_fill``.
    """

    format = "ell"
    __slots__ = ("cols", "data", "width", "ld")

    def __init__(self, A, width=None, *, max_fill=_base.DEFAULT_MAX_FILL, index_dtype=None):
        if isinstance(A, ELL) and width in (None, A.width) and index_dtype in (None,
                                                                                A.index_dtype):
            self._init_from(A.data, A.cols, A.width, A.shape, A.nnz)
            return
        csr = _base.source_csr(A, func="ELL", index_dtype=index_dtype)
        m = csr.shape[0]
        longest = csr.row_stats().max
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
        ld = _base.round_up(m, _base.ELL_ALIGN)
        if max_fill is not None and width * ld > max_fill * csr.nnz + _base.ELL_ALIGN * width:
            raise ValueError(
                f"ELL: padding every row to the longest ({width} entries) makes {width * ld} "
                f"slots for {csr.nnz} nonzeros, over max_fill={max_fill} times; use HYB or CSR, "
                f"or pass max_fill=None"
            )
        cols, vals = _convert.ell_from_csr(csr, width, ld)
        self._init_from(vals, cols, width, csr.shape, csr.nnz)
        self._stats = csr._stats

    def _init_from(self, data, cols, width, shape, nnz):
        self._init_common(shape, data.dtype, cols.dtype, nnz)
        self.data, self.cols, self.width = data, cols, int(width)
        self.ld = int(cols.shape[1]) if cols.ndim == 2 else 0

    def _arrays(self):
        return (self.cols, self.data)

    def _row_lengths(self):
        return _convert.ell_lengths(self.cols, self.shape[0], self.width, self.ld)

    def _to_csr(self):
        xp = _backend.get_backend().xp
        m = self.shape[0]
        lengths = self._row_lengths()
        indptr = xp.zeros(m + 1, dtype=self.index_dtype)
        if m:
            xp.cumsum(lengths, out=indptr[1:])
        cols = xp.empty(self.nnz, dtype=self.index_dtype)
        vals = xp.empty(self.nnz, dtype=self.dtype)
        _convert.ell_to_csr(self.cols, self.data, m, self.width, self.ld, indptr, cols, vals)
        out = CSR._from_arrays(vals, cols, indptr, self.shape)
        out._stats = self._stats
        return out

    def _astype(self, dt):
        out = ELL.__new__(ELL)
        out._init_from(self.data.astype(dt), self.cols, self.width, self.shape, self.nnz)
        out._stats = self._stats
        return out

    def to_ell(self, width=None, *, max_fill=_base.DEFAULT_MAX_FILL):
        if width in (None, self.width):
            return self
        return ELL(self, width=width, max_fill=max_fill)

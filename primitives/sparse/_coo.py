"""The COO container: row index, column index and value per nonzero, sorted by row."""

from __future__ import annotations

import numpy as np

from .._core import backend as _backend
from . import _base, _checks, _convert
from ._csr import CSR


class COO(_base.Matrix):
    """Coordinates sorted by row, then column: ``row``, ``col`` and ``data`` (nnz each).

    Args:
        A: as for :class:`CSR`.
        index_dtype: as for :class:`CSR`.

    Raises:
        TypeError, ValueError: as :class:`CSR`.
    """

    format = "coo"
    __slots__ = ("row", "col", "data")

    def __init__(self, A, *, index_dtype=None):
        if isinstance(A, COO) and index_dtype in (None, A.index_dtype):
            self._init_from(A.data, A.row, A.col, A.shape)
            return
        csr = _checks.source_csr(A, func="COO", index_dtype=index_dtype)
        rows = _convert.expand_rows(csr.indptr, csr.shape[0], csr.nnz)
        self._init_from(csr.data, rows, csr.indices, csr.shape)

    def _init_from(self, data, row, col, shape):
        self._init_common(shape, data.dtype, row.dtype, row.size)
        self.data, self.row, self.col = data, row, col

    def _arrays(self):
        return (self.row, self.col, self.data)

    def _rowptr(self):
        return _convert.rowptr_from_rows(self.row, self.nnz, self.shape[0])

    def _to_csr(self):
        return CSR._from_arrays(self.data, self.col, self._rowptr(), self.shape)

    def _astype(self, dt):
        return COO._from_arrays(self.data.astype(dt), self.row, self.col, self.shape)

    def to_coo(self):
        return self

    def to_scipy(self):
        import scipy.sparse

        h = _backend.to_host
        return scipy.sparse.coo_matrix(
            (h(self.data), (h(self.row), h(self.col))), shape=self.shape, copy=True
        )

    def to_cupy(self):
        self._cupy_index_check()
        import cupyx.scipy.sparse

        i32 = np.int32
        return cupyx.scipy.sparse.coo_matrix(
            (self.data, (self.row.astype(i32, copy=False), self.col.astype(i32, copy=False))),
            shape=self.shape,
        )

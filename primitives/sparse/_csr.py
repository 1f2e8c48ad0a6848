"""The CSR container: row pointers, column indices and values."""

from __future__ import annotations

import numpy as np

from .._core import backend as _backend
from . import _base, _checks


class CSR(_base.Matrix):
    """Compressed sparse rows: ``indptr`` (m+1), ``indices`` and ``data`` (nnz each).

    Args:
        A: a ``scipy.sparse`` or ``cupyx.scipy.sparse`` matrix or array (any format), or another
            container (converted on the device).
        index_dtype: ``None`` (int32, or int64 when the nonzeros or a dimension reach 2^31),
            ``numpy.int32`` or ``numpy.int64``.

    Raises:
        TypeError: ``A`` is not a sparse matrix or container; its dtype is not float32,
            float64, complex64 or complex128; ``index_dtype`` is not int32 or int64.
        ValueError: ``A`` is not 2-D; int32 indices requested for a matrix that needs int64.
    """

    format = "csr"
    __slots__ = ("indptr", "indices", "data")

    def __init__(self, A, *, index_dtype=None, _func="CSR", _arg="A"):
        if isinstance(A, _base.Matrix):
            src = _checks.source_csr(A, func=_func, index_dtype=index_dtype)
            self._init_from(src.data, src.indices, src.indptr, src.shape)
            return
        if not (_checks.is_scipy_sparse(A) or _checks.is_cupyx_sparse(A)):
            _checks.as_matrix(A, func=_func, arg=_arg)  # raises the TypeError
        data, indices, indptr, shape, _, stats = _checks.foreign_csr(
            A, func=_func, arg=_arg, index_dtype=index_dtype
        )
        self._init_from(data, indices, indptr, shape)
        self._stats = stats

    def _init_from(self, data, indices, indptr, shape):
        self._init_common(shape, data.dtype, indices.dtype, indices.size)
        self.data, self.indices, self.indptr = data, indices, indptr

    def _arrays(self):
        return (self.indptr, self.indices, self.data)

    def _row_lengths(self):
        return _backend.get_backend().xp.diff(self.indptr)

    def _to_csr(self):
        return self

    def _with_index_dtype(self, idt):
        if idt == self.index_dtype:
            return self
        return CSR._from_arrays(
            self.data, self.indices.astype(idt), self.indptr.astype(idt), self.shape
        )

    def _astype(self, dt):
        return CSR._from_arrays(self.data.astype(dt), self.indices, self.indptr, self.shape)

    def to_scipy(self):
        import scipy.sparse

        h = _backend.to_host
        return scipy.sparse.csr_matrix(
            (h(self.data), h(self.indices), h(self.indptr)), shape=self.shape, copy=True
        )

    def to_cupy(self):
        self._cupy_index_check()
        import cupyx.scipy.sparse

        i32 = np.int32
        return cupyx.scipy.sparse.csr_matrix(
            (self.data, self.indices.astype(i32, copy=False), self.indptr.astype(i32, copy=False)),
            shape=self.shape,
        )

"""The HYB container: an ELL part plus the entries past its width in a COO part."""

from __future__ import annotations

import numpy as np

from .._core import backend as _backend
from . import _base, _checks, _convert
from ._coo import COO
from ._csr import CSR
from ._ell import ELL


class HYB(_base.Matrix):
    """Hybrid: an :class:`ELL` part of ``width`` slots per row, the rest of longer rows in a
    :class:`COO` part (Bell & Garland, 2008).

    Args:
        A: as for :class:`CSR`.
        width: the ELL part's width; ``None`` chooses the largest width that at least a third
            of the rows fill (Bell & Garland's rule): past it, more than two thirds of the rows
            would be padding in that column.
        index_dtype: as for :class:`CSR`.

    Attributes:
        ell: the ELL part (:class:`ELL`, possibly of width 0).
        coo: the overflow (:class:`COO`, possibly empty).

    Raises:
        TypeError: as :class:`CSR`.
        ValueError: as :class:`CSR`; ``width`` negative or not an integer.
    """

    format = "hyb"
    __slots__ = ("ell", "coo", "width")

    def __init__(self, A, width=None, *, index_dtype=None):
        if isinstance(A, HYB) and width in (None, A.width) and index_dtype in (None, A.index_dtype):
            self._init_from(A.ell, A.coo)
            return
        if width is not None and (
            not isinstance(width, (int, np.integer)) or isinstance(width, bool) or width < 0
        ):
            raise ValueError(f"HYB: width must be a non-negative integer, got {width!r}")
        csr = _checks.source_csr(A, func="HYB", index_dtype=index_dtype)
        xp = _backend.get_backend().xp
        m, n = csr.shape
        lengths = csr._row_lengths()
        if width is None:
            width = hyb_width(lengths)
        width = int(width)
        ld = _base.round_up(m, _base.ELL_ALIGN)
        cols, vals = _convert.ell_from_csr(csr, width, ld)
        over = xp.maximum(lengths.astype(np.int64) - width, 0)
        ovf = xp.zeros(m + 1, dtype=np.int64)
        if m:
            xp.cumsum(over, out=ovf[1:])
        total = _base.scalar(ovf[-1])
        ell = ELL.__new__(ELL)
        ell._init_from(vals, cols, width, csr.shape, csr.nnz - total)
        rows, ccols, cvals = _convert.hyb_overflow(csr, width, ovf, total)
        self._init_from(ell, COO._from_arrays(cvals, rows, ccols, csr.shape))
        self._stats = csr._stats

    def _init_from(self, ell, coo):
        self._init_common(ell.shape, ell.dtype, ell.index_dtype, ell.nnz + coo.nnz)
        self.ell, self.coo, self.width = ell, coo, ell.width

    def _arrays(self):
        return self.ell._arrays() + self.coo._arrays()

    def _to_csr(self):
        xp = _backend.get_backend().xp
        m = self.shape[0]
        ell_len = self.ell._row_lengths()
        coo_rowptr = self.coo._rowptr()
        indptr = xp.zeros(m + 1, dtype=self.index_dtype)
        if m:
            xp.cumsum(ell_len + xp.diff(coo_rowptr), out=indptr[1:])
        cols = xp.empty(self.nnz, dtype=self.index_dtype)
        vals = xp.empty(self.nnz, dtype=self.dtype)
        _convert.ell_to_csr(
            self.ell.cols, self.ell.data, m, self.width, self.ell.ld, indptr, cols, vals
        )
        _convert.coo_to_csr_part(self.coo, coo_rowptr, indptr, ell_len, cols, vals)
        out = CSR._from_arrays(vals, cols, indptr, self.shape)
        out._stats = self._stats
        return out

    def _astype(self, dt):
        out = HYB.__new__(HYB)
        out._init_from(self.ell._astype(dt), self.coo._astype(dt))
        out._stats = self._stats
        return out

    def to_hyb(self, width=None):
        if width in (None, self.width):
            return self
        return HYB(self, width=width)


def hyb_width(lengths):
    """HYB's default ELL width for row lengths ``lengths``: the largest k such that at least
    ceil(m/3) rows have k or more entries (0 for no rows). Synchronizes."""
    m = int(lengths.size)
    if m == 0:
        return 0
    xp = _backend.get_backend().xp
    s = xp.sort(lengths)
    return _base.scalar(s[m - -(-m // 3)])

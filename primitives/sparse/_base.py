"""Sparse matrix formats on the device: ``CSR``, ``ELL``, ``COO`` and ``HYB``.

Each container holds one matrix in one format, in the backend's memory (CuPy arrays on the GPU,
NumPy arrays on the emulator), with float32 or float64 values and int32 indices (int64 when the
nonzeros or a dimension reach 2^31, or on request). Build one from a ``scipy.sparse`` or
``cupyx.scipy.sparse`` matrix (any format: duplicates are summed and column indices sorted on
the way in) or from another container (converted on the device); ``to_scipy()`` and
``to_cupy()`` hand it back.

============  ==================================================================================
CSR           row pointers (m+1), column indices and values (nnz each), rows in order
ELL           every row padded to ``width`` slots, stored column-major (slot k of row r at
              ``k*ld + r``, ``ld`` = m rounded up to 32) so that consecutive rows are adjacent;
              padding: column -1, value 0
COO           row index, column index and value per nonzero, sorted by row, then column
HYB           an ELL part of a chosen ``width`` plus the entries past it in a COO part
============  ==================================================================================

Containers are immutable views of their arrays: a conversion may share arrays with its source
(CSR to COO shares the column indices and values), so never write to them.

``row_stats()`` summarizes the row lengths (mean, max, coefficient of variation, empty rows);
:func:`primitives.spmv` with ``variant="auto"`` chooses its kernel from it. ``nbytes`` is the
format's footprint: what a product must read of the matrix.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ._core import backend as _backend, dtypes as _dtypes, launch as _launch, loader as _loader

__all__ = ["CSR", "ELL", "COO", "HYB", "RowStats", "FORMATS", "VALUE_DTYPES", "INDEX_DTYPES"]

FORMATS = ("csr", "ell", "coo", "hyb")
VALUE_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
INDEX_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))
_INT32_MAX = 2**31 - 1
#: ELL rows are padded to a multiple of this many rows (a warp's 32 rows share 128-byte lines).
ELL_ALIGN = 32
#: ``ELL(A)`` refuses a padded size above this many times the nonzeros (plus ELL_ALIGN slots per
#: column of the padding), unless ``max_fill=None``: a few long rows would make ELL enormous.
DEFAULT_MAX_FILL = 8.0

_CONVERT = "spmv/convert.cu"
_BLOCK = 256


def _convert_names():
    names = []
    for i in INDEX_DTYPES:
        ic = _dtypes.CTYPES[i]
        names += [f"sparse_expand_rows<{ic}>", f"sparse_rowptr_from_rows<{ic}>",
                  f"sparse_ell_lengths<{ic}>"]
        for v in VALUE_DTYPES:
            vc = _dtypes.CTYPES[v]
            names += [f"sparse_csr_to_ell<{vc}, {ic}>", f"sparse_ell_to_csr<{vc}, {ic}>",
                      f"sparse_hyb_overflow<{vc}, {ic}>", f"sparse_coo_to_csr_part<{vc}, {ic}>"]
    return names


_loader.register(_CONVERT, _convert_names())


def _kernel(name):
    return _loader.load(_CONVERT, _convert_names())(name)


def _launch_over(name, n, args):
    """Launch conversion kernel ``name`` (a grid-stride loop) over ``n`` > 0 items."""
    k = _kernel(name)
    grid = _launch.cover_grid(n, _BLOCK, kernel=k)
    _launch.launch(k, grid, _BLOCK, args)


def _ct(dt):
    return _dtypes.CTYPES[np.dtype(dt)]


def _scalar(v):
    return int(v.item()) if hasattr(v, "item") else int(v)


# ---------------------------------------------------------------------------------------------
# Row statistics


@dataclasses.dataclass(frozen=True)
class RowStats:
    """Summary of a matrix's row lengths (nonzeros per row) and of where its columns lie.

    Attributes:
        rows: number of rows ``m``.
        nnz: stored entries.
        mean: ``nnz / m`` (0 for a matrix without rows).
        max: longest row.
        cv: coefficient of variation, standard deviation over mean (0 when the mean is 0): about
            0 for stencils, above 1 for skewed (power-law) matrices.
        empty: rows without entries.
        span: mean over the non-empty rows of (last column - first column + 1) / n: how much of
            x a row reaches. Small for stencils and bands (x's lines are reused from cache),
            near 1 for rows with columns all over x (the gathers miss).
    """

    rows: int
    nnz: int
    mean: float
    max: int
    cv: float
    empty: int
    span: float


def _stats_of_csr(csr):
    m, n = csr.shape
    nnz = csr.nnz
    if m == 0:
        return RowStats(0, int(nnz), 0.0, 0, 0.0, 0, 0.0)
    xp = _backend.get_backend().xp
    lengths = xp.diff(csr.indptr)
    mean = nnz / m
    var = float(xp.mean((lengths.astype(np.float64) - mean) ** 2))
    full = lengths > 0
    n_full = _scalar(xp.count_nonzero(full))
    span = 0.0
    if n_full:
        first = csr.indices[csr.indptr[:-1][full]].astype(np.float64)
        last = csr.indices[csr.indptr[1:][full] - 1].astype(np.float64)
        span = float(xp.mean(last - first + 1)) / n
    return RowStats(rows=int(m), nnz=int(nnz), mean=float(mean), max=_scalar(lengths.max()),
                    cv=math.sqrt(var) / mean if mean > 0 else 0.0, empty=int(m - n_full),
                    span=span)


# ---------------------------------------------------------------------------------------------
# Input: foreign sparse matrices, checked and canonicalized


def _is_scipy_sparse(A):
    try:
        import scipy.sparse
    except ImportError:  # pragma: no cover - scipy is a dependency
        return False
    return scipy.sparse.issparse(A)


def _is_cupyx_sparse(A):
    return type(A).__module__.startswith("cupyx.scipy.sparse") and hasattr(A, "tocsr")


def _check_value_dtype(dt, *, func, arg):
    dt = np.dtype(dt)
    if dt not in VALUE_DTYPES:
        raise TypeError(
            f"{func}: {arg} has dtype {dt.name}; supported dtypes are float32, float64 "
            f"(convert first, e.g. {arg}.astype(numpy.float64))"
        )
    return dt


def _index_dtype(requested, m, n, nnz, *, func):
    need64 = max(m, n, nnz) > _INT32_MAX
    if requested is None:
        return np.dtype(np.int64) if need64 else np.dtype(np.int32)
    dt = _dtypes.resolve_dtype(requested, func=func, arg="index_dtype", allowed=INDEX_DTYPES)
    if dt == np.int32 and need64:
        raise ValueError(
            f"{func}: index_dtype=int32 cannot index shape {(m, n)} with {nnz} nonzeros; "
            f"use int64"
        )
    return dt


def _foreign_csr(A, *, func, arg, index_dtype):
    """(data, indices, indptr, shape, index dtype) on the backend from a SciPy or CuPy sparse
    matrix, duplicates summed and indices sorted."""
    backend = _backend.get_backend()
    if len(A.shape) != 2:
        raise ValueError(f"{func}: {arg} must be 2-D, got shape {tuple(A.shape)}")
    dt = _check_value_dtype(A.dtype, func=func, arg=arg)
    device = _is_cupyx_sparse(A)
    if device and not backend.is_cuda:
        A, device = A.get(), False
    B = A.tocsr(copy=True)
    B.sum_duplicates()  # sorts the indices of every row and sums repeated (row, column) pairs
    m, n = (int(s) for s in B.shape)
    idt = _index_dtype(index_dtype, m, n, int(B.nnz), func=func)
    xp = backend.xp
    data = xp.ascontiguousarray(xp.asarray(B.data, dtype=dt))
    indices = xp.ascontiguousarray(xp.asarray(B.indices).astype(idt, copy=False))
    indptr = xp.ascontiguousarray(xp.asarray(B.indptr).astype(idt, copy=False))
    return data, indices, indptr, (m, n), idt


def as_matrix(A, *, func, arg="A"):
    """A container for ``A``: containers pass through, SciPy/CuPy sparse matrices become CSR."""
    if isinstance(A, _Matrix):
        return A
    if _is_scipy_sparse(A) or _is_cupyx_sparse(A):
        return CSR(A, _func=func, _arg=arg)
    raise TypeError(
        f"{func}: {arg} must be a scipy.sparse or cupyx.scipy.sparse matrix or a "
        f"primitives.sparse container (CSR, ELL, COO, HYB), got {type(A).__name__}"
    )


# ---------------------------------------------------------------------------------------------
# Containers


class _Matrix:
    """What every format shares: shape, dtypes, nonzeros, footprint and row statistics."""

    format = ""
    __slots__ = ("shape", "dtype", "index_dtype", "nnz", "_stats", "_cache")

    @classmethod
    def _from_arrays(cls, *arrays):
        """A matrix of this format from its device arrays (in ``_init_from``'s order), unchecked."""
        obj = cls.__new__(cls)
        obj._init_from(*arrays)
        return obj

    def _init_common(self, shape, dtype, index_dtype, nnz):
        self.shape = (int(shape[0]), int(shape[1]))
        self.dtype = np.dtype(dtype)
        self.index_dtype = np.dtype(index_dtype)
        self.nnz = int(nnz)
        self._stats = None
        self._cache = {}

    @property
    def nbytes(self):
        """Bytes of the format's arrays (what a product reads of the matrix)."""
        return sum(int(a.nbytes) for a in self._arrays())

    def row_stats(self):
        """:class:`RowStats` of the rows (computed once, then cached; synchronizes; formats
        other than CSR go through a CSR copy)."""
        if self._stats is None:
            self._stats = _stats_of_csr(self._to_csr())
        return self._stats

    def __repr__(self):
        if not hasattr(self, "_cache"):  # not built (an error in the constructor)
            return f"<primitives.sparse.{type(self).__name__}, uninitialized>"
        return (f"<primitives.sparse.{type(self).__name__} {self.shape[0]}x{self.shape[1]}, "
                f"{self.nnz} stored, {self.dtype.name}, {self.index_dtype.name} indices, "
                f"{self.nbytes} bytes>")

    # conversions (on the device); each returns ``self`` when no conversion is needed
    def to_csr(self):
        """This matrix as :class:`CSR`."""
        return self._to_csr()

    def to_coo(self):
        """This matrix as :class:`COO`."""
        return COO(self)

    def to_ell(self, width=None, *, max_fill=DEFAULT_MAX_FILL):
        """This matrix as :class:`ELL` (see its arguments)."""
        return ELL(self, width=width, max_fill=max_fill)

    def to_hyb(self, width=None):
        """This matrix as :class:`HYB` (see its arguments)."""
        return HYB(self, width=width)

    def to_scipy(self):
        """A ``scipy.sparse.csr_matrix`` (``coo_matrix`` for COO) in host memory."""
        return self._to_csr().to_scipy()

    def to_cupy(self):
        """A ``cupyx.scipy.sparse.csr_matrix`` (``coo_matrix`` for COO) on the device.

        Raises:
            RuntimeError: the backend is not CUDA.
            ValueError: the matrix needs int64 indices (cupyx takes int32 only).
        """
        return self._to_csr().to_cupy()

    def astype(self, dtype):
        """The same matrix with values converted to ``dtype`` (float32 or float64)."""
        dt = _check_value_dtype(dtype, func=f"{type(self).__name__}.astype", arg="dtype")
        if dt == self.dtype:
            return self
        return self._astype(dt)

    def _cupy_index_check(self):
        if not _backend.get_backend().is_cuda:
            raise RuntimeError("to_cupy: needs the CUDA backend (the arrays are in host memory)")
        if max(self.shape[0], self.shape[1], self.nnz) > _INT32_MAX:
            raise ValueError("to_cupy: cupyx.scipy.sparse takes int32 indices; this matrix "
                             "needs int64")


def _source_csr(A, *, func, index_dtype):
    """A CSR for container or foreign input ``A`` (used by every constructor)."""
    if isinstance(A, _Matrix):
        csr = A._to_csr()
        if index_dtype is not None:
            idt = _index_dtype(index_dtype, *csr.shape, csr.nnz, func=func)
            csr = csr._with_index_dtype(idt)
        return csr
    if _is_scipy_sparse(A) or _is_cupyx_sparse(A):
        return CSR(A, index_dtype=index_dtype, _func=func)
    raise TypeError(
        f"{func}: A must be a scipy.sparse or cupyx.scipy.sparse matrix or a primitives.sparse "
        f"container (CSR, ELL, COO, HYB), got {type(A).__name__}"
    )


class CSR(_Matrix):
    """Compressed sparse rows: ``indptr`` (m+1), ``indices`` and ``data`` (nnz each).

    Args:
        A: a ``scipy.sparse`` or ``cupyx.scipy.sparse`` matrix or array (any format), or another
            container (converted on the device).
        index_dtype: ``None`` (int32, or int64 when the nonzeros or a dimension reach 2^31),
            ``numpy.int32`` or ``numpy.int64``.

    Raises:
        TypeError: ``A`` is not a sparse matrix or container; its dtype is not float32 or
            float64; ``index_dtype`` is not int32 or int64.
        ValueError: ``A`` is not 2-D; int32 indices requested for a matrix that needs int64.
    """

    format = "csr"
    __slots__ = ("indptr", "indices", "data")

    def __init__(self, A, *, index_dtype=None, _func="CSR", _arg="A"):
        if isinstance(A, _Matrix):
            src = _source_csr(A, func=_func, index_dtype=index_dtype)
            self._init_from(src.data, src.indices, src.indptr, src.shape)
            return
        if not (_is_scipy_sparse(A) or _is_cupyx_sparse(A)):
            as_matrix(A, func=_func, arg=_arg)  # raises the TypeError
        data, indices, indptr, shape, _ = _foreign_csr(A, func=_func, arg=_arg,
                                                       index_dtype=index_dtype)
        self._init_from(data, indices, indptr, shape)

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
        return CSR._from_arrays(self.data, self.indices.astype(idt), self.indptr.astype(idt),
                                self.shape)

    def _astype(self, dt):
        return CSR._from_arrays(self.data.astype(dt), self.indices, self.indptr, self.shape)

    def to_scipy(self):
        import scipy.sparse

        h = _backend.to_host
        return scipy.sparse.csr_matrix((h(self.data), h(self.indices), h(self.indptr)),
                                       shape=self.shape, copy=True)

    def to_cupy(self):
        self._cupy_index_check()
        import cupyx.scipy.sparse

        i32 = np.int32
        return cupyx.scipy.sparse.csr_matrix(
            (self.data, self.indices.astype(i32, copy=False), self.indptr.astype(i32, copy=False)),
            shape=self.shape)


class COO(_Matrix):
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
        csr = _source_csr(A, func="COO", index_dtype=index_dtype)
        xp = _backend.get_backend().xp
        rows = xp.empty(csr.nnz, dtype=csr.index_dtype)
        if csr.nnz:
            _launch_over(f"sparse_expand_rows<{_ct(csr.index_dtype)}>", csr.nnz,
                         (csr.indptr, _launch.i64(csr.shape[0]), _launch.i64(csr.nnz), rows))
        self._init_from(csr.data, rows, csr.indices, csr.shape)

    def _init_from(self, data, row, col, shape):
        self._init_common(shape, data.dtype, row.dtype, row.size)
        self.data, self.row, self.col = data, row, col

    def _arrays(self):
        return (self.row, self.col, self.data)

    def _rowptr(self):
        xp = _backend.get_backend().xp
        m = self.shape[0]
        rowptr = xp.empty(m + 1, dtype=self.index_dtype)
        _launch_over(f"sparse_rowptr_from_rows<{_ct(self.index_dtype)}>", m + 1,
                     (self.row, _launch.i64(self.nnz), _launch.i64(m), rowptr))
        return rowptr

    def _to_csr(self):
        return CSR._from_arrays(self.data, self.col, self._rowptr(), self.shape)

    def _astype(self, dt):
        return COO._from_arrays(self.data.astype(dt), self.row, self.col, self.shape)

    def to_coo(self):
        return self

    def to_scipy(self):
        import scipy.sparse

        h = _backend.to_host
        return scipy.sparse.coo_matrix((h(self.data), (h(self.row), h(self.col))),
                                       shape=self.shape, copy=True)

    def to_cupy(self):
        self._cupy_index_check()
        import cupyx.scipy.sparse

        i32 = np.int32
        return cupyx.scipy.sparse.coo_matrix(
            (self.data, (self.row.astype(i32, copy=False), self.col.astype(i32, copy=False))),
            shape=self.shape)


def _round_up(n, k):
    return -(-n // k) * k


def _ell_from_csr(csr, width, ld):
    """(cols, vals) of shape (width, ld), column-major ELL of ``csr`` truncated at ``width``."""
    xp = _backend.get_backend().xp
    cols = xp.empty((width, ld), dtype=csr.index_dtype)
    vals = xp.empty((width, ld), dtype=csr.dtype)
    if width and ld:
        _launch_over(f"sparse_csr_to_ell<{_ct(csr.dtype)}, {_ct(csr.index_dtype)}>", ld,
                     (csr.indptr, csr.indices, csr.data, _launch.i64(csr.shape[0]),
                      _launch.i64(width), _launch.i64(ld), cols, vals))
    return cols, vals


class ELL(_Matrix):
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

    def __init__(self, A, width=None, *, max_fill=DEFAULT_MAX_FILL, index_dtype=None):
        if isinstance(A, ELL) and width in (None, A.width) and index_dtype in (None,
                                                                                A.index_dtype):
            self._init_from(A.data, A.cols, A.width, A.shape, A.nnz)
            return
        csr = _source_csr(A, func="ELL", index_dtype=index_dtype)
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
        ld = _round_up(m, ELL_ALIGN)
        if max_fill is not None and width * ld > max_fill * csr.nnz + ELL_ALIGN * width:
            raise ValueError(
                f"ELL: padding every row to the longest ({width} entries) makes {width * ld} "
                f"slots for {csr.nnz} nonzeros, over max_fill={max_fill} times; use HYB or CSR, "
                f"or pass max_fill=None"
            )
        cols, vals = _ell_from_csr(csr, width, ld)
        self._init_from(vals, cols, width, csr.shape, csr.nnz)
        self._stats = csr._stats

    def _init_from(self, data, cols, width, shape, nnz):
        self._init_common(shape, data.dtype, cols.dtype, nnz)
        self.data, self.cols, self.width = data, cols, int(width)
        self.ld = int(cols.shape[1]) if cols.ndim == 2 else 0

    def _arrays(self):
        return (self.cols, self.data)

    def _row_lengths(self):
        xp = _backend.get_backend().xp
        m = self.shape[0]
        lengths = xp.zeros(m, dtype=self.index_dtype)
        if m and self.width:
            _launch_over(f"sparse_ell_lengths<{_ct(self.index_dtype)}>", m,
                         (self.cols, _launch.i64(m), _launch.i64(self.width), _launch.i64(self.ld),
                          lengths))
        return lengths

    def _to_csr(self):
        xp = _backend.get_backend().xp
        m = self.shape[0]
        lengths = self._row_lengths()
        indptr = xp.zeros(m + 1, dtype=self.index_dtype)
        if m:
            xp.cumsum(lengths, out=indptr[1:])
        cols = xp.empty(self.nnz, dtype=self.index_dtype)
        vals = xp.empty(self.nnz, dtype=self.dtype)
        if m and self.width:
            _launch_over(f"sparse_ell_to_csr<{_ct(self.dtype)}, {_ct(self.index_dtype)}>", m,
                         (self.cols, self.data, _launch.i64(m), _launch.i64(self.width),
                          _launch.i64(self.ld), indptr, cols, vals))
        out = CSR._from_arrays(vals, cols, indptr, self.shape)
        out._stats = self._stats
        return out

    def _astype(self, dt):
        out = ELL.__new__(ELL)
        out._init_from(self.data.astype(dt), self.cols, self.width, self.shape, self.nnz)
        out._stats = self._stats
        return out

    def to_ell(self, width=None, *, max_fill=DEFAULT_MAX_FILL):
        if width in (None, self.width):
            return self
        return ELL(self, width=width, max_fill=max_fill)


class HYB(_Matrix):
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
        if isinstance(A, HYB) and width in (None, A.width) and index_dtype in (None,
                                                                                A.index_dtype):
            self._init_from(A.ell, A.coo)
            return
        if width is not None and (not isinstance(width, (int, np.integer))
                                  or isinstance(width, bool) or width < 0):
            raise ValueError(f"HYB: width must be a non-negative integer, got {width!r}")
        csr = _source_csr(A, func="HYB", index_dtype=index_dtype)
        xp = _backend.get_backend().xp
        m, n = csr.shape
        lengths = csr._row_lengths()
        if width is None:
            width = hyb_width(lengths)
        width = int(width)
        ld = _round_up(m, ELL_ALIGN)
        cols, vals = _ell_from_csr(csr, width, ld)
        over = xp.maximum(lengths.astype(np.int64) - width, 0)
        ovf = xp.zeros(m + 1, dtype=np.int64)
        if m:
            xp.cumsum(over, out=ovf[1:])
        total = _scalar(ovf[-1])
        ell = ELL.__new__(ELL)
        ell._init_from(vals, cols, width, csr.shape, csr.nnz - total)
        idt = csr.index_dtype
        rows = xp.empty(total, dtype=idt)
        ccols = xp.empty(total, dtype=idt)
        cvals = xp.empty(total, dtype=csr.dtype)
        if total:
            _launch_over(f"sparse_hyb_overflow<{_ct(csr.dtype)}, {_ct(idt)}>", total,
                         (csr.indptr, csr.indices, csr.data, _launch.i64(m), _launch.i64(width),
                          ovf.astype(idt), _launch.i64(total), rows, ccols, cvals))
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
        vc, ic = _ct(self.dtype), _ct(self.index_dtype)
        if m and self.width:
            _launch_over(f"sparse_ell_to_csr<{vc}, {ic}>", m,
                         (self.ell.cols, self.ell.data, _launch.i64(m), _launch.i64(self.width),
                          _launch.i64(self.ell.ld), indptr, cols, vals))
        if self.coo.nnz:
            _launch_over(f"sparse_coo_to_csr_part<{vc}, {ic}>", self.coo.nnz,
                         (self.coo.row, self.coo.col, self.coo.data, _launch.i64(self.coo.nnz),
                          coo_rowptr, indptr, ell_len, cols, vals))
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
    return _scalar(s[m - -(-m // 3)])

"""What every sparse format shares: dtypes, the row statistics and the base of the containers
(:class:`Matrix`); the checks of foreign input are in :mod:`._checks`."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np

from .._core import backend as _backend, plans as _plans

FORMATS = ("csr", "ell", "coo", "hyb")
VALUE_DTYPES = tuple(np.dtype(d) for d in (np.float32, np.float64, np.complex64, np.complex128))
INDEX_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))
INT32_MAX = 2**31 - 1
#: ELL rows are padded to a multiple of this many rows (a warp's 32 rows share 128-byte lines).
ELL_ALIGN = 32
#: ``ELL(A)`` refuses a padded size above this many times the nonzeros (plus ELL_ALIGN slots per
#: column of the padding), unless ``max_fill=None``: a few long rows would make ELL enormous.
DEFAULT_MAX_FILL = 8.0

_tokens = itertools.count(1)  # a container's token: never reused, unlike id()


def scalar(v):
    return int(v.item()) if hasattr(v, "item") else int(v)


def round_up(n, k):
    return -(-n // k) * k


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


def stats_of_csr(csr):
    return row_stats(csr.indptr, csr.indices, csr.shape, _backend.get_backend().xp)


def row_stats(indptr, indices, shape, xp):
    """:class:`RowStats` of the CSR structure ``indptr``/``indices`` (arrays of module ``xp``:
    NumPy for a matrix that came from the host, whose structure is at hand there, so that no
    device kernel of CuPy's has to be compiled for it)."""
    m, n = shape
    nnz = int(indices.size)
    if m == 0:
        return RowStats(0, nnz, 0.0, 0, 0.0, 0, 0.0)
    lengths = xp.diff(indptr)
    mean = nnz / m
    var = float(xp.mean((lengths.astype(np.float64) - mean) ** 2))
    full = lengths > 0
    n_full = scalar(xp.count_nonzero(full))
    span = 0.0
    if n_full:
        first = indices[indptr[:-1][full]].astype(np.float64)
        last = indices[indptr[1:][full] - 1].astype(np.float64)
        span = float(xp.mean(last - first + 1)) / n
    return RowStats(
        rows=int(m),
        nnz=nnz,
        mean=float(mean),
        max=scalar(lengths.max()),
        cv=math.sqrt(var) / mean if mean > 0 else 0.0,
        empty=int(m - n_full),
        span=span,
    )


# ---------------------------------------------------------------------------------------------
# The containers' base


class Matrix:
    """What every format shares: shape, dtypes, nonzeros, footprint and row statistics."""

    format = ""
    __slots__ = ("shape", "dtype", "index_dtype", "nnz", "_stats", "_cache", "_token")

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
        self._cache = {}  # data derived from the arrays (the merge-path partition, conversions
        # to other formats for products), per stream
        self._token = next(_tokens)  # names this matrix in the keys of spmv's repeat calls

    @property
    def nbytes(self):
        """Bytes of the format's arrays (what a product reads of the matrix)."""
        return sum(int(a.nbytes) for a in self._arrays())

    def row_stats(self):
        """:class:`RowStats` of the rows (computed once, then cached; synchronizes; formats
        other than CSR go through a CSR copy)."""
        if self._stats is None:
            self._stats = stats_of_csr(self._to_csr())
        return self._stats

    def __repr__(self):
        if not hasattr(self, "_cache"):  # not built (an error in the constructor)
            return f"<primitives.sparse.{type(self).__name__}, uninitialized>"
        return (
            f"<primitives.sparse.{type(self).__name__} {self.shape[0]}x{self.shape[1]}, "
            f"{self.nnz} stored, {self.dtype.name}, {self.index_dtype.name} indices, "
            f"{self.nbytes} bytes>"
        )

    def _as_format(self, fmt):
        """This matrix in format ``fmt`` for a product: itself, or its conversion, made on the
        device at the first product that needs it and kept on the matrix (per stream, as the
        merge-path partition), so that repeated products convert once."""
        if fmt == self.format:
            return self
        key = ("format", fmt, _plans.stream_key())
        M = self._cache.get(key)
        if M is None:
            M = {"csr": self.to_csr, "ell": self.to_ell, "coo": self.to_coo, "hyb": self.to_hyb}[
                fmt
            ]()
            self._cache[key] = M
        return M

    # conversions (on the device); each returns ``self`` when no conversion is needed
    def to_csr(self):
        """This matrix as :class:`CSR`."""
        return self._to_csr()

    def to_coo(self):
        """This matrix as :class:`COO`."""
        from ._coo import COO

        return COO(self)

    def to_ell(self, width=None, *, max_fill=DEFAULT_MAX_FILL, skip_empty=None):
        """This matrix as :class:`ELL` (see its arguments)."""
        from ._ell import ELL

        return ELL(self, width=width, max_fill=max_fill, skip_empty=skip_empty)

    def to_hyb(self, width=None):
        """This matrix as :class:`HYB` (see its arguments)."""
        from ._hyb import HYB

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
        """The same matrix with values converted to ``dtype`` (float32, float64, complex64 or
        complex128; a complex matrix converted to a real dtype loses its imaginary parts, as
        NumPy's ``astype`` does, with its ``ComplexWarning``)."""
        from ._checks import check_value_dtype

        dt = check_value_dtype(dtype, func=f"{type(self).__name__}.astype", arg="dtype")
        if dt == self.dtype:
            return self
        return self._astype(dt)

    def _cupy_index_check(self):
        if not _backend.get_backend().is_cuda:
            raise RuntimeError("to_cupy: needs the CUDA backend (the arrays are in host memory)")
        if max(self.shape[0], self.shape[1], self.nnz) > INT32_MAX:
            raise ValueError(
                "to_cupy: cupyx.scipy.sparse takes int32 indices; this matrix needs int64"
            )

"""A row-partitioned sparse matrix times a Dask vector: :class:`CSR` and :func:`spmv`.

A :class:`CSR` holds one ``primitives.sparse.CSR`` per block of rows, with its columns
renumbered to its *halo*: the sorted distinct columns that block's nonzeros touch. A product
gathers, from every chunk of ``x``, the halo entries that chunk holds (a task where the chunk
lives, sending only those values), concatenates them into the block's compact ``x`` and runs
``primitives.spmv`` on it. The result is chunked like the rows.
"""

from __future__ import annotations

import uuid

import numpy as np

from .. import sparse as _sparse
from .._core import backend as _backend
from ._sort import dask_input, own_stream, pinned, task_array, to_host, xp_of

__all__ = ["CSR", "spmv"]

_RESULT_DTYPES = frozenset(
    np.dtype(d) for d in (np.float32, np.float64, np.complex64, np.complex128)
)


def _row_block(A, r0, r1):
    """Rows ``[r0, r1)`` of container ``A`` with columns renumbered to its halo: (container of
    shape (r1 - r0, halo size), halo columns as host int64)."""
    xp = _backend.get_backend().xp
    s, e = int(A.indptr[r0]), int(A.indptr[r1])
    cols = A.indices[s:e]
    halo = xp.unique(cols)
    local = xp.searchsorted(halo, cols).astype(A.index_dtype)
    indptr = A.indptr[r0 : r1 + 1] - A.indptr.dtype.type(s)
    part = _sparse.CSR._from_arrays(A.data[s:e], local, indptr, (r1 - r0, int(halo.size)))
    return part, to_host(halo).astype(np.int64)


class CSR:
    """A sparse matrix partitioned by rows for :func:`spmv`: one block of rows per partition,
    each a ``primitives.sparse.CSR`` over its halo (the columns its nonzeros touch).

    Parameters
    ----------
    matrix : scipy.sparse or cupyx.scipy.sparse matrix or array
        Any format (duplicates summed, indices sorted), float32, float64, complex64 or
        complex128.
    row_chunks : int or tuple of int
        Rows per partition (the last one shorter), or the partitions' row counts (summing to the
        number of rows; zeros allowed), as dask.array's ``chunks`` of one axis.

    Attributes
    ----------
    shape : tuple of int
        The matrix's shape.
    dtype : numpy.dtype
        Its values' dtype.
    row_chunks : tuple of int
        The partitions' row counts: the chunks of :func:`spmv`'s result.
    parts : list of (primitives.sparse.CSR, numpy.ndarray)
        Each partition's matrix over its halo (None for a matrix made by :meth:`from_delayed`,
        whose blocks are not on the client) and the halo's global column indices (sorted).
    nnz : int or None
        Stored entries (None when :meth:`from_delayed` was not told).

    Raises
    ------
    TypeError
        ``matrix`` is not a sparse matrix, or of an unsupported dtype.
    ValueError
        ``matrix`` is not 2-D; ``row_chunks`` do not cover its rows.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, dask.array as da
    >>> import primitives.dask as pd
    >>> M = sp.csr_matrix(np.array([[1., 0, 2], [0, 3, 0], [4, 0, 0]]))
    >>> A = pd.CSR(M, row_chunks=2)
    >>> A.row_chunks, [h.tolist() for _, h in A.parts]
    ((2, 1), [[0, 1, 2], [0]])
    """

    def __init__(self, matrix, row_chunks):
        func = "primitives.dask.CSR"
        whole = _sparse.CSR(matrix, _func=func, _arg="matrix")
        chunks = _row_chunks(row_chunks, whole.shape[0], func)
        bounds = np.concatenate([[0], np.cumsum(chunks)]).astype(np.int64)
        self._init(
            [_row_block(whole, int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])],
            whole.shape[1],
            whole.dtype,
        )

    @classmethod
    def from_parts(cls, parts):
        """A partitioned matrix from its row blocks, in order.

        Parameters
        ----------
        parts : sequence of sparse matrices
            ``scipy.sparse`` / ``cupyx.scipy.sparse`` matrices (or ``primitives.sparse``
            containers), one per partition, all with the same number of columns and dtype.

        Returns
        -------
        CSR

        Raises
        ------
        TypeError
            ``parts`` is not a sequence, or holds a non-matrix or matrices of different dtypes.
        ValueError
            ``parts`` is empty, or the parts' column counts differ.
        """
        func = "primitives.dask.CSR.from_parts"
        if not isinstance(parts, (list, tuple)):
            raise TypeError(
                f"{func}: parts must be a list or tuple of sparse matrices, got "
                f"{type(parts).__name__}"
            )
        if not parts:
            raise ValueError(f"{func}: parts is empty (give at least one row block)")
        mats = [_sparse.CSR(p, _func=func, _arg=f"parts[{i}]") for i, p in enumerate(parts)]
        ncols = {m.shape[1] for m in mats}
        if len(ncols) > 1:
            raise ValueError(
                f"{func}: the parts have different column counts {[m.shape[1] for m in mats]}"
            )
        dtypes = {m.dtype for m in mats}
        if len(dtypes) > 1:
            raise TypeError(
                f"{func}: the parts have different dtypes {[m.dtype.name for m in mats]}"
            )
        obj = cls.__new__(cls)
        obj._init([_row_block(m, 0, m.shape[0]) for m in mats], ncols.pop(), dtypes.pop())
        return obj

    @classmethod
    def from_delayed(cls, blocks, halos, ncols, dtype, *, row_chunks, nnz=None):
        """A partitioned matrix whose row blocks are made where they will be used: lazily, by
        tasks (``dask.delayed``) or on the workers already (``distributed`` futures), as
        :func:`dask.array.from_delayed` takes array chunks. Nothing is computed or moved.

        Parameters
        ----------
        blocks : sequence of dask.delayed.Delayed or distributed.Future
            One per partition, in row order, each giving the partition's rows as a
            ``primitives.sparse.CSR`` (or a ``scipy.sparse`` / ``cupyx.scipy.sparse`` matrix)
            with ``len(halos[i])`` columns: column ``j`` of block ``i`` is column
            ``halos[i][j]`` of the matrix.
        halos : sequence of 1-D integer arrays
            Each block's global columns, strictly increasing, in ``[0, ncols)``.
        ncols : int
            The matrix's number of columns.
        dtype : numpy dtype
            The blocks' value dtype: float32, float64, complex64 or complex128.
        row_chunks : sequence of int
            Each block's number of rows (zeros allowed): the chunks of :func:`spmv`'s result.
        nnz : int, optional
            The matrix's stored entries, where known (``None``: unknown, not read from the
            blocks).

        Returns
        -------
        CSR
            Its ``parts`` hold ``(None, halo)``: the blocks themselves are not on the client.

        Raises
        ------
        TypeError
            ``blocks`` holds something other than a delayed object or a future; a halo is not
            an integer array; ``dtype`` is unsupported; ``row_chunks``, ``ncols`` or ``nnz`` is
            not an integer.
        ValueError
            The sequences differ in length or are empty; a halo is not 1-D, not strictly
            increasing, or outside ``[0, ncols)``; a row count, ``ncols`` or ``nnz`` is
            negative.
        """
        func = "primitives.dask.CSR.from_delayed"
        from dask import delayed
        from dask.delayed import Delayed

        seqs = {"blocks": blocks, "halos": halos, "row_chunks": row_chunks}
        for arg, v in seqs.items():
            if not isinstance(v, (list, tuple)):
                raise TypeError(f"{func}: {arg} must be a list or tuple, got {type(v).__name__}")
        if not blocks:
            raise ValueError(f"{func}: blocks is empty (give at least one row block)")
        if len({len(v) for v in seqs.values()}) > 1:
            raise ValueError(
                f"{func}: blocks, halos and row_chunks differ in length "
                f"({len(blocks)}, {len(halos)}, {len(row_chunks)})"
            )
        ncols = _count(ncols, func, "ncols")
        nnz = None if nnz is None else _count(nnz, func, "nnz")
        rows = tuple(_count(r, func, f"row_chunks[{i}]") for i, r in enumerate(row_chunks))
        dtype = _sparse.check_value_dtype(dtype, func=func, arg="dtype")
        lazy = []
        for i, b in enumerate(blocks):
            if isinstance(b, Delayed):
                lazy.append(b)
            elif type(b).__name__ == "Future" and hasattr(b, "key"):
                lazy.append(delayed(b))
            else:
                raise TypeError(
                    f"{func}: blocks[{i}] must be a dask.delayed object or a "
                    f"distributed future, got {type(b).__name__}"
                )
        parts = []
        for i, h in enumerate(halos):
            h = to_host(h) if hasattr(h, "__cuda_array_interface__") else np.asarray(h)
            if h.dtype.kind not in "iu":
                raise TypeError(f"{func}: halos[{i}] must hold integers, got dtype {h.dtype.name}")
            if h.ndim != 1:
                raise ValueError(f"{func}: halos[{i}] must be 1-D, got shape {h.shape}")
            if h.size and (h[0] < 0 or h[-1] >= ncols or np.any(np.diff(h) <= 0)):
                raise ValueError(
                    f"{func}: halos[{i}] must be strictly increasing columns in [0, {ncols})"
                )
            parts.append((None, h.astype(np.int64)))
        obj = cls.__new__(cls)
        obj.parts, obj.row_chunks = parts, rows
        obj.shape, obj.dtype, obj.nnz = (int(sum(rows)), ncols), dtype, nnz
        obj._blocks = lazy
        return obj

    def _init(self, parts, ncols, dtype):
        self.parts = parts
        self.row_chunks = tuple(p.shape[0] for p, _ in parts)
        self.shape = (int(sum(self.row_chunks)), int(ncols))
        self.dtype = np.dtype(dtype)
        self.nnz = int(sum(p.nnz for p, _ in parts))
        tag = uuid.uuid4().hex
        from dask import delayed

        # each block once in the graph, under a name of its own: products reuse it
        self._blocks = [
            delayed(p, name=f"primitives-dask-csr-{tag}-{i}") for i, (p, _) in enumerate(parts)
        ]

    def __repr__(self):
        nnz = "unknown" if self.nnz is None else self.nnz
        return (
            f"primitives.dask.CSR(shape={self.shape}, dtype={self.dtype.name}, "
            f"nnz={nnz}, row_chunks={self.row_chunks})"
        )


def _count(v, func, arg):
    """A non-negative Python int from an integer argument."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{func}: {arg} must be an integer, got {type(v).__name__}")
    if v < 0:
        raise ValueError(f"{func}: {arg} must be non-negative, got {v}")
    return int(v)


def _row_chunks(row_chunks, m, func):
    from dask.array.core import normalize_chunks

    if isinstance(row_chunks, (bool, np.bool_)) or not (
        isinstance(row_chunks, (int, np.integer, tuple, list))
    ):
        raise TypeError(
            f"{func}: row_chunks must be an int or a tuple of ints, got {type(row_chunks).__name__}"
        )
    if isinstance(row_chunks, (int, np.integer)) and row_chunks <= 0 and m > 0:
        raise ValueError(f"{func}: row_chunks must be positive, got {row_chunks}")
    try:
        (chunks,) = normalize_chunks(
            (row_chunks,) if isinstance(row_chunks, (int, np.integer)) else (tuple(row_chunks),),
            (m,),
        )
    except (ValueError, TypeError) as e:
        raise ValueError(
            f"{func}: row_chunks {row_chunks!r} do not cover the matrix's {m} rows ({e})"
        ) from None
    return tuple(int(c) for c in chunks)


@own_stream
def _take(chunk, idx):
    """The entries of a chunk of x a block needs: ``idx`` an index array, or a slice (a view)."""
    if isinstance(idx, slice):
        return chunk[idx]
    return chunk[xp_of(chunk).asarray(idx)]


def _needed(halo, a, b, offset):
    """Halo entries ``a:b``, held by the chunk of x starting at ``offset``, as that chunk's
    indices: a slice where they are consecutive columns (the halo is strictly increasing, so
    its ends tell), no index array through the scheduler; else the index array."""
    if halo[b - 1] - halo[a] == b - 1 - a:
        return slice(int(halo[a] - offset), int(halo[b - 1] + 1 - offset))
    return halo[a:b] - offset


@own_stream
def _block_spmv(part, meta, *pieces):
    if part.nnz == 0 or not pieces:
        return xp_of(meta).zeros(part.shape[0], meta.dtype)
    xp = xp_of(pieces[0])
    xh = xp.concatenate(pieces) if len(pieces) > 1 else pieces[0]
    return _sparse.spmv(part, xh)


def spmv(A, x):
    """Product of a row-partitioned sparse matrix and a Dask vector: ``A @ x``, chunked like
    ``A``'s rows.

    Each partition's task receives, from every chunk of ``x``, only the entries its halo needs
    (a gather run where the chunk lives; a view where they are consecutive columns), and runs
    ``primitives.spmv`` on its block. With ``x`` persisted on a ``distributed`` cluster, the
    gathers run when the function is called, each on the worker holding its chunk.

    Parameters
    ----------
    A : CSR
        The matrix, partitioned by rows.
    x : dask.array.Array
        1-D of length ``A.shape[1]``, of an integer, float or complex dtype, with NumPy or CuPy
        chunks of known sizes (any chunking).

    Returns
    -------
    dask.array.Array
        ``A @ x`` of length ``A.shape[0]`` with chunks ``A.row_chunks``, of dtype
        ``numpy.result_type(A.dtype, x.dtype)`` (as SciPy's), of ``x``'s chunk type.

    Raises
    ------
    TypeError
        ``A`` is not a :class:`CSR`; ``x`` is not a Dask array, or is bool or of a dtype whose
        result with ``A.dtype`` is not float32, float64, complex64 or complex128.
    ValueError
        ``x`` is not 1-D, its chunk sizes are unknown, or ``len(x) != A.shape[1]``.

    See Also
    --------
    primitives.spmv, CSR

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, dask.array as da
    >>> import primitives.dask as pd
    >>> A = pd.CSR(sp.csr_matrix(np.array([[1., 0, 2], [0, 3, 0], [4, 0, 0]])), row_chunks=2)
    >>> x = da.from_array(np.array([1., 2., 3.]), chunks=2)
    >>> pd.spmv(A, x).compute()
    array([7., 6., 4.])
    """
    from dask import delayed

    func = "primitives.dask.spmv"
    if not isinstance(A, CSR):
        raise TypeError(
            f"{func}: A must be a primitives.dask.CSR, got {type(A).__name__} "
            f"(partition a sparse matrix with primitives.dask.CSR(matrix, "
            f"row_chunks))"
        )
    x = dask_input(x, func)
    if x.dtype.kind not in "uifc":
        raise TypeError(
            f"{func}: x has dtype {x.dtype.name}; it must be an integer, float or complex dtype"
        )
    out = np.result_type(A.dtype, x.dtype)
    if out not in _RESULT_DTYPES:
        raise TypeError(
            f"{func}: A ({A.dtype.name}) times x ({x.dtype.name}) gives "
            f"{out.name}; the result must be float32, float64, complex64 or "
            f"complex128"
        )
    if x.shape[0] != A.shape[1]:
        raise ValueError(
            f"{func}: x has {x.shape[0]} elements, A has {A.shape[1]} columns (A.shape = {A.shape})"
        )
    meta = x._meta.astype(out)
    xblocks = list(x.to_delayed().ravel())
    xoff = np.concatenate([[0], np.cumsum(x.chunks[0])]).astype(np.int64)
    takes, sources, counts = [], [], []
    for part, halo in A.parts:
        cuts = np.searchsorted(halo, xoff)  # halo entries held by each chunk of x
        held = [(c, a, b) for c, (a, b) in enumerate(zip(cuts[:-1], cuts[1:])) if b > a]
        takes += [
            delayed(_take, pure=True)(xblocks[c], _needed(halo, a, b, xoff[c])) for c, a, b in held
        ]
        sources += [xblocks[c].key for c, _, _ in held]
        counts.append(len(held))
    takes = pinned(takes, sources, x)  # x persisted on a cluster: gathers where chunks are
    outs, start = [], 0
    for blk, m in zip(A._blocks, counts):
        outs.append((_block_spmv, blk, meta, *takes[start : start + m]))
        start += m
    return task_array(outs, list(A.row_chunks), out, meta)

"""The checks of the sparse package: foreign sparse matrices (SciPy's, CuPy's) checked and
canonicalized into containers, and :func:`primitives.spmv`'s arguments checked in order, with
errors naming the function called."""

from __future__ import annotations

import numbers

import numpy as np

from .._core import backend as _backend, checks as _checks, dtypes as _dtypes
from ._base import INDEX_DTYPES, INT32_MAX, VALUE_DTYPES, Matrix, row_stats

#: spmv's variants (``variant=``), each a named kernel of kernels/sparse/
VARIANTS = ("csr_scalar", "csr_vector", "ell", "coo", "hyb", "merge_path")

# ---------------------------------------------------------------------------------------------
# Foreign sparse matrices, checked and canonicalized


def is_scipy_sparse(A):
    try:
        import scipy.sparse
    except ImportError:  # pragma: no cover - scipy is a dependency
        return False
    return scipy.sparse.issparse(A)


def is_cupyx_sparse(A):
    return type(A).__module__.startswith("cupyx.scipy.sparse") and hasattr(A, "tocsr")


def check_value_dtype(dt, *, func, arg):
    """``dt`` as a NumPy dtype when it is a value dtype of the sparse kernels, else a TypeError
    naming ``func`` and ``arg`` and the dtypes allowed (the Dask CSR checks its blocks with it)."""
    dt = np.dtype(dt)
    if dt not in VALUE_DTYPES:
        raise TypeError(
            f"{func}: {arg} has dtype {dt.name}; supported dtypes are "
            f"{_dtypes.names(VALUE_DTYPES)} (convert first, e.g. {arg}.astype(numpy.float64))"
        )
    return dt


def index_dtype_for(requested, m, n, nnz, *, func):
    need64 = max(m, n, nnz) > INT32_MAX
    if requested is None:
        return np.dtype(np.int64) if need64 else np.dtype(np.int32)
    dt = _dtypes.resolve_dtype(requested, func=func, arg="index_dtype", allowed=INDEX_DTYPES)
    if dt == np.int32 and need64:
        raise ValueError(
            f"{func}: index_dtype=int32 cannot index shape {(m, n)} with {nnz} nonzeros; use int64"
        )
    return dt


def foreign_csr(A, *, func, arg, index_dtype):
    """(data, indices, indptr, shape, index dtype, row stats) on the backend from a SciPy or
    CuPy sparse matrix, duplicates summed and indices sorted; the :class:`RowStats` are computed
    on the host for a matrix from the host (None for one already on the device: computed there
    when first asked for)."""
    backend = _backend.get_backend()
    if len(A.shape) != 2:
        raise ValueError(f"{func}: {arg} must be 2-D, got shape {tuple(A.shape)}")
    dt = check_value_dtype(A.dtype, func=func, arg=arg)
    device = is_cupyx_sparse(A)
    if device and not backend.is_cuda:
        A, device = A.get(), False
    B = A.tocsr(copy=True)
    B.sum_duplicates()  # sorts the indices of every row and sums repeated (row, column) pairs
    m, n = (int(s) for s in B.shape)
    idt = index_dtype_for(index_dtype, m, n, int(B.nnz), func=func)
    xp = backend.xp
    data = xp.ascontiguousarray(xp.asarray(B.data, dtype=dt))
    indices = xp.ascontiguousarray(xp.asarray(B.indices).astype(idt, copy=False))
    indptr = xp.ascontiguousarray(xp.asarray(B.indptr).astype(idt, copy=False))
    stats = None if device else row_stats(B.indptr, B.indices, (m, n), np)
    return data, indices, indptr, (m, n), idt, stats


def _not_a_matrix(func, arg, A):
    return TypeError(
        f"{func}: {arg} must be a scipy.sparse or cupyx.scipy.sparse matrix or a "
        f"primitives.sparse container (CSR, ELL, COO, HYB), got {type(A).__name__}"
    )


def as_matrix(A, *, func, arg="A"):
    """A container for ``A``: containers pass through, SciPy/CuPy sparse matrices become CSR."""
    if isinstance(A, Matrix):
        return A
    if is_scipy_sparse(A) or is_cupyx_sparse(A):
        from ._csr import CSR

        return CSR(A, _func=func, _arg=arg)
    raise _not_a_matrix(func, arg, A)


def source_csr(A, *, func, index_dtype):
    """A CSR for container or foreign input ``A`` (used by every constructor)."""
    from ._csr import CSR

    if isinstance(A, Matrix):
        csr = A._to_csr()
        if index_dtype is not None:
            idt = index_dtype_for(index_dtype, *csr.shape, csr.nnz, func=func)
            csr = csr._with_index_dtype(idt)
        return csr
    if is_scipy_sparse(A) or is_cupyx_sparse(A):
        return CSR(A, index_dtype=index_dtype, _func=func)
    raise _not_a_matrix(func, "A", A)


# ---------------------------------------------------------------------------------------------
# spmv's arguments


def spmv_args(A, x, y, alpha, beta, variant, func="spmv"):
    """Every check of a call, in order; returns (matrix, x input, y input or None, result
    dtype, alpha, beta) with alpha and beta as Python floats or complex numbers."""
    if variant != "auto" and variant not in VARIANTS:
        raise ValueError(f"{func}: variant must be 'auto' or one of {VARIANTS}, got {variant!r}")
    M = as_matrix(A, func=func, arg="A")
    if y is not None and not (isinstance(y, np.ndarray) or _checks.is_cupy(y)):
        raise TypeError(f"{func}: y must be a NumPy or CuPy array, got {type(y).__name__}")
    alpha = _number(alpha, func=func, arg="alpha")
    beta = _number(beta, func=func, arg="beta")
    xdt = getattr(x, "dtype", None)
    if isinstance(xdt, np.dtype) and getattr(x, "ndim", None) == 1:
        _result_dtype(M, xdt, func=func)  # before the copy to the device, which may refuse it
    xin = _checks.as_input(x, func=func, arg="x", ndim=1)
    yin = _checks.as_input(y, func=func, arg="y", ndim=1) if y is not None else None
    out_dt = _result_dtype(M, xin.array.dtype, func=func)
    if out_dt.kind != "c":
        for arg, v in (("alpha", alpha), ("beta", beta)):
            if isinstance(v, complex):
                raise TypeError(
                    f"{func}: {arg}={v!r} is complex, the result dtype "
                    f"{out_dt.name} (A {M.dtype.name}, x {xin.array.dtype.name}) is "
                    f"real; make A or x complex"
                )
    if yin is not None and yin.array.dtype != out_dt:
        raise TypeError(
            f"{func}: y has dtype {yin.array.dtype.name}, the result dtype is {out_dt.name}"
        )
    m, n = M.shape
    if xin.array.size != n:
        raise ValueError(
            f"{func}: x has length {xin.array.size}, A has {n} columns (shape {M.shape})"
        )
    if yin is not None and yin.array.size != m:
        raise ValueError(f"{func}: y has length {yin.array.size}, A has {m} rows (shape {M.shape})")
    if yin is not None and read_only(y):
        raise ValueError(
            f"{func}: y is read-only (the output array must be writeable); "
            f"pass a writeable y, or no y for a new result"
        )
    if yin is None and beta != 0:
        raise ValueError(f"{func}: beta={beta} scales y, but y was not given")
    if yin is not None and overlap(x, y):
        raise ValueError(f"{func}: y overlaps x; pass separate arrays")
    return M, xin, yin, out_dt, alpha, beta


def _number(v, *, func, arg):
    """A Python float for a real scalar, a Python complex for a complex one."""
    if not isinstance(v, np.ndarray):
        if isinstance(v, (numbers.Real, np.bool_)):
            return float(v)
        if isinstance(v, numbers.Complex):
            return complex(v)
    raise TypeError(f"{func}: {arg} must be a real or complex number, got {type(v).__name__}")


def _result_dtype(M, xdt, *, func):
    if xdt.kind not in "iufc":
        raise TypeError(
            f"{func}: x has dtype {xdt.name}; x must be numeric (int, float or complex)"
        )
    out_dt = np.result_type(M.dtype, xdt)
    if out_dt not in VALUE_DTYPES:
        raise TypeError(
            f"{func}: A ({M.dtype.name}) times x ({xdt.name}) gives "
            f"{out_dt.name}; supported result dtypes are "
            f"{', '.join(d.name for d in VALUE_DTYPES)}"
        )
    return out_dt


def read_only(y):
    """Whether ``y`` is a NumPy array that may not be written (CuPy arrays always may)."""
    return isinstance(y, np.ndarray) and not y.flags.writeable


def _span(a):
    """[first, last) byte addresses a CuPy array can touch (its strides may be negative)."""
    lo = hi = a.data.ptr
    for n, st in zip(a.shape, a.strides):
        if st > 0:
            hi += (n - 1) * st
        else:
            lo += (n - 1) * st
    return lo, hi + a.itemsize


def overlap(x, y):
    """Whether the caller's ``x`` and ``y`` share a byte (both NumPy or both CuPy), as
    ``numpy.shares_memory``: the bounds first, the exact test only when the bounds meet."""
    if isinstance(x, np.ndarray) and isinstance(y, np.ndarray):
        return bool(np.may_share_memory(x, y)) and bool(np.shares_memory(x, y))
    if _checks.is_cupy(x) and _checks.is_cupy(y) and x.size and y.size:
        (a0, a1), (b0, b1) = _span(x), _span(y)
        if not (a0 < b1 and b0 < a1):
            return False
        if x.ndim != 1 or y.ndim != 1:
            return True
        return _strided_meet(_progression(x, x.data.ptr), _progression(y, y.data.ptr))
    return False


def _progression(a, ptr):
    """A 1-D array's elements as (first byte address, step >= 0, count, itemsize)."""
    n, step = a.shape[0], a.strides[0]
    if n <= 1:
        step = 0
    elif step < 0:
        ptr, step = ptr + (n - 1) * step, -step
    return ptr, step, n, a.itemsize


def _strided_meet(a, b):
    """Whether two arithmetic progressions of byte ranges share a byte: exactly, in O(itemsize)
    steps. ``a`` and ``b`` are (first address, step >= 0, count >= 1, width) as
    :func:`_progression` gives; element i of ``a`` covers [pa + i*sa, pa + i*sa + wa).

    Elements i of ``a`` and j of ``b`` meet when ``v = i*sa - j*sb`` lies in
    (pb - pa - wa, pb - pa + wb); for each such integer v this solves the linear Diophantine
    equation ``i*sa - j*sb = v`` for 0 <= i < na, 0 <= j < nb."""
    pa, sa, na, wa = a
    pb, sb, nb, wb = b
    if na == 0 or nb == 0:
        return False
    d = pb - pa
    if sa == 0 or sb == 0:
        g = 0
    else:
        g, u, w = _ext_gcd(sa, sb)  # u*sa + w*sb == g
    for v in range(d - wa + 1, d + wb):
        if sa == 0 and sb == 0:
            if v == 0:
                return True
        elif sb == 0:  # i*sa == v
            if v % sa == 0 and 0 <= v // sa < na:
                return True
        elif sa == 0:  # j*sb == -v
            if -v % sb == 0 and 0 <= -v // sb < nb:
                return True
        elif v % g == 0:
            q = v // g
            i0, j0 = u * q, -w * q  # one solution; the others: (i0 + k*sb/g, j0 + k*sa/g)
            ci, cj = sb // g, sa // g
            lo = max(-(i0 // ci), -(j0 // cj))  # ceil(-i0 / ci), ceil(-j0 / cj)
            hi = min((na - 1 - i0) // ci, (nb - 1 - j0) // cj)
            if lo <= hi:
                return True
    return False


def _ext_gcd(a, b):
    """(g, u, w) with u*a + w*b == g == gcd(a, b), for a, b > 0."""
    u0, w0, u1, w1 = 1, 0, 0, 1
    while b:
        q = a // b
        a, b = b, a - q * b
        u0, u1 = u1, u0 - q * u1
        w0, w1 = w1, w0 - q * w1
    return a, u0, w0

"""Reductions over axes: NumPy's ``axis``, ``keepdims`` and ``out`` for ``sum``/``min``/``max``.

The reduced axes are moved last and the array laid out as rows (no copy when they already are
the last axes of a C-ordered array), one row per kept position; every row is a segment of one
:func:`~primitives.segmented_reduce` launch. Lines along a strided axis are laid out
contiguously first (a copy), which a column reduction that reads each element once in place is
still to replace.
"""

from __future__ import annotations

import operator

import numpy as np

from .._core import dtypes as _dtypes

__all__ = ["normalize_axis", "reduce_axis", "check_out", "finish"]

#: the dtypes segmented_reduce takes as input
_SEGMENTED_INPUT = frozenset(_dtypes.NUMERIC)

#: the type the segmented reduction works in for a result type it has no kernel for (NumPy's
#: float16 sums accumulate in float32, as CuPy's do; min/max are exact in any wider type)
_WIDER = {np.dtype(np.float16): np.dtype(np.float32), np.dtype(np.bool_): np.dtype(np.int32),
          np.dtype(np.int8): np.dtype(np.int32), np.dtype(np.int16): np.dtype(np.int32),
          np.dtype(np.uint8): np.dtype(np.uint32), np.dtype(np.uint16): np.dtype(np.uint32)}

_NUMPY_NAME = {"sum": "add", "min": "minimum", "max": "maximum"}


def normalize_axis(axis, ndim, func):
    """``axis`` (None, an int or a tuple of ints, negative counting from the end) as a sorted
    tuple of distinct axes in ``[0, ndim)``; NumPy's errors (AxisError, a repeated axis)."""
    if axis is None:
        return tuple(range(ndim))
    items = axis if isinstance(axis, tuple) else (axis,)
    out = []
    for a in items:
        try:
            a = operator.index(a)
        except TypeError as exc:
            raise TypeError(f"{func}: axis must be an integer, a tuple of integers or None, "
                            f"got {axis!r}") from exc
        if not -max(ndim, 1) <= a < max(ndim, 1) or (ndim == 0 and a not in (0, -1)):
            raise np.exceptions.AxisError(f"{func}: axis {a} is out of bounds for array of "
                                          f"dimension {ndim}")
        a %= max(ndim, 1)
        if a in out:
            raise ValueError(f"{func}: duplicate value in 'axis'")
        out.append(a)
    return tuple(sorted(out))


def reduce_axis(arr, axes, op, acc_dt, backend, func):
    """``op`` of the backend array ``arr`` over ``axes`` (from :func:`normalize_axis`), in
    ``acc_dt``, shaped as the kept axes (no keepdims)."""
    from ..segmented import segmented_reduce

    xp = backend.xp
    kept = [a for a in range(arr.ndim) if a not in axes]
    out_shape = tuple(arr.shape[a] for a in kept)
    width = int(np.prod([arr.shape[a] for a in axes], dtype=np.int64))
    rows = int(np.prod(out_shape, dtype=np.int64))
    if width == 0:
        if op != "sum":
            raise ValueError(f"{func}: zero-size array to reduction operation "
                             f"{_NUMPY_NAME[op]} which has no identity")
        return xp.zeros(out_shape, dtype=acc_dt)
    if rows == 0:
        return xp.empty(out_shape, dtype=acc_dt)
    lines = xp.ascontiguousarray(xp.transpose(arr, kept + list(axes))).reshape(-1)
    work = acc_dt if acc_dt in _SEGMENTED_INPUT else _WIDER[acc_dt]
    if (lines.dtype, work) not in _dtypes.ACC_PAIRS_SET:
        lines = lines.astype(work)
    offsets = xp.arange(0, lines.size + 1, width, dtype=np.int64)
    out = segmented_reduce(lines, offsets, op, dtype=work, check=False)
    if work != acc_dt:
        out = out.astype(acc_dt)
    return out.reshape(out_shape)


def check_out(out, shape, dtype, func):
    """NumPy's checks of ``out`` for a result of ``shape``: an array of that shape, writeable
    (the result is cast to its dtype whatever it is, as NumPy's reductions cast to ``out``).
    ``dtype``: the result's, unused (kept for the callers' symmetry)."""
    if not hasattr(out, "shape") or not hasattr(out, "dtype"):
        raise TypeError(f"{func}: out must be an array, got {type(out).__name__}")
    if tuple(out.shape) != tuple(shape):
        raise ValueError(f"{func}: out has shape {tuple(out.shape)}, the result has "
                         f"{tuple(shape)}")
    if isinstance(out, np.ndarray) and not out.flags.writeable:
        raise ValueError(f"{func}: output array is read-only")


def finish(res, inp, shape, axes, keepdims, out, func):
    """The result as NumPy returns it: ``keepdims`` restores the reduced ``axes`` of the input's
    ``shape`` as 1s; ``out`` (an array of the result's shape) receives it, cast to its dtype,
    and is returned; otherwise a scalar for a full reduction (a NumPy
    scalar for a host array, a 0-d device array for a device one), an array of the caller's
    kind otherwise."""
    if keepdims:
        res = res.reshape(tuple(1 if a in axes else d for a, d in enumerate(shape)))
    if out is not None:
        check_out(out, res.shape, res.dtype, func)
        if isinstance(out, np.ndarray):
            np.copyto(out, res if isinstance(res, np.ndarray) else res.get(),
                      casting="unsafe")
        else:
            out[...] = inp.backend.xp.asarray(res).astype(out.dtype, copy=False)
        return out
    if res.ndim == 0:
        return inp.scalar(res.reshape(1))
    return inp.result(res)

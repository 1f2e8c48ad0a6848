"""``argmin`` and ``argmax`` of Dask arrays: Dask's tree reduction of (value, global int64 index)
pairs, on the tasks and graph helpers of :mod:`primitives.dask._reduce` (see its docstring).
"""

from __future__ import annotations

import builtins
import functools

import numpy as np

from .. import reduction as _reduction
from .._core import checks as _checks
from ._reduce import _flat, _kept_shape, _meta, _name, _split_every
from ._sort import dask_array, own_stream, xp_of

__all__ = ["argmin", "argmax"]

_INT64_MAX = np.iinfo(np.int64).max


def _arg_chunk(block, block_info=None, axis=None, is_max=False):
    """(values, global int64 indices) of a chunk's first extremes: over the whole chunk
    (``axis`` None; shape ``(1,) * ndim``) or along ``axis`` (kept as length 1); None when the
    chunk is empty along the reduced axes."""
    info = block_info[0]
    start = tuple(lo for lo, _ in info["array-location"])
    return _arg_chunk_task(block, start, tuple(info["shape"]), axis, is_max)


@own_stream
def _arg_chunk_task(block, start, shape, axis, is_max):
    xp = xp_of(block)
    argf = _reduction.argmax if is_max else _reduction.argmin
    if axis is None:
        if block.size == 0:
            return None
        flat = block.reshape(-1)
        i = xp.asarray(argf(flat))
        val = flat[i]
        # the chunk's flat index as the whole array's: unravelled in the chunk, offset, ravelled
        g, rem, stride = xp.zeros((), np.int64), i.astype(np.int64), 1
        for d in reversed(range(block.ndim)):
            g = g + (rem % block.shape[d] + start[d]) * stride
            rem = rem // block.shape[d]
            stride *= shape[d]
        one = (1,) * block.ndim
        return val.reshape(one), g.reshape(one)
    if block.shape[axis] == 0:
        return None
    kept = _kept_shape(block.shape, (axis,))
    if block.size == 0:
        return xp.empty(kept, block.dtype), xp.empty(kept, np.int64)
    idx = xp.asarray(argf(block, axis=axis, keepdims=True))
    return xp.take_along_axis(block, idx, axis=axis), idx + np.int64(start[axis])


def _arg_pick(parts, is_max):
    """The pair of the extreme value of ``parts``' pairs, NaN first, ties to the lowest index."""
    parts = _flat(parts)
    if len(parts) <= 1:
        return parts[0] if parts else None
    xp = xp_of(parts[0][0])
    v = xp.stack([p[0] for p in parts])
    i = xp.stack([p[1] for p in parts])
    best = v.max(axis=0) if is_max else v.min(axis=0)  # NaN propagates
    cand = v == best
    if v.dtype.kind == "f":
        nan = xp.isnan(v)
        cand = xp.where(nan.any(axis=0), nan, cand)
    return best, xp.where(cand, i, _INT64_MAX).min(axis=0)


def _arg_combine(parts, axis=None, keepdims=True, is_max=False):
    return _arg_combine_task(parts, is_max)


@own_stream
def _arg_combine_task(parts, is_max):
    return _arg_pick(parts, is_max)


def _arg_aggregate(parts, axis=None, keepdims=False, is_max=False, func=None):
    return _arg_aggregate_task(parts, axis, keepdims, is_max, func)


@own_stream
def _arg_aggregate_task(parts, axis, keepdims, is_max, func):
    pair = _arg_pick(parts, is_max)
    if pair is None:
        raise ValueError(f"attempt to get {func} of an empty sequence")
    idx = pair[1]
    if not keepdims:
        idx = idx.reshape(tuple(d for a, d in enumerate(idx.shape) if a not in axis))
    return idx


def _arg_pass(pair, axis=None, keepdims=True):
    return pair


def _arg(x, axis, keepdims, split_every, is_max):
    import dask.array as da

    fname = "argmax" if is_max else "argmin"
    func = _name(fname)
    x = dask_array(x, func)
    _reduction.check_arg_dtype(np.dtype(x.dtype), func)
    ax = None if axis is None else _checks.axis_index(axis, x.ndim, func)
    axes = tuple(range(x.ndim)) if ax is None else (ax,)
    if builtins.any(np.isnan(c) for a in axes for c in x.chunks[a]):
        raise ValueError(
            f"{func}: x has unknown chunk sizes (call x.compute_chunk_sizes() "
            f"first): the global indices need them"
        )
    if np.prod([x.shape[a] for a in axes], dtype=np.int64) == 0:
        raise ValueError(f"{func}: attempt to get {fname} of an empty sequence")
    if ax is None and x.ndim == 0:
        x, axes = x.reshape(1), (0,)
    chunks = tuple((1,) * len(c) if a in axes else c for a, c in enumerate(x.chunks))
    pairs = x.map_blocks(
        functools.partial(_arg_chunk, axis=ax, is_max=is_max),
        chunks=chunks,
        dtype=x.dtype,
        meta=x._meta,
        token=f"primitives-{fname}-chunk",
    )
    i64 = np.dtype(np.int64)
    out = da.reduction(
        pairs,
        _arg_pass,
        functools.partial(_arg_aggregate, is_max=is_max, func=fname),
        combine=functools.partial(_arg_combine, is_max=is_max),
        axis=axes,
        keepdims=keepdims,
        dtype=i64,
        split_every=_split_every(split_every),
        concatenate=False,
        name=f"primitives-{fname}",
        meta=_meta(pairs, axes, keepdims, i64),
    )
    return out


def argmin(x, axis=None, keepdims=False, split_every=None):
    """Index of the first minimum of a Dask array, over the flattened array or along ``axis``,
    as :func:`numpy.argmin`.

    Every chunk gives its ``primitives.argmin`` and the value there, the index made global from
    the chunk's offsets; the tree keeps the lowest value, NaN first, and among equal values the
    lowest index (see :mod:`primitives.dask._reduce`).

    Parameters
    ----------
    x : dask.array.Array
        Any shape, of bool, int8/16/32/64, uint8/16/32/64 or float16/32/64, NumPy or CuPy
        chunks of known sizes along the reduced axes (empty chunks allowed).
    axis : None or int, optional
        None: the index into the flattened array; an int: the indices along that axis.
    keepdims : bool, optional
        Keep the reduced axis (every axis for None) as an axis of length 1.
    split_every : int or dict, optional
        As :func:`sum`.

    Returns
    -------
    dask.array.Array
        Lazy int64 indices: 0-d for ``axis=None`` (without ``keepdims``), else the other axes.

    Raises
    ------
    TypeError
        ``x`` is not a Dask array or of an unsupported dtype (complex: no order here);
        ``axis`` not None or an int (a tuple, as NumPy).
    ValueError
        No elements along the reduced axes ("attempt to get argmin of an empty sequence",
        NumPy's error, when the call is made); unknown chunk sizes along the reduced axes;
        ``axis`` out of range (``numpy.exceptions.AxisError``).

    Examples
    --------
    >>> import dask.array as da, numpy as np
    >>> import primitives.dask as pd
    >>> x = da.from_array(np.array([3., 1., 4., 1., 5.]), chunks=2)
    >>> int(pd.argmin(x).compute()), int(pd.argmax(x).compute())
    (1, 4)
    """
    return _arg(x, axis, keepdims, split_every, False)


def argmax(x, axis=None, keepdims=False, split_every=None):
    """Index of the first maximum of a Dask array, as :func:`numpy.argmax` (NaN is the maximum:
    the first NaN's index); see :func:`argmin`."""
    return _arg(x, axis, keepdims, split_every, True)

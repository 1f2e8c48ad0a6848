"""Reductions of Dask arrays: :func:`sum`, :func:`prod`, :func:`min`, :func:`max`,
:func:`mean`, :func:`any` and :func:`all` (:func:`argmin` and :func:`argmax`, on the same tree,
are in :mod:`primitives.dask._argreduce`).

The graph is Dask's own tree reduction (``dask.array.reduction``) with this library's kernels in
every task:

1. each chunk reduced where it lives over the reduced axes, keeping them as axes of length 1
   (``primitives.sum``/``min``/... with ``keepdims=True``; sums and products in the
   accumulator dtype: the result's, float32 for a float16 result, as the one-array call);
2. groups of ``split_every`` partial results concatenated along a reduced axis and reduced again
   by the same function, level after level (the ``dask_reduce`` policy: 8 per task, so 8 chunks
   take one final task);
3. the last task reduces its group, drops the reduced axes unless ``keepdims`` and casts to the
   result dtype.

A chunk empty along a reduced axis gives the identity (0 for sums, 1 for products, False for
``any``, True for ``all``, a zero count for ``mean``) or, for ``min``/``max``, nothing: the tasks
above it skip it. A reduction over no elements at all raises NumPy's ``ValueError`` when the
function is called (``min``/``max``, ``argmin``/``argmax``) or warns as NumPy does (``mean``:
NaN).

``mean`` carries (sum, count) pairs up the tree and divides in the last task. ``argmin`` and
``argmax`` carry (value, global int64 index) pairs: each chunk's ``primitives.argmin`` (its
first extreme, the first NaN when there is one) made global from the chunk's place in the array,
then at every level the extreme value of the pairs, NaN winning, and among equal values the
lowest global index. The lowest index, not the first chunk: over several axes the chunks do not
follow the flattened order.

A device chunk's partial of at most the policy's ``host_bytes`` is copied to the host in its
chunk task: it then crosses workers as a host frame, not a device buffer; the tasks above reduce
such partials with NumPy where they are (a few bytes each: a trip to the device would cost more),
and the last task puts the result back on the device. A chunk with nothing to reduce (every
reduced axis of length 1, already in the accumulator's dtype) is its own partial.

Every task's device work runs on a CUDA stream of the Dask thread's own (``own_stream``: the
tasks are called with keywords by Dask and pass positional arguments to the decorated bodies).
"""

from __future__ import annotations

import builtins
import dataclasses
import functools

import numpy as np

from .. import reduction as _reduction
from .._core import checks as _checks, dtypes as _dtypes, policy as _policy
from ._sort import dask_array, own_stream, xp_of

__all__ = ["sum", "prod", "min", "max", "mean", "any", "all"]


@dataclasses.dataclass(frozen=True)
class ReducePolicy:
    # partial results reduced per task of the tree (>= 2)
    split_every: int = _policy.knob(_policy.Range(2))
    # a chunk's partial of device memory of at most this many bytes leaves its task in host
    # memory (one copy on the task's stream), so that it crosses workers as a host frame rather
    # than a device buffer; the last task puts the result back on the device (0: never)
    host_bytes: int = _policy.knob(_policy.Range(0), 0)


TABLE = _policy.register(
    "dask_reduce",
    {
        # 8 partials per task: a reduction of up to 8 chunks is one chunk task each and one final
        # task (dask.array's default would add a level of combine tasks from 5 chunks on); the
        # partials are a few bytes per kept element (not tuned). host_bytes: two H200s over UCX and
        # NVLink, 2^30 float32 per GPU in chunks of 2^29, at 81a70ea: sum 20.81 ms with it against
        # 22.06 without (one GPU: 18.85 / 19.02), histogram 22.98 against 23.60; one pair of runs;
        # the bound (64 KiB: a row of 8192 int64 counts) not tuned
        ("default", None): ReducePolicy(split_every=8, host_bytes=1 << 16)
    },
    doc="primitives.dask.sum/min/max/mean/argmin/...: partial results reduced per task, and "
    "the largest device partial moved to the host",
)

_FUNCS = {
    "sum": _reduction.sum,
    "prod": _reduction.prod,
    "min": _reduction.min,
    "max": _reduction.max,
    "any": _reduction.any,
    "all": _reduction.all,
}
_IDENTITY = {"sum": 0, "prod": 1, "any": False, "all": True}
#: NumPy's twins, for the partials of device chunks that were moved to the host
_HOST_FUNCS = {
    "sum": np.sum,
    "prod": np.prod,
    "min": np.min,
    "max": np.max,
    "any": np.any,
    "all": np.all,
}


# ---- the tasks ---------------------------------------------------------------------------------


def _flat(parts):
    """The partial results of a task (nested lists along the reduced axes when Dask does not
    concatenate them), in order, without the empty ones (None)."""
    if isinstance(parts, list):
        return [p for q in parts for p in _flat(q)]
    return [] if parts is None else [parts]


def _kept_shape(shape, axis):
    return tuple(1 if a in axis else d for a, d in enumerate(shape))


def _reduce_block(a, op, axis, keepdims, acc, host=0):
    """``op`` over ``axis`` of a backend array, by the library's function (over every axis: the
    whole-array call, whose repeat calls take their plan at once, then shaped). The partials of
    device chunks moved to the host (``host`` nonzero, ``a`` a NumPy array of a few of them) are
    reduced by NumPy where they are: a round trip to the device would cost more than the work."""
    kw = {"dtype": acc} if op in ("sum", "prod") else {}
    if host and isinstance(a, np.ndarray):
        return _HOST_FUNCS[op](a, axis=axis, keepdims=keepdims, **kw)
    if len(axis) == a.ndim:
        r = _FUNCS[op](a, **kw)
        return xp_of(a).asarray(r).reshape((1,) * a.ndim) if keepdims else r
    return _FUNCS[op](a, axis=axis, keepdims=keepdims, **kw)


def _joined(parts, axis):
    if len(parts) == 1:
        return parts[0]
    return xp_of(parts[0]).concatenate(parts, axis=axis[0])


def _small_to_host(part, limit):
    """A device partial of at most ``limit`` bytes as a NumPy array (the copy synchronizes the
    task's stream): it travels between workers as a host frame. Others as they are."""
    if limit and _checks.is_cupy(part) and part.nbytes <= limit:
        return part.get()
    return part


def _to_device(out, host):
    """The last task's result back on the device where its partials were moved to the host
    (``host`` nonzero: the array's chunks are on the device)."""
    if host and isinstance(out, (np.ndarray, np.generic)):
        import cupy

        return cupy.asarray(out)
    return out


def _chunk(block, axis=None, keepdims=True, op=None, acc=None, host=0):
    """A chunk reduced over ``axis`` (kept as axes of length 1); device partials of at most
    ``host`` bytes moved to the host."""
    return _chunk_task(block, axis, op, acc, host)


@own_stream
def _chunk_task(block, axis, op, acc, host):
    xp = xp_of(block)
    if builtins.any(block.shape[a] == 0 for a in axis):  # nothing reduced: the identity, or skipped
        if op in ("min", "max"):
            return None
        return _small_to_host(
            xp.full(_kept_shape(block.shape, axis), _IDENTITY[op], dtype=acc), host
        )
    if block.size == 0:  # nothing kept
        return _small_to_host(xp.empty(_kept_shape(block.shape, axis), dtype=acc), host)
    if block.dtype == acc and builtins.all(block.shape[a] == 1 for a in axis):
        return _small_to_host(block, host)  # nothing to reduce (a histogram's row of counts)
    return _small_to_host(_reduce_block(block, op, axis, True, acc), host)


def _combine(parts, axis=None, keepdims=True, op=None, acc=None, host=0):
    return _combine_task(parts, axis, op, acc, host)


@own_stream
def _combine_task(parts, axis, op, acc, host):
    parts = _flat(parts)
    if len(parts) <= 1:
        return parts[0] if parts else None
    return _reduce_block(_joined(parts, axis), op, axis, True, acc, host)


def _aggregate(parts, axis=None, keepdims=False, op=None, acc=None, res=None, host=0):
    return _aggregate_task(parts, axis, keepdims, op, acc, res, host)


@own_stream
def _aggregate_task(parts, axis, keepdims, op, acc, res, host):
    parts = _flat(parts)
    if not parts:  # only when the chunk sizes were unknown: nothing was reduced
        name = "minimum" if op == "min" else "maximum"
        raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
    out = _reduce_block(_joined(parts, axis), op, axis, keepdims, acc, host)
    return _to_device(out if out.dtype == res else out.astype(res), host)


def _mean_chunk(block, axis=None, keepdims=True, acc=None, host=0):
    """(sum over ``axis`` in ``acc``, the number of elements summed); small device sums moved
    to the host as :func:`_chunk`'s."""
    return _mean_chunk_task(block, axis, acc, host)


@own_stream
def _mean_chunk_task(block, axis, acc, host):
    xp = xp_of(block)
    count = int(np.prod([block.shape[a] for a in axis], dtype=np.int64))
    if count == 0 or block.size == 0:
        return _small_to_host(xp.zeros(_kept_shape(block.shape, axis), dtype=acc), host), count
    return _small_to_host(_reduce_block(block, "sum", axis, True, acc), host), count


def _mean_parts(parts, axis, keepdims, acc, host):
    parts = _flat(parts)
    s = _joined([p[0] for p in parts], axis)
    if len(parts) > 1 or not keepdims:
        s = _reduce_block(s, "sum", axis, keepdims, acc, host)
    return s, builtins.sum(p[1] for p in parts)


def _mean_combine(parts, axis=None, keepdims=True, acc=None, host=0):
    return _mean_combine_task(parts, axis, acc, host)


@own_stream
def _mean_combine_task(parts, axis, acc, host):
    return _mean_parts(parts, axis, True, acc, host)


def _mean_aggregate(parts, axis=None, keepdims=False, acc=None, res=None, host=0):
    return _mean_aggregate_task(parts, axis, keepdims, acc, res, host)


@own_stream
def _mean_aggregate_task(parts, axis, keepdims, acc, res, host):
    s, count = _mean_parts(parts, axis, keepdims, acc, host)
    xp = xp_of(s) if not isinstance(s, np.generic) else np
    with np.errstate(invalid="ignore", divide="ignore"):  # 0 / 0: NaN (warned when called)
        m = xp.true_divide(s, acc.type(count))
    return _to_device(m if m.dtype == res else m.astype(res), host)


# ---- the graphs --------------------------------------------------------------------------------


def _name(func):
    return f"primitives.dask.{func}"


def _reduced(x, axis, func):
    """The normalized tuple of reduced axes, and the number of elements reduced into each result
    element (None when some of those chunk sizes are unknown)."""
    axes = _reduction.normalize_axis(axis, x.ndim, func)
    sizes = [x.shape[a] for a in axes]
    if builtins.any(np.isnan(s) for s in sizes):
        return axes, None
    return axes, int(np.prod(sizes, dtype=np.int64))


def _host_bytes(x):
    """The policy's host_bytes for an array of device chunks (CuPy meta), else 0."""
    return _policy.current("dask_reduce").host_bytes if _checks.is_cupy(x._meta) else 0


def _split_every(split_every):
    return _policy.current("dask_reduce").split_every if split_every is None else split_every


def _meta(x, axes, keepdims, dtype):
    from dask.array.utils import meta_from_array

    return meta_from_array(x, ndim=x.ndim if keepdims else x.ndim - len(axes), dtype=dtype)


def _tree(x, op, axis, keepdims, split_every, acc, res, func):
    import dask.array as da

    axes, count = _reduced(x, axis, func)
    if op in ("min", "max") and count == 0:
        name = "minimum" if op == "min" else "maximum"
        raise ValueError(
            f"{func}: zero-size array to reduction operation {name} which has no identity"
        )
    kw = {"op": op, "acc": acc}
    host = _host_bytes(x)
    return da.reduction(
        x,
        functools.partial(_chunk, host=host, **kw),
        functools.partial(_aggregate, res=res, host=host, **kw),
        combine=functools.partial(_combine, host=host, **kw),
        axis=axes,
        keepdims=keepdims,
        dtype=res,
        split_every=_split_every(split_every),
        concatenate=False,
        name=f"primitives-{op}",
        meta=_meta(x, axes, keepdims, res),
    )


def _accumulator(res):
    """The dtype partial sums and products are kept in: float32 for a float16 result, as the
    library's one-array call accumulates."""
    return np.dtype(np.float32) if _dtypes.is_float16(res) else res


def _real_input(x, res, func):
    """``x``, or for complex input into a real ``dtype`` its elements as NumPy casts them: into
    bool whether each is nonzero, into another dtype the real part with NumPy's ComplexWarning."""
    if x.dtype.kind == "c" and res == np.bool_:
        return x != 0
    if x.dtype.kind == "c" and res.kind != "c":
        _checks.warn_caller(
            "Casting complex values to real discards the imaginary part",
            np.exceptions.ComplexWarning,
        )
        return x.real
    return x


def _sum_like(x, op, axis, dtype, keepdims, split_every):
    func = _name(op)
    x = dask_array(x, func)
    in_dt = np.dtype(x.dtype)
    _reduction.check_dtype(in_dt, op, func)
    if dtype is None:
        res = _dtypes.reduce_result_dtype(in_dt, op)
    else:
        res = _dtypes.resolve_dtype(
            _checks.native_dtype(dtype), func=func, allowed=_dtypes.REDUCE_COMPLEX_DTYPES
        )
    x = _real_input(x, res, func)
    return _tree(x, op, axis, keepdims, split_every, _accumulator(res), res, func)


def sum(x, axis=None, dtype=None, keepdims=False, split_every=None):  # noqa: A001 - NumPy's
    """Sum of a Dask array over ``axis`` (every axis by default), as :func:`numpy.sum`.

    Parameters
    ----------
    x : dask.array.Array
        Any shape, of bool, int8/16/32/64, uint8/16/32/64, float16/32/64, complex64 or
        complex128, NumPy or CuPy chunks (empty chunks and unknown chunk sizes allowed).
    axis : None, int or tuple of ints, optional
        The axes summed, as NumPy's (negative counting from the end).
    dtype : dtype, optional
        The result dtype. Default NumPy's: bool and signed integers below 64 bits give int64,
        unsigned ones uint64; float16 stays float16 (the partial sums kept in float32); float
        and complex dtypes stay. Complex input into a real ``dtype`` sums the real part, with
        NumPy's ``ComplexWarning``.
    keepdims : bool, optional
        Keep the summed axes as axes of length 1.
    split_every : int or dict, optional
        Partial sums reduced per task of the tree, as ``dask.array.sum``'s (default: the
        ``dask_reduce`` policy, 8).

    Returns
    -------
    dask.array.Array
        Lazy: ``primitives.sum`` of every chunk, then a tree of ``primitives.sum`` of the
        partial sums (see :mod:`primitives.dask._reduce`). Integer sums wrap around as NumPy's.

    Raises
    ------
    TypeError
        ``x`` is not a Dask array, or of an unsupported dtype; an unsupported ``dtype``.
    numpy.exceptions.AxisError
        ``axis`` out of range (a ``ValueError``); ``ValueError`` for a repeated axis.

    See Also
    --------
    numpy.sum, primitives.sum, dask.array.sum

    Examples
    --------
    >>> import dask.array as da, numpy as np
    >>> import primitives.dask as pd
    >>> x = da.from_array(np.arange(12, dtype=np.int8).reshape(3, 4), chunks=(2, 3))
    >>> pd.sum(x).compute(), pd.sum(x, axis=0).compute()
    (np.int64(66), array([12, 15, 18, 21]))
    """
    return _sum_like(x, "sum", axis, dtype, keepdims, split_every)


def prod(x, axis=None, dtype=None, keepdims=False, split_every=None):
    """Product of a Dask array over ``axis``, as :func:`numpy.prod`: the graph of :func:`sum`
    with ``primitives.prod`` in every task (the product of nothing is 1). Arguments, dtypes
    and errors as :func:`sum`."""
    return _sum_like(x, "prod", axis, dtype, keepdims, split_every)


def _min_max(x, op, axis, keepdims, split_every):
    func = _name(op)
    x = dask_array(x, func)
    in_dt = np.dtype(x.dtype)
    _reduction.check_dtype(in_dt, op, func)
    return _tree(x, op, axis, keepdims, split_every, in_dt, in_dt, func)


def min(x, axis=None, keepdims=False, split_every=None):  # noqa: A001 - NumPy's name
    """Minimum of a Dask array over ``axis`` (NaN propagates), as :func:`numpy.min`.

    ``primitives.min`` of every chunk, then a tree of ``primitives.min`` of the partial minima;
    chunks empty along the reduced axes are skipped. ``x``, ``axis``, ``keepdims`` and
    ``split_every`` as :func:`sum` (no complex dtypes: they have no order here); the result in
    ``x``'s dtype.

    Raises
    ------
    TypeError
        ``x`` is not a Dask array, or of an unsupported dtype (complex included).
    ValueError
        A reduction over no elements ("zero-size array to reduction operation minimum which has
        no identity", NumPy's error; when the call is made, or when the result is computed if
        the chunk sizes are unknown); ``axis`` out of range (``numpy.exceptions.AxisError``) or
        repeated.
    """
    return _min_max(x, "min", axis, keepdims, split_every)


def max(x, axis=None, keepdims=False, split_every=None):  # noqa: A001 - NumPy's name
    """Maximum of a Dask array over ``axis`` (NaN propagates), as :func:`numpy.max`; see
    :func:`min`."""
    return _min_max(x, "max", axis, keepdims, split_every)


def _logical(x, op, axis, keepdims, split_every):
    func = _name(op)
    x = dask_array(x, func)
    in_dt = np.dtype(x.dtype)
    if in_dt not in _dtypes.REDUCE_DTYPES:
        raise TypeError(
            f"{func}: x has dtype {in_dt}; supported dtypes are "
            f"{_dtypes.names(_dtypes.REDUCE_DTYPES)}"
        )
    b = np.dtype(np.bool_)
    return _tree(x, op, axis, keepdims, split_every, b, b, func)


def any(x, axis=None, keepdims=False, split_every=None):  # noqa: A001 - NumPy's name
    """Whether any element over ``axis`` is true (non-zero; NaN counts), as :func:`numpy.any`:
    ``primitives.any`` in every task of :func:`sum`'s graph; False over nothing."""
    return _logical(x, "any", axis, keepdims, split_every)


def all(x, axis=None, keepdims=False, split_every=None):  # noqa: A001 - NumPy's name
    """Whether every element over ``axis`` is true (non-zero; NaN counts), as
    :func:`numpy.all`: ``primitives.all`` in every task of :func:`sum`'s graph; True over
    nothing."""
    return _logical(x, "all", axis, keepdims, split_every)


def mean(x, axis=None, dtype=None, keepdims=False, split_every=None):
    """Arithmetic mean of a Dask array over ``axis``, as :func:`numpy.mean`.

    Every chunk gives its sum (``primitives.sum``) in the accumulator dtype and its count; the
    tree adds both and the last task divides. The accumulator is NumPy's: float64 for bool and
    integers, float32 for float16 (the result float16), the input's float or complex dtype
    otherwise, or ``dtype``. A mean over no elements is NaN with NumPy's ``RuntimeWarning``
    ("Mean of empty slice", when the call is made). Arguments and errors as :func:`sum`.
    """
    import dask.array as da

    func = _name("mean")
    x = dask_array(x, func)
    in_dt = np.dtype(x.dtype)
    _reduction.check_dtype(in_dt, "sum", func)
    if dtype is None:
        if in_dt.kind in "biu":
            acc = res = np.dtype(np.float64)
        elif _dtypes.is_float16(in_dt):
            acc, res = np.dtype(np.float32), in_dt
        else:
            acc = res = in_dt
    else:
        acc = res = _dtypes.resolve_dtype(
            _checks.native_dtype(dtype), func=func, allowed=_dtypes.REDUCE_COMPLEX_DTYPES
        )
    x = _real_input(x, res, func)
    axes, count = _reduced(x, axis, func)
    if count == 0:
        _checks.warn_caller("Mean of empty slice.", RuntimeWarning)
    host = _host_bytes(x)
    return da.reduction(
        x,
        functools.partial(_mean_chunk, acc=acc, host=host),
        functools.partial(_mean_aggregate, acc=acc, res=res, host=host),
        combine=functools.partial(_mean_combine, acc=acc, host=host),
        axis=axes,
        keepdims=keepdims,
        dtype=res,
        split_every=_split_every(split_every),
        concatenate=False,
        name="primitives-mean",
        meta=_meta(x, axes, keepdims, res),
    )

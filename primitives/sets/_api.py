"""Sets' public functions: checks, then the sorts of :mod:`primitives.sorting` and the one-pass
run kernel of :mod:`._plans`."""

from __future__ import annotations

import numpy as np

from .._core import checks as _checks, dtypes as _dtypes, plans as _plans
from ..scan._plans import DTYPES as VALUE_DTYPES

from . import _plans as _rp

__all__ = ["unique", "run_length_encode", "reduce_by_key", "VARIANTS", "OPS"]

#: unique's variants: "rle", sort then one pass of the run kernel (values and counts at once);
#: "compact", sort then head flags and the compaction of :func:`primitives.compact` (several
#: passes, the way NumPy and CuPy write it). "auto" is "rle".
VARIANTS = ("rle", "compact")
OPS = _rp.OPS


# ---- checks -----------------------------------------------------------------------------------


def _key_dtype(dt, func, arg):
    if dt not in _rp.KEY_SET:
        raise TypeError(
            f"{func}: {arg} has dtype {dt.name}; supported dtypes are "
            f"{_dtypes.names(_rp.KEY_DTYPES)}"
        )


def _keys(x, func, arg="keys"):
    k = _checks.as_input(x, func=func, arg=arg, ndim=1)
    _key_dtype(k.array.dtype, func, arg)
    return k


def _values(values, op, n, func):
    """The values' Input and (dtype the kernel reads, its accumulator, result dtype)."""
    v = _checks.as_input(values, func=func, arg="values", ndim=1)
    dt = v.array.dtype
    if dt not in VALUE_DTYPES:
        raise TypeError(
            f"{func}: values has dtype {dt.name}; supported dtypes are "
            f"{_dtypes.names(VALUE_DTYPES)}"
        )
    if dt.kind == "c" and op in ("min", "max"):
        raise TypeError(
            f"{func}: op={op!r} is not defined for complex dtype {dt.name} (no "
            f"ordering); use 'sum' or 'prod'"
        )
    if v.array.size != n:
        raise ValueError(f"{func}: values has {v.array.size} elements, keys has {n}")
    res = _dtypes.reduce_result_dtype(dt, op)
    if dt in _rp.VALUE_KERNEL_DTYPES:
        work = dt
    elif dt == np.float16:
        work = np.dtype(np.float32)  # accumulated in float32, stored as float16
    else:  # bool and the 8/16-bit integers: sums and products as NumPy's result, min/max in 32 bits
        work = res if op in ("sum", "prod") else np.dtype(np.int32)
    return v, work, _dtypes.reduce_result_dtype(work, op), res


# ---- sorts ------------------------------------------------------------------------------------


def _sortable(arr):
    """``arr`` as keys of the sorts: bool as uint8, float16 as float32 (order kept, exact)."""
    if arr.dtype == np.bool_:
        return arr.view(np.uint8)
    if arr.dtype == np.float16:
        return arr.astype(np.float32)
    return arr


def _sort(arr, values=None):
    """Stable sort of the backend array ``arr`` (and ``values`` alongside), in ``arr``'s dtype."""
    from .. import sorting

    keys = _sortable(arr)
    if values is None:
        out = sorting.sort(keys)
    else:
        out, values = sorting.radix_sort(keys, values)
    if out.dtype != arr.dtype:
        out = out.view(arr.dtype) if arr.dtype == np.bool_ else out.astype(arr.dtype)
    return out if values is None else (out, values)


# ---- run_length_encode and reduce_by_key ------------------------------------------------------


def _make_rle_plan(x):
    """What ``prim.plan(prim.run_length_encode, x)`` runs for arrays like ``x``."""
    k = _keys(x, "run_length_encode", "x")
    if k.array.size and k.array is x:
        plan = _rp.runs_plan(k.backend, x.dtype, _rp.COUNTS, None, None, None, x.size)
        return lambda y: plan(y)
    return run_length_encode


@_plans.planned(_make_rle_plan)
def run_length_encode(x):
    """Run-length encoding: the first element of each run of consecutive equal elements of
    ``x``, and the run's length.

    Args:
        x: 1-D array of bool, int8, uint8, int16, uint16, int32, uint32, int64, uint64,
            float16, float32 or float64. Floats compare with ``==`` (``-0.0`` equals ``0.0``;
            a NaN equals nothing, so each NaN is a run of its own), as CUB's ``RunLengthEncode``.

    Returns:
        ``(values, counts)``: 1-D arrays of the number of runs, ``values`` in the dtype of ``x``
        and ``counts`` int64 (CuPy for device input, NumPy for host input).

    Raises:
        TypeError: ``x`` is not an array, or of an unsupported dtype.
        ValueError: ``x`` is not 1-D.

    One pass over ``x`` (the run kernel's decoupled look-back); the number of runs is read back
    from the device once (a synchronization: it is the results' length).

    See Also:
        :func:`unique` (``return_counts=True``), :func:`reduce_by_key`, ``cub::DeviceRunLengthEncode
        ::Encode``.
    """
    key = _plans.call_key("run_length_encode", (x,))
    plan = _plans.PLANS.find(key)
    if plan is not None:  # an earlier call on a like array checked it
        return plan(x)
    k = _keys(x, "run_length_encode", "x")
    arr = k.array
    xp = k.backend.xp
    if arr.size == 0:
        return k.kept(xp.empty(0, dtype=arr.dtype)), k.result(xp.empty(0, dtype=np.int64))
    plan = _rp.runs_plan(k.backend, arr.dtype, _rp.COUNTS, None, None, None, arr.size)
    if arr is x:  # read as it is: later calls on like arrays take the plan
        _plans.PLANS.file(key, plan)
    values, counts = plan(arr)
    return k.kept(values), k.result(counts)


def _rbk_checked(keys, values, op, sort):
    func = "reduce_by_key"
    _checks.check_choice(op, OPS, func=func, arg="op")
    k = _keys(keys, func)
    v, work, acc, res = _values(values, op, k.array.size, func)
    return k, v, work, acc, res, _checks.boolean(sort, func, "sort")


def _make_rbk_plan(keys, values, op="sum", *, sort=False):
    """What ``prim.plan(prim.reduce_by_key, keys, values, ...)`` runs for arrays like these."""
    k, v, work, acc, res, sort = _rbk_checked(keys, values, op, sort)
    if (
        k.array.size
        and not sort
        and k.array is keys
        and v.array is values
        and work == v.array.dtype
        and acc == res
        and keys.dtype.itemsize >= 4
    ):
        plan = _rp.runs_plan(k.backend, keys.dtype, _rp.VALUES, work, acc, op, keys.size)
        return lambda ks, vs: plan(ks, vs)
    return lambda ks, vs: reduce_by_key(ks, vs, op, sort=sort)


@_plans.planned(_make_rbk_plan)
def reduce_by_key(keys, values, op="sum", *, sort=False):
    """Reduce the values of each run of consecutive equal keys: CUB's ``ReduceByKey``.

    Args:
        keys: 1-D array of bool, int8, uint8, int16, uint16, int32, uint32, int64, uint64,
            float16, float32 or float64; floats compare with ``==`` (``-0.0`` equals ``0.0``,
            a NaN equals nothing).
        values: 1-D array of as many elements, of any dtype the scans take: bool, int8, uint8,
            int16, uint16, int32, uint32, int64, uint64, float16, float32, float64, complex64,
            complex128.
        op: ``"sum"``, ``"prod"``, ``"min"`` or ``"max"`` (complex: ``"sum"`` and ``"prod"``).
        sort: group equal keys that are not consecutive first: a stable sort of the keys with
            the values alongside, so each key appears once, in ascending order (NaNs last, each
            its own group), and each group reduces its values in input order.

    Returns:
        ``(unique_keys, reduced)``: the first key of each run, in the dtype of ``keys``, and the
        run's reduction in NumPy's result dtype of ``op`` (``numpy.add.reduce``'s: sums and
        products widen bool and integers below 64 bits to int64/uint64; min/max keep the
        dtype; float16 accumulates in float32 and is stored as float16). CuPy arrays for device
        input, NumPy for host input.

    Raises:
        TypeError: ``keys`` or ``values`` not arrays or of unsupported dtypes; ``min``/``max``
            of complex values; ``sort`` not a bool.
        ValueError: ``keys`` or ``values`` not 1-D; their lengths differ; unknown ``op``.

    One pass over keys and values (the run kernel's decoupled look-back, 16-byte loads; keys
    narrower than 4 bytes are widened first, one more pass); the number of runs is read back
    from the device once. Values are folded in input order within a
    run (float sums are rounded as a sequential sum inside a thread's items, then along the
    block scan and the look-back).

    See Also:
        :func:`numpy.ufunc.reduceat` (``numpy.add.reduceat(values, starts)`` with ``starts`` the
        runs' first indices), :func:`run_length_encode`, :func:`segmented_reduce`.
    """
    key = _plans.call_key("reduce_by_key", (keys, values), (op, sort))
    plan = _plans.PLANS.find(key)
    if plan is not None:  # an earlier call on like arrays checked them
        return plan(keys, values)
    k, v, work, acc, res, sort = _rbk_checked(keys, values, op, sort)
    karr, varr = k.array, v.array
    xp = k.backend.xp
    n = karr.size
    if n == 0:
        return k.kept(xp.empty(0, dtype=karr.dtype)), k.result(xp.empty(0, dtype=res))
    direct = not sort and karr is keys and varr is values and work == varr.dtype and acc == res
    if sort:
        karr, varr = _sort(karr, varr)
    if varr.dtype != work:
        varr = varr.astype(work)
    wide = _rp.value_keys(karr)
    direct = direct and wide is karr
    plan = _rp.runs_plan(k.backend, wide.dtype, _rp.VALUES, work, acc, op, n)
    if direct:  # read as they are: later calls on like arrays take the plan
        _plans.PLANS.file(key, plan)
    out_keys, reduced = plan(wide, varr)
    if out_keys.dtype != karr.dtype:
        out_keys = out_keys.astype(karr.dtype)
    if reduced.dtype != res:
        with np.errstate(over="ignore"):  # float16 results overflow to inf, as NumPy's do
            reduced = reduced.astype(res)
    return k.kept(out_keys), k.result(reduced)


# ---- unique -----------------------------------------------------------------------------------


def _runs_of_sorted(s, equal_nan, counts, variant, backend):
    """(first element of each run, run lengths or None) of the sorted backend array ``s``."""
    if variant == "rle":
        plan = _rp.runs_plan(
            backend, s.dtype, _rp.COUNTS if counts else _rp.KEYS, None, None, None, s.size
        )
        return plan(s, equal_nan=equal_nan)
    from .. import compaction

    xp = backend.xp
    heads = xp.empty(s.size, dtype=np.bool_)
    heads[:1] = True
    if s.dtype == np.float16:  # compared as numbers (-0.0 == 0.0), not as bit patterns
        w = s.astype(np.float32)
        xp.not_equal(w[1:], w[:-1], out=heads[1:])
    else:
        xp.not_equal(s[1:], s[:-1], out=heads[1:])
    if equal_nan and s.dtype.kind == "f":
        nan = xp.isnan(s)
        heads[1:] &= ~(nan[1:] & nan[:-1])
    out = compaction.compact(s, heads)
    if not counts:
        return out, None
    return out, _lengths(compaction.compact_indices(heads), s.size, xp)


def _starts(counts, xp):
    """The first index of each run, from the runs' lengths."""
    return xp.cumsum(counts) - counts


def _lengths(starts, n, xp):
    return _rp.lengths(starts, n, xp.empty)


def _run_ids(starts, n, xp):
    """The run of each of n sorted elements, from the runs' first indices."""
    marks = xp.zeros(n, dtype=np.int64)
    marks[starts[1:]] = 1
    return xp.cumsum(marks)


def _unique_flat(arr, ri, rv, rc, equal_nan, variant, backend):
    """NumPy's results of unique over the flat backend array ``arr`` (n >= 1)."""
    xp = backend.xp
    need_perm = ri or rv
    if need_perm:
        s, perm = _sort(arr, xp.arange(arr.size, dtype=np.int64))
    else:
        s, perm = _sort(arr), None
    u, counts = _runs_of_sorted(s, equal_nan, rc or need_perm, variant, backend)
    extra = []
    if need_perm:
        starts = _starts(counts, xp)
        if ri:
            extra.append(perm[starts])
        if rv:
            inverse = xp.empty(arr.size, dtype=np.int64)
            inverse[perm] = _run_ids(starts, arr.size, xp)
            extra.append(inverse)
    if rc:
        extra.append(counts)
    return u, extra


def _row_key(col, xp):
    """A column of rows as sort keys in NumPy's order of the rows' fields: bool as uint8,
    floats with -0.0 as 0.0 (equal in NumPy's comparison), NaN last (after inf) but for
    float16, whose fields NumPy compares with NaN first (before -inf): float16 as float64 with
    NaN as -inf and -inf as the lowest float64."""
    half = col.dtype == np.float16
    col = _sortable(col)
    if col.dtype.kind == "f":
        col = col + col.dtype.type(0)  # -0.0 + 0.0 is 0.0; NaN stays NaN
    if half:
        col = col.astype(np.float64)
        col = xp.where(col == -np.inf, np.finfo(np.float64).min, col)
        col = xp.where(xp.isnan(col), -np.inf, col)
    return col


def _row_words(rows, xp):
    """Integer or bool rows as 64-bit words, most significant first, whose order is the rows'
    lexicographic order and whose equality is theirs: each column's bits (signed integers with
    the sign bit flipped), as many columns to a word as fit. None for rows of floats."""
    dt = rows.dtype
    if dt.kind not in "biu":
        return None
    bits = 8 * dt.itemsize
    u = rows.view(np.dtype(f"u{dt.itemsize}"))
    if dt.kind == "i":
        u = u ^ u.dtype.type(1 << (bits - 1))
    per = 64 // bits
    words = []
    for first in range(0, rows.shape[1], per):
        word = xp.zeros(rows.shape[0], dtype=np.uint64)
        for j in range(first, min(rows.shape[1], first + per)):
            word = (word << np.uint64(bits)) | u[:, j].astype(np.uint64)
        words.append(word)
    return words


def _unique_rows(rows, ri, rv, rc, backend):
    """NumPy's results of unique over the rows of the 2-D backend array ``rows`` (n >= 1).

    Integer and bool rows become 64-bit words (:func:`_row_words`): rows of at most 8 bytes are
    one word, sorted with an index (one radix sort) and run-length encoded (one pass); longer
    rows are sorted word by word, last word first (a stable argsort each). Float rows are
    sorted column by column the same way (``-0.0`` as ``0.0``; NaN last, but first in float16
    columns, as NumPy compares fields: :func:`_row_key`); a row holding a NaN equals no row,
    as NumPy's."""
    from .. import compaction, sorting

    xp = backend.xp
    n, w = rows.shape
    words = _row_words(rows, xp)
    if words is not None and len(words) == 1:
        s, perm = _sort(words[0], xp.arange(n, dtype=np.int64))
        plan = _rp.runs_plan(backend, s.dtype, _rp.COUNTS, None, None, None, n)
        starts = _starts(plan(s)[1], xp)
    else:
        keys = (
            words
            if words is not None
            else [_row_key(xp.ascontiguousarray(rows[:, j]), xp) for j in range(w)]
        )
        perm = xp.arange(n, dtype=np.int64)
        for key in reversed(keys):
            perm = perm[sorting.argsort(key[perm])]
        heads = xp.zeros(n, dtype=np.bool_)
        heads[:1] = True
        if words is not None:
            for word in words:
                sw = word[perm]
                heads[1:] |= sw[1:] != sw[:-1]
        else:
            s = rows[perm]
            if s.dtype == np.float16:
                s = s.astype(np.float32)
            heads[1:] |= xp.any(s[1:] != s[:-1], axis=1)
        starts = compaction.compact_indices(heads)
    extra = []
    if ri:
        extra.append(perm[starts])
    if rv:
        inverse = xp.empty(n, dtype=np.int64)
        inverse[perm] = _run_ids(starts, n, xp)
        extra.append(inverse)
    if rc:
        extra.append(_lengths(starts, n, xp))
    return rows[perm[starts]], extra


def _shape(x):
    """The shape of the caller's ``x`` (that of the inverse with ``axis=None``)."""
    shape = getattr(x, "shape", None)
    return tuple(shape) if shape is not None else np.shape(x)


def _make_unique_plan(
    x, return_index=False, return_inverse=False, return_counts=False, axis=None, **options
):
    """What ``prim.plan(prim.unique, x, ...)`` runs: unique with the options bound (checked
    here, on ``x``)."""
    flags = (return_index, return_inverse, return_counts, axis)
    unique(x, *flags, **options)
    return lambda y: unique(y, *flags, **options)


@_plans.planned(_make_unique_plan)
def unique(
    x,
    return_index=False,
    return_inverse=False,
    return_counts=False,
    axis=None,
    *,
    equal_nan=True,
    sorted=True,  # noqa: A002 - NumPy's keyword
    variant="auto",
):
    """The sorted unique elements of ``x``, as :func:`numpy.unique`.

    Args:
        x: array of bool, int8, uint8, int16, uint16, int32, uint32, int64, uint64, float16,
            float32 or float64; flattened when ``axis`` is None.
        return_index: also return the index of the first occurrence of each unique element.
        return_inverse: also return the indices that rebuild ``x`` from the unique elements
            (of ``x``'s shape with ``axis=None``, else of its length along ``axis``).
        return_counts: also return how many times each unique element occurs (int64).
        axis: None, or the axis whose subarrays are compared whole (``axis=0`` of a 2-D array:
            its rows), each flattened as NumPy does; two subarrays holding a NaN never compare
            equal there (NumPy's comparison of rows). The axis of a 1-D ``x`` holds its
            elements, compared as with ``axis=None`` (NumPy's path for 1-D input).
        equal_nan: with ``axis=None`` or a 1-D ``x``, collapse every NaN into one (NumPy's
            default).
        sorted: accepted for NumPy's signature; the results are always sorted.
        variant: ``"rle"`` (sort, then one pass of the run kernel gives the unique elements
            and their counts at once), ``"compact"`` (sort, head flags, :func:`compact`) or
            ``"auto"`` (``"rle"``). With ``axis`` given (``x`` of 2 or more dimensions), the
            rows are sorted column by column and compacted whatever the variant.

    Returns:
        The unique elements, or a tuple of them and the arrays asked for, in NumPy's order
        (index, inverse, counts; int64). CuPy arrays for device input, NumPy for host input.

    Raises:
        TypeError: ``x`` not an array or of an unsupported dtype (complex, strings...); the
            ``return_*``, ``equal_nan`` or ``sorted`` flags not bools; ``axis`` not an integer.
        numpy.exceptions.AxisError: ``axis`` out of range (any axis of a 0-d ``x``).
        ValueError: unknown ``variant``.

    The sort is :func:`primitives.sort` (keys only) unless ``return_index``/``return_inverse``
    asks for the permutation (then keys and an index, stably); the number of unique elements
    is read back from the device once.

    See Also:
        :func:`numpy.unique`, :func:`cupy.unique`, :func:`run_length_encode`.
    """
    func = "unique"
    variant = _checks.check_choice(variant, VARIANTS, func=func, arg="variant", auto="rle")
    flags = [
        _checks.boolean(f, func, a)
        for f, a in (
            (return_index, "return_index"),
            (return_inverse, "return_inverse"),
            (return_counts, "return_counts"),
            (equal_nan, "equal_nan"),
            (sorted, "sorted"),
        )
    ]
    ri, rv, rc, equal_nan, _ = flags
    xdt = getattr(x, "dtype", None)
    if isinstance(xdt, np.dtype):  # before the copy to the device, which may refuse it
        _key_dtype(_checks.native_dtype(xdt), func, "x")
    inp = _checks.as_input(x, func=func, arg="x", flatten=axis is None)
    arr = inp.array
    _key_dtype(arr.dtype, func, "x")
    xp = inp.backend.xp
    if axis is not None:  # a 0-d array has no axis, as NumPy says
        ax = _checks.axis_index(axis, arr.ndim, func, scalar=True)
    if axis is None or arr.ndim == 1:  # NumPy's elements' path: a 1-D x with its axis too
        if arr.size == 0:
            u = xp.empty(0, dtype=arr.dtype)
            extra = [xp.empty(0, dtype=np.int64) for f in (ri, rc) if f]
            if rv:
                extra.insert(int(ri), xp.empty(_shape(x), dtype=np.int64))
        else:
            u, extra = _unique_flat(arr, ri, rv, rc, equal_nan, variant, inp.backend)
            if rv:
                extra[int(ri)] = extra[int(ri)].reshape(_shape(x))
    else:
        moved = xp.moveaxis(arr, ax, 0)
        shape = moved.shape
        rows = xp.ascontiguousarray(moved.reshape(shape[0], int(np.prod(shape[1:]))))
        if shape[0] == 0:
            u = rows
            extra = [xp.empty(0, dtype=np.int64) for f in (ri, rv, rc) if f]
        else:
            u, extra = _unique_rows(rows, ri, rv, rc, inp.backend)
        u = xp.moveaxis(u.reshape((u.shape[0],) + shape[1:]), 0, ax)
        u = xp.ascontiguousarray(u)
    out = inp.kept(u)
    if not extra:
        return out
    return (out,) + tuple(inp.result(e) for e in extra)

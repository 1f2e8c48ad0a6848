"""Sets' public functions: each declared with its prepare step (the checks of :mod:`._checks`,
unique's variant from :mod:`._choose`, the run kernel's plan of :mod:`._plans`) on the core's
entry protocol (:mod:`primitives._core.entry`)."""

from __future__ import annotations

import numpy as np

from .._core import checks as _core_checks, entry as _entry
from . import _checks, _choose, _plans as _rp, _unique
from ._choose import VARIANTS

__all__ = ["unique", "run_length_encode", "reduce_by_key", "VARIANTS", "OPS"]

OPS = _rp.OPS


# ---- run_length_encode and reduce_by_key ------------------------------------------------------


def _prepare_rle(x):
    k = _checks.keys(x, "run_length_encode", "x")
    arr = k.array
    xp = k.backend.xp
    if arr.size == 0:
        return _entry.Prepared.done(
            (k.kept(xp.empty(0, dtype=arr.dtype)), k.result(xp.empty(0, dtype=np.int64)))
        )
    plan = _rp.runs_plan(k.backend, arr.dtype, _rp.COUNTS, None, None, None, arr.size)
    if arr is x:  # read as it is: later calls on like arrays take the plan
        return _entry.Prepared(plan, (x,), reusable=True)

    def run(a):
        values, counts = plan(a)
        return k.kept(values), k.result(counts)

    return _entry.Prepared(run, (arr,))


@_entry.function(_prepare_rle, arrays=("x",))
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


def _prepare_rbk(keys, values, op="sum", *, sort=False):
    k, v, work, acc, res, sort = _checks.reduce_by_key(keys, values, op, sort)
    karr, varr = k.array, v.array
    xp = k.backend.xp
    n = karr.size
    if n == 0:
        return _entry.Prepared.done(
            (k.kept(xp.empty(0, dtype=karr.dtype)), k.result(xp.empty(0, dtype=res)))
        )
    wide = _rp.value_key_dtype(karr.dtype)
    plan = _rp.runs_plan(k.backend, wide, _rp.VALUES, work, acc, op, n)
    if (
        not sort
        and karr is keys
        and varr is values
        and work == varr.dtype
        and acc == res
        and wide == karr.dtype
    ):  # read as they are, results as the kernel writes them: later like calls take the plan
        return _entry.Prepared(plan, (keys, values), reusable=True)

    def run(ka, va):
        if sort:
            ka, va = _unique.sort(ka, va)
        if va.dtype != work:
            va = va.astype(work)
        out_keys, reduced = plan(_rp.value_keys(ka), va)
        if out_keys.dtype != ka.dtype:
            out_keys = out_keys.astype(ka.dtype)
        if reduced.dtype != res:
            with np.errstate(over="ignore"):  # float16 results overflow to inf, as NumPy's do
                reduced = reduced.astype(res)
        return k.kept(out_keys), k.result(reduced)

    return _entry.Prepared(run, (karr, varr))


@_entry.function(_prepare_rbk, arrays=("keys", "values"))
def reduce_by_key(keys, values, op="sum", *, sort=False):
    """Reduce the values of each run of consecutive equal keys: CUB's ``ReduceByKey``.

    Args:
        keys: 1-D array of bool, int8, uint8, int16, uint16, int32, uint32, int64, uint64,
            float16, float32 or float64; floats compare with ``==`` (``-0.0`` equals ``0.0``,
            a NaN equals nothing).
        values: 1-D array of as many elements, of any dtype the scans take: bool, int8, uint8,
            int16, uint16, int32, uint32, int64, uint64, float16, bfloat16, float32, float64,
            complex64, complex128.
        op: ``"sum"``, ``"prod"``, ``"min"`` or ``"max"`` (complex: ``"sum"`` and ``"prod"``),
            or a :class:`primitives.Op` of your own (computed in the values' dtype: int32, int64,
            uint32, uint64, float32 or float64; a run's values combined in index order).
        sort: group equal keys that are not consecutive first: a stable sort of the keys with
            the values alongside, so each key appears once, in ascending order (NaNs last, each
            its own group), and each group reduces its values in input order.

    Returns:
        ``(unique_keys, reduced)``: the first key of each run, in the dtype of ``keys``, and the
        run's reduction in NumPy's result dtype of ``op`` (``numpy.add.reduce``'s: sums and
        products widen bool and integers below 64 bits to int64/uint64; min/max keep the
        dtype; float16 and bfloat16 accumulate in float32 and are stored, rounded once, in
        their own dtype: a bfloat16 product of 3^8 is 6560, where NumPy's step-by-step bfloat16
        products give 6528). CuPy arrays for device input, NumPy for host input.

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


# ---- unique -----------------------------------------------------------------------------------


def _prepare_unique(
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
    variant = _choose.variant(variant)
    ri, rv, rc, equal_nan = _checks.unique_flags(
        return_index, return_inverse, return_counts, equal_nan, sorted
    )
    inp, ax = _checks.unique_input(x, axis)
    arr, backend = inp.array, inp.backend
    xp = backend.xp
    if axis is None or arr.ndim == 1:  # NumPy's elements' path: a 1-D x with its axis too
        shape = _core_checks.shape_of(x)
        if arr.size == 0:
            u = xp.empty(0, dtype=arr.dtype)
            extra = [xp.empty(0, dtype=np.int64) for f in (ri, rc) if f]
            if rv:
                extra.insert(int(ri), xp.empty(shape, dtype=np.int64))
            return _entry.Prepared.done(_returned(inp, u, extra))

        def steps(a):
            u, extra = _unique.unique_flat(a, ri, rv, rc, equal_nan, variant, backend)
            if rv:
                extra[int(ri)] = extra[int(ri)].reshape(shape)
            return u, extra

    else:

        def steps(a):
            return _unique.unique_along(a, ax, ri, rv, rc, backend)

    if arr is x:  # read as it is: later calls on like arrays run the same steps unchecked
        return _entry.Prepared(lambda a: _joined(*steps(a)), (x,), reusable=True)
    return _entry.Prepared(lambda a: _returned(inp, *steps(a)), (arr,))


def _joined(u, extra):
    """unique's result: the unique elements, or a tuple of them and the arrays asked for."""
    return u if not extra else (u, *extra)


def _returned(inp, u, extra):
    """unique's result as the caller's kind of array, the unique elements in its byte order."""
    out = inp.kept(u)
    if not extra:
        return out
    return (out,) + tuple(inp.result(e) for e in extra)


@_entry.function(_prepare_unique, arrays=("x",))
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
            float32, float64, complex64 or complex128 (in NumPy's order: by real part, then
            imaginary part, numbers with a NaN part last); flattened when ``axis`` is None.
        return_index: also return the index of the first occurrence of each unique element.
        return_inverse: also return the indices that rebuild ``x`` from the unique elements
            (of ``x``'s shape with ``axis=None``, else of its length along ``axis``).
        return_counts: also return how many times each unique element occurs (int64).
        axis: None, or the axis whose subarrays are compared whole (``axis=0`` of a 2-D array:
            its rows), each flattened as NumPy does; two subarrays holding a NaN never compare
            equal there (NumPy's comparison of rows). The axis of a 1-D ``x`` holds its
            elements, compared as with ``axis=None`` (NumPy's path for 1-D input).
        equal_nan: with ``axis=None`` or a 1-D ``x``, collapse every NaN into one (NumPy's
            default; complex: every number with a NaN part).
        sorted: accepted for NumPy's signature; the results are always sorted.
        variant: ``"count"`` (integer and bool keys: a histogram of the keys' range, whose
            non-empty bins are the unique elements and their counts; no sort), ``"rle"``
            (sort, then one pass of the run kernel gives the unique elements and their counts
            at once), ``"compact"`` (sort, head flags, :func:`compact`) or ``"auto"``
            (``"count"`` where it applies, else ``"rle"``; complex: ``"compact"``). ``"count"``
            counts 8-bit keys over their 256 values, wider ones over [min, max] (found on the
            device and read back) when that range holds at most ``count_max_ratio`` values per
            element and ``count_max_bins`` values (the ``"sets"`` tuning policy, selector
            ``"unique"``; ``"auto"`` also asks for ``count_min_size`` elements), and sorts as
            ``"rle"`` otherwise and with ``return_index``. With ``axis`` given (``x`` of 2 or
            more dimensions), the rows are sorted column by column and compacted whatever the
            variant.

    Returns:
        The unique elements, or a tuple of them and the arrays asked for, in NumPy's order
        (index, inverse, counts; int64). CuPy arrays for device input, NumPy for host input.

    Raises:
        TypeError: ``x`` not an array or of an unsupported dtype (strings, datetimes...); the
            ``return_*``, ``equal_nan`` or ``sorted`` flags not bools; ``axis`` not an integer.
        numpy.exceptions.AxisError: ``axis`` out of range (any axis of a 0-d ``x``).
        ValueError: unknown ``variant``.

    Counting reads the keys twice (their minimum and maximum, then the histogram) and writes
    nothing of their size but the inverse (each key's bin's place among the non-empty bins).
    The sort is :func:`primitives.sort` (keys only) unless ``return_index`` asks for the
    permutation (then keys and an index, stably: 32-bit indices below 2^32 elements). The
    inverse of real keys is each element's place among the unique elements, a
    :func:`primitives.searchsorted` of the input into them (no permutation, no scatter: on an
    H200 a scatter of 2^27 int64 run ids to random places took 8.4 ms, the search 5.1 ms with
    2^20 unique elements); complex keys store each sorted element's run at its place before
    the sort. The number of unique elements is read back from the device once.

    See Also:
        :func:`numpy.unique`, :func:`cupy.unique`, :func:`run_length_encode`.
    """

"""The scans' public functions, declared on the entry protocol (:mod:`primitives._core.entry`):
the checks (:mod:`._checks`), the variant choice (:mod:`._choose`), then the plans of
:mod:`._plans` (a flat array) and :mod:`._axis` (along an axis of an N-D array)."""

from __future__ import annotations

import numpy as np

from .._core import checks as _core_checks, entry as _entry, ops as _ops, structs as _structs
from . import _axis as _sa, _checks, _choose, _plans as _sp
from ._plans import OPS, VARIANTS

__all__ = ["inclusive_scan", "exclusive_scan", "cumsum", "cumprod", "continued", "VARIANTS", "OPS"]


def _prepared(func, x, op, axis, dtype, variant, exclusive, m=None):
    """The prepare step of every scan (``func``: the public function called): the scan along
    ``axis`` of an N-D array, or of the flattened array (each element read through the map
    ``m`` where given)."""
    if _checks.along_axis(x, axis, func):
        return _prepared_axis(func, x, op, axis, dtype, variant, exclusive, m)
    variant = _choose.variant(variant, func)
    inp, arr, in_dt, res_dt = _checks.checked(x, op, dtype, func)
    direct = _sp.direct(variant, in_dt, res_dt, op)
    _ops.check_map(m, in_dt, None if direct else res_dt, func)
    backend = inp.backend
    if arr.size == 0:
        return _entry.Prepared.done(inp.result(backend.xp.empty(0, dtype=res_dt)))
    if variant == "decoupled_lookback" and direct:
        plan = _sp.lookback_plan(backend, in_dt, res_dt, op, exclusive, arr.size, m)
        if arr is x:  # read as it is: later calls on like arrays take the plan
            return _entry.Prepared(plan, (x,), reusable=True)
        return _entry.Prepared(lambda a: inp.result(plan(a)), (arr,))

    def run(a):
        return inp.result(_sp.flat_scan(backend, a, in_dt, res_dt, op, exclusive, variant, m))

    return _entry.Prepared(run, (arr,))


def _fields(fields, n, func):
    """``fields=`` of a scan of ``n`` zipped arrays: the indices of the fields returned (all by
    default), and whether one array is returned (an int) rather than a tuple."""
    if fields is None:
        return tuple(range(n)), False
    one = isinstance(fields, (int, np.integer)) and not isinstance(fields, (bool, np.bool_))
    items = (fields,) if one else fields
    try:
        keep = tuple(_core_checks.axis_index(f, n, func) for f in items)
    except (TypeError, ValueError):
        keep = ()
    if not keep or len(set(keep)) != len(keep):
        raise ValueError(
            f"{func}: fields must be a field index of the {n} zipped arrays or a sequence of "
            f"distinct ones, got {fields!r}"
        )
    return keep, one


def _prepared_tuple(func, xs, op, axis, dtype, variant, exclusive, m, fields, names=None):
    """The scan of the arrays ``xs`` zipped index by index (flattened, of one size) with the
    operator over tuples ``op``: the look-back kernel (:class:`._plans.TupleScanPlan`), a tuple
    of result arrays of the fields' dtypes (those of ``fields=``; one array for an int).
    ``names``: ``xs`` are the fields of a structured array of these names
    (:func:`_prepared_struct`)."""
    variant = _choose.variant(variant, func)
    given = {"axis": axis, "dtype": dtype, "map": m}
    inps, acc_dt = _ops.tuple_input(
        xs,
        op,
        func,
        how="scanned flattened",
        variant=variant,
        kernel="decoupled_lookback",
        given=given,
        names=names,
    )
    keep, one = _fields(fields, len(inps), func)
    arrs = [inp.array for inp in inps]
    n = arrs[0].size
    filed = _ops.filed_inputs(inps, xs)  # the arrays read as they are: later like calls
    back = inps if filed is None else filed

    def give(outs):  # each result returned as its array was given
        res = tuple(back[i].result(o) for i, o in zip(keep, outs))
        return res[0] if one else res

    if n == 0:
        xp, dts = inps[0].backend.xp, _ops.fields(acc_dt)
        return _entry.Prepared.done(give([xp.empty(0, dtype=dts[i]) for i in keep]))
    plan = _sp.tuple_plan(inps[0].backend, acc_dt, op, exclusive, n)
    return _entry.Prepared(lambda a: give(plan(a, keep)), (arrs,), reusable=filed is not None)


def _prepared_struct(func, x, op, axis, dtype, variant, exclusive, m, fields):
    """The scan of the structured array ``x``: the tuple of its fields scanned
    (:func:`_prepared_tuple`, the operator naming them by their names or as ``f0``, ``f1``,
    ...), the results one structured array of ``x``'s dtype (native byte order), flattened."""
    if fields is not None:
        raise TypeError(
            f"{func}: fields= selects results of a tuple of arrays; a structured x is scanned "
            f"into one structured array (its fields by name: out['name'])"
        )
    xs, dt = _structs.struct_fields(x, func)
    p = _prepared_tuple(func, xs, op, axis, dtype, variant, exclusive, m, None, dt.names)
    return p.then(lambda outs: _structs.struct_result(outs, dt))


def _prepared_axis(func, x, op, axis, dtype, variant, exclusive, m=None):
    """The scan of every line of ``x`` along ``axis`` by the axis kernels (:mod:`._axis`), read
    where it lies: a C-ordered array as it is, an F-ordered one as its transpose (C-ordered, the
    axis counted from the other end; the result is then F-ordered, as NumPy's), any other
    strided view copied to C order first. The result has ``x``'s shape. An array of the
    backend's type read as it is gives a reusable run (:class:`._axis.AxisCall`). ``m``: the
    map the kernels read each element through (in its own dtype: a ``dtype`` that casts the
    elements first is refused)."""
    ndim = _checks.ndim(x)
    axis = _core_checks.axis_index(axis, ndim, func)
    flags = getattr(x, "flags", None)
    flipped = bool(
        flags is not None
        and getattr(flags, "f_contiguous", False)
        and not getattr(flags, "c_contiguous", True)
    )
    src = x.T if flipped else x
    if flipped:
        axis = ndim - 1 - axis
    _choose.variant(variant, func)  # checked; the axis kernels are the scan along an axis
    inp, arr, in_dt, res_dt = _checks.checked(src, op, dtype, func)
    _ops.check_map(m, in_dt, None, func)
    _ops.check_map(m, in_dt, _sa.map_cast(in_dt, res_dt, op), func)
    shape = _core_checks.shape_of(src)  # arr is flattened
    if arr.size == 0:
        out = inp.result(inp.backend.xp.empty(shape, dtype=res_dt))
        return _entry.Prepared.done(out.T if flipped else out)
    run, plan = _sa.scan_call(inp.backend, in_dt, res_dt, op, exclusive, shape, axis, m)
    if (
        plan is not None
        and type(x) is inp.backend.xp.ndarray
        and src.flags.c_contiguous
        and x.dtype == in_dt
    ):
        return _entry.Prepared(_sa.AxisCall(plan, shape, flipped), (x,), reusable=True)

    def finish(a):
        out = inp.result(run(a))  # then transposed: a host copy of an F-ordered result stays F
        return out.T if flipped else out

    return _entry.Prepared(finish, (arr,))


def _prepare_scan(func, exclusive):
    def prepare(x, op="sum", *, axis=None, dtype=None, variant="auto", map=None, fields=None):  # noqa: A002
        if isinstance(x, (tuple, list)) and isinstance(op, _ops.Op) and op.fields:
            m = _ops.as_map(map, func)
            return _prepared_tuple(func, x, op, axis, dtype, variant, exclusive, m, fields)
        if _structs.is_struct(x):
            m = _ops.as_map(map, func)
            return _prepared_struct(func, x, op, axis, dtype, variant, exclusive, m, fields)
        if fields is not None:
            raise TypeError(f"{func}: fields= selects results of a tuple of arrays; x is one array")
        return _prepared(func, x, op, axis, dtype, variant, exclusive, _ops.as_map(map, func))

    return prepare


def _prepare_accumulation(func, op):
    """cumsum's or cumprod's prepare step: the inclusive scan's; with ``out``, NumPy's checks of
    it first, then the scan (in the promotion of ``out``'s dtype and the input's, NumPy's rule
    without ``dtype``) cast into ``out`` on each call."""

    def prepare(x, axis=None, dtype=None, out=None, *, variant="auto"):
        if out is None:
            return _prepared(func, x, op, axis, dtype, variant, False)
        _checks.accumulation_out(func, x, axis, out)
        dtype = _checks.accumulation_dtype(func, x, dtype, out)
        scan = cumsum if op == "sum" else cumprod

        def run(a):
            return _core_checks.write_out(out, scan(a, axis, dtype, variant=variant), func)

        return _entry.Prepared(run, (x,))

    return prepare


def continued(x, op, seed, *, exclusive=False, dtype=None, func="inclusive_scan"):
    """The scan of the 1-D array ``x`` continued from ``seed``: ``seed op x[0] op ... op x[i]``
    (the exclusive scan: ``seed`` at 0), a chunk of a longer array scanned after the chunks
    before it whose total is ``seed``, a one-element array of the backend (None: not seeded).
    The result dtype is the scan's (``dtype=`` as the public functions). Where the look-back
    kernel takes the dtypes as they are, the seed is read by the kernel (tile 0 starts from it:
    one read and one write of ``x``); otherwise the seed is combined with the scan's result."""
    variant = _choose.variant("auto", func)
    inp, arr, in_dt, res_dt = _checks.checked(x, op, dtype, func)
    xp = inp.backend.xp
    if arr.size == 0:
        return inp.result(xp.empty(0, dtype=res_dt))
    if seed is None:
        return inp.result(_sp.flat_scan(inp.backend, arr, in_dt, res_dt, op, exclusive, variant))
    if _sp.direct(variant, in_dt, res_dt, op):
        plan = _sp.lookback_plan(inp.backend, in_dt, res_dt, op, exclusive, arr.size)
        seed = xp.asarray(seed).reshape(1).astype(plan.acc_dt)  # a new array: never the caller's
        return inp.result(plan(arr, seed))
    out = _sp.flat_scan(inp.backend, arr, in_dt, res_dt, op, exclusive, variant)
    with np.errstate(over="ignore"):
        getattr(xp, _sp.UFUNC[op])(xp.asarray(seed).reshape(1).astype(res_dt), out, out=out)
    return inp.result(out)


@_entry.function(
    _prepare_scan("inclusive_scan", False), arrays=("x",), tokens={"x": _ops.zip_token}
)
def inclusive_scan(x, op="sum", *, axis=None, dtype=None, variant="auto", map=None, fields=None):  # noqa: A002
    """Inclusive prefix scan: ``out[i] = x[0] op x[1] op ... op x[i]``.

    With a tuple of arrays ``x = (a, b, ...)`` of one size and a :class:`primitives.Op` over
    tuples (an identity of one value per array), the arrays are zipped index by index and
    scanned as one sequence of tuples: ``prim.inclusive_scan((a, b), prim.Op(("a.f0 * b.f0",
    "b.f0 * a.f1 + b.f1"), identity=(1.0, 0.0)), fields=1)`` is the linear recurrence
    ``x[i] = a[i] * x[i-1] + b[i]``. The result is a tuple of arrays, one per field (each
    field of its array's dtype, flattened), or those of ``fields=``: a field's index (that
    array alone) or a sequence of them (the other fields are not written).

    One array of a NumPy structured dtype of 2 to 4 fields (each of the dtypes a tuple's field
    may have; packed or aligned, any offsets) is the tuple of its fields, which the operator
    names by their names or as ``f0``, ``f1``, ...: with ``x`` of fields ``a`` and ``b``,
    ``prim.Op(("a.a * b.a", "b.a * a.b + b.b"), identity=(1.0, 0.0))`` is the same
    recurrence. The result is one structured array of ``x``'s dtype (its names, offsets and
    size), flattened; ``fields=`` is refused (index the result: ``out["b"]``).

    Args:
        x: array of bool, int8, uint8, int16, uint16, int32, int64, uint32, uint64, float16,
            bfloat16, float32, float64, complex64 or complex128 (CuPy, NumPy, or anything with
            ``__cuda_array_interface__`` / DLPack). Any ndim: with ``axis=None`` the array is
            flattened, as ``numpy.cumsum(x)`` does without ``axis``. Host arrays of non-native
            byte order are converted to native order on the host.
        op: ``"sum"``, ``"prod"``, ``"min"`` or ``"max"`` (complex: ``"sum"`` and ``"prod"``),
            or a :class:`primitives.Op` of your own (associative; its elements combined in
            index order; computed in the input's dtype or ``dtype=``: int32, int64, uint32,
            uint64, float32 or float64).
        axis: None (the flattened array) or an axis of an N-D ``x`` (negative counts from the
            end): every line along it is scanned and the result has ``x``'s shape, as
            ``numpy.cumsum(x, axis)``. C- and F-ordered arrays are scanned where they lie (an
            F-ordered one gives an F-ordered result, as NumPy's); other strided views are copied
            to C order first.
        dtype: result dtype (any dtype ``x`` may have). Default as NumPy's ``cumsum`` and
            ``cumprod``: ``sum`` and ``prod`` widen bool, int8, int16 and int32 to int64 and
            uint8, uint16 and uint32 to uint64 (float16, float32, float64 and complex stay);
            ``min``/``max`` keep the input dtype. As NumPy, the elements are cast to ``dtype``
            first: ``dtype=x.dtype`` keeps 32-bit integer sums in 32 bits (wrapping around on
            overflow). float16 results accumulate in float32 and are rounded to float16 once
            per output (as CuPy's; NumPy accumulates in float16, so results may differ from
            NumPy's in the last float16 bits, by less as n grows). The single-pass variant reads
            narrow inputs (1 and 2 bytes) where they lie; the classic variants convert them to
            a 32- or 64-bit accumulator dtype first (one more pass).
        variant: ``"hillis_steele"``, ``"blelloch"``, ``"decoupled_lookback"`` or ``"auto"``
            (= ``"decoupled_lookback"``).
        map: a transform of each element as it is read, no temporary array: a C++ expression
            of ``v`` (the element), its result of the element's dtype (``map="v * v"``: the
            running sums of squares; with ``axis``, along it). Elements of int32, int64,
            uint32, uint64, float32 or float64 read as they are (a ``dtype`` that casts the
            elements first is a ``TypeError``).
        fields: with a tuple ``x``, the results returned (see above); None: every field.
            Not taken with a structured ``x``.

    Returns:
        A 1-D array of ``x.size`` elements (``x``'s shape with ``axis``): CuPy for device input
        (no host synchronization), NumPy for host input; native byte order, as
        ``numpy.cumsum``'s.

    Raises:
        TypeError: ``x`` is not an array, or its dtype or ``dtype`` is unsupported; ``op``
            ``"min"``/``"max"`` with a complex ``x`` or ``dtype``; a complex ``x`` with a real
            ``dtype``.
        ValueError: unknown ``op`` or ``variant``; ``numpy.exceptions.AxisError`` (a
            ``ValueError``) for an axis out of range.

    Integer scans (sums and products) are exact modulo 2^bits. ``min``/``max`` propagate NaN
    from its position on, as ``numpy.minimum.accumulate`` does. Float and complex sums and
    products: each output is rounded along a tree whose depth grows with the number of tiles
    before it (see the docs for the bound); the single-pass variant's rounding order depends on
    timing, so they may differ in the last bits from run to run.

    See Also:
        :func:`numpy.cumsum`, :func:`numpy.minimum.accumulate <numpy.ufunc.accumulate>`,
        :func:`cupy.cumsum`.
    """


@_entry.function(_prepare_scan("exclusive_scan", True), arrays=("x",), tokens={"x": _ops.zip_token})
def exclusive_scan(x, op="sum", *, axis=None, dtype=None, variant="auto", map=None, fields=None):  # noqa: A002
    """Exclusive prefix scan: ``out[0]`` is the identity of ``op`` (0; 1 for ``prod``; the
    dtype's maximum for ``min``, its minimum for ``max``: infinities for floats, True and False
    for bool; a :class:`primitives.Op`'s own) and ``out[i] = x[0] op ... op x[i-1]``.

    Arguments, result and errors as :func:`inclusive_scan`.
    """


@_entry.function(_prepare_accumulation("cumsum", "sum"), arrays=("x",))
def cumsum(x, axis=None, dtype=None, out=None, *, variant="auto"):
    """Cumulative sum, as :func:`numpy.cumsum`.

    Args:
        x: array (see :func:`inclusive_scan`).
        axis: ``None`` (flatten) or an axis (negative counts from the end), as NumPy.
        dtype: result dtype; default as NumPy (bool, int8, int16, int32 -> int64; uint8, uint16,
            uint32 -> uint64; float16 accumulates in float32, see :func:`inclusive_scan`).
        out: an array of the result's shape (NumPy's or the device's) that receives it and is
            returned. As NumPy, without ``dtype`` the scan runs in the promotion of ``out``'s
            dtype and ``x``'s (int64 sums into a float64 ``out`` add in float64, never
            wrapping), and the result is cast to ``out``'s dtype whatever it is.
        variant: see :func:`inclusive_scan`.

    Returns:
        The inclusive sum scan: 1-D with ``axis=None``, ``x``'s shape otherwise (``out`` when
        given).

    Raises:
        TypeError: as :func:`inclusive_scan`; ``axis`` not an integer; ``out`` not an array.
        ValueError: ``out`` of another shape, or read-only.
        numpy.exceptions.AxisError: ``axis`` out of range (a ``ValueError``, as NumPy's).

    See Also:
        :func:`numpy.cumsum`, :func:`cupy.cumsum`.
    """


@_entry.function(_prepare_accumulation("cumprod", "prod"), arrays=("x",))
def cumprod(x, axis=None, dtype=None, out=None, *, variant="auto"):
    """Cumulative product, as :func:`numpy.cumprod`.

    Args:
        x: array (see :func:`inclusive_scan`), complex included.
        axis: ``None`` (flatten) or an axis (negative counts from the end), as NumPy.
        dtype: result dtype; default as NumPy (bool, int8, int16, int32 -> int64; uint8, uint16,
            uint32 -> uint64; float16 multiplies in float32, see :func:`inclusive_scan`).
        out: as :func:`cumsum`'s.
        variant: see :func:`inclusive_scan`.

    Returns:
        The inclusive product scan: 1-D with ``axis=None``, ``x``'s shape otherwise (``out``
        when given).

    Raises:
        TypeError: as :func:`inclusive_scan`; ``axis`` not an integer; ``out`` not an array.
        ValueError: ``out`` of another shape, or read-only.
        numpy.exceptions.AxisError: ``axis`` out of range (a ``ValueError``, as NumPy's).

    Integer products wrap around modulo 2^bits, as NumPy's. Float products are rounded along the
    same trees as sums (see :func:`inclusive_scan`).

    See Also:
        :func:`numpy.cumprod`, :func:`cupy.cumprod`.
    """

"""The reductions' public functions, declared on the entry protocol (:mod:`primitives._core.entry`):
their signatures and docstrings, and their prepare steps: the checks of :mod:`._checks`, the
variant of :mod:`._choose`, then the plans of :mod:`._plans` (every element), :mod:`._axis` (over
axes); argmin and argmax are :mod:`._api_arg`'s.

``mean`` is the sum in NumPy's accumulator dtype (float64 for bool and integers, float32 for
float16, the input's otherwise) divided by the count; ``any`` and ``all`` are the ``max`` and
``min`` of the elements as booleans (``x != 0``; a bool array is read as it is). They take
``axis``, ``keepdims`` and ``out`` as the reductions do.
"""

from __future__ import annotations

import numpy as np

from .._core import checks as _core_checks, dtypes as _dtypes, entry as _entry, ops as _ops
from .._core import structs as _structs
from . import _axis, _checks, _choose, _kernels, _map, _plans as _rp, _where
from ._choose import VARIANTS
from ._kernels import OPS

__all__ = ["reduce", "sum", "prod", "min", "max", "mean", "any", "all", "VARIANTS", "OPS"]

_Prepared = _entry.Prepared


_NoValue = _where.NO_VALUE


def _then(p, after):
    """``p``'s computation, then ``after`` of its result (not reusable: a first call's path)."""
    if p.run is None:
        result = p.result
        return _Prepared(lambda: after(result), ())
    run = p.run
    return _Prepared(lambda *arrays: after(run(*arrays)), p.arrays)


# ---- reduce, sum, prod, min, max ----------------------------------------------------------------


def _whole(x, op, dtype, variant, func, m=None):
    """Every element of ``x`` (flattened, each read through the map ``m`` where given) reduced
    on ``variant`` (chosen); ``func``: the public function the errors name."""
    inp, arr, acc_dt = _checks.flat_input(x, op, dtype, variant, func)
    xp = inp.backend.xp
    rt = _rp.route(arr.dtype, acc_dt, op, variant)
    _ops.check_map(m, rt.kin, rt.convs[-1] if rt.convs else None, func)
    if arr.size == 0:
        return _Prepared.done(inp.scalar(xp.full(1, _checks.empty_value(op, rt.res, func), rt.res)))
    if variant == "production":
        plan = _rp.production_plan(inp.backend, rt, op, arr.size, m)
        if arr is x:  # read as it is: later calls on like arrays take the plan directly
            return _Prepared(plan, (x,), reusable=True)
        return _Prepared(lambda a: inp.scalar(plan.run(a)), (arr,))
    backend = inp.backend
    return _Prepared(
        lambda a: inp.scalar(_rp.run(a, rt, op, variant, backend, m)), (arr,), reusable=arr is x
    )


def _tuples(xs, op, axis, dtype, out, keepdims, variant, func, initial, where, m, names=None):
    """The reduction of the arrays ``xs`` zipped index by index (flattened, of one size) with
    the operator over tuples ``op``: the production kernel over the zipped arrays
    (:class:`._plans.TupleReducePlan`), a tuple of results, one per field (NumPy scalars for
    NumPy input, 0-d arrays for device input). ``names``: ``xs`` are the fields of a structured
    array of these names (:func:`_struct`)."""
    given = {"axis": axis, "dtype": dtype, "out": out, "map": m, "keepdims": keepdims or None}
    given["initial"] = None if initial is _NoValue else initial
    given["where"] = None if _checks.every(where) else where
    inps, acc_dt = _ops.tuple_input(
        xs,
        op,
        func,
        how="reduced whole",
        variant=variant,
        kernel="production",
        given=given,
        names=names,
    )
    arrs = [inp.array for inp in inps]
    if arrs[0].size == 0:
        ident = op.identity_of(acc_dt)
        xp = inps[0].backend.xp
        return _Prepared.done(
            tuple(inp.scalar(xp.full(1, v, v.dtype)) for inp, v in zip(inps, ident))
        )
    plan = _rp.tuple_plan(inps[0].backend, acc_dt, op, arrs[0].size)
    filed = _ops.filed_inputs(inps, xs)  # the arrays read as they are: later like calls
    back = inps if filed is None else filed

    def run(arrays):
        return tuple(inp.scalar(r) for inp, r in zip(back, plan(*arrays)))

    return _Prepared(run, (arrs,), reusable=filed is not None)


def _struct(x, op, axis, dtype, out, keepdims, variant, func, initial, where, m):
    """The reduction of the structured array ``x``: the tuple of its fields reduced
    (:func:`_tuples`, the operator naming them by their names or as ``f0``, ``f1``, ...), the
    result one structured value of ``x``'s dtype (native byte order): a ``numpy.void`` for
    NumPy input, a 0-d array for device input."""
    xs, dt = _structs.struct_fields(x, func)
    p = _tuples(xs, op, axis, dtype, out, keepdims, variant, func, initial, where, m, dt.names)
    return p.then(lambda values: _structs.struct_result(values, dt))


def _prepare(
    x, op, axis, dtype, out, keepdims, variant, func, initial=_NoValue, where=True, m=None
):
    """The prepare step of :func:`reduce` and of ``sum``, ``prod``, ``min``, ``max`` (``func``:
    the public function the errors name). Without ``axis``, ``out`` and ``keepdims``: every
    element, flattened. Otherwise NumPy's ``axis``, ``out`` and ``keepdims``: over every axis the
    flattened reduction (then shaped), over some axes :func:`~._axis.prepare`, whose replay (the
    plan, and the view that makes the array C-ordered) later calls on like arrays run. With
    ``initial`` or a ``where`` mask: :func:`._where.masked`. With a map ``m``: each element read
    through it by the kernels, along axes too (:mod:`._map`: no ``where``)."""
    variant = _choose.variant(variant, func)
    if isinstance(x, (tuple, list)) and isinstance(op, _ops.Op) and op.fields:
        return _tuples(x, op, axis, dtype, out, keepdims, variant, func, initial, where, m)
    _map.refuse_where(m, where, func)
    if not (initial is _NoValue or initial is None) or not _checks.every(where):
        return _where.masked(
            _prepare, x, op, axis, dtype, out, keepdims, variant, func, initial, where, m
        )
    if axis is None and out is None and not keepdims:
        return _whole(x, op, dtype, variant, func, m)
    _checks.check_op(op, func)
    inp = _core_checks.as_input(x, func=func, arg="x", keep_f=True)  # F order is read in place
    arr = inp.array
    _checks.check_dtype(arr.dtype, op, func, ordered_complex=True)
    _ops.check_map(m, arr.dtype, None, func)
    axes = _checks.normalize_axis(axis, arr.ndim, func)
    if out is not None:  # before any launch
        _core_checks.check_out(out, _checks.result_shape(arr.shape, axes, keepdims), func)
        arr, dtype = _map.into_out(m, arr, op, dtype, out, axes, variant, func)
    shape, xp = arr.shape, inp.backend.xp

    def finish(res):
        return _checks.finish(res, inp, shape, axes, keepdims, out, func)

    if len(axes) == arr.ndim:  # every axis: the flattened reduction
        flat = arr.T if not arr.flags.c_contiguous else arr  # F order: the same elements, C
        p = _whole(flat, op, dtype, variant, func, m)  # the backend array in, a scalar out

        def shaped(value):
            return finish(xp.asarray(value).reshape(()))

        if p.reusable and out is None and _core_checks.is_itself(arr, x):  # 1-D, as it is
            whole = p.run
            return _Prepared(lambda a: shaped(whole(a)), (x,), reusable=True)
        return _then(p, shaped)
    acc_dt = _checks.result_dtype(arr.dtype, op, dtype, variant, func)
    arr = _checks.real_part(arr, acc_dt, inp.backend)
    backend = inp.backend
    if acc_dt.kind == "c":
        if op in ("min", "max") and 0 in [arr.shape[a] for a in axes]:
            raise _checks.empty_error(op, func)
        return _Prepared(
            lambda a: finish(_axis.complex_axis(a, axes, op, acc_dt, backend, func)), (arr,)
        )
    p = _axis.prepare(arr, axes, op, acc_dt, backend, func, m)
    if p.reusable and out is None and _core_checks.is_itself(arr, x):  # read as it is
        # the replay's result has the kept axes' shape: reshaped only for keepdims (a CuPy view
        # costs a repeat call about a microsecond of host time)
        run = (
            p.run if not keepdims else _axis.Shaped(p.run, _checks.result_shape(shape, axes, True))
        )
        return _Prepared(run, (x,), reusable=True)
    return _then(p, finish)


def _prepare_reduce(
    x,
    op="sum",
    *,
    axis=None,
    dtype=None,
    out=None,
    keepdims=False,
    initial=_NoValue,
    where=True,
    variant="auto",
    map=None,  # noqa: A002 - the keyword users write
):
    m = _ops.as_map(map, "reduce")
    if _structs.is_struct(x):
        variant = _choose.variant(variant, "reduce")
        return _struct(x, op, axis, dtype, out, keepdims, variant, "reduce", initial, where, m)
    return _prepare(x, op, axis, dtype, out, keepdims, variant, "reduce", initial, where, m)


def _prepare_of(op):
    """The prepare step of ``sum``/``prod`` or ``min``/``max``, with their signatures (NumPy's),
    their errors naming them."""
    if op in ("sum", "prod"):

        def prepare(
            x,
            axis=None,
            dtype=None,
            out=None,
            keepdims=False,
            initial=_NoValue,
            where=True,
            *,
            variant="auto",
            map=None,  # noqa: A002 - the keyword users write
        ):
            m = _ops.as_map(map, op)
            return _prepare(x, op, axis, dtype, out, keepdims, variant, op, initial, where, m)

    else:

        def prepare(
            x,
            axis=None,
            out=None,
            keepdims=False,
            initial=_NoValue,
            where=True,
            *,
            variant="auto",
            map=None,  # noqa: A002 - the keyword users write
        ):
            m = _ops.as_map(map, op)
            return _prepare(x, op, axis, None, out, keepdims, variant, op, initial, where, m)

    return prepare


@_entry.function(_prepare_reduce, arrays=("x",), tokens={"x": _ops.zip_token})
def reduce(
    x,
    op="sum",
    *,
    axis=None,
    dtype=None,
    out=None,
    keepdims=False,
    initial=_NoValue,
    where=True,
    variant="auto",
    map=None,  # noqa: A002 - the keyword users write
):
    """Reduce all elements of ``x`` with ``op``.

    Args:
        x: array of bool, int8, uint8, int16, uint16, int32, int64, uint32, uint64, float16,
            bfloat16, float32, float64, complex64 or complex128 (CuPy, NumPy, a torch tensor, or
            anything
            with ``__cuda_array_interface__`` / DLPack: the result is of the caller's kind, see
            :mod:`primitives._core.checks`). Any ndim: the array is flattened
            (``axis=None``). Host arrays of non-native byte order are converted to native order
            on the host. With a :class:`primitives.Op` over tuples (an identity of one value
            per field): a tuple of 2 to 4 arrays of one size, zipped index by index, reduced to
            a tuple of results, one per field; or one array of a NumPy structured dtype of 2 to
            4 fields (int32, int64, uint32, uint64, float32 or float64; packed or aligned, any
            offsets), the tuple of its fields, which the operator names by their names
            (``a.value``) or as ``a.f0``, ``a.f1``, ..., reduced to one value of its dtype (a
            ``numpy.void`` for host input, a 0-d array for device input). Tuples and
            structured arrays are reduced whole: no ``axis``, ``dtype``, ``out``,
            ``keepdims``, ``initial``, ``where`` or ``map``.
        op: ``"sum"``, ``"prod"``, ``"min"`` or ``"max"``, or a :class:`primitives.Op` of
            your own (computed in the input's dtype, or ``dtype=``: one of int32, int64,
            uint32, uint64, float32, float64; ``initial`` combined first, ``where``'s
            masked-out elements read as its identity).
        axis: None (every element), an int or a tuple of ints (negative counting from the end):
            the axes reduced, as NumPy's ``axis``.
        out: an array of the result's shape (``keepdims`` included) that receives the result
            and is returned. As NumPy, without ``dtype`` the reduction runs in the promotion of
            ``out``'s dtype and ``x``'s (uint64 summed into a float64 ``out`` adds in float64;
            int32 into an int32 ``out`` wraps at 32 bits), and the result is cast to ``out``'s
            dtype whatever it is (``casting="unsafe"``). ``min``/``max`` start, as NumPy's, from
            the first element cast to ``out``'s dtype (``max`` of int8 [-1, 1] into uint8 is
            255).
        keepdims: keep the reduced axes as axes of length 1.
        initial: NumPy's start value of the reduction, converted to the reduction's dtype
            (NumPy's errors: an integer out of its range is an ``OverflowError``); ``min``/``max``
            over nothing give it. None or absent: none.
        where: a bool array broadcast against ``x`` (or a bool): the elements to reduce, as
            NumPy's ``where``; the others read as the identity (0 for sums, 1 for products)
            and ``min``/``max`` take a mask only with ``initial``. Over every element the
            production kernel reads the mask with the elements (skipped on load); over some
            axes the masked-out elements are replaced in a temporary copy first (one extra
            pass).
        dtype: result dtype. Default as NumPy: ``sum`` and ``prod`` widen bool and signed
            integers below 64 bits to int64, unsigned ones to uint64 (float16 stays float16,
            accumulated in float32; complex stays complex); ``min``/``max`` keep the input
            dtype. A ``dtype`` without a native kernel for the input converts the input first
            (one extra pass), as NumPy casts to it; complex input into a real ``dtype`` keeps the
            real part, with NumPy's ``ComplexWarning``.
        variant: one of ``primitives.reduction.VARIANTS`` (``"alpha"`` ... ``"zeta"``,
            ``"production"``) or ``"auto"`` (= ``"production"``). Complex reductions run on
            ``"production"`` only.
        map: a transform of each element as it is read, no temporary array: a C++ expression
            of ``v`` (the element), its result of the element's dtype, ``map="v * v"`` a sum of
            squares (``numpy.sum(x * x)``; with ``axis=0``, ``numpy.sum(x * x, axis=0)``).
            Elements of int32, int64, uint32, uint64, float32 or float64, read as they are by
            the kernels (over every element or along ``axis``, any layout), with ``keepdims``,
            ``initial`` and ``out``; a ``dtype``, or an ``out`` whose dtype has NumPy cast the
            elements first (float32 summed into a float64 ``out``; ``min``/``max`` into a dtype
            the input does not cast to safely), is a ``TypeError``, as is ``where``.

    Returns:
        A 0-d device array for device input (like ``cupy.sum``), a NumPy scalar for host input
        (like ``numpy.sum``), in native byte order; with ``axis`` an array of the kept axes
        (``keepdims``: all axes), with ``out`` that array.

    Raises:
        TypeError: ``x`` is not an array, or its dtype (str, object, datetime64, ...) or
            ``dtype`` is unsupported; ``where`` of a dtype other than bool; an ``initial`` that
            does not convert (complex into a real dtype); a user operator or ``map`` in a dtype
            it does not compute in; ``map`` with ``where``, or with a ``dtype`` or ``out``
            that casts the elements first.
        ValueError: unknown ``op`` or ``variant``; a user operator's identity with no value in
            the dtype; a ``map`` that is not one expression; a complex reduction on a variant other than
            ``"production"``/``"auto"``; ``min``/``max`` of an empty array or over
            an axis of length 0 without ``initial`` (NumPy's error: no identity), or with a
            ``where`` mask and no ``initial``; a ragged sequence; an axis out of range
            (``numpy.exceptions.AxisError``) or repeated; ``out`` of another shape; ``where``
            that does not broadcast to ``x``'s shape; a sequence for ``initial``.
        OverflowError: ``initial`` out of the range of the reduction's integer dtype.

    Integer sums and products wrap around on overflow, as NumPy's do (see :func:`prod`).
    ``min``/``max`` propagate NaN as ``numpy.min``/``numpy.max``. Float sums accumulate in the
    result dtype in a tree; the error is bounded by the tree depth (see the docs). Device input: no
    host synchronization. Host input: one copy in and one out. The production kernel reads narrow
    dtypes in place, 16 bytes per load; the teaching variants (alpha ... zeta) convert them to
    their accumulator dtype first. Complex sums and products accumulate in the input's complex
    dtype (the production kernel reads 2 complex64 or 1 complex128 per 16-byte load); a complex sum
    over axes is the float sum of the real and imaginary parts. ``min``/``max`` of complex
    numbers order them as NumPy (lexicographically; a NaN in either part wins) in one pass of
    the same kernels (the production kernel, ``reduce_rows`` over axes); of several NaNs, one of
    them is the result (NumPy's is the first).
    Over some axes the result is laid out as NumPy's: the kept axes in the input's memory order
    (an F-ordered input gives an F-ordered result).

    See Also:
        :func:`numpy.sum`, :func:`numpy.prod`, :func:`numpy.min`, :func:`numpy.max`,
        :func:`cupy.sum`.
    """


@_entry.function(_prepare_of("sum"), arrays=("x",))
def sum(  # noqa: A001 - NumPy's name
    x,
    axis=None,
    dtype=None,
    out=None,
    keepdims=False,
    initial=_NoValue,
    where=True,
    *,
    variant="auto",
    map=None,  # noqa: A002 - the keyword users write
):
    """Sum of the elements over ``axis`` (all by default), as :func:`numpy.sum`, with ``initial``
    and ``where`` as NumPy's; see :func:`reduce` (``map=``: a transform of each element as it is
    read, ``prim.sum(x, map="v * v")`` a sum of squares). Complex input (complex64, complex128)
    sums to its own dtype."""


@_entry.function(_prepare_of("prod"), arrays=("x",))
def prod(
    x,
    axis=None,
    dtype=None,
    out=None,
    keepdims=False,
    initial=_NoValue,
    where=True,
    *,
    variant="auto",
    map=None,  # noqa: A002 - the keyword users write
):
    """Product of the elements over ``axis`` (all by default), as :func:`numpy.prod`.

    Args:
        x: array of bool, int8, uint8, int16, uint16, int32, int64, uint32, uint64, float16,
            bfloat16, float32, float64, complex64 or complex128 (CuPy, NumPy, or anything with
            ``__cuda_array_interface__`` / DLPack), any ndim.
        axis: None (every element), an int or a tuple of ints, as NumPy's ``axis``.
        dtype: result dtype. Default as NumPy: bool and signed integers below 64 bits give
            int64, unsigned ones uint64; float16 stays float16 (multiplied in float32); float
            and complex dtypes stay. Another ``dtype`` casts the elements to it first (one
            extra pass), as NumPy does; complex input into a real ``dtype`` keeps the real part
            with NumPy's ``ComplexWarning``.
        out: an array of the result's shape that receives the result and is returned; the
            product runs in ``dtype``, or without it in the promotion of ``out``'s dtype and
            ``x``'s, and is cast to ``out``'s dtype, as NumPy's (see :func:`reduce`).
        keepdims: keep the reduced axes as axes of length 1.
        initial: the start value of the product (see :func:`reduce`).
        where: a bool array broadcast against ``x``: the elements multiplied, the others read
            as 1 (see :func:`reduce`).
        variant: one of ``primitives.reduction.VARIANTS`` or ``"auto"`` (= ``"production"``).
            Every variant multiplies real dtypes; complex products run on ``"production"`` only.
        map: a transform of each element as it is read (see :func:`reduce`).

    Returns:
        A 0-d device array for device input, a NumPy scalar for host input; with ``axis`` an
        array of the kept axes (``keepdims``: all axes), with ``out`` that array. The product
        of nothing is 1.

    Raises:
        TypeError: ``x`` is not an array, or its dtype (str, object, datetime64, ...) or
            ``dtype`` is unsupported.
        ValueError: unknown ``variant``; a complex product on a variant other than
            ``"production"``/``"auto"``; an axis out of range (``numpy.exceptions.AxisError``)
            or repeated; ``out`` of another shape.

    Integer products wrap around on overflow, as NumPy's do (exact modulo 2^64, so in any
    width). Float products multiply in a tree, not left to right as NumPy: the roundings differ
    (one relative rounding per multiplication either way), and NaN and infinities propagate as
    IEEE multiplication does. The production kernel reads narrow integers in place, 16 bytes
    per load, multiplying each packet in 64 bits. Over axes, products run one block per result
    element on the reduced axes moved last (one copy unless they already are the last axes).

    See Also:
        :func:`numpy.prod`, :func:`cupy.prod`.
    """


@_entry.function(_prepare_of("min"), arrays=("x",))
def min(  # noqa: A001 - numpy.min
    x,
    axis=None,
    out=None,
    keepdims=False,
    initial=_NoValue,
    where=True,
    *,
    variant="auto",
    map=None,  # noqa: A002 - the keyword users write
):
    """Minimum over ``axis`` (all by default; NaN propagates; complex numbers ordered as NumPy's),
    with ``initial`` and ``where`` as NumPy's, as :func:`numpy.min`; see :func:`reduce`
    (``map=``)."""


@_entry.function(_prepare_of("max"), arrays=("x",))
def max(  # noqa: A001 - numpy.max
    x,
    axis=None,
    out=None,
    keepdims=False,
    initial=_NoValue,
    where=True,
    *,
    variant="auto",
    map=None,  # noqa: A002 - the keyword users write
):
    """Maximum over ``axis`` (all by default; NaN propagates; complex numbers ordered as NumPy's),
    with ``initial`` and ``where`` as NumPy's, as :func:`numpy.max`; see :func:`reduce`
    (``map=``)."""


# ---- mean, any, all -----------------------------------------------------------------------------


def _prepare_mean(x, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    func = "mean"
    inp = _checks.backend_input(x, func, _dtypes.REDUCE_COMPLEX_DTYPES)
    arr = inp.array
    # with a mask NumPy counts by a ufunc's reduction, which takes axis 0 or -1 of a 0-d array
    masked = not _checks.every(where)
    axes = _checks.normalize_axis(axis, arr.ndim, func, scalar_int=masked)
    acc, res = _checks.mean_dtypes(arr.dtype, dtype, func)
    if out is not None:
        _core_checks.check_out(out, _checks.result_shape(arr.shape, axes, keepdims), func)
        if np.dtype(out.dtype) in _dtypes.REDUCE_COMPLEX_DTYPES:
            # NumPy sums into out (in dtype, or else in the promotion of out's and the input's)
            # and divides there: the quotient of out's dtype
            if dtype is None and arr.dtype.kind in "fc" and not _dtypes.is_float16(arr.dtype):
                acc = np.result_type(out.dtype, arr.dtype)
            res = np.dtype(out.dtype)
    mask = _checks.where_mask(where, arr.shape, inp.backend, func) if masked else None
    if mask is not None:
        return _where.masked_mean(_prepare, inp, arr, mask, axes, acc, res, keepdims, out)
    count = int(np.prod([arr.shape[a] for a in axes], dtype=np.int64))
    if count == 0:
        _core_checks.warn_caller("Mean of empty slice.", RuntimeWarning)
    backend = inp.backend
    xp = backend.xp
    if count and arr.size and (out is None or res == acc):  # the division's, beside the sum's
        _kernels.prefetch_mean_divide(acc, res)
    # the sum of a backend array (C- or F-contiguous); axis None as given: every element
    summed = _prepare(arr, "sum", None if axis is None else axes, acc, None, False, "auto", "sum")
    if axis is None and out is None and not keepdims and arr is x and count and summed.reusable:
        # later calls on like arrays: the sum's plan and the division's
        divide = _rp.mean_divide_plan(backend, acc, res, 1, count)
        return _Prepared(_rp.MeanCall(summed.run, divide), (x,), reusable=True)

    def divided(s):
        s = xp.asarray(s)
        if out is not None and res != acc:  # numpy.mean's sum lands in out, and is divided there
            s = s.astype(res)
        # the division as NumPy's true_divide by the count, then the cast
        r = xp.empty(s.shape, dtype=res) if s.size == 0 else _rp.mean_divide(backend, s, count, res)
        return _checks.finish(r, inp, arr.shape, axes, keepdims, out, func)

    if out is None and count and summed.reusable and _core_checks.is_itself(arr, x):
        sums = summed.run  # over axes: the sum's replay, then the division
        return _Prepared(lambda a: divided(sums(a)), (x,), reusable=True)
    return _then(summed, divided)


@_entry.function(_prepare_mean, arrays=("x",))
def mean(x, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    """Arithmetic mean over ``axis`` (all elements by default), as :func:`numpy.mean`.

    The sum runs in NumPy's accumulator dtype: float64 for bool and integer input, float32 for
    float16 (the result float16), the input's own float or complex dtype otherwise (the mean of
    complex64 is complex64), or ``dtype``; with ``out`` and no ``dtype``, float input sums in the
    promotion of its dtype and ``out``'s, and the quotient is cast to ``out``'s dtype. The sums
    are divided by the count in float64 (complex128 for complex sums), as NumPy's
    ``true_divide`` by an integer count, then cast to the result dtype: ``dtype=numpy.int8``
    sums in int8 (wrapping) and truncates the quotient. An empty reduction gives NaN with NumPy's
    ``RuntimeWarning`` ("Mean of empty slice"). ``axis`` (a 0-d array has none),
    ``keepdims``, ``out`` and the errors as :func:`~primitives.sum`. ``where`` (a bool array
    broadcast against ``x``), as NumPy's: the mean of the elements where it is True, divided
    by their count per result element (NaN with the same warning where the count is 0; the
    counts are read on the host for it, which synchronizes); the others read as 0 in a
    temporary copy.
    """


def _logical(x, axis, out, keepdims, func, op, empty, where=True):
    """The prepare step of ``any`` (``op`` "max", over nothing ``empty`` False) and ``all``
    ("min", True). Complex elements are true where either part is nonzero. With a ``where``
    mask, the elements where it is False read as ``empty`` (a temporary)."""
    inp = _checks.backend_input(x, func, _dtypes.REDUCE_COMPLEX_DTYPES)
    arr = inp.array
    axes = _checks.normalize_axis(axis, arr.ndim, func)
    if out is not None:
        _core_checks.check_out(out, _checks.result_shape(arr.shape, axes, keepdims), func)
    xp = inp.backend.xp
    mask = _checks.where_mask(where, arr.shape, inp.backend, func)
    if mask is not None:
        arr = xp.where(mask, arr.astype(np.bool_), empty)

    def finish(r):  # a backend array, or a scalar of the whole-array path
        return _checks.finish(xp.asarray(r), inp, arr.shape, axes, keepdims, out, func)

    if 0 in [arr.shape[a] for a in axes]:  # nothing reduced: False for any, True for all
        r = xp.full(_checks.result_shape(arr.shape, axes, False), empty, dtype=np.bool_)
        return _Prepared(lambda: finish(r), ())
    cast = arr.dtype != np.bool_
    b = arr.astype(np.bool_) if cast else arr  # x != 0 (NaN is True)
    # axis None as given: every element
    p = _prepare(b, op, None if axis is None else axes, None, None, False, "auto", op)
    if p.reusable and out is None and _core_checks.is_itself(arr, x):  # read as it is
        inner = p.run
        if cast:
            return _Prepared(lambda a: finish(inner(a.astype(np.bool_))), (x,), reusable=True)
        return _Prepared(lambda a: finish(inner(a)), (x,), reusable=True)
    return _then(p, finish)


def _prepare_any(x, axis=None, out=None, keepdims=False, *, where=True):
    return _logical(x, axis, out, keepdims, "any", "max", False, where)


def _prepare_all(x, axis=None, out=None, keepdims=False, *, where=True):
    return _logical(x, axis, out, keepdims, "all", "min", True, where)


@_entry.function(_prepare_any, arrays=("x",))
def any(x, axis=None, out=None, keepdims=False, *, where=True):  # noqa: A001 - numpy.any
    """Whether any element over ``axis`` is true (non-zero; NaN counts; a complex number with
    either part non-zero), as :func:`numpy.any`: the ``max`` of the elements as booleans; False
    over nothing. ``where``: a bool array broadcast against ``x``, the elements looked at (the
    others read as False)."""


@_entry.function(_prepare_all, arrays=("x",))
def all(x, axis=None, out=None, keepdims=False, *, where=True):  # noqa: A001 - numpy.all
    """Whether every element over ``axis`` is true (non-zero; NaN counts; a complex number with
    either part non-zero), as :func:`numpy.all`: the ``min`` of the elements as booleans; True
    over nothing. ``where``: a bool array broadcast against ``x``, the elements looked at (the
    others read as True)."""

"""Scan family's public functions: checks, then the plans of :mod:`._plans`."""

from __future__ import annotations

import numpy as np

from .._core import checks as _checks, dtypes as _dtypes, plans as _plans
from . import _axis as _sa, _plans as _sp
from ._plans import OPS, VARIANTS

__all__ = ["inclusive_scan", "exclusive_scan", "cumsum", "cumprod", "VARIANTS", "OPS"]

#: the accumulator dtype of a classic scan of a narrow input (converted to it first)
_WIDE = {
    np.dtype(k): np.dtype(v)
    for k, v in (
        (np.bool_, np.int64),
        (np.int8, np.int64),
        (np.int16, np.int64),
        (np.uint8, np.uint64),
        (np.uint16, np.uint64),
        (np.float16, np.float32),
    )
}


def _validated(x, op, dtype, variant, func):
    """The checks of every scan: ``(variant, inp, arr, in_dt, res_dt)``, the flattened contiguous
    input as it is and the result dtype (NumPy's: ``sum``/``prod`` widen bool and integers below
    64 bits; ``dtype=`` overrides)."""
    variant = _checks.check_choice(
        variant, VARIANTS, func=func, arg="variant", auto="decoupled_lookback"
    )
    _checks.check_choice(op, OPS, func=func, arg="op")
    inp = _checks.as_input(x, func=func, arg="x", flatten=True)
    arr = inp.array
    in_dt = arr.dtype
    return variant, inp, arr, in_dt, checked_result_dtype(in_dt, op, dtype, func)


def checked_result_dtype(in_dt, op, dtype, func):
    """The result dtype of a scan of ``in_dt`` with ``op`` (NumPy's: ``sum``/``prod`` widen bool
    and integers below 64 bits; ``dtype=`` overrides), after the checks of the input's and the
    result's dtypes (``func``: the public function the errors name)."""
    in_dt = np.dtype(in_dt)
    if in_dt not in _sp.DTYPES:
        raise TypeError(
            f"{func}: x has dtype {in_dt.name}; supported dtypes are {_dtypes.names(_sp.DTYPES)}"
        )
    if dtype is None:
        res_dt = _sp.result_dtype(in_dt, op)
    else:
        res_dt = _dtypes.resolve_dtype(_checks.native_dtype(dtype), func=func, allowed=_sp.DTYPES)
    if op in ("min", "max") and "c" in (in_dt.kind, res_dt.kind):
        cplx = in_dt if in_dt.kind == "c" else res_dt
        raise TypeError(
            f"{func}: op={op!r} is not defined for complex dtype {cplx.name} (no "
            f"ordering); use 'sum' or 'prod'"
        )
    if in_dt.kind == "c" and res_dt.kind != "c":
        raise TypeError(
            f"{func}: dtype={res_dt.name} would discard the imaginary part of x "
            f"({in_dt.name}); use a complex dtype"
        )
    return res_dt


def _identity(op, dt):
    """The identity of ``op`` in ``dt`` (bool: False for sum and max, True for prod and min)."""
    if dt.kind == "b":
        return op in ("prod", "min")
    if dt.kind == "c":
        return dt.type(1 if op == "prod" else 0)
    if op == "prod":
        return dt.type(1)
    return _dtypes.identity(op, dt)


def _run(backend, arr, in_dt, res_dt, op, exclusive, variant, key=None):
    """The scan of the flat contiguous backend array ``arr`` (n > 0 elements of ``in_dt``) into
    a new array of ``res_dt``. A kernel that takes (``in_dt``, ``res_dt``) as they are runs alone
    (the look-back plan is filed under ``key`` when given); otherwise the elements are cast to
    ``res_dt`` first (as NumPy's ``dtype=``), scanned by the kernel that takes that dtype (the
    classic scans: narrow dtypes converted to a 32/64-bit accumulator type first; bool min/max:
    the uint8 view) and the result cast back to ``res_dt``."""
    n = arr.size
    if _sp.direct(variant, in_dt, res_dt, op):
        if variant == "decoupled_lookback":
            plan = _sp.lookback_plan(backend, in_dt, res_dt, op, exclusive, n)
            if key is not None:  # read as it is: later calls on like arrays take the plan
                _plans.PLANS.file(key, plan)
            return plan(arr)
        return _sp.hierarchical(arr, n, in_dt, res_dt, op, exclusive, variant, backend)
    src = res_dt
    if in_dt != src:
        arr = arr.astype(src)
    if src.kind == "b" and op in ("min", "max"):
        arr, src = arr.view(np.uint8), np.dtype(np.uint8)
    work = _sp.natural(variant, src, op)
    if work is None:  # a classic scan of a narrow dtype
        work = _WIDE[src]
        arr, src = arr.astype(work), work
    out = _run(backend, arr, src, work, op, exclusive, variant)
    if work == res_dt:
        return out
    with np.errstate(over="ignore"):  # float16 results overflow to inf, as NumPy's do
        out = out.astype(res_dt)
    if exclusive and op in ("min", "max"):  # the identity of the narrower dtype
        out[:1] = _identity(op, res_dt)
    return out


def _scan(x, op, dtype, variant, exclusive, func, key):
    variant, inp, arr, in_dt, res_dt = _validated(x, op, dtype, variant, func)
    if arr.size == 0:
        return inp.result(inp.backend.xp.empty(0, dtype=res_dt))
    return inp.result(
        _run(inp.backend, arr, in_dt, res_dt, op, exclusive, variant, key if arr is x else None)
    )


#: op -> the name of its ufunc (NumPy's and CuPy's)
UFUNC = {"sum": "add", "prod": "multiply", "min": "minimum", "max": "maximum"}


def continued(x, op, seed, *, exclusive=False, dtype=None, func="inclusive_scan"):
    """The scan of the 1-D array ``x`` continued from ``seed``: ``seed op x[0] op ... op x[i]``
    (the exclusive scan: ``seed`` at 0), a chunk of a longer array scanned after the chunks
    before it whose total is ``seed``, a one-element array of the backend (None: not seeded).
    The result dtype is the scan's (``dtype=`` as the public functions). Where the look-back
    kernel takes the dtypes as they are, the seed is read by the kernel (tile 0 starts from it:
    one read and one write of ``x``); otherwise the seed is combined with the scan's result."""
    variant, inp, arr, in_dt, res_dt = _validated(x, op, dtype, "auto", func)
    xp = inp.backend.xp
    if arr.size == 0:
        return inp.result(xp.empty(0, dtype=res_dt))
    if seed is None:
        return inp.result(_run(inp.backend, arr, in_dt, res_dt, op, exclusive, variant))
    if _sp.direct(variant, in_dt, res_dt, op):
        plan = _sp.lookback_plan(inp.backend, in_dt, res_dt, op, exclusive, arr.size)
        seed = xp.asarray(seed).reshape(1).astype(plan.acc_dt)  # a new array: never the caller's
        return inp.result(plan(arr, seed))
    out = _run(inp.backend, arr, in_dt, res_dt, op, exclusive, variant)
    with np.errstate(over="ignore"):
        getattr(xp, UFUNC[op])(xp.asarray(seed).reshape(1).astype(res_dt), out, out=out)
    return inp.result(out)


def _make_plan(func, exclusive):
    """What ``prim.plan(prim.<func>, x, ...)`` runs for arrays like ``x``."""

    def make(x, op="sum", *, axis=None, dtype=None, variant="auto"):
        if _along_axis(x, axis, func):
            _validated(x, op, dtype, variant, func)
            return lambda y: _entry(func, y, op, axis, dtype, variant, exclusive)
        variant, inp, arr, in_dt, res_dt = _validated(x, op, dtype, variant, func)
        if (
            variant == "decoupled_lookback"
            and arr.size
            and arr is x
            and _sp.direct(variant, in_dt, res_dt, op)
        ):
            return _sp.lookback_plan(inp.backend, in_dt, res_dt, op, exclusive, arr.size)
        return lambda y: _scan(y, op, dtype, variant, exclusive, func, None)

    return make


def _make_cumsum_plan(x, axis=None, dtype=None, out=None, *, variant="auto"):
    return _accumulation_plan("cumsum", "sum", x, axis, dtype, out, variant)


def _make_cumprod_plan(x, axis=None, dtype=None, out=None, *, variant="auto"):
    return _accumulation_plan("cumprod", "prod", x, axis, dtype, out, variant)


def _accumulation_plan(func, op, x, axis, dtype, out, variant):
    """cumsum's and cumprod's plans: the inclusive scan's, writing into ``out`` when given."""
    if out is None:
        return _make_plan(func, False)(x, op, axis=axis, dtype=dtype, variant=variant)
    _check_accumulation_out(func, x, axis, out)
    return lambda y: _accumulate(func, y, op, axis, dtype, out, variant)


def _check_accumulation_out(func, x, axis, out):
    """NumPy's checks of cumsum's/cumprod's ``out`` (the result's shape: ``x``'s along an axis,
    1-D of its size with ``axis=None``), before any launch."""
    shape = tuple(np.shape(x))
    if axis is None or len(shape) <= 1:
        shape = (int(np.prod(shape, dtype=np.int64)),)
    _checks.check_out(out, shape, func)


def _accumulate(func, x, op, axis, dtype, out, variant):
    """cumsum or cumprod: the inclusive scan, cast into ``out`` when given (NumPy's rule: without
    ``dtype``, the scan runs in the promotion of ``out``'s dtype and the input's, so int64 sums
    into a float64 ``out`` add in float64 and never wrap)."""
    if out is not None:
        _check_accumulation_out(func, x, axis, out)
        in_dt = getattr(x, "dtype", None)
        if dtype is None and in_dt is not None and np.dtype(out.dtype) in _sp.DTYPES:
            dtype = np.result_type(np.dtype(out.dtype), np.dtype(in_dt).newbyteorder("="))
    res = _entry(func, x, op, axis, dtype, variant, False)
    return res if out is None else _checks.write_out(out, res, func)


def _entry(func, x, op, axis, dtype, variant, exclusive):
    """A call of the public scan ``func``: the plan an earlier call on a like array filed (it
    checked these arguments), else the checks, then the scan along ``axis`` or of the flattened
    array."""
    key = _plans.call_key(func, (x,), (op, axis, dtype, variant))
    plan = _plans.PLANS.find(key)
    if plan is not None:
        return plan(x)
    if _along_axis(x, axis, func):
        return _scan_axis(x, axis, op, dtype, variant, exclusive, func, key)
    return _scan(x, op, dtype, variant, exclusive, func, key)


def _along_axis(x, axis, func):
    """Whether a scan of ``x`` runs along ``axis`` of an N-D array (True) or over the flattened
    array (False: ``axis`` None, or the only axis of a 1-D array); NumPy's errors for a bad
    ``axis``."""
    if axis is None:
        return False
    ndim = getattr(x, "ndim", None)
    if ndim is None:
        ndim = np.ndim(x)
    _checks.axis_index(axis, ndim, func)
    return ndim > 1


def _scan_axis(x, axis, op, dtype, variant, exclusive, func, key=None):
    """The scan of every line of ``x`` along ``axis`` by the axis kernels (:mod:`._axis`), read
    where it lies: a C-ordered array as it is, an F-ordered one as its transpose (C-ordered, the
    axis counted from the other end; the result is then F-ordered, as NumPy's), any other
    strided view copied to C order first. The result has ``x``'s shape. A call on an array of
    the backend's type read as it is files its plan under the call key ``key``."""
    ndim = x.ndim if getattr(x, "ndim", None) is not None else np.ndim(x)
    axis = _checks.axis_index(axis, ndim, func)
    flags = getattr(x, "flags", None)
    flipped = bool(
        flags is not None
        and getattr(flags, "f_contiguous", False)
        and not getattr(flags, "c_contiguous", True)
    )
    src = x.T if flipped else x
    if flipped:
        axis = ndim - 1 - axis
    variant, inp, arr, in_dt, res_dt = _validated(src, op, dtype, variant, func)
    shape = tuple(np.shape(src))
    if arr.size == 0:
        out = inp.backend.xp.empty(shape, dtype=res_dt)
    else:
        out, plan = _sa.scan(inp.backend, arr, in_dt, res_dt, op, exclusive, shape, axis)
        if (
            plan is not None
            and key is not None
            and type(x) is inp.backend.xp.ndarray
            and src.flags.c_contiguous
            and x.dtype == in_dt
        ):
            _plans.PLANS.file(key, _sa.AxisCall(plan, shape, flipped))
    out = inp.result(out)  # then transposed: a host copy of an F-ordered result stays F-ordered
    return out.T if flipped else out


@_plans.planned(_make_plan("inclusive_scan", False))
def inclusive_scan(x, op="sum", *, axis=None, dtype=None, variant="auto"):
    """Inclusive prefix scan: ``out[i] = x[0] op x[1] op ... op x[i]``.

    Args:
        x: array of bool, int8, uint8, int16, uint16, int32, int64, uint32, uint64, float16,
            float32, float64, complex64 or complex128 (CuPy, NumPy, or anything with
            ``__cuda_array_interface__`` / DLPack). Any ndim: with ``axis=None`` the array is
            flattened, as ``numpy.cumsum(x)`` does without ``axis``. Host arrays of non-native
            byte order are converted to native order on the host.
        op: ``"sum"``, ``"prod"``, ``"min"`` or ``"max"`` (complex: ``"sum"`` and ``"prod"``).
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
    return _entry("inclusive_scan", x, op, axis, dtype, variant, False)


@_plans.planned(_make_plan("exclusive_scan", True))
def exclusive_scan(x, op="sum", *, axis=None, dtype=None, variant="auto"):
    """Exclusive prefix scan: ``out[0]`` is the identity of ``op`` (0; 1 for ``prod``; the
    dtype's maximum for ``min``, its minimum for ``max``: infinities for floats, True and False
    for bool) and
    ``out[i] = x[0] op ... op x[i-1]``.

    Arguments, result and errors as :func:`inclusive_scan`.
    """
    return _entry("exclusive_scan", x, op, axis, dtype, variant, True)


@_plans.planned(_make_cumsum_plan)
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
    return _accumulate("cumsum", x, "sum", axis, dtype, out, variant)


@_plans.planned(_make_cumprod_plan)
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
    return _accumulate("cumprod", x, "prod", axis, dtype, out, variant)

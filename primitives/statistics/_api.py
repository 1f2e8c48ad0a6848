"""The NaN-ignoring reductions and scans, declared on the entry protocol
(:mod:`primitives._core.entry`): ``nansum``, ``nanprod``, ``nanmin``, ``nanmax``, ``nanargmin``,
``nanargmax``, ``nanmean``, ``nancumsum``, ``nancumprod``.

Float and complex input runs the family's one-pass kernels (:func:`~._plans.reduce`: NaN read as
the identity on load). Bool and integer input holds no NaN: NumPy's nan-functions are then the
plain ones, and so are these (the reduction and scan families' ``sum``, ``prod``, ``min``,
``max``, ``argmin``, ``argmax``, ``mean``, ``cumsum``, ``cumprod``), as are requests the kernels
have no instantiation for (a ``dtype=`` of another kind): the NaNs replaced by the identity
first, one pass more.
"""

from __future__ import annotations

import numpy as np

from .. import reduction as _reduction, scan as _scan
from .._core import checks as _core_checks, entry as _entry
from . import _checks, _plans
from ._kernels import KINDS

__all__ = [
    "nansum",
    "nanprod",
    "nanmin",
    "nanmax",
    "nanargmin",
    "nanargmax",
    "nanmean",
    "nancumsum",
    "nancumprod",
]

_Prepared = _entry.Prepared
#: every dtype the nan-functions take: bool, the integers, float16/32/64, complex64/128
NUMERIC = KINDS["var"]
_PLAIN = {"nansum": "sum", "nanprod": "prod", "nanmin": "min", "nanmax": "max"}
_FILL = {"nansum": 0, "nanprod": 1, "nanmin": np.nan, "nanmax": np.nan, "nanmean": np.nan}


def _warn(message):
    _core_checks.warn_caller(message, RuntimeWarning)


def _masked(c, a, where, fill):
    """``a`` (the call's array or a conversion of it) with the elements ``where`` leaves out
    replaced by ``fill`` (NaN for the kernels: skipped as a NaN is), or ``a`` itself without
    ``where``."""
    if where is None:
        return a
    xp = c.xp
    w = xp.asarray(where, dtype=np.bool_)
    try:
        w = xp.broadcast_to(w, a.shape)
    except ValueError as exc:
        raise ValueError(
            f"{c.func}: where of shape {tuple(w.shape)} does not broadcast to {a.shape}"
        ) from exc
    return xp.ascontiguousarray(xp.where(w, a, a.dtype.type(fill)))


def _axis_arg(c, axis):
    return None if axis is None else c.axes


# ---- nansum, nanprod, nanmin, nanmax, nanmean ---------------------------------------------------


def _prepare_nan(func, x, axis, dtype, out, keepdims, initial, where):
    """The prepare step of nansum, nanprod, nanmin, nanmax (``dtype`` None) and nanmean."""
    # NumPy's nanmean of float input sums through the ufuncs, which give a 0-d array axis 0
    scalar_int = _checks.inexact if func == "nanmean" else True
    c = _checks.Call(x, func, NUMERIC, axis, keepdims, out, scalar_int=scalar_int)
    xp, arr = c.xp, c.arr
    dt = arr.dtype
    want = None if dtype is None else _checks.float_dtype(dtype, func)
    if func == "nanmean" and want is not None and dt.kind in "fc" and want.kind not in "fc":
        raise TypeError(f"{func}: If a is inexact, then dtype must be inexact")
    if func == "nanmean" and dt.kind not in "fc" and where is not None:
        arr, dt = arr.astype(np.float64), np.dtype(np.float64)  # the mean's dtype: no NaN in it
    if dt not in KINDS[func] or (want is not None and want.kind not in "fc"):
        # no NaN to skip (bool, integers), or a dtype of another kind: the plain reduction of
        # the elements, NaNs replaced by the identity
        # as NumPy: the plain reduction with every keyword (initial, where, out: its dtype
        # rules, an empty reduction's initial), NaNs of float input replaced first
        a = _plans.nan_to(arr, _FILL[func], c.inp.backend) if dt.kind in "fc" else arr
        plain = getattr(_reduction, _PLAIN.get(func, "mean"))
        kw = {} if func in ("nanmin", "nanmax") else {"dtype": dtype}
        kw.update({k: v for k, v in (("initial", initial), ("where", where)) if v is not None})

        def run_plain():
            with _core_checks.errors_of(func, plain.__name__):
                r = plain(a, axis=_axis_arg(c, axis), out=out, keepdims=c.keepdims, **kw)
            return r if out is not None else c.finish(c.xp.asarray(r))

        return _Prepared(run_plain, ())
    if want is not None and want != dt:
        arr = arr.astype(want)  # NumPy casts the elements to dtype (NaN stays NaN)
    if initial is not None:  # converted (and refused) once, with NumPy's errors, named
        initial = _reduction.initial_value(initial, arr.dtype, func)
    if out is not None and initial is None and func in ("nanmin", "nanmax"):
        # numpy.fmin.reduce into an out of another dtype: each slice starts from its first
        # element through out's dtype (a copy where that changes it), as min and max do
        arr = _reduction.into_out(arr, func[3:], None, out, c.axes)[0]
    a = _masked(c, arr, where, np.nan)
    backend = c.inp.backend
    kind = func
    if c.count == 0:
        if func in ("nanmin", "nanmax") and initial is None:
            op = "fmin" if func == "nanmin" else "fmax"
            raise ValueError(
                f"{func}: zero-size array to reduction operation {op} which has no identity"
            )
        if func == "nanmean":
            _warn("Mean of empty slice")
        r = xp.full(c.kept, _FILL[func], dtype=a.dtype)
        return _Prepared(lambda: c.finish(_initial(func, r, initial, xp)), ())

    reduce = _plans.runner(a, kind, c.axes, backend)
    check = func in ("nanmin", "nanmax", "nanmean")
    first = func != "nanmean" and a.dtype.kind == "c" and initial is None

    def run(arr_):
        r = _initial(func, reduce(arr_), initial, xp)
        if not check:
            return c.finish(r)
        nan = _nan_fetch(r, backend)  # read back while the result is written out
        res = c.finish(r)
        if _holds_nan(nan):
            if func != "nanmean":
                _warn("All-NaN slice encountered")
                if first:  # NumPy's fmin/fmax keep a slice's first NaN: its other part shows
                    res = c.finish(xp.where(xp.isnan(r), _first(arr_, c.axes), r))
            elif _empty_slice(arr_, c.axes, xp):
                _warn("Mean of empty slice")
        return res

    return _Prepared(run, (a,), reusable=_core_checks.is_itself(a, x) and out is None)


def _nan_fetch(r, backend):
    """Start reading back whether the result ``r`` holds a NaN (:meth:`Backend.fetch`): a 0-d
    result itself, otherwise one flag reduced on the device; :func:`_holds_nan` waits for it."""
    return backend.fetch(r if r.ndim == 0 else backend.xp.isnan(r).any())


def _holds_nan(fetch):
    v = fetch.value()
    return bool(v) if v.dtype == np.bool_ else bool(np.isnan(v))


def _first(arr, axes):
    """The first element of every slice over ``axes`` (index 0 along each), of the kept shape."""
    return arr[tuple(0 if i in axes else slice(None) for i in range(arr.ndim))]


def _empty_slice(arr, axes, xp):
    """Whether a slice over ``axes`` holds NaNs alone."""
    return bool(xp.all(xp.isnan(arr), axis=axes).any())


def _initial(func, r, initial, xp):
    """NumPy's ``initial``: one more operand of the reduction."""
    if initial is None:
        return r
    v = r.dtype.type(initial)
    if func == "nansum":
        return r + v
    if func == "nanprod":
        return r * v
    if func == "nanmin":
        return xp.fmin(r, v)
    if func == "nanmax":
        return xp.fmax(r, v)
    return r


def _prepare_nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    return _prepare_nan("nansum", a, axis, dtype, out, keepdims, initial, where)


def _prepare_nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    return _prepare_nan("nanprod", a, axis, dtype, out, keepdims, initial, where)


def _prepare_nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    return _prepare_nan("nanmin", a, axis, None, out, keepdims, initial, where)


def _prepare_nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    return _prepare_nan("nanmax", a, axis, None, out, keepdims, initial, where)


def _prepare_nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    return _prepare_nan("nanmean", a, axis, dtype, out, keepdims, None, where)


_ARGS = """
    Args:
        a: array (CuPy, NumPy, or anything with ``__cuda_array_interface__`` / DLPack) of bool,
            an integer dtype, float16/32/64{complex}, any ndim.
        axis: None (every element), an int or a tuple of ints, as NumPy's ``axis``.{dtype}
        out: an array of the result's shape that receives the result (cast to its dtype) and
            is returned.
        keepdims: keep the reduced axes as axes of length 1.{extra}

    Returns:
        A 0-d device array for device input over every axis (a NumPy scalar for host input),
        an array of the kept axes otherwise; ``out`` when given.

    Raises:
        TypeError: ``a`` is not an array or of another dtype; ``dtype`` not a dtype.
        ValueError: an axis out of range (``numpy.exceptions.AxisError``) or repeated; ``out``
            of another shape; ``where`` that does not broadcast to ``a``.{raises}
"""


@_entry.function(_prepare_nansum, arrays=("a",))
def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """Sum of the elements over ``axis``, NaNs counted as zero, as :func:`numpy.nansum`.

    One pass over the elements (float and complex input): each element read once, 16 bytes per
    load, a NaN (a complex one with either part NaN) read as 0. float16 sums in float32.
    Bool and integers sum as :func:`primitives.sum` (NumPy's result dtypes). No host
    synchronization.
    """


@_entry.function(_prepare_nanprod, arrays=("a",))
def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """Product of the elements over ``axis``, NaNs counted as one, as :func:`numpy.nanprod`;
    see :func:`nansum`."""


@_entry.function(_prepare_nanmin, arrays=("a",))
def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Minimum over ``axis`` ignoring NaNs, as :func:`numpy.nanmin`: NaN for a slice of NaNs
    alone, with NumPy's ``RuntimeWarning`` ("All-NaN slice encountered"; the check reads the
    result back: one synchronization). Complex numbers are ordered as NumPy orders them,
    lexicographically (the real parts, then the imaginary parts), in the same one pass; a
    complex element is NaN when either part is, and a slice of NaNs alone gives its first
    element, as :func:`numpy.fmin` keeps it. An empty reduction without ``initial`` is NumPy's
    ``ValueError``."""


@_entry.function(_prepare_nanmax, arrays=("a",))
def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Maximum over ``axis`` ignoring NaNs, as :func:`numpy.nanmax`; see :func:`nanmin`."""


@_entry.function(_prepare_nanmean, arrays=("a",))
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """Mean over ``axis`` of the non-NaN elements, as :func:`numpy.nanmean`.

    One pass: (sum, count) of the non-NaN elements per result, the quotient taken in float64
    (complex128) and cast to the result dtype (float16 sums in float32). Bool and integer input
    is :func:`primitives.mean` (float64). A slice of NaNs alone gives NaN with NumPy's
    ``RuntimeWarning`` ("Mean of empty slice"; checked when a NaN result is read back).
    """


# ---- nanargmin, nanargmax -----------------------------------------------------------------------


def _prepare_arg(a, axis, out, keepdims, func):
    kind = func
    plain = _reduction.argmax if func == "nanargmax" else _reduction.argmin
    inp = _core_checks.as_input(a, func=func, arg="a", keep_f=True)
    arr = inp.array
    _checks.check_dtype(arr.dtype, NUMERIC, func)
    keepdims = _core_checks.boolean(keepdims, func, "keepdims")
    if axis is None:
        axes = tuple(range(arr.ndim))
    else:  # a 0-d array's axis 0 or -1 is every axis (NumPy's argmin of it)
        a_ = _core_checks.axis_index(axis, arr.ndim, func)
        axes = (a_,) if arr.ndim else ()
    if arr.dtype not in KINDS[kind]:  # no NaN: argmin/argmax themselves

        def run_plain():
            with _core_checks.errors_of(func, plain.__name__):
                return plain(arr, axis=axis, out=out, keepdims=keepdims)

        return _Prepared(run_plain, ())
    shape = _checks.result_shape(arr.shape, axes, keepdims)
    if out is not None:
        _core_checks.check_out(out, shape, func)
    count = int(np.prod([arr.shape[i] for i in axes], dtype=np.int64))
    if count == 0 or arr.size == 0:
        if count == 0:
            raise ValueError(f"{func}: attempt to get {func[3:]} of an empty sequence")
        return _Prepared.done(inp.result(inp.backend.xp.empty(shape, dtype=np.int64)))
    backend = inp.backend
    xp = backend.xp

    reduce = _plans.runner(arr, kind, axes, backend)

    def run(arr_):
        r = reduce(arr_)
        # -1 marks a slice of NaNs alone: read back while a new result is made (NumPy raises
        # before it writes ``out``)
        bad = backend.fetch(r if r.ndim == 0 else (r < 0).any())
        res = _checks.finish(r, inp, shape, None, func) if out is None else None
        if bool(bad.value() < 0) if r.ndim == 0 else bool(bad.value()):
            raise ValueError(f"{func}: All-NaN slice encountered")
        return res if out is None else _checks.finish(r, inp, shape, out, func)

    reusable = _core_checks.is_itself(arr, a) and out is None and xp is not None
    return _Prepared(run, (arr,), reusable=reusable)


def _prepare_nanargmin(a, axis=None, out=None, *, keepdims=False):
    return _prepare_arg(a, axis, out, keepdims, "nanargmin")


def _prepare_nanargmax(a, axis=None, out=None, *, keepdims=False):
    return _prepare_arg(a, axis, out, keepdims, "nanargmax")


@_entry.function(_prepare_nanargmin, arrays=("a",))
def nanargmin(a, axis=None, out=None, *, keepdims=False):
    """Index of the first minimum ignoring NaNs (over the flattened array, or along one
    ``axis``), as :func:`numpy.nanargmin`: NaN read as +inf, and NumPy's ``ValueError``
    ("All-NaN slice encountered") when a slice holds NaNs alone (the check reads the result
    back: one synchronization). int64 indices. Bool and integer input is
    :func:`primitives.argmin`. Complex numbers are ordered lexicographically, as NumPy orders
    them, a complex NaN (either part NaN) read as ``inf + 0j`` as :func:`numpy.nanargmin`
    replaces it."""


@_entry.function(_prepare_nanargmax, arrays=("a",))
def nanargmax(a, axis=None, out=None, *, keepdims=False):
    """Index of the first maximum ignoring NaNs, as :func:`numpy.nanargmax` (NaN read as -inf,
    a complex one as ``-inf + 0j``); see :func:`nanargmin`."""


# ---- nancumsum, nancumprod ----------------------------------------------------------------------


def _prepare_cum(a, axis, dtype, out, func):
    identity = 0 if func == "nancumsum" else 1
    plain = _scan.cumsum if func == "nancumsum" else _scan.cumprod
    inp = _core_checks.as_input(a, func=func, arg="a")
    arr = inp.array
    _checks.check_dtype(arr.dtype, NUMERIC, func)
    if out is not None:  # as cumsum's: NumPy's checks of out, and its dtype's part in the scan's
        _scan._checks.accumulation_out(func, arr, axis, out)
        dtype = _scan._checks.accumulation_dtype(func, arr, dtype, out)
    xp = inp.backend.xp
    if arr.dtype.kind in "fc":
        if axis is None or arr.ndim <= 1:  # the flat scan's kernel compiles beside nan_to's
            op = "sum" if func == "nancumsum" else "prod"
            try:
                res_dt = _scan._checks.checked_result_dtype(arr.dtype, op, dtype, func)
            except (TypeError, ValueError):  # the scan's own error, below
                res_dt = None
            if res_dt is not None:
                _scan._plans.prefetch_lookback(arr.dtype, res_dt, op, False)
    fill = arr.dtype.kind in "fc"  # NaN -> identity, then the scan
    back, backend = inp.detached(), inp.backend  # how results go back, no array of this call

    def run(a_):
        b = _plans.nan_to(a_, identity, backend) if fill else a_
        with _core_checks.errors_of(func, plain.__name__):
            res = plain(xp.asarray(b) if back.host else b, axis=axis, dtype=dtype)
        if out is not None:
            return _core_checks.write_out(out, res, func)
        return back.result(res) if not isinstance(res, np.ndarray) or not back.host else res

    # the caller's array read as it is: later calls on like arrays run the same steps unchecked
    return _Prepared(run, (arr,), reusable=_core_checks.is_itself(arr, a) and out is None)


def _prepare_nancumsum(a, axis=None, dtype=None, out=None):
    return _prepare_cum(a, axis, dtype, out, "nancumsum")


def _prepare_nancumprod(a, axis=None, dtype=None, out=None):
    return _prepare_cum(a, axis, dtype, out, "nancumprod")


@_entry.function(_prepare_nancumsum, arrays=("a",))
def nancumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum with NaNs counted as zero, as :func:`numpy.nancumsum`: the NaNs of float
    and complex input replaced by 0 (one pass), then :func:`primitives.cumsum` (the flattened
    array for ``axis=None``)."""


@_entry.function(_prepare_nancumprod, arrays=("a",))
def nancumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product with NaNs counted as one, as :func:`numpy.nancumprod`; see
    :func:`nancumsum`."""

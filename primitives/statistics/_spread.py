"""The family's functions of spread, counts and weights, declared on the entry protocol: ``var``,
``std``, ``nanvar``, ``nanstd`` (one pass: Welford per thread, Chan's combination), ``ptp`` (one
pass over (min, max) pairs), ``count_nonzero`` and ``average``.

``mean=`` (a precomputed mean) and ``where=`` of var/std take NumPy's formula over the backend's
array operations (a few passes); every other call is one pass of the family's kernels. A
``dtype=`` other than the input's converts the input to it first.
"""

from __future__ import annotations

import numpy as np

from .. import reduction as _reduction
from .._core import checks as _core_checks, entry as _entry
from . import _checks, _plans
from ._api import NUMERIC, _any_nan
from ._kernels import KINDS, WEIGHTED, moments_dtype

__all__ = ["var", "std", "nanvar", "nanstd", "ptp", "count_nonzero", "average"]

_Prepared = _entry.Prepared


def _warn(message):
    _core_checks.warn_caller(message, RuntimeWarning)


# ---- var, std, nanvar, nanstd -------------------------------------------------------------------


def _composed(c, a, ddof, skip, where, mean, res_dt):
    """NumPy's two-pass formula over the backend's array operations, in float64 (complex128):
    ``sum(|a - mean|^2) / (n - ddof)`` over the elements ``where`` selects (NaNs skipped for
    ``skip``). The path of ``mean=`` and of var/std's ``where=``."""
    xp = c.xp
    wide = np.complex128 if a.dtype.kind == "c" else np.float64
    x = a.astype(wide)
    sel = (
        xp.ones(x.shape, dtype=np.bool_)
        if where is None
        else xp.broadcast_to(xp.asarray(where, dtype=np.bool_), x.shape)
    )
    if skip:
        sel = sel & ~xp.isnan(x)
    axes = c.axes
    n = xp.sum(sel, axis=axes, keepdims=True).astype(np.float64)
    xs = xp.where(sel, x, 0)
    if mean is None:
        m = xp.sum(xs, axis=axes, keepdims=True) / n
    else:
        m = xp.asarray(mean).astype(wide)
        m = m.reshape(_checks.result_shape(a.shape, axes, True)) if m.ndim else m
    d = xp.where(sel, x - m, 0)
    m2 = xp.sum((d * d.conj()).real if x.dtype.kind == "c" else d * d, axis=axes)
    dof = n.reshape(m2.shape) - ddof
    with np.errstate(invalid="ignore", divide="ignore"):  # NumPy's own division is quiet
        v = m2 / xp.maximum(dof, 0)
    if skip:
        v = xp.where(dof <= 0, np.nan, v)
    return v.astype(res_dt), dof


def _prepare_var(func, x, axis, dtype, out, ddof, keepdims, where, mean, correction):
    skip, root = func.startswith("nan"), int(func.endswith("std"))
    kind = "nanvar" if skip else "var"
    c = _checks.Call(x, func, NUMERIC, axis, keepdims, out, scalar_int=False)
    ddof = _checks.ddof_of(ddof, correction, func)
    xp, arr = c.xp, c.arr
    if dtype is not None:
        want = _checks.float_dtype(dtype, func)
        if want.kind not in "fc":
            raise TypeError(f"{func}: dtype={want} is not a float or complex dtype")
        if want != arr.dtype:
            arr = arr.astype(want)  # NumPy computes in dtype
    if skip and arr.dtype.kind not in "fc":  # no NaN: numpy.nanvar is numpy.var
        skip, kind = False, "var"
    res_dt = moments_dtype(arr.dtype)
    if not skip and ddof >= c.count:
        _warn("Degrees of freedom <= 0 for slice")
    if where is not None or mean is not None:

        def run_composed():
            v, dof = _composed(c, arr, ddof, skip, where, mean, res_dt)
            if skip and bool((dof <= 0).any()):
                _warn("Degrees of freedom <= 0 for slice.")
            return c.finish(xp.sqrt(v) if root else v)

        return _Prepared(run_composed, ())
    backend = c.inp.backend
    if c.count == 0:
        if skip:
            _warn("Degrees of freedom <= 0 for slice.")
        r = xp.full(c.kept, np.nan, dtype=res_dt)
        return _Prepared(lambda: c.finish(r), ())

    reduce = _plans.runner(arr, kind, c.axes, backend, ddof, root)

    def run(a):
        r = reduce(a)
        if skip and _any_nan(r, xp):
            n = xp.sum(~xp.isnan(a), axis=c.axes)
            if bool((n - ddof <= 0).any()):
                _warn("Degrees of freedom <= 0 for slice.")
        return c.finish(r)

    return _Prepared(run, (arr,), reusable=arr is x and out is None)


def _preparer(func):
    def prepare(
        a,
        axis=None,
        dtype=None,
        out=None,
        ddof=0,
        keepdims=False,
        *,
        where=None,
        mean=None,
        correction=None,
    ):
        return _prepare_var(func, a, axis, dtype, out, ddof, keepdims, where, mean, correction)

    return prepare


@_entry.function(_preparer("var"), arrays=("a",))
def var(
    a,
    axis=None,
    dtype=None,
    out=None,
    ddof=0,
    keepdims=False,
    *,
    where=None,
    mean=None,
    correction=None,
):
    """Variance over ``axis``, as :func:`numpy.var`: ``sum(|x - mean|^2) / (n - ddof)``.

    Args:
        a: array (CuPy, NumPy, or anything with ``__cuda_array_interface__`` / DLPack) of bool,
            an integer dtype, float16/32/64 or complex64/128, any ndim.
        axis: None (every element), an int or a tuple of ints, as NumPy's ``axis``.
        dtype: the dtype to compute in (float or complex; the input converted to it first).
        out: an array of the result's shape that receives the result (cast to its dtype) and is
            returned.
        ddof: the degrees of freedom removed from the count (``correction``: NumPy 2's name).
        keepdims: keep the reduced axes as axes of length 1.
        where: the elements counted (a bool array broadcasting to ``a``).
        mean: the mean to take deviations from (shaped as with ``keepdims=True``).
        correction: as ``ddof`` (not both).

    Returns:
        float64 for bool and integer input, the input's own float dtype, the real part's for
        complex input (var(real) + var(imag)); a 0-d device array for device input over every
        axis (a NumPy scalar for host input), an array of the kept axes otherwise.

    Raises:
        TypeError: ``a`` not an array or of another dtype; ``dtype`` not a float/complex dtype;
            ``ddof`` not a number.
        ValueError: an axis out of range (``numpy.exceptions.AxisError``) or repeated; ``out``
            of another shape; both ``ddof`` and ``correction``.

    One pass over the elements, each read once (16 bytes per load over every element): per
    thread the sums of ``x - k`` and ``(x - k)^2`` in float64, ``k`` the thread's first
    element, then (count, mean, M2) combined across threads, warps, blocks and the grid by
    Chan's formula: no cancellation for data far from zero with a small spread. A slice with
    ``n - ddof <= 0`` warns as NumPy ("Degrees of freedom <= 0 for slice"). No host
    synchronization. ``mean=`` and ``where=`` take NumPy's two-pass formula over array
    operations.

    See Also:
        :func:`numpy.var`, :func:`cupy.var`, :func:`std`, :func:`nanvar`.
    """


@_entry.function(_preparer("std"), arrays=("a",))
def std(
    a,
    axis=None,
    dtype=None,
    out=None,
    ddof=0,
    keepdims=False,
    *,
    where=None,
    mean=None,
    correction=None,
):
    """Standard deviation over ``axis``, as :func:`numpy.std`: the square root of
    :func:`var`, in the same pass."""


@_entry.function(_preparer("nanvar"), arrays=("a",))
def nanvar(
    a,
    axis=None,
    dtype=None,
    out=None,
    ddof=0,
    keepdims=False,
    *,
    where=None,
    mean=None,
    correction=None,
):
    """Variance over ``axis`` of the non-NaN elements, as :func:`numpy.nanvar`: one pass as
    :func:`var`, NaN elements skipped; NaN where ``n - ddof <= 0`` with NumPy's
    ``RuntimeWarning`` ("Degrees of freedom <= 0 for slice."; checked when a NaN result is read
    back). Bool and integer input is :func:`var`."""


@_entry.function(_preparer("nanstd"), arrays=("a",))
def nanstd(
    a,
    axis=None,
    dtype=None,
    out=None,
    ddof=0,
    keepdims=False,
    *,
    where=None,
    mean=None,
    correction=None,
):
    """Standard deviation over ``axis`` of the non-NaN elements, as :func:`numpy.nanstd`; see
    :func:`nanvar`."""


# ---- ptp, count_nonzero -------------------------------------------------------------------------


def _prepare_ptp(a, axis=None, out=None, keepdims=False):
    func = "ptp"
    c = _checks.Call(a, func, KINDS["ptp"], axis, keepdims, out)
    if c.count == 0:
        raise ValueError(
            f"{func}: zero-size array to reduction operation maximum which has no identity"
        )
    reduce = _plans.runner(c.arr, "ptp", c.axes, c.inp.backend)
    return _Prepared(
        lambda arr: c.finish(reduce(arr)), (c.arr,), reusable=c.arr is a and out is None
    )


@_entry.function(_prepare_ptp, arrays=("a",))
def ptp(a, axis=None, out=None, keepdims=False):
    """Range of values (maximum - minimum) over ``axis``, as :func:`numpy.ptp`: one pass over
    (min, max) pairs. The result keeps the input's dtype (a signed integer range past its
    maximum wraps, as NumPy's); NaN propagates. Bool input is refused (NumPy has no boolean
    subtraction), and so is complex input (no order here). An empty reduction is NumPy's
    ``ValueError``."""


def _prepare_count(a, axis=None, *, keepdims=False):
    func = "count_nonzero"
    c = _checks.Call(a, func, KINDS["count_nonzero"], axis, keepdims, None)
    backend, xp = c.inp.backend, c.xp

    if c.count == 0:
        return _Prepared(lambda: c.finish(xp.zeros(c.kept, dtype=np.int64)), ())
    reduce = _plans.runner(c.arr, "count_nonzero", c.axes, backend)

    def run(arr):
        return c.finish(reduce(arr))

    return _Prepared(run, (c.arr,), reusable=c.arr is a)


@_entry.function(_prepare_count, arrays=("a",))
def count_nonzero(a, axis=None, *, keepdims=False):
    """The number of non-zero elements over ``axis``, as :func:`numpy.count_nonzero` (a complex
    element is non-zero when either part is; NaN is non-zero): one pass. int64 counts; over
    every axis a NumPy int64 for host input (a 0-d device array for device input, as
    CuPy's)."""


# ---- average ------------------------------------------------------------------------------------


def _prepare_average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    func = "average"
    c = _checks.Call(a, func, NUMERIC, axis, keepdims, None, scalar_int=False)
    returned = _core_checks.boolean(returned, func, "returned")
    xp, arr = c.xp, c.arr
    if weights is None:

        def run_mean():
            avg = xp.asarray(
                _reduction.mean(arr, axis=axis if axis is None else c.axes, keepdims=c.keepdims)
            )
            scl = avg.dtype.type(arr.size / max(avg.size, 1))
            return _returned(c, avg, xp.full(avg.shape, scl, dtype=avg.dtype), returned)

        return _Prepared(run_mean, ())
    w = _core_checks.as_input(weights, func=func, arg="weights").array
    _checks.check_dtype(np.dtype(w.dtype), NUMERIC, func)
    if tuple(w.shape) != tuple(arr.shape):
        if axis is None:
            raise TypeError(f"{func}: Axis must be specified when shapes of a and weights differ.")
        if tuple(w.shape) != tuple(arr.shape[i] for i in c.axes) or c.axes != tuple(sorted(c.axes)):
            raise ValueError(
                f"{func}: Shape of weights must be consistent with shape of a along specified axis."
            )
        w = w.reshape(tuple(s if i in c.axes else 1 for i, s in enumerate(arr.shape)))
    if arr.dtype.kind in "biu":
        res_dt = np.result_type(arr.dtype, w.dtype, "f8")
    else:
        res_dt = np.result_type(arr.dtype, w.dtype)
    ax = None if axis is None else c.axes
    backend = c.inp.backend
    if axis is None and tuple(w.shape) == tuple(arr.shape) and res_dt in WEIGHTED and arr.size:
        # every element, weights of its shape: one pass over both (stat_weighted)
        x = arr if arr.dtype == res_dt else arr.astype(res_dt)
        wt = w if w.dtype == res_dt else w.astype(res_dt)
        x, wt = xp.ascontiguousarray(x).reshape(-1), xp.ascontiguousarray(wt).reshape(-1)
        plan = _plans.weighted_plan(backend, res_dt, x.size)

        def run_one_pass():
            sums = plan(x, wt)
            tot, scl = sums[0], sums[1]
            if (scl.item() if hasattr(scl, "item") else scl) == 0:
                raise ZeroDivisionError("Weights sum to zero, can't be normalized")
            avg = xp.asarray(tot / scl)
            if c.keepdims:
                avg, scl = avg.reshape(c.shape), xp.asarray(scl).reshape(c.shape)
            return _returned(c, avg, xp.asarray(scl), returned)

        return _Prepared(run_one_pass, ())

    def run():
        wb = xp.broadcast_to(w, arr.shape)
        scl = xp.asarray(_reduction.sum(xp.ascontiguousarray(wb), axis=ax, dtype=res_dt))
        if bool((scl == 0).any()):
            raise ZeroDivisionError("Weights sum to zero, can't be normalized")
        tot = xp.asarray(_reduction.sum(xp.multiply(arr, wb, dtype=res_dt), axis=ax, dtype=res_dt))
        avg = tot / scl
        if c.keepdims:
            avg, scl = avg.reshape(c.shape), scl.reshape(c.shape)
        return _returned(c, avg, scl, returned)

    return _Prepared(run, ())


def _returned(c, avg, scl, returned):
    avg = _checks.finish(avg, c.inp, avg.shape, None, "average")
    if not returned:
        return avg
    return avg, _checks.finish(scl, c.inp, scl.shape, None, "average")


@_entry.function(_prepare_average, arrays=("a",))
def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """Weighted average over ``axis``, as :func:`numpy.average`: ``sum(a * w) / sum(w)`` in
    NumPy's result dtype (float64 for bool and integer input, else the promotion of the
    dtypes); without weights :func:`primitives.mean`. ``weights`` of ``a``'s shape, or 1-D
    (of the axes' shape) along ``axis``. ``returned``: also the sum of the weights, shaped as
    the average. Weights summing to zero raise NumPy's ``ZeroDivisionError`` (read back: one
    synchronization)."""

"""The family's functions of spread, counts and weights, declared on the entry protocol: ``var``,
``std``, ``nanvar``, ``nanstd`` (one pass: Welford per thread, Chan's combination), ``ptp`` (one
pass over (min, max) pairs), ``count_nonzero`` and ``average``.

var/std with ``mean=`` (a precomputed mean) or ``where=`` (the elements left out read as NaN and
skipped) run the same one pass, its States (count, mean, M2) finished on the host side
(:func:`_from_states`: ``sum |x - m|^2 = M2 + n |mean - m|^2``), which also gives NumPy's
warnings for slices with ``n - ddof <= 0``. A ``dtype=`` other than the input's converts the
input to it first.
"""

from __future__ import annotations

import math

import numpy as np

from .. import reduction as _reduction
from .._core import checks as _core_checks, entry as _entry
from . import _checks, _plans
from ._api import NUMERIC, _holds_nan, _masked, _nan_fetch
from ._kernels import KINDS, WEIGHTED, moments_dtype, width

__all__ = ["var", "std", "nanvar", "nanstd", "ptp", "count_nonzero", "average"]

_Prepared = _entry.Prepared


def _warn(message):
    _core_checks.warn_caller(message, RuntimeWarning)


# ---- var, std, nanvar, nanstd -------------------------------------------------------------------


def _fp_warn(kind, where):
    """NumPy's floating-point report of a division (``kind`` "divide" or "invalid"), as
    :func:`numpy.errstate` sets it: ignored, raised as ``FloatingPointError``, else warned."""
    what = "divide by zero" if kind == "divide" else "invalid value"
    message = f"{what} encountered in {where}"
    mode = np.geterr()[kind]
    if mode == "ignore":
        return
    if mode == "raise":
        raise FloatingPointError(message)
    _warn(message)


def _mean_of(c, mean, arr, func):
    """``mean=`` as a float64 (complex128 for complex input) backend array of the kept shape:
    NumPy's precomputed mean, shaped as the result with ``keepdims=True`` (or broadcasting to
    it)."""
    xp = c.xp
    m = xp.asarray(mean)
    if m.dtype.kind not in "biufc" or (m.dtype.kind == "c" and arr.dtype.kind != "c"):
        raise TypeError(f"{func}: mean of dtype {m.dtype} for input of dtype {arr.dtype}")
    keep = _checks.result_shape(arr.shape, c.axes, True)
    try:
        ok = np.broadcast_shapes(tuple(m.shape), keep) == keep
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(
            f"{func}: mean of shape {tuple(m.shape)} does not broadcast to {keep} (the "
            "result's shape with keepdims=True)"
        )
    wide = np.complex128 if arr.dtype.kind == "c" else np.float64
    return xp.broadcast_to(m.astype(wide), keep).reshape(c.kept)


def _nan_capable(arr, xp):
    """``arr`` in a dtype that holds NaN: float and complex as they are, bool (any nonzero byte
    true, as NumPy reads it) and integers as float64 (the kernels' own conversion)."""
    if arr.dtype.kind in "fc":
        return arr
    if arr.dtype == np.bool_:
        arr = arr.view(np.uint8) != 0
    return arr.astype(np.float64)


def _as_complex(r, want, var_of_nan, xp):
    """The real variances (or deviations) ``r`` as NumPy returns them for a complex ``dtype``:
    that dtype, its sums divided by their counts as complex numbers, so that a result that is
    not finite has a NaN imaginary part (``var_of_nan``: nanvar, whose slices of too few
    elements are set to ``nan + 0j`` after the division, so only those keep a zero one)."""
    out = r.astype(want)
    if var_of_nan:
        return out
    with np.errstate(all="ignore"):
        return xp.where(xp.isfinite(r), out, out + complex(0.0, np.nan))


def _from_states(c, st, m, ddof, skip, root, res_dt, n_known, bad, *, real_mean=False):
    """var/std of the States ``st`` (the kept shape, a State's words last: (n, k, d, M2), or
    (n, kr, ki, dr, di, M2) of complex input) as NumPy gives them, with NumPy's warnings:
    ``sum |x - m|^2 = M2 + n |k + d - m|^2`` about the given mean ``m`` (None: the slices' own,
    M2 alone), divided by ``max(n - ddof, 0)`` (var: IEEE division; nanvar: NaN where
    ``n - ddof <= 0``). ``n_known``: every slice's count when the host knows it (var without
    where=), else None (read back). ``bad``: the slices holding a NaN that where= kept (var), or
    None. ``real_mean`` (complex States, ``m`` None): about the real part of each slice's own
    mean (NumPy's var of complex input with a real ``dtype``), ``M2 + n Im(mean)^2``."""
    xp = c.xp
    n, m2 = st[..., 0], st[..., -1]
    if real_mean:
        im = st[..., 2] + st[..., 4]
        with np.errstate(all="ignore"):
            m2 = xp.where(n > 0, m2 + n * (im * im), m2)
    if m is not None:
        with np.errstate(all="ignore"):  # a host backend quiet as a device one
            if st.shape[-1] == 4:
                dev = (st[..., 1] - m) + st[..., 2]
                dev2 = dev * dev
            else:
                dr, di = (st[..., 1] - m.real) + st[..., 3], (st[..., 2] - m.imag) + st[..., 4]
                dev2 = dr * dr + di * di
            m2 = xp.where(n > 0, m2 + n * dev2, m2)
    if bad is not None:
        m2 = xp.where(bad, np.nan, m2)
    dof = n - ddof
    if skip:
        if bool((dof <= 0).any()):
            _warn("Degrees of freedom <= 0 for slice.")
        with np.errstate(invalid="ignore", divide="ignore"):
            v = xp.where(dof > 0, m2 / xp.where(dof > 0, dof, 1.0), np.nan)
    else:
        if n_known is not None:
            degenerate = ddof >= n_known
        else:
            degenerate = bool((dof <= 0).any())
        if degenerate:
            _warn("Degrees of freedom <= 0 for slice")
            if m is None and (n_known == 0 if n_known is not None else bool((n == 0).any())):
                _fp_warn("invalid", "divide")  # the mean's 0 / 0
            zero = dof <= 0
            where = "scalar divide" if c.shape == () and c.out is None else "divide"
            if bool((zero & (m2 != 0) & xp.isfinite(m2)).any()):
                _fp_warn("divide", where)
            if bool((zero & (m2 == 0)).any()):
                _fp_warn("invalid", where)
        with np.errstate(invalid="ignore", divide="ignore"):
            v = m2 / xp.maximum(dof, 0.0)
    if root:
        with np.errstate(invalid="ignore"):
            v = xp.sqrt(v)
    return v.astype(res_dt)


def _prepare_var(func, x, axis, dtype, out, ddof, keepdims, where, mean, correction):
    skip, root = func.startswith("nan"), int(func.endswith("std"))
    kind = "nanvar" if skip else "var"
    # NumPy's nanvar of float input reduces through the ufuncs, which give a 0-d array axis 0
    c = _checks.Call(
        x, func, NUMERIC, axis, keepdims, out, scalar_int=_checks.inexact if skip else False
    )
    ddof = _checks.ddof_of(ddof, correction, func)
    xp, arr = c.xp, c.arr
    finish = c.finish
    if skip and arr.dtype.kind not in "fc":  # no NaN: numpy.nanvar is numpy.var (dtype or not)
        skip, kind = False, "var"
    real_mean = False  # complex input with a real dtype: about the real part of the mean
    if dtype is not None:
        want = _checks.float_dtype(dtype, func)
        if want.kind not in "fc":
            raise TypeError(f"{func}: dtype={want} is not a float or complex dtype")
        if want.kind == "c":

            def finish(r, want=want, nanvar=skip and not root):
                # the real sum of squared magnitudes, summed and returned in the complex dtype
                return c.finish(_as_complex(r, want, nanvar, xp))

        if want.kind == "f" and arr.dtype.kind == "c":
            # NumPy sums the elements in dtype for the mean (the imaginary parts dropped, with
            # its ComplexWarning), then the squared magnitudes of the complex deviations from
            # that real mean: the states' M2 plus n times the mean's imaginary part squared
            _core_checks.warn_caller(
                "Casting complex values to real discards the imaginary part",
                np.exceptions.ComplexWarning,
            )
            finish = lambda r, want=want: c.finish(r.astype(want))  # noqa: E731
            # the deviations in the complex dtype of the wider of the two (NumPy's subtraction)
            real_mean, want = mean is None, np.result_type(want, arr.dtype)
        elif want.kind == "c" and arr.dtype.kind != "c":
            # NumPy squares the real deviations in the complex dtype (x * x, not x * conj(x)):
            # the variance of its real part's precision, returned as that complex dtype
            want = moments_dtype(want)
            if skip:  # numpy.nanvar subtracts the complex mean into the real input's copy
                _core_checks.warn_caller(
                    "Casting complex values to real discards the imaginary part",
                    np.exceptions.ComplexWarning,
                )
        if want != arr.dtype:
            arr = arr.astype(want)  # NumPy computes in dtype
    res_dt = moments_dtype(arr.dtype)
    backend = c.inp.backend
    if (
        where is None
        and mean is None
        and not real_mean
        and c.count > 0
        and (skip or ddof < c.count)
    ):
        # the common call: one pass, the kernel's own finish
        reduce = _plans.runner(arr, kind, c.axes, backend, ddof, root)

        def run(a):
            r = reduce(a)
            if not skip:
                return finish(r)
            nan = _nan_fetch(r, backend)  # read back while the result is written out
            res = finish(r)
            if _holds_nan(nan):
                n = xp.sum(~xp.isnan(a), axis=c.axes)
                if bool((n - ddof <= 0).any()):
                    _warn("Degrees of freedom <= 0 for slice.")
            return res

        return _Prepared(run, (arr,), reusable=_core_checks.is_itself(arr, x) and out is None)

    # mean=, where=, or slices with n - ddof <= 0: the States of one pass, finished here
    m = None if mean is None else _mean_of(c, mean, arr, func)
    src, bad_of = arr, None
    if where is not None:  # the elements left out read as NaN, skipped
        src = _masked(c, _nan_capable(arr, xp), where, np.nan)
        if not skip and src.dtype.kind in "fc" and arr.dtype.kind in "fc":
            mask = xp.broadcast_to(xp.asarray(where, dtype=np.bool_), arr.shape)
            bad_of = lambda: xp.any(xp.isnan(arr) & mask, axis=c.axes)  # noqa: E731
    state_kind = "nanvar_state" if skip or where is not None else "var_state"
    n_known = c.count if where is None and not skip else None

    def run_states():
        if c.count == 0:
            st = xp.zeros(c.kept + (width(state_kind, src.dtype),), dtype=np.float64)
        else:
            st = _plans.reduce(src, state_kind, c.axes, backend)
        bad = None if bad_of is None else bad_of()
        return finish(
            _from_states(c, st, m, ddof, skip, root, res_dt, n_known, bad, real_mean=real_mean)
        )

    return _Prepared(run_states, ())


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
        mean: the mean to take deviations from, shaped as the result with ``keepdims=True`` (or
            broadcasting to it), as NumPy asks.
        correction: as ``ddof`` (not both).

    Returns:
        float64 for bool and integer input, the input's own float dtype, the real part's for
        complex input (var(real) + var(imag)); a 0-d device array for device input over every
        axis (a NumPy scalar for host input), an array of the kept axes otherwise.

    Raises:
        TypeError: ``a`` not an array or of another dtype; ``dtype`` not a float/complex dtype;
            ``ddof`` not a number.
        ValueError: an axis out of range (``numpy.exceptions.AxisError``) or repeated; ``out``
            of another shape; both ``ddof`` and ``correction``; ``where`` or ``mean`` of a shape
            that does not broadcast.

    One pass over the elements, each read once (16 bytes per load over every element): per
    thread the sums of ``x - k`` and ``(x - k)^2`` in float64, ``k`` the thread's first
    element, then (count, mean, M2) combined across threads, warps, blocks and the grid by
    Chan's formula: no cancellation for data far from zero with a small spread. No host
    synchronization. ``mean=`` and ``where=`` run the same pass (the elements ``where`` leaves
    out skipped), its (count, mean, M2) per slice finished as ``(M2 + n |mean - m|^2) /
    (n - ddof)``: one synchronization for ``where=`` (the counts, for the warnings). A slice
    with ``n - ddof <= 0`` warns as NumPy does ("Degrees of freedom <= 0 for slice", then the
    division's "invalid value" / "divide by zero" as :func:`numpy.errstate` says).

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
        lambda arr: c.finish(reduce(arr)),
        (c.arr,),
        reusable=_core_checks.is_itself(c.arr, a) and out is None,
    )


@_entry.function(_prepare_ptp, arrays=("a",))
def ptp(a, axis=None, out=None, keepdims=False):
    """Range of values (maximum - minimum) over ``axis``, as :func:`numpy.ptp`: one pass over
    (min, max) pairs. The result keeps the input's dtype (a signed integer range past its
    maximum wraps, as NumPy's); NaN propagates. Complex numbers are ordered as NumPy orders
    them (lexicographically); a slice holding a NaN (either part NaN) gives its first NaN minus
    itself, as NumPy's ``max - min`` does. Bool input is refused (NumPy has no boolean
    subtraction). An empty reduction is NumPy's ``ValueError``."""


def _prepare_count(a, axis=None, *, keepdims=False):
    func = "count_nonzero"
    c = _checks.Call(a, func, KINDS["count_nonzero"], axis, keepdims, None)
    backend, xp = c.inp.backend, c.xp

    if c.count == 0:
        return _Prepared(lambda: c.finish(xp.zeros(c.kept, dtype=np.int64)), ())
    reduce = _plans.runner(c.arr, "count_nonzero", c.axes, backend)

    def run(arr):
        return c.finish(reduce(arr))

    return _Prepared(run, (c.arr,), reusable=_core_checks.is_itself(c.arr, a))


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
        if arr.size == 0 and math.prod(c.shape) == 0:  # NumPy's scale, a.size / avg.size: 0 / 0
            raise ZeroDivisionError(f"{func}: division by zero (an empty result of no elements)")

        def run_mean():
            avg = xp.asarray(
                _reduction.mean(arr, axis=axis if axis is None else c.axes, keepdims=c.keepdims)
            )
            if not returned:
                return _returned(c, avg, None, False)
            # the count of each result, made on the host (a fill would compile a CuPy kernel)
            scl = np.full(avg.shape, arr.size / max(avg.size, 1), dtype=avg.dtype)
            return _returned(c, avg, xp.asarray(scl), True)

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
            # the two sums read back at once (the weights' sum is checked on the host anyway)
            # and divided there: NumPy's division, and no device kernel for a 0-d quotient
            tot, scl = backend.fetch(plan(x, wt)).value()
            if scl == 0:
                raise ZeroDivisionError(f"{func}: Weights sum to zero, can't be normalized")
            with np.errstate(all="ignore"):  # inf / inf: NaN, as the device's quotient was
                avg = xp.asarray(tot / scl)
            if c.keepdims:
                avg, scl = avg.reshape(c.shape), xp.asarray(scl).reshape(c.shape)
            return _returned(c, avg, xp.asarray(scl), returned)

        return _Prepared(run_one_pass, ())

    def run():
        wb = xp.broadcast_to(w, arr.shape)
        scl = xp.asarray(_reduction.sum(xp.ascontiguousarray(wb), axis=ax, dtype=res_dt))
        # NumPy checks the weights' own sums: some, where a's other axes leave no result
        sums = scl if scl.size else xp.sum(w, axis=ax, dtype=res_dt)
        if bool((sums == 0).any()):
            raise ZeroDivisionError(f"{func}: Weights sum to zero, can't be normalized")
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

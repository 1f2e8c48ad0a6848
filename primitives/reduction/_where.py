"""The reductions' ``where=`` masks (and ``initial=``), as NumPy's: over every element fused on
load (``reduce_masked``), over some axes through a masked copy reduced as without a mask; and
mean's masked sums and counts."""

from __future__ import annotations

import numpy as np

from .._core import checks as _core_checks, entry as _entry, ops as _ops
from . import _checks, _map, _plans as _rp

_Prepared = _entry.Prepared


class _NoValueType:
    """The default of ``initial``: no value given (NumPy's ``<no value>``; ``None`` reads the
    same, as in NumPy)."""

    __slots__ = ()

    def __repr__(self):
        return "<no value>"


NO_VALUE = _NoValueType()

_COMBINE = {"sum": "add", "prod": "multiply", "min": "minimum", "max": "maximum"}


def masked(prepare, x, op, axis, dtype, out, keepdims, variant, func, initial, where, m=None):
    """``op`` with NumPy's ``initial`` and ``where``. Over every element (production variant),
    ``reduce_masked`` reads the mask (``where`` broadcast against ``x``, made contiguous) with
    the elements and skips the masked-out ones on load; over some axes (and for the ladder) the
    masked-out elements are replaced by ``op``'s neutral value (0, 1, or the extreme of the dtype for min/max) in a temporary, reduced as without a mask. Then the
    result is combined with ``initial`` (NumPy's start value, in the reduction's dtype).
    min/max take a mask only with ``initial`` (no identity), and give ``initial`` over
    nothing. ``prepare`` is the reductions' prepare step of one op (``_api._prepare``), for the
    reduction of the masked copy. ``m``: the map the elements are read through (no mask then:
    :func:`._map.refuse_where`), ``initial`` combined with the mapped reduction."""
    _checks.check_op(op, func)
    inp = _core_checks.as_input(x, func=func, arg="x", keep_f=True)
    arr = inp.array
    _checks.check_dtype(arr.dtype, op, func, ordered_complex=True)
    _ops.check_map(m, arr.dtype, None, func)
    axes = _checks.normalize_axis(axis, arr.ndim, func)
    backend, xp = inp.backend, inp.backend.xp
    mask = _checks.where_mask(where, arr.shape, backend, func)
    init = None if initial is NO_VALUE or initial is None else initial
    user = isinstance(op, _ops.Op)
    if mask is not None and init is None and not user and op in ("min", "max"):
        raise ValueError(
            f"{func}: reduction operation '{_COMBINE[op]}' does not have an identity, so to use "
            "a where mask one has to specify 'initial'"
        )
    shape = arr.shape
    if out is not None:
        _core_checks.check_out(out, _checks.result_shape(shape, axes, keepdims), func)
        arr, dtype = _map.into_out(m, arr, op, dtype, out, axes, variant, func, init is not None)
    acc_dt = _checks.result_dtype(arr.dtype, op, dtype, variant, func)
    start = None if init is None else _checks.initial_value(init, acc_dt, func)
    kept = _checks.result_shape(shape, axes, False)
    empty = 0 in [shape[a] for a in axes]
    # every element on the production path: reduce_masked reads the mask with the elements
    fused = mask is not None and len(axes) == arr.ndim and arr.size and variant == "production"
    if fused:  # the route's conversions run in the plan (Route.prepare)
        arr = _checks.real_part(arr, acc_dt, backend)
        rt = _rp.route(arr.dtype, acc_dt, op, variant)
        if op in ("min", "max"):  # the accumulator's result: an all-masked array gives its
            # identity (INT_MIN for int8 in int), which the combination with initial replaces
            rt = _rp.Route((rt.convs, rt.kin, rt.kacc, rt.kacc, rt.kacc))

    def run(a, w):
        if empty and (user or op in ("min", "max")):
            return finish(
                xp.full(kept, start if start is not None else op.identity_of(acc_dt), dtype=acc_dt)
            )
        if w is not None and fused:  # every axis: the mask read with the elements
            if not a.flags.c_contiguous and a.flags.f_contiguous:  # as its reversed view
                a, w = a.T, w.T
            r = _rp.masked_plan(backend, rt, op, a.size).run(
                xp.ascontiguousarray(a).reshape(-1), xp.ascontiguousarray(w).reshape(-1)
            )
        else:
            if w is not None:  # over some axes: the masked-out elements replaced, in a copy
                if user:  # in its accumulator dtype, where its identity is
                    a = a.astype(acc_dt, copy=False)
                a = xp.where(w, a, _checks.neutral(op, a.dtype))
            r = xp.asarray(prepare(a, op, axes, dtype, None, False, variant, func, m=m)())
        if start is not None and user:  # initial op r, by the operator over (initial, r)
            pair = xp.stack([xp.broadcast_to(xp.asarray(start, dtype=acc_dt), r.shape), r])
            r = xp.asarray(prepare(pair, op, (0,), None, None, False, variant, func)())
        elif start is not None:
            r = xp.asarray(getattr(xp, _COMBINE[op])(r, xp.asarray(start))).astype(acc_dt)
        return finish(r)

    def finish(r):
        return _checks.finish(r, inp, shape, axes, keepdims, out, func)

    return _Prepared(run, (arr, mask))


def masked_mean(prepare, inp, arr, mask, axes, acc, res, keepdims, out):
    """mean with a ``where`` mask (broadcast to ``arr``'s shape), as NumPy's: the sum of the
    elements where the mask is True (the others read as 0, in a temporary) divided by the count
    of True per result element (a sum of the mask); NumPy's "Mean of empty slice"
    RuntimeWarning when a count is 0 (its quotient NaN; the counts are read on the host for it).
    """
    func, xp = "mean", inp.backend.xp

    def run(a, m):
        values = xp.where(m, a, a.dtype.type(0))
        s = xp.asarray(prepare(values, "sum", axes, acc, None, False, "auto", func)())
        count = xp.asarray(prepare(m, "sum", axes, None, None, False, "auto", func)())
        if bool((count == 0).any()):
            _core_checks.warn_caller("Mean of empty slice.", RuntimeWarning)
        if out is not None and res != acc:  # numpy.mean's sum lands in out, divided there
            s = s.astype(res)
        with np.errstate(invalid="ignore", divide="ignore"):  # 0/0: NaN, warned above
            q = xp.asarray(xp.true_divide(s, count)).astype(res)
        return _checks.finish(q, inp, arr.shape, axes, keepdims, out, func)

    return _Prepared(run, (arr, mask))

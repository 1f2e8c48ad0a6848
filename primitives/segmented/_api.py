"""Segmented family's public functions: checks, then the plans of :mod:`._plans`."""

from __future__ import annotations

import numpy as np

from .._core import checks as _checks, dtypes as _dtypes, offsets as _offs, plans as _plans
from . import _plans as _gp

__all__ = ["segmented_scan", "segmented_reduce"]


def _offsets(offsets, n, *, func, cover, check):
    """Offsets as a device int64 array of nseg + 1 values, validated unless ``check=False``."""
    return _offs.segment_offsets(offsets, n, func=func, cover=cover, check=check)[0]


def _scan_checked(x, flags, offsets, op, dtype, check):
    func = "segmented_scan"
    if (flags is None) == (offsets is None):
        raise ValueError(f"{func}: give exactly one of flags= and offsets=")
    inp, arr, in_dt, acc_dt = _checks.op_input(x, op, dtype, func=func, ndim=1)
    n = arr.size
    f = o = None
    if flags is not None:
        fi = _checks.as_input(flags, func=func, arg="flags", ndim=1, empty_dtype=np.bool_)
        if fi.array.dtype != np.bool_:
            raise TypeError(
                f"{func}: flags must be a boolean array, got dtype {fi.array.dtype.name}"
            )
        if fi.array.size != n:
            raise ValueError(f"{func}: flags has {fi.array.size} elements, x has {n}")
        f = fi.array
    else:
        o = _offsets(offsets, n, func=func, cover=True, check=check)
    # read as they are: arguments a plan may take directly on later calls
    direct = arr is x and (f is flags if o is None else o is offsets)
    return inp, arr, in_dt, acc_dt, f, o, direct


def _make_scan_plan(
    x, *, flags=None, offsets=None, op="sum", inclusive=True, dtype=None, check=True
):
    """What ``prim.plan(prim.segmented_scan, x, flags=... or offsets=..., ...)`` runs for
    arrays like ``x``: the flags or offsets are bound (and checked here, once)."""
    inp, arr, in_dt, acc_dt, f, o, direct = _scan_checked(x, flags, offsets, op, dtype, check)
    if direct and arr.size:
        plan = _gp.scan_plan(
            inp.backend,
            in_dt,
            acc_dt,
            op,
            "inclusive" if inclusive else "exclusive",
            o is not None,
            arr.size,
        )
        return lambda y: plan(y, f, o)
    return lambda y: segmented_scan(
        y, flags=flags, offsets=offsets, op=op, inclusive=inclusive, dtype=dtype, check=False
    )


def _make_reduce_plan(x, offsets, op="sum", *, dtype=None, check=True):
    """What ``prim.plan(prim.segmented_reduce, x, offsets, ...)`` runs for arrays like these."""
    func = "segmented_reduce"
    inp, arr, in_dt, acc_dt = _checks.op_input(x, op, dtype, func=func, ndim=1)
    o = _offsets(offsets, arr.size, func=func, cover=False, check=check)
    if arr.size and o.size > 1 and arr is x and o is offsets:
        plan = _gp.reduce_plan(inp.backend, in_dt, acc_dt, op, arr.size, o.size - 1)
        if not check:
            return plan

        def checked(y, offs):
            _offs.check_values(offs, y.size, func=func, cover=False)
            return plan(y, offs)

        return checked
    return lambda y, offs: segmented_reduce(y, offs, op, dtype=dtype, check=check)


@_plans.planned(_make_scan_plan)
def segmented_scan(
    x, *, flags=None, offsets=None, op="sum", inclusive=True, dtype=None, check=True
):
    """Scan each segment of ``x`` independently.

    Segments are given either by head ``flags`` (``flags[i]`` true starts a segment at ``i``;
    element 0 always starts one) or by CSR-style ``offsets`` (segment ``s`` is
    ``x[offsets[s]:offsets[s+1]]``; ``offsets[0] == 0``, ``offsets[-1] == x.size``; empty segments
    allowed).

    Args:
        x: 1-D array of int32, int64, uint32, uint64, float32 or float64.
        flags: boolean array of ``x.size`` elements, or None (an empty list or tuple is an
            empty boolean array).
        offsets: integer array of nseg + 1 non-decreasing boundaries, or None. An empty list
            or tuple is an empty integer array (a ``ValueError``).
        op: ``"sum"``, ``"min"`` or ``"max"``.
        inclusive: inclusive scan (True) or exclusive (the identity at each segment's start).
        dtype: result dtype, defaults as :func:`primitives.inclusive_scan`.
        check: validate ``offsets`` (one small device-to-host read); ``False`` skips it for
            offsets known to be valid.

    Returns:
        A 1-D array of ``x.size`` elements (CuPy for device input, NumPy for host input).

    Raises:
        TypeError: ``x``, ``flags`` or ``offsets`` of the wrong type or dtype.
        ValueError: both or neither of ``flags``/``offsets``; ``flags`` of the wrong length;
            offsets decreasing, outside ``[0, x.size]`` or not covering ``x``; unknown ``op``.

    See Also:
        :func:`numpy.cumsum` per segment; :func:`segmented_reduce`.
    """
    key = _plans.call_key("segmented_scan", (x, flags, offsets), (op, inclusive, dtype, check))
    plan = _plans.PLANS.find(key)
    if plan is not None:  # an earlier call on like arrays passed every check but the values'
        if check and offsets is not None:
            _offs.check_values(offsets, x.size, func="segmented_scan", cover=True)
        return plan(x, flags, offsets)
    inp, arr, in_dt, acc_dt, f, o, direct = _scan_checked(x, flags, offsets, op, dtype, check)
    n = arr.size
    if n == 0:
        return inp.result(inp.backend.xp.empty(0, dtype=acc_dt))
    mode = "inclusive" if inclusive else "exclusive"
    plan = _gp.scan_plan(inp.backend, in_dt, acc_dt, op, mode, o is not None, n)
    if direct:
        _plans.PLANS.file(key, plan)
    return inp.result(plan(arr, f, o))


@_plans.planned(_make_reduce_plan)
def segmented_reduce(x, offsets, op="sum", *, dtype=None, check=True):
    """Reduce each segment ``x[offsets[s]:offsets[s+1]]``; empty segments give the identity
    (0 for ``sum``; for ``min``/``max`` the dtype's extreme, infinities for floats).

    Args:
        x: 1-D array of int32, int64, uint32, uint64, float32 or float64.
        offsets: integer array of nseg + 1 non-decreasing boundaries in ``[0, x.size]``;
            elements outside ``[offsets[0], offsets[-1])`` belong to no segment. An empty list or
            tuple is an empty integer array (a ``ValueError``).
        op: ``"sum"``, ``"min"`` or ``"max"``.
        dtype: result dtype, defaults as :func:`primitives.reduce`.
        check: validate ``offsets`` (one small device-to-host read).

    Returns:
        A 1-D array of nseg values (CuPy for device input, NumPy for host input).

    Raises:
        TypeError: ``x`` or ``offsets`` of the wrong type or dtype.
        ValueError: offsets decreasing, empty or outside ``[0, x.size]``; unknown ``op``.

    See Also:
        :func:`numpy.ufunc.reduceat` (``numpy.add.reduceat(x, offsets[:-1])`` for non-empty
        segments), :func:`segmented_scan`.
    """
    key = _plans.call_key("segmented_reduce", (x, offsets), (op, dtype, check))
    plan = _plans.PLANS.find(key)
    if plan is not None:  # an earlier call on like arrays passed every check but the values'
        if check:
            _offs.check_values(offsets, x.size, func="segmented_reduce", cover=False)
        return plan(x, offsets)
    func = "segmented_reduce"
    inp, arr, in_dt, acc_dt = _checks.op_input(x, op, dtype, func=func, ndim=1)
    n = arr.size
    o = _offsets(offsets, n, func=func, cover=False, check=check)
    nseg = o.size - 1
    xp = inp.backend.xp
    if n == 0 or nseg == 0:
        return inp.result(xp.full(nseg, _dtypes.identity(op, acc_dt), dtype=acc_dt))
    plan = _gp.reduce_plan(inp.backend, in_dt, acc_dt, op, n, nseg)
    if arr is x and o is offsets:  # read as they are: later like calls take the plan directly
        _plans.PLANS.file(key, plan)
    return inp.result(plan(arr, o))

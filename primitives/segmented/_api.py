"""The segmented functions, declared on the entry protocol (:mod:`primitives._core.entry`): the
checks (:mod:`._checks`), the reduction's variant (:mod:`._choose`), then the plans of
:mod:`._plans`."""

from __future__ import annotations

from .._core import entry as _entry
from . import _checks, _choose, _plans as _gp

__all__ = ["segmented_scan", "segmented_reduce"]


def _prepare_scan(x, *, flags=None, offsets=None, op="sum", inclusive=True, dtype=None, check=True):
    mode = "inclusive" if inclusive else "exclusive"

    def ahead(in_dt, acc_dt):  # the plan's kernels compile beside the offsets' check
        _gp.prefetch_scan(in_dt, acc_dt, op, mode, offsets is not None, check)

    inp, arr, in_dt, acc_dt, f, o = _checks.scan_checked(x, flags, offsets, op, dtype, check, ahead)
    n = arr.size
    if n == 0:
        return _entry.Prepared.done(inp.result(inp.backend.xp.empty(0, dtype=acc_dt)))
    plan = _gp.scan_plan(inp.backend, in_dt, acc_dt, op, mode, o is not None, n)
    if arr is x and (f is flags if o is None else o is offsets):  # read as they are
        # this call's offsets were checked here; a later call checks its own (a plan's are
        # bound to it: checked here, once)
        later = _gp.CheckedScan(plan) if o is not None and check else None
        return _entry.Prepared(plan, (x, f, o), reusable=True, later=later)
    return _entry.Prepared(lambda a, f_, o_: inp.result(plan(a, f_, o_)), (arr, f, o))


def _prepare_reduce(x, offsets, op="sum", *, dtype=None, check=True):
    chosen = []  # the variant, chosen once

    def ahead(in_dt, acc_dt, n, nseg):  # the plan's kernels compile beside the offsets' check
        chosen.append(_choose.reduction(n, nseg))
        _gp.prefetch_reduce(in_dt, acc_dt, op, n, nseg, chosen[0], check)

    inp, arr, in_dt, acc_dt, o = _checks.reduce_checked(x, offsets, op, dtype, check, ahead)
    n, nseg = arr.size, o.size - 1
    if n == 0 or nseg == 0:
        xp = inp.backend.xp
        return _entry.Prepared.done(
            inp.result(xp.full(nseg, _gp.identity(op, acc_dt), dtype=acc_dt))
        )
    variant = chosen[0] if chosen else _choose.reduction(n, nseg)
    plan = _gp.reduce_plan(inp.backend, in_dt, acc_dt, op, n, nseg, variant)
    if arr is x and o is offsets:  # read as they are: later like calls take the plan directly
        # this call's offsets were checked here; a later call (a plan's too) checks its own
        later = _gp.CheckedReduce(plan) if check else None
        return _entry.Prepared(plan, (x, offsets), reusable=True, later=later)
    return _entry.Prepared(lambda a, b: inp.result(plan(a, b)), (arr, o))


@_entry.function(_prepare_scan, arrays=("x", "flags", "offsets"))
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
        op: ``"sum"``, ``"min"`` or ``"max"``, or a :class:`primitives.Op` of your own
            (computed in ``x``'s dtype or ``dtype=``: int32, int64, uint32, uint64, float32 or
            float64).
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


@_entry.function(_prepare_reduce, arrays=("x", "offsets"))
def segmented_reduce(x, offsets, op="sum", *, dtype=None, check=True):
    """Reduce each segment ``x[offsets[s]:offsets[s+1]]``; empty segments give the identity
    (0 for ``sum``; for ``min``/``max`` the dtype's extreme, infinities for floats).

    Args:
        x: 1-D array of int32, int64, uint32, uint64, float32 or float64.
        offsets: integer array of nseg + 1 non-decreasing boundaries in ``[0, x.size]``;
            elements outside ``[offsets[0], offsets[-1])`` belong to no segment. An empty list or
            tuple is an empty integer array (a ``ValueError``).
        op: ``"sum"``, ``"min"`` or ``"max"``, or a :class:`primitives.Op` of your own
            (computed in ``x``'s dtype or ``dtype=``: int32, int64, uint32, uint64, float32 or
            float64).
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

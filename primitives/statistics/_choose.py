"""The family's one choice, made once per plan: which axis kernel reduces an ``(outer, R, inner)``
view and how the reduced extent is split. The family has no variants (``VARIANTS`` is empty):
every layout has one kernel."""

from __future__ import annotations

from .._core import launch as _launch

__all__ = ["AxisChoice", "axis_choice"]


class AxisChoice(tuple):
    """``(kernel, g, splits, chunk)``: "rows" or "cols", the lanes per row (rows), and R cut in
    ``splits`` chunks of ``chunk`` (1: one launch; more: stat_combine finishes the chunks)."""

    __slots__ = ()
    kernel = property(lambda self: self[0])
    g = property(lambda self: self[1])
    splits = property(lambda self: self[2])
    chunk = property(lambda self: self[3])


def axis_choice(outer, R, inner, threads, pol):
    """The kernel of an ``(outer, R, inner)`` reduction on a device of ``threads`` resident
    threads: rows (``inner == 1``) take the fewest lanes (a power of two up to 32) covering a
    row, columns a thread per kept position; when those are too few for the device and the
    chunks stay at least ``pol.min_chunk`` long (per lane), R is split."""
    splits = 1
    if inner == 1:
        g = 1
        while g < 32 and g < R:
            g *= 2
        if outer * g < threads and R > g * pol.min_chunk:
            splits = min(_launch.cdiv(threads, outer * 32), _launch.cdiv(R, 32 * pol.min_chunk))
            g = 32
        kernel = "rows"
    else:
        g = 1
        units = outer * inner
        if units < threads and R > pol.min_chunk:
            splits = min(_launch.cdiv(threads, units), _launch.cdiv(R, pol.min_chunk))
        kernel = "cols"
    chunk = _launch.cdiv(R, splits)
    return AxisChoice((kernel, g, _launch.cdiv(R, chunk), chunk))

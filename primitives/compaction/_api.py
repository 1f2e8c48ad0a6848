"""Compaction's public functions, declared on the entry protocol (:mod:`primitives._core.entry`):
the checks of :mod:`._checks`, then the plans of :mod:`._plans`."""

from __future__ import annotations

import functools

from .._core import entry as _entry
from . import _checks, _plans as _cp

__all__ = ["compact", "compact_indices"]


def _prepare_compact(x, mask):
    inp, dt, m = _checks.checked(x, mask)
    n = inp.array.size
    if n == 0:
        return _entry.Prepared.done(inp.kept(inp.backend.xp.empty(0, dtype=dt)))
    plan = _cp.compact_plan(inp.backend, dt, n)
    if inp.array is x and m.array is mask:  # read as they are: later like calls take the plan
        return _entry.Prepared(plan, (x, mask), reusable=True)
    return _entry.Prepared(lambda a, b: inp.kept(plan(a, b)), (inp.array, m.array))


def _prepare_indices(mask):
    m = _checks.mask(mask, None, "compact_indices")
    n = m.array.size
    if n == 0:
        return _entry.Prepared.done(m.result(m.backend.xp.empty(0, dtype=_cp.INDEX_DTYPE)))
    plan = _cp.compact_plan(m.backend, None, n)
    run = functools.partial(plan, None)
    if m.array is mask:  # read as it is: later calls on like arrays take the plan
        return _entry.Prepared(run, (mask,), reusable=True)
    return _entry.Prepared(lambda a: m.result(run(a)), (m.array,))


@_entry.function(_prepare_compact, arrays=("x", "mask"))
def compact(x, mask):
    """The elements of ``x`` where ``mask`` is true, in order: ``x[mask]`` for 1-D arrays.

    Args:
        x: array of bool, int8, uint8, int16, uint16, int32, uint32, int64, uint64, float16,
            float32, float64, complex64 or complex128; any ndim is flattened. Elements are
            copied bit for bit (NaN payloads and negative zeros kept).
        mask: boolean array with as many elements as ``x`` (flattened the same way); an empty
            list or tuple is an empty boolean array.

    Returns:
        A 1-D array of the selected elements (CuPy for device input, NumPy for host input), in the
        dtype of ``x``: a host ``x`` of non-native byte order keeps it, as ``x[mask]`` does. On
        the GPU it is a view of a buffer of ``x.size`` elements.

    Raises:
        TypeError: ``x`` or ``mask`` is not an array; unsupported dtype of ``x`` (longdouble,
            clongdouble, datetime, string, object or structured); ``mask`` not bool (NumPy
            reads an integer array as indices, not as a mask).
        ValueError: ``mask`` and ``x`` differ in size.

    One pass over ``x`` and ``mask``; the result's length is read back from the device once (a
    synchronization, as ``x[mask]`` also needs).

    See Also:
        :func:`numpy.compress`, :func:`numpy.extract`, boolean indexing ``x[mask]``.
    """


@_entry.function(_prepare_indices, arrays=("mask",))
def compact_indices(mask):
    """Indices (int64) of the true entries of the flattened ``mask``: ``numpy.flatnonzero(mask)``.

    Args:
        mask: boolean array.

    Returns:
        A 1-D int64 array (CuPy for device input, NumPy for host input).

    Raises:
        TypeError: ``mask`` is not a boolean array.

    See Also:
        :func:`numpy.flatnonzero`, :func:`numpy.nonzero`, :func:`cupy.nonzero`.
    """

"""``map=`` with the reductions' other keywords: what a map (each element read through a C++
expression, in its own dtype, by the kernels: no temporary array) takes with ``out``, and its
error with ``where``. Along axes the map runs in the axis kernels (:mod:`._axis`), over every
element in the whole-array kernels (:mod:`._plans`); ``initial`` is combined with the mapped
reduction as without a map (:mod:`._where`).

A map reads the elements as they are: a reduction that would cast them to another dtype before
its kernel (``dtype=``, or NumPy's promotion of ``out``'s dtype and the input's) is refused
rather than mapping the cast values, as :func:`~primitives._core.ops.check_map` refuses it."""

from __future__ import annotations

import numpy as np

from .._core import ops as _ops
from . import _checks, _plans as _rp
from ._axis import axis_route

__all__ = ["refuse_where", "into_out"]


def refuse_where(m, where, func):
    """TypeError naming ``func`` where a map ``m`` comes with a ``where`` mask: the masked
    reductions replace the masked-out elements (in a copy, or on load) by the operator's
    identity, which a map would then transform."""
    if m is not None and not _checks.every(where):
        raise TypeError(
            f"{func}: {m!r} takes no where= (no masked reduction reads its elements through a "
            f"map); mask the mapped values in the expression instead, or reduce without where"
        )


def into_out(m, arr, op, dtype, out, axes, variant, func, initial=False):
    """``(arr, dtype)``: what to reduce into ``out`` (:func:`._checks.into_out`), with the map
    ``m`` (None: the reduction's own rule, ``initial`` true where one is given). With a map the elements are never converted first:

    - integer sums and products into an integer ``out`` (NumPy's promotion an integer dtype)
      run in their own natural dtype (64 bits) and are cast to ``out``'s dtype: the same value
      as NumPy's, which wraps modulo the same powers of two;
    - other sums and products run in NumPy's promotion of ``out``'s dtype and the input's,
      where the kernels read the input in that dtype as it is; where they would convert it
      first (float32 summed into a float64 ``out``) a TypeError names ``out``;
    - ``min``/``max`` into an ``out`` the input casts to safely (monotonically) are the mapped
      min/max cast to ``out``'s dtype, as NumPy's; into another dtype NumPy starts from the
      first element cast to ``out``'s dtype (a copy of the input): a TypeError names ``out``.
    """
    if m is None:
        return _checks.into_out(arr, op, dtype, out, axes, initial)
    odt, in_dt = np.dtype(out.dtype), arr.dtype
    if isinstance(op, _ops.Op) or odt not in _checks.allowed(op):
        return arr, dtype  # the natural result, cast to out's dtype
    if op in ("min", "max"):
        if arr.size and not np.can_cast(in_dt, odt, "safe"):
            raise _out_error(m, in_dt, odt, f"{op} starts from the first element cast to it", func)
        return arr, dtype
    if dtype is not None:  # dtype= decides the loop (a cast then refused by check_map)
        return arr, dtype
    loop = np.result_type(odt, in_dt)
    if in_dt.kind in "iu" and odt.kind in "iu" and loop.kind in "iu":
        return arr, None
    if len(axes) == arr.ndim:
        cast = bool(_rp.route(in_dt, loop, op, variant).convs)
    else:
        cast = axis_route(in_dt, op, loop).conv is not None
    if cast:
        raise _out_error(m, in_dt, odt, f"NumPy's {op} casts the elements to {loop} first", func)
    return arr, loop


def _out_error(m, in_dt, odt, why, func):
    return TypeError(
        f"{func}: {m!r} reads x's {in_dt} elements as they are; with out of dtype {odt}, {why} "
        f"(give out of the mapped reduction's dtype, or no out)"
    )

"""The sorts' argument checks: keys, values, bit ranges, offsets and options, each error naming the
public function, in CuPy's order."""

from __future__ import annotations

import numpy as np

from .._core import checks as _checks, keys as _keys, offsets as _offsets
from . import _choose


def keys_input(keys, func):
    """``keys`` as a 1-D backend array (:class:`~primitives._core.checks.Input`) of a key dtype."""
    k = _checks.as_input(keys, func=func, arg="keys", ndim=1)
    if k.array.dtype not in _keys.KEY_SET:
        raise TypeError(
            f"{func}: keys has dtype {k.array.dtype.name}; supported key dtypes are "
            f"{', '.join(d.name for d in _keys.KEY_DTYPES)}"
        )
    return k


def values_input(values, n, func):
    """``values`` (None, or 1-D of ``n`` elements of any dtype) as an Input, or None."""
    if values is None:
        return None
    v = _checks.as_input(values, func=func, arg="values", ndim=1)
    if v.array.size != n:
        raise ValueError(f"{func}: values has {v.array.size} elements, keys has {n}")
    return v


def bit_range(begin_bit, end_bit, bits, func):
    """``(begin, end)`` of the bits to sort by, within the ``bits`` of the key."""
    for arg, v in (("begin_bit", begin_bit), ("end_bit", end_bit)):
        if v is not None and (
            isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer))
        ):
            raise TypeError(f"{func}: {arg} must be an int, got {type(v).__name__}")
    begin = 0 if begin_bit is None else int(begin_bit)
    end = bits if end_bit is None else int(end_bit)
    if not 0 <= begin <= end <= bits:
        raise ValueError(
            f"{func}: bit range [begin_bit={begin}, end_bit={end}) must satisfy "
            f"0 <= begin_bit <= end_bit <= {bits} (the key width in bits)"
        )
    return begin, end


def segment_offsets(offsets, n, func):
    """Offsets as a device int64 array, validated; returns (offsets, longest segment)."""
    return _offsets.segment_offsets(offsets, n, func=func, arg="keys", item="key")


class Sort:
    """The arguments of a sort of keys (and values), checked in CuPy's order: ``variant`` (a name
    of :data:`~._choose.VARIANTS` or ``"auto"``, not yet chosen), ``k`` and ``v`` (Inputs; ``v``
    None without values), ``begin`` and ``end`` (the bit range), ``desc``."""

    __slots__ = ("variant", "k", "v", "begin", "end", "desc")

    def __init__(self, keys, values, begin_bit, end_bit, descending, variant, func):
        self.variant = _checks.check_choice(
            variant, _choose.VARIANTS, func=func, arg="variant", auto="auto"
        )
        self.k = keys_input(keys, func)
        self.v = values_input(values, self.k.array.size, func)
        self.begin, self.end = bit_range(begin_bit, end_bit, 8 * self.k.array.dtype.itemsize, func)
        self.desc = _checks.boolean(descending, func, "descending")


def segmented(keys, offsets, values, descending):
    """The arguments of :func:`~primitives.segmented_sort`, checked in CuPy's order (validating
    the offsets reads four numbers back from the device): (keys Input, int64 offsets, longest
    segment, values Input or None, descending)."""
    func = "segmented_sort"
    k = keys_input(keys, func)
    n = k.array.size
    off, longest = segment_offsets(offsets, n, func)
    v = values_input(values, n, func)
    return k, off, longest, v, _checks.boolean(descending, func, "descending")

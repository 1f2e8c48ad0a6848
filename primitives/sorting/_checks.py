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


# ---- sorts along an axis (sort, argsort, lexsort) ----------------------------------------------


def sort_kind(kind, stable, order, func):
    """NumPy's checks of ``kind``, ``stable`` and ``order``, in its order: ``kind`` a string
    naming one of its sorts by its first letter (``'quicksort'``, ``'mergesort'``,
    ``'heapsort'``, ``'stable'``: all one stable radix sort here), not given with ``stable``;
    ``order`` None (the keys have no fields). ``stable`` is any value, as NumPy reads it."""
    if kind is not None:
        if not isinstance(kind, str):
            raise TypeError(f"{func}: sort kind must be str, not {type(kind).__name__}")
        if not kind or kind[0].lower() not in "qhms":
            raise ValueError(
                f"{func}: sort kind must be one of 'quick', 'heap', or 'stable' (got {kind!r})"
            )
        if stable is not None:
            raise ValueError(
                f"{func}: `kind` and keyword parameters can't be provided at the same time. "
                "Use only one of them."
            )
    if order is not None:
        raise ValueError(f"{func}: Cannot specify order when the array has no fields.")


def sort_dtype(arr, func, arg):
    """A TypeError naming ``func`` unless ``arr`` has a dtype the sorts order."""
    if arr.dtype not in _keys.SORT_SET:
        raise TypeError(
            f"{func}: {arg} has dtype {arr.dtype.name}; supported dtypes are "
            f"{', '.join(d.name for d in _keys.SORT_DTYPES)}"
        )


class Along:
    """The arguments of :func:`~primitives.sort` or :func:`~primitives.argsort`, checked in
    NumPy's order after ``variant``: ``k`` (the Input of ``a``, any ndim, an F-ordered array
    kept so), ``axis`` (an index in ``[0, ndim)``, or None: the flattened array), ``desc``,
    ``variant`` (not yet chosen)."""

    __slots__ = ("variant", "k", "axis", "desc")

    def __init__(self, a, axis, kind, order, stable, descending, variant, func):
        self.variant = _checks.check_choice(
            variant, _choose.VARIANTS, func=func, arg="variant", auto="auto"
        )
        self.k = _checks.as_input(a, func=func, arg="a", keep_f=True)
        arr = self.k.array
        sort_dtype(arr, func, "a")
        sort_kind(kind, stable, order, func)
        if axis is None:
            self.axis = None
        else:  # argsort reads a 0-d array as one element; sort refuses an axis of it
            self.axis = _checks.axis_index(axis, arr.ndim, func, scalar=func == "sort")
        self.desc = _checks.boolean(descending, func, "descending")


def lexsort_keys(keys, axis, func="lexsort"):
    """The keys of :func:`~primitives.lexsort` as Inputs (a sequence of arrays, or the rows of
    an array), each of a sort dtype and all of one shape, and ``axis`` as an index (0 for 0-d
    keys). NumPy's errors: a TypeError for no keys, a ValueError for keys of different shapes."""
    if isinstance(keys, (list, tuple)):
        if not keys:
            raise TypeError(f"{func}: need sequence of keys with len > 0 in lexsort")
        ks = [_checks.as_input(k, func=func, arg="keys", keep_f=True) for k in keys]
    else:
        whole = _checks.as_input(keys, func=func, arg="keys")
        if whole.array.ndim == 0 or whole.array.shape[0] == 0:
            raise TypeError(f"{func}: need sequence of keys with len > 0 in lexsort")
        ks = [
            _checks.Input(whole.array[i], whole.host, whole.backend, whole.order)
            for i in range(whole.array.shape[0])
        ]
    shape = ks[0].array.shape
    for k in ks:
        sort_dtype(k.array, func, "keys")
        if k.array.shape != shape:
            raise ValueError(f"{func}: all keys need to be the same shape")
    return ks, _checks.axis_index(axis, len(shape), func)

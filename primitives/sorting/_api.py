"""Sort family's public functions: argument checks, then the sorts of the variant modules.

A call of :func:`sort`, :func:`argsort` or :func:`radix_sort` on arrays of the backend's own type
that the block sort or onesweep sorts as they are files that sort's plan under the call's key; a
later call on like arrays (same dtypes, shapes, strides, options and stream) finds it there and
only launches.
"""

from __future__ import annotations

import numpy as np

from .._core import checks as _checks, plans as _plans
from . import _block, _classic, _onesweep, _policy, _segmented, _split
from ._keys import INDEX, KEY_DTYPES, KEY_SET, Job, index_dtype, key_back, key_bits, native_values

__all__ = ["sort", "argsort", "radix_sort", "segmented_sort", "VARIANTS", "KEY_DTYPES"]

VARIANTS = ("split", "classic", "onesweep", "block")

_RUN = {
    "split": _split.run,
    "classic": _classic.run,
    "onesweep": _onesweep.run,
    "block": _block.run,
}
_PLAN = {"onesweep": _onesweep.plan, "block": _block.plan}  # the sorts whose plans are filed


# ---- argument checks --------------------------------------------------------------------------


def _keys_input(keys, func):
    k = _checks.as_input(keys, func=func, arg="keys", ndim=1)
    if k.array.dtype not in KEY_SET:
        raise TypeError(
            f"{func}: keys has dtype {k.array.dtype.name}; supported key dtypes are "
            f"{', '.join(d.name for d in KEY_DTYPES)}"
        )
    return k


def _values_input(values, n, func):
    if values is None:
        return None
    v = _checks.as_input(values, func=func, arg="values", ndim=1)
    if v.array.size != n:
        raise ValueError(f"{func}: values has {v.array.size} elements, keys has {n}")
    return v


def _variant_for(variant, n, itemsize, func):
    """The variant that sorts ``n`` keys of ``itemsize`` bytes: ``auto`` is the block sort from
    1 key up to the policy's limit, else onesweep; ``"block"`` only up to its capacity."""
    kb = max(4, itemsize)  # 1- and 2-byte keys are sorted as 4-byte images
    pol = _policy.block()
    if variant == "auto":
        return "block" if 1 <= n <= pol.auto_max(kb) else "onesweep"
    if variant == "block" and n > pol.capacity(kb):
        raise ValueError(
            f"{func}: variant 'block' sorts at most {pol.capacity(kb)} keys of "
            f"{itemsize} bytes (one block of {pol.block} threads), got {n}; use "
            f"'onesweep' or 'auto'"
        )
    return variant


def _bit_range(begin_bit, end_bit, bits, func):
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


class _Checked:
    """The arguments of a sort of keys (and values), checked in CuPy's order."""

    __slots__ = ("variant", "k", "v", "begin", "end", "desc")

    def __init__(self, keys, values, begin_bit, end_bit, descending, variant, func):
        variant = _checks.check_choice(variant, VARIANTS, func=func, arg="variant", auto="auto")
        self.k = _keys_input(keys, func)
        self.v = _values_input(values, self.k.array.size, func)
        self.begin, self.end = _bit_range(begin_bit, end_bit, 8 * self.k.array.dtype.itemsize, func)
        self.desc = _checks.boolean(descending, func, "descending")
        self.variant = _variant_for(variant, self.k.array.size, self.k.array.dtype.itemsize, func)

    def as_is(self, keys, values):
        """Whether onesweep or the block sort reads ``keys`` and ``values`` as they are (no
        copy, conversion or permutation of other widths) and sorts by some bits: its plan then
        serves calls on like arrays directly."""
        karr = self.k.array
        return (
            self.variant in _PLAN
            and self.begin < self.end
            and karr is keys
            and karr.size > 0
            and karr.dtype.itemsize >= 4
            and (values is None or (self.v.array is values and native_values(values) is not None))
        )


# ---- the sorts --------------------------------------------------------------------------------


def _job(karr, varr, begin, end, descending, backend, argsort):
    """The :class:`~._keys.Job` of sorting the device array ``karr`` (n >= 1, begin < end)."""
    kbits, kind, _ = key_bits(karr)
    vbits = None if varr is None else native_values(varr)
    if argsort:
        values, wide = "iota", True
    elif varr is None:
        values, wide = None, False
    elif vbits is not None:
        values, wide = vbits, False
    else:  # values of another width: sort an index permutation and gather
        values, wide = "iota", False
    return Job(kbits, kind, begin, end, descending, values, wide, not argsort, backend)


def _sort_core(karr, varr, begin, end, descending, variant, backend, *, argsort=False):
    """Sort the device array ``karr`` (n >= 1). Returns (sorted keys or None, values, index or
    None): values sorted alongside when given; with ``argsort`` the int64 permutation instead."""
    dt = karr.dtype
    if begin == end:  # no bits to sort by: the stable order is the input order
        kbits = key_bits(karr)[0]
        n = kbits.size
        skeys = kbits.copy()
        if argsort or (varr is not None and native_values(varr) is None):
            perm = backend.xp.arange(n, dtype=index_dtype(n))
        else:
            perm = None if varr is None else native_values(varr).copy()
    else:
        skeys, perm = _RUN[variant](_job(karr, varr, begin, end, descending, backend, argsort))
    if argsort:
        return None, None, perm.astype(INDEX, copy=False)
    keys_out = key_back(skeys, dt)
    if varr is None:
        return keys_out, None, None
    if native_values(varr) is not None:
        return keys_out, perm.view(varr.dtype), None
    return keys_out, varr[perm], None


def _sort_plan(c, keys, values, argsort=False):
    """The plan (onesweep's or the block sort's) that sorts ``keys`` and ``values`` as they
    are, or None."""
    if not c.as_is(keys, values):
        return None
    karr = c.k.array
    return _PLAN[c.variant](
        _job(
            karr,
            None if values is None else c.v.array,
            c.begin,
            c.end,
            c.desc,
            c.k.backend,
            argsort,
        )
    )


def _radix_sort(keys, values, begin_bit, end_bit, descending, variant, func):
    """The checked path of :func:`radix_sort` (and :func:`sort`): (result, the plan to file
    under the call's key or None)."""
    c = _Checked(keys, values, begin_bit, end_bit, descending, variant, func)
    k, v = c.k, c.v
    if k.array.size == 0:
        xp = k.backend.xp
        out = k.kept(xp.empty(0, dtype=k.array.dtype))
        return (out if v is None else (out, v.kept(xp.empty(0, dtype=v.array.dtype)))), None
    skeys, svals, _ = _sort_core(
        k.array, None if v is None else v.array, c.begin, c.end, c.desc, c.variant, k.backend
    )
    plan = _sort_plan(c, keys, values)
    if v is None:
        return k.kept(skeys), plan
    return (k.kept(skeys), v.kept(svals)), plan


def _argsort(keys, descending, variant):
    """The checked path of :func:`argsort`: (result, the plan to file or None)."""
    c = _Checked(keys, None, None, None, descending, variant, "argsort")
    k = c.k
    if k.array.size == 0:
        return k.result(k.backend.xp.empty(0, dtype=INDEX)), None
    _, _, perm = _sort_core(
        k.array, None, c.begin, c.end, c.desc, c.variant, k.backend, argsort=True
    )
    return k.result(perm), _sort_plan(c, keys, None, argsort=True)


# ---- plans (prim.plan) ------------------------------------------------------------------------


def _make_radix_sort(
    keys, values=None, *, begin_bit=0, end_bit=None, descending=False, variant="auto"
):
    """What ``prim.plan(prim.radix_sort, keys[, values], ...)`` runs for arrays like these."""
    c = _Checked(keys, values, begin_bit, end_bit, descending, variant, "radix_sort")
    plan = _sort_plan(c, keys, values)
    if plan is not None:
        return plan
    return lambda k, v=None: radix_sort(
        k, v, begin_bit=begin_bit, end_bit=end_bit, descending=descending, variant=variant
    )


def _make_sort(keys, *, descending=False, variant="auto"):
    c = _Checked(keys, None, 0, None, descending, variant, "sort")
    plan = _sort_plan(c, keys, None)
    if plan is not None:
        return plan
    return lambda k: sort(k, descending=descending, variant=variant)


def _make_argsort(keys, *, descending=False, variant="auto"):
    c = _Checked(keys, None, None, None, descending, variant, "argsort")
    plan = _sort_plan(c, keys, None, argsort=True)
    if plan is not None:
        return plan
    return lambda k: argsort(k, descending=descending, variant=variant)


def _make_segmented_sort(keys, offsets, values=None, *, descending=False):
    func = "segmented_sort"
    k = _keys_input(keys, func)
    _segmented.segment_offsets(offsets, k.array.size, func)
    _values_input(values, k.array.size, func)
    _checks.boolean(descending, func, "descending")
    return lambda k, o, v=None: segmented_sort(k, o, v, descending=descending)


# ---- public functions -------------------------------------------------------------------------


@_plans.planned(_make_radix_sort)
def radix_sort(keys, values=None, *, begin_bit=0, end_bit=None, descending=False, variant="auto"):
    """Stable LSD radix sort of ``keys``, with ``values`` permuted alongside.

    Args:
        keys: 1-D array of uint8/16/32/64, int8/16/32/64, float32 or float64 (CuPy, NumPy, or
            anything with ``__cuda_array_interface__`` / DLPack).
        values: optional 1-D array of ``keys.size`` elements of any dtype. 4- and 8-byte values
            move with the keys; others through an index permutation and one gather.
        begin_bit, end_bit: sort by bits ``[begin_bit, end_bit)`` of the key's order-preserving
            unsigned image only (the key itself for unsigned keys; for signed keys the sign bit
            is flipped; for floats every NaN is the positive quiet NaN, negative numbers are
            negated as two's complement integers and others get the sign bit set); default all
            bits. ``begin_bit == end_bit`` keeps the input order.
        descending: largest first. Equal keys stay in input order (stable); NaNs come first.
        variant: ``"split"``, ``"classic"``, ``"onesweep"``, ``"block"`` (one block sorts
            the whole input in shared memory: up to 12288 keys of 1 to 4 bytes, 10240 of 8
            bytes, the ``"block"`` tuning policy's capacity) or ``"auto"`` (= ``"block"`` for
            inputs up to the policy's limit, else ``"onesweep"``).

    Returns:
        The sorted keys, or ``(keys, values)`` when ``values`` is given: CuPy arrays for device
        input, NumPy arrays for host input, in the inputs' dtypes (host arrays of non-native byte
        order keep it, as ``numpy.sort`` does). The inputs are not modified.

    Raises:
        TypeError: ``keys``/``values`` not arrays; unsupported key dtype; non-integer bits;
            non-bool ``descending``.
        ValueError: ``keys``/``values`` not 1-D, or of different lengths; bit range outside
            ``[0, key bits]`` or ``begin_bit > end_bit``; unknown ``variant``; ``"block"`` for
            more keys than its capacity.

    Order of floats (NumPy's): -inf < negatives < -0.0 = 0.0 < positives < inf < NaN, where
    -0.0 and 0.0 compare equal (input order kept) and all NaNs compare equal and sort last. The
    output holds the input's bit patterns (NaN payloads, signs of zeros).

    No host synchronization: onesweep and the block sort decide on the device which digit
    passes to skip. A call on arrays of the backend's own type (CuPy on the GPU) like an earlier
    call's (the same dtypes, shapes, strides, bit range, order, variant and stream) reuses that
    call's launches, prepared once, and skips the checks it passed: the first kernel starts
    sooner (a small input's block sort is then one output allocation, two with values, and one
    launch).

    See Also:
        :func:`numpy.sort` (``kind="stable"``), :func:`cupy.sort`, :func:`sort`,
        :func:`argsort`.
    """
    key = _plans.call_key("radix_sort", (keys, values), (begin_bit, end_bit, descending, variant))
    plan = _plans.PLANS.find(key)
    if plan is not None:  # an earlier call on like arrays passed every check
        skeys, svals = plan.run(keys, values)
        return skeys if values is None else (skeys, svals)
    out, plan = _radix_sort(keys, values, begin_bit, end_bit, descending, variant, "radix_sort")
    if plan is not None:
        _plans.PLANS.file(key, plan)
    return out


@_plans.planned(_make_sort)
def sort(keys, *, descending=False, variant="auto"):
    """Stable sort of a 1-D array: ``numpy.sort(keys, kind="stable")`` (reversed into largest
    first, NaNs first, equal keys in input order, with ``descending=True``).

    Keys and ``variant`` as :func:`radix_sort` (``"auto"``: the block sort for small inputs,
    else onesweep); floats in NumPy's order (NaNs last). Returns a CuPy array for device input,
    NumPy for host input.

    Raises:
        As :func:`radix_sort`.

    See Also:
        :func:`numpy.sort`, :func:`cupy.sort`, :func:`radix_sort`.
    """
    key = _plans.call_key("sort", (keys,), (descending, variant))
    plan = _plans.PLANS.find(key)
    if plan is not None:  # an earlier call on a like array passed every check
        return plan.run(keys, None)[0]
    out, plan = _radix_sort(keys, None, 0, None, descending, variant, "sort")
    if plan is not None:
        _plans.PLANS.file(key, plan)
    return out


@_plans.planned(_make_argsort)
def argsort(keys, *, descending=False, variant="auto"):
    """Indices (int64) that sort ``keys`` stably: ``numpy.argsort(keys, kind="stable")``.

    With ``descending=True``: largest first, NaNs first, and equal keys in input order (so not
    ``argsort(keys)[::-1]``, which reverses ties). Keys and ``variant`` as :func:`radix_sort`.

    Onesweep generates the indices inside its first pass and writes them as int64 in its last,
    and never writes the sorted keys; so does the block sort (small inputs, ``variant="auto"``),
    in its one launch.

    Raises:
        As :func:`radix_sort`.

    See Also:
        :func:`numpy.argsort`, :func:`cupy.argsort`.
    """
    key = _plans.call_key("argsort", (keys,), (descending, variant))
    plan = _plans.PLANS.find(key)
    if plan is not None:  # an earlier call on a like array passed every check
        perm = plan.run(keys, "iota")[1]
        return perm if perm.dtype == INDEX else perm.astype(INDEX)
    out, plan = _argsort(keys, descending, variant)
    if plan is not None:
        _plans.PLANS.file(key, plan)
    return out


@_plans.planned(_make_segmented_sort)
def segmented_sort(keys, offsets, values=None, *, descending=False):
    """Sort each segment ``keys[offsets[s]:offsets[s+1]]`` independently (stable, as
    :func:`sort`), with ``values`` permuted alongside.

    Args:
        keys: 1-D array of a key dtype of :func:`radix_sort`.
        offsets: integer array of segments + 1 non-decreasing boundaries, ``offsets[0] == 0``
            and ``offsets[-1] == keys.size`` (CSR style; empty segments allowed). An empty list
            or tuple is an empty integer array (a ``ValueError``).
        values: optional 1-D array of ``keys.size`` elements (any dtype).
        descending: largest first within each segment.

    Returns:
        The keys sorted within their segments, or ``(keys, values)`` when ``values`` is given.

    Raises:
        TypeError: as :func:`radix_sort`; non-integer ``offsets``.
        ValueError: as :func:`radix_sort`; ``offsets`` empty, decreasing, or not covering keys.

    One pass structure for all segments, never a launch per segment: segments of up to 128 keys
    are sorted by one warp each, up to 2048 by one block each, in registers and shared memory (one
    read and one write of the data). When some segment is longer, the whole input is sorted
    device-wide by key and then, stably, by segment number (onesweep, a few passes for the
    segment numbers). Validating the offsets reads four numbers back from the device (a
    synchronization), which also picks the path.

    See Also:
        :func:`numpy.sort` of each segment; ``cupy.sort(x.reshape(rows, cols), axis=-1)`` for
        equal segments.
    """
    func = "segmented_sort"
    k = _keys_input(keys, func)
    n = k.array.size
    off, longest = _segmented.segment_offsets(offsets, n, func)
    v = _values_input(values, n, func)
    desc = _checks.boolean(descending, func, "descending")
    xp = k.backend.xp
    dt = k.array.dtype
    if n == 0:
        out = k.kept(xp.empty(0, dtype=dt))
        return out if v is None else (out, v.kept(xp.empty(0, dtype=v.array.dtype)))
    varr = None if v is None else v.array
    kbits, kind, bits = key_bits(k.array)
    skeys, svals = _segmented.sort_segments(kbits, kind, bits, desc, varr, off, longest, k.backend)
    out = k.kept(key_back(skeys, dt))
    return out if v is None else (out, v.kept(svals))

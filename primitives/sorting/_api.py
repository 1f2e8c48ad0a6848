"""Sort family's public functions: each declared with its prepare step (the checks of
:mod:`._checks`, the variant of :mod:`._choose`, the plan of :mod:`._plans`) on the core's entry
protocol (:mod:`primitives._core.entry`).

A call of :func:`sort`, :func:`argsort` or :func:`radix_sort` on arrays of the backend's own type
that the block sort or onesweep sorts as they are files that sort's plan under the call's key; a
later call on like arrays (same dtypes, shapes, strides, options and stream) finds it there and
only launches.
"""

from __future__ import annotations

from .._core import entry as _entry
from .._core.keys import INDEX, KEY_DTYPES, key_back, key_bits
from . import _checks, _choose, _plans, _segmented
from ._choose import VARIANTS

__all__ = ["sort", "argsort", "radix_sort", "segmented_sort", "VARIANTS", "KEY_DTYPES"]


# ---- prepare steps ----------------------------------------------------------------------------


def _prepared(keys, values, begin_bit, end_bit, descending, variant, func, *, argsort=False):
    """The prepare step of the sorts of keys (and values): checks, the variant, then onesweep's
    or the block sort's plan when it sorts ``keys`` and ``values`` as they are (filed: it is the
    run of later like calls), else the run of the sort of the arrays as read. The runs take
    (keys, values) for :func:`radix_sort` (its declared arrays), the keys alone else."""
    c = _checks.Sort(keys, values, begin_bit, end_bit, descending, variant, func)
    k, v = c.k, c.v
    karr, varr = k.array, (None if v is None else v.array)
    name = _choose.variant(c.variant, karr.size, karr.dtype.itemsize, func)
    arrays = (karr, varr) if func == "radix_sort" else (karr,)
    if karr.size == 0:
        xp = k.backend.xp
        if argsort:
            return _entry.Prepared.done(k.result(xp.empty(0, dtype=INDEX)))
        out = k.kept(xp.empty(0, dtype=karr.dtype))
        return _entry.Prepared.done(
            out if v is None else (out, v.kept(xp.empty(0, dtype=varr.dtype)))
        )
    if (
        karr is keys
        and (v is None or varr is values)
        and _plans.filed(name, karr, varr, c.begin, c.end)
    ):  # read as they are: the plan is the run of later calls on like arrays
        plan = _plans.sort_plan(name, karr, varr, c.begin, c.end, c.desc, k.backend, argsort)
        return _entry.Prepared(plan, arrays, reusable=True)
    begin, end, desc, backend = c.begin, c.end, c.desc, k.backend
    if argsort:

        def run(ka):
            return k.result(_plans.sort(ka, None, begin, end, desc, name, backend, argsort=True)[2])

    elif v is None:

        def run(ka, va=None):
            return k.kept(_plans.sort(ka, None, begin, end, desc, name, backend)[0])

    else:

        def run(ka, va):
            skeys, svals, _ = _plans.sort(ka, va, begin, end, desc, name, backend)
            return k.kept(skeys), v.kept(svals)

    return _entry.Prepared(run, arrays)


def _prepare_radix_sort(
    keys, values=None, *, begin_bit=0, end_bit=None, descending=False, variant="auto"
):
    return _prepared(keys, values, begin_bit, end_bit, descending, variant, "radix_sort")


def _prepare_sort(keys, *, descending=False, variant="auto"):
    return _prepared(keys, None, 0, None, descending, variant, "sort")


def _prepare_argsort(keys, *, descending=False, variant="auto"):
    return _prepared(keys, None, None, None, descending, variant, "argsort", argsort=True)


def _prepare_segmented_sort(keys, offsets, values=None, *, descending=False):
    """Checks (the offsets read back: a synchronization, which also says the longest segment),
    the path (on chip or device-wide), then the run: never filed, as the offsets' values are
    checked on every call."""
    k, off, longest, v, desc = _checks.segmented(keys, offsets, values, descending)
    karr, varr = k.array, (None if v is None else v.array)
    if karr.size == 0:
        xp = k.backend.xp
        out = k.kept(xp.empty(0, dtype=karr.dtype))
        return _entry.Prepared.done(
            out if v is None else (out, v.kept(xp.empty(0, dtype=varr.dtype)))
        )
    on_chip = _choose.on_chip(longest)
    backend = k.backend

    def run(ka, o, va):
        kbits, kind, bits = key_bits(ka)
        skeys, svals = _segmented.sort_segments(
            kbits, kind, bits, desc, va, o, longest, on_chip, backend
        )
        out = k.kept(key_back(skeys, ka.dtype))
        return out if v is None else (out, v.kept(svals))

    return _entry.Prepared(run, (karr, off, varr))


# ---- public functions -------------------------------------------------------------------------


@_entry.function(_prepare_radix_sort, arrays=("keys", "values"))
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


@_entry.function(_prepare_sort, arrays=("keys",))
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


@_entry.function(_prepare_argsort, arrays=("keys",))
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


@_entry.function(_prepare_segmented_sort, arrays=("keys", "offsets", "values"))
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

"""Sort family's public functions: each declared with its prepare step (the checks of
:mod:`._checks`, the variant of :mod:`._choose`, the plan of :mod:`._plans`) on the core's entry
protocol (:mod:`primitives._core.entry`).

A call of :func:`sort`, :func:`argsort` or :func:`radix_sort` on arrays of the backend's own type
that the block sort or onesweep sorts as they are files that sort's plan under the call's key; a
later call on like arrays (same dtypes, shapes, strides, options and stream) finds it there and
only launches.
"""

from __future__ import annotations


from .._core import checks as _checks_core, entry as _entry, ops as _ops
from .._core.keys import ASCENDING, DESC_NAN_LAST, INDEX, KEY_DTYPES, SORT_DTYPES
from .._core.keys import key_back, key_bits, widened
from .._core.keys import key_width
from . import _checks, _choose, _plans, _rows, _segmented
from ._choose import VARIANTS

__all__ = [
    "sort",
    "argsort",
    "lexsort",
    "radix_sort",
    "segmented_sort",
    "VARIANTS",
    "KEY_DTYPES",
    "SORT_DTYPES",
]


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


def _prepare_sort(
    a, axis=-1, kind=None, order=None, *, stable=None, descending=False, variant="auto"
):
    return _prepare_along(a, axis, kind, order, stable, descending, variant, "sort")


def _prepare_argsort(
    a, axis=-1, kind=None, order=None, *, stable=None, descending=False, variant="auto"
):
    return _prepare_along(a, axis, kind, order, stable, descending, variant, "argsort")


def _prepare_along(a, axis, kind, order, stable, descending, variant, func):
    """The prepare step of :func:`sort` and :func:`argsort`: checks, then the sort of one line
    (a 1-D array, or any array flattened: :func:`_flat`) or of the lines along an axis of an
    N-D array (the rows of a 2-D view: :func:`_along`)."""
    c = _checks.Along(a, axis, kind, order, stable, descending, variant, func)
    arr = c.k.array
    argsort = func == "argsort"
    if arr.ndim == 1:
        return _flat(c, arr, _checks_core.is_itself(arr, a), func, argsort)
    if c.axis is None or arr.ndim == 0:  # flattened in C order (a copy unless C-contiguous)
        return _flat(c, arr.reshape(-1), False, func, argsort)
    return _along(c, arr, _checks_core.is_itself(arr, a), argsort)


def _flat(c, karr, given, func, argsort):
    """The Prepared of the sort of the 1-D backend array ``karr``: the block sort's or
    onesweep's plan, filed, when ``karr`` is the caller's array read as it is (``given``) and of
    4 or 8 bytes, else the run of the sort of ``karr`` (filed too when ``given``); complex keys
    by their images (:func:`._plans.sort_complex`)."""
    k, backend = c.k, c.k.backend
    desc = DESC_NAN_LAST if c.desc else ASCENDING
    dt = karr.dtype
    back = k.detached()
    if karr.size == 0:
        xp = backend.xp
        if argsort:
            return _entry.Prepared.done(k.result(xp.empty(0, dtype=INDEX)))
        return _entry.Prepared.done(k.kept(xp.empty(0, dtype=dt)))
    if dt.kind == "c":
        variant = c.variant

        def by_image(ka):
            out = _plans.sort_complex(ka, desc, backend, variant, func)
            return back.result(out) if argsort else back.kept(out)

        return _entry.Prepared(by_image, (karr,), reusable=given)
    name = _choose.variant(c.variant, karr.size, dt.itemsize, func)
    end = key_width(dt)
    if given and _plans.filed(name, karr, None, 0, end):
        plan = _plans.sort_plan(name, karr, None, 0, end, desc, backend, argsort)
        return _entry.Prepared(plan, (karr,), reusable=True)
    if argsort:

        def run(ka):
            return back.result(_plans.sort(ka, None, 0, end, desc, name, backend, argsort=True)[2])

    else:

        def run(ka):
            return back.kept(_plans.sort(ka, None, 0, end, desc, name, backend)[0])

    return _entry.Prepared(run, (karr,), reusable=given)


def _along(c, arr, given, argsort):
    """The Prepared of the sort of every line along ``c.axis`` of the N-D backend array
    ``arr``: each line a row of a C-contiguous 2-D view (:class:`_plans.Lines`: no copy when
    the axis is the contiguous one), the rows sorted by :func:`._rows.sort_rows` (complex keys:
    by their images, :func:`._plans.sort_complex_rows`)."""
    axis, backend = c.axis, c.k.backend
    desc = DESC_NAN_LAST if c.desc else ASCENDING
    back = c.k.detached()
    xp = backend.xp

    def run(ka):
        lines = _plans.Lines(xp, ka, axis)
        rows = lines.rows
        if rows.size == 0:
            perm = xp.zeros(rows.shape, dtype=INDEX)
            out = rows
        elif ka.dtype.kind == "c":
            perm = out = _plans.sort_complex_rows(rows, desc, backend, argsort)
        elif argsort:  # the columns made in the kernel, the keys never written
            perm = _rows.sort_rows(backend, rows, None, desc, indices=True)
        else:
            out = _rows.sort_rows(backend, rows, None, desc)
        if argsort:
            return back.result(lines.back(perm, keep_layout=False))
        return back.kept(lines.back(out, keep_layout=True))

    return _entry.Prepared(run, (arr,), reusable=given)


def _prepare_lexsort(keys, axis=-1):
    """Checks, then the permutation of a multi-key LSD radix sort: the keys' order-preserving
    images (the last key most significant) packed into as few 64-bit words as hold them
    (:func:`._plans.pack_keys`: one kernel pass per key and word, the keys read in place), one
    stable sort of (word, index) pairs per word. Filed where the keys are a tuple or list of 2
    to 4 arrays of the backend's type read as they are (their token,
    :func:`~primitives._core.ops.zip_token`): a like call runs the same steps unchecked."""
    ks, ax = _checks.lexsort_keys(keys, axis)
    k0 = ks[0]
    backend = k0.backend
    xp = backend.xp
    shape = k0.array.shape
    if len(shape) == 0:
        return _entry.Prepared.done(k0.result(xp.zeros((), dtype=INDEX)))
    if k0.array.size == 0:
        return _entry.Prepared.done(k0.result(xp.empty(shape, dtype=INDEX)))
    back = k0.detached()  # how the result goes back, no array of this call
    given = list(keys) if isinstance(keys, (tuple, list)) else None
    as_is = given is not None and all(
        _checks_core.is_itself(k.array, g) and widened(k.array) is k.array
        for k, g in zip(ks, given)
    )
    # the primary key first; bfloat16 keys as the float32 numbers they are (exact)
    arrays = [widened(k.array) for k in reversed(ks)]
    if len(shape) == 1:

        def run(keys_):
            primary_first = list(reversed(keys_))
            widths = _plans.word_widths([a.dtype for a in primary_first])
            _plans.prefetch_order(widths, primary_first[0].size, "auto", "lexsort")
            words = _plans.pack_keys([(a, a) for a in primary_first], backend)
            perm = _plans.order_words(words, False, backend, "auto", "lexsort")
            return back.result(perm)

    else:
        # one layout for all keys: the reversed axes of F-ordered keys only when every key is one
        flip = all(_plans.Lines.flipped(a) for a in arrays)

        def run(keys_):
            primary_first = list(reversed(keys_))
            lines = [_plans.Lines(xp, a, ax, flip, copy=False) for a in primary_first]
            words = _plans.pack_keys(
                [(a, ln.moved) for a, ln in zip(primary_first, lines)], backend
            )
            rows = [(w.reshape(-1, w.shape[-1]), b) for w, b in words]  # views: C-contiguous
            perm = _plans.order_rows(rows, False, backend)
            return back.result(lines[0].back(perm, keep_layout=False))

    if as_is:  # later like calls: the same steps over their own keys (none of this call's held)
        return _entry.Prepared(run, (keys,), reusable=True)
    return _entry.Prepared(run, (tuple(reversed(arrays)),))  # the keys as read, in keys' order


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


@_entry.function(_prepare_sort, arrays=("a",))
def sort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False, variant="auto"):
    """A sorted copy of an array: ``numpy.sort(a, axis, kind="stable")``.

    Args:
        a: array of any shape of bool, uint8/16/32/64, int8/16/32/64, float16/32/64, bfloat16 or
            complex64/128 (CuPy, NumPy, or anything with ``__cuda_array_interface__`` /
            DLPack).
        axis: the axis to sort along (negative counts from the end), or None: the array
            flattened (in C order).
        kind: ``'quicksort'``, ``'mergesort'``, ``'heapsort'`` or ``'stable'`` (NumPy's names,
            read by their first letter as NumPy reads them) or None: every kind is the one
            stable radix sort here.
        order: None (the keys have no fields).
        stable: True, False or None, as NumPy takes it: the sort is stable whatever it says.
        descending: largest first, equal keys in input order, NaNs last (NumPy's: complex
            keys with a NaN part last, in the classes' ascending order, each class by its other
            part descending).
        variant: the sort of a 1-D array (or a flattened one), as :func:`radix_sort`'s
            (``"auto"``: the block sort for small inputs, else onesweep); the lines along an axis
            of an N-D array are the rows of a segmented sort whatever it says.

    Returns:
        The sorted array, of ``a``'s dtype and shape (1-D for ``axis=None``): a CuPy array for
        device input, NumPy for host input; C-contiguous, F-contiguous for an F-ordered ``a``
        (``numpy.sort``'s layout). ``a`` is not modified.

    Raises:
        TypeError: ``a`` not an array or of another dtype; ``axis`` not an integer or None;
            ``kind`` not a string; non-bool ``descending``.
        ValueError: ``kind`` not one of NumPy's, or given with ``stable``; ``order`` not None;
            unknown ``variant``; ``"block"`` for more keys than its capacity.
        numpy.exceptions.AxisError: ``axis`` out of range (any integer for a 0-d ``a``).

    NumPy's order: floats -inf < ... < -0.0 = 0.0 < ... < inf < NaN (equal keys in input
    order); complex numbers by (real, imag), then those with a NaN imaginary part by real, those
    with a NaN real part by imag, then NaN + NaN j. The result holds the input's bit patterns
    (NaN payloads, signs of zeros).

    Along the contiguous axis (the last of a C-ordered array, the first of an F-ordered one) the
    lines are read in place; along another, one copy makes the axis contiguous. Keys of 1 to 8
    bytes sort in one radix sort (16-bit keys as their own bits in two digit passes with
    ``onesweep``; bool and 8-bit keys, and 16-bit keys with the other variants, as 32-bit
    images); complex keys by their order-preserving images, made in one pass:
    complex64 in one radix sort of the 64-bit images with the keys' bits as values (no
    gather), complex128 by the permutation of its two 64-bit words, then one gather.

    A call on a 1-D array of the backend's own type (CuPy on the GPU) like an earlier call's
    (the same dtype, shape, strides, options and stream) reuses that call's launches, prepared
    once (the block sort's or onesweep's plan for keys of 4 or 8 bytes), without the checks.

    See Also:
        :func:`numpy.sort`, :func:`cupy.sort`, :func:`argsort`, :func:`lexsort`,
        :func:`radix_sort`.
    """


@_entry.function(_prepare_argsort, arrays=("a",))
def argsort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False, variant="auto"):
    """Indices (int64) that sort ``a`` stably along ``axis``:
    ``numpy.argsort(a, axis, kind="stable")``.

    Arguments as :func:`sort` (a 0-d ``a`` is read as one element, as NumPy reads it). With
    ``descending=True``: NumPy's, largest first, NaNs last, and equal keys in input order (so
    not ``argsort(a)[::-1]``, which reverses ties and puts NaNs first).

    Returns:
        int64 indices of ``a``'s shape (1-D for ``axis=None`` or a 0-d ``a``), C-contiguous, a
        CuPy array for device input, NumPy for host input.

    Raises:
        As :func:`sort`.

    On a 1-D array onesweep generates the indices inside its first pass and writes them as
    int64 in its last, and never writes the sorted keys; so does the block sort (small inputs,
    ``variant="auto"``), in its one launch.

    See Also:
        :func:`numpy.argsort`, :func:`cupy.argsort`, :func:`lexsort`.
    """


@_entry.function(_prepare_lexsort, arrays=("keys",), tokens={"keys": _ops.zip_token})
def lexsort(keys, axis=-1):
    """Indices (int64) that sort by several keys, the last key the primary one:
    ``numpy.lexsort(keys, axis)``.

    Args:
        keys: a non-empty sequence of arrays of one shape, or an array whose rows (along its
            first axis) are the keys; each of a dtype of :func:`sort` (the keys' dtypes may
            differ).
        axis: the axis to sort along (negative counts from the end).

    Returns:
        int64 indices of the keys' shape (0 for 0-d keys), C-contiguous: a CuPy array for
        device input, NumPy for host input.

    Raises:
        TypeError: no keys; a key not an array or of another dtype; ``axis`` not an integer.
        ValueError: keys of different shapes.
        numpy.exceptions.AxisError: ``axis`` out of range.

    A stable multi-key LSD radix sort: the keys' order-preserving images (each key's order as
    :func:`sort`'s, a bool 1 bit, complex keys 2 words of their parts' width) concatenated, the
    last key most significant, and cut into as few 64-bit words as hold them (two uint32 keys
    are one uint64 word); then one stable sort of (word, index) pairs per word, least
    significant first, each word gathered through the indices of the sort before. Along an
    axis of N-D keys, the lines are rows of segmented sorts.

    See Also:
        :func:`numpy.lexsort`, :func:`cupy.lexsort`, :func:`argsort`.
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

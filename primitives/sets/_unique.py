"""unique's steps: the sorts of :mod:`primitives.sorting` (bool and float16 keys through their
order-preserving images), the runs of sorted keys (the run kernel of :mod:`._plans`, or head
flags and :mod:`primitives.compaction`), and the rows of ``axis=`` (sorted column by column, or as
64-bit words)."""

from __future__ import annotations

import numpy as np

from . import _plans as _rp


def _sortable(arr):
    """``arr`` as keys of the sorts: bool as uint8, float16 as float32 (order kept, exact)."""
    if arr.dtype == np.bool_:
        return arr.view(np.uint8)
    if arr.dtype == np.float16:
        return arr.astype(np.float32)
    return arr


def sort(arr, values=None):
    """Stable sort of the backend array ``arr`` (and ``values`` alongside), in ``arr``'s dtype
    (complex: in NumPy's order, through the sorting family's permutation)."""
    from .. import sorting

    if arr.dtype.kind == "c":
        perm = sorting.argsort(arr)
        return arr[perm] if values is None else (arr[perm], values[perm])
    keys = _sortable(arr)
    if values is None:
        out = sorting.sort(keys)
    else:
        out, values = sorting.radix_sort(keys, values)
    if out.dtype != arr.dtype:
        out = out.view(arr.dtype) if arr.dtype == np.bool_ else out.astype(arr.dtype)
    return out if values is None else (out, values)


def _runs_of_sorted(s, equal_nan, counts, variant, backend):
    """(first element of each run, run lengths or None) of the sorted backend array ``s``."""
    if variant == "rle":
        plan = _rp.runs_plan(
            backend, s.dtype, _rp.COUNTS if counts else _rp.KEYS, None, None, None, s.size
        )
        return plan(s, equal_nan=equal_nan)
    from .. import compaction

    xp = backend.xp
    heads = xp.empty(s.size, dtype=np.bool_)
    heads[:1] = True
    if s.dtype == np.float16:  # compared as numbers (-0.0 == 0.0), not as bit patterns
        w = s.astype(np.float32)
        xp.not_equal(w[1:], w[:-1], out=heads[1:])
    else:
        xp.not_equal(s[1:], s[:-1], out=heads[1:])
    if equal_nan and s.dtype.kind in "fc":  # complex: every number with a NaN part is one
        nan = xp.isnan(s)
        heads[1:] &= ~(nan[1:] & nan[:-1])
    out = compaction.compact(s, heads)
    if not counts:
        return out, None
    return out, _lengths(compaction.compact_indices(heads), s.size, xp)


def _starts(counts, xp):
    """The first index of each run, from the runs' lengths."""
    return xp.cumsum(counts) - counts


def _lengths(starts, n, xp):
    return _rp.lengths(starts, n, xp.empty)


def _run_ids(starts, n, xp):
    """The run of each of n sorted elements, from the runs' first indices."""
    marks = xp.zeros(n, dtype=np.int64)
    marks[starts[1:]] = 1
    return xp.cumsum(marks)


def unique_flat(arr, ri, rv, rc, equal_nan, variant, backend):
    """NumPy's results of unique over the flat backend array ``arr`` (n >= 1).

    The inverse of real keys is each key's place among the unique ones, found by
    :func:`primitives.searchsorted` (which reads the input in order and the unique keys, kept
    by the L2 when they are few), so the sort needs no permutation for it; complex keys (whose
    NaNs equal_nan makes one element, which the search's order does not) store each sorted
    element's run at its place before the sort."""
    xp = backend.xp
    if variant in ("auto", "count") and arr.dtype.kind in "biu" and not ri:
        counted = _counted(arr, rv, rc, backend, variant == "auto")
        if counted is not None:
            u, inverse, counts = counted
            return u, [e for e, f in ((inverse, rv), (counts, rc)) if f]
    if variant in ("auto", "count"):
        variant = "rle"
    complex_ = arr.dtype.kind == "c"
    if complex_:  # the run kernel has no complex keys
        variant = "compact"
    scatter = rv and complex_  # the inverse through the sort's permutation
    if variant == "rle":
        _rp.prefetch_runs(arr.dtype, rc or ri or scatter)  # compiled beside the sort's kernels
    if ri or scatter:  # the sort's permutation: 32-bit indices below 2^32 elements
        pdt = np.uint32 if arr.size <= np.iinfo(np.uint32).max and not complex_ else np.int64
        s, perm = sort(arr, xp.arange(arr.size, dtype=pdt))
    else:
        s, perm = sort(arr), None
    u, counts = _runs_of_sorted(s, equal_nan, rc or ri or scatter, variant, backend)
    starts = _starts(counts, xp) if ri or scatter else None
    extra = []
    if ri:
        extra.append(perm[starts].astype(np.int64, copy=False))
    if scatter:
        inverse = xp.empty(arr.size, dtype=np.int64)
        inverse[perm] = _run_ids(starts, arr.size, xp)
        extra.append(inverse)
    elif rv:
        extra.append(_inverse_by_search(arr, u, equal_nan, xp))
    if rc:
        extra.append(counts)
    return u, extra


def _counted(arr, rv, rc, backend, auto):
    """unique of the integer (or bool) backend array ``arr`` by counting, no sort: a histogram
    with a bin per value of the keys' range (:func:`primitives.histograms.range_counts`: all
    256 values of 8-bit keys; else [min, max], found on the device and read back, when the
    sets' ``"unique"`` policy allows its width; for ``auto``, only from its least number of
    keys), whose non-empty bins are the unique keys (:func:`primitives.compact_indices`) and
    their counts. The inverse: each key's bin's place among the non-empty ones (a running count
    of them, read at the key). ``(unique keys, inverse or None, counts or None)``, or None
    where the range is too wide (the caller sorts)."""
    from .. import compaction, histograms
    from ..scan import exclusive_scan
    from . import _policy

    keys = arr.view(np.uint8) if arr.dtype == np.bool_ else arr
    dt = keys.dtype
    pol = _policy.unique()
    if auto and dt.itemsize > 1 and keys.size < pol.count_min_size:
        return None
    compaction.prefetch_plan(None)  # compiled beside the counts' kernels, on first use
    counted = histograms.range_counts(keys, backend, pol.count_max_ratio, pol.count_max_bins)
    if counted is None:
        return None
    lo, counts = counted
    present = counts != 0
    bins_of_keys = compaction.compact_indices(present)  # int64, ascending: the keys' order
    # key = bin + lo, in the unsigned twin's arithmetic (modulo 2^bits: exact in range)
    udt = np.dtype(f"u{dt.itemsize}")
    ulo = udt.type(lo % (1 << (8 * dt.itemsize)))
    u = (bins_of_keys.astype(udt) + ulo).view(arr.dtype)
    inverse = None
    if rv:  # each non-empty bin's place: the non-empty bins before it (the project's scan)
        place = exclusive_scan(present, dtype=np.int64)
        inverse = place[keys.view(udt) - ulo]
    return u, inverse, counts[bins_of_keys] if rc else None


def _inverse_by_search(arr, u, equal_nan, xp):
    """Each real key's index in the unique keys ``u`` (sorted): its lower bound there. Without
    equal_nan each NaN is an element of its own, the NaNs last in ``u`` in the input's order
    (the sort is stable): the i-th NaN of the input (counting from 0) takes the first NaN's
    place plus i."""
    from ..searching import searchsorted

    inverse = searchsorted(u, arr)
    if arr.dtype.kind == "f" and not equal_nan:
        nan = xp.isnan(arr)
        inverse = xp.where(nan, inverse + xp.cumsum(nan, dtype=np.int64) - 1, inverse)
    return inverse


def _row_keys(col, xp):
    """A column of rows as sort keys, most significant first: one (:func:`_row_key`), or for
    complex columns the two fields of their image in NumPy's complex order (which also makes
    -0.0 parts equal to 0.0 and puts numbers with a NaN part last)."""
    if col.dtype.kind == "c":
        from .._core.keys import image_fields

        return [f for f, _ in image_fields(col)]
    return [_row_key(col, xp)]


def _row_key(col, xp):
    """A column of rows as sort keys in NumPy's order of the rows' fields: bool as uint8,
    floats with -0.0 as 0.0 (equal in NumPy's comparison), NaN last (after inf) but for
    float16, whose fields NumPy compares with NaN first (before -inf): float16 as float64 with
    NaN as -inf and -inf as the lowest float64."""
    half = col.dtype == np.float16
    col = _sortable(col)
    if col.dtype.kind == "f":
        col = col + col.dtype.type(0)  # -0.0 + 0.0 is 0.0; NaN stays NaN
    if half:
        col = col.astype(np.float64)
        col = xp.where(col == -np.inf, np.finfo(np.float64).min, col)
        col = xp.where(xp.isnan(col), -np.inf, col)
    return col


def _row_words(rows, xp):
    """Integer or bool rows as 64-bit words, most significant first, whose order is the rows'
    lexicographic order and whose equality is theirs: each column's bits (signed integers with
    the sign bit flipped), as many columns to a word as fit. None for rows of floats."""
    dt = rows.dtype
    if dt.kind not in "biu":
        return None
    bits = 8 * dt.itemsize
    u = rows.view(np.dtype(f"u{dt.itemsize}"))
    if dt.kind == "i":
        u = u ^ u.dtype.type(1 << (bits - 1))
    per = 64 // bits
    words = []
    for first in range(0, rows.shape[1], per):
        word = xp.zeros(rows.shape[0], dtype=np.uint64)
        for j in range(first, min(rows.shape[1], first + per)):
            word = (word << np.uint64(bits)) | u[:, j].astype(np.uint64)
        words.append(word)
    return words


def unique_rows(rows, ri, rv, rc, backend):
    """NumPy's results of unique over the rows of the 2-D backend array ``rows`` (n >= 1).

    Integer and bool rows become 64-bit words (:func:`_row_words`): rows of at most 8 bytes are
    one word, sorted with an index (one radix sort) and run-length encoded (one pass); longer
    rows are sorted word by word, last word first (a stable argsort each). Float rows are
    sorted column by column the same way (``-0.0`` as ``0.0``; NaN last, but first in float16
    columns, as NumPy compares fields: :func:`_row_key`); a row holding a NaN equals no row,
    as NumPy's."""
    from .. import compaction, sorting

    xp = backend.xp
    n, w = rows.shape
    words = _row_words(rows, xp)
    if words is not None and len(words) == 1:
        s, perm = sort(words[0], xp.arange(n, dtype=np.int64))
        plan = _rp.runs_plan(backend, s.dtype, _rp.COUNTS, None, None, None, n)
        starts = _starts(plan(s)[1], xp)
    else:
        keys = (
            words
            if words is not None
            else [k for j in range(w) for k in _row_keys(xp.ascontiguousarray(rows[:, j]), xp)]
        )
        perm = xp.arange(n, dtype=np.int64)
        for key in reversed(keys):
            perm = perm[sorting.argsort(key[perm])]
        heads = xp.zeros(n, dtype=np.bool_)
        heads[:1] = True
        if words is not None:
            for word in words:
                sw = word[perm]
                heads[1:] |= sw[1:] != sw[:-1]
        else:
            s = rows[perm]
            if s.dtype == np.float16:
                s = s.astype(np.float32)
            heads[1:] |= xp.any(s[1:] != s[:-1], axis=1)
        starts = compaction.compact_indices(heads)
    extra = []
    if ri:
        extra.append(perm[starts])
    if rv:
        inverse = xp.empty(n, dtype=np.int64)
        inverse[perm] = _run_ids(starts, n, xp)
        extra.append(inverse)
    if rc:
        extra.append(_lengths(starts, n, xp))
    return rows[perm[starts]], extra


def unique_along(arr, ax, ri, rv, rc, backend):
    """NumPy's results of unique over the subarrays along ``ax`` of the backend array ``arr`` (of
    2 or more dimensions): (unique subarrays, the arrays asked for)."""
    xp = backend.xp
    moved = xp.moveaxis(arr, ax, 0)
    shape = moved.shape
    rows = xp.ascontiguousarray(moved.reshape(shape[0], int(np.prod(shape[1:]))))
    if shape[0] == 0:
        u = rows
        extra = [xp.empty(0, dtype=np.int64) for f in (ri, rv, rc) if f]
    else:
        u, extra = unique_rows(rows, ri, rv, rc, backend)
    u = xp.moveaxis(u.reshape((u.shape[0],) + shape[1:]), 0, ax)
    return xp.ascontiguousarray(u), extra

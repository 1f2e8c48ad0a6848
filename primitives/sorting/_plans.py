"""The sorts' plans: one sort of bit patterns as the device-wide sorts take it (:class:`Job`), the
variants' plans that a call files (onesweep's and the block sort's, :func:`sort_plan`), and the
sort of a call that no filed plan serves (:func:`sort`).

The key-bit transforms are the core's (:mod:`primitives._core.keys`); the variants' launches are
their own modules' (:mod:`._split`, :mod:`._classic`, :mod:`._onesweep`, :mod:`._block`).
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from .._core import launch as _launch, loader as _loader, plans as _plans
from .._core.dtypes import BFLOAT16
from .._core.keys import INDEX, U, image_width, index_dtype, key_back, key_bits, native_values
from .._core.keys import half_bits, widened
from . import _block, _choose, _classic, _kernels, _onesweep, _split


class Job:
    """One sort of n >= 1 bit-pattern keys over [begin, end) with optional values.

    ``values``: None (keys only), an unsigned array, or ``"iota"`` (each element's index, as the
    index dtype). ``wide``: return values widened to int64. ``want_keys``: False lets the last
    pass skip writing keys (argsort)."""

    def __init__(self, kbits, kind, begin, end, descending, values, wide, want_keys, backend):
        self.kbits, self.kind, self.begin, self.end = kbits, kind, begin, end
        self.desc = descending
        self.n = kbits.size
        self.values, self.wide, self.want_keys = values, wide, want_keys
        self.backend = backend
        self.xp = backend.xp
        self.kb = kbits.dtype.itemsize
        if values is None:
            self.vdt = None
        elif isinstance(values, str):
            self.vdt = index_dtype(self.n)
        else:
            self.vdt = values.dtype
        self.vb = self.vdt.itemsize if self.vdt is not None else 0
        self.iota = isinstance(values, str)

    def common(self):
        return (np.int32(self.kind), np.int32(self.desc))

    def materialized_values(self):
        if self.iota:
            return self.xp.arange(self.n, dtype=self.vdt)
        return self.values

    def buffers(self):
        """One (keys, values) ping-pong buffer pair of the multi-launch sorts."""
        return (
            self.xp.empty(self.n, dtype=self.kbits.dtype),
            self.xp.empty(self.n, dtype=self.vdt) if self.vb else None,
        )

    def finish(self, keys, vals):
        if vals is not None and self.wide and vals.dtype != INDEX:
            vals = vals.astype(INDEX)
        return (keys if self.want_keys else None), vals

    def run(self, tag, plan_type, pol):
        """Sort with the plan ``plan_type(kb, vb, n, pol)`` of the multi-pass sorts (classic,
        split), made once per key sizes, n, policy and stream under ``tag``."""
        key = (tag, self.kb, self.vb, self.n, pol, _plans.stream_key())
        return _plans.PLANS.get(key, lambda: plan_type(self.kb, self.vb, self.n, pol))(self)


#: each variant's sort of a :class:`Job`: (keys or None, values or None)
RUN = {"split": _split.run, "classic": _classic.run, "onesweep": _onesweep.run, "block": _block.run}
#: the variants whose plan a call files: called on the caller's arrays, it returns the public
#: function's result
FILED = {"onesweep": _onesweep.plan, "block": _block.plan}


#: the variant that sorts 2-byte keys as their own 16 bits (the others: as 4-byte images)
HALF = "onesweep"


def job(karr, varr, begin, end, descending, backend, argsort, variant=None):
    """The :class:`Job` of sorting the device array ``karr`` (n >= 1, begin < end) with
    ``variant``: 2-byte keys as their own bits for :data:`HALF` (:func:`half_bits`, at most
    their 16 bits), as 4-byte images for the others (:func:`key_bits`)."""
    if variant == HALF and karr.dtype.itemsize == 2:
        kbits, kind, width = half_bits(karr)
        end = min(end, width)
    else:
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


def filed(variant, karr, varr, begin, end):
    """Whether the plan of ``variant`` sorts the keys ``karr`` and values ``varr`` (None or an
    array) as they are (no widening of keys, values of 4 or 8 bytes) and by some bits: then it
    serves later calls on like arrays directly."""
    return (
        variant in FILED
        and begin < end
        and karr.size > 0
        and (karr.dtype.itemsize >= 4 or (variant == HALF and karr.dtype.itemsize == 2))
        and (varr is None or native_values(varr) is not None)
    )


def sort_plan(variant, karr, varr, begin, end, descending, backend, argsort=False):
    """The plan of ``variant`` (one of :data:`FILED`) that sorts arrays like ``karr`` and ``varr``
    as they are (see :func:`filed`), made once per configuration and stream."""
    return FILED[variant](job(karr, varr, begin, end, descending, backend, argsort, variant))


def sort(karr, varr, begin, end, descending, variant, backend, *, argsort=False):
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
        skeys, perm = RUN[variant](
            job(karr, varr, begin, end, descending, backend, argsort, variant)
        )
    if argsort:
        return None, None, perm.astype(INDEX, copy=False)
    keys_out = key_back(skeys, dt)
    if varr is None:
        return keys_out, None, None
    if native_values(varr) is not None:
        return keys_out, perm.view(varr.dtype), None
    return keys_out, varr[perm], None


# ---- lines along an axis ------------------------------------------------------------------------


class Lines:
    """The lines along ``axis`` of the N-D array ``arr`` as the rows of a C-contiguous 2-D
    array ``rows``: a view when the axis is the contiguous one (the last of a C-ordered array,
    the first of an F-ordered one, read through its reversed axes when ``flip``), else one
    copy that makes it so (none with ``copy=False``: ``rows`` is then None, and ``moved``, the
    view whose C order is the rows' order, is read in place, as :func:`pack_keys` reads it).
    :meth:`back` puts an array of rows back in ``arr``'s shape."""

    __slots__ = ("xp", "flip", "ax", "shape", "moved", "rows")

    def __init__(self, xp, arr, axis, flip=None, copy=True):
        self.xp = xp
        self.flip = self.flipped(arr) if flip is None else flip
        w = arr.T if self.flip else arr
        self.ax = arr.ndim - 1 - axis if self.flip else axis
        moved = self.moved = xp.moveaxis(w, self.ax, -1)
        self.shape = moved.shape
        self.rows = (
            xp.ascontiguousarray(moved).reshape(math.prod(moved.shape[:-1]), moved.shape[-1])
            if copy
            else None
        )

    @staticmethod
    def flipped(arr):
        """Whether ``arr`` is read through its reversed axes: F-ordered, not C-ordered."""
        return arr.ndim > 1 and arr.flags.f_contiguous and not arr.flags.c_contiguous

    def back(self, rows, keep_layout):
        """``rows`` (the shape of :attr:`rows`) in the array's shape: C-contiguous, or with
        ``keep_layout`` in the array's own layout (F-contiguous for an F-ordered array), as
        ``numpy.argsort`` and ``numpy.sort`` return theirs."""
        xp = self.xp
        res = xp.moveaxis(rows.reshape(self.shape), -1, self.ax)
        if keep_layout:
            res = xp.ascontiguousarray(res)
            return res.T if self.flip else res
        return xp.ascontiguousarray(res.T if self.flip else res)


# ---- complex keys ----------------------------------------------------------------------------

#: threads of a block, and keys a thread covers before the grid is capped, of the image kernels
#: (complex_image.cu, pack.cu)
IMAGE_BLOCK, IMAGE_ITEMS = 256, 4


def _image_launch(name, n, source=_kernels.IMAGE):
    """The launch of image kernel ``name`` of ``source`` over n keys (grid-stride, capped at the
    resident grid), made once per size and stream."""
    kernel = functools.partial(_kernels.kernel, source, name)
    return _plans.streaming_launch((source, name), kernel, n, IMAGE_BLOCK, IMAGE_ITEMS)


def complex_image(karr, backend, descending=False):
    """The order-preserving unsigned images of the complex keys ``karr`` (C-contiguous, n >= 1)
    in one pass (``kernels/sorting/complex_image.cu``): uint64 words of ``karr``'s shape, least
    significant first, as :func:`~primitives._core.keys.pack_words` cuts
    :func:`~primitives._core.keys.image_fields`' fields: one word for complex64 (its high field
    in the top half), two for complex128 (the low field, then the high). ``descending``: the
    images of NumPy's descending order (values with no NaN part largest first, the NaN classes
    last), to be sorted ascending."""
    xp, n = backend.xp, karr.size
    bits = karr.reshape(-1).view(U[8])  # the parts' bits, the real part first
    high = xp.empty(karr.shape, dtype=U[8])
    if karr.dtype.itemsize == 8:
        _image_launch("complex64_image", n)(bits, _launch.i64(n), np.int32(descending), high)
        return [high]
    low = xp.empty(karr.shape, dtype=U[8])
    _image_launch("complex128_image", n)(bits, _launch.i64(n), np.int32(descending), high, low)
    return [low, high]


def sort_complex(karr, descending, backend, variant, func):
    """The sort of the 1-D complex keys ``karr`` (C-contiguous, n >= 1): the sorted keys, or
    with ``func == "argsort"`` the int64 permutation. complex64: one radix sort of the 64-bit
    images, the keys' own bits moving with them as 8-byte values (argsort: the index,
    generated in the sort); complex128: the permutation of an LSD sort of the two words
    (:func:`order_words`), then one gather. ``descending``: NumPy's (NaNs last)."""
    words = complex_image(karr, backend, descending)
    argsort = func == "argsort"
    if len(words) > 1:
        perm = order_words([(w, 64) for w in words], False, backend, variant, func)
        return perm if argsort else karr[perm]
    image = words[0]
    name = _choose.variant(variant, image.size, 8, func)
    values = "iota" if argsort else native_values(karr)
    out = RUN[name](Job(image, 0, 0, 64, False, values, argsort, False, backend))[1]
    return out if argsort else out.view(karr.dtype)


def sort_complex_rows(rows, descending, backend, argsort):
    """Each row of the complex keys ``rows`` (R, m; C-contiguous, not empty) sorted stably: the
    rows sorted, or with ``argsort`` the int64 permutations. complex64: one sort of the rows of
    64-bit images, the keys' bits moving with them (argsort: the columns, generated in the
    kernel); complex128: the permutations of an LSD sort of the two words
    (:func:`order_rows`), then one gather. ``descending``: NumPy's (NaNs last)."""
    from . import _rows  # which reaches this module's Job through the segmented sort

    words = complex_image(rows, backend, descending)
    if len(words) > 1:
        perm = order_rows([(w, 64) for w in words], False, backend)
        return perm if argsort else backend.xp.take_along_axis(rows, perm, axis=1)
    if argsort:
        return _rows.sort_rows(backend, words[0], None, False, indices=True)
    return _rows.sort_rows(backend, words[0], native_values(rows), False)[1].view(rows.dtype)


# ---- lexsort's keys packed into words --------------------------------------------------------


def _dims(view):
    """The rows of ``view`` (the dimensions but the last) as few ``(extent, element stride)``
    pairs as read them in its C order: extents of 1 dropped, neighbours that step as one merged
    (the whole lines before or after a C-ordered array's axis are one each)."""
    size = view.dtype.itemsize
    dims = []
    for e, st in zip(view.shape[:-1], view.strides[:-1]):
        if e == 1:
            continue
        if dims and dims[-1][1] == st // size * e:
            dims[-1] = (dims[-1][0] * e, st // size)
        else:
            dims.append((e, st // size))
    return dims


def _pieces(arr, view):
    """How :func:`pack_keys` reads the key ``arr`` (C- or F-contiguous) through ``view`` (a view of
    it with the words' shape): a list of ``(key, rows, layout)``, each the launches of ``rows`` of
    the words (the rows ``view.shape[:-1]`` in C order, ``None``: all) reading the 1-D
    contiguous ``key`` (the memory of ``arr`` from a piece's first element, its parts' bits for
    complex) with the layout arguments of pack_key (kernels/sorting/pack.cu): ``(0, 1, 0, 0, 0)``
    where the view is contiguous, else ``(cols, inner, s_outer, s_inner, s_col)``. Rows of more
    than two dimensions once merged (an F-ordered key of 4 or more dimensions beside C-ordered
    ones) are read one block of the last two at a time."""
    part = np.dtype(f"u{arr.itemsize // 2}" if arr.dtype.kind == "c" else f"u{arr.itemsize}")
    if view.flags.c_contiguous:
        return [(view.reshape(-1).view(part), None, (0, 1, 0, 0, 0))]
    if not (arr.flags.c_contiguous or arr.flags.f_contiguous):
        raise ValueError("pack_keys: a key read through a strided view must be C- or F-contiguous")
    mem = arr.reshape(-1) if arr.flags.c_contiguous else arr.T.reshape(-1)
    dims = _dims(view)
    lead, (outer, inner) = dims[:-2], ([(1, 0), (1, 0)] + dims)[-2:]
    cols, s_col = view.shape[-1], view.strides[-1] // view.dtype.itemsize
    layout = (cols, inner[0], outer[1], inner[1], s_col)
    block = outer[0] * inner[0]
    pieces = []
    for b, index in enumerate(itertools.product(*(range(e) for e, _ in lead))):
        base = sum(i * st for i, (_, st) in zip(index, lead))
        pieces.append((mem[base:].view(part), (b * block, (b + 1) * block), layout))
    return pieces


def word_widths(dtypes):
    """``(bytes, bits)`` of each word of a lexsort of keys of ``dtypes`` (the primary key first),
    least significant first, as :func:`pack_keys` cuts them: 64 bits a word, the last one of 4
    bytes when its bits fit 32."""
    total = sum(image_width(np.dtype(dt)) for dt in dtypes)
    used = [min(64, total - 64 * j) for j in range(-(-total // 64))]
    return [(4 if u <= 32 else 8, u) for u in used]


def pack_keys(keys, backend):
    """The words of a lexsort of ``keys`` (``(arr, view)`` pairs, the primary key first: ``arr``
    a C- or F-contiguous backend array of a sort dtype, ``view`` a view of it, all views of one
    shape, not empty), as :func:`~primitives._core.keys.pack_words` cuts
    :func:`~primitives._core.keys.image_fields`' fields of the views, bit for bit: ``(word,
    bits)`` least significant first, each word a C-contiguous array of the views' shape, uint32
    where its ``bits`` fit 32. Made by pack_key (``kernels/sorting/pack.cu``) from the keys'
    own bits, one launch per key and word its image overlaps, reading each key in place in its
    layout (a strided view too: lexsort along an axis)."""
    xp = backend.xp
    shape = keys[0][1].shape
    placed, offset = [], 0  # (pieces, dtype, lowest bit, bits), the least significant key first
    for arr, view in reversed(keys):
        if arr.dtype == BFLOAT16:  # as the float32 keys they are (lexsort widens them first)
            arr = view = xp.ascontiguousarray(widened(view))
        bits = image_width(arr.dtype)
        placed.append((_pieces(arr, view), arr.dtype, offset, bits))
        offset += bits
    # each word's keys: those whose image bits overlap its 64
    widths = word_widths([arr.dtype for arr, _ in keys])  # bfloat16: image_width's 32 bits
    parts = [
        [
            (pieces, low, _kernels.pack_name(dt, wb))
            for pieces, dt, low, bits in placed
            if low < 64 * (j + 1) and low + bits > 64 * j
        ]
        for j, (wb, _) in enumerate(widths)
    ]
    _loader.prefetch(_kernels.PACK, sorted({name for p in parts for _, _, name in p}))  # at once
    words = []
    for j, ((wb, used), word_parts) in enumerate(zip(widths, parts)):
        word = xp.empty(shape, dtype=U[wb])
        flat, cols = word.reshape(-1), shape[-1]
        for k, (pieces, low, name) in enumerate(word_parts):
            for key, rows, layout in pieces:
                out = flat if rows is None else flat[rows[0] * cols : rows[1] * cols]
                _image_launch(name, out.size, _kernels.PACK)(
                    key,
                    _launch.i64(out.size),
                    *(_launch.i64(v) for v in layout),
                    np.int32(low - 64 * j),
                    np.int32(k > 0),  # the word's later keys add to what came before
                    out,
                )
        words.append((word, used))
    return words


# ---- sorts by images of several words (lexsort, complex128 keys) ----------------------------


def order_words(words, descending, backend, variant="auto", func="sort"):
    """The int64 permutation that sorts stably by ``words`` (1-D ``(unsigned array, bits)``
    pairs of n >= 1 elements, least significant first, as
    :func:`~primitives._core.keys.pack_words` cuts them): an LSD radix sort over the words, one
    device-wide sort of (word, index) pairs each, the indices of the previous word's sort
    gathering the next word (uint32 indices below 2^32 keys, int64 written by the last sort).
    ``variant`` sorts each word (``"auto"``: as :func:`._choose.variant` picks for its size)."""
    perm = "iota"
    for i, (w, bits) in enumerate(words):
        keys = w if i == 0 else w[perm]
        name = _choose.variant(variant, keys.size, keys.dtype.itemsize, func)
        last = i == len(words) - 1
        perm = RUN[name](Job(keys, 0, 0, bits, descending, perm, last, False, backend))[1]
    return perm


def prefetch_order(widths, n, variant="auto", func="sort"):
    """Ask for the kernels of :func:`order_words` over words of ``widths`` (``(bytes, bits)``,
    least significant first) of n keys, compiled in the background before the words exist (a
    first call packs its keys meanwhile): each word's variant and value width as order_words
    makes them (the index as values first, which the block sort writes as int64 and onesweep in
    the index dtype; then the previous sort's permutation, in its dtype)."""
    vb = index_dtype(n).itemsize
    for i, (wb, _) in enumerate(widths):
        name = _choose.variant(variant, n, wb, func)
        if name == "block":
            _block.prefetch(wb, 8 if i == 0 else vb, n)
            vb = 8 if i == 0 else vb
        elif name == "onesweep":
            _onesweep.prefetch(wb, vb, n=n)


def order_rows(words, descending, backend):
    """The int64 permutations (R, m) that sort each row stably by ``words`` ((R, m) unsigned
    arrays, least significant first, as :func:`order_words`): an LSD sort over the words, each a
    sort of the rows with the previous permutation as values (:func:`._rows.sort_rows`)."""
    from . import _rows  # which reaches this module's Job through the segmented sort

    xp = backend.xp
    rows, m = words[0][0].shape
    perm = xp.broadcast_to(xp.arange(m, dtype=INDEX), (rows, m))
    for i, (w, _) in enumerate(words):
        keys = w if i == 0 else xp.take_along_axis(w, perm, axis=1)
        perm = _rows.sort_rows(backend, keys, perm, descending)[1]
    return perm

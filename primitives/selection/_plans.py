"""Selection plans: the kernels of ``kernels/selection/*.cu`` and their launches, made once per
configuration (key width, rows, row length, k, order, policy, stream).

A :class:`RadixSelectPlan` holds the per-row state and histograms of the device-wide radix
select (the state is reset from a device copy of its first value per call; the histograms are
left zero by the kernels) and the digit schedule: the image's digits from the top, the first
``first_bits`` wide, then the index's digits (ties are taken from the lowest indices). Its
candidate buffers are taken from the pool per call. A :class:`RowsPlan` is the one launch of the
block-per-row kernel.
"""

from __future__ import annotations

import math

import numpy as np

from .._core import dtypes as _dtypes, launch as _launch, loader as _loader, plans as _plans
from . import _kernels, _policy

#: the key bits kernels take, by width in bytes
UBITS = {4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}
#: fields of a row's state (prim::select::FIELDS) and the ones the host sets
FIELDS = 14
K_REM, COUNT, DONE = 4, 5, 6
MAX_BINS = 1 << _policy.MAX_BITS
CHOOSE_BLOCK = 1024
#: select_filter_done's block (a thread a row)
DONE_BLOCK = 256


def _c(ub):
    return _dtypes.CTYPES[UBITS[ub]]


def radix_names(pol):
    out = [f"select_choose<{CHOOSE_BLOCK}>"]
    for ub in UBITS:
        out += [
            f"select_pass<{_c(ub)}, {pol.block}, {pol.items}, false>",
            f"select_pass<{_c(ub)}, {pol.block}, {pol.items}, true>",
            f"select_rank_sort<{_c(ub)}, {pol.block}>",
        ]
    return out


def filter_names(pol):
    out = [f"select_filter_done<{DONE_BLOCK}>"]
    for ub in UBITS:
        out += [
            f"select_sample<{_c(ub)}, {CHOOSE_BLOCK}>",
            f"select_filter<{_c(ub)}, {pol.block}, {pol.items}>",
        ]
    return out


def rows_names(pol):
    return [f"select_rows<{_c(ub)}, {pol.block}>" for ub in UBITS]


#: a chunk of select_warp_rows: eight 16-byte loads per lane
WARP_CHUNK_BYTES = 32 * 8 * 16
#: the keys a lane of select_warp_rows keeps (its template parameter M), by need
WARP_MS = (1, 2, 4)


def warp_m(k, m_max=WARP_MS[-1]):
    """The M of select_warp_rows for k: the least with 32 * M >= 2k (the lanes' kept keys then
    nearly always hold the k winners), else the largest within m_max that takes k (32 * M >= k),
    or None."""
    ms = [m for m in WARP_MS if m <= m_max]
    return next((m for m in ms if 32 * m >= 2 * k), None) or next(
        (m for m in ms if 32 * m >= k), None
    )


def warp_rows_names(pol):
    return [
        f"select_warp_rows<{_c(ub)}, {pol.warps}, {m}>"
        for ub in UBITS
        for m in WARP_MS
        if m <= pol.m_max
    ]


def small_names(pol):
    return [
        f"select_small_k<{_c(ub)}, {pol.block}, {pol.items}, {p}>"
        for ub in UBITS
        for p in ("false", "true")
    ]


for _pol in _policy.TABLE.policies("small_k"):
    _loader.register(_kernels.SMALL_K, small_names(_pol))
for _pol in _policy.TABLE.policies("radix_select"):  # every policy, for the NVRTC check
    _loader.register(_kernels.RADIX_SELECT, radix_names(_pol))
for _pol in _policy.TABLE.policies("filter"):
    _loader.register(_kernels.FILTER, filter_names(_pol))
for _pol in _policy.TABLE.policies("rows"):
    _loader.register(_kernels.ROWS, rows_names(_pol))
for _pol in _policy.TABLE.policies("warp_rows"):
    _loader.register(_kernels.WARP_ROWS, warp_rows_names(_pol))


def digits(top, width_first, width):
    """(shift, width) of the digits of a ``top``-bit number from its top bit down: the first
    ``width_first`` wide, the others ``width``."""
    out, hi = [], top
    w = width_first
    while hi > 0:
        w = min(w, hi)
        out.append((hi - w, w))
        hi -= w
        w = width
    return out


def sample_rank(k, length, sample, sigmas):
    """The threshold's rank (1-based) in a strided sample of ``sample`` of a row's ``length``
    keys for its ``k`` smallest: the winners' expected share of the sample, ``sigmas`` standard
    deviations (Poisson) above it, plus one half; within [1, sample]."""
    lam = k * sample / length
    return max(1, min(sample, math.ceil(lam + sigmas * math.sqrt(lam) + 0.5)))


class RadixSelectPlan(_plans.Plan):
    """The k smallest (image, index) pairs of each of ``rows`` rows of ``length`` keys of
    ``ub`` bytes (``kind``: prim::radix::KeyKind; ``bits``: the image's meaningful low bits;
    ``desc``: largest first). ``sort``: order the winners (k up to the policy's sort_small)."""

    def __init__(self, backend, ub, rows, length, k, kind, bits, desc, sort, pol, filt=None):
        xp = backend.xp
        self.backend, self.xp, self.rows, self.length, self.k, self.ub = (
            backend,
            xp,
            rows,
            length,
            k,
            ub,
        )
        self.udt = UBITS[ub]
        c = _c(ub)
        sorts = sort and k <= pol.sort_small
        _loader.prefetch(  # the plan's kernels compiled at once
            _kernels.RADIX_SELECT,
            [f"select_pass<{c}, {pol.block}, {pol.items}, {t}>" for t in ("false", "true")]
            + [f"select_choose<{CHOOSE_BLOCK}>"]
            + ([f"select_rank_sort<{c}, {pol.block}>"] if sorts else []),
        )
        if filt is not None:
            _loader.prefetch(
                _kernels.FILTER,
                [
                    f"select_filter<{c}, {filt.block}, {filt.items}>",
                    f"select_sample<{c}, {CHOOSE_BLOCK}>",
                    f"select_filter_done<{DONE_BLOCK}>",
                ],
            )
        get = _loader.load(_kernels.RADIX_SELECT, radix_names(pol))
        kpass = get(f"select_pass<{c}, {pol.block}, {pol.items}, false>")
        kcollect = get(f"select_pass<{c}, {pol.block}, {pol.items}, true>")
        tile = pol.block * pol.items
        per_row = _launch.cdiv(_launch.resident_grid(kpass, pol.block), rows)
        self.bpr = max(1, min(_launch.cdiv(length, tile), per_row))
        grid = self.bpr * rows
        self.pass_ = _plans.Launch(kpass, grid, pol.block)
        self.collect = _plans.Launch(kcollect, grid, pol.block)
        self.choose = _plans.Launch(get(f"select_choose<{CHOOSE_BLOCK}>"), rows, CHOOSE_BLOCK)
        self.sorts = sorts
        self.rank = (
            _plans.Launch(
                get(f"select_rank_sort<{c}, {pol.block}>"),
                _launch.cdiv(k, pol.block) * rows,
                pol.block,
            )
            if self.sorts
            else None
        )
        self.rank_bpr = _launch.cdiv(k, pol.block)
        self.cap = max(1, _launch.cdiv(length, pol.buffer_div))
        index_bits = max(1, (length - 1).bit_length())
        self.schedule = [(s, w, 0) for s, w in digits(bits, pol.first_bits, pol.bits)] + [
            (s, w, 1) for s, w in digits(index_bits, pol.bits, pol.bits)
        ]
        init = np.zeros((rows, FIELDS), dtype=np.int64)
        init[:, K_REM], init[:, COUNT], init[:, DONE] = k, length, int(k == length)
        self.init = xp.asarray(init)
        self.state = xp.empty_like(self.init)
        self.hist = xp.zeros(rows * MAX_BINS, dtype=np.uint64)
        i64, i32 = _launch.i64, np.int32
        self.fixed = (i64(length), i64(self.bpr))
        self.kind, self.desc = i32(kind), i32(desc)
        self.cap64, self.k64 = i64(self.cap), i64(k)
        self.nbytes = _plans.scratch_bytes(self.init, self.state, self.hist)
        self.filt = None
        if filt is not None:  # the sample filter first (filt: the "filter" policy)
            fget = _loader.load(_kernels.FILTER, filter_names(filt))
            kfilter = fget(f"select_filter<{c}, {filt.block}, {filt.items}>")
            fbpr = max(
                1,
                min(
                    _launch.cdiv(length, filt.block * filt.items),
                    _launch.cdiv(_launch.resident_grid(kfilter, filt.block), rows),
                ),
            )
            rank = sample_rank(k, length, filt.sample, filt.sigmas)
            self.filt = (
                _plans.Launch(
                    fget(f"select_sample<{c}, {CHOOSE_BLOCK}>"),
                    rows,
                    CHOOSE_BLOCK,
                    filt.sample * ub,
                ),
                (i64(length), i32(filt.sample), i64(rank)),
                _plans.Launch(kfilter, fbpr * rows, filt.block),
                (i64(length), i64(fbpr)),
                _plans.Launch(
                    fget(f"select_filter_done<{DONE_BLOCK}>"),
                    _launch.cdiv(rows, DONE_BLOCK),
                    DONE_BLOCK,
                ),
            )

    def __call__(self, kbits):
        """(images, indices) of each row's k winners, ``(rows, k)`` arrays: ordered by (image,
        index) when the plan sorts, else in no particular order."""
        xp, rows, k, cap = self.xp, self.rows, self.k, self.cap
        self.backend.copy_into(self.state, self.init)  # a memory copy: no CuPy kernel
        bufs = (
            xp.empty(rows * cap, dtype=self.udt),
            xp.empty(rows * cap, dtype=np.int64),
            xp.empty(rows * cap, dtype=self.udt),
            xp.empty(rows * cap, dtype=np.int64),
        )
        out_img = xp.empty((rows, k), dtype=self.udt)
        out_idx = xp.empty((rows, k), dtype=np.int64)
        head = (
            kbits,
            *self.fixed,
            *bufs,
            self.cap64,
            out_img,
            out_idx,
            self.k64,
            self.state,
            self.hist,
            self.kind,
            self.desc,
        )
        if self.filt is not None:
            sample, sargs, filt, fargs, done = self.filt
            sample(kbits, *sargs, self.state, self.kind, self.desc)
            filt(kbits, *fargs, *bufs, self.cap64, self.state, self.kind, self.desc)
            done(self.state, _launch.i64(rows), self.k64, self.cap64)
        for shift, width, on_index in self.schedule:
            tail = (np.int32(shift), np.int32(width), np.int32(on_index))
            self.pass_(*head, *tail)
            self.choose(self.hist, self.state, self.cap64, *tail)
        self.collect(*head, np.int32(0), np.int32(1), np.int32(0))
        if not self.sorts:
            return out_img, out_idx
        img, idx = xp.empty_like(out_img), xp.empty_like(out_idx)
        self.rank(out_img, out_idx, self.k64, _launch.i64(self.rank_bpr), img, idx)
        return img, idx


class SmallKPlan(_plans.Plan):
    """Block-local candidate sets: the k smallest (image, index) pairs of each of ``rows`` rows
    of ``length`` keys of ``ub`` bytes (k up to the policy's k_max), the blocks' winners merged
    by the same kernel on the pairs (blocks of merge_tiles tiles of them, level by level, until
    one block per row), then ordered when ``sort``."""

    def __init__(self, backend, ub, rows, length, k, kind, desc, sort, pol):
        if k > _policy.SMALL_K_LIMIT:
            raise ValueError(
                f"topk: the small_k kernel holds at most {_policy.SMALL_K_LIMIT} "
                f"winners per block, got k={k} (its policy's k_max must stay within "
                f"it)"
            )
        xp = backend.xp
        self.xp, self.rows, self.k, self.udt = xp, rows, k, UBITS[ub]
        c = _c(ub)
        get = _loader.load(_kernels.SMALL_K, small_names(pol))
        kkeys = get(f"select_small_k<{c}, {pol.block}, {pol.items}, false>")
        kpairs = get(f"select_small_k<{c}, {pol.block}, {pol.items}, true>")
        tile = pol.block * pol.items
        cap = tile + k
        smem = _launch.cdiv(cap * ub, 8) * 8 + cap * 8
        per_row = _launch.cdiv(_launch.resident_grid(kkeys, pol.block, smem), rows)
        self.bpr = max(1, min(_launch.cdiv(length, tile), per_row))
        i64, i32 = _launch.i64, np.int32
        self.first = _plans.Launch(kkeys, self.bpr * rows, pol.block, smem)
        self.first_args = (
            i64(length),
            i64(self.bpr),
            i64(k),
            i32(kind),
            i32(desc),
            i32(max(1, (length - 1).bit_length())),
            i64(cap),
        )
        # the merges: blocks of merge_tiles tiles of the candidates each, until one per row
        self.merges = []
        blocks = self.bpr
        while blocks > 1:
            length2 = blocks * k
            blocks = max(1, min(_launch.cdiv(length2, tile * pol.merge_tiles), blocks - 1))
            self.merges.append(
                (
                    _plans.Launch(kpairs, blocks * rows, pol.block, smem),
                    (i64(length2), i64(blocks), i64(k), i32(kind), i32(desc), i32(63), i64(cap)),
                    rows * blocks * k,
                )
            )
        self.rank = None
        if sort:
            rpol = _policy.radix_select()
            self.rank = _plans.Launch(
                _loader.load(_kernels.RADIX_SELECT, radix_names(rpol))(
                    f"select_rank_sort<{c}, {rpol.block}>"
                ),
                _launch.cdiv(k, rpol.block) * rows,
                rpol.block,
            )
            self.rank_bpr = _launch.i64(_launch.cdiv(k, rpol.block))
        self.stand_in = _launch.stand_in(backend, np.int64)
        self.k64 = i64(k)

    def __call__(self, kbits):
        xp, rows, k = self.xp, self.rows, self.k
        img = xp.empty(rows * self.bpr * k, dtype=self.udt)
        idx = xp.empty(rows * self.bpr * k, dtype=np.int64)
        # the keys' pass reads no pairs and the merge no keys: the other arrays stand in
        self.first(kbits, kbits, self.stand_in, *self.first_args, img, idx)
        for launch, args, size in self.merges:
            img2, idx2 = xp.empty(size, dtype=self.udt), xp.empty(size, dtype=np.int64)
            launch(kbits, img, idx, *args, img2, idx2)
            img, idx = img2, idx2
        img, idx = img.reshape(rows, k), idx.reshape(rows, k)
        if self.rank is None:
            return img, idx
        simg, sidx = xp.empty_like(img), xp.empty_like(idx)
        self.rank(img, idx, self.k64, self.rank_bpr, simg, sidx)
        return simg, sidx


class RowsPlan(_plans.Plan):
    """A block per row: the k smallest (image, index) pairs of each row of ``length`` keys of
    ``ub`` bytes, in index order, or ordered by (image, index) when ``sort``. With ``warp`` (the
    ``"warp_rows"`` policy; k within its 32 * m_max) a warp per row first, in order, and the
    block per row only for the rows it leaves (a row list on the device: no synchronization)."""

    def __init__(self, backend, ub, rows, length, k, kind, desc, sort, pol, warp=None):
        xp = backend.xp
        self.backend, self.xp, self.rows, self.k, self.udt = backend, xp, rows, k, UBITS[ub]
        name = f"select_rows<{_c(ub)}, {pol.block}>"
        if warp is not None:  # the warp's kernel compiled beside the block's
            wname = f"select_warp_rows<{_c(ub)}, {warp.warps}, {warp_m(k, warp.m_max)}>"
            _loader.prefetch(_kernels.ROWS, [name])
            _loader.prefetch(_kernels.WARP_ROWS, [wname])
        kernel = _loader.load(_kernels.ROWS, rows_names(pol))(name)
        # the row, then (sorted) the winners' images and positions, each in whole 16-byte words
        smem = 16 * (
            _launch.cdiv(length * ub, 16)
            + (_launch.cdiv(k * ub, 16) + _launch.cdiv(k * 4, 16) if sort else 0)
        )
        head = (_launch.i64(length), _launch.i64(k), np.int32(kind), np.int32(desc), np.int32(sort))
        self.warp = None
        if warp is None:
            self.launch = _plans.Launch(kernel, rows, pol.block, smem)
            self.args = (
                *head,
                np.int32(0),
                _launch.stand_in(backend, np.int64),
                _launch.stand_in(backend, np.uint64),
            )
            return
        if warp.cand_max < 32 or warp.cand_max & (warp.cand_max - 1):
            raise ValueError(
                f"topk: the warp_rows policy's cand_max must be a power of two of "
                f"at least 32 (its bitonic sort), got {warp.cand_max}"
            )
        wk = _loader.load(_kernels.WARP_ROWS, warp_rows_names(warp))(wname)
        self.warp = _plans.Launch(
            wk,
            _launch.cdiv(rows, warp.warps),
            warp.warps * 32,
            warp.warps * warp.cand_max * (ub + 4),
        )
        chunks = _launch.cdiv(length, WARP_CHUNK_BYTES // ub)
        one_pass = chunks > 1 and k * chunks <= warp.one_pass_max
        self.warp_args = (
            _launch.i64(length),
            _launch.i64(rows),
            _launch.i64(k),
            np.int32(kind),
            np.int32(desc),
            np.int32(warp.cand_max),
            np.int32(one_pass),
        )
        # the rows left, by a grid of resident blocks over the device's row list
        self.launch = _plans.Launch(
            kernel,
            max(1, min(rows, _launch.resident_grid(kernel, pol.block, smem))),
            pol.block,
            smem,
        )
        self.args = (*head, np.int32(1))
        self.row_list = xp.empty(rows, dtype=np.int64)
        self.count = xp.zeros(1, dtype=np.uint64)
        self.zero = xp.zeros(1, dtype=np.uint64)

    def __call__(self, kbits):
        """(images, indices) of each row's winners, ``(rows, k)``; with the warp kernel the
        winners' key bits (``kbits``' own) in place of their images."""
        out_img = self.xp.empty((self.rows, self.k), dtype=self.udt)
        out_idx = self.xp.empty((self.rows, self.k), dtype=np.int64)
        if self.warp is None:
            self.launch(kbits, *self.args, out_img, out_idx)
            return out_img, out_idx
        self.backend.copy_into(self.count, self.zero)
        self.warp(kbits, *self.warp_args, out_img, out_idx, self.row_list, self.count)
        self.launch(kbits, *self.args, self.row_list, self.count, out_img, out_idx)
        return out_img, out_idx


def radix_plan(backend, ub, rows, length, k, kind, bits, desc, sort, filtered=False):
    pol = _policy.radix_select()
    filt = _policy.filter_() if filtered else None
    key = (
        "selection",
        "radix",
        ub,
        rows,
        length,
        k,
        kind,
        bits,
        desc,
        sort,
        pol,
        filt,
        _plans.stream_key(),
    )
    return _plans.PLANS.get(
        key,
        lambda: RadixSelectPlan(backend, ub, rows, length, k, kind, bits, desc, sort, pol, filt),
    )


def small_k_plan(backend, ub, rows, length, k, kind, desc, sort):
    pol = _policy.small_k()
    key = ("selection", "small_k", ub, rows, length, k, kind, desc, sort, pol, _plans.stream_key())
    return _plans.PLANS.get(
        key, lambda: SmallKPlan(backend, ub, rows, length, k, kind, desc, sort, pol)
    )


def rows_plan(backend, ub, rows, length, k, kind, desc, sort, warp=False):
    """(plan, whether it orders the winners itself); ``warp``: the warp-per-row kernel first,
    which orders every row it finishes, and the block per row for the rest, ordered alike when
    ``sort`` (else the block per row orders them for k up to its policy's sort_max)."""
    pol = _policy.rows()
    wpol = _policy.warp_rows() if warp else None
    sort = sort and (warp or k <= pol.sort_max)
    key = (
        "selection",
        "rows",
        ub,
        rows,
        length,
        k,
        kind,
        desc,
        sort,
        pol,
        wpol,
        _plans.stream_key(),
    )
    plan = _plans.PLANS.get(
        key, lambda: RowsPlan(backend, ub, rows, length, k, kind, desc, sort, pol, wpol)
    )
    return plan, sort


# ---- around the selection: values gathered, argpartition's index rows (selection/gather.cu) ------

GATHER = "selection/gather.cu"
#: the element type of gather_rows by size (every dtype of a size moves as its unsigned twin)
_MOVED = {
    1: np.dtype(np.uint8),
    2: np.dtype(np.uint16),
    4: np.dtype(np.uint32),
    8: np.dtype(np.uint64),
}


def _gather_rows_name(itemsize):
    """gather_rows of elements of ``itemsize`` bytes (moved as their unsigned twin)."""
    return f"gather_rows<{_dtypes.cname(_MOVED[itemsize])}>"


GATHER_NAMES = [_gather_rows_name(size) for size in _MOVED] + [
    "flag_rest",
    "unflag_selected",
    "assemble_partition",
    "pack_winners",
    "unpack_index",
]
_loader.register(GATHER, GATHER_NAMES)
_GATHER_BLOCK = 256


def prefetch_gather(dtype=None, partition=False):
    """Start compiling, where kernels compile on first use, the kernels a selection's result
    is made with after it: ``gather_rows`` of ``dtype``'s values (None: none), and with
    ``partition`` :func:`partition_indices`' kernels and compaction's. Asked for before the
    selection, so that they compile beside its kernels, not after them."""
    from ..compaction import prefetch_plan

    names = [] if dtype is None else [_gather_rows_name(dtype.itemsize)]
    if partition:
        names += ["flag_rest", "unflag_selected", "assemble_partition"]
        prefetch_plan(None)
    _loader.prefetch(GATHER, names)


def _gather_kernel(name):
    return _loader.load(GATHER, GATHER_NAMES)(name)


def _grid_stride(name, n, args):
    """Launch gather.cu's grid-stride kernel ``name`` over n items (its launch made once per
    size and stream)."""
    kernel = lambda: _gather_kernel(name)  # noqa: E731
    _plans.streaming_launch((GATHER, name), kernel, n, _GATHER_BLOCK)(*args)


def sorted_values(backend, rows2, idx):
    """:func:`gather_rows` of the rows ``rows2`` sorted (each row ascending, by the row sort),
    the gather's kernel asked for first so that it compiles beside the sort's."""
    from ..sorting import sort_rows

    prefetch_gather(rows2.dtype)
    ordered = sort_rows(backend, rows2)
    return ordered, gather_rows(backend, ordered, idx)


def gather_rows(backend, rows2, idx):
    """``take_along_axis(rows2, idx, axis=1)`` for C-contiguous rows ``rows2`` (R, L) and int64
    indices ``idx`` (R, m) into them: one launch, the values' bit patterns kept."""
    rows, length = rows2.shape
    m = idx.shape[1]
    xp = backend.xp
    out = xp.empty((rows, m), dtype=rows2.dtype)
    if out.size:
        u = _MOVED[rows2.dtype.itemsize]
        _grid_stride(
            _gather_rows_name(u.itemsize),
            rows * m,
            (
                rows2.view(u),
                xp.ascontiguousarray(idx),
                out.view(u),
                _launch.i64(rows),
                _launch.i64(m),
                _launch.i64(length),
            ),
        )
    return out


def order_winners(backend, img, idx, ub, length):
    """The indices ``idx`` (R, k) of each row's winners ordered by (image, index), their images
    ``img`` alongside. 32-bit images with indices below 2^32 go as one 64-bit key each (image
    above index): one sort of the row, or one segmented sort of the rows; otherwise two stable
    sorts, by index and then by image."""
    from ..sorting import radix_sort, sort_rows

    xp = backend.xp
    rows, k = idx.shape
    ib = max(1, (length - 1).bit_length())
    if ub == 4 and ib <= 32:
        n = rows * k
        packed = xp.empty(n, dtype=np.uint64)
        _grid_stride(
            "pack_winners",
            n,
            (
                xp.ascontiguousarray(img),
                xp.ascontiguousarray(idx),
                _launch.i64(n),
                np.int32(ib),
                packed,
            ),
        )
        if rows == 1:
            packed = radix_sort(packed, end_bit=32 + ib)
        else:
            packed = sort_rows(backend, packed.reshape(rows, k))
        out = xp.empty((rows, k), dtype=np.int64)
        _grid_stride("unpack_index", n, (packed, _launch.i64(n), np.uint64((1 << ib) - 1), out))
        return out
    idx, img = sort_rows(backend, idx, img)
    return sort_rows(backend, img, idx)[1]


def partition_indices(backend, sel, length, small):
    """argpartition's rows (R, L) of int64 indices from ``sel`` (R, m), each row's selected
    indices: with ``small`` the m selected first, in ``sel``'s order, then the others in index
    order; else the others first, then the selected reversed (``sel`` the m largest, largest
    first). The others come from one compaction of the not-selected flags, whose count is known
    (R * (L - m)): no host synchronization."""
    from ..compaction import compact_plan

    xp = backend.xp
    rows, m = sel.shape
    sel = xp.ascontiguousarray(sel)
    res = xp.empty((rows, length), dtype=np.int64)
    n = rows * length
    if m < length:
        keep = xp.empty(n, dtype=np.bool_)
        _grid_stride("flag_rest", n, (keep.view(np.uint8), _launch.i64(n)))
        _grid_stride(
            "unflag_selected",
            rows * m,
            (sel, _launch.i64(rows), _launch.i64(m), _launch.i64(length), keep.view(np.uint8)),
        )
        rest = compact_plan(backend, None, n).indices_into(keep)
    else:
        rest = _launch.stand_in(backend, np.int64)
    _grid_stride(
        "assemble_partition",
        n,
        (
            sel,
            rest,
            _launch.i64(rows),
            _launch.i64(m),
            _launch.i64(length),
            np.int32(bool(small)),
            res,
        ),
    )
    return res

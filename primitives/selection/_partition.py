"""Partitions by the values of selected ranks (``partition``/``argpartition`` for a few kth
of rows the order statistics select): :class:`RankPartitionRun` splits each row by the values
:class:`~._quantile.Order` selects, in three reads and no sort; :class:`ComplexPartitionRun`
partitions complex keys by their order-preserving images; :class:`ComplexMedianRun` takes the
median of complex rows from their sort."""

from __future__ import annotations

import numpy as np

from .._core import keys as _keys, launch as _launch, loader as _loader, plans as _plans
from .._core.plans import Plan
from ..sorting import argsort, complex_image, sort
from . import _kernels, _plans as _splans, _policy
from ._arith import settle_nans
from ._quantile import MAX_BINS, Order, _c, _key_dtype, plan_names, selects
from ._quantile import read_rows, warn_all_nan
from ._select import back, read_rows as read_rows_layout

__all__ = ["RankPartitionRun", "ComplexPartitionRun", "ComplexMedianRun", "rank_partition_takes"]


class ComplexPartitionRun(Plan):
    """argpartition (partition with ``values``) of complex keys in NumPy's complex order (real
    part, then imaginary; values with a NaN part last, as :func:`~primitives._core.keys.
    image_fields` orders them): complex64 by the partition of its 64-bit order-preserving images
    (made in one pass, :func:`~primitives.sorting.complex_image`; ``inner``: the real dtypes'
    argpartition of the images' rows (R, L) as uint64 keys, a partition of the images being one
    of the values), complex128 (images of two words) by a
    stable sort of its rows (the sort family's :func:`~primitives.sorting.argsort`, a partition
    for every kth); the values gathered by the indices, bit for bit."""

    def __init__(self, backend, lay, inner, values):
        self.backend, self.xp, self.lay, self.inner, self.values = (
            backend,
            backend.xp,
            lay,
            inner,
            values,
        )

    def __call__(self, x):
        xp, lay = self.xp, self.lay
        rows2 = read_rows_layout(x, lay, xp)
        if self.inner is not None:
            (word,) = complex_image(rows2, self.backend)  # one fused pass (sorting's kernel)
            idx = self.inner(word)
        else:
            idx = argsort(rows2, axis=-1)
        res = xp.take_along_axis(rows2, idx, axis=1) if self.values else idx
        return back(res, lay, xp)


#: the distinct kth a partition by selected ranks takes at most (2 * 4 + 1 buckets: PART_BUCKETS),
#: and quantile_part_scatter's ARG (values, indices); its M (splitters) is 1 or PART_MAX
PART_MAX, PART_BUCKETS = 4, 9
PART_ARG = ("false", "true")
#: the block sizes of split.cu's one-thread-a-row, per-block-count and per-row kernels
TAKE_BLOCK, BOUNDS_BLOCK, CHOOSE_BLOCK = 256, 256, 1024
#: fields of a row's split state (prim::quantile::SPLIT_FIELDS)
SPLIT_FIELDS = 7


def part_names(pol):
    """The instantiations of quantile.cu that the partitions by selected ranks add to the
    selection's (:func:`~._quantile.names`): the count and scatter by the selected values (the
    quantile policy ``pol``'s tiles)."""
    out = []
    for ub in _splans.UBITS:
        c, tile = _c(ub), f"{pol.block}, {pol.items}"
        out += [f"quantile_part_count<{c}, {tile}>"]
        out += [
            f"quantile_part_scatter<{c}, {tile}, {a}, {m}>" for a in PART_ARG for m in (1, PART_MAX)
        ]
    return out


def scatter_name(c, ppol, arg, row):
    """split_scatter of keys of C type ``c``, ARG ``arg`` and ROW ``row`` (``"true"`` /
    ``"false"``) under the partition policy ``ppol``: its tile and prefetch, and for the first
    level (ROW) its resident blocks' bound (``split_row_min_blocks``; later levels 1)."""
    tile, pre = f"{ppol.split_block}, {ppol.split_items}", PART_ARG[ppol.split_prefetch]
    least = ppol.split_row_min_blocks if row == "true" else 1
    return f"split_scatter<{c}, {tile}, {arg}, {row}, {pre}, {least}>"


def split_names(ppol, ub=None, arg=None):
    """The instantiations of split.cu (:class:`SplitPlan`, the partition policy ``ppol``'s
    tiles): of keys of ``ub`` bytes and ARG ``arg`` (``"true"``/``"false"``) when given, else of
    every width and both."""
    tile = f"{ppol.split_block}, {ppol.split_items}"
    out = [
        f"split_take<{TAKE_BLOCK}>",
        f"split_choose<{CHOOSE_BLOCK}>",
        f"split_bounds<{BOUNDS_BLOCK}>",
    ]
    for u in _splans.UBITS if ub is None else (ub,):
        c = _c(u)
        out += [f"split_first<{c}, {tile}>", f"split_hist<{c}, {tile}>"]
        out += [
            scatter_name(c, ppol, a, r)
            for a in (PART_ARG if arg is None else (arg,))
            for r in PART_ARG
        ]
    return out


for _pol in _policy.TABLE.policies("quantile"):  # every policy, for the NVRTC check
    _loader.register(_kernels.QUANTILE, part_names(_pol))
for _ppol in _policy.TABLE.policies("partition"):
    _loader.register(_kernels.SPLIT, split_names(_ppol))


def rank_partition_takes(rows, length, kths):
    """Whether :class:`RankPartitionRun` serves a partition: at most :data:`PART_MAX` distinct
    kth, of rows the order statistics select (:func:`selects`)."""
    n = len(set(kths))
    return n <= PART_MAX and selects(rows, length, n)


class SplitPlan(Plan):
    """The split of rows (R, L) by the value of one rank, digit by digit (the kernels of
    split.cu): the first digit's histogram of each row and of each block (split_first, in
    place of the selection's first pass, the row's histogram the selection's); after the
    selection's choice of the first digit (``take(state)``, from :meth:`OrderPlan.select`)
    each row whose kth bin holds at most ``len / buffer_div`` keys is taken (the others are left
    to the partition by the selected value): its keys below the bin written to the front of its
    output, those above to the back, those in it to a buffer; each later digit then splits the
    buffer's keys the same way (its histogram, its bin, the scatter) into the output's middle and
    the other buffer, the last digit's bin (keys equal to the kth's) into the output. Two reads
    of the rows and one write, the later levels over the kth's bins only."""

    def __init__(self, backend, order_plan, rank, values, ppol):
        plan, xp = order_plan, backend.xp
        self.xp, self.plan, self.values = xp, plan, values
        rows, length = plan.rows, int(plan.len64)
        block, c, tile = ppol.split_block, plan.c, f"{ppol.split_block}, {ppol.split_items}"
        arg = PART_ARG[0 if values else 1]
        get = _loader.load(_kernels.SPLIT, split_names(ppol))
        kfirst, khist = get(f"split_first<{c}, {tile}>"), get(f"split_hist<{c}, {tile}>")
        krow = get(scatter_name(c, ppol, arg, "true"))
        kbuf = get(scatter_name(c, ppol, arg, "false"))
        t = block * ppol.split_items
        i64, i32 = _launch.i64, np.int32
        # the digits: the selection's (the first one quantile_start chooses from split_first's)
        sched = [(int(s), int(w)) for s, w in [plan.head[1:]] + plan.later]
        self.cap = _launch.cdiv(plan.cap, 4) * 4  # the selection's buffer, rows 16-byte aligned

        # each level's blocks a row: one wave of its count and its scatter (the same tiles)
        def per_row(n, *ks):
            resident = min(_launch.resident_grid(k, block) for k in ks)
            return max(1, min(_launch.cdiv(n, t), _launch.cdiv(resident, rows)))

        b1, b2 = per_row(length, kfirst, krow), per_row(self.cap, khist, kbuf)
        self.b1, self.b2, self.rows, self.sched = b1, b2, rows, sched
        self.first = _plans.Launch(kfirst, b1 * rows, block)
        self.first_args = (i64(length), i64(b1))
        self.head = (plan.kind, i32(sched[0][0]), i32(sched[0][1]))
        self.take_launch = _plans.Launch(
            get(f"split_take<{TAKE_BLOCK}>"), _launch.cdiv(rows, TAKE_BLOCK), TAKE_BLOCK
        )
        self.take_args = (i64(rows), i64(length), i64(rank), i64(self.cap))
        self.bounds1 = _plans.Launch(get(f"split_bounds<{BOUNDS_BLOCK}>"), b1 * rows, BOUNDS_BLOCK)
        self.bounds2 = _plans.Launch(get(f"split_bounds<{BOUNDS_BLOCK}>"), b2 * rows, BOUNDS_BLOCK)
        self.row = _plans.Launch(krow, b1 * rows, block)
        self.hist = _plans.Launch(khist, b2 * rows, block)
        self.choose = _plans.Launch(get(f"split_choose<{CHOOSE_BLOCK}>"), rows, CHOOSE_BLOCK)
        self.buf = _plans.Launch(kbuf, b2 * rows, block)
        self.len64 = i64(length)
        self.state = xp.empty(rows * SPLIT_FIELDS, dtype=np.int64)  # set by split_take
        self.row_hist = xp.zeros(rows * MAX_BINS, dtype=np.uint64)  # left zero by split_choose
        self.nbytes = _plans.scratch_bytes(self.state, self.row_hist)

    def __call__(self, kbits):
        """split_first over the key bits (R * L): its blocks' histograms, for :meth:`take`."""
        bh1 = self.xp.empty(self.rows * self.b1 << self.sched[0][1], dtype=np.uint32)
        self.first(kbits, *self.first_args, self.plan.hist, bh1, *self.head)
        return bh1

    def take(self, kbits, bh1, state, out, idx):
        """After the first digit's choice: the rows taken, split into ``out`` (the key bits, or
        with ``idx`` their indices: ``out`` and ``idx`` as the partition by values takes them)."""
        xp, rows, cap, i64, i32 = self.xp, self.rows, self.cap, _launch.i64, np.int32
        sched, arg = self.sched, not self.values
        self.take_launch(state, *self.take_args, self.state, *map(i32, sched[0]))
        cnt = xp.empty(rows * max(self.b1, self.b2) * 3, dtype=np.uint64)
        self.bounds1(self.state, bh1, i64(self.b1), i32(sched[0][1]), cnt)
        many = len(sched) > 1  # buffers: later levels
        keys = [xp.empty(rows * cap if many else 1, dtype=self.plan.udt) for _ in range(2)]
        ids = [xp.empty(rows * cap if many and arg else 1, dtype=np.int64) for _ in range(2)]
        kind, cap64 = self.plan.kind, i64(cap)
        last = len(sched) - 1

        def scatter(launch, level, blocks, src, src_ids, dst):
            """A level's split_scatter: ``src`` (the rows, or a buffer and its ``src_ids``)
            into ``out``/``idx`` and buffer ``dst`` (its keys and indices)."""
            fin = i32(level == last)
            launch(
                src,
                src_ids,
                self.len64,
                cap64,
                i64(blocks),
                self.state,
                cnt,
                kind,
                *map(i32, sched[level]),
                fin,
                out,
                idx,
                keys[dst],
                ids[dst],
            )

        scatter(self.row, 0, self.b1, kbits, ids[1], 0)
        bh2 = xp.empty(
            rows * self.b2 * (1 << max(w for _, w in sched[1:])) if last else 1, np.uint32
        )
        for level in range(1, last + 1):
            s, w = map(i32, sched[level])
            src = (level - 1) % 2  # buffer 0 feeds level 1, buffer 1 level 2...
            self.hist(keys[src], cap64, i64(self.b2), self.state, self.row_hist, bh2, kind, s, w)
            self.choose(self.row_hist, self.state, w)
            self.bounds2(self.state, bh2, i64(self.b2), w, cnt)
            scatter(self.buf, level, self.b2, keys[src], ids[src], level % 2)


class RankPartitionRun(Plan):
    """argpartition (partition with ``values``) of rows (R, L) by their values at the ranks
    ``kths``: those values selected (:class:`OrderPlan`), then each row split by them into the
    keys below the first, equal to it, between it and the next..., one read counting each
    block's keys per part, one writing them (quantile_part_count, quantile_part_scatter): every
    kth position holds the value a sort would put there, smaller values before it, larger
    after, keys of one part in index order. Three reads of the rows in all (the selection's
    first, the count, the scatter) and the passes over the ranks' candidates; no sort. With one
    kth, rows whose kth's first digit leaves at most ``len / buffer_div`` candidates are split
    digit by digit instead (:class:`SplitPlan`: two reads, the parts in an order fixed by the
    input but not index order), the others as above."""

    def __init__(self, backend, lay, dtype, kths, values):
        self.backend, self.xp, self.lay, self.values = backend, backend.xp, lay, values
        ranks = np.unique(np.asarray(kths, np.int64))
        pol = _policy.quantile()
        arg = PART_ARG[0 if values else 1]
        m = 1 if ranks.size == 1 else PART_MAX  # splitters the scatter is sized for
        ub = max(4, _key_dtype(np.dtype(dtype)).itemsize)  # the selection's (order_plan)
        c = _c(ub)
        ppol = _policy.partition()
        tile = f"{pol.block}, {pol.items}"
        part = [
            f"quantile_part_count<{c}, {tile}>",
            f"quantile_part_scatter<{c}, {tile}, {arg}, {m}>",
        ]
        # every instantiation this run launches starts compiling before the selection's plan
        # waits for its own; with one kth the split's first pass is the selection's
        _loader.prefetch(_kernels.QUANTILE, plan_names(ub, pol, first=m > 1) + part)
        if m == 1:
            _loader.prefetch(_kernels.SPLIT, split_names(ppol, ub, arg))
        self.order = Order(backend, dtype, lay.rows, lay.length, ranks.size, False, first=m > 1)
        plan = self.order.plan
        assert plan.ub == ub, (plan.ub, ub)
        self.ranks = self.xp.asarray(ranks)
        get = _loader.load(_kernels.QUANTILE, part_names(pol))
        kcount, kscatter = get(part[0]), get(part[1])
        tiles = _launch.cdiv(lay.length, pol.block * pol.items)
        # the scatter's resident grid (the heavier kernel, fewer blocks an SM than the count's)
        bpr = max(1, min(tiles, _launch.cdiv(_launch.resident_grid(kscatter, pol.block), lay.rows)))
        self.bpr = bpr
        self.count = _plans.Launch(kcount, bpr * lay.rows, pol.block)
        self.scatter = _plans.Launch(kscatter, bpr * lay.rows, pol.block)
        self.args = (_launch.i64(lay.length), _launch.i64(bpr))
        self.tail = (_launch.i64(ranks.size), plan.kind)
        self.split = SplitPlan(backend, plan, int(ranks[0]), values, ppol) if m == 1 else None

    def __call__(self, x):
        xp, lay, plan = self.xp, self.lay, self.order.plan
        rows2 = read_rows_layout(x, lay, xp)
        if self.values:
            out, idx = xp.empty((lay.rows, lay.length), dtype=plan.udt), xp.empty(1, np.int64)
        else:
            out, idx = xp.empty(1, dtype=plan.udt), xp.empty((lay.rows, lay.length), np.int64)
        if self.split is None:
            self.order.prime(rows2)
            kbits, state = self.order.select(self.ranks)
        else:  # the split's first pass in place of the selection's; it takes rows after it
            kbits = _keys.key_bits(rows2)[0].reshape(-1)
            bh1 = self.split(kbits)
            take = lambda st: self.split.take(kbits, bh1, st, out, idx)  # noqa: E731
            state = plan.select(kbits, self.ranks, take)
        counts = xp.empty((lay.rows, PART_BUCKETS * self.bpr), dtype=np.uint64)
        self.count(kbits, *self.args, state, *self.tail, counts)
        self.scatter(kbits, *self.args, state, *self.tail, counts, out, idx)
        res = _keys.key_back(out, self.order.dtype) if self.values else idx
        return back(res, lay, xp)


class ComplexMedianRun(Plan):
    """median (nanmedian with ``nan``) of complex rows, as NumPy's: the rows sorted in NumPy's
    complex order (the sorting family's :func:`~primitives.sorting.sort` along the rows: one
    pass of its fused key image, one row sort), the mean of the middle value or two (a sum from
    0, divided by the count as NumPy divides a complex number by a real one); a row holding NaNs
    gives its largest value (NumPy's last after a partition), nanmedian's all-NaN row
    ``nan + 0j`` (NumPy's for rows of several slices; its 1-D path gives the slice's last
    element, another NaN)."""

    def __init__(self, backend, dtype, shape, axes, kept, nan):
        self.backend, self.xp = backend, backend.xp
        self.axes, self.kept, self.nan = axes, kept, nan
        self.dtype = np.dtype(dtype)
        self.rows = int(np.prod(kept, dtype=np.int64))
        self.length = int(np.prod([shape[i] for i in axes], dtype=np.int64))

    def __call__(self, x):
        xp, rows, length = self.xp, self.rows, self.length
        rows2 = read_rows(x, self.axes, xp)
        ordered = sort(rows2, axis=-1)  # NumPy's complex order, by the fused key image
        nans = xp.isnan(rows2).sum(axis=1, dtype=np.int64)
        n = length - nans if self.nan else xp.full(rows, length, np.int64)
        lo, hi = xp.maximum((n - 1) // 2, 0), xp.maximum(n // 2, 0)
        a = xp.take_along_axis(ordered, lo[:, None], 1)[:, 0]
        b = xp.take_along_axis(ordered, hi[:, None], 1)[:, 0]
        part = np.dtype(f"f{self.dtype.itemsize // 2}")
        zero = xp.asarray(0, dtype=part)
        sr, si = zero + a.real, zero + a.imag  # NumPy's sum from 0
        two = lo != hi
        sr, si = xp.where(two, sr + b.real, sr), xp.where(two, si + b.imag, si)
        scl = xp.asarray(1, dtype=part) / xp.where(two, 2, 1).astype(part)
        # NumPy's complex division by (count + 0j): ratio 0, scale 1 / count
        res = xp.stack([(sr + si * zero) * scl, (si - sr * zero) * scl], axis=-1)
        # a NaN part made of infinities (inf * 0) as the host makes it
        res = settle_nans(xp, res.view(self.dtype).reshape(rows))
        if self.nan:
            empty = n == 0
            warn_all_nan(xp, empty)
            res = xp.where(empty, xp.asarray(np.nan, dtype=self.dtype), res)
        else:
            res = xp.where(nans > 0, ordered[:, -1], res)
        return res.reshape(tuple(self.kept))

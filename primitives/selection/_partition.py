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
from . import _kernels, _policy
from ._arith import settle_nans
from ._quantile import PART_ARG, PART_BUCKETS, PART_MAX, Order, _c, _key_dtype, names, selects
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


def rank_partition_takes(rows, length, kths):
    """Whether :class:`RankPartitionRun` serves a partition: at most :data:`PART_MAX` distinct
    kth, of rows the order statistics select (:func:`selects`)."""
    n = len(set(kths))
    return n <= PART_MAX and selects(rows, length, n)


class RankPartitionRun(Plan):
    """argpartition (partition with ``values``) of rows (R, L) by their values at the ranks
    ``kths``: those values selected (:class:`OrderPlan`), then each row split by them into the
    keys below the first, equal to it, between it and the next..., one read counting each
    block's keys per part, one writing them (quantile_part_count, quantile_part_scatter): every
    kth position holds the value a sort would put there, smaller values before it, larger
    after, keys of one part in index order. Three reads of the rows in all (the selection's
    first, the count, the scatter) and the passes over the ranks' candidates; no sort."""

    def __init__(self, backend, lay, dtype, kths, values):
        self.backend, self.xp, self.lay, self.values = backend, backend.xp, lay, values
        ranks = np.unique(np.asarray(kths, np.int64))
        pol = _policy.quantile()
        arg = PART_ARG[0 if values else 1]
        m = 1 if ranks.size == 1 else PART_MAX  # splitters the scatter is sized for
        ub = max(4, _key_dtype(np.dtype(dtype)).itemsize)  # the selection's (order_plan)
        c = _c(ub)
        part = [
            f"quantile_part_count<{c}, {pol.block}, {pol.items}>",
            f"quantile_part_scatter<{c}, {pol.block}, {pol.items}, {arg}, {m}>",
        ]
        _loader.prefetch(_kernels.QUANTILE, part)  # compiled beside the selection's kernels
        self.order = Order(backend, dtype, lay.rows, lay.length, ranks.size, False)
        plan = self.order.plan
        assert plan.ub == ub, (plan.ub, ub)
        self.ranks = self.xp.asarray(ranks)
        get = _loader.load(_kernels.QUANTILE, names(pol))
        kcount, kscatter = get(part[0]), get(part[1])
        tiles = _launch.cdiv(lay.length, pol.block * pol.items)
        # the scatter's resident grid (the heavier kernel, fewer blocks an SM than the count's)
        bpr = max(1, min(tiles, _launch.cdiv(_launch.resident_grid(kscatter, pol.block), lay.rows)))
        self.bpr = bpr
        self.count = _plans.Launch(kcount, bpr * lay.rows, pol.block)
        self.scatter = _plans.Launch(kscatter, bpr * lay.rows, pol.block)
        self.args = (_launch.i64(lay.length), _launch.i64(bpr))
        self.tail = (_launch.i64(ranks.size), plan.kind)

    def __call__(self, x):
        xp, lay, plan = self.xp, self.lay, self.order.plan
        rows2 = read_rows_layout(x, lay, xp)
        self.order.prime(rows2)
        kbits, state = self.order.select(self.ranks)
        counts = xp.empty((lay.rows, PART_BUCKETS * self.bpr), dtype=np.uint64)
        self.count(kbits, *self.args, state, *self.tail, counts)
        starts = xp.cumsum(counts, axis=1, dtype=np.uint64) - counts  # bucket-major, exclusive
        if self.values:
            out, idx = xp.empty((lay.rows, lay.length), dtype=plan.udt), xp.empty(1, np.int64)
        else:
            out, idx = xp.empty(1, dtype=plan.udt), xp.empty((lay.rows, lay.length), np.int64)
        self.scatter(kbits, *self.args, state, *self.tail, starts, out, idx)
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

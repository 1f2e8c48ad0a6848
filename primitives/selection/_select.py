"""The selection of one configuration as one callable, :class:`Selection` (the rows' key bits, the
chosen variant's plan of :mod:`._plans`, the winners ordered), and the replays that run a public
call on arrays of one layout (the rows read along the axis, the selection, the results put back):
what a call runs, and what a repeat call on like arrays runs unchecked."""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes, keys as _keys
from .._core.plans import Plan
from ..sorting import sort_rows
from . import _choose, _plans

__all__ = ["Selection", "TopkRun", "PartitionRun", "SortedRun", "read_rows", "back", "empty"]


def read_rows(x, lay, xp):
    """``x`` as C-contiguous rows (R, L) along the axis of its :class:`~._checks.Layout`."""
    arr = x.reshape(-1) if lay.flat else x
    moved = arr if lay.axis == arr.ndim - 1 else xp.moveaxis(arr, lay.axis, -1)
    return xp.ascontiguousarray(moved).reshape(lay.rows, lay.length)


def back(res, lay, xp):
    """(R, m) rows back to the caller's layout: the axis where it was, of length m."""
    out = res.reshape(lay.shape[:-1] + (res.shape[-1],))
    return out if lay.axis == out.ndim - 1 else xp.moveaxis(out, -1, lay.axis)


def as_keys(rows2):
    """The rows as the sort family's keys: bool as uint8, float16 and bfloat16 as float32
    (exact, order and NaNs kept)."""
    if rows2.dtype == np.bool_:
        return rows2.view(np.uint8)
    if rows2.dtype == np.float16:
        return rows2.astype(np.float32)
    return _keys.widened(rows2)


def _key_dtype(dt):
    if _dtypes.is_float16(dt):
        return np.dtype(np.float32)
    return np.dtype(np.uint8) if dt == np.bool_ else dt


class Selection:
    """``sel(rows2)``: (indices, values) of the ``k`` (at least 1) largest (or smallest) keys of
    each of ``rows`` rows of ``length`` keys of ``dtype`` (``rows2``, C-contiguous), by the
    variant chosen (:func:`._choose.variant`), its plan made here. ``indices``: int64 (R, k),
    equal keys from the lowest indices; ordered by key (then index) when ``ordered``, else in no
    particular order. ``values``: those keys (R, k) where the selection wrote them itself (the
    warp-per-row path, keys of 4 or 8 bytes), else None."""

    __slots__ = ("backend", "k", "largest", "length", "ub", "ordered", "plan", "sorts", "run")

    def __init__(self, backend, dtype, rows, length, k, largest, ordered, variant):
        self.backend, self.k, self.largest, self.length = backend, k, largest, length
        self.ordered = ordered
        kdt = _key_dtype(np.dtype(dtype))
        # the key bits' width, kind and meaningful bits, as _core.keys.key_bits gives them
        self.ub = ub = _choose.key_width(kdt)
        kind = _keys.KIND[kdt.kind] if kdt.itemsize >= 4 else 0
        bits = 8 * kdt.itemsize
        self.plan, self.sorts = None, False
        if variant == "sort":
            self.run = self._by_sort
        elif variant in ("rows", "warp_rows"):
            warp = variant == "warp_rows"
            self.plan, self.sorts = _plans.rows_plan(
                backend, ub, rows, length, k, kind, largest, ordered, warp
            )
            self.run = self._warp_rows if warp else self._rows
        elif variant == "small_k":
            self.plan = _plans.small_k_plan(backend, ub, rows, length, k, kind, largest, ordered)
            self.run = self._small_k
        else:
            self.plan = _plans.radix_plan(
                backend,
                ub,
                rows,
                length,
                k,
                kind,
                bits,
                largest,
                ordered,
                filtered=variant == "filter",
            )
            self.sorts = self.plan.sorts
            self.run = self._radix

    def __call__(self, rows2):
        return self.run(rows2, as_keys(rows2))

    def _by_sort(self, rows2, keys):
        """The ``sort`` variant: each row's stable order (descending for largest: NaNs first, as
        topk ranks them), first k: the columns made in the row sort."""
        order = sort_rows(self.backend, keys, descending=self.largest, indices=True)
        return order[:, : self.k], None

    def _rows(self, rows2, keys):
        img, idx = self.plan(_keys.key_bits(keys)[0])
        if self.ordered and not self.sorts:  # in index order: a stable sort by image orders them
            img, idx = sort_rows(self.backend, img, idx)
        return idx, None

    def _warp_rows(self, rows2, keys):
        img, idx = self.plan(_keys.key_bits(keys)[0])
        # the keys' own bits, in the winners' order
        return idx, (img.view(rows2.dtype) if rows2.dtype.itemsize == self.ub else None)

    def _small_k(self, rows2, keys):
        return self.plan(_keys.key_bits(keys)[0])[1], None

    def _radix(self, rows2, keys):
        img, idx = self.plan(_keys.key_bits(keys)[0])
        if self.ordered and not self.sorts:
            idx = _plans.order_winners(self.backend, img, idx, self.ub, self.length)
        return idx, None


class TopkRun(Plan):
    """topk for arrays of one layout, its arguments checked: the rows, the selection and the
    values gathered, (values, indices) in the layout."""

    def __init__(self, backend, lay, select):
        self.backend, self.xp, self.lay, self.select = backend, backend.xp, lay, select

    def __call__(self, x):
        xp, lay = self.xp, self.lay
        rows2 = read_rows(x, lay, xp)
        idx, vals = self.select(rows2)
        if vals is None:
            vals = _plans.gather_rows(self.backend, rows2, idx)
        return back(vals, lay, xp), back(idx, lay, xp)


class PartitionRun(Plan):
    """argpartition (or with ``values`` partition) for arrays of one layout by a selection of
    ``m`` of each row: with ``small`` the m smallest first, in order, then the others in index
    order; else the others first, then the m largest in ascending order."""

    def __init__(self, backend, lay, select, small, values):
        self.backend, self.xp, self.lay, self.select = backend, backend.xp, lay, select
        self.small, self.values = small, values

    def __call__(self, x):
        xp, lay = self.xp, self.lay
        rows2 = read_rows(x, lay, xp)
        sel = self.select(rows2)[0]
        res = _plans.partition_indices(self.backend, sel, lay.length, self.small)
        if self.values:
            res = _plans.gather_rows(self.backend, rows2, res)
        return back(res, lay, xp)


class SortedRun(Plan):
    """argpartition (or with ``dtype`` partition) of one row by a stable sort of its keys (a
    partition for every kth): ``sort(keys)`` the sort family's (:func:`~primitives.sorting.
    argsort`, or :func:`~primitives.sorting.sort` whose sorted keys are put back in
    ``dtype``)."""

    def __init__(self, backend, lay, sort, dtype=None):
        self.xp, self.lay, self.sort, self.dtype = backend.xp, lay, sort, dtype

    def __call__(self, x):
        xp, lay, dt = self.xp, self.lay, self.dtype
        out = self.sort(as_keys(read_rows(x, lay, xp)).reshape(-1))
        if dt is not None:
            out = out.view(np.bool_) if dt == np.bool_ else out.astype(dt, copy=False)
        return back(out.reshape(1, lay.length), lay, xp)


def empty(lay, k, dtype, xp):
    """An empty result (R, k) of ``dtype`` in the layout (k == 0, or no rows)."""
    return back(xp.empty((lay.rows, k), dtype=dtype), lay, xp)

"""Order statistics for ``quantile``, ``median`` and their twins: the values of given ranks of
each row, by the multi-rank radix select of ``kernels/selection/quantile.cu``
(:class:`OrderPlan`) or, for short rows or many of them, by a segmented sort; and NumPy's
arithmetic around them (its virtual indexes, gammas and interpolation, its median's mean),
written once over the array module so that it runs on the device for device rows.

A call's path (:class:`QuantileRun`, :class:`MedianRun`): the rows (R, L) along the reduced
axes (a transposing copy when they are not the last ones), the NaN count of each row (the first
pass of the selection counts it), the ranks each row needs (two per quantile: the neighbours
of its virtual index; a median's two middle ones), their values, the interpolation. No host
synchronization but for the nan-functions' warning of an all-NaN slice.
"""

from __future__ import annotations

import numpy as np

from .._core import (
    checks as _checks,
    dtypes as _dtypes,
    keys as _keys,
    launch as _launch,
    loader as _loader,
    plans as _plans,
)
from .._core.plans import Plan
from ..sorting import sort_rows
from . import _kernels, _plans as _splans, _policy
from ._select import as_keys

__all__ = [
    "METHODS",
    "OrderPlan",
    "order_plan",
    "Order",
    "QuantileRun",
    "MedianRun",
    "quantile_ranks",
]

#: NumPy's quantile methods (numpy.quantile's ``method``)
METHODS = (
    "inverted_cdf",
    "averaged_inverted_cdf",
    "closest_observation",
    "interpolated_inverted_cdf",
    "hazen",
    "weibull",
    "linear",
    "median_unbiased",
    "normal_unbiased",
    "lower",
    "higher",
    "midpoint",
    "nearest",
)

#: fields of a slot's state (prim::quantile::FIELDS)
FIELDS = 11
MAX_BINS = 1 << _policy.MAX_BITS
_START_BLOCK = 1024


def _c(ub):
    return _dtypes.CTYPES[_splans.UBITS[ub]]


def names(pol):
    out = ["quantile_start", "quantile_choose"]
    for ub in _splans.UBITS:
        c = _c(ub)
        out += [
            f"quantile_first<{c}, {pol.block}, {pol.items}>",
            f"quantile_pass<{c}, {pol.block}, {pol.items}, {pol.group}>",
            f"quantile_bits<{c}>",
        ]
    return out


for _pol in _policy.TABLE.policies("quantile"):  # every policy, for the NVRTC check
    _loader.register(_kernels.QUANTILE, names(_pol))


class OrderPlan(Plan):
    """The values of ``slots`` ranks of each of ``rows`` rows of ``length`` keys of ``ub``
    bytes (``kind``: prim::radix::KeyKind; ``bits``: the image's meaningful low bits).
    ``first(kbits)``: the first pass (the rows' NaN counts, uint64 (R,), and the largest bits
    of each row's NaNs, zero for none); then ``rest(kbits, ranks)`` with the ranks (int64
    (R, slots), each in [0, length)): the key bits of each rank's value, (R, slots). The slots
    of a row share one candidate buffer of ``length / buffer_div`` keys (their shares decided on
    the device)."""

    def __init__(self, backend, ub, kind, bits, rows, length, slots, pol):
        if pol.group * (1 << pol.bits) > MAX_BINS:
            raise ValueError(
                f"quantile: the quantile policy's group * 2^bits counters must fit "
                f"{MAX_BINS}, got group={pol.group}, bits={pol.bits}"
            )
        xp = backend.xp
        self.backend, self.xp, self.rows, self.slots, self.ub = backend, xp, rows, slots, ub
        self.udt = _splans.UBITS[ub]
        c = _c(ub)
        get = _loader.load(_kernels.QUANTILE, names(pol))
        kfirst = get(f"quantile_first<{c}, {pol.block}, {pol.items}>")
        kpass = get(f"quantile_pass<{c}, {pol.block}, {pol.items}, {pol.group}>")
        tile = pol.block * pol.items
        tiles = _launch.cdiv(length, tile)
        bpr = max(1, min(tiles, _launch.cdiv(_launch.resident_grid(kfirst, pol.block), rows)))
        self.groups = _launch.cdiv(slots, pol.group)
        bpr2 = max(
            1, min(tiles, _launch.cdiv(_launch.resident_grid(kpass, pol.block), rows * self.groups))
        )
        sched = _splans.digits(bits, pol.first_bits, pol.bits)
        i64, i32 = _launch.i64, np.int32
        self.cap = max(1, _launch.cdiv(length, pol.buffer_div))
        self.first_launch = _plans.Launch(kfirst, bpr * rows, pol.block)
        self.first_args = (i64(length), i64(bpr))
        self.head = (i32(kind), i32(sched[0][0]), i32(sched[0][1]))
        self.start = _plans.Launch(get("quantile_start"), rows, _START_BLOCK)
        self.start_args = (i64(slots), i64(self.cap), i32(sched[0][0]), i32(sched[0][1]))
        self.choose_args = (i64(slots), i64(self.cap), i32(pol.group))
        self.pass_ = _plans.Launch(kpass, bpr2 * self.groups * rows, pol.block)
        self.pass_args = (i64(length), i64(bpr2), i64(self.groups), i64(slots))
        self.choose = _plans.Launch(get("quantile_choose"), rows, _START_BLOCK)
        self.later = [(i32(s), i32(w)) for s, w in sched[1:]]
        self.bits_launch = _plans.Launch(get(f"quantile_bits<{c}>"), _launch.cdiv(rows, 256), 256)
        self.kind, self.cap64 = i32(kind), i64(self.cap)
        size = max(rows * MAX_BINS, rows * slots * (MAX_BINS // pol.group))
        self.hist = xp.zeros(size, dtype=np.uint64)  # left zero by the kernels
        self.nbytes = _plans.scratch_bytes(self.hist)

    def first(self, kbits):
        nans = self.xp.zeros(self.rows, dtype=np.uint64)
        nanbits = self.xp.zeros(self.rows, dtype=self.udt)
        self.first_launch(kbits, *self.first_args, self.hist, nans, nanbits, *self.head)
        return nans, nanbits

    def rest(self, kbits, ranks):
        xp, rows, slots = self.xp, self.rows, self.slots
        state = xp.empty(rows * slots * FIELDS, dtype=np.int64)  # set by quantile_start
        used = xp.empty(rows, dtype=np.int64)  # set by quantile_start
        buf = xp.empty(rows * self.cap, dtype=self.udt)
        self.start(self.hist, ranks, state, used, *self.start_args)
        for shift, width in self.later:
            self.pass_(
                kbits, *self.pass_args, buf, self.cap64, state, self.hist, self.kind, shift, width
            )
            self.choose(self.hist, state, used, *self.choose_args, shift, width)
        out = xp.empty((rows, slots), dtype=self.udt)
        self.bits_launch(state, _launch.i64(rows), _launch.i64(slots), self.kind, out)
        return out


def order_plan(backend, dtype, rows, length, slots):
    """The :class:`OrderPlan` of rows of ``dtype`` (the keys' dtype: no bool or float16), or
    None where the rows are sorted instead (shorter than the policy's min_len, or histograms
    past its hist_bytes)."""
    pol = _policy.quantile()
    hist = 8 * max(rows * MAX_BINS, rows * slots * (MAX_BINS // pol.group))
    if length < pol.min_len or hist > pol.hist_bytes:
        return None
    ub = max(4, dtype.itemsize)
    kind = _keys.KIND[dtype.kind] if dtype.itemsize >= 4 else 0
    bits = 8 * dtype.itemsize
    key = ("selection", "quantile", ub, kind, bits, rows, length, slots, pol, _plans.stream_key())
    return _plans.PLANS.get(
        key, lambda: OrderPlan(backend, ub, kind, bits, rows, length, slots, pol)
    )


class Order:
    """The order statistics of rows (R, L) of one dtype: ``counts(rows2)`` the NaN count of each
    row (int64 (R,), zeros for dtypes without NaN, or None when not ``nans``), then
    ``values(ranks)`` the values of the ranks (int64 (R, S)) in the rows' dtype, their bits the
    elements' own; ``nan_values()`` then a NaN of each row holding one (its bits an element's, as
    NumPy's result for a slice with NaNs; anything for the other rows)."""

    def __init__(self, backend, dtype, rows, length, slots, nans):
        self.backend, self.xp, self.dtype = backend, backend.xp, np.dtype(dtype)
        self.kdt = _key_dtype(self.dtype)
        self.plan = order_plan(backend, self.kdt, rows, length, slots)
        self.nans = nans and self.dtype.kind == "f"
        self._state = self._nan = None

    def counts(self, rows2):
        xp = self.xp
        keys = as_keys(rows2)
        if self.plan is not None:
            kbits = _keys.key_bits(keys)[0].reshape(-1)
            nans, self._nan = self.plan.first(kbits)
            self._state = kbits
            return nans.astype(np.int64) if self.nans else None
        self._state = keys
        return xp.isnan(rows2).sum(axis=1, dtype=np.int64) if self.nans else None

    def values(self, ranks):
        if self.plan is not None:
            bits = self.plan.rest(self._state, self.xp.ascontiguousarray(ranks))
            vals = _keys.key_back(bits, self.kdt)
            self._nan = _keys.key_back(self._nan, self.kdt)
        else:
            ordered = sort_rows(self.backend, self._state)
            vals = _splans.gather_rows(self.backend, ordered, ranks)
            self._nan = ordered[:, -1]  # NaNs sort last
        self._state = None
        return self._cast(vals)

    def nan_values(self):
        return self._cast(self._nan)

    def _cast(self, vals):
        if self.dtype == np.bool_:
            return vals.view(np.bool_)
        return vals.astype(self.dtype, copy=False)


def _key_dtype(dt):
    return {np.dtype(np.bool_): np.dtype(np.uint8), np.dtype(np.float16): np.dtype(np.float32)}.get(
        dt, dt
    )


# ---- NumPy's arithmetic, over the array module ------------------------------------------------


def _floor(xp, a):
    return xp.floor(a)


def _mask(xp, default, conditioned, where):
    """NumPy's _get_gamma_mask: ``default`` (an array or a float), ``conditioned`` where."""
    shape = where.shape
    out = xp.full(shape, default) if np.ndim(default) == 0 else xp.array(default, copy=True)
    out = xp.broadcast_to(out, shape).copy()
    out[where] = conditioned if np.ndim(conditioned) == 0 else conditioned[where]
    return out


def _to_boundaries(xp, index, cond):
    previous = xp.floor(index)
    nxt = previous + 1
    gamma = index - previous
    res = _mask(xp, nxt, previous, cond(gamma, index)).astype(np.intp)
    res[res < 0] = 0
    return res


def _virtual(xp, n, q, alpha, beta):
    return n * q + (alpha + q * (1 - alpha - beta)) - 1


def virtual_index(xp, n, q, method):
    """NumPy's virtual index of each quantile ``q`` in ``n`` values (``n``: a Python int, or an
    array broadcasting against ``q`` in q's dtype)."""
    if method == "inverted_cdf":
        return _to_boundaries(xp, n * q - 1, lambda g, _: g == 0)
    if method == "closest_observation":
        return _to_boundaries(xp, n * q - 1 - 0.5, lambda g, i: (g == 0) & (xp.floor(i) % 2 == 1))
    if method == "averaged_inverted_cdf":
        return n * q - 1
    if method == "linear":
        return (n - 1) * q
    if method == "lower":
        return xp.floor((n - 1) * q).astype(np.intp)
    if method == "higher":
        return xp.ceil((n - 1) * q).astype(np.intp)
    if method == "midpoint":
        return 0.5 * (xp.floor((n - 1) * q) + xp.ceil((n - 1) * q))
    if method == "nearest":
        return xp.around((n - 1) * q).astype(np.intp)
    alpha = {
        "interpolated_inverted_cdf": (0, 1),
        "hazen": (0.5, 0.5),
        "weibull": (0, 0),
        "median_unbiased": (1 / 3.0, 1 / 3.0),
        "normal_unbiased": (3 / 8.0, 3 / 8.0),
    }[method]
    return _virtual(xp, n, q, *alpha)


def _fix_gamma(xp, method, gamma, index):
    if method == "averaged_inverted_cdf":
        return _mask(xp, 1.0, 0.5, gamma == 0)
    if method == "midpoint":
        return _mask(xp, 0.5, 0.0, index % 1 == 0)
    return gamma


def interpolates(method, vi):
    """Whether NumPy interpolates (else it takes the values at the indexes ``vi``)."""
    return method not in ("inverted_cdf", "closest_observation", "lower", "higher", "nearest") and (
        method != "linear" or vi.dtype.kind not in "iu"
    )


def quantile_ranks(xp, n, q, method, inexact):
    """(previous, next, gamma, vi) of NumPy's _quantile for ``n`` values (a Python int, or an
    array (R, 1)) and quantiles ``q`` (1-D): previous/next indexes (-1: the last value), gamma
    (None where NumPy takes values), ``vi`` the virtual indexes."""
    vi = xp.asarray(virtual_index(xp, n, q, method))
    if not interpolates(method, vi):
        return vi, vi, None, vi
    previous = xp.floor(vi)
    nxt = previous + 1
    above = vi >= n - 1
    previous, nxt = xp.where(above, -1, previous), xp.where(above, -1, nxt)
    below = vi < 0
    previous, nxt = xp.where(below, 0, previous), xp.where(below, 0, nxt)
    if inexact:
        isnan = xp.isnan(vi)
        previous, nxt = xp.where(isnan, -1, previous), xp.where(isnan, -1, nxt)
    previous, nxt = previous.astype(np.intp), nxt.astype(np.intp)
    gamma = xp.asarray(vi - previous)
    gamma = xp.asarray(_fix_gamma(xp, method, gamma, vi), dtype=vi.dtype)
    return previous, nxt, gamma, vi


def lerp(xp, a, b, t, weak=False):
    """NumPy's _lerp of ``a`` and ``b`` by ``t``. ``weak``: the quantile was a Python number,
    whose gamma NumPy passes as a Python float: it takes the dtype of float values (their
    arithmetic), its complement computed first in float64."""
    diff = b - a
    u, upper = 1 - t, t >= 0.5
    if weak and a.dtype.kind == "f":
        t, u = t.astype(a.dtype), u.astype(a.dtype)
    res = xp.asarray(a + diff * t)
    alt = xp.asarray(b - diff * u).astype(res.dtype)
    return xp.where(upper, alt, res).astype(res.dtype, copy=False)


# ---- the runs ----------------------------------------------------------------------------------


def read_rows(x, axes, xp):
    """``x`` as C-contiguous rows (R, L) over the reduced ``axes`` (moved last: a transposing
    copy unless they are the last ones already)."""
    keep = [i for i in range(x.ndim) if i not in axes]
    order = keep + list(axes)
    moved = x if order == list(range(x.ndim)) else xp.transpose(x, order)
    length = int(np.prod([x.shape[i] for i in axes], dtype=np.int64))
    rows = int(np.prod([x.shape[i] for i in keep], dtype=np.int64))
    return xp.ascontiguousarray(moved).reshape(rows, length)


class QuantileRun(Plan):
    """quantile (nanquantile with ``nan``) of arrays of one shape and dtype over ``axes``:
    ``run(x, q)`` the result of shape ``q.shape + kept`` (NumPy's dtype), or None-free; ``q``
    the checked quantiles (a host array), ``weak`` a Python-number quantile."""

    def __init__(self, backend, dtype, shape, axes, kept, method, q, weak, nan):
        self.backend, self.xp = backend, backend.xp
        self.axes, self.kept, self.method, self.nan = axes, kept, method, nan
        self.q, self.weak = q, weak
        self.dtype = np.dtype(dtype)
        self.rows = int(np.prod(kept, dtype=np.int64))
        self.length = int(np.prod([shape[i] for i in axes], dtype=np.int64))
        self.order = Order(backend, dtype, self.rows, self.length, 2 * q.size, True)
        self.inexact = self.dtype.kind == "f"
        if not nan:  # the indexes and gammas, once (NumPy's with a Python int count)
            self.fixed = quantile_ranks(np, self.length, q.reshape(-1), method, self.inexact)

    def __call__(self, x):
        xp, q, rows, length = self.xp, self.q, self.rows, self.length
        rows2 = read_rows(x, self.axes, xp)
        nans = self.order.counts(rows2)
        qf = q.reshape(-1)
        if self.nan:
            n = length - nans if nans is not None else xp.full(rows, length, dtype=np.int64)
            ndt = q.dtype if q.dtype.kind == "f" else np.dtype(np.intp)
            nn = n.astype(ndt).reshape(rows, 1)
            previous, nxt, gamma, _ = quantile_ranks(
                xp, nn, xp.asarray(qf), self.method, self.inexact
            )
            count = n.reshape(rows, 1)
        else:
            previous, nxt, gamma, _ = self.fixed
            previous, nxt = xp.asarray(previous), xp.asarray(nxt)
            gamma = None if gamma is None else xp.asarray(gamma)
            count = length
        previous = xp.broadcast_to(previous, (rows, qf.size))
        nxt = xp.broadcast_to(nxt, (rows, qf.size))
        ranks = xp.stack([previous, nxt], axis=-1).reshape(rows, 2 * qf.size)
        ranks = xp.where(ranks < 0, ranks + count if self.nan else ranks + length, ranks)
        ranks = xp.clip(ranks, 0, length - 1).astype(np.int64)
        vals = self.order.values(ranks).reshape(rows, qf.size, 2)
        a, b = vals[..., 0].T, vals[..., 1].T  # (Q, R)
        if gamma is None:
            res = a
        else:
            t = gamma.T if self.nan else gamma.reshape(-1, 1)
            res = lerp(xp, a, b, t, self.weak)
        if self.inexact:
            if self.nan:
                empty = n == 0
                if bool(xp.any(empty)):  # NumPy warns of each all-NaN slice
                    _checks.warn_caller("All-NaN slice encountered", RuntimeWarning)
                res = xp.where(empty[None, :], xp.asarray(np.nan, dtype=res.dtype), res)
            elif nans is not None:  # NumPy's: the slice's NaN (its last after a partition)
                nanv = self.order.nan_values().astype(res.dtype)
                res = xp.where(nans[None, :] > 0, nanv[None, :], res)
        return res.reshape(q.shape + tuple(self.kept))


class MedianRun(Plan):
    """median (nanmedian with ``nan``) of arrays of one shape and dtype over ``axes``: the mean
    of the middle value or two, as NumPy's median takes it (float64 for integers and bool,
    float16 through float32, the input's float dtype otherwise)."""

    def __init__(self, backend, dtype, shape, axes, kept, nan):
        self.backend, self.xp = backend, backend.xp
        self.axes, self.kept, self.nan = axes, kept, nan
        self.dtype = np.dtype(dtype)
        self.rows = int(np.prod(kept, dtype=np.int64))
        self.length = int(np.prod([shape[i] for i in axes], dtype=np.int64))
        self.order = Order(backend, dtype, self.rows, self.length, 2, True)

    def __call__(self, x):
        xp, rows, length = self.xp, self.rows, self.length
        rows2 = read_rows(x, self.axes, xp)
        nans = self.order.counts(rows2)
        n = length - nans if (self.nan and nans is not None) else xp.full(rows, length, np.int64)
        lo, hi = (n - 1) // 2, n // 2
        ranks = xp.clip(xp.stack([lo, hi], axis=-1), 0, length - 1).astype(np.int64)
        vals = self.order.values(ranks)
        a, b = vals[:, 0], vals[:, 1]
        res = mean2(xp, a, b, lo == hi)
        if self.dtype.kind == "f":
            if self.nan:
                empty = n == 0
                if bool(xp.any(empty)):
                    _checks.warn_caller("All-NaN slice encountered", RuntimeWarning)
                res = xp.where(empty, xp.asarray(np.nan, dtype=res.dtype), res)
            elif nans is not None:  # NumPy's: the slice's NaN (its last after a partition)
                res = xp.where(nans > 0, self.order.nan_values().astype(res.dtype), res)
        return res.reshape(tuple(self.kept))


def median_dtype(dt):
    """NumPy's median result dtype: float64 for integers and bool, else the float's own."""
    return np.dtype(np.float64) if dt.kind in "biu" else dt


def mean2(xp, a, b, one):
    """NumPy's mean of the middle values: its sum from 0.0 (so -0.0 gives 0.0), of ``a`` where
    the count is odd (``one``), else of ``a`` and ``b`` halved, summed in float64 (integers,
    bool), float32 (float16) or the float's own dtype."""
    dt = a.dtype
    acc = (
        np.dtype(np.float64)
        if dt.kind in "biu"
        else (np.dtype(np.float32) if dt == np.float16 else dt)
    )
    fa, fb = a.astype(acc), b.astype(acc)
    zero, two = xp.asarray(0, dtype=acc), xp.asarray(2, dtype=acc)
    fa = zero + fa
    res = xp.where(one, fa, (fa + fb) / two)
    return res.astype(median_dtype(dt), copy=False)


class WeightedRun(Plan):
    """quantile (nanquantile with ``nan``) with ``weights`` (method ``inverted_cdf``), as
    NumPy's: each row sorted (a stable segmented sort of the keys with their columns), its
    weights taken alongside, their cumulative sum in float64 normalized by the row's total (in
    q's dtype when q is a float array), and for each quantile the first value whose share
    reaches it. NaNs sort last; the nan-functions give them no weight. ``run(x, w)`` with ``w``
    the weights broadcast to ``x``'s shape. Synchronizes: NumPy's ValueError for a row whose
    weights hold NaN or inf or are all zero reads one flag."""

    def __init__(self, backend, dtype, shape, axes, kept, q, nan, func):
        self.backend, self.xp = backend, backend.xp
        self.axes, self.kept, self.q, self.nan, self.func = axes, kept, q, nan, func
        self.dtype = np.dtype(dtype)
        self.rows = int(np.prod(kept, dtype=np.int64))
        self.length = int(np.prod([shape[i] for i in axes], dtype=np.int64))

    def __call__(self, x, w):
        xp, rows, length, q = self.xp, self.rows, self.length, self.q
        keys = as_keys(read_rows(x, self.axes, xp))
        cols = xp.broadcast_to(xp.arange(length, dtype=np.int64), (rows, length))
        keys, cols = sort_rows(self.backend, keys, cols)
        w = xp.take_along_axis(read_rows(xp.broadcast_to(w, x.shape), self.axes, xp), cols, 1)
        isnan = xp.isnan(keys) if self.dtype.kind == "f" else None
        if self.nan and isnan is not None:
            w = xp.where(isnan, 0, w)
        cdf = xp.cumsum(w, axis=1, dtype=np.float64)
        cdf /= cdf[:, -1:]
        bad = xp.isnan(cdf[:, -1])
        n = length
        if self.nan and isnan is not None:
            n = length - isnan.sum(axis=1, dtype=np.int64)
            empty = n == 0
            bad &= ~empty
        if bool(xp.any(bad)):
            raise ValueError(f"{self.func}: Weights included NaN, inf or were all zero.")
        if q.dtype.kind == "f":
            cdf = cdf.astype(q.dtype)
        cdf[cdf == 0] = -1  # leading zero weights: a quantile 0 takes the first weighted value
        qf = q.reshape(-1)
        # the first index whose cdf reaches each quantile: the count of those below it
        idx = xp.stack([(cdf < xp.asarray(v)).sum(axis=1) for v in qf], axis=1)
        idx = xp.minimum(idx, xp.reshape(xp.asarray(n) - 1, (-1, 1)) if self.nan else n - 1)
        idx = xp.maximum(idx, 0).astype(np.int64)
        res = xp.take_along_axis(keys, idx, 1)  # (R, Q)
        if isnan is not None:
            if self.nan:
                if bool(xp.any(empty)):
                    _checks.warn_caller("All-NaN slice encountered", RuntimeWarning)
                res = xp.where(empty[:, None], xp.asarray(np.nan, dtype=res.dtype), res)
            else:  # NumPy's: the slice's NaN (its last after the sort)
                res = xp.where(isnan[:, -1:], keys[:, -1:], res)
        res = res.view(np.bool_) if self.dtype == np.bool_ else res.astype(self.dtype, copy=False)
        return res.T.reshape(q.shape + tuple(self.kept))

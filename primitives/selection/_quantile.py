"""Order statistics for ``quantile``, ``median`` and their twins: the values of given ranks of
each row, by the multi-rank radix select of ``kernels/selection/quantile.cu``
(:class:`OrderPlan`) or, for short rows or many of them, by a segmented sort; and NumPy's
arithmetic around them (its virtual indexes, gammas and interpolation, its median's mean),
written once over the array module so that it runs on the device for device rows.

A call's path (:class:`QuantileRun`, :class:`MedianRun`): the rows (R, L) along the reduced
axes (a transposing copy when they are not the last ones), the NaN count of each row (the first
pass of the selection counts it), the ranks each row needs (two per quantile: the neighbours
of its virtual index; a median's two middle ones), their values, the interpolation. Selected
float32 and float64 rows of quantile and median take their ranks and NumPy's coefficients from
the plan (on the device once) and their results from one launch over the selection's state
(quantile_finish); those of the nan-functions read the rows' NaN counts back once (their
warnings of all-NaN slices), compute each row's ranks and coefficients from its count on the
host and upload them for the same launch. No host synchronization but the nan-functions' one
read for their warnings. Integer and bool rows hold no NaN: the nan-functions take quantile's
and median's paths. Weighted quantiles (:class:`WeightedRun`) and complex medians
(``_partition.ComplexMedianRun``) sort their rows; ``RankPartitionRun`` partitions rows by the values
of selected ranks (in :mod:`._partition`, which names its own kernels of the same source).
"""

from __future__ import annotations

import numpy as np

from .._core import (
    backend as _backend,
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
from ._arith import lerp, made_nan, nan_as, quantile_ranks, settle_nans

__all__ = [
    "METHODS",
    "OrderPlan",
    "order_plan",
    "Order",
    "QuantileRun",
    "MedianRun",
    "WeightedRun",
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
FIELDS = 12
MAX_BINS = 1 << _policy.MAX_BITS
_START_BLOCK = 1024
#: the one-block-a-row kernels: the first digit's choice, a later digit's
STEPS = [f"quantile_start<{_START_BLOCK}>", f"quantile_choose<{_START_BLOCK}>"]


def _c(ub):
    return _dtypes.CTYPES[_splans.UBITS[ub]]


#: the types quantile_finish computes in for float keys of each width and stores its results as
#: ("T, O" of the kernel): double results stored as float for float32 rows whose first slice is
#: all NaN (the dtype of NumPy's nan-functions' results, :meth:`QuantileRun._nan_finish`)
FINISH = {4: ("float, float", "double, double", "double, float"), 8: ("double, double",)}
#: quantile_finish's modes (prim::quantile::FinishMode)
TAKE, LERP, MEAN = 0, 1, 2
#: quantile_finish's NaN modes (prim::quantile::NanMode): a row holding NaNs gives its NaN, or
#: (the nan-functions) a row of NaNs only gives NaN and any other row ignores its NaNs
ROW_NAN, ALL_NAN = 0, 1


def names(pol):
    out = list(STEPS)
    for ub in _splans.UBITS:
        c = _c(ub)
        out += [
            f"quantile_first<{c}, {pol.block}, {pol.items}>",
            f"quantile_pass<{c}, {pol.block}, {pol.items}, {pol.group}>",
            f"quantile_bits<{c}>",
        ]
        out += [f"quantile_finish<{c}, {to}>" for to in FINISH[ub]]
    return out


for _pol in _policy.TABLE.policies("quantile"):  # every policy, for the NVRTC check
    _loader.register(_kernels.QUANTILE, names(_pol))


class OrderPlan(Plan):
    """The values of ``slots`` ranks of each of ``rows`` rows of ``length`` keys of ``ub``
    bytes (``kind``: prim::radix::KeyKind; ``bits``: the image's meaningful low bits).
    ``first(kbits)``: the first pass (the rows' NaN counts, uint64 (R,), and the largest bits
    of each row's NaNs, zero for none); then ``select(kbits, ranks)`` with the ranks (int64
    (R, slots), or (slots,) for every row, each in [0, length); ``then(state)`` called after
    the first digit's choice, if given): the selection's state, read by
    ``bits(state)`` (the key bits of each rank's value, (R, slots)) or by ``finish(...)``
    (NumPy's results of float keys in one launch). The slots of a row share one candidate
    buffer of ``length / buffer_div`` keys (their shares decided on the device)."""

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
        kpass = get(f"quantile_pass<{c}, {pol.block}, {pol.items}, {pol.group}>")
        tile = pol.block * pol.items
        tiles = _launch.cdiv(length, tile)
        self.pol, self.tiles = pol, tiles
        self.groups = _launch.cdiv(slots, pol.group)
        bpr2 = max(
            1, min(tiles, _launch.cdiv(_launch.resident_grid(kpass, pol.block), rows * self.groups))
        )
        sched = _splans.digits(bits, pol.first_bits, pol.bits)
        i64, i32 = _launch.i64, np.int32
        self.cap = max(1, _launch.cdiv(length, pol.buffer_div))
        self.first_launch = None  # made when first used (a split's first pass replaces it)
        self.head = (i32(kind), i32(sched[0][0]), i32(sched[0][1]))
        self.start = _plans.Launch(get(STEPS[0]), rows, _START_BLOCK)
        self.start_args = (i64(slots), i64(self.cap), i32(sched[0][0]), i32(sched[0][1]))
        self.choose_args = (i64(slots), i64(self.cap), i32(pol.group))
        self.pass_ = _plans.Launch(kpass, bpr2 * self.groups * rows, pol.block)
        self.pass_args = (i64(length), i64(bpr2), i64(self.groups), i64(slots))
        self.choose = _plans.Launch(get(STEPS[1]), rows, _START_BLOCK)
        self.later = [(i32(s), i32(w)) for s, w in sched[1:]]
        self.get, self.c, self.launches = get, c, {}  # bits and finish: made when first used
        self.kind, self.cap64, self.len64 = i32(kind), i64(self.cap), i64(length)
        size = max(rows * MAX_BINS, rows * slots * (MAX_BINS // pol.group))
        self.hist = xp.zeros(size, dtype=np.uint64)  # left zero by the kernels
        self.nbytes = _plans.scratch_bytes(self.hist)

    def first(self, kbits):
        if self.first_launch is None:
            pol, rows = self.pol, self.rows
            kfirst = self.get(f"quantile_first<{self.c}, {pol.block}, {pol.items}>")
            resident = _launch.resident_grid(kfirst, pol.block)
            bpr = max(1, min(self.tiles, _launch.cdiv(resident, rows)))
            self.first_launch = _plans.Launch(kfirst, bpr * rows, pol.block)
            self.first_args = (self.len64, _launch.i64(bpr))
        counts = self.xp.zeros(2 * self.rows, dtype=np.uint64)  # one launch for both
        nans, nanbits = counts[: self.rows], counts[self.rows :].view(self.udt)[: self.rows]
        self.first_launch(kbits, *self.first_args, self.hist, nans, nanbits, *self.head)
        return nans, nanbits

    def select(self, kbits, ranks, then=None):
        xp, rows, slots = self.xp, self.rows, self.slots
        state = xp.empty(rows * slots * FIELDS, dtype=np.int64)  # set by quantile_start
        used = xp.empty(rows, dtype=np.int64)  # set by quantile_start
        buf = xp.empty(rows * self.cap, dtype=self.udt)
        stride = _launch.i64(slots if ranks.ndim == 2 else 0)
        self.start(self.hist, ranks, stride, state, used, *self.start_args)
        if then is not None:  # after the first digit (a split takes rows here: _partition)
            then(state)
        for shift, width in self.later:
            self.pass_(
                kbits, *self.pass_args, buf, self.cap64, state, self.hist, self.kind, shift, width
            )
            self.choose(self.hist, state, used, *self.choose_args, shift, width)
        return state

    def _launch(self, name):
        """The launch of the one-thread-a-row kernel ``name``, made when first used (a plan
        runs bits or one of the finishes, not all)."""
        launch = self.launches.get(name)
        if launch is None:
            launch = _plans.Launch(self.get(name), _launch.cdiv(self.rows, 256), 256)
            self.launches[name] = launch
        return launch

    def bits(self, state):
        out = self.xp.empty((self.rows, self.slots), dtype=self.udt)
        self._launch(f"quantile_bits<{self.c}>")(
            state, _launch.i64(self.rows), _launch.i64(self.slots), self.kind, out
        )
        return out

    def finish(self, state, mode, coef, nans, nanbits, tdt, odt=None, nan_mode=ROW_NAN):
        """NumPy's results of float keys (quantile_finish): (outputs, R) computed in ``tdt``
        (float32 or float64) and stored as ``odt`` (``tdt`` by default; float32 for float64),
        ``coef`` the LERP coefficients (3 * outputs of ``tdt``, shared by the rows, or each
        row's: (R, 3 * outputs)); ``nan_mode`` ROW_NAN or ALL_NAN."""
        tdt = np.dtype(tdt)
        odt = tdt if odt is None else np.dtype(odt)
        outputs = 1 if mode == MEAN else self.slots // 2
        out = self.xp.empty((outputs, self.rows), dtype=odt)
        self._launch(finish_name(self.c, tdt, odt))(
            state,
            _launch.i64(self.rows),
            _launch.i64(self.slots),
            self.kind,
            np.int32(mode),
            coef,
            _launch.i64(coef.shape[1] if coef.ndim == 2 else 0),
            nans,
            nanbits,
            np.int32(nan_mode),
            self.len64,
            made_nan(odt)[()],
            out,
        )
        return out


def selects(rows, length, slots):
    """Whether rows are selected (an :class:`OrderPlan`), not sorted: at least the policy's
    min_len long, their histograms within its hist_bytes."""
    pol = _policy.quantile()
    hist = 8 * max(rows * MAX_BINS, rows * slots * (MAX_BINS // pol.group))
    return length >= pol.min_len and hist <= pol.hist_bytes


def plan_names(ub, pol, first=True):
    """The instantiations every :class:`OrderPlan` of ``ub``-byte keys runs (the first pass's
    unless ``first`` is false; its bits or finish kernel: the caller's that knows which)."""
    c, tile = _c(ub), f"{pol.block}, {pol.items}"
    first_pass = [f"quantile_first<{c}, {tile}>"] * first
    return [*first_pass, f"quantile_pass<{c}, {tile}, {pol.group}>", *STEPS]


def finish_name(c, tdt, odt=None):
    """The quantile_finish instantiation of keys of C++ type ``c`` computing in ``tdt`` and
    storing ``odt`` (``tdt`` by default)."""
    tdt = np.dtype(tdt)
    odt = tdt if odt is None else np.dtype(odt)
    return f"quantile_finish<{c}, {_dtypes.CTYPES[tdt]}, {_dtypes.CTYPES[odt]}>"


def order_plan(backend, dtype, rows, length, slots, results=(), first=True):
    """The :class:`OrderPlan` of rows of ``dtype`` (the keys' dtype: no bool or float16), or
    None where the rows are sorted instead (:func:`selects`). Its kernels (the first pass's
    unless ``first`` is false) and those of ``results`` (the calls' results will come from:
    ``(tdt, odt)`` for a finish, None for the bits) start compiling at once, where kernels
    compile on first use."""
    if not selects(rows, length, slots):
        return None
    pol = _policy.quantile()
    ub = max(4, dtype.itemsize)
    c = _c(ub)
    extra = [f"quantile_bits<{c}>" if r is None else finish_name(c, *r) for r in results]
    _loader.prefetch(_kernels.QUANTILE, plan_names(ub, pol, first) + extra)
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
    NumPy's result for a slice with NaNs; anything for the other rows). Rows that :meth:`fuses`:
    ``prime(rows2)`` then ``finish(...)``, NumPy's results in one launch."""

    def __init__(self, backend, dtype, rows, length, slots, nans, results=(), first=True):
        self.backend, self.xp, self.dtype = backend, backend.xp, np.dtype(dtype)
        self.kdt = _key_dtype(self.dtype)
        self.plan = order_plan(backend, self.kdt, rows, length, slots, results, first)
        self.nans = nans and self.dtype.kind == "f"
        self._state = self._nan = self._counts = None

    def prime(self, rows2):
        """The selection's first pass over the rows (a plan's rows only)."""
        # bool and float16 by their exact images (no float cast: a device's gives its own NaN)
        kbits = _keys.key_bits(rows2)[0].reshape(-1)
        self._counts = self.plan.first(kbits)
        self._state, self._nan = kbits, self._counts[1]
        return self._counts[0]

    def counts(self, rows2):
        if self.plan is not None:
            nans = self.prime(rows2)
            return nans.astype(np.int64) if self.nans else None
        self._state = rows2  # sorted as it is (float16 and bool too)
        return self.xp.isnan(rows2).sum(axis=1, dtype=np.int64) if self.nans else None

    def fuses(self):
        """Whether :meth:`finish` serves these rows: selected float32 or float64 keys."""
        return self.plan is not None and self.dtype in (np.float32, np.float64)

    def select(self, ranks):
        """After :meth:`prime`: (key bits of the rows, the selection's state) of the ranks."""
        kbits = self._state
        self._state = self._nan = self._counts = None
        return kbits, self.plan.select(kbits, ranks)

    def finish(self, ranks, mode, coef, tdt, odt=None, nan_mode=ROW_NAN):
        """NumPy's results of the ranks' values in one launch (:meth:`OrderPlan.finish`), after
        :meth:`prime`: a row holding NaNs gives its NaN (ROW_NAN), or with ALL_NAN a row of
        NaNs only gives NaN, the others their ranks' values (ranks below their non-NaN
        count)."""
        state = self.plan.select(self._state, ranks)
        nans, nanbits = self._counts
        self._state = self._nan = self._counts = None
        return self.plan.finish(state, mode, coef, nans, nanbits, tdt, odt, nan_mode)

    def values(self, ranks):
        if self.plan is not None:
            bits = self.plan.bits(self.plan.select(self._state, self.xp.ascontiguousarray(ranks)))
            vals = _keys.key_back(bits, self.dtype)
            self._nan = _keys.key_back(self._nan, self.dtype)
        else:
            ordered, vals = _splans.sorted_values(self.backend, self._state, ranks)
            self._nan = ordered[:, -1]  # NaNs sort last
        self._state = None
        return vals

    def nan_values(self):
        return self._nan


def _key_dtype(dt):
    return {np.dtype(np.bool_): np.dtype(np.uint8), np.dtype(np.float16): np.dtype(np.float32)}.get(
        dt, dt
    )


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


def warn_all_nan(xp, empty):
    """NumPy's RuntimeWarning for each all-NaN slice (``empty``: bool per slice), as many as
    it gives: one a slice. A read of one count (none for host ``empty``)."""
    for _ in range(int(xp.count_nonzero(empty))):
        _checks.warn_caller("All-NaN slice encountered", RuntimeWarning)


def primed_counts(backend, order, rows2, length):
    """The selection's first pass over the rows (:meth:`Order.prime`) and the count of each
    row's non-NaN keys read back (int64 (R,) on the host: the one read of a nan-function's
    fused path), with NumPy's warning for each all-NaN slice."""
    n = length - backend.fetch(order.prime(rows2)).value().astype(np.int64)
    warn_all_nan(np, n == 0)
    return n


class QuantileRun(Plan):
    """quantile (nanquantile with ``nan``) of arrays of one shape and dtype over ``axes``:
    ``run(x)`` the result of shape ``q.shape + kept`` (NumPy's dtype), C-contiguous; ``q`` the
    checked quantiles (a host array), ``weak`` a Python-number quantile. A q of Python objects
    (``fractions.Fraction``) is computed with on the host, as NumPy does (its indexes, its
    interpolation), the values selected on the backend: the result an object array."""

    def __init__(self, backend, dtype, shape, axes, kept, method, q, weak, nan, func="quantile"):
        self.backend, self.xp = backend, backend.xp
        self.axes, self.kept, self.method, self.nan = axes, kept, method, nan
        self.q, self.weak, self.func = q, weak, func
        self.dtype = np.dtype(dtype)
        self.exact = q.dtype == object
        self.rows = int(np.prod(kept, dtype=np.int64))
        self.length = int(np.prod([shape[i] for i in axes], dtype=np.int64))
        self.inexact = self.dtype.kind == "f"
        self.nan = nan and self.inexact  # integers and bool hold no NaN: quantile's path
        qf = q.reshape(-1)
        if not self.nan:  # the indexes and gammas, once (NumPy's with a Python int count)
            self.fixed = self._ranks(np, self.length, qf)
        # the results' kernel, compiled beside the selection's: the finish of float32/float64
        # rows in the gammas' dtype (nanquantile's of a count like the rows'), else the bits
        results = (None,)
        if self.dtype in (np.float32, np.float64) and not self.exact:
            ndt = q.dtype if q.dtype.kind == "f" else np.dtype(np.intp)
            n = np.full((1, 1), self.length, ndt)  # as _nan_finish gives the counts
            gamma = self.fixed[2] if not self.nan else self._ranks(np, n, qf)[2]
            results = ((self._tdt(gamma), None),)
        self.order = Order(backend, dtype, self.rows, self.length, 2 * q.size, True, results)
        self.fused = None
        # selected float32 and float64 rows: one launch from the selection's state
        self.nan_fused = self.nan and self.order.fuses() and not self.exact
        if self.nan_fused:
            self.zero = backend.xp.zeros(1, self.dtype)  # TAKE's coefficients: none
        if not self.nan and self.order.fuses() and not self.exact:
            self.fused = self._fused(*self.fixed[:3])

    def _tdt(self, gamma):
        """quantile_finish's dtype: the rows' for TAKE (``gamma`` None) or a weak q, else the
        rows' and the gammas' common type."""
        if gamma is None or self.weak:
            return self.dtype
        return np.result_type(self.dtype, np.asarray(gamma).dtype)

    def _ranks(self, ar, n, qf):
        """quantile_ranks in the array module ``ar``; NumPy's TypeError (naming the function)
        where its arithmetic cannot take the quantiles (Python objects and a NaN test)."""
        try:
            return quantile_ranks(ar, n, qf, self.method, self.inexact)
        except TypeError as exc:
            raise TypeError(f"{self.func}: {exc}") from None

    def _fused(self, previous, nxt, gamma):
        """(ranks, mode, coefficients, result dtype) of quantile_finish, on the device once:
        the ranks every row selects (each quantile's neighbours), NumPy's _lerp's t, 1 - t (in
        q's dtype) and t >= 0.5 in the result's dtype (the input's for a Python-number q)."""
        xp, qn, length = self.xp, self.q.size, self.length
        ranks = np.stack([np.broadcast_to(previous, qn), np.broadcast_to(nxt, qn)], axis=-1)
        ranks = np.where(ranks < 0, ranks + length, ranks).clip(0, length - 1)
        ranks = xp.asarray(ranks.reshape(-1).astype(np.int64))
        if gamma is None:
            return ranks, TAKE, xp.zeros(1, self.dtype), self.dtype
        t = np.asarray(gamma).reshape(-1)
        tdt = self._tdt(t)
        return ranks, LERP, xp.asarray(coefficients(t, tdt)), tdt

    def _nan_finish(self, rows2):
        """nanquantile's results (Q, R) of selected float32 or float64 rows in one launch: the
        rows' non-NaN counts n read back once (:func:`primed_counts`), each row's indexes and
        gammas (R, Q) from its n on the host (NumPy's arithmetic, n in q's dtype), its ranks
        (among its non-NaN keys, which sort first) and coefficients uploaded."""
        xp, q, rows, length = self.xp, self.q, self.rows, self.length
        n = primed_counts(self.backend, self.order, rows2, length)
        ndt = q.dtype if q.dtype.kind == "f" else np.dtype(np.intp)
        previous, nxt, gamma, _ = self._ranks(np, n.astype(ndt).reshape(rows, 1), q.reshape(-1))
        ranks = np.stack([previous, nxt], axis=-1).reshape(rows, 2 * q.size)
        ranks = np.where(ranks < 0, ranks + n.reshape(rows, 1), ranks).clip(0, length - 1)
        ranks = xp.asarray(np.ascontiguousarray(ranks, dtype=np.int64))
        if gamma is None:
            return self.order.finish(ranks, TAKE, self.zero, self.dtype, nan_mode=ALL_NAN)
        tdt = self._tdt(gamma)
        # NumPy's results of the slices take the first one's dtype (its apply_along_axis): the
        # input's for an all-NaN first slice
        odt = self.dtype if n[0] == 0 else tdt
        coef = xp.asarray(coefficients(gamma, tdt))
        return self.order.finish(ranks, LERP, coef, tdt, odt, ALL_NAN)

    def __call__(self, x):
        xp, q, rows, length = self.xp, self.q, self.rows, self.length
        shape = q.shape + tuple(self.kept)
        rows2 = read_rows(x, self.axes, xp)
        if self.fused is not None:  # one launch from the selection's state to the results
            ranks, mode, coef, tdt = self.fused
            self.order.prime(rows2)
            return self.order.finish(ranks, mode, coef, tdt).reshape(shape)
        if self.nan_fused:
            return self._nan_finish(rows2).reshape(shape)
        # the arithmetic's module: the backend's, or the host's for a q of Python objects
        ar = np if self.exact else xp
        host = _backend.to_host if self.exact else (lambda v: v)
        nans = self.order.counts(rows2)
        qf = q.reshape(-1)
        if self.nan:
            n = length - nans if nans is not None else xp.full(rows, length, dtype=np.int64)
            ndt = q.dtype if q.dtype.kind == "f" else np.dtype(np.intp)
            nn = host(n.astype(ndt).reshape(rows, 1))
            previous, nxt, gamma, _ = self._ranks(ar, nn, ar.asarray(qf))
            count = xp.asarray(n.reshape(rows, 1))
        else:
            previous, nxt, gamma, _ = self.fixed
            count = length
        previous = xp.broadcast_to(xp.asarray(previous), (rows, qf.size))
        nxt = xp.broadcast_to(xp.asarray(nxt), (rows, qf.size))
        ranks = xp.stack([previous, nxt], axis=-1).reshape(rows, 2 * qf.size)
        ranks = xp.where(ranks < 0, ranks + count if self.nan else ranks + length, ranks)
        ranks = xp.clip(ranks, 0, length - 1).astype(np.int64)
        vals = host(self.order.values(ranks)).reshape(rows, qf.size, 2)
        a, b = vals[..., 0].T, vals[..., 1].T  # (Q, R)
        empty = n == 0 if self.nan else None
        if gamma is None:
            res = a
        else:
            t = ar.asarray(gamma)
            res = lerp(ar, a, b, t.T if self.nan else t.reshape(-1, 1), self.weak)
            if self.nan and self.inexact and not self.exact and res.dtype != self.dtype:
                # NumPy's results of the slices take the first one's dtype (its
                # apply_along_axis): the input's for an all-NaN first slice
                if bool(empty[0]):
                    res = res.astype(self.dtype)
            if self.inexact:  # a NaN made of infinities as the host makes it
                res = settle_nans(ar, res)
        if self.inexact:
            if self.nan:
                warn_all_nan(xp, empty)
                nan = ar.asarray(np.nan, dtype=res.dtype)
                res = ar.where(host(empty)[None, :], nan, res)
            elif nans is not None:  # NumPy's: the slice's NaN (its last after a partition)
                nanv = nan_as(xp, self.order.nan_values(), res.dtype)
                res = ar.where(host(nans)[None, :] > 0, host(nanv)[None, :], res)
        return ar.ascontiguousarray(res.reshape(shape))


def coefficients(t, tdt):
    """quantile_finish's LERP coefficients of the gammas ``t`` (Q,) or (R, Q), in q's dtype:
    NumPy's _lerp's t, 1 - t (computed in t's dtype) and t >= 0.5, in ``tdt`` (the result's
    dtype: the input's for a Python-number q), one row (3 * Q) or one a row (R, 3 * Q)."""
    parts = [t.astype(tdt), (1 - t).astype(tdt), (t >= 0.5).astype(tdt)]
    return np.ascontiguousarray(np.concatenate(parts, axis=-1))


class MedianRun(Plan):
    """median (nanmedian with ``nan``) of arrays of one shape and dtype over ``axes``: the mean
    of the middle value or two, as NumPy's median takes it (float64 for integers and bool,
    float16 through float32, the input's float dtype otherwise)."""

    def __init__(self, backend, dtype, shape, axes, kept, nan):
        self.backend, self.xp = backend, backend.xp
        self.axes, self.kept = axes, kept
        self.dtype = np.dtype(dtype)
        self.nan = nan and self.dtype.kind == "f"  # integers and bool hold no NaN: median's path
        self.rows = int(np.prod(kept, dtype=np.int64))
        self.length = int(np.prod([shape[i] for i in axes], dtype=np.int64))
        results = ((self.dtype, None),) if self.dtype in (np.float32, np.float64) else (None,)
        self.order = Order(backend, dtype, self.rows, self.length, 2, True, results)
        self.fused = None
        if self.order.fuses():  # one launch from the selection's state to the results
            self.zero = backend.xp.zeros(1, self.dtype)  # no coefficients
            if not self.nan:  # the two middle ranks of every row, once
                mid = np.array([(self.length - 1) // 2, self.length // 2], np.int64)
                self.fused = backend.xp.asarray(mid)

    def __call__(self, x):
        xp, rows, length = self.xp, self.rows, self.length
        rows2 = read_rows(x, self.axes, xp)
        if self.fused is not None:
            self.order.prime(rows2)
            res = self.order.finish(self.fused, MEAN, self.zero, self.dtype)
            return res.reshape(tuple(self.kept))
        if self.nan and self.order.fuses():  # each row's middle ranks from its non-NaN count
            n = primed_counts(self.backend, self.order, rows2, length)
            mid = np.clip(np.stack([(n - 1) // 2, n // 2], axis=-1), 0, length - 1)
            ranks = xp.asarray(np.ascontiguousarray(mid, dtype=np.int64))
            res = self.order.finish(ranks, MEAN, self.zero, self.dtype, nan_mode=ALL_NAN)
            return res.reshape(tuple(self.kept))
        nans = self.order.counts(rows2)
        n = length - nans if (self.nan and nans is not None) else xp.full(rows, length, np.int64)
        lo, hi = (n - 1) // 2, n // 2
        ranks = xp.clip(xp.stack([lo, hi], axis=-1), 0, length - 1).astype(np.int64)
        vals = self.order.values(ranks)
        a, b = vals[:, 0], vals[:, 1]
        res = mean2(xp, a, b, lo == hi)
        if self.dtype.kind == "f":
            res = settle_nans(xp, res)  # a NaN made of infinities as the host makes it
            if self.nan:
                empty = n == 0
                warn_all_nan(xp, empty)
                res = xp.where(empty, xp.asarray(np.nan, dtype=res.dtype), res)
            elif nans is not None:  # NumPy's: the slice's NaN (its last after a partition)
                res = xp.where(nans > 0, nan_as(xp, self.order.nan_values(), res.dtype), res)
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
        keys = read_rows(x, self.axes, xp)  # sorted as they are (float16 and bool too)
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
                warn_all_nan(xp, empty)
                res = xp.where(empty[:, None], xp.asarray(np.nan, dtype=res.dtype), res)
            else:  # NumPy's: the slice's NaN (its last after the sort)
                res = xp.where(isnan[:, -1:], keys[:, -1:], res)
        res = res.view(np.bool_) if self.dtype == np.bool_ else res.astype(self.dtype, copy=False)
        return xp.ascontiguousarray(res.T).reshape(q.shape + tuple(self.kept))

"""Statistics plans: one launch over every element (:class:`FlatPlan`), and the launches over
axes (:class:`AxisPlan`), per configuration in the one plan cache.

Over axes the array is read in place as an ``(outer, R, inner)`` C-ordered view whose middle
extent is the reduced one (:func:`layout`): axes of length 1 dropped, adjacent axes of one kind
merged. ``inner == 1`` is a row reduction (stat_rows: groups of lanes per row), otherwise a
column reduction (stat_cols: a thread per kept position, consecutive threads on consecutive
elements). When the kept positions are too few to fill the device, the reduced extent is split
into chunks and stat_combine finishes the chunks' States in a second launch. Reduced axes that
are not one group once merged (axes 0 and 2 of a 3-D array) are moved last in one transposed
copy: the only case with a copy of a contiguous input.
"""

from __future__ import annotations

import numpy as np

from .._core import launch as _launch, plans as _plans
from . import _choose, _policy
from ._kernels import aggregate, kernel, nan_to_kernel, weighted_kernel, width

__all__ = ["FlatPlan", "flat_plan", "AxisPlan", "axis_plan", "layout", "nan_to"]

_STATE_MAX = 48  # the largest State: partials are sized by it (a few KiB a plan at most)


def _f64(v):
    return np.float64(v)


class FlatPlan(_plans.Plan):
    """``kind`` over the n elements of a contiguous array of ``dt``: one launch of stat_flat
    into a new 0-d result (its partials and last-block ticket made once)."""

    def __init__(self, backend, kind, dt, n, param, flag, pol):
        k = kernel("flat", kind, dt, pol)
        vec = 16 // dt.itemsize
        grid = _launch.cover_grid(
            n, pol.block, vec * pol.vectors, kernel=k, per_sm=pol.blocks_per_sm
        )
        xp = self.xp = backend.xp
        self.res = aggregate(kind, dt)[1]
        self.tail = _tail(kind, dt)
        self.partials = xp.empty(grid * _STATE_MAX, dtype=np.uint8)
        self.ticket = xp.zeros(1, dtype=np.uint32)
        slot = _plans.Launch.SLOT
        self.launch = _plans.Launch(
            k,
            grid,
            pol.block,
            args=(
                slot,
                _launch.i64(n),
                self.partials,
                self.ticket,
                slot,
                _f64(param),
                np.int32(flag),
            ),
        )
        self.nbytes = _plans.scratch_bytes(self.partials, self.ticket)

    def run(self, x):
        """The 0-d result of the contiguous device array ``x`` (any shape, of the plan's dtype);
        a State result is a 1-d array of its words."""
        out = self.xp.empty(self.tail, dtype=self.res)
        self.launch(x, out)
        return out

    __call__ = run


def flat_plan(backend, kind, dt, n, param=0.0, flag=0):
    pol = _policy.current()
    dt = np.dtype(dt)
    key = ("statistics/flat", kind, dt, n, float(param), flag, pol, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: FlatPlan(backend, kind, dt, n, param, flag, pol))


def _coalesce(dims):
    """``dims`` [(size, reduced)] without axes of length 1, adjacent axes of one kind merged."""
    out = []
    for size, red in dims:
        if size == 1:
            continue
        if out and out[-1][1] == red:
            out[-1] = (out[-1][0] * size, red)
        else:
            out.append((size, red))
    return out


def layout(shape, axes):
    """``(outer, R, inner)`` of reducing a C-ordered array of ``shape`` over ``axes`` in place,
    or None when the reduced axes are not one group once merged (then moved last, one copy)."""
    dims = _coalesce([(d, a in axes) for a, d in enumerate(shape)])
    groups = [i for i, (_, red) in enumerate(dims) if red]
    if len(groups) > 1:
        return None
    if not groups:
        return int(np.prod(shape, dtype=np.int64)), 1, 1
    g = groups[0]
    outer = int(np.prod([d for d, _ in dims[:g]], dtype=np.int64))
    inner = int(np.prod([d for d, _ in dims[g + 1 :]], dtype=np.int64))
    return outer, dims[g][0], inner


class AxisPlan(_plans.Plan):
    """``kind`` over the middle extent of an ``(outer, R, inner)`` C-ordered array of ``dt``:
    stat_rows (``inner == 1``) or stat_cols, R split in chunks (then stat_combine) when the kept
    positions are too few to fill the device."""

    def __init__(self, backend, kind, dt, outer, R, inner, param, flag, pol):
        xp = self.xp = backend.xp
        self.res, self.m = aggregate(kind, dt)[1], outer * inner
        self.tail = _tail(kind, dt)
        sms = backend.device_info().sm_count
        threads = sms * pol.axis_per_sm * pol.axis_block
        slot, i64 = _plans.Launch.SLOT, _launch.i64
        p, f = _f64(param), np.int32(flag)
        ch = _choose.axis_choice(outer, R, inner, threads, pol)
        splits, chunk = ch.splits, ch.chunk
        k = kernel(ch.kernel, kind, dt, pol)
        grid = _launch.cover_grid(
            outer * splits * (ch.g if inner == 1 else inner),
            pol.axis_block,
            kernel=k,
            per_sm=pol.axis_per_sm,
        )
        if ch.kernel == "rows":
            args = (
                slot,
                i64(outer),
                i64(R),
                i64(splits),
                i64(chunk),
                np.int32(ch.g.bit_length() - 1),
            )
        else:
            args = (slot, i64(outer), i64(R), i64(inner), i64(splits), i64(chunk))
        self.states = xp.empty(max(1, outer * splits * inner) * _STATE_MAX, dtype=np.uint8)
        self.first = _plans.Launch(k, grid, pol.axis_block, args=args + (self.states, slot, p, f))
        self.second = None
        if splits > 1:
            kc = kernel("combine", kind, dt, pol)
            cgrid = _launch.cover_grid(self.m, 256, kernel=kc)
            self.second = _plans.Launch(
                kc, cgrid, 256, args=(self.states, i64(self.m), i64(splits), i64(inner), slot, p, f)
            )
        self.nbytes = _plans.scratch_bytes(self.states)

    def run(self, x):
        """The flat results (``outer * inner``, each of ``tail`` words) of the C-contiguous array
        ``x``."""
        out = self.xp.empty((self.m,) + self.tail, dtype=self.res)
        self.first(x, out)
        if self.second is not None:
            self.second(out)
        return out

    __call__ = run


def axis_plan(backend, kind, dt, outer, R, inner, param=0.0, flag=0):
    pol = _policy.current()
    dt = np.dtype(dt)
    key = (
        "statistics/axis",
        kind,
        dt,
        outer,
        R,
        inner,
        float(param),
        flag,
        pol,
        _plans.stream_key(),
    )
    return _plans.PLANS.get(
        key, lambda: AxisPlan(backend, kind, dt, outer, R, inner, param, flag, pol)
    )


def _tail(kind, dt):
    """The trailing shape of one result: () for a value, (words,) for a State."""
    w = width(kind, dt)
    return () if w == 1 else (w,)


def _prod(sizes):
    p = 1
    for s in sizes:
        p *= int(s)
    return p


def reduce(arr, kind, axes, backend, param=0.0, flag=0):
    """``kind`` of the backend array ``arr`` (C- or F-contiguous, of a dtype ``kind`` takes) over
    ``axes`` (sorted, distinct), every result reducing at least one element: an array of the kept
    axes' shape (0-d over every axis) of the aggregate's result dtype. An F-ordered array is read
    as its reversed view; ``nanargmin``/``nanargmax`` over several axes of one (the flattened
    array's index in C order) read a C-ordered copy."""
    xp = backend.xp
    dt = np.dtype(arr.dtype)
    tail = _tail(kind, dt)
    kept = tuple(d for a, d in enumerate(arr.shape) if a not in axes)
    if _prod(kept) == 0:
        return xp.empty(kept + tail, dtype=aggregate(kind, dt)[1])
    flipped, red = _reading(arr, kind, axes)
    if flipped:
        x = arr.T
    else:
        x = arr if arr.flags.c_contiguous else xp.ascontiguousarray(arr)
    if dt.kind == "c" and _address(x) % dt.itemsize:
        x = x.copy()  # NumPy aligns complex arrays to their parts only; the kernels read whole ones
    x_kept = tuple(d for a, d in enumerate(x.shape) if a not in red)  # the result, x's order
    lay = layout(x.shape, red)
    if lay is None:  # the reduced axes are not one group: moved last, one copy
        keep = [a for a in range(x.ndim) if a not in red]
        x = xp.ascontiguousarray(xp.transpose(x, keep + list(red)))
        lay = (_prod(kept), _prod(arr.shape[a] for a in axes), 1)
    outer, R, inner = lay
    if outer * inner == 1:
        res = flat_plan(backend, kind, dt, x.size, param, flag).run(x)
        return res.reshape(kept + tail)
    res = axis_plan(backend, kind, dt, outer, R, inner, param, flag).run(x)
    res = res.reshape(x_kept + tail)
    return res.transpose(_turn(len(x_kept), tail)) if flipped else res


def _reading(arr, kind, axes):
    """How the kernels read the C- or F-contiguous ``arr`` over ``axes``: ``(flipped, red)``,
    whether as its reversed view (an F-ordered array, which that view makes C-ordered) and the
    reduced axes of what they read. ``nanargmin``/``nanargmax`` over several axes of an
    F-ordered array (the flattened array's index in C order) read a C-ordered copy."""
    if arr.flags.c_contiguous or (kind in ("nanargmin", "nanargmax") and len(axes) > 1):
        return False, tuple(axes)
    return True, tuple(arr.ndim - 1 - a for a in axes)


def _turn(n, tail):
    """The transpose that lays out the results of a reversed view (``n`` kept axes, then the
    ``tail`` of a State's words) in the array's own order."""
    return tuple(range(n - 1, -1, -1)) + tuple(range(n, n + len(tail)))


def _address(arr):
    return arr.ctypes.data if isinstance(arr, np.ndarray) else arr.data.ptr


class Runner:
    """:func:`reduce` of arrays like the one it was made for (same dtype, shape and strides: a
    C-ordered array read as it is, an F-ordered one as its reversed view), its plan found once:
    the repeat-call path. ``kept`` is the result's shape (a State's words last); ``turn``, for
    an F-ordered array, the axes that lay the reversed view's results out in the array's order
    (None: none to turn)."""

    __slots__ = ("plan", "kept", "complex", "turn")

    def __init__(self, plan, kept, is_complex, turn=None):
        self.plan, self.kept, self.complex, self.turn = plan, kept, is_complex, turn

    def __call__(self, a):
        x = a if self.turn is None else a.T
        if self.complex and _address(x) % x.dtype.itemsize:
            x = x.copy()  # a view aligned to the parts only
        r = self.plan.run(x)
        if self.turn is None:
            return r if r.shape == self.kept else r.reshape(self.kept)
        return r.reshape(self.kept).transpose(self.turn)


def runner(arr, kind, axes, backend, param=0.0, flag=0):
    """What reduces ``arr`` (and arrays like it) over ``axes``: a :class:`Runner` holding its
    plan for a C- or F-ordered array with every result reducing an element (F: as its reversed
    view, as :func:`reduce` reads it), else :func:`reduce` itself, called with these
    arguments."""
    dt = np.dtype(arr.dtype)
    kept = tuple(d for a, d in enumerate(arr.shape) if a not in axes)
    flipped, red = _reading(arr, kind, axes)
    shape = arr.shape[::-1] if flipped else arr.shape
    # read as it is (C order, or F order as the reversed view): not a strided view or a copy
    as_is = arr.flags.c_contiguous or (flipped and arr.flags.f_contiguous)
    lay = layout(shape, red) if as_is else None
    if lay is None or _prod(kept) == 0 or _prod(lay) == 0:
        return lambda a: reduce(a, kind, axes, backend, param, flag)
    outer, R, inner = lay
    tail = _tail(kind, dt)
    if outer * inner == 1:
        if flipped:  # one result: reduce's own steps
            return lambda a: reduce(a, kind, axes, backend, param, flag)
        return Runner(
            flat_plan(backend, kind, dt, arr.size, param, flag), kept + tail, dt.kind == "c"
        )
    plan = axis_plan(backend, kind, dt, outer, R, inner, param, flag)
    if not flipped:
        return Runner(plan, kept + tail, dt.kind == "c")
    x_kept = tuple(d for a, d in enumerate(shape) if a not in red)  # the reversed view's order
    return Runner(plan, x_kept + tail, dt.kind == "c", _turn(len(x_kept), tail))


class WeightedPlan(_plans.Plan):
    """numpy.average of n elements with n weights, both of ``dt``: one launch of stat_weighted
    into ``(sum(w x), sum(w))``."""

    def __init__(self, backend, dt, n, pol):
        k = weighted_kernel(dt, pol)
        vec = 16 // dt.itemsize
        grid = _launch.cover_grid(
            n, pol.block, vec * pol.vectors, kernel=k, per_sm=pol.blocks_per_sm
        )
        xp = self.xp = backend.xp
        self.dt = dt
        self.partials = xp.empty(grid * _STATE_MAX, dtype=np.uint8)
        self.ticket = xp.zeros(1, dtype=np.uint32)
        slot = _plans.Launch.SLOT
        self.launch = _plans.Launch(
            k, grid, pol.block, args=(slot, slot, _launch.i64(n), self.partials, self.ticket, slot)
        )
        self.nbytes = _plans.scratch_bytes(self.partials, self.ticket)

    def __call__(self, x, w):
        """``(sum(w x), sum(w))``, a 2-element array, of the contiguous arrays ``x`` and ``w``."""
        out = self.xp.empty(2, dtype=self.dt)
        self.launch(x, w, out)
        return out


def weighted_plan(backend, dt, n):
    pol = _policy.current()
    dt = np.dtype(dt)
    key = ("statistics/weighted", dt, n, pol, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: WeightedPlan(backend, dt, n, pol))


# ---- NaN -> a value ---------------------------------------------------------------------------

#: threads of a block, and elements a thread covers before the grid is capped, of nan_to
NAN_TO_BLOCK, NAN_TO_ITEMS = 256, 4


def nan_to(arr, value, backend):
    """A copy of the float or complex backend array ``arr`` (C- or F-contiguous) with every NaN
    element (complex: a NaN in either part, as ``numpy.isnan``) replaced by ``value`` converted
    to its dtype, the others bit for bit: ``numpy.where(numpy.isnan(arr), value, arr)`` in one
    pass of nan_to (``kernels/statistics/nan_to.cu``), in ``arr``'s layout."""
    xp, dt = backend.xp, arr.dtype
    if not arr.flags.c_contiguous:
        if arr.flags.f_contiguous:  # its reversed axes are C-contiguous
            return nan_to(arr.T, value, backend).T
        arr = xp.ascontiguousarray(arr)  # no caller's layout: the checks make them C or F
    out = xp.empty(arr.shape, dtype=dt)
    if arr.size == 0:
        return out
    parts = 2 if dt.kind == "c" else 1
    part = np.dtype(f"u{dt.itemsize // parts}")
    fill = np.asarray(value, dtype=dt).reshape(1).view(part)[0]  # NumPy's value of the dtype
    launch = _plans.streaming_launch(
        ("statistics/nan_to", dt), lambda: nan_to_kernel(dt), arr.size, NAN_TO_BLOCK, NAN_TO_ITEMS
    )
    launch(_flat(arr).view(part), _launch.i64(arr.size), fill, _flat(out).view(part))
    return out


def _flat(arr):
    """The C-contiguous backend array ``arr`` as a 1-D view (CuPy's reshape of a 0-d array is a
    copy: a new axis is a view)."""
    return arr[None] if arr.ndim == 0 else arr.reshape(-1)

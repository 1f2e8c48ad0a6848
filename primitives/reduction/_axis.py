"""Reductions over axes: the plans behind NumPy's ``axis`` for ``sum``/``prod``/``min``/``max``
(the arguments are checked by :mod:`._checks`, the kernels named by :mod:`._kernels`).

The array is read in place, each element once, by the kernels of kernels/reduction/axis.cu. A
C-contiguous array is taken as it is, an F-contiguous one as its reversed view (C-contiguous, the
axes reversed); any other strided view is made contiguous first (one copy). Axes of length 1 are
dropped and adjacent axes of the same kind (reduced or kept) merged, so that the reduced axes form
groups; each group is one launch over an ``(outer, R, inner)`` view, the innermost group first,
into an intermediate of the accumulator dtype (e.g. axes (0, 2) of a 3-D array: two launches, the
second over the first's output, which is smaller than the input by the last axis's length).
Per launch: ``inner == 1`` is a row reduction (several short rows per 16-byte packet, groups of
lanes per row, one block a row for rows of medium length (the policy's ``slab_min_packets`` to
``slab_max_packets``) when there are rows for every resident block, or blocks per row split
across blocks for few long rows); ``inner`` dividing
a 16-byte packet's element count is a slab reduction (blocks over the contiguous
``(R, inner)`` slabs: the float view of complex data); otherwise a column reduction (threads own
consecutive inner positions, 16-byte packets of them where ``inner`` allows, and loop down R).
When the kept positions give too few threads or blocks to fill the device, R is split across
blocks and a second launch reduces the partials (deterministic: no atomics). One plan per
configuration (:data:`~primitives._core.plans.PLANS`) holds the launches and intermediates.
"""

from __future__ import annotations

import functools

import numpy as np

from .._core import (
    dtypes as _dtypes,
    entry as _entry,
    launch as _launch,
    ops as _ops,
    plans as _plans,
)
from . import _plans as _rp, _policy
from ._kernels import AXIS_DTYPES, axis_kernel, natural, packed_layout

__all__ = [
    "axis_route",
    "AxisPlan",
    "AxisReplay",
    "Shaped",
    "prepare",
    "reduce_axis",
    "complex_axis",
]

_NUMPY_NAME = {"sum": "add", "prod": "multiply", "min": "minimum", "max": "maximum"}


class AxisRoute(tuple):
    """``(conv, kin, kacc, kout, res)``: the input converted to ``conv`` first (None: read as it
    is), the kernels' input, accumulator and output dtypes, and the result dtype (a conversion
    where the kernels' output differs)."""

    __slots__ = ()
    conv = property(lambda self: self[0])
    kin = property(lambda self: self[1])
    kacc = property(lambda self: self[2])
    kout = property(lambda self: self[3])
    res = property(lambda self: self[4])

    def result(self, out):
        return out if out.dtype == self.res else out.astype(self.res)


@functools.lru_cache(maxsize=None)
def axis_route(in_dt, op, res_dt):
    """The :class:`AxisRoute` of ``op`` over ``in_dt`` into ``res_dt`` (NumPy's result dtype or
    a ``dtype=`` request). Integer sums and products into another integer type, and min/max into
    any type, run in the natural types and convert the result (equal to NumPy's, which wraps
    modulo the same power of two, or converts monotonically); other requests convert the input
    to ``res_dt`` first, as NumPy casts the elements."""
    in_dt, res_dt = np.dtype(in_dt), np.dtype(res_dt)
    if isinstance(op, _ops.Op):  # in its accumulator dtype: the elements cast to it
        return AxisRoute((None if in_dt == res_dt else res_dt,) + (res_dt,) * 4)
    nat = natural(in_dt, op)
    if res_dt == nat[2] or op in ("min", "max") or (in_dt.kind in "biu" and res_dt.kind in "iu"):
        return AxisRoute((None,) + nat + (res_dt,))
    return AxisRoute((res_dt,) + natural(res_dt, op) + (res_dt,))


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


def _prod(sizes):
    p = 1
    for s in sizes:
        p *= s
    return p


#: the most packets a wide row of axis_slab holds (kernels/reduction/axis.cu: SLAB_WIDE_MAX)
SLAB_WIDE_MAX = 4


def _slab_inner(inner, k, pol):
    """Whether axis_slab reduces slabs of rows of ``inner`` elements (``k`` a 16-byte packet's):
    ``inner`` dividing a packet, or (the policy's ``slab_wide``) rows of 2 or 4 whole packets
    up to ``slab_wide`` packets."""
    if k % inner == 0:
        return True
    p = inner // k
    return inner % k == 0 and p & (p - 1) == 0 and p <= min(pol.slab_wide, SLAB_WIDE_MAX)


def _pow2_at_least(v):
    p = 1
    while p < v:
        p *= 2
    return p


class AxisPlan(_plans.Plan):
    """The launches reducing a C-contiguous array of ``shape`` over ``axes`` along the route
    ``rt``: made once per configuration; a call allocates the result and launches. With a map
    ``m`` the first launch reads the input through it (the launches over partials read them as
    they are); where no axis longer than 1 is reduced, one launch of rows of one element maps
    the elements."""

    def __init__(self, backend, shape, axes, rt, op, pol, m=None):
        self.xp = backend.xp
        self.route, self.op, self.pol, self.map = rt, op, pol, m
        info = backend.device_info()
        self.sms = info.sm_count
        self.bufs = []  # intermediates, made once
        self.steps = []  # (Launch, source: -1 for the input or a buffer index, dest: None=out)
        dims = _coalesce([(d, a in axes) for a, d in enumerate(shape)])
        self.size_out = _prod(d for a, d in enumerate(shape) if a not in axes)
        src, cur_dt = -1, rt.kin
        while any(red for _, red in dims):
            g = max(i for i, (_, red) in enumerate(dims) if red)
            outer = _prod(d for d, _ in dims[:g])
            inner = _prod(d for d, _ in dims[g + 1 :])
            R = dims[g][0]
            dims = _coalesce(dims[:g] + dims[g + 1 :])
            last = not any(red for _, red in dims)
            out_dt = rt.kout if last else rt.kacc
            src = self._step(src, cur_dt, out_dt, outer, R, inner, last, True)
            cur_dt = out_dt
        if m is not None and not self.steps:  # nothing to combine: each element mapped
            self._step(src, cur_dt, rt.kout, self.size_out, 1, 1, True, False)
        self.nbytes = _plans.scratch_bytes(*self.bufs)

    def _buffer(self, n, dt):
        self.bufs.append(self.xp.empty(n, dtype=dt))
        return len(self.bufs) - 1

    def _step(self, src, in_dt, out_dt, outer, R, inner, last, split_ok, first=True):
        """Adds the launch(es) of one (outer, R, inner) reduction; returns where its output is
        (a buffer index, or None for the result). A pass over partials splits only in chunks
        four times longer (few passes over a little data)."""
        pol, rt, op = self.pol, self.route, self.op
        min_chunk = pol.min_chunk if first else 4 * pol.min_chunk
        K = 16 // in_dt.itemsize
        block, per_sm = pol.block, pol.blocks_per_sm
        threads = self.sms * per_sm * block
        blocks = self.sms * per_sm
        kind, splits, args = None, 1, None
        m = self.map if src == -1 else None  # the input, read through the map
        slab_rows = (
            inner == 1
            and pol.slab_min_packets
            and R >= pol.slab_min_packets * K
            and (not pol.slab_max_packets or R <= pol.slab_max_packets * K)
        )
        if R == 1:  # a map's elements, one per row (no axis reduced)
            kind = "axis_rows"
        elif slab_rows and outer >= blocks:  # a block per row, one block a row
            kind, block = "axis_slab_rows", pol.slab_block or block
        elif inner == 1 and R * in_dt.itemsize < 16 and 16 % (R * in_dt.itemsize) == 0:
            kind = "axis_rows_packed"
        elif (
            inner == 1
            and (not split_ok or outer * 32 >= threads or R < 2 * block * K)
            and not (slab_rows and R >= block * K)
        ):
            kind = "axis_rows"  # a warp (or fewer lanes) per row
        elif _slab_inner(inner, K, pol) and (R * inner >= block * K or outer < blocks):
            kind = "axis_slab" if K % inner == 0 else "axis_slab_wide"
            few = not pol.slab_split_percent or 100 * outer < self.sms * pol.slab_split_percent
            if split_ok and outer < blocks and few:
                # at most one wave of units: a second, partial wave (cdiv: 256 rows split 5 ways
                # on 1056 resident blocks leave 224 units to run after the rest) has too few
                # loads in flight to keep the memory busy
                most = max(1, (R * inner) // (block * K * min_chunk))
                splits = min(max(1, blocks // outer), most)
        else:
            kind = "axis_cols"
            units = outer * (inner // K if inner % K == 0 else inner)
            if split_ok and pol.one_wave:
                # at most one wave of units on the threads the kernel keeps resident (its
                # registers bound them): a partial last wave walks its parts with few loads in
                # flight while the rest of the device idles
                resident = self._resident(kind, in_dt, op, pol, R, block, per_sm, m) * block
                if units < resident:
                    splits = min(resident // units, max(1, R // min_chunk))
            elif split_ok and units < threads:
                splits = min(_launch.cdiv(threads, units), max(1, R // min_chunk))
        splits = min(splits, max(1, R // 2))  # chunks of 2 rows at least: each pass halves R
        chunk = _launch.cdiv(R, splits)
        splits = _launch.cdiv(R, chunk)
        # a split slab of the built-in operators finished by each row's last block: one launch
        finish = (
            kind == "axis_slab" and splits > 1 and pol.slab_finish and not isinstance(op, _ops.Op)
        )
        if finish:
            kind = "axis_slab_finish"
        done = splits == 1 or finish  # this launch writes the step's results
        k_out = out_dt if done else rt.kacc
        k = axis_kernel(
            "axis_slab" if kind == "axis_slab_rows" else kind,
            in_dt,
            rt.kacc,
            k_out,
            op,
            pol,
            R,
            block,
            m,
        )
        slot, i64 = _plans.Launch.SLOT, _launch.i64
        if kind == "axis_rows_packed":
            packets = packed_layout(in_dt, k_out, R, pol)[1]
            grid = _launch.cover_grid(
                _launch.cdiv(outer * R, K), block, packets, kernel=k, per_sm=per_sm
            )
            args = (slot, i64(outer), slot)
        elif kind == "axis_slab_rows":  # the kernel loops over rows past the grid's
            grid = min(outer, _launch.MAX_GRID_X)
            args = (slot, i64(outer), i64(R), i64(1), i64(1), i64(R), slot)
        elif kind == "axis_rows":
            g = min(32, _pow2_at_least(_launch.cdiv(R, K)))
            grid = _launch.cover_grid(outer * g, block, kernel=k, per_sm=per_sm)
            args = (slot, i64(outer), i64(R), np.int32(g.bit_length() - 1), slot)
        elif kind in ("axis_slab", "axis_slab_wide", "axis_slab_finish"):
            grid = min(outer * splits, _launch.resident_grid(k, block, per_sm=per_sm))
            args = (slot, i64(outer), i64(R), i64(inner), i64(splits), i64(chunk))
            if finish:  # the partials and a ticket per row (each left 0 by its row's last block)
                partials = self.xp.empty(outer * splits * inner, dtype=rt.kacc)
                tickets = self.xp.zeros(outer, dtype=np.uint32)
                self.bufs += [partials, tickets]  # made once, counted in the plan's bytes
                args += (partials, tickets)
            args += (slot,)
        else:
            units = outer * splits * (inner // K if inner % K == 0 else inner)
            grid = _launch.cover_grid(units, block, kernel=k, per_sm=per_sm)
            args = (
                slot,
                i64(outer),
                i64(R),
                i64(inner),
                i64(splits),
                i64(chunk),
                np.int32(inner % K == 0),
                slot,
            )
        final = last and done
        dst = None if final else self._buffer(outer * (1 if done else splits) * inner, k_out)
        self.steps.append((_plans.Launch(k, grid, block, args=args), src, dst))
        if not done:  # the partials (outer, splits, inner), split again when still long
            return self._step(dst, rt.kacc, out_dt, outer, splits, inner, last, split_ok, False)
        return dst

    def _resident(self, kind, in_dt, op, pol, R, block, per_sm, m):
        """The blocks of ``kind`` (its instantiation into the accumulator, as a split launch
        writes) resident on the device at once: its occupancy, at most ``per_sm`` an SM."""
        rt = self.route
        k = axis_kernel(kind, in_dt, rt.kacc, rt.kacc, op, pol, R, block, m)
        return _launch.resident_grid(k, block, per_sm=per_sm)

    def run(self, x):
        """The flat result (of ``kout``) of the C-contiguous array ``x`` of ``kin``."""
        out = self.xp.empty(self.size_out, dtype=self.route.kout)
        bufs = self.bufs
        for launch, src, dst in self.steps:
            launch(x if src == -1 else bufs[src], out if dst is None else bufs[dst])
        return out


class AxisReplay:
    """What a later call on an array like the first one (same dtype, shape and strides: C- or
    F-contiguous, read as it is) runs: the plan, the view that makes the array C-ordered (its
    transpose for an F-ordered one) and the result's shape and dtype."""

    __slots__ = ("plan", "flipped", "kin", "out_shape", "rt", "plain")

    def __init__(self, plan, flipped, kin, out_shape, rt):
        self.plan, self.flipped, self.kin, self.out_shape, self.rt = (
            plan,
            flipped,
            kin,
            out_shape,
            rt,
        )
        # the common case, with nothing to do around the launch (each CuPy view costs a
        # microsecond or so of host time, which small calls feel): a C-ordered array read in its
        # own dtype, one kept axis, the result in the kernel's dtype
        self.plain = not flipped and len(out_shape) == 1 and rt.res == rt.kout

    def __call__(self, arr):
        if self.plain and arr.dtype == self.kin:
            return self.plan.run(arr)
        x = arr.T if self.flipped else arr
        if x.dtype != self.kin:
            x = x.view(self.kin)
        flat = self.plan.run(x)
        if self.flipped:
            return self.rt.result(flat.reshape(self.out_shape[::-1]).T)
        return self.rt.result(flat.reshape(self.out_shape))


class Shaped:
    """A replay whose result is reshaped (``keepdims``): the repeat-call path of an axis
    reduction, filed under the call's key."""

    __slots__ = ("replay", "shape")

    def __init__(self, replay, shape):
        self.replay, self.shape = replay, shape

    def __call__(self, arr):
        return self.replay(arr).reshape(self.shape)


def prepare(arr, axes, op, acc_dt, backend, func, m=None):
    """How to reduce the backend array ``arr`` with ``op`` ("sum", "prod", "min", "max") over
    ``axes`` (from :func:`~._checks.normalize_axis`) into the result dtype ``acc_dt``, shaped as
    the kept axes (no keepdims): a :class:`~primitives._core.entry.Prepared` whose run is the
    :class:`AxisReplay` of the plan of this configuration, reusable (for arrays like ``arr``)
    where it reads ``arr`` as it is; else a run over a conversion or copy of ``arr``, or a result
    with nothing to launch. Raises the errors of an empty ``min``/``max`` and an unsupported
    dtype (``func``: the public function they name). ``m``: the map the kernels read ``arr``'s
    elements through (a :class:`~primitives._core.ops.Map`, or None), in their own dtype: a
    route that would convert them first is a TypeError (:func:`~primitives._core.ops.
    check_map`)."""
    xp = backend.xp
    acc_dt = np.dtype(acc_dt)
    if m is not None:  # the dtype itself checked by the caller (reduction._api._prepare)
        _ops.check_map(m, arr.dtype, axis_route(arr.dtype, op, acc_dt).conv, func)
    kept = [a for a in range(arr.ndim) if a not in axes]
    out_shape = tuple(arr.shape[a] for a in kept)
    width = _prod(arr.shape[a] for a in axes)
    if width == 0:
        if isinstance(op, _ops.Op):
            return _entry.Prepared.done(xp.full(out_shape, op.identity_of(acc_dt), dtype=acc_dt))
        if op in ("min", "max"):
            raise ValueError(
                f"{func}: zero-size array to reduction operation "
                f"{_NUMPY_NAME[op]} which has no identity"
            )
        return _entry.Prepared.done((xp.zeros if op == "sum" else xp.ones)(out_shape, dtype=acc_dt))
    if _prod(out_shape) == 0:
        return _entry.Prepared.done(xp.empty(out_shape, dtype=acc_dt))
    if arr.dtype not in AXIS_DTYPES:
        raise TypeError(
            f"{func}: x has dtype {arr.dtype}; supported dtypes are {_dtypes.names(AXIS_DTYPES)}"
        )
    rt = axis_route(arr.dtype, op, acc_dt)
    if width == 1 and m is None:  # nothing to combine: the elements as the result dtype

        def elements(a):
            x = a if rt.conv is None else a.astype(rt.conv)
            return xp.asarray(x.reshape(out_shape)).astype(acc_dt)

        return _entry.Prepared(elements, (arr,))
    if arr.flags.c_contiguous:
        layout, x, shape, red = "C", arr, arr.shape, axes
    elif arr.flags.f_contiguous:  # the reversed view is C-contiguous
        layout, x = "F", arr.T
        shape, red = x.shape, tuple(arr.ndim - 1 - a for a in axes)
    else:  # an arbitrary strided view: one copy
        layout, x, shape, red = "C", xp.ascontiguousarray(arr), arr.shape, axes
    pol = _policy.axis()
    key = ("reduce/axis", shape, red, rt, (op, m), pol, _plans.stream_key())
    plan = _plans.PLANS.get(key, lambda: AxisPlan(backend, shape, frozenset(red), rt, op, pol, m))
    replay = AxisReplay(plan, layout == "F", rt.kin, out_shape, rt)
    src = arr if layout == "F" else x  # what the plan reads: the array, or its C-ordered copy
    if rt.conv is not None:
        src = src.astype(rt.conv)  # the layout kept (order "K")
    return _entry.Prepared(replay, (src,), reusable=src is arr)


def reduce_axis(arr, axes, op, acc_dt, backend, func):
    """``op`` of the backend array ``arr`` over ``axes``, with the result dtype ``acc_dt``,
    shaped as the kept axes (no keepdims): :func:`prepare`, run."""
    return prepare(arr, axes, op, acc_dt, backend, func)()


def complex_axis(arr, axes, op, acc_dt, backend, func):
    """A complex sum, product, min or max over ``axes``, shaped as the kept axes. A sum is the
    float sum of the parts: the array viewed as floats with a last axis of 2, kept, through
    :func:`reduce_axis`. The others (whose parts do not reduce apart) move the reduced axes last
    (one copy, none when they already are the last axes of a C-ordered array) and reduces each
    row in one block of ``reduce_rows``."""
    xp = backend.xp
    if arr.dtype != acc_dt:
        arr = arr.astype(acc_dt)  # NumPy casts the elements to the result's dtype
    if op == "sum":
        part = np.dtype(acc_dt.char.lower())  # complex64 -> float32, complex128 -> float64
        parts = xp.ascontiguousarray(arr).view(part).reshape(arr.shape + (2,))
        res = reduce_axis(parts, axes, "sum", part, backend, func)
        return xp.ascontiguousarray(res).view(acc_dt).reshape(res.shape[:-1])
    kept = [a for a in range(arr.ndim) if a not in axes]
    out_shape = tuple(arr.shape[a] for a in kept)
    width = int(np.prod([arr.shape[a] for a in axes], dtype=np.int64))
    rows = int(np.prod(out_shape, dtype=np.int64))
    if width == 0 or rows == 0:
        return xp.ones(out_shape, dtype=acc_dt)
    lines = xp.ascontiguousarray(xp.transpose(arr, kept + list(axes))).reshape(-1)
    lines = _rp.Route(((), acc_dt, acc_dt, acc_dt, acc_dt)).prepare(lines)  # aligned
    return _rp.rows_plan(backend, acc_dt, op, rows, width).run(lines).reshape(out_shape)

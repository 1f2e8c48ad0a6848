"""Reductions over axes: NumPy's ``axis``, ``keepdims`` and ``out`` for ``sum``/``prod``/``min``/
``max``.

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

from .._core import checks as _checks, dtypes as _dtypes, launch as _launch, loader as _loader
from .._core import plans as _plans
from . import _policy

__all__ = ["normalize_axis", "reduce_axis", "check_out", "result_shape", "finish", "axis_route"]

SOURCE = "reduction/axis.cu"
AXIS_OPS = ("sum", "prod", "min", "max")
_NUMPY_NAME = {"sum": "add", "prod": "multiply", "min": "minimum", "max": "maximum"}
_OP_TEMPLATE = {"sum": "prim::Sum", "prod": "prim::Prod", "min": "prim::Min", "max": "prim::Max"}
_CNAMES = _dtypes.KERNEL_CTYPES
_BOOL, _U8 = np.dtype(np.bool_), np.dtype(np.uint8)
_I32, _U32, _I64, _U64 = (np.dtype(t) for t in (np.int32, np.uint32, np.int64, np.uint64))
_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)
#: every real dtype the axis reductions take
AXIS_DTYPES = _dtypes.REAL


def _natural(dt, op):
    """(kernel input, accumulator, kernel output) dtypes of ``op`` over ``dt`` with NumPy's
    result dtype: sums and products of bool and integers below 64 bits in int64/uint64, of
    float16 in float32 (stored float16); min/max of 1- and 2-byte integers in 32 bits, of
    float16 in float32, stored as the input's dtype. bool is read (and stored) as uint8."""
    kin = _U8 if dt == _BOOL else dt
    if op in ("sum", "prod"):
        if dt == _F16:
            return kin, _F32, _F16
        if dt.kind in "bi" and dt.itemsize < 8:
            return kin, _I64, _I64
        if dt.kind == "u" and dt.itemsize < 8:
            return kin, _U64, _U64
        return kin, dt, dt
    if dt == _F16:
        return kin, _F32, kin
    if dt.itemsize < 4:
        return kin, (_I32 if kin.kind == "i" else _U32), kin
    return kin, dt, kin


class AxisRoute(tuple):
    """``(conv, kin, kacc, kout, res)``: the input converted to ``conv`` first (None: read as it
    is), the kernels' input, accumulator and output dtypes, and the result dtype (a view of the
    output for bool, a conversion where the kernels' output differs otherwise)."""

    __slots__ = ()
    conv = property(lambda self: self[0])
    kin = property(lambda self: self[1])
    kacc = property(lambda self: self[2])
    kout = property(lambda self: self[3])
    res = property(lambda self: self[4])

    def result(self, out):
        if out.dtype == self.res:
            return out
        if self.res == _BOOL and out.dtype == _U8:
            return out.view(_BOOL)
        return out.astype(self.res)


@functools.lru_cache(maxsize=None)
def axis_route(in_dt, op, res_dt):
    """The :class:`AxisRoute` of ``op`` over ``in_dt`` into ``res_dt`` (NumPy's result dtype or
    a ``dtype=`` request). Integer sums and products into another integer type, and min/max into
    any type, run in the natural types and convert the result (equal to NumPy's, which wraps
    modulo the same power of two, or converts monotonically); other requests convert the input
    to ``res_dt`` first, as NumPy casts the elements."""
    in_dt, res_dt = np.dtype(in_dt), np.dtype(res_dt)
    nat = _natural(in_dt, op)
    natural_res = _BOOL if in_dt == _BOOL and op in ("min", "max") else nat[2]
    if (
        res_dt == natural_res
        or op in ("min", "max")
        or (in_dt.kind in "biu" and res_dt.kind in "iu")
    ):
        return AxisRoute((None,) + nat + (res_dt,))
    return AxisRoute((res_dt,) + _natural(res_dt, op) + (res_dt,))


def _triples(op):
    """(input, accumulator, output) of every launch ``op`` can make: first, middle and last
    passes of every route."""
    out = []
    for dt in AXIS_DTYPES:
        kin, kacc, kout = _natural(dt, op)
        for t in ((kin, kacc, kout), (kin, kacc, kacc), (kacc, kacc, kacc), (kacc, kacc, kout)):
            if t not in out:
                out.append(t)
    return out


def kernel_name(kind, kin, kacc, kout, op, pol, block=None):
    i, a, o = _CNAMES[kin], _CNAMES[kacc], _CNAMES[kout]
    block = pol.block if block is None else block
    return f"{kind}<{i}, {a}, {_OP_TEMPLATE[op]}<{a}>, {o}, {block}, {pol.vectors}>"


def packed_rows(dt):
    """The row lengths R that axis_rows_packed takes for elements of ``dt``: several whole rows
    per 16-byte packet (R * itemsize of 2, 4 or 8 bytes, R >= 2)."""
    return tuple(r for r in (2, 4, 8) if r * dt.itemsize < 16)


def packed_layout(kin, kout, R, pol):
    """``(per, packets, exchange)`` of axis_rows_packed over rows of ``R`` elements of ``kin``
    into ``kout``: rows per 16-byte packet; consecutive packets per thread (the policy's
    ``packed_packets``, or where 0 the fewest of 1, 2, 4 whose results fill a 16-byte store); and
    whether a warp loads its packets coalesced and exchanges the results by shuffles (only with
    several packets per thread)."""
    per = 16 // kin.itemsize // R
    if pol.packed_packets not in (0, 1, 2, 4):
        raise ValueError(
            f"reduction 'axis' policy: packed_packets is 0, 1, 2 or 4, not {pol.packed_packets}"
        )
    packets = pol.packed_packets or next((p for p in (1, 2, 4) if p * per * kout.itemsize >= 16), 4)
    return per, packets, int(bool(pol.packed_exchange) and packets > 1)


def packed_name(kin, kacc, kout, op, R, pol):
    per, packets, exchange = packed_layout(kin, kout, R, pol)
    return kernel_name("axis_rows_packed", kin, kacc, kout, op, pol)[:-1] + (
        f", {per}, {packets}, {exchange}>"
    )


_KINDS = ("axis_rows", "axis_slab", "axis_cols")


def names(key, pol):
    """The instantiations of the module ``key`` = (op, accumulator dtype): one module per
    accumulator keeps each small (a call compiles only its own)."""
    op, acc = key
    out = []
    for t in _triples(op):
        if t[1] == acc:
            out += [packed_name(*t, op, R, pol) for R in packed_rows(t[0])]
            out += [kernel_name(kind, *t, op, pol) for kind in _KINDS]
    if pol.slab_block and pol.slab_block != pol.block:
        # medium rows, a block each: the first launch over an input (its own dtype into the
        # result or the accumulator); launches over partials that take that path (rare) compile
        # their instantiation on demand
        for dt in AXIS_DTYPES:
            kin, kacc, kout = _natural(dt, op)
            if kacc == acc:
                out += [
                    kernel_name("axis_slab", kin, kacc, o, op, pol, pol.slab_block)
                    for o in dict.fromkeys((kout, kacc))
                ]
    return list(dict.fromkeys(out))


MODULE_KEYS = tuple(dict.fromkeys((op, t[1]) for op in AXIS_OPS for t in _triples(op)))
_MODULES = _loader.PolicyModules(SOURCE, names, _policy.TABLE, MODULE_KEYS, lambda key: "axis")


def _kernel(kind, kin, kacc, kout, op, pol, R=None, block=None):
    name = (
        packed_name(kin, kacc, kout, op, R, pol)
        if kind == "axis_rows_packed"
        else kernel_name(kind, kin, kacc, kout, op, pol, block)
    )
    return _MODULES.kernel((op, kacc), name, pol)


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


def _pow2_at_least(v):
    p = 1
    while p < v:
        p *= 2
    return p


class AxisPlan(_plans.Plan):
    """The launches reducing a C-contiguous array of ``shape`` over ``axes`` along the route
    ``rt``: made once per configuration; a call allocates the result and launches."""

    def __init__(self, backend, shape, axes, rt, op, pol):
        self.xp = backend.xp
        self.route, self.op, self.pol = rt, op, pol
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
        slab_rows = (
            inner == 1
            and pol.slab_min_packets
            and R >= pol.slab_min_packets * K
            and (not pol.slab_max_packets or R <= pol.slab_max_packets * K)
        )
        if slab_rows and outer >= blocks:  # a block per row, one block a row
            kind, block = "axis_slab_rows", pol.slab_block or block
        elif inner == 1 and R * in_dt.itemsize < 16 and 16 % (R * in_dt.itemsize) == 0:
            kind = "axis_rows_packed"
        elif (
            inner == 1
            and (not split_ok or outer * 32 >= threads or R < 2 * block * K)
            and not (slab_rows and R >= block * K)
        ):
            kind = "axis_rows"  # a warp (or fewer lanes) per row
        elif K % inner == 0 and (R * inner >= block * K or outer < blocks):
            kind = "axis_slab"
            if split_ok and outer < blocks:
                # at most one wave of units: a second, partial wave (cdiv: 256 rows split 5 ways
                # on 1056 resident blocks leave 224 units to run after the rest) has too few
                # loads in flight to keep the memory busy
                most = max(1, (R * inner) // (block * K * min_chunk))
                splits = min(max(1, blocks // outer), most)
        else:
            kind = "axis_cols"
            units = outer * (inner // K if inner % K == 0 else inner)
            if split_ok and units < threads:
                splits = min(_launch.cdiv(threads, units), max(1, R // min_chunk))
        splits = min(splits, max(1, R // 2))  # chunks of 2 rows at least: each pass halves R
        chunk = _launch.cdiv(R, splits)
        splits = _launch.cdiv(R, chunk)
        k_out = out_dt if splits == 1 else rt.kacc
        k = _kernel(
            "axis_slab" if kind == "axis_slab_rows" else kind,
            in_dt,
            rt.kacc,
            k_out,
            op,
            pol,
            R,
            block,
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
        elif kind == "axis_slab":
            grid = min(outer * splits, _launch.resident_grid(k, block, per_sm=per_sm))
            args = (slot, i64(outer), i64(R), i64(inner), i64(splits), i64(chunk), slot)
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
        final = last and splits == 1
        dst = None if final else self._buffer(outer * splits * inner, k_out)
        self.steps.append((_plans.Launch(k, grid, block, args=args), src, dst))
        if splits > 1:  # the partials (outer, splits, inner), split again when still long
            return self._step(dst, rt.kacc, out_dt, outer, splits, inner, last, split_ok, False)
        return dst

    def run(self, x):
        """The flat result (of ``kout``) of the C-contiguous array ``x`` of ``kin``."""
        out = self.xp.empty(self.size_out, dtype=self.route.kout)
        bufs = self.bufs
        for launch, src, dst in self.steps:
            launch(x if src == -1 else bufs[src], out if dst is None else bufs[dst])
        return out


def normalize_axis(axis, ndim, func, scalar_int=True):
    """``axis`` (None, an int or a tuple of ints, negative counting from the end) as a sorted
    tuple of distinct axes in ``[0, ndim)``; NumPy's errors (AxisError, a repeated axis).

    A 0-d array has no axes: a tuple naming any is an AxisError, as in NumPy. ``scalar_int``:
    the integer 0 or -1 is taken as no axis there, as NumPy's ufunc reductions (``sum``, ``max``,
    ``any``, ...) take it; ``numpy.mean`` does not (``scalar_int=False``)."""
    if axis is None:
        return tuple(range(ndim))
    if ndim == 0 and scalar_int and not isinstance(axis, tuple):
        _checks.axis_index(axis, ndim, func, "an integer, a tuple of integers or None")
        return ()
    items = axis if isinstance(axis, tuple) else (axis,)
    out = []
    for a in items:
        a = _checks.axis_index(
            a, ndim, func, "an integer, a tuple of integers or None", scalar=ndim == 0
        )
        if a in out:
            raise ValueError(f"{func}: duplicate value in 'axis'")
        out.append(a)
    return tuple(sorted(out))


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


def reduce_axis(arr, axes, op, acc_dt, backend, func):
    """``op`` ("sum", "prod", "min", "max") of the backend array ``arr`` over ``axes`` (from
    :func:`normalize_axis`), with the result dtype ``acc_dt``, shaped as the kept axes (no
    keepdims). ``func``: the public function the errors name."""
    return reduce_axis_replay(arr, axes, op, acc_dt, backend, func)[0]


def reduce_axis_replay(arr, axes, op, acc_dt, backend, func):
    """:func:`reduce_axis`, and the :class:`AxisReplay` that computes it again for an array like
    ``arr`` (None where the call converted or copied ``arr`` first, or had nothing to launch)."""
    xp = backend.xp
    acc_dt = np.dtype(acc_dt)
    kept = [a for a in range(arr.ndim) if a not in axes]
    out_shape = tuple(arr.shape[a] for a in kept)
    width = _prod(arr.shape[a] for a in axes)
    if width == 0:
        if op in ("min", "max"):
            raise ValueError(
                f"{func}: zero-size array to reduction operation "
                f"{_NUMPY_NAME[op]} which has no identity"
            )
        return (xp.zeros if op == "sum" else xp.ones)(out_shape, dtype=acc_dt), None
    if _prod(out_shape) == 0:
        return xp.empty(out_shape, dtype=acc_dt), None
    if arr.dtype not in AXIS_DTYPES:
        raise TypeError(
            f"{func}: x has dtype {arr.dtype}; supported dtypes are {_dtypes.names(AXIS_DTYPES)}"
        )
    rt = axis_route(arr.dtype, op, acc_dt)
    if width == 1:  # nothing to combine: the elements as the result dtype
        x = arr if rt.conv is None else arr.astype(rt.conv)
        return xp.asarray(x.reshape(out_shape)).astype(acc_dt), None
    if arr.flags.c_contiguous:
        layout, x, shape, red = "C", arr, arr.shape, axes
    elif arr.flags.f_contiguous:  # the reversed view is C-contiguous
        layout, x = "F", arr.T
        shape, red = x.shape, tuple(arr.ndim - 1 - a for a in axes)
    else:  # an arbitrary strided view: one copy
        layout, x, shape, red = "C", xp.ascontiguousarray(arr), arr.shape, axes
    pol = _policy.axis()
    key = ("reduce/axis", shape, red, rt, op, pol, _plans.stream_key())
    plan = _plans.PLANS.get(key, lambda: AxisPlan(backend, shape, frozenset(red), rt, op, pol))
    replay = AxisReplay(plan, layout == "F", rt.kin, out_shape, rt)
    src = arr if layout == "F" else x  # what the plan reads: the array, or its C-ordered copy
    if rt.conv is not None:
        src = src.astype(rt.conv)  # the layout kept (order "K")
    return replay(src), (replay if src is arr else None)


def check_out(out, shape, dtype, func):
    """:func:`~primitives._core.checks.check_out` (``dtype``, the result's, is unused: the result
    is cast to ``out``'s dtype whatever it is; kept for the callers' symmetry)."""
    _checks.check_out(out, shape, func)


def result_shape(shape, axes, keepdims):
    """The shape of a reduction of an array of ``shape`` over ``axes``: the kept axes, and with
    ``keepdims`` the reduced ones as 1s."""
    return tuple(1 if a in axes else d for a, d in enumerate(shape) if keepdims or a not in axes)


def finish(res, inp, shape, axes, keepdims, out, func):
    """The result as NumPy returns it: ``keepdims`` restores the reduced ``axes`` of the input's
    ``shape`` as 1s; ``out`` (an array of the result's shape) receives it, cast to its dtype,
    and is returned; otherwise a scalar for a full reduction (a NumPy
    scalar for a host array, a 0-d device array for a device one), an array of the caller's
    kind otherwise."""
    if keepdims:
        res = res.reshape(result_shape(shape, axes, True))
    if out is not None:
        return _checks.write_out(out, res, func)
    if res.ndim == 0:
        return inp.scalar(res.reshape(1))
    return inp.result(res)

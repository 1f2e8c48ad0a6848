"""``argmin`` and ``argmax``: the index of the first minimum/maximum, as NumPy's.

Kernels in ``kernels/reduction/arg.cu``: the whole array in one launch (``arg_flat``: 16-byte
loads, a block reduction of (key, index) pairs, block partials reduced by the last block), and
along one axis (see :class:`AxisPlan`) ``arg_rows`` (the axis last: a warp per short row, a block
per long one), ``arg_flat`` again for a few long rows (several blocks per row), or ``arg_cols``
(another axis: a thread per output position walking down the axis, coalesced across the
positions after it; too few long columns to fill the device are copied to rows first). Each runs
from a plan per (dtype, op, shape, policy, stream), filed in :data:`primitives._core.plans.PLANS`.
"""

from __future__ import annotations


import numpy as np

from .._core import (
    checks as _checks,
    dtypes as _dtypes,
    launch as _launch,
    loader as _loader,
    plans as _plans,
)
from . import _policy

__all__ = ["argmin", "argmax", "DTYPES"]

SOURCE = "reduction/arg.cu"

#: the dtypes argmin/argmax take, and the C++ type each is read as: the one table's
#: (dtypes.KERNEL_CTYPES), but float16 as arg.cu's prim::half_bits (its bits, ordered there)
DTYPES = _dtypes.REAL
_CNAMES = {
    dt: "prim::half_bits" if dt == np.float16 else _dtypes.KERNEL_CTYPES[dt] for dt in DTYPES
}


def kernel_ctype(dt):
    """The C++ type arg.cu reads ``dt`` as."""
    return _CNAMES[np.dtype(dt)]


_INTP = np.dtype(np.intp)

#: module keys: (kind, C++ input type); "flat" holds arg_flat, "axis" arg_rows and arg_cols
_KEYS = tuple((kind, c) for kind in ("flat", "axis") for c in dict.fromkeys(_CNAMES.values()))


def _flag(is_max):
    return "true" if is_max else "false"


def _flat_name(c, is_max, pol):
    return f"arg_flat<{c}, {_flag(is_max)}, {pol.block}, {pol.vectors}>"


def _rows_name(c, is_max, pol, per_warp):
    return f"arg_rows<{c}, {_flag(is_max)}, {pol.rows_block}, {pol.vectors}, {_flag(per_warp)}>"


def _cols_name(c, is_max, pol):
    return f"arg_cols<{c}, {_flag(is_max)}, {pol.rows_block}>"


def _names(key, pol):
    kind, c = key
    out = []
    for is_max in (False, True):
        if kind == "flat":
            out.append(_flat_name(c, is_max, pol))
        else:
            out += [
                _rows_name(c, is_max, pol, True),
                _rows_name(c, is_max, pol, False),
                _cols_name(c, is_max, pol),
            ]
    return out


_MODULES = _loader.PolicyModules(SOURCE, _names, _policy.TABLE, _KEYS, lambda key: "arg")


def _kernel(kind, dt, name, pol):
    return _MODULES.kernel((kind, _CNAMES[dt]), name, pol)


class FlatPlan(_plans.Plan):
    """``arg_flat`` over ``n`` elements of ``dt``: one launch into a new 0-d int64 result; the
    partials and the ticket (left at 0 by the kernel) made once."""

    def __init__(self, backend, dt, is_max, n, pol):
        k = _kernel("flat", dt, _flat_name(_CNAMES[dt], is_max, pol), pol)
        per_thread = (16 // dt.itemsize) * pol.vectors
        grid = _launch.cover_grid(n, pol.block, per_thread, kernel=k, per_sm=pol.blocks_per_sm)
        self.xp = backend.xp
        self.scratch = self.xp.empty(2 * grid, dtype=np.int64)
        self.ticket = self.xp.zeros(1, dtype=np.uint32)
        slot = _plans.Launch.SLOT
        self.launch = _plans.Launch(
            k, grid, pol.block, args=(slot, _launch.i64(n), self.scratch, self.ticket, slot)
        )
        self.host = not backend.is_cuda
        self.nbytes = _plans.scratch_bytes(self.scratch, self.ticket)

    def run(self, x):
        """The 0-d int64 device array of the index, ``x`` a contiguous device array."""
        out = self.xp.empty((), dtype=np.int64)
        self.launch(x, out)
        return out

    def __call__(self, x):
        """As the public function returns it for ``x`` of the backend's own type: a 0-d CuPy
        array on the GPU, a NumPy scalar on the emulator (NumPy in, NumPy out)."""
        out = self.run(x)
        return out[()] if self.host else out


class AxisPlan(_plans.Plan):
    """An (outer, length, inner) C-ordered array reduced along its middle axis (length >= 1,
    outer * inner >= 2): one launch into a new int64 array of the outer * inner indices.

    Rows (inner 1): a warp per row up to ``warp_row_max`` elements; longer rows ``arg_flat``
    with a grid row per row when there are fewer rows than resident blocks (several blocks per
    row), else a block per row. Columns (inner > 1): ``arg_cols``, one thread per column; when
    the columns are too few to give every multiprocessor a block and longer than
    ``warp_row_max``, they are laid out as rows first (a copy) and taken as rows."""

    def __init__(self, backend, dt, is_max, outer, length, inner, pol):
        c, block = _CNAMES[dt], pol.rows_block
        lines = outer * inner
        slot = _plans.Launch.SLOT
        sms = backend.device_info().sm_count
        self.xp, self.size, self.lines, self.scratch = backend.xp, lines, None, None
        self.nbytes = 0
        if inner > 1 and lines < sms * block and length > pol.warp_row_max:
            self.lines = (outer, length, inner)  # few long columns: made rows by a copy
            inner = 1
        if inner > 1:
            k = _kernel("axis", dt, _cols_name(c, is_max, pol), pol)
            grid = _launch.cover_grid(lines, block, kernel=k)
            args = (slot, _launch.i64(outer), _launch.i64(length), _launch.i64(inner), slot)
        elif length <= pol.warp_row_max:
            k = _kernel("axis", dt, _rows_name(c, is_max, pol, True), pol)
            grid = _launch.cover_grid(lines, block // 32, kernel=k)
            args = (slot, _launch.i64(lines), _launch.i64(length), slot)
        else:
            k = _kernel("flat", dt, _flat_name(c, is_max, pol), pol)
            resident = _launch.resident_grid(k, pol.block, per_sm=pol.blocks_per_sm)
            if lines < resident and lines <= _launch.MAX_GRID_YZ:
                per_thread = (16 // dt.itemsize) * pol.vectors
                gx = _launch.cdiv(length, pol.block * per_thread)
                gx = max(1, min(gx, resident // lines))
                self.scratch = self.xp.empty(2 * gx * lines, dtype=np.int64)
                tickets = self.xp.zeros(lines, dtype=np.uint32)
                self.nbytes = _plans.scratch_bytes(self.scratch, tickets)
                self.launch = _plans.Launch(
                    k,
                    (gx, lines),
                    pol.block,
                    args=(slot, _launch.i64(length), self.scratch, tickets, slot),
                )
                return
            k = _kernel("axis", dt, _rows_name(c, is_max, pol, False), pol)
            grid = _launch.cover_grid(lines, 1, kernel=k)
            args = (slot, _launch.i64(lines), _launch.i64(length), slot)
        self.launch = _plans.Launch(k, grid, block, args=args)

    def run(self, x):
        if self.lines is not None:
            outer, length, inner = self.lines
            x = self.xp.ascontiguousarray(self.xp.swapaxes(x.reshape(outer, length, inner), 1, 2))
        out = self.xp.empty(self.size, dtype=np.int64)
        self.launch(x, out)
        return out


def _flat_plan(backend, dt, is_max, n):
    pol = _policy.arg()
    key = ("reduce/arg_flat", dt, is_max, n, pol, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: FlatPlan(backend, dt, is_max, n, pol))


def _axis_plan(backend, dt, is_max, outer, length, inner):
    pol = _policy.arg()
    key = ("reduce/arg_axis", dt, is_max, outer, length, inner, pol, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: AxisPlan(backend, dt, is_max, outer, length, inner, pol))


# ---- checks -------------------------------------------------------------------------------------


def _check_dtype(dt, func):
    if dt not in _CNAMES:
        extra = " (complex numbers have no order here)" if dt.kind == "c" else ""
        raise TypeError(
            f"{func}: x has dtype {dt}{extra}; supported dtypes are "
            f"{', '.join(d.name for d in DTYPES)}"
        )


def _check_axis(axis, ndim, func):
    """``axis`` (None or one int: NumPy takes no tuple here) as an index, or None."""
    return None if axis is None else _checks.axis_index(axis, ndim, func)


def _check_out(out, shape, func):
    """NumPy's checks of ``out`` (:func:`~primitives._core.checks.check_out`), and its dtype:
    one int64 casts to safely the other way round (NumPy's rule: int32 passes, uint64 and
    floats do not)."""
    _checks.check_out(out, shape, func)
    if not np.can_cast(out.dtype, _INTP, "safe"):
        raise TypeError(
            f"{func}: cannot cast out's dtype {out.dtype} to int64 according to the rule 'safe'"
        )


def _empty(func):
    return ValueError(f"attempt to get {func} of an empty sequence")


# ---- the functions ------------------------------------------------------------------------------


def _arg(x, axis, out, keepdims, is_max, func):
    simple = axis is None and out is None and not keepdims
    key = _plans.call_key(func, (x,)) if simple else None
    plan = _plans.PLANS.find(key) if key is not None else None
    if plan is not None:  # an earlier call on a like array checked it
        return plan(x)
    return _setup(x, axis, out, keepdims, is_max, func, key)()


def _setup(x, axis, out, keepdims, is_max, func, key=None):
    """Every check of a call, in NumPy's order and before any launch, and its plan; returns
    the call to run. ``key``: the call key to file the whole-array plan under."""
    inp = _checks.as_input(x, func=func, arg="x")
    arr = inp.array
    if arr.ndim == 1 and np.ndim(x) == 0:  # made 1-D on the way to contiguous memory
        arr = arr.reshape(())
    _check_dtype(arr.dtype, func)
    if not isinstance(keepdims, (bool, np.bool_, int, np.integer)):
        raise TypeError(f"{func}: keepdims must be a bool, got {type(keepdims).__name__}")
    keepdims = bool(keepdims)
    ax = _check_axis(axis, arr.ndim, func)
    backend = inp.backend
    if ax is None or arr.ndim == 0:
        shape = (1,) * arr.ndim if keepdims else ()
        if out is not None:
            _check_out(out, shape, func)
        if arr.size == 0:
            raise _empty(func)
        plan = _flat_plan(backend, arr.dtype, is_max, arr.size)
        if key is not None and arr is x:  # read as it is: later like calls take the plan
            _plans.PLANS.file(key, plan)
        compute = lambda: plan.run(arr.reshape(-1)).reshape(shape)  # noqa: E731
    else:
        dims = arr.shape
        outer = int(np.prod(dims[:ax], dtype=np.int64))
        length = dims[ax]
        inner = int(np.prod(dims[ax + 1 :], dtype=np.int64))
        shape = dims[:ax] + (1,) + dims[ax + 1 :] if keepdims else dims[:ax] + dims[ax + 1 :]
        if out is not None:
            _check_out(out, shape, func)
        if length == 0:
            raise _empty(func)
        if outer * inner == 0:
            compute = lambda: backend.xp.empty(shape, dtype=np.int64)  # noqa: E731
        elif outer * inner == 1:  # one line: the whole-array kernel, every multiprocessor
            plan = _flat_plan(backend, arr.dtype, is_max, length)
            compute = lambda: plan.run(arr.reshape(-1)).reshape(shape)  # noqa: E731
        else:
            plan = _axis_plan(backend, arr.dtype, is_max, outer, length, inner)
            compute = lambda: plan.run(arr).reshape(shape)  # noqa: E731

    def run():
        res = compute()
        if out is not None:
            if isinstance(out, np.ndarray):
                np.copyto(out, res if isinstance(res, np.ndarray) else res.get(), casting="unsafe")
            else:
                out[...] = backend.xp.asarray(res).astype(out.dtype, copy=False)
            return out
        if res.ndim == 0:
            return inp.scalar(res.reshape(1))
        return inp.result(res)

    return run


def _maker(is_max):
    func = "argmax" if is_max else "argmin"

    def make(x, axis=None, out=None, *, keepdims=False):
        """What ``prim.plan(prim.argmax, x, ...)`` runs for arrays like ``x``: the whole-array
        plan itself for a backend array read as it is, else the checked call."""
        _setup(x, axis, out, keepdims, is_max, func)  # every check, before any launch
        if axis is None and out is None and not keepdims:
            inp = _checks.as_input(x, func=func, arg="x")
            if inp.array is x:
                return _flat_plan(inp.backend, x.dtype, is_max, x.size)
        return lambda y: _arg(y, axis, out, keepdims, is_max, func)

    return make


@_plans.planned(_maker(False))
def argmin(x, axis=None, out=None, *, keepdims=False):
    """Index of the first minimum of ``x`` (over the flattened array, or along ``axis``), as
    :func:`numpy.argmin`.

    Args:
        x: array of bool, int8, uint8, int16, uint16, int32, int64, uint32, uint64, float16,
            float32 or float64 (CuPy, NumPy, or anything with ``__cuda_array_interface__`` /
            DLPack), any ndim. Host arrays of non-native byte order are converted to native
            order on the host.
        axis: None (the index into the flattened array) or an int (negative counting from the
            end): the axis along which the indices are taken. NumPy takes one axis only: a
            tuple is a ``TypeError``.
        out: an array of the result's shape (``keepdims`` included) and of a dtype int64 casts
            to safely the other way round (int64, or int32 as NumPy allows), which receives
            the result and is returned.
        keepdims: keep the reduced axis (every axis for ``axis=None``) as an axis of length 1.

    Returns:
        int64 (``numpy.intp``) indices: a 0-d device array for device input with ``axis=None``
        (like ``cupy.argmin``), a NumPy scalar for host input (like ``numpy.argmin``); with
        ``axis`` an array of the other axes (``keepdims``: all axes); with ``out`` that array.

    Raises:
        TypeError: ``x`` is not an array, or its dtype is unsupported (complex: no order is
            defined here, unlike NumPy's lexicographic one; str, object, datetime64, ...);
            ``axis`` is not an integer (a tuple, a float, a bool); ``out`` is not an array or
            of a dtype that cannot hold int64 safely.
        ValueError: ``x`` is empty, or the axis has length 0 ("attempt to get argmin of an
            empty sequence", NumPy's message); ``axis`` out of range
            (``numpy.exceptions.AxisError``); ``out`` of another shape or read-only.

    NaN is the minimum: the index of the first NaN when there is one, as NumPy. Among equal
    minima (-0.0 and 0.0 are equal) the first index. Device input: no host synchronization.
    Host input: one copy in and one out. The whole-array kernel reads every dtype in place,
    16 bytes per load.

    See Also:
        :func:`numpy.argmin`, :func:`cupy.argmin`, :func:`argmax`.
    """
    return _arg(x, axis, out, keepdims, False, "argmin")


@_plans.planned(_maker(True))
def argmax(x, axis=None, out=None, *, keepdims=False):
    """Index of the first maximum of ``x`` (over the flattened array, or along ``axis``), as
    :func:`numpy.argmax`.

    Args:
        x: array of bool, int8, uint8, int16, uint16, int32, int64, uint32, uint64, float16,
            float32 or float64 (CuPy, NumPy, or anything with ``__cuda_array_interface__`` /
            DLPack), any ndim.
        axis: None (the index into the flattened array) or an int (negative counting from the
            end); a tuple is a ``TypeError`` as in NumPy.
        out: an array of the result's shape and of a dtype int64 casts to safely the other way
            round, which receives the result and is returned.
        keepdims: keep the reduced axis (every axis for ``axis=None``) as an axis of length 1.

    Returns:
        int64 (``numpy.intp``) indices, as :func:`argmin` returns them.

    Raises:
        TypeError: as :func:`argmin` (complex input included).
        ValueError: ``x`` empty or the axis of length 0 ("attempt to get argmax of an empty
            sequence"); ``axis`` out of range (``numpy.exceptions.AxisError``); ``out`` of
            another shape or read-only.

    NaN is the maximum: the index of the first NaN when there is one, as NumPy. Among equal
    maxima the first index.

    See Also:
        :func:`numpy.argmax`, :func:`cupy.argmax`, :func:`argmin`.
    """
    return _arg(x, axis, out, keepdims, True, "argmax")

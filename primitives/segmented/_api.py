"""Segmented scan and segmented reduction (``kernels/scan/segmented.cu``).

Both are one pass of the decoupled look-back scan over (value, head) pairs, balanced over
elements rather than segments: each thread block takes a fixed-size tile of elements whatever
the segment lengths, so many tiny segments and a few huge ones cost about the same. With offsets,
a small pre-pass first records where each tile's offsets begin; each tile then builds a bitmap of
its segment heads (scans) or ends (reduction) in shared memory. The reduction keeps no scanned
value per element: each thread sums its runs in registers, and only the run open at its start
takes what came before it.
"""

from __future__ import annotations

import numpy as np

from ._core import backend as _backend, checks as _checks, dtypes as _dtypes, launch as _launch, loader as _loader, lookback as _lookback

__all__ = ["segmented_scan", "segmented_reduce"]

_SOURCE = "scan/segmented.cu"
_OP_TEMPLATE = {"sum": "prim::Sum", "min": "prim::Min", "max": "prim::Max"}
_MODES = {"inclusive": 0, "exclusive": 1, "reduce": 2}
# how a tile finds its head flags (kernels/scan/segmented.cu): flags, or offsets whose per-tile
# bounds come from the segmented_bounds pre-pass
_SEG_FLAGS, _SEG_SEARCH, _SEG_BOUNDS = 0, 1, 2
_SEG_OFFSETS = _SEG_BOUNDS
# policy per mode (tools/tune_segmented.py on an H100): threads per block, bytes per thread of
# the wider of input and accumulator, resident blocks per multiprocessor to leave registers for
_POLICY = {"inclusive": (256, 64, 6), "exclusive": (256, 64, 6), "reduce": (128, 128, 8)}
# The reduction's loads: 16-byte vectors exchanged through shared memory, or read per thread when
# the mean segment is shorter than this many elements. On an H100 (tools/tune_segmented.py, float32
# at 2^28, launches alone): 2^16 segments of 4096, exchanged 0.3762 ms, per thread 0.4022 ms;
# 2^22 segments of 0..128, exchanged 0.5393 ms, per thread 0.5209 ms. The threshold between the two
# measured means (4096 and 64) is a guess.
_REDUCE_PER_THREAD_BELOW = 256
# Tiles drawn from the counter (True) or taken in block order (the look-back then relies on blocks
# starting in index order; measured 1-4% faster on an H100)
_REDUCE_DRAWN = True
_BOUNDS_BLOCK = 256


def _items(in_dt, acc_dt, mode):
    return _POLICY[mode][1] // max(in_dt.itemsize, acc_dt.itemsize)


def _name(in_dt, acc_dt, op, mode, segs):
    in_c, acc_c = _dtypes.CTYPES[in_dt], _dtypes.CTYPES[acc_dt]
    return (f"segmented_lookback<{in_c}, {acc_c}, {_OP_TEMPLATE[op]}<{acc_c}>, "
            f"{_POLICY[mode][0]}, {_items(in_dt, acc_dt, mode)}, {_MODES[mode]}, {segs}, "
            f"{_POLICY[mode][2]}>")


def _reduce_name(in_dt, acc_dt, op, exchange):
    in_c, acc_c = _dtypes.CTYPES[in_dt], _dtypes.CTYPES[acc_dt]
    block, _, min_blocks = _POLICY["reduce"]
    return (f"segmented_reduce_tiles<{in_c}, {acc_c}, {_OP_TEMPLATE[op]}<{acc_c}>, {block}, "
            f"{_items(in_dt, acc_dt, 'reduce')}, {min_blocks}, "
            f"{'true' if exchange else 'false'}, {'true' if _REDUCE_DRAWN else 'false'}>")


def _reduce_tile(in_dt, acc_dt):
    return _POLICY["reduce"][0] * _items(in_dt, acc_dt, "reduce")


def _upper_name(tile):
    return f"segmented_upper_bounds<{tile}>"


_KINDS = [("inclusive", _SEG_FLAGS), ("exclusive", _SEG_FLAGS), ("inclusive", _SEG_OFFSETS),
          ("exclusive", _SEG_OFFSETS)]
_BOUNDS_NAME = "segmented_bounds"
_NAMES = [_name(i, a, op, m, g) for i, a in _dtypes.ACC_PAIRS for op in _checks.OPS
          for m, g in _KINDS] + [
    _reduce_name(i, a, op, e) for i, a in _dtypes.ACC_PAIRS for op in _checks.OPS
    for e in (True, False)] + [
    _BOUNDS_NAME] + sorted({_upper_name(_reduce_tile(i, a)) for i, a in _dtypes.ACC_PAIRS})
_loader.register(_SOURCE, _NAMES)

_plans = _lookback.PlanCache()


def _kernel(name):
    return _loader.load(_SOURCE, _NAMES)(name)


def _launch_segmented(arr, n, in_dt, acc_dt, op, mode, flags, offsets, nseg, out, backend):
    xp = backend.xp
    segs = _SEG_FLAGS if offsets is None else _SEG_OFFSETS
    block = _POLICY[mode][0]
    tile = block * _items(in_dt, acc_dt, mode)

    def make():
        k = _kernel(_name(in_dt, acc_dt, op, mode, segs))
        tiles = _launch.cdiv(n, tile)
        # one Flagged<AccT> per tile: the value, the head flag, padding to the value's alignment
        plan = _lookback.LookbackPlan(k, tiles, block, n, xp, 2 * acc_dt.itemsize)
        # stand-ins for the arguments a kind does not use; the tile bounds of the offsets
        bounds = xp.zeros(tiles + 1 if segs == _SEG_BOUNDS else 1, dtype=np.int64)
        plan.extra = [xp.zeros(1, dtype=np.uint8), xp.zeros(1, dtype=np.int64), bounds, False]
        return plan

    plan = _plans.get((in_dt, acc_dt, op, mode, segs, n, backend.stream_key()), make)
    stand_flags, stand_offsets, bounds, bounds_validated = plan.extra
    if segs == _SEG_BOUNDS:  # the pre-pass: each tile's boundary words
        k = _kernel(_BOUNDS_NAME)
        grid = _launch.cdiv(bounds.size * 32, _BOUNDS_BLOCK)  # a warp per boundary
        args = (offsets, _launch.i64(nseg), _launch.i64(tile), _launch.i64(bounds.size), bounds)
        if bounds_validated:
            k((grid,), (_BOUNDS_BLOCK,), args)
        else:
            _launch.launch(k, grid, _BOUNDS_BLOCK, args)
            plan.extra[3] = True
    plan.launch(arr, plan.n64, stand_flags if flags is None else flags,
                stand_offsets if offsets is None else offsets, _launch.i64(nseg), bounds, out)


class _ReducePlan(_lookback.LookbackPlan):
    """A reduction's launches: the segmented_upper_bounds pre-pass, which writes the tile words
    to ``bounds``, then the tiles (``segmented_reduce_tiles``, with ``smem`` bytes of dynamic
    shared memory for its load exchange)."""

    __slots__ = ("upper", "bounds", "count")

    def __init__(self, kernel, upper, n, block, items, in_dt, acc_dt, exchange, xp):
        tile = block * items
        tiles = _launch.cdiv(n, tile)
        # one Flagged<AccT> per tile: the value, the head flag, padding to the value's alignment
        super().__init__(kernel, tiles, block, n, xp, 2 * acc_dt.itemsize,
                         smem=tile * in_dt.itemsize if exchange else 0)
        self.upper = upper  # segmented_upper_bounds<tile>
        self.count = _launch.i64(tiles + 1)
        self.bounds = xp.empty(tiles + 1, dtype=np.int64)  # every word written by the pre-pass

    def run(self, arr, offsets, nseg, out):
        """Both launches. ``out`` is nseg values, or a callable that allocates them: it is then
        called once the pre-pass is on its way, so that the allocation overlaps it."""
        grid = _launch.cdiv(nseg + 2, _BOUNDS_BLOCK)  # a thread per index 0 .. nseg + 1
        args = (offsets, _launch.i64(nseg), self.count, self.bounds)
        if self.validated:
            self.upper((grid,), (_BOUNDS_BLOCK,), args)
        else:
            _launch.launch(self.upper, grid, _BOUNDS_BLOCK, args)
        if callable(out):
            out = out()
        self.launch(arr, self.n64, offsets, _launch.i64(nseg), self.bounds, out)
        return out


def _launch_reduce(arr, n, in_dt, acc_dt, op, offsets, nseg, backend):
    xp = backend.xp

    exchange = n >= _REDUCE_PER_THREAD_BELOW * nseg

    def make():
        return _ReducePlan(_kernel(_reduce_name(in_dt, acc_dt, op, exchange)),
                           _kernel(_upper_name(_reduce_tile(in_dt, acc_dt))), n,
                           _POLICY["reduce"][0], _items(in_dt, acc_dt, "reduce"), in_dt, acc_dt,
                           exchange, xp)

    plan = _plans.get((in_dt, acc_dt, op, "reduce", exchange, n, backend.stream_key()), make)
    # the kernel writes every segment, empty ones included
    return plan.run(arr, offsets, nseg, lambda: xp.empty(nseg, dtype=acc_dt))


def _offsets(offsets, n, *, func, cover, check):
    """Offsets as a device int64 array of nseg + 1 values, validated unless ``check=False``."""
    o = _checks.as_input(offsets, func=func, arg="offsets", ndim=1)
    arr = o.array
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{func}: offsets must be an integer array, got dtype {arr.dtype.name}")
    if arr.size < 1:
        raise ValueError(f"{func}: offsets must hold at least one value (nseg + 1 boundaries)")
    xp = o.backend.xp
    arr = arr.astype(np.int64, copy=False)
    if check:
        # one device-to-host transfer of three scalars (skipped with check=False)
        dec = xp.count_nonzero(arr[1:] < arr[:-1]) if arr.size > 1 else 0
        stats = xp.stack([xp.asarray(dec, dtype=np.int64), arr[0], arr[-1]])
        bad, first, last = (int(v) for v in _backend.to_host(stats))
        if bad:
            raise ValueError(f"{func}: offsets must be non-decreasing ({bad} decreasing steps)")
        if first < 0 or last > n:
            raise ValueError(f"{func}: offsets must lie in [0, {n}], got {first} .. {last}")
        if cover and (first != 0 or last != n):
            raise ValueError(
                f"{func}: offsets must start at 0 and end at x.size={n} so that every element is "
                f"in a segment, got {first} .. {last}"
            )
    return arr


def segmented_scan(x, *, flags=None, offsets=None, op="sum", inclusive=True, dtype=None,
                   check=True):
    """Scan each segment of ``x`` independently.

    Segments are given either by head ``flags`` (``flags[i]`` true starts a segment at ``i``;
    element 0 always starts one) or by CSR-style ``offsets`` (segment ``s`` is
    ``x[offsets[s]:offsets[s+1]]``; ``offsets[0] == 0``, ``offsets[-1] == x.size``; empty segments
    allowed).

    Args:
        x: 1-D array of int32, int64, uint32, uint64, float32 or float64.
        flags: boolean array of ``x.size`` elements, or None.
        offsets: integer array of nseg + 1 non-decreasing boundaries, or None.
        op: ``"sum"``, ``"min"`` or ``"max"``.
        inclusive: inclusive scan (True) or exclusive (the identity at each segment's start).
        dtype: result dtype, defaults as :func:`primitives.inclusive_scan`.
        check: validate ``offsets`` (one small device-to-host read); ``False`` skips it for
            offsets known to be valid.

    Returns:
        A 1-D array of ``x.size`` elements (CuPy for device input, NumPy for host input).

    Raises:
        TypeError: ``x``, ``flags`` or ``offsets`` of the wrong type or dtype.
        ValueError: both or neither of ``flags``/``offsets``; ``flags`` of the wrong length;
            offsets decreasing, outside ``[0, x.size]`` or not covering ``x``; unknown ``op``.

    See Also:
        :func:`numpy.cumsum` per segment; :func:`segmented_reduce`.
    """
    func = "segmented_scan"
    if (flags is None) == (offsets is None):
        raise ValueError(f"{func}: give exactly one of flags= and offsets=")
    inp, arr, in_dt, acc_dt = _checks.op_input(x, op, dtype, func=func, ndim=1)
    n = arr.size
    f = o = None
    if flags is not None:
        fi = _checks.as_input(flags, func=func, arg="flags", ndim=1)
        if fi.array.dtype != np.bool_:
            raise TypeError(f"{func}: flags must be a boolean array, got dtype "
                            f"{fi.array.dtype.name}")
        if fi.array.size != n:
            raise ValueError(f"{func}: flags has {fi.array.size} elements, x has {n}")
        f = fi.array
    else:
        o = _offsets(offsets, n, func=func, cover=True, check=check)
    xp = inp.backend.xp
    if n == 0:
        return inp.result(xp.empty(0, dtype=acc_dt))
    out = xp.empty(n, dtype=acc_dt)
    mode = "inclusive" if inclusive else "exclusive"
    nseg = 0 if o is None else o.size - 1
    _launch_segmented(arr, n, in_dt, acc_dt, op, mode, f, o, nseg, out, inp.backend)
    return inp.result(out)


def _reduce_fast(x, offsets, op):
    """segmented_reduce(x, offsets, op, check=False) without the general input conversion when x
    and offsets can go to the kernels as they are (_checks.direct_input; 1-D, int64 offsets, at
    least one segment): the same launches, less host time before them. None otherwise."""
    backend = _backend.get_backend()
    direct = _checks.direct_input(x, op, None, backend)
    if (direct is None or x.ndim != 1 or type(offsets) is not backend.xp.ndarray
            or offsets.ndim != 1 or offsets.dtype != np.int64 or offsets.size < 2
            or not offsets.flags.c_contiguous):
        return None
    return _launch_reduce(x, x.size, *direct, op, offsets, offsets.size - 1, backend)


def segmented_reduce(x, offsets, op="sum", *, dtype=None, check=True):
    """Reduce each segment ``x[offsets[s]:offsets[s+1]]``; empty segments give the identity
    (0 for ``sum``; for ``min``/``max`` the dtype's extreme, infinities for floats).

    Args:
        x: 1-D array of int32, int64, uint32, uint64, float32 or float64.
        offsets: integer array of nseg + 1 non-decreasing boundaries in ``[0, x.size]``;
            elements outside ``[offsets[0], offsets[-1])`` belong to no segment.
        op: ``"sum"``, ``"min"`` or ``"max"``.
        dtype: result dtype, defaults as :func:`primitives.reduce`.
        check: validate ``offsets`` (one small device-to-host read).

    Returns:
        A 1-D array of nseg values (CuPy for device input, NumPy for host input).

    Raises:
        TypeError: ``x`` or ``offsets`` of the wrong type or dtype.
        ValueError: offsets decreasing, empty or outside ``[0, x.size]``; unknown ``op``.

    See Also:
        :func:`numpy.ufunc.reduceat` (``numpy.add.reduceat(x, offsets[:-1])`` for non-empty
        segments), :func:`segmented_scan`.
    """
    func = "segmented_reduce"
    if not check and dtype is None:
        out = _reduce_fast(x, offsets, op)
        if out is not None:
            return out
    inp, arr, in_dt, acc_dt = _checks.op_input(x, op, dtype, func=func, ndim=1)
    n = arr.size
    o = _offsets(offsets, n, func=func, cover=False, check=check)
    nseg = o.size - 1
    xp = inp.backend.xp
    if n == 0 or nseg == 0:
        return inp.result(xp.full(nseg, _dtypes.identity(op, acc_dt), dtype=acc_dt))
    return inp.result(_launch_reduce(arr, n, in_dt, acc_dt, op, o, nseg, inp.backend))


def tour_sections(gpu, log2n=None):
    """Tour workload: equal float32 segments (2^16 x 2^12 on a GPU), scanned and reduced, against
    ``cupy.cumsum(axis=1)`` and ``sum(axis=1)`` on a GPU."""
    from . import tour as _tour

    n = 1 << (log2n or (28 if gpu else 14))
    rows = min(1 << 16, n >> 6)
    cols = n // rows

    def contenders():
        xp = _backend.get_backend().xp
        host = _tour.random_data(np.random.default_rng(n + 3), n, np.float32)
        x = xp.asarray(host)
        x2 = x.reshape(rows, cols)
        off = xp.arange(0, n + 1, cols, dtype=np.int64)
        h2 = host.reshape(rows, cols).astype(np.float64)
        want_scan = np.cumsum(h2, axis=1).reshape(-1)
        want_red = h2.sum(axis=1)

        def near(ref):
            return lambda got: bool(np.allclose(_tour.to_host(got).reshape(-1), ref,
                                                rtol=1e-4))

        out = [_tour.Contender("segmented_scan",
                               lambda: segmented_scan(x, offsets=off, check=False),
                               near(want_scan)),
               _tour.Contender("segmented_reduce",
                               lambda: segmented_reduce(x, off, check=False), near(want_red))]
        if gpu:
            out += [_tour.Contender("cupy.cumsum(axis=1) (peer)",
                                    lambda: xp.cumsum(x2, axis=1), near(want_scan)),
                    _tour.Contender("sum(axis=1) (peer)", lambda: x2.sum(axis=1),
                                    near(want_red))]
        return out

    return [_tour.Section(
        title=f"segmented: float32, {rows} segments x {cols}, n = 2^{n.bit_length() - 1} "
              "(GB/s: one read + one write)",
        nbytes=2 * n * 4, contenders=contenders, count=4 if gpu else 2)]

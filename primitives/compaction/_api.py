"""Stream compaction: ``compact(x, mask)`` (as ``x[mask]``) and ``compact_indices(mask)`` (as
``numpy.flatnonzero(mask)``), each one pass of the decoupled look-back scan fused with the scatter
(``kernels/scan/compact.cu``)."""

from __future__ import annotations

import numpy as np

from ._core import checks as _checks, dtypes as _dtypes, launch as _launch, loader as _loader, lookback as _lookback

__all__ = ["compact", "compact_indices"]

_SOURCE = "scan/compact.cu"
_BLOCK = 256
_ITEMS = 16
_INDEX_DTYPE = np.dtype(np.int64)


def _name(dt, indices):
    c = _dtypes.CTYPES[dt] if dt is not None else "int"
    return f"compact_lookback<{c}, {_BLOCK}, {_ITEMS}, {'true' if indices else 'false'}>"


_NAMES = [_name(d, False) for d in _dtypes.NUMERIC] + [_name(None, True)]
_loader.register(_SOURCE, _NAMES)

_plans = _lookback.PlanCache()


def _run(x, mask, n, dt, backend):
    indices = x is None
    xp = backend.xp

    def make():
        k = _loader.load(_SOURCE, _NAMES)(_name(dt, indices))
        plan = _lookback.LookbackPlan(k, _launch.cdiv(n, _BLOCK * _ITEMS), _BLOCK, n, xp,
                                      _INDEX_DTYPE.itemsize)
        plan.extra = xp.empty(1, dtype=_INDEX_DTYPE)  # the count
        return plan

    plan = _plans.get((dt, n, backend.stream_key()), make)
    out = xp.empty(n, dtype=_INDEX_DTYPE if indices else dt)
    if indices:  # the value input and output are unused: one-element stand-ins of the right type
        vin = vout = _launch.stand_in(backend, np.dtype(np.int32))
        iout = out
    else:
        vin, vout, iout = x, out, _launch.stand_in(backend, _INDEX_DTYPE)
    plan.launch(vin, mask, plan.n64, vout, iout, plan.extra)
    count = int(plan.extra[0])  # the one device-to-host read: the result's length
    return out[:count]



def _mask(mask, n, func):
    m = _checks.as_input(mask, func=func, arg="mask", flatten=True)
    if m.array.dtype != np.bool_:
        raise TypeError(f"{func}: mask must be a boolean array, got dtype {m.array.dtype.name}")
    if n is not None and m.array.size != n:
        raise ValueError(f"{func}: mask has {m.array.size} elements, x has {n}")
    return m


def compact(x, mask):
    """The elements of ``x`` where ``mask`` is true, in order: ``x[mask]`` for 1-D arrays.

    Args:
        x: array of int32, int64, uint32, uint64, float32 or float64; any ndim is flattened.
        mask: boolean array with as many elements as ``x`` (flattened the same way).

    Returns:
        A 1-D array of the selected elements (CuPy for device input, NumPy for host input). On the
        GPU it is a view of a buffer of ``x.size`` elements.

    Raises:
        TypeError: ``x`` or ``mask`` is not an array; unsupported dtype of ``x``; ``mask`` not bool.
        ValueError: ``mask`` and ``x`` differ in size.

    One pass over ``x`` and ``mask``; the result's length is read back from the device once (a
    synchronization, as ``x[mask]`` also needs).

    See Also:
        :func:`numpy.compress`, :func:`numpy.extract`, boolean indexing ``x[mask]``.
    """
    inp = _checks.as_input(x, func="compact", arg="x", flatten=True)
    dt = inp.array.dtype
    _dtypes.ctype(dt, func="compact", arg="x")
    m = _mask(mask, inp.array.size, "compact")
    n = inp.array.size
    if n == 0:
        return inp.result(inp.backend.xp.empty(0, dtype=dt))
    return inp.result(_run(inp.array, m.array, n, dt, inp.backend))


def compact_indices(mask):
    """Indices (int64) of the true entries of the flattened ``mask``: ``numpy.flatnonzero(mask)``.

    Args:
        mask: boolean array.

    Returns:
        A 1-D int64 array (CuPy for device input, NumPy for host input).

    Raises:
        TypeError: ``mask`` is not a boolean array.

    See Also:
        :func:`numpy.flatnonzero`, :func:`numpy.nonzero`, :func:`cupy.nonzero`.
    """
    m = _mask(mask, None, "compact_indices")
    n = m.array.size
    if n == 0:
        return m.result(m.backend.xp.empty(0, dtype=_INDEX_DTYPE))
    return m.result(_run(None, m.array, n, None, m.backend))


def tour_sections(gpu, log2n=None):
    """Tour workload: compaction of float32 with half the elements selected, against ``x[mask]``
    on a GPU."""
    from ._core import backend as _backend
    from . import tour as _tour

    n = 1 << (log2n or (28 if gpu else 14))

    def contenders():
        xp = _backend.get_backend().xp
        rng = np.random.default_rng(n + 7)
        host = _tour.random_data(rng, n, np.float32)
        hmask = rng.random(n) < 0.5
        x, mask = xp.asarray(host), xp.asarray(hmask)
        want = host[hmask]
        want_idx = np.flatnonzero(hmask)

        def same(ref):
            return lambda got: bool(np.array_equal(_tour.to_host(got), ref))

        out = [_tour.Contender("compact", lambda: compact(x, mask), same(want)),
               _tour.Contender("compact_indices", lambda: compact_indices(mask), same(want_idx))]
        if gpu:
            out += [_tour.Contender("x[mask] (peer)", lambda: x[mask], same(want)),
                    _tour.Contender("cupy.nonzero (peer)", lambda: xp.nonzero(mask)[0],
                                    same(want_idx))]
        return out

    return [_tour.Section(title=f"compaction: float32, 50% selected, n = 2^{n.bit_length() - 1}",
                          nbytes=n * 4 + n + n * 2, contenders=contenders,
                          count=4 if gpu else 2)]

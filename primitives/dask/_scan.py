"""Scans of Dask arrays: :func:`cumsum`, :func:`cumprod`, :func:`inclusive_scan` and
:func:`exclusive_scan`.

A scan of a 1-D array of p chunks (an N-D array with ``axis=None`` is flattened first, as NumPy
does) is one task per chunk, each running the look-back scan of its chunk *continued* from the
total of the chunks before it (the seed is read by the kernel's first tile and carried by its
look-back: one read and one write of the chunk, no pass to add the carry). Where that total
comes from is the ``method``:

* ``"chain"``: chunk i starts when chunk i - 1 is done and takes its last output (for an
  exclusive scan, its last output combined with its last input) as the seed. Every element is
  read once and written once, the least traffic a scan can have; the chunks run one after the
  other, which costs nothing on one GPU (each chunk's scan fills the device).
* ``"totals"``: every chunk is first reduced (``primitives.reduce``, in parallel), and every
  chunk is then scanned, in parallel, from the fold of the totals before it: each scan task
  takes those totals and folds them itself where there are at most ``fold_max`` chunks (the
  ``dask_scan`` policy; one scheduling step between the two passes), else a small task folds the p totals into the
  p seeds first. One more read of the data, and no chunk waits for another: the choice where the
  chunks live on several GPUs.
* ``"auto"`` (default): ``"totals"`` when a ``distributed`` client with more than one worker is
  the default scheduler, else ``"chain"`` (the threaded scheduler, or one worker: one GPU).

Along an axis of an N-D array (``axis`` given) the graph is Dask's own
(``dask.array.reductions.cumreduction``) with this library's axis scan of each chunk: the chunks'
scans, then the carries of the chunks before each one added to it.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .. import reduction as _reduction
from .._core import checks as _checks, policy as _policy
from .. import scan as _scans
from ._sort import dask_array, own_stream, task_array, xp_of

__all__ = ["cumsum", "cumprod", "inclusive_scan", "exclusive_scan", "METHODS"]

#: the graphs of a 1-D scan (module docstring)
METHODS = ("auto", "chain", "totals")
_OPS = _scans.OPS
_UFUNC = _scans.UFUNC  # op -> the array module's ufunc of it


def _combine(op, a, b):
    """``a op b`` of two one-element arrays of one dtype (the carries)."""
    xp = xp_of(a)
    with np.errstate(over="ignore", invalid="ignore"):
        return getattr(xp, _UFUNC[op])(a, b)


# ---- the tasks ---------------------------------------------------------------------------------


@own_stream
def _chain_task(chunk, prev, op, exclusive, res_dt):
    """Chunk scanned from the running total ``prev`` (a ``(out, carry)`` pair of the chunk
    before, or None); returns ``(out, carry)``, the carry being the total through this chunk."""
    seed = None if prev is None else prev[1]
    out = _scans.continued(
        chunk, op, seed, exclusive=exclusive, dtype=res_dt, func=_FUNC_NAME[exclusive]
    )
    if chunk.shape[0] == 0:
        return out, seed
    last = out[-1:]
    if exclusive:
        last = _combine(op, last, chunk[-1:].astype(res_dt))
    return out, last.copy()  # its own memory: the output chunk may be freed before the carry


def _first(pair):
    return pair[0]


@own_stream
def _total(chunk, op, res_dt):
    """A chunk's total (one-element array of ``res_dt``), or None for an empty chunk."""
    if chunk.shape[0] == 0:
        return None
    kw = {"dtype": res_dt} if op in ("sum", "prod") else {}
    return _reduction.reduce(chunk, op, **kw).reshape(1).astype(res_dt)


def _fold(op, run, t):
    """The running total ``run`` (None: nothing yet) combined with a chunk's total ``t`` (None
    for an empty chunk)."""
    if t is None:
        return run
    return t if run is None else _combine(op, run, t)


@own_stream
def _seeds(op, *totals):
    """The seed of every chunk: the totals of the chunks before it folded (None before the first
    non-empty chunk)."""
    seeds, run = [], None
    for t in totals:
        seeds.append(run)
        run = _fold(op, run, t)
    return seeds


@own_stream
def _seeded_task(chunk, seeds, i, op, exclusive, res_dt):
    return _scans.continued(
        chunk, op, seeds[i], exclusive=exclusive, dtype=res_dt, func=_FUNC_NAME[exclusive]
    )


@own_stream
def _folded_task(chunk, op, exclusive, res_dt, *before):
    """A chunk scanned from the totals of the chunks ``before`` it, folded here."""
    seed = None
    for t in before:
        seed = _fold(op, seed, t)
    return _scans.continued(
        chunk, op, seed, exclusive=exclusive, dtype=res_dt, func=_FUNC_NAME[exclusive]
    )


_FUNC_NAME = {False: "inclusive_scan", True: "exclusive_scan"}


@dataclasses.dataclass(frozen=True)
class TotalsPolicy:
    # "totals" over at most this many chunks: each scan task folds its seed itself (0: never)
    fold_max: int = _policy.knob(_policy.Range(0))


TABLE = _policy.register(
    "dask_scan",
    {
        # 32 chunks: each scan task takes the totals before it (one scheduling step less than a
        # task of seeds, at p (p - 1) / 2 graph edges: 496 at 32); beyond, a task of seeds (on two
        # H200s the fold saved a step of about 3 ms; the bound not tuned)
        ("default", None): TotalsPolicy(fold_max=32)
    },
    doc="primitives.dask.cumsum/cumprod/...: chunks up to which the totals graph folds each "
    "chunk's seed in its scan task",
)


@own_stream
def _axis_chunk(block, op, axis, res_dt):
    return _scans.inclusive_scan(block, op, axis=axis, dtype=res_dt)


# ---- the graphs --------------------------------------------------------------------------------


def _auto_method():
    """ "totals" when a distributed client with several workers is the default scheduler."""
    try:
        from distributed import default_client
    except ImportError:
        return "chain"
    try:
        client = default_client()
    except ValueError:  # no client
        return "chain"
    import dask

    if dask.config.get("scheduler", None) not in (None, "dask.distributed", "distributed"):
        return "chain"  # a local scheduler was asked for
    try:
        workers = len(client.scheduler_info().get("workers", {}))
    except Exception:  # noqa: BLE001 - a client that cannot say: the parallel graph is safe
        return "totals"
    return "totals" if workers > 1 else "chain"


def _scan_1d(x, op, exclusive, res_dt, method):
    import dask
    from dask.array.utils import meta_from_array

    lens = [int(c) for c in x.chunks[0]]
    blocks = list(x.to_delayed().ravel())
    meta = meta_from_array(x, ndim=1, dtype=res_dt)
    if method == "auto":
        method = _auto_method()
    delayed = dask.delayed
    if method == "chain":
        tasks, prev = [], None
        for b in blocks:
            prev = delayed(_chain_task, pure=True)(b, prev, op, exclusive, res_dt)
            tasks.append((_first, prev))
    else:
        totals = [delayed(_total, pure=True)(b, op, res_dt) for b in blocks]
        if len(blocks) <= _policy.current("dask_scan").fold_max:
            tasks = [
                (_folded_task, b, op, exclusive, res_dt, *totals[:i]) for i, b in enumerate(blocks)
            ]
        else:
            seeds = delayed(_seeds, pure=True)(op, *totals)
            tasks = [
                (_seeded_task, b, seeds, i, op, exclusive, res_dt) for i, b in enumerate(blocks)
            ]
    return task_array(tasks, lens, res_dt, meta)


def _axis_scan(x, axis, op, exclusive, res_dt, func):
    """Along ``axis`` of an N-D array: Dask's cumreduction with the library's axis scan of
    each chunk (exclusive: the inclusive scan shifted by one along the axis, the identity
    first)."""
    import dask.array as da
    from dask.array.reductions import cumreduction

    def chunk_scan(block, axis, dtype=None):
        return _axis_chunk(block, op, axis, res_dt)

    ident = _scans.identity(op, res_dt)
    chunks = x.chunks
    if 0 in chunks[axis] and x.shape[axis]:
        # cumreduction carries the last slice of the chunk before: an empty chunk has none
        x = x.rechunk({axis: tuple(c for c in chunks[axis] if c)})
    inc = cumreduction(chunk_scan, getattr(np, _UFUNC[op]), ident, x, axis=axis, dtype=res_dt)
    if inc.chunks != chunks:
        inc = inc.rechunk(chunks)
    if not exclusive:
        return inc
    if x.shape[axis] == 0:
        return inc
    first = tuple(slice(0, 1) if a == axis else slice(None) for a in range(x.ndim))
    head = da.full_like(inc[first], ident, dtype=res_dt)  # the identity, of inc's array type
    body = inc[tuple(slice(None, -1) if a == axis else slice(None) for a in range(x.ndim))]
    return da.concatenate([head, body], axis=axis).rechunk(chunks)


def _entry(func, x, op, axis, dtype, exclusive, method):
    dask_array(x, func)
    _checks.check_choice(op, _OPS, func=func, arg="op")
    _checks.check_choice(method, METHODS, func=func, arg="method")
    res_dt = _scans.checked_result_dtype(x.dtype, op, dtype, func)
    if axis is not None:
        axis = _checks.axis_index(axis, x.ndim, func)
    if axis is None and x.ndim != 1:
        x = x.ravel()  # NumPy: the flattened array
        axis = 0
    if any(np.isnan(c) for cs in x.chunks for c in cs):
        raise ValueError(f"{func}: x has unknown chunk sizes (call x.compute_chunk_sizes() first)")
    if x.ndim == 1:
        return _scan_1d(x, op, exclusive, res_dt, method)
    return _axis_scan(x, axis, op, exclusive, res_dt, func)


def inclusive_scan(x, op="sum", *, axis=None, dtype=None, method="auto"):
    """Inclusive scan of a Dask array, as :func:`primitives.inclusive_scan`:
    ``out[i] = x[0] op ... op x[i]`` along ``axis`` (None: the flattened array).

    Args:
        x: a ``dask.array.Array`` (CuPy or NumPy chunks) of a dtype the scans take.
        op: ``"sum"``, ``"prod"``, ``"min"`` or ``"max"``.
        axis: None (flattened, as NumPy) or an axis of an N-D array.
        dtype: the result dtype (default NumPy's: ``sum``/``prod`` widen bool and small
            integers to 64 bits).
        method: the graph of a 1-D scan: ``"chain"``, ``"totals"`` or ``"auto"`` (module
            docstring).

    Returns:
        A lazy ``dask.array.Array`` chunked as ``x`` (flattened for ``axis=None``).

    Raises:
        TypeError: ``x`` not a Dask array, or of an unsupported dtype; complex ``min``/``max``.
        ValueError: unknown ``op`` or ``method``; unknown chunk sizes.
        numpy.exceptions.AxisError: ``axis`` out of range.
    """
    return _entry("inclusive_scan", x, op, axis, dtype, False, method)


def exclusive_scan(x, op="sum", *, axis=None, dtype=None, method="auto"):
    """Exclusive scan of a Dask array, as :func:`primitives.exclusive_scan`:
    ``out[0]`` is the identity of ``op``, ``out[i] = x[0] op ... op x[i - 1]``. Arguments as
    :func:`inclusive_scan`."""
    return _entry("exclusive_scan", x, op, axis, dtype, True, method)


def cumsum(x, axis=None, dtype=None, *, method="auto"):
    """Cumulative sum of a Dask array, as :func:`numpy.cumsum` (``axis=None``: flattened)."""
    return _entry("cumsum", x, "sum", axis, dtype, False, method)


def cumprod(x, axis=None, dtype=None, *, method="auto"):
    """Cumulative product of a Dask array, as :func:`numpy.cumprod` (``axis=None``:
    flattened)."""
    return _entry("cumprod", x, "prod", axis, dtype, False, method)

"""Sample sort of a 1-D Dask array: :func:`sort` and :func:`argsort`.

The graph, for an input of p chunks (p output chunks):

1. each chunk sorted on its worker (``primitives.sort``, or ``primitives.argsort`` and a gather
   for :func:`argsort`, whose chunks carry their global int64 indices along);
2. a regular sample of every sorted chunk, ``oversample * p`` keys in all, each chunk giving a
   share proportional to its length; the p - 1 splitters are the sample's p-quantiles;
3. the cut points of every sorted chunk at the splitters (``primitives.searchsorted``);
4. an all-to-all exchange as graph dependencies: piece j of every sorted chunk, sliced where
   that chunk lives, goes to output chunk j, which concatenates its pieces in input-chunk order
   and sorts them with a stable sort.

The output's chunk sizes are the sums of the pieces' lengths, so steps 1-3 run eagerly: the
sorted chunks are persisted (on a cluster they stay on the workers) and the splitters and cut
points, a few numbers per chunk, are computed; step 4 is built lazily on the persisted chunks
(on a ``distributed`` cluster its pieces, views of the sorted chunks, are cut at once on the
workers holding them: :func:`pinned`).

Equal keys are ordered by (key, input chunk, position in the sorted chunk), a total order that
is the order of global indices for a stable sort. Splitters carry that triple, so a run of
equal keys longer than an output chunk is split between chunks (the outputs stay balanced
whatever the duplicates) and :func:`argsort` is stable: ties keep their input order.
"""

from __future__ import annotations

import dataclasses
import functools
import threading

import numpy as np

from .. import searching as _searching, sorting as _sorting
from .._core import backend as _backend, policy as _policy
from .._core.backend import to_host
from .._core.keys import KEY_DTYPES, KEY_SET

__all__ = ["sort", "argsort"]


@dataclasses.dataclass(frozen=True)
class SampleSortPolicy:
    # sample keys per output chunk (the splitters' rank error ~ n / (p * this)), at least one
    oversample: int = _policy.knob(_policy.Range(1))


TABLE = _policy.register(
    "dask_sort",
    {
        # 256 keys per output chunk: the splitters' ranks within ~1/16 of a chunk's share of uniform
        # keys in the worst case of regular sampling, ~1% for random keys; the sample is a few KiB
        # (not tuned: the sample's cost is negligible next to the sorts)
        ("default", None): SampleSortPolicy(oversample=256)
    },
    doc="primitives.dask.sort/argsort: sample keys per output chunk",
)


# ---- helpers shared with the other Dask modules of this part ------------------------------------


def xp_of(a):
    """The array module of a chunk: NumPy for NumPy chunks, CuPy for CuPy ones."""
    return _backend.array_module(a)


_THREAD = threading.local()


def own_stream(task):
    """A task whose device work runs on its thread's own CUDA stream, synchronized before the
    task returns.

    Dask's threads call the tasks concurrently; on one stream their launches would interleave,
    and a plan's scratch (look-back state, counters) serves the calls of one stream in order.
    A stream per thread keeps each call's launches together and its scratch its own. The
    stream is a blocking one, so its kernels follow work left on the legacy default stream
    (chunks made there); the synchronization hands the chunk over complete to whichever thread
    or worker takes it next. On the emulator (no streams) the task runs as it is.
    """

    @functools.wraps(task)
    def run(*args):
        if not _backend.get_backend().is_cuda:
            return task(*args)
        import cupy

        stream = getattr(_THREAD, "stream", None)
        if stream is None:
            stream = _THREAD.stream = cupy.cuda.Stream()
        with stream:
            out = task(*args)
        stream.synchronize()
        return out

    return run


def dask_array(x, func, arg="x"):
    """``x``, after the check that it is a Dask array (``func``: the function the error names)."""
    import dask.array as da

    if not isinstance(x, da.Array):
        raise TypeError(
            f"{func}: {arg} must be a dask.array.Array, got {type(x).__name__} "
            f"(wrap an array with dask.array.from_array)"
        )
    return x


def dask_input(x, func, arg="x"):
    """``x`` as a checked 1-D Dask array with known chunk sizes."""
    dask_array(x, func, arg)
    if x.ndim != 1:
        raise ValueError(f"{func}: {arg} must be 1-D, got {x.ndim}-D of shape {x.shape}")
    if any(np.isnan(c) for c in x.chunks[0]):
        raise ValueError(
            f"{func}: {arg} has unknown chunk sizes (call {arg}.compute_chunk_sizes() first)"
        )
    return x


def blocks_of(x):
    """(delayed chunks, their lengths, their global offsets)."""
    lens = [int(c) for c in x.chunks[0]]
    offsets = np.concatenate([[0], np.cumsum(lens, dtype=np.int64)])
    return list(x.to_delayed().ravel()), lens, offsets


def task_array(tasks, lens, dtype, meta, prefix="primitives-dask"):
    """A 1-D Dask array whose chunk i is computed by ``tasks[i]``, a ``(func, *args)`` whose
    Delayed arguments stand for their results, of lengths ``lens`` (empty chunks kept).

    The chunks are the tasks themselves, keyed as the array's chunks: no alias task between a
    Delayed and the array (an alias runs where the scheduler puts it, which for a group of
    them can be away from their data)."""
    import dask.array as da
    from dask._task_spec import Task, TaskRef
    from dask.base import tokenize
    from dask.delayed import Delayed
    from dask.highlevelgraph import HighLevelGraph

    graphs, plain = {}, []
    for func, *args in tasks:
        for a in args:
            if isinstance(a, Delayed):  # one of each graph: Delayed objects may share one
                g = a.__dask_graph__()
                graphs.setdefault(id(g), (g, a))  # g held: its id is not reused meanwhile
        plain.append((func, *[a.key if isinstance(a, Delayed) else a for a in args]))
    name = f"{prefix}-" + tokenize(plain, dtype)
    # references by key: a chunk of a persisted array is a Delayed whose graph is empty
    layer = {
        (name, i): Task(
            (name, i), func, *[TaskRef(a.key) if isinstance(a, Delayed) else a for a in args]
        )
        for i, (func, *args) in enumerate(tasks)
    }
    graph = HighLevelGraph.from_collections(
        name, layer, dependencies=[a for _, a in graphs.values()]
    )
    return da.Array(graph, name, chunks=(tuple(int(n) for n in lens),), dtype=dtype, meta=meta)


# ---- the tasks ---------------------------------------------------------------------------------


@own_stream
def _local_sort(chunk, offset, want_index):
    """A chunk sorted, and its elements' global indices (int64) when ``want_index``."""
    if not want_index:
        return _sorting.sort(chunk), None
    perm = _sorting.argsort(chunk)
    return chunk[perm], perm + np.int64(offset)


@own_stream
def _sample(keys, count):
    """``count`` keys at regular positions of a sorted chunk, and those positions (host)."""
    n = keys.shape[0]
    pos = ((np.arange(count, dtype=np.int64) * 2 + 1) * n) // (2 * count)
    xp = xp_of(keys)
    return to_host(keys[xp.asarray(pos)]), pos


def _splitters(samples, parts):
    """The ``parts - 1`` splitters (key, chunk, position) at the p-quantiles of the samples."""
    keys = np.concatenate([k for k, _ in samples])
    chunk = np.concatenate([np.full(p.size, i, np.int64) for i, (_, p) in enumerate(samples)])
    pos = np.concatenate([p for _, p in samples])
    order = np.lexsort((pos, chunk, keys))  # NumPy's order: NaNs last, -0.0 == 0.0
    take = (np.arange(1, parts, dtype=np.int64) * keys.size) // parts
    sel = order[take]
    return keys[sel], chunk[sel], pos[sel]


@own_stream
def _cuts(keys, index, splitters):
    """The ``p + 1`` cut points (host int64) of sorted chunk ``index`` at the splitters."""
    skeys, schunk, spos = splitters
    n = keys.shape[0]
    if n == 0 or skeys.size == 0:
        return np.array([0] + [0] * skeys.size + [n], dtype=np.int64)
    xp = xp_of(keys)
    q = xp.asarray(skeys)
    lo = to_host(_searching.searchsorted(keys, q, "left"))
    hi = to_host(_searching.searchsorted(keys, q, "right"))
    # equal keys of an earlier chunk than the splitter's precede it, of a later one follow it
    cut = np.where(schunk > index, hi, np.where(schunk < index, lo, spos))
    return np.concatenate([[0], cut, [n]]).astype(np.int64)


def _piece(sorted_chunk, lo, hi):
    keys, idx = sorted_chunk
    return keys[lo:hi], (None if idx is None else idx[lo:hi])


@own_stream
def _merge(want_index, empty, *pieces):
    """An output chunk: its pieces concatenated in input-chunk order, stably sorted."""
    if not pieces:
        return empty
    xp = xp_of(pieces[0][0])
    keys = xp.concatenate([k for k, _ in pieces]) if len(pieces) > 1 else pieces[0][0]
    if not want_index:
        return _sorting.sort(keys)
    idx = xp.concatenate([i for _, i in pieces]) if len(pieces) > 1 else pieces[0][1]
    return idx[_sorting.argsort(keys)]


# ---- the graph ---------------------------------------------------------------------------------


def _sample_sort(x, func, want_index):
    import dask
    from dask import delayed

    x = dask_input(x, func)
    if x.dtype not in KEY_SET:
        raise TypeError(
            f"{func}: x has dtype {x.dtype.name}; supported key dtypes are "
            f"{', '.join(d.name for d in KEY_DTYPES)}"
        )
    out_dtype = np.dtype(np.int64) if want_index else x.dtype
    meta = x._meta.astype(out_dtype)
    n = x.shape[0]
    if n == 0:
        return x.map_blocks(lambda b: b.astype(out_dtype), dtype=out_dtype, meta=meta)
    blocks, lens, offsets = blocks_of(x)
    p = len(blocks)
    if p == 1:
        if want_index:
            return x.map_blocks(lambda b: _sorting.argsort(b), dtype=out_dtype, meta=meta)
        return x.map_blocks(_sorting.sort, dtype=out_dtype, meta=meta)

    pol = _policy.current("dask_sort")
    total = min(n, pol.oversample * p)
    sorted_chunks = [
        delayed(_local_sort, pure=True)(b, int(o), want_index) for b, o in zip(blocks, offsets)
    ]
    sorted_chunks = list(dask.persist(*sorted_chunks))
    # each chunk's share of the sample is proportional to its length (at least one key when
    # it has any), so every sample key stands for about n / total elements
    counts = [0 if m == 0 else max(1, (m * total) // n) for m in lens]
    samples = [delayed(_sample, pure=True)(s[0], c) for s, c in zip(sorted_chunks, counts)]
    splitters = delayed(_splitters, pure=True)(samples, p)
    cuts = [delayed(_cuts, pure=True)(s[0], i, splitters) for i, s in enumerate(sorted_chunks)]
    cuts = np.stack(dask.compute(*cuts))  # (p, p + 1) cut points, host

    return _exchange(sorted_chunks, cuts, want_index, out_dtype, meta)


def _exchange(sorted_chunks, cuts, want_index, out_dtype, meta):
    """The lazy all-to-all: piece (i, j) of sorted chunk i is its rows ``cuts[i, j]:cuts[i, j +
    1]``, sliced where the chunk lives; output chunk j merges pieces (0..p-1, j).

    The p^2 piece tasks are one graph layer (a Delayed object per piece would cost the client
    time growing with p^2). On a ``distributed`` cluster the pieces, views of the sorted chunks,
    are persisted at once on the workers holding their chunks (:func:`pinned`)."""
    from dask._task_spec import Task, TaskRef
    from dask.base import tokenize
    from dask.delayed import Delayed
    from dask.highlevelgraph import HighLevelGraph

    p = len(sorted_chunks)
    token = tokenize(*[s.key for s in sorted_chunks], cuts, want_index)
    piece = "primitives-dask-piece-" + token
    layer, merges = {}, []
    for j in range(p):
        parts = []
        for i, s in enumerate(sorted_chunks):
            lo, hi = int(cuts[i, j]), int(cuts[i, j + 1])
            if hi > lo:
                layer[(piece, i, j)] = Task((piece, i, j), _piece, TaskRef(s.key), lo, hi)
                parts.append((piece, i, j))
        merges.append(parts)
    graph = HighLevelGraph.from_collections(piece, layer, dependencies=sorted_chunks)
    keys = list(layer)
    pieces = dict(
        zip(
            keys,
            pinned(
                [Delayed(k, graph, layer=piece) for k in keys],
                [sorted_chunks[k[1]].key for k in keys],
                sorted_chunks,
            ),
        )
    )
    tasks = [(_merge, want_index, meta, *[pieces[k] for k in parts]) for parts in merges]
    sizes = (cuts[:, 1:] - cuts[:, :-1]).sum(axis=0)
    return task_array(tasks, sizes, out_dtype, meta, prefix="primitives-dask-sorted")


def pinned(pieces, sources, held):
    """``pieces`` (Delayed, each cut from the data of key ``sources[i]``, a key of the
    collection(s) ``held``), persisted at once on the workers holding their sources where
    ``held`` is persisted on a ``distributed`` cluster; else as they are (another scheduler,
    or ``held`` lazy).

    Left to the scheduler, a group of many tasks over few dependencies counts as root tasks,
    placed without regard to their data: whole chunks would travel between workers to cut a
    piece of each."""
    try:
        from distributed import futures_of
    except ImportError:
        return pieces
    futures = futures_of(held)
    if not futures:
        return pieces
    client = futures[0].client
    holders = {k: list(v) for k, v in client.who_has(futures).items() if v}
    if not all(k in holders for k in sources):
        return pieces
    by_worker = {}
    for i, k in enumerate(sources):
        by_worker.setdefault(holders[k][0], []).append(i)
    out = list(pieces)
    for worker, idx in by_worker.items():
        done = client.persist([pieces[i] for i in idx], workers=[worker], optimize_graph=False)
        for i, d in zip(idx, done):
            out[i] = d
    return out


def sort(x):
    """Sort a 1-D Dask array: ``numpy.sort(x)`` as a Dask array of about equal chunks.

    A sample sort (see :mod:`primitives.dask._sort`): each chunk sorted where it lives
    (``primitives.sort``), splitters from a regular sample of the sorted chunks, every chunk
    cut at the splitters (``primitives.searchsorted``) and piece j of every chunk sent to output
    chunk j, which sorts its pieces. The sorted chunks are persisted and the cut points computed
    when the function is called (they give the output's chunk sizes); the exchange and the
    final sorts are lazy (on a ``distributed`` cluster the pieces are cut at once, each on the
    worker holding its chunk).

    Parameters
    ----------
    x : dask.array.Array
        1-D, of uint8/16/32/64, int8/16/32/64, float32 or float64, with NumPy or CuPy chunks of
        known sizes (empty chunks allowed).

    Returns
    -------
    dask.array.Array
        The sorted keys, ascending, NaNs last (NumPy's order), in as many chunks as ``x``; for
        random keys the chunks are within a few percent of ``x.size / x.numblocks`` each (equal
        keys are split between chunks as needed). Chunks of ``x``'s type.

    Raises
    ------
    TypeError
        ``x`` is not a Dask array, or of an unsupported dtype.
    ValueError
        ``x`` is not 1-D, or its chunk sizes are unknown.

    See Also
    --------
    numpy.sort, primitives.sort, argsort

    Examples
    --------
    >>> import dask.array as da, numpy as np
    >>> import primitives.dask as pd
    >>> x = da.from_array(np.array([5, 1, 4, 2, 3, 0], np.int32), chunks=2)
    >>> pd.sort(x).compute()
    array([0, 1, 2, 3, 4, 5], dtype=int32)
    """
    return _sample_sort(x, "primitives.dask.sort", False)


def argsort(x):
    """Indices that sort a 1-D Dask array stably: ``numpy.argsort(x, kind="stable")``.

    The sample sort of :func:`sort` with each element's global index carried along: equal keys
    keep their input order, across chunks too.

    Parameters
    ----------
    x : dask.array.Array
        As :func:`sort`.

    Returns
    -------
    dask.array.Array
        int64 global indices into ``x``, in as many chunks as ``x`` (balanced as :func:`sort`'s),
        of ``x``'s chunk type.

    Raises
    ------
    TypeError, ValueError
        As :func:`sort`.

    See Also
    --------
    numpy.argsort, primitives.argsort, sort

    Examples
    --------
    >>> import dask.array as da, numpy as np
    >>> import primitives.dask as pd
    >>> x = da.from_array(np.array([2, 1, 2, 0, 1, 2], np.int32), chunks=4)
    >>> pd.argsort(x).compute()
    array([3, 1, 4, 0, 2, 5])
    """
    return _sample_sort(x, "primitives.dask.argsort", True)

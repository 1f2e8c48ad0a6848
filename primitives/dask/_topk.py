"""Top-k of a 1-D Dask array: :func:`topk`.

The graph: ``primitives.topk`` of every chunk (``min(k, chunk length)`` candidates, ordered,
their indices made global), then a tree merge: groups of ``fan_in`` candidate lists
concatenated in input order and reduced by ``primitives.topk`` again, until one list is left.

Ties take the lowest indices, as ``primitives.topk``: an ordered top-k lists equal elements by
increasing index, and the lists are concatenated in chunk order, so in every concatenation equal
elements stand in increasing global index and ``primitives.topk``'s lowest-position rule is the
lowest-index rule. The merges are therefore exact: the k first of (value, index) in the order
``primitives.topk`` uses.
"""

from __future__ import annotations

import dataclasses
import operator

import numpy as np

from .. import selection as _selection
from .._core import checks as _checks, policy as _policy

from ._sort import blocks_of, dask_input, own_stream, task_array, xp_of

__all__ = ["topk"]


@dataclasses.dataclass(frozen=True)
class TreePolicy:
    fan_in: int = _policy.knob(_policy.Range(2))  # candidate lists merged per task (>= 2)


TABLE = _policy.register(
    "dask_topk",
    {
        # 8 lists per merge: as dask.array's split_every for reductions (not tuned)
        ("default", None): TreePolicy(fan_in=8)
    },
    doc="primitives.dask.topk: candidate lists merged per task of the tree",
)


@own_stream
def _chunk_topk(chunk, offset, k, largest):
    vals, idx = _selection.topk(chunk, min(k, chunk.shape[0]), largest=largest, sorted=True)
    return vals, idx + np.int64(offset)


@own_stream
def _merge(k, largest, ordered, *lists):
    xp = xp_of(lists[0][0])
    vals = xp.concatenate([v for v, _ in lists]) if len(lists) > 1 else lists[0][0]
    idx = xp.concatenate([i for _, i in lists]) if len(lists) > 1 else lists[0][1]
    v, pos = _selection.topk(vals, min(k, vals.shape[0]), largest=largest, sorted=ordered)
    return v, idx[pos]


def topk(x, k, *, largest=True, sorted=True):  # noqa: A002 - torch's name
    """The ``k`` largest (or smallest) elements of a 1-D Dask array and their indices, as
    :func:`primitives.topk`.

    Each chunk gives its own top-k (``primitives.topk``), and a tree of merges (each a
    ``primitives.topk`` of a few candidate lists) reduces them to one.

    Parameters
    ----------
    x : dask.array.Array
        1-D, of bool, uint8/16/32/64, int8/16/32/64, float16, float32 or float64, with NumPy or
        CuPy chunks of known sizes (empty chunks allowed).
    k : int
        How many to take, ``0 <= k <= x.size``.
    largest : bool, optional
        The k largest (default) or, when False, the k smallest.
    sorted : bool, optional
        The results ordered (largest first when ``largest``, else smallest first); when False
        they come in no particular order (the same set).

    Returns
    -------
    (values, indices) : tuple of dask.array.Array
        One chunk each, of length ``k``: the values in ``x``'s dtype and their int64 global
        indices into ``x``, of ``x``'s chunk type.

    Raises
    ------
    TypeError
        ``x`` is not a Dask array or of an unsupported dtype; ``k`` is not an integer;
        ``largest``/``sorted`` are not bools.
    ValueError
        ``x`` is not 1-D or its chunk sizes are unknown; ``k < 0`` or ``k > x.size``.

    Notes
    -----
    Order as NumPy's sort (NaN the largest, so first when ``largest``); among equal elements
    the lowest indices are taken and ordered results list them by increasing index, as
    :func:`primitives.topk`.

    See Also
    --------
    primitives.topk, torch.topk, sort

    Examples
    --------
    >>> import dask.array as da, numpy as np
    >>> import primitives.dask as pd
    >>> x = da.from_array(np.array([3, 9, 1, 9, 4, 7], np.int32), chunks=4)
    >>> v, i = pd.topk(x, 3)
    >>> v.compute(), i.compute()
    (array([9, 9, 7], dtype=int32), array([1, 3, 5]))
    """
    from dask import delayed

    func = "primitives.dask.topk"
    x = dask_input(x, func)
    if np.dtype(x.dtype) not in _selection.DTYPES:
        raise TypeError(
            f"{func}: x has dtype {x.dtype.name}; supported dtypes are "
            f"{', '.join(d.name for d in _selection.DTYPES)}"
        )
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"{func}: k must be an int, got {type(k).__name__}")
    k = int(k)
    if not 0 <= k <= x.shape[0]:
        raise ValueError(f"{func}: k must satisfy 0 <= k <= x.size ({x.shape[0]}), got {k}")
    largest = _checks.boolean(largest, func, "largest")
    ordered = _checks.boolean(sorted, func, "sorted")
    meta_v, meta_i = x._meta, x._meta.astype(np.int64)
    if k == 0:
        return x[:0], x[:0].map_blocks(lambda b: b.astype(np.int64), dtype=np.int64, meta=meta_i)
    fan_in = _policy.current("dask_topk").fan_in
    blocks, lens, offsets = blocks_of(x)
    lists = [
        delayed(_chunk_topk, pure=True)(b, int(o), k, largest)
        for b, o, m in zip(blocks, offsets, lens)
        if m > 0
    ]
    while True:
        last = len(lists) <= fan_in
        lists = [
            delayed(_merge, pure=True)(
                k, largest, ordered if last else True, *lists[g : g + fan_in]
            )
            for g in range(0, len(lists), fan_in)
        ]
        if last:
            break
    (top,) = lists
    return (
        task_array([(operator.getitem, top, 0)], [k], x.dtype, meta_v),
        task_array([(operator.getitem, top, 1)], [k], np.dtype(np.int64), meta_i),
    )

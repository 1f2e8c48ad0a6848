"""searchsorted's public function: its checks (:mod:`._checks`), the variant (:mod:`._choose`),
then the plans of :mod:`._plans`."""

from __future__ import annotations

from .._core import entry as _entry
from . import _checks, _choose, _plans as _sp
from ._checks import DTYPES, VARIANTS
from ._kernels import SEARCHED_AS

__all__ = ["searchsorted", "VARIANTS", "DTYPES"]


def _prepare(a, v, side="left", sorter=None, *, variant="auto"):
    c = _checks.Checked(a, v, side, sorter, variant)
    backend = c.a.backend
    xp = backend.xp
    n, m, shape = c.a.array.size, c.v.array.size, c.shape
    if m == 0 or n == 0:
        return _entry.Prepared.done(c.result(xp.zeros(m, dtype=_sp.INDEX_DTYPE), shape))
    kdt = SEARCHED_AS.get(c.dt, c.dt)
    plan = _sp.search_plan(backend, kdt, n, m, _choose.choose(c.variant, c.dt, n, m))
    if _checks.as_is(c, a, v):  # later calls on like arrays take the plan as they are
        return _entry.Prepared(_sp.Direct(plan, c.right, c.dt), (a, v), reusable=True)

    def run(a_, v_):
        if c.sorter is not None:
            _checks.in_range(c.sorter, n, xp)
            a_ = a_[c.sorter]
        ka, kv = _sp.searched(a_, c.dt), _sp.searched(v_.reshape(-1), c.dt)
        return c.result(plan(ka, kv, c.right), shape)

    return _entry.Prepared(run, (c.a.array, c.v.array))


@_entry.function(_prepare, arrays=("a", "v"))
def searchsorted(a, v, side="left", sorter=None, *, variant="auto"):
    """Indices where the elements of ``v`` would be inserted into the sorted 1-D array ``a`` to
    keep it sorted: ``numpy.searchsorted(a, v, side, sorter)``.

    Args:
        a: 1-D array sorted in ascending order (unless ``sorter`` is given), of bool, int8,
            uint8, int16, uint16, int32, uint32, int64, uint64, float16, bfloat16, float32, float64,
            complex64 or complex128, in NumPy's order (NaNs last; complex numbers by real part,
            then imaginary part, those with a NaN part after all others, as ``numpy.sort``). An unsorted ``a`` gives undefined indices (each in
            ``[0, a.size]``), never an error, a hang or a read out of bounds.
        v: the queries: an array of any shape or a scalar, of those dtypes. ``a`` and ``v`` are
            compared in their common dtype (``numpy.result_type``, a Python scalar taken as its
            NumPy array's dtype), as NumPy does.
        side: ``"left"``: the first suitable index ``i`` with ``a[i-1] < v <= a[i]`` (the lower
            bound); ``"right"``: the last, ``a[i-1] <= v < a[i]`` (the upper bound).
        sorter: optional 1-D integer array of ``a.size`` indices that sort ``a``
            (``numpy.argsort(a)``); the result indexes the sorted order, as NumPy's.
        variant: ``"binary"`` (one thread per query, a plain binary search), ``"cached"`` (the
            top levels of the search tree in shared memory, several queries per thread searched
            together), ``"indexed"`` (an index of every 16th element of ``a``, of every 256th,
            ..., built per call, its top level in shared memory: below the top a query reads
            one contiguous group of 16 entries per level), ``"sorted"`` (the queries
            radix-sorted first; each tile of them searches the range of ``a`` its answers lie in
            from shared memory), ``"bucketed"`` (the queries grouped by their node at a level of
            the tree, a block per node searching its range of ``a`` in shared memory) or
            ``"auto"`` (``"binary"`` for few queries, else ``"indexed"`` for a large ``a`` and
            not too few queries for its size, else ``"cached"``, by the ``"search"`` tuning
            policy's thresholds).

    Returns:
        int64 indices of ``v``'s shape (a NumPy int64 scalar for a scalar ``v`` and host inputs,
        a 0-d device array for device inputs): CuPy when ``a`` or ``v`` is a device array, NumPy
        otherwise. The inputs are not modified.

    Raises:
        TypeError: ``a``, ``v`` or ``sorter`` not an array; a dtype of ``a`` or ``v`` (or their
            common dtype) outside the list above (strings, objects, datetimes...);
            ``side`` not a string; ``sorter`` not a 1-D integer array.
        ValueError: ``a`` not 1-D; ``side`` not ``"left"``/``"right"``; ``sorter`` of another
            length than ``a`` or holding an index outside ``[0, a.size)`` (NumPy raises the
            latter only for entries its search reads); unknown ``variant``.

    No synchronization but where ``sorter`` is given (its range is read back before the
    search). A call on arrays of the backend's own type like an earlier call's (one dtype,
    same shapes, side, variant and stream, no sorter) reuses that call's plan without the checks.

    See Also:
        :func:`numpy.searchsorted`, :func:`cupy.searchsorted`, ``torch.searchsorted``.
    """

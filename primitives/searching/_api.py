"""searchsorted's public function: checks in CuPy's order, then the plans of :mod:`._plans`."""

from __future__ import annotations

import numpy as np

from .._core import checks as _checks, dtypes as _dtypes, plans as _plans
from . import _plans as _sp, _policy

__all__ = ["searchsorted", "VARIANTS", "DTYPES"]

FUNC = "searchsorted"
VARIANTS = ("binary", "cached", "indexed", "sorted", "bucketed")
#: the dtypes of ``a`` and ``v`` (and of their common dtype) that searchsorted takes
DTYPES = _dtypes.REAL
_DTYPE_SET = frozenset(DTYPES)
SIDES = ("left", "right")


def _check_dtype(dt, arg):
    if dt not in _DTYPE_SET:
        raise TypeError(
            f"{FUNC}: {arg} has dtype {dt}; supported dtypes are "
            f"{', '.join(d.name for d in DTYPES)}"
        )


def _side(side):
    if not isinstance(side, str):
        raise TypeError(f"{FUNC}: side must be 'left' or 'right', got {type(side).__name__}")
    if side not in SIDES:
        raise ValueError(f"{FUNC}: side must be 'left' or 'right', got {side!r}")
    return side == "right"


def _sorter(sorter, n):
    s = _checks.as_input(sorter, func=FUNC, arg="sorter", empty_dtype=np.int64)
    arr = s.array
    if arr.ndim != 1:  # NumPy: "could not parse sorter argument"
        raise TypeError(f"{FUNC}: sorter must be a 1-D integer array, got shape {tuple(arr.shape)}")
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{FUNC}: sorter must only contain integers, got dtype {arr.dtype}")
    if arr.size != n:
        raise ValueError(
            f"{FUNC}: sorter has {arr.size} elements, a has {n} (sorter.size must equal a.size)"
        )
    return arr


def _in_range(sorter, n, xp):
    """Refuse a sorter entry outside [0, n): two reductions and one read back (a sync)."""
    ends = xp.stack([sorter.min().astype(np.int64), sorter.max().astype(np.int64)])
    lo, hi = (int(x) for x in ends.tolist())
    if lo < 0 or hi >= n:
        raise ValueError(
            f"{FUNC}: sorter index out of range: sorter holds {lo if lo < 0 else hi}"
            f", a has {n} elements"
        )


def _zero_d(v, arr):
    """Whether the query argument ``v`` is a scalar or 0-d array (which the contiguous copy
    ``arr`` holds as one element of shape (1,))."""
    if arr.shape != (1,):
        return arr.ndim == 0
    shape = getattr(v, "shape", None)
    if shape is None:
        shape = getattr(v, "__cuda_array_interface__", {}).get("shape")
    return tuple(shape) == () if shape is not None else np.ndim(v) == 0


class _Checked:
    """The arguments of a call, checked in CuPy's order: variant, side, a, v, their common dtype,
    sorter."""

    __slots__ = ("variant", "right", "a", "v", "shape", "dt", "sorter")

    def __init__(self, a, v, side, sorter, variant):
        self.variant = _checks.check_choice(
            variant, VARIANTS, func=FUNC, arg="variant", auto="auto"
        )
        self.right = _side(side)
        adt = getattr(a, "dtype", None)
        if isinstance(adt, np.dtype):  # before the copy to the device, which may refuse it
            _check_dtype(_checks.native_dtype(adt), "a")
        self.a = _checks.as_input(a, func=FUNC, arg="a", ndim=1)
        _check_dtype(self.a.array.dtype, "a")
        vdt = getattr(v, "dtype", None)
        if isinstance(vdt, np.dtype):
            _check_dtype(_checks.native_dtype(vdt), "v")
        self.v = _checks.as_input(v, func=FUNC, arg="v")
        _check_dtype(self.v.array.dtype, "v")
        self.shape = () if _zero_d(v, self.v.array) else self.v.array.shape
        # NumPy's: a and v converted to the type of both (a Python scalar as its array's dtype)
        self.dt = np.result_type(self.a.array.dtype, self.v.array.dtype)
        _check_dtype(self.dt, "the common dtype of a and v")
        n = self.a.array.size
        self.sorter = None if sorter is None else _sorter(sorter, n)

    def pick(self, n, m):
        """The variant that runs: ``auto`` by the policy's thresholds."""
        if self.variant != "auto":
            return self.variant
        pol = _policy.current()
        if m < pol.binary_max_queries:
            return "binary"
        if (
            n * _sp.SEARCHED_AS.get(self.dt, self.dt).itemsize >= pol.indexed_min_bytes
            and n <= pol.indexed_max_ratio * m
        ):
            return "indexed"
        return "cached"

    def result(self, out, shape):
        """``out`` (int64, m) in v's shape, where the caller's arrays live (on the device when a
        or v is a device array), a scalar for a scalar v as NumPy returns."""
        inp = self.v if not self.v.host or self.a.host else self.a
        if len(shape) == 0:
            return inp.scalar(out.reshape(()))
        return inp.result(out.reshape(shape))


def _searched(arr, dt):
    """``arr`` in the kernels' dtype for the common dtype ``dt`` (no copy where it already is:
    bool is viewed as its bytes)."""
    kdt = _sp.SEARCHED_AS.get(dt, dt)
    if arr.dtype == kdt:
        return arr
    if arr.dtype == np.bool_ and kdt == np.uint8:
        return arr.view(kdt)
    return arr.astype(kdt)


def _as_is(c, a, v):
    """Whether a later call on arrays like ``a`` and ``v`` can go straight to the plan: both of
    the backend's own type, read as they are, of one dtype with kernels of its own (or bool)."""
    return (
        c.sorter is None
        and c.a.array is a
        and c.v.array is v
        and v.ndim >= 1
        and a.dtype == v.dtype == c.dt
        and c.dt != np.float16
        and a.size
        and v.size
    )


class _Direct:
    """A plan's call on arrays as they are: what the repeat-call path and ``prim.plan`` run."""

    __slots__ = ("plan", "right", "bool")

    def __init__(self, plan, right, dt):
        self.plan, self.right, self.bool = plan, right, dt == np.bool_

    def __call__(self, a, v):
        if self.bool:
            a, v = a.view(np.uint8), v.view(np.uint8)
        return self.plan(a, v.reshape(-1), self.right).reshape(v.shape)


def _run(c):
    """The checked call's result."""
    xp = c.a.backend.xp
    a, v = c.a.array, c.v.array
    n, m, shape = a.size, v.size, c.shape
    if m == 0 or n == 0:
        return c.result(xp.zeros(m, dtype=_sp.INDEX_DTYPE), shape)
    if c.sorter is not None:
        _in_range(c.sorter, n, xp)
        a = a[c.sorter]
    ka, kv = _searched(a, c.dt), _searched(v.reshape(-1), c.dt)
    plan = _sp.search_plan(c.a.backend, ka.dtype, n, m, c.pick(n, m))
    return c.result(plan(ka, kv, c.right), shape)


def _direct(c, a, v):
    """The plan of ``c``'s call on ``a`` and ``v`` as they are (see :func:`_as_is`)."""
    kdt = _sp.SEARCHED_AS.get(c.dt, c.dt)
    plan = _sp.search_plan(c.a.backend, kdt, a.size, v.size, c.pick(a.size, v.size))
    return _Direct(plan, c.right, c.dt)


def _make_plan(a, v, side="left", sorter=None, *, variant="auto"):
    """What ``prim.plan(prim.searchsorted, a, v, ...)`` runs for arrays like these."""
    c = _Checked(a, v, side, sorter, variant)
    if _as_is(c, a, v):
        return _direct(c, a, v)
    return lambda a_, v_: searchsorted(a_, v_, side, sorter, variant=variant)


@_plans.planned(_make_plan)
def searchsorted(a, v, side="left", sorter=None, *, variant="auto"):
    """Indices where the elements of ``v`` would be inserted into the sorted 1-D array ``a`` to
    keep it sorted: ``numpy.searchsorted(a, v, side, sorter)``.

    Args:
        a: 1-D array sorted in ascending order (unless ``sorter`` is given), of bool, int8,
            uint8, int16, uint16, int32, uint32, int64, uint64, float16, float32 or float64, in
            NumPy's order (NaNs last). An unsorted ``a`` gives undefined indices (each in
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
            common dtype) outside the list above (complex, strings, objects, datetimes...);
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
    key = _plans.call_key(FUNC, (a, v), (side, variant)) if sorter is None else None
    plan = _plans.PLANS.find(key) if key is not None else None
    if plan is not None:  # an earlier call on like arrays passed every check
        return plan(a, v)
    c = _Checked(a, v, side, sorter, variant)
    out = _run(c)
    if key is not None and _as_is(c, a, v):
        _plans.PLANS.file(key, _direct(c, a, v))
    return out

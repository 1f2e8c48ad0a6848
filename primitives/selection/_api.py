"""Selection's public functions: checks in NumPy's order, then the selections of :mod:`._plans`
(or the full-sort baseline through the sort family)."""

from __future__ import annotations

import numpy as np

from .._core import checks as _checks, dtypes as _dtypes, plans as _plans
from .._core import keys as _sort_keys
from ..sorting import sort_rows
from . import _plans as _sp, _policy

__all__ = ["topk", "argpartition", "partition", "VARIANTS", "DTYPES"]

VARIANTS = ("warp_rows", "rows", "filter", "small_k", "radix_select", "sort")
#: the key dtypes: the sort family's, and bool (as uint8) and float16 (as float32)
DTYPES = (
    (np.dtype(np.bool_),)
    + _sort_keys.KEY_DTYPES[:8]
    + (np.dtype(np.float16),)
    + _sort_keys.KEY_DTYPES[8:]
)
_DTYPE_SET = frozenset(DTYPES)
INDEX = np.dtype(np.int64)


# ---- argument checks --------------------------------------------------------------------------


def _check_dtype(dt, func):
    if _checks.native_dtype(dt) not in _DTYPE_SET:
        raise TypeError(
            f"{func}: x has dtype {dt.name}; supported dtypes are {_dtypes.names(DTYPES)}"
        )


def _input(x, func):
    """x on the backend (any ndim, a 0-d x still 0-d), its dtype checked before the copy to the
    device."""
    xdt = getattr(x, "dtype", None)
    if isinstance(xdt, np.dtype):
        _check_dtype(xdt, func)
    inp = _checks.as_input(x, func=func, arg="x")
    _check_dtype(inp.array.dtype, func)
    return inp


def _k(k, length, func):
    k = _checks.integer(k, func, "k")
    if not 0 <= k <= length:
        raise ValueError(
            f"{func}: k={k} is out of range for {length} elements along the axis "
            f"(0 <= k <= {length})"
        )
    return k


def _kths(kth, length, func):
    """NumPy's kth: an integer or a 1-D sequence of integers, negative counting from the end."""
    if isinstance(kth, (bool, np.bool_)):
        raise ValueError(f"{func}: booleans are not accepted as a partition index, got {kth!r}")
    arr = np.asarray(kth)
    if arr.ndim > 1:
        raise ValueError(
            f"{func}: kth must be an integer or a 1-D sequence of integers, got {arr.ndim}-D"
        )
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{func}: kth must be an integer or a sequence of integers, got {kth!r}")
    out = []
    for v in arr.reshape(-1).tolist():
        w = v + length if v < 0 else v
        if not 0 <= w < length:
            raise ValueError(f"{func}: kth(={v}) out of bounds ({length})")
        out.append(w)
    return out


def _rows(inp, axis, func, scalar_row=True):
    """(array as rows (R, L) C-contiguous, shape of the array with the axis last, axis). A 0-d
    array is one row of one element (``torch.topk``'s and ``numpy.argpartition``'s reading: axis
    0 or -1), or, without ``scalar_row``, an array with no axis to select along
    (``numpy.partition``'s: AxisError but for ``axis=None``)."""
    arr = inp.array
    if axis is None:
        arr, axis = arr.reshape(-1), 0
    elif arr.ndim == 0:
        # no axis (the shared check's AxisError), or one row of one element
        axis = _checks.axis_index(axis, int(scalar_row), func, "an integer or None", scalar=True)
        arr = arr.reshape(1)
    else:
        axis = _checks.axis_index(axis, arr.ndim, func)
    moved = arr if axis == arr.ndim - 1 else inp.backend.xp.moveaxis(arr, axis, -1)
    shape = moved.shape
    return (inp.backend.xp.ascontiguousarray(moved).reshape(rows_of(shape), shape[-1]), shape, axis)


def rows_of(shape):
    """The rows of an array of ``shape`` whose last axis is the one selected along."""
    return int(np.prod(shape[:-1], dtype=np.int64))


def _back(res, shape, axis, xp):
    """(R, m) rows back to the caller's layout: the axis where it was, of length m."""
    out = res.reshape(shape[:-1] + (res.shape[-1],))
    return out if axis == out.ndim - 1 else xp.moveaxis(out, -1, axis)


# ---- the selections ---------------------------------------------------------------------------


def _as_keys(rows2):
    """The rows as the sort family's keys: bool as uint8, float16 as float32 (exact, order and
    NaNs kept)."""
    if rows2.dtype == np.bool_:
        return rows2.view(np.uint8)
    if rows2.dtype == np.float16:
        return rows2.astype(np.float32)
    return rows2


def _by_sort(keys, k, largest, backend):
    """The ``sort`` variant: each row's stable order (descending for largest), first k."""
    from ..sorting import argsort

    xp = backend.xp
    rows, length = keys.shape
    if rows == 1:
        return argsort(keys.reshape(-1), descending=largest)[:k].reshape(1, k)
    iota = xp.broadcast_to(xp.arange(length, dtype=np.int64), (rows, length))
    return sort_rows(backend, keys, iota, descending=largest)[1][:, :k]


def _variant(variant, func):
    return _checks.check_choice(variant, VARIANTS + ("auto",), func=func, arg="variant")


def select(rows2, k, largest, ordered, variant, backend, func):
    """(indices, values): the int64 indices (R, k) of each row's k largest (or smallest) keys,
    equal keys from the lowest indices; ordered by key (then index) when ``ordered``, else in no
    particular order. ``values``: those keys (R, k) where the selection wrote them itself (the
    warp-per-row path, keys of 4 or 8 bytes), else None."""
    xp = backend.xp
    rows, length = rows2.shape
    if k == 0 or rows == 0:
        return xp.empty((rows, k), dtype=INDEX), None
    keys = _as_keys(rows2)
    kbits, kind, bits = _sort_keys.key_bits(keys)
    ub = kbits.dtype.itemsize
    if variant == "auto":
        if _sp.row_fits(ub, length):
            variant = "warp_rows" if k <= _sp.warp_k_max() else "rows"
        elif _sp.filters(k, length):
            variant = "filter"
        else:
            variant = "small_k" if k <= _policy.small_k().k_max else "radix_select"
    if variant == "sort":
        return _by_sort(keys, k, largest, backend), None
    if variant in ("rows", "warp_rows"):
        if not _sp.row_fits(ub, length):
            longest = _policy.rows().row_bytes // ub
            raise ValueError(
                f"{func}: variant {variant!r} holds rows of at most {longest} keys "
                f"of {ub} bytes in shared memory, got {length}; use 'radix_select'"
            )
        warp = variant == "warp_rows"
        if warp and k > _sp.warp_k_max():
            raise ValueError(
                f"{func}: variant 'warp_rows' takes k up to {_sp.warp_k_max()} "
                f"(32 keys per lane kept, its policy's m_max), got k={k}; use "
                f"'rows'"
            )
        plan, sorts = _sp.rows_plan(backend, ub, rows, length, k, kind, largest, ordered, warp)
        img, idx = plan(kbits)
        if warp:  # the keys' own bits, in the winners' order
            return idx, (img.view(rows2.dtype) if rows2.dtype.itemsize == ub else None)
        if ordered and not sorts:  # in index order: a stable sort by image orders them
            img, idx = sort_rows(backend, img, idx)
        return idx, None
    if variant == "small_k":
        k_max = _policy.small_k().k_max
        if k > k_max:
            raise ValueError(
                f"{func}: variant 'small_k' takes k up to {k_max}, got k={k}; use 'radix_select'"
            )
        return _sp.small_k_plan(backend, ub, rows, length, k, kind, largest, ordered)(kbits)[
            1
        ], None
    plan = _sp.radix_plan(
        backend, ub, rows, length, k, kind, bits, largest, ordered, filtered=variant == "filter"
    )
    img, idx = plan(kbits)
    if ordered and not plan.sorts:
        idx = _sp.order_winners(backend, img, idx, ub, length)
    return idx, None


def _topk_checked(x, k, axis, largest, ordered, variant):
    """topk's arguments checked in NumPy's order: (variant, input, rows, shape, axis, k, largest,
    sorted)."""
    func = "topk"
    variant = _variant(variant, func)
    inp = _input(x, func)
    rows2, shape, ax = _rows(inp, axis, func)
    k = _k(k, shape[-1], func)
    return (
        variant,
        inp,
        rows2,
        shape,
        ax,
        k,
        _checks.boolean(largest, func, "largest"),
        _checks.boolean(ordered, func, "sorted"),
    )


# ---- plans (prim.plan) ------------------------------------------------------------------------


def _make_topk(x, k, *, axis=-1, largest=True, sorted=True, variant="auto"):  # noqa: A002
    """What ``prim.plan(prim.topk, x, k, ...)`` runs for arrays like ``x``: the checks done
    here, the selection's plan found by its configuration per call."""
    _topk_checked(x, k, axis, largest, sorted, variant)
    return lambda a: topk(a, k, axis=axis, largest=largest, sorted=sorted, variant=variant)


def _make_partition(func):
    def make(a, kth, axis=-1, kind="introselect", order=None, *, variant="auto"):
        _argpartition(a, kth, axis, kind, order, variant, func.__name__, check_only=True)
        return lambda x: func(x, kth, axis, kind, order, variant=variant)

    return make


# ---- public functions -------------------------------------------------------------------------


@_plans.planned(_make_topk)
def topk(x, k, *, axis=-1, largest=True, sorted=True, variant="auto"):  # noqa: A002 - torch's name
    """The ``k`` largest (or smallest) elements along an axis and their indices, as
    :func:`torch.topk`.

    Args:
        x: array of bool, uint8/16/32/64, int8/16/32/64, float16, float32 or float64 (CuPy,
            NumPy, or anything with ``__cuda_array_interface__`` / DLPack); any ndim.
        k: how many to take along the axis, ``0 <= k <= x.shape[axis]``.
        axis: the axis to select along (default the last); None: the flattened array.
        largest: the k largest (default) or, when False, the k smallest.
        sorted: the results ordered (largest first when ``largest``, else smallest first); when
            False they come in no particular order (the same set).
        variant: ``"warp_rows"``, ``"rows"``, ``"filter"``, ``"small_k"``,
            ``"radix_select"``, ``"sort"`` or ``"auto"`` (see :mod:`primitives.selection`).

    Returns:
        ``(values, indices)``: arrays of ``x``'s shape with the axis of length ``k`` (1-D for
        ``axis=None``); values in ``x``'s dtype (its bit patterns: NaN payloads, signed zeros),
        indices int64 along the axis. CuPy for device input, NumPy for host input.

    Raises:
        TypeError: ``x`` not an array, or of an unsupported dtype (complex, string, object,
            datetime...); ``k`` not an integer; ``largest``/``sorted`` not bools.
        ValueError: ``k < 0`` or ``k > x.shape[axis]``; unknown ``variant``; ``"rows"`` or
            ``"warp_rows"`` on rows longer than its shared memory holds; ``"warp_rows"`` with k
            above 32 times the keys a lane keeps (its policy's m_max); ``"small_k"`` with k
            above its policy's k_max.
        numpy.exceptions.AxisError: ``axis`` out of range.

    Order (NumPy's sort): -inf < ... < -0.0 = 0.0 < ... < inf < NaN; NaN is the largest, so with
    ``largest=True`` NaNs come first (as ``torch.topk``). **Ties:** among equal elements the
    lowest indices are taken, and ordered results list equal elements by increasing index: the
    first ``k`` of a stable sort (``numpy.argsort(-x, kind="stable")`` for ordinary numbers).

    No host synchronization on the ``warp_rows``, ``rows``, ``filter``, ``small_k`` and
    ``radix_select`` paths but where ``sorted`` needs a segmented sort (k above the policies'
    limits). Equivalent to ``numpy.take_along_axis`` of a stable sort's first ``k``; faster
    when ``k`` is small.

    See Also:
        :func:`torch.topk`, :func:`numpy.argpartition`, :func:`argpartition`, :func:`sort`.
    """
    key = _plans.call_key("topk", (x,), (k, axis, largest, sorted, variant))
    call = _plans.PLANS.find(key)
    if call is not None:  # an earlier call on a like array passed every check
        return call(x)
    variant, inp, rows2, shape, ax, k, largest, ordered = _topk_checked(
        x, k, axis, largest, sorted, variant
    )
    call = _TopkCall(inp.backend, shape, ax, axis is None, k, largest, ordered, variant)
    if inp.array is x:  # read as it is: later calls on like arrays skip the checks
        _plans.PLANS.file(key, call)
    vals, idx = call.run(rows2)
    return inp.kept(vals), inp.result(idx)


class _TopkCall(_plans.Plan):
    """topk with its arguments checked, for arrays of one shape (the repeat-call path): the
    rows, the selection (whose plans are found by their configuration) and the gather."""

    def __init__(self, backend, shape, axis, flat, k, largest, ordered, variant):
        self.backend, self.shape, self.axis, self.flat, self.k = backend, shape, axis, flat, k
        self.rows = rows_of(shape)
        self.largest, self.ordered, self.variant = largest, ordered, variant

    def run(self, rows2):
        xp = self.backend.xp
        idx, vals = select(
            rows2, self.k, self.largest, self.ordered, self.variant, self.backend, "topk"
        )
        if vals is None:
            vals = _sp.gather_rows(self.backend, rows2, idx)
        return _back(vals, self.shape, self.axis, xp), _back(idx, self.shape, self.axis, xp)

    def __call__(self, x):
        xp = self.backend.xp
        arr = x.reshape(-1) if self.flat or x.ndim == 0 else x
        moved = arr if self.axis == arr.ndim - 1 else xp.moveaxis(arr, self.axis, -1)
        return self.run(xp.ascontiguousarray(moved).reshape(self.rows, self.shape[-1]))


def _argpartition(
    a, kth, axis, kind, order, variant, func, check_only=False, values=False, key=None
):
    """(input, rows of indices (R, L), shape, axis, rows of the array); None after the checks
    when ``check_only``. ``values``: where the array is sorted, its sorted values (R, L) in place
    of the indices (a partition's values need no permutation then). ``key``: the call's key
    (:func:`~primitives._core.plans.call_key`), under which the sort's plan is filed where a
    1-D ``a`` is sorted as it is (:func:`_file_sorted`)."""
    variant = _variant(variant, func)
    if kind != "introselect":
        raise ValueError(f"{func}: select kind must be 'introselect' (got {kind!r})")
    if order is not None:
        raise ValueError(f"{func}: cannot specify order when the array has no fields")
    inp = _input(a, func)
    rows2, shape, ax = _rows(inp, axis, func, scalar_row=func == "argpartition")
    xp = inp.backend.xp
    rows, length = rows2.shape
    if rows2.size == 0:
        if check_only:
            return None
        return inp, xp.empty(rows2.shape, dtype=INDEX), shape, ax, rows2
    kths = _kths(kth, length, func)
    if not kths:
        raise TypeError(f"{func}: kth must hold at least one integer")
    if check_only:
        return None
    lo, hi = min(kths), max(kths)
    small = hi + 1 <= length - lo  # fewer keys to order from the small end
    m = hi + 1 if small else length - lo
    pol = _policy.partition()
    if (
        variant == "auto"
        and rows == 1
        and (length <= pol.sort_max_len or m * pol.sort_share > length)
    ):
        # a stable sort is a partition for every kth, and cheaper here (the policy's figures)
        from ..sorting import _api as _sort_api

        keys = _as_keys(rows2).reshape(-1)
        if values:
            srt, plan = _sort_api._radix_sort(keys, None, 0, None, False, "auto", func)
            _file_sorted(key, plan, a, inp, keys)
            srt = (
                srt.view(np.bool_)
                if rows2.dtype == np.bool_
                else srt.astype(rows2.dtype, copy=False)
            )
            return inp, None, shape, ax, srt.reshape(1, length)
        perm, plan = _sort_api._argsort(keys, False, "auto")
        _file_sorted(key, plan, a, inp, keys)
        return inp, perm.reshape(1, length), shape, ax, rows2
    sel = select(rows2, m, not small, True, variant, inp.backend, func)[0]
    return inp, _sp.partition_indices(inp.backend, sel, length, small), shape, ax, rows2


def _file_sorted(key, plan, a, inp, keys):
    """After the sort's checked path sorted ``keys`` and gave ``plan`` (its plan for like keys
    read as they are, or None): where those keys are the 1-D array ``a`` itself (of the
    backend's type, in a key dtype of the sort), file that plan under the partition's call
    ``key``. Its result is the partition's (a stable sort is a partition for every kth), so a
    later like call is the sort's repeat call, without the partition's checks and reshapes."""
    if (
        plan is not None
        and key is not None
        and keys.dtype == inp.array.dtype
        and inp.array.ndim == 1
        and _checks.is_itself(inp.array, a)
    ):
        _plans.PLANS.file(key, plan)


@_plans.planned(lambda *a, **kw: _make_partition(argpartition)(*a, **kw))
def argpartition(a, kth, axis=-1, kind="introselect", order=None, *, variant="auto"):
    """Indices that partition ``a`` along an axis: ``numpy.argpartition``.

    Element ``kth`` of the result (along the axis) is the index of the value a sort would put
    there; every index before it points at a value no larger, every index after it at a value
    no smaller. For a sequence of ``kth`` every one of them holds so at once.

    Args:
        a: array of a dtype of :func:`topk`; any ndim.
        kth: an integer or a 1-D sequence of integers, negative counting from the end.
        axis: the axis (default the last); None: the flattened array.
        kind: ``"introselect"`` (NumPy's only choice; the selection is :func:`topk`'s).
        order: None (NumPy's field order; these dtypes have no fields).
        variant: as :func:`topk`.

    Returns:
        int64 indices of ``a``'s shape (1-D for ``axis=None``). CuPy for device input, NumPy for
        host input.

    Raises:
        TypeError: ``a`` not an array or of an unsupported dtype; ``kth`` not integers.
        ValueError: ``kth`` out of bounds or a bool; ``kind`` not ``"introselect"``; ``order``
            given; unknown ``variant``.
        numpy.exceptions.AxisError: ``axis`` out of range.

    NumPy guarantees only the ``kth`` positions and the partition property, and so does this:
    the ``max(kth) + 1`` smallest come first, ordered by :func:`topk` (or the
    ``n - min(kth)`` largest last, when fewer), the others in index order; except that with
    ``variant="auto"`` a 1-D array that is short, or of which the selection would take a large
    share, is sorted instead (a stable :func:`argsort`, also a partition for every ``kth``; the
    ``"partition"`` tuning policy says when). NaNs sort last, as in ``numpy.sort``.

    See Also:
        :func:`numpy.argpartition`, :func:`cupy.argpartition`, :func:`topk`, :func:`partition`.
    """
    key = _plans.call_key("argpartition", (a,), (kth, axis, kind, order, variant))
    plan = _plans.PLANS.find(key)
    if plan is not None:  # a like 1-D array was sorted as it is: the sort's plan
        return plan(a)
    inp, res, shape, ax, _ = _argpartition(
        a, kth, axis, kind, order, variant, "argpartition", key=key
    )
    return inp.result(_back(res, shape, ax, inp.backend.xp))


@_plans.planned(lambda *a, **kw: _make_partition(partition)(*a, **kw))
def partition(a, kth, axis=-1, kind="introselect", order=None, *, variant="auto"):
    """A partitioned copy of ``a``: ``numpy.partition``.

    The value at each ``kth`` position (along the axis) is the one a sort would put there; the
    values before it are no larger, those after it no smaller. Arguments, errors and order as
    :func:`argpartition`; the result has ``a``'s dtype (its bit patterns) and shape (1-D for
    ``axis=None``). As in NumPy, a 0-d ``a`` has no axis to partition along
    (``numpy.exceptions.AxisError`` but for ``axis=None``), where :func:`argpartition` reads it
    as a 1-D array of one element.

    See Also:
        :func:`numpy.partition`, :func:`cupy.partition`, :func:`argpartition`, :func:`topk`.
    """
    key = _plans.call_key("partition", (a,), (kth, axis, kind, order, variant))
    plan = _plans.PLANS.find(key)
    if plan is not None:  # a like 1-D array was sorted as it is: the sort's plan
        return plan(a)
    inp, res, shape, ax, rows2 = _argpartition(
        a, kth, axis, kind, order, variant, "partition", values=True, key=key
    )
    xp = inp.backend.xp
    vals = rows2 if res is None else _sp.gather_rows(inp.backend, rows2, res)  # sorted already
    return inp.kept(_back(vals, shape, ax, xp))

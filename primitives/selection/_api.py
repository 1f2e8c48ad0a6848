"""Selection's public functions, each declared with its prepare step: the checks of
:mod:`._checks`, the variant of :mod:`._choose` (once per plan), then the selection and the replay
of :mod:`._select` on the plans of :mod:`._plans`, or a 1-D partition's stable sort through the
sort family's public API."""

from __future__ import annotations

import numpy as np

from .._core import backend as _backend, entry as _entry, keys as _keys
from ..sorting import argsort, sort
from .._core import checks as _core_checks
from . import _arith, _checks, _choose, _partition, _plans as _splans, _quantile, _select
from ._checks import DTYPES, INDEX
from ._choose import VARIANTS

__all__ = [
    "topk",
    "argpartition",
    "partition",
    "quantile",
    "nanquantile",
    "percentile",
    "nanpercentile",
    "median",
    "nanmedian",
    "VARIANTS",
    "DTYPES",
]


# ---- prepare steps ----------------------------------------------------------------------------


def _prepare_topk(x, k, *, axis=-1, largest=True, sorted=True, variant="auto"):  # noqa: A002
    variant, inp, lay, k, largest, ordered = _checks.topk_args(x, k, axis, largest, sorted, variant)
    backend, dt = inp.backend, inp.array.dtype
    if k == 0 or lay.rows == 0:  # nothing to select: no variant, no plan
        xp = backend.xp
        vals, idx = _select.empty(lay, k, dt, xp), _select.empty(lay, k, INDEX, xp)
        return _entry.Prepared.done((inp.kept(vals), inp.result(idx)))
    variant = _choose.variant(variant, _choose.key_width(dt), lay.length, k, "topk")
    if variant != "warp_rows":  # its selection returns the values too
        _splans.prefetch_gather(dt)
    sel = _select.Selection(backend, dt, lay.rows, lay.length, k, largest, ordered, variant)
    run = _select.TopkRun(backend, lay, sel)
    if inp.array is x:  # read as it is: later calls on like arrays run the replay unchecked
        return _entry.Prepared(run, (x,), reusable=True)

    def checked(arr):
        vals, idx = run(arr)
        return inp.kept(vals), inp.result(idx)

    return _entry.Prepared(checked, (inp.array,))


def _prepare_partition(func, a, kth, axis, kind, order, variant):
    """argpartition's prepare step, or partition's (``func``): its values in place of the
    indices."""
    values = func == "partition"
    variant, inp, lay, kths = _checks.partition_args(a, kth, axis, kind, order, variant, func)
    backend, dt = inp.backend, inp.array.dtype
    finish = inp.kept if values else inp.result
    if kths is None:  # an empty array
        res = _select.empty(lay, lay.length, dt if values else INDEX, backend.xp)
        return _entry.Prepared.done(finish(res))
    if dt.kind == "c":  # the partition of the keys' images, the values gathered
        inner = None
        if dt.itemsize == 8:  # one 64-bit image a key: partitioned as uint64 keys
            rows = _checks.Layout((lay.rows, lay.length), 1, False)
            inner = _partition_run(backend, rows, np.dtype(np.uint64), kths, variant, func, False)
        run = _partition.ComplexPartitionRun(backend, lay, inner, values)
    elif (
        dt in _keys.KEY_SET
        and inp.array.ndim == 1
        and not _by_ranks(variant, lay, kths)
        and _choose.partition_sorts(variant, lay.rows, lay.length, _selected(kths, lay.length)[1])
    ):
        # the sort reads the array as it is: its plan is the partition's (a like call runs it
        # directly, without the partition's checks and reshapes)
        sorted_ = (sort if values else argsort).entry.prepare(inp.array)  # the sort's prepare
        core = sorted_.run if sorted_.reusable else None
        if core is not None:
            if inp.array is a:
                return _entry.Prepared(core, (a,), reusable=True)
            return _entry.Prepared(lambda arr: finish(core(arr)), (inp.array,))
        run = _partition_run(backend, lay, dt, kths, variant, func, values)
    else:
        run = _partition_run(backend, lay, dt, kths, variant, func, values)
    if inp.array is a:  # read as it is: later calls on like arrays run the replay unchecked
        return _entry.Prepared(run, (a,), reusable=True)
    return _entry.Prepared(lambda arr: finish(run(arr)), (inp.array,))


def _selected(kths, length):
    """(small, m): whether the selection takes the ``m = max(kth) + 1`` smallest keys, or else
    the ``m = length - min(kth)`` largest (fewer keys to order)."""
    lo, hi = min(kths), max(kths)
    small = hi + 1 <= length - lo
    return small, (hi + 1 if small else length - lo)


def _by_ranks(variant, lay, kths):
    """Whether the rows of ``lay`` are split by the values at their kth
    (:class:`~._partition.RankPartitionRun`)."""
    return _choose.partition_by_ranks(variant, lay.rows, lay.length) and (
        _partition.rank_partition_takes(lay.rows, lay.length, kths)
    )


def _partition_run(backend, lay, dt, kths, variant, func, values):
    """The run of a partition of the rows of ``lay`` (keys of ``dt``) by ``kths``: split by the
    values at the kth (selected as quantile's order statistics), a stable sort (a partition for
    every kth), or the selection of the keys a kth needs ordered, as :mod:`._choose` says."""
    length = lay.length
    small, m = _selected(kths, length)
    if _by_ranks(variant, lay, kths):
        return _partition.RankPartitionRun(backend, lay, dt, kths, values)
    if _choose.partition_sorts(variant, lay.rows, length, m):
        return _select.SortedRun(backend, lay, sort if values else argsort, dt if values else None)
    variant = _choose.variant(variant, _choose.key_width(dt), length, m, func)
    _splans.prefetch_gather(dt if values else None, partition=True)
    sel = _select.Selection(backend, dt, lay.rows, length, m, not small, True, variant)
    return _select.PartitionRun(backend, lay, sel, small, values)


def _prepare_argpartition(a, kth, axis=-1, kind="introselect", order=None, *, variant="auto"):
    return _prepare_partition("argpartition", a, kth, axis, kind, order, variant)


def _prepare_values(a, kth, axis=-1, kind="introselect", order=None, *, variant="auto"):
    return _prepare_partition("partition", a, kth, axis, kind, order, variant)


def _check_out(out, shape, func, spread):
    """NumPy's checks of ``out`` for a result of ``shape``; with ``spread`` any shape the result
    broadcasts to (NumPy writes its interpolations, and the nan-functions their results, into
    ``out`` by broadcasting). The shape the result is written as."""
    if spread and hasattr(out, "shape"):
        try:
            if np.broadcast_shapes(tuple(shape), tuple(out.shape)) == tuple(out.shape):
                shape = tuple(out.shape)
        except ValueError:
            pass  # check_out names both shapes
    _core_checks.check_out(out, shape, func)
    return tuple(shape)


def _finish(inp, shape, out, func, scalar=True, spread=False):
    """A result (backend array) in the caller's kind and ``shape``: written to ``out`` (of any
    shape it broadcasts to with ``spread``), or a scalar for a 0-d result (NumPy's scalar for
    host input; a 0-d array without ``scalar``). A result of Python objects (q of
    ``fractions.Fraction``) is the host's already: NumPy's object array, or its element."""
    into = None if out is None else _check_out(out, shape, func, spread)

    def finish(res):
        res = res.reshape(shape)
        host = res.dtype == object
        if out is not None:
            xp = np if host else inp.backend.xp
            res = xp.broadcast_to(res, into)
            return _core_checks.write_out(out, res if host else inp.result(res), func)
        if host:
            return res[()] if res.ndim == 0 else res
        return inp.scalar(res) if res.ndim == 0 and scalar else inp.result(res)

    return finish


def _numpy_empty(func, inp, *args, shape=None, **kwargs):
    """NumPy's answer for an empty ``a`` (its errors, warnings, shape and dtype: no value to
    compute), in the caller's kind; ``shape``: NumPy asked about zeros of that shape in place
    of ``a`` (a stand-in of the same result, where no quantile is asked)."""
    import numpy as np

    shape = inp.array.shape if shape is None else shape
    try:
        res = getattr(np, func)(np.zeros(shape, inp.array.dtype), *args, **kwargs)
    except (IndexError, ValueError, TypeError, ZeroDivisionError) as exc:
        raise type(exc)(f"{func}: {exc}") from None
    arr = inp.backend.xp.asarray(np.asarray(res))
    return inp.scalar(arr) if arr.ndim == 0 else inp.result(arr)


def _prepare_quantile(func, a, q, axis, out, method, keepdims, weights, percent, nan):
    inp, qa, weak, axes, method, w = _checks.quantile_args(
        a, q, axis, method, weights, func, percent
    )
    arr = inp.array
    keepdims = _core_checks.boolean(keepdims, func, "keepdims")
    shape = qa.shape + _checks.reduced_shape(arr.shape, axes, keepdims)
    interpolates = _arith.interpolates(method, np.asarray(_arith.virtual_index(np, 1, qa, method)))
    # NumPy broadcasts its interpolation into out, and the nan-functions' results; it takes
    # values into an out of the result's shape
    spread = nan or (w is None and interpolates)
    if out is not None:
        _check_out(out, shape, func, spread)
    if arr.dtype == bool and interpolates:
        raise TypeError(f"{func}: method {method!r} interpolates, which bool values cannot")
    if arr.size == 0 or qa.size == 0:
        # nothing to compute: NumPy's answer, of an empty a, or (no quantile asked) of a
        # stand-in whose reduced axes are one long (the same result's shape and dtype)
        q_given = q if weak else qa * (100 if percent else 1)
        if arr.size == 0:
            stand, more = arr.shape, {} if w is None else {"weights": _backend.to_host(weights)}
        else:
            stand = tuple(1 if i in axes else s for i, s in enumerate(arr.shape))
            more = {} if w is None else {"weights": np.ones(stand, w.dtype)}
        res = _numpy_empty(
            func, inp, q_given, axis=axis, method=method, keepdims=keepdims, shape=stand, **more
        )
        return _entry.Prepared.done(res if out is None else _core_checks.write_out(out, res, func))
    kept = tuple(s for i, s in enumerate(arr.shape) if i not in axes)
    if w is not None:  # NumPy's weighted quantile gives a 0-d array for a 0-d result
        wfinish = _finish(inp, shape, out, func, scalar=False, spread=spread)
        wrun = _quantile.WeightedRun(inp.backend, arr.dtype, arr.shape, axes, kept, qa, nan, func)
        return _entry.Prepared(lambda x: wfinish(wrun(x, w)), (arr,))
    finish = _finish(inp, shape, out, func, spread=spread)
    run = _quantile.QuantileRun(
        inp.backend, arr.dtype, arr.shape, axes, kept, method, qa, weak, nan, func
    )
    reusable = out is None and _core_checks.is_itself(arr, a)
    return _entry.Prepared(lambda x: finish(run(x)), (arr,), reusable=reusable)


def _prepare_median(func, a, axis, out, keepdims, nan):
    inp, axes = _checks.median_args(a, axis, func)
    arr = inp.array
    keepdims = _core_checks.boolean(keepdims, func, "keepdims")
    shape = _checks.reduced_shape(arr.shape, axes, keepdims)
    if out is not None:
        _check_out(out, shape, func, nan)
    if arr.size == 0:
        res = _numpy_empty(func, inp, axis=axis, keepdims=keepdims)
        return _entry.Prepared.done(res if out is None else _core_checks.write_out(out, res, func))
    kept = tuple(s for i, s in enumerate(arr.shape) if i not in axes)
    med = _partition.ComplexMedianRun if arr.dtype.kind == "c" else _quantile.MedianRun
    run = med(inp.backend, arr.dtype, arr.shape, axes, kept, nan)
    finish = _finish(inp, shape, out, func, spread=nan)
    reusable = out is None and _core_checks.is_itself(arr, a)
    return _entry.Prepared(lambda x: finish(run(x)), (arr,), reusable=reusable)


def _prepare_q(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=False,
    method="linear",
    keepdims=False,
    *,
    weights=None,
):
    return _prepare_quantile("quantile", a, q, axis, out, method, keepdims, weights, False, False)


def _prepare_nanq(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=False,
    method="linear",
    keepdims=False,
    *,
    weights=None,
):
    return _prepare_quantile("nanquantile", a, q, axis, out, method, keepdims, weights, False, True)


def _prepare_p(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=False,
    method="linear",
    keepdims=False,
    *,
    weights=None,
):
    return _prepare_quantile("percentile", a, q, axis, out, method, keepdims, weights, True, False)


def _prepare_nanp(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=False,
    method="linear",
    keepdims=False,
    *,
    weights=None,
):
    return _prepare_quantile(
        "nanpercentile", a, q, axis, out, method, keepdims, weights, True, True
    )


def _prepare_m(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return _prepare_median("median", a, axis, out, keepdims, False)


def _prepare_nanm(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return _prepare_median("nanmedian", a, axis, out, keepdims, True)


# ---- public functions -------------------------------------------------------------------------


@_entry.function(_prepare_topk, arrays=("x",))
def topk(x, k, *, axis=-1, largest=True, sorted=True, variant="auto"):  # noqa: A002 - torch's name
    """The ``k`` largest (or smallest) elements along an axis and their indices, as
    :func:`torch.topk`.

    Args:
        x: array of bool, uint8/16/32/64, int8/16/32/64, float16, bfloat16, float32 or float64 (CuPy,
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


@_entry.function(_prepare_argpartition, arrays=("a",))
def argpartition(a, kth, axis=-1, kind="introselect", order=None, *, variant="auto"):
    """Indices that partition ``a`` along an axis: ``numpy.argpartition``.

    Element ``kth`` of the result (along the axis) is the index of the value a sort would put
    there; every index before it points at a value no larger, every index after it at a value
    no smaller. For a sequence of ``kth`` every one of them holds so at once.

    Args:
        a: array of a dtype of :func:`topk`, complex64 or complex128 (NumPy's complex order:
            by real part, then imaginary part, values with a NaN part last); any ndim.
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
    ``n - min(kth)`` largest last, when fewer), the others in index order; except with
    ``variant="auto"`` where that selection would take a large share of the row (the
    ``"partition"`` tuning policy says when): then a 1-D array that is short is sorted (a
    stable :func:`argsort`, also a partition for every ``kth``), and other rows, with at most
    four distinct ``kth``, are split by the values at their ``kth`` (selected as
    :func:`quantile`'s order statistics, then one pass writes the keys below the first value,
    equal to it, between it and the next..., each part in index order; no sort). A single
    ``kth`` splits most rows digit by digit instead (the keys in lower bins of the top digit
    written to the front, those in higher bins to the back, the kth's bin split again by the
    next digit...): each part then in an order fixed by the input, not index order. NaNs sort
    last, as in ``numpy.sort``.

    See Also:
        :func:`numpy.argpartition`, :func:`cupy.argpartition`, :func:`topk`, :func:`partition`.
    """


@_entry.function(_prepare_values, arrays=("a",))
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


_QUANTILE_DOC = """{title}

    Args:
        a: real array of a dtype of :func:`topk` (bool only for the methods that take values:
            ``inverted_cdf``, ``closest_observation``, ``lower``, ``higher``, ``nearest``); any
            ndim.
        q: {q}; a host or a device array (brought to the host once: q is small).
            Python numbers that are no floats (``fractions.Fraction``) are computed with on
            the host as NumPy does, exactly (host ``a`` only, no weights): the result an
            object array, or the Fraction itself for a 0-d result.
        axis: an integer, a tuple or list of integers or None (every axis: the flattened
            array).
        out: an array the result broadcasts to, the result cast into it (NumPy's unsafe
            casting); of the result's shape for the methods that take values, as NumPy's.
        overwrite_input: accepted for NumPy's signature; ``a`` is never modified.
        method: one of NumPy's thirteen: ``inverted_cdf``, ``averaged_inverted_cdf``,
            ``closest_observation``, ``interpolated_inverted_cdf``, ``hazen``, ``weibull``,
            ``linear`` (default), ``median_unbiased``, ``normal_unbiased``, ``lower``,
            ``higher``, ``midpoint``, ``nearest``.
        keepdims: keep the reduced axes as axes of length one.
        weights: None, or non-negative real weights (Python numbers read as float64) of ``a``'s
            shape or (with ``axis``) of
            its shape along the axes; only with ``method="inverted_cdf"`` (NumPy's ValueError
            else): each quantile is the first value of the sorted slice whose share of the
            slice's total weight (cumulated in float64) reaches it. Weighted slices are sorted
            (a segmented sort), not selected, and the checks of the weights' values (negative
            ones; NaN, inf or all zero) read one flag each.

    Returns:
        shape ``q.shape`` + the shape left after the reduction; NumPy's dtype: the input's for
        the methods that take values, else the promotion of the input's and the quantiles'
        (float64 for integers with an array q; a Python-number q keeps a float input's
        dtype). A NumPy scalar for a 0-d result of host input (a 0-d array with weights, as
        NumPy's). Values taken (not interpolated) are the elements' own bits (-0.0, a NaN's
        payload). CuPy for device input.

    Raises:
        TypeError: ``a`` complex, or of an unsupported dtype; bool with an interpolating
            method; ``q`` not numbers; weights of another shape than ``a`` without ``axis``,
            or not real numbers.
        ValueError: {range}; an unknown ``method``; ``q`` of more than 2 dimensions; ``out``
            of the wrong shape; a repeated axis; weights with another method, of another shape,
            negative, or of a slice holding NaN or inf or only zeros.
        IndexError: nothing to reduce (NumPy's).
        numpy.exceptions.AxisError: ``axis`` out of range.

    {nan}The order statistics are selected, not sorted: a multi-rank radix select over the
    rows (``kernels/selection/quantile.cu``: one pass counts the top digit of every key and the
    NaNs, the later passes read only the candidates of each needed rank, every quantile of one
    call served by the same passes); rows shorter than the ``"quantile"`` policy's min_len are
    sorted instead (a segmented sort). Reduced axes that are not the last ones are read through
    a transposing copy. No host synchronization{sync}.

    See Also:
        :func:`numpy.{name}`, :func:`cupy.{name}`, :func:`median`, :func:`topk`.
    """


def _qdoc(name, title, percent, nan):
    return _QUANTILE_DOC.format(
        name=name,
        title=title,
        q=(
            "a number or an array of numbers in [0, 100]"
            if percent
            else "a number or an array of numbers in [0, 1]"
        ),
        range=(
            '"Percentiles must be in the range [0, 100]"'
            if percent
            else '"Quantiles must be in the range [0, 1]"'
        ),
        nan=(
            "NaNs are ignored; an all-NaN slice gives NaN with a RuntimeWarning "
            '("All-NaN slice encountered", one a slice, as NumPy\'s). '
            if nan
            else "A slice holding a NaN gives NaN (as NumPy). "
        ),
        sync=" but one read of the slices' NaN counts (for NumPy's warning of an all-NaN slice)"
        if nan
        else "",
    )


@_entry.function(_prepare_q, arrays=("a",))
def quantile(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=False,
    method="linear",
    keepdims=False,
    *,
    weights=None,
):
    pass


@_entry.function(_prepare_nanq, arrays=("a",))
def nanquantile(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=False,
    method="linear",
    keepdims=False,
    *,
    weights=None,
):
    pass


@_entry.function(_prepare_p, arrays=("a",))
def percentile(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=False,
    method="linear",
    keepdims=False,
    *,
    weights=None,
):
    pass


@_entry.function(_prepare_nanp, arrays=("a",))
def nanpercentile(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=False,
    method="linear",
    keepdims=False,
    *,
    weights=None,
):
    pass


_MEDIAN_DOC = """{title}

    Args:
        a: array of a dtype of :func:`topk`, complex64 or complex128; any ndim.
        axis: an integer, a tuple or list of integers or None (every axis: the flattened
            array).
        out: an array of the result's shape (for nanmedian any shape it broadcasts to, as
            NumPy's), the result cast into it.
        overwrite_input: accepted for NumPy's signature; ``a`` is never modified.
        keepdims: keep the reduced axes as axes of length one.

    Returns:
        the mean of the middle value or two, as NumPy's: float64 for integers and bool, the
        float's own dtype (float16 through a float32 sum), the complex one's own (NumPy's complex
        order: by real part, then imaginary part, values with a NaN part last). A NumPy scalar
        for a 0-d result of host input. CuPy for device input.

    Raises:
        TypeError: ``a`` of an unsupported dtype.
        ValueError: a repeated axis; ``out`` of the wrong shape.
        numpy.exceptions.AxisError: ``axis`` out of range.

    {nan}A NaN the arithmetic makes of infinities (``inf - inf``, a complex ``inf * 0``) is the
    host's, NumPy's bits. An empty slice gives NaN with NumPy's warning ("Mean of empty
    slice"). The two
    middle ranks are selected as :func:`quantile`'s are, not sorted, and for float32 and
    float64 the mean is taken in the same launch that reads the selection's result; complex
    slices are sorted (two segmented sorts). No host synchronization{sync}.

    See Also:
        :func:`numpy.{name}`, :func:`cupy.{name}`, :func:`quantile`.
    """


@_entry.function(_prepare_m, arrays=("a",))
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    pass


@_entry.function(_prepare_nanm, arrays=("a",))
def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    pass


quantile.__doc__ = _qdoc(
    "quantile", "The ``q``-th quantiles of ``a`` along axes: ``numpy.quantile``.", False, False
)
nanquantile.__doc__ = _qdoc(
    "nanquantile",
    "The ``q``-th quantiles of ``a`` along axes, NaNs ignored: ``numpy.nanquantile``.",
    False,
    True,
)
percentile.__doc__ = _qdoc(
    "percentile", "The ``q``-th percentiles of ``a`` along axes: ``numpy.percentile``.", True, False
)
nanpercentile.__doc__ = _qdoc(
    "nanpercentile",
    "The ``q``-th percentiles of ``a`` along axes, NaNs ignored: ``numpy.nanpercentile``.",
    True,
    True,
)
median.__doc__ = _MEDIAN_DOC.format(
    name="median",
    title="The median of ``a`` along axes: ``numpy.median``.",
    nan="A slice holding a NaN gives NaN (as NumPy). ",
    sync="",
)
nanmedian.__doc__ = _MEDIAN_DOC.format(
    name="nanmedian",
    title="The median of ``a`` along axes, NaNs ignored: ``numpy.nanmedian``.",
    nan="NaNs are ignored; an all-NaN slice gives NaN with a RuntimeWarning "
    '("All-NaN slice encountered", one a slice, as NumPy\'s). ',
    sync=" but one read of the slices' NaN counts (for NumPy's warning of an all-NaN slice)",
)

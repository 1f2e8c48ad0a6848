"""The histogram family's public functions: the repeat-call path (a call on samples like an
earlier call's, with the same other arguments, takes that call's plan), the checks, then the
plans of :mod:`._plans`."""

from __future__ import annotations

import operator

import numpy as np

from .._core import backend as _backend, checks as _checks, plans as _plans
from . import _checks as _hc
from ._binning import (OUT_DTYPE, array_binning, bincount_binning, byte_binning, even_binning,
                       uniform)
from ._plans import (binning_plan, byte_result, channels_plan, count, minmax, repeat_plan)

__all__ = ["histogram", "bincount", "histogram_even", "histogram_channels"]


def _as_is(arr, a):
    """Whether the device array ``arr`` is the caller's ``a`` (of the backend's own type) read as
    it is: no conversion or copy, so that a plan may take ``a`` itself."""
    if type(a) is not _backend.get_backend().xp.ndarray:
        return False
    if arr.size != a.size or arr.itemsize != a.itemsize:
        return False
    if hasattr(a.data, "ptr"):  # CuPy
        return arr.data.ptr == a.data.ptr
    return arr.__array_interface__["data"][0] == a.__array_interface__["data"][0]


# ---- histogram -------------------------------------------------------------------------------


def _histogram_checked(a, bins, range, weights, density, variant):  # noqa: A002
    """histogram's checks and binning: (input, samples, weights, binning, edges, its plan when
    the binning is cached, the repeat-call plan or None)."""
    func = "histogram"
    _hc.check_variant(func, variant)
    _hc.precheck(func, a, "a")
    inp = _checks.as_input(a, func=func, arg="a")
    backend = inp.backend
    w = _hc.as_weights(func, weights, inp.array.shape) if weights is not None else None
    arr = inp.array
    arr = _hc.samples(func, arr if arr.ndim == 1 else arr.reshape(-1))
    dt = arr.dtype
    bplan = None
    if isinstance(bins, str):
        host = _backend.to_host(arr)
        hw = None if w is None else _backend.to_host(w).reshape(-1)
        try:
            est = np.histogram_bin_edges(host, bins, range, hw)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{func}: {exc}") from exc
        edges, (binning, kdt) = est, array_binning(dt, est)
    elif isinstance(bins, int) or np.ndim(bins) == 0:
        n = _hc.nbins(func, bins)
        first, last = _hc.outer_edges(func, arr, range, backend)
        edges, binning, kdt = uniform(func, dt, first, last, n)
        bplan = binning_plan(binning, backend, edges)  # edges fixed by the arguments
    elif np.ndim(bins) == 1:
        edges = _hc.array_edges(func, bins)
        binning, kdt = array_binning(dt, edges)
    else:
        raise ValueError(f"{func}: `bins` must be 1d, when an array")
    repeat = None
    if bplan is not None and w is None and not density and range is not None and kdt == dt \
            and _as_is(arr, a):
        repeat = repeat_plan("histogram", variant, binning, arr.size, backend, edges=edges)
    if kdt != dt:
        arr = arr.astype(kdt)
    return inp, arr, w, binning, edges, bplan, repeat


def _make_histogram(a, bins=10, range=None, weights=None, density=False, *,  # noqa: A002
                    variant="auto"):
    """What ``prim.plan(prim.histogram, a, ...)`` runs for samples like ``a``."""
    repeat = _histogram_checked(a, bins, range, weights, density, variant)[-1]
    if repeat is not None:
        return repeat
    return lambda x: histogram(x, bins, range, weights, density, variant=variant)


@_plans.planned(_make_histogram)
def histogram(a, bins=10, range=None, weights=None, density=False, *,  # noqa: A002 - NumPy's name
              variant="auto"):
    """Histogram of ``a``, as :func:`numpy.histogram`.

    Args:
        a: samples, any shape (flattened): bool (converted to uint8 with NumPy's warning), int8,
            uint8, int16, uint16, int32, uint32, int64, uint64, float32 or float64 (CuPy, NumPy,
            or anything with ``__cuda_array_interface__`` / DLPack).
        bins: an int (that many equal-width bins over ``range``), a 1-D monotone array of edges
            (a sample x counts in bin i when ``edges[i] <= x < edges[i+1]``, the last bin closed),
            or the name of one of NumPy's estimators (``"auto"``, ``"fd"``, ...: the edges are
            estimated on the host by :func:`numpy.histogram_bin_edges`).
        range: ``(first, last)`` for int ``bins``; default ``(a.min(), a.max())`` (computed on
            the device, then read back: a synchronization). Samples outside are dropped; ignored
            when ``bins`` is an array, as in NumPy.
        weights: optional array of ``a``'s shape (int32, int64, uint32, uint64, float32 or
            float64): each sample adds its weight instead of 1. The sums are accumulated in
            float64 with atomics (their last bits can vary from call to call) and returned in
            the weights' dtype, as NumPy does.
        density: return counts / bin width / total, as NumPy.
        variant: one of :data:`VARIANTS` or ``"auto"`` (see :func:`auto_variant`).

    Returns:
        ``(hist, bin_edges)``: int64 counts (the weights' dtype with ``weights``, float64 with
        ``density``) and the ``nbins + 1`` edges in NumPy's dtype; device arrays for device input,
        NumPy arrays for host input.

    Raises:
        TypeError: ``a`` or ``weights`` is not an array or has an unsupported dtype; ``bins`` is
            neither an int, a string nor an array.
        ValueError: NumPy's errors (``bins`` not positive, not 1-D, not increasing; ``range``
            reversed or not finite; autodetected range not finite (NaN or inf samples); too many
            bins for the range; ``weights`` of another shape), an unknown ``variant``, NaN in
            ``bins``, or a variant that keeps every bin in shared memory asked for more bins
            than fit.

    Bins equal NumPy's exactly, including samples that land on an edge: kernels place a sample
    by its position and, near an edge, compare it with NumPy's edges (``numpy.linspace`` in
    NumPy's dtype); samples are kept by NumPy's own comparisons with ``range``. NaN samples are
    dropped (with ``range`` given), as in NumPy. Float32 subnormal samples are binned exactly
    although kernels run with flush-to-zero (CuPy's compile option). Device input, int ``bins``
    and ``range`` given: no host synchronization.

    See Also:
        :func:`numpy.histogram`, :func:`cupy.histogram`, :func:`histogram_even`.
    """
    key = None
    if weights is None and (density is False or density is None) and type(range) in (tuple, list) \
            and len(range) == 2:
        key = _plans.call_key("histogram", (a,), (variant, bins, range[0], range[1]))
        plan = _plans.PLANS.find(key)
        if plan is not None:  # an earlier call on like samples checked these arguments
            return plan(a)
    inp, arr, w, binning, edges, bplan, repeat = _histogram_checked(a, bins, range, weights,
                                                                     density, variant)
    if repeat is not None:  # the samples as they are: later like calls take the plan directly
        _plans.PLANS.file(key, repeat)
        return repeat(a)
    backend = inp.backend
    xp = backend.xp
    wdev = None
    if w is not None:
        wdev = w.reshape(-1)
        if wdev.dtype != np.float64:
            wdev = wdev.astype(np.float64)
        wdev = xp.ascontiguousarray(wdev)
    hist = count(arr, binning, wdev, variant, backend, bplan, cached=False)
    if w is not None and w.dtype != np.float64:
        hist = hist.astype(w.dtype)
    edges_out = bplan.edges.copy() if bplan is not None else xp.array(edges)
    if density:
        db = xp.diff(edges_out).astype(float)
        hist = hist / db / hist.sum()
    return inp.result(hist), inp.result(edges_out)


# ---- histogram_even --------------------------------------------------------------------------


def _even_checked(a, bins, lower, upper, variant):
    """histogram_even's checks and binning: (input, samples, binning, repeat-call plan or
    None)."""
    func = "histogram_even"
    _hc.check_variant(func, variant)
    _hc.precheck(func, a, "a")
    inp = _checks.as_input(a, func=func, arg="a")
    arr = inp.array
    arr = _hc.samples(func, arr if arr.ndim == 1 else arr.reshape(-1))
    n = _hc.nbins(func, bins)
    try:
        lo, hi = float(lower), float(upper)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{func}: lower and upper must be numbers, got {lower!r}, {upper!r}") \
            from exc
    if not (np.isfinite(lo) and np.isfinite(hi)) or not lo < hi:
        raise ValueError(f"{func}: need finite lower < upper, got lower={lower!r}, "
                         f"upper={upper!r}")
    binning, kdt = even_binning(func, arr.dtype, lo, hi, n)
    repeat = None
    if kdt == arr.dtype and _as_is(arr, a):
        repeat = repeat_plan("even", variant, binning, arr.size, inp.backend)
    if kdt != arr.dtype:
        arr = arr.astype(kdt)
    return inp, arr, binning, repeat


def _make_even(a, bins, lower, upper, *, variant="auto"):
    """What ``prim.plan(prim.histogram_even, a, ...)`` runs for samples like ``a``."""
    repeat = _even_checked(a, bins, lower, upper, variant)[-1]
    if repeat is not None:
        return repeat
    return lambda x: histogram_even(x, bins, lower, upper, variant=variant)


@_plans.planned(_make_even)
def histogram_even(a, bins, lower, upper, *, variant="auto"):
    """Counts of ``a`` in ``bins`` equal-width bins over ``[lower, upper)``: the raw fast path.

    A sample x counts in bin i when ``edges[i] <= x < edges[i+1]`` for the edges
    ``numpy.linspace(lower, upper, bins + 1)`` held in float32 for float32 samples and in float64
    otherwise (x converted to that type); samples outside ``[lower, upper)`` and NaN are dropped
    (unlike :func:`histogram`, the last bin is open, as in CUB's ``HistogramEven``). No edges are
    returned and nothing synchronizes.

    Args:
        a: samples, any shape (flattened), dtypes as :func:`histogram`.
        bins: number of bins (int >= 1).
        lower, upper: finite numbers, ``lower < upper``.
        variant: one of :data:`VARIANTS` or ``"auto"`` (see :func:`auto_variant`).

    Returns:
        int64 counts, a device array for device input (a NumPy array for host input).

    Raises:
        TypeError: ``a`` is not an array or has an unsupported dtype; ``bins`` not an int.
        ValueError: ``bins < 1``, ``lower >= upper`` or not finite, an unknown ``variant``, or too
            many bins for the range.

    See Also:
        :func:`histogram`, :func:`numpy.histogram`.
    """
    key = _plans.call_key("histogram_even", (a,), (variant, bins, lower, upper))
    plan = _plans.PLANS.find(key)
    if plan is not None:  # an earlier call on like samples checked these arguments
        return plan(a)
    inp, arr, binning, repeat = _even_checked(a, bins, lower, upper, variant)
    if repeat is not None:  # the samples as they are: later like calls take the plan directly
        _plans.PLANS.file(key, repeat)
        return repeat(a)
    return inp.result(count(arr, binning, None, variant, inp.backend))


# ---- bincount --------------------------------------------------------------------------------


def _bincount_checked(x, weights, minlength, variant):
    """bincount's checks: (input, samples, float64 device weights or None, minlength)."""
    func = "bincount"
    _hc.check_variant(func, variant)
    if minlength is None:
        raise TypeError(f"{func}: use 0 instead of None for minlength")
    try:
        minlength = operator.index(minlength)
    except TypeError as exc:
        raise TypeError(f"{func}: minlength must be an int, got {minlength!r}") from exc
    dt0 = getattr(x, "dtype", None)
    if dt0 is not None and not (np.can_cast(dt0, np.intp) or dt0 == np.uint64):
        raise TypeError(f"{func}: Cannot cast array data from {np.dtype(dt0)!r} to "
                        f"{np.dtype(np.intp)!r} according to the rule 'safe'")
    inp = _checks.as_input(x, func=func, arg="x")
    arr = inp.array
    ndim = x.ndim if hasattr(x, "ndim") else arr.ndim  # (a 0-d input comes back 1-d)
    if ndim != 1:
        raise ValueError(f"{func}: x must be 1-D, got {ndim}-D (NumPy: object "
                         f"{'too deep' if ndim > 1 else 'of too small depth'} for desired "
                         f"array)")
    if not (np.can_cast(arr.dtype, np.intp) or arr.dtype == np.uint64):  # NumPy takes uint64
        raise TypeError(f"{func}: Cannot cast array data from {arr.dtype!r} to "
                        f"{np.dtype(np.intp)!r} according to the rule 'safe'")
    if arr.dtype == np.bool_:
        arr = arr.view(np.uint8)
    if minlength < 0:
        raise ValueError(f"{func}: 'minlength' must not be negative")
    wdev = None
    if weights is not None:
        wdt = getattr(weights, "dtype", None)
        if wdt is not None and not np.can_cast(wdt, np.float64):
            raise TypeError(f"{func}: Cannot cast array data from {np.dtype(wdt)!r} to "
                            f"dtype('float64') according to the rule 'safe'")
        w = _checks.as_input(weights, func=func, arg="weights").array
        if not np.can_cast(w.dtype, np.float64):
            raise TypeError(f"{func}: Cannot cast array data from {w.dtype!r} to "
                            f"dtype('float64') according to the rule 'safe'")
        if w.ndim != 1 or w.shape[0] != arr.shape[0]:
            raise ValueError(f"{func}: The weights and list don't have the same length.")
        wdev = inp.backend.xp.ascontiguousarray(w.astype(np.float64, copy=False))
    return inp, arr, wdev, minlength


def _bytes_repeat(x, arr, minlength, variant, backend):
    """The repeat-call plan of bincount of the 8-bit samples ``x`` read as they are, or None."""
    if arr.dtype.itemsize != 1 or not _as_is(arr, x):
        return None
    return repeat_plan("bincount", variant, byte_binning(arr.dtype), arr.size, backend,
                       minlength=minlength, origin=128 if arr.dtype == np.int8 else 0)


def _make_bincount(x, weights=None, minlength=0, *, variant="auto"):
    """What ``prim.plan(prim.bincount, x, ...)`` runs for samples like ``x``."""
    inp, arr, wdev, minlength_ = _bincount_checked(x, weights, minlength, variant)
    repeat = None
    if wdev is None and arr.size:
        repeat = _bytes_repeat(x, arr, minlength_, variant, inp.backend)
    if repeat is not None:
        return repeat
    return lambda y: bincount(y, weights, minlength, variant=variant)


@_plans.planned(_make_bincount)
def bincount(x, weights=None, minlength=0, *, variant="auto"):
    """Number of occurrences of each value in ``x``, as :func:`numpy.bincount`.

    Args:
        x: 1-D array of non-negative integers: bool, int8, uint8, int16, uint16, int32, uint32,
            int64 or uint64 (the types NumPy accepts).
        weights: optional 1-D array of ``x``'s length, cast safely to float64.
        minlength: minimum number of bins (int >= 0).
        variant: one of :data:`VARIANTS` or ``"auto"``.

    Returns:
        int64 counts of length ``max(x.max() + 1, minlength)`` (float64 sums with ``weights``);
        a device array for device input (a NumPy array for host input).

    Raises:
        TypeError: ``x`` is not an array or not of an integer dtype (floats, ...);
            ``minlength`` is None or not an int; ``weights`` not castable to float64.
        ValueError: ``x`` is not 1-D, ``minlength < 0``, negative values in ``x``, ``weights`` of
            another length, or an unknown ``variant``.

    The output length depends on the data, so this synchronizes once: 8-bit input is counted
    over all 256 values in one pass whose last block also finds the first and last non-zero
    count, and those two numbers come back after the launch (the result is the counts or a view
    of them); wider input first computes its minimum and maximum on the device.

    See Also:
        :func:`numpy.bincount`, :func:`cupy.bincount`.
    """
    func = "bincount"
    key = None
    if weights is None:
        key = _plans.call_key(func, (x,), (variant, minlength))
        plan = _plans.PLANS.find(key)
        if plan is not None:  # an earlier call on like samples checked these arguments
            return plan(x)
    inp, arr, wdev, minlength = _bincount_checked(x, weights, minlength, variant)
    backend, xp = inp.backend, inp.backend.xp
    out_dt = OUT_DTYPE["weight" if wdev is not None else "count"]
    if arr.size == 0:
        return inp.result(xp.zeros(minlength, dtype=out_dt))
    dt = arr.dtype
    if dt.itemsize == 1:  # every value counted in one pass; the counts say the length
        repeat = None if wdev is not None else _bytes_repeat(x, arr, minlength, variant, backend)
        if repeat is not None:  # the samples as they are: later like calls take the plan
            _plans.PLANS.file(key, repeat)
            return inp.result(repeat(x))
        binning = byte_binning(dt)
        full = count(arr, binning, wdev, variant, backend)
        present = count(arr, binning, None, variant, backend) if wdev is not None else full
        host = present.get() if backend.is_cuda else present
        nz = np.flatnonzero(host)
        return inp.result(byte_result(func, full, int(nz[0]) if nz.size else -1,
                                      int(nz[-1]) if nz.size else -1,
                                      128 if dt == np.int8 else 0, minlength, xp))
    lo, hi = minmax(arr, backend)
    if lo < 0 or int(hi) >= 2**63:  # NumPy casts uint64 to int64: values >= 2^63 turn negative
        raise ValueError(f"{func}: 'list' argument must have no negative elements")
    length = max(int(hi) + 1, minlength)
    if length > 2**31 - 1:
        raise ValueError(f"{func}: x.max() + 1 = {int(hi) + 1} bins are more than this "
                         f"library supports (2**31 - 1)")
    binning = bincount_binning(dt, 0, int(hi), length)
    return inp.result(count(arr, binning, wdev, variant, backend))


# ---- histogram_channels ----------------------------------------------------------------------


def _channels_checked(image, bins, range):  # noqa: A002
    """histogram_channels' checks and binning: (input, samples, its plan, whether the plan takes
    ``image`` itself)."""
    func = "histogram_channels"
    _hc.precheck(func, image, "image")
    inp = _checks.as_input(image, func=func, arg="image")
    arr = inp.array
    if arr.ndim < 2:
        raise ValueError(f"{func}: image must have a channel axis (ndim >= 2), got shape "
                         f"{tuple(arr.shape)}")
    channels = int(arr.shape[-1])
    if not 1 <= channels <= 64:
        raise ValueError(f"{func}: 1 to 64 channels are supported, got {channels}")
    arr = _hc.samples(func, arr.reshape(-1), arg="image")
    n = _hc.nbins(func, bins)
    if range is None:
        raise ValueError(f"{func}: range must be given (first, last)")
    first, last = _hc.outer_edges(func, arr, range, inp.backend)
    edges, binning, kdt = uniform(func, arr.dtype, first, last, n)
    as_is = kdt == arr.dtype and _as_is(arr, image)
    if kdt != arr.dtype:
        arr = arr.astype(kdt)
    backend = inp.backend
    info = backend.device_info()
    table = channels * n * 4
    if table > info.shared_per_block_optin:
        raise ValueError(f"{func}: {channels} channels x {n} bins of 4-byte counters "
                         f"({table} bytes) do not fit in a block's shared memory "
                         f"({info.shared_per_block_optin} bytes)")
    return inp, arr, channels_plan(binning, edges, channels, arr.size, backend), as_is


def _make_channels(image, bins=256, range=(0, 256)):  # noqa: A002
    """What ``prim.plan(prim.histogram_channels, image, ...)`` runs for images like ``image``."""
    _, _, plan, as_is = _channels_checked(image, bins, range)
    if as_is:
        return plan
    return lambda x: histogram_channels(x, bins, range)


@_plans.planned(_make_channels)
def histogram_channels(image, bins=256, range=(0, 256)):  # noqa: A002 - NumPy's name
    """Histogram of every channel of interleaved data in one pass: an (H, W, C) image (RGB, RGBA,
    ...), or any array whose last axis holds the channels.

    Each channel is binned as :func:`histogram` bins it: ``result[c]`` equals
    ``numpy.histogram(image[..., c], bins, range)[0]``.

    Args:
        image: array of ndim >= 2, channels last (1 to 64 of them); dtypes as :func:`histogram`
            (uint8, uint16 and float32 images are the usual ones).
        bins: number of equal-width bins (int >= 1).
        range: ``(first, last)``, finite, ``first <= last``. Required (no autodetection).

    Returns:
        int64 counts of shape ``(channels, bins)``; a device array for device input (a NumPy
        array for host input).

    Raises:
        TypeError: ``image`` is not an array or has an unsupported dtype; ``bins`` not an int.
        ValueError: ``image`` has fewer than 2 dimensions or more than 64 channels; NumPy's
            errors for ``bins`` and ``range``; ``range`` is None; the ``(channels, bins)`` table
            does not fit in a block's shared memory.

    See Also:
        :func:`numpy.histogram` (per channel), :func:`histogram`.
    """
    key = None
    if type(range) in (tuple, list) and len(range) == 2:
        key = _plans.call_key("histogram_channels", (image,), (bins, range[0], range[1]))
        plan = _plans.PLANS.find(key)
        if plan is not None:  # an earlier call on like images checked these arguments
            return plan(image)
    inp, arr, plan, as_is = _channels_checked(image, bins, range)
    if as_is:  # the image as it is: later like calls take the plan directly
        _plans.PLANS.file(key, plan)
    return inp.result(plan(arr))

"""The histogram family's public functions: the repeat-call path (a call on samples like an
earlier call's, with the same other arguments, takes that call's plan), the checks, then the
plans of :mod:`._plans`."""

from __future__ import annotations

import numpy as np

from .._core import backend as _backend, checks as _checks, dtypes as _dtypes, plans as _plans
from . import _checks as _hc
from ._binning import (
    OUT_DTYPE,
    array_binning,
    bincount_binning,
    byte_binning,
    even_binning,
    uniform,
)
from ._plans import binning_plan, byte_result, channels_plan, count, minmax, repeat_plan

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


class _Checked:
    """What histogram's checks found: the input, the samples, the weights, the binning, the
    edges and their plans."""

    __slots__ = (
        "inp",
        "arr",
        "w",
        "out_dt",
        "integral",
        "binning",
        "edges",
        "given",
        "dated",
        "bplan",
        "repeat",
    )

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw.get(k))


def _histogram_checked(a, bins, range, weights, density, variant):  # noqa: A002
    """histogram's checks and binning (a :class:`_Checked`; ``repeat`` is the repeat-call plan or
    None)."""
    func = "histogram"
    _hc.check_variant(func, variant)
    a_in = _hc.prepare(
        func,
        a,
        "a",
        _hc.is_histogram_sample,
        lambda dt: (
            f"supported dtypes are bool, float16, {_dtypes.names(_hc.SAMPLE_DTYPES)}, datetime64 "
            f"and timedelta64"
        ),
    )
    if isinstance(a_in, np.ndarray) and _hc.is_datetime(a_in.dtype):
        return _datetime_checked(func, a_in, bins, range, weights)
    inp = _checks.as_input(a_in, func=func, arg="a")
    backend = inp.backend
    w = out_dt = integral = None
    if weights is not None:
        w, out_dt, integral = _hc.as_weights(func, weights, inp.array.shape)
    arr = inp.array
    arr = arr if arr.ndim == 1 else arr.reshape(-1)
    half = arr.dtype == np.float16
    if half:  # float16: binned as float32 (exact) against NumPy's float16 edges
        arr = arr.astype(np.float32)
    arr = _hc.samples(func, arr)
    dt = arr.dtype
    bplan = given = None
    if half and not isinstance(bins, str) and (isinstance(bins, int) or np.ndim(bins) == 0):
        edges = _half_edges(func, arr, _hc.nbins(func, bins), range, backend)
        binning, kdt = array_binning(dt, edges.astype(np.float32))
    elif isinstance(bins, str):
        host = _backend.to_host(arr)
        if half:  # NumPy estimates the edges of the float16 samples in float16
            host = host.astype(np.float16)
        hw = None if w is None else _backend.to_host(w).reshape(-1)
        try:
            est = np.histogram_bin_edges(host, bins, range, hw)
        except (TypeError, ValueError) as exc:
            _hc.reraise(func, exc)
        edges, (binning, kdt) = est, array_binning(dt, est)
    elif isinstance(bins, int) or np.ndim(bins) == 0:
        n = _hc.nbins(func, bins)
        first, last = _hc.outer_edges(func, arr, range, backend)
        edges, binning, kdt = uniform(func, dt, first, last, n)
        bplan = binning_plan(binning, backend, edges)  # edges fixed by the arguments
    elif np.ndim(bins) == 1:
        edges, given = _hc.array_edges(func, bins)
        binning, kdt = array_binning(dt, edges)
        _hc.no_bool_weights(func, w)
    else:
        raise ValueError(f"{func}: `bins` must be 1d, when an array")
    if given is not None and out_dt is not None and out_dt != object:  # noqa: E721 - a dtype compared with the object dtype
        out_dt = out_dt.newbyteorder("=")  # NumPy's sums over edges come from a native diff
    repeat = None
    if (
        bplan is not None
        and w is None
        and not density
        and range is not None
        and kdt == dt
        and _as_is(arr, a)
    ):
        repeat = repeat_plan("histogram", variant, binning, arr.size, backend, edges=edges)
    if kdt != dt:
        arr = arr.astype(kdt)
    return _Checked(
        inp=inp,
        arr=arr,
        w=w,
        out_dt=out_dt,
        integral=integral,
        binning=binning,
        edges=edges,
        given=given,
        dated=False,
        bplan=bplan,
        repeat=repeat,
    )


def _half_edges(func, arr, n, range, backend):  # noqa: A002
    """numpy.histogram's ``n`` equal-width edges for float16 samples (float16 edges, its
    arithmetic), ``arr`` being the samples as float32 (the same values): NumPy's own
    ``histogram_bin_edges`` of a float16 array holding only the extremes, which are all that
    int ``bins`` depend on; its range checks and errors first."""
    _hc.outer_edges(func, arr, range, backend)
    if range is None and arr.size:
        proxy = np.array([float(arr.min()), float(arr.max())], dtype=np.float16)
    else:
        proxy = np.empty(0, dtype=np.float16)
    try:
        return np.histogram_bin_edges(proxy, n, range)
    except (TypeError, ValueError) as exc:
        _hc.reraise(func, exc)


def _datetime_checked(func, a, bins, range, weights):  # noqa: A002
    """histogram's checks for datetime64/timedelta64 samples ``a`` (a host array): counted as
    int64 keys against an edges array, as NumPy compares them. NumPy makes equal-width or
    estimated edges with ``numpy.linspace``, which takes no datetimes: those ``bins`` go to
    NumPy itself, for its own error."""
    w = out_dt = integral = None
    if weights is not None:
        w, out_dt, integral = _hc.as_weights(func, weights, a.shape)
    if isinstance(bins, str) or np.ndim(bins) == 0:
        try:
            bins = np.histogram_bin_edges(
                a, bins, range, None if weights is None else np.ones(a.shape)
            )
        except Exception as exc:  # noqa: BLE001 - NumPy's exception, under the function's name
            _hc.reraise(func, exc)
    elif np.ndim(bins) != 1:
        raise ValueError(f"{func}: `bins` must be 1d, when an array")
    keys, edges, given = _hc.datetime_keys(func, a.reshape(-1), bins)
    _hc.no_bool_weights(func, w)
    if out_dt is not None and out_dt != object:  # noqa: E721 - a dtype compared with the object dtype
        out_dt = out_dt.newbyteorder("=")
    inp = _checks.as_input(keys, func=func, arg="a")
    binning, kdt = array_binning(keys.dtype, edges)
    return _Checked(
        inp=inp,
        arr=inp.array,
        w=w,
        out_dt=out_dt,
        integral=integral,
        binning=binning,
        edges=edges,
        given=given,
        dated=True,
    )


def _make_histogram(
    a,
    bins=10,
    range=None,  # noqa: A002 - NumPy's keyword
    weights=None,
    density=False,
    *,
    variant="auto",
):
    """What ``prim.plan(prim.histogram, a, ...)`` runs for samples like ``a``."""
    repeat = _histogram_checked(a, bins, range, weights, density, variant).repeat
    if repeat is not None:
        return repeat
    return lambda x: histogram(x, bins, range, weights, density, variant=variant)


@_plans.planned(_make_histogram)
def histogram(
    a,
    bins=10,
    range=None,  # noqa: A002 - NumPy's keyword
    weights=None,
    density=False,
    *,
    variant="auto",
):
    """Histogram of ``a``, as :func:`numpy.histogram`.

    Args:
        a: samples, any shape (flattened): bool (converted to uint8 with NumPy's warning), int8,
            uint8, int16, uint16, int32, uint32, int64, uint64, float32 or float64 (CuPy, NumPy,
            or anything with ``__cuda_array_interface__`` / DLPack; host arrays of either byte
            order). datetime64 and timedelta64 samples (host arrays) take an edges array, as in
            NumPy: they are compared with the edges in the dtype NumPy compares them in, NaT
            after every date; other ``bins`` raise NumPy's own error (NumPy makes equal-width
            edges with :func:`numpy.linspace`, which takes no datetimes).
        bins: an int (that many equal-width bins over ``range``), a 1-D monotone array of edges
            (a sample x counts in bin i when ``edges[i] <= x < edges[i+1]``, the last bin closed),
            or the name of one of NumPy's estimators (``"auto"``, ``"fd"``, ...: the edges are
            estimated on the host by :func:`numpy.histogram_bin_edges`).
        range: ``(first, last)`` for int ``bins``; default ``(a.min(), a.max())`` (computed on
            the device, then read back: a synchronization). Samples outside are dropped; ignored
            when ``bins`` is an array, as in NumPy.
        weights: optional array of ``a``'s shape (bool, any integer, float16, float32, float64,
            or object holding real numbers): each sample adds its weight instead of 1. The sums
            are accumulated in float64 with atomics (their last bits can vary from call to call)
            and returned in the weights' dtype, as NumPy does (narrow integers wrap; with int
            ``bins`` in the weights' byte order too; object weights give object sums, Python
            ints when every weight is an int, for host input).
        density: return counts / bin width / total, as NumPy (with object weights, a zero
            total or a zero-width bin is NumPy's ``ZeroDivisionError`` of Python's division).
        variant: one of :data:`VARIANTS` or ``"auto"`` (see :func:`auto_variant`).

    Returns:
        ``(hist, bin_edges)``: int64 counts (the weights' dtype with ``weights``, float64 with
        ``density``) and the ``nbins + 1`` edges in NumPy's dtype; device arrays for device input,
        NumPy arrays for host input.

    Raises:
        TypeError: ``a`` or ``weights`` is not an array or has an unsupported dtype (named,
            before anything moves to the device); ``bins`` is neither an int, a string nor an
            array; bool weights of samples over an edges array (NumPy's casting error; with no
            samples, bool zeros as NumPy's); datetime samples with edges they do not compare
            with, or with int or estimated ``bins`` (NumPy's ``DTypePromotionError``, a
            ``TypeError``).
        ValueError: NumPy's errors (``bins`` not positive, not 1-D, not increasing; ``range``
            reversed or not finite; autodetected range not finite (NaN or inf samples); too many
            bins for the range; ``weights`` of another shape), an unknown ``variant``, NaN in
            ``bins`` (or NaT before a date), or a variant that keeps every bin in shared memory
            asked for more bins than fit.
        ZeroDivisionError: ``density`` of object weights whose total is zero, or over a bin of
            zero width (NumPy's Python division).

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
    if (
        weights is None
        and (density is False or density is None)
        and type(range) in (tuple, list)
        and len(range) == 2
    ):
        key = _plans.call_key("histogram", (a,), (variant, bins, range[0], range[1]))
        plan = _plans.PLANS.find(key)
        if plan is not None:  # an earlier call on like samples checked these arguments
            return plan(a)
    c = _histogram_checked(a, bins, range, weights, density, variant)
    if c.repeat is not None:  # the samples as they are: later like calls take the plan directly
        _plans.PLANS.file(key, c.repeat)
        return c.repeat(a)
    inp, w, bplan = c.inp, c.w, c.bplan
    backend = inp.backend
    xp = backend.xp
    wdev = None
    if w is not None:
        wdev = w.reshape(-1)
        if wdev.dtype != np.float64:
            wdev = wdev.astype(np.float64)
        wdev = xp.ascontiguousarray(wdev)
    hist = count(c.arr, c.binning, wdev, variant, backend, bplan, cached=False)
    if w is not None:
        hist = _hc.weights_result(hist, w.dtype)
    if bplan is not None:
        edges_out = backend.copy(bplan.edges)  # a memory copy: no CuPy kernel
    elif c.given is not None and (inp.host or c.dated):
        edges_out = np.array(c.given)  # NumPy's own: numpy.asarray(bins), on the host
    else:
        edges_out = xp.array(c.edges)
    if density:
        if c.given is not None:
            db = xp.asarray(np.array(np.diff(c.given), float))
        else:
            db = xp.diff(edges_out).astype(float)
        if c.out_dt == object:  # noqa: E721 - a dtype compared with the object dtype
            _hc.object_density(hist, db)
        hist = hist / db / hist.sum()
    res = inp.result(hist)
    if inp.host:
        res = _hc.host_weights_result(res, c.out_dt, c.integral, density)
    if isinstance(edges_out, np.ndarray) and (inp.host or c.dated):
        return res, edges_out
    return res, inp.result(edges_out)


# ---- histogram_even --------------------------------------------------------------------------


def _even_checked(a, bins, lower, upper, variant):
    """histogram_even's checks and binning: (input, samples, binning, repeat-call plan or
    None)."""
    func = "histogram_even"
    _hc.check_variant(func, variant)
    inp = _checks.as_input(_hc.precheck(func, a, "a"), func=func, arg="a")
    arr = inp.array
    arr = _hc.samples(func, arr if arr.ndim == 1 else arr.reshape(-1))
    n = _hc.nbins(func, bins)
    try:
        lo, hi = float(lower), float(upper)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{func}: lower and upper must be numbers, got {lower!r}, {upper!r}"
        ) from exc
    if not (np.isfinite(lo) and np.isfinite(hi)) or not lo < hi:
        raise ValueError(f"{func}: need finite lower < upper, got lower={lower!r}, upper={upper!r}")
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
        a: samples, any shape (flattened), the numeric dtypes of :func:`histogram` (either
            byte order; no datetimes).
        bins: number of bins (int >= 1).
        lower, upper: finite numbers, ``lower < upper``.
        variant: one of :data:`VARIANTS` or ``"auto"`` (see :func:`auto_variant`).

    Returns:
        int64 counts, a device array for device input (a NumPy array for host input).

    Raises:
        TypeError: ``a`` is not an array or has an unsupported dtype (named, before anything
            moves to the device); ``bins`` not an int.
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
    """bincount's checks, in NumPy's order (``x``, ``minlength``, then the weights, which NumPy
    reads only when ``x`` is not empty): (input, samples, float64 device weights or None,
    minlength)."""
    func = "bincount"
    _hc.check_variant(func, variant)
    xh = _hc.bincount_x(func, x)
    inp = _checks.as_input(xh, func=func, arg="x")
    arr = inp.array
    ndim = xh.ndim if hasattr(xh, "ndim") else arr.ndim  # (a 0-d input comes back 1-d)
    if ndim != 1:
        raise ValueError(
            f"{func}: x must be 1-D, got {ndim}-D (NumPy: object "
            f"{'too deep' if ndim > 1 else 'of too small depth'} for desired "
            f"array)"
        )
    if not (np.can_cast(arr.dtype, np.intp) or arr.dtype == np.uint64):  # NumPy takes uint64
        raise TypeError(
            f"{func}: x has dtype {arr.dtype}; Cannot cast array data from "
            f"{arr.dtype!r} to {np.dtype(np.intp)!r} according to the rule 'safe'"
        )
    if arr.dtype == np.bool_:
        arr = arr.view(np.uint8)
    minlength = _hc.minlength(func, minlength)
    wdev = None
    if weights is not None and arr.size:
        wdev = _hc.bincount_weights(func, weights, arr.shape[0], inp.backend)
    return inp, arr, wdev, minlength


def _bytes_repeat(x, arr, minlength, variant, backend):
    """The repeat-call plan of bincount of the 8-bit samples ``x`` read as they are, or None."""
    if arr.dtype.itemsize != 1 or not _as_is(arr, x):
        return None
    return repeat_plan(
        "bincount",
        variant,
        byte_binning(arr.dtype),
        arr.size,
        backend,
        minlength=minlength,
        origin=128 if arr.dtype == np.int8 else 0,
    )


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
            int64 or uint64 (the types NumPy accepts; host arrays of either byte order). An empty
            list is an empty integer array, as in NumPy.
        weights: optional 1-D array of ``x``'s length, cast safely to float64 (a list of other
            real numbers, such as Fractions, converted one by one, as NumPy does). Not read when
            ``x`` is empty, as in NumPy.
        minlength: minimum number of bins (an int >= 0, not a bool: NumPy's reading).
        variant: one of :data:`VARIANTS` or ``"auto"``.

    Returns:
        int64 counts of length ``max(x.max() + 1, minlength)`` (float64 sums with ``weights``,
        but int64 zeros for an empty ``x``, as NumPy returns); a device array for device input (a
        NumPy array for host input).

    Raises:
        TypeError: ``x`` is not an array or not of an integer dtype (floats, strings, ...: named,
            before anything moves to the device); ``minlength`` is None, a bool or not an int;
            ``weights`` not castable to float64.
        OverflowError: ``minlength`` beyond int64, as in NumPy.
        ValueError: ``x`` is not 1-D, ``minlength < 0``, negative values in ``x``, ``weights``
            not 1-D or of another length, or an unknown ``variant``. Checked in NumPy's order:
            ``x``, ``minlength``, then the weights; but the negative values of ``x`` are found
            with the counts, after the weights' checks (NumPy finds them before).

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
    if arr.size == 0:  # NumPy's intp zeros, whatever the weights
        return inp.result(xp.zeros(minlength, dtype=OUT_DTYPE["count"]))
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
        return inp.result(
            byte_result(
                func,
                full,
                int(nz[0]) if nz.size else -1,
                int(nz[-1]) if nz.size else -1,
                128 if dt == np.int8 else 0,
                minlength,
                xp,
            )
        )
    lo, hi = minmax(arr, backend)
    if lo < 0 or int(hi) >= 2**63:  # NumPy casts uint64 to int64: values >= 2^63 turn negative
        raise ValueError(f"{func}: 'list' argument must have no negative elements")
    length = max(int(hi) + 1, minlength)
    if length > 2**31 - 1:
        raise ValueError(
            f"{func}: x.max() + 1 = {int(hi) + 1} bins are more than this "
            f"library supports (2**31 - 1)"
        )
    binning = bincount_binning(dt, 0, int(hi), length)
    return inp.result(count(arr, binning, wdev, variant, backend))


# ---- histogram_channels ----------------------------------------------------------------------


def _channels_checked(image, bins, range):  # noqa: A002
    """histogram_channels' checks and binning: (input, samples, its plan, whether the plan takes
    ``image`` itself)."""
    func = "histogram_channels"
    inp = _checks.as_input(_hc.precheck(func, image, "image"), func=func, arg="image")
    arr = inp.array
    if arr.ndim < 2:
        raise ValueError(
            f"{func}: image must have a channel axis (ndim >= 2), got shape {tuple(arr.shape)}"
        )
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
        raise ValueError(
            f"{func}: {channels} channels x {n} bins of 4-byte counters "
            f"({table} bytes) do not fit in a block's shared memory "
            f"({info.shared_per_block_optin} bytes)"
        )
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
        image: array of ndim >= 2, channels last (1 to 64 of them); the numeric dtypes of
            :func:`histogram`, either byte order (uint8, uint16 and float32 images are the usual
            ones).
        bins: number of equal-width bins (int >= 1).
        range: ``(first, last)``, finite, ``first <= last``. Required (no autodetection).

    Returns:
        int64 counts of shape ``(channels, bins)``; a device array for device input (a NumPy
        array for host input).

    Raises:
        TypeError: ``image`` is not an array or has an unsupported dtype (named, before
            anything moves to the device); ``bins`` not an int.
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

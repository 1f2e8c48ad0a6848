"""The histogram family's public functions, each declared with its prepare step
(:mod:`primitives._core.entry`): the checks (:mod:`._checks`, :mod:`._checks_dd`), the variant
choice (:mod:`._choose`), then the plans (:mod:`._plans`, :mod:`._plans_dd`). A call on samples
like an earlier call's, with the same other arguments, takes the plan that call filed."""

from __future__ import annotations

import functools

import numpy as np

from .._core import dtypes as _dtypes, entry as _entry, ops as _ops
from . import (
    _checks as _hc,
    _checks_bincount as _hcb,
    _checks_dd as _hd,
    _choose,
    _kernels,
    _plans_dd as _pd,
)
from ._binning import OUT_DTYPE, byte_binning, dd_binnings
from ._plans import byte_result, count, repeat_plan

__all__ = [
    "histogram",
    "bincount",
    "histogram_even",
    "histogram_channels",
    "histogramdd",
    "histogram2d",
]


# ---- histogram -------------------------------------------------------------------------------


def _prepare_histogram(
    a,
    bins=10,
    range=None,  # noqa: A002 - NumPy's keyword
    weights=None,
    density=False,
    *,
    variant="auto",
    map=None,  # noqa: A002 - the keyword users write
):
    func = "histogram"
    m = _ops.as_map(map, func)
    _choose.check(func, variant)
    c = _hc.histogram_args(func, a, bins, range, weights, m)
    n = c.arr.size
    variant = _choose.choose(variant, c.binning, "count" if c.w is None else "weight", n)
    if c.bplan is not None and c.w is None and not density and range is not None and c.as_is:
        repeat = repeat_plan("histogram", variant, c.binning, n, c.inp.backend, edges=c.edges, m=m)
        if repeat is not None:  # the samples as they are: later like calls take the plan
            return _entry.Prepared(repeat, (a,), reusable=True)
    return _entry.Prepared(functools.partial(_histogram, c, variant, density, m), (c.arr,))


def _histogram(c, variant, density, m, arr):
    """histogram of the checked arguments ``c`` (:class:`._checks.Checked`), samples ``arr``
    (read through the map ``m`` where given)."""
    inp, w, bplan = c.inp, c.w, c.bplan
    backend = inp.backend
    xp = backend.xp
    if w is not None and w.dtype.kind == "c":  # NumPy's complex sums: each part on its own
        w = w.reshape(-1)
        re, im = (
            count(arr, c.binning, part, variant, backend, bplan, cached=False, m=m)
            for part in (w.real, w.imag)
        )
        hist = re + 1j * im
    else:
        wdev = None if w is None else w.reshape(-1)  # count() makes them what its kernel reads
        hist = count(arr, c.binning, wdev, variant, backend, bplan, cached=False, m=m)
    if w is not None:
        hist = _weights_result(hist, w.dtype, xp)
    if bplan is not None:
        edges_out = backend.copy(bplan.edges)  # a memory copy: no CuPy kernel
    elif c.given is not None and (inp.host or c.dated):
        edges_out = np.array(c.given)  # NumPy's own: numpy.asarray(bins), on the host
    elif c.edges.dtype.itemsize > 8:  # longdouble edges (host input): no device type holds them
        edges_out = np.array(c.edges)
    else:
        edges_out = xp.array(c.edges)
    if density:
        if c.given is not None:
            db = xp.asarray(np.array(np.diff(c.given), float))
        elif isinstance(edges_out, np.ndarray):  # NumPy's float64 widths of host edges
            db = xp.asarray(np.array(np.diff(edges_out), float))
        else:
            db = xp.diff(edges_out).astype(float)
        if c.out_dt == object:  # noqa: E721 - a dtype compared with the object dtype
            _object_density(hist, db)
        hist = hist / db / hist.sum()
    res = inp.result(hist)
    if inp.host:
        res = _host_weights_result(res, c.out_dt, c.integral, density)
    if isinstance(edges_out, np.ndarray) and (inp.host or c.dated):
        # host edges as they are, in the caller's type where it has one (a torch CPU tensor's)
        return res, edges_out if inp.wrap is None or c.dated else inp.wrap(edges_out)
    return res, inp.result(edges_out)


def _object_density(hist, db):
    """NumPy's densities of object sums are Python's divisions (``n / db / n.sum()``), where a
    zero-width bin or a zero total raises instead of giving inf or NaN: the same
    ``ZeroDivisionError``."""
    if not bool((db != 0).all()) or not bool(hist.sum() != 0):
        raise ZeroDivisionError("histogram: float division by zero")


def _weights_result(hist, wdt, xp):
    """float64 sums ``hist`` (an array of the backend ``xp``) in the weights' dtype ``wdt``
    (native) as NumPy casts them: narrow integers wrap (through int64), bool is "any"."""
    if wdt == np.float64:
        return hist
    if wdt.kind in "iu" and wdt.itemsize < 8:
        return hist.astype(np.int64).astype(wdt)
    if wdt == np.float32:  # subnormal sums kept, as NumPy's cast keeps them
        return _dtypes.to_float32(hist, xp)
    return hist.astype(wdt)


def _host_weights_result(res, out_dt, integral, density):
    """A host result in the dtype NumPy gives it: the weights' own dtype for the sums (its byte
    order too, with ``out_dt`` so), object for object weights (Python ints when every weight is
    an int)."""
    if out_dt is None:
        return res
    if out_dt == object:  # noqa: E721 - a dtype compared with the object dtype
        if integral and not density:
            res = np.rint(res).astype(np.int64)
        return res.astype(object)
    if not density and res.dtype != out_dt:
        return res.astype(out_dt)
    return res


@_entry.function(_prepare_histogram, arrays=("a",))
def histogram(
    a,
    bins=10,
    range=None,  # noqa: A002 - NumPy's keyword
    weights=None,
    density=False,
    *,
    variant="auto",
    map=None,  # noqa: A002 - the keyword users write
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
            complex64, complex128, or object holding real numbers): each sample adds its weight
            instead of 1. The sums are accumulated in float64 with atomics (complex weights: each
            part on its own; the last bits can vary from call to call) and returned in the
            weights' dtype, as NumPy does (narrow integers wrap; with int ``bins`` in the
            weights' byte order too; object weights give object sums, Python ints when every
            weight is an int, for host input). Float32 weights are read as they are (no
            float64 copy) by ``warp_replicated`` and ``partial_privatized``, the variants
            ``auto`` runs; the other variants, and weights of other dtypes, take a float64 copy.
        density: return counts / bin width / total, as NumPy (with object weights, a zero
            total or a zero-width bin is NumPy's ``ZeroDivisionError`` of Python's division).
        variant: one of :data:`VARIANTS` or ``"auto"`` (see :func:`auto_variant`).
        map: a transform of each sample as the kernel reads it, no temporary array: a C++
            expression of ``v`` (the sample), its result of the sample's dtype (int32, int64,
            uint32, uint64, float32 or float64 samples; ``v * v`` of int32 wraps at 32 bits, as
            ``x * x`` does in NumPy). ``prim.histogram(x, bins, range, map="v * v")`` equals
            ``numpy.histogram(x * x, bins, range)``: the bins, the range found when ``range`` is
            None (the minimum and maximum of the mapped samples, by :func:`primitives.min` and
            :func:`primitives.max` with the same map), an edges array, the weights and
            ``density`` all apply to the mapped samples. Compiled on first use, per sample dtype
            and variant (see :class:`primitives.Op`).

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
            ``TypeError``); ``map`` not a string, samples of a dtype it does not read (bool,
            8- and 16-bit, datetimes), or with an estimator's name as ``bins`` (which estimates
            the edges on the host from the samples as they are), before anything is launched.
        ValueError: NumPy's errors (``bins`` not positive, not 1-D, not increasing; ``range``
            reversed or not finite; autodetected range not finite (NaN or inf samples, or mapped
            samples); too many bins for the range; ``weights`` of another shape), an unknown
            ``variant``, NaN in ``bins`` (or NaT before a date), a variant that keeps every bin
            in shared memory asked for more bins than fit, ``bucketed`` asked for weights or
            more than 2^24 bins, or a ``map`` that is not one expression.
        ZeroDivisionError: ``density`` of object weights whose total is zero, or over a bin of
            zero width (NumPy's Python division).
        KernelCompileError: a ``map`` that does not compile (naming the map).

    Bins equal NumPy's exactly, including samples that land on an edge: kernels place a sample
    by its position and, near an edge, compare it with NumPy's edges (``numpy.linspace`` in
    NumPy's dtype); samples are kept by NumPy's own comparisons with ``range``. NaN samples are
    dropped (with ``range`` given), as in NumPy. Float32 subnormal samples are binned exactly
    although kernels run with flush-to-zero (CuPy's compile option). Device input, int ``bins``
    and ``range`` given: no host synchronization.

    See Also:
        :func:`numpy.histogram`, :func:`cupy.histogram`, :func:`histogram_even`.
    """


# ---- histogram_even --------------------------------------------------------------------------


def _prepare_even(a, bins, lower, upper, *, variant="auto", map=None):  # noqa: A002
    func = "histogram_even"
    m = _ops.as_map(map, func)
    _choose.check(func, variant)
    inp, arr, binning, as_is = _hc.even_args(func, a, bins, lower, upper, m)
    variant = _choose.choose(variant, binning, "count", arr.size)
    if as_is:
        repeat = repeat_plan("even", variant, binning, arr.size, inp.backend, m=m)
        if repeat is not None:  # the samples as they are: later like calls take the plan
            return _entry.Prepared(repeat, (a,), reusable=True)
    return _entry.Prepared(
        lambda x: inp.result(count(x, binning, None, variant, inp.backend, m=m)), (arr,)
    )


@_entry.function(_prepare_even, arrays=("a",))
def histogram_even(a, bins, lower, upper, *, variant="auto", map=None):  # noqa: A002
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
        map: a transform of each sample as the kernel reads it, no temporary array: a C++
            expression of ``v``, its result of the sample's dtype (int32, int64, uint32, uint64,
            float32 or float64 samples), binned as the samples are (``map="fabs(v)"``: the
            counts of ``abs(a)``). See :func:`histogram`.

    Returns:
        int64 counts, a device array for device input (a NumPy array for host input).

    Raises:
        TypeError: ``a`` is not an array or has an unsupported dtype (named, before anything
            moves to the device); ``bins`` not an int; ``map`` not a string, or samples of a
            dtype it does not read.
        ValueError: ``bins < 1``, ``lower >= upper`` or not finite, an unknown ``variant``, too
            many bins for the range (``bucketed``: more than 2^24), or a ``map`` that is not one
            expression.
        KernelCompileError: a ``map`` that does not compile (naming the map).

    See Also:
        :func:`histogram`, :func:`numpy.histogram`.
    """


# ---- bincount --------------------------------------------------------------------------------


def _prepare_bincount(x, weights=None, minlength=0, *, variant="auto"):
    func = "bincount"
    _choose.check(func, variant)
    inp, arr, wdev, minlength = _hcb.bincount_args(func, x, weights, minlength)
    backend = inp.backend
    n = arr.size
    if n == 0:  # NumPy's intp zeros, whatever the weights
        return _entry.Prepared.done(
            inp.result(backend.xp.zeros(minlength, dtype=OUT_DTYPE["count"]))
        )
    dt = arr.dtype
    if dt.itemsize == 1:  # every value counted in one pass; the counts say the length
        binning, origin = byte_binning(dt), 128 if dt == np.int8 else 0
        if wdev is None:
            summed = counted = _choose.choose(variant, binning, "count", n)
            if _hc.as_is(arr, x):
                repeat = repeat_plan(
                    "bincount", counted, binning, n, backend, minlength=minlength, origin=origin
                )
                if repeat is not None:  # the samples as they are: later like calls take it
                    return _entry.Prepared(repeat, (x,), reusable=True)
        else:
            summed = _choose.choose(variant, binning, "weight", n)
            counted = _choose.choose(variant, binning, "count", n)
        run = functools.partial(_bytes, inp, binning, wdev, summed, counted, origin, minlength)
        return _entry.Prepared(run, (arr,))
    binning = _hcb.bincount_length(func, arr, minlength, backend)
    variant = _choose.choose(variant, binning, "count" if wdev is None else "weight", n)
    return _entry.Prepared(lambda a: inp.result(count(a, binning, wdev, variant, backend)), (arr,))


def _bytes(inp, binning, wdev, summed, counted, origin, minlength, arr):
    """bincount of the 8-bit samples ``arr``: all 256 values counted (their weights summed, by
    the variant ``summed``), the length from the first and last value present."""
    backend = inp.backend
    full = count(arr, binning, wdev, summed, backend)
    present = count(arr, binning, None, counted, backend) if wdev is not None else full
    host = present.get() if backend.is_cuda else present
    nz = np.flatnonzero(host)
    return inp.result(
        byte_result(
            "bincount",
            full,
            int(nz[0]) if nz.size else -1,
            int(nz[-1]) if nz.size else -1,
            origin,
            minlength,
            backend.xp,
        )
    )


@_entry.function(_prepare_bincount, arrays=("x",))
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
            not 1-D or of another length, an unknown ``variant``, or ``bucketed`` with weights
            or more than 2^24 bins. Checked in NumPy's order:
            ``x``, ``minlength``, then the weights; but the negative values of ``x`` are found
            with the counts, after the weights' checks (NumPy finds them before).

    The output length depends on the data, so this synchronizes once: 8-bit input is counted
    over all 256 values in one pass whose last block also finds the first and last non-zero
    count, and those two numbers come back after the launch (the result is the counts or a view
    of them); wider input first computes its minimum and maximum on the device.

    See Also:
        :func:`numpy.bincount`, :func:`cupy.bincount`.
    """


# ---- histogram_channels ----------------------------------------------------------------------


def _prepare_channels(image, bins=256, range=(0, 256)):  # noqa: A002
    inp, arr, plan, as_is = _hc.channels_args("histogram_channels", image, bins, range)
    if as_is:  # the image as it is: later like calls take the plan
        return _entry.Prepared(plan, (image,), reusable=True)
    return _entry.Prepared(lambda x: inp.result(plan(x)), (arr,))


@_entry.function(_prepare_channels, arrays=("image",))
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


# ---- histogramdd and histogram2d -------------------------------------------------------------


def _dd(func, sample, given, bins, range, density, weights):  # noqa: A002
    """histogramdd's checks, edges and binnings (:mod:`._checks_dd`): a Prepared that counts.
    Where the edges come from ``bins`` and ``range`` alone and the kernel reads the caller's
    arrays ``given`` (the declared arrays) as they are, with no weights, later calls on like
    arrays run the count alone (the filed run: the same edges and binnings)."""
    s = _hd.Samples(func, sample)
    w = _hd.weights(func, weights, s.n)
    edges, uniform = _hd.edges(func, s, bins, range, s.inp.backend)
    found = None
    if s.n and s.d <= _kernels.DD_MAX:
        found = dd_binnings(func, s.cols[0].dtype, edges, uniform)
    if (
        w is None
        and found is not None
        and _hd.fixed_edges(bins, range, s.d)
        and s.read_as_is(given)
    ):
        later = s.like()  # holds none of this call's arrays

        def count(*arrays):
            return _histogramdd(later.like(arrays), None, edges, uniform, found, density)

        return _entry.Prepared(count, given, reusable=True)
    return _entry.Prepared(
        functools.partial(_histogramdd, s, w, edges, uniform, found, density), ()
    )


def _histogramdd(s, w, edges, uniform, found, density):
    """The counts in one pass (``found``: the binnings of every dimension) or one pass per
    dimension (None), the edges in the backend's memory, the densities."""
    backend = s.inp.backend
    xp = backend.xp
    shape = tuple(len(e) - 1 for e in edges)
    if s.n == 0:
        hist = xp.zeros(shape, dtype=np.float64)
    else:
        if found is None:
            flat = _pd.per_dimension(s, edges, shape, w, backend)
        else:
            flat = _pd.one_pass(s, found[0], found[1], shape, w, backend)
        # float64 from the one pass; the per-dimension path's bincount counts in int64
        hist = flat.astype(np.float64, copy=False).reshape(shape)
    edges_dev = [_pd.device_edges(e, u, backend) for e, u in zip(edges, uniform)]
    if density:
        total_w = hist.sum()
        for i, e in enumerate(edges_dev):
            view = [1] * len(shape)
            view[i] = shape[i]
            hist = hist / xp.diff(e).reshape(view)
        hist = hist / total_w
    return s.inp.result(hist), [s.inp.result(e) for e in edges_dev]


def _prepare_dd(sample, bins=10, range=None, density=None, weights=None):  # noqa: A002
    return _dd("histogramdd", sample, (sample,), bins, range, density, weights)


@_entry.function(_prepare_dd, arrays=("sample",))
def histogramdd(sample, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """The multi-dimensional histogram of ``sample``, as :func:`numpy.histogramdd`.

    Args:
        sample: an (N, D) array (one sample per row) or a sequence of D 1-D arrays of length N
            (read where they lie; arrays of different dtypes promote as NumPy's stack does), of
            the dtypes :func:`~primitives.histogram` takes, or float16 (read as float32).
        bins: an int (that many bins in every dimension), a sequence of D ints, or a sequence of
            D monotone edge arrays (ints and arrays may mix).
        range: None or a sequence of D ``(first, last)`` pairs (None entries allowed) for the
            dimensions with int bins; default each dimension's min and max.
        density: divide the counts by their total and the bins' volumes.
        weights: optional 1-D array of N real weights (each sample adds its weight instead of
            1; summed in float64). Not read when the sample is empty, as in NumPy.

    Returns:
        ``(hist, edges)``: float64 counts (or sums of weights, or densities) of shape
        ``(nbins_0, ..., nbins_{D-1})``, and the list of the D edge arrays; device arrays for
        device input, NumPy arrays for host input.

    Raises:
        TypeError, ValueError: NumPy's errors (bins not positive, not monotone, of the wrong
            dimension; range reversed or not finite), and :func:`~primitives.histogram`'s dtype
            errors, each naming ``histogramdd``.

    Every sample is binned exactly as NumPy bins it: a sample on an inner edge goes to the bin
    on its right, one on the last edge to the last bin, NaN and samples outside the edges are
    dropped in every dimension. One kernel reads the samples once and counts them in
    block-private shared-memory histograms (the bins beyond shared memory with global atomics).
    """


def _prepare_2d(x, y, bins=10, range=None, density=None, weights=None):  # noqa: A002
    try:
        nbins = len(bins)
    except TypeError:
        nbins = 1
    if nbins != 1 and nbins != 2:  # one edges array for both dimensions
        bins = [bins, bins]
    p = _dd("histogram2d", [x, y], (x, y), bins, range, density, weights)
    return p.then(lambda res: _split_edges(*res), reusable=True)


def _split_edges(hist, edges):
    return hist, edges[0], edges[1]


@_entry.function(_prepare_2d, arrays=("x", "y"))
def histogram2d(x, y, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """The 2-D histogram of the points ``(x[i], y[i])``, as :func:`numpy.histogram2d`.

    ``bins``: an int, ``[int, int]``, one edges array for both dimensions, ``[array, array]`` or
    a mix; ``range``: ``[[xmin, xmax], [ymin, ymax]]``. Returns ``(hist, xedges, yedges)``, the
    counts float64 of shape ``(nx, ny)``. See :func:`histogramdd` for the rest.
    """

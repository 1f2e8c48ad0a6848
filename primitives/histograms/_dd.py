"""histogramdd and histogram2d: NumPy's multi-dimensional histograms on the 1-D binning.

Each dimension is binned by the exact 1-D binning of :func:`~primitives.histogram` with an edges
array (NumPy's edges: ``linspace`` in float64 for int bins, the given array otherwise; a sample
counts in bin i when ``edges[i] <= x < edges[i+1]``, the last bin closed, anything else dropped),
which writes each sample's bin as a 32-bit key (the number of bins for a dropped sample). The
keys of the D dimensions make one linear bin index (row-major, as ``numpy.ravel_multi_index``),
with one extra bin for a sample dropped in any dimension, and :func:`~primitives.bincount`
counts them (or sums the weights). One pass per dimension, one to combine, one to count.
"""

from __future__ import annotations

import operator

import numpy as np

from .._core import checks as _checks
from .._core import plans as _plans
from . import _checks as _hc
from ._binning import array_binning
from ._plans import bin_keys, binning_plan

__all__ = ["histogramdd", "histogram2d"]


def _columns(func, sample):
    """(Input, list of D contiguous 1-D columns, N) of ``sample``: an (N, D) array, or a
    sequence of D arrays of length N (NumPy's two forms)."""
    ndim = getattr(sample, "ndim", None)
    if ndim is None:  # a sequence of D columns
        try:
            items = list(sample)
        except TypeError as exc:
            raise TypeError(f"{func}: sample must be an (N, D) array or a sequence of D 1-D "
                            f"arrays, got {type(sample).__name__}") from exc
        try:
            cols = [_checks.as_input(c, func=func, arg="sample", ndim=1) for c in items]
        except ValueError as exc:
            raise ValueError(f"{func}: sample must be an (N, D) array or a sequence of D "
                             f"1-D arrays of one length") from exc
        if not cols:
            raise ValueError(f"{func}: sample has no dimension")
        n = cols[0].array.size
        if any(c.array.size != n for c in cols):
            raise ValueError(f"{func}: the sample's arrays have different lengths "
                             f"{[c.array.size for c in cols]}")
        inp = cols[0]
        arrays = [c.array for c in cols]
    else:
        inp = _checks.as_input(sample, func=func, arg="sample")
        arr = inp.array
        if arr.ndim == 1:  # N samples of one dimension, as NumPy's atleast_2d(sample).T
            arr = arr.reshape(-1, 1)
        if arr.ndim != 2:
            raise ValueError(f"{func}: sample must be an (N, D) array, got shape "
                             f"{tuple(arr.shape)}")
        xp = inp.backend.xp
        arrays = [xp.ascontiguousarray(arr[:, i]) for i in range(arr.shape[1])]
    arrays = [_hc.samples(func, a, "sample") for a in arrays]
    return inp, arrays, arrays[0].size


def _edges(func, arrays, bins, range, backend):  # noqa: A002 - NumPy's name
    """NumPy's edges of every dimension (host arrays)."""
    d = len(arrays)
    try:
        m = len(bins)
        if m != d:
            raise ValueError(f"{func}: The dimension of bins must be equal to the dimension of "
                             f"the sample x.")
    except TypeError:  # one int for every dimension
        bins = d * [bins]
    if range is None:
        range = d * [None]  # noqa: A001
    elif len(range) != d:
        raise ValueError(f"{func}: range argument must have one entry per dimension")
    edges = []
    for i, (a, b, r) in enumerate(zip(arrays, bins, range)):
        if np.ndim(b) == 0:
            try:
                nb = operator.index(b)
            except TypeError as exc:
                raise TypeError(f"{func}: `bins[{i}]` must be an integer, when a scalar") \
                    from exc
            if nb < 1:
                raise ValueError(f"{func}: `bins[{i}]` must be positive, when an integer")
            first, last = _hc.outer_edges(func, a, r, backend)
            edges.append(np.linspace(first, last, nb + 1))
        elif np.ndim(b) == 1:
            e = np.asarray(b.get() if hasattr(b, "get") else b)
            if e.size < 2:
                raise ValueError(f"{func}: `bins[{i}]` must hold at least two edges")
            if np.any(e[:-1] > e[1:]):
                raise ValueError(f"{func}: `bins[{i}]` must be monotonically increasing, when "
                                 f"an array")
            edges.append(e)
        else:
            raise ValueError(f"{func}: `bins[{i}]` must be a scalar or 1d array")
    return edges


def _keys(arr, edges, backend):
    """Each sample's bin under ``edges`` as uint32 (``len(edges) - 1``: dropped)."""
    xp = backend.xp
    binning, kdt = array_binning(arr.dtype, edges)
    nb = len(edges) - 1
    if binning.empty:
        return xp.full(arr.size, nb, dtype=np.uint32)
    if kdt != arr.dtype:
        arr = arr.astype(kdt)
    return bin_keys(arr, binning, binning_plan(binning, backend, cached=False).spec, backend)


def _make_dd(sample, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """What ``prim.plan(prim.histogramdd, sample, ...)`` runs: the function with its options."""
    return lambda s: histogramdd(s, bins, range, density, weights)


def _make_2d(x, y, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """What ``prim.plan(prim.histogram2d, x, y, ...)`` runs: the function with its options."""
    return lambda a, b: histogram2d(a, b, bins, range, density, weights)


@_plans.planned(_make_dd)
def histogramdd(sample, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """The multi-dimensional histogram of ``sample``, as :func:`numpy.histogramdd`.

    Args:
        sample: an (N, D) array (one sample per row) or a sequence of D 1-D arrays of length N,
            of the dtypes :func:`~primitives.histogram` takes.
        bins: an int (that many bins in every dimension), a sequence of D ints, or a sequence of
            D monotone edge arrays (ints and arrays may mix).
        range: None or a sequence of D ``(first, last)`` pairs (None entries allowed) for the
            dimensions with int bins; default each dimension's min and max.
        density: divide the counts by their total and the bins' volumes.
        weights: optional array of N weights (each sample adds its weight instead of 1).

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
    dropped in every dimension.
    """
    return _histogramdd("histogramdd", sample, bins, range, density, weights)


def _histogramdd(func, sample, bins, range, density, weights):  # noqa: A002
    from ._api import bincount

    inp, arrays, n = _columns(func, sample)
    backend = inp.backend
    xp = backend.xp
    edges = _edges(func, arrays, bins, range, backend)
    shape = tuple(len(e) - 1 for e in edges)
    total = int(np.prod(shape))
    w = None
    if weights is not None:
        w = _checks.as_input(weights, func=func, arg="weights").array.reshape(-1)
        if w.size != n:
            raise ValueError(f"{func}: weights should have the same length as the sample "
                             f"({w.size} against {n})")
        w = w.astype(np.float64)
    if n == 0:
        hist = xp.zeros(shape, dtype=np.float64)
    else:
        lin = None
        valid = None
        for arr, e, nb in zip(arrays, edges, shape):
            k = _keys(arr, e, backend)
            keep = k < nb
            k = k.astype(np.int64)
            lin = k if lin is None else lin * nb + k
            valid = keep if valid is None else valid & keep
        lin[~valid] = total  # the extra bin of the dropped samples
        hist = bincount(lin, weights=w, minlength=total + 1)[:total].astype(np.float64)
        hist = hist.reshape(shape)
    edges_dev = [xp.asarray(e) for e in edges]
    if density:
        s = hist.sum()
        for i, e in enumerate(edges_dev):
            view = [1] * len(shape)
            view[i] = shape[i]
            hist = hist / xp.diff(e).reshape(view)
        hist = hist / s
    return inp.result(hist), [inp.result(e) for e in edges_dev]


@_plans.planned(_make_2d)
def histogram2d(x, y, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """The 2-D histogram of the points ``(x[i], y[i])``, as :func:`numpy.histogram2d`.

    ``bins``: an int, ``[int, int]``, one edges array for both dimensions, ``[array, array]`` or
    a mix; ``range``: ``[[xmin, xmax], [ymin, ymax]]``. Returns ``(hist, xedges, yedges)``, the
    counts float64 of shape ``(nx, ny)``. See :func:`histogramdd` for the rest.
    """
    try:
        nbins = len(bins)
    except TypeError:
        nbins = 1
    if nbins != 1 and nbins != 2:  # one edges array for both dimensions
        bins = [bins, bins]
    hist, edges = _histogramdd("histogram2d", [x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]

"""Histograms of Dask arrays: :func:`histogram` and :func:`bincount`.

The graph: every chunk counted where it lives into the same bins (``primitives.histogram`` with
the same ``bins`` and ``range``, or ``primitives.bincount`` with the same length), each chunk's
counts an array of one row, then the rows summed by the tree of :func:`primitives.dask.sum`
(``split_every`` per task). The result is one chunk of ``nbins`` counts.

A sample's bin depends only on the edges, so the counts of the chunks add up to the counts of the
whole array. A device chunk's row of at most ``dask_reduce``'s ``host_bytes`` leaves its task on
the host, and the rows are summed there (NumPy); the result goes back to the device (see
:mod:`._reduce`). What the edges depend on is found first, eagerly, as NumPy needs it:

* :func:`histogram` with int ``bins`` and no ``range``: the minimum and maximum of the samples,
  one extra reduction pass (:func:`primitives.dask.min` and :func:`~primitives.dask.max`,
  computed together); they become the ``range`` of every chunk's call, which gives NumPy's edges
  (NumPy's outer edges are the extremes when ``range`` is None). With ``range`` given, or an
  edges array, nothing is computed before the graph is returned.
* :func:`bincount`: the maximum (and minimum, for NumPy's error on negative values) of ``x``,
  so that every chunk's counts have the length ``max(x.max() + 1, minlength)``.

The edges are returned concrete, on the host (NumPy's ``histogram_bin_edges`` of the range), as
``dask.array.histogram`` returns them; the counts lazily.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from .. import histograms as _histograms
from .._core import checks as _checks
from ..histograms import check_minlength, is_histogram_sample
from ._reduce import _host_bytes, _name, _small_to_host
from ._reduce import max as _dmax, min as _dmin, sum as _dsum
from ._sort import dask_array, own_stream, to_host, xp_of

__all__ = ["histogram", "bincount"]

#: the sample dtypes of :func:`histogram` (bool is counted as uint8, with NumPy's warning)
SAMPLE_KINDS = "biuf"


def _hist_chunk(block, *rest, bins=None, range=None, weighted=False, host=0):  # noqa: A002
    """A chunk's counts as a row: shape ``(1,) * block.ndim + (nbins,)``; a device row of at
    most ``host`` bytes moved to the host (see :mod:`._reduce`), where the sum of the rows adds
    it with the others."""
    return _hist_task(block, rest[0] if weighted else None, bins, range, host)


@own_stream
def _hist_task(block, w, bins, range, host):  # noqa: A002
    h, _ = _histograms.histogram(block, bins=bins, range=range, weights=w)
    return _small_to_host(h.reshape((1,) * block.ndim + (-1,)), host)


def _bincount_chunk(block, *rest, length=0, weighted=False, host=0):
    return _bincount_task(block, rest[0] if weighted else None, length, host)


@own_stream
def _bincount_task(block, w, length, host):
    if block.shape[0] == 0:  # NumPy's int64 zeros, whatever the weights
        xp = xp_of(block)
        row = xp.zeros((1, length), dtype=np.float64 if w is not None else np.int64)
    else:
        row = _histograms.bincount(block, weights=w, minlength=length).reshape(1, -1)
    return _small_to_host(row, host)


@own_stream
def _density(hist, db):
    xp = xp_of(hist)
    return hist / xp.asarray(db) / hist.sum()


def _rows(func, x, w, nbins, out_dt, split_every, **kw):
    """The per-chunk rows of ``func`` summed: a lazy 1-D array of ``nbins`` in ``out_dt``."""
    import dask.array as da
    from dask.array.utils import meta_from_array

    ind = tuple(range(x.ndim))
    args = (x, ind) if w is None else (x, ind, w, ind)
    host = _host_bytes(x)
    rows = da.blockwise(
        functools.partial(func, weighted=w is not None, host=host, **kw),
        ind + (x.ndim,),
        *args,
        new_axes={x.ndim: nbins},
        adjust_chunks=dict.fromkeys(ind, 1),
        dtype=out_dt,
        meta=meta_from_array(x, ndim=x.ndim + 1, dtype=out_dt),
        concatenate=False,
    )
    return _dsum(rows, axis=ind, dtype=out_dt, split_every=split_every)


def _weights(w, x, func):
    """The weights as a Dask array chunked as ``x`` (None when not given)."""
    import dask.array as da

    if w is None:
        return None
    if not isinstance(w, da.Array):
        raise TypeError(
            f"{func}: weights must be a dask.array.Array or None, got {type(w).__name__}"
        )
    if w.shape != x.shape:
        raise ValueError(
            f"{func}: weights should have the same shape as x ({x.shape}), got {w.shape}"
        )
    if w.dtype.kind not in "biuf":
        raise TypeError(
            f"{func}: weights has dtype {w.dtype}; supported are bool, integer and float dtypes"
        )
    return w if w.chunks == x.chunks else w.rechunk(x.chunks)


def _known(x, func):
    if any(np.isnan(c) for cs in x.chunks for c in cs):
        raise ValueError(f"{func}: x has unknown chunk sizes (call x.compute_chunk_sizes() first)")


def _reraise(func, exc):
    raise type(exc)(f"{func}: {exc}") from exc


def histogram(
    x,
    bins=10,
    range=None,  # noqa: A002 - NumPy's keyword
    weights=None,
    density=False,
    split_every=None,
):
    """Histogram of a Dask array, as :func:`numpy.histogram`: every chunk's
    ``primitives.histogram`` into the same bins, summed.

    Parameters
    ----------
    x : dask.array.Array
        Samples, any shape (flattened), of bool (counted as uint8, with NumPy's warning),
        int8/16/32/64, uint8/16/32/64 or float16/32/64; NumPy or CuPy chunks of known sizes
        (empty chunks allowed).
    bins : int or 1-D array, optional
        An int: that many equal-width bins over ``range``; a monotone array of edges (a sample
        counts in bin i when ``edges[i] <= s < edges[i+1]``, the last bin closed). NumPy's
        estimator names need the whole data at once and are not taken.
    range : (float, float), optional
        The outer edges for int ``bins``; samples outside are dropped. Default
        ``(x.min(), x.max())``, computed when the function is called (one reduction pass over
        ``x``: persist ``x`` first when it is costly to produce).
    weights : dask.array.Array, optional
        Of ``x``'s shape (rechunked as ``x`` if it is chunked otherwise), bool, integer or
        float: each sample adds its weight; the counts then have the weights' dtype, as NumPy's.
    density : bool, optional
        Counts / bin width / total, float64, as NumPy.
    split_every : int or dict, optional
        Chunk counts summed per task, as :func:`primitives.dask.sum`.

    Returns
    -------
    (hist, bin_edges) : (dask.array.Array, numpy.ndarray)
        ``hist``: lazy, one chunk of ``nbins`` int64 counts (the weights' dtype with
        ``weights``, float64 with ``density``), of ``x``'s chunk type; ``bin_edges``: NumPy's
        ``nbins + 1`` edges, a host array.

    Raises
    ------
    TypeError
        ``x`` or ``weights`` is not a Dask array or of an unsupported dtype; ``bins`` is not an
        int or an array.
    ValueError
        NumPy's errors (``bins`` not positive or not increasing, ``range`` reversed or not
        finite, an autodetected range that is not finite: NaN or infinite samples); estimator
        names for ``bins``; ``weights`` of another shape; unknown chunk sizes.

    See Also
    --------
    numpy.histogram, primitives.histogram, dask.array.histogram

    Examples
    --------
    >>> import dask.array as da, numpy as np
    >>> import primitives.dask as pd
    >>> x = da.from_array(np.array([0.5, 1.5, 1.5, 2.5, 3.0], np.float32), chunks=2)
    >>> hist, edges = pd.histogram(x, bins=3)
    >>> hist.compute(), edges
    (array([1, 2, 2]), array([0.5      , 1.3333333, 2.1666665, 3.       ], dtype=float32))
    """
    import dask

    func = _name("histogram")
    x = dask_array(x, func)
    dt = np.dtype(x.dtype)
    if dt.kind not in SAMPLE_KINDS or not is_histogram_sample(dt):
        raise TypeError(
            f"{func}: x has dtype {dt}; supported dtypes are bool, int8/16/32/64, "
            f"uint8/16/32/64 and float16/32/64"
        )
    _known(x, func)
    w = _weights(weights, x, func)
    if dt == np.bool_:
        _checks.warn_caller(
            f"Converting input from bool to {np.uint8} for compatibility.", RuntimeWarning
        )
        x, dt = x.astype(np.uint8), np.dtype(np.uint8)
    if isinstance(bins, str):
        raise ValueError(
            f"{func}: bins={bins!r}: NumPy's bin estimators read the whole data "
            f"at once; give a number of bins (and a range) or the edges"
        )
    if np.ndim(bins) == 0:
        try:
            n = operator.index(bins)
        except TypeError as exc:
            raise TypeError(f"{func}: `bins` must be an integer or an array") from exc
        if range is None and x.size:
            lo, hi = dask.compute(_dmin(x), _dmax(x))
            lo, hi = to_host(lo).item(), to_host(hi).item()  # NumPy or CuPy results
            proxy = np.array([lo, hi], dtype=dt)  # NumPy's edges depend on these alone
            call_range = (proxy[0], proxy[1])
        else:
            proxy, call_range = np.empty(0, dtype=dt), range if range is not None else (0, 1)
        try:
            edges = np.histogram_bin_edges(proxy, n, range)
        except (TypeError, ValueError) as exc:
            _reraise(func, exc)
        kw = {"bins": n, "range": call_range}
    elif np.ndim(bins) == 1:
        try:
            edges = np.histogram_bin_edges(np.empty(0, dtype=dt), bins)
        except (TypeError, ValueError) as exc:
            _reraise(func, exc)
        kw = {"bins": np.asarray(bins), "range": None}
    else:
        raise ValueError(f"{func}: `bins` must be 1d, when an array")
    nbins = edges.size - 1
    out_dt = np.dtype(np.int64) if w is None else np.dtype(w.dtype)
    hist = _rows(_hist_chunk, x, w, nbins, out_dt, split_every, **kw)
    if density:
        db = np.array(np.diff(edges), float)
        hist = hist.map_blocks(_density, db, dtype=np.float64, meta=hist._meta.astype(np.float64))
    return hist, edges


def bincount(x, weights=None, minlength=0, split_every=None):
    """Number of occurrences of each value in a 1-D Dask array, as :func:`numpy.bincount`:
    every chunk's ``primitives.bincount`` to the same length, summed.

    The length, ``max(x.max() + 1, minlength)``, depends on the data: the minimum and maximum
    of ``x`` are computed when the function is called (one reduction pass; persist ``x`` first
    when it is costly to produce), and every chunk's counts have that length.

    Parameters
    ----------
    x : dask.array.Array
        1-D, of bool or an integer dtype, non-negative values; NumPy or CuPy chunks of known
        sizes (empty chunks allowed).
    weights : dask.array.Array, optional
        1-D of ``x``'s length (rechunked as ``x`` if needed), bool, integer or float: the sums
        of the weights, float64, instead of counts.
    minlength : int, optional
        A minimum number of bins.
    split_every : int or dict, optional
        Chunk counts summed per task, as :func:`primitives.dask.sum`.

    Returns
    -------
    dask.array.Array
        Lazy, one chunk: int64 counts (float64 sums with ``weights``; int64 zeros of
        ``minlength`` for an empty ``x``, as NumPy).

    Raises
    ------
    TypeError
        ``x`` or ``weights`` is not a Dask array, or of an unsupported dtype; ``minlength`` not
        an int (None or a bool included).
    ValueError
        ``x`` not 1-D, negative values in ``x`` (found when the function is called),
        ``minlength < 0``, ``weights`` of another shape, unknown chunk sizes.

    See Also
    --------
    numpy.bincount, primitives.bincount, dask.array.bincount

    Examples
    --------
    >>> import dask.array as da, numpy as np
    >>> import primitives.dask as pd
    >>> x = da.from_array(np.array([1, 3, 1, 0, 3, 3], np.int32), chunks=4)
    >>> pd.bincount(x, minlength=6).compute()
    array([1, 2, 0, 3, 0, 0])
    """
    import dask

    func = _name("bincount")
    x = dask_array(x, func)
    dt = np.dtype(x.dtype)
    if dt.kind not in "biu":
        raise TypeError(
            f"{func}: x has dtype {dt}; Cannot cast array data from {dt!r} to "
            f"{np.dtype(np.intp)!r} according to the rule 'safe'"
        )
    if x.ndim != 1:
        raise ValueError(f"{func}: x must be 1-D, got {x.ndim}-D of shape {x.shape}")
    _known(x, func)
    minlength = check_minlength(func, minlength)
    w = _weights(weights, x, func)
    if dt == np.bool_:
        x, dt = x.astype(np.uint8), np.dtype(np.uint8)
    if x.size == 0:
        length = minlength
    else:
        lo, hi = dask.compute(_dmin(x), _dmax(x))
        lo, hi = int(to_host(lo).item()), int(to_host(hi).item())
        if lo < 0 or hi >= 2**63:
            raise ValueError(f"{func}: 'list' argument must have no negative elements")
        length = max(hi + 1, minlength)
        if length > 2**31 - 1:
            raise ValueError(
                f"{func}: x.max() + 1 = {hi + 1} bins are more than this library "
                f"supports (2**31 - 1)"
            )
    out_dt = np.dtype(np.float64) if w is not None and x.size else np.dtype(np.int64)
    return _rows(
        _bincount_chunk, x, w if x.size else None, length, out_dt, split_every, length=length
    )

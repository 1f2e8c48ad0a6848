"""Argument checks of histogramdd and histogram2d, in NumPy's order and with NumPy's messages
after the function's name: the sample (an (N, D) array or D 1-D arrays), the weights and every
dimension's edges."""

from __future__ import annotations

import operator

import numpy as np

from .._core import checks as _checks
from . import _checks as _hc
from ._binning import F32, dd_linspace
from ._plans import minmax

_F16 = np.dtype(np.float16)


def _kernel_dtype(func, arr):
    """The dtype the kernel reads: bool as uint8 (NumPy's warning), float16 as float32 (exact:
    every comparison with an edge keeps its outcome)."""
    if arr.dtype == _F16:
        return arr.astype(F32)
    return _hc.samples(func, arr, "sample")


class Samples:
    """The sample of :func:`~primitives.histogramdd`: ``inp`` (the input, for the results),
    ``dtype`` (the sample dtype NumPy sees), ``cols`` (D 1-D views of the kernel's dtype, one
    per dimension), ``n``, ``d``, ``rows`` (one C-ordered (N, D) array, else D 1-D arrays) and
    ``keep`` (the arrays the kernel reads)."""

    def __init__(self, func, sample):
        array = (  # an array of any kind (a DLPack producer need have no ndim of its own)
            hasattr(sample, "ndim")
            or hasattr(sample, "__cuda_array_interface__")
            or hasattr(sample, "__dlpack__")
        )
        if not array:  # a sequence of D columns
            self._columns(func, sample)
        else:
            self._rows(func, sample)
        if self.d == 0:
            raise ValueError(f"{func}: sample has no dimension")

    def _columns(self, func, sample):
        try:
            items = list(sample)
        except TypeError as exc:
            raise TypeError(
                f"{func}: sample must be an (N, D) array or a sequence of D 1-D "
                f"arrays, got {type(sample).__name__}"
            ) from exc
        try:
            cols = [_checks.as_input(c, func=func, arg="sample", ndim=1) for c in items]
        except ValueError as exc:
            raise ValueError(
                f"{func}: sample must be an (N, D) array or a sequence of D "
                f"1-D arrays of one length"
            ) from exc
        if not cols:
            raise ValueError(f"{func}: sample has no dimension")
        n = cols[0].array.size
        if any(c.array.size != n for c in cols):
            raise ValueError(
                f"{func}: the sample's arrays have different lengths {[c.array.size for c in cols]}"
            )
        self.inp = cols[0]
        arrays = [c.array for c in cols]
        for a in arrays:
            if a.dtype.kind not in "biuf":
                _hc.samples(func, a, "sample")  # the dtype error
        # NumPy stacks the sequence into one array: one dtype for every dimension
        dt = np.result_type(*[a.dtype for a in arrays])
        self.dtype = dt
        arrays = [a if a.dtype == dt else a.astype(dt) for a in arrays]
        if dt == np.bool_:
            self.cols = [_hc.samples(func, arrays[0], "sample")] + [
                a.astype(np.uint8) for a in arrays[1:]
            ]
        else:
            self.cols = [_kernel_dtype(func, a) for a in arrays]
        self.n, self.d, self.rows = n, len(arrays), False
        self.keep = self.cols

    def _rows(self, func, sample):
        inp = _checks.as_input(sample, func=func, arg="sample")
        arr = inp.array
        if arr.ndim < 2:  # N samples (0-d: one) of one dimension, as NumPy's atleast_2d(sample).T
            arr = arr.reshape(-1, 1)
        if arr.ndim != 2:
            raise ValueError(
                f"{func}: sample must be an (N, D) array, got shape {tuple(arr.shape)}"
            )
        self.inp, self.dtype = inp, arr.dtype
        arr = _kernel_dtype(func, arr)
        if not arr.flags.c_contiguous:
            arr = inp.backend.xp.ascontiguousarray(arr)
        self.n, self.d, self.rows = arr.shape[0], arr.shape[1], True
        self.cols = [arr[:, j] for j in range(self.d)]
        self.keep = [arr]

    def read_as_is(self, given):
        """Whether the kernel reads the caller's arrays ``given`` (the (N, D) sample, or the D
        columns) as they are: no conversion or copy, so that arrays like them may be read the
        same way (:meth:`like`)."""
        return len(given) == len(self.keep) and all(
            _checks.is_itself(k, g) for k, g in zip(self.keep, given)
        )

    def like(self, given=None):
        """These samples' layout over the arrays ``given``, like the ones of
        :meth:`read_as_is` (a later call's: of the backend's type, dtype, shape and strides), or
        over no array (None: a template for later calls, which holds none of this call's); the
        input without its array (how results go back)."""
        out = object.__new__(Samples)
        inp = self.inp if self.inp.array is None else self.inp.detached()  # a template's: as is
        out.inp, out.dtype, out.n, out.d = inp, self.dtype, self.n, self.d
        out.rows, out.keep = self.rows, [] if given is None else list(given)
        out.cols = [given[0][:, j] for j in range(self.d)] if self.rows and given else out.keep
        return out


def fixed_edges(bins, range, d):  # noqa: A002 - NumPy's name
    """Whether every one of the ``d`` dimensions' edges comes from ``bins`` and ``range`` alone
    (bin counts, a range given for each dimension), not from the samples: the same for every
    call with these arguments."""
    if range is None:
        return False
    try:
        ranges = list(range)
    except TypeError:
        return False
    if len(ranges) != d or any(r is None for r in ranges):
        return False
    counts = [bins] * d if _count(bins) else bins
    try:
        return len(counts) == d and all(_count(b) for b in counts)
    except TypeError:
        return False


def _count(b):
    return isinstance(b, (int, np.integer)) and not isinstance(b, (bool, np.bool_))


def edges(func, s, bins, range, backend):  # noqa: A002 - NumPy's name
    """NumPy's edges of every dimension of the :class:`Samples` ``s`` (host arrays), and per
    dimension the arguments of :func:`~._binning.dd_linspace` that made them (int bins) or None
    (an edges array)."""
    d = s.d
    try:
        m = len(bins)
        if m != d:
            raise ValueError(
                f"{func}: The dimension of bins must be equal to the dimension of the sample x."
            )
    except TypeError:  # one int for every dimension
        bins = d * [bins]
    if range is None:
        range = d * [None]  # noqa: A001
    elif len(range) != d:
        raise ValueError(f"{func}: range argument must have one entry per dimension")
    out, uniform = [], []
    for i, (b, r) in enumerate(zip(bins, range)):
        dims = len(_checks.shape_of(b))  # an array of any kind by its shape
        if dims == 0:
            try:
                nb = operator.index(b)
            except TypeError as exc:
                raise TypeError(f"{func}: `bins[{i}]` must be an integer, when a scalar") from exc
            if nb < 1:
                raise ValueError(f"{func}: `bins[{i}]` must be positive, when an integer")
            first, last = _outer_edges(func, s, i, r, backend)
            desc = (type(first), first, type(last), last, nb)
            out.append(dd_linspace(*desc))
            uniform.append(desc)
        elif dims == 1:
            e = _checks.host_array(b, func, f"bins[{i}]")
            if e.size < 2:
                raise ValueError(f"{func}: `bins[{i}]` must hold at least two edges")
            if e.dtype.kind not in "biuf":
                raise TypeError(
                    f"{func}: `bins[{i}]` has dtype {e.dtype.name}; edges must be real numbers"
                )
            if np.any(e[:-1] > e[1:]):
                raise ValueError(
                    f"{func}: `bins[{i}]` must be monotonically increasing, when an array"
                )
            out.append(e)
            uniform.append(None)
        else:
            raise ValueError(f"{func}: `bins[{i}]` must be a scalar or 1d array")
    return out, uniform


def _outer_edges(func, s, i, r, backend):
    """numpy's first and last edge of dimension ``i`` (the autodetected range: its minimum and
    maximum, in the sample's own dtype)."""
    if r is not None or s.n == 0:
        return _hc.outer_edges(func, s.cols[i], r, backend)
    col = s.cols[i]
    if not col.flags.c_contiguous:
        col = backend.xp.ascontiguousarray(col)
    first, last = minmax(col, backend)
    if s.dtype == _F16:  # NumPy's min and max are float16 scalars
        first, last = _F16.type(first), _F16.type(last)
    if not (np.isfinite(first) and np.isfinite(last)):
        raise ValueError(f"{func}: autodetected range of [{first}, {last}] is not finite")
    return _hc.outer_edges(func, None, (first, last), backend)


def weights(func, weights, n):
    """The weights of n samples as float64, read as NumPy's ``bincount`` reads them: 1-D, of
    the sample's length; not at all (None) for an empty sample."""
    if weights is None or n == 0:
        return None
    w = _checks.as_input(weights, func=func, arg="weights").array
    if w.dtype.kind not in "biuf":
        raise TypeError(
            f"{func}: weights has dtype {w.dtype.name}; real weights are supported "
            f"(they are summed in float64)"
        )
    if w.ndim != 1:
        raise ValueError(
            f"{func}: weights must be 1-D, got {w.ndim}-D (NumPy: object "
            f"{'too deep' if w.ndim > 1 else 'of too small depth'} for desired "
            f"array)"
        )
    if w.size != n:
        raise ValueError(
            f"{func}: weights should have the same length as the sample ({w.size} against {n})"
        )
    return w.astype(np.float64, copy=False)

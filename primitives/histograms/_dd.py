"""histogramdd and histogram2d: NumPy's multi-dimensional histograms in one pass over the samples.

Every dimension gets NumPy's edges (``linspace`` of the range for int bins, the given array
otherwise) and a binner of the 1-D family (kernels/histograms/bins.cuh) that computes NumPy's bin
exactly: a sample counts in bin i when ``edges[i] <= x < edges[i+1]`` (compared in NumPy's
type), the last bin closed, anything else (outside, NaN) dropped. One kernel
(kernels/histograms/dd.cu) reads each sample's D coordinates where they lie (the (N, D) array, or
the D arrays of a sequence), bins them in every dimension, and counts the row-major linear bin
(as ``numpy.ravel_multi_index``) in a block-private shared-memory histogram, the bins beyond
shared memory with global atomics. All dimensions share one binner type: equal-width bins
(``"even"``, or a shift for integers), binary search over edges (``"edges"``) or, for 8- and
16-bit integers, a lookup table; a mix of int bins and edge arrays is binned by searching every
dimension's edges. Where no binner type serves every dimension exactly (e.g. int64 samples
against int64 edges in one dimension and float64 edges in another) and for more than
:data:`DD_MAX` dimensions, each dimension is binned in a pass of its own and the linear bins
counted by :func:`~primitives.bincount`.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from .._core import checks as _checks
from .._core import launch as _launch
from .._core import loader as _loader
from .._core import plans as _plans
from . import _checks as _hc
from . import _policy
from ._binning import (
    ACCS,
    CTYPES,
    F32,
    F64,
    SHARED_SIZE,
    SMALL,
    array_binning,
    edges_binning,
    spec_words,
    uniform_binning,
)
from ._kernels import binner_name
from ._plans import _ptr, bin_keys, binning_plan

__all__ = ["histogramdd", "histogram2d"]

SOURCE = "histograms/dd.cu"
#: dimensions the one-pass kernel takes (kernels/histograms/dd.cu: DD_MAX, the DDSamples layout)
DD_MAX = _LAYOUT = 32
#: dimensions with a kernel of their own (the others: the generic loop, D = 0)
UNROLLED = (1, 2, 3)
_F16 = np.dtype(np.float16)
_WIDE_INTS = tuple(np.dtype(t) for t in (np.int32, np.uint32, np.int64, np.uint64))

#: binners hist_dd is instantiated with, per sample dtype (small integers: a lookup table always)
DD_BINNERS = {t: (("lut", None),) for t in SMALL}
for _t in _WIDE_INTS:
    DD_BINNERS[_t] = (("shift", None), ("even", F64), ("edges", _t), ("edges", F64))
DD_BINNERS[F32] = (("even", F32), ("even", F64), ("edges", F32), ("edges", F64))
DD_BINNERS[F64] = (("even", F64), ("edges", F64))
#: hist_dd's accumulations, both into the float64 result (kernels/histograms/dd.cu): counts in
#: 32-bit shared counters added into float64 ones (exact), weights summed in float64
DD_ACCS = {"count": "prim::CountF64Acc", "weight": ACCS["weight"]}


# ---- kernels ---------------------------------------------------------------------------------


def kernel_name(dt, kind, extra, acc, d, pol):
    """hist_dd for samples of ``dt``, binner (``kind``, ``extra``), ``acc``, ``d`` dimensions
    (0: the generic loop) under the dd policy ``pol``."""
    return (
        f"hist_dd<{CTYPES[dt]}, {binner_name(dt, kind, extra)}, {DD_ACCS[acc]}, {d}, {pol.block}>"
    )


def _module_names(dt, pol):
    """One module per sample dtype: every binner, accumulation and dimension count."""
    return [
        kernel_name(dt, kind, extra, acc, d, pol)
        for kind, extra in DD_BINNERS[dt]
        for acc in DD_ACCS
        for d in (*UNROLLED, 0)
    ]


MODULES = _loader.PolicyModules(
    SOURCE, _module_names, _policy.TABLE, tuple(DD_BINNERS), selector=lambda dt: "dd"
)


# ---- the samples -----------------------------------------------------------------------------


def _kernel_dtype(func, arr):
    """The dtype the kernel reads: bool as uint8 (NumPy's warning), float16 as float32 (exact:
    every comparison with an edge keeps its outcome)."""
    if arr.dtype == _F16:
        return arr.astype(F32)
    return _hc.samples(func, arr, "sample")


class _Samples:
    """The sample of :func:`histogramdd`: ``inp`` (the input, for the results), ``dtype`` (the
    sample dtype NumPy sees), ``cols`` (D 1-D views of the kernel's dtype, one per dimension),
    ``n``, ``d``, ``rows`` (one C-ordered (N, D) array, else D 1-D arrays) and ``keep`` (the
    arrays the kernel reads; :meth:`where` gives their addresses)."""

    def __init__(self, func, sample):
        ndim = getattr(sample, "ndim", None)
        if ndim is None:  # a sequence of D columns
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

    def where(self, backend):
        """(column addresses, strides in elements, rows, 16-byte packets possible)."""
        if self.rows:
            base = _ptr(self.keep[0], backend)
            size = self.keep[0].dtype.itemsize
            ptrs = tuple(base + j * size for j in range(self.d))
            strides = (self.d,) * self.d
            vec = base % 16 == 0
        else:
            ptrs = tuple(_ptr(c, backend) for c in self.cols)
            strides = (1,) * self.d
            vec = all(p % 16 == 0 for p in ptrs)
        return ptrs, strides, self.rows, vec and self.d in UNROLLED


class SamplesRecord(_plans.Plan):
    """The DDSamples record (kernels/histograms/dd.cu) of one placement of the samples in device
    memory: made once per (addresses, strides) and stream, so a repeated call on the same arrays
    uploads nothing."""

    def __init__(self, ptrs, strides, rows, vec, backend):
        words = np.zeros(2 * _LAYOUT + 1, np.uint64)
        words[: len(ptrs)] = ptrs
        words[_LAYOUT : _LAYOUT + len(strides)] = np.array(strides, np.int64).view(np.uint64)
        words[2 * _LAYOUT] = int(rows) | (int(vec) << 32)
        self.record = backend.xp.asarray(words)
        self.nbytes = self.record.nbytes


def samples_record(s, backend):
    ptrs, strides, rows, vec = s.where(backend)
    key = ("histogram/dd-samples", ptrs, strides, rows, vec, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: SamplesRecord(ptrs, strides, rows, vec, backend)).record


# ---- edges and binnings ----------------------------------------------------------------------


def _edges(func, s, bins, range, backend):  # noqa: A002 - NumPy's name
    """NumPy's edges of every dimension (host arrays), and per dimension the arguments of
    :func:`_linspace` that made them (int bins) or None (an edges array)."""
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
    edges, uniform = [], []
    for i, (b, r) in enumerate(zip(bins, range)):
        if np.ndim(b) == 0:
            try:
                nb = operator.index(b)
            except TypeError as exc:
                raise TypeError(f"{func}: `bins[{i}]` must be an integer, when a scalar") from exc
            if nb < 1:
                raise ValueError(f"{func}: `bins[{i}]` must be positive, when an integer")
            first, last = _outer_edges(func, s, i, r, backend)
            desc = (type(first), first, type(last), last, nb)
            edges.append(_linspace(*desc))
            uniform.append(desc)
        elif np.ndim(b) == 1:
            e = np.asarray(b.get() if hasattr(b, "get") else b)
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
            edges.append(e)
            uniform.append(None)
        else:
            raise ValueError(f"{func}: `bins[{i}]` must be a scalar or 1d array")
    return edges, uniform


def _outer_edges(func, s, i, r, backend):
    """numpy's first and last edge of dimension ``i`` (the autodetected range: its minimum and
    maximum, in the sample's own dtype)."""
    if r is not None or s.n == 0:
        return _hc.outer_edges(func, s.cols[i], r, backend)
    col = s.cols[i]
    if not col.flags.c_contiguous:
        col = backend.xp.ascontiguousarray(col)
    first, last = _hc.minmax(col, backend)
    if s.dtype == _F16:  # NumPy's min and max are float16 scalars
        first, last = _F16.type(first), _F16.type(last)
    if not (np.isfinite(first) and np.isfinite(last)):
        raise ValueError(f"{func}: autodetected range of [{first}, {last}] is not finite")
    return _hc.outer_edges(func, None, (first, last), backend)


@functools.lru_cache(maxsize=256)
def _linspace(first_type, first, last_type, last, nb):
    """NumPy's edges of ``nb`` int bins over [first, last] (read-only, cached per scalars)."""
    e = np.linspace(first, last, nb + 1)
    e.flags.writeable = False
    return e


@functools.lru_cache(maxsize=256)
def _uniform_binning(dt, *desc):
    """The binning of ``dt`` samples over the edges ``_linspace(*desc)`` (cached: one device
    record per range and bin count), or None when they are not strictly increasing."""
    edges = _linspace(*desc)
    if np.any(edges[:-1] >= edges[1:]):
        return None
    if dt in SMALL:
        return edges_binning(dt, edges)
    if edges.dtype == _F16:  # rounded far from equal widths: searched (as float32, exactly)
        return edges_binning(dt, edges.astype(F32))
    e = edges
    return uniform_binning(dt, e, e.dtype.type(e[0]), e.dtype.type(e[-1]), e.size - 1)


def _exact_in(src, c):
    """Every value of ``src`` converts to ``c`` exactly (so comparisons keep their outcome)."""
    if src == c:
        return True
    if c == F64:
        return src.kind == "f" or (src.kind in "biu" and src.itemsize <= 4)
    if c == F32:
        return (src.kind == "f" and src.itemsize <= 4) or (src.kind in "biu" and src.itemsize <= 2)
    return False


def _binnings(func, dt, edges, uniform):
    """(binnings of every dimension of one kind and type, cached) for the kernel's sample dtype
    ``dt``, or None when no binner type bins every dimension exactly."""
    per, cached = [], True
    for e, u in zip(edges, uniform):
        b = None if u is None else _uniform_binning(dt, *u)
        if b is None:
            cached = False
            if dt in SMALL:
                b = edges_binning(dt, e)
            else:
                try:
                    b, kdt = array_binning(dt, e)
                except TypeError as exc:  # named for the public function
                    raise TypeError(str(exc).replace("histogram:", f"{func}:", 1)) from exc
                if kdt != dt:
                    return None
        per.append(b)
    if any(b.empty for b in per):
        return per, cached
    kinds = {(b.kind, b.extra) for b in per}
    if len(kinds) == 1 and kinds <= set(DD_BINNERS[dt]):
        return per, cached
    # one comparison type for every dimension: binary search over each dimension's edges
    c = np.result_type(dt, *[e.dtype for e in edges])
    if (
        ("edges", c) not in DD_BINNERS[dt]
        or not all(_exact_in(dt, c) or np.result_type(dt, e.dtype) == c for e in edges)
        or not all(_exact_in(e.dtype, c) or np.result_type(dt, e.dtype) == c for e in edges)
    ):
        return None
    return [edges_binning(dt, np.asarray(e, dtype=c)) for e in edges], False


class SpecsRecord(_plans.Plan):
    """The D BinSpec records of the dimensions' binnings, one after another in device memory
    (their tables held by the dimensions' binning plans)."""

    def __init__(self, per, backend, cached):
        self.bplans = [binning_plan(b, backend, cached=cached) for b in per]
        words = np.concatenate(
            [
                spec_words(b, 0 if p.table is None else _ptr(p.table, backend))
                for b, p in zip(per, self.bplans)
            ]
        )
        self.spec = backend.xp.asarray(words)
        self.nbytes = self.spec.nbytes


def specs_record(per, backend, cached):
    if not cached:
        return SpecsRecord(per, backend, False)
    key = ("histogram/dd-specs", tuple(per), _plans.stream_key())
    return _plans.PLANS.get(key, lambda: SpecsRecord(per, backend, True))


# ---- the count -------------------------------------------------------------------------------


class DDPlan(_plans.Plan):
    """hist_dd's launch for ``n`` samples of ``dt`` in ``d`` dimensions of ``total`` bins
    together, binned by (``kind``, ``extra``) into ``acc``: kernel, grid, ``shared_bins`` (the
    linear bins counted in shared memory; the others with global atomics). ``plan(where, spec,
    weights)`` counts (or sums the weights) into a new float64 array of ``total`` values."""

    def __init__(self, dt, kind, extra, d, total, acc, n, backend):
        pol = _policy.dd()
        info = backend.device_info()
        size = SHARED_SIZE[acc]
        self.shared_bins = min(total, min(pol.shared_bytes, info.shared_per_block_optin) // size)
        shared = self.shared_bins * size
        dk = d if d in UNROLLED else 0
        self.kernel = MODULES.kernel(dt, kernel_name(dt, kind, extra, acc, dk, pol), pol)
        per_thread = 16 // dt.itemsize
        grid = _launch.cover_grid(
            n,
            pol.block,
            per_thread,
            kernel=self.kernel,
            shared_mem=shared,
            per_sm=pol.blocks_per_sm,
        )
        # 32-bit shared counters: a block counts fewer than 2^32 samples
        self.grid = max(grid, _launch.cdiv(n, 2**31))
        self.block, self.total = pol.block, total
        self.xp = backend.xp
        self.stand_in = _launch.stand_in(backend, np.float64)
        self.launch = _plans.Launch(
            self.kernel,
            self.grid,
            pol.block,
            shared,
            args=(
                _SLOT,
                _launch.i64(n),
                _SLOT,
                _SLOT,
                np.int32(d),
                np.int32(self.shared_bins),
                _SLOT,
            ),
        )

    def __call__(self, where, spec, weights=None):
        out = self.xp.zeros(self.total, dtype=F64)
        self.launch(where, self.stand_in if weights is None else weights, spec, out)
        return out


_SLOT = _plans.Launch.SLOT


def dd_plan(dt, kind, extra, d, total, acc, n, backend):
    key = ("histogram/dd", dt, kind, extra, d, total, acc, n, _policy.dd(), _plans.stream_key())
    return _plans.PLANS.get(key, lambda: DDPlan(dt, kind, extra, d, total, acc, n, backend))


def _one_pass(s, per, cached, shape, w, backend):
    """The linear-bin counts or weight sums of the samples (float64), in one kernel."""
    total = int(np.prod(shape))
    acc = "count" if w is None else "weight"
    if any(b.empty for b in per):
        return backend.xp.zeros(total, dtype=F64)
    b0 = per[0]
    plan = dd_plan(b0.dtype, b0.kind, b0.extra, s.d, total, acc, s.n, backend)
    spec = specs_record(per, backend, cached)
    return plan(samples_record(s, backend), spec.spec, w)


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


def _per_dimension(s, edges, shape, w, backend):
    """The linear-bin counts by a pass per dimension (each sample's bin as a key), one to combine
    them and :func:`~primitives.bincount`: where no one binner type serves every dimension."""
    from ._api import bincount

    xp = backend.xp
    total = int(np.prod(shape))
    lin = valid = None
    for col, e, nb in zip(s.cols, edges, shape):
        k = _keys(xp.ascontiguousarray(col), e, backend)
        keep = k < nb
        k = k.astype(np.int64)
        lin = k if lin is None else lin * nb + k
        valid = keep if valid is None else valid & keep
    lin[~valid] = total  # the extra bin of the dropped samples
    return bincount(lin, weights=w, minlength=total + 1)[:total]


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
    return _histogramdd("histogramdd", sample, bins, range, density, weights)


class _DeviceEdges(_plans.Plan):
    """A device copy of the edges of int bins (cached per range and bin count)."""

    def __init__(self, edges, backend):
        self.edges = backend.xp.asarray(edges)
        self.nbytes = self.edges.nbytes


def _device_edges(e, u, backend):
    """A new array of the edges ``e`` in the backend's memory; for int bins (``u``, their
    linspace arguments) a device-to-device copy of a cached copy (no upload per call, no CuPy
    kernel: :meth:`~primitives._core.backend.Backend.copy`)."""
    if u is None:
        return backend.xp.array(e)
    if not backend.is_cuda:
        return e.copy()  # the cached linspace is read-only
    key = ("histogram/dd-edges", u, _plans.stream_key())
    return backend.copy(_plans.PLANS.get(key, lambda: _DeviceEdges(e, backend)).edges)


def _weights(func, weights, n):
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


def _histogramdd(func, sample, bins, range, density, weights):  # noqa: A002
    s = _Samples(func, sample)
    backend = s.inp.backend
    xp = backend.xp
    w = _weights(func, weights, s.n)
    edges, uniform = _edges(func, s, bins, range, backend)
    shape = tuple(len(e) - 1 for e in edges)
    if s.n == 0:
        hist = xp.zeros(shape, dtype=np.float64)
    else:
        dt = s.cols[0].dtype
        found = _binnings(func, dt, edges, uniform) if s.d <= DD_MAX else None
        if found is None:
            flat = _per_dimension(s, edges, shape, w, backend)
        else:
            flat = _one_pass(s, found[0], found[1], shape, w, backend)
        # float64 from the one pass; the per-dimension path's bincount counts in int64
        hist = flat.astype(np.float64, copy=False).reshape(shape)
    edges_dev = [_device_edges(e, u, backend) for e, u in zip(edges, uniform)]
    if density:
        total_w = hist.sum()
        for i, e in enumerate(edges_dev):
            view = [1] * len(shape)
            view[i] = shape[i]
            hist = hist / xp.diff(e).reshape(view)
        hist = hist / total_w
    return s.inp.result(hist), [s.inp.result(e) for e in edges_dev]


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

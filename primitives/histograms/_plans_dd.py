"""histogramdd's plans: the samples' and the binnings' records in device memory, the one-pass
count (kernels/histograms/dd.cu), the per-dimension path and the device copies of the edges.

Every dimension gets NumPy's edges (``linspace`` of the range for int bins, the given array
otherwise) and a binner of the 1-D family (kernels/histograms/bins.cuh) that computes NumPy's bin
exactly: a sample counts in bin i when ``edges[i] <= x < edges[i+1]`` (compared in NumPy's
type), the last bin closed, anything else (outside, NaN) dropped. One kernel reads each
sample's D coordinates where they lie (the (N, D) array, or the D arrays of a sequence), bins
them in every dimension, and counts the row-major linear bin (as ``numpy.ravel_multi_index``)
in a block-private shared-memory histogram, the bins beyond shared memory with global atomics
(:func:`one_pass`). All dimensions share one binner type (:func:`~._binning.dd_binnings`):
equal-width bins (``"even"``, or a shift for integers), binary search over edges (``"edges"``)
or, for 8- and 16-bit integers, a lookup table; a mix of int bins and edge arrays is binned by
searching every dimension's edges. Where no binner type serves every dimension exactly (e.g.
int64 samples against int64 edges in one dimension and float64 edges in another) and for more
than :data:`~._kernels.DD_MAX` dimensions, each dimension is binned in a pass of its own and the
linear bins counted by :func:`~primitives.bincount` (:func:`per_dimension`).
"""

from __future__ import annotations

import numpy as np

from .._core import launch as _launch, plans as _plans
from . import _kernels, _policy
from ._binning import F64, array_binning, spec_words
from ._choose import shared_bins
from ._plans import _ptr, bin_keys, binning_plan

#: the DDSamples record's room for dimensions (kernels/histograms/dd.cu)
_LAYOUT = _kernels.DD_MAX
_SLOT = _plans.Launch.SLOT


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


def _where(s, backend):
    """Where the kernel reads the :class:`~._checks_dd.Samples` ``s``: (column addresses,
    strides in elements, rows, 16-byte packets possible)."""
    if s.rows:
        base = _ptr(s.keep[0], backend)
        size = s.keep[0].dtype.itemsize
        ptrs = tuple(base + j * size for j in range(s.d))
        strides = (s.d,) * s.d
        vec = base % 16 == 0
    else:
        ptrs = tuple(_ptr(c, backend) for c in s.cols)
        strides = (1,) * s.d
        vec = all(p % 16 == 0 for p in ptrs)
    return ptrs, strides, s.rows, vec and s.d in _kernels.UNROLLED


def samples_record(s, backend):
    ptrs, strides, rows, vec = _where(s, backend)
    key = ("histogram/dd-samples", ptrs, strides, rows, vec, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: SamplesRecord(ptrs, strides, rows, vec, backend)).record


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
        budget = min(pol.shared_bytes, info.shared_per_block_optin)
        self.shared_bins, self.packed, shared = shared_bins(total, acc, budget, pol.packed)
        dk = d if d in _kernels.UNROLLED else 0
        self.kernel = _kernels.DD_MODULES.kernel(
            dt, _kernels.dd_kernel_name(dt, kind, extra, acc, dk, pol), pol
        )
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
                # packed: 1 the returning adds, 2 the bounded ones (the packet walk's rounds)
                np.int32(self.packed * (2 if pol.packed_bounded else 1)),
                _SLOT,
            ),
        )

    def __call__(self, where, spec, weights=None):
        out = self.xp.zeros(self.total, dtype=F64)
        self.launch(where, self.stand_in if weights is None else weights, spec, out)
        return out


def dd_plan(dt, kind, extra, d, total, acc, n, backend):
    key = ("histogram/dd", dt, kind, extra, d, total, acc, n, _policy.dd(), _plans.stream_key())
    return _plans.PLANS.get(key, lambda: DDPlan(dt, kind, extra, d, total, acc, n, backend))


def one_pass(s, per, cached, shape, w, backend):
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


def per_dimension(s, edges, shape, w, backend):
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


# ---- the edges returned ----------------------------------------------------------------------


class _DeviceEdges(_plans.Plan):
    """A device copy of the edges of int bins (cached per range and bin count)."""

    def __init__(self, edges, backend):
        self.edges = backend.xp.asarray(edges)
        self.nbytes = self.edges.nbytes


def device_edges(e, u, backend):
    """A new array of the edges ``e`` in the backend's memory; for int bins (``u``, their
    linspace arguments) a device-to-device copy of a cached copy (no upload per call, no CuPy
    kernel: :meth:`~primitives._core.backend.Backend.copy`)."""
    if u is None:
        return backend.xp.array(e)
    if not backend.is_cuda:
        return e.copy()  # the cached linspace is read-only
    key = ("histogram/dd-edges", u, _plans.stream_key())
    return backend.copy(_plans.PLANS.get(key, lambda: _DeviceEdges(e, backend)).edges)

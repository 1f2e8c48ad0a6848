"""Histogram plans: a binning in device memory, the count launch of every variant, the repeat-call
plans of the production kernel, histogram_channels' launch; and the one-off launches (the range's
minimum and maximum, the sort then reduce by key).

Every plan is made once per configuration (its key holds the policies it was built with and the
stream) and kept in :data:`primitives._core.plans.PLANS`:

- :class:`BinningPlan` per binning: its BinSpec record and table (and for histogram's int bins
  the edges it returns), written once instead of per call;
- :class:`CountPlan` per (variant, binner, bins, accumulation, samples): kernel, grid, shared
  memory and a prepared :class:`~primitives._core.plans.Launch` (the binning and the weights are
  slots: one plan serves every range; float32 weights have an accumulation of their own where
  the variant reads them as they are, :func:`._choose.accumulation`); warp_replicated's also an
  accumulator and a ticket that stay zero between launches (its last block moves the counts to
  the result);
- :class:`RepeatPlan` per (count plan, binning, function): the launch of a call whose
  arguments were checked once, every argument but the samples and the results prepared, its
  launch record copying the edges (:func:`histogram`) or reporting the extent
  (:class:`BincountPlan`). A public function's prepare step returns it as the call's run, which
  :mod:`primitives._core.entry` files under the call's key: a later call on like arrays takes it
  directly.

The variant of every count plan is a chosen one (:func:`._choose.choose`: ``"auto"`` resolved,
refusals raised, by the prepare step).
"""

from __future__ import annotations

import threading

import numpy as np

from .._core import backend as _backend, launch as _launch, plans as _plans
from . import _kernels, _policy
from ._binning import (
    F32,
    OUT_DTYPE,
    SHARED_SIZE,
    WEIGHT_DTYPE,
    bincount_binning,
    byte_binning,
    key_of,
    keys,
    spec_words,
)
from ._choose import (
    VARIANT_TABLE,
    accumulation,
    choose,
    fewer_copies,
    replicas_for,
    shared_bins,
    shared_capacity,
    stage_offset,
    stages_for,
)

_SLOT = _plans.Launch.SLOT


def _ptr(arr, backend):
    return arr.data.ptr if backend.is_cuda else arr.ctypes.data


# ---- binnings in device memory --------------------------------------------------------------


class BinningPlan(_plans.Plan):
    """``binning`` in device memory: ``spec`` (its BinSpec record), ``table`` (its lookup table
    or edges, or None) and ``edges`` (a device copy of the host ``edges`` a histogram returns, or
    None)."""

    def __init__(self, binning, backend, edges=None):
        xp = backend.xp
        self.table = None if binning.table is None else xp.asarray(binning.table)
        ptr = 0 if self.table is None else _ptr(self.table, backend)
        self.spec = xp.asarray(spec_words(binning, ptr))
        self.edges = None if edges is None else xp.asarray(edges)
        self.nbytes = _plans.scratch_bytes(self.spec, self.table, self.edges)


def binning_plan(binning, backend, edges=None, cached=True):
    """The :class:`BinningPlan` of ``binning``; ``edges``: the host edges it was made with when a
    histogram returns them. ``cached``:
    the binning is one of the cached binnings of an argument set (int ``bins``, histogram_even,
    bincount), kept in the plan cache; a binning made for one call (edges arrays, estimators)
    gets a plan of its own."""
    if not cached:
        return BinningPlan(binning, backend, edges)
    key = ("histogram/binning", binning, edges is not None, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: BinningPlan(binning, backend, edges))


# ---- the count launch of every variant ------------------------------------------------------


def launch_record(backend, n, replicas, aggregate, acc, ticket, edges=None, extent=None):
    """The HistLaunch record (kernels/histograms/histogram.cu) in device memory: the number of
    samples, histogram copies per block, packet aggregation, the accumulator and ticket of a
    plan (or None: the blocks add into a zeroed result), the device edges the last block copies
    (or None), and the host-visible int64 pair the first and last non-zero bin go to (or
    None)."""
    words = np.zeros(7, np.uint64)
    if acc is not None:
        words[0], words[1] = _ptr(acc, backend), _ptr(ticket, backend)
    if edges is not None:
        words[2], words[3] = _ptr(edges, backend), edges.nbytes // 4
    if extent is not None:
        words[4] = extent.ctypes.data  # pinned host memory: the device writes it directly
    words[5] = n
    words[6] = replicas | (int(aggregate) << 32)
    return backend.xp.asarray(words)


class CountPlan(_plans.Plan):
    """The launch of ``variant`` (a chosen one: :func:`._choose.choose`) for ``n`` samples binned
    like ``binning`` into ``acc`` ("count", "weight" or "weight_f32"), each read through the map
    ``m`` where given (:class:`~.._core.ops.Map`: the kernel's element type). Public attributes:
    ``kernel``, ``grid``, ``block``, ``shared`` (dynamic shared bytes), ``replicas`` and
    ``stages`` (warp_replicated's histogram copies per block and staging slots per thread),
    ``acc`` and ``ticket`` (warp_replicated's accumulator and last-block ticket, zero between
    launches; None when the result is zeroed by the host instead), ``weights_dtype`` (the dtype
    of the weights the kernel reads; None for counts), ``launch``. ``plan(arr, spec, weights)``
    counts the contiguous device array ``arr`` into a new array."""

    def __init__(self, variant, binning, acc, n, backend, m=None):
        spec = VARIANT_TABLE[variant]
        prod, loads = _policy.production(), _policy.loads(binning.dtype)
        info = backend.device_info()
        xp = self.xp = backend.xp
        # warp_replicated's instantiation depends on its staging slots: loaded below
        k = None if spec.shape == "replicated" else _kernels.kernel(variant, binning, acc, 0, m)
        nb, size = binning.nbins, SHARED_SIZE[acc]
        block = prod.block if spec.production else _policy.textbook().block
        extra, shared = (), 0
        per_thread = 16 // binning.dtype.itemsize * loads.vectors  # samples per iteration
        if spec.shape in ("per_sample", "resident_shared"):
            shared = nb * size
        record = acc_arr = ticket = None
        replicas = stages = 0
        if spec.shape == "per_sample":
            grid = _launch.cdiv(n, block)
        elif spec.shape == "resident":
            grid = _launch.cover_grid(n, block, 1, kernel=k)
        elif spec.shape == "resident_shared":
            grid = _launch.cover_grid(n, block, 1, kernel=k, shared_mem=shared)
        elif spec.shape == "replicated":
            r = replicas_for(nb, acc, info)  # not 0: choose refused the variant otherwise
            shared = r * (nb + 1) * size  # >= 16 bytes: the finish's scratch
            stages = stages_for(binning.dtype, shared, acc, info, r == prod.lane_copies)
            if stages:  # the staging slots after the counters
                shared = stage_offset(shared) + stages * block * 16
            k = _kernels.kernel(variant, binning, acc, stages, m)
            grid = _launch.cover_grid(
                n, block, per_thread, kernel=k, shared_mem=shared, per_sm=prod.blocks_per_sm
            )
            if nb <= prod.finish_max_bins:
                acc_arr = xp.zeros(nb, dtype=OUT_DTYPE[acc])
                ticket = xp.zeros(1, dtype=np.uint32)
            record = launch_record(backend, n, r, prod.aggregate, acc_arr, ticket)
            replicas = r
        elif spec.shape == "partial":
            sb, packed, shared = shared_bins(
                nb, acc, shared_capacity(acc, info) * size, prod.packed
            )
            # packed: 1 the returning adds, 2 the bounded ones (settled in rounds)
            extra = (np.int32(sb), np.int32(packed * (2 if prod.packed_bounded else 1)))
            grid = _launch.cover_grid(
                n, block, per_thread, kernel=k, shared_mem=shared, per_sm=prod.blocks_per_sm
            )
        else:  # vectorized
            grid = _launch.cover_grid(n, block, per_thread, kernel=k, per_sm=prod.blocks_per_sm)
        # 32-bit shared counters: a block counts fewer than 2^32 samples
        grid = max(grid, _launch.cdiv(n, 2**31))
        self.variant, self.kernel, self.grid, self.block, self.shared = (
            variant,
            k,
            grid,
            block,
            shared,
        )
        self.n, self.nbins, self.out_dtype = n, nb, OUT_DTYPE[acc]
        self.replicas, self.stages, self.aggregate = replicas, stages, prod.aggregate
        self.acc, self.ticket, self.record = acc_arr, ticket, record
        self.weights_dtype = WEIGHT_DTYPE.get(acc)
        self.stand_in = _launch.stand_in(backend, np.float64)  # the weights of a count
        if record is None:
            args = (_SLOT, _launch.i64(n), _SLOT, _SLOT, *extra, _SLOT)
        else:  # the production kernel: n in the record, the result twice (no edges to copy)
            args = (_SLOT, _SLOT, _SLOT, record, _SLOT, _SLOT)
        self.launch = _plans.Launch(k, grid, block, shared, args=args)
        self.nbytes = _plans.scratch_bytes(acc_arr, ticket, record)

    def __call__(self, arr, spec, weights=None):
        """Counts of ``arr`` binned by the BinSpec record ``spec`` (sums of the contiguous
        ``weights`` of :attr:`weights_dtype` when given) into a new array."""
        if self.acc is not None:  # the last block writes every counter
            out = self.xp.empty(self.nbins, dtype=self.out_dtype)
        else:
            out = self.xp.zeros(self.nbins, dtype=self.out_dtype)
        w = self.stand_in if weights is None else weights
        if self.record is None:
            self.launch(arr, w, spec, out)
        else:
            self.launch(arr, w, spec, out, out)
        return out


class BucketPlan(_plans.Plan):
    """The ``bucketed`` variant's launches for ``n`` samples binned like ``binning`` (counts, at
    most :data:`._choose.BUCKETED_MAX_BINS` bins; each sample read through the map ``m`` where
    given): ``hist_bucket_scatter`` twice (the samples of each 65,536-bin range, then every
    kept sample's 16-bit bin written in its range's region of a scratch array, the regions in
    range order) and ``hist_bucket_tally`` (each block a slice of the regions, counted in
    shared memory, added to the result). ``scratch`` (the ranges' sizes and cursors) is zeroed
    per call; the 16-bit bins (2 bytes a sample) come from the pool per call.
    ``plan(arr, spec)`` counts the contiguous device array ``arr`` into a new array."""

    #: bins of one range (kernels/histograms/histogram.cu: BUCKET_BITS)
    RANGE = 1 << 16

    def __init__(self, binning, n, backend, m=None):
        prod, loads = _policy.production(), _policy.loads(binning.dtype)
        self.xp = xp = backend.xp
        self.variant, self.n, self.nbins = "bucketed", n, binning.nbins
        self.out_dtype = OUT_DTYPE["count"]
        k = _kernels.kernel("bucketed", binning, "count", 0, m)
        items = min(8, max(1, loads.vectors * 16 // binning.dtype.itemsize))
        grid = _launch.cover_grid(n, prod.block, items, kernel=k, per_sm=prod.blocks_per_sm)
        grid = max(grid, _launch.cdiv(n, 2**31))  # a block's 32-bit shared sizes
        ranges = _launch.cdiv(binning.nbins, self.RANGE)
        self.scratch = xp.zeros(2 * ranges, dtype=np.uint64)
        n64 = _launch.i64(n)
        self.sizes = _plans.Launch(
            k, grid, prod.block, args=(_SLOT, n64, _SLOT, np.int32(0), self.scratch, _SLOT)
        )
        self.scatter = _plans.Launch(
            k, grid, prod.block, args=(_SLOT, n64, _SLOT, np.int32(1), self.scratch, _SLOT)
        )
        tk = _kernels.tally_kernel(prod)
        shared = 4 * (self.RANGE // 2 + 1)  # Packed16::words(65536) 4-byte words
        tgrid = _launch.cover_grid(n, prod.block, 8, kernel=tk, shared_mem=shared)
        self.tally = _plans.Launch(
            tk, tgrid, prod.block, shared, args=(_SLOT, self.scratch, np.int32(self.nbins), _SLOT)
        )
        self.acc = None  # no accumulator: a repeat call counts into a new result (CountRepeat)
        self.nbytes = _plans.scratch_bytes(self.scratch)

    def __call__(self, arr, spec, weights=None):
        """Counts of ``arr`` binned by the BinSpec record ``spec`` into a new array."""
        del weights  # counts only: the choice refuses weights for this variant
        xp = self.xp
        out = xp.zeros(self.nbins, dtype=self.out_dtype)
        self.scratch.fill(0)
        bins16 = xp.empty(self.n, dtype=np.uint16)
        self.sizes(arr, spec, bins16)
        self.scatter(arr, spec, bins16)
        self.tally(bins16, out)
        return out


def _count_key(variant, binning, acc, n, m=None):
    pols = (
        (_policy.production(), _policy.loads(binning.dtype))
        if VARIANT_TABLE[variant].production
        else (_policy.textbook(),)
    )
    return (
        "histogram/count",
        variant,
        binning.dtype,
        binning.kind,
        binning.extra,
        binning.nbins,
        acc,
        n,
        *pols,
        _plans.stream_key(),
        m,
    )


def count_plan(variant, binning, acc, n, backend, m=None):
    """The :class:`CountPlan` of ``variant`` (a chosen one) for ``n`` samples with ``binning``
    (read through the map ``m`` where given)."""
    if VARIANT_TABLE[variant].shape == "bucketed":
        return _plans.PLANS.get(
            _count_key(variant, binning, acc, n, m), lambda: BucketPlan(binning, n, backend, m)
        )
    return _plans.PLANS.get(
        _count_key(variant, binning, acc, n, m),
        lambda: CountPlan(variant, binning, acc, n, backend, m),
    )


def count(arr, binning, weights, variant, backend, bplan=None, cached=True, m=None):
    """Histogram of the contiguous 1-D device array ``arr`` (dtype ``binning.dtype``) into a new
    array: int64 counts, or float64 sums of ``weights`` (a 1-D real device array of the same
    length), by the chosen ``variant`` (:func:`._choose.choose`). Float32 weights are read as
    they are where the variant's kernel takes them (:func:`._choose.accumulation`); any other
    weights become a contiguous float64 copy first (no copy of contiguous float64). ``bplan``: the
    binning's plan when the caller has it (else :func:`binning_plan` with ``cached``). ``m``: a
    map each sample is read through as the kernel loads it (the binning is of its results)."""
    n = arr.size
    if n == 0 or binning.empty:  # nothing launched: no variant chosen ("auto" stays)
        return backend.xp.zeros(
            binning.nbins, dtype=OUT_DTYPE["count" if weights is None else "weight"]
        )
    acc = accumulation(variant, None if weights is None else weights.dtype)
    if weights is not None:
        weights = backend.xp.ascontiguousarray(weights, dtype=WEIGHT_DTYPE[acc])
    if bplan is None:
        bplan = binning_plan(binning, backend, cached=cached)
    if variant == "sort_reduce_by_key":
        return sort_reduce(arr, binning, bplan.spec, weights, backend, m)
    return count_plan(variant, binning, acc, n, backend, m)(arr, bplan.spec, weights)


def bin_keys(arr, binning, spec, backend, acc="count", m=None):
    """Each sample's bin under ``binning`` (its device record ``spec``) as a uint32 key,
    ``binning.nbins`` for a dropped sample: the first pass of ``sort_reduce_by_key`` (each sample
    read through the map ``m`` where given)."""
    n = arr.size
    k = _kernels.kernel("sort_reduce_by_key", binning, acc, 0, m)
    block = _policy.textbook().block
    keys = backend.xp.empty(n, dtype=np.uint32)
    grid = _launch.cover_grid(n, block, 4, kernel=k)
    _launch.launch(k, grid, block, (arr, _launch.i64(n), spec, keys))
    return keys


def sort_reduce(arr, binning, spec, weights, backend, m=None):
    """``sort_reduce_by_key``: each sample's bin as a 32-bit key (``nbins`` for a dropped sample),
    a stable radix sort of the keys (with the weights alongside) over the bits that ``nbins``
    needs, the first position of every run of equal keys (compaction of the run heads), and per
    run its length (counts) or the segmented sum of its weights. Each bin is written once, by a
    scatter: no atomics on the output. ``m``: the map the samples are read through."""
    from .. import compaction, segmented, sorting

    xp = backend.xp
    n, nb = arr.size, binning.nbins
    acc = "count" if weights is None else "weight"
    keys_ = bin_keys(arr, binning, spec, backend, acc, m)
    end_bit = int(nb).bit_length()  # keys lie in [0, nb]
    if weights is None:
        keys_ = sorting.radix_sort(keys_, end_bit=end_bit)
    else:
        keys_, weights = sorting.radix_sort(keys_, weights, end_bit=end_bit)
    heads = xp.empty(n, dtype=np.bool_)
    heads[0] = True
    xp.not_equal(keys_[1:], keys_[:-1], out=heads[1:])
    bounds = xp.concatenate([compaction.compact_indices(heads), xp.full(1, n, dtype=np.int64)])
    run_keys = keys_[bounds[:-1]]
    if weights is None:
        per_run = xp.diff(bounds)
    else:
        per_run = segmented.segmented_reduce(weights, bounds, check=False)
    out = xp.zeros(nb, dtype=OUT_DTYPE[acc])
    kept = run_keys < nb  # the run of dropped samples, if any, is the last
    out[run_keys[kept]] = per_run[kept]
    return out


# ---- repeat calls: the production launch with every argument prepared ----------------------


class RepeatPlan(_plans.Plan):
    """A call of :func:`histogram_even` (or, :class:`HistogramPlan`, :func:`histogram` with int
    ``bins`` and ``range``) repeated on like samples: the production kernel of ``count`` (a
    :class:`CountPlan` with an accumulator) with every argument prepared but the samples and the
    results. Its launch record adds to the count plan's accumulator and ticket and copies the
    edges or reports the extent. A call takes result arrays allocated by the call before (after
    its launch, while the GPU works), so before its launch the host does no more than the key
    lookup. ``plan(a)`` returns what the public function returns for ``a`` (of the backend's own
    array type, like the first call's samples)."""

    def __init__(self, count, bplan, backend, edges=None, extent=None):
        self.count, self.binning = count, bplan
        self.nbins, self.out_dtype, self.empty = (count.nbins,), count.out_dtype, backend.xp.ndarray
        self.edges_shape = None if edges is None else (edges.size,)
        self.edges_dtype = None if edges is None else edges.dtype
        self.extent = extent
        self.record = launch_record(
            backend,
            count.n,
            count.replicas,
            count.aggregate,
            count.acc,
            count.ticket,
            bplan.edges if edges is not None else None,
            extent,
        )
        self.launch = _plans.Launch(
            count.kernel,
            count.grid,
            count.block,
            count.shared,
            args=(_SLOT, count.stand_in, bplan.spec, self.record, _SLOT, _SLOT),
        )
        self.spares = [self._new()]
        out, eo = self.spares[0]
        self.nbytes = _plans.scratch_bytes(self.record, out, None if eo is out else eo)

    def _new(self):
        out = self.empty(self.nbins, self.out_dtype)
        return out, (
            out if self.edges_shape is None else self.empty(self.edges_shape, self.edges_dtype)
        )

    def __call__(self, a):
        try:
            out, _ = self.spares.pop()  # atomic: a result goes to one caller only
        except IndexError:  # another thread took it
            out, _ = self._new()
        self.launch(a, out, out)
        if not self.spares:
            self.spares.append(self._new())
        return out


class CountRepeat(_plans.Plan):
    """A call of :func:`histogram_even` or :func:`histogram` repeated on like samples where the
    count is a :class:`CountPlan` without an accumulator (a result zeroed, then the kernel): the
    binning's spec prepared, no checks. ``plan(a)`` returns the counts, or (counts, a copy of the
    edges) for :func:`histogram` (``with_edges``; a memory copy, no CuPy kernel)."""

    def __init__(self, count, bplan, with_edges, backend):
        self.count, self.spec, self.backend = count, bplan.spec, backend
        self.edges = bplan.edges if with_edges else None
        self.nbytes = 0  # the count plan and the binning plan hold the device memory

    def __call__(self, a):
        out = self.count(a, self.spec)
        return out if self.edges is None else (out, self.backend.copy(self.edges))


class HistogramPlan(RepeatPlan):
    """:func:`histogram` repeated: the last block also copies the edges; returns (hist, edges)."""

    def __call__(self, a):
        try:
            out, eo = self.spares.pop()
        except IndexError:
            out, eo = self._new()
        self.launch(a, out, eo)
        if not self.spares:
            self.spares.append(self._new())
        return out, eo


class BincountPlan(RepeatPlan):
    """:func:`bincount` of 8-bit samples repeated: the last block writes the first and last
    non-zero count to pinned host memory, then sets a flag, which the host polls (the counts
    need no wait: later work on the stream runs after the kernel; the wait is
    :func:`primitives._core.launch.wait_written`'s)."""

    def __init__(self, count, bplan, backend, minlength, origin):
        super().__init__(count, bplan, backend, extent=_launch.host_words(backend, 3))
        self.backend, self.xp, self.minlength, self.origin = backend, backend.xp, minlength, origin
        self.lock = threading.Lock()  # one call at a time uses the record's extent

    def __call__(self, x):
        with self.lock:
            ext = self.extent
            ext[2] = 0
            out = RepeatPlan.__call__(self, x)
            _launch.wait_written(
                ext, 2, 0, self.backend, "bincount: the kernel did not report its extent"
            )
            first, last = int(ext[0]), int(ext[1])
        return byte_result("bincount", out, first, last, self.origin, self.minlength, self.xp)


def repeat_plan(kind, variant, binning, n, backend, edges=None, minlength=0, origin=0, m=None):
    """The repeat-call plan of ``kind`` ("histogram": :class:`HistogramPlan` with ``edges``,
    "even": :class:`RepeatPlan`, "bincount": :class:`BincountPlan`); where the count of ``n``
    samples does not run the production kernel with an accumulator (another variant, more bins
    than its last block moves), a :class:`CountRepeat` for "histogram" and "even". None where
    there is no work, for ``sort_reduce_by_key``, and for such a "bincount". ``m``: the map the
    samples are read through (None: as they are)."""
    if n == 0 or binning.empty or variant == "sort_reduce_by_key":
        return None
    ckey = _count_key(variant, binning, "count", n, m)
    count = count_plan(variant, binning, "count", n, backend, m)
    if count.acc is None and kind == "bincount":
        return None
    prod = _policy.production()

    def build():
        bplan = binning_plan(binning, backend, edges)
        if count.acc is None:  # another variant, or more bins than the last block moves
            return CountRepeat(count, bplan, kind == "histogram", backend)
        if kind == "histogram":
            return HistogramPlan(count, bplan, backend, edges=edges)
        if kind == "even":
            return RepeatPlan(count, bplan, backend)
        return BincountPlan(count, bplan, backend, minlength, origin)

    key = ("histogram/repeat", kind, minlength, binning, prod, *ckey[1:])
    return _plans.PLANS.get(key, build)


def byte_result(func, full, first, last, origin, minlength, xp):
    """bincount's result from the 256 counts ``full`` of an 8-bit dtype (in value order, the
    value 0 at ``origin``) whose first and last non-zero bins are ``first`` and ``last`` (-1:
    none): NumPy's length, a view of ``full`` when it holds the result."""
    if 0 <= first < origin:
        raise ValueError(f"{func}: 'list' argument must have no negative elements")
    length = max(last - origin + 1 if last >= 0 else 0, minlength)
    if origin + length <= 256:  # the new counts or a view of them: no copy
        return full if length == 256 else full[origin : origin + length]
    out = xp.zeros(length, dtype=full.dtype)
    out[: 256 - origin] = full[origin:]
    return out


# ---- histogram_channels ---------------------------------------------------------------------


class ChannelsPlan(_plans.Plan):
    """histogram_channels of ``n`` samples of interleaved ``channels`` binned like ``binning``:
    ``plan(samples)`` returns the (channels, nbins) int64 counts in a new array."""

    def __init__(self, binning, bplan, channels, n, backend, pol):
        self.xp, self.shape = backend.xp, (channels, binning.nbins)
        self.launch = None
        if n and not binning.empty:
            k = _kernels.channels_kernel(binning, pol)
            table = channels * binning.nbins * 4
            r = fewer_copies(table, _policy.production())
            per_thread = 16 // binning.dtype.itemsize * _policy.loads(binning.dtype).vectors
            grid = _launch.cover_grid(
                n, pol.block, per_thread, kernel=k, shared_mem=r * table, per_sm=pol.blocks_per_sm
            )
            grid = max(grid, _launch.cdiv(n, 2**31))
            self.launch = _plans.Launch(
                k,
                grid,
                pol.block,
                r * table,
                args=(_SLOT, _launch.i64(n), np.int32(channels), bplan.spec, np.int32(r), _SLOT),
            )
        self.binning = bplan

    def __call__(self, samples):
        out = self.xp.zeros(self.shape[0] * self.shape[1], dtype=np.int64)
        if self.launch is not None:
            self.launch(samples, out)
        return out.reshape(self.shape)


def channels_plan(binning, edges, channels, n, backend):
    pol = _policy.channels()
    key = (
        "histogram/channels",
        binning,
        channels,
        n,
        pol,
        _policy.production(),
        _policy.loads(binning.dtype),
        _plans.stream_key(),
    )

    def build():
        bplan = None if not n or binning.empty else binning_plan(binning, backend, edges)
        return ChannelsPlan(binning, bplan, channels, n, backend, pol)

    return _plans.PLANS.get(key, build)


# ---- the range: minimum and maximum ---------------------------------------------------------


def minmax(arr, backend):
    """(min, max) of the non-empty device array ``arr`` as NumPy scalars of its dtype (NaN
    propagates). Synchronizes: the partials come back to the host."""
    dt = arr.dtype
    pol = _policy.minmax()
    k = _kernels.minmax_kernel(dt, pol)
    grid = _launch.cover_grid(arr.size, pol.block, 16 // dt.itemsize * 2, kernel=k)
    partials = backend.xp.empty(2 * grid, dtype=_kernels.minmax_acc(dt))
    _launch.launch(k, grid, pol.block, (arr, _launch.i64(arr.size), partials))
    host = partials.get() if backend.is_cuda else partials
    lo, hi = np.min(host[0::2]), np.max(host[1::2])
    if dt == F32:  # order keys; beyond the infinities' keys is NaN
        inf = key_of(F32, np.float32(np.inf))
        if lo < -inf or hi > inf:
            return F32.type(np.nan), F32.type(np.nan)
        to_values = keys(F32)[0]
        return to_values([int(lo)])[0], to_values([int(hi)])[0]
    return dt.type(lo), dt.type(hi)


def range_counts(arr, backend, max_ratio, max_bins=2**31 - 1):
    """The counts of every value of the integer keys' range: ``(lo, counts)``, ``counts[i]`` the
    int64 number of elements of the non-empty contiguous device array ``arr`` (an integer dtype)
    equal to ``lo + i``. 8-bit keys are counted over all 256 values (``lo`` the type's least),
    wider ones over [min, max] (found on the device: a synchronization), or not at all (None)
    when that range holds more than ``max_ratio`` values per element or ``max_bins`` values
    (at most 2^31 - 1). The count step of ``unique``'s ``"count"`` variant."""
    dt, n = arr.dtype, arr.size
    if dt.itemsize == 1:  # the byte binner: bin = the byte, int8's sign bit flipped
        binning, lo = byte_binning(dt), int(np.iinfo(dt).min)
    else:
        mn, mx = minmax(arr, backend)
        lo, bins = int(mn), int(mx) - int(mn) + 1
        if bins > max_ratio * n or bins > min(max_bins, 2**31 - 1):
            return None
        binning = bincount_binning(dt, lo, int(mx), bins)
    return lo, count(arr, binning, None, choose("auto", binning, "count", n), backend)


def mapped_minmax(arr, m):
    """(min, max) of the non-empty device array ``arr`` read through the map ``m`` (a
    :class:`~.._core.ops.Map`), as NumPy scalars of its dtype (NaN propagates): the reductions'
    ``min`` and ``max`` with ``map=``, the map computed as the histogram's kernels compute it.
    Synchronizes: the two results come back to the host."""
    from .. import reduction

    dt = arr.dtype
    lo, hi = (
        np.asarray(_backend.to_host(f(arr, map=m.expr))) for f in (reduction.min, reduction.max)
    )
    return dt.type(lo.reshape(())[()]), dt.type(hi.reshape(())[()])

"""Histogram family: ``histogram``, ``bincount``, ``histogram_even``, ``histogram_channels`` and the
textbook sequence of variants.

Variants (``variant=``), each a named kernel in ``kernels/histogram/histogram.cu``:

==========================  ======================================================================
global_atomic_contiguous    each thread a contiguous section, a global atomic per sample
                            (uncoalesced loads: the slow one)
global_atomic_interleaved   grid-stride (coalesced) loads, a global atomic per sample
privatized                  one sample per thread, a shared-memory histogram per block, merged with
                            global atomics
coarsened_contiguous        privatized, grid sized to the machine, a contiguous section per thread
coarsened_interleaved       privatized, grid sized to the machine, grid-stride samples per thread
aggregated                  coarsened_interleaved + run aggregation (equal consecutive bins are
                            added in a register before one atomic)
warp_replicated             shared histograms per block (one per lane up to 383 bins, else up to
                            four), 16-byte loads, machine-sized grid: the production kernel while
                            the bins fit in shared memory
partial_privatized          bins beyond shared memory: the first bins in shared memory, the others
                            with global atomics
global_vectorized           the fully global fallback: 16-byte loads, a global atomic per sample
sort_reduce_by_key          the bin of every sample as a key, radix-sorted, then the runs of equal
                            keys counted (or their weights summed by segmented reduction): no
                            atomics on the output
auto                        see :func:`auto_variant`
==========================  ======================================================================

How a sample finds its bin is separate from how it is counted: ``kernels/common/bins.cuh`` holds
the *binners* (the byte itself, a shift for power-of-two integer widths, a table for 8- and
16-bit integers, even bins with an edge check, binary search over arbitrary edges); every variant
is instantiated with each binner, so every variant computes exactly NumPy's bins.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import math
import operator
import threading
import warnings

import numpy as np

from ._core import backend as _backend, checks as _checks, dtypes as _dtypes, launch as _launch, loader as _loader

__all__ = ["histogram", "bincount", "histogram_even", "histogram_channels", "auto_variant",
           "VARIANTS"]

_builtin_range = range

VARIANTS = ("global_atomic_contiguous", "global_atomic_interleaved", "privatized",
            "coarsened_contiguous", "coarsened_interleaved", "aggregated", "warp_replicated",
            "partial_privatized", "global_vectorized", "sort_reduce_by_key")


@dataclasses.dataclass(frozen=True)
class _Variant:
    """How a variant is launched. ``kernel``: its ``__global__``; ``shape``: the launch planner
    (see :func:`_plan`, or ``"sort"``: :func:`_sort_reduce`); ``policy``: templated on (BLOCK,
    VECS), and warp_replicated on STAGES after them (:data:`_STAGES`)."""

    kernel: str
    shape: str
    block: int
    policy: bool = False


# Production policy, measured on an H100 (tools/tune_histogram.py, docs/histogram.rst): threads per
# block, blocks per SM cap; histogram copies per block: one per lane while they take at most
# 48 KiB (no bank conflicts: uniform uint8 0.122 -> 0.097 ms), else up to four while they take at
# most 16 KiB (four copies of 256 bins matched one; with 4096 bins one copy was 2% faster); packet
# aggregation off (the H100 merges same-address shared atomics of a warp: all-equal data already
# ran faster than uniform data, and the check cost up to 4% on uniform data).
_PROD_BLOCK, _PROD_PER_SM, _MAX_REPLICAS, _REPLICA_BYTES = 1024, 2, 4, 16 * 1024
_LANE_COPIES, _LANE_COPIES_BYTES = 32, 48 * 1024  # one copy per lane while they fit
_AGGREGATE = False
_TEXTBOOK_BLOCK = 256

#: 16-byte loads in flight per thread in the production kernels, by sample size (measured: 4 for
#: bytes, whose packets hold 16 samples of cheap work each; 2 otherwise)
def _vecs(dt):
    return 4 if dt.itemsize == 1 else 2


#: warp_replicated's count kernels (no weights): the packets staged in shared memory by
#: asynchronous copies (cp.async, sm_80+) with this many in flight per thread, by sample dtype:
#: (stages with one histogram copy per lane, stages with fewer copies), instead of the register
#: walk with :func:`_vecs` loads in flight (absent or 0). Measured on an H100
#: (tools/tune_histogram.py --staged, kernel only, 2^28 samples, interleaved): float32 256 bins
#: (a copy per lane) 0.416 ms with the register walk, 0.372 with 2 stages (two blocks per SM),
#: 0.360 with 5 (one block per SM: 60 registers); 4096 bins (fewer copies) 0.481, 0.472 with 2,
#: 0.566 with 5 (one block, so one copy, per SM); uint8 unchanged (0.097-0.098 ms), so bytes keep
#: the register walk. A plan keeps the register walk on a device older than sm_80, or when the
#: slots (STAGES * 16 bytes per thread) do not fit next to the counters in a block's shared
#: memory (:func:`_stages`).
_STAGES = {np.dtype(np.float32): (5, 2)}
#: the stage count the NVRTC check compiles for the count kernels of dtypes absent from _STAGES
_STAGED_CHECK = 4


_VARIANTS = {
    "global_atomic_contiguous": _Variant("hist_global_contiguous", "resident", _TEXTBOOK_BLOCK),
    "global_atomic_interleaved": _Variant("hist_global_interleaved", "resident", _TEXTBOOK_BLOCK),
    "privatized": _Variant("hist_privatized", "per_sample", _TEXTBOOK_BLOCK),
    "coarsened_contiguous": _Variant("hist_coarsened_contiguous", "resident_shared",
                                     _TEXTBOOK_BLOCK),
    "coarsened_interleaved": _Variant("hist_coarsened_interleaved", "resident_shared",
                                      _TEXTBOOK_BLOCK),
    "aggregated": _Variant("hist_aggregated", "resident_shared", _TEXTBOOK_BLOCK),
    "warp_replicated": _Variant("hist_warp_replicated", "replicated", _PROD_BLOCK, True),
    "partial_privatized": _Variant("hist_partial_privatized", "partial", _PROD_BLOCK, True),
    "global_vectorized": _Variant("hist_global_vectorized", "vectorized", _PROD_BLOCK, True),
    # the bins as sort keys (radix sort), then a reduction of the runs of equal keys
    "sort_reduce_by_key": _Variant("hist_bin_keys", "sort", _TEXTBOOK_BLOCK),
}
assert VARIANTS == tuple(_VARIANTS)

_SOURCE = "histogram/histogram.cu"
_CHANNELS_SOURCE = "histogram/channels.cu"

# ---- dtypes and binners -------------------------------------------------------------------------

#: sample dtypes with kernels: the library's 32/64-bit table plus the 8- and 16-bit integers
_SMALL = tuple(np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16))
_CTYPES = {
    np.dtype(np.int8): "signed char",
    np.dtype(np.uint8): "unsigned char",
    np.dtype(np.int16): "short",
    np.dtype(np.uint16): "unsigned short",
    **_dtypes.CTYPES,
}
SAMPLE_DTYPES = tuple(_CTYPES)
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_WIDE_INTS = tuple(np.dtype(t) for t in (np.int32, np.uint32, np.int64, np.uint64))

#: (kind, extra dtype) binners instantiated per sample dtype (kernels/common/bins.cuh)
_BINNERS = {}
for _t in _SMALL:
    _BINNERS[_t] = (("shift", None), ("lut", None)) + ((("byte", None),) if _t.itemsize == 1
                                                        else ())
for _t in _WIDE_INTS:
    _BINNERS[_t] = (("shift", None), ("even", _F64), ("edges", _t), ("edges", _F64))
_BINNERS[_F32] = (("even", _F32), ("even", _F64), ("edges", _F32), ("edges", _F64))
_BINNERS[_F64] = (("even", _F64), ("edges", _F64))
#: binners of the multi-channel kernel (equal-width bins only)
_CHANNEL_BINNERS = {t: tuple(b for b in bs if b[0] != "edges") for t, bs in _BINNERS.items()}

_ACCS = {"count": "prim::CountAcc", "weight": "prim::WeightAcc"}
_SHARED_SIZE = {"count": 4, "weight": 8}  # bytes of one shared-memory counter
_OUT_DTYPE = {"count": np.dtype(np.int64), "weight": np.dtype(np.float64)}


def _binner_name(dt, kind, extra):
    c = _CTYPES[dt]
    if kind == "byte":
        return f"prim::BinByte<{c}>"
    if kind == "shift":
        return f"prim::BinShift<{c}>"
    if kind == "lut":
        return f"prim::BinLut<{c}>"
    if kind == "even":
        return f"prim::BinEven<{c}, {_CTYPES[extra]}>"
    return f"prim::BinEdges<{c}, {_CTYPES[extra]}>"


def _kernel_name(variant, dt, kind, extra, acc, stages=0):
    spec = _VARIANTS[variant]
    tail = f", {spec.block}, {_vecs(dt)}" if spec.policy else ""
    if variant == "warp_replicated":
        tail += f", {stages}"
    return f"{spec.kernel}<{_CTYPES[dt]}, {_binner_name(dt, kind, extra)}, {_ACCS[acc]}{tail}>"


def _names(variant):
    """The instantiations of ``variant``'s module: every dtype, binner and accumulation, and for
    warp_replicated also the staged count kernels :data:`_STAGES` selects."""
    names = [_kernel_name(variant, dt, kind, extra, acc)
             for dt, binners in _BINNERS.items() for kind, extra in binners for acc in _ACCS]
    if variant == "warp_replicated":
        names += [_kernel_name(variant, dt, kind, extra, "count", s)
                  for dt, binners in _BINNERS.items() for s in sorted(set(_STAGES.get(dt, ())))
                  if s for kind, extra in binners]
    return names


def _staged_check_names():
    """Staged count kernels of warp_replicated for the dtypes :data:`_STAGES` leaves on the
    register walk, with :data:`_STAGED_CHECK` stages: registered so that the NVRTC check compiles
    the staged walk for every architecture whatever _STAGES holds (the library loads none of
    them)."""
    return [_kernel_name("warp_replicated", dt, kind, extra, "count", _STAGED_CHECK)
            for dt, binners in _BINNERS.items() if not _STAGES.get(dt, 0)
            for kind, extra in binners]


def _minmax_acc(dt):
    """dtype of hist_minmax's partials (MinMaxOf<T>): int for small integers and float32 keys."""
    return np.dtype(np.int32) if dt in _SMALL or dt == _F32 else dt


_MINMAX_BLOCK = 256


def _minmax_name(dt):
    return f"hist_minmax<{_CTYPES[dt]}, {_MINMAX_BLOCK}>"


def _minmax_names():
    return [_minmax_name(dt) for dt in SAMPLE_DTYPES]


_CH_BLOCK = 1024


def _channel_name(dt, kind, extra):
    return (f"hist_channels<{_CTYPES[dt]}, {_binner_name(dt, kind, extra)}, {_CH_BLOCK}, "
            f"{_vecs(dt)}>")


def _channel_names():
    return [_channel_name(dt, k, e) for dt, bs in _CHANNEL_BINNERS.items() for k, e in bs]


for _v in VARIANTS:
    _loader.register(_SOURCE, _names(_v))
_loader.register(_SOURCE, _staged_check_names())
_loader.register(_SOURCE, _minmax_names())
_loader.register(_CHANNELS_SOURCE, _channel_names())


def _kernel(variant, dt, kind, extra, acc, stages=0):
    # one module per variant: a test or tour touching one variant compiles only that one
    return _loader.load(_SOURCE, _names(variant))(
        _kernel_name(variant, dt, kind, extra, acc, stages))


# ---- order-preserving keys: exact thresholds from NumPy's own comparisons -----------------------


def _keys(dt):
    """(to_values, kmin, kmax): an order-preserving bijection between the integers kmin..kmax and
    the non-NaN values of ``dt`` (floats by their IEEE bits, -0.0 sharing 0.0's key)."""
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return (lambda ks: np.array(ks, dtype=dt)), int(info.min), int(info.max)
    bits = dt.itemsize * 8
    ut = np.dtype(f"u{dt.itemsize}")
    sign = 1 << (bits - 1)
    inf = (0xFF << 23) if bits == 32 else (0x7FF << 52)

    def to_values(ks):
        raw = [k if k >= 0 else (-k) | sign for k in ks]
        return np.array(raw, dtype=ut).view(dt)

    return to_values, -inf, inf


def _first_true(dt, pred):
    """Smallest non-NaN value v of ``dt`` with ``pred(array of v)`` true, for a predicate that is
    monotone (false, then true) in v; None if it holds nowhere. Evaluates ``pred`` on arrays of
    256 candidates per step, so it costs about log_256 of the value range in NumPy calls."""
    to_values, lo, hi = _keys(dt)
    if not pred(to_values([hi]))[0]:
        return None
    hi_key = hi  # pred(hi_key) is true; find the smallest such key in [lo, hi_key]
    while True:
        span = hi_key - lo
        if span <= 256:
            cands = list(_builtin_range(lo, hi_key + 1))
        else:
            cands = sorted({lo + span * j // 256 for j in _builtin_range(257)})
        ok = pred(to_values(cands))
        j = int(np.argmax(ok))  # ok[-1] is true (cands[-1] == hi_key)
        if span <= 256 or j == 0:
            return to_values([cands[j]])[0]
        lo, hi_key = cands[j - 1] + 1, cands[j]


def _last_true(dt, pred):
    """Largest non-NaN value v of ``dt`` with ``pred`` true, for a predicate true then false."""
    first_false = _first_true(dt, lambda v: ~pred(v))
    if first_false is None:
        to_values, _, hi = _keys(dt)
        return to_values([hi])[0]
    to_values, lo, _ = _keys(dt)
    k = _key_of(dt, first_false)
    return None if k == lo else to_values([k - 1])[0]


def _key_of(dt, v):
    if dt.kind in "iu":
        return int(v)
    bits = np.asarray(v, dtype=dt).view(f"u{dt.itemsize}").item()
    sign = 1 << (dt.itemsize * 8 - 1)
    return bits if bits < sign else -(bits ^ sign)


def _bits(dt, v):
    """The 64-bit pattern of Order<T>::key(v) a kernel decodes (bins.cuh: from_bits): float32 as
    its order key, float64 as its bits, integers in two's complement."""
    if dt == _F64:
        return int(np.asarray(v, dtype=dt).view(np.uint64).item())
    return (_key_of(dt, v) if dt == _F32 else int(v)) & 0xFFFFFFFFFFFFFFFF


@functools.lru_cache(maxsize=1024)
def _thresholds(dt, lo_op, lo_type, lo, hi_op, hi_type, hi):
    """Exact keep-thresholds in ``dt``: (t_lo, t_hi) with ``t_lo <= x <= t_hi`` iff NumPy's
    ``x lo_op lo`` and ``x hi_op hi`` hold for an array x of ``dt`` (None: nothing is kept).
    The types are part of the cache key: a Python float and a NumPy float64 compare differently."""
    ops = {">=": operator.ge, "<=": operator.le, "<": operator.lt}
    t_lo = _first_true(dt, lambda v: ops[lo_op](v, lo))
    t_hi = _last_true(dt, lambda v: ops[hi_op](v, hi))
    if t_lo is None or t_hi is None or _key_of(dt, t_lo) > _key_of(dt, t_hi):
        return None
    return t_lo, t_hi


# ---- binnings: the host side of bins.cuh --------------------------------------------------------


class _Binning:
    """How samples of ``dtype`` map to ``nbins`` bins: a binner kind, its instantiation type and its
    kernel arguments. ``host_bins(values)`` computes the same bins with NumPy (tables, tests)."""

    __slots__ = ("kind", "dtype", "extra", "nbins", "table", "lo", "hi", "first", "scale",
                 "guard", "shift", "empty", "_device")

    def __init__(self, kind, dtype, extra, nbins, table=None, lo=0, hi=0, first=0.0, scale=0.0,
                 guard=1.0, shift=0, empty=False):
        self.kind, self.dtype, self.extra, self.nbins = kind, dtype, extra, nbins
        self.table, self.lo, self.hi = table, lo, hi
        self.first, self.scale, self.guard, self.shift = first, scale, guard, shift
        self.empty = empty
        self._device = {}

    def spec(self, backend, device):
        """The BinSpec record (common/bins.cuh) in device memory, with its table: written once per
        device, then reused by every launch with this binning."""
        rec = self._device.get(device)
        if rec is None:
            xp = backend.xp
            table = xp.asarray(self.table) if self.table is not None else None
            words = np.zeros(7, np.uint64)
            if table is not None:
                words[0] = table.data.ptr if backend.is_cuda else table.ctypes.data
            words[1] = _bits(self.dtype, self.lo)
            words[2] = _bits(self.dtype, self.hi)
            words[3:6] = np.array([self.first, self.scale, self.guard], np.float64).view(np.uint64)
            words[6] = (self.shift & 0xFFFFFFFF) | (self.nbins << 32)
            rec = self._device[device] = (xp.asarray(words), table)
        return rec[0]


def _edge_bins(edges, v):
    """Bin of each value of ``v`` over monotone ``edges`` (same dtype): edges[i] <= v < edges[i+1],
    the last bin closed, -1 outside (and for NaN)."""
    n = edges.size - 1
    idx = np.searchsorted(edges, v, side="right") - 1
    idx = np.where((idx == n) & (v == edges[-1]), n - 1, idx)
    return np.where((idx >= 0) & (idx < n), idx, -1).astype(np.int32)


def _table(dt, bins_of):
    """The lookup table of an 8- or 16-bit dtype: bins_of(all values, ascending)."""
    info = np.iinfo(dt)
    return np.ascontiguousarray(bins_of(np.arange(info.min, info.max + 1).astype(dt)))


def _shift_of(edges, first, last, n, dt):
    """log2 of the bin width when integer samples can be binned by a shift: integral first edge
    representable in ``dt``, a power-of-two integer width, and edges exactly first + i * width."""
    if not (np.isfinite(first) and np.isfinite(last)):
        return None
    f, l_ = float(first), float(last)
    if f != np.floor(f) or l_ != np.floor(l_) or abs(f) >= 2**53 or abs(l_) >= 2**53:
        return None
    info = np.iinfo(dt)
    span = int(l_) - int(f)
    if not (info.min <= int(f) <= info.max) or span % n:
        return None
    width = span // n
    if width < 1 or width & (width - 1):
        return None
    exact = int(f) + width * np.arange(n + 1, dtype=np.float64)
    if not np.array_equal(edges.astype(np.float64), exact):
        return None
    return width.bit_length() - 1


def _guard(edges, n, t_lo, t_hi):
    """Half-width, in bin units, of the band around each edge where the position (x - first) *
    scale may round to the wrong side: 8 eps n (1 + max|edge| / span), at least 4x the error of
    the two roundings of the position and the rounding of the edges to their dtype (the sample is
    then compared with the edges themselves), widened by the gap between the keep-thresholds
    t_lo/t_hi and the outer edges (BinEven<float, float> tests the thresholds only for samples
    inside that band). 1.0 (always compare) when the band covers a bin."""
    e = edges.astype(np.float64)
    span = e[-1] - e[0]
    big = max(abs(e[0]), abs(e[-1]))
    g = 8 * np.finfo(edges.dtype).eps * n * (1 + big / span)
    if edges.dtype == _F32:  # flush-to-zero moves a float32 by less than the smallest normal
        g += 4 * float(np.finfo(np.float32).tiny) * n / span
    with np.errstate(over="ignore", invalid="ignore"):
        gap = max(0.0, (float(t_lo) - e[0]) * n / span, (e[-1] - float(t_hi)) * n / span)
    g += gap
    return 1.0 if not g < 0.5 else float(g)


def _uniform_binning(dt, edges, first, last, n, closed_top=True):
    """Binning of ``dt`` samples into the ``n`` equal-width bins over ``edges`` (dtype E).

    ``closed_top=True`` is numpy.histogram's rule: a sample is kept when NumPy's ``x >= first``
    and ``x <= last`` hold (with the very scalars passed, so Python and NumPy scalars compare as in
    NumPy) and lands in the bin i with edges[i] <= x < edges[i+1] (x converted to E), the last
    bin closed. ``closed_top=False`` is histogram_even's: kept when edges[0] <= x < edges[n].
    """
    e_dt = edges.dtype
    if closed_top:
        th = _thresholds(dt, ">=", type(first), first, "<=", type(last), last)

        def keep(v):
            return (v >= first) & (v <= last)
    else:
        e0, en = e_dt.type(edges[0]), e_dt.type(edges[-1])
        th = _thresholds(dt, ">=", type(e0), e0, "<", type(en), en)

        def keep(v):
            ve = v.astype(e_dt)
            return (ve >= e0) & (ve < en)
    if th is None:
        return _Binning("shift", dt, None, n, empty=True) if dt not in (_F32, _F64) else \
            _Binning("even", dt, e_dt, n, empty=True)
    t_lo, t_hi = th
    if dt.kind in "iu":
        shift = _shift_of(edges, first if closed_top else edges[0],
                          last if closed_top else edges[-1], n, dt)
        if shift is not None and _key_of(dt, t_lo) == int(float(edges[0])):
            info = np.iinfo(dt)
            if dt.itemsize == 1 and shift == 0 and n == 256 and int(t_lo) == info.min:
                return _Binning("byte", dt, None, n)
            return _Binning("shift", dt, None, n, lo=t_lo, hi=t_hi, shift=shift)
        if dt in _SMALL:
            def bins_of(v):
                b = _edge_bins(edges, v.astype(e_dt))
                return np.where(keep(v), b, -1).astype(np.int32)

            return _Binning("lut", dt, None, n, table=_table(dt, bins_of))
    e = edges.astype(np.float64)
    with np.errstate(over="ignore"):
        scale = e_dt.type(n / (e[-1] - e[0]))
    if not np.isfinite(scale):  # a range of subnormals: no position estimate, search the edges
        return _Binning("edges", dt, e_dt, n, table=np.ascontiguousarray(edges))
    return _Binning("even", dt, e_dt, n, table=np.ascontiguousarray(edges), lo=t_lo, hi=t_hi,
                    first=float(edges[0]), scale=float(scale), guard=_guard(edges, n, t_lo, t_hi))


def _edges_binning(dt, edges):
    """Binning over an arbitrary monotone edges array, compared in C = result_type(dt, edges)."""
    c = np.result_type(dt, edges.dtype)
    ec = np.ascontiguousarray(edges.astype(c))
    n = edges.size - 1
    if dt in _SMALL:
        return _Binning("lut", dt, None, n, table=_table(dt, lambda v: _edge_bins(ec, v.astype(c))))
    return _Binning("edges", dt, c, n, table=ec)


# ---- launch plans -------------------------------------------------------------------------------


def replicas_for(nbins, acc="count", info=None):
    """Copies of the histogram warp_replicated keeps per block: 32 (one per lane: no bank
    conflicts) while they take at most 48 KiB; otherwise the largest power of two up to four
    whose tables take at most 16 KiB together (at least one); 0 if one copy does not fit in a
    block's shared memory. Each copy also holds a slot for dropped samples."""
    info = info or _backend.get_backend().device_info()
    if nbins > shared_capacity(acc, info):
        return 0
    if _LANE_COPIES * (nbins + 1) * _SHARED_SIZE[acc] <= _LANE_COPIES_BYTES:
        return _LANE_COPIES
    table = nbins * _SHARED_SIZE[acc]
    r = 1
    while r * 2 <= _MAX_REPLICAS and 2 * r * table <= _REPLICA_BYTES:
        r *= 2
    return r


def shared_capacity(acc="count", info=None):
    """Bins a privatized variant can hold in one block's shared memory on the current device
    (one counter less than fit: warp_replicated keeps a slot for dropped samples)."""
    info = info or _backend.get_backend().device_info()
    return info.shared_per_block_optin // _SHARED_SIZE[acc] - 1


def _stage_offset(counters):
    """Byte offset of warp_replicated's staging slots: after ``counters`` bytes of counters,
    rounded up to 16 (kernels/histogram/histogram.cu)."""
    return -(-counters // 16) * 16


def _stages(dt, acc, counters, info, lane_copies=True):
    """Staging slots per thread warp_replicated's kernel takes for samples of ``dt`` with
    ``counters`` bytes of counters per block (one copy per lane or fewer) on ``info``'s device:
    :data:`_STAGES` for counts, 0 (the register walk) with weights, before sm_80 (no cp.async), or
    when the slots do not fit next to the counters in a block's shared memory. The variant rules
    (:func:`replicas_for`, :func:`shared_capacity`, :func:`auto_variant`) count the counters only:
    the slots are dropped, not the bins."""
    pair = _STAGES.get(dt) if acc == "count" else None
    s = pair[0 if lane_copies else 1] if pair else 0
    if not s:
        return 0
    cc = info.compute_capability
    if cc.isdigit() and int(cc) < 80:
        return 0
    if _stage_offset(counters) + s * _PROD_BLOCK * 16 > info.shared_per_block_optin:
        return 0
    return s


def auto_variant(nbins, dtype=np.float32, weighted=False):
    """The variant ``variant="auto"`` runs for ``nbins`` bins of samples of ``dtype``.

    Rule: ``warp_replicated`` while one copy of the histogram fits in a block's shared memory
    (4-byte counters: 58111 bins on an H100, 8-byte weight sums about half as many), with one
    copy per lane up to 383 bins and up to four copies per block beyond (:func:`replicas_for`);
    ``partial_privatized`` beyond that, with the lowest bins in shared memory.
    The dtype selects the binner and the loads in flight, not the variant. Contention takes no
    decision and no look at the data (which would cost a synchronization): measured on an H100,
    the production kernel runs all-equal and sky-image data faster than uniform data, because the
    hardware merges same-address shared-memory atomics of a warp; per-warp copies and a
    packet-level aggregation (``kernels/common/bins.cuh``: ``add_packet``, off by default) bring
    nothing more there.
    """
    del dtype  # same rule for every sample dtype
    acc = "weight" if weighted else "count"
    return "warp_replicated" if replicas_for(nbins, acc) else "partial_privatized"


_plans = collections.OrderedDict()
_MAX_PLANS = 256

#: the production kernel's last block moves up to this many counters from the plan's accumulator
#: to the result (its finish, see kernels/histogram/histogram.cu); with more bins the result is
#: zeroed by a memset and the blocks add into it directly
_FINISH_MAX_BINS = 4096


@dataclasses.dataclass
class _Plan:
    kernel: object
    grid: int
    block: int
    shared: int
    extra: tuple
    n64: np.int64
    validated: bool = False
    #: production kernel only: its launch record (device memory), and the accumulator and ticket
    #: it points to (zero between launches; None when the result is zeroed by the host instead)
    record: object = None
    acc: object = None
    ticket: object = None
    replicas: int = 0
    #: production kernel only: staging slots per thread (0: the register walk)
    stages: int = 0


def _plan(variant, binning, acc, n, backend, skey):
    """The launch of ``variant`` ("auto" resolved) for ``n`` samples with ``binning``, cached per
    (variant, binner, bins, accumulation, n, device and stream): launches on one stream are
    ordered, so a plan's accumulator and ticket serve every call on its stream."""
    key = (variant, binning.dtype, binning.kind, binning.extra, binning.nbins, acc, n, skey)
    plan = _plans.get(key)
    if plan is None:
        plan = _plans[key] = _new_plan(variant, binning, acc, n, backend)
        if len(_plans) > _MAX_PLANS:
            _plans.popitem(last=False)
    return plan


def _new_plan(variant, binning, acc, n, backend):
    if variant == "auto":
        variant = auto_variant(binning.nbins, binning.dtype, acc == "weight")
    spec = _VARIANTS[variant]
    info = backend.device_info()
    # warp_replicated's instantiation depends on its staging slots: loaded below
    k = (None if spec.shape == "replicated" else
         _kernel(variant, binning.dtype, binning.kind, binning.extra, acc))
    nb, size = binning.nbins, _SHARED_SIZE[acc]
    block, extra, shared = spec.block, (), 0
    per_thread = 16 // binning.dtype.itemsize * _vecs(binning.dtype)  # samples per iteration
    if spec.shape in ("per_sample", "resident_shared"):
        shared = nb * size
        if nb > shared_capacity(acc, info):
            raise ValueError(
                f"histogram: variant {variant!r} keeps all {nb} bins in shared memory "
                f"({shared} bytes); the device allows {info.shared_per_block_optin} per block "
                f"({shared_capacity(acc, info)} bins): use 'partial_privatized' or 'auto'")
    record = acc_arr = ticket = None
    replicas = stages = 0
    if spec.shape == "per_sample":
        grid = _launch.cdiv(n, block)
    elif spec.shape == "resident":
        grid = _launch.cover_grid(n, block, 1, kernel=k)
    elif spec.shape == "resident_shared":
        grid = _launch.cover_grid(n, block, 1, kernel=k, shared_mem=shared)
    elif spec.shape == "replicated":
        r = replicas_for(nb, acc, info)
        if not r:
            raise ValueError(
                f"histogram: variant 'warp_replicated' keeps {nb} bins in shared memory "
                f"({nb * size} bytes); the device allows {info.shared_per_block_optin} per block "
                f"({shared_capacity(acc, info)} bins): use 'partial_privatized' or 'auto'")
        shared = r * (nb + 1) * size  # >= 16 bytes: the finish's scratch
        stages = _stages(binning.dtype, acc, shared, info, r == _LANE_COPIES)
        if stages:  # the staging slots after the counters
            shared = _stage_offset(shared) + stages * block * 16
        k = _kernel(variant, binning.dtype, binning.kind, binning.extra, acc, stages)
        grid = _launch.cover_grid(n, block, per_thread, kernel=k, shared_mem=shared,
                                  per_sm=_PROD_PER_SM)
        if nb <= _FINISH_MAX_BINS:
            acc_arr = backend.xp.zeros(nb, dtype=_OUT_DTYPE[acc])
            ticket = backend.xp.zeros(1, dtype=np.uint32)
        record = _launch_record(backend, n, r, acc_arr, ticket)
        replicas = r
    elif spec.shape == "partial":
        sb = min(nb, shared_capacity(acc, info))
        shared = sb * size
        extra = (np.int32(sb),)
        grid = _launch.cover_grid(n, block, per_thread, kernel=k, shared_mem=shared,
                                  per_sm=_PROD_PER_SM)
    else:  # vectorized
        grid = _launch.cover_grid(n, block, per_thread, kernel=k, per_sm=_PROD_PER_SM)
    # 32-bit shared counters: a block counts fewer than 2^32 samples
    grid = max(grid, _launch.cdiv(n, 2**31))
    return _Plan(k, grid, block, shared, extra, _launch.i64(n), record=record, acc=acc_arr,
                 ticket=ticket, replicas=replicas, stages=stages)


def _ptr(arr, backend):
    return arr.data.ptr if backend.is_cuda else arr.ctypes.data


def _launch_record(backend, n, replicas, acc, ticket, edges=None, extent=None):
    """The HistLaunch record (kernels/histogram/histogram.cu) in device memory: the number of
    samples, histogram copies per block, packet aggregation (:data:`_AGGREGATE`), the
    accumulator and ticket of a plan (or None: the blocks add into a zeroed result), the device edges the last block copies (or None),
    and the host-visible int64 pair the first and last non-zero bin go to (or None)."""
    words = np.zeros(7, np.uint64)
    if acc is not None:
        words[0], words[1] = _ptr(acc, backend), _ptr(ticket, backend)
    if edges is not None:
        words[2], words[3] = _ptr(edges, backend), edges.nbytes // 4
    if extent is not None:
        words[4] = extent.ctypes.data  # pinned host memory: the device writes it directly
    words[5] = n
    words[6] = replicas | (int(_AGGREGATE) << 32)
    return backend.xp.asarray(words)


def _count(arr, binning, weights, variant, backend, plan_out=None):
    """Histogram of the contiguous 1-D device array ``arr`` (dtype ``binning.dtype``) into a new
    array: int64 counts, or float64 sums of ``weights`` (float64, same length). ``plan_out``: a
    list that receives the plan used (none for empty work)."""
    acc = "count" if weights is None else "weight"
    xp = backend.xp
    n = arr.size
    if n == 0 or binning.empty:
        return xp.zeros(binning.nbins, dtype=_OUT_DTYPE[acc])
    if variant == "sort_reduce_by_key":
        return _sort_reduce(arr, binning, weights, backend)
    skey = backend.stream_key()
    plan = _plan(variant, binning, acc, n, backend, skey)
    if plan_out is not None:
        plan_out.append(plan)
    if weights is None:
        weights = _launch.stand_in(backend, np.float64, skey[0])
    if plan.acc is not None:  # the last block writes every counter
        out = xp.empty(binning.nbins, dtype=_OUT_DTYPE[acc])
    else:
        out = xp.zeros(binning.nbins, dtype=_OUT_DTYPE[acc])
    if plan.record is None:
        args = (arr, plan.n64, weights, binning.spec(backend, skey[0]), *plan.extra, out)
    else:  # the production kernel: n in the record
        args = (arr, weights, binning.spec(backend, skey[0]), plan.record, out, out)
    if plan.validated:
        plan.kernel((plan.grid,), (plan.block,), args, shared_mem=plan.shared)
    else:
        _launch.launch(plan.kernel, plan.grid, plan.block, args, shared_mem=plan.shared)
        plan.validated = True
    return out


def _sort_reduce(arr, binning, weights, backend):
    """``sort_reduce_by_key``: each sample's bin as a 32-bit key (``nbins`` for a dropped sample),
    a stable radix sort of the keys (with the weights alongside) over the bits that ``nbins``
    needs, the first position of every run of equal keys (compaction of the run heads), and per
    run its length (counts) or the segmented sum of its weights. Each bin is written once, by a
    scatter: no atomics on the output."""
    from . import compaction, segmented, sorting

    xp = backend.xp
    n, nb = arr.size, binning.nbins
    acc = "count" if weights is None else "weight"
    k = _kernel("sort_reduce_by_key", binning.dtype, binning.kind, binning.extra, acc)
    keys = xp.empty(n, dtype=np.uint32)
    grid = _launch.cover_grid(n, _TEXTBOOK_BLOCK, 4, kernel=k)
    spec = binning.spec(backend, backend.stream_key()[0])
    _launch.launch(k, grid, _TEXTBOOK_BLOCK, (arr, _launch.i64(n), spec, keys))
    end_bit = int(nb).bit_length()  # keys lie in [0, nb]
    if weights is None:
        keys = sorting.radix_sort(keys, end_bit=end_bit)
    else:
        keys, weights = sorting.radix_sort(keys, weights, end_bit=end_bit)
    heads = xp.empty(n, dtype=np.bool_)
    heads[0] = True
    xp.not_equal(keys[1:], keys[:-1], out=heads[1:])
    bounds = xp.concatenate([compaction.compact_indices(heads),
                             xp.full(1, n, dtype=np.int64)])
    run_keys = keys[bounds[:-1]]
    if weights is None:
        per_run = xp.diff(bounds)
    else:
        per_run = segmented.segmented_reduce(weights, bounds, check=False)
    out = xp.zeros(nb, dtype=_OUT_DTYPE[acc])
    kept = run_keys < nb  # the run of dropped samples, if any, is the last
    out[run_keys[kept]] = per_run[kept]
    return out


# ---- repeated calls: one cached launch per argument set ------------------------------------------

class _Fast:
    """A repeated call of :func:`histogram`, :func:`histogram_even` or :func:`bincount` with the
    same arguments but the samples: the production launch with every argument prepared (its
    launch record copies the edges, or reports the extent). A call takes result arrays allocated
    by the call before (after its launch, while the GPU works), so before its launch the host
    does no more than the key lookup. Made after a first call took the checked path with the same
    key (:func:`_lookup`)."""

    __slots__ = ("fn", "grid", "block", "shared", "head", "nbins", "out_dt", "empty",
                 "edges", "edges_dt", "extent", "keep", "spares")

    def __init__(self, plan, binning, backend, edges=None, extent=False):
        dev = backend.stream_key()[0]
        xp = backend.xp
        dedges = None if edges is None else xp.array(edges)
        self.extent = None
        if extent:
            if backend.is_cuda:
                import cupyx

                self.extent = cupyx.empty_pinned(3, dtype=np.int64)
            else:
                self.extent = np.empty(3, dtype=np.int64)
        record = _launch_record(backend, int(plan.n64), plan.replicas, plan.acc, plan.ticket,
                                dedges, self.extent)
        self.fn = plan.kernel._fn
        self.grid, self.block, self.shared = (plan.grid,), (plan.block,), plan.shared
        self.head = (_launch.stand_in(backend, np.float64, dev), binning.spec(backend, dev),
                     record)
        self.nbins, self.out_dt, self.empty = (binning.nbins,), _OUT_DTYPE["count"], xp.ndarray
        self.edges = None if edges is None else (edges.size,)
        self.edges_dt = None if edges is None else edges.dtype
        self.keep = (plan, dedges)  # the record points into these
        self.spares = [self._new()]

    def extent_of(self, a, backend):
        """(first, last non-zero bin, counts) of ``a``: the kernel writes the pair to pinned host
        memory, then sets a flag, which the host polls (the counts need no wait: later work on
        the stream runs after the kernel); a synchronization after a while (a long or failed
        launch) ends the wait."""
        ext = self.extent
        ext[2] = 0
        out = self.launch(a)[0]
        spins = 0
        while not ext[2]:
            spins += 1
            if spins > _SPINS:
                backend.synchronize()  # raises for a failed launch
                if not ext[2]:
                    raise RuntimeError("bincount: the kernel did not report its extent")
        return int(ext[0]), int(ext[1]), out

    def _new(self):
        out = self.empty(self.nbins, self.out_dt)
        return out, (out if self.edges is None else self.empty(self.edges, self.edges_dt))

    def launch(self, a):
        """Counts of ``a`` (and the edges, when the call returns them): new arrays each call."""
        try:
            out, eo = self.spares.pop()  # atomic: a result goes to one caller only
        except IndexError:  # another thread took it
            out, eo = self._new()
        self.fn(self.grid, self.block, (a,) + self.head + (out, eo), shared_mem=self.shared)
        if not self.spares:
            self.spares.append(self._new())
        return out, eo


_fast = collections.OrderedDict()
_MAX_FAST = 256
_extent_lock = threading.Lock()
_SPINS = 20000  # polls of the extent flag (~0.1 us each) before the host synchronizes instead


def _lookup(backend, a, parts):
    """(key, cached call) of a call on samples ``a`` with the other arguments ``parts``. The key
    holds each argument with its type (``0 == 0.0``, but NumPy treats them apart); it is None when
    there is no fast path: ``a`` is not an array of the backend (CuPy on the GPU) or an argument
    is unhashable. The cached call is None on a miss, or when ``a`` is not C-contiguous."""
    if type(a) is not backend.xp.ndarray:
        return None, None
    key = (a.dtype, a.shape, backend.stream_key(), parts, tuple(map(type, parts)))
    try:
        fast = _fast.get(key)
    except TypeError:  # an unhashable argument
        return None, None
    if fast is not None and not a.flags.c_contiguous:
        fast = None
    return key, fast


def _fast_put(key, fast):
    _fast[key] = fast
    if len(_fast) > _MAX_FAST:
        _fast.popitem(last=False)


def _eligible(key, plans, arr, a):
    """Whether a checked call may be replayed by a :class:`_Fast`: it had a key and launched the
    production kernel with an accumulator on the caller's own memory (no conversion or copy)."""
    if key is None or not plans or plans[0].acc is None:
        return False
    if arr.size != a.size or arr.itemsize != a.itemsize:
        return False
    if hasattr(a.data, "ptr"):  # CuPy
        return arr.data.ptr == a.data.ptr
    return arr.__array_interface__["data"][0] == a.__array_interface__["data"][0]


def _minmax(arr, backend):
    """(min, max) of the non-empty device array ``arr`` as NumPy scalars of its dtype (NaN
    propagates). Synchronizes: the partials come back to the host."""
    dt = arr.dtype
    k = _loader.load(_SOURCE, _minmax_names())(_minmax_name(dt))
    grid = _launch.cover_grid(arr.size, _MINMAX_BLOCK, 16 // dt.itemsize * 2, kernel=k)
    partials = backend.xp.empty(2 * grid, dtype=_minmax_acc(dt))
    _launch.launch(k, grid, _MINMAX_BLOCK, (arr, _launch.i64(arr.size), partials))
    host = partials.get() if backend.is_cuda else partials
    lo, hi = np.min(host[0::2]), np.max(host[1::2])
    if dt == _F32:  # order keys; beyond the infinities' keys is NaN
        inf = _key_of(_F32, np.float32(np.inf))
        if lo < -inf or hi > inf:
            return _F32.type(np.nan), _F32.type(np.nan)
        to_values = _keys(_F32)[0]
        return to_values([int(lo)])[0], to_values([int(hi)])[0]
    return dt.type(lo), dt.type(hi)


# ---- argument checks ----------------------------------------------------------------------------


def _check_variant(func, variant):
    if variant != "auto" and variant not in _VARIANTS:
        raise ValueError(f"{func}: variant must be 'auto' or one of {VARIANTS}, got "
                         f"{variant!r}")


def _precheck(func, x, arg, kinds="biuf"):
    """TypeError for a non-numeric dtype before the input moves to the device (CuPy has no string
    or object arrays to move it into)."""
    dt = getattr(x, "dtype", None)
    if dt is None and isinstance(x, (list, tuple)):
        try:
            dt = np.asarray(x).dtype
        except Exception:  # ragged or odd: as_input reports it
            return
    if dt is not None and not isinstance(dt, type) and getattr(dt, "kind", "f") not in kinds:
        raise TypeError(f"{func}: {arg} has dtype {np.dtype(dt).name}; supported dtypes are "
                        f"bool, {_dtypes.names(SAMPLE_DTYPES)}")


def _samples(func, arr, arg="a"):
    """The sample dtype a kernel takes: bool becomes uint8 with NumPy's warning."""
    if arr.dtype == np.bool_:
        warnings.warn(f"Converting input from {arr.dtype} to {np.uint8} for compatibility.",
                      RuntimeWarning, stacklevel=3)
        return arr.astype(np.uint8)
    if arr.dtype not in _CTYPES:
        raise TypeError(f"{func}: {arg} has dtype {arr.dtype.name}; supported dtypes are "
                        f"bool, {_dtypes.names(SAMPLE_DTYPES)}")
    return arr


def _outer_edges(func, arr, range, backend):
    """numpy.histogram's first and last edge, with its errors (range checks, autodetection)."""
    if range is not None:
        first, last = range
        if first > last:
            raise ValueError(f"{func}: max must be larger than min in range parameter.")
        if not (_finite(first) and _finite(last)):
            raise ValueError(f"{func}: supplied range of [{first}, {last}] is not finite")
    elif arr.size == 0:
        first, last = 0, 1
    else:
        first, last = _minmax(arr, backend)
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"{func}: autodetected range of [{first}, {last}] is not finite")
    if first == last:
        first = first - 0.5
        last = last + 0.5
    return first, last


def _finite(v):
    try:
        return math.isfinite(v)
    except (TypeError, OverflowError):  # huge Python ints, odd scalars: NumPy's answer
        return bool(np.isfinite(v))


def _nbins(func, bins):
    try:
        n = operator.index(bins)
    except TypeError as exc:
        raise TypeError(f"{func}: `bins` must be an integer, a string, or an array") from exc
    if n < 1:
        raise ValueError(f"{func}: `bins` must be positive, when an integer")
    if n > 2**31 - 1:
        raise ValueError(f"{func}: at most 2**31 - 1 bins are supported, got {n}")
    return n


@functools.lru_cache(maxsize=256)
def _even_edges(func, first_type, first, last_type, last, n, dt):
    """NumPy's equal-width edges (linspace in the bin type) and the binning of ``dt`` samples."""
    bin_type = np.result_type(first, last, dt)
    if np.issubdtype(bin_type, np.integer):
        bin_type = np.result_type(bin_type, float)
    if bin_type not in (_F32, _F64):
        raise TypeError(f"{func}: bin edges of dtype {bin_type.name} are not supported "
                        f"(float32 or float64)")
    edges = np.linspace(first, last, n + 1, endpoint=True, dtype=bin_type)
    if np.any(edges[:-1] >= edges[1:]):
        raise ValueError(f"{func}: Too many bins for data range. Cannot create {n} "
                         f"finite-sized bins.")
    edges.flags.writeable = False
    return edges, _uniform_binning(dt, edges, first, last, n), dt


def _uniform(func, dt, first, last, n):
    """(edges, binning, sample dtype) of int ``bins`` over [first, last], cached per scalars."""
    return _even_edges(func, type(first), first, type(last), last, n, dt)


def _array_edges(func, bins):
    edges = _backend.to_host(bins)
    if edges.ndim != 1:
        raise ValueError(f"{func}: `bins` must be 1d, when an array")
    if edges.dtype.kind not in "iuf":
        raise TypeError(f"{func}: `bins` has dtype {edges.dtype.name}; bin edges must be "
                        f"integers or floats")
    if edges.size < 2:
        raise ValueError(f"{func}: `bins` must hold at least two edges, got {edges.size}")
    if np.any(edges[:-1] > edges[1:]):
        raise ValueError(f"{func}: `bins` must increase monotonically, when an array")
    if edges.dtype.kind == "f" and np.isnan(edges).any():
        raise ValueError(f"{func}: `bins` must not contain NaN")
    return edges


def _edges_plan(dt, edges):
    """(binning, sample dtype) for an edges array; samples are converted when no kernel takes the
    pair (e.g. int32 samples against int64 edges compare as int64)."""
    c = np.result_type(dt, edges.dtype)
    if dt in _SMALL or ("edges", c) in _BINNERS.get(dt, ()):
        return _edges_binning(dt, edges), dt
    if c not in _BINNERS or ("edges", c) not in _BINNERS[c]:
        raise TypeError(f"histogram: samples of dtype {dt.name} against edges of dtype "
                        f"{edges.dtype.name} compare as {c.name}, which is not supported")
    return _edges_binning(c, edges), c


def _as_weights(func, weights, a_shape):
    dt = getattr(weights, "dtype", None)
    if dt is not None and np.dtype(dt).kind not in "iuf":
        raise TypeError(f"{func}: weights has dtype {np.dtype(dt).name}; supported dtypes are "
                        f"{_dtypes.names()}")
    winp = _checks.as_input(weights, func=func, arg="weights")
    w = winp.array
    if tuple(w.shape) != tuple(a_shape):
        raise ValueError(f"{func}: weights should have the same shape as a.")
    if w.dtype not in _dtypes.NUMERIC:
        raise TypeError(f"{func}: weights has dtype {w.dtype.name}; supported dtypes are "
                        f"{_dtypes.names()}")
    return w


# ---- public API ---------------------------------------------------------------------------------


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
    func = "histogram"
    key = None
    if weights is None and (density is False or density is None) and type(range) in (tuple, list) \
            and len(range) == 2:
        key, fast = _lookup(_backend.get_backend(), a, (func, variant, bins, range[0], range[1]))
        if fast is not None:
            return fast.launch(a)
    _check_variant(func, variant)
    _precheck(func, a, "a")
    inp = _checks.as_input(a, func=func, arg="a")
    backend = inp.backend
    xp = backend.xp
    w = _as_weights(func, weights, inp.array.shape) if weights is not None else None
    arr = inp.array
    arr = _samples(func, arr if arr.ndim == 1 else arr.reshape(-1))
    dt = arr.dtype

    plans = None
    if isinstance(bins, str):
        host = _backend.to_host(arr)
        hw = None if w is None else _backend.to_host(w).reshape(-1)
        try:
            est = np.histogram_bin_edges(host, bins, range, hw)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{func}: {exc}") from exc
        edges, (binning, kdt) = est, _edges_plan(dt, est)
    elif isinstance(bins, int) or np.ndim(bins) == 0:
        n = _nbins(func, bins)
        first, last = _outer_edges(func, arr, range, backend)
        edges, binning, kdt = _uniform(func, dt, first, last, n)
        plans = [] if key is not None and kdt == dt else None  # edges fixed by the arguments
    elif np.ndim(bins) == 1:
        edges = _array_edges(func, bins)
        binning, kdt = _edges_plan(dt, edges)
    else:
        raise ValueError(f"{func}: `bins` must be 1d, when an array")

    if kdt != dt:
        arr = arr.astype(kdt)
    wdev = None
    if w is not None:
        wdev = w.reshape(-1)
        if wdev.dtype != np.float64:
            wdev = wdev.astype(np.float64)
        wdev = xp.ascontiguousarray(wdev)
    hist = _count(arr, binning, wdev, variant, backend, plans)
    if plans is not None and _eligible(key, plans, arr, a):
        _fast_put(key, _Fast(plans[0], binning, backend, edges=edges))
    if w is not None and w.dtype != np.float64:
        hist = hist.astype(w.dtype)
    edges_out = _device_edges(edges, backend).copy() if backend.is_cuda else np.array(edges)
    if density:
        db = xp.diff(edges_out).astype(float)
        hist = hist / db / hist.sum()
    return inp.result(hist), inp.result(edges_out)


_edges_dev = collections.OrderedDict()


def _device_edges(edges, backend):
    """A device copy of host ``edges``, kept for the read-only edges of the cached int-``bins``
    binnings (one transfer per range, not per call)."""
    if edges.flags.writeable:  # edges the caller passed or an estimator made: not cached
        return backend.xp.asarray(edges)
    key = (id(edges), backend.stream_key()[0])
    hit = _edges_dev.get(key)
    if hit is None or hit[0] is not edges:
        hit = _edges_dev[key] = (edges, backend.xp.asarray(edges))
        if len(_edges_dev) > 256:
            _edges_dev.popitem(last=False)
    return hit[1]


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
    func = "histogram_even"
    key, fast = _lookup(_backend.get_backend(), a, (func, variant, bins, lower, upper))
    if fast is not None:
        return fast.launch(a)[0]
    _check_variant(func, variant)
    _precheck(func, a, "a")
    inp = _checks.as_input(a, func=func, arg="a")
    arr = inp.array
    arr = _samples(func, arr if arr.ndim == 1 else arr.reshape(-1))
    n = _nbins(func, bins)
    try:
        lo, hi = float(lower), float(upper)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{func}: lower and upper must be numbers, got {lower!r}, {upper!r}") \
            from exc
    if not (np.isfinite(lo) and np.isfinite(hi)) or not lo < hi:
        raise ValueError(f"{func}: need finite lower < upper, got lower={lower!r}, "
                         f"upper={upper!r}")
    binning, kdt = _even_binning(func, arr.dtype, lo, hi, n)
    if kdt != arr.dtype:
        arr = arr.astype(kdt)
    plans = []
    out = _count(arr, binning, None, variant, inp.backend, plans)
    if _eligible(key, plans, arr, a):
        _fast_put(key, _Fast(plans[0], binning, inp.backend))
    return inp.result(out)


@functools.lru_cache(maxsize=256)
def _even_binning(func, dt, lo, hi, n):
    e_dt = _F32 if dt == _F32 else _F64
    edges = np.linspace(lo, hi, n + 1, dtype=e_dt)
    if np.any(edges[:-1] >= edges[1:]):
        raise ValueError(f"{func}: too many bins for the range: cannot create {n} bins of "
                         f"positive width in {e_dt.name}")
    return _uniform_binning(dt, edges, None, None, n, closed_top=False), dt


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
        backend = _backend.get_backend()
        key, fast = _lookup(backend, x, (func, variant, minlength))
        if fast is not None:
            with _extent_lock:  # one call at a time uses the record's extent
                first, last, out = fast.extent_of(x, backend)
            return _byte_result(func, out, first, last, x.dtype, minlength, backend.xp)
    _check_variant(func, variant)
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
    backend, xp = inp.backend, inp.backend.xp
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
        wdev = xp.ascontiguousarray(w.astype(np.float64, copy=False))
    out_dt = _OUT_DTYPE["weight" if wdev is not None else "count"]
    if arr.size == 0:
        return inp.result(xp.zeros(minlength, dtype=out_dt))
    dt = arr.dtype
    if dt.itemsize == 1:  # every value counted in one pass; the counts say the length
        binning = _byte_binning(dt)
        plans = []
        full = _count(arr, binning, wdev, variant, backend, plans)
        present = _nonzero_counts(arr, binning, variant, backend) if wdev is not None else full
        host = present.get() if backend.is_cuda else present
        nz = np.flatnonzero(host)
        out = _byte_result(func, full, int(nz[0]) if nz.size else -1,
                           int(nz[-1]) if nz.size else -1, dt, minlength, xp)
        if wdev is None and _eligible(key, plans, arr, x):
            _fast_put(key, _Fast(plans[0], binning, backend, extent=True))
        return inp.result(out)
    lo, hi = _minmax(arr, backend)
    if lo < 0 or int(hi) >= 2**63:  # NumPy casts uint64 to int64: values >= 2^63 turn negative
        raise ValueError(f"{func}: 'list' argument must have no negative elements")
    length = max(int(hi) + 1, minlength)
    if length > 2**31 - 1:
        raise ValueError(f"{func}: x.max() + 1 = {int(hi) + 1} bins are more than this "
                         f"library supports (2**31 - 1)")
    binning = _bincount_binning(dt, 0, int(hi), length)
    return inp.result(_count(arr, binning, wdev, variant, backend))


def _byte_result(func, full, first, last, dt, minlength, xp):
    """bincount's result from the 256 counts ``full`` of an 8-bit dtype ``dt`` (in value order)
    whose first and last non-zero bins are ``first`` and ``last`` (-1: none): NumPy's length,
    a view of ``full`` when it holds the result."""
    origin = 128 if dt == np.int8 else 0
    if 0 <= first < origin:
        raise ValueError(f"{func}: 'list' argument must have no negative elements")
    length = max(last - origin + 1 if last >= 0 else 0, minlength)
    if origin + length <= 256:  # the new counts or a view of them: no copy
        return full if length == 256 else full[origin:origin + length]
    out = xp.zeros(length, dtype=full.dtype)
    out[:256 - origin] = full[origin:]
    return out


def _nonzero_counts(arr, binning, variant, backend):
    return _count(arr, binning, None, variant, backend)


@functools.lru_cache(maxsize=None)
def _byte_binning(dt):
    """All 256 values of an 8-bit dtype, one bin each, in value order."""
    return _Binning("byte", dt, None, 256)


@functools.lru_cache(maxsize=256)
def _bincount_binning(dt, lo, hi, nbins):
    """bin = x - lo for lo <= x <= hi (a shift of 0), over ``nbins`` bins."""
    return _Binning("shift", dt, None, nbins, lo=lo, hi=hi, shift=0)


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
    func = "histogram_channels"
    _precheck(func, image, "image")
    inp = _checks.as_input(image, func=func, arg="image")
    arr = inp.array
    if arr.ndim < 2:
        raise ValueError(f"{func}: image must have a channel axis (ndim >= 2), got shape "
                         f"{tuple(arr.shape)}")
    channels = int(arr.shape[-1])
    if not 1 <= channels <= 64:
        raise ValueError(f"{func}: 1 to 64 channels are supported, got {channels}")
    arr = _samples(func, arr.reshape(-1), arg="image")
    n = _nbins(func, bins)
    if range is None:
        raise ValueError(f"{func}: range must be given (first, last)")
    first, last = _outer_edges(func, arr, range, inp.backend)
    _, binning, kdt = _uniform(func, arr.dtype, first, last, n)
    if kdt != arr.dtype:
        arr = arr.astype(kdt)
    backend = inp.backend
    info = backend.device_info()
    table = channels * n * 4
    if table > info.shared_per_block_optin:
        raise ValueError(f"{func}: {channels} channels x {n} bins of 4-byte counters "
                         f"({table} bytes) do not fit in a block's shared memory "
                         f"({info.shared_per_block_optin} bytes)")
    out = backend.xp.zeros(channels * n, dtype=np.int64)
    if arr.size and not binning.empty:
        name = _channel_name(binning.dtype, binning.kind, binning.extra)
        k = _loader.load(_CHANNELS_SOURCE, _channel_names())(name)
        r = 1
        while r * 2 <= _MAX_REPLICAS and 2 * r * table <= _REPLICA_BYTES:
            r *= 2
        grid = _launch.cover_grid(arr.size, _CH_BLOCK, 16 // arr.dtype.itemsize * _vecs(arr.dtype),
                                  kernel=k, shared_mem=r * table, per_sm=_PROD_PER_SM)
        grid = max(grid, _launch.cdiv(arr.size, 2**31))
        _launch.launch(k, grid, _CH_BLOCK,
                       (arr, _launch.i64(arr.size), np.int32(channels),
                        binning.spec(backend, backend.stream_key()[0]), np.int32(r), out),
                       shared_mem=r * table)
    return inp.result(out.reshape(channels, n))


# ---- the tour -----------------------------------------------------------------------------------


def _sky(n, rng):
    """A real sky image (scikit-image's Hubble deep field, grey levels) tiled to ``n`` uint8
    samples; None when scikit-image is not installed."""
    try:
        from skimage import data
    except ImportError:
        return None
    img = data.hubble_deep_field()
    grey = (img.astype(np.uint16).sum(axis=2) // 3).astype(np.uint8).reshape(-1)
    reps = -(-n // grey.size)
    return np.tile(grey, reps)[:n]


def tour_sections(gpu, log2n=None):
    """Tour workloads: every variant on uint8 samples (256 bins) that are uniform, all equal, and a
    real sky image; float32 in [0, 1) with 256 and 4096 bins; and the peers on the GPU."""
    from . import tour as _tour

    n8 = 1 << (log2n or (28 if gpu else 14))
    nc = 1 << (log2n or (26 if gpu else 13))  # contended data: global atomics serialize
    sections = []

    def section(title, nbytes, make, bins, rng_, variants, peers):
        def contenders():
            xp = _backend.get_backend().xp
            host = make()
            x = xp.asarray(host)
            want = np.histogram(host, bins, rng_)[0]

            def check(got):
                return np.array_equal(_tour.to_host(got), want)

            out = [_tour.Contender(v, (lambda v=v: histogram_even(x, bins, *rng_, variant=v)),
                                   check) for v in variants]
            if gpu:
                out += [_tour.Contender(name, (lambda f=f: f(x)), check) for name, f in peers]
            return out

        sections.append(_tour.Section(title=title, nbytes=nbytes, contenders=contenders,
                                      count=len(variants) + (len(peers) if gpu else 0)))

    def u8_peers(nbins):
        import cupy

        return [("cupy.bincount (peer)", lambda x: cupy.bincount(x, minlength=nbins)),
                ("cupy.histogram (peer)", lambda x: cupy.histogram(x, nbins, (0, nbins))[0])]

    rng = np.random.default_rng(5)
    u8 = lambda n: (lambda: rng.integers(0, 256, n, dtype=np.uint8))  # noqa: E731
    section(f"histogram: uint8 uniform, 256 bins, n = 2^{n8.bit_length() - 1}", n8, u8(n8), 256,
            (0, 256), VARIANTS, u8_peers(256) if gpu else [])
    section(f"histogram: uint8 all equal (contended), 256 bins, n = 2^{nc.bit_length() - 1}", nc,
            lambda: np.full(nc, 77, np.uint8), 256, (0, 256), VARIANTS,
            u8_peers(256) if gpu else [])
    if _sky(1, rng) is not None:
        section(f"histogram: uint8 sky image (Hubble deep field, grey), 256 bins, "
                f"n = 2^{nc.bit_length() - 1}", nc, lambda: _sky(nc, rng), 256, (0, 256),
                VARIANTS, u8_peers(256) if gpu else [])
    for nbins in (256, 4096):
        def f32(n=n8):
            return rng.random(n, dtype=np.float32)

        peers = []
        if gpu:
            import cupy

            peers = [("cupy.histogram (peer)",
                      lambda x, nb=nbins: cupy.histogram(x, nb, (0.0, 1.0))[0])]
        section(f"histogram: float32 uniform in [0, 1), {nbins} bins, "
                f"n = 2^{n8.bit_length() - 1}", 4 * n8, f32, nbins, (0.0, 1.0),
                ("global_atomic_interleaved", "coarsened_interleaved", "aggregated",
                 "warp_replicated", "partial_privatized", "global_vectorized"), peers)
    return sections

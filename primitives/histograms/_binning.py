"""Binnings: how samples find their bins, on the host side of ``kernels/histograms/bins.cuh``.

A :class:`Binning` names a binner (the byte itself, a shift for power-of-two integer widths, a
table for 8- and 16-bit integers, even bins with an edge check, binary search over arbitrary
edges), its instantiation type and its kernel arguments; :func:`spec_words` packs them into the
kernels' ``BinSpec`` record. Every binning computes exactly NumPy's bins: the keep-thresholds of
``range`` come from NumPy's own comparisons (:func:`thresholds`, over order-preserving keys of
the sample dtype), and the even binner checks samples near an edge against NumPy's edges.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from .._core import dtypes as _dtypes
from . import _policy


# ---- dtypes and binners ----------------------------------------------------------------------

#: sample dtypes with kernels: the library's 32/64-bit table plus the 8- and 16-bit integers
SMALL = tuple(_dtypes.SMALL_CTYPES)
CTYPES = {**_dtypes.SMALL_CTYPES, **_dtypes.CTYPES}
SAMPLE_DTYPES = tuple(CTYPES)
F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
_WIDE_INTS = tuple(np.dtype(t) for t in (np.int32, np.uint32, np.int64, np.uint64))

#: (kind, extra dtype) binners instantiated per sample dtype (kernels/histograms/bins.cuh)
BINNERS = {}
for _t in SMALL:
    BINNERS[_t] = (("shift", None), ("lut", None)) + ((("byte", None),) if _t.itemsize == 1 else ())
for _t in _WIDE_INTS:
    BINNERS[_t] = (("shift", None), ("even", F64), ("edges", _t), ("edges", F64))
BINNERS[F32] = (("even", F32), ("even", F64), ("edges", F32), ("edges", F64))
BINNERS[F64] = (("even", F64), ("edges", F64))
#: binners of the multi-channel kernel (equal-width bins only)
CHANNEL_BINNERS = {t: tuple(b for b in bs if b[0] != "edges") for t, bs in BINNERS.items()}

#: binners hist_dd (histogramdd) is instantiated with, per sample dtype (small integers: a lookup
#: table always)
DD_BINNERS = {t: (("lut", None),) for t in SMALL}
for _t in _WIDE_INTS:
    DD_BINNERS[_t] = (("shift", None), ("even", F64), ("edges", _t), ("edges", F64))
DD_BINNERS[F32] = (("even", F32), ("even", F64), ("edges", F32), ("edges", F64))
DD_BINNERS[F64] = (("even", F64), ("edges", F64))

#: the accumulations (kernels/histograms/bins.cuh): counts, and sums in float64 of float64
#: weights ("weight") or of float32 weights read as they are ("weight_f32": the production
#: variants that take them, _choose.Variant.f32_weights)
ACCS = {
    "count": "prim::CountAcc",
    "weight": "prim::WeightAcc<double>",
    "weight_f32": "prim::WeightAcc<float>",
}
#: the dtype of the weights each weighted accumulation reads
WEIGHT_DTYPE = {"weight": F64, "weight_f32": F32}
#: hist_dd's accumulations, both into the float64 result (kernels/histograms/dd.cu): counts in
#: 32-bit shared counters added into float64 ones (exact), float64 weights summed in float64
DD_ACCS = {"count": "prim::CountF64Acc", "weight": ACCS["weight"]}
SHARED_SIZE = {"count": 4, "weight": 8, "weight_f32": 8}  # bytes of one shared-memory counter
OUT_DTYPE = {"count": np.dtype(np.int64), "weight": F64, "weight_f32": F64}


# ---- order-preserving keys: exact thresholds from NumPy's own comparisons --------------------


def keys(dt):
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
    to_values, lo, hi = keys(dt)
    if not pred(to_values([hi]))[0]:
        return None
    hi_key = hi  # pred(hi_key) is true; find the smallest such key in [lo, hi_key]
    while True:
        span = hi_key - lo
        if span <= 256:
            cands = list(range(lo, hi_key + 1))
        else:
            cands = sorted({lo + span * j // 256 for j in range(257)})
        ok = pred(to_values(cands))
        j = int(np.argmax(ok))  # ok[-1] is true (cands[-1] == hi_key)
        if span <= 256 or j == 0:
            return to_values([cands[j]])[0]
        lo, hi_key = cands[j - 1] + 1, cands[j]


def _last_true(dt, pred):
    """Largest non-NaN value v of ``dt`` with ``pred`` true, for a predicate true then false."""
    first_false = _first_true(dt, lambda v: ~pred(v))
    if first_false is None:
        to_values, _, hi = keys(dt)
        return to_values([hi])[0]
    to_values, lo, _ = keys(dt)
    k = key_of(dt, first_false)
    return None if k == lo else to_values([k - 1])[0]


def key_of(dt, v):
    if dt.kind in "iu":
        return int(v)
    bits = np.asarray(v, dtype=dt).view(f"u{dt.itemsize}").item()
    sign = 1 << (dt.itemsize * 8 - 1)
    return bits if bits < sign else -(bits ^ sign)


def _bits(dt, v):
    """The 64-bit pattern of Order<T>::key(v) a kernel decodes (bins.cuh: from_bits): float32 as
    its order key, float64 as its bits, integers in two's complement."""
    if dt == F64:
        return int(np.asarray(v, dtype=dt).view(np.uint64).item())
    return (key_of(dt, v) if dt == F32 else int(v)) & 0xFFFFFFFFFFFFFFFF


@functools.lru_cache(maxsize=1024)
def thresholds(dt, lo_op, lo_type, lo, hi_op, hi_type, hi):
    """Exact keep-thresholds in ``dt``: (t_lo, t_hi) with ``t_lo <= x <= t_hi`` iff NumPy's
    ``x lo_op lo`` and ``x hi_op hi`` hold for an array x of ``dt`` (None: nothing is kept).
    The types are part of the cache key: a Python float and a NumPy float64 compare differently."""
    ops = {">=": operator.ge, "<=": operator.le, "<": operator.lt}
    t_lo = _first_true(dt, lambda v: ops[lo_op](v, lo))
    t_hi = _last_true(dt, lambda v: ops[hi_op](v, hi))
    if t_lo is None or t_hi is None or key_of(dt, t_lo) > key_of(dt, t_hi):
        return None
    return t_lo, t_hi


# ---- binnings ---------------------------------------------------------------------------------


class Binning:
    """How samples of ``dtype`` map to ``nbins`` bins: a binner kind, its instantiation type
    (``extra``) and its kernel arguments (a host ``table``: a lookup table or the edges; the
    keep-thresholds ``lo``/``hi``; the even binner's ``first``, ``scale`` and ``guard``, and
    ``edge_rule``, how its inner edges can be computed instead of loaded (:func:`edge_formula`);
    the shift). ``empty``: no sample can be kept (the kernels are not launched). Host data only:
    plans put the record and the table in device memory (:func:`spec_words`)."""

    __slots__ = (
        "kind",
        "dtype",
        "extra",
        "nbins",
        "table",
        "lo",
        "hi",
        "first",
        "scale",
        "guard",
        "shift",
        "edge_rule",
        "empty",
    )

    def __init__(
        self,
        kind,
        dtype,
        extra,
        nbins,
        table=None,
        lo=0,
        hi=0,
        first=0.0,
        scale=0.0,
        guard=1.0,
        shift=0,
        edge_rule=(0, 0.0, 0.0),
        empty=False,
    ):
        self.kind, self.dtype, self.extra, self.nbins = kind, dtype, extra, nbins
        self.table, self.lo, self.hi = table, lo, hi
        self.first, self.scale, self.guard, self.shift = first, scale, guard, shift
        self.edge_rule, self.empty = edge_rule, empty


def spec_words(binning, table_ptr):
    """The BinSpec record (kernels/histograms/bins.cuh) of ``binning`` as ten 64-bit words, its
    table at device address ``table_ptr`` (0: none)."""
    words = np.zeros(10, np.uint64)
    words[0] = table_ptr
    words[1] = _bits(binning.dtype, binning.lo)
    words[2] = _bits(binning.dtype, binning.hi)
    words[3:6] = np.array([binning.first, binning.scale, binning.guard], np.float64).view(np.uint64)
    words[6] = (binning.shift & 0xFFFFFFFF) | (binning.nbins << 32)
    mode, start, step = binning.edge_rule
    words[7:9] = np.array([start, step], np.float64).view(np.uint64)
    words[9] = mode
    return words


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


def edge_rules():
    """The production policy's ``f32_edge_band`` (the guard's multiple of eps n (1 + max|edge| /
    span) for float32 edges, :func:`_guard`) and ``f32_edges_computed`` (:func:`edge_formula`)."""
    prod = _policy.production()
    return prod.f32_edge_band, prod.f32_edges_computed


def edge_formula(edges, start, stop):
    """``(mode, start, step)``: how the device recomputes the inner edges ``edges[1:n]`` that
    ``numpy.linspace(start, stop, n + 1)`` made (then cast to ``edges.dtype``), exactly:
    mode 2, float32 arithmetic, ``i * step + start`` rounded to float32 after each operation
    (linspace in float32, from float32 scalars; or float64 edges that float32 reproduces, such
    as [0, 1) in 2^k bins): the cheapest, two float32 operations; mode 1, linspace in float64:
    ``i * step + start`` in float64, rounded once to the edges' dtype; mode 0: neither
    reproduces every inner edge bit for bit (or a float32 value on the way is subnormal, which
    the device's flush-to-zero would change), so the edges are loaded. Each candidate is checked
    against the very edges, so the rule holds whatever linspace's arithmetic is
    (kernels/histograms/bins.cuh: BinEvenF32::edge)."""
    n = edges.size - 1
    if n < 2:
        return 0, 0.0, 0.0
    inner = edges[1:n]
    i = np.arange(1, n, dtype=np.float64)
    tiny = float(np.finfo(np.float32).tiny)

    def normal(a):  # no float32 subnormal (zero is fine)
        a = np.abs(a.astype(np.float64))
        return not bool(np.any((a > 0) & (a < tiny)))

    with np.errstate(all="ignore"):
        try:
            s64, e64 = np.float64(start), np.float64(stop)
            s32, e32 = np.float32(start), np.float32(stop)
        except (TypeError, ValueError, OverflowError):
            return 0, 0.0, 0.0
        step = (e64 - s64) / np.float64(n)
        if n <= 1 << 22:  # e < 2^23: the device makes the float e from its bits
            i32 = i.astype(np.float32)
            for a, d in ((s32, np.float32(e32 - s32) / np.float32(n)), (s32, np.float32(step))):
                if not (np.isfinite(d) and d != 0):
                    continue
                p = i32 * d
                got = p + a
                if np.array_equal(got.astype(edges.dtype), inner) and normal(p) and normal(got):
                    return 2, float(a), float(d)
        if np.isfinite(step) and step != 0:
            got = (i * step + s64).astype(edges.dtype)
            if np.array_equal(got, inner) and (edges.dtype == F64 or normal(got)):
                return 1, float(s64), float(step)
    return 0, 0.0, 0.0


#: the guard's multiple for float64 edges (:func:`_guard`: their bound is about 7)
F64_EDGE_BAND = 8


def _guard(dt, edges, n, t_lo, t_hi, band):
    """Half-width, in bin units, of the band around each edge where the position of a sample of
    ``dt`` may round to the wrong side: B eps n (1 + M / span), M = max|edge| (eps the dtype the
    position is taken in; B = ``band`` for float32 positions, :data:`F64_EDGE_BAND` for float64
    ones), the sample then compared with the edges themselves; widened by the gap between the
    keep-thresholds t_lo/t_hi and the outer edges (the float32 path tests the thresholds only for
    samples inside that band). 1.0 (always compare) when the band covers a bin.

    The bounds (u = eps / 2, the unit roundoff; a sample x is misplaced only within the error of
    its position plus that of an edge's, in bin units). Float32 samples (the device's fma path
    over float32 or float64 edges, kernels/histograms/bins.cuh: BinEvenF32): the position fma(x,
    s, o), with s = n / span rounded to float32 (relative error u), o = -first * s rounded
    (first rounded to float32 and the product: 3u |first| n / span) and the fma's rounding (u n
    in range), is within u n (1 + (|x| + 3 |first|) / span) of (x - first) n / span; each float32
    edge, linspace's float64 value rounded, within u |edge| n / span: in all, with |x|, |edge|
    and |first| at most M, u n (1 + 5M / span) <= 2.5 eps n (1 + M / span), so ``band`` >= 3 (the
    policy's knob starts there).
    Float64 edges (histogram2d's): the edges not rounded (linspace's own roundings far below) but
    first rounded to float32 as well, u n (1 + 4M / span) <= 2 eps n (1 + M / span), inside the
    same ``band``. That holds while first and s are float32 normals (or first is 0), and such
    edges outside that range get 1.0.
    Other samples over float64 edges (the generic path: (x - first) * scale in float64, x
    widened, int64 rounded): x - first, the scale, the product and the widening give up to u n (1
    + 7M / span), and linspace's own roundings (step, i * step, + start) move an edge by up to
    7uM: about 7 eps n (1 + M / span), under the 8 they take."""
    e = edges.astype(np.float64)
    span = e[-1] - e[0]
    big = max(abs(e[0]), abs(e[-1]))
    f32 = np.finfo(np.float32)
    if edges.dtype == F32 or dt == F32:  # float32 positions
        if edges.dtype != F32:  # over float64 edges: first and the scale rounded to float32
            with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
                s = n / span
            tiny, top = float(f32.tiny), float(f32.max)
            if not ((e[0] == 0 or tiny <= abs(e[0]) <= top) and tiny <= abs(s) <= top):
                return 1.0
        g = band * float(f32.eps) * n * (1 + big / span)
        g += 4 * float(f32.tiny) * n / span  # flush-to-zero moves a float32 by less than tiny
    else:
        g = F64_EDGE_BAND * float(np.finfo(np.float64).eps) * n * (1 + big / span)
    with np.errstate(over="ignore", invalid="ignore"):
        gap = max(0.0, (float(t_lo) - e[0]) * n / span, (e[-1] - float(t_hi)) * n / span)
    g += gap
    return 1.0 if not g < 0.5 else float(g)


def uniform_binning(dt, edges, first, last, n, band, closed_top=True, linspace=None):
    """Binning of ``dt`` samples into the ``n`` equal-width bins over ``edges`` (dtype E).

    ``closed_top=True`` is numpy.histogram's rule: a sample is kept when NumPy's ``x >= first``
    and ``x <= last`` hold (with the very scalars passed, so Python and NumPy scalars compare as in
    NumPy) and lands in the bin i with edges[i] <= x < edges[i+1] (x converted to E), the last
    bin closed. ``closed_top=False`` is histogram_even's: kept when edges[0] <= x < edges[n].
    ``band``: the guard's multiple for float32 edges (:func:`_guard`; the production policy's
    ``f32_edge_band``, which every caller passes). ``linspace``: the ``(start, stop)`` that
    ``numpy.linspace`` made the edges from, for the even binner's :func:`edge_formula` (None:
    the edges loaded).
    """
    e_dt = edges.dtype
    if closed_top:
        th = thresholds(dt, ">=", type(first), first, "<=", type(last), last)

        def keep(v):
            return (v >= first) & (v <= last)
    else:
        e0, en = e_dt.type(edges[0]), e_dt.type(edges[-1])
        th = thresholds(dt, ">=", type(e0), e0, "<", type(en), en)

        def keep(v):
            ve = v.astype(e_dt)
            return (ve >= e0) & (ve < en)

    if th is None:
        return (
            Binning("shift", dt, None, n, empty=True)
            if dt not in (F32, F64)
            else Binning("even", dt, e_dt, n, empty=True)
        )
    t_lo, t_hi = th
    if dt.kind in "iu":
        shift = _shift_of(
            edges, first if closed_top else edges[0], last if closed_top else edges[-1], n, dt
        )
        if shift is not None and key_of(dt, t_lo) == int(float(edges[0])):
            info = np.iinfo(dt)
            if dt.itemsize == 1 and shift == 0 and n == 256 and int(t_lo) == info.min:
                return Binning("byte", dt, None, n)
            return Binning("shift", dt, None, n, lo=t_lo, hi=t_hi, shift=shift)
        if dt in SMALL:

            def bins_of(v):
                b = _edge_bins(edges, v.astype(e_dt))
                return np.where(keep(v), b, -1).astype(np.int32)

            return Binning("lut", dt, None, n, table=_table(dt, bins_of))
    e = edges.astype(np.float64)
    with np.errstate(over="ignore"):
        scale = e_dt.type(n / (e[-1] - e[0]))
    if not np.isfinite(scale):  # a range of subnormals: no position estimate, search the edges
        return Binning("edges", dt, e_dt, n, table=np.ascontiguousarray(edges))
    return Binning(
        "even",
        dt,
        e_dt,
        n,
        table=np.ascontiguousarray(edges),
        lo=t_lo,
        hi=t_hi,
        first=float(edges[0]),
        scale=float(scale),
        guard=_guard(dt, edges, n, t_lo, t_hi, band),
        edge_rule=(0, 0.0, 0.0) if linspace is None else edge_formula(edges, *linspace),
    )


def edges_binning(dt, edges):
    """Binning over an arbitrary monotone edges array, compared in C = result_type(dt, edges)."""
    c = np.result_type(dt, edges.dtype)
    ec = np.ascontiguousarray(edges.astype(c))
    n = edges.size - 1
    if dt in SMALL:
        return Binning("lut", dt, None, n, table=_table(dt, lambda v: _edge_bins(ec, v.astype(c))))
    return Binning("edges", dt, c, n, table=ec)


# ---- the binnings of the public functions (cached per argument set) -------------------------


@functools.lru_cache(maxsize=256)
def even_edges(func, first_type, first, last_type, last, n, dt, band, computed):
    """NumPy's equal-width edges (linspace in the bin type) and the binning of ``dt`` samples
    (``band``: the guard's, :func:`_guard`; ``computed``: the inner edges computed where
    :func:`edge_formula` allows)."""
    bin_type = np.result_type(first, last, dt)
    if np.issubdtype(bin_type, np.integer):
        bin_type = np.result_type(bin_type, float)
    if bin_type not in (F32, F64):
        raise TypeError(
            f"{func}: bin edges of dtype {bin_type.name} are not supported (float32 or float64)"
        )
    edges = np.linspace(first, last, n + 1, endpoint=True, dtype=bin_type)
    if np.any(edges[:-1] >= edges[1:]):
        raise ValueError(
            f"{func}: Too many bins for data range. Cannot create {n} finite-sized bins."
        )
    edges.flags.writeable = False
    lin = (first, last) if computed else None
    return edges, uniform_binning(dt, edges, first, last, n, band=band, linspace=lin), dt


def uniform(func, dt, first, last, n):
    """(edges, binning, sample dtype) of int ``bins`` over [first, last], cached per scalars
    and the policy's edge rules."""
    return even_edges(func, type(first), first, type(last), last, n, dt, *edge_rules())


def array_binning(dt, edges):
    """(binning, sample dtype) for an edges array; samples are converted when no kernel takes the
    pair (e.g. int32 samples against int64 edges compare as int64)."""
    c = np.result_type(dt, edges.dtype)
    if dt in SMALL or ("edges", c) in BINNERS.get(dt, ()):
        return edges_binning(dt, edges), dt
    if c not in BINNERS or ("edges", c) not in BINNERS[c]:
        raise TypeError(
            f"histogram: samples of dtype {dt.name} against edges of dtype "
            f"{edges.dtype.name} compare as {c.name}, which is not supported"
        )
    return edges_binning(c, edges), c


def even_binning(func, dt, lo, hi, n):
    """histogram_even's binning: ``n`` bins over linspace(lo, hi) in float32 for float32 samples,
    float64 otherwise, the upper edge open (cached per arguments and the policy's edge rules)."""
    return _even_binning(func, dt, lo, hi, n, *edge_rules())


@functools.lru_cache(maxsize=256)
def _even_binning(func, dt, lo, hi, n, band, computed):
    e_dt = F32 if dt == F32 else F64
    edges = np.linspace(lo, hi, n + 1, dtype=e_dt)
    if np.any(edges[:-1] >= edges[1:]):
        raise ValueError(
            f"{func}: too many bins for the range: cannot create {n} bins of "
            f"positive width in {e_dt.name}"
        )
    lin = (lo, hi) if computed else None
    return uniform_binning(dt, edges, None, None, n, closed_top=False, band=band, linspace=lin), dt


@functools.lru_cache(maxsize=None)
def byte_binning(dt):
    """All 256 values of an 8-bit dtype, one bin each, in value order."""
    return Binning("byte", dt, None, 256)


@functools.lru_cache(maxsize=256)
def bincount_binning(dt, lo, hi, nbins):
    """bin = x - lo for lo <= x <= hi (a shift of 0), over ``nbins`` bins."""
    return Binning("shift", dt, None, nbins, lo=lo, hi=hi, shift=0)


# ---- histogramdd's binnings: one binner type for every dimension -----------------------------

_F16 = np.dtype(np.float16)


@functools.lru_cache(maxsize=256)
def dd_linspace(first_type, first, last_type, last, nb):
    """NumPy's edges of ``nb`` int bins over [first, last] (read-only, cached per scalars)."""
    e = np.linspace(first, last, nb + 1)
    e.flags.writeable = False
    return e


@functools.lru_cache(maxsize=256)
def _dd_uniform(dt, band, computed, *desc):
    """The binning of ``dt`` samples over the edges ``dd_linspace(*desc)`` (cached: one device
    record per range, bin count and edge rules), or None when they are not strictly
    increasing."""
    edges = dd_linspace(*desc)
    if np.any(edges[:-1] >= edges[1:]):
        return None
    if dt in SMALL:
        return edges_binning(dt, edges)
    if edges.dtype == _F16:  # rounded far from equal widths: searched (as float32, exactly)
        return edges_binning(dt, edges.astype(F32))
    e = edges
    lin = (desc[1], desc[3]) if computed else None
    first, last = e.dtype.type(e[0]), e.dtype.type(e[-1])
    return uniform_binning(dt, e, first, last, e.size - 1, band=band, linspace=lin)


def _exact_in(src, c):
    """Every value of ``src`` converts to ``c`` exactly (so comparisons keep their outcome)."""
    if src == c:
        return True
    if c == F64:
        return src.kind == "f" or (src.kind in "biu" and src.itemsize <= 4)
    if c == F32:
        return (src.kind == "f" and src.itemsize <= 4) or (src.kind in "biu" and src.itemsize <= 2)
    return False


def dd_binnings(func, dt, edges, uniform):
    """(binnings of every dimension of one kind and type, cached) for the kernel's sample dtype
    ``dt``, or None when no binner type bins every dimension exactly. ``uniform``: per dimension
    the arguments of :func:`dd_linspace` that made its edges (int bins), or None (an edges
    array)."""
    per, cached = [], True
    for e, u in zip(edges, uniform):
        b = None if u is None else _dd_uniform(dt, *edge_rules(), *u)
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

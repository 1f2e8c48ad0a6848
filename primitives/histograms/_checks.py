"""Argument checks of the histogram family, in NumPy's order and with NumPy's messages after the
function's name."""

from __future__ import annotations

import decimal
import math
import numbers
import operator

import numpy as np

from .._core import backend as _backend, checks as _checks, dtypes as _dtypes, ops as _ops
from ._binning import (
    CTYPES,
    F64,
    SAMPLE_DTYPES,
    array_binning,
    edges_binning,
    even_binning,
    uniform,
)
from ._plans import binning_plan, channels_plan, mapped_minmax, minmax


def as_is(arr, a):
    """Whether the device array ``arr`` is the caller's ``a`` (of the backend's own type) read as
    it is: no conversion or copy, so that a plan may take ``a`` itself."""
    if type(a) is not _backend.get_backend().xp.ndarray:
        return False
    if arr.size != a.size or arr.itemsize != a.itemsize:
        return False
    if hasattr(a.data, "ptr"):  # CuPy
        return arr.data.ptr == a.data.ptr
    return arr.__array_interface__["data"][0] == a.__array_interface__["data"][0]


def _device_like(x):
    """Whether ``x`` is a device array or a DLPack exporter (read by as_input, not NumPy)."""
    return _checks.is_cupy(x) or hasattr(x, "__cuda_array_interface__") or hasattr(x, "__dlpack__")


def prepare(func, x, arg, ok=None, explain=None):
    """``x`` ready for as_input: host data (a NumPy array, a list, anything ``numpy.asarray``
    reads) as a NumPy array (as_input makes its byte order native); device arrays and non-arrays
    as they are.

    A host dtype for which ``ok(dtype)`` is false is a ``TypeError`` naming the function, the
    argument and the dtype, raised before anything moves to the device (CuPy has no string,
    object or datetime arrays, and would read the bytes of another byte order as native ones);
    ``explain(dtype)`` ends its message.
    """
    if isinstance(x, np.ndarray):
        arr = x
    elif _device_like(x) or isinstance(x, (str, bytes, dict, set)) or x is None:
        return x
    else:
        try:
            arr = np.asarray(x)
        except Exception:  # ragged or odd: as_input reports it  # noqa: BLE001
            return x
        if arr.dtype == object and not isinstance(x, (list, tuple)):
            return x  # not an array at all: as_input says so
    dt = arr.dtype
    if ok is None:
        ok = is_sample
    if not ok(dt):
        tail = (
            explain(dt)
            if explain is not None
            else f"supported dtypes are bool, {_dtypes.names(SAMPLE_DTYPES)}"
        )
        raise TypeError(f"{func}: {arg} has dtype {dt}; {tail}")
    return arr  # as_input converts non-native byte order, in its one copy


def is_sample(dt):
    return dt == np.bool_ or (dt.kind in "iuf" and dt.newbyteorder("=") in CTYPES)


def is_histogram_sample(dt):
    """histogram's samples: the kernels' dtypes, float16 and bfloat16 (binned as float32) and
    datetimes."""
    return is_sample(dt) or _dtypes.is_float16(dt.newbyteorder("=")) or is_datetime(dt)


def is_datetime(dt):
    return dt.kind in "mM"


def precheck(func, x, arg):
    """The samples of ``func`` prepared (see :func:`prepare`): the kernels' dtypes only."""
    return prepare(func, x, arg)


def samples(func, arr, arg="a"):
    """The sample dtype a kernel takes: bool becomes uint8 with NumPy's warning."""
    if arr.dtype == np.bool_:
        _checks.warn_caller(
            f"Converting input from {arr.dtype} to {np.uint8} for compatibility.", RuntimeWarning
        )
        return arr.astype(np.uint8)
    if arr.dtype not in CTYPES:
        raise TypeError(
            f"{func}: {arg} has dtype {arr.dtype.name}; supported dtypes are "
            f"bool, {_dtypes.names(SAMPLE_DTYPES)}"
        )
    return arr


def outer_edges(func, arr, range, backend, m=None):  # noqa: A002 - NumPy's keyword
    """numpy.histogram's first and last edge, with its errors (range checks, autodetection: of
    the samples read through the map ``m`` where given)."""
    if range is not None:
        try:  # NumPy's unpacking of it, its errors named
            first, last = range
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{func}: range: {exc}") from exc
        if first > last:
            raise ValueError(f"{func}: max must be larger than min in range parameter.")
        if not (_finite(first) and _finite(last)):
            raise ValueError(f"{func}: supplied range of [{first}, {last}] is not finite")
    elif arr.size == 0:
        first, last = 0, 1
    else:
        first, last = minmax(arr, backend) if m is None else mapped_minmax(arr, m)
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


def nbins(func, bins):
    try:
        n = operator.index(bins)
    except TypeError as exc:
        raise TypeError(f"{func}: `bins` must be an integer, a string, or an array") from exc
    if n < 1:
        raise ValueError(f"{func}: `bins` must be positive, when an integer")
    if n > 2**31 - 1:
        raise ValueError(f"{func}: at most 2**31 - 1 bins are supported, got {n}")
    return n


def array_edges(func, bins):
    """(edges in native byte order, the edges as NumPy returns them: ``numpy.asarray(bins)``;
    an array of another library read as its NumPy array)."""
    given = _checks.host_array(bins, func, "bins")
    edges = given
    if edges.ndim != 1:
        raise ValueError(f"{func}: `bins` must be 1d, when an array")
    if edges.dtype.kind not in "iuf":
        raise TypeError(
            f"{func}: `bins` has dtype {edges.dtype}; bin edges must be integers or floats"
        )
    if not edges.dtype.isnative:
        edges = edges.astype(edges.dtype.newbyteorder("="))
    if edges.size < 2:
        raise ValueError(f"{func}: `bins` must hold at least two edges, got {edges.size}")
    if np.any(edges[:-1] > edges[1:]):
        raise ValueError(f"{func}: `bins` must increase monotonically, when an array")
    if edges.dtype.kind == "f" and np.isnan(edges).any():
        raise ValueError(f"{func}: `bins` must not contain NaN")
    return edges, given


def datetime_keys(func, a, bins):
    """datetime64/timedelta64 samples ``a`` (a native host array) against an edges array, as
    NumPy compares them (in their common dtype, each cast to it safely): (the samples and the
    edges as int64 keys in NumPy's sort order, the edges as NumPy returns them). The key of a
    value is its int64 minus one, wrapped: NaT (the smallest int64) becomes the largest key, as
    NumPy sorts NaT after every date, so NaT samples count only in a last bin that ends at NaT."""
    given = _checks.host_array(bins, func, "bins")
    if given.ndim != 1:
        raise ValueError(f"{func}: `bins` must be 1d, when an array")
    edt = given.dtype
    try:
        common = np.result_type(a.dtype, edt)
    except TypeError:
        common = None
    if (
        common is None
        or common.kind != a.dtype.kind
        or not np.can_cast(edt, common)
        or not np.can_cast(a.dtype, common)
    ):
        raise TypeError(
            f"{func}: samples of dtype {a.dtype} cannot be compared with edges of dtype {edt}"
        )
    if given.size < 2:
        raise ValueError(f"{func}: `bins` must hold at least two edges, got {given.size}")
    if np.any(given[:-1] > given[1:]):
        raise ValueError(f"{func}: `bins` must increase monotonically, when an array")
    one = np.int64(1)
    with np.errstate(over="ignore"):
        edges = given.astype(common).view(np.int64) - one
        if np.any(edges[:-1] > edges[1:]):
            raise ValueError(f"{func}: `bins` must not hold NaT before a date")
        keys = a.astype(common).view(np.int64) - one
    return keys, edges, given


def reraise(func, exc):
    """``exc`` again with the function's name before its message: the same type where it can be
    made from a message alone, else its builtin base (NumPy's ufunc errors take other
    arguments)."""
    msg = f"{func}: {exc}"
    try:
        new = type(exc)(msg)
    except Exception:  # noqa: BLE001
        new = TypeError(msg) if isinstance(exc, TypeError) else ValueError(msg)
    raise new from exc


#: weights of these dtypes are summed in float64 (complex ones: their real and imaginary parts,
#: each in float64) and returned in their own dtype, as NumPy does
WEIGHT_KINDS = "biufc"
_WEIGHTS_SUPPORTED = (
    "supported dtypes are bool, the integers, float16, float32, float64, complex64, complex128 "
    "and object (real numbers)"
)


def as_weights(func, weights, a_shape):
    """histogram's weights in the backend's memory, with the dtype NumPy's result has
    (``weights.dtype`` itself: its byte order, or object) and, for object weights, whether every
    weight is an integer (NumPy's sums are then Python ints)."""
    w = prepare(
        func,
        weights,
        "weights",
        lambda dt: dt.kind in WEIGHT_KINDS + "O",
        lambda dt: _WEIGHTS_SUPPORTED,
    )
    out_dt = integral = None
    if isinstance(w, np.ndarray):
        out_dt = getattr(weights, "dtype", w.dtype)
        if w.dtype == object:
            if w.shape != tuple(a_shape):
                raise ValueError(f"{func}: weights should have the same shape as a.")
            bad = [v for v in w.flat if not isinstance(v, (numbers.Real, decimal.Decimal))]
            if bad:  # NumPy's Python sums fail on these (complex ones aside: see the docs)
                raise TypeError(
                    f"{func}: weights of dtype object must be real numbers, got "
                    f"{type(bad[0]).__name__} {bad[0]!r}"
                )
            integral = all(isinstance(v, numbers.Integral) for v in w.flat)  # bool is one
            w = w.astype(np.float64)
    winp = _checks.as_input(w, func=func, arg="weights")
    w = winp.array
    if tuple(w.shape) != tuple(a_shape):
        raise ValueError(f"{func}: weights should have the same shape as a.")
    if w.dtype.kind not in WEIGHT_KINDS:
        raise TypeError(f"{func}: weights has dtype {w.dtype}; {_WEIGHTS_SUPPORTED}")
    return w, out_dt, integral


def no_bool_weights(func, w):
    """NumPy adds bool weights over an edges array as an int64 cumsum into bool counts, which its
    casting rule refuses: the same ``TypeError``. With no samples it adds nothing, and returns
    its bool zeros (the ``numpy.diff`` of bool cumulative counts)."""
    if w is not None and w.dtype == np.bool_ and w.size:
        raise TypeError(
            f"{func}: Cannot cast ufunc 'add' output from dtype('int64') to "
            f"dtype('bool') with casting rule 'same_kind' (bool weights with an "
            f"edges array, as in NumPy)"
        )


# ---- the arguments of each public function, checked and binned -------------------------------


class Checked:
    """What histogram's checks found: the input, the samples (``arr``, in the kernel's dtype),
    the weights and the dtype of NumPy's result, the binning, the edges and, for int ``bins``,
    their plan (``bplan``); ``given``: an edges array as NumPy returns it; ``dated``: datetime
    samples; ``as_is``: ``arr`` is the caller's ``a`` read as it is."""

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
        "as_is",
    )

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw.get(k))


def map_options(func, m, bins):
    """TypeError naming ``func`` for ``bins`` that cannot be honoured with the map ``m`` (None:
    no map): an estimator's name (NumPy's estimators read every sample on the host, and the map
    is computed by the kernels alone)."""
    if m is not None and isinstance(bins, str):
        raise TypeError(
            f"{func}: {m!r} takes bins as an int or an edges array; bins={bins!r} estimates "
            f"the edges on the host from the samples, which the map transforms on the device only"
        )


def histogram_args(func, a, bins, range, weights, m=None):  # noqa: A002 - NumPy's keyword
    """histogram's checks and binning, in NumPy's order (a :class:`Checked`); ``m``: the map the
    samples are read through (:class:`~.._core.ops.Map`), the bins of its results."""
    map_options(func, m, bins)
    a_in = prepare(
        func,
        a,
        "a",
        is_histogram_sample,
        lambda dt: (
            f"supported dtypes are bool, float16, bfloat16, {_dtypes.names(SAMPLE_DTYPES)}, "
            "datetime64 "
            f"and timedelta64"
        ),
    )
    if isinstance(a_in, np.ndarray) and is_datetime(a_in.dtype):
        _ops.check_map(m, a_in.dtype, None, func, "a")
        return _datetime_args(func, a_in, bins, range, weights)
    inp = _checks.as_input(a_in, func=func, arg="a")
    backend = inp.backend
    _ops.check_map(m, inp.array.dtype, None, func, "a")  # before weights: nothing read yet
    w = out_dt = integral = None
    if weights is not None:
        w, out_dt, integral = as_weights(func, weights, inp.array.shape)
    arr = inp.array
    arr = arr if arr.ndim == 1 else arr.reshape(-1)
    hdt = arr.dtype  # a 16-bit float's: its edges are NumPy's of it
    half = _dtypes.is_float16(hdt)
    if half:  # float16, bfloat16: binned as float32 (exact) against NumPy's edges of the dtype
        arr = arr.astype(np.float32)
    arr = samples(func, arr)
    dt = arr.dtype
    bplan = given = None
    # an array of any kind by its shape (a DLPack producer's NumPy reads as 0-d objects)
    bins_dims = None if isinstance(bins, str) else len(_checks.shape_of(bins))
    if half and bins_dims == 0:
        edges = _half_edges(func, arr, nbins(func, bins), range, backend, hdt)
        if edges.dtype.itemsize > 4:  # a float64 range: NumPy compares in float64 (exact too)
            arr = arr.astype(np.float64)
            dt = arr.dtype
        binning, kdt = array_binning(dt, _edges_in(dt, edges))
    elif isinstance(bins, str):
        host = _backend.to_host(arr)
        if half:  # NumPy estimates the edges of 16-bit float samples in their dtype
            host = host.astype(hdt)
        hw = None if w is None else _backend.to_host(w).reshape(-1)
        try:
            est = np.histogram_bin_edges(host, bins, range, hw)
        except (TypeError, ValueError) as exc:
            reraise(func, exc)
        edges, (binning, kdt) = est, array_binning(dt, est)
    elif bins_dims == 0:
        n = nbins(func, bins)
        first, last = outer_edges(func, arr, range, backend, m)
        if inp.host and np.result_type(first, last, dt).itemsize > 8:  # a longdouble range
            edges = _wide_edges(func, first, last, n, dt)
            binning, kdt = array_binning(dt, _edges_in(dt, edges))
        else:
            edges, binning, kdt = uniform(func, dt, first, last, n)
            bplan = binning_plan(binning, backend, edges)  # edges fixed by the arguments
    elif bins_dims == 1:
        edges, given = array_edges(func, bins)
        binning, kdt = array_binning(dt, edges)
        if m is not None and kdt != dt:  # 32-bit integers against 64-bit integer edges
            binning, kdt = _mapped_edges(dt, edges), dt
        no_bool_weights(func, w)
    else:
        raise ValueError(f"{func}: `bins` must be 1d, when an array")
    if given is not None and out_dt is not None and out_dt != object:  # noqa: E721 - a dtype compared with the object dtype
        out_dt = out_dt.newbyteorder("=")  # NumPy's sums over edges come from a native diff
    same = kdt == dt and as_is(arr, a)
    if kdt != dt:
        arr = arr.astype(kdt)
    return Checked(
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
        as_is=same,
    )


def _mapped_edges(dt, edges):
    """The binning of 32-bit integer samples ``dt``, read through a map, against 64-bit integer
    ``edges``, which NumPy compares as int64 and the kernels without a map take by converting the
    samples first (the map computes in the samples' own dtype, as they are read): compared in
    float64 instead, which orders every 32-bit integer against every int64 or uint64 edge as
    int64 does (those integers are exact in float64, an edge beyond 2^53 stays beyond them)."""
    assert dt.kind in "iu" and dt.itemsize == 4 and edges.dtype.kind in "iu", (dt, edges.dtype)
    return edges_binning(dt, edges.astype(F64))


def _wide_edges(func, first, last, n, dt):
    """NumPy's ``n`` equal-width edges of a longdouble range (host samples of ``dt``): its
    linspace in longdouble, which no device type holds (the samples are binned against
    :func:`_edges_in` of them)."""
    edges = np.linspace(first, last, n + 1, endpoint=True, dtype=np.result_type(first, last, dt))
    if np.any(edges[:-1] >= edges[1:]):
        raise ValueError(
            f"{func}: Too many bins for data range. Cannot create {n} finite-sized bins."
        )
    return edges


def _edges_in(dt, edges):
    """Edges of a wider float dtype (longdouble) as ``dt`` edges that order every value of
    ``dt`` as the wider edges do: each rounded up (``x >= e`` is unchanged for ``dt``'s ``x``),
    the last, closed one (``x <= e``), rounded down."""
    e = edges.astype(dt)
    if edges.dtype.itemsize <= dt.itemsize or not e.size:
        return e
    wide = e.astype(edges.dtype)
    e = np.where(wide < edges, np.nextafter(e, dt.type(np.inf)), e)
    if e[-1].astype(edges.dtype) > edges[-1]:
        e[-1] = np.nextafter(e[-1], dt.type(-np.inf))
    return e


def _half_edges(func, arr, n, range, backend, hdt):  # noqa: A002
    """numpy.histogram's ``n`` equal-width edges for samples of the 16-bit float ``hdt``
    (float16 or bfloat16 edges, its arithmetic), ``arr`` being the samples as float32 (the same
    values): NumPy's own ``histogram_bin_edges`` of an ``hdt`` array holding only the extremes,
    which are all that int ``bins`` depend on; its range checks and errors first."""
    outer_edges(func, arr, range, backend)
    if range is None and arr.size:
        proxy = np.array([float(arr.min()), float(arr.max())], dtype=hdt)
    else:
        proxy = np.empty(0, dtype=hdt)
    try:
        return np.histogram_bin_edges(proxy, n, range)
    except (TypeError, ValueError) as exc:
        reraise(func, exc)


def _datetime_args(func, a, bins, range, weights):  # noqa: A002
    """histogram's checks for datetime64/timedelta64 samples ``a`` (a host array): counted as
    int64 keys against an edges array, as NumPy compares them. NumPy makes equal-width or
    estimated edges with ``numpy.linspace``, which takes no datetimes: those ``bins`` go to
    NumPy itself, for its own error."""
    w = out_dt = integral = None
    if weights is not None:
        w, out_dt, integral = as_weights(func, weights, a.shape)
    if isinstance(bins, str) or not _checks.shape_of(bins):
        try:
            bins = np.histogram_bin_edges(
                a, bins, range, None if weights is None else np.ones(a.shape)
            )
        except Exception as exc:  # noqa: BLE001 - NumPy's exception, under the function's name
            reraise(func, exc)
    elif len(_checks.shape_of(bins)) != 1:
        raise ValueError(f"{func}: `bins` must be 1d, when an array")
    keys, edges, given = datetime_keys(func, a.reshape(-1), bins)
    no_bool_weights(func, w)
    if out_dt is not None and out_dt != object:  # noqa: E721 - a dtype compared with the object dtype
        out_dt = out_dt.newbyteorder("=")
    inp = _checks.as_input(keys, func=func, arg="a")
    binning, kdt = array_binning(keys.dtype, edges)
    return Checked(
        inp=inp,
        arr=inp.array,
        w=w,
        out_dt=out_dt,
        integral=integral,
        binning=binning,
        edges=edges,
        given=given,
        dated=True,
        as_is=False,
    )


def even_args(func, a, bins, lower, upper, m=None):
    """histogram_even's checks and binning: (input, samples in the kernel's dtype, binning,
    whether the samples are the caller's ``a`` read as it is); ``m``: the map the samples are
    read through (None: as they are)."""
    inp = _checks.as_input(precheck(func, a, "a"), func=func, arg="a")
    arr = inp.array
    _ops.check_map(m, arr.dtype, None, func, "a")
    arr = samples(func, arr if arr.ndim == 1 else arr.reshape(-1))
    n = nbins(func, bins)
    try:
        lo, hi = float(lower), float(upper)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{func}: lower and upper must be numbers, got {lower!r}, {upper!r}"
        ) from exc
    if not (np.isfinite(lo) and np.isfinite(hi)) or not lo < hi:
        raise ValueError(f"{func}: need finite lower < upper, got lower={lower!r}, upper={upper!r}")
    binning, kdt = even_binning(func, arr.dtype, lo, hi, n)
    same = kdt == arr.dtype and as_is(arr, a)
    if kdt != arr.dtype:
        arr = arr.astype(kdt)
    return inp, arr, binning, same


def channels_args(func, image, bins, range):  # noqa: A002
    """histogram_channels' checks and binning: (input, samples, its plan, whether the plan takes
    ``image`` itself)."""
    inp = _checks.as_input(precheck(func, image, "image"), func=func, arg="image")
    arr = inp.array
    if arr.ndim < 2:
        raise ValueError(
            f"{func}: image must have a channel axis (ndim >= 2), got shape {tuple(arr.shape)}"
        )
    channels = int(arr.shape[-1])
    if not 1 <= channels <= 64:
        raise ValueError(f"{func}: 1 to 64 channels are supported, got {channels}")
    arr = samples(func, arr.reshape(-1), arg="image")
    n = nbins(func, bins)
    if range is None:
        raise ValueError(f"{func}: range must be given (first, last)")
    first, last = outer_edges(func, arr, range, inp.backend)
    edges, binning, kdt = uniform(func, arr.dtype, first, last, n)
    same = kdt == arr.dtype and as_is(arr, image)
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
    return inp, arr, channels_plan(binning, edges, channels, arr.size, backend), same

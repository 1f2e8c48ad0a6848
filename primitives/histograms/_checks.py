"""Argument checks of the histogram family, in NumPy's order and with NumPy's messages after the
function's name."""

from __future__ import annotations

import decimal
import math
import numbers
import operator
import warnings

import numpy as np

from .._core import backend as _backend, checks as _checks, dtypes as _dtypes
from ._binning import CTYPES, SAMPLE_DTYPES
from ._plans import minmax
from ._variants import VARIANT_TABLE, VARIANTS


def check_variant(func, variant):
    if variant != "auto" and variant not in VARIANT_TABLE:
        raise ValueError(f"{func}: variant must be 'auto' or one of {VARIANTS}, got {variant!r}")


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
    """histogram's samples: the kernels' dtypes, float16 (binned as float32) and datetimes."""
    return is_sample(dt) or dt.newbyteorder("=") == np.float16 or is_datetime(dt)


def is_datetime(dt):
    return dt.kind in "mM"


def precheck(func, x, arg):
    """The samples of ``func`` prepared (see :func:`prepare`): the kernels' dtypes only."""
    return prepare(func, x, arg)


def samples(func, arr, arg="a"):
    """The sample dtype a kernel takes: bool becomes uint8 with NumPy's warning."""
    if arr.dtype == np.bool_:
        warnings.warn(
            f"Converting input from {arr.dtype} to {np.uint8} for compatibility.",
            RuntimeWarning,
            stacklevel=3,
        )
        return arr.astype(np.uint8)
    if arr.dtype not in CTYPES:
        raise TypeError(
            f"{func}: {arg} has dtype {arr.dtype.name}; supported dtypes are "
            f"bool, {_dtypes.names(SAMPLE_DTYPES)}"
        )
    return arr


def outer_edges(func, arr, range, backend):  # noqa: A002 - NumPy's keyword
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
        first, last = minmax(arr, backend)
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
    """(edges in native byte order, the edges as NumPy returns them: ``numpy.asarray(bins)``)."""
    given = _backend.to_host(bins)
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
    given = _backend.to_host(bins)
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


#: weights of these dtypes are summed in float64 and returned in their own dtype, as NumPy does
WEIGHT_KINDS = "biuf"
_WEIGHTS_SUPPORTED = (
    "supported dtypes are bool, the integers, float16, float32, float64 and object (real numbers)"
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


def object_density(hist, db):
    """NumPy's densities of object sums are Python's divisions (``n / db / n.sum()``), where a
    zero-width bin or a zero total raises instead of giving inf or NaN: the same
    ``ZeroDivisionError``."""
    if not bool((db != 0).all()) or not bool(hist.sum() != 0):
        raise ZeroDivisionError("histogram: float division by zero")


def weights_result(hist, wdt):
    """float64 sums ``hist`` in the weights' dtype ``wdt`` (native) as NumPy casts them: narrow
    integers wrap (through int64), bool is "any"."""
    if wdt == np.float64:
        return hist
    if wdt.kind in "iu" and wdt.itemsize < 8:
        return hist.astype(np.int64).astype(wdt)
    return hist.astype(wdt)


def host_weights_result(res, out_dt, integral, density):
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


# ---- bincount ------------------------------------------------------------------------------


def _intp_cast(dt):
    return (
        f"Cannot cast array data from {dt!r} to {np.dtype(np.intp)!r} according to the rule 'safe'"
    )


def bincount_x(func, x):
    """bincount's ``x`` prepared: integer (or bool) host data in native byte order; an empty
    list or tuple is an empty intp array, as NumPy reads it."""
    if isinstance(x, (list, tuple)):
        try:
            arr = np.asarray(x)
        except Exception:  # ragged: as_input reports it  # noqa: BLE001
            return x
        if arr.size == 0:
            return arr.astype(np.intp)
        x = arr
    return prepare(func, x, "x", lambda dt: dt.kind in "biu", _intp_cast)


def minlength(func, m):
    """``minlength`` as NumPy reads it (``PyArray_PyIntAsIntp``): an int, not a bool."""
    if m is None:
        raise TypeError(f"{func}: use 0 instead of None for minlength")
    if isinstance(m, (bool, np.bool_)):
        raise TypeError(f"{func}: an integer is required (minlength={m!r})")
    try:
        n = operator.index(m)
    except TypeError as exc:
        raise TypeError(f"{func}: {exc} (minlength)") from exc
    if not -(2**63) <= n < 2**63:
        raise OverflowError(f"{func}: Python int too large to convert to C long (minlength)")
    if n < 0:
        raise ValueError(f"{func}: 'minlength' must not be negative")
    return n


def bincount_weights(func, weights, n, backend):
    """bincount's weights as float64 in the backend's memory: any dtype that casts safely to
    float64; a list of other numbers (Fractions, ...) converted one by one, as NumPy does."""
    w = weights
    if isinstance(w, (list, tuple)):
        try:
            arr = np.asarray(w)
        except Exception:  # noqa: BLE001
            arr = None
        if arr is not None and arr.dtype == object:
            try:
                w = np.asarray(w, dtype=np.float64)
            except (TypeError, ValueError) as exc:
                reraise(func, exc)
    w = prepare(
        func,
        w,
        "weights",
        lambda dt: dt.kind in "biuf" and np.can_cast(dt, np.float64),
        lambda dt: (
            f"Cannot cast array data from {dt!r} to dtype('float64') according to the rule 'safe'"
        ),
    )
    ndim = w.ndim if hasattr(w, "ndim") else None
    w = _checks.as_input(w, func=func, arg="weights").array
    ndim = w.ndim if ndim is None else ndim
    if not np.can_cast(w.dtype, np.float64):
        raise TypeError(
            f"{func}: Cannot cast array data from {w.dtype!r} to "
            f"dtype('float64') according to the rule 'safe'"
        )
    if ndim != 1:
        raise ValueError(
            f"{func}: weights must be 1-D, got {ndim}-D (NumPy: object "
            f"{'too deep' if ndim > 1 else 'of too small depth'} for desired "
            f"array)"
        )
    if w.shape[0] != n:
        raise ValueError(f"{func}: The weights and list don't have the same length.")
    return backend.xp.ascontiguousarray(w.astype(np.float64, copy=False))

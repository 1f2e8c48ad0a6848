"""Selection's argument checks, in NumPy's order: the variant's name, the input and its dtype, the
axis and the rows along it, ``k`` or ``kth``, the flags. Each error names the public function."""

from __future__ import annotations

import numbers

import numpy as np

from .._core import backend as _backend, checks as _checks, dtypes as _dtypes, keys as _keys
from . import _choose

__all__ = ["DTYPES", "TOPK_DTYPES", "INDEX", "Layout", "topk_args", "partition_args"]

#: the key dtypes: the sort family's, and bool (as uint8) and float16 (as float32)
DTYPES = (
    (np.dtype(np.bool_),) + _keys.KEY_DTYPES[:8] + (np.dtype(np.float16),) + _keys.KEY_DTYPES[8:]
)
_DTYPE_SET = frozenset(DTYPES)
#: topk's: those and bfloat16 (as float32, exact)
TOPK_DTYPES = DTYPES + (_dtypes.BFLOAT16,)
#: the indices' dtype
INDEX = np.dtype(np.int64)


#: the complex dtypes the partitions take too (ordered by their images: NumPy's complex order)
COMPLEX = (np.dtype(np.complex64), np.dtype(np.complex128))


def _check_dtype(dt, func, more=()):
    if _checks.native_dtype(dt) not in _DTYPE_SET.union(more):
        raise TypeError(
            f"{func}: x has dtype {dt.name}; supported dtypes are "
            f"{_dtypes.names(DTYPES + tuple(more))}"
        )


def _input(x, func, more=()):
    """x on the backend (any ndim, a 0-d x still 0-d), its dtype (a key dtype, or one of
    ``more``) checked before the copy to the device."""
    xdt = getattr(x, "dtype", None)
    if isinstance(xdt, np.dtype):
        _check_dtype(xdt, func, more)
    inp = _checks.as_input(x, func=func, arg="x")
    _check_dtype(inp.array.dtype, func, more)
    return inp


def _variant(variant, func):
    return _checks.check_choice(variant, _choose.VARIANTS + ("auto",), func=func, arg="variant")


def _k(k, length, func):
    k = _checks.integer(k, func, "k")
    if not 0 <= k <= length:
        raise ValueError(
            f"{func}: k={k} is out of range for {length} elements along the axis "
            f"(0 <= k <= {length})"
        )
    return k


def _kths(kth, length, func):
    """NumPy's kth: an integer or a 1-D sequence of integers, negative counting from the end."""
    if isinstance(kth, (bool, np.bool_)):
        raise ValueError(f"{func}: booleans are not accepted as a partition index, got {kth!r}")
    arr = np.asarray(kth)
    if arr.ndim > 1:
        raise ValueError(
            f"{func}: kth must be an integer or a 1-D sequence of integers, got {arr.ndim}-D"
        )
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{func}: kth must be an integer or a sequence of integers, got {kth!r}")
    out = []
    for v in arr.reshape(-1).tolist():
        w = v + length if v < 0 else v
        if not 0 <= w < length:
            raise ValueError(f"{func}: kth(={v}) out of bounds ({length})")
        out.append(w)
    return out


class Layout:
    """How an array is read as rows (R, L) along its axis: ``shape`` the array's shape with the
    axis last, ``axis`` where the axis is (normalized), ``flat`` whether the array is read
    flattened first (``axis=None``, or a 0-d array as one row of one element)."""

    __slots__ = ("shape", "axis", "flat", "rows", "length")

    def __init__(self, shape, axis, flat):
        self.shape, self.axis, self.flat = shape, axis, flat
        self.rows = int(np.prod(shape[:-1], dtype=np.int64))
        self.length = shape[-1]


def _layout(arr, axis, func, scalar_row=True):
    """The :class:`Layout` of ``arr`` along ``axis``. A 0-d array is one row of one element
    (``torch.topk``'s and ``numpy.argpartition``'s reading: axis 0 or -1), or, without
    ``scalar_row``, an array with no axis to select along (``numpy.partition``'s: AxisError but
    for ``axis=None``)."""
    if axis is None:
        return Layout((arr.size,), 0, True)
    if arr.ndim == 0:
        # no axis (the shared check's AxisError), or one row of one element
        axis = _checks.axis_index(axis, int(scalar_row), func, "an integer or None", scalar=True)
        return Layout((1,), axis, True)
    axis = _checks.axis_index(axis, arr.ndim, func)
    shape = arr.shape[:axis] + arr.shape[axis + 1 :] + (arr.shape[axis],)
    return Layout(shape, axis, False)


def topk_args(x, k, axis, largest, ordered, variant):
    """topk's arguments checked in NumPy's order: (variant, input, layout, k, largest,
    sorted)."""
    func = "topk"
    variant = _variant(variant, func)
    inp = _input(x, func, (_dtypes.BFLOAT16,))
    lay = _layout(inp.array, axis, func)
    k = _k(k, lay.length, func)
    return (
        variant,
        inp,
        lay,
        k,
        _checks.boolean(largest, func, "largest"),
        _checks.boolean(ordered, func, "sorted"),
    )


def partition_args(a, kth, axis, kind, order, variant, func):
    """argpartition's and partition's arguments checked in NumPy's order: (variant, input,
    layout, kth positions), the positions None for an empty array (whose kth is not read)."""
    variant = _variant(variant, func)
    if kind != "introselect":
        raise ValueError(f"{func}: select kind must be 'introselect' (got {kind!r})")
    if order is not None:
        raise ValueError(f"{func}: cannot specify order when the array has no fields")
    inp = _input(a, func, COMPLEX)
    lay = _layout(inp.array, axis, func, scalar_row=func == "argpartition")
    if lay.rows * lay.length == 0:
        return variant, inp, lay, None
    kths = _kths(kth, lay.length, func)
    if not kths:
        raise TypeError(f"{func}: kth must hold at least one integer")
    return variant, inp, lay, kths


# ---- quantile, percentile, median and their nan-twins -----------------------------------------


def _axis_items(axis):
    """The axes of ``axis`` as given: an integer, or a tuple or list of them (NumPy's
    normalize_axis_tuple takes both)."""
    return tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)


def _axes(axis, ndim, func):
    """NumPy's normalize_axis_tuple of ``axis`` (None: every axis), in increasing order."""
    if axis is None:
        return tuple(range(ndim))
    items = _axis_items(axis)
    out = [
        _checks.axis_index(a, ndim, func, "an integer, a tuple of integers or None", True)
        for a in items
    ]
    if len(set(out)) != len(out):
        raise ValueError(f"{func}: repeated axis in {axis!r}")
    return tuple(sorted(out))


def _real_input(a, func):
    """``a`` on the backend: a real array (complex: NumPy's TypeError), of a key dtype."""
    xdt = getattr(a, "dtype", None)
    if isinstance(xdt, np.dtype) and xdt.kind == "c":
        raise TypeError(f"{func}: a must be an array of real numbers, got dtype {xdt.name}")
    inp = _checks.as_input(a, func=func, arg="a")
    if inp.array.dtype.kind == "c":
        raise TypeError(
            f"{func}: a must be an array of real numbers, got dtype {inp.array.dtype.name}"
        )
    _check_dtype(inp.array.dtype, func)
    return inp


def reduced_shape(shape, axes, keepdims):
    """The shape left after reducing ``axes`` (kept as 1s with ``keepdims``)."""
    if keepdims:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def _device_like(x):
    """Whether ``x`` is a device array or another array exporter that :func:`as_input` reads
    (not NumPy's: its arrays and scalars are read as they are)."""
    if isinstance(x, (np.ndarray, np.generic)):
        return False
    return _checks.is_cupy(x) or hasattr(x, "__cuda_array_interface__") or hasattr(x, "__dlpack__")


def _quantiles(q, func, percent):
    """``q`` as a host array (a device array brought back once: q is small), divided by 100
    for a percentile as NumPy divides it; an object array when q holds Python numbers that are
    no floats (``fractions.Fraction``: NumPy computes with them exactly)."""
    if _device_like(q):
        q = _backend.to_host(_checks.as_input(q, func=func, arg="q").array)
    bad = f"{func}: q must be a number or an array of numbers, got {q!r}"
    try:
        qa = np.asarray(np.true_divide(q, 100) if percent else q)
    except TypeError as exc:
        raise TypeError(bad) from exc
    if qa.dtype == object:
        if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in qa.reshape(-1)):
            raise TypeError(bad)
    elif qa.dtype.kind not in "biuf":
        raise TypeError(bad)
    return qa


def quantile_args(a, q, axis, method, weights, func, percent):
    """quantile's (percentile's with ``percent``) arguments in NumPy's order: (input, q as a
    host array, weak (a Python-number q), axes, method, weights: None or a backend array
    broadcasting against ``a``). q of Python objects (``fractions.Fraction``) is computed with
    on the host, exactly, as NumPy does: host ``a`` only, without weights."""
    from ._quantile import METHODS

    inp = _real_input(a, func)
    weak = type(q) in (int, float)
    qa = _quantiles(q, func, percent)
    if qa.size == 0 or not (np.all(qa >= 0) and np.all(qa <= 1)):
        if qa.size:
            span = "[0, 100]" if percent else "[0, 1]"
            what = "Percentiles" if percent else "Quantiles"
            raise ValueError(f"{func}: {what} must be in the range {span}")
    if weights is not None and method != "inverted_cdf":
        raise ValueError(f"{func}: Only method 'inverted_cdf' supports weights. Got: {method}.")
    if method not in METHODS:
        raise ValueError(f"{func}: {method!r} is not a valid method. Use one of: {METHODS}")
    if qa.ndim > 2:
        raise ValueError(f"{func}: q must be a scalar or 1d")
    if qa.dtype == object and (not inp.host or weights is not None):
        raise TypeError(
            f"{func}: q of Python numbers that are no floats ({type(qa.flat[0]).__name__}) is "
            "computed with on the host: it takes host input a and no weights"
        )
    axes = _axes(axis, inp.array.ndim, func)
    if weights is not None:
        weights = _weights(weights, inp.array, axis, func)
    return inp, qa, weak, axes, method, weights


def _weights(weights, a, axis, func):
    """NumPy's checks of quantile's ``weights`` (_weights_are_valid): ``a``'s shape, or (with
    ``axis``) the shape of ``a`` along the axes as given; non-negative numbers (a read of one
    flag for device weights). The weights on the backend, shaped to broadcast against ``a``."""
    if isinstance(weights, np.ndarray) and weights.dtype == object:
        # Python numbers: NumPy sums them in float64 (its cumsum's dtype), so they are read so
        try:
            weights = weights.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{func}: weights must be real numbers, got dtype object") from exc
    inp = _checks.as_input(weights, func=func, arg="weights")
    w = inp.array
    if w.dtype.kind not in "biuf":
        raise TypeError(f"{func}: weights must be real numbers, got dtype {w.dtype.name}")
    if w.shape != a.shape:
        if axis is None:
            raise TypeError(f"{func}: Axis must be specified when shapes of a and weights differ.")
        given = [
            _checks.axis_index(x, a.ndim, func, "an integer, a tuple of integers or None", True)
            for x in _axis_items(axis)
        ]
        if w.shape != tuple(a.shape[x] for x in given):
            raise ValueError(
                f"{func}: Shape of weights must be consistent with shape of a along specified axis."
            )
        xp = inp.backend.xp
        w = xp.transpose(w, [int(i) for i in np.argsort(given)])
        w = w.reshape(tuple(s if i in given else 1 for i, s in enumerate(a.shape)))
    if bool(inp.backend.xp.any(w < 0)):
        raise ValueError(f"{func}: Weights must be non-negative.")
    return w


def median_args(a, axis, func):
    """median's arguments: (input, axes); complex64 and complex128 taken too (NumPy orders
    them)."""
    xdt = getattr(a, "dtype", None)
    if isinstance(xdt, np.dtype) and xdt.kind == "c":
        inp = _checks.as_input(a, func=func, arg="a")
        if inp.array.dtype not in (np.complex64, np.complex128):
            raise TypeError(f"{func}: unsupported dtype {inp.array.dtype.name}")
    else:
        inp = _real_input(a, func)
    return inp, _axes(axis, inp.array.ndim, func)

"""Input checks and conversion, in CuPy's order: type -> ndim/contiguity -> dtype -> shape -> empty.

Accepted array inputs: CuPy arrays, objects exposing ``__cuda_array_interface__`` or DLPack
(device or host), NumPy arrays and anything ``numpy.asarray`` accepts. :class:`Input` remembers
what the caller passed so that :meth:`Input.result` (and ``kept``, ``scalar``) hands the answer
back in the same kind, for every family alike:

- NumPy in, NumPy out (a NumPy scalar for a one-element result); CuPy in, CuPy out (a 0-d
  array);
- a DLPack producer whose library reads DLPack back (its top-level module has ``from_dlpack``:
  a ``torch.Tensor``, say) gets that library's type, through DLPack (no copy, on the device the
  result lives on: a host tensor gets a host tensor, a CUDA one a CUDA one; a 0-d tensor for a
  one-element result);
- any other ``__cuda_array_interface__`` or device DLPack object gets a CuPy array, any other
  host DLPack object a NumPy one.

Sequences go through ``numpy.asarray``: a ragged one (``[[1, 2], [3]]``) is NumPy's
``ValueError`` ("setting an array element with a sequence ..."), naming the function.
:attr:`Input.strides` keeps the caller's strides, so that a reduction can lay its result out as
NumPy does (the axes in the input's memory order, NumPy's order ``"K"``).

Host arrays of non-native byte order (``'>f8'`` on a little-endian machine) are converted to native
order on the host, in the one copy that makes them contiguous, before anything else sees them:
kernels, CuPy and the plans' call keys only ever meet native dtypes. Results are native, as
NumPy's reductions and scans are; results made of the input's own elements (sorts, selections)
go back to the caller's byte order through :meth:`Input.kept`, as NumPy keeps it there.
"""

from __future__ import annotations

import operator
import os
import sys
import warnings
from collections.abc import Callable, Collection, Sequence
from types import FrameType, ModuleType
from typing import Any, TypeVar

import numpy as np
from numpy.typing import DTypeLike, NDArray

from . import backend as _backend, dtypes as _dtypes
from .backend import Array

__all__ = [
    "Input",
    "as_input",
    "host_array",
    "shape_of",
    "op_input",
    "check_choice",
    "boolean",
    "integer",
]

OPS = ("sum", "min", "max")

_DLPACK_CPU = 1

_T = TypeVar("_T")


class Input:
    """An argument moved to the backend's memory, with how to return results to the caller."""

    __slots__ = ("array", "host", "backend", "order", "strides", "wrap")

    def __init__(
        self,
        array: Array,
        host: bool,
        backend: _backend.Backend,
        order: np.dtype[Any] | None = None,
        strides: tuple[int, ...] | None = None,
        wrap: Callable[[Any], Any] | None = None,
    ) -> None:
        self.array = array
        self.host = host
        self.backend = backend
        #: the caller's dtype when it was of non-native byte order (``array`` holds it native)
        self.order = order
        #: the caller's array's strides in bytes (None: a sequence, read in C order)
        self.strides = strides
        #: the caller's library's ``from_dlpack`` (a torch tensor's), or None (NumPy, CuPy)
        self.wrap = wrap

    def detached(self) -> Input:
        """This input without its array: how results go back to the caller, for a run filed
        for later calls (which must not hold the first call's array)."""
        return Input(None, self.host, self.backend, self.order, None, self.wrap)

    def result(self, arr: Array) -> Array:
        """Return ``arr`` (backend memory) in the kind the caller passed: NumPy, CuPy, or the
        DLPack producer's own type (see the module's docstring)."""
        if self.backend.is_cuda:
            out = _host_copy(arr) if self.host else arr
        elif self.host:
            out = arr
        else:
            out = to_device(arr)  # a device input forced through the emulator goes back there
        return out if self.wrap is None else self.wrap(out)

    def kept(self, arr: Array) -> Array:
        """Like :meth:`result` for a result in the input's own dtype (sorted keys, selected
        elements): in the caller's byte order, which NumPy keeps there (``numpy.sort`` of a
        ``'>f8'`` array is ``'>f8'``)."""
        out = self.result(arr)
        return out if self.order is None else out.astype(self.order)

    def scalar(self, arr: Array) -> Any:
        """Like :meth:`result` for a one-element result: a NumPy scalar for host callers (as
        ``numpy.sum`` returns), a 0-d device array for device callers (as ``cupy.sum`` does)."""
        out = self.result(arr.reshape(()) if arr.ndim else arr)
        return out[()] if self.host and self.wrap is None else out

    def axis_order(self, ndim: int) -> tuple[int, ...]:
        """The caller's axes from the slowest-varying in memory to the fastest (by decreasing
        absolute stride, ties in C order): NumPy's order ``"K"``, in which its reductions lay
        out their results. C order for a sequence."""
        st = self.strides
        if st is None or len(st) != ndim:
            return tuple(range(ndim))
        return tuple(sorted(range(ndim), key=lambda a: -abs(st[a])))


def _host_copy(arr: Array) -> NDArray[Any]:
    """A device array's host copy in its own layout: C, F, or any order of the axes of a dense
    array (a reduction's result laid out as its input)."""
    if arr.flags.c_contiguous or arr.flags.f_contiguous:
        return arr.get(order="A")
    perm = sorted(range(arr.ndim), key=lambda a: -abs(arr.strides[a]))
    dense = arr.transpose(perm)
    if not dense.flags.c_contiguous:  # not a permutation of a dense array
        return arr.get()
    return dense.get().transpose(np.argsort(perm))


def _returner(x: Any) -> Callable[[Any], Any] | None:
    """The ``from_dlpack`` of the library a DLPack producer ``x`` comes from (its type's
    top-level module: ``torch.from_dlpack``), which makes its results of the caller's type; None
    when there is none (the result is then NumPy's or CuPy's)."""
    if not (hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__")):
        return None
    top = type(x).__module__.partition(".")[0]
    if top in ("numpy", "cupy", "builtins"):
        return None
    lib: Any = sys.modules.get(top)
    f = getattr(lib, "from_dlpack", None)
    if not callable(f):
        return None

    def wrap(out: Any) -> Any:
        if isinstance(out, np.ndarray) and out.dtype == _dtypes.BFLOAT16:
            # NumPy exports no bfloat16 through DLPack: its bits, viewed back by the library
            return f(out.view(np.int16)).view(lib.bfloat16)
        return f(out)

    return wrap


def _host_dlpack(x: Any) -> NDArray[Any]:
    """NumPy's array of the host DLPack producer ``x``; a bfloat16 tensor, which NumPy's DLPack
    does not read, through its bits: the library's own view of it as int16 (torch's
    ``Tensor.view(dtype)``), read as bfloat16."""
    try:
        return np.from_dlpack(x)
    except (BufferError, TypeError, ValueError, RuntimeError):
        if str(getattr(x, "dtype", "")).rpartition(".")[2] != "bfloat16":
            raise
    lib = sys.modules[type(x).__module__.partition(".")[0]]
    return np.from_dlpack(x.view(lib.int16)).view(_dtypes.BFLOAT16)


def is_cupy(x: object) -> bool:
    """Whether ``x`` is an object of CuPy's (asked of its type's module: no import of CuPy)."""
    mod = type(x).__module__
    return mod.startswith("cupy")


def is_itself(arr: Array, x: Any) -> bool:
    """Whether ``arr`` (what :func:`as_input` made of ``x``) is ``x`` read as it is: ``x`` itself
    or a view of it with its dtype, shape and strides (an F-ordered array comes back as such a
    view), so that a plan that read ``arr`` may read a like ``x`` directly."""
    return arr is x or (
        arr.base is x and arr.dtype == x.dtype and arr.shape == x.shape and arr.strides == x.strides
    )


def _view(
    x: Any, func: str, arg: str, empty_dtype: DTypeLike | None = None
) -> tuple[Array, bool, Callable[[Any], Any] | None]:
    """``(array, host, wrap)``: the caller's ``x`` as a NumPy array (``host``) or a device
    (CuPy) one, with no copy where ``x`` is an array already, and the ``from_dlpack`` of its
    library (:func:`_returner`); a sequence through NumPy (``empty_dtype``: see
    :func:`as_input`). Raises ``TypeError`` for objects that are not arrays."""
    host = True
    wrap = None
    arr: Array  # NumPy's, or the device's while ``host`` is False
    if isinstance(x, np.ndarray):
        arr = x
    elif is_cupy(x) and hasattr(type(x), "__cuda_array_interface__"):
        # a CuPy array: asked of its type, which does not build the interface's dict
        host = False
        arr = x
    elif hasattr(x, "__cuda_array_interface__") and (wrap := _returner(x)) is None:
        host = False
        arr = _device_module(func, arg).asarray(x)
    elif hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        wrap = _returner(x)
        dev_type = x.__dlpack_device__()[0]
        if dev_type == _DLPACK_CPU:
            arr = _host_dlpack(x)
        else:
            host = False
            arr = _device_module(func, arg).from_dlpack(x)
    else:
        if isinstance(x, (str, bytes, dict, set)) or x is None:
            raise TypeError(f"{func}: {arg} must be an array, got {type(x).__name__}")
        try:
            arr = np.asarray(x)
        except ValueError as exc:  # a ragged sequence: NumPy's error
            raise ValueError(f"{func}: {arg}: {exc}") from exc
        except Exception as exc:
            raise TypeError(f"{func}: {arg} must be an array, got {type(x).__name__}") from exc
        if arr.dtype == object:
            raise TypeError(f"{func}: {arg} must be a numeric array, got {type(x).__name__}")
        if empty_dtype is not None and arr.size == 0 and isinstance(x, (list, tuple)):
            arr = arr.astype(empty_dtype)
    return arr, host, wrap


def shape_of(x: Any) -> tuple[int, ...]:
    """The shape of an argument of any kind :func:`as_input` takes, as it will read it, without
    moving it: its ``shape`` where it has one, else its array interface's, else that of its
    DLPack view (no copy) or of NumPy's array of it (a sequence; ``()`` for a scalar)."""
    shape = getattr(x, "shape", None)
    if shape is not None:
        return tuple(shape)
    cai = getattr(x, "__cuda_array_interface__", None)
    if isinstance(cai, dict):
        return tuple(cai["shape"])
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        return tuple(_view(x, "shape_of", "x")[0].shape)
    return np.shape(x)


def dtype_of(x: Any, func: str, arg: str) -> np.dtype[Any]:
    """The dtype of an argument of any kind :func:`as_input` takes, as it will read it: its
    ``dtype`` where that is NumPy's, else that of its view (a device array's, a DLPack
    producer's, NumPy's array of a sequence or scalar; no copy of an array). Raises as
    :func:`as_input` for what is not an array."""
    dt = getattr(x, "dtype", None)
    if isinstance(dt, np.dtype):
        return dt
    return _view(x, func, arg)[0].dtype


def host_array(x: Any, func: str, arg: str) -> NDArray[Any]:
    """A NumPy array of ``x``, an argument of any kind :func:`as_input` takes (a sequence, a
    NumPy, CuPy or DLPack array of the host or the device): host arrays as they are, device ones
    copied back. For the small host-side arguments (bin edges) NumPy's ``asarray`` would read a
    DLPack producer as an object."""
    arr, host, _ = _view(x, func, arg)
    return arr if host else arr.get()


def as_input(
    x: Any,
    *,
    func: str,
    arg: str,
    ndim: int | None = None,
    flatten: bool = False,
    empty_dtype: DTypeLike | None = None,
    keep_f: bool = False,
) -> Input:
    """Move ``x`` to the backend, check its dimensions, make it C-contiguous and of native byte
    order.

    ``ndim`` (an int) is required exactly; ``flatten=True`` ravels any ndim (documented per
    function). ``empty_dtype``: the dtype of an empty Python list or tuple (which holds no dtype
    of its own; NumPy would make it float64), for arguments that take integer or boolean
    sequences (offsets, flags, masks). ``keep_f=True``: an F-contiguous array keeps its layout
    (no transposing copy; a host one arrives F-contiguous), for callers whose kernels read either
    order in place. Raises ``TypeError`` for objects that are not arrays.
    """
    backend = _backend.get_backend()
    arr, host, wrap = _view(x, func, arg, empty_dtype)
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{func}: {arg} must be {ndim}-D, got shape {tuple(arr.shape)}")
    strides = tuple(arr.strides)  # the caller's layout, before any copy below
    # an F-contiguous array is handled as its reversed view (C-contiguous) and turned back last
    flip = (
        keep_f
        and not flatten
        and arr.ndim > 1
        and arr.flags.f_contiguous
        and not arr.flags.c_contiguous
    )
    if flip:
        arr = arr.T
    order = None
    if host and not arr.dtype.isnative:  # device arrays (CuPy, DLPack) are always native
        order = arr.dtype  # one copy, contiguous, so that what follows copies no more
        arr = np.asarray(arr, dtype=order.newbyteorder("="), order="C")
    if flatten and arr.ndim != 1:
        arr = arr.reshape(-1)

    if backend.is_cuda:
        if host and not _device_holds(arr.dtype):
            # CuPy has no arrays of this dtype (strings, objects, datetimes, long double): the
            # array stays on the host, and the caller's dtype check names it as a TypeError
            arr = np.asarray(arr, order="C")
        elif host or not arr.flags.c_contiguous:
            arr = to_device(arr, "C")  # host -> device copy for NumPy input
    else:
        if not host:
            arr = arr.get()
        # order="C", not ascontiguousarray: a 0-d array stays 0-d (ascontiguousarray makes (1,))
        arr = np.asarray(arr, order="C")
    return Input(arr.T if flip else arr, host, backend, order, strides, wrap)


#: the package's folder: frames in files under it are the library's own
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def warn_caller(message: str, category: type[Warning]) -> None:
    """``warnings.warn`` pointing at the first caller outside the package (the user's line, as
    NumPy's warnings point), however deep in the library it is raised."""
    frame: FrameType | None = sys._getframe(0)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def boolean(value: Any, func: str, arg: str) -> bool:
    """``value`` as a bool; a TypeError naming ``func`` and ``arg`` for anything but a Python or
    NumPy bool (``descending=1`` is refused, as an option of another meaning would be)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{func}: {arg} must be a bool, got {type(value).__name__}")
    return bool(value)


def integer(value: Any, func: str, arg: str, what: str = "an integer") -> int:
    """``value`` as a Python int, with NumPy's ``TypeError`` for anything not an integer (a bool
    too): ``{func}: {arg} must be {what}, got ... (integer argument expected, got TYPE)``, the
    end NumPy's own words."""
    msg = (
        f"{func}: {arg} must be {what}, got {value!r} "
        f"(integer argument expected, got {type(value).__name__})"
    )
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(msg)
    try:
        return operator.index(value)
    except TypeError as exc:
        raise TypeError(msg) from exc


def axis_index(
    axis: Any, ndim: int, func: str, what: str = "an integer or None", scalar: bool = False
) -> int:
    """One ``axis`` (an integer, negative counting from the end) as an index in
    ``[0, max(ndim, 1))`` (a 0-d array read as one element; ``scalar=True``: in ``[0, ndim)``,
    so a 0-d array has none), with NumPy's errors: ``TypeError`` for anything not an integer
    (bool too, as NumPy refuses it), ``AxisError`` out of range. ``what``: the forms the function
    takes, for the message."""
    a = integer(axis, func, "axis", what)
    dims = ndim if scalar else max(ndim, 1)
    if not -dims <= a < dims:
        raise np.exceptions.AxisError(
            f"{func}: axis {a} is out of bounds for array of dimension {ndim}"
        )
    return a % dims


def check_out(out: Any, shape: Sequence[int], func: str) -> None:
    """NumPy's checks of an ``out`` argument for a result of ``shape``, before any launch: an
    array (NumPy's or the device's) of that shape, writeable. Its dtype may be any: the result
    is cast to it (NumPy's ``casting="unsafe"`` of reductions and accumulations)."""
    if not hasattr(out, "shape") or not hasattr(out, "dtype"):
        raise TypeError(f"{func}: out must be an array, got {type(out).__name__}")
    if tuple(out.shape) != tuple(shape):
        raise ValueError(f"{func}: out has shape {tuple(out.shape)}, the result has {tuple(shape)}")
    if isinstance(out, np.ndarray) and not out.flags.writeable:
        raise ValueError(f"{func}: output array is read-only")


class errors_of:  # noqa: N801 - used as a function: ``with errors_of(func, delegate):``
    """Run a call of the public function ``delegate`` that ``func`` makes on its caller's
    arguments (NumPy's ``nanmin`` of integers is its ``min``), its argument errors named as
    ``func``'s: a ``TypeError``, ``ValueError`` (``AxisError`` included), ``OverflowError``,
    ``IndexError`` or ``ZeroDivisionError`` re-raised as the same type, its message led by
    ``func`` in place of ``delegate``. A context manager of its own class, not a generator's:
    a repeat call's few microseconds of host time hold it too."""

    __slots__ = ("func", "delegate")
    KINDS = (TypeError, ValueError, OverflowError, IndexError, ZeroDivisionError)

    def __init__(self, func: str, delegate: str) -> None:
        self.func, self.delegate = func, delegate

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> None:
        if exc is None or not isinstance(exc, self.KINDS):
            return
        msg = str(exc)
        if msg.startswith(f"{self.delegate}: "):
            msg = msg[len(self.delegate) + 2 :]
        raise type(exc)(f"{self.func}: {msg}") from exc


def write_out(out: Array, res: Array, func: str) -> Array:
    """``res`` (a host or backend array of ``out``'s shape, or a NumPy scalar for a 0-d
    ``out``) cast into ``out`` (checked by :func:`check_out`), which is returned."""
    check_out(out, np.shape(res), func)
    if isinstance(out, np.ndarray):
        host = res if isinstance(res, (np.ndarray, np.generic)) else res.get()
        np.copyto(out, host, casting="unsafe")
    else:
        out[...] = to_device(res).astype(out.dtype, copy=False)
    return out


def to_device(arr: Array, order: str | None = None) -> Array:
    """A CuPy array of ``arr`` (a NumPy or CuPy array; ``order`` as ``cupy.asarray``'s), bit for
    bit: a 0-d host array goes over as one element (CuPy makes a 0-d array of a host value with
    a fill, which writes zeros for -0.0: its sign lost)."""
    import cupy

    if isinstance(arr, np.ndarray) and arr.ndim == 0:
        return cupy.asarray(arr.reshape(1)).reshape(())
    return cupy.asarray(arr, order=order)


def _device_holds(dt: np.dtype[Any]) -> bool:
    """Whether CuPy has arrays of dtype ``dt``: bool, the integers, float16/32/64, bfloat16 and
    complex64/128 (no strings, objects, datetimes or long doubles)."""
    return (
        dt.kind in "biu"
        or (dt.kind in "fc" and dt.itemsize <= (8 if dt.kind == "f" else 16))
        or dt == _dtypes.BFLOAT16
    )


def _device_module(func: str, arg: str) -> ModuleType:
    try:
        import cupy
    except ImportError as exc:
        raise TypeError(
            f"{func}: {arg} is a device array but CuPy is not installed to read it"
        ) from exc
    return cupy


def check_choice(
    value: _T, choices: Collection[_T], *, func: str, arg: str, auto: _T | None = None
) -> _T:
    """``value`` if it is one of ``choices`` (or ``auto`` when it is ``"auto"``), else a
    ``ValueError`` naming the argument and the choices."""
    if value == "auto" and auto is not None:
        return auto
    if value not in choices:
        extra = "'auto' or " if auto is not None else ""
        raise ValueError(f"{func}: {arg} must be {extra}one of {tuple(choices)}, got {value!r}")
    return value


def op_input(
    x: Any, op: Any, dtype: DTypeLike | None, *, func: str, ndim: int | None = None
) -> tuple[Input, Array, np.dtype[Any], np.dtype[Any]]:
    """Checks shared by reductions and scans with an ``op`` in :data:`OPS` or a user
    :class:`~primitives._core.ops.Op` (computed in the input's dtype or ``dtype=``).

    Returns ``(inp, arr, in_dt, acc_dt)``: the contiguous backend array (flattened unless ``ndim``
    is required) and its dtype,
    and the accumulator/result dtype (NumPy's: ``sum`` widens 32-bit integers; ``dtype=``
    overrides). When no kernel takes (in_dt, acc_dt) natively the input is converted to acc_dt
    (one extra pass) and ``in_dt == acc_dt``.
    """
    from . import dtypes as _dtypes, ops as _ops

    user = isinstance(op, _ops.Op)
    if not user:
        check_choice(op, OPS, func=func, arg="op")
    inp = as_input(x, func=func, arg="x", ndim=ndim, flatten=ndim is None)
    arr = inp.array
    in_dt = arr.dtype
    _dtypes.ctype(in_dt, func=func, arg="x")
    if user:
        acc_dt = _ops.accumulator(op, in_dt, dtype, func)
        if in_dt != acc_dt:
            arr, in_dt = arr.astype(acc_dt), acc_dt
        return inp, arr, in_dt, acc_dt
    if dtype is None:
        acc_dt = _dtypes.sum_dtype(in_dt) if op == "sum" else in_dt
    else:
        acc_dt = _dtypes.resolve_dtype(native_dtype(dtype), func=func)
    if arr.size and (in_dt, acc_dt) not in _dtypes.ACC_PAIRS_SET:
        arr, in_dt = arr.astype(acc_dt), acc_dt
    return inp, arr, in_dt, acc_dt


def native_dtype(dtype: Any) -> Any:
    """A ``dtype=`` request in native byte order (results are native, as ``numpy.cumsum``'s:
    ``dtype=x.dtype`` of a ``'>i4'`` array asks for int32); anything else as it is, for
    :func:`~primitives._core.dtypes.resolve_dtype` to judge."""
    try:
        dt = np.dtype(dtype)
    except Exception:  # not a dtype: resolve_dtype reports it  # noqa: BLE001
        return dtype
    return dt if dt.isnative else dt.newbyteorder("=")

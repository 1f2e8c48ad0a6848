"""argmin and argmax, declared on the entry protocol (:mod:`primitives._core.entry`): their
signatures and docstrings, and their prepare step over the checks of :mod:`._checks` and the
plans of :mod:`._arg`."""

from __future__ import annotations

import numpy as np

from .._core import checks as _core_checks, dtypes as _dtypes, entry as _entry
from . import _arg, _checks, _plans as _rp

__all__ = ["argmin", "argmax"]

_Prepared = _entry.Prepared


# ---- argmin, argmax -----------------------------------------------------------------------------


def _prepare_arg(x, axis, out, keepdims, is_max):
    """Every check of a call of argmin/argmax, in NumPy's order and before any launch, and its
    plan: the whole-array plan itself for a backend array read as it is."""
    func = "argmax" if is_max else "argmin"
    inp = _core_checks.as_input(x, func=func, arg="x", keep_f=True)  # F order read in place
    arr = inp.array
    # made 1-D on the way to contiguous memory (checks.shape_of: a DLPack producer without a
    # shape of its own is no 0-d array)
    if arr.ndim == 1 and not _core_checks.shape_of(x):
        arr = arr.reshape(())
    cplx = arr.dtype in _dtypes.COMPLEX  # ordered as NumPy's by the kernels
    if not cplx:
        _checks.check_arg_dtype(arr.dtype, func)
    elif arr.size:  # the kernels read whole elements: NumPy aligns complex to its parts only
        arr = _rp.Route(((), arr.dtype, arr.dtype, arr.dtype, arr.dtype)).prepare(arr)
    keepdims = _checks.arg_keepdims(keepdims, func)
    ax = _checks.arg_axis(axis, arr.ndim, func)
    backend = inp.backend
    if ax is None or arr.ndim == 0:
        shape = (1,) * arr.ndim if keepdims else ()
        if out is not None:
            _checks.arg_out(out, shape, func)
        if arr.size == 0:
            raise _checks.arg_empty(func)
        plan = _arg.flat_plan(backend, arr.dtype, is_max, arr.size)
        if arr is x and out is None and not keepdims:  # read as it is (C order): the plan itself
            return _Prepared(plan, (x,), reusable=True)
        compute = lambda a: plan.run(a.reshape(-1)).reshape(shape)  # noqa: E731
    else:
        dims = arr.shape
        shape = dims[:ax] + (1,) + dims[ax + 1 :] if keepdims else dims[:ax] + dims[ax + 1 :]
        # an F-ordered array is read as its C-ordered transpose, the reduced axis reversed too;
        # the indices come out in the transpose's order, and are laid out C-ordered as NumPy's
        flip = arr.ndim > 1 and not arr.flags.c_contiguous
        if flip:
            dims, ax = dims[::-1], arr.ndim - 1 - ax
        outer = int(np.prod(dims[:ax], dtype=np.int64))
        length = dims[ax]
        inner = int(np.prod(dims[ax + 1 :], dtype=np.int64))
        if out is not None:
            _checks.arg_out(out, shape, func)
        if length == 0:
            raise _checks.arg_empty(func)
        if outer * inner == 0:
            compute = lambda a: backend.xp.empty(shape, dtype=np.int64)  # noqa: E731
        elif outer * inner == 1:  # one line: the whole-array kernel, every multiprocessor
            plan = _arg.flat_plan(backend, arr.dtype, is_max, length)
            compute = lambda a: plan.run(a.reshape(-1)).reshape(shape)  # noqa: E731
        elif flip:
            plan = _arg.axis_plan(backend, arr.dtype, is_max, outer, length, inner)
            kept = dims[:ax] + dims[ax + 1 :]  # the transpose's, reversed to the array's
            xp = backend.xp
            compute = lambda a: xp.ascontiguousarray(  # noqa: E731
                plan.run(a.T).reshape(kept).T
            ).reshape(shape)
        else:
            plan = _arg.axis_plan(backend, arr.dtype, is_max, outer, length, inner)
            compute = lambda a: plan.run(a).reshape(shape)  # noqa: E731

    return _Prepared(
        _arg_run(compute, out, inp, backend),
        (arr,),
        reusable=_core_checks.is_itself(arr, x) and out is None,
    )


def _arg_run(compute, out, inp, backend):
    """The run of argmin/argmax: the indices of ``compute``, into ``out`` or returned as the
    caller's kind."""

    def run(a):
        res = compute(a)
        if out is not None:
            if isinstance(out, np.ndarray):
                np.copyto(out, res if isinstance(res, np.ndarray) else res.get(), casting="unsafe")
            else:
                out[...] = backend.xp.asarray(res).astype(out.dtype, copy=False)
            return out
        if res.ndim == 0:
            return inp.scalar(res.reshape(1))
        return inp.result(res)

    return run


def _prepare_argmin(x, axis=None, out=None, *, keepdims=False):
    return _prepare_arg(x, axis, out, keepdims, False)


def _prepare_argmax(x, axis=None, out=None, *, keepdims=False):
    return _prepare_arg(x, axis, out, keepdims, True)


@_entry.function(_prepare_argmin, arrays=("x",))
def argmin(x, axis=None, out=None, *, keepdims=False):
    """Index of the first minimum of ``x`` (over the flattened array, or along ``axis``), as
    :func:`numpy.argmin`.

    Args:
        x: array of bool, int8, uint8, int16, uint16, int32, int64, uint32, uint64, float16,
            bfloat16, float32, float64, complex64 or complex128 (CuPy, NumPy, a torch tensor,
            or anything with ``__cuda_array_interface__`` / DLPack), any ndim. Host arrays of
            non-native byte order are converted to native order on the host.
        axis: None (the index into the flattened array) or an int (negative counting from the
            end): the axis along which the indices are taken. NumPy takes one axis only: a
            tuple is a ``TypeError``.
        out: an array of the result's shape (``keepdims`` included) and of a dtype int64 casts
            to safely the other way round (int64, or int32 as NumPy allows), which receives
            the result and is returned.
        keepdims: keep the reduced axis (every axis for ``axis=None``) as an axis of length 1.

    Returns:
        int64 (``numpy.intp``) indices: a 0-d device array for device input with ``axis=None``
        (like ``cupy.argmin``), a NumPy scalar for host input (like ``numpy.argmin``); with
        ``axis`` an array of the other axes (``keepdims``: all axes); with ``out`` that array.

    Raises:
        TypeError: ``x`` is not an array, or its dtype is unsupported (str, object,
            datetime64, ...);
            ``axis`` is not an integer (a tuple, a float, a bool); ``out`` is not an array or
            of a dtype that cannot hold int64 safely.
        ValueError: ``x`` is empty, or the axis has length 0 ("attempt to get argmin of an
            empty sequence", NumPy's message); ``axis`` out of range
            (``numpy.exceptions.AxisError``); ``out`` of another shape or read-only.

    NaN is the minimum: the index of the first NaN when there is one, as NumPy. Among equal
    minima (-0.0 and 0.0 are equal) the first index. Complex numbers are ordered as NumPy
    orders them (the real parts, then the imaginary ones; a NaN in either part is NaN), in
    one pass of the same kernels. Device input: no host synchronization.
    Host input: one copy in and one out. The whole-array kernel reads every dtype in place,
    16 bytes per load.

    See Also:
        :func:`numpy.argmin`, :func:`cupy.argmin`, :func:`argmax`.
    """


@_entry.function(_prepare_argmax, arrays=("x",))
def argmax(x, axis=None, out=None, *, keepdims=False):
    """Index of the first maximum of ``x`` (over the flattened array, or along ``axis``), as
    :func:`numpy.argmax`.

    Args:
        x: array of bool, int8, uint8, int16, uint16, int32, int64, uint32, uint64, float16,
            bfloat16, float32, float64, complex64 or complex128 (CuPy, NumPy, a torch tensor,
            or anything with ``__cuda_array_interface__`` / DLPack), any ndim.
        axis: None (the index into the flattened array) or an int (negative counting from the
            end); a tuple is a ``TypeError`` as in NumPy.
        out: an array of the result's shape and of a dtype int64 casts to safely the other way
            round, which receives the result and is returned.
        keepdims: keep the reduced axis (every axis for ``axis=None``) as an axis of length 1.

    Returns:
        int64 (``numpy.intp``) indices, as :func:`argmin` returns them.

    Raises:
        TypeError: as :func:`argmin`.
        ValueError: ``x`` empty or the axis of length 0 ("attempt to get argmax of an empty
            sequence"); ``axis`` out of range (``numpy.exceptions.AxisError``); ``out`` of
            another shape or read-only.

    NaN is the maximum: the index of the first NaN when there is one, as NumPy. Among equal
    maxima the first index. Complex numbers are ordered as :func:`argmin` orders them.

    See Also:
        :func:`numpy.argmax`, :func:`cupy.argmax`, :func:`argmin`.
    """

"""Structured arrays as tuples: a NumPy (or CuPy) array of a structured dtype of plain fields is
the tuple of its fields for the user operators over tuples (:mod:`primitives._core.ops`): its
dtype checked (:func:`struct_dtype`), its fields taken out as arrays (:func:`struct_fields`) and
results put back together in its dtype (:func:`struct_result`)."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from . import backend as _backend
from .ops import DTYPES, MAX_FIELDS

__all__ = ["is_struct", "struct_dtype", "struct_fields", "struct_result"]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_POSITIONAL = re.compile(r"f[0-9]+\Z")


def is_struct(x: Any) -> bool:
    """Whether ``x`` is an array (NumPy's, CuPy's) or a NumPy scalar of a structured dtype."""
    dt = getattr(x, "dtype", None)
    return isinstance(dt, np.dtype) and dt.names is not None


def struct_dtype(dt: Any, func: str) -> np.dtype:
    """The structured dtype ``dt`` of an argument ``x`` checked as a tuple's (2 to
    :data:`MAX_FIELDS` fields, each a scalar of :data:`DTYPES`: TypeError naming ``func``
    otherwise; field names that an operator can name, ValueError otherwise: C++ identifiers,
    and no ``fK`` but field K's own), in native byte order (its names, offsets and size)."""
    names = dt.names
    if not 2 <= len(names) <= MAX_FIELDS:
        raise TypeError(
            f"{func}: a structured x is a tuple of its fields, 2 to {MAX_FIELDS} of them; got "
            f"{len(names)} in dtype {dt}"
        )
    for k, name in enumerate(names):
        f = dt.fields[name][0]
        if f.names is not None or f.subdtype is not None or f.newbyteorder("=") not in DTYPES:
            kind = (
                "a nested structure"
                if f.names is not None
                else f"a subarray of shape {f.shape}"
                if f.subdtype is not None
                else f"dtype {f}"
            )
            dts = ", ".join(d.name for d in DTYPES)
            raise TypeError(
                f"{func}: the fields of a structured x are scalars of {dts}; got field "
                f"{name!r} of {kind}"
            )
        if not _IDENTIFIER.match(name):
            raise ValueError(
                f"{func}: field {name!r} of x is no C++ identifier (letters, digits and _, not "
                f"first a digit), as an operator names the fields (a.<name>): rename it"
            )
        if _POSITIONAL.match(name) and name != f"f{k}":
            raise ValueError(
                f"{func}: field {name!r} of x is its field {k}, while an operator's a.{name} "
                f"would name a field by position (a.f0, a.f1, ...): rename it"
            )
    if all(dt.fields[n][0].isnative for n in names):
        return dt
    return dt.newbyteorder("=")


def _address(a: Any) -> int:
    """The address of ``a``'s first element (a NumPy array's or a CuPy one's)."""
    return int(a.ctypes.data if isinstance(a, np.ndarray) else a.data.ptr)


def _aligned(x: Any, offset: int, size: int) -> bool:
    """Whether the field of ``size`` bytes at ``offset`` of each element of ``x`` is aligned to
    its size in every element (as a GPU reads it; CuPy makes no field view otherwise): every
    stride a multiple of it, that of an axis of length 1 too (as CuPy may check them all)."""
    if x.size == 0:
        return True
    return (_address(x) + offset) % size == 0 and all(s % size == 0 for s in x.strides)


def _word_columns(n: int, itemsize: int, offset: int, size: int, address: int) -> Any:
    """The unsigned dtype of the widest word that the field of ``size`` bytes at ``offset`` of
    ``n`` elements of ``itemsize`` bytes (from ``address``) is made of, aligned, the elements'
    shape as words, and the field's columns in it."""
    w = math.gcd(offset, itemsize, size, address)  # divides size (4 or 8): a power of two
    return np.dtype(f"u{w}"), (n, itemsize // w), slice(offset // w, (offset + size) // w)


def struct_fields(x: Any, func: str) -> tuple[list[Any], np.dtype]:
    """The fields of the structured array ``x`` (NumPy's or CuPy's, any shape), in order, as
    arrays of ``x``'s shape, and its dtype checked (:func:`struct_dtype`): the tuple of arrays
    ``x`` is. A field aligned to its size in every element is ``x[name]``, a strided view (the
    tuple's input checks make it contiguous: one copy); one that is not (a packed dtype's, as
    ``'f8,i4'``: 12-byte elements), which CuPy makes no view of, is copied out of ``x`` viewed
    as words of the widest size it is aligned to (``x`` contiguous: a host array is copied so, a
    device one must be)."""
    if isinstance(x, np.generic):
        x = np.asarray(x)
    dt = struct_dtype(x.dtype, func)
    out = []
    for name in x.dtype.names:
        f, offset = x.dtype.fields[name][:2]
        if _aligned(x, offset, f.itemsize):
            out.append(x[name])
            continue
        if not x.flags.c_contiguous:
            if not isinstance(x, np.ndarray):
                raise ValueError(
                    f"{func}: field {name!r} of x lies unaligned for its {f.itemsize} bytes "
                    f"({offset} bytes into elements of {x.dtype.itemsize}) and x is not "
                    f"contiguous: give x contiguous, or of an aligned dtype "
                    f"(numpy.dtype(..., align=True))"
                )
            x = np.ascontiguousarray(x)
        uw, shape, cols = _word_columns(x.size, x.dtype.itemsize, offset, f.itemsize, _address(x))
        words = x.reshape(-1).view(uw).reshape(shape)[:, cols]
        out.append(words.copy().reshape(-1).view(f).reshape(x.shape))
    return out, dt


def struct_result(values: Any, dt: Any) -> Any:
    """The structured array of ``dt`` (:func:`struct_fields`' dtype) whose fields are
    ``values`` (arrays of one shape, contiguous, each of its field's dtype; or NumPy scalars,
    which make a ``numpy.void``), made in the values' array module (NumPy's for host results,
    CuPy's for device ones): a field aligned to its size is assigned (``out[name] = value``),
    one that is not is written through the words it is made of (:func:`struct_fields`)."""
    values = list(values)
    xp = _backend.array_module(values[0])
    shape = tuple(values[0].shape)
    flat = [xp.asarray(v).reshape(-1) for v in values]
    n = flat[0].size
    out = xp.empty(n, dtype=dt)
    for name, v in zip(dt.names, flat if n else ()):
        f, offset = dt.fields[name][:2]
        if offset % f.itemsize == 0 and dt.itemsize % f.itemsize == 0:
            out[name] = v
        else:
            uw, words, cols = _word_columns(n, dt.itemsize, offset, f.itemsize, 0)
            out.view(uw).reshape(words)[:, cols] = v.view(uw).reshape(n, -1)
    out = out.reshape(shape)
    return out[()] if all(isinstance(v, np.generic) for v in values) else out

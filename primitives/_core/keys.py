"""Keys as bit patterns, shared by every family that orders values (the sorts, selection, the
sets, the Dask sort): the key dtypes, their order-preserving unsigned images and back (the host
side of ``kernels/util``'s ``ordered``), and values moved as bits."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as _dtypes

__all__ = [
    "KEY_DTYPES",
    "KEY_SET",
    "KIND",
    "U",
    "C",
    "INDEX",
    "key_bits",
    "key_back",
    "native_values",
    "index_dtype",
]

#: the dtypes the radix sorts order
KEY_DTYPES: tuple[np.dtype[Any], ...] = tuple(
    np.dtype(d)
    for d in (
        np.uint8,
        np.uint16,
        np.uint32,
        np.uint64,
        np.int8,
        np.int16,
        np.int32,
        np.int64,
        np.float32,
        np.float64,
    )
)
KEY_SET: frozenset[np.dtype[Any]] = frozenset(KEY_DTYPES)
#: prim::radix::KeyKind of a dtype's kind
KIND: dict[str, int] = {"u": 0, "i": 1, "f": 2}
#: the key bits, by width
U: dict[int, np.dtype[Any]] = {4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}
#: C++ type of the key bits, by width
C: dict[int, str] = {b: _dtypes.CTYPES[d] for b, d in U.items()}
#: argsort's result, as numpy.argsort's
INDEX: np.dtype[Any] = np.dtype(np.int64)


def key_bits(arr: Any) -> tuple[Any, int, int]:
    """(unsigned bit array of 4 or 8 bytes, kind, key bits): a view for 32/64-bit keys; 8- and
    16-bit keys are widened to their order-preserving uint32 image."""
    dt = arr.dtype
    if dt.itemsize >= 4:
        return arr.view(U[dt.itemsize]), KIND[dt.kind], 8 * dt.itemsize
    u = arr.view(np.dtype(f"u{dt.itemsize}"))
    if dt.kind == "i":
        u = u ^ u.dtype.type(1 << (8 * dt.itemsize - 1))
    return u.astype(np.uint32), 0, 8 * dt.itemsize


def key_back(bits: Any, dt: np.dtype[Any]) -> Any:
    """Inverse of :func:`key_bits`."""
    if dt.itemsize >= 4:
        return bits.view(dt)
    u = bits.astype(np.dtype(f"u{dt.itemsize}"))
    if dt.kind == "i":
        u ^= u.dtype.type(1 << (8 * dt.itemsize - 1))
    return u.view(dt)


def native_values(arr: Any) -> Any:
    """The values as uint32/uint64 bits when they are 4 or 8 bytes wide (any dtype), else None."""
    if arr.dtype.itemsize in U and arr.dtype.hasobject is False and arr.dtype.fields is None:
        return arr.view(U[arr.dtype.itemsize])
    return None


def index_dtype(n: int) -> np.dtype[Any]:
    """The narrowest unsigned index dtype of ``n`` elements (uint32 below 2^32)."""
    return np.dtype(np.uint32) if n < (1 << 32) else np.dtype(np.uint64)

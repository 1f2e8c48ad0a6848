"""Keys as bit patterns: the key dtypes, their order-preserving unsigned images and back, values
as bits, and one sort of bit patterns (:class:`Job`) as the device-wide sorts take it."""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes

KEY_DTYPES = tuple(
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
KEY_SET = frozenset(KEY_DTYPES)
KIND = {"u": 0, "i": 1, "f": 2}  # prim::radix::KeyKind
U = {4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}  # the key bits, by width
C = {b: _dtypes.CTYPES[d] for b, d in U.items()}  # C++ type of the key bits
INDEX = np.dtype(np.int64)  # argsort's result, as numpy.argsort


def key_bits(arr):
    """(unsigned bit array of 4 or 8 bytes, kind, key bits): a view for 32/64-bit keys; 8- and
    16-bit keys are widened to their order-preserving uint32 image."""
    dt = arr.dtype
    if dt.itemsize >= 4:
        return arr.view(U[dt.itemsize]), KIND[dt.kind], 8 * dt.itemsize
    u = arr.view(np.dtype(f"u{dt.itemsize}"))
    if dt.kind == "i":
        u = u ^ u.dtype.type(1 << (8 * dt.itemsize - 1))
    return u.astype(np.uint32), 0, 8 * dt.itemsize


def key_back(bits, dt):
    """Inverse of :func:`key_bits`."""
    if dt.itemsize >= 4:
        return bits.view(dt)
    u = bits.astype(np.dtype(f"u{dt.itemsize}"))
    if dt.kind == "i":
        u ^= u.dtype.type(1 << (8 * dt.itemsize - 1))
    return u.view(dt)


def native_values(arr):
    """The values as uint32/uint64 bits when they are 4 or 8 bytes wide (any dtype), else None."""
    if arr.dtype.itemsize in U and arr.dtype.hasobject is False and arr.dtype.fields is None:
        return arr.view(U[arr.dtype.itemsize])
    return None


def index_dtype(n):
    return np.dtype(np.uint32) if n < (1 << 32) else np.dtype(np.uint64)


def i32(v):
    return np.int32(v)


class Job:
    """One sort of n >= 1 bit-pattern keys over [begin, end) with optional values.

    ``values``: None (keys only), an unsigned array, or ``"iota"`` (each element's index, as the
    index dtype). ``wide``: return values widened to int64. ``want_keys``: False lets the last
    pass skip writing keys (argsort)."""

    def __init__(self, kbits, kind, begin, end, descending, values, wide, want_keys, backend):
        self.kbits, self.kind, self.begin, self.end = kbits, kind, begin, end
        self.desc = descending
        self.n = kbits.size
        self.values, self.wide, self.want_keys = values, wide, want_keys
        self.backend = backend
        self.xp = backend.xp
        self.kb = kbits.dtype.itemsize
        if values is None:
            self.vdt = None
        elif isinstance(values, str):
            self.vdt = index_dtype(self.n)
        else:
            self.vdt = values.dtype
        self.vb = self.vdt.itemsize if self.vdt is not None else 0
        self.iota = isinstance(values, str)

    def common(self):
        return (i32(self.kind), i32(self.desc))

    def materialized_values(self):
        if self.iota:
            return self.xp.arange(self.n, dtype=self.vdt)
        return self.values

    def buffers(self):
        """One (keys, values) ping-pong buffer pair of the multi-launch sorts."""
        return (
            self.xp.empty(self.n, dtype=self.kbits.dtype),
            self.xp.empty(self.n, dtype=self.vdt) if self.vb else None,
        )

    def finish(self, keys, vals):
        if vals is not None and self.wide and vals.dtype != INDEX:
            vals = vals.astype(INDEX)
        return (keys if self.want_keys else None), vals

    def run(self, tag, plan_type, pol):
        """Sort with the plan ``plan_type(kb, vb, n, pol)`` of the multi-pass sorts (classic,
        split), made once per key sizes, n, policy and stream under ``tag``."""
        from .._core import plans as _plans

        key = (tag, self.kb, self.vb, self.n, pol, _plans.stream_key())
        return _plans.PLANS.get(key, lambda: plan_type(self.kb, self.vb, self.n, pol))(self)

"""One sort of bit patterns (:class:`Job`) as the device-wide sorts take it; the key-bit transforms
are the core's (:mod:`primitives._core.keys`, re-exported here for the sorts' modules)."""

from __future__ import annotations

import numpy as np

from .._core.keys import (  # noqa: F401 - the sorts' modules read them from here
    INDEX,
    KEY_DTYPES,
    KEY_SET,
    KIND,
    C,
    U,
    index_dtype,
    key_back,
    key_bits,
    native_values,
)


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

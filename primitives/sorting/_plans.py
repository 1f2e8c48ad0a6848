"""The sorts' plans: one sort of bit patterns as the device-wide sorts take it (:class:`Job`), the
variants' plans that a call files (onesweep's and the block sort's, :func:`sort_plan`), and the
sort of a call that no filed plan serves (:func:`sort`).

The key-bit transforms are the core's (:mod:`primitives._core.keys`); the variants' launches are
their own modules' (:mod:`._split`, :mod:`._classic`, :mod:`._onesweep`, :mod:`._block`).
"""

from __future__ import annotations

import numpy as np

from .._core import plans as _plans
from .._core.keys import INDEX, index_dtype, key_back, key_bits, native_values
from . import _block, _classic, _onesweep, _split


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
        return (np.int32(self.kind), np.int32(self.desc))

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
        key = (tag, self.kb, self.vb, self.n, pol, _plans.stream_key())
        return _plans.PLANS.get(key, lambda: plan_type(self.kb, self.vb, self.n, pol))(self)


#: each variant's sort of a :class:`Job`: (keys or None, values or None)
RUN = {"split": _split.run, "classic": _classic.run, "onesweep": _onesweep.run, "block": _block.run}
#: the variants whose plan a call files: called on the caller's arrays, it returns the public
#: function's result
FILED = {"onesweep": _onesweep.plan, "block": _block.plan}


def job(karr, varr, begin, end, descending, backend, argsort):
    """The :class:`Job` of sorting the device array ``karr`` (n >= 1, begin < end)."""
    kbits, kind, _ = key_bits(karr)
    vbits = None if varr is None else native_values(varr)
    if argsort:
        values, wide = "iota", True
    elif varr is None:
        values, wide = None, False
    elif vbits is not None:
        values, wide = vbits, False
    else:  # values of another width: sort an index permutation and gather
        values, wide = "iota", False
    return Job(kbits, kind, begin, end, descending, values, wide, not argsort, backend)


def filed(variant, karr, varr, begin, end):
    """Whether the plan of ``variant`` sorts the keys ``karr`` and values ``varr`` (None or an
    array) as they are (no widening of keys, values of 4 or 8 bytes) and by some bits: then it
    serves later calls on like arrays directly."""
    return (
        variant in FILED
        and begin < end
        and karr.size > 0
        and karr.dtype.itemsize >= 4
        and (varr is None or native_values(varr) is not None)
    )


def sort_plan(variant, karr, varr, begin, end, descending, backend, argsort=False):
    """The plan of ``variant`` (one of :data:`FILED`) that sorts arrays like ``karr`` and ``varr``
    as they are (see :func:`filed`), made once per configuration and stream."""
    return FILED[variant](job(karr, varr, begin, end, descending, backend, argsort))


def sort(karr, varr, begin, end, descending, variant, backend, *, argsort=False):
    """Sort the device array ``karr`` (n >= 1). Returns (sorted keys or None, values, index or
    None): values sorted alongside when given; with ``argsort`` the int64 permutation instead."""
    dt = karr.dtype
    if begin == end:  # no bits to sort by: the stable order is the input order
        kbits = key_bits(karr)[0]
        n = kbits.size
        skeys = kbits.copy()
        if argsort or (varr is not None and native_values(varr) is None):
            perm = backend.xp.arange(n, dtype=index_dtype(n))
        else:
            perm = None if varr is None else native_values(varr).copy()
    else:
        skeys, perm = RUN[variant](job(karr, varr, begin, end, descending, backend, argsort))
    if argsort:
        return None, None, perm.astype(INDEX, copy=False)
    keys_out = key_back(skeys, dt)
    if varr is None:
        return keys_out, None, None
    if native_values(varr) is not None:
        return keys_out, perm.view(varr.dtype), None
    return keys_out, varr[perm], None

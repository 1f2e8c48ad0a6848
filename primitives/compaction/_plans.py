"""Compaction plans: kernel names and the look-back plan of ``compact`` / ``compact_indices``.

A :class:`CompactPlan` per (dtype or indices, n, policy, stream) holds the tile counter, the
tile states and the count the kernel writes, made once, and its launch checked once. A call is
one launch and one read of the count (the result's length).

Compaction moves elements without combining them, so a dtype without a kernel of its own is
moved as the unsigned word of its size (:func:`moved_as`): bool, int8 and uint8 as
``unsigned char``, int16, uint16 and float16 as ``unsigned short``, complex64 as ``unsigned long
long`` and complex128 as ``prim::CompactWord16`` (kernels/compaction/compact.cu); the 4- and 8-byte
dtypes of :data:`primitives._core.dtypes.NUMERIC` have their own instantiations.
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes, launch as _launch, loader as _loader
from .._core import lookback as _lookback, plans as _plans
from . import _policy

SOURCE = "compaction/compact.cu"
INDEX_DTYPE = np.dtype(np.int64)
#: the dtypes of ``x`` that ``compact`` takes, in the documentation's order
DTYPES = _dtypes.REAL + _dtypes.COMPLEX
WORD16 = "prim::CompactWord16"
_WORDS = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 8: np.dtype(np.uint64)}


def moved_as(dt):
    """(C++ type of the kernel, dtype the arrays are viewed as; None: passed as they are) for
    elements of dtype ``dt`` (one of :data:`DTYPES`)."""
    dt = np.dtype(dt)
    if dt in _dtypes.CTYPES:
        return _dtypes.CTYPES[dt], None
    if dt.itemsize == 16:  # complex128: NumPy and CuPy have no 16-byte word; the kernel reads it
        return WORD16, None
    word = _WORDS[dt.itemsize]
    return _dtypes.cname(word), word


def kernel_name(ctype, indices, pol):
    return (
        f"compact_lookback<{ctype if not indices else 'int'}, {pol.block}, {pol.items}, "
        f"{'true' if indices else 'false'}>"
    )


def names(pol, wide=False):
    """The module of ``pol``: the 16-byte element's kernel alone (``wide``: its tile must fit the
    static shared memory, so its policy is a selector of its own), else every other kernel."""
    if wide:
        return [kernel_name(WORD16, False, pol)]
    ctypes = dict.fromkeys(moved_as(d)[0] for d in DTYPES if d.itemsize < 16)
    return [kernel_name(c, False, pol) for c in ctypes] + [kernel_name(None, True, pol)]


for _pol in _policy.TABLE.policies():  # every policy of the table, for the NVRTC check
    _loader.register(SOURCE, names(_pol))
for _pol in _policy.TABLE.policies(_policy.WIDE):
    _loader.register(SOURCE, names(_pol, wide=True))


class CompactPlan(_lookback.LookbackPlan):
    """``x[mask]`` (``dt`` given) or ``flatnonzero(mask)`` (``dt`` None) over n elements."""

    def __init__(self, backend, dt, n, pol):
        indices = dt is None
        ctype, self.word = (None, None) if indices else moved_as(dt)
        wide = ctype == WORD16
        if wide and not _policy.fits_wide(pol):
            raise ValueError(
                f"compact: a tile of {pol.block} x {pol.items} 16-byte elements "
                f"does not fit the kernel's 48 KiB of static shared memory; use "
                f"a block of at most {_policy.WIDE_MAX_TILE // pol.items} threads"
            )
        k = _loader.load(SOURCE, names(pol, wide))(kernel_name(ctype, indices, pol))
        xp = backend.xp
        super().__init__(
            k, _launch.cdiv(n, pol.block * pol.items), pol.block, n, xp, INDEX_DTYPE.itemsize
        )
        # the result's length, written by the block of the last tile: read back as soon as
        # it is written; a launch whose caller knows the count writes it to the device instead
        self.count = _launch.HostCount(backend)
        self.unread = xp.empty(1, dtype=INDEX_DTYPE)
        self.nbytes += self.unread.nbytes
        self.empty, self.n = xp.empty, n
        self.out_dt = INDEX_DTYPE if indices else np.dtype(dt)
        # the arguments a kind does not use: one-element stand-ins of the right type
        self.stand_in = _launch.stand_in(backend, np.dtype(np.int32) if indices else INDEX_DTYPE)

    def __call__(self, x, mask):
        """The selected elements of ``x`` (or, for an indices plan called with ``x`` None, the
        indices of ``mask``'s true entries): arrays of the backend's own type, contiguous."""
        out = self.empty(self.n, dtype=self.out_dt)
        count = self.count
        if x is None:
            args = (self.stand_in, mask, self.n64, self.stand_in, out)
        elif self.word is None:
            args = (x, mask, self.n64, out, self.stand_in)
        else:
            w = self.word
            args = (x.view(w), mask, self.n64, out.view(w), self.stand_in)
        return out[: count.read("compaction", self.launch, *args, count.arg)]  # its length

    def indices_into(self, mask):
        """The indices of ``mask``'s true entries (an indices plan), in an array of n entries
        whose first ``count`` hold them: for a caller that knows the count (no host read)."""
        out = self.empty(self.n, dtype=self.out_dt)
        self.launch(self.stand_in, mask, self.n64, self.stand_in, out, self.unread)
        return out


def _current(dt):
    """The policy in force for elements of ``dt`` (None: indices): 16-byte ones have their own."""
    wide = dt is not None and np.dtype(dt).itemsize == _policy.WIDE
    return _policy.current(_policy.WIDE if wide else None)


def prefetch_plan(dt):
    """Start compiling the kernel of :func:`compact_plan`'s plan of ``dt`` (None: indices)
    under the policy in force, where kernels compile on first use: for a caller that compacts
    after other work, whose kernels then compile beside it."""
    ctype = None if dt is None else moved_as(dt)[0]
    _loader.prefetch(SOURCE, [kernel_name(ctype, dt is None, _current(dt))])


def compact_plan(backend, dt, n):
    """The plan of ``dt`` (None: indices) over n elements under the policy in force."""
    pol = _current(dt)
    key = ("compaction", dt, n, pol, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: CompactPlan(backend, dt, n, pol))

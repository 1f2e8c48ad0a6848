"""The segmented reduction's variant: tiles of elements (their loads through shared memory or
not) or a block per segment, chosen from the mean segment length under the ``"reduce"`` policy.
Called by segmented_reduce's prepare step only (once per plan, never per repeat call)."""

from __future__ import annotations

from . import _policy

#: the reduction's variants: a block per segment, tiles whose loads go through shared memory,
#: tiles that load straight into registers
REDUCTIONS = ("segments", "exchange", "tiles")


def exchanges(n, nseg, pol):
    """Whether the reduction's loads go through shared memory (long segments on average)."""
    return n >= pol.per_thread_below * nseg


def per_segment(n, nseg, pol):
    """Whether the reduction runs a block per segment (long segments on average; a grid that
    fits in one launch)."""
    if pol.per_segment_from <= 0 or n < pol.per_segment_from * nseg:
        return False
    return nseg + pol.split_blocks < 2**31  # chunk blocks: at most split_blocks


def reduction(n, nseg, pol=None):
    """The variant (one of :data:`REDUCTIONS`) of a reduction of n elements in nseg segments
    under ``pol`` (None: the ``"reduce"`` policy in force)."""
    pol = _policy.current("reduce") if pol is None else pol
    if per_segment(n, nseg, pol):
        return "segments"
    return "exchange" if exchanges(n, nseg, pol) else "tiles"

"""Launch plans of the single-pass decoupled look-back kernels (scan, segmented, compaction).

A plan holds one launch configuration's scratch: the tile counter (left at 0 by the kernel) and
the per-tile look-back state (status words and published values, zeroed once and never cleared:
each launch has its own epoch, see ``kernels/common/scan.cuh``). Plans are cached per
(configuration, device, stream): launches on one stream are ordered, so reusing the scratch is
safe, and another stream gets its own. A plan's first launch goes through the validating
:func:`primitives._core.launch.launch`; later ones are one call.
"""

from __future__ import annotations

import collections

import numpy as np

from . import launch as _launch

EPOCH_LIMIT = 1 << 30
MAX_PLANS = 64


STATUS_SPACING = 32  # bytes between two tiles' polled words (kernels/common/scan.cuh)


def state_bytes(tiles, value_bytes):
    """Bytes of ``TileStatus<T>`` state for ``tiles`` tiles of a ``value_bytes``-byte value
    (``kernels/common/scan.cuh``): one 8- or 16-byte descriptor per tile for values of at most
    12 bytes, otherwise a status word, each in its own ``STATUS_SPACING``-byte slot; wider values
    then take the aggregates and the inclusive prefixes after the slots."""
    if value_bytes <= 12:
        return STATUS_SPACING * tiles
    return STATUS_SPACING * tiles + 2 * value_bytes * tiles


class LookbackPlan:
    """Scratch and launch of one look-back kernel configuration.

    Every look-back kernel ends its parameter list with ``(tile_counter, tile_state, epoch)``;
    :meth:`launch` appends them. ``value_bytes`` is the size of the value the tiles publish;
    ``smem`` the dynamic shared memory of each launch.
    """

    __slots__ = ("kernel", "grid", "block", "counter", "state", "epoch", "n64", "validated",
                 "extra", "smem")

    def __init__(self, kernel, tiles, block, n, xp, value_bytes, smem=0):
        self.kernel, self.grid, self.block = kernel, (tiles,), (block,)
        self.counter = xp.zeros(1, dtype=np.uint32)
        self.state = xp.zeros(state_bytes(tiles, value_bytes), dtype=np.uint8)
        self.epoch = 0
        self.n64 = _launch.i64(n)
        self.validated = False
        self.extra = None  # kernel-specific scratch (compaction: the count)
        self.smem = smem  # dynamic shared memory bytes of each launch

    def next_epoch(self):
        self.epoch += 1
        if self.epoch >= EPOCH_LIMIT:  # wrap: clear the words so no stale epoch can match
            self.state.fill(0)
            self.epoch = 1
        return np.uint32(self.epoch)

    def launch(self, *args):
        full = args + (self.counter, self.state, self.next_epoch())
        if self.validated:
            self.kernel(self.grid, self.block, full, shared_mem=self.smem)
        else:
            _launch.launch(self.kernel, self.grid, self.block, full, shared_mem=self.smem)
            self.validated = True


class PlanCache:
    """Least-recently-created plans by key, at most :data:`MAX_PLANS`."""

    def __init__(self):
        self._plans = collections.OrderedDict()

    def get(self, key, make):
        plan = self._plans.get(key)
        if plan is None:
            plan = make()
            self.put(key, plan)
        return plan

    def find(self, key):
        """The plan of ``key``, or None."""
        return self._plans.get(key)

    def put(self, key, plan):
        self._plans[key] = plan
        if len(self._plans) > MAX_PLANS:
            self._plans.popitem(last=False)

    def items(self):
        return self._plans.items()

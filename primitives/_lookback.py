"""Launch plans of the single-pass decoupled look-back kernels (scan, segmented, compaction).

A plan holds one launch configuration's scratch: the tile counter (left at 0 by the kernel), the
per-tile status words (never cleared: each launch has its own epoch, see
``kernels/common/scan.cuh``) and the per-tile aggregate and inclusive values. Plans are cached per
(configuration, device, stream): launches on one stream are ordered, so reusing the scratch is
safe, and another stream gets its own. A plan's first launch goes through the validating
:func:`primitives._launch.launch`; later ones are one call.
"""

from __future__ import annotations

import collections

import numpy as np

from . import _launch

EPOCH_LIMIT = 1 << 30
MAX_PLANS = 64


class LookbackPlan:
    """Scratch and launch of one look-back kernel configuration.

    Every look-back kernel ends its parameter list with ``(tile_counter, tile_status,
    tile_aggregate, tile_inclusive, epoch)``; :meth:`launch` appends them. ``value_dtype`` and
    ``values_per_tile`` size the per-tile values (a pair type is stored as ``values_per_tile``
    words of ``uint32``).
    """

    __slots__ = ("kernel", "grid", "block", "counter", "status", "aggregate", "inclusive",
                 "epoch", "n64", "validated", "extra")

    def __init__(self, kernel, tiles, block, n, xp, value_dtype, values_per_tile=1):
        self.kernel, self.grid, self.block = kernel, (tiles,), (block,)
        self.counter = xp.zeros(1, dtype=np.uint32)
        self.status = xp.zeros(tiles, dtype=np.uint32)
        self.aggregate = xp.empty(tiles * values_per_tile, dtype=value_dtype)
        self.inclusive = xp.empty(tiles * values_per_tile, dtype=value_dtype)
        self.epoch = 0
        self.n64 = _launch.i64(n)
        self.validated = False
        self.extra = None  # kernel-specific scratch (compaction: the count)

    def next_epoch(self):
        self.epoch += 1
        if self.epoch >= EPOCH_LIMIT:  # wrap: clear the words so no stale epoch can match
            self.status.fill(0)
            self.epoch = 1
        return np.uint32(self.epoch)

    def launch(self, *args):
        full = args + (self.counter, self.status, self.aggregate, self.inclusive,
                       self.next_epoch())
        if self.validated:
            self.kernel(self.grid, self.block, full)
        else:
            _launch.launch(self.kernel, self.grid, self.block, full)
            self.validated = True


class PlanCache:
    """Least-recently-created plans by key, at most :data:`MAX_PLANS`."""

    def __init__(self):
        self._plans = collections.OrderedDict()

    def get(self, key, make):
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = make()
            if len(self._plans) > MAX_PLANS:
                self._plans.popitem(last=False)
        return plan

    def items(self):
        return self._plans.items()

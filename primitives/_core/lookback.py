"""Plans of the single-pass decoupled look-back kernels (scan, segmented, compaction).

A :class:`LookbackPlan` is the :class:`~primitives._core.plans.Plan` base of one look-back
kernel configuration: the tile counter (left at 0 by the kernel) and the per-tile look-back
state (status words and published values, zeroed once and never cleared: each launch has its own
epoch, see ``kernels/device/lookback.cuh``), and the kernel's :class:`~primitives._core.plans.
Launch`, checked once when the plan is made. Plans live in :data:`~primitives._core.plans.PLANS`
under keys that hold the stream: launches on one stream are ordered, so the scratch serves every
call on it, and another stream gets its own.

Every look-back kernel ends its parameter list with ``(tile_counter, tile_state, epoch)``;
:meth:`LookbackPlan.launch` appends them. The epoch is a new scalar per launch, so the launch
takes its whole argument tuple per call (a prepared launch's slots carry arrays).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from . import launch as _launch, loader as _loader, plans as _plans
from .backend import Array

__all__ = ["EPOCH_LIMIT", "STATUS_SPACING", "state_bytes", "advance_epoch", "LookbackPlan"]

EPOCH_LIMIT = 1 << 30

STATUS_SPACING = 32  # bytes between two tiles' polled words (kernels/device/lookback.cuh)


def state_bytes(tiles: int, value_bytes: int) -> int:
    """Bytes of ``TileStatus<T>`` state for ``tiles`` tiles of a ``value_bytes``-byte value
    (``kernels/device/lookback.cuh``): one 8- or 16-byte descriptor per tile for values of at
    most 12 bytes, otherwise a status word, each in its own ``STATUS_SPACING``-byte slot; wider
    values then take the aggregates and the inclusive prefixes after the slots."""
    if value_bytes <= 12:
        return STATUS_SPACING * tiles
    return STATUS_SPACING * tiles + 2 * value_bytes * tiles


def advance_epoch(epoch: int, words: Array) -> int:
    """The epoch after ``epoch`` for a launch whose kernel marks ``words`` (zeroed once) with
    it: ``epoch + 1``, or 1 after clearing ``words`` when that reaches :data:`EPOCH_LIMIT`, so
    that no stale mark can match."""
    epoch += 1
    if epoch >= EPOCH_LIMIT:
        words.fill(0)
        epoch = 1
    return epoch


class LookbackPlan(_plans.Plan):
    """Scratch and launch of one look-back kernel configuration: ``tiles`` blocks of ``block``
    threads over ``n`` elements, tiles publishing ``value_bytes``-byte values, ``smem`` bytes of
    dynamic shared memory per launch. Families subclass it with their ``__call__``."""

    def __init__(
        self,
        kernel: _loader.Kernel,
        tiles: int,
        block: int,
        n: int,
        xp: ModuleType,
        value_bytes: int,
        smem: int = 0,
    ) -> None:
        self.lookback = _plans.Launch(kernel, tiles, block, smem)  # checked here, once
        self.kernel, self.grid, self.block = kernel, self.lookback.grid, self.lookback.block
        self.smem = int(smem)
        self.counter = xp.zeros(1, dtype=np.uint32)
        self.state = xp.zeros(state_bytes(tiles, value_bytes), dtype=np.uint8)
        self.epoch = 0
        self.n64 = _launch.i64(n)
        self.nbytes = _plans.scratch_bytes(self.counter, self.state)

    def next_epoch(self) -> np.uint32:
        self.epoch = advance_epoch(self.epoch, self.state)
        return np.uint32(self.epoch)

    def launch(self, *args: Any) -> None:
        """One launch of the kernel with ``args`` and the look-back scratch appended; after
        :meth:`prepare`, ``args`` are the values of its slots only."""
        if self.lookback.args is None:
            self.lookback(*args, self.counter, self.state, self.next_epoch())
        else:
            self.lookback(*args, self.next_epoch())

    def prepare(self, *args: Any) -> None:
        """Fix the launch's arguments once: ``args`` (:data:`~primitives._core.plans.Launch.SLOT`
        where each call gives its own, in order) and the look-back scratch, the epoch a slot of
        its own (on the GPU the call then stores the slots' words and launches the kernel
        itself: :class:`~primitives._core.launch.Direct`)."""
        S = _plans.Launch.SLOT
        self.lookback = _plans.Launch(
            self.kernel,
            self.grid,
            self.block,
            self.smem,
            args=tuple(args) + (self.counter, self.state, S),
        )

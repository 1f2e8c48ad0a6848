"""Tuning policies in force, and overrides for experiments (advanced).

Each family keeps its tuning as data: frozen policy objects (block size, items per thread,
vector loads, blocks per SM...) keyed by architecture (``"sm_90"``, ``"sm_80"``, ``"default"``)
and a selector the family chooses (a dtype, a key width, a mode). A device uses the policy of the
newest architecture not above its own; the emulator uses ``"default"``.

>>> import primitives as prim
>>> prim.tuning.families()                                  # doctest: +SKIP
('histogram', 'reduction', 'scan', ...)
>>> prim.tuning.policy("reduction", "production")            # doctest: +SKIP
ProductionPolicy(block=1024, vectors=4, blocks_per_sm=2)
>>> with prim.tuning.override("reduction", selector="production", blocks_per_sm=4):
...     prim.sum(x)                                          # doctest: +SKIP

An override lasts for its ``with`` block and holds for the whole process (every thread). Plans
are keyed by the policy they were built with, so calls inside the block build (and cache) plans
of the overridden policy, and calls after it find their earlier plans again.

Every policy field declares the values it may hold; an override is checked against them before
its block starts (before any kernel compiles), and a value outside them is a one-line
``ValueError``: ``override("reduction", selector="production", block=1000)`` raises "tuning:
reduction policy field block=1000 is not allowed: a multiple of 32 from 32 to 1024".
``prim.tuning.table(family)`` prints the family's table, one ``arch, selector -> policy`` a line.
"""

from __future__ import annotations

from ._core.policy import current as _current, device_arch, families, override, table

__all__ = ["families", "policy", "table", "override", "device_arch", "wait_for_compiles"]


def policy(family, selector=None, *, arch=None):
    """The policy ``family`` uses for ``selector`` on the current device (or on ``arch``, e.g.
    ``"sm_80"``), overrides included."""
    return _current(family, selector, arch)


def wait_for_compiles():
    """Wait until every kernel that a first call ran compiled at NVRTC's fast level runs its
    default-level image, compiled in the background since (the CUDA backend without shipped
    binaries, NVRTC 12.8 or later; ``PRIMITIVES_COMPILE_TIERS=off`` compiles the default image
    at once). Returns whether it waited for any. Call it before timing a function (after its
    first call), so the timing is of the images every later call runs; the plans made before
    are rebuilt by the next call, so warm up again after a wait."""
    from ._core import loader

    return loader.settle()

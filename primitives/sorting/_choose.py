"""The sorts' choices, made once per plan (in the public functions' prepare steps): the variant
that sorts a call's keys, and the path of a segmented sort."""

from __future__ import annotations

from . import _policy

#: the variants of ``variant=`` (and ``"auto"``)
VARIANTS = ("split", "classic", "onesweep", "block")


def variant(name, n, itemsize, func):
    """The variant that sorts ``n`` keys of ``itemsize`` bytes: ``auto`` is the block sort from
    1 key up to the policy's limit, else onesweep; ``"block"`` only up to its capacity."""
    kb = max(4, itemsize)  # 1- and 2-byte keys are sorted as 4-byte images
    pol = _policy.block()
    if name == "auto":
        return "block" if 1 <= n <= pol.auto_max(kb) else "onesweep"
    if name == "block" and n > pol.capacity(kb):
        raise ValueError(
            f"{func}: variant 'block' sorts at most {pol.capacity(kb)} keys of "
            f"{itemsize} bytes (one block of {pol.block} threads), got {n}; use "
            f"'onesweep' or 'auto'"
        )
    return name


def block_max(pol=None):
    """The longest segment the segmented sort's on-chip kernels sort."""
    pol = _policy.segmented() if pol is None else pol
    return pol.block * pol.items


def on_chip(longest):
    """Whether a segmented sort whose longest segment is ``longest`` runs on chip (a warp or a
    block a segment), else device-wide (by key, then stably by segment number)."""
    return longest <= block_max()

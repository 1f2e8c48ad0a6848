"""Variant choice: the search ``variant="auto"`` runs, by the ``"search"`` policy's thresholds."""

from __future__ import annotations

from . import _policy
from ._kernels import SEARCHED_AS


def choose(variant, dt, n, m):
    """The variant that runs for m queries into n elements of common dtype ``dt``: ``variant``
    itself unless it is ``"auto"``; then ``"binary"`` for fewer than ``binary_max_queries``
    queries, else ``"indexed"`` for an ``a`` of at least ``indexed_min_bytes`` (in the kernels'
    dtype) and at most ``indexed_max_ratio`` elements per query, else ``"cached"``."""
    if variant != "auto":
        return variant
    pol = _policy.current()
    if m < pol.binary_max_queries:
        return "binary"
    if (
        n * SEARCHED_AS.get(dt, dt).itemsize >= pol.indexed_min_bytes
        and n <= pol.indexed_max_ratio * m
    ):
        return "indexed"
    return "cached"

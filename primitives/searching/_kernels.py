"""Kernel names: every instantiation of ``kernels/searching/searchsorted.cu``.

Kernels are instantiated per C++ type (:data:`CTYPES`); bool is searched as ``unsigned char``
and float16 and bfloat16 as float32 (:data:`SEARCHED_AS`: the caller converts, exactly and
order-preserving). One module per C++ type holds every kernel the variants launch for it under
the policy in force; every policy of the table is registered for the NVRTC check.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .._core import dtypes as _dtypes, loader as _loader
from . import _policy
from ._checks import VARIANTS

SOURCE = "searching/searchsorted.cu"
#: the dtypes the kernels search, each with its own instantiations
KERNEL_DTYPES = tuple(
    np.dtype(d)
    for d in (
        np.int8,
        np.uint8,
        np.int16,
        np.uint16,
        np.int32,
        np.uint32,
        np.int64,
        np.uint64,
        np.float32,
        np.float64,
        np.complex64,
        np.complex128,
    )
)
CTYPES = {d: _dtypes.KERNEL_CTYPES[d] for d in KERNEL_DTYPES}
#: what the kernels search a common dtype without kernels of its own as (bool: a view of its
#: bytes; float16 and bfloat16: converted to float32, exactly)
SEARCHED_AS = {
    np.dtype(np.bool_): np.dtype(np.uint8),
    **{d: np.dtype(np.float32) for d in _dtypes.FLOAT16S},
}
#: the C++ types of the queries' positions (sorted and bucketed variants): 32 bits below 2^32
#: queries
PERM_CTYPES = ("unsigned int", "unsigned long long")


def binary_name(ctype):
    return f"search_binary<{ctype}>"


def tree_name(ctype):
    return f"search_tree<{ctype}>"


def cached_name(ctype, pol):
    return f"search_cached<{ctype}, {pol.block}, {pol.items}>"


def bucket_names(ctype, perm, pol):
    """(bucket, scatter, buckets, gather) kernels of the bucketed variant."""
    return (
        f"search_bucket<{ctype}>",
        f"search_scatter<{ctype}, {perm}>",
        f"search_buckets<{ctype}, {pol.bucket_block}>",
        f"search_gather<{perm}>",
    )


def sorted_name(ctype, perm, pol):
    return f"search_sorted_tiles<{ctype}, {perm}, {pol.block}, {pol.tile_items}>"


#: the numbers of groups search_tile_range may take (the policy's range_groups)
RANGE_GROUPS = (2, 4, 8)


def range_name(ctype, tile, pol):
    """search_tile_range of tiles of ``tile`` queries (the indexed or the sorted variant's)."""
    return f"search_tile_range<{ctype}, {tile}, {pol.range_groups}>"


def index_name(ctype):
    return f"search_index<{ctype}>"


def indexed_name(ctype, pol):
    return f"search_indexed<{ctype}, {pol.index_block}, {pol.index_items}>"


def near_name(ctype, pol):
    """The near tiles of the indexed variant (its tiles of index_block * index_items queries)."""
    return f"search_near<{ctype}, {pol.index_block}, {pol.index_items}, {pol.near_prefetch}>"


def names(ctype, pol):
    """The module of one C++ type under ``pol``: every kernel the variants launch for it
    (:func:`variant_names` of each, with either type of the queries' positions)."""
    out = [
        name
        for variant in VARIANTS
        for perm in PERM_CTYPES
        for name in variant_names(ctype, perm, variant, pol)
    ]
    return list(dict.fromkeys(out))  # the two tile ranges may be one


def variant_names(ctype, perm, variant, pol):
    """The kernels a plan of ``variant`` launches for ``ctype`` (queries' positions of the C++
    type ``perm``) under ``pol``: what it asks for at once (compiled side by side on first use,
    :func:`~primitives._core.lazy.prefetch`) before it loads any."""
    if variant == "binary":
        return [binary_name(ctype)]
    if variant == "sorted":
        return [sorted_name(ctype, perm, pol), range_name(ctype, pol.block * pol.tile_items, pol)]
    if variant == "indexed":
        near = pol.near_bytes > 0
        ranges = [range_name(ctype, pol.index_block * pol.index_items, pol), near_name(ctype, pol)]
        return [index_name(ctype), indexed_name(ctype, pol)] + (ranges if near else [])
    if variant == "bucketed":
        return [tree_name(ctype), *bucket_names(ctype, perm, pol)]
    return [tree_name(ctype), cached_name(ctype, pol)]


def candidates(ctype, pol):
    """What an override of ``pol``'s ``near_prefetch`` or ``range_groups`` launches (checked by
    NVRTC, not shipped): the near tiles with the other choice of the L2 hint, the tile ranges
    with each other number of groups."""
    other = dataclasses.replace(pol, near_prefetch=1 - pol.near_prefetch)
    out = [near_name(ctype, other)]
    for groups in RANGE_GROUPS:
        if groups != pol.range_groups:
            g = dataclasses.replace(pol, range_groups=groups)
            tiles = (pol.index_block * pol.index_items, pol.block * pol.tile_items)
            out += [range_name(ctype, tile, g) for tile in dict.fromkeys(tiles)]
    return out


MODULES = _loader.PolicyModules(
    SOURCE,
    names,
    _policy.TABLE,
    tuple(CTYPES.values()),
    selector=lambda ctype: None,
    candidates=candidates,
)

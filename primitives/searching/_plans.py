"""Search plans: kernel names and the plan of one searchsorted configuration.

A :class:`SearchPlan` per (variant, dtype, n, m, policy, stream) holds the launches, checked once,
and the scratch: the level-ordered copy of the search tree's top levels (``cached`` and
``sorted``) and the queries' positions (``sorted``). A call is one launch (``binary``), two
(``cached``: the tree, then the search) or a sort of the queries and two (``sorted``).

Kernels are instantiated per C++ type (:data:`CTYPES`); bool is searched as ``unsigned char``
and float16 as float32 (the caller converts: exact, and order-preserving).
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes, launch as _launch, loader as _loader, plans as _plans
from . import _policy

SOURCE = "search/searchsorted.cu"
INDEX_DTYPE = np.dtype(np.int64)  # numpy.searchsorted's intp
#: the dtypes the kernels search, each with its own instantiations
KERNEL_DTYPES = tuple(np.dtype(d) for d in (np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                            np.uint32, np.int64, np.uint64, np.float32,
                                            np.float64))
CTYPES = {d: _dtypes.KERNEL_CTYPES[d] for d in KERNEL_DTYPES}
#: what the kernels search a common dtype without kernels of its own as (bool: a view of its
#: bytes; float16: converted to float32, exactly)
SEARCHED_AS = {np.dtype(np.bool_): np.dtype(np.uint8), np.dtype(np.float16): np.dtype(np.float32)}
#: the types of the queries' positions in the sorted variant (``void``: no scatter)
PERM_CTYPES = ("void", "unsigned int", "unsigned long long")
MAX_LEVELS = 30


def binary_name(ctype):
    return f"search_binary<{ctype}>"


def tree_name(ctype):
    return f"search_tree<{ctype}>"


def cached_name(ctype, perm, pol):
    return f"search_cached<{ctype}, {perm}, {pol.block}, {pol.items}>"


def names(ctype, pol):
    """The module of one C++ type under ``pol``: every kernel the variants launch for it."""
    return ([binary_name(ctype), tree_name(ctype)] +
            [cached_name(ctype, p, pol) for p in PERM_CTYPES])


MODULES = _loader.PolicyModules(SOURCE, names, _policy.TABLE, tuple(CTYPES.values()),
                                selector=lambda ctype: None)


def levels(dt, n, pol):
    """Levels of the tree kept in shared memory: as many as ``pol.tree_bytes`` holds, at most
    the search's depth (floor(log2(n)) + 1)."""
    fit = max(1, (pol.tree_bytes // np.dtype(dt).itemsize).bit_length() - 1)
    return max(1, min(fit, int(n).bit_length(), MAX_LEVELS))


class SearchPlan(_plans.Plan):
    """``searchsorted`` of m queries into n elements of the kernel dtype ``dt`` with ``variant``
    ("binary", "cached" or "sorted") under ``pol``."""

    def __init__(self, backend, dt, n, m, variant, pol):
        ctype = CTYPES[dt]
        xp = backend.xp
        self.xp, self.variant, self.m = xp, variant, m
        self.n64, self.m64 = _launch.i64(n), _launch.i64(m)
        if variant == "binary":
            k = MODULES.kernel(ctype, binary_name(ctype), pol)
            self.search = _plans.Launch(k, _launch.cover_grid(m, pol.binary_block, kernel=k),
                                        pol.binary_block)
            return
        self.levels = levels(dt, n, pol)
        tree_bytes = -(-((1 << self.levels) * dt.itemsize) // 16) * 16
        self.tree = xp.empty(tree_bytes // dt.itemsize, dtype=dt)
        self.nbytes = self.tree.nbytes
        kt = MODULES.kernel(ctype, tree_name(ctype), pol)
        nodes = (1 << self.levels) - 1
        self.build = _plans.Launch(kt, _launch.cover_grid(nodes, 256, kernel=kt), 256)
        self.perm = None
        perm = "void"
        if variant == "sorted":
            pdt = np.dtype(np.uint32) if m < (1 << 32) else np.dtype(np.uint64)
            perm = _dtypes.CTYPES[pdt]
            self.perm = xp.arange(m, dtype=pdt)  # the values sorted alongside the queries
            self.nbytes += self.perm.nbytes
        kc = MODULES.kernel(ctype, cached_name(ctype, perm, pol), pol)
        grid = _launch.cover_grid(m, pol.block, pol.items, kernel=kc, shared_mem=tree_bytes)
        self.search = _plans.Launch(kc, grid, pol.block, tree_bytes)
        self.tree_vectors = np.int32(tree_bytes // 16)
        self.stand_in = _launch.stand_in(backend, np.uint32)

    def __call__(self, a, v, right):
        """The int64 insertion points of the 1-D queries ``v`` into ``a`` (contiguous arrays of
        the plan's dtype and sizes, of the backend's own type); ``right``: side "right"."""
        out = self.xp.empty(self.m, dtype=INDEX_DTYPE)
        side = np.int32(bool(right))
        if self.variant == "binary":
            self.search(a, self.n64, v, self.m64, side, out)
            return out
        lv = np.int32(self.levels)
        self.build(a, self.n64, lv, self.tree)
        perm = self.stand_in
        if self.variant == "sorted":
            from ..sorting import radix_sort

            v, perm = radix_sort(v, self.perm)
        self.search(a, self.n64, self.tree, lv, self.tree_vectors, v, self.m64, side, perm, out)
        return out


def search_plan(backend, dt, n, m, variant):
    """The plan of ``variant`` for m queries into n elements of kernel dtype ``dt`` under the
    policy in force."""
    pol = _policy.current()
    key = ("search", variant, dt, n, m, pol, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: SearchPlan(backend, dt, n, m, variant, pol))

"""Search plans: the plan of one searchsorted configuration, and its call on arrays as they are.

A :class:`SearchPlan` per (variant, dtype, n, m, policy, stream) holds the launches, checked once,
and the scratch: the level-ordered copy of the search tree's top levels (``cached`` and
``bucketed``), the index's levels above ``a`` (``indexed``), the queries' positions
(``sorted``), and the buckets' counts and cursors and the queries grouped by bucket
(``bucketed``). A call is one launch (``binary``), two (``cached``: the
tree, then the search), two to four (``indexed``: the tiles' ranges when there are near tiles,
the index's levels unless ``a`` fits the shared memory, the search, the near tiles; with near
tiles the index's build and the search return at once on the device when every tile is near),
a sort of the queries and two (``sorted``), or the tree, the buckets, their offsets (the
project's scan), the grouping and the search (``bucketed``).

The kernels (:mod:`._kernels`) search their own dtypes; :func:`searched` gives an array in the
kernels' dtype for a common dtype.
"""

from __future__ import annotations

import numpy as np

from .._core import (
    dtypes as _dtypes,
    launch as _launch,
    loader as _loader,
    lookback as _lookback,
    plans as _plans,
)
from . import _policy
from ._kernels import (
    CTYPES,
    MODULES,
    SOURCE,
    SEARCHED_AS,
    binary_name,
    bucket_names,
    cached_name,
    index_name,
    indexed_name,
    near_name,
    range_name,
    sorted_name,
    tree_name,
    variant_names,
)

INDEX_DTYPE = np.dtype(np.int64)  # numpy.searchsorted's intp
MAX_LEVELS = 30


def levels(dt, n, pol):
    """Levels of the tree kept in shared memory: as many as ``pol.tree_bytes`` holds, at most
    the search's depth (floor(log2(n)) + 1)."""
    fit = max(1, (pol.tree_bytes // np.dtype(dt).itemsize).bit_length() - 1)
    return max(1, min(fit, int(n).bit_length(), MAX_LEVELS))


def bucket_levels(dt, n, m, pol):
    """Levels of the bucketed variant's tree (2^levels buckets): enough that a bucket's part of
    a (n / 2^levels elements at most) fits ``pol.bucket_bytes`` and that the buckets average
    ``pol.bucket_queries`` queries, at most ``pol.bucket_max_levels`` and the search's depth."""
    cap = max(1, pol.bucket_bytes // np.dtype(dt).itemsize)
    fit = (-(-n // cap) - 1).bit_length()
    spread = max(1, m // pol.bucket_queries).bit_length() - 1
    return max(1, min(pol.bucket_max_levels, int(n).bit_length(), max(fit, spread)))


#: entries of a group of the indexed variant's levels (FANOUT in the kernel)
FANOUT = 16


def index_levels(dt, n, pol):
    """The indexed variant's levels: ``(depth, sizes)``, ``sizes[k]`` the entries of level k
    (level 0 is ``a``, level k every 16^k-th element), ``depth`` the first level that
    ``pol.index_bytes`` of shared memory holds."""
    cap = max(FANOUT, pol.index_bytes // np.dtype(dt).itemsize)
    sizes = [int(n)]
    while sizes[-1] > cap:
        sizes.append(-(-sizes[-1] // FANOUT))
    return len(sizes) - 1, sizes


class SearchPlan(_plans.Plan):
    """``searchsorted`` of m queries into n elements of the kernel dtype ``dt`` with ``variant``
    ("binary", "cached", "indexed", "sorted" or "bucketed") under ``pol``."""

    def __init__(self, backend, dt, n, m, variant, pol):
        ctype = CTYPES[dt]
        xp = backend.xp
        self.xp, self.variant, self.m = xp, variant, m
        self.n64, self.m64 = _launch.i64(n), _launch.i64(m)
        # the queries' positions (sorted: the values sorted alongside them)
        pdt = np.dtype(np.uint32) if m < (1 << 32) else np.dtype(np.uint64)
        perm = _dtypes.CTYPES[pdt]
        _loader.prefetch(SOURCE, variant_names(ctype, perm, variant, pol))  # at once
        if variant == "binary":
            k = MODULES.kernel(ctype, binary_name(ctype), pol)
            self.search = _plans.Launch(
                k, _launch.cover_grid(m, pol.binary_block, kernel=k), pol.binary_block
            )
            return
        if variant == "indexed":
            self._indexed(backend, ctype, dt, n, m, pol)
            return
        if variant == "sorted":
            self.perm = xp.arange(m, dtype=pdt)
            self.nbytes = self.perm.nbytes
            ks = MODULES.kernel(ctype, sorted_name(ctype, perm, pol), pol)
            cap = pol.tile_bytes // dt.itemsize
            self.cap = _launch.i64(cap)
            smem = cap * dt.itemsize
            grid = _launch.cover_grid(m, pol.block, pol.tile_items, kernel=ks, shared_mem=smem)
            self.search = _plans.Launch(ks, grid, pol.block, smem)
            # the ranges of the tiles of sorted queries: no index, never stopped early (span n)
            self._tile_ranges(ctype, m, pol.block * pol.tile_items, pol)
            return
        bucketed = variant == "bucketed"
        self.levels = bucket_levels(dt, n, m, pol) if bucketed else levels(dt, n, pol)
        tree_bytes = -(-((1 << self.levels) * dt.itemsize) // 16) * 16
        # zeroed once: the search copies the tree in 16-byte vectors, entry 0, the absent nodes'
        # entries and the padding with them, and search_tree writes only the nodes (the same for
        # every call of this plan: they depend on n alone); their values are never used
        self.tree = xp.zeros(tree_bytes // dt.itemsize, dtype=dt)
        self.nbytes = self.tree.nbytes
        kt = MODULES.kernel(ctype, tree_name(ctype), pol)
        nodes = (1 << self.levels) - 1
        self.build = _plans.Launch(kt, _launch.cover_grid(nodes, 256, kernel=kt), 256)
        self.tree_vectors = np.int32(tree_bytes // 16)
        if bucketed:
            self._bucketed(backend, ctype, dt, pdt, perm, n, m, pol, tree_bytes)
            return
        kc = MODULES.kernel(ctype, cached_name(ctype, pol), pol)
        grid = _launch.cover_grid(m, pol.block, pol.items, kernel=kc, shared_mem=tree_bytes)
        self.search = _plans.Launch(kc, grid, pol.block, tree_bytes)

    def _indexed(self, backend, ctype, dt, n, m, pol):
        """The index's levels above ``a`` (one buffer, each level padded to 16 entries), the
        launch that builds them and the search's, with the top level in shared memory."""
        depth, sizes = index_levels(dt, n, pol)
        self.depth = np.int32(depth)
        above = sum(-(-s // FANOUT) * FANOUT for s in sizes[1:])
        self.index = self.xp.empty(max(above, 1), dtype=dt)
        self.nbytes = self.index.nbytes
        kb = MODULES.kernel(ctype, index_name(ctype), pol)
        self.build = (
            _plans.Launch(kb, _launch.cover_grid(sizes[1], 256, kernel=kb), 256) if depth else None
        )
        # the index's build and the indexed search are gated on a tile that is not near
        # (search_tile_range sets far[0] to the call's epoch, the look-back scans' epochs:
        # lookback.advance_epoch; epoch 0: ungated, no near tiles)
        self.epoch = 0
        ks = MODULES.kernel(ctype, indexed_name(ctype, pol), pol)
        smem = -(-(sizes[-1] * dt.itemsize) // 16) * 16
        grid = _launch.cover_grid(m, pol.index_block, pol.index_items, kernel=ks, shared_mem=smem)
        self.search = _plans.Launch(ks, grid, pol.index_block, smem)
        # each tile's range of answers (near tiles: sorted queries search it alone, in shared
        # memory, by search_near; the indexed search skips them)
        span = pol.near_bytes // dt.itemsize if pol.near_bytes else -1
        self.span = _launch.i64(span)
        self.near = None
        if pol.near_bytes:
            self._tile_ranges(ctype, m, pol.index_block * pol.index_items, pol)
            kn = MODULES.kernel(ctype, near_name(ctype, pol), pol)
            nsmem = -(-((span + 2) * dt.itemsize) // 16) * 16  # the range and its neighbours
            grid = _launch.cover_grid(
                m, pol.index_block, pol.index_items, kernel=kn, shared_mem=nsmem
            )
            self.near = _plans.Launch(kn, grid, pol.index_block, nsmem)
        else:  # no ranges kernel; the search reads no bounds and is not gated
            self.ranges = None
            self.bounds = _launch.stand_in(backend, INDEX_DTYPE)
            self.far = _launch.stand_in(backend, np.dtype(np.uint32))

    def _tile_ranges(self, ctype, m, tile, pol):
        """``bounds`` (two answers a tile of ``tile`` queries), ``far`` (the epoch of the last
        call that found a tile not near) and ``ranges``, the launch of search_tile_range that
        finds them (a warp per ``range_groups`` - 1 tiles)."""
        tiles = _launch.cdiv(m, tile)
        self.bounds = self.xp.empty(2 * tiles, dtype=INDEX_DTYPE)
        self.far = self.xp.zeros(1, dtype=np.uint32)
        self.nbytes += self.bounds.nbytes + self.far.nbytes
        kr = MODULES.kernel(ctype, range_name(ctype, tile, pol), pol)
        tasks = _launch.cdiv(tiles, pol.range_groups - 1)  # a warp's range_groups - 1 tiles
        self.ranges = _plans.Launch(kr, _launch.cover_grid(tasks * 32, 256, kernel=kr), 256)

    def _bucketed(self, backend, ctype, dt, pdt, perm, n, m, pol, tree_bytes):
        """The launches and scratch of the bucketed variant: 2^levels buckets."""
        xp = backend.xp
        kb, ks, kk, kg = (MODULES.kernel(ctype, k, pol) for k in bucket_names(ctype, perm, pol))
        buckets = 1 << self.levels
        self.count = xp.empty(buckets + 1, dtype=np.uint64)  # the last stays 0: offsets[-1] = m
        self.cursor = xp.empty(buckets, dtype=np.uint64)
        self.bucket = xp.empty(m, dtype=np.uint32)
        self.qv, self.pos = xp.empty(m, dtype=dt), xp.empty(m, dtype=pdt)
        self.grouped = xp.empty(m, dtype=INDEX_DTYPE)
        self.nbytes += _plans.scratch_bytes(
            self.count, self.cursor, self.bucket, self.qv, self.pos, self.grouped
        )
        # the grouping kernels: a chunk of queries per block, counted in shared memory
        smem = tree_bytes + 4 * buckets
        grid = _launch.cover_grid(m, pol.block, kernel=kb, shared_mem=smem)
        self.chunk = _launch.i64(_launch.cdiv(m, grid))
        self.bucket_of = _plans.Launch(kb, _launch.cdiv(m, int(self.chunk)), pol.block, smem)
        self.scatter = _plans.Launch(ks, _launch.cdiv(m, int(self.chunk)), pol.block, 12 * buckets)
        cap = pol.bucket_bytes // dt.itemsize
        self.cap = _launch.i64(cap)
        smem = cap * dt.itemsize
        grid = _launch.cover_grid(buckets, 1, kernel=kk, shared_mem=smem)
        self.search = _plans.Launch(kk, grid, pol.bucket_block, smem)
        self.gather = _plans.Launch(kg, _launch.cover_grid(m, 256, kernel=kg), 256)

    def __call__(self, a, v, right):
        """The int64 insertion points of the 1-D queries ``v`` into ``a`` (contiguous arrays of
        the plan's dtype and sizes, of the backend's own type); ``right``: side "right"."""
        out = self.xp.empty(self.m, dtype=INDEX_DTYPE)
        side = np.int32(bool(right))
        if self.variant == "binary":
            self.search(a, self.n64, v, self.m64, side, out)
            return out
        if self.variant == "indexed":
            epoch = np.uint32(0)
            if self.ranges is not None:  # first: they tell whether the index is needed
                self.epoch = _lookback.advance_epoch(self.epoch, self.far)
                epoch = np.uint32(self.epoch)
                ranges_args = (side, self.span, self.bounds, self.far, epoch)
                self.ranges(a, self.n64, v, self.m64, *ranges_args)
            if self.build is not None:
                self.build(a, self.n64, self.depth, self.index, self.far, epoch)
            args = (v, self.m64, side, self.bounds, self.span, self.far, epoch, out)
            self.search(a, self.n64, self.index, self.depth, *args)
            if self.near is not None:
                self.near(a, self.n64, v, self.m64, side, self.bounds, self.span, out)
            return out
        if self.variant == "sorted":
            from ..sorting import argsort, radix_sort

            if v.dtype.kind == "c":  # complex: sorted in NumPy's order through their images
                order = argsort(v)
                sv, perm = v[order], order.astype(self.perm.dtype)
            else:
                sv, perm = radix_sort(v, self.perm)
            ranges_args = (side, self.n64, self.bounds, self.far, np.uint32(0))
            self.ranges(a, self.n64, sv, self.m64, *ranges_args)
            self.search(a, self.cap, self.bounds, sv, self.m64, side, perm, out)
            return out
        lv = np.int32(self.levels)
        self.build(a, self.n64, lv, self.tree)
        if self.variant == "bucketed":
            return self._search_buckets(a, v, side, lv, out)
        self.search(a, self.n64, self.tree, lv, self.tree_vectors, v, self.m64, side, out)
        return out

    def _search_buckets(self, a, v, side, lv, out):
        """Each query's bucket and the buckets' sizes, their offsets (the project's scan), the
        queries grouped by bucket, then a block per bucket finishes their searches."""
        from ..scan import exclusive_scan

        self.count.fill(0)
        self.bucket_of(
            self.tree,
            lv,
            self.tree_vectors,
            self.n64,
            v,
            self.m64,
            self.chunk,
            side,
            self.bucket,
            self.count,
        )
        offsets = exclusive_scan(self.count)
        self.cursor[...] = offsets[:-1]
        self.scatter(v, self.bucket, self.m64, self.chunk, lv, self.cursor, self.qv, self.pos)
        self.search(a, self.n64, lv, self.cap, offsets, self.qv, side, self.grouped)
        self.gather(self.grouped, self.pos, self.m64, out)
        return out


def search_plan(backend, dt, n, m, variant):
    """The plan of ``variant`` for m queries into n elements of kernel dtype ``dt`` under the
    policy in force."""
    pol = _policy.current()
    key = ("search", variant, dt, n, m, pol, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: SearchPlan(backend, dt, n, m, variant, pol))


def searched(arr, dt):
    """``arr`` in the kernels' dtype for the common dtype ``dt`` (no copy where it already is:
    bool is viewed as its bytes)."""
    kdt = SEARCHED_AS.get(dt, dt)
    if arr.dtype == kdt:
        return arr
    if arr.dtype == np.bool_ and kdt == np.uint8:
        return arr.view(kdt)
    return arr.astype(kdt)


class Direct:
    """A plan's call on arrays as they are (of the backend's own type, of one dtype ``dt``, as
    :func:`._checks.as_is` accepts): what a repeat call and ``prim.plan`` run."""

    __slots__ = ("plan", "right", "bool")

    def __init__(self, plan, right, dt):
        self.plan, self.right, self.bool = plan, right, dt == np.bool_

    def __call__(self, a, v):
        if self.bool:
            a, v = a.view(np.uint8), v.view(np.uint8)
        return self.plan(a, v.reshape(-1), self.right).reshape(v.shape)

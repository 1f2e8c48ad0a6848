"""Radix sort family: ``sort``, ``argsort``, ``radix_sort`` and ``segmented_sort``.

Variants (``variant=``), each named kernels in ``kernels/sort/`` built from the helpers of
``kernels/sort/radix.cuh``:

=========  ====================================================================================
split      one bit per pass: flag the keys whose bit is 0, scan the flags (the project's scan),
           scatter the 0s then the 1s; the teaching variant (``split.cu``)
classic    4-bit digits, three launches per pass: per-tile digit histograms, one scan of them
           (the project's scan), a scatter that ranks each tile in shared memory so writes are
           coalesced (``classic.cu``)
onesweep   8-bit digits: one histogram pass for all digit passes, then one kernel per pass that
           ranks a tile in shared memory and finds its output position by decoupled look-back
           over tiles; passes whose digit is constant are skipped, decided on the device
           (``onesweep.cu``)
auto       ``onesweep``
=========  ====================================================================================

Keys are sorted as unsigned bit patterns (32 or 64 bits) under an order-preserving image computed
on the fly (sign flip for signed integers; for floats NumPy's order: -inf < ... < -0.0 = 0.0 < ...
< inf < NaN); 8- and 16-bit keys are widened to 32 bits first. Every sort is stable.
"""

from __future__ import annotations

import numpy as np

from ._core import plans as _plans, backend as _backend, checks as _checks, dtypes as _dtypes, launch as _launch, loader as _loader, lookback as _lookback

__all__ = ["sort", "argsort", "radix_sort", "segmented_sort", "VARIANTS", "KEY_DTYPES"]

VARIANTS = ("split", "classic", "onesweep")

KEY_DTYPES = tuple(np.dtype(d) for d in (np.uint8, np.uint16, np.uint32, np.uint64, np.int8,
                                         np.int16, np.int32, np.int64, np.float32, np.float64))
_KEY_SET = frozenset(KEY_DTYPES)
_KIND = {"u": 0, "i": 1, "f": 2}  # prim::radix::KeyKind
_U = {4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}
_C = {b: _dtypes.CTYPES[d] for b, d in _U.items()}  # C++ type of the key bits
_INDEX = np.dtype(np.int64)  # argsort's result, as numpy.argsort

# ---- instantiations ---------------------------------------------------------------------------
# A value configuration is the value width in bytes, 0 for keys only.
_VCFGS = (0, 4, 8)


def _vc(vbytes):
    """(C++ value type, VALUES flag) of a value configuration (keys only: an unused u32)."""
    return (_C[vbytes] if vbytes else "unsigned int"), ("true" if vbytes else "false")


# onesweep: (key bytes, value bytes) -> (BLOCK, ITEMS, MIN_BLOCKS, look-back WINDOW, MATCH)
# MATCH: 0 = ballots, 1 = shared lane masks (each lane's bit added in), one per digit modulo 32,
# and ballots for the digit bits above the fifth (prim::radix::Match)
_OS_SOURCE = "sort/onesweep.cu"
# Measured on an H100 (tools/tune_sort.py --configs ..., n = 2^27): larger tiles win, as each tile
# pays one look-back per digit and its barriers, up to the register file of two blocks of 256 per
# SM: 4-byte keys 256 x 36 3.33 ms (256 x 16, four blocks: 3.80; x 44: 3.98), pairs of 4-byte keys
# and values 256 x 32 5.06-5.13 (256 x 16, three blocks: 6.03-6.32), 8-byte keys 256 x 28 8.62
# (256 x 12, three blocks: 10.02), 4-byte keys with 8-byte values 256 x 24 6.81 (256 x 12: 8.17),
# 8-byte keys with 4-byte values 256 x 24 13.41 (16.08), 8-byte pairs 256 x 20 16.71 (18.53).
# With the leaner full-tile pass (two runs, --top 3..8): 4-byte keys 256 x 36 3.14 (x 32: 3.32,
# x 28: 3.29-3.41; three blocks of 256 x 24 or 20, two of 512 x 16 or 18, and ranking two items
# per round of lane masks: all slower), pairs 256 x 32 4.99-5.01 (x 28: 5.09), 8-byte keys 256 x
# 24 8.15-8.39 (x 28: 8.77-8.87; two items per round 9.01).
# With the lane masks folded to one per digit modulo 32 (docs/performance.md), larger tiles pay
# again: 4-byte keys 256 x 40 2.71 ms (x 36: 2.78), 8-byte keys 256 x 28 7.76 (x 24: 7.94).
# With the flip on the shifted digit (341d25b), 4-byte keys: 256 x 41 passes 1.3% faster than
# x 40 (x 38, 39: no faster; x 42: 0.7% slower; x 43 spills).
_OS_POLICY = {(4, 0): (256, 41, 2, 8, 1), (4, 4): (256, 32, 2, 8, 1), (4, 8): (256, 24, 2, 8, 1),
              (8, 0): (256, 28, 2, 8, 1), (8, 4): (256, 24, 2, 8, 1), (8, 8): (256, 20, 2, 8, 1)}
# the all-pass histogram: one block of 1024 threads per SM, 128 KB of lane-private shared counters
# (kernels/sort/onesweep.cu: OsHist), VECS 16-byte loads in flight per thread
_OS_HIST_BLOCK = 1024
_OS_HIST_SMEM = 4 * 256 * 32 * 4
_OS_HIST_VECS = 8  # an H100: 0.186 ms for 2^27 uint32 keys, 4: 0.194, 2: 0.204
_OS_PLAN_WORDS = 8
_OS_FLAGS = {"iota": 1, "wide": 2, "discard_keys": 4}  # prim::radix::ValueFlags
_COUNT_LIMIT = (1 << 29) - 1  # the 29-bit counts of a look-back status word bound a portion


def _os_names():
    names = [f"onesweep_histogram<{_C[k]}, {_OS_HIST_BLOCK}>" for k in (4, 8)]
    names.append("onesweep_plan")
    for k in (4, 8):
        for v in _VCFGS:
            names.append(_os_pass_name(k, v))
    return names


def _os_hist_grid(kernel, n, kb):
    """Grid of onesweep_histogram for n keys of kb bytes: the resident blocks (fewer for small n),
    more (in whole waves) when a block's share would overflow its counters. The threads of a
    block that share a lane column (one per warp) may count 2^16 - 1 keys together with 8-byte
    keys (16-bit halves), 2^32 - 1 with 4-byte keys; a thread takes at most ceil(packets /
    threads) packets, a head key and a tail key."""
    per = 16 // kb  # keys per packet
    column_max = 0xFFFF if kb == 8 else 0xFFFFFFFF
    threads = _OS_HIST_BLOCK // 32  # per lane column
    per_thread = (column_max // threads - 2) // per * per  # keys, head and tail aside
    resident = _launch.resident_grid(kernel, _OS_HIST_BLOCK, _OS_HIST_SMEM)
    grid = min(_launch.cdiv(n, _OS_HIST_BLOCK * per * _OS_HIST_VECS), resident)
    need = _launch.cdiv(n, _OS_HIST_BLOCK * per_thread)
    if need > grid:
        grid = _launch.cdiv(need, resident) * resident
    return max(1, grid)


def _os_pass_name(kb, vb):
    block, items, min_blocks, window, match = _OS_POLICY[(kb, vb)]
    vt, has = _vc(vb)
    return (f"onesweep_pass<{_C[kb]}, {vt}, {has}, {block}, {items}, {min_blocks}, {window}, "
            f"{match}>")


def _tile_smem(block, items, kv, bits):
    """Dynamic shared memory of a ranked-tile kernel: rank counters (rounded up to 16 bytes),
    then the tile's keys or values (prim::radix::rank_counters and the kernels' layout)."""
    warps = block // 32
    masks = min(1 << bits, 32)  # prim::radix::rank_masks
    counters = 4 * (warps * ((1 << bits) + 1) + warps * masks)
    return -(-counters // 16) * 16 + block * items * kv


# classic: 4-bit digits over tiles of BLOCK * ITEMS keys
_CL_SOURCE = "sort/classic.cu"
_CL_BITS, _CL_BLOCK, _CL_ITEMS = 4, 256, 16


def _cl_names():
    names = [f"classic_histogram<{_C[k]}, {_CL_BLOCK}, {_CL_ITEMS}, {_CL_BITS}>" for k in (4, 8)]
    for k in (4, 8):
        for v in _VCFGS:
            vt, has = _vc(v)
            names.append(f"classic_scatter<{_C[k]}, {vt}, {has}, {_CL_BLOCK}, {_CL_ITEMS}, "
                         f"{_CL_BITS}>")
    return names


_SP_SOURCE = "sort/split.cu"


def _sp_names():
    names = [f"split_flags<{_C[k]}>" for k in (4, 8)]
    for k in (4, 8):
        for v in _VCFGS:
            vt, has = _vc(v)
            names.append(f"split_scatter<{_C[k]}, {vt}, {has}>")
    return names


# segmented: a warp per segment of up to 32 * _SEG_WARP_ITEMS keys, a block per segment of up to
# _SEG_BLOCK * _SEG_ITEMS keys; longer segments take the device-wide path
_SEG_SOURCE = "sort/segsort.cu"
_SEG_WARP_ITEMS = 4
_SEG_BLOCK, _SEG_ITEMS = 256, 8
_SEG_WARP_MAX = 32 * _SEG_WARP_ITEMS
_SEG_BLOCK_MAX = _SEG_BLOCK * _SEG_ITEMS


def _seg_names():
    names = []
    for k in (4, 8):
        for v in _VCFGS:
            vt, has = _vc(v)
            names.append(f"segsort_warp<{_C[k]}, {vt}, {has}, {_SEG_WARP_ITEMS}>")
            names.append(f"segsort_block<{_C[k]}, {vt}, {has}, {_SEG_BLOCK}, {_SEG_ITEMS}>")
    return names


_NAMES = {_OS_SOURCE: _os_names(), _CL_SOURCE: _cl_names(), _SP_SOURCE: _sp_names(),
          _SEG_SOURCE: _seg_names()}
for _src, _names in _NAMES.items():
    _loader.register(_src, _names)


def _kernel(source, name):
    if name not in _NAMES[source]:  # a policy being tuned (tools/tune_sort.py): its own module
        return _loader.load(source, [name])(name)
    return _loader.load(source, _NAMES[source])(name)


_validated = set()


def _go(kernel, grid, block, args, shared_mem=0):
    """Launch; the first launch of a configuration goes through the validating
    :func:`primitives._core.launch.launch`."""
    key = (id(kernel), grid, block, shared_mem)
    if key in _validated:
        kernel((grid,), (block,), args, shared_mem=shared_mem)
        return
    _launch.launch(kernel, grid, block, args, shared_mem=shared_mem)
    _validated.add(key)



def _i32(v):
    return np.int32(v)


# ---- keys and values as bit patterns ----------------------------------------------------------


def _key_bits(arr):
    """(unsigned bit array of 4 or 8 bytes, kind, key bits): a view for 32/64-bit keys; 8- and
    16-bit keys are widened to their order-preserving uint32 image."""
    dt = arr.dtype
    if dt.itemsize >= 4:
        return arr.view(_U[dt.itemsize]), _KIND[dt.kind], 8 * dt.itemsize
    u = arr.view(np.dtype(f"u{dt.itemsize}"))
    if dt.kind == "i":
        u = u ^ u.dtype.type(1 << (8 * dt.itemsize - 1))
    return u.astype(np.uint32), 0, 8 * dt.itemsize


def _key_back(bits, dt):
    """Inverse of :func:`_key_bits`."""
    if dt.itemsize >= 4:
        return bits.view(dt)
    u = bits.astype(np.dtype(f"u{dt.itemsize}"))
    if dt.kind == "i":
        u ^= u.dtype.type(1 << (8 * dt.itemsize - 1))
    return u.view(dt)


def _native_values(arr):
    """The values as uint32/uint64 bits when they are 4 or 8 bytes wide (any dtype), else None."""
    if arr.dtype.itemsize in _U and arr.dtype.hasobject is False and arr.dtype.fields is None:
        return arr.view(_U[arr.dtype.itemsize])
    return None


def _index_dtype(n):
    return np.dtype(np.uint32) if n < (1 << 32) else np.dtype(np.uint64)


# ---- the three device-wide sorts --------------------------------------------------------------


class _Job:
    """One sort of n >= 1 bit-pattern keys over [begin, end) with optional values.

    ``values``: None (keys only), an unsigned array, or ``"iota"`` (each element's index, as the
    index dtype). ``wide``: return values widened to int64. ``want_keys``: False lets the last
    pass skip writing keys (argsort)."""

    def __init__(self, kbits, kind, begin, end, descending, values, wide, want_keys, backend):
        self.kbits, self.kind, self.begin, self.end = kbits, kind, begin, end
        self.desc = descending
        self.n = kbits.size
        self.values, self.wide, self.want_keys = values, wide, want_keys
        self.backend = backend
        self.xp = backend.xp
        self.kb = kbits.dtype.itemsize
        if values is None:
            self.vdt = None
        elif isinstance(values, str):
            self.vdt = _index_dtype(self.n)
        else:
            self.vdt = values.dtype
        self.vb = self.vdt.itemsize if self.vdt is not None else 0

    def common(self):
        return (_i32(self.kind), _i32(self.desc))

    def materialized_values(self):
        if isinstance(self.values, str):
            return self.xp.arange(self.n, dtype=self.vdt)
        return self.values

    def finish(self, keys, vals):
        if vals is not None and self.wide and vals.dtype != _INDEX:
            vals = vals.astype(_INDEX)
        return (keys if self.want_keys else None), vals


def _buffers(job):
    """One (keys, values) ping-pong buffer pair of the multi-launch sorts."""
    return (job.xp.empty(job.n, dtype=job.kbits.dtype),
            job.xp.empty(job.n, dtype=job.vdt) if job.vb else None)


def _run_split(job):
    xp, n = job.xp, job.n
    vals = job.materialized_values()
    vb = job.vb
    vt, _ = _vc(vb)
    kf = _kernel(_SP_SOURCE, f"split_flags<{_C[job.kb]}>")
    ks = _kernel(_SP_SOURCE, f"split_scatter<{_C[job.kb]}, {vt}, {'true' if vb else 'false'}>")
    from .scan import exclusive_scan

    flags = xp.empty(n, dtype=np.uint32)
    grid = _launch.cover_grid(n, 256, 4, kernel=ks)
    src_k, src_v = job.kbits, vals
    bufs = [_buffers(job) for _ in range(min(2, job.end - job.begin))]
    vdummy = _launch.stand_in(job.backend, _U[vb] if vb else np.dtype(np.uint32))
    for i, bit in enumerate(range(job.begin, job.end)):
        dst_k, dst_v = bufs[i % 2]
        _go(kf, grid, 256, (src_k, _launch.i64(n), *job.common(), _i32(bit), flags))
        zeros_before = exclusive_scan(flags, dtype=np.uint64)
        _go(ks, grid, 256, (src_k, dst_k, src_v if vb else vdummy, dst_v if vb else vdummy,
                            _launch.i64(n), *job.common(), _i32(bit), zeros_before))
        src_k, src_v = dst_k, dst_v
    return job.finish(src_k, src_v)


def _run_classic(job):
    xp, n = job.xp, job.n
    vals = job.materialized_values()
    vb = job.vb
    vt, has = _vc(vb)
    tile = _CL_BLOCK * _CL_ITEMS
    tiles = _launch.cdiv(n, tile)
    kh = _kernel(_CL_SOURCE, f"classic_histogram<{_C[job.kb]}, {_CL_BLOCK}, {_CL_ITEMS}, "
                             f"{_CL_BITS}>")
    ks = _kernel(_CL_SOURCE, f"classic_scatter<{_C[job.kb]}, {vt}, {has}, {_CL_BLOCK}, "
                             f"{_CL_ITEMS}, {_CL_BITS}>")
    from .scan import exclusive_scan

    counts = xp.empty((1 << _CL_BITS) * tiles, dtype=np.uint32)
    smem = _tile_smem(_CL_BLOCK, _CL_ITEMS, max(job.kb, vb), _CL_BITS)
    passes = _launch.cdiv(job.end - job.begin, _CL_BITS)
    bufs = [_buffers(job) for _ in range(min(2, passes))]
    vdummy = _launch.stand_in(job.backend, _U[vb] if vb else np.dtype(np.uint32))
    src_k, src_v = job.kbits, vals
    for p in range(passes):
        shift = job.begin + p * _CL_BITS
        width = min(_CL_BITS, job.end - shift)
        dst_k, dst_v = bufs[p % 2]
        _go(kh, tiles, _CL_BLOCK, (src_k, _launch.i64(n), *job.common(), _i32(shift),
                                   _i32(width), counts))
        offsets = exclusive_scan(counts, dtype=np.uint64)
        _go(ks, tiles, _CL_BLOCK, (src_k, dst_k, src_v if vb else vdummy,
                                   dst_v if vb else vdummy, _launch.i64(n), *job.common(),
                                   _i32(shift), _i32(width), offsets), shared_mem=smem)
        src_k, src_v = dst_k, dst_v
    return job.finish(src_k, src_v)


class _OnesweepScratch:
    """The small per-configuration scratch of onesweep, cached per (key bytes, value bytes, n,
    passes, portions, stream): the all-pass histogram (zeroed by the plan kernel after use), each
    pass's first output position per digit and portion, the pass plan, the launch counter behind
    the look-back epochs, the tile counter, one status word per (tile, digit), and the grid of the
    histogram kernel."""

    def __init__(self, xp, portions, passes, tiles, hist_grid):
        radix = 256
        self.hist_grid = hist_grid
        self.hist = xp.zeros(passes * radix + 1, dtype=np.uint32)  # + the fold word
        self.offsets = xp.empty(passes * (portions + 1) * radix, dtype=np.int64)
        self.plan = xp.zeros(passes * _OS_PLAN_WORDS, dtype=np.int32)
        self.launches = xp.zeros(1, dtype=np.uint32)
        self.counter = xp.zeros(1, dtype=np.uint32)
        self.status = xp.zeros(tiles * radix, dtype=np.uint32)


_os_scratch = _lookback.PlanCache()


def _portion_tiles(tile):
    return max(1, _COUNT_LIMIT // tile)


class _OnesweepPlan:
    """The launches of one onesweep configuration on one stream, made once: the kernels, grids
    and shared memory, the scratch (:class:`_OnesweepScratch`, shared by the plans of one key
    width, value width and size on the stream) and each launch prepared with all its arguments
    but the arrays of the call (:class:`primitives._core.launch.Prepared`). :meth:`run` then only
    allocates the outputs and launches. Cached per configuration and stream
    (:func:`_onesweep_plan`)."""

    def __init__(self, job):
        be, n, kb, vb = job.backend, job.n, job.kb, job.vb
        block, items = _OS_POLICY[(kb, vb)][:2]
        tile = block * items
        tiles = _launch.cdiv(n, tile)
        per_portion = _portion_tiles(tile)
        portions = _launch.cdiv(tiles, per_portion)
        passes = _launch.cdiv(job.end - job.begin, 8)
        kh = _kernel(_OS_SOURCE, f"onesweep_histogram<{_C[kb]}, {_OS_HIST_BLOCK}>")
        scratch = _os_scratch.get((kb, vb, n, tile, passes, portions, be.stream_key()),
                                  lambda: _OnesweepScratch(be.xp, portions, passes, tiles,
                                                           _os_hist_grid(kh, n, kb)))
        kdt = self.kdt = _U[kb]
        self.xp, self.n, self.passes, self.want_keys = be.xp, n, passes, job.want_keys
        self.stand_k = _launch.stand_in(be, kdt)
        slot = _plans.Launch.SLOT
        self.hist = _plans.Launch(
            kh, scratch.hist_grid, _OS_HIST_BLOCK, _OS_HIST_SMEM,
            args=(slot, _launch.i64(n), *job.common(), _i32(job.begin), _i32(job.end),
                  scratch.hist))
        radix = 256
        pass_stride = (portions + 1) * radix
        self.plan = _plans.Launch(
            _kernel(_OS_SOURCE, "onesweep_plan"), 1, 256,
            args=(scratch.hist, _i32(passes), _launch.i64(n), scratch.offsets,
                  _i32(pass_stride), scratch.plan, scratch.launches))
        flags = 0
        self.vdt = self.iota = self.wide = None
        if vb:
            self.vdt = job.vdt
            self.iota = isinstance(job.values, str)
            self.wide = job.wide and self.vdt.itemsize == 4
            self.stand_v = _launch.stand_in(be, self.vdt)
            flags |= (_OS_FLAGS["iota"] if self.iota else 0) | \
                (_OS_FLAGS["wide"] if self.wide else 0)
        else:
            self.stand_v = _launch.stand_in(be, np.dtype(np.uint32))
        if not job.want_keys:
            flags |= _OS_FLAGS["discard_keys"]
        kp = _kernel(_OS_SOURCE, _os_pass_name(kb, vb))
        smem = _tile_smem(block, items, max(kb, vb), 8)
        arrays = (slot,) * 8  # given per call
        self.pass_launches = []
        for p in range(passes):
            shift = job.begin + 8 * p
            width = min(8, job.end - shift)
            row = scratch.plan[p * _OS_PLAN_WORDS:]
            for q in range(portions):
                first_tile = q * per_portion
                self.pass_launches.append(_plans.Launch(
                    kp, min(per_portion, tiles - first_tile), block, smem,
                    args=arrays + (_launch.i64(n), *job.common(), _i32(shift), _i32(width),
                                   _i32(flags), row,
                                   scratch.offsets[p * pass_stride + q * radix:],
                                   scratch.status, scratch.counter, _launch.i64(first_tile))))

    def run(self, keys, values):
        """Sort ``keys`` (n keys of the plan's width and key kind, as their bits or as they are)
        with ``values`` (None, n values of the plan's value width, or ``"iota"``). Returns
        (sorted keys or None, values or None), in the dtypes of the inputs."""
        dt, kdt = keys.dtype, self.kdt
        bits = keys if dt == kdt else keys.view(kdt)
        self.hist(bits)  # first: the GPU starts on it while the host prepares the rest
        self.plan()
        xp, n = self.xp, self.n
        tmp_k = [xp.empty(n, dtype=kdt) if self.passes > i + 1 else self.stand_k
                 for i in range(2)]
        keys_out = xp.empty(n, dtype=kdt) if self.want_keys else self.stand_k
        vdt = self.vdt
        if vdt is not None:
            vin = self.stand_v if self.iota else (values if values.dtype == vdt else
                                                  values.view(vdt))
            tmp_v = [xp.empty(n, dtype=vdt) if self.passes > i + 1 else self.stand_v
                     for i in range(2)]
            vals_out = xp.empty(n, dtype=_INDEX if self.wide else vdt)
        else:
            vin = vals_out = self.stand_v
            tmp_v = [vin, vin]
        for launch in self.pass_launches:
            launch(bits, keys_out, tmp_k[0], tmp_k[1], vin, vals_out, tmp_v[0], tmp_v[1])
        out_keys = out_vals = None
        if self.want_keys:
            out_keys = keys_out if dt == kdt else keys_out.view(dt)
        if vdt is not None:
            out_vals = vals_out if self.iota or values.dtype == vdt else \
                vals_out.view(values.dtype)
        return out_keys, out_vals


_os_plans = _lookback.PlanCache()


def _plan_key(kb, vb, n, begin, end, kind, desc, iota, wide, want_keys, stream_key):
    """The key of an onesweep plan (:data:`_os_plans`): what :class:`_OnesweepPlan` is made
    from."""
    return (kb, vb, n, begin, end, kind, desc, iota, wide, want_keys, stream_key)


def _onesweep_plan(job):
    key = _plan_key(job.kb, job.vb, job.n, job.begin, job.end, job.kind, job.desc,
                    isinstance(job.values, str), job.wide, job.want_keys,
                    job.backend.stream_key())
    return _os_plans.get(key, lambda: _OnesweepPlan(job))


def _direct_key(func, keys, values, begin_bit, end_bit, descending, variant):
    """The key under which a call of ``func`` (``"radix_sort"`` or ``"argsort"``) finds the
    onesweep plan of an earlier call on inputs like these: arrays of the backend's own type with
    the same dtypes, shapes and strides, the same bit range (ints or None), order (a bool),
    variant and stream. The earlier call passed every check on such inputs, so this one can skip
    them. None for anything else."""
    backend = _backend.get_backend()
    xp_array = backend.xp.ndarray
    if type(keys) is not xp_array or type(descending) is not bool or \
            type(variant) is not str:
        return None
    if values is None:
        vkey = None
    elif type(values) is xp_array:
        vkey = (values.dtype, values.shape, values.strides)
    else:
        return None
    for b in (begin_bit, end_bit):
        if b is not None and type(b) is not int:
            return None
    return (func, keys.dtype, keys.shape, keys.strides, vkey, begin_bit, end_bit, descending,
            variant, backend.stream_key())


_direct = _lookback.PlanCache()  # _direct_key -> _OnesweepPlan


def _direct_plan(func, keys, values, begin_bit, end_bit, descending, variant):
    """The plan an earlier call of ``func`` filed for inputs like these, or None."""
    key = _direct_key(func, keys, values, begin_bit, end_bit, descending, variant)
    return None if key is None else _direct.find(key)


def _as_is(arr):
    """Whether the kernels read ``arr`` as it is: 1-D, contiguous, 4 or 8 bytes an element (the
    checked path copies other layouts and widens or permutes other widths first)."""
    return arr.ndim == 1 and arr.flags.c_contiguous and arr.dtype.itemsize in _U and \
        arr.dtype.fields is None and not arr.dtype.hasobject


def _remember(func, keys, values, begin_bit, end_bit, descending, variant):
    """After a call of ``func`` checked its inputs and sorted them with onesweep, reading them
    as they are: file its plan."""
    key = _direct_key(func, keys, values, begin_bit, end_bit, descending, variant)
    if key is None or keys.size == 0 or not _as_is(keys) or \
            (values is not None and not _as_is(values)):
        return
    if _checks.check_choice(variant, VARIANTS, func=func, arg="variant",
                            auto="onesweep") != "onesweep":
        return
    kb, n, iota = keys.dtype.itemsize, keys.size, func == "argsort"
    begin = 0 if begin_bit is None else begin_bit
    end = 8 * kb if end_bit is None else end_bit
    if iota:
        vb = _index_dtype(n).itemsize
    else:
        vb = 0 if values is None else values.dtype.itemsize
    plan = _os_plans.find(_plan_key(kb, vb, n, begin, end, _KIND[keys.dtype.kind], descending,
                                    iota, iota, not iota, key[-1]))
    if plan is not None:
        _direct.put(key, plan)


def _run_onesweep(job):
    out_keys, out_vals = _onesweep_plan(job).run(job.kbits, job.values)
    if out_vals is not None and job.wide and out_vals.dtype != _INDEX:
        out_vals = out_vals.astype(_INDEX)
    return out_keys, out_vals


_RUN = {"split": _run_split, "classic": _run_classic, "onesweep": _run_onesweep}


# ---- argument checks --------------------------------------------------------------------------


def _keys_input(keys, func):
    k = _checks.as_input(keys, func=func, arg="keys", ndim=1)
    if k.array.dtype not in _KEY_SET:
        raise TypeError(f"{func}: keys has dtype {k.array.dtype.name}; supported key dtypes are "
                        f"{', '.join(d.name for d in KEY_DTYPES)}")
    return k


def _values_input(values, n, func):
    if values is None:
        return None
    v = _checks.as_input(values, func=func, arg="values", ndim=1)
    if v.array.size != n:
        raise ValueError(f"{func}: values has {v.array.size} elements, keys has {n}")
    return v


def _bool(value, func, arg):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{func}: {arg} must be a bool, got {type(value).__name__}")
    return bool(value)


def _bit_range(begin_bit, end_bit, bits, func):
    for arg, v in (("begin_bit", begin_bit), ("end_bit", end_bit)):
        if v is not None and (isinstance(v, (bool, np.bool_)) or
                              not isinstance(v, (int, np.integer))):
            raise TypeError(f"{func}: {arg} must be an int, got {type(v).__name__}")
    begin = 0 if begin_bit is None else int(begin_bit)
    end = bits if end_bit is None else int(end_bit)
    if not 0 <= begin <= end <= bits:
        raise ValueError(f"{func}: bit range [begin_bit={begin}, end_bit={end}) must satisfy "
                         f"0 <= begin_bit <= end_bit <= {bits} (the key width in bits)")
    return begin, end


# ---- public functions -------------------------------------------------------------------------


def _sort_core(karr, vinp_arr, begin, end, descending, variant, backend, *, argsort=False):
    """Sort the device array ``karr`` (n >= 1). Returns (sorted keys or None, values, index or
    None): values sorted alongside when given; with ``argsort`` the int64 permutation instead."""
    xp = backend.xp
    dt = karr.dtype
    kbits, kind, _ = _key_bits(karr)
    n = kbits.size
    vbits = None if vinp_arr is None else _native_values(vinp_arr)
    if argsort:
        values, wide = "iota", True
    elif vinp_arr is None:
        values, wide = None, False
    elif vbits is not None:
        values, wide = vbits, False
    else:  # values of another width: sort an index permutation and gather
        values, wide = "iota", False
    if begin == end:  # no bits to sort by: the stable order is the input order
        skeys = kbits.copy()
        perm = xp.arange(n, dtype=_index_dtype(n)) if isinstance(values, str) else (
            None if values is None else values.copy())
    else:
        job = _Job(kbits, kind, begin, end, descending, values, wide, not argsort, backend)
        skeys, perm = _RUN[variant](job)
    keys_out = None if argsort else _key_back(skeys, dt)
    if argsort:
        return None, None, perm.astype(_INDEX, copy=False)
    if vinp_arr is None:
        return keys_out, None, None
    if vbits is not None:
        return keys_out, perm.view(vinp_arr.dtype), None
    return keys_out, vinp_arr[perm], None


def radix_sort(keys, values=None, *, begin_bit=0, end_bit=None, descending=False,
               variant="auto"):
    """Stable LSD radix sort of ``keys``, with ``values`` permuted alongside.

    Args:
        keys: 1-D array of uint8/16/32/64, int8/16/32/64, float32 or float64 (CuPy, NumPy, or
            anything with ``__cuda_array_interface__`` / DLPack).
        values: optional 1-D array of ``keys.size`` elements of any dtype. 4- and 8-byte values
            move with the keys; others through an index permutation and one gather.
        begin_bit, end_bit: sort by bits ``[begin_bit, end_bit)`` of the key's order-preserving
            unsigned image only (the key itself for unsigned keys; for signed keys the sign bit
            is flipped; for floats every NaN is the positive quiet NaN, negative numbers are
            negated as two's complement integers and others get the sign bit set); default all
            bits. ``begin_bit == end_bit`` keeps the input order.
        descending: largest first. Equal keys stay in input order (stable); NaNs come first.
        variant: ``"split"``, ``"classic"``, ``"onesweep"`` or ``"auto"`` (= ``"onesweep"``).

    Returns:
        The sorted keys, or ``(keys, values)`` when ``values`` is given: CuPy arrays for device
        input, NumPy arrays for host input. The inputs are not modified.

    Raises:
        TypeError: ``keys``/``values`` not arrays; unsupported key dtype; non-integer bits;
            non-bool ``descending``.
        ValueError: ``keys``/``values`` not 1-D, or of different lengths; bit range outside
            ``[0, key bits]`` or ``begin_bit > end_bit``; unknown ``variant``.

    Order of floats (NumPy's): -inf < negatives < -0.0 = 0.0 < positives < inf < NaN, where
    -0.0 and 0.0 compare equal (input order kept) and all NaNs compare equal and sort last. The
    output holds the input's bit patterns (NaN payloads, signs of zeros).

    No host synchronization: onesweep decides on the device which digit passes to skip. A call
    on arrays of the backend's own type (CuPy on the GPU) like an earlier call's (the same
    dtypes, shapes, strides, bit range, order, variant and stream) reuses that call's launches,
    prepared once, and skips the checks it passed: the histogram kernel starts sooner.

    See Also:
        :func:`numpy.sort` (``kind="stable"``), :func:`cupy.sort`, :func:`sort`,
        :func:`argsort`.
    """
    plan = _direct_plan("radix_sort", keys, values, begin_bit, end_bit, descending, variant)
    if plan is not None:
        skeys, svals = plan.run(keys, values)
        return skeys if values is None else (skeys, svals)
    out = _radix_sort(keys, values, begin_bit, end_bit, descending, variant)
    _remember("radix_sort", keys, values, begin_bit, end_bit, descending, variant)
    return out


def _radix_sort(keys, values, begin_bit, end_bit, descending, variant):
    func = "radix_sort"
    variant = _checks.check_choice(variant, VARIANTS, func=func, arg="variant", auto="onesweep")
    k = _keys_input(keys, func)
    v = _values_input(values, k.array.size, func)
    dt = k.array.dtype
    begin, end = _bit_range(begin_bit, end_bit, 8 * dt.itemsize, func)
    desc = _bool(descending, func, "descending")
    n = k.array.size
    if n == 0:
        xp = k.backend.xp
        out = k.result(xp.empty(0, dtype=dt))
        return out if v is None else (out, v.result(xp.empty(0, dtype=v.array.dtype)))
    skeys, svals, _ = _sort_core(k.array, None if v is None else v.array, begin, end, desc,
                                 variant, k.backend)
    if v is None:
        return k.result(skeys)
    return k.result(skeys), v.result(svals)


def sort(keys, *, descending=False, variant="auto"):
    """Stable sort of a 1-D array: ``numpy.sort(keys, kind="stable")`` (reversed into largest
    first, NaNs first, equal keys in input order, with ``descending=True``).

    Keys as :func:`radix_sort`; floats in NumPy's order (NaNs last). Returns a CuPy array for
    device input, NumPy for host input.

    Raises:
        As :func:`radix_sort`.

    See Also:
        :func:`numpy.sort`, :func:`cupy.sort`, :func:`radix_sort`.
    """
    return radix_sort(keys, descending=descending, variant=variant)


def argsort(keys, *, descending=False, variant="auto"):
    """Indices (int64) that sort ``keys`` stably: ``numpy.argsort(keys, kind="stable")``.

    With ``descending=True``: largest first, NaNs first, and equal keys in input order (so not
    ``argsort(keys)[::-1]``, which reverses ties).

    Onesweep generates the indices inside its first pass and writes them as int64 in its last,
    and never writes the sorted keys.

    Raises:
        As :func:`radix_sort`.

    See Also:
        :func:`numpy.argsort`, :func:`cupy.argsort`.
    """
    plan = _direct_plan("argsort", keys, None, None, None, descending, variant)
    if plan is not None:
        perm = plan.run(keys, "iota")[1]
        return perm if perm.dtype == _INDEX else perm.astype(_INDEX)
    out = _argsort(keys, descending, variant)
    _remember("argsort", keys, None, None, None, descending, variant)
    return out


def _argsort(keys, descending, variant):
    func = "argsort"
    variant = _checks.check_choice(variant, VARIANTS, func=func, arg="variant", auto="onesweep")
    k = _keys_input(keys, func)
    desc = _bool(descending, func, "descending")
    n = k.array.size
    if n == 0:
        return k.result(k.backend.xp.empty(0, dtype=_INDEX))
    bits = 8 * k.array.dtype.itemsize
    _, _, perm = _sort_core(k.array, None, 0, bits, desc, variant, k.backend, argsort=True)
    return k.result(perm)


# ---- segmented sort ---------------------------------------------------------------------------


def _segment_offsets(offsets, n, func):
    """Offsets as a device int64 array, validated; returns (offsets, longest segment). One
    device-to-host transfer of four scalars."""
    o = _checks.as_input(offsets, func=func, arg="offsets", ndim=1)
    arr = o.array
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{func}: offsets must be an integer array, got dtype {arr.dtype.name}")
    if arr.size < 1:
        raise ValueError(f"{func}: offsets must hold at least one value (segments + 1 "
                         "boundaries)")
    xp = o.backend.xp
    arr = arr.astype(np.int64, copy=False)
    if arr.size > 1:
        steps = arr[1:] - arr[:-1]
        stats = xp.stack([xp.count_nonzero(steps < 0).astype(np.int64), arr[0], arr[-1],
                          steps.max()])
    else:
        stats = xp.stack([xp.zeros((), np.int64), arr[0], arr[-1], xp.zeros((), np.int64)])
    bad, first, last, longest = (int(s) for s in _backend.to_host(stats))
    if bad:
        raise ValueError(f"{func}: offsets must be non-decreasing ({bad} decreasing steps)")
    if first != 0 or last != n:
        raise ValueError(f"{func}: offsets must start at 0 and end at keys.size={n} so that every "
                         f"key is in a segment, got {first} .. {last}")
    return arr, longest


def segmented_sort(keys, offsets, values=None, *, descending=False):
    """Sort each segment ``keys[offsets[s]:offsets[s+1]]`` independently (stable, as
    :func:`sort`), with ``values`` permuted alongside.

    Args:
        keys: 1-D array of a key dtype of :func:`radix_sort`.
        offsets: integer array of segments + 1 non-decreasing boundaries, ``offsets[0] == 0``
            and ``offsets[-1] == keys.size`` (CSR style; empty segments allowed).
        values: optional 1-D array of ``keys.size`` elements (any dtype).
        descending: largest first within each segment.

    Returns:
        The keys sorted within their segments, or ``(keys, values)`` when ``values`` is given.

    Raises:
        TypeError: as :func:`radix_sort`; non-integer ``offsets``.
        ValueError: as :func:`radix_sort`; ``offsets`` empty, decreasing, or not covering keys.

    One pass structure for all segments, never a launch per segment: segments of up to 128 keys
    are sorted by one warp each, up to 2048 by one block each, in registers and shared memory (one
    read and one write of the data). When some segment is longer, the whole input is sorted
    device-wide by key and then, stably, by segment number (onesweep, a few passes for the
    segment numbers). Validating the offsets reads four numbers back from the device (a
    synchronization), which also picks the path.

    See Also:
        :func:`numpy.sort` of each segment; ``cupy.sort(x.reshape(rows, cols), axis=-1)`` for
        equal segments.
    """
    func = "segmented_sort"
    k = _keys_input(keys, func)
    n = k.array.size
    off, longest = _segment_offsets(offsets, n, func)
    v = _values_input(values, n, func)
    desc = _bool(descending, func, "descending")
    xp = k.backend.xp
    dt = k.array.dtype
    if n == 0:
        out = k.result(xp.empty(0, dtype=dt))
        return out if v is None else (out, v.result(xp.empty(0, dtype=v.array.dtype)))
    varr = None if v is None else v.array
    kbits, kind, bits = _key_bits(k.array)
    if longest <= _SEG_BLOCK_MAX:
        skeys, svals = _segsort_small(kbits, kind, bits, desc, varr, off, longest, k.backend)
    else:
        skeys, svals = _segsort_large(kbits, kind, bits, desc, varr, off, k.backend)
    out = k.result(_key_back(skeys, dt))
    return out if v is None else (out, v.result(svals))


def _segsort_small(kbits, kind, bits, desc, varr, off, longest, backend):
    xp = backend.xp
    n, kb = kbits.size, kbits.dtype.itemsize
    nseg = off.size - 1
    vbits = None if varr is None else _native_values(varr)
    if varr is not None and vbits is None:
        vbits = xp.arange(n, dtype=_index_dtype(n))  # gather the values through a permutation
    vb = 0 if vbits is None else vbits.dtype.itemsize
    vt, has = _vc(vb)
    keys_out = xp.empty(n, dtype=kbits.dtype)
    vdummy = _launch.stand_in(backend, _U[vb] if vb else np.dtype(np.uint32))
    vin = vbits if vb else vdummy
    vout = xp.empty(n, dtype=vbits.dtype) if vb else vdummy
    tail = (_i32(kind), _i32(desc), _i32(0), _i32(bits))
    kw = _kernel(_SEG_SOURCE, f"segsort_warp<{_C[kb]}, {vt}, {has}, {_SEG_WARP_ITEMS}>")
    _go(kw, _launch.cdiv(nseg, 4), 128, (kbits, keys_out, vin, vout, off, _launch.i64(nseg),
                                         *tail))
    if longest > _SEG_WARP_MAX:
        kblk = _kernel(_SEG_SOURCE, f"segsort_block<{_C[kb]}, {vt}, {has}, {_SEG_BLOCK}, "
                                    f"{_SEG_ITEMS}>")
        smem = _tile_smem(_SEG_BLOCK, _SEG_ITEMS, kb + 4, 8)  # keys and positions
        _go(kblk, nseg, _SEG_BLOCK, (kbits, keys_out, vin, vout, off,
                                     _launch.i64(_SEG_WARP_MAX), *tail), shared_mem=smem)
    if varr is None:
        return keys_out, None
    if _native_values(varr) is not None:
        return keys_out, vout.view(varr.dtype)
    return keys_out, varr[vout]


def _segsort_large(kbits, kind, bits, desc, varr, off, backend):
    """Stable sort by key, then stable sort by segment number: sorted within segments."""
    xp = backend.xp
    n = kbits.size
    nseg = off.size - 1
    _, perm = _run_onesweep(_Job(kbits, kind, 0, bits, desc, "iota", False, False, backend))
    seg_of = xp.searchsorted(off[1:], xp.arange(n, dtype=np.int64), side="right")
    seg_bits = max(1, int(nseg - 1).bit_length())
    seg_sorted = seg_of[perm].astype(np.uint32 if seg_bits <= 32 else np.uint64)
    _, perm = _run_onesweep(_Job(seg_sorted, 0, 0, seg_bits, False, perm, False, False, backend))
    return kbits[perm], (None if varr is None else varr[perm])


# ---- tour -------------------------------------------------------------------------------------


def tour_sections(gpu, log2n=None):
    """Tour workloads: uint32 keys (keys/s of every variant, with ``cupy.sort`` as the peer on a
    GPU), uint32 pairs and argsort, and a segmented sort of 128-key segments."""
    from . import tour as _tour

    n = 1 << (log2n or (27 if gpu else 13))
    sections = []

    def keys_contenders():
        xp = _backend.get_backend().xp
        rng = np.random.default_rng(n + 11)
        host = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
        x = xp.asarray(host)
        want = np.sort(host, kind="stable")

        def same(got):
            return bool(np.array_equal(_tour.to_host(got), want))

        out = [_tour.Contender(v, (lambda v=v: sort(x, variant=v)), same)
               for v in reversed(VARIANTS)]
        if gpu:
            out.append(_tour.Contender("cupy.sort (peer)", lambda: xp.sort(x), same))
        return out

    sections.append(_tour.Section(
        title=f"sort: uint32 keys, n = 2^{n.bit_length() - 1} (GB/s: keys read + written once; "
              "speedup vs onesweep)",
        nbytes=2 * 4 * n, contenders=keys_contenders, count=len(VARIANTS) + (1 if gpu else 0)))

    def pairs_contenders():
        xp = _backend.get_backend().xp
        rng = np.random.default_rng(n + 12)
        host = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
        hv = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
        x, vals = xp.asarray(host), xp.asarray(hv)
        order = np.argsort(host, kind="stable")

        def pairs_ok(got):
            return (bool(np.array_equal(_tour.to_host(got[0]), host[order]))
                    and bool(np.array_equal(_tour.to_host(got[1]), hv[order])))

        def perm_ok(got):
            return bool(np.array_equal(_tour.to_host(got), order))

        out = [_tour.Contender("radix_sort pairs (onesweep)", lambda: radix_sort(x, vals),
                               pairs_ok),
               _tour.Contender("argsort (onesweep)", lambda: argsort(x), perm_ok)]
        if gpu:
            out.append(_tour.Contender("cupy.argsort (peer)", lambda: xp.argsort(x), perm_ok))
        return out

    sections.append(_tour.Section(
        title=f"sort: uint32 keys + uint32 values, n = 2^{n.bit_length() - 1} "
              "(GB/s: keys and values read + written once)",
        nbytes=2 * 8 * n, contenders=pairs_contenders, count=3 if gpu else 2))

    seg_len = 128

    def seg_contenders():
        xp = _backend.get_backend().xp
        rng = np.random.default_rng(n + 13)
        host = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
        x = xp.asarray(host)
        off = xp.arange(0, n + 1, seg_len, dtype=np.int64)
        want = np.sort(host.reshape(-1, seg_len), axis=-1).reshape(-1)

        def same(got):
            return bool(np.array_equal(_tour.to_host(got).reshape(-1), want))

        out = [_tour.Contender("segmented_sort", lambda: segmented_sort(x, off), same)]
        if gpu:
            x2 = x.reshape(-1, seg_len)
            out.append(_tour.Contender("cupy.sort(axis=-1) (peer)", lambda: xp.sort(x2, axis=-1),
                                       same))
        return out

    sections.append(_tour.Section(
        title=f"sort: segmented, uint32, {n // seg_len} segments x {seg_len}, n = "
              f"2^{n.bit_length() - 1}", nbytes=2 * 4 * n, contenders=seg_contenders,
        count=2 if gpu else 1))
    return sections

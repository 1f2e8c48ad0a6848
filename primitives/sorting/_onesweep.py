"""Onesweep: one histogram pass for all digit passes, then one kernel per 8-bit digit pass that
ranks a tile in shared memory and finds its output position by decoupled look-back.

A :class:`OnesweepPlan` holds one configuration's launches on one stream, made and checked once
(prepared :class:`~primitives._core.plans.Launch` objects: a call passes only its arrays); its
small scratch is a plan of its own (:class:`OnesweepScratch`), shared by the plans of one key
width, value width and size on the stream. Both live in :data:`~primitives._core.plans.PLANS`.
"""

from __future__ import annotations

import numpy as np

from .._core import launch as _launch, loader as _loader, plans as _plans
from .._core.keys import INDEX, KEY_U
from . import _kernels, _policy

RADIX = 256
PLAN_WORDS = 8  # words of a pass's row of the pass plan (os::PLAN_WORDS)
FLAGS = {"iota": 1, "wide": 2, "discard_keys": 4}  # prim::radix::ValueFlags


def hist_grid(kernel, n, kb, hpol):
    """Grid of onesweep_histogram for n keys of kb bytes: the resident blocks (fewer for small n),
    more (in whole waves) when a block's share would overflow its counters. The threads of a
    block that share a lane column (one per warp) may count 2^16 - 1 keys together with 8-byte
    keys (16-bit halves), 2^32 - 1 with 2- or 4-byte keys; a thread takes at most ceil(packets /
    threads) packets, a head key and a tail key."""
    per = 16 // kb  # keys per packet
    column_max = 0xFFFF if kb == 8 else 0xFFFFFFFF
    threads = hpol.block // 32  # per lane column
    per_thread = (column_max // threads - 2) // per * per  # keys, head and tail aside
    resident = _launch.resident_grid(kernel, hpol.block, hpol.smem)
    grid = min(_launch.cdiv(n, hpol.block * per * hpol.vectors), resident)
    need = _launch.cdiv(n, hpol.block * per_thread)
    if need > grid:
        grid = _launch.cdiv(need, resident) * resident
    return max(1, grid)


class OnesweepScratch(_plans.Plan):
    """The small scratch of onesweep for one (key bytes, value bytes, n, tiles, passes, portions,
    histogram policy, stream): the all-pass histogram (zeroed by the plan kernel after use), each
    pass's first output position per digit and portion, the pass plan (``plan``: PLAN_WORDS
    words per pass), the run counters behind the look-back epochs (one per pass kernel), the
    tile counter, one status word per (tile, digit) of each pass kernel (``tiles``: their tiles
    together), and the grid of the histogram kernel."""

    def __init__(self, xp, portions, passes, tiles, hist_grid):
        self.hist_grid = hist_grid
        self.hist = xp.zeros(passes * RADIX + 1, dtype=np.uint32)  # + the fold word
        self.offsets = xp.empty(passes * (portions + 1) * RADIX, dtype=np.int64)
        self.plan = xp.zeros(passes * PLAN_WORDS, dtype=np.int32)
        self.launches = xp.zeros(2, dtype=np.uint32)
        self.counter = xp.zeros(1, dtype=np.uint32)
        self.status = xp.zeros(tiles * RADIX, dtype=np.uint32)
        self.nbytes = _plans.scratch_bytes(
            self.hist, self.offsets, self.plan, self.launches, self.counter, self.status
        )


class OnesweepPlan(_plans.Plan):
    """The launches of one onesweep configuration (:class:`~._plans.Job` without its arrays) on
    one stream: the histogram, the plan kernel and each pass's launches (one per portion of at
    most ``policy.portion`` keys), prepared with every argument but the arrays of the call.
    :meth:`run` only allocates the outputs and launches.

    Public attributes: ``policy`` and ``hist_policy`` (the policies it was made with), ``n``,
    ``passes`` (digit passes at most; the device skips constant digits), ``portions`` (launches
    per pass of each pass kernel), ``scratch`` (:class:`OnesweepScratch`), and the launches
    ``hist``, ``plan`` and ``pass_launches`` (with a spread tile, each pass's launches of both
    kernels: the one the plan kernel did not pick returns at once)."""

    def __init__(self, job, pol, hpol):
        be, n, kb, vb = job.backend, job.n, job.kb, job.vb
        self.policy, self.hist_policy = pol, hpol
        kernels = _kernels.pass_kernels(pol)  # [(policy, SELECT)]
        tiles = [_launch.cdiv(n, p.block * p.items) for p, _ in kernels]
        per_portion = [max(1, pol.portion // (p.block * p.items)) for p, _ in kernels]
        portions = [_launch.cdiv(t, pp) for t, pp in zip(tiles, per_portion)]
        passes = _launch.cdiv(job.end - job.begin, 8)
        hist, _, *pass_names = prefetch(kb, vb, pol, hpol)  # compiled at once
        kh = _kernels.kernel(_kernels.ONESWEEP, hist)
        shape = (tuple(p.block * p.items for p, _ in kernels), max(portions))
        scratch = self.scratch = _plans.PLANS.get(
            ("sort/onesweep-scratch", kb, vb, n, shape, passes, hpol, _plans.stream_key()),
            lambda: OnesweepScratch(
                be.xp, max(portions), passes, sum(tiles), hist_grid(kh, n, kb, hpol)
            ),
        )
        kdt = self.kdt = KEY_U[kb]
        self.xp, self.n, self.passes, self.want_keys = be.xp, n, passes, job.want_keys
        self.portions = max(portions)
        self.stand_k = _launch.stand_in(be, kdt)
        slot = _plans.Launch.SLOT
        self.hist = _plans.Launch(
            kh,
            scratch.hist_grid,
            hpol.block,
            hpol.smem,
            args=(
                slot,
                _launch.i64(n),
                *job.common(),
                np.int32(job.begin),
                np.int32(job.end),
                scratch.hist,
            ),
        )
        pass_stride = (max(portions) + 1) * RADIX
        self.plan = _plans.Launch(
            _kernels.kernel(_kernels.ONESWEEP, _kernels.ONESWEEP_PLAN),
            1,
            256,
            args=(
                scratch.hist,
                np.int32(passes),
                _launch.i64(n),
                scratch.offsets,
                np.int32(pass_stride),
                scratch.plan,
                scratch.launches,
                np.int32(pol.skew),  # the plan rows' dominant digits (match 2 to 4, SELECT)
                np.int32(len(kernels)),
            ),
        )
        flags = 0
        self.vdt = None
        self.iota = self.wide = False
        if vb:
            self.vdt = job.vdt
            self.iota = job.iota
            self.wide = job.wide and self.vdt.itemsize == 4
            self.stand_v = _launch.stand_in(be, self.vdt)
            flags |= (FLAGS["iota"] if self.iota else 0) | (FLAGS["wide"] if self.wide else 0)
        else:
            self.stand_v = _launch.stand_in(be, np.dtype(np.uint32))
        if not job.want_keys:
            flags |= FLAGS["discard_keys"]
        arrays = (slot,) * 8  # given per call
        # per pass kernel: (kernel, block, shared memory, tiles, tiles a portion, status words:
        # each kernel's after the previous kernel's)
        launched, status_at = [], 0
        for (kpol, _), name, ktiles, kper in zip(kernels, pass_names, tiles, per_portion):
            smem = _kernels.tile_smem(kpol.block, kpol.items, max(kb, vb), 8, kpol.parts)
            kp = _kernels.kernel(_kernels.ONESWEEP, name)
            status = scratch.status[status_at * RADIX :]
            launched.append((kp, kpol.block, smem, ktiles, kper, status))
            status_at += ktiles
        self.pass_launches = []
        for p in range(passes):
            shift = job.begin + 8 * p
            width = min(8, job.end - shift)
            row = scratch.plan[p * PLAN_WORDS :]
            for kp, kblock, smem, ktiles, kper, status in launched:
                for q, first_tile in enumerate(range(0, ktiles, kper)):
                    self.pass_launches.append(
                        _plans.Launch(
                            kp,
                            min(kper, ktiles - first_tile),
                            kblock,
                            smem,
                            args=arrays
                            + (
                                _launch.i64(n),
                                *job.common(),
                                np.int32(shift),
                                np.int32(width),
                                np.int32(flags),
                                row,
                                scratch.offsets[p * pass_stride + q * RADIX :],
                                status,
                                scratch.counter,
                                _launch.i64(first_tile),
                            ),
                        )
                    )

    def run(self, keys, values):
        """Sort ``keys`` (n keys of the plan's width and key kind, as their bits or as they are)
        with ``values`` (None, n values of the plan's value width, or ``"iota"``). Returns
        (sorted keys or None, values or None), in the dtypes of the inputs."""
        dt, kdt = keys.dtype, self.kdt
        bits = keys if dt == kdt else keys.view(kdt)
        self.hist(bits)  # first: the GPU starts on it while the host prepares the rest
        self.plan()
        xp, n = self.xp, self.n
        tmp_k = [xp.empty(n, dtype=kdt) if self.passes > i + 1 else self.stand_k for i in range(2)]
        keys_out = xp.empty(n, dtype=kdt) if self.want_keys else self.stand_k
        vdt = self.vdt
        if vdt is not None:
            vin = (
                self.stand_v if self.iota else (values if values.dtype == vdt else values.view(vdt))
            )
            tmp_v = [
                xp.empty(n, dtype=vdt) if self.passes > i + 1 else self.stand_v for i in range(2)
            ]
            vals_out = xp.empty(n, dtype=INDEX if self.wide else vdt)
        else:
            vin = vals_out = self.stand_v
            tmp_v = [vin, vin]
        for launch in self.pass_launches:
            launch(bits, keys_out, tmp_k[0], tmp_k[1], vin, vals_out, tmp_v[0], tmp_v[1])
        out_keys = out_vals = None
        if self.want_keys:
            out_keys = keys_out if dt == kdt else keys_out.view(dt)
        if vdt is not None:
            out_vals = vals_out if self.iota or values.dtype == vdt else vals_out.view(values.dtype)
        return out_keys, out_vals

    def __call__(self, keys, values=None):
        """What the public function that made the plan returns for ``keys`` (and ``values``)
        of the backend's own type, like the ones it was made for: the permutation (int64) of a
        plan of :func:`~primitives.argsort`, else the sorted keys, or (keys, values)."""
        if self.iota:
            perm = self.run(keys, "iota")[1]
            return perm if perm.dtype == INDEX else perm.astype(INDEX)
        skeys, svals = self.run(keys, values)
        return skeys if self.vdt is None else (skeys, svals)


def prefetch(kb, vb, pol=None, hpol=None, n=None):
    """Ask for the kernels of a sort of ``kb``-byte keys with ``vb``-byte values (0: none) under
    ``pol`` and ``hpol`` (the policies in force when None; ``pol`` as it applies to ``n`` keys
    where n is given), compiled at once in the background where they are not loaded yet;
    returns their names (histogram, plan, each pass kernel)."""
    pol = _policy.onesweep(kb, vb) if pol is None else pol
    pol = pol if n is None else pol.at(n)
    hpol = _policy.histogram() if hpol is None else hpol
    names = (
        _kernels.hist_name(kb, hpol),
        _kernels.ONESWEEP_PLAN,
        *_kernels.pass_names(kb, vb, pol),
    )
    _loader.prefetch(_kernels.ONESWEEP, names)
    return names


def plan(job):
    """The plan of ``job``'s configuration on the current stream (made once)."""
    pol, hpol = _policy.onesweep(job.kb, job.vb).at(job.n), _policy.histogram()
    key = (
        "sort/onesweep",
        job.kb,
        job.vb,
        job.n,
        job.begin,
        job.end,
        job.kind,
        job.desc,
        job.iota,
        job.wide,
        job.want_keys,
        pol,
        hpol,
        _plans.stream_key(),
    )
    return _plans.PLANS.get(key, lambda: OnesweepPlan(job, pol, hpol))


def run(job):
    """Sort ``job`` with onesweep; returns (keys or None, values or None) as :meth:`Job.finish`."""
    out_keys, out_vals = plan(job).run(job.kbits, job.values)
    if out_vals is not None and job.wide and out_vals.dtype != INDEX:
        out_vals = out_vals.astype(INDEX)
    return out_keys, out_vals

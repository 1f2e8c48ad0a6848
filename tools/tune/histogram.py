"""Tuning experiment for the production histogram kernel (GPU only; prints tables).

    python -m tools.tune.histogram [--pattern | --staged] [--compile-only]

Without options, sections 1-3:

1. Per-call cost: one call between two events (as the figures time it) against 20 back-to-back
   calls between two events, divided by 20 (host work overlaps the GPU), for the public calls,
   the bare repeat-call plan (``prim.histogram.plan(...)``'s core) and CUB's ``histogram_even``.
2. Host time per call on small inputs, and a profile of the Python path.
3. Policy sweep of hist_warp_replicated (VECS 16-byte loads per thread, registers capped for
   MIN_BLOCKS resident blocks, BLOCK 1024, copies as ``replicas_for``) on uint8 (uniform, all
   equal) and float32 (256 and 4096 bins), kernel only, batched.

``--pattern``: section 4 only (about a minute):

4. Access pattern of hist_warp_replicated, kernel only, batched, on float32 2^28 uniform [0, 1)
   with 256 even bins and on uint8 2^28 uniform (one bin per value), launched as the sweep
   launches it (grid SMS x min(2, occupancy) unless said otherwise). Each variant is compiled
   from a patched copy of the kernel tree (tools/_patched.py):

   production          the library's kernel, its VECS (the dtype's loads policy);
   chunked             block-contiguous walk: block b owns packets [b * span, (b + 1) * span)
                       (span = ceil(packets / grid) rounded up to a multiple of 1024 * VECS), its
                       threads read them with stride 1024, VECS loads back to back; scalar head
                       and tail grid-stride as in for_each_packet (``for_each_packet_chunked``,
                       added to util/pack16.cuh in the copy); VECS 2 and 4, grid 1x, 4x, 16x;
   loads only          diagnostic, counts not kept: the production walk with the per-sample
                       shared atomic replaced by a register sum of the bins (one shared atomic
                       per thread at the end, into the dropped samples' row);
   chunked loads only  the same with the chunked walk;
   prim.sum            the library's reduction of the same bytes (float32; uint8 viewed as
                       uint32), back to back;
   CUB histogram_even  cuda.compute, when it imports.

   A variant that gets one block per SM (registers) runs again as "+lb2", compiled with
   __launch_bounds__(1024, 2) (32 registers, maybe spills), so that walks compare at one
   occupancy. Columns: samples, kernel, VECS, grid, registers, blocks per SM, ms per call, GB/s
   of samples read, check. A counting variant is checked: its total equals n, and its counts on
   a smaller input (2^22 + 37 samples from a 3-sample offset: a scalar head and tail), launched
   with the same grid, equal NumPy's.

``--staged``: section 5 only (under a minute):

5. Staged loads of hist_warp_replicated (STAGES, the dtype's loads policy): the packets copied to
   shared memory by cp.async, STAGES 16-byte slots per thread after the counters
   (util/pack16.cuh: for_each_packet_staged), against the register walk (STAGES 0, VECS
   of the loads policy), kernel only, batched, on float32 2^28 uniform [0, 1) with 256 and 4096
   even bins and uint8 2^28 uniform (one bin per value); STAGES 0, 2, 3, 4, 5, 6, each launched
   as the library would (grid SMS x min(2, occupancy), dynamic shared memory counters rounded up
   to 16 bytes + STAGES * 1024 * 16). All instantiations come from one module of the library's
   source. A configuration whose shared memory leaves room for two blocks per SM but whose
   registers allow one runs again as "+lb2" (a patched copy with __launch_bounds__(1024, 2)).
   Columns: samples, bins, kernel, STAGES, VECS (the register walk's; the staged walk issues one
   packet per stage), registers, dynamic shared KiB, blocks per SM, grid, ms per call, GB/s of
   samples read, check (the counts equal those of the library's histogram_even call on the same
   input, and the counts of 2^22 + 37 samples from a 3-sample offset, same grid, equal NumPy's).
   Then prim.sum of the same bytes and CUB's histogram_even.

``--compile-only``: compile every kernel of sections 4 and 5 with NVRTC (sm_90) (section 4's from
the patched copies) and print its lowered name; needs no GPU.
"""

import cProfile
import pstats
import sys
import time
import types

import cupy
import numpy as np

import primitives as prim
from primitives import histograms
from primitives._core import (
    backend as _backend,
    launch as _launch,
    loader as _loader,
    nvrtc as _nvrtc,
    timing as _timing,
)
from primitives.histograms import _binning, _kernels, _plans as _hplans
from primitives.testing.peers import cub_histogram_even
from tools import _patched as patched
from tools._patched import patched_kernel

n = 1 << 28
PATTERN = "--pattern" in sys.argv
STAGED = "--staged" in sys.argv
COMPILE_ONLY = "--compile-only" in sys.argv
src = "histograms/histogram.cu"
BLOCK = 1024


def batched(fn, k=20):
    return _timing.bench(lambda: [fn() for _ in range(k)], warmup=2, repeat=7) / k


def cub_runs(f32_bins=(256,)):
    """CUB's histogram_even of xf ("f32 B": B bins over [0, 1), for B in ``f32_bins``) and of u8
    ("u8 256": 256 values), or {}."""
    try:
        runs = {f"f32 {b}": cub_histogram_even(xf, b, 0.0, 1.0, np.float32) for b in f32_bins}
        runs["u8 256"] = cub_histogram_even(u8, 256, 0, 256, np.int32)
        return runs
    except Exception as exc:  # noqa: BLE001 - report and go on without CUB
        print(f"(no CUB rows: {exc})")
        return {}


# ---- the production kernel's launch, as the library makes it ------------------------------------


def binning_of(dt, nb):
    """uint8: one bin per value; float32: ``nb`` even bins over [0, 1)."""
    return (
        _binning.byte_binning(np.dtype(np.uint8))
        if dt == np.uint8
        else _binning.even_binning("tune", np.dtype(np.float32), 0.0, 1.0, nb)[0]
    )


def kernel_name(dt, nb, vecs, stages=0):
    b = binning_of(dt, nb)
    return (
        f"hist_warp_replicated<{_binning.CTYPES[np.dtype(dt)]}, "
        f"{_kernels.binner_name(b.dtype, b.kind, b.extra)}, prim::CountAcc, {BLOCK}, "
        f"{vecs}, {stages}>"
    )


def vecs_of(dt):
    """The library's loads in flight for samples of ``dt`` (its loads policy)."""
    return prim.tuning.policy("histogram", np.dtype(dt).name).vectors


class Launch:
    """hist_warp_replicated's arguments for samples ``x`` (binning as :func:`binning_of`) with an
    accumulator and a ticket in the record, as a plan of the library: the last block writes every
    counter of ``out``. ``stages``: the kernel's STAGES (its slots follow the counters).
    ``launch(k, grid)`` runs kernel ``k`` on them."""

    def __init__(self, x, nb, stages=0, reps=None):
        self.binning = binning_of(x.dtype, nb)
        self.bplan = _hplans.binning_plan(self.binning, be)
        self.keep = cupy.zeros(nb, cupy.int64), cupy.zeros(1, cupy.uint32)  # the record's
        reps = reps or histograms.replicas_for(nb)
        aggregate = prim.tuning.policy("histogram", "production").aggregate
        rec = _hplans.launch_record(be, x.size, reps, aggregate, *self.keep)
        self.out = cupy.empty(nb, cupy.int64)
        self.args = (x, dummy, self.bplan.spec, rec, self.out, self.out)
        self.smem = reps * (nb + 1) * 4  # each copy: a slot for dropped samples, then the bins
        if stages:
            self.smem = histograms.stage_offset(self.smem) + stages * BLOCK * 16

    def launch(self, k, grid):
        k((grid,), (BLOCK,), self.args, shared_mem=self.smem)


def resident_grid(k, smem):
    """(SMS x min(2, occupancy), occupancy) of kernel ``k`` with ``smem`` dynamic shared bytes
    (_launch.resident_grid, which opts the kernel in first)."""
    return _launch.resident_grid(k, BLOCK, smem, per_sm=2), k.occupancy(BLOCK, smem)


# ---- 1. per call against back to back ------------------------------------------------------------


def per_call():
    calls = {
        "histogram f32 256": lambda: prim.histogram(xf, 256, (0.0, 1.0)),
        "histogram_even f32 256": lambda: prim.histogram_even(xf, 256, 0.0, 1.0),
    }
    calls["bare plan f32 256"] = (lambda f: lambda: f(xf))(
        prim.histogram.plan(xf, 256, (0.0, 1.0)).core
    )  # the repeat-call plan the calls take
    calls.update(
        {
            "histogram u8 256": lambda: prim.histogram(u8, 256, (0, 256)),
            "histogram_even u8 256": lambda: prim.histogram_even(u8, 256, 0, 256),
            "bincount u8": lambda: prim.bincount(u8),
            "bincount u8 all equal": lambda: prim.bincount(eq8),
        }
    )
    calls["bare plan u8"] = (lambda f: lambda: f(u8))(
        prim.histogram_even.plan(u8, 256, 0, 256).core
    )
    calls.update({f"CUB histogram_even {k}": f for k, f in cub_runs().items()})

    print("per call vs batched (ms)")
    for label, fn in calls.items():
        fn()
        print(
            f"  {label:28s} per-call {_timing.bench(fn, repeat=30):.4f}  batched {batched(fn):.4f}",
            flush=True,
        )


# ---- 2. host time --------------------------------------------------------------------------------


def host_time():
    print("\nhost time per call, 4096 samples (us), then a profile of 300 calls")
    small = {
        "histogram f32 256": lambda: prim.histogram(xf[:4096], 256, (0.0, 1.0)),
        "histogram_even u8": lambda: prim.histogram_even(u8[:4096], 256, 0, 256),
        "bincount u8": lambda: prim.bincount(u8[:4096]),
    }
    for label, fn in small.items():
        fn()
        fn()
        cupy.cuda.get_current_stream().synchronize()
        t0 = time.perf_counter()
        for _ in range(1000):
            fn()
        t1 = time.perf_counter()
        cupy.cuda.get_current_stream().synchronize()
        print(f"  {label}: {1e6 * (t1 - t0) / 1000:.1f} us", flush=True)
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(300):
        small["histogram f32 256"]()
    pr.disable()
    pstats.Stats(pr).sort_stats("tottime").print_stats(10)


# ---- 3. policy sweep -----------------------------------------------------------------------------


def bounds_edit(min_blocks):
    """The edit that compiles hist_warp_replicated with __launch_bounds__(BLOCK, min_blocks)."""
    old = "__global__ void __launch_bounds__(BLOCK)\nhist_warp_replicated("
    new = f"__global__ void __launch_bounds__(BLOCK, {min_blocks})\nhist_warp_replicated("
    return old, new


def bounded_kernel(name, min_blocks):
    """`name` compiled with __launch_bounds__(BLOCK, min_blocks) on hist_warp_replicated."""
    return _loader.Kernel(patched_kernel(src, name, {src: [bounds_edit(min_blocks)]}), name, be)


def policy_sweep():
    print("\nwarp_replicated policy sweep (kernel only, batched; B=1024)")
    for label, x, nb in (
        ("u8 uniform", u8, 256),
        ("u8 all-equal", eq8, 256),
        ("f32 256", xf, 256),
        ("f32 4096", xf, 4096),
    ):
        run = Launch(x, nb)
        best = None
        # (VECS, MIN_BLOCKS): MIN_BLOCKS 2 compiles the kernel with __launch_bounds__(1024, 2)
        # (registers capped at 32, so two blocks fit whatever VECS)
        for vecs, min_blocks in (
            [(4, 0), (8, 0), (8, 2)] if x.dtype == np.uint8 else [(1, 0), (2, 0), (4, 0), (4, 2)]
        ):
            name = kernel_name(x.dtype, nb, vecs)
            k = _loader.load(src, [name])(name)
            if min_blocks:
                k = bounded_kernel(name, min_blocks)
            grid, occ = resident_grid(k, run.smem)
            ms = batched(lambda: run.launch(k, grid))
            ok = int(run.out.sum()) == x.size
            print(
                f"  {label} V={vecs} min_blocks={min_blocks} "
                f"regs={k.resources()[0]} occ={occ} -> {ms:.4f} ms "
                f"{x.nbytes / ms / 1e6:.0f} GB/s{'' if ok else ' WRONG TOTAL'}",
                flush=True,
            )
            if best is None or ms < best[0]:
                best = (ms, vecs, min_blocks)
        print(f"  BEST {label}: {best}", flush=True)


# ---- 4. access pattern (--pattern) ---------------------------------------------------------------

PACK16 = "util/pack16.cuh"
NAMESPACE_END = "}  // namespace prim"
# for_each_packet with each block on its own contiguous range of packets
CHUNKED = """\
// Block-contiguous walk (an experiment of tools/tune/histogram.py): the packets are cut into
// gridDim.x ranges of `span` packets (a multiple of blockDim.x * VECS, so the last blocks may get
// less or nothing); block b walks range b with stride blockDim.x, VECS loads back to back. The
// scalar head and tail go grid-stride as in for_each_packet: every element is visited once.
template <int VECS, class T, class Elem, class Pack>
__device__ __forceinline__ void for_each_packet_chunked(const T* __restrict__ in, i64 n, Elem elem,
                                                        Pack pack) {
    constexpr int N = Pack16<T>::N;
    const i64 tid = global_thread(), nthreads = global_threads();
    const i64 head = aligned_head(in, n);
    for (i64 i = tid; i < head; i += nthreads) elem(in[i], i);
    const T* body = in + head;
    const i64 npk = (n - head) / N;
    const i64 stride = blockDim.x, step = stride * VECS;
    const i64 span = ((npk + gridDim.x - 1) / gridDim.x + step - 1) / step * step;
    const i64 lo0 = static_cast<i64>(blockIdx.x) * span;
    const i64 lo = lo0 < npk ? lo0 : npk;
    const i64 hi = lo + span < npk ? lo + span : npk;
    i64 j = lo + threadIdx.x;
    for (; j + (VECS - 1) * stride < hi; j += step) {
        Pack16<T> p[VECS];
#pragma unroll
        for (int u = 0; u < VECS; ++u) p[u] = load_pack16(body + (j + u * stride) * N);
#pragma unroll
        for (int u = 0; u < VECS; ++u) pack(p[u], head + (j + u * stride) * N);
    }
    for (; j < hi; j += stride) pack(load_pack16(body + j * N), head + j * N);
    for (i64 i = head + npk * N + tid; i < n; i += nthreads) elem(in[i], i);
}

"""
# hist_warp_replicated's walk on the path the library takes (no weights, no packet aggregation)
WALK = "prim::for_each_packet_staged<STAGES, VECS>(in, n, tid, nthreads, stage, one, each);"
WALK_CHUNKED = "prim::for_each_packet_chunked<VECS>(in, n, one, each);"
ONE = """\
    auto one = [&](T x, long long i) {
        atomicAdd(h + bin(x) * replicas, Acc::value(weights, i));  // bin -1: row 0
    };
"""
ONE_LOADS_ONLY = """\
    int sink = 0;  // loads only: the bins are summed in a register, not counted
    auto one = [&](T x, long long) { sink += bin(x); };
"""
MERGE = "    __syncthreads();\n    // fold the replicas and merge"
SINK = "    atomicAdd(h - replicas, static_cast<S>(sink));  // row 0: never merged\n"


def pattern_edits(chunked, loads_only):
    """patched_kernel's edits: the chunked walk and / or loads only; each text occurs once."""
    edits = {src: []}
    if chunked:
        edits[PACK16] = [(NAMESPACE_END, CHUNKED + NAMESPACE_END)]
        edits[src].append((WALK, WALK_CHUNKED))
    if loads_only:
        edits[src] += [(ONE, ONE_LOADS_ONLY), (MERGE, SINK + MERGE)]
    for rel, pairs in edits.items():
        text = _loader.source(rel)
        for old, _ in pairs:
            assert text.count(old) == 1, f"{rel}: {old!r} occurs {text.count(old)} times"
    return edits


def pattern_variants(dt):
    """(label, VECS, edits, grid multiples, counts kept) of section 4 for samples of ``dt``."""
    v = vecs_of(dt)
    return [
        ("production", v, {}, (1,), True),
        *(("chunked", w, pattern_edits(True, False), (1, 4, 16), True) for w in (2, 4)),
        ("loads only (diag)", v, pattern_edits(False, True), (1,), False),
        ("chunked loads only (diag)", v, pattern_edits(True, True), (1, 4), False),
    ]


def capped(edits):
    """``edits`` plus registers capped for two resident blocks (__launch_bounds__(1024, 2))."""
    return {**edits, src: [*edits.get(src, []), bounds_edit(2)]}


def pattern_kernel(name, edits):
    if not edits:  # the library's own module
        return _loader.load(src, [name])(name)
    return _loader.Kernel(patched_kernel(src, name, edits), name, be)


def pattern():
    nb, m = 256, (1 << 22) + 37
    cub = cub_runs()
    print(
        "access pattern of hist_warp_replicated, kernel only, batched (ms per call); "
        f"{SMS} SMs, block {BLOCK}"
    )
    print(
        f"  {'samples':8s} {'kernel':30s} {'VECS':>4s} {'grid':>6s} {'regs':>4s} {'occ':>3s} "
        f"{'ms':>8s} {'GB/s':>6s}  check"
    )

    def row(what, kernel, vecs, grid, regs, occ, ms, nbytes, check):
        print(
            f"  {what:8s} {kernel:30s} {vecs:>4} {grid:>6} {regs:>4} {occ:>3} {ms:8.4f} "
            f"{nbytes / ms / 1e6:6.0f}  {check}",
            flush=True,
        )

    for what, x in (("f32", xf), ("u8", u8)):
        xs = x[3 : 3 + m]  # 12 or 3 bytes past a 16-byte boundary: a scalar head, and a tail
        hs = xs.get()
        want = (
            np.histogram(hs, nb, (0.0, 1.0))[0]
            if x.dtype == np.float32
            else np.bincount(hs, minlength=nb)
        )
        for label, vecs, edits, mults, counted in pattern_variants(x.dtype):
            name = kernel_name(x.dtype, nb, vecs)
            k = pattern_kernel(name, edits)
            big, small = Launch(x, nb), Launch(xs, nb)
            runs = [(label, k, *resident_grid(k, big.smem))]
            if runs[0][3] < 2:  # one block per SM: again with registers capped for two
                kc = _loader.Kernel(patched_kernel(src, name, capped(edits)), name, be)
                runs.append((label + " +lb2", kc, *resident_grid(kc, big.smem)))
            for label_k, k, grid1, occ in runs:
                for mult in mults:
                    grid = grid1 * mult
                    if counted:  # the smaller input first: its launch leaves the record's zeros
                        small.launch(k, grid)
                        same = np.array_equal(small.out.get(), want)
                    ms = batched(lambda: big.launch(k, grid))
                    check = "diagnostic: counts not kept"
                    if counted:
                        total = int(big.out.sum())
                        check = (
                            "ok"
                            if total == x.size and same
                            else f"WRONG: total {total} of {x.size}, smaller input "
                            f"{'ok' if same else 'differs from NumPy'}"
                        )
                    row(what, label_k, vecs, grid, k.resources()[0], occ, ms, x.nbytes, check)
        ref = x if x.dtype == np.float32 else x.view(cupy.uint32)
        ms = batched(lambda: prim.sum(ref))
        row(what, f"prim.sum ({ref.dtype})", "-", "-", "-", "-", ms, x.nbytes, "-")
        if f"{what} 256" in cub:
            fn = cub[f"{what} 256"]
            fn()
            row(what, "CUB histogram_even", "-", "-", "-", "-", batched(fn), x.nbytes, "-")


# ---- 5. staged loads (--staged) ------------------------------------------------------------------

STAGES_SWEEP = (0, 2, 3, 4, 5, 6)
STAGED_CASES = (("f32", np.float32, 256), ("f32", np.float32, 4096), ("u8", np.uint8, 256))


def staged_names():
    """{(dtype, bins, STAGES): kernel name} of section 5."""
    return {
        (dt, nb, s): kernel_name(dt, nb, vecs_of(dt), s)
        for _, dt, nb in STAGED_CASES
        for s in STAGES_SWEEP
    }


def staged():
    m = (1 << 22) + 37
    names = staged_names()
    get = _loader.load(src, sorted(set(names.values())))  # one module: one compile
    info = be.device_info()
    cub = cub_runs(f32_bins=(256, 4096))
    print(
        f"staged loads of hist_warp_replicated, kernel only, batched (ms per call, the rows of "
        f"a case in interleaved rounds); {SMS} SMs, "
        f"block {BLOCK}, {info.shared_per_sm // 1024} KiB shared per SM"
    )
    print(
        f"  {'samples':8s} {'bins':>5s} {'kernel':22s} {'STAGES':>6s} {'VECS':>4s} {'regs':>4s} "
        f"{'KiB':>6s} {'occ':>3s} {'grid':>5s} {'ms':>8s} {'GB/s':>6s}  check"
    )

    def row(what, nb, kernel, stages, vecs, regs, smem, occ, grid, ms, nbytes, check):
        kib = f"{smem / 1024:.1f}" if isinstance(smem, int) else smem
        print(
            f"  {what:8s} {nb:>5} {kernel:22s} {stages:>6} {vecs:>4} {regs:>4} {kib:>6} "
            f"{occ:>3} {grid:>5} {ms:8.4f} {nbytes / ms / 1e6:6.0f}  {check}",
            flush=True,
        )

    for what, dt, nb in STAGED_CASES:
        x = xf if dt == np.float32 else u8
        xs = x[3 : 3 + m]  # 12 or 3 bytes past a 16-byte boundary: a scalar head, and a tail
        hs = xs.get()
        want = (
            np.histogram(hs, nb, (0.0, 1.0))[0]
            if dt == np.float32
            else np.bincount(hs, minlength=nb)
        )
        # the big input's counts by the library's call (its own staging policy)
        big_want = cupy.asnumpy(
            prim.histogram_even(x, nb, *((0.0, 1.0) if dt == np.float32 else (0, 256)))
        )
        assert int(big_want.sum()) == x.size
        vecs = vecs_of(dt)
        # float32 256 bins: also 4 copies (warp w counts into copy w % 4) in place of one per
        # lane, with 2 stages (4 and 8 copies, on 0, 2 or 3 stages, measured slower on an H100)
        sweep = [(s, None) for s in STAGES_SWEEP]
        fns, rows = {}, []
        if dt == np.float32 and nb == 256:
            sweep.append((2, 4))
        for stages, reps in sweep:
            name = names[(dt, nb, stages)]
            big, small = Launch(x, nb, stages, reps), Launch(xs, nb, stages, reps)
            label = "register walk" if stages == 0 else "staged"
            if reps:
                label += f", {reps} copies"
            if big.smem > info.shared_per_block_optin:
                print(
                    f"  {what:8s} {nb:>5} {label:22s} {stages:>6}  does not fit: "
                    f"{big.smem} bytes of shared memory per block",
                    flush=True,
                )
                continue
            k = get(name)
            runs = [(label, k, *resident_grid(k, big.smem))]
            if runs[0][3] < 2 and info.shared_per_sm // (big.smem + 1024) >= 2:
                # registers allow one block, shared memory two: again with registers capped
                kc = _loader.Kernel(patched_kernel(src, name, capped({})), name, be)
                runs.append((label + " +lb2", kc, *resident_grid(kc, big.smem)))
            for label_k, kk, grid, occ in runs:
                small.launch(kk, grid)  # first: its launch leaves the record's zeros
                same = np.array_equal(small.out.get(), want)
                big.launch(kk, grid)
                got = cupy.asnumpy(big.out)
                check = (
                    "ok"
                    if np.array_equal(got, big_want) and same
                    else f"WRONG: total {int(got.sum())} of {x.size}, counts "
                    f"{'equal' if np.array_equal(got, big_want) else 'differ from'} "
                    f"histogram_even's, smaller input "
                    f"{'ok' if same else 'differs from NumPy'}"
                )
                fns[len(fns)] = lambda big=big, kk=kk, grid=grid: big.launch(kk, grid)
                rows.append(
                    (
                        what,
                        nb,
                        label_k,
                        stages,
                        vecs,
                        kk.resources()[0],
                        big.smem,
                        occ,
                        grid,
                        x.nbytes,
                        check,
                    )
                )
        ref = x if dt == np.float32 else x.view(cupy.uint32)
        fns[len(fns)] = lambda ref=ref: prim.sum(ref)
        rows.append(
            (what, nb, f"prim.sum ({ref.dtype})", "-", "-", "-", "-", "-", "-", x.nbytes, "-")
        )
        if f"{what} {nb}" in cub:
            fn = cub[f"{what} {nb}"]
            fn()
            fns[len(fns)] = fn
            rows.append(
                (what, nb, "CUB histogram_even", "-", "-", "-", "-", "-", "-", x.nbytes, "-")
            )
        # every contender of the case in interleaved rounds (drift affects them alike), each
        # sample 10 launches back to back
        times = _timing.bench_many(
            {i: (lambda f=f: [f() for _ in range(10)]) for i, f in fns.items()},
            rounds=5,
            warmup=2,
            repeat=5,
        )
        for i, r in enumerate(rows):
            row(*r[:9], times[i] / 10, *r[9:])


class NvrtcOnly:
    """Stands in for cupy.RawModule in patched_kernel with --compile-only: NVRTC compiles the
    patched tree for sm_90 and get_function gives the lowered name."""

    def __init__(self, code, options, name_expressions):
        self.lowered = _nvrtc.compile_check(code, name_expressions, options=options)

    def get_function(self, name):
        return self.lowered[name]


def compile_only():
    patched.cupy = types.SimpleNamespace(RawModule=NvrtcOnly)
    for dt in (np.float32, np.uint8):
        for label, vecs, edits, _, _ in pattern_variants(dt):
            name = kernel_name(dt, 256, vecs)
            for label_k, e in ((label, edits), (label + " +lb2", capped(edits))):
                print(
                    f"{label_k} VECS={vecs}: {name}\n  -> {patched_kernel(src, name, e)}",
                    flush=True,
                )
    names = sorted(set(staged_names().values()))
    lowered = _nvrtc.compile_check(_loader.source(src), names, options=_loader.nvrtc_options())
    for name in names:  # section 5: the library's source, and the +lb2 copies
        print(
            f"staged: {name}\n  -> {lowered[name]}\n  +lb2 -> "
            f"{patched_kernel(src, name, capped({}))}",
            flush=True,
        )


if __name__ == "__main__":
    if COMPILE_ONLY:
        compile_only()
        sys.exit(0)
    rng = cupy.random.default_rng(1)
    xf = rng.random(n, dtype=cupy.float32)
    u8 = rng.integers(0, 256, n, dtype=cupy.int32).astype(cupy.uint8)
    SMS = prim.backend_info()["sm_count"]
    be = _backend.get_backend()
    dummy = cupy.zeros(1, cupy.float64)
    if PATTERN:
        pattern()
    elif STAGED:
        staged()
    else:
        eq8 = cupy.full(n, 77, dtype=cupy.uint8)
        per_call()
        host_time()
        policy_sweep()

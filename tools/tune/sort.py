"""Tuning experiment for onesweep (GPU only): sort time at 2^27 for several policies
(block, items, min_blocks, look-back window, match) of the pass kernel, per (key bytes, value
bytes) configuration, swept through ``primitives.tuning.override("sort", selector=(kb, vb),
...)``; the time of one pass (end_bit=8: histogram, plan and one pass), and first the all-pass
histogram kernel alone on uniform and skewed keys.

    python -m tools.tune.sort [--hist-only] [--quick] [--top K] [--configs 8:0,4:4]
                              [--json OUT] [--figures OUT] [--bounds]

The histogram section times, on uint32 uniform, float32 normal, uint64 uniform and uint32
all-equal keys (2^27 each), the library's onesweep_histogram (lane-private counters, 1024
threads, 128 KB of shared memory), the same kernel with 2 and 4 loads in flight per thread
(VECS, compiled from a patched copy of the kernel tree, tools/_patched.py), and the previous
histogram (HIST_COPIES = 4 bank-shifted copies per block, 256 threads, kept below as text and
compiled into a patched copy of onesweep.cu). Each kernel's result on each input is checked once
against a bincount of the digits (CuPy) before the kernels are timed in interleaved rounds.
``--hist-only`` stops after that section (no pass kernel is compiled).

``--bounds`` only times the uint32 sort against the same sort without the passes' look-back (a
bound, not a sort) and cupy.sort.

``--json OUT`` writes the fastest policy of each swept configuration; ``--figures OUT`` then runs
``python -m tools.figures --family sort`` in the same process with those policies (to compare
before committing a policy).
"""

import contextlib
import json
import sys

import cupy
import numpy as np

import primitives as prim
from primitives._core import backend as _backend, launch as _launch, loader as _loader
from primitives._core import timing as _timing
from primitives.sorting import _kernels, _onesweep
from primitives.testing import oracle as _oracle
from tools import _patched

n = 1 << 27
# a candidate's tuple, in order (prefetch may be left out: the policy in force's)
FIELDS = ("block", "items", "min_blocks", "window", "match", "prefetch")
KIND = {"u": 0, "i": 1, "f": 2}  # prim::radix::KeyKind
SOURCE = _kernels.ONESWEEP

# The histogram pass as it was before the lane-private counters: each block of 256 threads counts
# into 4 bank-shifted copies of its per-pass rows (lane l into copy l % 4) with shared atomics.
PREVIOUS_HIST = r"""
constexpr int PREV_COPIES = 4;

template <class U>
__device__ __forceinline__ void prev_count_key(U key, const prim::radix::DigitOf<U>& dig,
                                               int passes, unsigned last_mask, unsigned* counts) {
    constexpr int MAXP = sizeof(U);
    const U o = dig.image(key) >> dig.shift;
#pragma unroll
    for (int p = 0; p < MAXP; ++p) {
        if (p < passes) {
            const unsigned m = p + 1 == passes ? last_mask : 255u;
            atomicAdd(&counts[p * os::RADIX + (static_cast<unsigned>(o >> (8 * p)) & m)], 1u);
        }
    }
}

template <class U, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
onesweep_histogram_copies4(const U* __restrict__ keys, long long count, int kind, int descending,
                           int begin_bit, int end_bit, unsigned* __restrict__ hist) {
    typedef prim::Vec16<U> V;
    constexpr int STRIDE = static_cast<int>(sizeof(U)) * 256 + 1;
    __shared__ unsigned all_counts[PREV_COPIES * STRIDE];
    const int passes = (end_bit - begin_bit + os::BITS - 1) / os::BITS;
    const int last_width = end_bit - begin_bit - os::BITS * (passes - 1);
    const unsigned last_mask = (1u << last_width) - 1u;
    const prim::radix::DigitOf<U> dig(kind, descending, begin_bit, os::BITS);
    for (int i = threadIdx.x; i < PREV_COPIES * STRIDE; i += BLOCK) all_counts[i] = 0u;
    __syncthreads();
    unsigned* counts = all_counts + (threadIdx.x % PREV_COPIES) * STRIDE;
    const long long head = prim::aligned_head(keys, count);
    const long long nvec = (count - head) / V::N;
    const long long tail = head + nvec * V::N;
    const long long gtid = static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x;
    const long long stride = static_cast<long long>(gridDim.x) * BLOCK;
    bool fold = false;
    auto take = [&](U key) {
        prev_count_key(key, dig, passes, last_mask, counts);
        fold = fold || (dig.is_float && prim::radix::needs_fold(key));
    };
    if (gtid < head) take(keys[gtid]);
    for (long long i = tail + gtid; i < count; i += stride) take(keys[i]);
    const U* body = keys + head;
    for (long long v = gtid; v < nvec; v += stride) {
        const prim::Packet<U> pk = prim::load16(body + v * V::N);
#pragma unroll
        for (int e = 0; e < V::N; ++e) take(pk.v[e]);
    }
    if (__syncthreads_or(fold) && threadIdx.x == 0) atomicOr(&hist[passes * os::RADIX], 1u);
    for (int i = threadIdx.x; i < passes * os::RADIX; i += BLOCK) {
        unsigned c = 0;
#pragma unroll
        for (int copy = 0; copy < PREV_COPIES; ++copy) c += all_counts[copy * STRIDE + i];
        if (c) atomicAdd(&hist[i], c);
    }
}

"""
PLAN_MARK = "template <int BLOCK>\n__global__ void __launch_bounds__(BLOCK)\n    onesweep_plan("  # PREVIOUS_HIST goes before
HIST_VECS = "static constexpr int VECS = 8;"


def hist_kernels(kb):
    """label -> (kernel, grid, block, dynamic shared bytes) of the histograms to compare."""
    be = _backend.get_backend()
    hpol = prim.tuning.policy("sort", "histogram")
    new = _kernels.hist_name(kb, hpol)
    lib = _loader.load(SOURCE, [new])(new)  # this kernel alone: no pass kernels
    grid = _onesweep.hist_grid(lib, n, kb, hpol)  # opts the kernel in to its shared memory
    out = {f"lane columns VECS={hpol.vectors} (library)": (lib, grid, hpol.block, hpol.smem)}
    for vecs in (2, 4):
        edit = {SOURCE: [(HIST_VECS, f"static constexpr int VECS = {vecs};")]}
        k = _loader.Kernel(_patched.patched_kernel(SOURCE, new, edit), new, be)
        _launch.set_dynamic_shared(k, hpol.smem)
        out[f"lane columns VECS={vecs}"] = (k, grid, hpol.block, hpol.smem)
    prev = f"onesweep_histogram_copies4<{_kernels.C[kb]}, 256>"
    edit = {SOURCE: [(PLAN_MARK, PREVIOUS_HIST + PLAN_MARK)]}
    k = _loader.Kernel(_patched.patched_kernel(SOURCE, prev, edit), prev, be)
    out["previous: 4 copies, 256 threads"] = (
        k,
        _launch.cover_grid(n, 256, 16, kernel=k, per_sm=8),
        256,
        0,
    )
    return out


def hist_section(data):
    kernels = {kb: hist_kernels(kb) for kb in (4, 8)}
    for name, x in (
        ("uint32", data["x32"]),
        ("float32 normal", data["f32"]),
        ("uint64", data["x64"]),
        ("uint32 all equal", cupy.full(n, 7, cupy.uint32)),
    ):
        kb = x.dtype.itemsize
        want = _oracle.radix_histogram(x, 0, 8 * kb)
        hist = cupy.zeros(kb * 256 + 1, cupy.uint32)  # + the fold word
        args = (
            x.view(f"u{kb}"),
            np.int64(n),
            np.int32(KIND[x.dtype.kind]),
            np.int32(0),
            np.int32(0),
            np.int32(8 * kb),
            hist,
        )
        runs, checks = {}, {}
        for label, (k, grid, block, smem) in kernels[kb].items():
            hist.fill(0)
            k((grid,), (block,), args, shared_mem=smem)
            checks[label] = "ok" if bool(cupy.array_equal(hist, want)) else "WRONG"
            runs[label] = lambda k=k, g=grid, b=block, s=smem: k((g,), (b,), args, shared_mem=s)
        ms = _timing.bench_many(runs, rounds=3, warmup=3, repeat=10)
        prev = ms["previous: 4 copies, 256 threads"]
        for label, (k, grid, block, smem) in kernels[kb].items():
            regs = k.resources()[0]
            local = getattr(k.function, "local_size_bytes", "?")
            print(
                f"histogram {name + ':':17s} {label:34s} {ms[label]:.4f} ms "
                f"({x.nbytes / ms[label] / 1e6:.0f} GB/s, {prev / ms[label]:.2f}x the previous)"
                f" grid {grid} x {block}, {regs} regs, {local} B local, {checks[label]}",
                flush=True,
            )


def bounds_section(x32):
    """uint32 keys: the sort as it is against the same sort whose pass kernel skips the look-back
    (each tile takes 0 keys before it per digit: a bound, not a sort), and cupy.sort. Each
    sort is a plan made with its kernels (``prim.plan``), called in interleaved rounds."""
    name = _kernels.pass_name(4, 0, prim.tuning.policy("sort", (4, 0)))
    be = _backend.get_backend()
    skip = {
        SOURCE: [
            (
                "before = os::look_back<WINDOW>(t.status + threadIdx.x, t.tile, t.first_tile, t.epoch);",
                "before = 0;",
            )
        ]
    }
    fns = {}
    for label, edits in (("as is", None), ("no look-back", skip)):
        k = (
            _kernels.kernel(SOURCE, name)
            if edits is None
            else _loader.Kernel(_patched.patched_kernel(SOURCE, name, edits), name, be)
        )
        with _patched.swapped_kernels(_kernels, SOURCE, {name: k}):
            p = prim.plan(prim.sort, x32)
        fns[label] = lambda p=p: p(x32)
    fns["cupy.sort"] = lambda: cupy.sort(x32)
    ok = bool(cupy.array_equal(fns["as is"](), cupy.sort(x32)))
    t = _timing.bench_many(fns, rounds=3, warmup=3, repeat=10)
    for label, ms in t.items():
        print(
            f"sort uint32 2^27 {label}: {ms:.4f} ms ({t['cupy.sort'] / ms:.2f}x cupy.sort)"
            + (f" ok={ok}" if label == "as is" else ""),
            flush=True,
        )


CANDIDATES = {
    (4, 0): [
        (256, 36, 2, 8, 1),
        (256, 24, 3, 8, 1),
        (256, 20, 3, 8, 1),
        (512, 16, 2, 8, 1),
        (512, 18, 2, 8, 1),
        (256, 32, 2, 8, 1),
        (256, 28, 2, 8, 1),
        (256, 16, 4, 8, 1),
        (256, 40, 2, 8, 1),
        (256, 44, 2, 8, 1),
        (256, 48, 2, 8, 1),
        (256, 56, 1, 8, 1),
        (512, 14, 2, 8, 1),
        (256, 36, 2, 8, 0),
        (256, 36, 2, 1, 1),
    ],
    (4, 4): [
        (256, 32, 2, 8, 1),
        (256, 28, 2, 8, 1),
        (256, 36, 2, 8, 1),
        (256, 16, 3, 8, 1),
        (256, 40, 2, 8, 1),
        (512, 14, 2, 8, 1),
        (256, 32, 2, 8, 0),
    ],
    (8, 0): [
        (256, 24, 2, 8, 1),
        (256, 28, 2, 8, 1),
        (256, 32, 2, 8, 1),
        (256, 12, 3, 8, 1),
        (512, 14, 2, 8, 1),
    ],
    (4, 8): [(256, 12, 3, 8, 1), (256, 16, 2, 8, 1), (256, 20, 2, 8, 1), (256, 24, 2, 8, 1)],
    (8, 4): [(256, 12, 3, 8, 1), (256, 16, 2, 8, 1), (256, 20, 2, 8, 1), (256, 24, 2, 8, 1)],
    (8, 8): [(256, 12, 2, 8, 1), (256, 16, 2, 8, 1), (256, 20, 2, 8, 1), (256, 24, 2, 8, 1)],
}


def fields(policy):
    """A candidate tuple as the fields of the onesweep policy."""
    return dict(zip(FIELDS, policy))


def sweep(candidates, work):
    """Time every candidate policy of each configuration; returns {cfg: (policy, ms)} of the
    fastest correct one."""
    best = {}
    for cfg, policies in candidates.items():
        fn, nbytes, keys, vals = work[cfg]
        ref = cupy.sort(keys)
        for policy in policies:
            with prim.tuning.override("sort", selector=cfg, **fields(policy)) as pol:
                try:
                    got = fn()
                except Exception as exc:  # e.g. too much shared memory: report, go on  # noqa: BLE001
                    print(f"{cfg} {policy}: {type(exc).__name__}: {exc}"[:200])
                    continue
                ok = bool(cupy.array_equal(got[0] if isinstance(got, tuple) else got, ref))
                ms = _timing.bench(fn, warmup=3, repeat=15)
                one = _timing.bench(
                    lambda: prim.radix_sort(keys, vals, end_bit=8), warmup=3, repeat=15
                )
                k = _kernels.kernel(SOURCE, _kernels.pass_name(*cfg, pol))
                regs, _ = k.resources()
                occ = k.occupancy(
                    pol.block, _kernels.tile_smem(pol.block, pol.items, max(cfg), 8, pol.parts)
                )
            _patched.forget_plans()  # the scratch of this policy's plans back to the pool
            print(
                f"keys {cfg[0]}B values {cfg[1]}B policy {policy}: {ms:.4f} ms "
                f"({nbytes / ms / 1e6:.0f} GB/s), end_bit=8 {one:.4f} ms, regs {regs}, "
                f"{occ} blocks/SM ok={ok}",
                flush=True,
            )
            if ok and (cfg not in best or ms < best[cfg][1]):
                best[cfg] = (policy, ms)
    return best


def main(argv):
    rng = np.random.default_rng(5)
    data = {
        "x32": cupy.asarray(rng.integers(0, 2**32, n, dtype=np.uint32)),
        "x64": cupy.asarray(rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)),
        "v32": cupy.asarray(rng.integers(0, 2**32, n, dtype=np.uint32)),
        "f32": cupy.asarray(rng.standard_normal(n, dtype=np.float32)),
    }
    x32, x64, v32 = data["x32"], data["x64"], data["v32"]
    if "--bounds" in argv:
        bounds_section(x32)
        return
    hist_section(data)
    if "--hist-only" in argv:
        return
    candidates = CANDIDATES
    if "--quick" in argv:
        candidates = {k: v[:2] for k, v in candidates.items()}
    if "--top" in argv:  # the first K candidates of each configuration (the likeliest first)
        top = int(argv[argv.index("--top") + 1])
        candidates = {k: v[:top] for k, v in candidates.items()}
    if "--configs" in argv:  # e.g. --configs 8:0,4:4 (key bytes:value bytes)
        wanted = [
            tuple(int(v) for v in c.split(":"))
            for c in argv[argv.index("--configs") + 1].split(",")
        ]
        candidates = {k: v for k, v in candidates.items() if k in wanted}
    v64 = cupy.asarray(rng.integers(0, 2**63, n, dtype=np.int64)).view(np.uint64)
    work = {
        (4, 0): (lambda: prim.sort(x32), 2 * 4 * n, x32, None),
        (4, 4): (lambda: prim.radix_sort(x32, v32), 2 * 8 * n, x32, v32),
        (8, 0): (lambda: prim.sort(x64), 2 * 8 * n, x64, None),
        (4, 8): (lambda: prim.radix_sort(x32, v64), 2 * 12 * n, x32, v64),
        (8, 4): (lambda: prim.radix_sort(x64, v32), 2 * 12 * n, x64, v32),
        (8, 8): (lambda: prim.radix_sort(x64, v64), 2 * 16 * n, x64, v64),
    }
    best = sweep(candidates, work)
    print("fastest:", {k: v[0] for k, v in best.items()}, flush=True)
    if "--json" in argv:
        with open(argv[argv.index("--json") + 1], "w") as f:
            json.dump([[list(k), list(v[0])] for k, v in best.items()], f)
    if "--figures" in argv:
        from tools.figures.__main__ import main as figures

        out = argv[argv.index("--figures") + 1]
        del data, x32, x64, v32, v64, work
        _patched.forget_plans()
        with contextlib.ExitStack() as stack:
            for cfg, (policy, _) in best.items():
                stack.enter_context(prim.tuning.override("sort", selector=cfg, **fields(policy)))
            figures(["--family", "sort", "--out", out])


if __name__ == "__main__":
    main(sys.argv[1:])

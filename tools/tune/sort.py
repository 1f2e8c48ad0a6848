"""Tuning experiment for onesweep (GPU only): sort time at 2^27 for several policies
(BLOCK, ITEMS, MIN_BLOCKS, look-back WINDOW, MATCH) of the pass kernel, per (key bytes, value bytes)
configuration, the time of one pass (end_bit=8: histogram, plan and one pass), and first the
all-pass histogram kernel alone on uniform and skewed keys.

    python tools/tune_sort.py [--hist-only] [--quick] [--top K] [--configs 8:0,4:4] [--json OUT]
                              [--figures OUT] [--bounds]

The histogram section times, on uint32 uniform, float32 normal, uint64 uniform and uint32
all-equal keys (2^27 each), the library's onesweep_histogram (lane-private counters, 1024
threads, 128 KB of shared memory), the same kernel with 2 and 8 loads in flight per thread
(VECS, compiled from a patched copy of the kernel tree, tools/patched.py), and the previous
histogram (HIST_COPIES = 4 bank-shifted copies per block, 256 threads, kept below as text and
compiled into a patched copy of onesweep.cu). Each kernel's result on each input is checked once
against a bincount of the digits (CuPy) before the kernels are timed in interleaved rounds.
``--hist-only`` stops after that section (no pass kernel is compiled).

``--bounds`` only times the uint32 sort against the same sort without the passes' look-back (a
bound, not a sort) and cupy.sort.

``--json OUT`` writes the fastest policy of each swept configuration; ``--figures OUT`` then runs
``tools/figures.py --family sort`` in the same process with those policies (to compare before
committing a policy).
"""
import json
import os
import sys

import cupy
import numpy as np

import primitives as prim
from primitives._core import backend as _backend, launch as _launch, loader as _loader, timing as _timing
from primitives.testing import oracle as _oracle
from primitives import sorting
from patched import forget_plans, patched_kernel, swapped_kernels  # tools/patched.py

n = 1 << 27
rng = np.random.default_rng(5)
quick = "--quick" in sys.argv
hist_only = "--hist-only" in sys.argv
x32 = cupy.asarray(rng.integers(0, 2**32, n, dtype=np.uint32))
x64 = cupy.asarray(rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True))
v32 = cupy.asarray(rng.integers(0, 2**32, n, dtype=np.uint32))
f32 = cupy.asarray(rng.standard_normal(n, dtype=np.float32))

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
PLAN_MARK = "__global__ void __launch_bounds__(256)\nonesweep_plan("  # PREVIOUS_HIST goes before
HIST_VECS = "static constexpr int VECS = 8;"


def hist_kernels(kb):
    """label -> (kernel, grid, block, dynamic shared bytes) of the histograms to compare."""
    be = _backend.get_backend()
    new = f"onesweep_histogram<{sorting._C[kb]}, {sorting._OS_HIST_BLOCK}>"
    lib = _loader.load(sorting._OS_SOURCE, [new])(new)  # this kernel alone: no pass kernels
    grid = sorting._os_hist_grid(lib, n, kb)  # opts the kernel in to its shared memory
    out = {f"lane columns VECS={sorting._OS_HIST_VECS} (library)":
           (lib, grid, sorting._OS_HIST_BLOCK, sorting._OS_HIST_SMEM)}
    for vecs in (2, 4):
        edit = {sorting._OS_SOURCE: [(HIST_VECS, f"static constexpr int VECS = {vecs};")]}
        k = _loader.Kernel(patched_kernel(sorting._OS_SOURCE, new, edit), new, be)
        _launch.set_dynamic_shared(k, sorting._OS_HIST_SMEM)
        out[f"lane columns VECS={vecs}"] = (k, grid, sorting._OS_HIST_BLOCK, sorting._OS_HIST_SMEM)
    prev = f"onesweep_histogram_copies4<{sorting._C[kb]}, 256>"
    edit = {sorting._OS_SOURCE: [(PLAN_MARK, PREVIOUS_HIST + PLAN_MARK)]}
    k = _loader.Kernel(patched_kernel(sorting._OS_SOURCE, prev, edit), prev, be)
    out["previous: 4 copies, 256 threads"] = (k, _launch.cover_grid(n, 256, 16, kernel=k, per_sm=8),
                                              256, 0)
    return out


def hist_section():
    kernels = {kb: hist_kernels(kb) for kb in (4, 8)}
    for name, x in (("uint32", x32), ("float32 normal", f32), ("uint64", x64),
                    ("uint32 all equal", cupy.full(n, 7, cupy.uint32))):
        kb = x.dtype.itemsize
        want = _oracle.radix_histogram(x, 0, 8 * kb)
        hist = cupy.zeros(kb * 256 + 1, cupy.uint32)  # + the fold word
        args = (x.view(sorting._U[kb]), np.int64(n), np.int32(sorting._KIND[x.dtype.kind]),
                np.int32(0), np.int32(0), np.int32(8 * kb), hist)
        runs, checks = {}, {}
        for label, (k, grid, block, smem) in kernels[kb].items():
            hist.fill(0)
            k((grid,), (block,), args, shared_mem=smem)
            checks[label] = "ok" if bool(cupy.array_equal(hist, want)) else "WRONG"
            runs[label] = (lambda k=k, g=grid, b=block, s=smem: k((g,), (b,), args, shared_mem=s))
        ms = _timing.bench_many(runs, rounds=3, warmup=3, repeat=10)
        prev = ms["previous: 4 copies, 256 threads"]
        for label, (k, grid, block, smem) in kernels[kb].items():
            regs = k.resources()[0]
            local = getattr(k._fn, "local_size_bytes", "?")
            print(f"histogram {name + ':':17s} {label:34s} {ms[label]:.4f} ms "
                  f"({x.nbytes / ms[label] / 1e6:.0f} GB/s, {prev / ms[label]:.2f}x the previous)"
                  f" grid {grid} x {block}, {regs} regs, {local} B local, {checks[label]}",
                  flush=True)


def bounds_section():
    """uint32 keys: the sort as it is against the same sort whose pass kernel skips the look-back
    (each tile takes 0 keys before it per digit: a bound, not a sort), and cupy.sort."""
    name = sorting._os_pass_name(4, 0)
    be = _backend.get_backend()
    skip = {"sort/onesweep.cu": [(
        "before = os::look_back<WINDOW>(t.status + threadIdx.x, t.tile, t.first_tile, t.epoch);",
        "before = 0;")]}
    fns = {}
    for label, edits in (("as is", None), ("no look-back", skip)):
        k = (sorting._kernel(sorting._OS_SOURCE, name) if edits is None else
             _loader.Kernel(patched_kernel(sorting._OS_SOURCE, name, edits), name, be))
        swap = swapped_kernels(sorting, sorting._OS_SOURCE, {name: k})

        def run(swap=swap):
            with swap:
                return prim.sort(x32)

        fns[label] = run
    fns["cupy.sort"] = lambda: cupy.sort(x32)
    ok = bool(cupy.array_equal(fns["as is"](), cupy.sort(x32)))
    t = _timing.bench_many(fns, rounds=3, warmup=3, repeat=10)
    for label, ms in t.items():
        print(f"sort uint32 2^27 {label}: {ms:.4f} ms ({t['cupy.sort'] / ms:.2f}x cupy.sort)"
              + (f" ok={ok}" if label == "as is" else ""), flush=True)


if "--bounds" in sys.argv:
    bounds_section()
    sys.exit(0)
hist_section()
if hist_only:
    sys.exit(0)

CANDIDATES = {
    (4, 0): [(256, 36, 2, 8, 1), (256, 24, 3, 8, 1), (256, 20, 3, 8, 1), (512, 16, 2, 8, 1),
             (512, 18, 2, 8, 1), (256, 32, 2, 8, 1), (256, 28, 2, 8, 1), (256, 16, 4, 8, 1),
             (256, 40, 2, 8, 1), (256, 44, 2, 8, 1), (256, 48, 2, 8, 1), (256, 56, 1, 8, 1),
             (512, 14, 2, 8, 1), (256, 36, 2, 8, 0), (256, 36, 2, 1, 1)],
    (4, 4): [(256, 32, 2, 8, 1), (256, 28, 2, 8, 1), (256, 36, 2, 8, 1), (256, 16, 3, 8, 1),
             (256, 40, 2, 8, 1), (512, 14, 2, 8, 1), (256, 32, 2, 8, 0)],
    (8, 0): [(256, 24, 2, 8, 1), (256, 28, 2, 8, 1), (256, 32, 2, 8, 1), (256, 12, 3, 8, 1),
             (512, 14, 2, 8, 1)],
    (4, 8): [(256, 12, 3, 8, 1), (256, 16, 2, 8, 1), (256, 20, 2, 8, 1), (256, 24, 2, 8, 1)],
    (8, 4): [(256, 12, 3, 8, 1), (256, 16, 2, 8, 1), (256, 20, 2, 8, 1), (256, 24, 2, 8, 1)],
    (8, 8): [(256, 12, 2, 8, 1), (256, 16, 2, 8, 1), (256, 20, 2, 8, 1), (256, 24, 2, 8, 1)],
}
if quick:
    CANDIDATES = {k: v[:2] for k, v in CANDIDATES.items()}
if "--top" in sys.argv:  # the first K candidates of each configuration (the likeliest first)
    top = int(sys.argv[sys.argv.index("--top") + 1])
    CANDIDATES = {k: v[:top] for k, v in CANDIDATES.items()}
if "--configs" in sys.argv:  # e.g. --configs 8:0,4:4 (key bytes:value bytes)
    wanted = [tuple(int(v) for v in c.split(":"))
              for c in sys.argv[sys.argv.index("--configs") + 1].split(",")]
    CANDIDATES = {k: v for k, v in CANDIDATES.items() if k in wanted}
v64 = cupy.asarray(rng.integers(0, 2**63, n, dtype=np.int64)).view(np.uint64)
WORK = {(4, 0): (lambda: prim.sort(x32), 2 * 4 * n, x32, None),
        (4, 4): (lambda: prim.radix_sort(x32, v32), 2 * 8 * n, x32, v32),
        (8, 0): (lambda: prim.sort(x64), 2 * 8 * n, x64, None),
        (4, 8): (lambda: prim.radix_sort(x32, v64), 2 * 12 * n, x32, v64),
        (8, 4): (lambda: prim.radix_sort(x64, v32), 2 * 12 * n, x64, v32),
        (8, 8): (lambda: prim.radix_sort(x64, v64), 2 * 16 * n, x64, v64)}
default = dict(sorting._OS_POLICY)
best = {}
for cfg, policies in CANDIDATES.items():
    fn, nbytes, keys, vals = WORK[cfg]
    ref = cupy.sort(keys)
    for policy in policies:
        sorting._OS_POLICY[cfg] = policy
        forget_plans(sorting)
        try:
            got = fn()
        except Exception as exc:  # e.g. too much shared memory: report, go on
            print(f"{cfg} {policy}: {type(exc).__name__}: {exc}"[:200])
            continue
        ok = bool(cupy.array_equal(got[0] if isinstance(got, tuple) else got, ref))
        ms = _timing.bench(fn, warmup=3, repeat=15)
        one = _timing.bench(lambda: prim.radix_sort(keys, vals, end_bit=8), warmup=3, repeat=15)
        k = sorting._kernel(sorting._OS_SOURCE, sorting._os_pass_name(*cfg))
        regs, _ = k.resources()
        block, items = policy[:2]
        occ = k.occupancy(block, sorting._tile_smem(block, items, max(cfg), 8))
        print(f"keys {cfg[0]}B values {cfg[1]}B policy {policy}: {ms:.4f} ms "
              f"({nbytes / ms / 1e6:.0f} GB/s), end_bit=8 {one:.4f} ms, regs {regs}, "
              f"{occ} blocks/SM ok={ok}", flush=True)
        if ok and (cfg not in best or ms < best[cfg][1]):
            best[cfg] = (policy, ms)
    sorting._OS_POLICY[cfg] = default[cfg]
    forget_plans(sorting)
print("fastest:", {k: v[0] for k, v in best.items()}, flush=True)
if "--json" in sys.argv:
    with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
        json.dump([[list(k), list(v[0])] for k, v in best.items()], f)

if "--figures" in sys.argv:
    out = sys.argv[sys.argv.index("--figures") + 1]
    for cfg, (policy, _) in best.items():
        sorting._OS_POLICY[cfg] = policy
    forget_plans(sorting)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import figures

    figures.main(["--family", "sort", "--out", out])

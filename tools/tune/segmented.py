"""Tuning experiment for the segmented kernels (GPU only), float32 sums at 2^28:

1. interleaved: the public calls next to their peers (segmented_reduce on 2^16 x 2^12 against
   CUB's segmented_reduce and cupy.sum(axis=1); on 2^22 ragged segments of 0..128 elements against
   prim.sum of the same n; segmented_scan against prim.inclusive_scan), host work included, and the
   launches alone of each reduction candidate: segmented_reduce_tiles after the
   segmented_upper_bounds pre-pass for several (BLOCK, ITEMS, MIN_BLOCKS) policies, loads
   exchanged through shared memory or read per thread, tiles drawn from a counter or taken in
   block order, and segmented_reduce_segments (a block per segment, no pre-pass) for several
   (BLOCK, ITEMS, MIN_BLOCKS, split_blocks), whatever the mean segment length (each a policy of
   ``primitives.tuning.override("segmented", selector="reduce")``);
2. host time per call (small input, the launch queue never waits for the GPU);
3. each candidate's results checked (also on 6 huge segments), the scan policies, with the tile
   prefix overlapped (1) or not (0), and each pre-pass alone.

    python -m tools.tune.segmented [log2 n] [--searched]
        (2^28 by default; small sizes run on the emulator)

``--searched``: section 1 also times the library's reduction tiles kernel alone (reading the
bounds of the pre-pass) against SEARCHED_EDIT (each tile searching its own bounds), and stops
there.
"""

import sys
import time

import numpy as np

import primitives as prim
from primitives._core import backend as _backend, loader as _loader, lookback as _lookback
from primitives._core import timing as _timing
from primitives.segmented import _choose as _gc, _plans as _gp
from primitives.testing import peers

backend = _backend.get_backend()
cupy = backend.xp  # CuPy on a GPU, NumPy on the emulator

SOURCE = "segmented/segmented.cu"
# (BLOCK, ITEMS, MIN_BLOCKS): scans with the tile prefix overlapped or not
SCAN_POLICIES = ((256, 16, 6), (128, 32, 6))
# (BLOCK, ITEMS, MIN_BLOCKS, EXCHANGE, DRAWN): segmented_reduce_tiles
REDUCE_POLICIES = tuple(
    (b, i, c, e, d) for b, i, c in ((256, 32, 4), (128, 32, 8)) for e in (1, 0) for d in (1, 0)
)
# (BLOCK, ITEMS, MIN_BLOCKS, SPLIT_BLOCKS): segmented_reduce_segments, a block per segment
SEGMENT_POLICIES = (
    (256, 16, 8, 256),
    (256, 16, 6, 256),
    (128, 16, 16, 256),
    (512, 16, 4, 256),
    (256, 16, 8, 64),
    (256, 16, 8, 1024),
)
rng = np.random.default_rng(5)
REPS = dict(warmup=3, repeat=15) if backend.is_cuda else dict(warmup=0, repeat=1)
ROUNDS = (
    dict(rounds=5, warmup=5, repeat=20) if backend.is_cuda else dict(rounds=1, warmup=0, repeat=1)
)


def name(block, items, mode, segs, min_blocks, overlap):
    return (
        f"segmented_lookback<float, float, prim::Sum<float>, {block}, {items}, {mode}, "
        f"{segs}, {min_blocks}, {'true' if overlap else 'false'}>"
    )


def tag_of(policy):
    if len(policy) == 4:
        block, items, min_blocks, split = policy
        return f"[reduce_segments {block}x{items} min {min_blocks} split {split}]"
    block, items, min_blocks, exchange, drawn = policy
    return (
        f"[reduce_tiles {block}x{items} min {min_blocks} "
        f"{'exchange' if exchange else 'per-thread'} {'drawn' if drawn else 'block order'}]"
    )


BOUNDS = "segmented_bounds<256>"  # a block of 256 threads, a warp a bound
NAMES = (
    [BOUNDS]
    + [f"segmented_upper_bounds<{t}>" for t in (4096, 8192)]
    + [
        name(b, i, m, g, c, o)
        for b, i, c in SCAN_POLICIES
        for o in (1, 0)
        for m, g in ((0, 0), (0, 2))
    ]
)
kernels = _loader.load(SOURCE, NAMES)


def bench(fn):
    return _timing.bench(fn, **REPS)


def scan_runner(
    block, items, mode, segs, x, out, offsets=None, flags=None, min_blocks=1, overlap=1
):
    """Launches of segmented_lookback (with the search pre-pass for offsets)."""
    n = x.size
    tile = block * items
    tiles = -(-n // tile)
    k = kernels(name(block, items, mode, segs, min_blocks, overlap))
    plan = _lookback.LookbackPlan(k, tiles, block, n, cupy, 8)
    bounds = cupy.zeros(tiles + 1, np.int64)
    stand_f, stand_o = cupy.zeros(1, np.uint8), cupy.zeros(1, np.int64)
    bk = kernels(BOUNDS)
    nseg = 0 if offsets is None else offsets.size - 1
    args = (
        x,
        plan.n64,
        stand_f if flags is None else flags,
        stand_o if offsets is None else offsets,
        np.int64(nseg),
        bounds,
        out,
    )

    def run():
        if segs == 2:
            bk(
                (-(-(tiles + 1) * 32 // 256),),
                (256,),
                (offsets, np.int64(nseg), np.int64(tile), np.int64(tiles + 1), bounds),
            )
        plan.launch(*args)

    return run, k, 0


def reduce_runner(policy, x, out, offsets):
    """The library's plan under ``policy`` (a tuning override while the plan is made): the
    launches of segmented_upper_bounds and segmented_reduce_tiles (5 fields), or the one launch
    of segmented_reduce_segments (4 fields), whatever the segments' mean length."""
    if len(policy) == 4:
        block, items, min_blocks, split = policy
        fields = dict(
            per_segment_from=1,
            segment_block=block,
            segment_bytes=4 * items,
            segment_min_blocks=min_blocks,
            split_blocks=split,
        )
    else:
        block, items, min_blocks, exchange, drawn = policy
        fields = dict(
            block=block,
            bytes=4 * items,
            min_blocks=min_blocks,
            drawn=bool(drawn),
            per_thread_below=0 if exchange else x.size + 1,
            per_segment_from=0,
        )
    with prim.tuning.override("segmented", selector="reduce", **fields):
        plan = prim.plan(prim.segmented_reduce, x, offsets, check=False).core
    return (lambda: plan(x, offsets, out)), plan.kernel, plan.smem


# A variant of segmented_reduce_tiles that finds its tile's two boundary words itself (warps 0
# and 1, prim::warp_lower_bound, while the loads fly) instead of reading the pre-pass's: timed
# without the pre-pass, against the library's kernel with and without it (--searched).
SEARCHED_EDIT = {
    SOURCE: [
        (
            "    const long long w0 = __ldg(bounds + tile), w1 = __ldg(bounds + tile + 1);\n",
            "    __shared__ long long searched[2];\n"
            "    if (warp < 2) {  // warp 0: the tile's start, warp 1: its end\n"
            "        const long long key = t0 + static_cast<long long>(warp) * TILE;\n"
            "        const long long u = prim::warp_lower_bound(offsets, nseg + 1, key + 1);\n"
            "        if (lane == 0)\n"
            "            searched[warp] = 2 * u + ((u > 0 && __ldg(offsets + u - 1) == key) ? 1 : 0);\n"
            "    }\n"
            "    __syncthreads();\n"
            "    const long long w0 = searched[0], w1 = searched[1];\n",
        )
    ]
}


def tiles_only(x, out, offsets, searched):
    """The library's reduction policy on (x, offsets): its tiles kernel launched alone (after one
    full run), as it is (reading the bounds the pre-pass left) or with SEARCHED_EDIT."""
    from tools._patched import patched_kernel

    f32 = np.dtype(np.float32)
    nseg = offsets.size - 1
    pol = prim.tuning.policy("segmented", "reduce")
    exchange = _gc.exchanges(x.size, nseg, pol)
    nm = _gp.reduce_name(f32, f32, "sum", exchange, pol)
    k = _loader.Kernel(patched_kernel(SOURCE, nm, SEARCHED_EDIT), nm, backend) if searched else None
    plan = _gp.ReducePlan(backend, f32, f32, "sum", exchange, x.size, pol, tiles_kernel=k)
    plan(x, offsets, out)
    return lambda: plan.launch(x, plan.n64, offsets, np.int64(nseg), plan.bounds, out)


def host_us(fn, calls):
    """Host microseconds per call of fn, timed over `calls` calls on a small input (the launch
    queue never waits for the GPU)."""
    fn()
    if backend.is_cuda:
        cupy.cuda.get_current_stream().synchronize()
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    us = (time.perf_counter() - t) / calls * 1e6
    if backend.is_cuda:
        cupy.cuda.get_current_stream().synchronize()
    return us


def main(log2n=28):
    n = 1 << log2n
    rows, cols = n >> 12, 1 << 12
    nrag = max(1, n >> 6)
    x = cupy.asarray(rng.random(n, dtype=np.float32) + np.float32(0.5))
    out = cupy.empty_like(x)
    print(
        f"copy 2^{log2n} float32: {bench(lambda: out.__setitem__(Ellipsis, x)):.4f} ms", flush=True
    )
    x2 = x.reshape(rows, cols)
    off = cupy.arange(0, n + 1, cols, dtype=cupy.int64)
    flags = cupy.zeros(n, cupy.bool_)
    flags[::cols] = True
    lens = rng.integers(0, 129, nrag)
    roff_h = np.concatenate([[0], np.cumsum(lens)])
    y = x[: min(int(roff_h[-1]), n)]
    roff = cupy.minimum(cupy.asarray(roff_h), y.size)
    huge = cupy.asarray(np.array([0, 1, n >> 4, 3 * (n >> 4), 3 * (n >> 4), n - 7, n], np.int64))

    scan_ref = cupy.cumsum(x2, axis=1).reshape(-1)
    red_ref = x2.sum(axis=1)
    cs = cupy.concatenate([cupy.zeros(1), cupy.cumsum(y, dtype=np.float64)])
    rag_ref = cs[roff[1:]] - cs[roff[:-1]]
    seg_of = cupy.searchsorted(roff, cupy.arange(y.size), side="right") - 1
    rag_scan_ref = cs[1:] - cs[roff[seg_of]]
    csx = cupy.concatenate([cupy.zeros(1), cupy.cumsum(x, dtype=np.float64)])
    huge_ref = csx[huge[1:]] - csx[huge[:-1]]

    def rel(got, want):
        return float(cupy.max(cupy.abs(got - want) / cupy.maximum(cupy.abs(want), 1)))

    # 1. public calls, peers and each reduction candidate's launches, interleaved
    rout2 = cupy.empty(rows, np.float32)
    rag_out = cupy.empty(roff.size - 1, np.float32)
    huge_out = cupy.empty(huge.size - 1, np.float32)
    fns = {
        "segmented_reduce equal": lambda: prim.segmented_reduce(x, off, check=False),
        "segmented_reduce equal, general input path": lambda: prim.segmented_reduce(
            x, off, check=False, dtype=np.float32
        ),
        "cupy.sum(axis=1)": lambda: x2.sum(axis=1),
        "segmented_reduce ragged": lambda: prim.segmented_reduce(y, roff, check=False),
        "prim.sum (ragged n)": lambda: prim.sum(y),
        "prim.sum (2^n)": lambda: prim.sum(x),
        "segmented_scan equal": lambda: prim.segmented_scan(x, offsets=off, check=False),
        "prim.inclusive_scan (2^n)": lambda: prim.inclusive_scan(x),
    }
    checks = {
        "segmented_reduce equal": lambda: rel(fns["segmented_reduce equal"](), red_ref),
        "segmented_reduce ragged": lambda: rel(fns["segmented_reduce ragged"](), rag_ref),
        "segmented_scan equal": lambda: rel(fns["segmented_scan equal"](), scan_ref),
    }
    if backend.is_cuda and peers.cub() is not None:
        fns["CUB segmented_reduce"] = peers.cub_segmented_reduce(
            x, off, "sum", cupy.empty(rows, np.float32)
        )
    else:
        print(f"CUB peer unavailable: {peers.cub_error or 'no GPU'}", flush=True)
    for what, check in checks.items():
        print(f"[public] {what}: ok={check() < 1e-4}", flush=True)
    kernel_only = {}
    if SEARCHED:  # the tiles kernel alone, reading the pre-pass's bounds or searching them
        for label, srch in (
            ("[tiles alone, bounds read]", False),
            ("[tiles alone, searched]", True),
        ):
            fn = tiles_only(x, rout2, off, srch)
            rout2.fill(0)
            fn()
            print(f"{label} equal: ok={rel(rout2, red_ref) < 1e-4}", flush=True)
            kernel_only[f"{label} equal"] = fn
            fn = tiles_only(y, rag_out, roff, srch)
            rag_out.fill(0)
            fn()
            print(f"{label} ragged: ok={rel(rag_out, rag_ref) < 1e-4}", flush=True)
            kernel_only[f"{label} ragged"] = fn
    for policy in REDUCE_POLICIES + SEGMENT_POLICIES:
        kernel_only[f"{tag_of(policy)} equal"] = reduce_runner(policy, x, rout2, off)[0]
        kernel_only[f"{tag_of(policy)} ragged"] = reduce_runner(policy, y, rag_out, roff)[0]
    t = _timing.bench_many({**fns, **kernel_only}, **ROUNDS)
    for what, ms in t.items():
        print(f"[{'public' if what in fns else 'launches'}] {what}: {ms:.4f} ms", flush=True)
    ratios = [
        ("segmented_reduce equal", "CUB segmented_reduce", 1.0),
        ("segmented_reduce equal", "cupy.sum(axis=1)", None),
        ("segmented_reduce ragged", "prim.sum (ragged n)", 1.5),
        ("segmented_scan equal", "prim.inclusive_scan (2^n)", None),
    ]
    for ours, peer, target in ratios:
        if peer in t:
            goal = "" if target is None else f" (target <= {target})"
            print(f"[public] {ours} / {peer}: {t[ours] / t[peer]:.3f}{goal}", flush=True)

    if SEARCHED:
        return
    # 2. host time per call, small input
    m = min(n, 1 << 16)
    xs, offs_s = x[:m], cupy.arange(0, m + 1, max(1, m >> 4), dtype=cupy.int64)
    nseg_s = offs_s.size - 1
    bound = prim.plan(prim.segmented_reduce, xs, offs_s, check=False)
    plan_s = bound.core  # the library's plan (policy in force)
    outs = cupy.empty(nseg_s, np.float32)
    host = {
        "public": lambda: prim.segmented_reduce(xs, offs_s, check=False),
        "general input path": lambda: prim.segmented_reduce(
            xs, offs_s, check=False, dtype=np.float32
        ),
        "prim.plan": lambda: bound(xs, offs_s),
        "launches alone": lambda: plan_s(xs, offs_s, outs),
        "launches, result allocated": lambda: plan_s(xs, offs_s),
    }
    calls = 2000 if backend.is_cuda else 2
    print(
        "[host] us per call, 2^16 elements: "
        + ", ".join(f"{what} {host_us(fn, calls):.1f}" for what, fn in host.items()),
        flush=True,
    )

    def report(tag, what, fn, k=None, smem=0, check=None):
        fn()
        ok = "" if check is None else f" ok={check()}"
        res = ""
        if k is not None:
            res = (
                f" (regs {k.resources()[0]}, static smem {k.resources()[1]}, dynamic {smem},"
                f" blocks/SM {k.occupancy(k_block[0], smem)})"
            )
        print(f"{tag} {what}: {bench(fn):.4f} ms{ok}{res}", flush=True)

    # 3. results of each candidate; scans; pre-passes
    k_block = [0]

    def reduce_cases(tag, make):
        fn, k, smem = make(x, rout2, off)
        rout2.fill(0)
        report(tag, "equal", fn, k, smem, lambda: rel(rout2, red_ref) < 1e-4)
        fn, _, _ = make(y, rag_out, roff)
        rag_out.fill(0)
        report(tag, "ragged", fn, None, 0, lambda: rel(rag_out, rag_ref) < 1e-4)
        fn, _, _ = make(x, huge_out, huge)
        huge_out.fill(0)
        report(tag, "6 huge segments", fn, None, 0, lambda: rel(huge_out, huge_ref) < 1e-3)

    for policy in REDUCE_POLICIES + SEGMENT_POLICIES:
        k_block[0] = policy[0]
        reduce_cases(tag_of(policy), lambda xx, oo, offs, p=policy: reduce_runner(p, xx, oo, offs))
    for block, items, cap in SCAN_POLICIES:
        k_block[0] = block
        for ovl in (1, 0):
            tag = f"[scan {block}x{items} min {cap} overlap {ovl}]"
            fn, k, _ = scan_runner(
                block, items, 0, 0, x, out, flags=flags, min_blocks=cap, overlap=ovl
            )
            out.fill(0)
            report(tag, "flags equal", fn, k, 0, lambda: rel(out, scan_ref) < 1e-4)
            fn, _, _ = scan_runner(
                block, items, 0, 2, x, out, offsets=off, min_blocks=cap, overlap=ovl
            )
            out.fill(0)
            report(tag, "offsets equal", fn, None, 0, lambda: rel(out, scan_ref) < 1e-4)
            fn, _, _ = scan_runner(
                block, items, 0, 2, y, out[: y.size], offsets=roff, min_blocks=cap, overlap=ovl
            )
            out.fill(0)
            report(
                tag, "offsets ragged", fn, None, 0, lambda: rel(out[: y.size], rag_scan_ref) < 1e-4
            )

    tile = 8192
    for what, offs, m in (("equal", off, n), ("ragged", roff, y.size)):
        tiles = -(-m // tile)
        words = cupy.zeros(tiles + 1, np.int64)
        nseg = np.int64(offs.size - 1)
        bk, uk = kernels(BOUNDS), kernels(f"segmented_upper_bounds<{tile}>")
        search = bench(
            lambda: bk(
                (-(-(tiles + 1) * 32 // 256),),
                (256,),
                (offs, nseg, np.int64(tile), np.int64(tiles + 1), words),
            )
        )
        scatter = bench(
            lambda: uk(
                (-(-(offs.size + 1) // 256),), (256,), (offs, nseg, np.int64(tiles + 1), words)
            )
        )
        print(
            f"[pre-pass {what}, {offs.size - 1} segments, tile {tile}] segmented_bounds "
            f"(search) {search:.4f} ms, segmented_upper_bounds (scatter) {scatter:.4f} ms",
            flush=True,
        )


SEARCHED = "--searched" in sys.argv
if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(int(args[0]) if args else 28)

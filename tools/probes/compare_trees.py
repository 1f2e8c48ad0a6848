"""Interleaved timing of the onesweep sort with its pass kernel compiled from other kernel trees
(GPU only). Export the trees to compare first, e.g. two commits::

    git archive 9754166~1 kernels | tar -x -C /tmp/before
    git archive 9754166 kernels | tar -x -C /tmp/after
    python -m tools.probes.compare_trees before=/tmp/before/kernels \\
        after=/tmp/after/kernels --staged-digits before

For uint32, int32, float32 (normal, and random bit patterns that are not NaN), uint32 keys with
the bits of normal float32 (skewed top digits), uint32 keys of low entropy (each bit set with
probability 1/8) and uint64 keys, and uint32 keys with uint32
values (2^27 each), every tree's onesweep kernels (histogram, plan and pass) are compiled under
the library's current policy, its sort is checked once against CuPy, and all trees are timed in
interleaved rounds together with CUB (cuda.compute, when installed) and cupy.sort. Each tree's
sort is a plan (``prim.plan``) made with its kernels, under its policy, then called. The
shared-memory size is the library's, so a tree with another layout must be named:
``--staged-digits NAME``, tree NAME still stages a digit byte per key beside the keys (the trees
before 9754166); ``--digit-masks NAME``, it keeps a lane mask per digit rather than per digit
modulo 32 (the trees before the folded masks); ``--extra-smem NAME=BYTES``, its pass takes BYTES
more dynamic shared memory than the library's. ``--items NAME=KB:VB:ITEMS`` runs tree NAME's
pass for KB-byte keys and VB-byte values (0: keys only) at tiles of ITEMS keys per thread instead
of the library's (a tree may be named twice, under two names, to compare two tile sizes);
``--policy NAME=KB:VB:BLOCK,ITEMS,MIN_BLOCKS,WINDOW,MATCH[,PREFETCH]`` gives it a whole policy
(through ``primitives.tuning.override``).
``--only TEXT`` (repeatable) runs only the workloads whose title holds TEXT.
``--breakdown`` then times each kernel of every tree's sort (CUDA events just before and after
each launch: the histogram, the plan and each pass; medians over 30 sorts), to see which of them
a change moves, and the time the GPU waits for the host: from the call to the first launch, and
between launches.
"""

import contextlib
import pathlib
import statistics
import sys
from unittest import mock

import cupy
import numpy as np

import primitives as prim
from primitives._core import backend as _backend, loader as _loader, plans as _plans
from primitives._core import timing as _timing
from primitives.sorting import _kernels
from primitives.testing import peers
from tools import _patched

SOURCE = _kernels.ONESWEEP
FIELDS = ("block", "items", "min_blocks", "window", "match", "prefetch")


def parse(argv):
    trees, staged, masks, items, extra, only = {}, set(), set(), {}, {}, []
    it = iter(argv)
    for a in it:
        if a == "--staged-digits":
            staged.add(next(it))
        elif a == "--digit-masks":
            masks.add(next(it))
        elif a == "--extra-smem":
            name, _, nbytes = next(it).partition("=")
            extra[name] = int(nbytes)
        elif a in ("--items", "--policy"):
            name, _, spec = next(it).partition("=")
            kb, vb, k = spec.split(":")
            k = tuple(int(x) for x in k.split(","))
            items.setdefault(name, {})[int(kb), int(vb)] = k[0] if a == "--items" else k
        elif a == "--only":
            only.append(next(it))
        elif a != "--breakdown":
            name, _, path = a.partition("=")
            trees[name] = pathlib.Path(path).resolve()
    return trees, staged, masks, items, extra, only


def policy_fields(k):
    """The onesweep policy fields a tree runs with: ``items=k``, or the whole policy ``k`` (a
    tuple), or none (None: the library's policy)."""
    if isinstance(k, tuple):
        return dict(zip(FIELDS, k))
    return {} if k is None else {"items": k}


def breakdown(fns, samples=30):
    """Per tree: the median milliseconds of each launch of its sort (events recorded just before
    and just after every launch)."""
    out = {}
    orig = _plans.Launch.__call__
    for label, fn in fns.items():
        events = []

        def go(*args, **kwargs):
            before, after = cupy.cuda.Event(), cupy.cuda.Event()
            before.record()
            orig(*args, **kwargs)
            after.record()
            events.append((before, after))

        per = []
        with mock.patch.object(_plans.Launch, "__call__", go):
            for _ in range(3 + samples):
                events.clear()
                start = cupy.cuda.Event()
                start.record()
                fn()
                events[-1][1].synchronize()
                ms = [cupy.cuda.get_elapsed_time(a, b) for a, b in events]
                lead = cupy.cuda.get_elapsed_time(start, events[0][0])
                gaps = sum(
                    cupy.cuda.get_elapsed_time(a[1], b[0]) for a, b in zip(events, events[1:])
                )
                per.append([lead, gaps] + ms)
        per = per[3:]
        out[label] = [statistics.median(p[i] for p in per) for i in range(len(per[0]))]
    return out


def smem_of(staged, masks, more=0):
    """The library's tile_smem for a tree of another layout: + a digit byte per key, + 256 - 32
    lane masks per warp, + `more` bytes."""
    orig = _kernels.tile_smem

    def smem(block, items, kv, bits):
        extra = block * items if staged else 0
        if masks:
            extra += 4 * (block // 32) * ((1 << bits) - min(1 << bits, 32))
        return orig(block, items, kv, bits) + -(-(extra + more) // 16) * 16

    return smem


def main(argv):
    trees, staged, masks, items, extra, only = parse(argv)
    be = _backend.get_backend()
    compiled = {}

    def kernel(tree, name):
        if (tree, name) not in compiled:
            mod = _patched.tree_module(trees[tree], SOURCE, [name])
            compiled[tree, name] = _loader.Kernel(mod.get_function(name), name, be)
        return compiled[tree, name]

    def with_tree(tree, cfg, func, args):
        """A call of tree's plan of ``func(*args)``: its kernels, policy and shared memory."""
        fields = policy_fields(items.get(tree, {}).get(cfg))
        with (
            prim.tuning.override("sort", selector=cfg, **fields)
            if fields
            else contextlib.nullcontext()
        ):
            pol = prim.tuning.policy("sort", cfg)
            hpol = prim.tuning.policy("sort", "histogram")
            names = [
                _kernels.pass_name(*cfg, pol),
                _kernels.ONESWEEP_PLAN,
                _kernels.hist_name(cfg[0], hpol),
            ]
            swap = _patched.swapped_kernels(
                _kernels, SOURCE, {name: kernel(tree, name) for name in names}
            )
            smem = smem_of(tree in staged, tree in masks, extra.get(tree, 0))
            with mock.patch.object(_kernels, "tile_smem", smem), swap:
                p = prim.plan(func, *args)
        return lambda: p(*args)

    cc = peers.cub()
    n = 1 << 27
    rng = np.random.default_rng(5)
    x32 = cupy.asarray(rng.integers(0, 2**32, n, dtype=np.uint32))
    v32 = cupy.asarray(rng.integers(0, 2**32, n, dtype=np.uint32))
    x64 = cupy.asarray(rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True))
    i32 = cupy.asarray(rng.integers(-(2**31), 2**31, n, dtype=np.int32))
    f32 = cupy.asarray(rng.standard_normal(n, dtype=np.float32))
    b32 = rng.integers(0, 2**32, n, dtype=np.uint32)
    b32 = np.where((b32 & 0x7FFFFFFF) > 0x7F800000, b32 & 0xBFFFFFFF, b32)  # NaN -> finite
    b32 = cupy.asarray(b32.view(np.float32))
    u32f = f32.view(np.uint32)  # skewed top digits, as float keys have
    # low entropy: each bit set with probability 1/8, a third of every digit's keys are zero
    low = (
        x32
        & cupy.asarray(rng.integers(0, 2**32, n, dtype=np.uint32))
        & cupy.asarray(rng.integers(0, 2**32, n, dtype=np.uint32))
    )
    order = cupy.argsort(x32)  # stable
    sort, pairs = prim.sort, prim.radix_sort
    cases = [
        ("uint32 keys", (4, 0), sort, (cupy.sort(x32),), x32, None),
        ("uint32 pairs", (4, 4), pairs, (x32[order], v32[order]), x32, v32),
        ("int32 keys", (4, 0), sort, (cupy.sort(i32),), i32, None),
        ("float32 keys", (4, 0), sort, (cupy.sort(f32),), f32, None),
        ("float32 bits", (4, 0), sort, (cupy.sort(b32),), b32, None),
        ("uint32 normal-float bits", (4, 0), sort, (cupy.sort(u32f),), u32f, None),
        ("uint32 low entropy", (4, 0), sort, (cupy.sort(low),), low, None),
        ("uint64 keys", (8, 0), sort, (cupy.sort(x64),), x64, None),
    ]
    for title, cfg, func, ref, keys, vals in cases:
        if only and not any(o in title for o in only):
            continue
        fns = {}
        for tree in trees:
            run = with_tree(tree, cfg, func, (keys,) if vals is None else (keys, vals))
            got = run()
            got = got if isinstance(got, tuple) else (got,)
            assert all(bool(cupy.array_equal(g, r)) for g, r in zip(got, ref)), (
                f"{title}: tree {tree} sorts wrongly"
            )
            fns[tree] = run
        if cc is not None and keys.dtype.kind == "u":
            fns["CUB"] = peers.cub_radix_sort(keys, vals)
        if vals is None:
            fns["cupy.sort"] = lambda keys=keys: cupy.sort(keys)
        t = _timing.bench_many(fns, rounds=3, warmup=3, repeat=10)
        first = t[next(iter(trees))]
        for label, ms in t.items():
            print(
                f"{title} (policy {prim.tuning.policy('sort', cfg)}) | {label} | {ms:.4f} ms | "
                f"{ms / first:.3f} of {next(iter(trees))}",
                flush=True,
            )
        if "--breakdown" in argv:
            for label, ms in breakdown({tree: fns[tree] for tree in trees}).items():
                print(
                    f"{title} | {label} | before the first launch {ms[0]:.4f} ms, between "
                    f"launches {ms[1]:.4f} ms, per launch ms: "
                    + " ".join(f"{m:.4f}" for m in ms[2:]),
                    flush=True,
                )


if __name__ == "__main__":
    main(sys.argv[1:])

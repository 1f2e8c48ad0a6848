"""Tuning experiment for the segmented kernels (GPU only): times of several (BLOCK, ITEMS) policies
and both ways of finding a tile's offsets (SEG_SEARCH: searched by the block; SEG_BOUNDS: the
segmented_bounds pre-pass, included in the time), float32 sums at 2^28, next to the peers of
tools/figures_scan.py: cupy.cumsum(axis=1), CUB segmented_reduce, prim.sum, prim.inclusive_scan.

    python tools/tune_segmented.py [log2 n]     (2^28 by default; small sizes run on the emulator)
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import primitives as prim  # noqa: E402
from primitives import _backend, _loader, _lookback, _timing  # noqa: E402

cupy = _backend.get_backend().xp  # CuPy on a GPU, NumPy on the emulator

SOURCE = "scan/segmented.cu"
SEGS = {1: "search", 2: "bounds"}
# (BLOCK, ITEMS, MIN_BLOCKS) per kind; each with the tile prefix overlapped (1) or not (0)
SCAN_POLICIES = ((256, 16, 6), (512, 16, 3), (128, 32, 6), (256, 16, 1))
REDUCE_POLICIES = ((256, 32, 4), (128, 32, 6), (256, 16, 6), (512, 16, 3))
rng = np.random.default_rng(5)


def name(block, items, mode, segs, min_blocks, overlap):
    return (f"segmented_lookback<float, float, prim::Sum<float>, {block}, {items}, {mode}, "
            f"{segs}, {min_blocks}, {'true' if overlap else 'false'}>")


NAMES = ["segmented_bounds"] + [
    name(b, i, m, g, c, o) for b, i, c in SCAN_POLICIES for o in (1, 0)
    for m, g in ((0, 0), (0, 2))] + [
    name(b, i, 2, g, c, o) for b, i, c in REDUCE_POLICIES for o, g in ((1, 2), (0, 2), (1, 1))]
kernels = _loader.load(SOURCE, NAMES)


def runner(block, items, mode, segs, x, out, offsets=None, flags=None, min_blocks=1,
           overlap=1):
    n = x.size
    tile = block * items
    tiles = -(-n // tile)
    k = kernels(name(block, items, mode, segs, min_blocks, overlap))
    plan = _lookback.LookbackPlan(k, tiles, block, n, cupy, 8)
    bounds = cupy.zeros(tiles + 1, np.int64)
    stand_f, stand_o = cupy.zeros(1, np.uint8), cupy.zeros(1, np.int64)
    bk = kernels("segmented_bounds")
    nseg = 0 if offsets is None else offsets.size - 1
    args = (x, plan.n64, stand_f if flags is None else flags,
            stand_o if offsets is None else offsets, np.int64(nseg), bounds, out)

    def run():
        if segs == 2:
            bk((-(-(tiles + 1) * 32 // 256),), (256,),
               (offsets, np.int64(nseg), np.int64(tile), np.int64(tiles + 1), bounds))
        plan.launch(*args)
    return run, k


def bench(fn):
    return _timing.bench(fn, warmup=3, repeat=15)


def main(log2n=28):
    n = 1 << log2n
    rows, cols = n >> 12, 1 << 12
    nrag = max(1, n >> 6)
    x = cupy.asarray(rng.random(n, dtype=np.float32) + np.float32(0.5))
    out = cupy.empty_like(x)
    copy_ms = bench(lambda: out.__setitem__(Ellipsis, x))
    print(f"copy 2^28 float32: {copy_ms:.4f} ms", flush=True)
    x2 = x.reshape(rows, cols)
    off = cupy.arange(0, n + 1, cols, dtype=cupy.int64)
    flags = cupy.zeros(n, cupy.bool_)
    flags[::cols] = True
    lens = rng.integers(0, 129, nrag)
    roff_h = np.concatenate([[0], np.cumsum(lens)])
    m = int(roff_h[-1])
    y = x[:m]
    roff = cupy.asarray(roff_h)
    huge = cupy.asarray(np.array([0, 1, n >> 4, 3 * (n >> 4), 3 * (n >> 4), n - 7, n], np.int64))

    scan_ref = cupy.cumsum(x2, axis=1).reshape(-1)
    red_ref = x2.sum(axis=1)
    y = y[:min(m, n)]
    roff = cupy.minimum(roff, y.size)
    cs = cupy.concatenate([cupy.zeros(1), cupy.cumsum(y, dtype=np.float64)])
    rag_ref = cs[roff[1:]] - cs[roff[:-1]]
    csx = cupy.concatenate([cupy.zeros(1), cupy.cumsum(x, dtype=np.float64)])
    huge_ref = csx[huge[1:]] - csx[huge[:-1]]

    peers = {"cupy.cumsum(axis=1)": lambda: cupy.cumsum(x2, axis=1),
             "cupy.sum(axis=1)": lambda: x2.sum(axis=1),
             "prim.sum (2^28)": lambda: prim.sum(x),
             "prim.sum (ragged n)": lambda: prim.sum(y),
             "prim.inclusive_scan": lambda: prim.inclusive_scan(x)}
    try:
        import cuda.compute as cc
        rout = cupy.empty(rows, np.float32)
        h0 = np.zeros(1, np.float32)
        plus = cc.OpKind.PLUS
        sr = cc.make_segmented_reduce(d_in=x, d_out=rout, start_offsets_in=off[:-1],
                                      end_offsets_in=off[1:], op=plus, h_init=h0)
        nb = sr(temp_storage=None, d_in=x, d_out=rout, num_segments=rows,
                start_offsets_in=off[:-1], end_offsets_in=off[1:], op=plus, h_init=h0)
        tmp = cupy.empty(max(1, nb), cupy.uint8)
        peers["CUB segmented_reduce"] = lambda: sr(
            temp_storage=tmp, d_in=x, d_out=rout, num_segments=rows, start_offsets_in=off[:-1],
            end_offsets_in=off[1:], op=plus, h_init=h0)
    except Exception as exc:  # report, keep going
        print(f"cuda.compute unavailable: {exc}", flush=True)
    for p, fn in peers.items():
        print(f"peer {p}: {bench(fn):.4f} ms", flush=True)

    def rel(got, want):
        return float(cupy.max(cupy.abs(got - want) / cupy.maximum(cupy.abs(want), 1)))

    rout2 = cupy.empty(rows, np.float32)
    rag_out = cupy.empty(roff.size - 1, np.float32)
    huge_out = cupy.empty(huge.size - 1, np.float32)

    def report(tag, what, fn, k=None, check=None):
        fn()
        ok = "" if check is None else f" ok={check()}"
        res = ""
        if k is not None:
            res = f" (regs {k.resources()[0]}, occ {k.occupancy(k_block[0])})"
        print(f"{tag} {what}: {bench(fn):.4f} ms{ok}{res}", flush=True)

    k_block = [0]
    for block, items, cap in SCAN_POLICIES:
        k_block[0] = block
        for ovl in (1, 0):
            tag = f"[scan {block}x{items} min {cap} overlap {ovl}]"
            fn, k = runner(block, items, 0, 0, x, out, flags=flags, min_blocks=cap, overlap=ovl)
            report(tag, "flags equal", fn, k, lambda: rel(out, scan_ref) < 1e-4)
            fn, k = runner(block, items, 0, 2, x, out, offsets=off, min_blocks=cap, overlap=ovl)
            out.fill(0)
            report(tag, "offsets equal", fn, k, lambda: rel(out, scan_ref) < 1e-4)
            fn, _ = runner(block, items, 0, 2, y, out[:y.size], offsets=roff, min_blocks=cap,
                           overlap=ovl)
            report(tag, "offsets ragged", fn)
    for block, items, cap in REDUCE_POLICIES:
        k_block[0] = block
        for ovl, segs in ((1, 2), (0, 2), (1, 1)):
            tag = f"[reduce {block}x{items} min {cap} overlap {ovl} {SEGS[segs]}]"
            fn, k = runner(block, items, 2, segs, x, rout2, offsets=off, min_blocks=cap,
                           overlap=ovl)
            report(tag, "equal", fn, k, lambda: rel(rout2, red_ref) < 1e-4)
            fn, _ = runner(block, items, 2, segs, y, rag_out, offsets=roff, min_blocks=cap,
                           overlap=ovl)
            report(tag, "ragged", fn, None, lambda: rel(rag_out, rag_ref) < 1e-4)
            fn, _ = runner(block, items, 2, segs, x, huge_out, offsets=huge, min_blocks=cap,
                           overlap=ovl)
            report(tag, "6 huge segments", fn, None, lambda: rel(huge_out, huge_ref) < 1e-3)
    tiles = -(-y.size // 4096)
    bounds = cupy.zeros(tiles + 1, np.int64)
    bk = kernels("segmented_bounds")
    ms = bench(lambda: bk((-(-(tiles + 1) * 32 // 256),), (256,),
                          (roff, np.int64(roff.size - 1), np.int64(4096), np.int64(tiles + 1),
                           bounds)))
    print(f"segmented_bounds alone, {roff.size - 1} segments, tile 4096: {ms:.4f} ms", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 28)

"""Tuning experiment for the decoupled look-back scan (GPU only): kernel-only times for several
(BLOCK, ITEMS) policies, int32 -> int32 and float32 at 2^28, next to CUB's inclusive_scan
(cuda.compute), a device copy of the same bytes, and the public call timed alone and back to
back (the difference is host work before the launch).

    python tools/tune_scan.py [--static-ids] [--hints] [--host]

``--hints``: the 128 x 56 and 128 x 48 kernels again with streaming cache hints on the 16-byte
stores (``__stcs``), loads (``__ldcs``) or both (a patched copy of the headers).
``--host``: host time per public call on a small input, and a profile of the Python path.
The 16-byte warp exchange of the look-back kernel was compared with the padded one it replaced
by ``--exchange16`` at commit c045694 (docs/performance.md).
"""
import cProfile
import pstats
import sys
import time

import cupy
import numpy as np

import primitives as prim
from primitives import _loader, _lookback, _timing
from patched import patched_kernel  # tools/patched.py

n = 1 << 28
STATIC_IDS = "--static-ids" in sys.argv
HINTS = "--hints" in sys.argv
HOST = "--host" in sys.argv
HINT_EDITS = {
    "stores": [("reinterpret_cast<VT*>(warp_base)[c] = slots[exchange16_slot<PER_LANE>(c, c / PER_LANE)];",
                "__stcs(reinterpret_cast<VT*>(warp_base) + c, "
                "slots[exchange16_slot<PER_LANE>(c, c / PER_LANE)]);")],
    "loads": [("__ldg(reinterpret_cast<const V*>(p))", "__ldcs(reinterpret_cast<const V*>(p))")],
}
HINT_EDITS["both"] = HINT_EDITS["stores"] + HINT_EDITS["loads"]


rng = np.random.default_rng(3)
POLICIES = ((64, 64), (64, 80), (96, 48), (128, 32), (128, 40), (128, 48), (128, 56),
            (128, 64), (192, 40), (256, 40))
if HINTS:  # the two best policies of the sweep only
    POLICIES = ((128, 48), (128, 56))


def cub_scan(x, out):
    try:
        import cuda.compute as cc
    except ImportError:
        return None
    op = cc.OpKind.PLUS
    scan = cc.make_inclusive_scan(d_in=x, d_out=out, op=op, init_value=None)
    nbytes = scan(temp_storage=None, d_in=x, d_out=out, op=op, num_items=x.size, init_value=None)
    tmp = cupy.empty(max(int(nbytes), 1), cupy.uint8)
    return lambda: scan(temp_storage=tmp, d_in=x, d_out=out, op=op, num_items=x.size,
                        init_value=None)


def lookback_launch(k, block, items, x, out):
    """A launch of scan_lookback kernel ``k`` (4-byte accumulator) over all of ``x`` into
    ``out``: its own tile counter and tile states, a new epoch per launch."""
    tiles = -(-n // (block * items))
    counter = cupy.zeros(1, np.uint32)
    state = cupy.zeros(_lookback.state_bytes(tiles, 4), np.uint8)
    ep = [0]

    def launch():
        ep[0] += 1
        k((tiles,), (block,), (x, out, np.int64(n), counter, state, np.uint32(ep[0])))

    return launch


def checked(launch, out, ref, exact):
    """One launch into a cleared ``out``, compared with ``ref`` (exactly, or loosely for float
    sums of the sweep's wide inputs)."""
    out.fill(0)
    launch()
    if exact:
        return bool(cupy.array_equal(out, ref))
    return bool(cupy.allclose(out, ref, rtol=1e-3, atol=1e3))


def sweep():
    for c, dt in (("int", np.int32), ("float", np.float32)):
        x = cupy.asarray(rng.integers(-1000, 1000, n, dtype=np.int32).astype(dt))
        out = cupy.empty_like(x)
        ref = cupy.cumsum(x, dtype=dt)
        copy_ms = _timing.bench(lambda: out.__setitem__(Ellipsis, x), warmup=3, repeat=20)
        print(f"{c} copy: {copy_ms:.4f} ms {2 * x.nbytes / copy_ms / 1e6:.0f} GB/s", flush=True)
        cub = cub_scan(x, out)
        if cub is not None:
            ms = _timing.bench(cub, warmup=3, repeat=20)
            print(f"{c} CUB inclusive_scan: {ms:.4f} ms ({ms / copy_ms:.3f}x copy)", flush=True)
        # the public call (host checks, plan lookup, a new output from the pool) against the same
        # call issued back to back, where host work overlaps the previous call's kernel
        public = lambda: prim.inclusive_scan(x, dtype=dt)  # noqa: E731
        ms = _timing.bench(public, warmup=3, repeat=20)
        ms10 = _timing.bench(lambda: [public() for _ in range(10)], warmup=1, repeat=5) / 10
        print(f"{c} prim.inclusive_scan: {ms:.4f} ms per call, {ms10:.4f} ms back to back "
              f"({ms / copy_ms:.3f}x copy)", flush=True)
        runs = [(b, i, None) for b, i in POLICIES]
        if HINTS:
            runs += [(b, i, h) for b, i in ((128, 56), (128, 48)) for h in HINT_EDITS]
        for block, items, hint in runs:
            name = f"scan_lookback<{c}, {c}, prim::Sum<{c}>, {block}, {items}, false>"
            k = _loader.load("scan/scan.cu", [name])(name)
            if hint:
                k = patched_kernel("scan/scan.cu", name, {"common/load.cuh": HINT_EDITS[hint]})
            # experiment: tile id = blockIdx.x (no atomic; relies on in-order dispatch)
            if STATIC_IDS:
                k = patched_kernel("scan/scan.cu", name, {"scan/scan.cu": [
                    ("prim::next_tile(tile_counter, &tile_id)", "blockIdx.x")]})
            launch = lookback_launch(k, block, items, x, out)
            ok = checked(launch, out, ref, exact=c == "int")
            ms = _timing.bench(launch, warmup=3, repeat=20)
            print(f"{c} block {block:4d} items {items:2d}{' ' + hint if hint else ''}: {ms:.4f} ms "
                  f"{2 * x.nbytes / ms / 1e6:.0f} GB/s ({ms / copy_ms:.3f}x copy) ok={ok}",
                  flush=True)


def host():
    small = cupy.asarray(rng.integers(-1000, 1000, 1 << 10, dtype=np.int32))
    for _ in range(100):
        prim.inclusive_scan(small, dtype=np.int32)
    cupy.cuda.get_current_stream().synchronize()
    reps = 2000
    t0 = time.perf_counter()
    for _ in range(reps):
        prim.inclusive_scan(small, dtype=np.int32)
    cupy.cuda.get_current_stream().synchronize()
    t1 = time.perf_counter()
    for _ in range(reps):
        cupy.cumsum(small, dtype=np.int32)
    cupy.cuda.get_current_stream().synchronize()
    t2 = time.perf_counter()
    print(f"host per call, n = 2^10: prim.inclusive_scan {(t1 - t0) / reps * 1e6:.1f} us, "
          f"cupy.cumsum {(t2 - t1) / reps * 1e6:.1f} us", flush=True)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(reps):
        prim.inclusive_scan(small, dtype=np.int32)
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(14)


sweep()
if HOST:
    host()

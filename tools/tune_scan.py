"""Tuning experiment for the decoupled look-back scan (GPU only): kernel-only times for several
(BLOCK, ITEMS) policies, int32 -> int32 and float32 at 2^28, next to CUB's inclusive_scan
(cuda.compute), a device copy of the same bytes, and the public call timed alone and back to
back (the difference is host work before the launch).

    python tools/tune_scan.py [--static-ids] [--hints] [--host]
    python tools/tune_scan.py --exchange16

``--hints``: the 128 x 56 and 128 x 48 kernels again with streaming cache hints on the 16-byte
stores (``__stcs``), loads (``__ldcs``) or both (a patched copy of the headers).
``--host``: host time per public call on a small input, and a profile of the Python path.
``--exchange16`` (alone; under a minute on an H100): the 128 x 48, 56 and 64 kernels with the
library's warp exchange (load_striped_to_blocked16 / store_blocked_to_striped16: 16-byte shared
accesses, swizzled; common/load.cuh) against a patched copy of scan.cu with the padded exchange
(one 4-byte shared access per element, as before), int32 and float32 inclusive sums at 2^28. The inputs lie in [-2, 2],
so every partial sum is an integer below 2^24 and float32 results are exact whatever the order:
each kernel's output is compared exactly with the cumulative sum before it is timed. Kernel-only
times, interleaved (_timing.bench_many), in a table with each time in percent of a device copy's.
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
EXCHANGE16 = "--exchange16" in sys.argv
HINT_EDITS = {
    "stores": [("reinterpret_cast<VT*>(warp_base)[c] = slots[exchange16_slot<PER_LANE>(c, c / PER_LANE)];",
                "__stcs(reinterpret_cast<VT*>(warp_base) + c, "
                "slots[exchange16_slot<PER_LANE>(c, c / PER_LANE)]);")],
    "loads": [("__ldg(reinterpret_cast<const V*>(p))", "__ldcs(reinterpret_cast<const V*>(p))")],
}
HINT_EDITS["both"] = HINT_EDITS["stores"] + HINT_EDITS["loads"]
# The padded exchange needs exchange_size<ITEMS>() = 33 * ITEMS elements per warp (the library's
# 16-byte exchange 32 * ITEMS); each warp's slice stays 16-byte aligned because ITEMS fills whole
# 16-byte vectors (the kernel's static_assert).
PADDED_EDITS = {"scan/scan.cu": [  # scan.cu back to the padded exchange of load.cuh
    ("prim::load_striped_to_blocked16<InT, AccT, ITEMS>(",
     "prim::load_striped_to_blocked<InT, AccT, ITEMS>("),
    ("prim::store_blocked_to_striped16<AccT, ITEMS>(",
     "prim::store_blocked_to_striped<AccT, ITEMS>("),
    ("                           prim::WARP * ITEMS;",
     "                           prim::exchange_size<ITEMS>();"),
]}
EXCHANGE16_POLICIES = ((128, 48), (128, 56), (128, 64))


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


def exchange16():
    """The padded warp exchange against the 16-byte one (see the module docstring)."""
    xi = cupy.asarray(rng.integers(-2, 3, n, dtype=np.int32))
    ref_i = cupy.cumsum(xi, dtype=np.int32)
    rows = []
    for c, dt in (("int", np.int32), ("float", np.float32)):
        x = xi.astype(dt)
        ref = ref_i.astype(dt)
        out = cupy.empty_like(x)
        fns = {("copy", "-"): lambda: out.__setitem__(Ellipsis, x)}
        ok = {("copy", "-"): True}
        for block, items in EXCHANGE16_POLICIES:
            name = f"scan_lookback<{c}, {c}, prim::Sum<{c}>, {block}, {items}, false>"
            for variant in ("padded", "16-byte"):
                if variant == "16-byte":
                    k = _loader.load("scan/scan.cu", [name])(name)
                else:
                    k = patched_kernel("scan/scan.cu", name, PADDED_EDITS)
                key = (f"{block} x {items}", variant)
                fns[key] = lookback_launch(k, block, items, x, out)
                ok[key] = checked(fns[key], out, ref, exact=True)
                print(f"{c} {key[0]} {variant}: compiled, result {'ok' if ok[key] else 'WRONG'}",
                      flush=True)
        times = _timing.bench_many(fns, rounds=5, warmup=3, repeat=10)
        copy_ms = times[("copy", "-")]
        rows += [(c, p, v, ms, 100 * ms / copy_ms, 2 * x.nbytes / ms / 1e6, ok[p, v])
                 for (p, v), ms in times.items()]
    print(f"\nscan_lookback inclusive sum, n = 2^{n.bit_length() - 1}, kernel only; "
          "% copy: the time in percent of a device copy's")
    print(f"{'type':6} {'policy':9} {'exchange':9} {'ms':>8} {'% copy':>7} {'GB/s':>6}  ok")
    for t, p, v, ms, pct, gbs, good in rows:
        print(f"{t:6} {p:9} {v:9} {ms:8.4f} {pct:6.1f}% {gbs:6.0f}  {good}")


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


if EXCHANGE16:
    exchange16()
else:
    sweep()
    if HOST:
        host()

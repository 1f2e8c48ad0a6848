"""Tuning experiment for the decoupled look-back scan (GPU only): kernel-only times for several
(BLOCK, ITEMS) policies, int32 -> int32 and float32 at 2^28, next to CUB's inclusive_scan
(cuda.compute), a device copy of the same bytes, and the public call timed alone and back to
back (the difference is host work before the launch). The library's own kernels for each policy
come from plans made under ``primitives.tuning.override("scan", selector="decoupled_lookback")``.

    python -m tools.tune.scan [--static-ids] [--hints] [--host] [--bounds] [--probe]

``--hints``: the 128 x 72 and 128 x 64 kernels again with streaming cache hints on the 16-byte
stores (``__stcs``), loads (``__ldcs``) or both (a patched copy of the headers).
``--bounds``: the kernel as it is, without look-back (a bound, not a scan), and with its tiles'
status descriptors 8 bytes apart (packed; the library: 32, STATUS_SPACING in
device/lookback.cuh),
128 x 56, 64 and 72 with and without a look-back that waits only for the predecessors nearer
than the nearest inclusive prefix (NEARER_ONLY), timed interleaved with the public call. (Two
kernels measured against it and dropped, a look-back warp started at the draw and a resident
grid of blocks looping over tiles, are kept in this file's history: ``--bounds-all`` at ca7fe3f.)
``--probe``: an instrumented copy of the kernel (clock64 and atomic counters) reports per tile
the look-back windows walked, the rounds spent waiting, and the cycles before, in and after the
look-back.
``--host``: host time per public call on a small input, and a profile of the Python path.
The 16-byte warp exchange of the look-back kernel was compared with the padded one it replaced
by ``--exchange16`` at commit c045694 (docs/perf-log/).
"""

import cProfile
import pstats
import sys
import time

import cupy
import numpy as np

import primitives as prim
from primitives._core import backend as _backend, lookback as _lookback, timing as _timing
from primitives.testing import peers
from tools._patched import patched_kernel, patched_module

n = 1 << 28
STATIC_IDS = "--static-ids" in sys.argv
HINTS = "--hints" in sys.argv
HOST = "--host" in sys.argv
BOUNDS = "--bounds" in sys.argv
PROBE = "--probe" in sys.argv
HINT_EDITS = {
    "stores": [
        (
            "out[u * WARP + lane] = slots[X::striped(u, lane)];",
            "__stcs(out + u * WARP + lane, slots[X::striped(u, lane)]);",
        )
    ],
    "loads": [("__ldg(reinterpret_cast<const V*>(p))", "__ldcs(reinterpret_cast<const V*>(p))")],
}
HINT_EDITS["both"] = HINT_EDITS["stores"] + HINT_EDITS["loads"]


rng = np.random.default_rng(3)
POLICIES = (
    (64, 64),
    (64, 80),
    (96, 48),
    (128, 32),
    (128, 40),
    (128, 48),
    (128, 56),
    (128, 64),
    (128, 72),
    (128, 80),
    (192, 40),
    (256, 40),
)
if HINTS:  # the two best policies of the sweep only
    POLICIES = ((128, 64), (128, 72))


def policy_plan(block, items, x, dt):
    """The library's look-back plan of an inclusive ``dt`` sum of ``x`` under the policy
    (``block`` threads, ``items`` four-byte items each), made within a tuning override."""
    with prim.tuning.override("scan", selector="decoupled_lookback", block=block, bytes=4 * items):
        return prim.plan(prim.inclusive_scan, x, dtype=dt).core


def lookback_launch(k, block, items, x, out):
    """A launch of scan_lookback kernel ``k`` (4-byte accumulator) over all of ``x`` into
    ``out``: its own tile counter and tile states, a new epoch per launch."""
    tiles = -(-n // (block * items))
    counter = cupy.zeros(1, np.uint32)
    state = cupy.zeros(_lookback.state_bytes(tiles, 4), np.uint8)
    ep = [0]

    def launch():
        ep[0] += 1
        k(
            (tiles,),
            (block,),
            (x, out, np.int64(n), out, np.int32(0), counter, state, np.uint32(ep[0])),
        )

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
        cub = peers.cub_inclusive_scan(x, out) if peers.cub() is not None else None
        if cub is not None:
            ms = _timing.bench(cub, warmup=3, repeat=20)
            print(f"{c} CUB inclusive_scan: {ms:.4f} ms ({ms / copy_ms:.3f}x copy)", flush=True)
        # the public call (host checks, plan lookup, a new output from the pool) against the same
        # call issued back to back, where host work overlaps the previous call's kernel
        public = lambda: prim.inclusive_scan(x, dtype=dt)  # noqa: E731
        ms = _timing.bench(public, warmup=3, repeat=20)
        ms10 = _timing.bench(lambda: [public() for _ in range(10)], warmup=1, repeat=5) / 10
        print(
            f"{c} prim.inclusive_scan: {ms:.4f} ms per call, {ms10:.4f} ms back to back "
            f"({ms / copy_ms:.3f}x copy)",
            flush=True,
        )
        runs = [(b, i, None) for b, i in POLICIES]
        if HINTS:
            runs += [(b, i, h) for b, i in ((128, 72), (128, 64)) for h in HINT_EDITS]
        for block, items, hint in runs:
            name = f"scan_lookback<{c}, {c}, prim::Sum<{c}>, {block}, {items}, false>"
            if hint or STATIC_IDS:
                if hint:
                    k = patched_kernel("scan/scan.cu", name, {"util/load.cuh": HINT_EDITS[hint]})
                # experiment: tile id = blockIdx.x (no atomic; relies on in-order dispatch)
                if STATIC_IDS:
                    k = patched_kernel(
                        "scan/scan.cu",
                        name,
                        {
                            "scan/scan.cu": [
                                ("prim::next_tile(tile_counter, &tile_id)", "blockIdx.x")
                            ]
                        },
                    )
                launch = lookback_launch(k, block, items, x, out)
            else:  # the library's plan under this policy, launched into `out`
                plan = policy_plan(block, items, x, dt)
                launch = lambda plan=plan: plan.launch(x, out, plan.n64, plan.stand_in, np.int32(0))  # noqa: E731
            ok = checked(launch, out, ref, exact=c == "int")
            ms = _timing.bench(launch, warmup=3, repeat=20)
            print(
                f"{c} block {block:4d} items {items:2d}{' ' + hint if hint else ''}: {ms:.4f} ms "
                f"{2 * x.nbytes / ms / 1e6:.0f} GB/s ({ms / copy_ms:.3f}x copy) ok={ok}",
                flush=True,
            )


# The look-back waiting only for the predecessors nearer than the window's nearest inclusive
# prefix (the library waits for the whole window of 32).
NEARER_ONLY = [
    (
        """        while (__any_sync(FULL_MASK, kind == 0u)) {
            if (kind == 0u) {
                __nanosleep(20);
                kind = ts.load(pred, value);
            }
        }
        const unsigned inclusive_lanes = __ballot_sync(FULL_MASK, kind == TILE_INCLUSIVE);""",
        """        unsigned inclusive_lanes;
        while (true) {
            inclusive_lanes = __ballot_sync(FULL_MASK, kind == TILE_INCLUSIVE);
            const unsigned needed =
                inclusive_lanes ? (inclusive_lanes & (0u - inclusive_lanes)) - 1u : FULL_MASK;
            const bool waiting = kind == 0u && ((needed >> lane) & 1u);
            if (!__any_sync(FULL_MASK, waiting)) break;
            if (waiting) {
                __nanosleep(20);
                kind = ts.load(pred, value);
            }
        }""",
    )
]


def bounds():
    gbs = _timing.copy_bandwidth(1 << 31)
    print(
        f"memcpy 2 GiB: {gbs:.0f} GB/s (a 2^28 four-byte scan at this rate: "
        f"{2 * n * 4 / gbs / 1e6:.4f} ms; 85%: {2 * n * 4 / (0.85 * gbs) / 1e6:.4f} ms)",
        flush=True,
    )
    for c, dt in (("int", np.int32), ("float", np.float32)):
        x = cupy.asarray(rng.integers(-1000, 1000, n, dtype=np.int32).astype(dt))
        out = cupy.empty_like(x)
        ref = cupy.cumsum(x, dtype=dt)
        fns = {}
        # a bound, not a scan: without the look-back (each tile's prefix taken as the identity)
        no_lookback = [
            (
                "const T before = lookback_prefix<T>(ts, tile, op);",
                "const T before = Op::identity();",
            )
        ]
        # (label, items, edits of device/lookback.cuh)
        variants = [("no look-back", 72, no_lookback)]
        variants += [
            (label, items, edits)
            for items in (56, 64, 72)
            for label, edits in (("policy", []), ("nearer-only wait", NEARER_ONLY))
        ]
        # the tiles' descriptors packed (8 bytes apart, 4 per 32-byte sector, the earlier layout),
        # against the library's one per 32-byte sector
        variants += [
            (
                "status spacing 8 B",
                72,
                [("constexpr int STATUS_SPACING = 32;", "constexpr int STATUS_SPACING = 8;")],
            )
        ]
        for label, items, scan_edits in variants:
            block = 128
            name = f"scan_lookback<{c}, {c}, prim::Sum<{c}>, {block}, {items}, false>"
            k = patched_kernel("scan/scan.cu", name, {"device/lookback.cuh": scan_edits})
            launch = lookback_launch(k, block, items, x, out)
            ok = checked(launch, out, ref, exact=c == "int") if "look-back" not in label else "n/a"
            key = f"{label} {block}x{items} regs {k.num_regs}"
            fns[key] = launch
            print(f"{c} {key}: ok={ok}", flush=True)
        fns["public call"] = lambda: prim.inclusive_scan(x, dtype=dt)
        t = _timing.bench_many(fns)
        for key, ms in t.items():
            print(
                f"{c} {key}: {ms:.4f} ms {2 * x.nbytes / ms / 1e6:.0f} GB/s "
                f"({100 * 2 * x.nbytes / ms / 1e6 / gbs:.1f}% of memcpy)",
                flush=True,
            )


def pieces_of_a_call(small):
    """Host time of the parts of a public call, and of other ways to launch the same kernel."""
    import ctypes

    def per_call(fn, reps=3000):
        for _ in range(50):
            fn()
        cupy.cuda.get_current_stream().synchronize()
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        cupy.cuda.get_current_stream().synchronize()
        return (time.perf_counter() - t0) / reps * 1e6

    backend = _backend.get_backend()
    plan = prim.plan(prim.inclusive_scan, small, dtype=np.int32).core  # the calls' plan
    out = cupy.empty(small.size, np.int32)
    raw = plan.kernel.function
    pieces = {
        "public call": lambda: prim.inclusive_scan(small, dtype=np.int32),
        "cupy.empty": lambda: cupy.empty(small.size, np.int32),
        "cupy.ndarray over cupy.cuda.alloc": lambda: cupy.ndarray(
            (small.size,), np.int32, cupy.cuda.alloc(small.nbytes)
        ),
        "backend.stream_key": backend.stream_key,
        "get_current_stream().ptr": lambda: cupy.cuda.get_current_stream().ptr,
        "call key": lambda: prim.inclusive_scan.entry.key((small,), {"dtype": np.int32}),
        "plan.launch": lambda: plan.launch(small, out, plan.n64, plan.stand_in, np.int32(0)),
        "plan (new output)": lambda: plan(small),
        "RawKernel call": lambda: raw(
            plan.grid,
            plan.block,
            (
                small,
                out,
                plan.n64,
                plan.stand_in,
                np.int32(0),
                plan.counter,
                plan.state,
                plan.next_epoch(),
            ),
        ),
        "Function call": lambda: raw.kernel(
            plan.grid,
            plan.block,
            (
                small,
                out,
                plan.n64,
                plan.stand_in,
                np.int32(0),
                plan.counter,
                plan.state,
                plan.next_epoch(),
            ),
        ),
    }
    try:
        from cupy_backends.cuda.api import driver

        class Params(ctypes.Structure):
            _fields_ = [
                ("x", ctypes.c_void_p),
                ("out", ctypes.c_void_p),
                ("n", ctypes.c_int64),
                ("seed", ctypes.c_void_p),
                ("seeded", ctypes.c_int32),
                ("counter", ctypes.c_void_p),
                ("state", ctypes.c_void_p),
                ("epoch", ctypes.c_uint32),
            ]

        prm = Params(
            small.data.ptr,
            out.data.ptr,
            small.size,
            out.data.ptr,
            0,
            plan.counter.data.ptr,
            plan.state.data.ptr,
            0,
        )
        ptrs = (ctypes.c_void_p * 8)(
            *[ctypes.addressof(prm) + getattr(Params, f).offset for f, _ in Params._fields_]
        )
        fptr, addr = raw.kernel.ptr, ctypes.addressof(ptrs)

        def driver_launch():
            prm.x, prm.out, prm.seed = small.data.ptr, out.data.ptr, out.data.ptr
            prm.epoch = int(plan.next_epoch())
            driver.launchKernel(
                fptr,
                plan.grid[0],
                1,
                1,
                plan.block[0],
                1,
                1,
                0,
                cupy.cuda.get_current_stream().ptr,
                addr,
                0,
            )

        pieces["driver.launchKernel, prebuilt parameters"] = driver_launch
    except Exception as exc:  # noqa: BLE001
        print(f"driver.launchKernel: {type(exc).__name__}: {exc}")
    for name, fn in pieces.items():
        print(f"host per call: {name}: {per_call(fn):.2f} us", flush=True)
    got = prim.inclusive_scan(small, dtype=np.int32)
    print(
        "public call still right:", bool(cupy.array_equal(got, cupy.cumsum(small, dtype=np.int32)))
    )


PROBE_EDITS = {
    "device/lookback.cuh": [
        (
            "namespace prim {",
            'extern "C" { __device__ unsigned long long prim_dbg[8]; }\nnamespace prim {',
        ),
        (
            "    long long window_end = tile - 1;  // nearest predecessor not yet folded\n    while (true) {\n",
            "    long long window_end = tile - 1;  // nearest predecessor not yet folded\n"
            "    const long long dbg_t0 = clock64();\n"
            "    unsigned long long dbg_windows = 0, dbg_spins = 0;\n"
            "    while (true) {\n        ++dbg_windows;\n",
        ),
        (
            "            if (kind == 0u) {\n                __nanosleep(20);",
            "            ++dbg_spins;\n            if (kind == 0u) {\n                __nanosleep(20);",
        ),
        (
            "        if (inclusive_lanes) return prefix;",
            "        if (inclusive_lanes) { if (lane == 0) { atomicAdd(&prim_dbg[0], dbg_windows); "
            "atomicAdd(&prim_dbg[1], dbg_spins); "
            "atomicAdd(&prim_dbg[2], (unsigned long long)(clock64() - dbg_t0)); "
            "atomicAdd(&prim_dbg[3], 1ull); } return prefix; }",
        ),
    ],
    "scan/scan.cu": [
        (
            "    const long long tile = prim::next_tile(tile_counter, &tile_id);\n",
            "    const long long dbg_start = clock64();\n"
            "    const long long tile = prim::next_tile(tile_counter, &tile_id);\n"
            "    if (threadIdx.x == 0) atomicAdd(&prim_dbg[7], (unsigned long long)(clock64() - dbg_start));\n",
        ),
        (
            "    const prim::TileStatus<AccT> ts(tile_state, epoch);\n",
            "    if (threadIdx.x == 0) atomicAdd(&prim_dbg[4], (unsigned long long)(clock64() - dbg_start));\n"
            "    const prim::TileStatus<AccT> ts(tile_state, epoch);\n",
        ),
        (
            "        prim::store_items<AccT, ITEMS>(out + first, avail, false, items);\n}",
            "        prim::store_items<AccT, ITEMS>(out + first, avail, false, items);\n"
            "    if (threadIdx.x == 0) { atomicAdd(&prim_dbg[5], (unsigned long long)(clock64() - dbg_start)); "
            "atomicAdd(&prim_dbg[6], 1ull); }\n}",
        ),
    ],
}


def probe():
    for block, items in ((128, 72), (128, 56)):
        x = cupy.asarray(rng.integers(-1000, 1000, n, dtype=np.int32))
        out = cupy.empty_like(x)
        ref = cupy.cumsum(x, dtype=np.int32)
        name = f"scan_lookback<int, int, prim::Sum<int>, {block}, {items}, false>"
        mod = patched_module("scan/scan.cu", [name], PROBE_EDITS)
        k = mod.get_function(name)
        dbg = cupy.ndarray((8,), cupy.uint64, mod.get_global("prim_dbg"))
        launch = lookback_launch(k, block, items, x, out)
        ok = checked(launch, out, ref, exact=True)
        ms = _timing.bench(launch, warmup=3, repeat=10)
        dbg.fill(0)
        reps = 10
        for _ in range(reps):
            launch()
        v = cupy.asnumpy(dbg).astype(np.float64)
        lb, blocks = max(v[3], 1), max(v[6], 1)
        print(
            f"probe {block} x {items}: {ms:.4f} ms ok={ok}; per tile: {v[0] / lb:.2f} windows, "
            f"{v[1] / lb:.2f} waiting rounds, look-back {v[2] / lb:.0f} cycles; per block: "
            f"draw {v[7] / blocks:.0f}, draw + load + reduce + scan {v[4] / blocks:.0f}, "
            f"lifetime {v[5] / blocks:.0f} cycles",
            flush=True,
        )


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
    print(
        f"host per call, n = 2^10: prim.inclusive_scan {(t1 - t0) / reps * 1e6:.1f} us, "
        f"cupy.cumsum {(t2 - t1) / reps * 1e6:.1f} us",
        flush=True,
    )
    pieces_of_a_call(small)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(reps):
        prim.inclusive_scan(small, dtype=np.int32)
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(14)


if PROBE:
    probe()
elif BOUNDS:
    bounds()
else:
    sweep()
if HOST:
    host()

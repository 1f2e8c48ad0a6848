"""Tuning experiment for the decoupled look-back scan (GPU only): kernel-only times for several
(BLOCK, ITEMS) policies, int32 -> int32 and float32 at 2^28, next to CUB's inclusive_scan
(cuda.compute), a device copy of the same bytes, and the public call timed alone and back to
back (the difference is host work before the launch).

    python tools/tune_scan.py [--static-ids] [--hints] [--host] [--bounds | --bounds-all] [--probe]

``--hints``: the 128 x 72 and 128 x 64 kernels again with streaming cache hints on the 16-byte
stores (``__stcs``), loads (``__ldcs``) or both (a patched copy of the headers).
``--bounds``: the kernel as it is, without look-back (a bound, not a scan), and with its tiles'
status descriptors 8 bytes apart (packed; the library: 32, STATUS_SPACING in common/scan.cuh),
128 x 56, 64 and 72 with and without a look-back that waits only for the predecessors nearer
than the nearest inclusive prefix (NEARER_ONLY), timed interleaved with the public call;
``--bounds-all`` adds a look-back warp that starts while the data warps load (EARLY_KERNEL,
several shapes) and a resident grid of blocks looping over tiles (LOOP_KERNEL).
``--probe``: an instrumented copy of the kernel (clock64 and atomic counters) reports per tile
the look-back windows walked, the rounds spent waiting, and the cycles before, in and after the
look-back.
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
from primitives import _backend, _launch, _loader, _lookback, _timing
from patched import patched_kernel, patched_module  # tools/patched.py

n = 1 << 28
STATIC_IDS = "--static-ids" in sys.argv
HINTS = "--hints" in sys.argv
HOST = "--host" in sys.argv
BOUNDS = "--bounds" in sys.argv or "--bounds-all" in sys.argv
ALL_BOUNDS = "--bounds-all" in sys.argv
PROBE = "--probe" in sys.argv
HINT_EDITS = {
    "stores": [("reinterpret_cast<VT*>(warp_base)[c] = slots[exchange16_slot<PER_LANE>(c, c / PER_LANE)];",
                "__stcs(reinterpret_cast<VT*>(warp_base) + c, "
                "slots[exchange16_slot<PER_LANE>(c, c / PER_LANE)]);")],
    "loads": [("__ldg(reinterpret_cast<const V*>(p))", "__ldcs(reinterpret_cast<const V*>(p))")],
}
HINT_EDITS["both"] = HINT_EDITS["stores"] + HINT_EDITS["loads"]


rng = np.random.default_rng(3)
POLICIES = ((64, 64), (64, 80), (96, 48), (128, 32), (128, 40), (128, 48), (128, 56),
            (128, 64), (128, 72), (128, 80), (192, 40), (256, 40))
if HINTS:  # the two best policies of the sweep only
    POLICIES = ((128, 64), (128, 72))


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


def lookback_launch(k, block, items, x, out, stride=1):
    """A launch of scan_lookback kernel ``k`` (4-byte accumulator) over all of ``x`` into
    ``out``: its own tile counter and tile states (``stride`` times the library's bytes, for a
    kernel whose descriptors are that many words apart), a new epoch per launch."""
    tiles = -(-n // (block * items))
    counter = cupy.zeros(1, np.uint32)
    state = cupy.zeros(_lookback.state_bytes(tiles, 4) * stride, np.uint8)
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
            runs += [(b, i, h) for b, i in ((128, 72), (128, 64)) for h in HINT_EDITS]
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


# The look-back waiting only for the predecessors nearer than the window's nearest inclusive
# prefix (the library waits for the whole window of 32).
NEARER_ONLY = [("""        while (__any_sync(FULL_MASK, kind == 0u)) {
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
        }""")]

# A resident grid of blocks that loop over tiles; a block draws its next tile once its current
# one has its prefix (the draw's latency overlaps the outputs' stores; the id is not drawn
# earlier, so a drawn tile publishes its aggregate as soon as in the one-tile-per-block kernel).
LOOP_KERNEL = r"""
template <class InT, class AccT, class Op, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
scan_lookback_loop(const InT* __restrict__ in, AccT* __restrict__ out, long long n,
                   long long tiles, unsigned int* __restrict__ tile_counter,
                   unsigned char* tile_state, unsigned int epoch) {
    constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
    constexpr int WARPS = BLOCK / prim::WARP;
    constexpr int XBYTES = (sizeof(InT) > sizeof(AccT) ? sizeof(InT) : sizeof(AccT)) *
                           prim::WARP * ITEMS;
    const Op op;
    __shared__ AccT scratch[WARPS];
    __shared__ AccT tile_prefix;
    __shared__ unsigned int tile_id;
    __shared__ __align__(16) unsigned char exchange[WARPS][XBYTES];
    auto draw = [&]() {
        const unsigned t = atomicAdd(tile_counter, 1u);
        if (t == tiles + gridDim.x - 1) *tile_counter = 0u;
        return t;
    };
    const int warp = threadIdx.x / prim::WARP;
    const bool aligned = ((reinterpret_cast<prim::uptr>(in) | reinterpret_cast<prim::uptr>(out))
                          & 15u) == 0;
    if (threadIdx.x == 0) tile_id = draw();
    __syncthreads();
    long long tile = tile_id;
    while (tile < tiles) {
        const long long warp_first = tile * TILE + static_cast<long long>(warp) * prim::WARP * ITEMS;
        const long long first = warp_first + static_cast<long long>(threadIdx.x % prim::WARP) * ITEMS;
        const long long avail = n - first;
        const bool vector = aligned && (tile + 1) * TILE <= n;
        AccT items[ITEMS];
        if (vector)
            prim::load_striped_to_blocked16<InT, AccT, ITEMS>(
                in + warp_first, reinterpret_cast<InT*>(exchange[warp]), items);
        else
            prim::load_items<InT, AccT, Op, ITEMS>(in + first, avail, false, items);
        AccT thread_total = items[0];
#pragma unroll
        for (int k = 1; k < ITEMS; ++k) thread_total = op(thread_total, items[k]);
        AccT aggregate;
        AccT prefix = prim::block_exclusive_scan<BLOCK>(thread_total, op, scratch, aggregate);
        const prim::TileStatus<AccT> ts(tile_state, epoch);
        if (threadIdx.x < prim::WARP) prim::tile_lookback(ts, tile, aggregate, op, &tile_prefix);
        __syncthreads();
        if (threadIdx.x == 0) tile_id = draw();  // read after the barrier below
        AccT running = op(tile_prefix, prefix);
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            running = op(running, items[k]);
            items[k] = running;
        }
        if (vector)
            prim::store_blocked_to_striped16<AccT, ITEMS>(
                out + warp_first, reinterpret_cast<AccT*>(exchange[warp]), items);
        else
            prim::store_items<AccT, ITEMS>(out + first, avail, false, items);
        __syncthreads();
        tile = tile_id;
    }
}
"""


# One look-back warp beside the data warps: it starts looking back as soon as the tile id is
# drawn, while the data warps load; the last data warp to have its total publishes the tile's
# aggregate (no block barrier between the loads and that publication), and the look-back warp
# publishes the inclusive prefix once both are known. BLOCK is the number of data threads; the
# launch has BLOCK + 32.
EARLY_KERNEL = r"""
template <class InT, class AccT, class Op, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK + prim::WARP)
scan_lookback_early(const InT* __restrict__ in, AccT* __restrict__ out, long long n,
                    unsigned int* __restrict__ tile_counter, unsigned char* tile_state,
                    unsigned int epoch) {
    constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
    constexpr int WARPS = BLOCK / prim::WARP;
    constexpr int XBYTES = (sizeof(InT) > sizeof(AccT) ? sizeof(InT) : sizeof(AccT)) *
                           prim::WARP * ITEMS;
    const Op op;
    __shared__ AccT warp_totals[WARPS];
    __shared__ AccT tile_aggregate;
    __shared__ AccT tile_prefix;
    __shared__ unsigned int tile_id, arrived, aggregate_ready;
    __shared__ __align__(16) unsigned char exchange[WARPS][XBYTES];
    const int warp = threadIdx.x / prim::WARP, lane = threadIdx.x % prim::WARP;
    if (threadIdx.x == 0) {
        const unsigned t = atomicAdd(tile_counter, 1u);
        if (t == gridDim.x - 1) *tile_counter = 0u;
        tile_id = t;
        arrived = 0u;
        aggregate_ready = 0u;
    }
    __syncthreads();
    const long long tile = tile_id;
    const prim::TileStatus<AccT> ts(tile_state, epoch);
    const bool aligned = ((reinterpret_cast<prim::uptr>(in) | reinterpret_cast<prim::uptr>(out))
                          & 15u) == 0;
    const bool vector = aligned && (tile + 1) * TILE <= n;
    const long long warp_first = tile * TILE + static_cast<long long>(warp) * prim::WARP * ITEMS;
    const long long first = warp_first + static_cast<long long>(lane) * ITEMS;
    const long long avail = n - first;
    AccT items[ITEMS];
    AccT exclusive = Op::identity();
    if (warp < WARPS) {
        if (vector)
            prim::load_striped_to_blocked16<InT, AccT, ITEMS>(
                in + warp_first, reinterpret_cast<InT*>(exchange[warp]), items);
        else
            prim::load_items<InT, AccT, Op, ITEMS>(in + first, avail, false, items);
        AccT thread_total = items[0];
#pragma unroll
        for (int k = 1; k < ITEMS; ++k) thread_total = op(thread_total, items[k]);
        const AccT inclusive = prim::warp_inclusive_scan(thread_total, op);
        exclusive = prim::shfl_up(inclusive, 1);
        if (lane == 0) exclusive = Op::identity();
        if (lane == prim::WARP - 1) {
            warp_totals[warp] = inclusive;
            __threadfence_block();
            if (atomicAdd(&arrived, 1u) == WARPS - 1) {  // the last data warp: the aggregate
                __threadfence_block();
                const volatile AccT* wt = warp_totals;
                AccT aggregate = wt[0];
#pragma unroll
                for (int w = 1; w < WARPS; ++w) aggregate = op(aggregate, wt[w]);
                ts.publish(tile, tile == 0 ? prim::TILE_INCLUSIVE : prim::TILE_AGGREGATE,
                           aggregate);
                tile_aggregate = aggregate;
                __threadfence();
                *reinterpret_cast<volatile unsigned*>(&aggregate_ready) = 1u;
            }
        }
    } else {
        AccT before = Op::identity();
        if (tile > 0) before = prim::lookback_prefix<AccT>(ts, tile, op);
        if (lane == 0) {
            if (tile > 0) {
                while (*reinterpret_cast<volatile unsigned*>(&aggregate_ready) == 0u)
                    __nanosleep(32);
                __threadfence();
                ts.publish(tile, prim::TILE_INCLUSIVE,
                           op(before, *reinterpret_cast<volatile AccT*>(&tile_aggregate)));
            }
            tile_prefix = before;
        }
    }
    __syncthreads();
    if (warp < WARPS) {
        AccT running = tile_prefix;
        for (int w = 0; w < warp; ++w) running = op(running, warp_totals[w]);
        running = op(running, exclusive);
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            running = op(running, items[k]);
            items[k] = running;
        }
        if (vector)
            prim::store_blocked_to_striped16<AccT, ITEMS>(
                out + warp_first, reinterpret_cast<AccT*>(exchange[warp]), items);
        else
            prim::store_items<AccT, ITEMS>(out + first, avail, false, items);
    }
}
"""


def early_launch(k, block, items, x, out):
    """A launch of scan_lookback_early (``block`` data threads + a look-back warp)."""
    tiles = -(-n // (block * items))
    counter = cupy.zeros(1, np.uint32)
    state = cupy.zeros(_lookback.state_bytes(tiles, 4), np.uint8)
    ep = [0]

    def launch():
        ep[0] += 1
        k((tiles,), (block + 32,), (x, out, np.int64(n), counter, state, np.uint32(ep[0])))

    return launch


def loop_launch(k, block, items, x, out):
    """A launch of scan_lookback_loop over all of ``x``: the resident grid, a new epoch each."""
    tiles = -(-n // (block * items))
    grid = min(tiles, _launch.resident_grid(_loader.Kernel(k, "loop", _backend.get_backend()),
                                            block))
    counter = cupy.zeros(1, np.uint32)
    state = cupy.zeros(_lookback.state_bytes(tiles, 4), np.uint8)
    ep = [0]

    def launch():
        ep[0] += 1
        k((grid,), (block,), (x, out, np.int64(n), np.int64(tiles), counter, state,
                              np.uint32(ep[0])))

    return launch


def bounds():
    gbs = _timing.copy_bandwidth(1 << 31)
    print(f"memcpy 2 GiB: {gbs:.0f} GB/s (a 2^28 four-byte scan at this rate: "
          f"{2 * n * 4 / gbs / 1e6:.4f} ms; 85%: {2 * n * 4 / (0.85 * gbs) / 1e6:.4f} ms)",
          flush=True)
    for c, dt in (("int", np.int32), ("float", np.float32)):
        x = cupy.asarray(rng.integers(-1000, 1000, n, dtype=np.int32).astype(dt))
        out = cupy.empty_like(x)
        ref = cupy.cumsum(x, dtype=dt)
        fns = {}
        # a bound, not a scan: without the look-back (each tile's prefix taken as the identity)
        no_lookback = [("const T before = lookback_prefix<T>(ts, tile, op);",
                        "const T before = Op::identity();")]
        variants = [("as is", 128, 72, "one", []), ("no look-back", 128, 72, "one", no_lookback)]
        variants += [(label, 128, items, "one", edits) for items in (56, 64, 72)
                     for label, edits in (("policy", []), ("nearer-only wait", NEARER_ONLY))]
        # the tiles' descriptors packed (8 bytes apart, 4 per 32-byte sector, the earlier layout),
        # against the library's one per 32-byte sector
        variants += [(f"status spacing {sp} B", 128, 72, f"one {max(1, sp // 32)}", [
            ("constexpr int STATUS_SPACING = 32;", f"constexpr int STATUS_SPACING = {sp};")])
            for sp in (8,)]
        if ALL_BOUNDS:
            variants += [("early", 128, 56, "early", []), ("early", 96, 56, "early", []),
                         ("early", 128, 48, "early", []), ("early", 128, 64, "early", []),
                         ("early", 64, 56, "early", []), ("early", 192, 40, "early", []),
                         ("loop", 128, 56, "loop", [])]
        for label, block, items, kind, scan_edits in variants:
            if kind == "early":
                name = f"scan_lookback_early<{c}, {c}, prim::Sum<{c}>, {block}, {items}>"
                k = patched_kernel("scan/scan.cu", name, {
                    "scan/scan.cu": [("#include \"common/scan.cuh\"\n",
                                      "#include \"common/scan.cuh\"\n" + EARLY_KERNEL)]})
                launch = early_launch(k, block, items, x, out)
            elif kind.startswith("one"):
                name = f"scan_lookback<{c}, {c}, prim::Sum<{c}>, {block}, {items}, false>"
                k = patched_kernel("scan/scan.cu", name, {"common/scan.cuh": scan_edits})
                stride = int(kind.split()[1]) if " " in kind else 1
                launch = lookback_launch(k, block, items, x, out, stride)
            else:
                name = f"scan_lookback_loop<{c}, {c}, prim::Sum<{c}>, {block}, {items}>"
                k = patched_kernel("scan/scan.cu", name, {
                    "common/scan.cuh": scan_edits,
                    "scan/scan.cu": [("#include \"common/scan.cuh\"\n",
                                      "#include \"common/scan.cuh\"\n" + LOOP_KERNEL)]})
                launch = loop_launch(k, block, items, x, out)
            ok = (checked(launch, out, ref, exact=c == "int") if "look-back" not in label
                  else "n/a")
            key = f"{label} {block}x{items} regs {k.num_regs}"
            fns[key] = launch
            print(f"{c} {key}: ok={ok}", flush=True)
        fns["public call"] = lambda: prim.inclusive_scan(x, dtype=dt)
        t = _timing.bench_many(fns)
        for key, ms in t.items():
            print(f"{c} {key}: {ms:.4f} ms {2 * x.nbytes / ms / 1e6:.0f} GB/s "
                  f"({100 * 2 * x.nbytes / ms / 1e6 / gbs:.1f}% of memcpy)", flush=True)


def pieces_of_a_call(small):
    """Host time of the parts of a public call, and of other ways to launch the same kernel."""
    import ctypes

    from primitives import _checks, scan

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
    plan = next(p for k, p in scan._plans.items() if k[4] == small.size)
    out = cupy.empty(small.size, np.int32)
    raw = plan.kernel._fn
    pieces = {
        "public call": lambda: prim.inclusive_scan(small, dtype=np.int32),
        "cupy.empty": lambda: cupy.empty(small.size, np.int32),
        "cupy.ndarray over cupy.cuda.alloc": lambda: cupy.ndarray((small.size,), np.int32,
                                                                  cupy.cuda.alloc(small.nbytes)),
        "backend.stream_key": backend.stream_key,
        "get_current_stream().ptr": lambda: cupy.cuda.get_current_stream().ptr,
        "direct_input": lambda: _checks.direct_input(small, "sum", np.int32, backend),
        "plan.launch": lambda: plan.launch(small, out, plan.n64),
        "RawKernel call": lambda: raw(plan.grid, plan.block, (small, out, plan.n64, plan.counter,
                                                              plan.state, plan.next_epoch())),
        "Function call": lambda: raw.kernel(plan.grid, plan.block,
                                            (small, out, plan.n64, plan.counter, plan.state,
                                             plan.next_epoch())),
    }
    try:
        from cupy_backends.cuda.api import driver

        class Params(ctypes.Structure):
            _fields_ = [("x", ctypes.c_void_p), ("out", ctypes.c_void_p), ("n", ctypes.c_int64),
                        ("counter", ctypes.c_void_p), ("state", ctypes.c_void_p),
                        ("epoch", ctypes.c_uint32)]

        prm = Params(small.data.ptr, out.data.ptr, small.size, plan.counter.data.ptr,
                     plan.state.data.ptr, 0)
        ptrs = (ctypes.c_void_p * 6)(*[ctypes.addressof(prm) + getattr(Params, f).offset
                                       for f, _ in Params._fields_])
        fptr, addr = raw.kernel.ptr, ctypes.addressof(ptrs)

        def driver_launch():
            prm.x, prm.out, prm.epoch = small.data.ptr, out.data.ptr, int(plan.next_epoch())
            driver.launchKernel(fptr, plan.grid[0], 1, 1, plan.block[0], 1, 1, 0,
                                cupy.cuda.get_current_stream().ptr, addr, 0)

        pieces["driver.launchKernel, prebuilt parameters"] = driver_launch
    except Exception as exc:  # noqa: BLE001
        print(f"driver.launchKernel: {type(exc).__name__}: {exc}")
    for name, fn in pieces.items():
        print(f"host per call: {name}: {per_call(fn):.2f} us", flush=True)
    got = prim.inclusive_scan(small, dtype=np.int32)
    print("public call still right:", bool(cupy.array_equal(got, cupy.cumsum(small, dtype=np.int32))))


PROBE_EDITS = {
    "common/scan.cuh": [
        ("namespace prim {", 'extern "C" { __device__ unsigned long long prim_dbg[8]; }\nnamespace prim {'),
        ("    long long window_end = tile - 1;  // nearest predecessor not yet folded\n    while (true) {\n",
         "    long long window_end = tile - 1;  // nearest predecessor not yet folded\n"
         "    const long long dbg_t0 = clock64();\n"
         "    unsigned long long dbg_windows = 0, dbg_spins = 0;\n"
         "    while (true) {\n        ++dbg_windows;\n"),
        ("            if (kind == 0u) {\n                __nanosleep(20);",
         "            ++dbg_spins;\n            if (kind == 0u) {\n                __nanosleep(20);"),
        ("        if (inclusive_lanes) return prefix;",
         "        if (inclusive_lanes) { if (lane == 0) { atomicAdd(&prim_dbg[0], dbg_windows); "
         "atomicAdd(&prim_dbg[1], dbg_spins); "
         "atomicAdd(&prim_dbg[2], (unsigned long long)(clock64() - dbg_t0)); "
         "atomicAdd(&prim_dbg[3], 1ull); } return prefix; }"),
    ],
    "scan/scan.cu": [
        ("    const long long tile = prim::next_tile(tile_counter, &tile_id);\n",
         "    const long long dbg_start = clock64();\n"
         "    const long long tile = prim::next_tile(tile_counter, &tile_id);\n"
         "    if (threadIdx.x == 0) atomicAdd(&prim_dbg[7], (unsigned long long)(clock64() - dbg_start));\n"),
        ("    const prim::TileStatus<AccT> ts(tile_state, epoch);\n",
         "    if (threadIdx.x == 0) atomicAdd(&prim_dbg[4], (unsigned long long)(clock64() - dbg_start));\n"
         "    const prim::TileStatus<AccT> ts(tile_state, epoch);\n"),
        ("        prim::store_items<AccT, ITEMS>(out + first, avail, false, items);\n}",
         "        prim::store_items<AccT, ITEMS>(out + first, avail, false, items);\n"
         "    if (threadIdx.x == 0) { atomicAdd(&prim_dbg[5], (unsigned long long)(clock64() - dbg_start)); "
         "atomicAdd(&prim_dbg[6], 1ull); }\n}"),
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
        print(f"probe {block} x {items}: {ms:.4f} ms ok={ok}; per tile: {v[0] / lb:.2f} windows, "
              f"{v[1] / lb:.2f} waiting rounds, look-back {v[2] / lb:.0f} cycles; per block: "
              f"draw {v[7] / blocks:.0f}, draw + load + reduce + scan {v[4] / blocks:.0f}, "
              f"lifetime {v[5] / blocks:.0f} cycles", flush=True)


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

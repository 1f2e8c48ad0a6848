"""Tuning experiment for the decoupled look-back scan (GPU only): kernel-only back-to-back times
for several (BLOCK, ITEMS) policies, int32 -> int32 and float32 at 2^28."""
import cupy
import numpy as np

from primitives import _loader, _timing

n = 1 << 28
rng = np.random.default_rng(3)
for c, dt in (("int", np.int32), ("float", np.float32)):
    x = cupy.asarray(rng.integers(-1000, 1000, n, dtype=np.int32).astype(dt))
    out = cupy.empty_like(x)
    ref = cupy.cumsum(x, dtype=dt)
    for block, items in ((256, 16), (256, 24), (512, 8), (512, 16), (1024, 8)):
        name = f"scan_lookback<{c}, {c}, prim::Sum<{c}>, {block}, {items}, false>"
        k = _loader.load("scan/scan.cu", [name])(name)
        tiles = -(-n // (block * items))
        counter = cupy.zeros(1, np.uint32)
        status = cupy.zeros(tiles, np.uint32)
        agg = cupy.empty(tiles, dt)
        inc = cupy.empty(tiles, dt)
        ep = [0]

        def launch():
            ep[0] += 1
            k((tiles,), (block,), (x, out, np.int64(n), counter, status, agg, inc,
                                  np.uint32(ep[0])))

        launch()
        ok = bool(cupy.array_equal(out, ref)) if c == "int" else True
        ms = _timing.bench(lambda: [launch() for _ in range(10)], warmup=2, repeat=10) / 10
        print(f"{c} block {block:4d} items {items:2d}: {ms:.4f} ms "
              f"{2 * x.nbytes / ms / 1e6:.0f} GB/s ok={ok}", flush=True)

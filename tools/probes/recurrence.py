"""The linear recurrence as a 2-tuple scan against the copy rate and CUB (GPU only):

    python -m tools.probes.recurrence [log2 n]

``x[i] = a[i] * x[i-1] + b[i]`` over n = 2^27 float32 pairs (a in [0.5, 1), b in [-1, 1)) as
``prim.inclusive_scan((a, b), Op(("a.f0 * b.f0", "b.f0 * a.f1 + b.f1"), (1.0, 0.0)),
fields=1)``: first checked against a float64 sequential recurrence over its first 10^5 elements,
then timed interleaved (primitives._core.timing.bench_many: 5 rounds x (5 warm-ups + 20
samples), medians of CUDA-event times) with a copy of n float32, both fields kept, the float32
``cumsum``, and CUB's ``inclusive_scan`` over ``ZipIterator(a, b)`` writing (product, x) pairs
(``cuda.compute``; its Python operator needs ``numba-cuda-mlir``: the row is left out without
it). Prints the medians in ms, the recurrence's rate (a and b read, x written) as a share of the
interleaved copy's (the user-operators issue's figure: >= 80%), and CUB's time over ours (> 1:
faster than CUB). A small n runs on the emulator, as a check of the probe.
"""

from __future__ import annotations

import sys

import numpy as np

import primitives as prim
from primitives._core import backend as _backend, timing as _timing
from primitives.testing import peers

REC = prim.Op(("a.f0 * b.f0", "b.f0 * a.f1 + b.f1"), identity=(1.0, 0.0))


def _cub(a, b):
    """CUB's run of the recurrence (:func:`primitives.testing.peers.cub_linear_recurrence`), or
    None where ``cuda.compute`` or its operator compiler is missing."""
    if peers.cub() is None:
        print(f"CUB unavailable ({type(peers.cub_error).__name__}): its row is left out")
        return None
    try:
        run = peers.cub_linear_recurrence(a, b)
        run()
    except Exception as e:  # noqa: BLE001 - the operator's compiler missing or failing
        print(f"CUB unavailable ({type(e).__name__}: {str(e)[:200]}): its row is left out")
        return None
    return run


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    backend = _backend.get_backend()
    xp = backend.xp
    n = 1 << int(argv[0]) if argv else (1 << 27 if backend.is_cuda else 1 << 12)
    rng = np.random.default_rng(0)
    a = xp.asarray(rng.uniform(0.5, 1.0, n).astype(np.float32))
    b = xp.asarray(rng.uniform(-1.0, 1.0, n).astype(np.float32))
    x = prim.inclusive_scan((a, b), REC, fields=1)
    m = min(n, 100_000)
    ah = np.asarray(a[:m].get() if backend.is_cuda else a[:m], dtype=np.float64)
    bh = np.asarray(b[:m].get() if backend.is_cuda else b[:m], dtype=np.float64)
    want, acc = np.empty(m), 0.0
    for i in range(m):
        acc = ah[i] * acc + bh[i]
        want[i] = acc
    got = np.asarray(x[:m].get() if backend.is_cuda else x[:m], dtype=np.float64)
    print(
        f"check: max abs error over the first {m} against float64: {np.abs(got - want).max():.2e}"
    )
    if not backend.is_cuda:
        print("no GPU: checked only")
        return
    src = xp.asarray(rng.random(n, dtype=np.float32))
    dst = xp.empty_like(src)
    fns = {
        "copy": lambda: backend.copy_into(dst, src),
        "recurrence": lambda: prim.inclusive_scan((a, b), REC, fields=1),
        "both fields": lambda: prim.inclusive_scan((a, b), REC),
        "cumsum": lambda: prim.cumsum(a),
    }
    cub = _cub(a, b)
    if cub is not None:
        print(f"CUB against ours: max abs difference {float(abs(cub()[:m] - x[:m]).max()):.2e}")
        fns["CUB inclusive_scan"] = cub
    t = _timing.bench_many(fns)
    for k, ms in t.items():
        print(f"{k}: {ms:.4f} ms")
    copy = 2 * n * 4 / t["copy"] / 1e6  # GB/s, read + write
    rate = 3 * n * 4 / t["recurrence"] / 1e6
    both = 4 * n * 4 / t["both fields"] / 1e6
    print(f"copy {copy:.0f} GB/s; recurrence {rate:.0f} GB/s = {rate / copy:.3f} of the copy")
    print(f"both fields: {both / copy:.3f} of the copy (4 arrays)")
    if "CUB inclusive_scan" in t:
        print(f"CUB / ours = {t['CUB inclusive_scan'] / t['recurrence']:.3f}")


if __name__ == "__main__":
    main()

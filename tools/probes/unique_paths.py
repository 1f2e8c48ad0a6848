"""unique's count variant against the sort (rle) over key ranges of several widths:

    python -m tools.probes.unique_paths [log2 n]

``unique(x, return_counts=True)`` of n uint32 keys (2^27 by default; a small n runs on the
emulator: a check of the probe) drawn uniformly from [0, 2^b) for b = 16, 20, 22, 24 and 26 (and
b up to log2 n only), by the ``count`` variant with no bound on the bins (a histogram of the
range, no sort) and by ``rle`` (the sort and the run kernel), each checked against the other,
interleaved (primitives._core.timing.bench_many, 5 rounds x (5 warm-ups + 20 samples) on a GPU),
ms. Where ``count`` stops winning is where the ``"sets"`` policy's ``count_max_bins`` belongs.
"""

from __future__ import annotations

import sys

import numpy as np

import primitives as prim
from primitives._core import backend as _backend, timing as _timing

backend = _backend.get_backend()
xp = backend.xp  # CuPy on a GPU, NumPy on the emulator
ROUNDS = (
    dict(rounds=5, warmup=5, repeat=20) if backend.is_cuda else dict(rounds=1, warmup=0, repeat=1)
)


def run(n):
    """``{b: {"count": ms, "rle": ms}}`` for keys in [0, 2^b). The count variant runs with no
    bound on the bins (at most a bin per key), the override entered once around the checks and
    the timing (an override entered per call adds its own host time to the call's)."""
    rng = np.random.default_rng(9)
    rows = {}
    with prim.tuning.override("sets", selector="unique", count_max_bins=2**31 - 1):
        for b in (16, 20, 22, 24, 26):
            if (1 << b) > n:
                break
            x = xp.asarray(rng.integers(0, 1 << b, n, dtype=np.uint32))
            fns = {
                "count": lambda x=x: prim.unique(x, return_counts=True, variant="count"),
                "rle": lambda x=x: prim.unique(x, return_counts=True, variant="rle"),
            }
            (u1, c1), (u2, c2) = fns["count"](), fns["rle"]()
            assert bool((u1 == u2).all()) and bool((c1 == c2).all()), b
            rows[b] = _timing.bench_many(fns, **ROUNDS)
    return rows


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    n = 1 << int(argv[0]) if argv else (1 << 27 if backend.is_cuda else 1 << 16)
    for b, t in run(n).items():
        print(f"keys in [0, 2^{b}): count {t['count']:.4f} ms, rle {t['rle']:.4f} ms")


if __name__ == "__main__":
    main()

"""The figures' timing of the onesweep sort against cupy.sort, for the library found on the
path (GPU only): to compare two source trees, run it once per tree, as a file (it imports only
the library, from PYTHONPATH), e.g.

    PYTHONPATH=/tmp/before python tools/probes/sort_vs_cupy.py before 2
    PYTHONPATH=. python tools/probes/sort_vs_cupy.py after 2

For 2^27 uint32, int32 and normal float32 keys (checked once against cupy.sort), ``prim.sort``
of each and ``cupy.sort`` of the uint32 keys are timed in interleaved rounds
(primitives._core.timing.bench_many, 5 rounds x (5 warm-ups + 20 samples), as tools/figures);
the second argument repeats that. Prints the medians, cupy.sort's time over ours and the int32
and float32 times over the uint32 time.
"""

import sys

import cupy
import numpy as np

import primitives as prim
from primitives._core import timing as _timing


def main(argv):
    label = argv[0] if argv else "tree"
    reps = int(argv[1]) if len(argv) > 1 else 1
    n = 1 << 27
    rng = np.random.default_rng(7)
    keys = {
        "uint32": cupy.asarray(rng.integers(0, 2**32, n, dtype=np.uint32)),
        "int32": cupy.asarray(rng.integers(-(2**31), 2**31, n, dtype=np.int32)),
        "float32": cupy.asarray(rng.standard_normal(n, dtype=np.float32)),
    }
    for dt, x in keys.items():
        assert bool(cupy.array_equal(prim.sort(x), cupy.sort(x))), dt
    fns = {f"ours {dt}": (lambda x=x: prim.sort(x)) for dt, x in keys.items()}
    fns["cupy.sort uint32"] = lambda: cupy.sort(keys["uint32"])
    for rep in range(reps):
        t = _timing.bench_many(fns, rounds=5, warmup=5, repeat=20)
        u = t["ours uint32"]
        print(
            f"{label} {rep}: "
            + ", ".join(f"{k} {ms:.4f} ms" for k, ms in t.items())
            + f" | cupy.sort / ours {t['cupy.sort uint32'] / u:.4f}, int32 / uint32 "
            f"{t['ours int32'] / u:.4f}, float32 / uint32 {t['ours float32'] / u:.4f}",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])

"""segmented_reduce against CUB's segmented reduction (cuda.compute), GPU only:

    python -m tools.probes.segreduce_vs_cub [runs] [log2 n] [--no-sweep]

float32 sums over n = 2^28 elements (checked once against float64 sums; a small n runs on the
emulator) in three layouts:

- equal: n / 2^12 segments of 2^12 (2^16 x 2^12: the figure of ``tools.figures``, family scan);
- ragged: n / 64 segments of 0..128 elements;
- skewed: as many segments as equal, the first of n / 2 elements, the others sharing the rest.

For each layout, interleaved (primitives._core.timing.bench_many, 5 rounds x (5 warm-ups + 20
samples), as tools/figures), repeated ``runs`` times (1 by default): the public call
(``check=False``), the same through ``prim.plan`` (made once, as CUB's object is: the public
plan's call, which compares the arrays' layout with the plan's), the library's plan called
directly (its launches, the result allocated), the
same launches of each kernel kind whatever the mean segment length (``tiles``: the
segmented_upper_bounds pre-pass and segmented_reduce_tiles; ``segments``: a block per segment,
segmented_reduce_segments), CUB's segmented_reduce. Prints the medians in ms, the public call's
read rate as a share of the copy rate, and the public call over CUB (the issue's figure: <= 1.0
for equal).

Then the sweep behind the policy's ``per_segment_from``: over the same 2^28 elements, segments of
mean length L = 2^7 .. 2^14, equal and ragged (uniform in 0 .. 2L), each kind's launches and CUB,
interleaved; the kind with the lower time per L (the threshold is the L from which ``segments``
wins).
"""

import sys

import numpy as np

import primitives as prim
from primitives._core import backend as _backend, timing as _timing
from primitives.testing import peers

backend = _backend.get_backend()
cupy = backend.xp  # CuPy on a GPU, NumPy on the emulator (a check of the probe at small n)
ROUNDS = (
    dict(rounds=5, warmup=5, repeat=20) if backend.is_cuda else dict(rounds=1, warmup=0, repeat=1)
)


def layouts(n, rng):
    cols = 1 << 12
    rows = n // cols
    equal = np.arange(0, n + 1, cols, dtype=np.int64)
    lens = rng.integers(0, 129, n >> 6)
    ragged = np.minimum(np.concatenate([[0], np.cumsum(lens)]), n).astype(np.int64)
    big = n >> 1
    rest = np.linspace(big, n, rows, dtype=np.int64)  # rows - 1 segments after the big one
    skewed = np.concatenate([[0], rest]).astype(np.int64)
    assert equal.size == skewed.size == rows + 1
    return {"equal": equal, "ragged": ragged, "skewed": skewed}


def kind_plan(x, off, kind):
    """The library's plan for (x, off) made with one kernel kind forced."""
    field = {"tiles": 0, "segments": 1}[kind]
    with prim.tuning.override("segmented", selector="reduce", per_segment_from=field):
        return prim.plan(prim.segmented_reduce, x, off, check=False).core


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    runs = int(args[0]) if args else 1
    n = 1 << (int(args[1]) if len(args) > 1 else 28)
    rng = np.random.default_rng(11)
    copy = _timing.copy_bandwidth(n * 4) if backend.is_cuda else float("nan")
    print(f"copy rate {copy:.0f} GB/s (read + write)", flush=True)
    x = cupy.asarray(rng.random(n, dtype=np.float32) + np.float32(0.5))
    csum = cupy.concatenate([cupy.zeros(1), cupy.cumsum(x, dtype=np.float64)])
    for name, off_h in layouts(n, rng).items():
        m = int(off_h[-1])
        y = x[:m]
        off = cupy.asarray(off_h)
        want = csum[off[1:]] - csum[off[:-1]]
        nseg = off.size - 1
        planned = prim.plan(prim.segmented_reduce, y, off, check=False)
        plan = planned.core
        fns = {
            "public": lambda: prim.segmented_reduce(y, off, check=False),
            "prim.plan": lambda: planned(y, off),
            f"plan ({type(plan).__name__})": lambda: plan(y, off),
        }
        for kind in ("tiles", "segments"):
            p = kind_plan(y, off, kind)
            fns[f"{kind} launches"] = lambda p=p: p(y, off)
        if backend.is_cuda and peers.cub() is not None:
            fns["CUB"] = peers.cub_segmented_reduce(y, off, "sum", cupy.empty(nseg, np.float32))
        else:
            print(f"CUB peer unavailable: {peers.cub_error or 'no GPU'}", flush=True)
        for what, fn in fns.items():
            got = fn()
            rel = float(cupy.max(cupy.abs(got - want) / cupy.maximum(cupy.abs(want), 1)))
            assert rel < 1e-4, f"{name} {what}: relative error {rel}"
        for run in range(runs):
            t = _timing.bench_many(fns, **ROUNDS)
            pct = 100 * (m * 4 / (t["public"] * 1e-3) / 1e9) / (copy / 2)
            line = ", ".join(f"{k} {ms:.4f}" for k, ms in t.items())
            ratio = (
                f" | public / CUB {t['public'] / t['CUB']:.3f}, prim.plan / CUB "
                f"{t['prim.plan'] / t['CUB']:.3f}"
                if "CUB" in t
                else ""
            )
            print(
                f"{name} ({nseg} segments, n={m}) run {run}: {line} ms | public reads at "
                f"{pct:.1f}% of copy{ratio}",
                flush=True,
            )
    if "--no-sweep" not in argv:
        sweep(x, rng)


def sweep(x, rng):
    n = x.size
    for log2 in range(7, min(15, n.bit_length())):
        mean = 1 << log2
        for shape in ("equal", "ragged"):
            if shape == "equal":
                off_h = np.arange(0, n + 1, mean, dtype=np.int64)
            else:
                lens = rng.integers(0, 2 * mean + 1, n // mean)
                off_h = np.minimum(np.concatenate([[0], np.cumsum(lens)]), n).astype(np.int64)
                off_h[-1] = n
            off = cupy.asarray(off_h)
            fns = {
                kind: (lambda p=kind_plan(x, off, kind): p(x, off))
                for kind in ("tiles", "segments")
            }
            if backend.is_cuda and peers.cub() is not None:
                fns["CUB"] = peers.cub_segmented_reduce(
                    x, off, "sum", cupy.empty(off.size - 1, np.float32)
                )
            ref = fns["tiles"]()
            got = fns["segments"]()
            rel = float(cupy.max(cupy.abs(got - ref) / cupy.maximum(cupy.abs(ref), 1)))
            assert rel < 1e-4, f"sweep {shape} {mean}: tiles and segments differ by {rel}"
            t = _timing.bench_many(fns, **ROUNDS)
            best = min(("tiles", "segments"), key=t.get)
            print(
                f"sweep {shape} mean {mean}: "
                + ", ".join(f"{k} {ms:.4f}" for k, ms in t.items())
                + f" ms | {best} wins",
                flush=True,
            )


if __name__ == "__main__":
    main(sys.argv[1:])

"""Where the GPU time of one onesweep sort goes, block by block (GPU only).

    python -m tools.probes.timeline [--sorts K] [--keys DISTRIBUTION]

The library's histogram, plan and pass kernels are compiled from a copy of the kernel tree in
which every block notes, by thread 0, the global timer when it starts and when it ends (one
atomic and three stores per block), and swapped in for the library's own. Each of K sorts of
2^27 uint32 keys (after warm-up; uniform, or another 4-byte integer distribution of the sort's
key suite, ``primitives.testing.workloads.sorting``: "each bit set with p = 1/8", "Zipf(1.2)")
gives, per kernel: its blocks, its span (first block start to
last block end), the median block time, the most blocks in flight at once, how much of span x
that count the blocks filled, the last block's time (its start to the kernel's end), the gap
from the previous kernel's last block end to its first block start, and the slot time lost at
the start (ramp: the first blocks' starts after the first, summed, over the blocks in flight)
and at the end (tail: the last blocks' ends before the last, likewise); for a pass also the time
of the block that ran the input's last tile (a partial one where n is not a whole number of
tiles) and the tile the last-started block drew in each sort. Medians over the sorts.
The stamps' barrier makes each block a little longer, and the global timer ticks coarsely
(about 1 us on an H100): the figures are good to a microsecond.
"""

import statistics
import sys

import cupy
import numpy as np

import primitives as prim
from primitives._core import backend as _backend, loader as _loader
from primitives.sorting import _kernels
from primitives.testing.workloads import sorting as spec
from tools import _patched

SLOTS = 1 << 16
STAMPS = r"""
__device__ unsigned long long tl_buf[3 * 65536];
__device__ unsigned tl_n;
__device__ __forceinline__ unsigned long long tl_now() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ __forceinline__ void tl_note(unsigned long long tag, unsigned long long t0) {
    if (threadIdx.x == 0) {
        const unsigned s = atomicAdd(&tl_n, 1u);
        if (s < 65536u) {
            tl_buf[3 * s] = tag;
            tl_buf[3 * s + 1] = t0;
            tl_buf[3 * s + 2] = tl_now();
        }
    }
}
"""
EDITS = {
    "sorting/onesweep.cu": [
        ('#include "sorting/radix.cuh"\n', '#include "sorting/radix.cuh"\n' + STAMPS),
        # histogram: tag 0
        (
            "    PRIM_DYNAMIC_SHARED(unsigned, counters);  // H::WORDS words (see OsHist)\n",
            "    PRIM_DYNAMIC_SHARED(unsigned, counters);  // H::WORDS words (see OsHist)\n"
            "    const unsigned long long tl_t0 = tl_now();\n",
        ),
        (
            "        if (H::PER_WORD == 2 && hi) atomicAdd(&hist[(p + 1) * os::RADIX + d], hi);\n"
            "    }\n}\n",
            "        if (H::PER_WORD == 2 && hi) atomicAdd(&hist[(p + 1) * os::RADIX + d], hi);\n"
            "    }\n    __syncthreads();\n    tl_note(0, tl_t0);\n}\n",
        ),
        # plan: tag 1
        (
            "    const int d = threadIdx.x;\n    if (d < 8) top[d] = 0ull;\n",
            "    const int d = threadIdx.x;\n    const unsigned long long tl_t0 = tl_now();\n"
            "    if (d < 8) top[d] = 0ull;\n",
        ),
        (
            "        *launches = epoch0 + runs;\n    }\n}\n",
            "        *launches = epoch0 + runs;\n    }\n    __syncthreads();\n    tl_note(1, tl_t0);\n}\n",
        ),
        # pass: tag 2 + the digit's position
        (
            "    if (row[0] == 0) return;",
            "    const unsigned long long tl_t0 = tl_now();\n"
            "    if (row[0] == 0) { tl_note(2 + shift / 8, tl_t0); return; }",
        ),
        (  # the end of onesweep_pass (its last ranking method's call)
            "            t, TILE);\n}\n",
            "            t, TILE);\n    __syncthreads();\n"
            "    tl_note((2 + shift / 8) | (static_cast<unsigned long long>(tile) << 8), tl_t0);\n}\n",
        ),
    ]
}
NAMES = {0: "histogram", 1: "plan"}


def in_flight_max(starts, ends):
    """The most blocks in flight at once."""
    ev = sorted([(s, 1) for s in starts] + [(e, -1) for e in ends], key=lambda t: (t[0], t[1]))
    now = best = 0
    for _, d in ev:
        now += d
        best = max(best, now)
    return best


def one_sort(fn, buf, count):
    count.fill(0)
    fn()
    cupy.cuda.Device().synchronize()
    k = min(int(count.get()[0]), SLOTS)
    rows = buf[: 3 * k].get().reshape(-1, 3).astype(np.int64)
    t0 = rows[:, 1].min()
    out = []
    prev_end = None
    kernel, tile = rows[:, 0] & 255, rows[:, 0] >> 8  # a pass block's tag carries its tile
    for tag in sorted(set(kernel.tolist())):
        r, tiles = rows[kernel == tag], tile[kernel == tag]
        s, e = (r[:, 1] - t0) / 1e3, (r[:, 2] - t0) / 1e3  # us
        span = e.max() - s.min()
        conc = in_flight_max(s.tolist(), e.tolist())
        fill = float((e - s).sum() / (span * conc)) if span > 0 else 1.0
        k = min(conc, len(r))
        ramp = float(np.sort(s)[:k].sum() - k * s.min()) / conc  # slots idle at the start
        tail = float(k * e.max() - np.sort(e)[-k:].sum()) / conc  # slots idle at the end
        out.append(
            (
                tag,
                len(r),
                span,
                float(np.median(e - s)),
                conc,
                fill,
                e.max() - s.max(),
                None if prev_end is None else s.min() - prev_end,
                ramp,
                tail,
                float((e - s)[tiles == tiles.max()].max()),  # the last tile's block
                int(tiles[np.argmax(s)]),  # the tile of the block that started last
            )
        )
        prev_end = e.max()
    return out, prev_end


def main(argv):
    sorts = int(argv[argv.index("--sorts") + 1]) if "--sorts" in argv else 10
    keys = argv[argv.index("--keys") + 1] if "--keys" in argv else "uniform uint32"
    x = spec.distribution(keys, 1 << 27, cupy, seed=5)
    if x.dtype != np.uint32:
        raise SystemExit(
            f"timeline: uint32 keys only (the patched kernels'), {keys!r} is {x.dtype}"
        )
    be = _backend.get_backend()
    cfg = (4, 0)
    names = [
        _kernels.pass_name(*cfg, prim.tuning.policy("sort", cfg)),
        _kernels.ONESWEEP_PLAN,
        _kernels.hist_name(4, prim.tuning.policy("sort", "histogram")),
    ]
    mod = _patched.patched_module(_kernels.ONESWEEP, names, EDITS)
    ks = {nm: _loader.Kernel(mod.get_function(nm), nm, be) for nm in names}
    buf = cupy.ndarray((3 * SLOTS,), np.uint64, mod.get_global("tl_buf"))
    count = cupy.ndarray((1,), np.uint32, mod.get_global("tl_n"))
    with _patched.swapped_kernels(_kernels, _kernels.ONESWEEP, ks):
        assert bool(cupy.array_equal(prim.sort(x), cupy.sort(x)))
        for _ in range(3):
            one_sort(lambda: prim.sort(x), buf, count)
        runs = [one_sort(lambda: prim.sort(x), buf, count) for _ in range(sorts)]
    print(
        f"{keys} keys, 2^27, {sorts} sorts (medians): first block start to last block end "
        f"{statistics.median(r[1] for r in runs):.1f} us"
    )
    print(
        "| kernel | blocks | span us | median block us | in flight | filled | last block us | "
        "gap before us | ramp us | tail us | last tile's block us | last-started block's tile |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for i, row in enumerate(runs[0][0]):
        tag = row[0]
        col = [[r[0][i][j] for r in runs] for j in range(len(row))]
        med = [statistics.median(c) if c[0] is not None else None for c in col]
        name = NAMES.get(tag, f"pass {tag - 2}")
        gap = "-" if med[7] is None else f"{med[7]:.1f}"
        # a pass's blocks carry their tile (the tiles 0 .. blocks - 1): the last tile's block
        # time, and which tile the block that started last drew in each sort
        last = "-" if tag in NAMES else f"{med[10]:.1f}"
        drew = "-" if tag in NAMES else ", ".join(str(r[0][i][11]) for r in runs)
        print(
            f"| {name} | {row[1]} | {med[2]:.1f} | {med[3]:.2f} | {med[4]:.0f} | "
            f"{med[5]:.3f} | {med[6]:.1f} | {gap} | {med[8]:.1f} | {med[9]:.1f} | {last} | "
            f"{drew} |",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])

"""Where the GPU time of one onesweep sort goes, block by block (GPU only).

    python -m tools.probes.timeline [--sorts K] [--keys DISTRIBUTION] [--n N] [--values]
        [--set FIELD=VALUE ...]

The library's histogram, plan and pass kernels are compiled from a copy of the kernel tree in
which every block notes, by thread 0, the global timer when it starts and when it ends (one
atomic and six stores per block), and swapped in for the library's own. Each of K sorts of
N (2^27) uint32 keys (after warm-up; uniform, or another 4-byte integer distribution of the sort's
key suite, ``primitives.testing.workloads.sorting``: "each bit set with p = 1/8", "Zipf(1.2)"),
with ``--values`` the same keys with uint32 values (the pairs' pass), under the 4-byte keys' (or
the pairs') policy with the fields ``--set`` names replaced (``match=1``), gives, per
kernel: its blocks, its span (first block start to
last block end), the median block time, the most blocks in flight at once, how much of span x
that count the blocks filled, the last block's time (its start to the kernel's end), the gap
from the previous kernel's last block end to its first block start, and the slot time lost at
the start (ramp: the first blocks' starts after the first, summed, over the blocks in flight)
and at the end (tail: the last blocks' ends before the last, likewise); for a pass also the time
of the block that ran the input's last tile (a partial one where n is not a whole number of
tiles) and the tile the last-started block drew in each sort. A second table splits a pass's
tile into its phases, for the median tile and for the last tile's block: loading and counting
(to the count's closing barrier), ranking (a barrier added after it), the look-back (to the
barrier before the scatter) and the scatter. Medians over the sorts.
The stamps' barriers make each block a little longer, and the global timer ticks coarsely
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
__device__ unsigned long long tl_buf[6 * 65536];
__device__ unsigned tl_n;
__shared__ unsigned long long tl_ph[3];
__device__ __forceinline__ unsigned long long tl_now() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ __forceinline__ void tl_note(unsigned long long tag, unsigned long long t0,
                                        bool phases = false) {
    if (threadIdx.x == 0) {
        const unsigned s = atomicAdd(&tl_n, 1u);
        if (s < 65536u) {
            const unsigned long long t = tl_now();
            tl_buf[6 * s] = tag;
            tl_buf[6 * s + 1] = t0;
            for (int i = 0; i < 3; ++i) tl_buf[6 * s + 2 + i] = phases ? tl_ph[i] : t;
            tl_buf[6 * s + 5] = t;
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
            "        launches[1] = epochs[1];\n    }\n}\n",
            "        launches[1] = epochs[1];\n    }\n    __syncthreads();\n    tl_note(1, tl_t0);\n}\n",
        ),
        # pass: tag 2 + the digit's position
        (
            "    if (row[0] == 0) return;",
            "    const unsigned long long tl_t0 = tl_now();\n"
            "    if (row[0] == 0) { tl_note(2 + shift / 8, tl_t0); return; }",
        ),
        (  # the end of onesweep_pass (its last ranking method's call)
            "REREAD>(t, TILE);\n}\n",
            "REREAD>(t, TILE);\n    __syncthreads();\n"
            "    tl_note((2 + shift / 8) | (static_cast<unsigned long long>(tile) << 8), tl_t0, "
            "true);\n}\n",
        ),
        # a tile's phases: loaded and counted | ranked (a barrier added) | looked back | scattered
        (
            "    // the tile's digit counts are known before its keys are ranked: publish them at once\n",
            "    if (threadIdx.x == 0) tl_ph[0] = tl_now();\n"
            "    // the tile's digit counts are known before its keys are ranked: publish them at once\n",
        ),
        (
            "    if (threadIdx.x < os::RADIX) {\n        unsigned before = 0;\n",
            "    __syncthreads();\n    if (threadIdx.x == 0) tl_ph[1] = tl_now();\n"
            "    if (threadIdx.x < os::RADIX) {\n        unsigned before = 0;\n",
        ),
        (
            "    __syncthreads();\n    scatter_tile<U, V, VALUES, BLOCK, ITEMS, FULL>(",
            "    __syncthreads();\n    if (threadIdx.x == 0) tl_ph[2] = tl_now();\n"
            "    scatter_tile<U, V, VALUES, BLOCK, ITEMS, FULL>(",
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
    rows = buf[: 6 * k].get().reshape(-1, 6).astype(np.int64)
    t0 = rows[:, 1].min()
    out = []
    prev_end = None
    kernel, tile = rows[:, 0] & 255, rows[:, 0] >> 8  # a pass block's tag carries its tile
    for tag in sorted(set(kernel.tolist())):
        r, tiles = rows[kernel == tag], tile[kernel == tag]
        s, e = (r[:, 1] - t0) / 1e3, (r[:, 5] - t0) / 1e3  # us
        ph = np.diff(r[:, 1:6], axis=1) / 1e3  # a pass tile's phases, us
        lastp = ph[tiles == tiles.max()][np.argmax((e - s)[tiles == tiles.max()])]
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
                tuple(float(v) for v in np.median(ph, axis=0)),  # the median phases
                tuple(float(v) for v in lastp),  # the last tile's phases
            )
        )
        prev_end = e.max()
    return out, prev_end


def main(argv):
    sorts = int(argv[argv.index("--sorts") + 1]) if "--sorts" in argv else 10
    keys = argv[argv.index("--keys") + 1] if "--keys" in argv else "uniform uint32"
    n = int(argv[argv.index("--n") + 1]) if "--n" in argv else 1 << 27
    fields = {}
    for i, a in enumerate(argv):
        if a == "--set":
            name, value = argv[i + 1].split("=")
            fields[name] = int(value)
    values = "--values" in argv
    with prim.tuning.override("sort", selector=(4, 4) if values else (4, 0), **fields):
        run(sorts, keys, n, fields, values)


def run(sorts, keys, n, fields, values=False):
    x = spec.distribution(keys, n, cupy, seed=5)
    if x.dtype != np.uint32:
        raise SystemExit(
            f"timeline: uint32 keys only (the patched kernels'), {keys!r} is {x.dtype}"
        )
    be = _backend.get_backend()
    cfg = (4, 4) if values else (4, 0)
    names = [
        _kernels.pass_name(*cfg, prim.tuning.policy("sort", cfg)),
        _kernels.ONESWEEP_PLAN,
        _kernels.hist_name(4, prim.tuning.policy("sort", "histogram")),
    ]
    mod = _patched.patched_module(_kernels.ONESWEEP, names, EDITS)
    ks = {nm: _loader.Kernel(mod.get_function(nm), nm, be) for nm in names}
    buf = cupy.ndarray((6 * SLOTS,), np.uint64, mod.get_global("tl_buf"))
    count = cupy.ndarray((1,), np.uint32, mod.get_global("tl_n"))
    if values:  # the pairs: values n - 1 - i, so each sorted value tells its key's place
        v = cupy.arange(n, dtype=np.uint32)[::-1].copy()

        def fn():
            return prim.radix_sort(x, v)
    else:

        def fn():
            return prim.sort(x)

    with _patched.swapped_kernels(_kernels, _kernels.ONESWEEP, ks):
        out = fn()
        srt = cupy.sort(x)
        if values:
            place = (n - 1) - out[1].astype(np.int64)
            assert bool(cupy.array_equal(out[0], srt)) and bool(cupy.array_equal(x[place], srt))
            assert bool(((srt[1:] != srt[:-1]) | (place[1:] > place[:-1])).all()), "not stable"
        else:
            assert bool(cupy.array_equal(out, srt))
        del out, srt
        for _ in range(3):
            one_sort(fn, buf, count)
        runs = [one_sort(fn, buf, count) for _ in range(sorts)]
    print(
        f"{keys} keys{' with uint32 values' if values else ''}, n = {n}, "
        f"{fields or 'the policy'}, {sorts} sorts (medians): first block "
        "start to last block end "
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
    print(
        "\n| pass | median tile: load + count / rank / look-back / scatter us | "
        "last tile's block: the same |"
    )
    print("|---|---|---|")
    for i, row in enumerate(runs[0][0]):
        if row[0] in NAMES:
            continue
        med = [[statistics.median(r[0][i][j][q] for r in runs) for q in range(4)] for j in (12, 13)]
        cells = [" / ".join(f"{v:.2f}" for v in m) for m in med]
        print(f"| {row[0] - 2} | {cells[0]} | {cells[1]} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

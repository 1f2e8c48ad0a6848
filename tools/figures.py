"""Measure the performance figures of docs/performance.md against the peers, in one run.

    python tools/figures.py [--family NAME ...] [--out FILE]

Each family's measurements live in ``tools/figures_<family>.py`` as ``run(ctx)``; ``ctx`` (a
:class:`Context`) gives the measured copy bandwidth, interleaved timing, the CUB module (or None)
and Markdown output. Needs a GPU, CuPy, and for the CUB columns ``cuda-cccl``'s ``cuda.compute``.
Every timing is the median of per-call CUDA-event times after warm-up, the contenders of one row
measured in interleaved rounds (:func:`primitives._core.timing.bench_many`) on random data; each
result is checked against the NumPy oracle before it is timed. Ratios are within this one run.
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import primitives as prim  # noqa: E402
from primitives._core import backend as _backend, timing as _timing  # noqa: E402

FAMILIES = ["reduction", "spmv", "scan", "histogram", "sort"]
REPS = {"rounds": 5, "warmup": 5, "repeat": 20}


class Context:
    def __init__(self, copy_gbs, cc):
        self.copy = copy_gbs
        self.cc = cc  # cuda.compute or None
        self.lines = []

    def bench(self, fns, **kw):
        """Interleaved medians (ms) of the callables in ``fns`` (name -> callable)."""
        return _timing.bench_many(fns, **{**REPS, **kw})

    def table(self, header):
        """Start a Markdown table with the given column names."""
        self.lines += ["", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]

    def add(self, *cells):
        self.lines.append("| " + " | ".join(str(c) for c in cells) + " |")
        print(self.lines[-1], flush=True)

    def peer_table(self):
        self.table(["work", "n", "primitives ms", "peer", "peer ms", "ratio (ours/peer)",
                    "GB/s", "% copy"])

    def peer_row(self, work, n, ours_ms, nbytes, peer, peer_ms):
        """A row of the peer table: ``nbytes`` is what the operation must move at least once."""
        gbs = nbytes / (ours_ms * 1e-3) / 1e9
        self.add(work, f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else n, f"{ours_ms:.4f}",
                 peer, f"{peer_ms:.4f}", f"{ours_ms / peer_ms:.3f}", f"{gbs:.0f}",
                 f"{100 * gbs / self.copy:.1f}%")


def _commit():
    """The checkout's commit, only when this source tree is the checkout itself (an exported
    tree inside another checkout must not report that checkout's HEAD)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    def git(*args):
        return subprocess.run(["git", "-C", root, *args], capture_output=True,
                              text=True).stdout.strip()

    if os.path.realpath(git("rev-parse", "--show-toplevel") or "/nonexistent") != \
            os.path.realpath(root):
        return "(tree without git metadata)"
    return git("rev-parse", "--short", "HEAD")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--family", action="append", choices=FAMILIES)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    import cupy

    assert _backend.get_backend().is_cuda, "figures need the CUDA backend"
    info = prim.backend_info()
    commit = _commit()
    try:
        import cuda.compute as cc
    except Exception as exc:  # report, keep going without the CUB columns
        cc = None
        print(f"cuda.compute unavailable: {exc}", file=sys.stderr)
    ctx = Context(_timing.copy_bandwidth(1 << 31), cc)
    ctx.lines += [f"device: {info['device']} ({info['sm_count']} SMs), CuPy {cupy.__version__}, "
                  f"commit {commit}",
                  f"measured copy bandwidth (read + write, 2 GiB): {ctx.copy:.0f} GB/s"]
    for family in args.family or FAMILIES:
        ctx.lines += ["", f"## {family}"]
        importlib.import_module(f"figures_{family}").run(ctx)
    text = "\n".join(ctx.lines)
    print("\n" + text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()

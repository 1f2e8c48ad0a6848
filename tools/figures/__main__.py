"""``python -m tools.figures``: see :mod:`tools.figures`."""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys

import primitives as prim
from primitives._core import backend as _backend, registry as _registry, timing as _timing
from primitives.testing import peers
from tools.figures import Context, write_csv


def _commit():
    """The checkout's commit, only when this source tree is the checkout itself (an exported
    tree inside another checkout must not report that checkout's HEAD)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

    def git(*args):
        return subprocess.run(["git", "-C", root, *args], capture_output=True,
                              text=True).stdout.strip()

    if os.path.realpath(git("rev-parse", "--show-toplevel") or "/nonexistent") != \
            os.path.realpath(root):
        return "(tree without git metadata)"
    return git("rev-parse", "--short", "HEAD")


def families():
    """The registered families that have figures, in the registry's order."""
    return [f.name for f in _registry.FAMILIES if f.figures]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.figures")
    ap.add_argument("--family", action="append", choices=families())
    ap.add_argument("--out", default=None, help="the Markdown tables")
    ap.add_argument("--csv", default=None, help="every peer row as CSV (docs' figures)")
    args = ap.parse_args(argv)
    import cupy

    assert _backend.get_backend().is_cuda, "figures need the CUDA backend"
    info = prim.backend_info()
    commit = _commit()
    cc = peers.cub()
    if cc is None:  # report, keep going without the CUB columns
        print(f"cuda.compute unavailable: {peers.cub_error}", file=sys.stderr)
    ctx = Context(_timing.copy_bandwidth(1 << 31), cc)
    ctx.lines += [f"device: {info['device']} ({info['sm_count']} SMs), CuPy {cupy.__version__}, "
                  f"commit {commit}",
                  f"measured copy bandwidth (read + write, 2 GiB): {ctx.copy:.0f} GB/s"]
    for family in args.family or families():
        ctx.lines += ["", f"## {family}"]
        ctx.family = family
        importlib.import_module(f"tools.figures.{_registry.family(family).figures}").run(ctx)
    text = "\n".join(ctx.lines)
    print("\n" + text)
    if args.csv:
        write_csv(args.csv, ctx.records, ctx.lines[:2])
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()

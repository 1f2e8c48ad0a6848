"""Register spills of the library's kernel instantiations, without a GPU: each kernel file's
registered instantiations compiled through NVRTC to PTX in one program, then assembled by the
toolkit's ptxas with ``-v``, which reports each kernel's registers and spill bytes.

    python -m tools.probes.spills [--arch sm_90] [--candidates] [--all] [FILE ...]

``FILE``: kernel files under kernels/ (``sorting/onesweep.cu``); every registered file by
default. ``--candidates`` adds the tuning candidates' instantiations to the shipped ones.
Prints, per file, how many kernels it compiled and how many spill, then one line per spilling
kernel (its name expression, registers, spill stores and loads); ``--all`` prints every kernel.
A spill is where a kernel's registers ran out (the launch bounds cap them: 1,024 threads and two
blocks an SM leave 32 a thread): loads and stores to local memory, in the L1 when they hit.
Whether it costs time is a GPU's question; this finds where to look. ptxas is the toolkit's
(the PATH, else ``$CUDA_HOME/bin``, ``$CUDA_PATH/bin`` or ``/usr/local/cuda/bin``): the NVRTC
the library loads writes the PTX, so the figures are those of the GPU's build up to the
assembler's version.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

from primitives._core import binaries, loader, nvrtc
from tools import _toolkit

_ENTRY = re.compile(r"Compiling entry function '(\w+)'")
_PROPS = re.compile(r"Function properties for (\w+)")
_SPILL = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")
_REGS = re.compile(r"Used (\d+) registers")


def ptxas():
    """The toolkit's ptxas (PATH, or ``$CUDA_HOME/bin``: tools._toolkit), or None."""
    return _toolkit.find("ptxas", ("{cuda}/bin/ptxas",))


def parse(log, lowered):
    """{name expression: (registers, spill store bytes, spill load bytes)} from ptxas -v's log
    (``lowered``: name expression -> mangled name, NVRTC's)."""
    names = {low: name for name, low in lowered.items()}
    out, entry, props, spill = {}, None, None, None
    for line in log.splitlines():
        m = _ENTRY.search(line)
        if m:
            entry, spill = m.group(1), None
            continue
        m = _PROPS.search(line)
        if m:  # the entry's own, or a function it calls (not inlined), which has its own
            props = m.group(1)
            continue
        m = _SPILL.search(line)
        if m and entry is not None and props == entry:
            spill = (int(m.group(1)), int(m.group(2)))
        m = _REGS.search(line)
        if m and entry is not None and spill is not None:
            out[names.get(entry, entry)] = (int(m.group(1)), *spill)
            entry = None
    return out


def file_spills(relpath, names, arch, tool):
    """{name expression: (registers, spill stores, spill loads)} of ``names`` in ``relpath``."""
    ptx, lowered = nvrtc.compile_binary(
        loader.source(relpath),
        sorted(names),
        arch="compute_" + arch.removeprefix("sm_"),
        options=loader.nvrtc_options(),
        filename=os.path.basename(relpath),
    )
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "k.ptx")
        with open(src, "wb") as f:
            f.write(ptx.rstrip(b"\0"))
        run = subprocess.run(
            [tool, f"-arch={arch}", "-v", src, "-o", os.path.join(tmp, "k.cubin")],
            capture_output=True,
            text=True,
        )
    if run.returncode != 0:
        raise RuntimeError(f"ptxas failed on {relpath}:\n{run.stderr[-2000:]}")
    return parse(run.stderr, lowered)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.probes.spills")
    ap.add_argument("files", nargs="*", help="kernel files under kernels/ (default: all)")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--candidates", action="store_true", help="the tuning candidates too")
    ap.add_argument("--all", action="store_true", help="print every kernel, not only spills")
    args = ap.parse_args(argv)
    tool = ptxas()
    if tool is None:
        print("python -m tools.probes.spills: no ptxas found (CUDA_HOME?)", file=sys.stderr)
        return 2
    binaries._register_all()
    modules = loader.registered_modules(candidates=args.candidates)
    unknown = [f for f in args.files if f not in modules]
    if unknown:
        print(f"python -m tools.probes.spills: no kernels registered in {unknown}", file=sys.stderr)
        return 2
    total = spilling = 0
    for rel in args.files or sorted(modules):
        res = file_spills(rel, modules[rel], args.arch, tool)
        bad = {k: v for k, v in res.items() if v[1] or v[2]}
        total, spilling = total + len(res), spilling + len(bad)
        print(f"{rel}: {len(res)} kernels, {len(bad)} spilling", flush=True)
        for name, (regs, st, ld) in sorted(res.items() if args.all else bad.items()):
            print(f"    {name}: {regs} registers, {st} bytes spill stores, {ld} bytes spill loads")
    print(f"{total} kernels, {spilling} spilling ({args.arch}, {tool})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

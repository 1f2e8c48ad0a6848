"""Build the package's wheel with the kernel binaries in it: the first call of a function then
loads its kernels instead of compiling them (primitives._core.binaries).

    python tools/build_wheel.py [--out dist] [--jobs N] [--arch sm_80 sm_90 compute_90]
                                [--only FILE ...]

No GPU is needed, NVRTC only (the test extra brings it: nvidia-cuda-nvrtc-cu12). The tool copies
the package's sources (primitives/, kernels/ and the build files) into a temporary folder, so the
binaries and the wheel come from one snapshot of the tree and nothing is written into it; compiles
every registered kernel instantiation there (``python -m primitives._core.binaries build``: a
cubin for sm_80 and sm_90 and PTX for compute_90, in a process per CPU); then builds the wheel of
that copy with the binaries in primitives/_bin/ (setup.py packs the folder
``$PRIMITIVES_WHEEL_BINARIES``), and checks that the wheel's index matches its sources.
``--only FILE`` builds the binaries of those kernel sources alone (a quick wheel for a test).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
#: what a wheel is built from, beside the two folders
BUILD_FILES = ("setup.py", "pyproject.toml", "README.md", "LICENSE")
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "_bin", "*.egg-info", "build")


def stage(dest: pathlib.Path) -> pathlib.Path:
    """A copy of the files the wheel is built from, in ``dest/src``."""
    src = dest / "src"
    for folder in ("primitives", "kernels"):
        shutil.copytree(ROOT / folder, src / folder, ignore=IGNORE)
    for name in BUILD_FILES:
        if (ROOT / name).is_file():
            shutil.copy2(ROOT / name, src / name)
    return src


def build_key(src: pathlib.Path) -> str:
    """The binaries' build key of the package in ``src`` (primitives._core.binaries.build_key)."""
    code = "from primitives._core import binaries; print(binaries.build_key())"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=src, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python tools/build_wheel.py", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--out", default=str(ROOT / "dist"), help="folder of the wheel (dist/)")
    ap.add_argument("--jobs", type=int, default=None, help="compiler processes (default: CPUs)")
    ap.add_argument("--arch", nargs="+", default=None, help="images (sm_80 sm_90 compute_90)")
    ap.add_argument("--only", action="append", metavar="FILE", help="just this kernel source")
    ap.add_argument("--quiet", action="store_true", help="no line per compiled image")
    args = ap.parse_args(argv)
    out = pathlib.Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="prim-wheel-") as tmp:
        src = stage(pathlib.Path(tmp))
        binaries = pathlib.Path(tmp) / "bin"
        cmd = [sys.executable, "-m", "primitives._core.binaries", "build", "--out", str(binaries)]
        if args.jobs:
            cmd += ["--jobs", str(args.jobs)]
        if args.arch:
            cmd += ["--arch", *args.arch]
        for f in args.only or ():
            cmd += ["--only", f]
        subprocess.run(cmd, cwd=src, check=True, stdout=subprocess.DEVNULL if args.quiet else None)
        t1 = time.perf_counter()
        before = set(out.glob("*.whl"))
        pip = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
            + ["-w", str(out), str(src)],
            env={**os.environ, "PRIMITIVES_WHEEL_BINARIES": str(binaries)},
            capture_output=True,
            text=True,
        )
        if pip.returncode != 0:  # setuptools' warnings are shown only then
            sys.stderr.write(pip.stdout + pip.stderr)
            raise SystemExit(f"pip wheel failed ({pip.returncode})")
        wheels = (
            sorted(set(out.glob("*.whl")) - before)
            or sorted(out.glob("primitives-*.whl"), key=lambda p: p.stat().st_mtime)[-1:]
        )
        wheel = wheels[-1]
        with zipfile.ZipFile(wheel) as z:
            idx = json.loads(z.read("primitives/_bin/index.json"))
            images = [n for n in z.namelist() if n.startswith("primitives/_bin/")]
        if idx["build_key"] != build_key(src):
            raise SystemExit(f"{wheel}: its binaries' index does not match its sources")
    n = sum(len(m["lowered"]) for m in idx["modules"].values())
    print(
        f"{wheel}: {wheel.stat().st_size / 2**20:.1f} MiB, {n} instantiations of "
        f"{len(idx['modules'])} files, {len(images) - 1} images for {' '.join(idx['archs'])}; "
        f"binaries {t1 - t0:.0f} s, wheel {time.perf_counter() - t1:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

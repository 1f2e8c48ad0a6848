"""Kernel binaries built ahead of time: no compile pause on the first call of a function.

The CUDA backend compiles a kernel with NVRTC the first time a call needs it (then an on-disk
cache keeps it: :func:`primitives._core.loader.compile_alone`). A build of the package can
instead carry every instantiation the library can launch already compiled: one cubin per kernel
source file and real architecture (``sm_80``, which serves every 8.x GPU, and ``sm_90``) and PTX
for a virtual one (``compute_90``, which the driver compiles once for GPUs newer than the
cubins), in ``primitives/_bin/`` with an ``index.json`` that maps each name expression to its
lowered (mangled) name.

The loader (:func:`primitives._core.loader.load`) asks :func:`find` first; a module whose source
file, instantiations and device have a binary is loaded from it, anything else is compiled as
before. The index holds the hash of the ``kernels/`` tree the binaries were built from: after any
edit of a kernel source they are stale and never loaded. A binary that fails to load falls back to
compiling, with a warning.

Build them (on any machine with NVRTC, no GPU needed) before building the wheel::

    python -m primitives._core.binaries build [--arch sm_80 sm_90 compute_90] [--jobs N]

``PRIMITIVES_KERNEL_BINARIES``: another directory to read them from, or ``off`` to ignore them.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import functools
import importlib
import json
import multiprocessing
import os
import pathlib
import sys
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeAlias

__all__ = ["ARCHS", "binaries_dir", "index", "find", "pick_arch", "build", "main"]

#: the images a build makes by default: cubins for the real architectures, PTX for the virtual one
ARCHS = ("sm_80", "sm_90", "compute_90")
FORMAT = 1
_EXT = {"sm": "cubin", "compute": "ptx"}

#: one compiled image: (source, architecture, image, {name: lowered name}, seconds)
_Compiled: TypeAlias = "tuple[str, str, bytes, dict[str, str], float]"


def binaries_dir() -> pathlib.Path | None:
    """Where the binaries are read from: ``$PRIMITIVES_KERNEL_BINARIES`` or the package's
    ``_bin/``; None when that variable is ``off``."""
    env = os.environ.get("PRIMITIVES_KERNEL_BINARIES", "")
    if env.lower() in ("off", "0", "none"):
        return None
    if env:
        return pathlib.Path(env)
    return pathlib.Path(__file__).resolve().parent.parent / "_bin"


def _image_name(slug: str, arch: str) -> str:
    return f"{slug}.{arch}.{_EXT[arch.split('_')[0]]}"


def _slug(relpath: str) -> str:
    return relpath.removesuffix(".cu").replace("/", "__")


@functools.lru_cache(maxsize=None)
def _read_index(directory: str, tree: str) -> dict[str, Any] | None:
    path = pathlib.Path(directory) / "index.json"
    try:
        idx = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if idx.get("format") != FORMAT or idx.get("tree_hash") != tree:
        return None  # built from other kernel sources: stale, never loaded
    return idx


def index() -> dict[str, Any] | None:
    """The index of the binaries in :func:`binaries_dir`, or None when there are none, they are
    switched off, or they were built from another ``kernels/`` tree."""
    from . import loader

    directory = binaries_dir()
    if directory is None:
        return None
    return _read_index(str(directory), loader.tree_hash())


def pick_arch(cc: str, archs: Iterable[str]) -> str | None:
    """The image of ``archs`` a device of compute capability ``cc`` (``"90"``, ``"86"``) runs:
    the newest cubin of its major version not newer than it, else the newest PTX not newer than
    it (the driver compiles it), else None."""
    try:
        major, minor = int(cc[:-1]), int(cc[-1])
    except (TypeError, ValueError):
        return None
    real = [
        a
        for a in archs
        if a.startswith("sm_") and a[3:].isdigit() and int(a[3:-1]) == major and int(a[-1]) <= minor
    ]
    if real:
        return max(real, key=lambda a: int(a[3:]))
    virtual = [
        a
        for a in archs
        if a.startswith("compute_") and a[8:].isdigit() and int(a[8:]) <= major * 10 + minor
    ]
    return max(virtual, key=lambda a: int(a[8:])) if virtual else None


def find(
    relpath: str, names: Collection[str], cc: str
) -> tuple[pathlib.Path, dict[str, str]] | None:
    """``(path, {name: lowered})`` of the binary that holds every instantiation in ``names`` of
    the kernel source ``relpath`` for a device of compute capability ``cc``, or None."""
    idx = index()
    if idx is None:
        return None
    mod = idx["modules"].get(relpath)
    if mod is None or not set(names) <= mod["lowered"].keys():
        return None
    arch = pick_arch(cc, idx["archs"])
    if arch is None:
        return None
    directory = binaries_dir()
    assert directory is not None  # index() found the binaries there
    path = directory / _image_name(mod["slug"], arch)
    if not path.is_file():
        return None
    return path, {n: mod["lowered"][n] for n in names}


def _compile_one(job: tuple[str, list[str], str]) -> _Compiled:
    """Worker: one source file for one architecture (NVRTC, in its own process)."""
    relpath, names, arch = job
    from . import loader, nvrtc

    opts = loader.binary_options()
    t = time.perf_counter()
    image, lowered = nvrtc.compile_binary(
        loader.source(relpath), names, arch=arch, options=opts, filename=relpath
    )
    if not arch.startswith("sm_"):
        image = image.rstrip(b"\0")  # PTX text: no terminator in the file
    return relpath, arch, image, lowered, time.perf_counter() - t


def _register_all() -> None:
    """Import every registered family's package (by name, from the registry: the core imports no
    family itself), which registers its kernel instantiations with the loader."""
    from . import registry

    for f in registry.FAMILIES:
        importlib.import_module(f.package)


def build(
    out: str | os.PathLike[str] | None = None,
    archs: Sequence[str] = ARCHS,
    jobs: int | None = None,
    modules: Mapping[str, Iterable[str]] | None = None,
    log: Callable[[str], object] | None = None,
) -> dict[str, Any]:
    """Compile every registered instantiation (or ``modules``: ``{relpath: names}``) for each of
    ``archs`` into ``out`` (default: the package's ``_bin/``), in ``jobs`` processes, and write
    its ``index.json``. Old images in ``out`` are removed first. Returns the index."""
    from . import loader, nvrtc

    _register_all()

    out = (
        pathlib.Path(out)
        if out is not None
        else (pathlib.Path(__file__).resolve().parent.parent / "_bin")
    )
    if modules is None:
        modules = loader.registered_modules()
    bad = [a for a in archs if a.split("_")[0] not in _EXT or not a.split("_")[-1].isdigit()]
    if bad:
        raise ValueError(f"build: archs must be sm_XY or compute_XY, got {bad}")
    out.mkdir(parents=True, exist_ok=True)
    for old in list(out.glob("*.cubin")) + list(out.glob("*.ptx")) + [out / "index.json"]:
        old.unlink(missing_ok=True)
    work = [(rel, list(names), arch) for rel, names in sorted(modules.items()) for arch in archs]
    # the largest files first, so that the last to finish are short
    work.sort(key=lambda j: -len(j[1]))
    idx: dict[str, Any] = {
        "format": FORMAT,
        "tree_hash": loader.tree_hash(),
        "nvrtc": list(nvrtc.version()),
        "archs": list(archs),
        "modules": {},
    }
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(work)))
    results: Iterator[_Compiled]
    if jobs == 1:
        results = map(_compile_one, work)
        pool = None
    else:
        pool = concurrent.futures.ProcessPoolExecutor(
            jobs, mp_context=multiprocessing.get_context("spawn")
        )
        results = (
            f.result()
            for f in concurrent.futures.as_completed([pool.submit(_compile_one, j) for j in work])
        )
    try:
        for relpath, arch, image, lowered, seconds in results:
            (out / _image_name(_slug(relpath), arch)).write_bytes(image)
            mod = idx["modules"].setdefault(relpath, {"slug": _slug(relpath), "lowered": lowered})
            if mod["lowered"] != lowered:
                raise RuntimeError(f"build: {relpath} lowers its names differently for {arch}")
            if log is not None:
                log(
                    f"{relpath} {arch}: {len(lowered)} kernels, {len(image) // 1024} KiB, "
                    f"{seconds:.1f} s"
                )
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    (out / "index.json").write_text(json.dumps(idx, indent=1, sort_keys=True) + "\n")
    _read_index.cache_clear()
    return idx


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m primitives._core.binaries",
        description="Build the kernel binaries shipped with the package",
    )
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="compile every instantiation into primitives/_bin/")
    b.add_argument(
        "--arch",
        nargs="+",
        default=list(ARCHS),
        help=f"images to build (default: {' '.join(ARCHS)})",
    )
    b.add_argument("--jobs", type=int, default=None, help="compiler processes (default: CPUs)")
    b.add_argument("--out", default=None, help="directory (default: the package's _bin/)")
    b.add_argument(
        "--only",
        action="append",
        metavar="FILE",
        help="just this kernel source (e.g. reduction/reduce.cu; repeatable): the "
        "index then lists these alone",
    )
    args = ap.parse_args(argv)
    modules = None
    if args.only:
        from . import loader

        _register_all()

        known = loader.registered_modules()
        unknown = [f for f in args.only if f not in known]
        if unknown:
            ap.error(f"--only: no registered kernel source {unknown}; sources: {sorted(known)}")
        modules = {f: known[f] for f in args.only}
    t = time.perf_counter()
    idx = build(args.out, tuple(args.arch), args.jobs, modules, log=lambda s: print(s, flush=True))
    n = sum(len(m["lowered"]) for m in idx["modules"].values())
    print(
        f"{n} instantiations of {len(idx['modules'])} files for {', '.join(idx['archs'])} "
        f"(NVRTC {'.'.join(map(str, idx['nvrtc']))}) in {time.perf_counter() - t:.0f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

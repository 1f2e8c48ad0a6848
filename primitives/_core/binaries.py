"""Kernel binaries built ahead of time: no compile pause on the first call of a function.

The CUDA backend compiles a kernel with NVRTC the first time a call needs it (then an on-disk
cache keeps it: :func:`primitives._core.loader.compile_alone`). A build of the package can
instead carry every instantiation the library can launch already compiled, in ``primitives/_bin/``: the
instantiations of a kernel source file in images of at most :data:`CHUNK` each (a small image
loads fast, and the driver's compile of a PTX image on a GPU newer than the cubins stays short),
each image a cubin per real architecture (``sm_80``, which serves every 8.x GPU, and ``sm_90``)
and PTX for a virtual one (``compute_90``, which the driver compiles for GPUs newer than the
cubins), with an ``index.json`` that maps each name expression to its image and its lowered
(mangled) name.

The loader (:func:`primitives._core.loader.load`) asks :func:`find` first; a module whose
instantiations and device have binaries is loaded from them, anything else is compiled as
before. The index records what the binaries were built from, :func:`build_key` (the ``kernels/``
tree, the compile options and the package's version): binaries built from anything else (a kernel
source edited since, another version of the package) are stale and never loaded. A binary that
fails to load falls back to compiling, with a warning.

A wheel that carries them, in one command (any machine with NVRTC, no GPU needed)::

    python tools/build_wheel.py

which builds them with this module's command into a folder of its own, then the wheel (the
setuptools build of ``setup.py`` packs the folder ``$PRIMITIVES_WHEEL_BINARIES``)::

    python -m primitives._core.binaries build [--arch sm_80 sm_90 compute_90] [--jobs N] [--out DIR]

``PRIMITIVES_KERNEL_BINARIES``: another directory to read them from, or ``off`` to ignore them.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import functools
import hashlib
import importlib
import json
import multiprocessing
import os
import pathlib
import sys
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeAlias

__all__ = [
    "ARCHS",
    "CHUNK",
    "binaries_dir",
    "build_key",
    "index",
    "find",
    "pick_arch",
    "build",
    "main",
]

#: the images a build makes by default: cubins for the real architectures, PTX for the virtual one
ARCHS = ("sm_80", "sm_90", "compute_90")
#: instantiations per image at most (consecutive names of one source file, as registered)
CHUNK = 16
FORMAT = 2
_EXT = {"sm": "cubin", "compute": "ptx"}

#: one compiled image: (image stem, architecture, image, {name: lowered name}, seconds)
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


def _image_name(stem: str, arch: str) -> str:
    return f"{stem}.{arch}.{_EXT[arch.split('_')[0]]}"


def _stem(relpath: str, chunk: int) -> str:
    return f"{relpath.removesuffix('.cu').replace('/', '__')}.{chunk}"


def _built_from() -> dict[str, Any]:
    """What the binaries are made from besides the compiler: the ``kernels/`` tree's hash, the
    compile options (the include folder aside: where the tree lies differs between the build and
    an install, and the tree's hash covers its contents) and the package's version."""
    from . import loader

    package = importlib.import_module("primitives")
    return {
        "format": FORMAT,
        "tree_hash": loader.tree_hash(),
        "options": [o for o in loader.binary_options() if not o.startswith("-I")],
        "version": str(getattr(package, "__version__", "")),
    }


def build_key() -> str:
    """sha256 of :func:`_built_from`: binaries whose index records another key were built from
    other kernel sources, options or package version, and are never loaded."""
    return hashlib.sha256(json.dumps(_built_from(), sort_keys=True).encode()).hexdigest()


@functools.lru_cache(maxsize=None)
def _read_index(directory: str, key: str) -> dict[str, Any] | None:
    path = pathlib.Path(directory) / "index.json"
    try:
        idx = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(idx, dict) or idx.get("format") != FORMAT or idx.get("build_key") != key:
        return None  # built from other sources, options or version: stale, never loaded
    return idx


def index() -> dict[str, Any] | None:
    """The index of the binaries in :func:`binaries_dir`, or None when there are none, they are
    switched off, or they were built from anything else than this package (:func:`build_key`)."""
    directory = binaries_dir()
    if directory is None:
        return None
    return _read_index(str(directory), build_key())


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
) -> dict[str, tuple[pathlib.Path, str]] | None:
    """``{name: (image path, lowered name)}`` of the binaries that hold every instantiation in
    ``names`` of the kernel source ``relpath`` for a device of compute capability ``cc``, or
    None."""
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
    found = {n: (directory / _image_name(mod["image"][n], arch), mod["lowered"][n]) for n in names}
    if not all(path.is_file() for path, _ in found.values()):
        return None
    return found


def _chunks(modules: Mapping[str, Iterable[str]]) -> list[tuple[str, str, list[str]]]:
    """``(relpath, image stem, names)`` of every image: each file's names in runs of
    :data:`CHUNK`."""
    out = []
    for relpath, names in sorted(modules.items()):
        names = list(dict.fromkeys(names))
        for i in range(0, len(names), CHUNK):
            out.append((relpath, _stem(relpath, i // CHUNK), names[i : i + CHUNK]))
    return out


def _compile_one(job: tuple[str, str, list[str], str]) -> _Compiled:
    """Worker: one image of one source file for one architecture (NVRTC, in its own process)."""
    relpath, stem, names, arch = job
    from . import loader, nvrtc

    opts = loader.binary_options()
    t = time.perf_counter()
    image, lowered = nvrtc.compile_binary(
        loader.source(relpath), names, arch=arch, options=opts, filename=relpath
    )
    if not arch.startswith("sm_"):
        image = image.rstrip(b"\0")  # PTX text: no terminator in the file
    return stem, arch, image, lowered, time.perf_counter() - t


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
    ``archs`` into ``out`` (default: the package's ``_bin/``), in ``jobs`` processes (default:
    one per CPU), and write its ``index.json``. Old images in ``out`` are removed first. Returns
    the index."""
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
    chunks = _chunks(modules)
    work = [(rel, stem, names, arch) for rel, stem, names in chunks for arch in archs]
    # the largest images first, so that the last to finish are short
    work.sort(key=lambda j: -len(j[2]))
    idx: dict[str, Any] = {
        **_built_from(),
        "build_key": build_key(),
        "nvrtc": list(nvrtc.version()),
        "archs": list(archs),
        "modules": {},
    }
    for rel, stem, names in chunks:
        mod = idx["modules"].setdefault(rel, {"image": {}, "lowered": {}})
        mod["image"].update(dict.fromkeys(names, stem))
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
    rel_of = {stem: rel for rel, stem, _ in chunks}
    try:
        for stem, arch, image, lowered, seconds in results:
            (out / _image_name(stem, arch)).write_bytes(image)
            mod = idx["modules"][rel_of[stem]]
            for name, low in lowered.items():
                if mod["lowered"].setdefault(name, low) != low:
                    raise RuntimeError(f"build: {stem} lowers {name} differently for {arch}")
            if log is not None:
                log(
                    f"{rel_of[stem]} [{stem}] {arch}: {len(lowered)} kernels, "
                    f"{len(image) // 1024} KiB, {seconds:.1f} s"
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

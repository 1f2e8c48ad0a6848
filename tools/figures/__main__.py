"""``python -m tools.figures``: see :mod:`tools.figures`."""

from __future__ import annotations

import argparse
import contextlib
import datetime
import importlib
import os
import subprocess
import sys
import tempfile
import time

import primitives as prim
from primitives._core import backend as _backend, registry as _registry, timing as _timing
from primitives.testing import peers
from tools.figures import Context, page as _page, write_csv


def _commit():
    """The checkout's commit, only when this source tree is the checkout itself (an exported
    tree inside another checkout must not report that checkout's HEAD)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

    def git(*args):
        return subprocess.run(
            ["git", "-C", root, *args], capture_output=True, text=True
        ).stdout.strip()

    if os.path.realpath(git("rev-parse", "--show-toplevel") or "/nonexistent") != os.path.realpath(
        root
    ):
        return "(tree without git metadata)"
    return git("rev-parse", "--short", "HEAD")


def _version(dist):
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


def _driver():
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
        ).stdout.split()
        return out[0] if out else "?"
    except Exception:  # no nvidia-smi  # noqa: BLE001
        return "?"


def families():
    """The registered families that have figures, in the registry's order."""
    return [f.name for f in _registry.FAMILIES if f.figures]


#: sections of the page that are no family's: name -> module under tools/figures/
EXTRA_SECTIONS = {"numpy_api": "numpy_api", "dask_sort": "dask_sort"}


def section_order():
    """The page's sections in order: every registered family (those measured by another
    family's module too: compaction and segmented by scan's), then the extra sections."""
    return [f.name for f in _registry.FAMILIES] + list(EXTRA_SECTIONS)


def page_sections(lines, sections, device, copy):
    """``[(name, lines)]`` of a run: ``lines`` (a Context's, past its device and copy lines) cut
    at its ``## name`` lines, each section opened by its :func:`tools.figures.page.header`;
    ``sections``: the Context's ``(name, --family)`` pairs, in the same order."""
    _, cut = _page.split("\n".join(lines))
    assert [name for name, _ in cut] == [name for name, _ in sections], (cut, sections)
    return [
        (name, [_page.header(device, copy, family), *body])
        for (name, body), (_, family) in zip(cut, sections)
    ]


def _module(section):
    return EXTRA_SECTIONS.get(section) or _registry.family(section).figures


def _choices():
    """``--family``: the families with figures, their earlier names, the extra sections."""
    names = families()
    return names + [a for a, f in _registry.aliases().items() if f in names] + list(EXTRA_SECTIONS)


def _section(name):
    """The page section ``--family name`` measures: a family's name for an earlier one."""
    return name if name in EXTRA_SECTIONS else _registry.family(name).name


def _override(spec):
    """``family:selector:field=value`` (as tools.tune writes them) as an override's arguments."""
    try:
        family, selector, assignment = spec.split(":")
        field, value = assignment.split("=")
        # a family's default policy has the selector None, which tools.tune writes as "None"
        return family, None if selector == "None" else selector, {field: int(value)}
    except ValueError as exc:
        raise argparse.ArgumentTypeError(
            f"--override takes family:selector:field=value (an integer), got {spec!r}"
        ) from exc


@contextlib.contextmanager
def prebuilt(jobs, cc, log=print):
    """While open: every instantiation the library launches compiled for a device of compute
    capability ``cc`` (``"90"``) in ``jobs`` processes into a temporary folder, which the loader
    reads as the package's binaries (``PRIMITIVES_KERNEL_BINARIES``), so that no family's
    figures wait on its kernels' compiles one at a time. The same NVRTC and options as a first
    call's compile (:mod:`primitives._core.binaries`), so the same code is timed. Nothing is
    built where the package's own binaries serve this build already."""
    from primitives._core import binaries

    if binaries.index() is not None:
        log(f"kernels: the package's binaries in {binaries.binaries_dir()}")
        yield
        return
    old = os.environ.get("PRIMITIVES_KERNEL_BINARIES")
    with tempfile.TemporaryDirectory(prefix="primitives-bin-") as directory:
        t = time.perf_counter()
        binaries.build(out=directory, archs=[f"sm_{cc}"], jobs=jobs)
        os.environ["PRIMITIVES_KERNEL_BINARIES"] = directory
        log(
            f"kernels: every instantiation compiled for sm_{cc} in {jobs} processes, "
            f"{time.perf_counter() - t:.0f} s"
        )
        try:
            yield
        finally:
            if old is None:
                os.environ.pop("PRIMITIVES_KERNEL_BINARIES", None)
            else:
                os.environ["PRIMITIVES_KERNEL_BINARIES"] = old


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.figures")
    ap.add_argument("--family", action="append", choices=_choices())
    ap.add_argument(
        "--override",
        action="append",
        type=_override,
        default=[],
        help="family:selector:field=value, a tuning override for the whole run "
        "(repeatable; tools.tune's --best files hold such lines)",
    )
    ap.add_argument(
        "--out",
        default=None,
        help="the Markdown page (docs/performance.md): the sections of the families "
        "measured are replaced (after each family), the others kept",
    )
    ap.add_argument("--csv", default=None, help="every peer row as CSV (docs' figures)")
    ap.add_argument(
        "--jobs",
        type=int,
        default=0,
        metavar="N",
        help="first compile every kernel instantiation for this GPU in N processes "
        "(default 0: each is compiled on its first call, one at a time)",
    )
    ap.add_argument(
        "--commit", default=None, help="the commit measured, for a tree without git metadata"
    )
    args = ap.parse_args(argv)
    import cupy

    assert _backend.get_backend().is_cuda, "figures need the CUDA backend"
    info = prim.backend_info()
    commit = args.commit or _commit()
    cc = peers.cub()
    if cc is None:  # report, keep going without the CUB columns
        print(f"cuda.compute unavailable: {peers.cub_error}", file=sys.stderr)
    ctx = Context(_timing.copy_bandwidth(1 << 31), cc)
    cub = "" if cc is None else f", cuda-cccl {_version('cuda-cccl')} (CUB)"
    ctx.lines += [
        f"device: {info['device']} ({info['sm_count']} SMs), driver {_driver()}, "
        f"CuPy {cupy.__version__}{cub}, commit {commit}, "
        f"{datetime.date.today().isoformat()}",
        f"measured copy bandwidth (read + write, 2 GiB): {ctx.copy:.0f} GB/s",
    ]
    with contextlib.ExitStack() as stack:
        if args.jobs > 1:
            stack.enter_context(prebuilt(args.jobs, info["compute_capability"]))
        for family, selector, fields in args.override:
            stack.enter_context(prim.tuning.override(family, selector=selector, **fields))
            ctx.lines[-1] += f"; tuning override {family} {selector!r} {fields}"
        for family in dict.fromkeys(
            map(_section, args.family or families() + list(EXTRA_SECTIONS))
        ):
            ctx.measuring = family
            ctx.section(family)
            importlib.import_module(f"tools.figures.{_module(family)}").run(ctx)
            if args.out:  # after each family: a run cut short keeps the families it measured
                write_page(args.out, ctx, info["device"])
    text = "\n".join(ctx.lines)
    print("\n" + text)
    if args.csv:
        write_csv(args.csv, ctx.records, ctx.lines[:2])


def write_page(path, ctx, device):
    """Write the sections ``ctx`` measured so far into the page at ``path`` (docs/performance.md),
    keeping its other sections; exits, naming the page, when those were measured on another
    kind of device than ``device``."""
    sections = page_sections(
        ctx.lines[2:], ctx.sections, ctx.lines[0].removeprefix("device: "), ctx.lines[1]
    )
    old = None
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
    try:
        page = _page.merge(old, sections, section_order(), device, renamed=_registry.aliases())
    except ValueError as exc:
        print("\n".join(ctx.lines))
        sys.exit(f"python -m tools.figures: {path}: {exc} (the run's tables are above)")
    with open(path, "w") as f:
        f.write(page)


if __name__ == "__main__":
    main()

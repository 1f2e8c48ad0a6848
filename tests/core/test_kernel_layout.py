"""The layering of kernels/, read from the sources (no compiler): the shared layers util/ <- warp/
<- block/ <- device/ include only their own layer or a lower one, a family folder only the shared
layers and itself, no source includes a .cu file, every quoted include names a file of the tree,
every file opens with its header comment, and every registered kernel source defines the kernels
its name expressions instantiate."""

import pathlib
import re

import pytest

from primitives._core import loader as _loader

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent / "kernels"
#: the shared layers, lowest first: a file includes its own layer or a lower one
LAYERS = ("util", "warp", "block", "device")
#: the folders of kernels/ that hold no family's kernels
NOT_FAMILIES = (*LAYERS, "emulator")
SOURCES = sorted(p for p in ROOT.rglob("*") if p.suffix in (".cu", ".cuh", ".h") and p.is_file())
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def _rel(path):
    return path.relative_to(ROOT).as_posix()


def _includes(path):
    return INCLUDE.findall(path.read_text())


def _folder(rel):
    return rel.split("/")[0]


def test_tree_has_layers_and_families():
    folders = {p.name for p in ROOT.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert set(LAYERS) <= folders
    assert folders - set(NOT_FAMILIES), "no family folder under kernels/"
    assert all("/" in _rel(p) for p in SOURCES), "a kernel source outside a folder"


@pytest.mark.parametrize("path", SOURCES, ids=_rel)
def test_includes_resolve_and_no_cu(path):
    for inc in _includes(path):
        assert (ROOT / inc).is_file(), f"{_rel(path)} includes {inc}, which is not under kernels/"
        assert not inc.endswith(".cu"), (
            f"{_rel(path)} includes the kernel file {inc}: share a .cuh instead"
        )


@pytest.mark.parametrize("path", SOURCES, ids=_rel)
def test_layering(path):
    rel = _rel(path)
    folder = _folder(rel)
    for inc in _includes(path):
        target = _folder(inc)
        if folder in LAYERS:
            assert target in LAYERS and LAYERS.index(target) <= LAYERS.index(folder), (
                f"{rel} (layer {folder}/) includes {inc}: a shared layer includes only its own "
                f"layer or a lower one ({' <- '.join(LAYERS)})"
            )
        else:
            assert target in LAYERS or target == folder, (
                f"{rel} includes {inc}: a family folder includes the shared layers "
                f"({', '.join(LAYERS)}) and its own folder only"
            )


@pytest.mark.parametrize("path", SOURCES, ids=_rel)
def test_header_comment(path):
    """Every file opens with a comment that names it: ``// <name> -- what it holds``."""
    lines = path.read_text().splitlines()
    assert lines and lines[0].startswith("// "), f"{_rel(path)}: no header comment"
    assert f"{path.name} -- " in lines[0], (
        f"{_rel(path)}: the header comment's first line names another file: {lines[0]!r}"
    )
    comment = next((i for i, line in enumerate(lines) if not line.startswith("//")), len(lines))
    assert comment >= 2, f"{_rel(path)}: a one-line header comment"


def test_registered_sources_define_their_kernels():
    """Each name expression a family registers is a kernel defined in the file it names."""
    import primitives  # noqa: F401 - every family registers its instantiations on import

    modules = _loader.registered_modules(candidates=True)
    assert modules
    for rel, names in modules.items():
        path = ROOT / rel
        assert path.is_file(), f"registered kernel source {rel} does not exist"
        text = path.read_text()
        for name in names:
            kernel = name.split("<", 1)[0].strip()
            assert re.search(r"__global__[^;{]*?\b" + re.escape(kernel) + r"\s*\(", text), (
                f"{rel} defines no kernel {kernel} (registered as {name})"
            )

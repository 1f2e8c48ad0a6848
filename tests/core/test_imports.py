"""The import boundaries: a family (or the Dask layer, the tour, the testing helpers) imports
``primitives._core`` and the other families' public API only: never another package's private
module or private name. ``_core`` imports no family."""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PKG = ROOT / "primitives"
PACKAGES = sorted(p.name for p in PKG.iterdir() if (p / "__init__.py").is_file())


def _imports(path):
    """(line, imported package, names or module path) of every import of a primitives package
    in ``path``, relative imports resolved."""
    tree = ast.parse(path.read_text())
    here = path.relative_to(ROOT).with_suffix("").parts  # ("primitives", pkg, module)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(here[: len(here) - node.level])
                mod = base + (node.module.split(".") if node.module else [])
            else:
                mod = (node.module or "").split(".")
            if mod[:1] != ["primitives"]:
                continue
            yield node.lineno, mod[1:], [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == "primitives":
                    yield node.lineno, parts[1:], []


def _violations(path):
    own = path.relative_to(PKG).parts[0] if len(path.relative_to(PKG).parts) > 1 else None
    out = []
    for line, mod, names in _imports(path):
        if not mod and own == "_core":  # the package, which imports every family
            out.append(f"{path.relative_to(ROOT)}:{line} imports primitives from _core")
            continue
        if not mod:  # ``from primitives import x`` / ``from .. import x``: the public API
            bad = [n for n in names if n.startswith("_") and n != "_core"]
            if bad and own is not None:
                out.append(f"{path.relative_to(ROOT)}:{line} imports {bad} of primitives")
            continue
        pkg, rest = mod[0], mod[1:]
        if pkg == own or pkg == "_core" and own != "_core" or own is None:
            continue
        if own == "_core" and pkg in PACKAGES and pkg != "_core":
            out.append(f"{path.relative_to(ROOT)}:{line} imports the family {pkg} from _core")
            continue
        if any(p.startswith("_") for p in rest) or any(n.startswith("_") for n in names):
            out.append(
                f"{path.relative_to(ROOT)}:{line} imports a private part of {pkg}: "
                f"{'.'.join(mod)} {names}"
            )
    return out


FILES = sorted(p for p in PKG.rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PKG)))
def test_imports_stay_inside_the_boundaries(path):
    assert _violations(path) == []


def test_the_checker_sees_a_violation(tmp_path):
    fam = PKG / "selection" / "_probe_imports.py"
    try:
        fam.write_text("from ..sorting import _keys\nfrom ..sorting._api import sort\n")
        assert len(_violations(fam)) == 2
        fam.write_text("from ..sorting import sort\nfrom .._core import keys\n")
        assert _violations(fam) == []
        core = PKG / "_core" / "_probe_imports.py"
        try:
            core.write_text("import primitives\nfrom .. import sorting\n")
            assert len(_violations(core)) == 2
        finally:
            core.unlink()
    finally:
        fam.unlink()


def test_first_calls_import_no_cupyx():
    """The first calls of the functions whose results have data-dependent lengths (a count the
    kernel writes into pinned host memory) import neither cupyx nor SciPy: cupyx's first
    import (cupyx.scipy, then SciPy) added 0.3 s to each of them on an H200."""
    import subprocess
    import sys

    code = (
        "import sys, numpy as np, primitives as prim\n"
        "from primitives._core import backend as _b\n"
        "xp = _b.get_backend().xp\n"
        "h = np.arange(1000, dtype=np.float32) % 7\n"  # inputs made on the host: no CuPy kernel
        "x, m, s = xp.asarray(h), xp.asarray(h > 2), xp.asarray(np.sort(h))\n"
        "before = set(sys.modules)\n"
        "prim.compact(x, m); prim.compact_indices(m); prim.unique(x)\n"
        "prim.run_length_encode(s); prim.reduce_by_key(s, x)\n"
        "prim.partition(x, 10); prim.bincount(xp.asarray(h.astype(np.int32)))\n"
        "new = set(sys.modules) - before\n"
        "print(sorted(m for m in ('cupyx', 'scipy') if m in new))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout

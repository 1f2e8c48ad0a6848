"""The docs describe the tree as it is: docs/architecture.rst has a line for every package and
module (and none for one that is gone), every repository path the pages cite exists, and the
perf log's index lists every file of the log. Reads files only; no Sphinx."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "primitives"
ARCHITECTURE = ROOT / "docs" / "architecture.rst"


def _section(text, title):
    """The body of the reStructuredText section ``title`` (up to the next section's title)."""
    lines = text.splitlines()
    start = lines.index(title) + 2
    for i in range(start, len(lines) - 1):
        if lines[i + 1] and set(lines[i + 1]) == {"-"} and len(lines[i + 1]) == len(lines[i]):
            return lines[start:i]
    return lines[start:]


def listed_modules():
    """The paths the bullets of "Packages and modules" open with: ``* ``primitives/...``:``."""
    body = _section(ARCHITECTURE.read_text(), "Packages and modules")
    return {m.group(1) for line in body if (m := re.match(r"\* ``(primitives/[^`]*)``", line))}


def present_modules():
    """The modules of primitives/, its packages (folders holding Python files) and the modules
    of primitives/_core/, as the list names them."""
    found = {f"primitives/{p.name}" for p in PACKAGE.glob("*.py")}
    found |= {
        f"primitives/{d.name}/"
        for d in PACKAGE.iterdir()
        if d.is_dir() and d.name != "_core" and any(d.glob("*.py"))
    }
    found |= {
        f"primitives/_core/{p.name}"
        for p in (PACKAGE / "_core").glob("*.py")
        if p.name != "__init__.py"
    }
    return found


def test_architecture_lists_every_package_and_core_module():
    listed, present = listed_modules(), present_modules()
    assert listed, "no module list found in docs/architecture.rst"
    missing = sorted(present - listed)
    assert not missing, (
        f"docs/architecture.rst, 'Packages and modules', has no line for {missing}: add one"
    )
    gone = sorted(listed - present)
    assert not gone, (
        f"docs/architecture.rst, 'Packages and modules', lists {gone}, which do not exist"
    )


#: repository paths cited in prose: primitives/..., kernels/..., tools/... and the like. A path
#: followed by ``<`` or ``*`` is a pattern (``kernels/<family>/``, ``kernels/sorting/*.cu``): the
#: part before it is checked.
CITED = re.compile(
    r"(?<![\w./-])((?:primitives|kernels|tools|docs|tests|asv_bench)/[\w./-]*)"
    r"(?![\w<*])"
)
#: made by a build, not in the tree: the kernel binaries, the docs' HTML
BUILT = ("primitives/_bin", "docs/_build")


def cited_paths():
    """(file, line number, path) for every repository path cited by the docs' pages (the perf
    log aside: it cites the paths of the commit of each run) and by the kernel sources."""
    files = [
        *ROOT.glob("docs/*.rst"),
        *ROOT.glob("docs/*.md"),
        *(p for p in ROOT.glob("kernels/**/*") if p.suffix in (".cu", ".cuh", ".h")),
    ]
    for f in sorted(files):
        for i, line in enumerate(f.read_text().splitlines(), 1):
            for m in CITED.finditer(line):
                yield f.relative_to(ROOT), i, m.group(1).rstrip(".")


def test_cited_paths_exist():
    cited = list(cited_paths())
    assert any(str(p).startswith("primitives/_core/") for _, _, p in cited)
    stale = [
        f"{f}:{i}: {p}" for f, i, p in cited if not (ROOT / p).exists() and not p.startswith(BUILT)
    ]
    assert not stale, "paths that do not exist:\n" + "\n".join(stale)


def test_perf_log_index_lists_every_file():
    log = ROOT / "docs" / "perf-log"
    listed = set(re.findall(r"\]\(([\w./-]+\.md)\)", (log / "index.md").read_text()))
    present = {p.relative_to(log).as_posix() for p in log.glob("*/*.md")}
    assert present, "no month folder in docs/perf-log/"
    assert not present - listed, f"docs/perf-log/index.md does not list {sorted(present - listed)}"
    assert not listed - present, (
        f"docs/perf-log/index.md lists {sorted(listed - present)}, which do not exist"
    )

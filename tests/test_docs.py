"""The documentation: its examples run and assert against NumPy, and Sphinx builds the whole
site (MyST pages, the gallery executed on this machine's backend, the figures from the measured
CSV files, the asv dashboard when results exist) warning-free."""

import importlib.util
import pathlib
import re
import runpy

import pytest

from .docs_site import built_site
from .test_docs_api import public

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"
EXAMPLES = sorted((DOCS / "examples").glob("*.py"))


def test_examples_exist():
    names = {p.name for p in EXAMPLES}
    assert {"reduce_basic.py", "backend_info.py", "scan_basic.py"} <= names
    assert len(list((DOCS / "gallery").glob("*.py"))) >= 3


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(path, capsys):
    runpy.run_path(str(path), run_name="__main__")
    assert capsys.readouterr().out  # every example prints what it computed


# Sphinx's own pages: a page of ours with one of these names would be replaced by Sphinx's
RESERVED = {"search", "genindex", "py-modindex", "modindex"}


def toctree_entries():
    """The docnames listed in the toctree of docs/index.rst, in order."""
    lines = (DOCS / "index.rst").read_text().splitlines()
    start = lines.index(".. toctree::")
    entries = []
    for line in lines[start + 1 :]:
        if line.strip() and not line.startswith("   "):
            break
        if line.strip() and not line.strip().startswith(":"):
            entries.append(line.strip())
    return entries


def source_title(docname):
    """The first heading of a page's source (its title), or None where there is no source."""
    for path, md in ((DOCS / f"{docname}.rst", False), (DOCS / f"{docname}.md", True)):
        if path.is_file():
            break
    else:
        if docname == "generated/gallery/index":
            path, md = DOCS / "gallery" / "GALLERY_HEADER.rst", False
        else:
            return None
    lines = path.read_text().splitlines()
    for i, line in enumerate(lines):
        if md and line.startswith("# "):
            return line[2:].strip()
        if not md and i + 1 < len(lines) and line.strip():
            under = lines[i + 1]
            if len(under) >= len(line.strip()) and set(under) <= set("=-~#*^"):
                return line.strip()
    return None


def test_page_names_are_not_sphinx_names():
    """Every page of the contents has its own name and a title of its own."""
    entries = toctree_entries()
    assert "searching" in entries and len(entries) > 10
    assert len(set(entries)) == len(entries)
    for doc in entries:
        assert doc.rsplit("/", 1)[-1] not in RESERVED, f"{doc}: Sphinx's own page has that name"
        title = source_title(doc)
        assert title, f"{doc}: no source with a title"
        assert title.lower() not in {"search", "index", "python module index"}, doc
    pages = {p.stem for p in DOCS.glob("*.rst")} | {p.stem for p in DOCS.glob("*.md")}
    assert not pages & RESERVED, f"pages named as Sphinx's own: {pages & RESERVED}"


def _text(html):
    import html as html_lib

    return html_lib.unescape(re.sub(r"<[^>]+>", "", html)).replace("\xb6", "").strip()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site, built once per test run for the tests that read it (tests/docs_site.py)."""
    return built_site(tmp_path_factory)


# Sphinx's own napoleon uses a deprecated autodoc interface (Python warnings, not build warnings)
@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning:sphinx")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_sphinx_build(site):
    for page in ("reduction", "performance", "benchmarks", "emulator", "generated/gallery/index"):
        assert (site / f"{page}.html").is_file(), page
    assert "furo" in (site / "index.html").read_text()
    bench = (site / "benchmarks.html").read_text()
    results = DOCS.parent / "asv_bench" / "results"
    if any(results.glob("*/machine.json")):
        pytest.importorskip("asv")
        assert (site / "asv" / "index.html").is_file()
        assert "asv/index.html" in bench
    else:
        assert "No asv results are recorded yet" in bench


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning:sphinx")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_every_page_has_its_own_title(site):
    """Each entry of the contents is a page of its own, titled by its source's heading (not
    replaced by Sphinx's search page), and the front page links to it."""
    index = (site / "index.html").read_text()
    for doc in toctree_entries():
        html = (site / f"{doc}.html").read_text()
        title = _text(re.search(r"<title>(.*?)</title>", html, re.S).group(1))
        h1 = _text(re.search(r"<h1[^>]*>(.*?)</h1>", html, re.S).group(1))
        want = source_title(doc).replace("``", "")
        assert h1 == want, (doc, h1, want)
        assert title == f"{want} - primitives", (doc, title)
        assert f'href="{doc}.html' in index, f"index.html does not link {doc}.html"


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning:sphinx")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_every_public_name_is_linkable(site):
    """The built inventory holds every public name (what ``:func:`` links resolve against)."""
    from sphinx.util.inventory import InventoryFile

    with open(site / "objects.inv", "rb") as f:
        inv = InventoryFile.load(f, "", lambda base, uri: uri)
    names = {name for kind, entries in inv.items() if kind.startswith("py:") for name in entries}
    modules = ["primitives", "primitives.sparse"]
    if importlib.util.find_spec("dask"):
        modules.append("primitives.dask")
    missing = sorted(n for m in modules for n in public(m) if n not in names)
    assert not missing, f"not in objects.inv: {missing}"
    # a family page's :func: links resolve (rendered as links, not plain code)
    assert 'href="api.html#primitives.mean"' in (site / "reduction.html").read_text()


def test_figures_from_csv(tmp_path):
    """The figure generator draws from rows shaped like the tour's CSV and skips missing data."""
    import sys

    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import perf_figures
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    rows = [
        dict(
            family="reduction",
            section="sum float32",
            contender=c,
            ok="1",
            ms="1",
            gbs=str(g),
            copy_gbs="3000",
            backend="cuda",
            device="GPU",
        )
        for c, g in (("alpha", 300), ("production", 2900), ("cupy.sum (peer)", 2850))
    ]
    png = tmp_path / "f.png"
    assert perf_figures.draw_families(["reduction"], rows, png)
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert not perf_figures.draw_families(["sort"], rows, tmp_path / "g.png")
    assert perf_figures._read_csv(tmp_path / "missing.csv") is None

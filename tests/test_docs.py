"""The documentation: its examples run and assert against NumPy, and Sphinx builds the whole
site (MyST pages, the gallery executed on this machine's backend, the figures from the measured
CSV files, the asv dashboard when results exist) warning-free."""

import pathlib
import runpy

import pytest

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


def _build(out, *extra):
    try:
        from sphinx.cmd.build import build_main
    except ImportError:
        pytest.fail(
            "Sphinx is not installed: install the docs extra (pip install -e .[test,docs], as the "
            "README's test command does) to build and check the documentation"
        )
    return build_main(["-W", "--keep-going", "-b", "html", "-q", *extra, str(DOCS), str(out)])


# Sphinx's own napoleon uses a deprecated autodoc interface (Python warnings, not build warnings)
@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning:sphinx")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_sphinx_build(tmp_path):
    rc = _build(tmp_path)
    assert rc == 0, "sphinx-build -W failed; the warnings are in the captured stderr above"
    for page in ("reduction", "performance", "benchmarks", "emulator", "generated/gallery/index"):
        assert (tmp_path / f"{page}.html").is_file(), page
    assert "furo" in (tmp_path / "index.html").read_text()
    bench = (tmp_path / "benchmarks.html").read_text()
    results = DOCS.parent / "asv_bench" / "results"
    if any(results.glob("*/machine.json")):
        pytest.importorskip("asv")
        assert (tmp_path / "asv" / "index.html").is_file()
        assert "asv/index.html" in bench
    else:
        assert "No asv results are recorded yet" in bench


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

"""The documentation: its examples run and assert against NumPy, and Sphinx builds it warning-free."""

import pathlib
import runpy

import pytest

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"
EXAMPLES = sorted((DOCS / "examples").glob("*.py"))


def test_examples_exist():
    names = {p.name for p in EXAMPLES}
    assert {"reduce_basic.py", "backend_info.py", "scan_basic.py"} <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(path, capsys):
    runpy.run_path(str(path), run_name="__main__")
    assert capsys.readouterr().out  # every example prints what it computed


# Sphinx's own napoleon uses a deprecated autodoc interface (Python warnings, not build warnings)
@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning:sphinx")
def test_sphinx_build(tmp_path):
    try:
        from sphinx.cmd.build import build_main
    except ImportError:
        pytest.fail(
            "Sphinx is not installed: install the docs extra (pip install -e .[test,docs], as the "
            "README's test command does) to build and check the documentation"
        )
    rc = build_main(["-W", "--keep-going", "-b", "html", "-q", str(DOCS), str(tmp_path)])
    assert rc == 0, "sphinx-build -W failed; the warnings are in the captured stderr above"
    assert (tmp_path / "reduction.html").is_file()

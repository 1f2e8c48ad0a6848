"""The documentation site, built once per test run for every test that reads it.

Under pytest-xdist the workers share one build: the first to ask builds the site into the run's
common temporary folder under a file lock, the others wait for it and read the same output (a
build takes minutes on the emulator; the tests that read it take seconds).
"""

import contextlib
import os
import pathlib

import pytest

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"


def build(out, *extra):
    """``sphinx-build -W`` of the docs into ``out``; its exit status."""
    try:
        from sphinx.cmd.build import build_main
    except ImportError:
        pytest.fail(
            "Sphinx is not installed: install the docs extra (pip install -e .[test,docs], as the "
            "README's test command does) to build and check the documentation"
        )
    return build_main(["-W", "--keep-going", "-b", "html", "-q", *extra, str(DOCS), str(out)])


@contextlib.contextmanager
def _locked(path):
    try:
        import fcntl
    except ImportError:  # no POSIX locks: one process builds for itself
        yield
        return
    with open(path, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def built_site(tmp_path_factory):
    """The built site's folder; fails the calling test, with Sphinx's warnings, where the
    build failed."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's folder, above each worker's own
    out, status, warnings = root / "docs-html", root / "docs-html.rc", root / "docs-html.log"
    with _locked(root / "docs-html.lock"):
        if not status.is_file():
            status.write_text(str(build(out, "-w", str(warnings))))
    rc = int(status.read_text())
    if rc != 0:
        log = warnings.read_text() if warnings.is_file() else ""
        pytest.fail(f"sphinx-build -W failed ({rc}):\n{log[-4000:]}")
    return out

"""The built documentation in a real browser (tools/browser_check.py): the front page, a family
page, the gallery and the asv dashboard open from a local server with no network, without a
JavaScript error or a missing resource, and the dashboard's graphs hold data points.

Skipped where no browser is installed, unless ``PRIMITIVES_REQUIRE_BROWSER=1`` (as CI sets it,
after installing Debian's chromium): then a missing browser fails. Screenshots go into
``$PRIMITIVES_SCREENSHOTS`` (CI: .ci/artifacts/screenshots/), else into the test's temporary
folder. The checker's own tests open small sites made here, broken on purpose.
"""

import os
import pathlib
import re
import sys

import pytest

from tools import browser_check

from .docs_site import built_site

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"


def _browser():
    path = browser_check.find_browser()
    if path is None:
        why = "no browser (Debian: apt-get install chromium; .ci/run installs it)"
        if os.environ.get("PRIMITIVES_REQUIRE_BROWSER") == "1":
            pytest.fail(f"PRIMITIVES_REQUIRE_BROWSER=1 but {why}")
        pytest.skip(why)
    pytest.importorskip("websocket", reason="websocket-client (the docs extra) drives the browser")
    return path


def _asv_dashboard():
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import asv_dashboard
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    return asv_dashboard


# Sphinx's own napoleon uses a deprecated autodoc interface (Python warnings, not build warnings)
@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning:sphinx")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_site_in_browser(tmp_path_factory):
    browser = _browser()
    site = built_site(tmp_path_factory)
    pages = browser_check.PAGES
    if not (site / "asv" / "index.html").is_file():  # no results or no asv: test_docs says which
        pages = [p for p in pages if not p.path.startswith("asv/")]
    shots = os.environ.get("PRIMITIVES_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots")
    results = browser_check.check_site(site, pages, screenshots=shots, browser=browser)
    problems = browser_check.report(results)
    assert not problems, "\n".join(problems)
    assert all(r.screenshot.read_bytes()[:4] == b"\x89PNG" for r in results)


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning:sphinx")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_dashboard_needs_no_network(tmp_path_factory):
    """The published dashboard loads every script and stylesheet from its own folder."""
    results = DOCS.parent / "asv_bench" / "results"
    if not any(results.glob("*/machine.json")):
        pytest.skip("no asv results recorded: no dashboard")
    pytest.importorskip("asv")
    asv = built_site(tmp_path_factory) / "asv"
    html = (asv / "index.html").read_text()
    loads = re.findall(r"<(?:script|link)\b[^>]*?\b(?:src|href)=\"([^\"]+)\"", html)
    assert loads and not [u for u in loads if "//" in u], loads
    for url in loads:
        assert (asv / url).is_file(), url


def test_every_cdn_address_of_asv_is_replaced():
    """Each script and stylesheet that asv's own page loads from the network has its package
    file in the table (a newer asv that loads another library fails here first)."""
    asv = pytest.importorskip("asv")
    dash = _asv_dashboard()
    page = pathlib.Path(asv.__file__).parent / "www" / "index.html"
    html, unknown = dash.rewrite(page.read_text())
    assert unknown == []
    assert "integrity=" not in html and "https://cdn" not in html and "https://code" not in html
    for lib in dash.LIBRARIES:
        for path in lib.files.values():
            assert f'"{dash.VENDOR_DIR}/{lib.name}/{path}"' in html


def test_rewrite_reports_an_unknown_address():
    dash = _asv_dashboard()
    html = (
        '<script src="https://example.org/lib.js"></script>'
        '<link rel="stylesheet" href="https://example.org/x.css">'
        '<a href="https://example.org/page">a link, not a load</a>'
    )
    out, unknown = dash.rewrite(html)
    assert out == html
    assert unknown == ["https://example.org/lib.js", "https://example.org/x.css"]


# a small site whose pages go wrong in each of the ways the checker looks for
SITE = {
    "ok.html": "<html><body><p>fine</p><script src='ok.js'></script></body></html>",
    "ok.js": "document.body.dataset.ready = 'yes';",
    "throws.html": "<html><body><script>undefined_function();</script></body></html>",
    "console.html": "<html><body><script>console.error('bad thing')</script></body></html>",
    "missing.html": "<html><body><script src='gone.js'></script></body></html>",
    "network.html": (
        "<html><body><script src='https://cdn.example.org/jquery.min.js'></script></body></html>"
    ),
    "asv/index.html": (
        "<html><head><script>function js_load_failure() { window.location = 'error.html'; }"
        "</script><script src='vendor/jquery.js' onerror='js_load_failure()'></script>"
        "</head><body></body></html>"
    ),
    "asv/error.html": "<html><body><h1>Can not determine continental origin of swallow."
    "</h1></body></html>",
}


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    """The checker's results on ``SITE``, one browser for every page."""
    browser = _browser()
    root = tmp_path_factory.mktemp("site")
    for name, text in SITE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    Page = browser_check.Page
    pages = [
        Page("ok", "ok.html", "document.body.dataset.ready === 'yes'", "ok.js ran"),
        Page("throws", "throws.html"),
        Page("console", "console.html"),
        Page("missing", "missing.html"),
        Page("network", "network.html"),
        Page("asv", "asv/index.html"),
        Page("no-plot", "ok.html", browser_check.flot_points("#main-graph"), "graph points"),
    ]
    old = browser_check.TIMEOUT
    browser_check.TIMEOUT = 2.0  # the page that never becomes ready waits this long
    try:
        results = browser_check.check_site(root, pages, screenshots=root / "shots", browser=browser)
    finally:
        browser_check.TIMEOUT = old
    return {r.page.name: r for r in results}


@pytest.mark.parametrize(
    "name, want",
    [
        ("throws", "uncaught JavaScript exception: ReferenceError: undefined_function"),
        ("console", "console.error: bad thing"),
        ("missing", "HTTP 404 for http://127.0.0.1:"),
        ("network", "asks the network for https://cdn.example.org/jquery.min.js"),
        ("asv", "asv's page for libraries that failed to load"),
        ("no-plot", "not ready within 2 s: graph points"),
    ],
)
def test_checker_finds(broken, name, want):
    assert any(want in p for p in broken[name].problems), broken[name].problems


def test_checker_passes_a_working_page(broken):
    r = broken["ok"]
    assert r.problems == []
    assert r.screenshot.read_bytes()[:4] == b"\x89PNG"


def test_dashboard_without_npm_says_what_to_do(tmp_path, monkeypatch):
    """Where a library's tarball is missing (or broken: it is removed) and there is no npm, the
    build is told what to install."""
    dash = _asv_dashboard()
    monkeypatch.setattr(dash, "TARBALLS", tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    lib = dash.LIBRARIES[0]
    lib.tarball.write_bytes(b"not the package")
    with pytest.raises(dash.OfflineError, match="npm is not installed.*apt-get install npm"):
        dash.make_offline(tmp_path / "asv")
    assert not lib.tarball.exists()

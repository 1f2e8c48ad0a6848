"""The asv dashboard, published into the site and working offline.

``.. asv-dashboard::`` links the dashboard. After the HTML build, when ``asv`` is installed and
``asv_bench/results/`` holds results, ``asv publish`` writes the dashboard into ``asv/`` of the
output; otherwise the page says why there is none.

asv's page loads its JavaScript libraries (jQuery, flot and its plugins, stupidtable, md5,
Bootstrap) from public CDNs. The build replaces each of those addresses by a copy taken from the
library's package on the npm registry, at the release asv names (``LIBRARIES``), so that the
dashboard works where there is no network. ``npm pack`` fetches each package once into
``docs/_build/asv-js/``; every tarball is checked against its pinned sha512 before use, and later
builds take the kept tarballs without npm or network. An address that the table does not cover
(a newer asv that loads another library) is a build warning, so is a missing npm.

The dashboard reads its data (``index.json``, ``graphs/``) with XMLHttpRequest, which browsers
refuse on ``file://`` pages: serve the site, e.g. ``python -m http.server -d docs/_build/html``.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.util import logging

logger = logging.getLogger(__name__)

DOCS = pathlib.Path(__file__).resolve().parent.parent
ROOT = DOCS.parent
ASV_DIR = "asv"  # the dashboard's folder in the HTML output
VENDOR_DIR = "vendor"  # the libraries' folder inside the dashboard's
TARBALLS = DOCS / "_build" / "asv-js"  # npm tarballs kept between builds (git-ignored)


@dataclasses.dataclass(frozen=True)
class Library:
    """One npm package at a pinned release: the files asv's page loads from a CDN, each as
    ``{CDN address: path inside the package}``, and the other files those need (``extra``,
    files or folders, e.g. the fonts Bootstrap's stylesheet names)."""

    name: str
    version: str
    integrity: str  # the registry's sha512 of the package tarball
    files: dict
    extra: tuple = ()

    @property
    def tarball(self):
        return TARBALLS / f"{self.name}-{self.version}.tgz"


_CDNJS = "https://cdnjs.cloudflare.com/ajax/libs"
_JSDELIVR = "https://cdn.jsdelivr.net/npm"

# what asv 0.6's www/index.html loads from the network, and the package file that replaces it
LIBRARIES = (
    Library(
        "jquery",
        "3.3.1",
        "sha512-Ubldcmxp5np52/ENotGxlLe6aGMvmF4R8S6tZjsP6Knsaxd/xp3Zrh50cG93lR6nPXyUFwzN3ZSOQI0wRJNdGg==",
        {"https://code.jquery.com/jquery-3.3.1.min.js": "dist/jquery.min.js"},
    ),
    Library(
        "flot",
        "0.8.3",
        "sha512-xg2otcTJDvS+ERK+my4wxG/ASq90QURXtoM4LhacCq0jQW2jbyjdttbRNqU2cPykrpMvJ6b2uSp6SAgYAzj9tQ==",
        {
            f"{_CDNJS}/flot/0.8.3/jquery.flot{part}.min.js": f"jquery.flot{part}.js"
            for part in ("", ".time", ".selection", ".categories")
        },
    ),
    Library(
        "flot-orderbars",
        "1.0.0",
        "sha512-Jv51fvzevUjNXEeozpwEKfPjhiZhfiJddv0WHjduUTCmSF+7T5K7C9c9Y1wIVmUhDBv5fLMjgbwKecT0GIKPZA==",
        {
            f"{_JSDELIVR}/flot-orderbars@1.0.0/js/jquery.flot.orderBars.js": "js/jquery.flot.orderBars.js"
        },
    ),
    # asv names stupidtable 1.0.1, which the npm registry does not hold; 1.1.3 is the package's
    # release there, with the same jQuery plugin call and events that asv uses
    Library(
        "stupid-table-plugin",
        "1.1.3",
        "sha512-2Vk7XouQPxUQPRe9w0Fu7ZZ8kHLK7rDoLMsCgtKxRNJ7f4dSOGvW9CkHsq5wD6QsaEnWoyLBYH3xOEsrK3yWBg==",
        {f"{_CDNJS}/stupidtable/1.0.1/stupidtable.min.js": "stupidtable.min.js"},
    ),
    Library(
        "blueimp-md5",
        "2.19.0",
        "sha512-DRQrD6gJyy8FbiE4s+bDoXS9hiW3Vbx5uCdwvcCf3zLHL+Iv7LtGHLpr+GZV8rHG8tK766FGYBwRbu8pELTt+w==",
        {f"{_CDNJS}/blueimp-md5/2.19.0/js/md5.min.js": "js/md5.min.js"},
    ),
    Library(
        "bootstrap",
        "3.1.1",
        "sha512-TAzqS8E/ISpVHP29gYhy+1NSV+FJwApDVQhDfgLYsIuUDJiqJzH2DfORN5tiu+Ie2iBLrzEG34t4Rf465cigqg==",
        {
            f"{_JSDELIVR}/bootstrap@3.1.1/dist/js/bootstrap.min.js": "dist/js/bootstrap.min.js",
            f"{_JSDELIVR}/bootstrap@3.1.1/dist/css/bootstrap.min.css": "dist/css/bootstrap.min.css",
        },
        extra=("dist/fonts",),
    ),
)


class OfflineError(Exception):
    """The dashboard's libraries could not be made local; the message says why and what to do."""


def _integrity(path):
    return (
        "sha512-"
        + base64.b64encode(hashlib.sha512(path.read_bytes()).digest()).decode()
    )


def fetch(libraries=LIBRARIES):
    """Every library's tarball in ``TARBALLS``, checked against its pinned sha512; npm fetches
    the missing ones (one call)."""
    TARBALLS.mkdir(parents=True, exist_ok=True)
    for lib in libraries:
        if lib.tarball.is_file() and _integrity(lib.tarball) != lib.integrity:
            lib.tarball.unlink()  # a broken or replaced download: fetch it again
    missing = [lib for lib in libraries if not lib.tarball.is_file()]
    if missing:
        npm = shutil.which("npm")
        specs = [f"{lib.name}@{lib.version}" for lib in missing]
        if npm is None:
            raise OfflineError(
                f"npm is not installed, and the asv dashboard's JavaScript libraries "
                f"({', '.join(specs)}) come from the npm registry: install npm (Debian: apt-get "
                f"install npm) and build again; npm is needed once, the packages are kept in "
                f"{TARBALLS}"
            )
        proc = subprocess.run(
            [npm, "pack", "--silent", "--ignore-scripts", *specs],
            cwd=TARBALLS,
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise OfflineError(
                f"npm pack {' '.join(specs)} failed ({proc.returncode}): "
                f"{(proc.stdout + proc.stderr)[-1500:]}"
            )
    for lib in libraries:
        if not lib.tarball.is_file():
            raise OfflineError(f"npm pack left no {lib.tarball.name} in {TARBALLS}")
        got = _integrity(lib.tarball)
        if got != lib.integrity:
            raise OfflineError(
                f"{lib.tarball.name}: sha512 {got}, not the pinned {lib.integrity}"
            )


def _unpack(lib, dest):
    """The library's ``files`` and ``extra`` (files, or folders taken whole), and its licence,
    from its tarball into ``dest``, at their paths inside the package."""
    wanted = [*lib.files.values(), *lib.extra]
    found = set()
    with tarfile.open(lib.tarball) as tar:
        for member in tar.getmembers():
            path = member.name.split("/", 1)[
                -1
            ]  # below the tarball's top folder ("package/")
            hit = next(
                (w for w in wanted if path == w or path.startswith(w + "/")), None
            )
            licence = "/" not in path and path.upper().startswith(
                ("LICENSE", "LICENCE")
            )
            if not member.isfile() or (hit is None and not licence):
                continue
            found.add(hit)
            target = dest / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(tar.extractfile(member).read())
    lost = sorted(set(wanted) - found)
    if lost:
        raise OfflineError(f"{lib.tarball.name} holds no {', '.join(lost)}")


# a <script> or <link> tag and the address it loads
_TAG = re.compile(
    r"<(script|link)\b[^>]*?\b(?:src|href)=\"(https?://[^\"]+)\"[^>]*>", re.I
)
# the attributes that tie a tag to its CDN copy (subresource integrity, CORS mode)
_CDN_ATTRS = re.compile(r"\s+(?:integrity|crossorigin|referrerpolicy)=\"[^\"]*\"", re.I)


def rewrite(html, libraries=LIBRARIES):
    """``html`` with every library address replaced by its local copy (``vendor/NAME/PATH``,
    relative to the page), and the list of the addresses of scripts and stylesheets that no
    library covers."""
    local = {
        url: f"{VENDOR_DIR}/{lib.name}/{path}"
        for lib in libraries
        for url, path in lib.files.items()
    }
    unknown = []

    def swap(match):
        tag, url = match.group(0), match.group(2)
        if url not in local:
            if match.group(1).lower() == "script" or "stylesheet" in tag.lower():
                unknown.append(url)
            return tag
        return _CDN_ATTRS.sub("", tag.replace(url, local[url]))

    return _TAG.sub(swap, html), unknown


def make_offline(out, libraries=LIBRARIES):
    """The dashboard in ``out`` with its libraries copied into ``out/vendor`` and its page
    pointing at them; raises :class:`OfflineError` when that cannot be done."""
    fetch(libraries)
    vendor = out / VENDOR_DIR
    shutil.rmtree(vendor, ignore_errors=True)
    for lib in libraries:
        _unpack(lib, vendor / lib.name)
    page = out / "index.html"
    html, unknown = rewrite(page.read_text(encoding="utf-8"), libraries)
    page.write_text(html, encoding="utf-8")
    if unknown:
        raise OfflineError(
            "asv's index.html loads libraries the dashboard's table (docs/_ext/asv_dashboard.py, "
            f"LIBRARIES) does not cover, which would need the network: {', '.join(unknown)}"
        )


def _results():
    conf = ROOT / "asv_bench" / "asv.conf.json"
    res = ROOT / "asv_bench" / "results"
    has = res.is_dir() and any(res.glob("*/machine.json"))
    return conf, has


def _asv_available():
    try:
        import asv  # noqa: F401
    except ImportError:
        return False
    return True


def _note(text):
    para = nodes.paragraph()
    para += nodes.emphasis(text=text)
    return [nodes.note("", para)]


class AsvDashboard(Directive):
    def run(self):
        _, has = _results()
        if not has:
            return _note(
                "No asv results are recorded yet (asv_bench/results/ is empty): the "
                "dashboard appears here once tools/asv_history.sh has run on a GPU "
                "machine and its results are committed."
            )
        if not _asv_available():
            return _note(
                "asv is not installed where these pages were built (pip install asv), "
                "so the dashboard was not published."
            )
        para = nodes.paragraph()
        para += nodes.reference(
            "", "Open the asv dashboard", refuri=f"{ASV_DIR}/index.html"
        )
        para += nodes.Text(
            " (benchmarks over commits: time and GB/s, ours and the peers'). It needs no "
            "network, but reads its data over HTTP: serve the built site (python -m "
            "http.server -d docs/_build/html) rather than opening the file."
        )
        return [para]


def publish_dashboard(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    conf, has = _results()
    if not has or not _asv_available():
        return
    out = pathlib.Path(app.outdir) / ASV_DIR
    cmd = [
        sys.executable,
        "-m",
        "asv",
        "publish",
        "--no-pull",
        "--config",
        str(conf),
        "--html-dir",
        str(out),
    ]
    proc = subprocess.run(
        cmd,
        cwd=conf.parent,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    if proc.returncode != 0:
        logger.warning(
            "asv publish failed (%s): %s",
            proc.returncode,
            (proc.stdout + proc.stderr)[-2000:],
        )
        return
    try:
        make_offline(out)
    except OfflineError as e:
        logger.warning("the asv dashboard would need the network: %s", e)


def setup(app):
    app.add_directive("asv-dashboard", AsvDashboard)
    app.connect("build-finished", publish_dashboard)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}

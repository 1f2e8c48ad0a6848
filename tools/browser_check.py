"""Opens the built documentation in a real browser, as a reader would, and checks that it works.

    python -m tools.browser_check docs/_build/html [--screenshots DIR]

Serves the built site on 127.0.0.1 (the asv dashboard reads its data over HTTP) and drives
headless Chromium through the DevTools protocol (``websocket-client``). Each page of ``PAGES``
fails on:

- a JavaScript error: an uncaught exception, ``console.error``, an error in the browser's log;
- a missing page or resource (an HTTP status of 400 or more, a failed load), or asv's page for
  libraries that failed to load;
- any request to another host: the site must work with no network (and other hosts do not
  resolve in the browser, as on a machine without one);
- a page's own readiness test not passing in time: the asv dashboard's plots must hold data
  points.

A PNG screenshot of every page goes into the screenshots folder. Exit status 1 names each
problem; 2 when there is no browser (``chromium``, or ``PRIMITIVES_BROWSER``).
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import functools
import http.server
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
TIMEOUT = 20.0  # seconds a page may take to load and become ready

# the number of data points in the flot plots of the elements that ``selector`` finds
_FLOT_POINTS = """(() => {
  if (typeof jQuery === 'undefined' || !jQuery.plot) return 0;
  let n = 0;
  jQuery(%s).each(function () {
    const plot = jQuery(this).data('plot');
    if (plot) for (const s of plot.getData()) n += s.data.filter(p => p && p[1] != null).length;
  });
  return n;
})()"""


# no math on the page, or MathJax has typeset it
MATH_TYPESET = (
    "document.querySelectorAll('.math').length === 0 || "
    "document.querySelector('mjx-container') !== null"
)


def flot_points(selector):
    """A readiness test: the flot plots in the elements ``selector`` finds hold data points."""
    return _FLOT_POINTS % json.dumps(selector)


@dataclasses.dataclass(frozen=True)
class Page:
    """A page to open (a path of the site, perhaps with a ``#fragment``); ``ready``, where given,
    a JavaScript expression that must become truthy, ``what`` says what it tests; ``optional``,
    paths of the site (prefixes) that the page may ask for and not find."""

    name: str
    path: str
    ready: str | None = None
    what: str = ""
    optional: tuple = ()


PAGES = (
    Page("index", "index.html"),
    Page("sorting", "sorting.html", MATH_TYPESET, "its math is typeset (MathJax of the site)"),
    Page("gallery", "generated/gallery/index.html"),
    Page(
        "asv-grid",
        "asv/index.html",
        flot_points(".benchmark-plot"),
        "the dashboard's summary plots hold data points",
    ),
    Page(
        "asv-graph",
        "asv/index.html#history.Reduction.track_gbps",
        flot_points("#main-graph"),
        "the benchmark's graph holds data points",
        # asv asks for the graph of every machine and environment of its parameter list and
        # draws those that exist
        optional=("asv/graphs/",),
    ),
)

# asv's page for libraries that failed to load (its index.html redirects there)
ASV_FAILED = "Can not determine continental origin of swallow"


class BrowserError(RuntimeError):
    """The browser could not be started or driven."""


def find_browser():
    """The browser to drive: ``PRIMITIVES_BROWSER`` or the first of ``BROWSERS`` on the PATH."""
    named = os.environ.get("PRIMITIVES_BROWSER")
    if named:
        return shutil.which(named) or named
    return next((p for p in map(shutil.which, BROWSERS) if p), None)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@dataclasses.dataclass
class _Server:
    root: pathlib.Path

    def __enter__(self):
        handler = functools.partial(_Quiet, directory=str(self.root))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


class _DevTools:
    """One page of the browser, driven over the DevTools protocol; events are kept in order."""

    def __init__(self, ws_url):
        import websocket

        self._timeout = websocket.WebSocketTimeoutException
        self.ws = websocket.create_connection(ws_url, timeout=TIMEOUT, suppress_origin=True)
        self.next_id = 0
        self.events = []

    def call(self, method, **params):
        self.next_id += 1
        self.ws.settimeout(TIMEOUT)
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise BrowserError(f"{method}: {msg['error'].get('message')}")
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def pump(self, seconds):
        """Collects the events of the next ``seconds``."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            self.ws.settimeout(left)
            try:
                msg = json.loads(self.ws.recv())
            except self._timeout:
                return
            if "method" in msg:
                self.events.append(msg)

    def evaluate(self, expression):
        res = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in res:
            return None
        return res["result"].get("value")

    def close(self):
        self.ws.close()


class _Chromium:
    """Headless Chromium with a fresh profile and no way out to other hosts."""

    def __init__(self, path):
        self.path = path

    def __enter__(self):
        self.profile = tempfile.mkdtemp(prefix="browser-check-")
        args = [
            self.path,
            "--headless",
            "--no-sandbox",  # as root, Chromium starts only without its sandbox; local pages only
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--hide-scrollbars",
            # no host but this machine resolves: the pages must need no network
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
            "--window-size=1280,900",
            f"--user-data-dir={self.profile}",
            "--remote-debugging-port=0",
            "about:blank",
        ]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            self.port = self._port()
            self.page = _DevTools(self._page_socket())
        except BaseException:
            self.__exit__()
            raise
        return self

    def _port(self):
        active = pathlib.Path(self.profile) / "DevToolsActivePort"
        end = time.monotonic() + TIMEOUT
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode(errors="replace")[-1500:]
                raise BrowserError(f"{self.path} exited ({self.proc.returncode}): {err}")
            text = active.read_text() if active.is_file() else ""
            if text.count("\n") >= 1:
                return int(text.split("\n")[0])
            time.sleep(0.05)
        raise BrowserError(f"{self.path} opened no DevTools port within {TIMEOUT:.0f} s")

    def _page_socket(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json/list") as r:
            targets = json.load(r)
        pages = [t for t in targets if t.get("type") == "page"]
        if not pages:
            raise BrowserError("the browser has no page to drive")
        return pages[0]["webSocketDebuggerUrl"]

    def __exit__(self, *exc):
        if getattr(self, "page", None) is not None:
            self.page.close()
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


@dataclasses.dataclass
class Result:
    page: Page
    url: str
    problems: list
    screenshot: pathlib.Path | None


def _problems(events, base, optional=()):
    """What went wrong, as read from the DevTools events of one page's visit; a request for one of
    the ``optional`` paths (prefixes) may fail, and so may the browser's own for a favicon."""
    optional = tuple(base + p for p in optional) + (base + "favicon.ico",)
    skip = set()  # the requests that may fail
    urls = {}  # request id: address
    out = []
    for ev in events:
        m, p = ev["method"], ev["params"]
        if m == "Runtime.exceptionThrown":
            d = p["exceptionDetails"]
            text = d.get("exception", {}).get("description") or d.get("text")
            out.append(f"uncaught JavaScript exception: {text} ({d.get('url', '')})")
        elif m == "Runtime.consoleAPICalled" and p["type"] in ("error", "assert"):
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in p["args"])
            out.append(f"console.{p['type']}: {args}")
        elif m == "Log.entryAdded" and p["entry"]["level"] == "error":
            e = p["entry"]
            if e.get("networkRequestId") in skip or e.get("url", "").startswith(optional):
                continue
            out.append(f"browser log error: {e['text']} {e.get('url', '')}".rstrip())
        elif m == "Network.requestWillBeSent":
            url = urls[p["requestId"]] = p["request"]["url"]
            if url.startswith(optional):
                skip.add(p["requestId"])
            scheme = urllib.parse.urlsplit(url).scheme
            if scheme not in ("data", "blob", "about") and not url.startswith(base):
                out.append(f"asks the network for {url}")
        elif m == "Network.responseReceived" and p["response"]["status"] >= 400:
            r = p["response"]
            if p["requestId"] in skip:
                continue
            out.append(f"HTTP {r['status']} for {r['url']}")
        elif m == "Network.loadingFailed" and not p.get("canceled") and p["requestId"] not in skip:
            out.append(f"failed to load ({p['errorText']}): {urls.get(p['requestId'], '?')}")
    return list(dict.fromkeys(out))  # each once, in order


def _visit(tab, page, base, screenshots):
    url = base + page.path
    tab.call("Page.navigate", url="about:blank")
    tab.pump(0.1)
    tab.events.clear()
    tab.call("Page.navigate", url=url)
    # loaded, and no request in flight for a moment
    inflight, loaded, quiet_since = set(), False, None
    end = time.monotonic() + TIMEOUT
    while time.monotonic() < end:
        start = len(tab.events)
        tab.pump(0.1)
        for ev in tab.events[start:]:
            m, p = ev["method"], ev["params"]
            if m == "Network.requestWillBeSent":
                inflight.add(p["requestId"])
            elif m in ("Network.loadingFinished", "Network.loadingFailed"):
                inflight.discard(p["requestId"])
            elif m == "Page.loadEventFired":
                loaded = True
        if loaded and not inflight:
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since >= 0.3:
                break
        else:
            quiet_since = None
    problems = []
    if not loaded:
        problems.append(f"did not finish loading within {TIMEOUT:.0f} s")
    if page.ready is not None:
        value = tab.evaluate(page.ready)
        while not value and time.monotonic() < end:
            tab.pump(0.25)
            value = tab.evaluate(page.ready)
        if not value:
            problems.append(f"not ready within {TIMEOUT:.0f} s: {page.what or page.ready}")
    tab.pump(0.2)  # errors raised by the last drawing
    where = tab.evaluate("location.href") or ""
    body = tab.evaluate("document.body ? document.body.innerText : ''") or ""
    if where.split("#")[0].endswith("/error.html") or ASV_FAILED in body:
        problems.append(f"asv's page for libraries that failed to load ({where})")
    shot = None
    if screenshots is not None:
        png = tab.call("Page.captureScreenshot", format="png")["data"]
        shot = pathlib.Path(screenshots) / f"{page.name}.png"
        shot.write_bytes(base64.b64decode(png))
    return Result(page, url, _problems(tab.events, base, page.optional) + problems, shot)


def check_site(root, pages=PAGES, screenshots=None, browser=None):
    """Opens every page of ``pages`` from the site in ``root``; a :class:`Result` per page.
    Raises :class:`BrowserError` when there is no browser or it cannot be driven."""
    root = pathlib.Path(root)
    browser = browser or find_browser()
    if browser is None:
        raise BrowserError(
            f"no browser found ({', '.join(BROWSERS)} on the PATH, or PRIMITIVES_BROWSER); "
            "Debian: apt-get install chromium"
        )
    if screenshots is not None:
        pathlib.Path(screenshots).mkdir(parents=True, exist_ok=True)
    with _Server(root) as server, _Chromium(browser) as chrome:
        tab = chrome.page
        for domain in ("Page", "Runtime", "Log", "Network"):
            tab.call(f"{domain}.enable")
        tab.call("Network.setCacheDisabled", cacheDisabled=True)
        return [_visit(tab, page, server.base, screenshots) for page in pages]


def report(results):
    """The problems of ``results``, one line each (empty when every page passed)."""
    return [f"{r.page.name} ({r.page.path}): {p}" for r in results for p in r.problems]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.browser_check", description=__doc__)
    ap.add_argument("site", type=pathlib.Path, help="the built HTML (docs/_build/html)")
    ap.add_argument("--screenshots", type=pathlib.Path, default=None, help="PNG per page here")
    args = ap.parse_args(argv)
    try:
        results = check_site(args.site, screenshots=args.screenshots)
    except BrowserError as e:
        print(f"browser_check: {e}", file=sys.stderr)
        return 2
    for r in results:
        status = "ok" if not r.problems else f"{len(r.problems)} problem(s)"
        print(f"{r.page.name:10s} {status:14s} {r.url}")
    sys.stdout.flush()
    lines = report(results)
    for line in lines:
        print(line, file=sys.stderr)
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())

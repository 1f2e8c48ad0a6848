"""pytest plugin of a parity run: each test's report carries whether its calls reached this
library (``routed``), and the run's outcomes go to the JSON file named by
``PRIMITIVES_PARITY_JSON`` (per test: outcome, routed, the first line of the error)."""

from __future__ import annotations

import json
import os
import re

import pytest

from . import route

_RESULTS: dict[str, dict] = {}


def pytest_runtest_setup(item):
    route.reset()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.user_properties.append(("routed", route.HITS[0] > 0))


#: a line naming an exception (``E   TypeError: ...`` of pytest's traceback, or of the one that
#: CuPy's comparison decorators quote when only one side raised)
_RAISED = re.compile(r"^(?:E\s+)?((?:\w+\.)*\w*(?:Error|Exception|Warning)\b.*)$")


def _first_line(report) -> str:
    """What failed: the first exception line that is not the comparison's own AssertionError
    (so ``Only cupy raises error`` reports the library's exception), else the crash message."""
    crash = getattr(report.longrepr, "reprcrash", None)
    head = crash.message if crash is not None else str(report.longrepr or "")
    for line in str(report.longrepr or "").splitlines():
        m = _RAISED.match(line.strip())
        if m and not m.group(1).startswith("AssertionError"):
            return m.group(1)[:200]
    return head.strip().splitlines()[0][:200] if head.strip() else ""


def pytest_runtest_logreport(report):
    routed = dict(report.user_properties).get("routed", False)
    entry = _RESULTS.setdefault(report.nodeid, {"outcome": "passed", "routed": False, "error": ""})
    entry["routed"] = entry["routed"] or routed
    if report.failed:
        entry["outcome"] = "failed"
        entry["error"] = entry["error"] or _first_line(report)
    elif report.skipped and report.when in ("setup", "call") and entry["outcome"] != "failed":
        entry["outcome"] = "skipped"
        entry["error"] = _first_line(report)


def pytest_sessionfinish(session):
    path = os.environ.get("PRIMITIVES_PARITY_JSON")
    if path and not hasattr(session.config, "workerinput"):  # the controller's, under xdist
        with open(path, "w") as f:
            json.dump(_RESULTS, f, indent=0)

"""``python -m tools.figures --jobs N``'s compile of every kernel first (tools/figures/__main__.py,
``prebuilt``), without a GPU: the build is asked for the device's architecture into a folder
that the loader reads while the figures run, and the variable that points there is put back."""

import os
import pathlib

from primitives._core import binaries
from tools.figures.__main__ import prebuilt

VAR = "PRIMITIVES_KERNEL_BINARIES"


def _fake_build(calls):
    def build(out, archs, jobs):
        calls.append((out, list(archs), jobs))
        assert pathlib.Path(out).is_dir()
        return {}

    return build


def test_the_kernels_are_built_for_the_device_and_read_from_there_while_open(monkeypatch):
    calls, logged = [], []
    monkeypatch.setattr(binaries, "index", lambda: None)  # no shipped binaries serve this build
    monkeypatch.setattr(binaries, "build", _fake_build(calls))
    monkeypatch.setenv(VAR, "earlier")
    with prebuilt(16, "90", log=logged.append):
        [(out, archs, jobs)] = calls
        assert (archs, jobs) == (["sm_90"], 16)
        assert os.environ[VAR] == out
        assert binaries.binaries_dir() == pathlib.Path(out)
    assert os.environ[VAR] == "earlier"  # put back
    assert not pathlib.Path(out).exists()  # the temporary folder is gone
    assert logged and "sm_90 in 16 processes" in logged[0]


def test_the_variable_is_removed_when_it_was_not_set(monkeypatch):
    monkeypatch.setattr(binaries, "index", lambda: None)
    monkeypatch.setattr(binaries, "build", _fake_build([]))
    monkeypatch.delenv(VAR, raising=False)
    with prebuilt(2, "80", log=lambda _: None):
        assert VAR in os.environ
    assert VAR not in os.environ


def test_nothing_is_built_where_the_package_s_binaries_serve(monkeypatch):
    calls, logged = [], []
    monkeypatch.setattr(binaries, "index", lambda: {"modules": {}})
    monkeypatch.setattr(binaries, "build", _fake_build(calls))
    monkeypatch.delenv(VAR, raising=False)
    with prebuilt(16, "90", log=logged.append):
        assert VAR not in os.environ
    assert calls == [] and "package's binaries" in logged[0]

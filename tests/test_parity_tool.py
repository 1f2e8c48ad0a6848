"""The parity tool's rewriting and routing (tools/parity), without CuPy: a stand-in ``cupy``
module whose arrays are NumPy arrays of a subclass."""

import types

import numpy as np
import pytest

from tools.parity import route
from tools.parity.rewrite import rewrite

SOURCE = '''
"""doc"""
from __future__ import annotations
import numpy

def external(xp, a):
    return xp.sum(a, axis=0)

def method(a):
    return a.max()

def dynamic(xp, name, a):
    return getattr(xp, name)(a)

def in_place(a):
    a.sort()
    return a

def untouched(xp, a):
    return xp.ravel(a)
'''


class _Array(np.ndarray):
    pass


@pytest.fixture
def fake_cupy(monkeypatch):
    mod = types.ModuleType("cupy")
    mod.ndarray = _Array
    mod.sum = lambda a, axis=None: "cupy's own sum"
    mod.ravel = np.ravel
    monkeypatch.setattr(route, "_cupy", lambda: mod)
    return mod


def _load(source):
    ns: dict = {}
    exec(compile(rewrite(source), "<rewritten>", "exec"), ns)
    return ns


def test_rewrite_keeps_docstring_and_future_first():
    text = rewrite(SOURCE)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    assert lines[0].startswith("'doc'") or lines[0].startswith('"""doc')
    assert lines[1] == "from __future__ import annotations"
    assert lines[2] == "import tools.parity.route as __prim_route__"


def test_calls_on_cupy_reach_the_library_and_others_do_not(fake_cupy):
    ns = _load(SOURCE)
    a = np.arange(6.0).reshape(2, 3)[::-1].copy().view(_Array)
    route.reset()
    np.testing.assert_array_equal(np.asarray(ns["external"](fake_cupy, a)), a.sum(axis=0))
    assert route.HITS[0] == 1
    assert float(ns["method"](a)) == 5.0
    assert float(ns["dynamic"](fake_cupy, "min", a)) == 0.0
    assert route.HITS[0] == 3
    # NumPy's calls and names the library lacks go to the original
    route.reset()
    assert float(ns["external"](np, np.ones((2, 2)))[0]) == 2.0
    assert float(ns["method"](np.arange(3))) == 2
    assert ns["untouched"](fake_cupy, a).shape == (6,)
    assert route.HITS[0] == 0


def test_in_place_methods_write_into_the_array(fake_cupy):
    ns = _load(SOURCE)
    a = np.array([3.0, 1.0, 2.0]).view(_Array)
    route.reset()
    out = ns["in_place"](a)
    assert out is a
    np.testing.assert_array_equal(np.asarray(a), [1.0, 2.0, 3.0])
    assert route.HITS[0] == 1


def test_aliases_and_private_names():
    assert route.target("amax") is route.prim.max
    assert route.target("_private") is None
    assert route.target("ravel") is None

"""The entry protocol (primitives._core.entry): the call key, the repeat-call fast path, plans
and the declared function's name, signature and docstring, on a toy function."""

import inspect

import numpy as np
import pytest

import primitives as prim
from primitives._core import backend as _backend, entry, plans

pytestmark = pytest.mark.skipif(
    _backend.get_backend().name != "emulator", reason="keys arrays of the emulator's own type"
)


def _toy():
    calls = []

    def prepare(x, scale=2, y=None, *, variant="auto"):
        calls.append(variant)
        if type(scale) is not int:
            raise TypeError(f"toy: scale must be an int, got {type(scale).__name__}")
        arr = np.ascontiguousarray(x)
        if arr.size == 0:
            return entry.Prepared.done("empty")

        def run(a, b=None):
            return a * scale if b is None else a * scale + b

        return entry.Prepared(run, (arr, y), reusable=arr is x)

    @entry.function(prepare, arrays=("x", "y"))
    def toy(x, scale=2, y=None, *, variant="auto"):
        """A toy."""

    return toy, calls


def test_the_declared_function_gives_name_signature_and_docstring():
    toy, _ = _toy()
    assert toy.__name__ == "toy" and toy.__doc__ == "A toy."
    assert list(inspect.signature(toy).parameters) == ["x", "scale", "y", "variant"]


def test_a_repeat_call_skips_prepare():
    plans.clear_caches()
    toy, calls = _toy()
    x = np.arange(5)
    np.testing.assert_array_equal(toy(x), 2 * x)
    np.testing.assert_array_equal(toy(x), 2 * x)
    assert calls == ["auto"]
    np.testing.assert_array_equal(toy(x, 3), 3 * x)  # another option: another key
    np.testing.assert_array_equal(toy(x, y=x), 3 * x)
    np.testing.assert_array_equal(toy(x, y=x), 3 * x)
    assert calls == ["auto", "auto", "auto"]


@pytest.mark.parametrize(
    "call",
    [
        lambda toy, x: toy(x, 2.0),  # 2.0 is not 2: its own key, and its own checks
        lambda toy, x: toy(x, True),
    ],
)
def test_options_are_keyed_by_type_and_value(call):
    plans.clear_caches()
    toy, calls = _toy()
    x = np.arange(3)
    toy(x)
    with pytest.raises(TypeError, match="^toy: scale must be an int"):
        call(toy, x)


def test_no_fast_path_for_other_arrays_or_unhashable_options():
    plans.clear_caches()
    toy, calls = _toy()
    x = np.arange(6)
    toy(x[::2])  # not contiguous: read through a copy, not reusable
    toy(x[::2])
    toy([1, 2])  # not an array of the backend's type
    toy([1, 2])
    assert calls == ["auto"] * 4
    toy(x, variant={"a": 1})  # unhashable option: checked every call
    toy(x, variant={"a": 1})
    assert len(calls) == 6
    toy(x, variant=["a", 1])  # a list of scalars (a range) is keyed by its values
    toy(x, variant=["a", 1])
    assert len(calls) == 7
    toy(x, variant=("a", 1))  # a tuple is not the list
    assert len(calls) == 8


def test_done_results_are_not_filed():
    plans.clear_caches()
    toy, calls = _toy()
    e = np.arange(0)
    assert toy(e) == "empty" and toy(e) == "empty"
    assert len(calls) == 2


def test_plans_of_an_entry():
    plans.clear_caches()
    toy, calls = _toy()
    x = np.arange(4)
    p = prim.plan(toy, x, 3)
    assert calls == ["auto"]
    np.testing.assert_array_equal(p(x), 3 * x)
    np.testing.assert_array_equal(p(np.arange(4) + 1), 3 * (x + 1))
    assert calls == ["auto"]  # like arrays: the plan's runner
    np.testing.assert_array_equal(p(np.arange(7)), 3 * np.arange(7))  # unlike: the function
    with pytest.raises(TypeError, match=r"^toy\(\) got an unexpected keyword argument 'axis'"):
        toy.plan(x, axis=0)


def test_prepare_must_take_every_parameter():
    def prepare(x):
        raise AssertionError

    with pytest.raises(TypeError, match="f: prepare does not take scale"):

        @entry.function(prepare, arrays=("x",))
        def f(x, scale=1):
            """f."""


def test_declared_arrays_must_be_parameters():
    with pytest.raises(TypeError, match="declared array 'y' is not a parameter"):

        @entry.function(lambda x: None, arrays=("x", "y"))
        def f(x):
            """f."""


def test_tokens_and_scalars():
    """A declared array keyed by its token (an object that is not an array), and scalars keyed
    by their type only and given to the run on every call."""
    plans.clear_caches()
    calls = []

    class Box:
        def __init__(self, token, value=0):
            self.token, self.value = token, value

    def prepare(m, x, *, alpha=1.0):
        calls.append(alpha)
        return entry.Prepared(lambda m_, x_, a: x_ * a + m_.value, (m, x, alpha), reusable=True)

    @entry.function(prepare, arrays=("m", "x"), tokens={"m": lambda m: m.token}, scalars=("alpha",))
    def f(m, x, *, alpha=1.0):
        """f."""

    x, b = np.arange(3.0), Box(1, 10)
    np.testing.assert_array_equal(f(b, x, alpha=2.0), 2 * x + 10)
    np.testing.assert_array_equal(f(b, x, alpha=3.0), 3 * x + 10)  # the filed run, alpha given
    assert calls == [2.0]
    np.testing.assert_array_equal(f(b, x, alpha=3), 3 * x + 10)  # another type: prepared
    np.testing.assert_array_equal(f(Box(2, 20), x, alpha=3.0), 3 * x + 20)  # another token
    assert calls == [2.0, 3, 3.0]
    f(Box(None), x)  # no token: no fast path
    f(Box(None), x)
    assert len(calls) == 5
    p = f.plan(b, x, alpha=4.0)
    np.testing.assert_array_equal(p(b, x), 4 * x + 10)


def test_a_plan_keeps_the_arrays_it_was_given_as_options():
    plans.clear_caches()
    toy, calls = _toy()
    x = np.arange(4)
    p = prim.plan(toy, x, y=x)
    np.testing.assert_array_equal(p(x), 3 * x)
    assert calls == ["auto"]


def test_arguments_the_function_does_not_take_name_it():
    toy, _ = _toy()
    with pytest.raises(TypeError, match=r"^toy\(\) got an unexpected keyword argument 'axis'"):
        toy(np.arange(3), axis=0)
    with pytest.raises(TypeError, match=r"^toy\(\) missing a required argument: 'x'"):
        toy()
    with pytest.raises(TypeError, match="^toy: scale must be an int"):  # prepare's own
        toy(np.arange(3), 1.5)


def test_a_scalar_for_a_declared_array_is_bound_by_a_plan():
    """``prim.plan(prim.searchsorted, a, 3)``: a plan called with ``a`` alone."""
    plans.clear_caches()
    toy, calls = _toy()
    x = np.arange(4)
    p = prim.plan(toy, x, 2, 5)  # y=5, not an array: bound
    np.testing.assert_array_equal(p(x), 2 * x + 5)


def test_later_is_what_repeat_calls_and_whole_plans_run():
    """``Prepared(later=...)``: this call runs ``run`` (its values checked by prepare), later
    calls on like arrays run ``later`` (checking their own); a plan runs ``later`` when its calls
    give every declared array, else ``run`` (its bound arrays were checked once)."""
    plans.clear_caches()
    ran = []

    def prepare(x, y=None):
        return entry.Prepared(
            lambda a, b=None: ran.append("run") or a,
            (x, y),
            reusable=True,
            later=lambda a, b=None: ran.append("later") or a,
        )

    @entry.function(prepare, arrays=("x", "y"))
    def f(x, y=None):
        """f."""

    x = np.arange(3)
    f(x)
    f(x)
    f(x)
    assert ran == ["run", "later", "later"]
    ran.clear()
    f.plan(x, x)(x, x)  # every declared array given per call: later
    f.plan(x)(x)  # y bound: run
    assert ran == ["later", "run"]


#: functions along axes that read an F-ordered array in place (as its reversed view)
_F_ORDER = {
    "argmax": (prim.argmax, np.argmax),
    "argmin": (prim.argmin, np.argmin),
    "var": (prim.var, np.var),
    "std": (prim.std, np.std),
    "nanvar": (prim.nanvar, np.nanvar),
    "nanargmax": (prim.nanargmax, np.nanargmax),
}


@pytest.mark.parametrize("name", sorted(_F_ORDER))
@pytest.mark.parametrize("shape,axis", [((33, 70), 0), ((33, 70), 1), ((5, 6, 7), 1)])
def test_an_f_ordered_array_takes_the_fast_path(name, shape, axis, monkeypatch):
    """A repeat call on an F-ordered array like the first (read in place, as a view of it) runs
    the first call's filed run, without its checks, and answers for its own values."""
    func, oracle = _F_ORDER[name]
    e = func.entry
    prepared = []
    prepare = e.prepare
    monkeypatch.setattr(e, "prepare", lambda *a, **k: prepared.append(1) or prepare(*a, **k))
    prim.clear_caches()
    rng = np.random.default_rng(11)
    xp = _backend.get_backend().xp
    for _ in range(3):
        h = np.asfortranarray(rng.random(shape).astype(np.float32))
        got = func(xp.asarray(h, order="F"), axis=axis)
        np.testing.assert_allclose(_backend.to_host(got), oracle(h, axis=axis), rtol=2e-6)
    assert prepared == [1]


@pytest.mark.parametrize("name", ["nancumsum", "nancumprod"])
@pytest.mark.parametrize("shape,axis", [((1000,), None), ((40, 30), 0), ((40, 30), None)])
def test_nan_scans_take_the_fast_path(name, shape, axis, monkeypatch):
    """nancumsum/nancumprod of the backend's arrays: a repeat call on a like array runs the first
    call's filed run (the NaN replacement in it), answering for its own NaNs."""
    func, oracle = getattr(prim, name), getattr(np, name)
    e = func.entry
    prepared, prepare = [], e.prepare
    monkeypatch.setattr(e, "prepare", lambda *a, **k: prepared.append(1) or prepare(*a, **k))
    prim.clear_caches()
    rng = np.random.default_rng(5)
    xp = _backend.get_backend().xp
    for _ in range(3):
        h = rng.uniform(0.9, 1.1, shape)
        h[rng.random(shape) < 0.1] = np.nan
        got = func(xp.asarray(h), axis=axis)
        np.testing.assert_allclose(_backend.to_host(got), oracle(h, axis=axis), rtol=1e-12)
    assert prepared == [1]

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

"""The corners the property tests (tests/test_properties_stats.py, tests/test_properties.py)
found, each pinned as one case against NumPy through the harness: the NaN-skipping functions
of integers as NumPy's plain reductions (every keyword passed on), 0-d arrays with ``axis`` 0
or -1, var/std of complex input with a ``dtype``, average's divisions by zero, min/max with
``initial`` into an ``out`` of another dtype, and the errors of a function that hands its
arguments to another named after the function called."""

import warnings

import numpy as np
import pytest

import primitives as prim
from primitives.testing import harness as H

U8, I8 = np.dtype(np.uint8), np.dtype(np.int8)


def _out(dt, shape=()):
    return np.full(shape, 7, dtype=dt)


CASES = {
    # integers: NumPy's nanmin is its min with initial, out, where (an empty one's initial)
    "nanmin empty initial": lambda xp: xp.nanmin(np.array([], U8), initial=3),
    "nanmax empty initial out": lambda xp: xp.nanmax(
        np.array([], U8), initial=3, out=_out(np.float16)
    ),
    "nansum initial into a float out": lambda xp: xp.nansum(
        np.array(3, U8), initial=-2, out=_out(np.float16)
    ),
    "nanprod initial into a float out": lambda xp: xp.nanprod(
        np.array([3, 2], U8), initial=-2, out=_out(np.float64)
    ),
    "nanmin where initial": lambda xp: xp.nanmin(
        np.array([4, 1, 6], I8), where=np.array([True, False, True]), initial=5
    ),
    # min/max with initial into out of another dtype: each element combined as it is
    "min initial into uint8": lambda xp: xp.min(np.array([-1, 3], I8), initial=0, out=_out(U8)),
    "max initial into uint8 axis": lambda xp: xp.max(
        np.array([[2, -5], [3, 4]], I8), axis=0, initial=0, out=_out(U8, (2,))
    ),
    "nanmin float into bool": lambda xp: xp.nanmin(
        np.array([[-3.0, -1.0], [0.0, np.nan]], np.float16), axis=0, out=_out(np.bool_, (2,))
    ),
    # 0-d arrays: NumPy's ufunc reductions take axis 0 and -1, nanmean/nanvar of floats too
    "nanmean 0-d axis 0": lambda xp: xp.nanmean(np.array(2.0, np.float16), axis=0),
    "nanvar 0-d axis -1": lambda xp: xp.nanvar(np.array(2.0, np.float32), axis=-1),
    "nanstd 0-d int axis 0": lambda xp: xp.nanstd(np.array(2, I8), axis=0),
    "nanargmin 0-d axis 0": lambda xp: xp.nanargmin(np.array(2.0, np.float16), axis=0),
    "nanargmax 0-d axis -1": lambda xp: xp.nanargmax(np.array(2.0), axis=-1),
    "var 0-d ddof 1 into float16": lambda xp: xp.var(np.array(2, I8), ddof=1, out=_out(np.float16)),
    # var/std of complex input with a dtype: NumPy's mean in dtype, complex deviations
    "var complex float32 dtype": lambda xp: xp.var(
        np.array([1 + 1j, 2 - 1j, 3], np.complex64), dtype=np.float32
    ),
    "var complex float64 dtype": lambda xp: xp.var(
        np.array([1 + 1j, 2 - 1j, 3], np.complex64), dtype=np.float64
    ),
    "std complex float16 dtype ddof 1": lambda xp: xp.std(
        np.array(2 + 1j, np.complex64), dtype=np.float16, ddof=1
    ),
    "nanvar complex float32 dtype": lambda xp: xp.nanvar(
        np.array([[1 + 1j, np.nan, 2 - 1j, 4]], np.complex64), axis=1, dtype=np.float32
    ),
    "var complex complex dtype": lambda xp: xp.var(
        np.array([1 + 1j, 2 - 1j, 3], np.complex64), dtype=np.complex64
    ),
    "var NaN complex dtype": lambda xp: xp.var(np.array([1.0, np.nan]), dtype=np.complex64),
    "std too few complex dtype": lambda xp: xp.std(
        np.array([1.0, 2.0]), dtype=np.complex64, ddof=2
    ),
    "nanvar int float16 dtype ddof": lambda xp: xp.nanvar(
        np.array([2, 1], I8), ddof=2, dtype=np.float16
    ),
    # average: NumPy's scale a.size / avg.size, and the weights' own sums
    "average empty result": lambda xp: xp.average(np.zeros((0, 3)), axis=1),
    "average weights along an empty axis": lambda xp: xp.average(
        np.zeros((0, 0), I8), axis=0, weights=np.zeros(0)
    ),
    "average empty weights": lambda xp: xp.average(np.array([], I8), weights=np.array([])),
    # histogram of no samples with float32 weights (no variant chosen)
    "histogram empty weighted": lambda xp: xp.histogram(
        np.array([], I8), bins=1, weights=np.array([], np.float32)
    ),
    "median empty no axes": lambda xp: xp.median(np.array([], I8), axis=()),
}


@pytest.mark.parametrize("case", list(CASES))
def test_as_numpy(case):
    body = CASES[case]
    body.__name__ = case
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's and the library's alike; compared elsewhere
        H.run_twins(body, name=case.split()[0])


@pytest.mark.parametrize(
    "call,func,exc",
    [
        (lambda: prim.nanmin(np.array(3, U8), initial=-2), "nanmin", OverflowError),
        (lambda: prim.nanargmin(np.array([], bool)), "nanargmin", ValueError),
        (lambda: prim.nanargmax(np.ones(3), axis=4), "nanargmax", np.exceptions.AxisError),
        (lambda: prim.nancumsum(np.array([1, 2]), axis=()), "nancumsum", TypeError),
        (lambda: prim.nanmax(np.array([], np.int16)), "nanmax", ValueError),
        (lambda: prim.nanargmin(np.array([np.nan])), "nanargmin", ValueError),
        (lambda: prim.nansum(np.ones(3), initial="a"), "nansum", ValueError),
        (lambda: prim.nanmax(np.ones(3), initial=[1, 2]), "nanmax", ValueError),
        (lambda: prim.histogram(np.ones(3), range=(1,)), "histogram", ValueError),
        (lambda: prim.histogramdd(np.ones((3, 2)), range=(2, 1)), "histogramdd", TypeError),
    ],
    ids=[
        "initial",
        "empty",
        "axis",
        "axis tuple",
        "empty integers",
        "all NaN",
        "float initial",
        "initial sequence",
        "range of one",
        "range of numbers",
    ],
)
def test_errors_name_the_function_called(call, func, exc):
    """A function that hands its arguments to another (NumPy's nanmin of integers is its min)
    names itself in their errors (primitives._core.checks.errors_of); so do NumPy's own errors
    of a malformed initial or range (the same types as NumPy's)."""
    with pytest.raises(exc, match=f"^{func}: "):
        call()

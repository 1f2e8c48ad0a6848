"""NumPy's ``where=`` and ``initial=`` of the reductions (sum, prod, min, max, reduce; mean, any
and all take ``where`` only), and the order of complex numbers in min/max/argmin/argmax
(lexicographic, NaN first) and their truth in any/all: property tests over dtypes, layouts,
axes and masks that broadcast, through the shared harness, and one test per error branch."""

import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import primitives as prim
from primitives import tuning
from primitives.testing import harness as H
from tests.test_properties import ALL, COMPLEX, SETTINGS, _twins, arrays, axes


@st.composite
def masks(draw, shape):
    """A ``where`` argument for an array of ``shape``: a bool scalar, or a bool array of a shape
    that broadcasts to it (each axis its length or 1, leading axes maybe left out), in C or F
    order."""
    if draw(st.integers(0, 5)) == 0:
        return draw(st.booleans())
    lead = draw(st.integers(0, len(shape)))
    mshape = tuple(d if draw(st.booleans()) else 1 for d in shape[lead:])
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    m = rng.random(mshape) < draw(st.sampled_from((0.2, 0.6, 0.95)))
    return np.asfortranarray(m) if draw(st.booleans()) else m


@SETTINGS
@given(data=st.data(), name=st.sampled_from(("sum", "prod", "min", "max")))
def test_where_initial(data, name):
    x = data.draw(arrays(small=name == "prod"), "x")
    kwargs = {"axis": data.draw(axes(x.ndim), "axis"), "keepdims": data.draw(st.booleans())}
    if data.draw(st.booleans(), "with where"):
        kwargs["where"] = data.draw(masks(x.shape), "where")
    if data.draw(st.booleans(), "with initial"):  # min/max with a mask and none: NumPy's error
        kwargs["initial"] = data.draw(st.integers(-2, 3), "initial")
    _twins(name, x, kwargs)


@SETTINGS
@given(data=st.data(), name=st.sampled_from(("mean", "any", "all")))
def test_where_mean_any_all(data, name):
    x = data.draw(arrays(), "x")
    kwargs = {
        "axis": data.draw(axes(x.ndim), "axis"),
        "keepdims": data.draw(st.booleans()),
        "where": data.draw(masks(x.shape), "where"),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # mean of an empty slice: both warn
        _twins(name, x, kwargs)


@SETTINGS
@given(data=st.data(), name=st.sampled_from(("min", "max")))
def test_complex_min_max(data, name):
    x = data.draw(arrays(dtypes=COMPLEX), "x")
    kwargs = {"axis": data.draw(axes(x.ndim), "axis"), "keepdims": data.draw(st.booleans())}
    _twins(name, x, kwargs)


@SETTINGS
@given(data=st.data(), name=st.sampled_from(("argmin", "argmax")))
def test_complex_argmin_argmax(data, name):
    x = data.draw(arrays(dtypes=COMPLEX), "x")
    kwargs = {
        "axis": data.draw(axes(x.ndim, tuples=False), "axis"),
        "keepdims": data.draw(st.booleans()),
    }
    _twins(name, x, kwargs)


# ---- fixed cases: NaN in either part, the first NaN, ties, infinities ------------------------

NAN = np.nan
CASES = [
    [1 + 1j, complex(NAN, 0), 2 + 0j],
    [1 + 1j, complex(0, NAN), complex(NAN, 0), 2 + 0j],
    [1 + 3j, 1 + 1j, 2 - 1j, 2 - 1j, 2 - 5j],
    [complex(-np.inf, -np.inf), complex(-np.inf, 1), complex(np.inf, -np.inf)],
    [complex(np.inf, np.inf), 0j],
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("dtype", COMPLEX, ids=str)
@pytest.mark.parametrize("name", ["min", "max", "argmin", "argmax", "any", "all"])
def test_complex_order_cases(name, dtype, case):
    x = np.array(CASES[case], dtype)
    H.run_twins(lambda xp: getattr(xp, name)(x), name=name)
    two = np.stack([x, x[::-1]], axis=1)
    H.run_twins(lambda xp: getattr(xp, name)(two, axis=0), name=name)


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_where_false_everywhere(dtype):
    x = np.ones((2, 3), dtype)
    for name, kw in [("sum", {}), ("prod", {}), ("max", {"initial": 2}), ("min", {"initial": 0})]:
        H.run_twins(lambda xp: getattr(xp, name)(x, axis=1, where=False, **kw), name=name)
    H.run_twins(lambda xp: xp.any(x, where=False), name="any")
    H.run_twins(lambda xp: xp.all(x, axis=0, where=False), name="all")


@pytest.mark.parametrize("name", ["min", "max"])
def test_empty_with_initial(name):
    H.run_twins(lambda xp: getattr(xp, name)(np.ones((0, 3)), initial=7), name=name)
    H.run_twins(lambda xp: getattr(xp, name)(np.ones((0, 3)), axis=0, initial=-1), name=name)


def test_mean_of_an_empty_slice_warns():
    x = np.arange(6.0).reshape(2, 3)
    m = np.array([True, False, True])
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        got = prim.mean(x, axis=0, where=m)
    H.assert_same(got, np.array([1.5, np.nan, 3.5]))


def test_reduce_takes_where_and_initial():
    x = np.arange(12).reshape(3, 4)
    m = x % 3 == 0
    H.assert_same(
        prim.reduce(x, "max", axis=1, where=m, initial=-1), np.max(x, 1, where=m, initial=-1)
    )
    H.assert_same(prim.reduce(x, "sum", where=m, initial=5), np.sum(x, where=m, initial=5))


def test_out_with_where():
    x = np.arange(12.0).reshape(3, 4)
    m = x > 4
    out = np.zeros(4, np.float32)
    assert prim.sum(x, axis=0, where=m, out=out) is out
    H.assert_same(out, np.sum(x, axis=0, where=m, out=np.zeros(4, np.float32)))


@pytest.fixture
def small_blocks():
    """The production policy with 64 threads: thousands of elements span many blocks of the
    masked kernel and its last-block pass."""
    with tuning.override("reduction", selector="production", block=64, vectors=1):
        yield


@pytest.mark.parametrize("n", [1, 31, 64, 1000, 4099])
@pytest.mark.parametrize(
    "dtype", [np.float32, np.int8, np.bool_, np.float16, np.complex64], ids=str
)
def test_masked_kernel_sizes(n, dtype, schedule, small_blocks):
    """reduce_masked (every element, the mask read on load) at awkward sizes, in index order
    and race-exposing order: sums, and max with initial."""
    rng = np.random.default_rng(n)
    x = (rng.integers(-3, 4, n) % 2 if dtype == np.bool_ else rng.integers(-3, 4, n)).astype(dtype)
    m = rng.random(n) < 0.5
    H.run_twins(lambda xp: xp.sum(x, where=m), name="sum")
    if dtype != np.complex64:
        H.run_twins(lambda xp: xp.max(x, where=m, initial=-5), name="max")


# ---- errors: one test per branch --------------------------------------------------------------


@pytest.mark.parametrize("name", ["min", "max"])
def test_mask_without_initial(name):
    H.run_twins(
        lambda xp: getattr(xp, name)(np.ones(3), where=np.array([1, 0, 1], bool)), name=name
    )


def test_where_of_another_dtype():
    H.run_twins(lambda xp: xp.sum(np.ones(3), where=np.array([1, 0, 1])), name="sum")


def test_where_that_does_not_broadcast():
    H.run_twins(lambda xp: xp.mean(np.ones(3), where=np.ones((2, 3), bool)), name="mean")


def test_initial_out_of_range():
    H.run_twins(lambda xp: xp.max(np.ones(3, np.int8), initial=300), name="max")


def test_initial_complex_into_real():
    H.run_twins(lambda xp: xp.sum(np.ones(3), initial=1j), name="sum")


def test_initial_sequence():
    H.run_twins(lambda xp: xp.prod(np.ones(3), initial=[1]), name="prod")


def test_complex_min_on_the_ladder():
    with pytest.raises(ValueError, match="min: variant='beta' has no complex kernels"):
        prim.min(np.ones(3, np.complex64), variant="beta")

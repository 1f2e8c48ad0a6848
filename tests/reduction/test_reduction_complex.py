"""Complex reductions vs NumPy: sum, prod, mean and reduce over complex64/complex128, flat (the
production kernel, one block and many) and over axes; dtype requests, NaN/inf, views that start
off a 16-byte boundary, and the errors (the ladder variants)."""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import primitives as prim
from primitives import tuning
from primitives.testing import harness as H

COMPLEX = [np.complex64, np.complex128]
SIZES = [1, 2, 3, 15, 16, 17, 257, 1000, 4099]
IDS = {"ids": lambda d: np.dtype(d).name}


def make(rng, n, dtype, *, unit=False):
    """n complex values: parts in [-1, 1], or of modulus 1 (products stay near 1) for unit."""
    if unit:
        return np.exp(1j * rng.uniform(-np.pi, np.pi, n)).astype(dtype)
    return (rng.uniform(-1, 1, n) + 1j * rng.uniform(-1, 1, n)).astype(dtype)


def rtol(dtype, n):
    """A bound on the relative error of a tree of n additions or multiplications of unit-size
    values in the parts' precision (one rounding per level, a few per complex product)."""
    eps = np.finfo(np.dtype(dtype).char.lower()).eps
    return 4 * eps * (n + 16)


def close(got, want, dtype, n, what=""):
    """Value within the tree's bound (absolute for sums, which may cancel), NumPy's dtype."""
    got = H.to_host(got)
    assert np.asarray(got).dtype == np.asarray(want).dtype, (what, np.asarray(got).dtype)
    tol = rtol(dtype, n)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, np.sqrt(n)), err_msg=what)


@pytest.fixture
def small_blocks():
    """The production kernel with 64 threads and one load in flight: thousands of elements span
    many blocks and the last-block pass."""
    with tuning.override("reduction", selector="production", block=64, vectors=1):
        yield


# ---- flat reductions ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", COMPLEX, **IDS)
@pytest.mark.parametrize("func", ["sum", "prod", "mean"])
def test_flat(func, dtype, n, rng, schedule):
    x = make(rng, n, dtype, unit=func == "prod")
    keep = x.copy()
    got = getattr(prim, func)(x)
    close(got, getattr(np, func)(x), dtype, n, f"{func} {n}")
    assert isinstance(got, np.dtype(dtype).type)
    np.testing.assert_array_equal(x, keep)  # input untouched


@pytest.mark.parametrize("dtype", COMPLEX, **IDS)
@pytest.mark.parametrize("op", ["sum", "prod"])
def test_many_blocks(op, dtype, rng, small_blocks):
    """64-thread blocks: 4099 elements in many blocks, and in the reduce() spelling."""
    for n in (129, 4099):
        x = make(rng, n, dtype, unit=op == "prod")
        close(prim.reduce(x, op), getattr(np, op)(x), dtype, n, f"{op} {n}")
        close(getattr(prim, op)(x[1:]), getattr(np, op)(x[1:]), dtype, n, f"{op} {n} view")


@pytest.mark.parametrize("dtype", COMPLEX, **IDS)
@pytest.mark.parametrize("op", ["sum", "prod"])
def test_misaligned_views(op, dtype, rng):
    """Views that start off a 16-byte boundary: complex64 one element in (a scalar head);
    complex128 on an 8-byte boundary (NumPy aligns complex to its parts only)."""
    x = make(rng, 1001, dtype, unit=op == "prod")
    for v in (x[1:], x[3:], x[::3]):
        close(getattr(prim, op)(v), getattr(np, op)(v), dtype, v.size, op)
    item = np.dtype(dtype).itemsize
    raw = np.zeros(x.nbytes + item, np.uint8)
    odd = raw[item // 2 : item // 2 + x.nbytes].view(dtype)  # half an element off
    odd[:] = x
    assert odd.ctypes.data % item
    close(getattr(prim, op)(odd), getattr(np, op)(x), dtype, x.size, f"{op} misaligned")
    np.testing.assert_array_equal(odd, x)


@pytest.mark.parametrize("dtype", COMPLEX, **IDS)
def test_empty(dtype):
    """sum of nothing is 0, prod is 1 (of the complex dtype); mean is NaN with NumPy's warning."""
    x = np.array([], dtype)
    H.assert_same(prim.sum(x), np.sum(x))
    H.assert_same(prim.prod(x), np.prod(x))
    H.assert_same(prim.reduce(x, "prod"), np.prod(x))
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        got = prim.mean(x)
    assert np.isnan(got.real) and got.dtype == dtype


@pytest.mark.parametrize("dtype", COMPLEX, **IDS)
def test_nan_and_inf(dtype):
    """NaN in a part makes that part of a sum NaN (and every part of a product, as NumPy's
    product is the textbook formula); an infinity sums to an infinity."""
    x = np.ones(300, dtype) * (1 + 1j)
    x[100] = complex(np.nan, 0)
    assert np.isnan(prim.sum(x).real) and prim.sum(x).imag == np.sum(x).imag
    p, q = prim.prod(x), np.prod(x)
    assert np.isnan(p.real) == np.isnan(q.real) and np.isnan(p.imag) == np.isnan(q.imag)
    y = np.ones(300, dtype)
    y[7] = complex(np.inf, 1)
    H.assert_same(prim.sum(y), np.sum(y))
    z = np.ones(300, dtype)
    z[5] = complex(0, np.inf)
    assert np.isinf(prim.sum(z).imag) and prim.sum(z).real == 299


def test_exact_values():
    """Small Gaussian integers multiply and add exactly in any order."""
    x = np.array([1 + 1j, 1 - 1j, 2, 1j, -1j, 3 + 0j] * 5, np.complex128)
    H.assert_same(prim.prod(x), np.prod(x))
    H.assert_same(prim.sum(x), np.sum(x))
    y = x.astype(np.complex64)
    close(prim.mean(y), np.mean(y), np.complex64, 1)  # the division may round differently


# ---- dtype requests ----------------------------------------------------------------------------


@pytest.mark.parametrize("func", ["sum", "prod"])
def test_dtype_requests(func, rng):
    """dtype= as NumPy: the elements cast to it; complex into real keeps the real part with
    NumPy's ComplexWarning."""
    c = make(rng, 500, np.complex64, unit=True)
    f = getattr(prim, func)
    close(f(c, dtype=np.complex128), getattr(np, func)(c, dtype=np.complex128), np.complex128, 500)
    r = rng.uniform(0.99, 1.01, 500).astype(np.float32)
    close(f(r, dtype=np.complex64), getattr(np, func)(r, dtype=np.complex64), np.complex64, 500)
    i = (np.arange(40) % 3 + 1).astype(np.int16)
    H.assert_same(f(i, dtype=np.complex128), getattr(np, func)(i, dtype=np.complex128))
    with pytest.warns(np.exceptions.ComplexWarning):
        got = f(c, dtype=np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        want = getattr(np, func)(c, dtype=np.float64)
    close(got, want, np.float64, 500)
    with pytest.warns(np.exceptions.ComplexWarning):
        got = f(c.reshape(20, 25), axis=1, dtype=np.float32)
    assert got.dtype == np.float32 and got.shape == (20,)


@pytest.mark.parametrize("func", ["sum", "prod", "mean"])
def test_dtype_bool(func):
    """Complex input into dtype=bool is NumPy's cast: whether each element is nonzero (either
    part), without a ComplexWarning; whole and over an axis."""
    c = np.array([[0 - 3j, 0j, 2 + 0j], [0j, 0j, 1j]], dtype=np.complex64)
    f, g = getattr(prim, func), getattr(np, func)
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        H.assert_same(f(c[0, :1], dtype=np.bool_), g(c[0, :1], dtype=np.bool_))
        H.assert_same(f(c, dtype=np.bool_), g(c, dtype=np.bool_))
        H.assert_same(f(c, axis=1, dtype=np.bool_), g(c, axis=1, dtype=np.bool_))
        H.assert_same(f(c, axis=0, dtype=np.bool_), g(c, axis=0, dtype=np.bool_))


def test_mean_dtype(rng):
    c = make(rng, 300, np.complex64)
    close(prim.mean(c, dtype=np.complex128), np.mean(c, dtype=np.complex128), np.complex128, 300)
    close(prim.mean(c.reshape(3, 100), axis=0), np.mean(c.reshape(3, 100), axis=0), np.complex64, 3)


# ---- over axes ---------------------------------------------------------------------------------

AXES = [0, 1, 2, -1, (0, 2), (1, 2), (0, 1)]


@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("dtype", COMPLEX, **IDS)
@pytest.mark.parametrize("func", ["sum", "prod", "mean"])
def test_axes(func, dtype, axis, rng):
    x = make(rng, 5 * 6 * 7, dtype, unit=func == "prod").reshape(5, 6, 7)
    keep = x.copy()
    want = getattr(np, func)(x, axis=axis)
    close(getattr(prim, func)(x, axis=axis), want, dtype, x.size, f"{func} {axis}")
    got = getattr(prim, func)(x, axis=axis, keepdims=True)
    assert got.shape == np.sum(x, axis=axis, keepdims=True).shape
    close(got.reshape(want.shape), want, dtype, x.size)
    np.testing.assert_array_equal(x, keep)


@pytest.mark.parametrize("dtype", COMPLEX, **IDS)
@pytest.mark.parametrize("op", ["sum", "prod"])
def test_axes_views_out_and_reduce(op, dtype, rng):
    """Strided views, ``out`` (cast to its dtype), the reduce() spelling, a long reduced axis
    (one block of 256 threads over each row) and empty axes."""
    x = make(rng, 8 * 600, dtype, unit=op == "prod").reshape(8, 600)
    v = x[:, ::2]
    close(prim.reduce(v, op, axis=1), getattr(np, op)(v, axis=1), dtype, 300)
    close(prim.reduce(x.T, op, axis=0), getattr(np, op)(x.T, axis=0), dtype, 600)
    out = np.empty(600, np.complex128)
    r = getattr(prim, op)(x, axis=0, out=out)
    assert r is out
    close(out, getattr(np, op)(x, axis=0).astype(np.complex128), dtype, 8)
    e = np.zeros((3, 0), dtype)
    H.assert_same(getattr(prim, op)(e, axis=1), getattr(np, op)(e, axis=1))
    H.assert_same(getattr(prim, op)(e, axis=0), getattr(np, op)(e, axis=0))
    full = getattr(prim, op)(x, axis=(0, 1), keepdims=True)
    close(full, getattr(np, op)(x, axis=(0, 1), keepdims=True), dtype, x.size)


@pytest.mark.parametrize("op", ["sum", "prod"])
def test_axes_real_into_complex(op, rng):
    """A real input with a complex dtype over axes: the elements cast to complex."""
    x = rng.uniform(0.9, 1.1, (4, 50)).astype(np.float32)
    close(
        getattr(prim, op)(x, axis=1, dtype=np.complex64),
        getattr(np, op)(x, axis=1, dtype=np.complex64),
        np.complex64,
        50,
    )
    i = (np.arange(60).reshape(3, 20) % 3 + 1).astype(np.int8)
    H.assert_same(
        getattr(prim, op)(i, axis=0, dtype=np.complex128),
        getattr(np, op)(i, axis=0, dtype=np.complex128),
    )


# ---- plans -------------------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["sum", "prod"])
def test_plans(op, rng):
    x, y = make(rng, 2001, np.complex64, unit=True), make(rng, 2001, np.complex64, unit=True)
    getattr(prim, op)(x)
    close(getattr(prim, op)(y), getattr(np, op)(y), np.complex64, 2001)  # the filed plan
    p = prim.plan(getattr(prim, op), x)
    close(p(y), getattr(np, op)(y), np.complex64, 2001)
    z = make(rng, 17, np.complex128, unit=True)
    close(p(z), getattr(np, op)(z), np.complex128, 17)


# ---- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize("func", ["min", "max"])
def test_min_max_of_complex_on_the_ladder_is_a_value_error(func):
    """Complex min/max run on the production path only, as complex sums do."""
    H.raises_like(
        ValueError,
        func,
        getattr(prim, func),
        np.ones(4, np.complex64),
        variant="alpha",
        match="no complex kernels",
    )


@pytest.mark.parametrize("variant", ["alpha", "gamma", "epsilon", "zeta"])
@pytest.mark.parametrize("func", ["sum", "prod"])
def test_ladder_refuses_complex(func, variant):
    """The teaching variants have no complex kernels: a ValueError naming ``variant``."""
    x = np.ones(10, np.complex64)
    H.raises_like(
        ValueError,
        func,
        getattr(prim, func),
        x,
        variant=variant,
        match=rf"variant='{variant}' has no complex kernels",
    )
    H.raises_like(
        ValueError,
        func,
        getattr(prim, func),
        np.ones(4, np.float32),
        variant=variant,
        dtype=np.complex128,
        match="no complex kernels",
    )
    H.raises_like(
        ValueError,
        func,
        getattr(prim, func),
        x.reshape(2, 5),
        axis=0,
        variant=variant,
        match="no complex kernels",
    )


def test_unsupported_complex_dtype():
    """complex256 (long double parts) has no kernel: a TypeError naming the dtype."""
    if not hasattr(np, "complex256"):
        pytest.skip("no complex256 on this platform")
    for f in (prim.sum, prim.prod, prim.mean):
        with pytest.raises(TypeError, match="x has dtype complex256"):
            f(np.ones(3, np.complex256))


# ---- property ----------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(), dtype=st.sampled_from(COMPLEX), func=st.sampled_from(["sum", "prod", "mean"])
)
def test_property_matches_numpy(data, dtype, func):
    width = 64 if dtype == np.complex64 else 128
    if func == "prod":  # modulus near 1: a product of thousands stays finite
        f = np.float32 if dtype == np.complex64 else np.float64
        parts = st.floats(float(f(0.9)), float(f(1.1)), width=width // 2)
        elems = st.builds(
            complex, parts, st.floats(float(f(-0.1)), float(f(0.1)), width=width // 2)
        )
    else:
        elems = st.complex_numbers(
            max_magnitude=1e3, allow_nan=False, allow_infinity=False, width=width
        )
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=12))
    x = data.draw(hnp.arrays(dtype, shape, elements=elems))
    axis = data.draw(st.sampled_from([None] + list(range(x.ndim))))
    got = getattr(prim, func)(x, axis=axis)
    want = getattr(np, func)(x, axis=axis)
    scale = 1.0 if func == "prod" else max(1.0, float(np.abs(x).sum()))
    tol = rtol(dtype, x.size)
    np.testing.assert_allclose(H.to_host(got), want, rtol=tol, atol=tol * scale)
    assert np.asarray(got).dtype == want.dtype

"""The NaNs of quantile's and median's results are selected, never computed, on every backend: a
GPU's float arithmetic (and its conversions) give the device's canonical NaN where the host keeps
an operand's bits, so a slice's NaN must be the element itself (widened by its bits), and a NaN
the arithmetic makes of numbers (``inf - inf``, ``inf * 0``) the host's own.

The emulator computes on the host, whose arithmetic keeps NaN bits: here the backend's array
module is replaced by one whose arithmetic and float casts return a canonical NaN (all ones but
the sign, as a GPU's float32 arithmetic), so that a NaN taken from arithmetic shows."""

import types
import warnings

import numpy as np
import pytest

import primitives as prim
from primitives._core import backend as _backend, plans as _plans

#: the ufuncs whose NaN results a GPU makes canonical
ARITH = {np.add, np.subtract, np.multiply, np.true_divide, np.negative, np.floor_divide}
CANON = {2: 0x7FFF, 4: 0x7FFFFFFF, 8: 0x7FFFFFFFFFFFFFFF}


def _canon(res):
    """``res`` with every NaN (of a float, or of a complex part) replaced by the canonical one."""
    if not isinstance(res, np.ndarray) or res.dtype.kind not in "fc":
        return res
    res = np.array(res, copy=True).view(np.ndarray)
    parts = res.view(f"f{res.dtype.itemsize // 2}") if res.dtype.kind == "c" else res
    bits = parts.view(f"u{parts.dtype.itemsize}")
    bits[np.isnan(parts)] = CANON[parts.dtype.itemsize]
    return res


def _wrap(res):
    if isinstance(res, tuple):
        return tuple(_wrap(r) for r in res)
    if isinstance(res, np.ndarray) and not isinstance(res, DeviceLike):
        return res.view(DeviceLike)
    return res


def _plain(x):
    return x.view(np.ndarray) if isinstance(x, DeviceLike) else x


class DeviceLike(np.ndarray):
    """A host array whose arithmetic and float casts return canonical NaNs (a GPU's)."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = tuple(_plain(i) for i in inputs)
        if "out" in kwargs:
            kwargs["out"] = tuple(_plain(o) for o in kwargs["out"])
        res = getattr(ufunc, method)(*inputs, **kwargs)
        if ufunc in ARITH and method == "__call__":
            res = _canon(res)
        return _wrap(res)

    def astype(self, dtype, *args, **kwargs):
        res = self.view(np.ndarray).astype(dtype, *args, **kwargs)
        if res.dtype != self.dtype and res.dtype.kind in "fc" and self.dtype.kind in "fc":
            res = _canon(res)
        return _wrap(res)


class DeviceModule(types.ModuleType):
    """NumPy, its functions' array results :class:`DeviceLike`."""

    def __init__(self):
        super().__init__("device_like_numpy")

    def __getattr__(self, name):
        attr = getattr(np, name)
        if isinstance(attr, type) or not callable(attr):
            return attr
        if isinstance(attr, np.ufunc):

            def ufunc(*args, **kwargs):
                return _wrap(attr(*(_wrap(a) for a in args), **kwargs))

            return ufunc

        def call(*args, **kwargs):
            return _wrap(attr(*args, **kwargs))

        return call


@pytest.fixture
def device_nans(monkeypatch, on_gpu):
    """The emulator's backend with :class:`DeviceModule` as its array module (fresh plans); on
    a GPU the device itself."""
    if on_gpu:
        yield
        return
    backend = _backend.get_backend()
    _plans.clear_caches()
    monkeypatch.setattr(backend, "xp", DeviceModule())
    yield
    monkeypatch.undo()
    _plans.clear_caches()


def bits(v):
    v = np.ascontiguousarray(np.asarray(v).view(np.ndarray)).reshape(-1)
    if v.dtype.kind == "c":
        v = v.view(f"f{v.dtype.itemsize // 2}")
    return v.view(f"u{v.dtype.itemsize}")


def same_bits(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = getattr(np, fn)(*args, **kwargs)
        got = getattr(prim, fn)(*args, **kwargs)
    assert np.array_equal(bits(got), bits(want)), (fn, args, kwargs, got, want)


def test_the_module_poisons():
    """The stand-in makes the NaN of arithmetic canonical (so the checks below can fail)."""
    x = np.array([np.nan, 1.0], np.float32)
    x.view(np.uint32)[0] = 0xFFC00123
    got = DeviceModule().asarray(x) + np.float32(1)
    assert bits(got)[0] == 0x7FFFFFFF
    assert bits(DeviceModule().asarray(x).astype(np.float64))[0] == CANON[8]


@pytest.mark.parametrize("p", [{"min_len": 1}, {"min_len": 1 << 40}], ids=["radix", "sort"])
@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64])
def test_slice_nan_is_selected(device_nans, p, dt):
    """A slice's NaN (payload and sign) comes back as the element's, widened by its bits."""
    x = np.array([[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]], dt)
    u = x.view(f"u{x.dtype.itemsize}")
    u[0, 1] = {2: 0xFE13, 4: 0xFFC00123, 8: 0xFFF8000000000123}[x.dtype.itemsize]
    with prim.tuning.override("selection", selector="quantile", **p):
        for q in (0.5, [0.2, 0.5], np.float32(0.4)):
            same_bits("quantile", x, q, axis=1)
            same_bits("quantile", x, q, axis=1, method="nearest")
        same_bits("median", x, axis=1)


@pytest.mark.parametrize("p", [{"min_len": 1}, {"min_len": 1 << 40}], ids=["radix", "sort"])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_made_nan_is_the_hosts(device_nans, p, dt):
    """A NaN made of infinities (their mean, their interpolation) is the host's NaN."""
    x = np.array([[-np.inf, np.inf, np.inf, 1.0], [-np.inf, -np.inf, np.inf, np.inf]], dt)
    with prim.tuning.override("selection", selector="quantile", **p):
        for fn in ("median", "nanmedian"):
            same_bits(fn, x, axis=1)
        for q in (0.5, [0.5, 0.1]):
            same_bits("quantile", x, q, axis=1)
            same_bits("nanquantile", x, q, axis=1)


@pytest.mark.parametrize("p", [{"min_len": 1}, {"min_len": 1 << 40}], ids=["radix", "sort"])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_nan_functions_nans(device_nans, p, dt):
    """The nan-functions: an all-NaN slice gives the plain NaN, whatever its NaNs' bits; a NaN
    made of infinities beside NaNs is the host's, also where the results take a float32 first
    slice's dtype (all NaN) and are float64 ones rounded."""
    inf, nan = np.inf, np.nan
    x = np.array([[nan, nan, nan], [-inf, nan, inf], [nan, inf, -inf], [1.0, 2.0, 3.0]], dt)
    x.view(f"u{x.dtype.itemsize}")[0, 1] = {4: 0xFFC00123, 8: 0xFFF8000000000123}[x.itemsize]
    with prim.tuning.override("selection", selector="quantile", **p):
        for v in (x, x[::-1]):
            same_bits("nanmedian", v, axis=1)
            for q in (0.5, [0.5, 0.1], np.array([0.5, 0.3]), np.array([0.5], np.float32)):
                same_bits("nanquantile", v, q, axis=1)
                same_bits("nanquantile", v, q, axis=1, method="hazen")
        same_bits("nanmedian", x[0])
        same_bits("nanquantile", x[0], np.array([0.5, 0.3]))


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_complex_median_nans(device_nans, dt):
    """The complex median: NumPy's division makes ``nan`` of ``inf * 0`` (the host's bits);
    a slice with a NaN part gives its last value."""
    x = np.array([[complex(-np.inf, 0), 1, 2], [1, complex(np.nan, 2), 3], [1, 2, 4j]], dt)
    x[1].view(f"u{x.itemsize // 2}")[2] |= 0x5  # a NaN with a payload
    for fn in ("median", "nanmedian"):
        same_bits(fn, x, axis=1)
        same_bits(fn, x[:, :2], axis=1)

"""One test harness for every family: the same body against NumPy and ``primitives``.

In the spirit of CuPy's ``numpy_cupy_array_equal``: a test body takes the module it runs against
(``xp``: :mod:`numpy` or :mod:`primitives`) and returns what it computed; :func:`twins` runs it
both ways and compares the *values*, the *dtypes* and the *shapes* of the results, or, when NumPy
raises, checks that ``primitives`` raises the same exception type (and names the function the
user called). A primitive with no NumPy twin is compared with its oracle through
:func:`assert_same`, the one comparison every test file uses.

    from primitives.testing import harness as H

    @H.twins(rtol=1e-6)
    def test_sum(xp):
        return xp.sum(np.arange(10, dtype=np.int32))
"""

from __future__ import annotations

import functools
import inspect
import re

import numpy as np

__all__ = [
    "to_host",
    "assert_same",
    "twins",
    "run_twins",
    "raises_like",
    "Raised",
    "DLPackOnly",
    "byte_views",
]


def to_host(a):
    """NumPy view of a result: device arrays are copied back, tuples/lists elementwise, NumPy
    scalars and arrays as they are."""
    if isinstance(a, (tuple, list)):
        return type(a)(to_host(x) for x in a)
    if hasattr(a, "get") and not isinstance(a, np.ndarray) and not np.isscalar(a):
        return a.get()
    return a


def _dtype_of(a):
    return np.asarray(a).dtype


def assert_same(
    got, want, *, rtol=0.0, atol=0.0, check_dtype=True, shape=True, equal_nan=True, what=""
):
    """``got`` (a result of ``primitives``, host or device) equals ``want`` (NumPy): same
    structure (tuples and lists elementwise), dtypes (``dtype=False`` skips), shapes and values
    (exactly, or within ``rtol``/``atol``; NaNs equal unless ``equal_nan=False``).
    ``check_dtype=False`` skips the dtypes."""
    got = to_host(got)
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), (
            f"{what}: got {type(got).__name__} of {len(got) if hasattr(got, '__len__') else '?'}"
            f" items, want {len(want)}"
        )
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(
                g,
                w,
                rtol=rtol,
                atol=atol,
                check_dtype=check_dtype,
                shape=shape,
                equal_nan=equal_nan,
                what=f"{what}[{i}]",
            )
        return
    g, w = np.asarray(got), np.asarray(want)
    if check_dtype:
        assert g.dtype == w.dtype, f"{what}: dtype {g.dtype}, want {w.dtype}"
    if shape:
        assert g.shape == w.shape, f"{what}: shape {g.shape}, want {w.shape}"
    if rtol or atol:
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=equal_nan, err_msg=what)
    else:
        np.testing.assert_array_equal(g, w, err_msg=what, strict=False)


class Raised:
    """What a body raised (the harness's stand-in for a result)."""

    def __init__(self, exc):
        self.exc = exc

    def __repr__(self):
        return f"Raised({type(self.exc).__name__}: {self.exc})"


def _run(body, xp, args, kwargs):
    try:
        return body(xp, *args, **kwargs)
    except Exception as exc:  # compared below  # noqa: BLE001
        return Raised(exc)


def run_twins(body, args=(), kwargs=None, *, rtol=0.0, atol=0.0, check_dtype=True, name=None):
    """Run ``body(numpy, ...)`` and ``body(primitives, ...)`` and compare them (see module doc).

    When NumPy raises, ``primitives`` must raise an instance of the same exception type, and its
    message must name ``name`` (the primitives function the body calls) when given. Returns the
    ``primitives`` result."""
    import primitives

    kwargs = {} if kwargs is None else kwargs
    want = _run(body, np, args, kwargs)
    got = _run(body, primitives, args, kwargs)
    if isinstance(want, Raised):
        assert isinstance(got, Raised), f"NumPy raised {want!r}; primitives returned {got!r}"
        assert isinstance(got.exc, type(want.exc)), (
            f"NumPy raised {want!r}; primitives raised {got!r}"
        )
        if name is not None:
            assert name in str(got.exc), f"{got!r} does not name {name!r}"
        return got
    if isinstance(got, Raised):
        raise AssertionError(f"primitives raised {got!r}; NumPy returned {want!r}") from got.exc
    assert_same(
        got,
        want,
        rtol=rtol,
        atol=atol,
        check_dtype=check_dtype,
        what=getattr(body, "__name__", "body"),
    )
    return got


def twins(rtol=0.0, atol=0.0, check_dtype=True, name=None):
    """Decorator form of :func:`run_twins` for a pytest function whose first parameter is
    ``xp``; the other parameters stay pytest's (fixtures, parametrize)."""

    def wrap(body):
        sig = inspect.signature(body)
        params = list(sig.parameters.values())[1:]

        @functools.wraps(body)
        def test(*args, **kwargs):
            run_twins(body, args, kwargs, rtol=rtol, atol=atol, check_dtype=check_dtype, name=name)

        test.__signature__ = sig.replace(parameters=params)
        return test

    return wrap


def raises_like(exc_type, func_name, call, *args, match=None, **kwargs):
    """``call(*args, **kwargs)`` raises ``exc_type`` with a message that starts with
    ``func_name:`` (the function the user called) and matches the regular expression ``match``:
    the error test of a primitive with no NumPy twin."""
    try:
        call(*args, **kwargs)
    except exc_type as exc:
        msg = str(exc)
        assert msg.startswith(f"{func_name}:"), (
            f"{type(exc).__name__}({msg!r}) does not start with {func_name + ':'!r}"
        )
        if match is not None:
            assert re.search(match, msg), f"{msg!r} does not match {match!r}"
        return exc
    raise AssertionError(f"{func_name}: expected {exc_type.__name__}")


def probe_kernel(source, name):
    """Kernel ``name`` of the test's own CUDA ``source`` (which may include the package's
    kernels/ headers), compiled for the backend in use: through NVRTC with the package's
    options on the GPU, by the emulator's compiler on the CPU. For tests that drive a device
    function of the kernels directly, on states made by hand."""
    from .._core import backend as _backend, loader as _loader

    if _backend.get_backend().is_cuda:
        import cupy

        mod = cupy.RawModule(code=source, options=_loader.nvrtc_options(), name_expressions=[name])
        return mod.get_function(name)
    from .._core import emulator as _emulator

    mod = _emulator.compile_module(
        source, [name], include_dirs=[str(_loader.kernels_root())], cache_key=_loader.tree_hash()
    )
    return mod.get_function(name)


def weak(a):
    """A weak reference to the array ``a``, or None for an array type without them: with
    :func:`assert_released`, a check that a filed run holds no array of the call that made it."""
    import weakref

    try:
        return weakref.ref(a)
    except TypeError:
        return None


def assert_released(ref, what="the array"):
    """After the caller dropped its last reference to the array of ``ref`` (:func:`weak`): it is
    gone once collected, so nothing the package filed keeps it alive."""
    import gc

    gc.collect()
    assert ref is None or ref() is None, f"{what} is still held"


class DLPackOnly:
    """An object that speaks DLPack and nothing else, holding the array ``a``: how the
    functions meet an array of another library (a host one, or a device one of another
    framework)."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, **kwargs):
        return self.a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def byte_views(x):
    """The host array ``x`` (of a one-byte dtype) C-ordered, F-ordered, as a strided view,
    reversed along every axis, and starting one byte into its buffer (misaligned): each holding
    ``x``'s bytes, none converted."""
    yield x
    yield np.asfortranarray(x)
    yield np.concatenate([x, x], axis=-1)[..., ::2]
    yield x[(slice(None, None, -1),) * x.ndim]
    raw = np.zeros(x.size + 1, np.uint8)
    raw[1:] = x.view(np.uint8).ravel()
    yield raw[1:].view(x.dtype).reshape(x.shape)

"""The calls of a rewritten test file (see :mod:`tools.parity.rewrite`) land here: a call of
``cupy.NAME`` or of an array method ``a.NAME`` on a CuPy array goes to ``primitives.NAME``
when this library has that function, anything else to the original.

With ``PRIMITIVES_PARITY_ROUTE=numpy`` NumPy's calls are routed instead (NumPy's own tests):
``numpy.NAME`` and the methods of plain ``numpy.ndarray`` arrays of the dtypes this library
computes with (bool, integers, floats, complex); subclasses (matrices, masked arrays) and other
dtypes (objects, strings, datetimes, structured, and the extended-precision ``longdouble`` and
``clongdouble``, which no GPU type holds: the library refuses them with a ``TypeError``, as CuPy
does; so do calls asking for them with ``dtype=``) stay NumPy's.

The module counts the calls that reached the library (:data:`HITS`), so that a test runner can
tell the tests that exercised it (the *routed* tests) from those that did not.
"""

from __future__ import annotations

import os

import numpy as np

import primitives as prim

#: CuPy (NumPy) names of this library's functions under another name
ALIASES = {"amin": "min", "amax": "max"}
#: array methods that sort or partition in place (NumPy's ``a.sort()``, ``a.partition(kth)``)
IN_PLACE = {"sort", "partition"}
#: calls that reached the library since the last :func:`reset`
HITS = [0]


def reset() -> None:
    HITS[0] = 0


def target(name: str):
    """The library's function for CuPy's ``name``, or None."""
    name = ALIASES.get(name, name)
    if name.startswith("_") or name not in getattr(prim, "__all__", ()):
        return None
    fn = getattr(prim, name, None)
    return fn if callable(fn) and not isinstance(fn, type) else None


#: the module whose calls are routed: "cupy" (CuPy's tests) or "numpy" (NumPy's)
ROUTED = os.environ.get("PRIMITIVES_PARITY_ROUTE", "cupy")


def _cupy():
    if ROUTED == "numpy":
        return np
    import cupy

    return cupy


def _ours(obj) -> bool:
    """Whether ``obj`` is an array of the routed kind (for NumPy: a plain ndarray of a numeric
    dtype)."""
    if ROUTED == "numpy":
        return type(obj) is np.ndarray and obj.dtype.kind in "biufc" and obj.dtype.char not in "gG"
    return isinstance(obj, _cupy().ndarray)


def _wide(dtype) -> bool:
    """Whether a ``dtype=`` argument asks for NumPy's extended precision (no GPU type)."""
    try:
        return dtype is not None and np.dtype(dtype).char in "gG"
    except TypeError:
        return False


def func(mod, name, *args, **kwargs):
    """``mod.name(*args, **kwargs)``, through the library when ``mod`` is the routed module (and,
    for NumPy, its first argument is not an array of another kind)."""
    fn = target(name) if mod is _cupy() else None
    if fn is not None and ROUTED == "numpy" and args:
        first = args[0]
        if not isinstance(first, np.ndarray):
            try:  # a list or a scalar: routed when NumPy reads it as numbers
                first = np.asarray(first)
            except Exception:  # noqa: BLE001 - ragged: the library's own error is tested
                first = np.zeros(0)
        fn = fn if _ours(first) and not _wide(kwargs.get("dtype")) else None
    if fn is None:
        return getattr(mod, name)(*args, **kwargs)
    HITS[0] += 1
    return fn(*args, **kwargs)


def method(obj, name, *args, **kwargs):
    """``obj.name(*args, **kwargs)``, through the library when ``obj`` is an array of the routed
    kind: in-place methods write the library's result into ``obj`` and return None, as CuPy's
    and NumPy's do."""
    fn = target(name) if _ours(obj) else None
    if ROUTED == "numpy" and _wide(kwargs.get("dtype")):
        fn = None
    if fn is None:
        return getattr(obj, name)(*args, **kwargs)
    HITS[0] += 1
    if name in IN_PLACE:
        obj[...] = fn(obj, *args, **kwargs)
        return None
    return fn(obj, *args, **kwargs)


def dynamic(obj, name, *args, **kwargs):
    """``getattr(obj, name)(*args, **kwargs)`` for a module or an array."""
    if obj is _cupy():
        return func(obj, name, *args, **kwargs)
    return method(obj, name, *args, **kwargs)

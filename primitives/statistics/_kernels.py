"""The statistics kernels' instantiations (``kernels/statistics/stats.cu``): for every aggregate
of ``kernels/statistics/aggregates.cuh`` and input dtype it takes, the whole-array kernel, the
two axis kernels and the combination of split axes, in one module per (aggregate, dtype) (a call
compiles only its own).

:func:`aggregate` is the one table: which aggregate (kind) takes which dtype, its C++ type, and
the dtype of its result.
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes, loader as _loader
from . import _policy

__all__ = ["KINDS", "SOURCE", "aggregate", "dtypes_of", "kernel", "width", "nan_to_kernel"]

SOURCE = "statistics/stats.cu"
NAN_TO = "statistics/nan_to.cu"
_C = _dtypes.KERNEL_CTYPES
_F16, _F32, _F64 = (np.dtype(t) for t in (np.float16, np.float32, np.float64))
_I32, _U32, _I64 = np.dtype(np.int32), np.dtype(np.uint32), np.dtype(np.int64)
FLOATS = (_F16, _F32, _F64)
COMPLEX = _dtypes.COMPLEX
REAL = _dtypes.REAL  # bool, the integers, float16/32/64
_REALPART = {COMPLEX[0]: _F32, COMPLEX[1]: _F64}

#: the aggregates (kinds) and the dtypes each takes; "var_state" and "nanvar_state" are var's
#: and nanvar's aggregates giving their States (count, mean, M2) for the host to finish
KINDS = {
    "nansum": FLOATS + COMPLEX,
    "nanprod": FLOATS + COMPLEX,
    "nanmin": FLOATS + COMPLEX,
    "nanmax": FLOATS + COMPLEX,
    "nanargmin": FLOATS + COMPLEX,
    "nanargmax": FLOATS + COMPLEX,
    "nanmean": FLOATS + COMPLEX,
    "var": REAL + COMPLEX,
    "nanvar": REAL + COMPLEX,
    "var_state": REAL + COMPLEX,
    "nanvar_state": REAL + COMPLEX,
    "ptp": tuple(d for d in REAL if d != np.bool_) + COMPLEX,
    "count_nonzero": REAL + COMPLEX,
}

#: the float64 words of a State result: MomentState (n, k, d, M2), MomentStateC (n, the mean's
#: parts as k + d, M2)
STATE_WORDS = {"f": 4, "c": 6}


def ctype(dt):
    """The C++ type the kernels read elements of ``dt`` as: bool as ``prim::stats::Flag`` (its
    byte, any nonzero byte true, as NumPy reads bool), the others as the project's table."""
    dt = np.dtype(dt)
    return "prim::stats::Flag" if dt == np.bool_ else _C[dt]


def width(kind, dt):
    """The float64 words of one result of ``kind`` over ``dt``: 1, or a State's words."""
    if kind.endswith("_state"):
        return STATE_WORDS["c" if np.dtype(dt).kind == "c" else "f"]
    return 1


def dtypes_of(kind):
    return KINDS[kind]


def _acc(dt):
    """The accumulator of sums, products, extremes and means: float32 for float16, else the
    dtype's own."""
    return _F32 if dt == _F16 else dt


def moments_dtype(dt):
    """The dtype of var/std of ``dt`` (NumPy's): float16/32/64 their own, complex their real
    part's, bool and integers float64."""
    dt = np.dtype(dt)
    if dt.kind == "c":
        return _REALPART[dt]
    return dt if dt.kind == "f" else _F64


def aggregate(kind, dt):
    """``(C++ aggregate, result dtype)`` of ``kind`` over elements of ``dt`` (one of
    ``KINDS[kind]``)."""
    dt = np.dtype(dt)
    i = ctype(dt)
    if kind in ("nansum", "nanprod", "nanmean"):
        a = _acc(dt)
        name = {"nansum": "NanSum", "nanprod": "NanProd", "nanmean": "NanMean"}[kind]
        return f"prim::stats::{name}<{i}, {_C[a]}, {i}>", dt
    if kind in ("nanmin", "nanmax"):
        flag = "true" if kind == "nanmax" else "false"
        return f"prim::stats::NanExtreme<{i}, {_C[_acc(dt)]}, {i}, {flag}>", dt
    if kind in ("nanargmin", "nanargmax"):
        flag = "true" if kind == "nanargmax" else "false"
        return f"prim::stats::NanArg<{i}, {_C[_acc(dt)]}, {flag}>", _I64
    if kind in ("var", "nanvar", "var_state", "nanvar_state"):
        res = moments_dtype(dt)
        name = "MomentsC" if dt.kind == "c" else "Moments"
        skip = "true" if kind.startswith("nanvar") else "false"
        if kind.endswith("_state"):
            return f"prim::stats::StateOf<prim::stats::{name}<{i}, double, {skip}>>", _F64
        return f"prim::stats::{name}<{i}, {_C[res]}, {skip}>", res
    if kind == "ptp" and dt.kind == "c":
        return f"prim::stats::PtpC<{i}>", dt
    if kind == "ptp":
        a = _acc(dt)
        if dt.kind in "iu" and dt.itemsize < 4:
            a = _I32 if dt.kind == "i" else _U32
        return f"prim::stats::Ptp<{i}, {_C[a]}, {i}>", dt
    if kind == "count_nonzero":
        return f"prim::stats::CountNonzero<{i}>", _I64
    raise ValueError(f"statistics: no aggregate {kind!r}")


def names(key, pol):
    """The module of ``key`` = (kind, dtype): its four kernels under ``pol``."""
    kind, dt = key
    agg = aggregate(kind, dt)[0]
    i = ctype(dt)
    return [
        f"stat_flat<{i}, {agg}, {pol.block}, {pol.vectors}>",
        f"stat_rows<{i}, {agg}, {pol.axis_block}>",
        f"stat_cols<{i}, {agg}, {pol.axis_block}>",
        f"stat_combine<{agg}>",
    ]


_KEYS = tuple((kind, dt) for kind, dts in KINDS.items() for dt in dts)
_MODULES = _loader.PolicyModules(SOURCE, names, _policy.TABLE, _KEYS, lambda key: None)

_INDEX = {"flat": 0, "rows": 1, "cols": 2, "combine": 3}


def kernel(which, kind, dt, pol):
    """The kernel ``which`` ("flat", "rows", "cols" or "combine") of ``kind`` over ``dt`` under
    the policy ``pol``."""
    key = (kind, np.dtype(dt))
    return _MODULES.kernel(key, names(key, pol)[_INDEX[which]], pol)


#: the dtypes of numpy.average with weights that stat_weighted reads (the elements and the
#: weights in one dtype, the result's)
WEIGHTED = (_F32, _F64) + COMPLEX


def weighted_name(dt, pol):
    return f"stat_weighted<{_C[np.dtype(dt)]}, {pol.block}, {pol.vectors}>"


_WEIGHTED = _loader.PolicyModules(
    SOURCE,
    lambda key, pol: [weighted_name(d, pol) for d in WEIGHTED],
    _policy.TABLE,
    ("weighted",),
    lambda key: None,
)


def weighted_kernel(dt, pol):
    """stat_weighted of ``dt`` (one of :data:`WEIGHTED`) under ``pol``."""
    return _WEIGHTED.kernel("weighted", weighted_name(dt, pol), pol)


def nan_to_name(dt):
    """nan_to (``kernels/statistics/nan_to.cu``) of float or complex elements of ``dt``: read as
    the unsigned bits of their parts, one or two (complex) an element."""
    dt = np.dtype(dt)
    parts = 2 if dt.kind == "c" else 1
    return f"nan_to<{_dtypes.cname(f'u{dt.itemsize // parts}')}, {parts}>"


#: the dtypes nan_to takes, and its one module's instantiations
NAN_TO_DTYPES = FLOATS + COMPLEX
_NAN_TO_NAMES = [nan_to_name(d) for d in NAN_TO_DTYPES]
_loader.register(NAN_TO, _NAN_TO_NAMES)


def nan_to_kernel(dt):
    """nan_to of ``dt`` (one of :data:`NAN_TO_DTYPES`)."""
    return _loader.load(NAN_TO, _NAN_TO_NAMES)(nan_to_name(dt))

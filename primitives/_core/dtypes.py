"""The one table that maps NumPy dtypes to the C++ types kernels are instantiated with."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

import ml_dtypes
import numpy as np
from numpy.typing import DTypeLike

#: NumPy dtype -> C++ type name used in name expressions. Order is the documentation order.
CTYPES: dict[np.dtype[Any], str] = {
    np.dtype(np.int32): "int",
    np.dtype(np.int64): "long long",
    np.dtype(np.uint32): "unsigned int",
    np.dtype(np.uint64): "unsigned long long",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
}

NUMERIC = tuple(CTYPES)

#: bfloat16 (ml_dtypes' NumPy dtype: kind 'V', char 'E'; CuPy and torch arrays of bfloat16 have
#: it): float32's sign and 8-bit exponent over a 7-bit mantissa, float32's upper 16 bits
BFLOAT16: np.dtype[Any] = np.dtype(ml_dtypes.bfloat16)
#: the 16-bit floats, which the kernels read as their bits (prim::f16, prim::bf16) and accumulate
#: in float32
FLOAT16S: tuple[np.dtype[Any], ...] = (np.dtype(np.float16), BFLOAT16)


def is_float16(dt: DTypeLike) -> bool:
    """Whether ``dt`` is a 16-bit float: float16 or bfloat16."""
    return np.dtype(dt) in FLOAT16S


def is_float(dt: DTypeLike) -> bool:
    """Whether ``dt`` is a real float: kind 'f' (float16/32/64) or bfloat16 (kind 'V')."""
    d = np.dtype(dt)
    return d.kind == "f" or d == BFLOAT16


def finfo(dt: DTypeLike) -> Any:
    """``numpy.finfo`` of a real float dtype, bfloat16's (``ml_dtypes.finfo``) too."""
    d = np.dtype(dt)
    return ml_dtypes.finfo(d) if d == BFLOAT16 else np.finfo(d)


#: the 8- and 16-bit integers, which only some families instantiate (histograms: samples)
SMALL_CTYPES: dict[np.dtype[Any], str] = {
    np.dtype(np.int8): "signed char",
    np.dtype(np.uint8): "unsigned char",
    np.dtype(np.int16): "short",
    np.dtype(np.uint16): "unsigned short",
}

#: (input dtype, accumulator dtype) pairs that reductions and scans instantiate natively: the same
#: type, and NumPy's widening of 32-bit integer sums. Other ``dtype=`` requests convert the input.
ACC_PAIRS = tuple((d, d) for d in NUMERIC) + (
    (np.dtype(np.int32), np.dtype(np.int64)),
    (np.dtype(np.uint32), np.dtype(np.uint64)),
)
ACC_PAIRS_SET = frozenset(ACC_PAIRS)


def cname(dtype: DTypeLike) -> str:
    """The C++ type name of ``dtype`` in name expressions (the dtype known to have kernels)."""
    dt = np.dtype(dtype)
    return CTYPES[dt] if dt in CTYPES else SMALL_CTYPES[dt]


def names(dtypes: Iterable[np.dtype[Any]] = NUMERIC) -> str:
    return ", ".join(d.name for d in dtypes)


def ctype(
    dtype: DTypeLike, *, func: str, arg: str, allowed: Collection[np.dtype[Any]] = NUMERIC
) -> str:
    """C++ type for ``dtype``; ``TypeError`` naming the function and argument otherwise."""
    dt = np.dtype(dtype)
    if dt not in allowed:
        raise TypeError(f"{func}: {arg} has dtype {dt.name}; supported dtypes are {names(allowed)}")
    return CTYPES[dt]


def resolve_dtype(
    dtype: DTypeLike, *, func: str, arg: str = "dtype", allowed: Collection[np.dtype[Any]] = NUMERIC
) -> np.dtype[Any]:
    """Parse a user-supplied ``dtype=`` argument into a supported ``numpy.dtype``."""
    try:
        dt = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"{func}: {arg}={dtype!r} is not a dtype") from exc
    if dt not in allowed:
        raise TypeError(f"{func}: {arg}={dt.name} is not supported; use one of {names(allowed)}")
    return dt


def sum_dtype(dt: DTypeLike) -> np.dtype[Any]:
    """NumPy's accumulator/result dtype for ``sum``: small integers widen to 64 bits."""
    dt = np.dtype(dt)
    if dt.kind == "i":
        return np.dtype(np.int64)
    if dt.kind == "u":
        return np.dtype(np.uint64)
    return dt


def identity(op: str, dt: DTypeLike) -> np.generic:
    """The identity of ``op`` ("sum", "prod", "min", "max") in dtype ``dt``, as a NumPy scalar."""
    # declared: NumPy's stubs type np.dtype() of a DTypeLike as maybe a void dtype (no float)
    d: np.dtype[Any] = np.dtype(dt)
    if op == "sum":
        return d.type(0)
    if op == "prod":
        return d.type(1)
    if is_float(d):
        return d.type(np.inf if op == "min" else -np.inf)
    info = np.iinfo(d)
    return d.type(info.max if op == "min" else info.min)


#: the narrow dtypes that ``sum``/``min``/``max``/``reduce`` accept besides :data:`NUMERIC`, as
#: NumPy's reductions do (the other families do not take them)
REDUCE_NARROW = tuple(
    np.dtype(d) for d in (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.float16)
) + (BFLOAT16,)
REDUCE_DTYPES = NUMERIC + REDUCE_NARROW

#: every real dtype, in the order the errors list them: the keys the sorts, sets and searches
#: take, the elements compaction moves, the inputs of the axis and arg reductions
REAL = tuple(np.dtype(c) for c in "?bBhHiIqQefd")  # bool, int8 ... uint64, float16/32/64
#: :data:`REAL` and bfloat16: the keys of the sorts and searches, the samples of histogram, the
#: inputs of the axis reductions
REAL_BF16 = REAL + (BFLOAT16,)

#: the production reduction's own instantiations for narrow inputs: (input, accumulator, result,
#: ops). Sums accumulate as NumPy's result (64-bit integers) or, for float16 and bfloat16, in
#: float32 (as CuPy's and torch's); min/max accumulate in a 32-bit type (the block's shuffles move 4
#: or 8 bytes) and store the input's dtype. bool's are the reductions' own (reading it as
#: prim::Flag).
REDUCE_NARROW_KERNELS = tuple(
    (np.dtype(i), np.dtype(a), np.dtype(r), ops)
    for i, a, r, ops in (
        (np.int8, np.int64, np.int64, ("sum",)),
        (np.uint8, np.uint64, np.uint64, ("sum",)),
        (np.int16, np.int64, np.int64, ("sum",)),
        (np.uint16, np.uint64, np.uint64, ("sum",)),
        (np.int8, np.int32, np.int8, ("min", "max")),
        (np.uint8, np.uint32, np.uint8, ("min", "max")),
        (np.int16, np.int32, np.int16, ("min", "max")),
        (np.uint16, np.uint32, np.uint16, ("min", "max")),
        (np.float16, np.float32, np.float16, ("sum", "min", "max")),
        (BFLOAT16, np.float32, BFLOAT16, ("sum", "min", "max")),
    )
)


def reduce_result_dtype(dt: DTypeLike, op: str) -> np.dtype[Any]:
    """NumPy's result dtype of ``op`` ("sum", "prod", "min", "max") over an array of ``dt``: sums
    and products widen bool and integers below 64 bits to int64/uint64 (16-bit floats and complex
    stay);
    min/max keep ``dt``."""
    dt = np.dtype(dt)
    if op not in ("sum", "prod"):
        return dt
    return np.dtype(np.int64) if dt.kind == "b" else sum_dtype(dt)


#: the complex dtypes that ``sum``, ``prod``, ``mean`` and ``reduce`` ("sum"/"prod") accept, and
#: the C++ types of kernels/util/complex.cuh they are read as (NumPy's layout)
COMPLEX = (np.dtype(np.complex64), np.dtype(np.complex128))
COMPLEX_CTYPES: dict[np.dtype[Any], str] = {
    np.dtype(np.complex64): "prim::c64",
    np.dtype(np.complex128): "prim::c128",
}
#: every dtype some kernel reads in place, and the C++ type it is read as in name expressions: the
#: 4- and 8-byte types, the narrow integers, bool as prim::Flag (util/flag.cuh: its byte, any
#: nonzero byte true as NumPy reads it, stored as 0 or 1), float16 and bfloat16 as prim::f16 and
#: prim::bf16 (util/narrow.cuh) and complex as prim::c64/c128 (util/complex.cuh)
KERNEL_CTYPES = {
    **CTYPES,
    **SMALL_CTYPES,
    np.dtype(np.bool_): "prim::Flag",
    np.dtype(np.float16): "prim::f16",
    BFLOAT16: "prim::bf16",
    **COMPLEX_CTYPES,
}
#: every dtype the sums and products accept (min/max take :data:`REDUCE_DTYPES`: no complex)
REDUCE_COMPLEX_DTYPES = REDUCE_DTYPES + COMPLEX

#: the production reduction's instantiations for products of narrow inputs, as
#: :data:`REDUCE_NARROW_KERNELS`: (input, accumulator, result, ops). Products of narrow integers
#: multiply in 64 bits (NumPy's result dtype, wrapping as it does); float16 and bfloat16 in float32.
REDUCE_NARROW_PROD_KERNELS = tuple(
    (np.dtype(i), np.dtype(a), np.dtype(r), ("prod",))
    for i, a, r in (
        (np.int8, np.int64, np.int64),
        (np.uint8, np.uint64, np.uint64),
        (np.int16, np.int64, np.int64),
        (np.uint16, np.uint64, np.uint64),
        (np.float16, np.float32, np.float16),
        (BFLOAT16, np.float32, BFLOAT16),
    )
)


#: the smallest normal float32
_F32_TINY = float(np.finfo(np.float32).tiny)


def to_float32(a: Any, xp: Any) -> Any:
    """The float64 array ``a`` (of the backend ``xp``) as float32, rounded to nearest as NumPy
    rounds, subnormal results kept: CuPy's own kernels are compiled to flush float32
    subnormals to zero (``-ftz=true``), so its cast gives 0 where NumPy's gives a subnormal.
    Those results are made from their bits instead: the multiple of 2^-149 nearest the value
    (float64 arithmetic, exact; ties to even) and the sign."""
    out = a.astype(np.float32)
    if xp is np:
        return out
    small = (xp.abs(a) < _F32_TINY) & (a != 0)
    # at most 2^23 (the smallest normal); 0 for the others
    ulps = xp.rint(xp.where(small, xp.abs(a), 0.0) * 2.0**149).astype(np.uint32)
    bits = ulps | (xp.signbit(a).astype(np.uint32) << np.uint32(31))
    return xp.where(small, bits.view(np.float32), out)

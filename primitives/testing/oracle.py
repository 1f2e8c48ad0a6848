"""NumPy/SciPy reference oracles and the error bounds the checks use."""

from __future__ import annotations

import math

import numpy as np

from .._core import dtypes as _dtypes

__all__ = [
    "gamma",
    "reduce_ref",
    "reduce_matches",
    "float_sum_bound",
    "radix_image",
    "sort_order",
    "radix_histogram",
    "spmv_reference",
    "spmv_matches",
]


def reduce_ref(x, op, acc_dtype):
    """Reference reduction of host array ``x``: float sums correctly rounded (``math.fsum``) for
    a float64 accumulator, NumPy's float64 sum for narrower ones (its error, a few float64
    roundings of the sum of magnitudes, is far below any float32 bound, and it takes a second
    where fsum takes half a minute for 2^28 elements), integers exactly in ``acc_dtype``
    (wrapping as fixed-width arithmetic does)."""
    x = np.asarray(x).reshape(-1)
    acc_dtype = np.dtype(acc_dtype)
    if op == "sum":
        if acc_dtype.kind == "f":
            if not np.all(np.isfinite(x)) or acc_dtype.itemsize < 8:
                return np.sum(x.astype(np.float64), dtype=np.float64)
            return np.float64(math.fsum(x.astype(np.float64).tolist()))  # correctly rounded
        with np.errstate(over="ignore"):
            return np.sum(x.astype(acc_dtype), dtype=acc_dtype)
    y = x.astype(acc_dtype)
    return np.min(y) if op == "min" else np.max(y)


def gamma(d, dtype):
    """Higham's ``gamma(d) = d u / (1 - d u)``, ``u = eps / 2`` the unit roundoff of ``dtype``:
    the relative error of ``d`` roundings (``d`` a number or an array, ``d u < 1``)."""
    du = d * (np.finfo(dtype).eps / 2)
    return du / (1 - du)


def float_sum_bound(x, depth, dtype):
    """Higham's bound for a summation tree of depth ``depth`` in ``dtype``:
    ``|err| <= gamma(depth) * sum(|x|)``."""
    g = gamma(depth, dtype) if depth * (np.finfo(dtype).eps / 2) < 1 else np.inf
    return g * float(np.sum(np.abs(np.asarray(x, dtype=np.float64)))) + np.finfo(dtype).tiny


def reduce_matches(got, x, op, acc_dtype, depth):
    """(ok, expected, bound) for a reduction result against the oracle."""
    acc_dtype = np.dtype(acc_dtype)
    want = reduce_ref(x, op, acc_dtype)
    got = np.asarray(got)
    if acc_dtype.kind == "f":
        if np.isnan(want):
            return bool(np.isnan(got)), want, 0.0
        if op != "sum":
            return bool(got == want), want, 0.0
        bound = float_sum_bound(x, depth, acc_dtype)
        return bool(abs(float(got) - float(want)) <= bound), want, bound
    return bool(got == want), want, 0


def _array_module(x):
    if isinstance(x, np.ndarray):
        return np
    import cupy

    return cupy


#: (bits of +inf, bits of the positive quiet NaN) of the float dtypes
_FLOAT_BITS = {
    np.dtype(np.float16): (0x7C00, 0x7E00),
    _dtypes.BFLOAT16: (0x7F80, 0x7FC0),
    np.dtype(np.float32): (0x7F800000, 0x7FC00000),
    np.dtype(np.float64): (0x7FF0000000000000, 0x7FF8000000000000),
}


def radix_image(x, descending=False):
    """The order-preserving unsigned image the radix sorts order 2-, 4- and 8-byte keys by
    (kernels/util/key_image.cuh: ``ordered``, with the fold): unsigned keys as they are, signed
    keys with the sign bit flipped; floats with every NaN made the positive quiet NaN, then
    negative numbers negated as two's complement integers (which puts -0.0 on 0.0's image) and
    others with the sign bit set; all complemented for descending order. NumPy or CuPy in, the
    same kind out."""
    xp = _array_module(x)
    u, top = _bits_and_top(x)
    ut = u.dtype.type
    if x.dtype.kind == "i":
        u = u ^ top
    elif _dtypes.is_float(x.dtype):
        u = xp.where(_is_nan(u, top, x.dtype), ut(_FLOAT_BITS[x.dtype][1]), u)
        u = xp.where((u & top) != 0, ~u + ut(1), u | top)
    return ~u if descending else u


def _bits_and_top(x):
    """The keys' bits (unsigned, contiguous) and the sign bit of their width."""
    u = _array_module(x).ascontiguousarray(x).view(f"u{x.dtype.itemsize}")
    ut = u.dtype.type
    return u, ut(1) << ut(8 * x.dtype.itemsize - 1)


def _is_nan(u, top, dt):
    """Which bit patterns ``u`` of floats of dtype ``dt`` are NaNs."""
    return (u & ~top) > u.dtype.type(_FLOAT_BITS[np.dtype(dt)][0])


def radix_histogram(x, begin, end, descending=False):
    """What the onesweep histogram kernel computes for ``x``: the 256 digit counts of every 8-bit
    pass over bits ``[begin, end)`` of :func:`radix_image` (the last pass takes the bits left),
    then the fold word: 1 when a float key is a NaN. uint32, NumPy or CuPy as ``x``."""
    xp = _array_module(x)
    img = radix_image(x, descending)
    ut = img.dtype.type
    passes = -(-(end - begin) // 8)
    out = xp.zeros(passes * 256 + 1, np.uint32)
    for p in range(passes):
        shift = begin + 8 * p
        digits = (img >> ut(shift)) & ut((1 << min(8, end - shift)) - 1)
        out[p * 256 : (p + 1) * 256] = xp.bincount(digits.astype(np.int64), minlength=256)
    if _dtypes.is_float(x.dtype):
        out[-1] = int(bool(xp.any(_is_nan(*_bits_and_top(x), x.dtype))))
    return out


def sort_order(x, axis=-1, descending=False):
    """NumPy's stable sort order of host array ``x`` along ``axis`` (None: flattened), as
    ``numpy.argsort(x, axis, kind="stable")``; ``descending``: NumPy's ``descending=True``
    (largest first, equal keys in input order, NaNs last: for complex keys the classes with a
    NaN part in their ascending order, each by its non-NaN part descending). Computed as the
    stable ascending order of the reversed line, mapped back and reversed (NaNs first), then
    the NaN classes moved last, stably."""
    x = np.asarray(x)
    if axis is None:
        x, axis = x.reshape(-1), -1
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    rev = np.flip(x, axis=axis)
    order = np.flip(n - 1 - np.argsort(rev, axis=axis, kind="stable"), axis=axis)
    if x.dtype.kind == "c":
        cls = np.isnan(x.imag) * 1 + np.isnan(x.real) * 2
    elif _dtypes.is_float(x.dtype):
        cls = np.isnan(x) * 1
    else:
        return order
    moved = np.argsort(np.take_along_axis(cls, order, axis=axis), axis=axis, kind="stable")
    return np.take_along_axis(order, moved, axis=axis)


# ---- sparse matrix-vector products -------------------------------------------------------------


def spmv_reference(A64, x, *, y=None, alpha=1.0, beta=0.0, dtype=np.float32):
    """``(want, bound)``: the float64 product of the oracle and an elementwise error bound for a
    result computed in ``dtype``.

    ``A64`` is a float64 ``scipy.sparse`` (host) or ``cupyx.scipy.sparse`` (device) CSR matrix
    and ``x``, ``y`` arrays of the same library. Row r of the result is a sum of ``nnz_r``
    products and ``beta*y[r]``; whatever the order of the additions (a tree of height at most
    ``nnz_r``), each term passes through at most ``d_r = nnz_r + 2`` roundings (its product,
    alpha, the additions), so ``|got - want| <= gamma(d_r) * (|alpha| |A| |x| + |beta| |y|)``
    with ``gamma(d) = d u / (1 - d u)`` and ``u`` the unit roundoff of ``dtype`` (Higham,
    *Accuracy and Stability of Numerical Algorithms*, sec. 3.1 and 4.2); the float64 oracle has
    its own error of the same form, added to the bound. Complex ``dtype`` (``A64`` complex128,
    ``x`` any): the oracle is complex128 and ``d_r = nnz_r + 8``, as a complex product is off by
    at most ``sqrt(2) gamma(2) |a| |b|`` (Higham, lemma 3.5) and a complex addition by ``u``
    times the sum of the moduli.
    """
    xp = np if isinstance(x, np.ndarray) else __import__("cupy")
    cplx = np.dtype(dtype).kind == "c"
    x64 = x.astype(np.complex128 if cplx else np.float64)
    want = alpha * (A64 @ x64)
    mag = abs(alpha) * (abs(A64) @ xp.abs(x64))
    if beta != 0:
        y64 = y.astype(x64.dtype)
        want = want + beta * y64
        mag = mag + abs(beta) * xp.abs(y64)
    d = xp.diff(A64.indptr).astype(np.float64) + (8 if cplx else 2)
    bound = (gamma(d, dtype) + gamma(d, np.float64)) * mag + np.finfo(dtype).tiny
    return want, bound


def spmv_matches(got, want, bound):
    """(ok, worst index) of ``got`` against ``spmv_reference``'s ``want`` and ``bound`` (same
    library); NaN where the oracle has NaN."""
    xp = np if isinstance(want, np.ndarray) else __import__("cupy")
    got = xp.asarray(got).astype(want.dtype)
    if got.shape != want.shape:
        return False, -1
    nan = xp.isnan(want)
    err = xp.where(nan, 0.0, xp.abs(got - want))
    bad = (err > bound) | (nan != xp.isnan(got)) | (xp.isnan(err) & ~nan)
    if not bool(bad.any()):
        return True, -1
    return False, int(xp.argmax(bad))

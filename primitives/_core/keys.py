"""Keys as bit patterns, shared by every family that orders values (the sorts, selection, the
sets, the Dask sort): the key dtypes, their order-preserving unsigned images and back (the host
side of ``kernels/util``'s ``ordered``), and values moved as bits."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import backend as _backend, dtypes as _dtypes

__all__ = [
    "KEY_DTYPES",
    "KEY_SET",
    "SORT_DTYPES",
    "SORT_SET",
    "KIND",
    "U",
    "C",
    "INDEX",
    "key_bits",
    "key_back",
    "half_bits",
    "KEY_U",
    "KEY_C",
    "KIND_BF16",
    "key_width",
    "widened",
    "image_fields",
    "image_width",
    "pack_words",
    "native_values",
    "index_dtype",
]

#: the dtypes the radix sorts order
KEY_DTYPES: tuple[np.dtype[Any], ...] = tuple(
    np.dtype(d)
    for d in (
        np.uint8,
        np.uint16,
        np.uint32,
        np.uint64,
        np.int8,
        np.int16,
        np.int32,
        np.int64,
        np.float32,
        np.float64,
    )
)
KEY_SET: frozenset[np.dtype[Any]] = frozenset(KEY_DTYPES)
#: the dtypes ``sort``, ``argsort`` and ``lexsort`` order (every dtype NumPy sorts numerically):
#: :func:`key_bits` takes all but the complex ones, which sort by their images
#: (:func:`image_fields`; the sorts make them in one kernel pass)
SORT_DTYPES: tuple[np.dtype[Any], ...] = (
    np.dtype(np.bool_),
    *KEY_DTYPES,
    np.dtype(np.float16),
    _dtypes.BFLOAT16,
    np.dtype(np.complex64),
    np.dtype(np.complex128),
)
SORT_SET: frozenset[np.dtype[Any]] = frozenset(SORT_DTYPES)
#: prim::radix::KeyKind of a dtype's kind
KIND: dict[str, int] = {"u": 0, "i": 1, "f": 2}
#: prim::radix::Direction, a kernel's ``descending`` argument: ascending; descending with NaNs
#: first (NaN the largest: ``radix_sort``, ``segmented_sort``, ``topk(largest=True)``, as torch);
#: descending with NaNs last (NumPy's ``sort(descending=True)``). Either descending order keeps
#: equal keys in input order.
ASCENDING, DESC_NAN_FIRST, DESC_NAN_LAST = 0, 1, 2
#: the key bits, by width
U: dict[int, np.dtype[Any]] = {4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}
#: C++ type of the key bits, by width
C: dict[int, str] = {b: _dtypes.CTYPES[d] for b, d in U.items()}
#: the key bits onesweep reads, by width: 2-byte keys as their own 16 bits (:func:`half_bits`)
KEY_U: dict[int, np.dtype[Any]] = {2: np.dtype(np.uint16), **U}
KEY_C: dict[int, str] = {b: _dtypes.cname(d) for b, d in KEY_U.items()}
#: prim::radix::KeyKind of bfloat16 keys read as their 16 bits (float16's is KIND["f"])
KIND_BF16 = 3
#: argsort's result, as numpy.argsort's
INDEX: np.dtype[Any] = np.dtype(np.int64)


#: float16 bits -> float32 bits that keep their order: the sign moves to bit 31, the magnitude
#: to bits 13-27 (an exponent 112 below float32's: as unsigned numbers, magnitudes keep their order
#: and +-0.0 stays +-0.0), and a NaN gets float32's all-ones exponent (its mantissa, nonzero, is
#: kept: a float32 NaN). So the float image of the kernels orders them as NumPy orders float16
#: (-0.0 = 0.0, NaNs equal and last), and the map is undone bit for bit (:func:`key_back`).
_H_TOP, _H_MAG, _H_INF, _F_EXP = 0x8000, 0x7FFF, 0x7C00, 0x7F800000


def key_width(dt: np.dtype[Any]) -> int:
    """The bits of :func:`key_bits`' keys that order a key of dtype ``dt``."""
    return 32 if _dtypes.is_float16(dt) else 8 * dt.itemsize


def widened(arr: Any) -> Any:
    """``arr`` itself, or bfloat16 keys as the float32 numbers they are (each one's bits shifted
    up 16: exact, NaN payloads and the sign of zeros kept; undone by :func:`key_back` of the
    bits): the sorts' float32 keys, of the same order."""
    if arr.dtype != _dtypes.BFLOAT16:
        return arr
    return (arr.view(np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)


def key_bits(arr: Any) -> tuple[Any, int, int]:
    """(unsigned bit array of 4 or 8 bytes, kind, key bits): a view for 32/64-bit keys; 8- and
    16-bit keys (bool too) are widened to their order-preserving uint32 image, float16 keys to
    float32 bits of the same order, bfloat16 keys to the float32 bits they are (:func:`widened`;
    both undone bit for bit by :func:`key_back`)."""
    dt = arr.dtype
    if dt == _dtypes.BFLOAT16:
        return widened(arr).view(np.uint32), KIND["f"], 32
    if dt.itemsize >= 4:
        return arr.view(U[dt.itemsize]), KIND[dt.kind], 8 * dt.itemsize
    u = arr.view(np.dtype(f"u{dt.itemsize}"))
    if dt.kind == "f":
        h = u.astype(np.uint32)
        f = ((h & np.uint32(_H_TOP)) << np.uint32(16)) | ((h & np.uint32(_H_MAG)) << np.uint32(13))
        nan = (h & np.uint32(_H_MAG)) > np.uint32(_H_INF)
        return f | (nan.astype(np.uint32) * np.uint32(_F_EXP)), KIND["f"], 32
    if dt.kind == "i":
        u = u ^ u.dtype.type(1 << (8 * dt.itemsize - 1))
    return u.astype(np.uint32), 0, 8 * dt.itemsize


def half_bits(arr: Any) -> tuple[Any, int, int]:
    """(uint16 view, kind, key bits) of 2-byte keys (uint16, int16, float16, bfloat16) read as
    their own bits, as onesweep sorts them (two 8-bit digit passes over the 16-bit image, the
    kind telling the image: :data:`KIND`, :data:`KIND_BF16`); :func:`key_back` returns them."""
    dt = arr.dtype
    return arr.view(np.uint16), KIND_BF16 if dt == _dtypes.BFLOAT16 else KIND[dt.kind], 16


def key_back(bits: Any, dt: np.dtype[Any]) -> Any:
    """Inverse of :func:`key_bits` (and of :func:`half_bits`)."""
    if bits.dtype.itemsize == dt.itemsize:
        return bits.view(dt)
    if dt == _dtypes.BFLOAT16:
        return (bits >> np.uint32(16)).astype(np.uint16).view(dt)
    if dt.kind == "f":
        h = ((bits >> np.uint32(16)) & np.uint32(_H_TOP)) | (
            (bits >> np.uint32(13)) & np.uint32(_H_MAG)
        )
        return h.astype(np.uint16).view(dt)
    u = bits.astype(np.dtype(f"u{dt.itemsize}"))
    if dt.kind == "i":
        u ^= u.dtype.type(1 << (8 * dt.itemsize - 1))
    return u.view(dt)


# ---- images of exact width, packed into words (multi-key sorts) -----------------------------

#: the bits of +inf and of the canonical (positive quiet) NaN of floats, by width
_INF = {16: 0x7C00, 32: 0x7F800000, 64: 0x7FF0000000000000}
_QNAN = {16: 0x7E00, 32: 0x7FC00000, 64: 0x7FF8000000000000}


def _float_image(u: Any, width: int) -> tuple[Any, Any]:
    """(image, isnan) of float bits ``u`` (unsigned, ``width`` bits), the kernels' ``ordered``
    (kernels/util/key_image.cuh) of one width: every NaN the positive quiet NaN, then negative
    numbers negated as two's complement integers (-0.0 lands on 0.0's image), others with the
    sign bit set. Non-NaN images lie in ``[image(-inf), image(+inf)]``; the NaN's is above."""
    xp = _backend.array_module(u)
    ut = u.dtype.type
    top = ut(1 << (width - 1))
    nan = (u & ~top) > ut(_INF[width])
    u = xp.where(nan, ut(_QNAN[width]), u)
    return xp.where((u & top) != 0, ~u + ut(1), u | top), nan


def image_fields(arr: Any) -> list[tuple[Any, int]]:
    """The order-preserving unsigned image of ``arr`` (a dtype of :data:`SORT_DTYPES`) as
    fields ``(unsigned array, bits)``, most significant first: comparing the concatenated fields
    as one unsigned number orders the keys as NumPy does (NaNs last, -0.0 = 0.0, NaNs equal).
    bool is 1 bit, other real keys their width; complex keys two fields of their parts' width.

    Complex order (NumPy's: ``npysort_common.h``, ``CFLOAT_LT``): A, the values with no NaN
    part, by (real, imag); then B, ``R + nan j``, by real; then C, ``nan + R j``, by imag; then
    D, ``nan + nan j``, all equal. With ``img`` the float image of a part and ``hi = img(+inf)``
    (the largest image of a non-NaN part) the fields are (high, low):
    A: ``(img(re), img(im))``; B: ``(hi + 1, img(re))``; C: ``(hi + 2, img(im))``; D:
    ``(hi + 3, 0)``. Proof: A's high fields are images of non-NaN parts, at most ``hi``, below
    every other class's, so A comes first, in (real, imag) order; B, C and D have the high
    fields ``hi + 1 < hi + 2 < hi + 3`` (which fit the width: ``hi`` is ``0xFF800000`` for 32
    bits, ``0xFFF0...0`` for 64), so they follow in that order, B ordered by its real part's
    image, C by its imaginary part's, D all equal. A -0.0 part has 0.0's image, so those tie
    (input order kept); NaN payloads and signs never reach the fields."""
    xp = _backend.array_module(arr)
    arr = widened(arr)  # bfloat16 as float32: one 32-bit field
    dt = arr.dtype
    if dt.kind == "b":
        return [(arr.view(np.uint8), 1)]
    if dt.kind == "c":
        w = 4 * dt.itemsize
        ut = np.dtype(f"u{w // 8}").type
        re, nre = _float_image(xp.ascontiguousarray(arr.real).view(f"u{w // 8}"), w)
        im, nim = _float_image(xp.ascontiguousarray(arr.imag).view(f"u{w // 8}"), w)
        hi = ut(_INF[w] | (1 << (w - 1)))
        cls = xp.where(nre, xp.where(nim, ut(hi + 3), ut(hi + 2)), ut(hi + 1))
        high = xp.where(nre | nim, cls, re)
        low = xp.where(nre, xp.where(nim, ut(0), im), xp.where(nim, re, im))
        return [(high, w), (low, w)]
    w = 8 * dt.itemsize
    u = arr.view(np.dtype(f"u{dt.itemsize}"))
    if dt.kind == "i":
        return [(u ^ u.dtype.type(1 << (w - 1)), w)]
    if dt.kind == "f":
        return [(_float_image(u, w)[0], w)]
    return [(u, w)]


def image_width(dt: np.dtype[Any]) -> int:
    """The bits of :func:`image_fields`' fields of a key of dtype ``dt``, together: 1 for bool,
    both parts for complex, 32 for bfloat16 (as float32), else the dtype's width."""
    if dt == _dtypes.BFLOAT16:
        return 32
    return 1 if dt.kind == "b" else 8 * dt.itemsize


def pack_words(fields: list[tuple[Any, int]]) -> list[tuple[Any, int]]:
    """``fields`` (most significant first, as :func:`image_fields`) concatenated into one
    unsigned number and cut into 64-bit words, least significant first: ``(word, bits)``, the
    word uint64, or uint32 when its used ``bits`` fit 32 (a field may straddle two words).
    Sorting stably by each word in turn (least significant first) orders by the fields."""
    total = sum(b for _, b in fields)
    nwords = -(-total // 64)
    wt = np.dtype(np.uint32 if total <= 32 else np.uint64).type  # one word of 32 bits at most
    words: list[Any] = [None] * nwords
    offset = 0
    for v, b in reversed(fields):
        j, s = divmod(offset, 64)
        v = v.astype(wt, copy=False)
        lo = v if s == 0 else v << wt(s)
        words[j] = lo if words[j] is None else words[j] | lo
        if s + b > 64:
            hi = v >> wt(64 - s)
            words[j + 1] = hi if words[j + 1] is None else words[j + 1] | hi
        offset += b
    out = []
    for j, w in enumerate(words):
        bits = min(64, total - 64 * j)
        out.append((w.astype(np.uint32) if bits <= 32 and w.dtype != np.uint32 else w, bits))
    return out


def native_values(arr: Any) -> Any:
    """The values as uint32/uint64 bits when they are 4 or 8 bytes wide (any dtype), else None."""
    if arr.dtype.itemsize in U and arr.dtype.hasobject is False and arr.dtype.fields is None:
        return arr.view(U[arr.dtype.itemsize])
    return None


def index_dtype(n: int) -> np.dtype[Any]:
    """The narrowest unsigned index dtype of ``n`` elements (uint32 below 2^32)."""
    return np.dtype(np.uint32) if n < (1 << 32) else np.dtype(np.uint64)

"""lexsort's keys packed into radix sort words by the kernel (kernels/sorting/pack.cu,
primitives.sorting._plans.pack_keys): the words bit for bit as primitives._core.keys'
image_fields and pack_words make them on the host, and lexsort against NumPy, for every key
dtype with its special values (NaN payloads of both signs, -0.0, infinities, subnormals, the
integers' limits, every complex NaN class), key counts whose images straddle 32- and 64-bit
words, strided keys, and lexsort along every axis of C-, F- and mixed-layout keys."""

import itertools

import numpy as np
import pytest

import primitives as prim
from primitives import sorting
from primitives._core import dtypes as _dtypes, keys as _keys
from primitives.sorting import _plans
from primitives.testing import harness as H

SORT_DTYPES = sorting.SORT_DTYPES

#: float bits beside random values: NaNs of both signs with several payloads (quiet and
#: signalling), +-0.0, +-inf, the smallest subnormal and the largest finite value
_SPECIAL_BITS = {
    2: [0x7E00, 0xFE00, 0x7C01, 0xFD55, 0x7FFF, 0x0000, 0x8000, 0x7C00, 0xFC00, 0x0001, 0x7BFF],
    4: [
        0x7FC00000,
        0xFFC00000,
        0x7F800001,
        0xFFA5A5A5,
        0x7FFFFFFF,
        0x00000000,
        0x80000000,
        0x7F800000,
        0xFF800000,
        0x00000001,
        0x7F7FFFFF,
    ],
    8: [
        0x7FF8000000000000,
        0xFFF8000000000000,
        0x7FF0000000000001,
        0xFFF5A5A5A5A5A5A5,
        0x7FFFFFFFFFFFFFFF,
        0x0,
        0x8000000000000000,
        0x7FF0000000000000,
        0xFFF0000000000000,
        0x1,
        0x7FEFFFFFFFFFFFFF,
    ],
}


def _floats(rng, n, dt):
    """n floats of ``dt``: a few distinct values (ties) and a third of special bit patterns."""
    dt = np.dtype(dt)
    x = rng.integers(-3, 4, n).astype(dt)
    special = np.array(_SPECIAL_BITS[dt.itemsize], dtype=f"u{dt.itemsize}").view(dt)
    where = rng.random(n) < 0.35
    x[where] = rng.choice(special, int(where.sum()))
    return x


def make(rng, shape, dt):
    """Keys of ``dt`` with many ties and every special value of the dtype: bool; integers near
    zero and at their limits; floats as :func:`_floats`; complex numbers whose parts are such
    floats (so NaN in the real part, the imaginary part, both or neither)."""
    dt = np.dtype(dt)
    n = int(np.prod(shape))
    if dt.kind == "b":
        x = rng.random(n) < 0.5
    elif dt.kind in "ui":
        info = np.iinfo(dt)
        x = rng.integers(-2 if dt.kind == "i" else 0, 3, n).astype(dt)
        where = rng.random(n) < 0.3
        x[where] = rng.choice(
            np.array([info.min, info.max, info.min + 1, info.max - 1], dt), int(where.sum())
        )
    elif dt == _dtypes.BFLOAT16:  # as float32's special bits, upper halves
        x = (_floats(rng, n, np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)
        x = x.view(dt)
    elif dt.kind == "f":
        x = _floats(rng, n, dt)
    else:
        part = np.dtype(f"f{dt.itemsize // 2}")
        x = np.empty(n, dt)
        x.real, x.imag = _floats(rng, n, part), _floats(rng, n, part)
    return x.reshape(shape)


def device(backend, x):
    """The host array ``x`` on the backend, in its layout (C or F)."""
    return backend.xp.asarray(x, order="K")


def assert_words(got, want):
    """pack_keys' words equal pack_words' bit for bit: count, dtype, used bits, values."""
    assert [(w.dtype, b) for w, b in got] == [(w.dtype, b) for w, b in want]
    for i, ((g, _), (w, _)) in enumerate(zip(got, want)):
        np.testing.assert_array_equal(H.to_host(g), w, err_msg=f"word {i}")


def host_words(keys):
    """The words of host keys (the primary key first) as the host functions make them."""
    return _keys.pack_words([f for k in keys for f in _keys.image_fields(np.ascontiguousarray(k))])


# ---- the words, bit for bit -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", SORT_DTYPES, ids=lambda d: d.name)
def test_words_every_dtype(dtype, rng, backend):
    """Each dtype alone, and beside keys that put its image across a 32- or 64-bit boundary
    (1, 7, 33 and 63 bits below it), as the primary and the least significant key."""
    n = 301
    x = make(rng, (n,), dtype)
    below = {
        1: [make(rng, (n,), np.bool_)],
        7: [make(rng, (n,), np.bool_) for _ in range(7)],
        33: [make(rng, (n,), np.bool_), make(rng, (n,), np.float32)],
        63: [make(rng, (n,), np.uint32), make(rng, (n,), np.int16), make(rng, (n,), np.int8)]
        + [make(rng, (n,), np.bool_) for _ in range(7)],
    }
    for bits, lower in below.items():
        assert sum(_keys.image_fields(k)[0][1] for k in lower) == bits
        for keys in ([x], [x, *lower], [*lower, x], [x, *lower, x]):
            got = _plans.pack_keys([(d, d) for d in (device(backend, k) for k in keys)], backend)
            assert_words(got, host_words(keys))


@pytest.mark.parametrize(
    "dtypes",
    [
        [np.int64, np.int64, np.int64, np.bool_],  # 193 bits: four words, the last of 1 bit
        [np.uint16] * 5,  # 80 bits: a uint64 word and a uint32 word
        [np.uint16] * 2,  # 32 bits: one uint32 word
        [np.bool_] * 33,  # 33 bits: one uint64 word
        [np.bool_] * 65,  # 65 bits: a word of 64 one-bit keys, then one of 1
        [np.int8] * 9,  # 72 bits
        [np.float16, np.float16, np.float16, np.float16, np.bool_],  # 65 bits
        [np.complex128, np.bool_],  # 129 bits: the complex image over three words
        [np.bool_, np.complex128, np.complex64, np.float64],  # 257 bits
        [np.complex64, np.int32, np.float32, np.bool_],  # 129 bits
        [np.float64, np.uint8, np.float32, np.int16, np.float16, np.int64],  # 184 bits
    ],
    ids=lambda ds: "-".join(np.dtype(d).name for d in ds),
)
def test_words_straddle(dtypes, rng, backend):
    keys = [make(rng, (203,), d) for d in dtypes]
    got = _plans.pack_keys([(d, d) for d in (device(backend, k) for k in keys)], backend)
    assert_words(got, host_words(keys))


# ---- lexsort against NumPy --------------------------------------------------------------------


@pytest.mark.parametrize("dtype", SORT_DTYPES, ids=lambda d: d.name)
def test_lexsort_special_values(dtype, rng):
    """Every dtype's special values as the only key (NaN payloads and signs all equal and last,
    -0.0 equal to 0.0, NumPy's four complex NaN classes), beside other keys, and both keys of one
    dtype."""
    n = 517
    x = make(rng, (n,), dtype)
    y = make(rng, (n,), dtype)
    b = make(rng, (n,), np.bool_)
    for keys in ([x], [x, y], [y, b, x], [b, x, make(rng, (n,), np.int64)]):
        H.assert_same(prim.lexsort(keys), np.lexsort(keys), what=str([k.dtype for k in keys]))


@pytest.mark.parametrize("count", [1, 2, 3, 4, 5, 9])
def test_lexsort_key_counts(count, rng):
    """Up to nine keys of mixed widths (their images over 1 to 5 words)."""
    dts = [np.int64, np.bool_, np.uint16, np.float32, np.complex64, np.int8, np.float16]
    keys = [make(rng, (300,), dts[(i * 3) % len(dts)]) for i in range(count)]
    H.assert_same(prim.lexsort(keys), np.lexsort(keys))
    for ds in ([np.int64] * 3 + [np.bool_], [np.uint16] * 5, [np.bool_] * 70):
        keys = [make(rng, (300,), d) for d in ds]
        H.assert_same(prim.lexsort(keys), np.lexsort(keys), what=str(len(ds)))


def test_lexsort_strided_keys(rng):
    """Strided, reversed, byte-swapped and misaligned keys (the checks make them contiguous),
    and the rows of a 2-D array of keys."""
    n = 211
    a = make(rng, (2 * n,), np.float64)
    b = make(rng, (n,), np.complex64)
    c = make(rng, (n,), np.int16)
    raw = np.zeros(n * 2 + 1, np.uint8)
    raw[1:] = c.view(np.uint8)
    misaligned = raw[1:].view(np.int16)
    for keys in (
        [a[::2], b, c],
        [a[1::2][::-1], b[::-1], c],
        [a[::2].astype(">f8"), b.astype(">c8"), c],
        [misaligned, a[::2], c],
    ):
        # NumPy's own lexsort of byte-swapped complex keys is not its complex order: the oracle
        # sorts them in native byte order
        native = [k.astype(k.dtype.newbyteorder("=")) for k in keys]
        H.assert_same(prim.lexsort(keys), np.lexsort(native))
    stacked = np.stack([make(rng, (n,), np.float32) for _ in range(3)])
    H.assert_same(prim.lexsort(stacked), np.lexsort(stacked))
    H.assert_same(prim.lexsort(stacked[:, ::2]), np.lexsort(stacked[:, ::2]))


# ---- lexsort along an axis ----------------------------------------------------------------------


def _layouts(x):
    """``x`` C-ordered and F-ordered."""
    return {"C": x, "F": np.asfortranarray(x)}


@pytest.mark.parametrize("dtype", SORT_DTYPES, ids=lambda d: d.name)
def test_lexsort_axes_every_dtype(dtype, rng):
    shape = (3, 4, 5)
    x = make(rng, shape, dtype)
    y = make(rng, shape, np.int16)
    for axis in range(-3, 3):
        for (lx, kx), (ly, ky) in itertools.product(_layouts(x).items(), _layouts(y).items()):
            want = np.lexsort([x, y], axis=axis)
            H.assert_same(prim.lexsort([kx, ky], axis=axis), want, what=f"{axis} {lx}{ly}")
            H.assert_same(prim.lexsort([ky, kx], axis=axis), np.lexsort([y, x], axis=axis))


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (3, 2, 1, 4, 2), (1, 6, 1), (5, 1)])
def test_lexsort_axes_mixed_layouts(shape, rng):
    """C- and F-ordered keys together (each read in place in its own layout: an F-ordered key
    of four dimensions or more beside a C-ordered one is read a block of rows at a time), and
    keys whose images straddle words, along every axis."""
    keys = [
        make(rng, shape, np.float64),
        np.asfortranarray(make(rng, shape, np.complex128)),
        make(rng, shape, np.bool_),
        np.asfortranarray(make(rng, shape, np.uint16)),
    ]
    for axis in range(len(shape)):
        for ks in (keys, keys[::-1], keys[1:2], keys[1:3] + keys[1:2]):
            want = np.lexsort([np.ascontiguousarray(k) for k in ks], axis=axis)
            H.assert_same(prim.lexsort(ks, axis=axis), want, what=f"axis {axis}")


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (4, 3, 2)])
def test_words_along_axes(shape, rng, backend):
    """The words of keys read through the lines along an axis, bit for bit, for C, F and mixed
    layouts (the kernel's strided reads against a contiguous copy's host words)."""
    xs = [make(rng, shape, d) for d in (np.float16, np.complex64, np.int64, np.bool_)]
    for axis in range(len(shape)):
        for fs in itertools.product((False, True), repeat=len(xs)):
            keys = [device(backend, np.asfortranarray(x) if f else x) for x, f in zip(xs, fs)]
            flip = all(_plans.Lines.flipped(k) for k in keys)
            lines = [_plans.Lines(backend.xp, k, axis, flip, copy=False) for k in keys]
            got = _plans.pack_keys([(k, ln.moved) for k, ln in zip(keys, lines)], backend)
            want = host_words([H.to_host(ln.moved) for ln in lines])
            assert_words(got, want)


@pytest.mark.parametrize("n", [3000, 11000, 12289], ids=["block", "mixed", "onesweep"])
def test_lexsort_prefetches_the_kernels_it_launches(n, rng, monkeypatch):
    """A 1-D lexsort asks for its pack kernels and its word sorts' kernels before it packs
    (their compiles at once on a first call): every kernel it then launches from the sort and
    pack sources was asked for, and nothing else. Four keys of 96 bits: two words, of 8 and 4
    bytes, sorted by the block sort (few keys), onesweep (many), or onesweep for the 8-byte word
    and the block sort for the 4-byte one (their auto limits differ; the block sort of the last
    word once returned that permutation as uint32, not int64)."""
    from primitives._core import loader
    from primitives.sorting import _kernels

    sources = {_kernels.ONESWEEP, _kernels.BLOCK, _kernels.PACK}
    events = []  # ("ask" or "get", source, name), in order
    prefetch, load = loader.prefetch, loader.load

    def spy_prefetch(relpath, names):
        names = list(names)
        events.extend(("ask", relpath, n) for n in names if relpath in sources)
        return prefetch(relpath, names)

    def spy_load(relpath, names):
        get = load(relpath, names)

        def recorded(name):
            if relpath in sources:
                events.append(("get", relpath, name))
            return get(name)

        return recorded

    monkeypatch.setattr(loader, "prefetch", spy_prefetch)
    monkeypatch.setattr(loader, "load", spy_load)
    keys = [
        rng.integers(0, 4, n).astype(np.uint32),  # least significant
        rng.integers(0, 3, n).astype(np.int16),
        rng.integers(0, 2, n).astype(np.int16),
        rng.integers(0, 5, n).astype(np.uint32),  # the primary key
    ]
    H.assert_same(prim.lexsort(keys), np.lexsort(keys))
    got = {(s, name) for kind, s, name in events if kind == "get"}
    first = next(i for i, (kind, s, _) in enumerate(events) if kind == "get" and s == _kernels.PACK)
    asked_first = {(s, name) for kind, s, name in events[:first] if kind == "ask"}
    assert got and got == asked_first, (got, asked_first)

"""Reductions of bool arrays whose bytes are not all 0 and 1 (``np.frombuffer`` of any bytes, a
uint8 array viewed as bool): NumPy reads any nonzero byte as True, and so does every kernel that
reads bool (prim::Flag, kernels/util/flag.cuh): flat and along axes, every variant, ``where=``,
C- and F-ordered, strided, reversed and misaligned views. Values, dtypes and shapes as NumPy's,
and bool results hold the bytes 0 and 1 as NumPy's do."""

import numpy as np
import pytest

import primitives as prim
from primitives import reduction, tuning
from primitives._core import plans as _plans
from primitives.testing import harness as H

#: the nonzero bytes a bool element may hold: 1 and bytes that differ from it in every bit place
BYTES = np.array([1, 2, 0x7F, 0x80, 0xFE, 0xFF], np.uint8)
FUNCS = ["sum", "prod", "min", "max", "any", "all", "mean", "count_nonzero", "argmin", "argmax"]
_AXES = {1: [None, 0], 2: [None, 0, 1, -1], 3: [None, 0, 2, (0, 2), (1, 2)]}


def flags(rng, shape, p_false=0.3):
    """A bool array of ``shape`` whose True elements hold random nonzero bytes; along the first
    axis every third index holds no False (so that min, all and prod give True as well)."""
    b = rng.choice(BYTES, shape)
    b[rng.random(shape) < p_false] = 0
    if b.ndim > 1:
        b[::3] = rng.choice(BYTES, b[::3].shape)
    return b.view(np.bool_)


views = H.byte_views


def canonical(xp, r):
    """``r``; a bool result of ``primitives`` holds the bytes 0 and 1 alone (NumPy's may hold
    others: its min over an axis can give an element's own byte)."""
    h = np.asarray(H.to_host(r))
    if xp is not np and h.dtype == np.bool_:
        assert (h.view(np.uint8) <= 1).all(), f"bool result bytes {np.unique(h.view(np.uint8))}"
    return r


def test_flags_hold_bytes_beyond_one(rng):
    """The data really holds bytes other than 0 and 1, in every view."""
    for y in views(flags(rng, (6, 40))):
        assert (np.ascontiguousarray(y).view(np.uint8) > 1).any()


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("shape", [(4099,), (30, 70), (3, 4, 5)], ids=str)
@H.twins()
def test_twin_of_numpy(xp, func, shape):
    """Every reduction of bool, flat and along every kind of axis, over every view."""
    x = flags(np.random.default_rng(len(shape)), shape)
    f = getattr(xp, func)
    axes = [None, 0, 1, -1][: x.ndim + 1] if func.startswith("arg") else _AXES[x.ndim]
    return [canonical(xp, f(y, axis=a)) for y in views(x) for a in axes]


@pytest.mark.parametrize("op", ["sum", "prod", "min", "max"])
@pytest.mark.parametrize("variant", reduction.VARIANTS)
def test_every_variant(variant, op, rng):
    """The whole-array variants (the ladder and zeta convert bool first; production reads it in
    place, 16 bytes per load with a scalar head and tail) at awkward sizes and offsets."""
    for n in (1, 15, 17, 257, 4099, 65537):
        for p in (0.0, 0.3) if op in ("prod", "min") else (0.3,):
            x = flags(rng, (n + 3,), p)[3:]  # three bytes in: a scalar head
            want = getattr(np, op)(x)
            got = prim.reduce(x, op, variant=variant)
            H.assert_same(canonical(prim, got), want, what=f"{variant} {op} n={n} p={p}")


@pytest.mark.parametrize("op", ["sum", "prod", "min", "max"])
@pytest.mark.parametrize("width", [2, 4, 8, 16, 33])
def test_short_rows(op, width, rng):
    """Rows of 2..33 bool elements (several rows per 16-byte load where they fit), from an
    aligned buffer and from one a byte in, and as columns of the F-ordered array."""
    base = flags(rng, (701 * width + 1,), 0.1 if op in ("prod", "min") else 0.5)
    for x in (base[:-1].reshape(701, width), base[1:].reshape(701, width)):
        for y, axis in ((x, 1), (np.asfortranarray(x), 1), (x, 0)):
            got, want = getattr(prim, op)(y, axis=axis), getattr(np, op)(y, axis=axis)
            H.assert_same(canonical(prim, got), want, what=f"{op} {width} {axis}")


@pytest.mark.parametrize("op", ["sum", "prod", "min", "max"])
@H.twins()
def test_where_of_bool_bytes(xp, op):
    """``where=``: the elements read with the mask (every axis: reduce_masked) or replaced where
    it is False (some axes); a mask whose bytes are not 0/1 is read as NumPy reads it too."""
    rng = np.random.default_rng(7)
    x, m = flags(rng, (40, 61)), flags(rng, (40, 61), 0.5)
    kw = {"initial": op == "min"} if op in ("min", "max") else {}
    f = getattr(xp, op)
    return [canonical(xp, f(x, axis=a, where=m, **kw)) for a in (None, 0, 1)]


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.float32, np.float64])
@H.twins(rtol=1e-6)
def test_dtype_requests(xp, dtype):
    """``dtype=``: the elements cast to it as NumPy casts them (a bool's any nonzero byte to 1)."""
    x = flags(np.random.default_rng(3), (23, 45))
    sums = [canonical(xp, xp.sum(x, axis=a, dtype=dtype)) for a in (None, 0, 1)]
    return sums + [xp.mean(x, axis=a, dtype=dtype) for a in (None, 1) if dtype != np.bool_]


def test_numpys_bool_sum():
    """NumPy's own test of sums of bool bytes (TestBool::test_sum): every 0xff is one."""
    d = np.frombuffer(b"\xff\xff" * 100, dtype=bool)
    for y in (d, d[::2], d[::-2]):
        H.assert_same(prim.sum(y), y.sum())
    x = np.frombuffer(b"\x01\xff\x00\x02" * 50, dtype=bool).reshape(20, 10)
    H.assert_same(prim.argmax(x, axis=1), np.argmax(x, axis=1))
    H.assert_same(canonical(prim, prim.max(x, axis=0)), np.max(x, axis=0))


def test_small_blocks_every_axis_kernel(rng):
    """Under small blocks (several blocks and split passes over a few thousand elements, the
    packed rows' warp exchange, a block per medium row) the axis kernels and the production
    kernel's partials read bool bytes as NumPy does: sum and max, one instantiation of each
    result dtype (each override compiles its own emulator modules); min, the instantiations of
    max with another operator, of the same arrays under the default policies."""
    _plans.clear_caches()
    packed = dict(packed_packets=2, packed_exchange=1)
    axis = dict(block=32, blocks_per_sm=1, min_chunk=1, slab_min_packets=2, slab_block=64, **packed)
    shapes = [(4, 3001), (3001, 4), (2 * 32 * 2 * 8 + 5, 2), (300, 64), (7, 97, 5)]
    arrays = [(shape, y) for shape in shapes for y in views(flags(rng, shape, 0.05))]

    def check(ops):
        for shape, y in arrays:
            for op in ops:
                for axis_ in (None, 0, -1):
                    got, want = getattr(prim, op)(y, axis=axis_), getattr(np, op)(y, axis=axis_)
                    H.assert_same(canonical(prim, got), want, what=f"{op} {shape} {axis_}")

    with (
        tuning.override("reduction", selector="axis", **axis),
        tuning.override("reduction", selector="production", block=64, vectors=1),
    ):
        check(("sum", "max"))
    _plans.clear_caches()
    check(("min",))

"""Tests of the CPU emulator backend (primitives._core.emulator + kernels/emulator/emu.h).

The kernels live in tests/core/emu_kernels/: intrinsics.cu (every intrinsic and atomic against
hand-computed values), broken.cu (kernels that are wrong and must be caught), reduce.cu (correct
reductions against NumPy). Each file is compiled once, as one module.
"""

import pathlib
import time

import numpy as np
import pytest

from primitives._core import emulator as emu
from primitives._core import emulator_build as emu_build
from primitives._core.emulator import EmulatorCompileError, EmulatorError

KDIR = pathlib.Path(__file__).resolve().parent / "emu_kernels"
FULL = 0xFFFFFFFF

SHFL_TYPES = {
    "int": np.int32,
    "unsigned int": np.uint32,
    "long long": np.int64,
    "unsigned long long": np.uint64,
    "float": np.float32,
    "double": np.float64,
}
INTRINSIC_NAMES = [f"shfl_kernel<{t}>" for t in SHFL_TYPES] + [
    "vote_kernel",
    "block_vote",
    "bits_kernel",
    "atomics_kernel",
    "static_shared<1>",
    "static_shared<2>",
    "shared_where<1>",
    "shared_where<2>",
    "shared_where_plain",
    "dynamic_shared",
    "poison_probe<0>",
    "poison_probe<3>",
    "dims_kernel",
    "scalars",
    "misc_kernel",
    "flag_wait",
    "stack_heavy",
    "stack_overflow",
    "do_assert",
    "do_trap",
    "do_segv",
    "do_div",
    "dyn_overflow",
]
BROKEN_NAMES = [
    "tree_ok",
    "tree_nosync",
    "neighbour_nosync",
    "warp_tail_ok",
    "warp_tail_nosync",
    "sync_in_if",
    "sync_after_return",
    "two_barriers",
    "spin_later_block",
    "spin_at_barrier",
    "shfl_after_exit",
    "warp_kind_mismatch",
    "warp_vs_block",
    "mask_without_self",
    "bad_width",
]
REDUCE_NAMES = [
    f"{k}<{t}>"
    for k in ("tree_reduce", "shfl_reduce")
    for t in ("float", "double", "int", "long long")
]


def _compile(fname, names, **kw):
    path = KDIR / fname
    return emu.compile_module(path.read_text(), names, filename=str(path), **kw)


@pytest.fixture(scope="module")
def K():
    return _compile("intrinsics.cu", INTRINSIC_NAMES).get_function


@pytest.fixture(scope="module")
def B():
    return _compile("broken.cu", BROKEN_NAMES).get_function


@pytest.fixture(scope="module")
def R():
    return _compile("reduce.cu", REDUCE_NAMES).get_function


@pytest.fixture
def race():
    """set_race_mode(seed) for the test, restored afterwards."""
    old = emu.race_mode()
    yield emu.set_race_mode
    emu.set_race_mode(old)


@pytest.fixture(autouse=True)
def _ordered_by_default():
    old = emu.race_mode()
    emu.set_race_mode(None)
    yield
    emu.set_race_mode(old)


# ---------------------------------------------------------------------------------------------
# shuffles
# ---------------------------------------------------------------------------------------------
def _bits(a):
    return a.view(np.uint32 if a.dtype.itemsize == 4 else np.uint64)


def shfl_ref(vals, mode, arg, width, mask):
    """Reference after the PTX definition of shfl.sync; a source lane outside the mask gives the
    emulator's 'undefined' value, all bits set."""
    out = _bits(vals.copy())
    src = _bits(vals)
    poison = np.array(-1, dtype=np.int64).astype(out.dtype)
    for w in range(len(vals) // 32):
        for lane in range(32):
            if not (mask >> lane) & 1:
                continue
            seg = 32 - width
            start = lane & seg
            end = start | (31 & ~seg)
            if mode == 0:
                j, ok = start | ((lane * 7 + arg) & 31 & ~seg), True
            elif mode == 1:
                j = lane - arg
                ok = j >= start
            elif mode == 2:
                j = lane + arg
                ok = j <= end
            else:
                j = lane ^ arg
                ok = 0 <= j <= end
            if ok and j != lane:
                out[w * 32 + lane] = src[w * 32 + j] if (mask >> j) & 1 else poison
    return out


@pytest.mark.parametrize("ctype", list(SHFL_TYPES))
def test_shuffles(K, ctype):
    dt = SHFL_TYPES[ctype]
    rng = np.random.default_rng(1)
    vals = (
        (rng.standard_normal(64) * 1e3).astype(dt)
        if dt in (np.float32, np.float64)
        else rng.integers(-(2**31) if np.issubdtype(dt, np.signedinteger) else 0, 2**31, 64).astype(
            dt
        )
    )
    if dt in (np.int64, np.uint64):
        vals = vals * dt(2**31) + dt(12345)  # use the upper half
    f = K(f"shfl_kernel<{ctype}>")
    cases = 0
    for mode, args in ((0, (0, 5, 40)), (1, (1, 3, 16)), (2, (1, 2, 31)), (3, (1, 6, 16, 33))):
        for width in (32, 16, 8, 4, 1):
            for mask in (FULL, 0x0000FFFF, 0xF0F0F0F3):
                for arg in args:
                    out = np.zeros_like(vals)
                    f(
                        1,
                        64,
                        (
                            vals,
                            out,
                            np.int32(mode),
                            np.int32(arg),
                            np.int32(width),
                            np.uint32(mask),
                        ),
                    )
                    exp = shfl_ref(vals, mode, arg, width, mask)
                    np.testing.assert_array_equal(
                        _bits(out),
                        exp,
                        err_msg=f"mode={mode} arg={arg} width={width} mask={mask:#x}",
                    )
                    cases += 1
    assert cases > 100


def test_shuffle_race_mode_same_result(K, race):
    vals = np.arange(64, dtype=np.int32) * 3
    f = K("shfl_kernel<int>")
    race(7)
    for mode in range(4):
        out = np.zeros_like(vals)
        f(1, 64, (vals, out, np.int32(mode), np.int32(3), np.int32(16), np.uint32(FULL)))
        np.testing.assert_array_equal(_bits(out), shfl_ref(vals, mode, 3, 16, FULL))


# ---------------------------------------------------------------------------------------------
# votes, matches, warp reductions, block votes
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("user_mask", [FULL, 0x00FF00FF, 0x80000001])
def test_votes(K, user_mask, race):
    rng = np.random.default_rng(user_mask & 0xFFFF)
    val = rng.integers(0, 12, 64).astype(np.int32)
    val[[3, 17, 40]] = -1  # exit early
    val[32 + 5] = 150  # warp 1: __match_all_sync on v/100 fails
    for seed in (None, 11):
        race(seed)
        out = np.zeros(64 * 16, np.uint32)
        K("vote_kernel")(1, 64, (val, out, np.uint32(user_mask)))
        out = out.reshape(64, 16)
        for w in range(2):
            v = val[w * 32 : (w + 1) * 32].astype(np.int64)
            active = sum(1 << lane for lane in range(32) if v[lane] >= 0)
            part = [lane for lane in range(32) if (active & user_mask) >> lane & 1]
            pm = sum(1 << lane for lane in part)
            for lane in range(32):
                o = out[w * 32 + lane]
                if v[lane] < 0:
                    assert not o.any()
                    continue
                assert o[0] == active
                if lane not in part:
                    assert not o[1:].any()
                    continue
                pv = v[part]
                exp = [
                    sum(1 << j for j in part if v[j] & 1),
                    int((pv == 5).any()),
                    int((pv >= 1).all()),
                    sum(1 << j for j in part if v[j] % 3 == v[lane] % 3),
                    pm if len(set(pv // 100)) == 1 else 0,
                    int(len(set(pv // 100)) == 1),
                    pv.sum() & FULL,
                    (pv - 10).sum() & FULL,
                    pv.min(),
                    (7 - pv).min() & FULL,
                    pv.max(),
                    (7 - pv).max() & FULL,
                    np.bitwise_and.reduce(pv | 0x100),
                    np.bitwise_or.reduce(pv),
                    np.bitwise_xor.reduce(pv),
                ]
                assert [int(x) for x in o[1:]] == [int(x) for x in exp], (w, lane)


def test_block_votes(K, race):
    pred = np.zeros((4, 96), np.int32)
    pred[1] = 1
    pred[2, [0, 50, 95]] = 7
    pred[3] = 1
    pred[3, 64] = 0
    for seed in (None, 3):
        race(seed)
        out = np.full(12, -1, np.int32)
        K("block_vote")(4, 96, (pred.ravel(), out))
        assert out.reshape(4, 3).tolist() == [[0, 0, 0], [96, 1, 1], [3, 0, 1], [95, 0, 1]]


# ---------------------------------------------------------------------------------------------
# bit operations
# ---------------------------------------------------------------------------------------------
def _brev(x, bits):
    return int(format(x, f"0{bits}b")[::-1], 2)


def _clz(x, bits):
    return bits - x.bit_length()


def _ffs(x):
    return (x & -x).bit_length()


def test_bits(K):
    u = np.array([0, 1, 2, 0x80000000, 0xFFFFFFFF, 0x12345678, 0x00F000A0, 7], np.uint32)
    v = np.array(
        [0, 1, 1 << 63, 0xFFFFFFFFFFFFFFFF, 0x0123456789ABCDEF, 1 << 40, 3 << 20, 5], np.uint64
    )
    n = len(u)
    out = np.zeros(n * 12, np.int64)
    K("bits_kernel")(1, 32, (u, v, out, np.int32(n)))
    out = out.reshape(n, 12).view(np.uint64)
    for i in range(n):
        a, b = int(u[i]), int(v[i])
        by = a.to_bytes(4, "little") + (0x76543210).to_bytes(4, "little")
        sel = [0x0, 0x4, 0x1, 0x5]  # selector 0x5140, low nibble first
        exp = [
            bin(a).count("1"),
            bin(b).count("1"),
            _clz(a, 32),
            _clz(b, 64),
            _ffs(a),
            _ffs(b),
            _brev(a, 32),
            _brev(b, 64),
            (a * 0x9E3779B9) >> 32,
            (b * 0x9E3779B97F4A7C15) >> 64,
            ((((a ^ 0xFFFF) << 32 | a) << 7) >> 32) & FULL,
            sum(by[s] << (8 * k) for k, s in enumerate(sel)),
        ]
        assert [int(x) for x in out[i]] == exp, i


# ---------------------------------------------------------------------------------------------
# atomics
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [None, 5])
def test_atomics(K, race, seed):
    race(seed)
    i32 = np.array([100, 0, 1000, -1000, -7, -1, 0, 0x55, 0], np.int32)
    u32 = np.array([1, 10, 1000, 0, 0, 0, 77, 0, FULL, 0, 0, 0], np.uint32)
    u64 = np.array([0, 2**63, 0, 99, 10, 2**64 - 1, 0, 0], np.uint64)
    i64 = np.array([0, 0], np.int64)
    f32 = np.array([0.0, 1000.0, -5.0], np.float32)
    f64 = np.array([1.0], np.float64)
    u16 = np.array([65000], np.uint16)
    olds = np.zeros(6 * 64, np.uint32)
    K("atomics_kernel")(1, 64, (i32, u32, u64, i64, f32, f64, u16, olds))
    t = np.arange(64)
    assert i32[0] == 100 + (t - 10).sum()
    assert u32[0] == 1 + t.sum()
    assert int(u64[0]) == sum(int(x) << 33 for x in t)
    assert f32[0] == 32.0 and f64[0] == 1.0 + 0.25 * t.sum()
    assert i32[1] == -t.sum() and u32[1] == (10 - 64) % 2**32
    assert i32[2] == min(1000, (t * 37 % 64 - 20).min()) and i32[3] == (t * 37 % 64 - 20).max()
    assert u32[2] == 5 and u32[3] == 63 + 5
    assert i64[0] == -(63 << 40) and i64[1] == 63 << 40
    assert int(u64[1]) == 3 << 35 and int(u64[2]) == 66 << 35
    # atomicInc(..., 9): the k-th call returns k % 10, whatever the order
    assert sorted(olds[:64]) == sorted(k % 10 for k in range(64)) and u32[4] == 64 % 10
    s, seq = 0, []
    for _ in range(64):
        seq.append(s)
        s = 9 if (s == 0 or s > 9) else s - 1
    assert sorted(olds[64:128]) == sorted(seq) and u32[5] == s
    for k, init, final in ((2, -7, i32[4]), (3, 77, u32[6]), (4, 99, u64[3]), (5, 1000, f32[1])):
        vals = sorted([int(x) for x in olds[k * 64 : (k + 1) * 64]] + [int(final)])
        off = 100 if k == 3 else 0
        assert vals == sorted([init & FULL if k == 2 else init] + [x + off for x in range(64)])
    assert f32[2] == 63 * 1.5
    assert u32[7] == 128 and int(u64[4]) == 10 + t.sum() and u16[0] == (65000 + 3 * 64) % 65536
    assert i32[5] == -(2**31)  # -1 with bits 0..30 cleared
    assert i32[6] == 0xFFFF and i32[7] == 0x55 ^ np.bitwise_xor.reduce(t)
    assert u32[8] == 1 and u32[9] == FULL and u32[10] == np.bitwise_xor.reduce(t * 3)
    assert int(u64[5]) == 0 and int(u64[6]) == 2**64 - 1 and int(u64[7]) == 0
    assert i32[8] == 3 * 64 and u32[11] == 63


# ---------------------------------------------------------------------------------------------
# shared memory
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [None, 9])
def test_static_shared_per_instantiation(K, race, seed):
    race(seed)
    for k in (1, 2):
        out = np.zeros(3 * 64, np.int32)
        totals = np.zeros(3, np.int32)
        K(f"static_shared<{k}>")(3, 64, (out, totals))
        t = np.arange(64)
        for b in range(3):
            np.testing.assert_array_equal(out[b * 64 : (b + 1) * 64], (63 - t) * k + b)
            assert totals[b] == (t * k + b).sum()
    a = np.zeros(2, np.uint64)
    b = np.zeros(2, np.uint64)
    c = np.zeros(2, np.uint64)
    K("shared_where<1>")(1, 1, (a,))
    K("shared_where<2>")(1, 1, (b,))
    K("shared_where_plain")(1, 1, (c,))
    assert len({int(a[0]), int(b[0]), int(c[0])}) == 3  # one variable per instantiation
    assert a[1] == b[1] == c[1] == 1  # all inside the poisoned region


def test_dynamic_shared(K, race):
    f = K("dynamic_shared")
    x = np.arange(4 * 128, dtype=np.float32)
    for seed in (None, 2):
        race(seed)
        out = np.zeros_like(x)
        addr = np.zeros(4, np.uint64)
        f(4, 128, (x, out, addr), shared_mem=128 * 4)
        np.testing.assert_array_equal(out.reshape(4, 128), x.reshape(4, 128)[:, ::-1])
        assert all(int(a) % 16 == 0 for a in addr)


def test_race_mode_poisons_shared_memory(K, race):
    for k in (0, 3):
        out = np.zeros(4, np.uint32)
        race(1)
        K(f"poison_probe<{k}>")(2, 32, (out,), shared_mem=16)
        assert (
            out.tolist() == [FULL] * 4
        )  # every block starts with poisoned static and dynamic shared
        race(None)
        K(f"poison_probe<{k}>")(2, 32, (out,), shared_mem=16)
        assert out[2:].tolist() == [0x1234, 0x5678]  # without race mode, shared memory persists


def test_shared_mem_attribute(K):
    f = K("dynamic_shared")
    x = np.zeros(64 * 1024, np.float32)
    out = np.zeros_like(x)
    addr = np.zeros(1, np.uint64)
    assert f.max_dynamic_shared_size_bytes == 48 * 1024
    with pytest.raises(EmulatorError, match="max_dynamic_shared_size_bytes"):
        f(1, 64, (x, out, addr), shared_mem=48 * 1024 + 1)
    f.max_dynamic_shared_size_bytes = 100 * 1024
    f(1, 64, (x, out, addr), shared_mem=100 * 1024)
    with pytest.raises(EmulatorError, match="max_dynamic_shared_size_bytes"):
        f(1, 64, (x, out, addr), shared_mem=100 * 1024 + 4)
    with pytest.raises(EmulatorError, match="232448"):
        f.max_dynamic_shared_size_bytes = 228 * 1024
    f.max_dynamic_shared_size_bytes = 227 * 1024
    f(1, 64, (x, out, addr), shared_mem=227 * 1024)
    f.max_dynamic_shared_size_bytes = 48 * 1024


# ---------------------------------------------------------------------------------------------
# launch geometry
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "grid,block", [(3, 40), ((2, 3), (8, 4)), ((2, 2, 3), (4, 3, 2)), ((1, 1, 2), (1, 1, 64))]
)
def test_dims_and_order(K, grid, block):
    g = tuple(grid) if isinstance(grid, tuple) else (grid,)
    b = tuple(block) if isinstance(block, tuple) else (block,)
    g3 = g + (1,) * (3 - len(g))
    b3 = b + (1,) * (3 - len(b))
    nb, nt = int(np.prod(g3)), int(np.prod(b3))
    out = np.zeros(nb * nt * 12, np.uint32)
    order = np.zeros(nb * nt, np.uint32)
    counter = np.zeros(1, np.uint32)
    K("dims_kernel")(grid, block, (out, order, counter))
    out = out.reshape(nb, nt, 12)
    bz, by, bx = np.meshgrid(*[np.arange(n) for n in g3[::-1]], indexing="ij")
    tz, ty, tx = np.meshgrid(*[np.arange(n) for n in b3[::-1]], indexing="ij")
    for k, arr in enumerate((tx, ty, tz)):
        np.testing.assert_array_equal(out[:, :, k], np.broadcast_to(arr.ravel(), (nb, nt)))
    for k, arr in enumerate((bx, by, bz)):
        np.testing.assert_array_equal(
            out[:, :, 3 + k], np.broadcast_to(arr.ravel()[:, None], (nb, nt))
        )
    np.testing.assert_array_equal(out[:, :, 6:9], np.broadcast_to(np.array(b3), (nb, nt, 3)))
    np.testing.assert_array_equal(out[:, :, 9:12], np.broadcast_to(np.array(g3), (nb, nt, 3)))
    # blocks one after another in linear order, threads in index order (ordered mode)
    np.testing.assert_array_equal(order, np.arange(nb * nt))


def test_race_mode_permutes_threads(K, race):
    order = np.zeros(256, np.uint32)
    race(4)
    K("dims_kernel")(1, 256, (np.zeros(256 * 12, np.uint32), order, np.zeros(1, np.uint32)))
    assert sorted(order) == list(range(256)) and list(order) != list(range(256))
    again = np.zeros(256, np.uint32)
    race(4)  # same seed, same schedule
    K("dims_kernel")(1, 256, (np.zeros(256 * 12, np.uint32), again, np.zeros(1, np.uint32)))
    np.testing.assert_array_equal(order, again)
    K("dims_kernel")(1, 256, (np.zeros(256 * 12, np.uint32), again, np.zeros(1, np.uint32)))
    assert list(again) != list(order)  # the seed advances per launch


@pytest.mark.parametrize(
    "grid,block,match",
    [
        (0, 32, ">= 1"),
        (1, 0, ">= 1"),
        ((1, 0), 32, ">= 1"),
        (1, 1025, "1024 threads per block"),
        (1, (32, 33), "1024 threads per block"),
        (1, (1, 1, 65), "per-dimension"),
        (2**31, 32, "grid"),
        ((1, 65536), 32, "grid"),
        (1, (1, 2, 3, 4), "tuple of 1 to 3"),
        (1.0, 32, "int or a tuple"),
        (True, 32, "int or a tuple"),
    ],
)
def test_launch_config_errors(K, grid, block, match):
    with pytest.raises(EmulatorError, match=match):
        K("block_vote")(grid, block, (np.zeros(4096, np.int32), np.zeros(4096, np.int32)))


def test_negative_shared_mem(K):
    with pytest.raises(EmulatorError, match="negative"):
        K("block_vote")(1, 32, (np.zeros(32, np.int32), np.zeros(3, np.int32)), shared_mem=-1)


# ---------------------------------------------------------------------------------------------
# arguments
# ---------------------------------------------------------------------------------------------
PAIR = np.dtype([("a", np.int32), ("b", np.float32)])
F4 = np.dtype([("x", np.float32), ("y", np.float32), ("z", np.float32), ("w", np.float32)])


def _scalar_args(**over):
    args = dict(
        a=np.int64(-(2**62) + 3),
        b=np.uint64(2**64 - 5),
        c=np.float64(1.0 / 3.0),
        d=np.float32(2.5),
        e=np.int32(-7),
        f=np.int16(-300),
        g=np.uint8(250),
        h=np.bool_(True),
        p=np.array((11, 0.75), PAIR)[()],
        v=np.array((1, 2, 3, 4), F4)[()],
        oi=np.zeros(7, np.int64),
        of=np.zeros(7, np.float64),
    )
    args.update(over)
    return args


def test_scalar_args(K):
    f = K("scalars")
    args = _scalar_args()
    f(1, 32, tuple(args.values()))
    assert args["oi"].tolist() == [-(2**62) + 3, -5, -7, -300, 250, 1, 11]
    assert args["of"].tolist() == [1.0 / 3.0, 2.5, 0.75, 1, 2, 3, 4]
    assert f.num_params == 12
    assert [p.kind for p in f.params] == [
        "int",
        "uint",
        "float",
        "float",
        "int",
        "int",
        "uint",
        "bool",
        "struct",
        "struct",
        "pointer",
        "pointer",
    ]
    assert f.params[0].ctype == "long long int" and f.params[10].pointee_kind == "int"
    assert f.max_threads_per_block == 1024


@pytest.mark.parametrize(
    "over,match",
    [
        (dict(a=np.int32(1)), r"argument 0 .*'long long int'.*int32"),
        (dict(a=3), r"argument 0 .*Python int"),
        (dict(c=1.5), r"argument 2 .*Python float"),
        (dict(e=np.int64(1)), r"argument 4 .*int32"),
        (dict(e=np.float32(1)), r"argument 4 .*float32"),
        (dict(d=np.float64(1)), r"argument 3 .*float32"),
        (dict(d=np.int32(1)), r"argument 3 .*float32"),
        (dict(h=True), r"argument 7 .*Python bool"),
        (dict(h=np.int32(1)), r"argument 7"),
        (dict(e=np.zeros(1, np.int32)), r"argument 4 .*ndarray"),
        (dict(oi=np.int64(0)), r"argument 10 .*ndarray"),
        (dict(oi=np.zeros(7, np.float64)), r"argument 10 .*8-byte signed integer.*float64"),
        (dict(of=np.zeros(7, np.float32)), r"argument 11 .*8-byte floating-point.*float32"),
        (dict(p=np.int64(0)), r"argument 8 .*numpy.void"),
        (dict(v=np.array((1, 2), PAIR)[()]), r"argument 9 .*16 bytes"),
    ],
)
def test_argument_errors(K, over, match):
    with pytest.raises(TypeError, match=match):
        K("scalars")(1, 32, tuple(_scalar_args(**over).values()))


def test_argument_count(K):
    with pytest.raises(TypeError, match=r"takes 12 argument\(s\).*got 11"):
        K("scalars")(1, 32, tuple(_scalar_args().values())[:-1])
    with pytest.raises(TypeError, match="tuple"):
        K("stack_heavy")(1, 32, np.zeros(32, np.int64))


# ---------------------------------------------------------------------------------------------
# math, printf, sleep, stacks, faults
# ---------------------------------------------------------------------------------------------
def test_misc_math_and_printf(K, capfd):
    x = np.array([np.nan, np.inf, 3.0], np.float32)
    of = np.zeros(21, np.float32)
    oi = np.zeros(15, np.int64)
    K("misc_kernel")(1, 32, (x, of, oi))
    below = float(np.nextafter(np.float32(-1.0), np.float32(-2.0)))
    assert of.tolist() == [
        -2.0,
        1.5,
        0.25,
        1.0,
        0.0,
        0.0,
        np.float32(3.14159274101257324),
        2.0,
        2.0,
        np.inf,
        2.0,
        1.0,
        0.5,
        -1.0,
        6.0,
        12.0,
        0.0,
        1.0,
        1.0,
        below,
        2.0,
    ]
    assert oi.tolist() == [
        -4,
        7,
        5,
        2,
        2,
        0x3F800000,
        0x3FF0000000000000,
        1,
        1,
        0x80000000,
        15,
        1,
        -18,
        11,
        13,
    ]
    assert "emu printf 42 0.5" in capfd.readouterr().out


def test_nanosleep_waits(K, race):
    for seed in (None, 8):
        race(seed)
        out = np.zeros(5, np.int32)
        cross = np.zeros(5, np.int32)
        K("flag_wait")(5, 64, (out, cross))
        assert out.tolist() == [99, 100, 101, 102, 103] and cross.tolist() == [1] * 5


def test_stack_heavy_kernel(K):
    out = np.zeros(128, np.int64)
    K("stack_heavy")(2, 128, (out,))
    np.testing.assert_array_equal(out, (np.arange(128) + 1) * (8191 * 8192 // 2))


def test_stack_overflow_is_an_error(K):
    out = np.zeros(32, np.int64)
    K("stack_overflow")(1, 32, (out, np.int64(20)))
    assert (out == 20).all()
    with pytest.raises(EmulatorError, match="stack overflow"):
        K("stack_overflow")(1, 32, (out, np.int64(1_000_000)))
    K("stack_overflow")(1, 32, (out, np.int64(21)))  # the emulator is still usable
    assert (out == 21).all()


@pytest.mark.parametrize(
    "kernel,args,match",
    [
        (
            "do_assert",
            (np.array([1] * 10 + [-1] + [1] * 21, np.int32),),
            r"thread \(10,0,0\).*assertion `x\[threadIdx.x\] >= 0'",
        ),
        ("do_trap", (np.arange(32, dtype=np.int32),), r"thread \(3,0,0\).*__trap"),
        ("do_segv", (np.arange(32, dtype=np.int32),), r"thread \(5,0,0\).*illegal memory access"),
        ("do_div", (np.zeros(32, np.int32), np.int32(0)), r"SIGFPE"),
        (
            "dyn_overflow",
            (np.zeros(32, np.int32), np.int32(64)),
            r"past the end of dynamic shared memory",
        ),
    ],
)
def test_faults_are_errors(K, kernel, args, match):
    with pytest.raises(EmulatorError, match=match):
        K(kernel)(1, 32, args, shared_mem=256)
    out = np.zeros(32, np.int64)
    K("stack_overflow")(1, 32, (out, np.int64(3)))  # next launch fine
    assert (out == 3).all()


# ---------------------------------------------------------------------------------------------
# deliberately broken kernels
# ---------------------------------------------------------------------------------------------
def test_missing_syncthreads_gives_wrong_answer_in_race_mode(B, race):
    x = np.random.default_rng(0).random(4 * 256).astype(np.float32)
    exp = x.reshape(4, 256).sum(axis=1)
    for seed in (None, 1234):
        race(seed)
        out = np.zeros(4, np.float32)
        B("tree_ok")(4, 256, (x, out), shared_mem=1024)
        np.testing.assert_allclose(out, exp, rtol=1e-5)
    race(1234)
    out = np.zeros(4, np.float32)
    B("tree_nosync")(4, 256, (x, out), shared_mem=1024)
    assert not np.allclose(out, exp, rtol=1e-3)


def test_missing_barrier_only_race_mode_catches(B, race):
    x = np.arange(2 * 128, dtype=np.int32)
    exp = x + np.where(np.arange(256) % 128 == 0, 0, np.roll(x, 1))
    out = np.zeros_like(x)
    B("neighbour_nosync")(2, 128, (x, out), shared_mem=512)
    np.testing.assert_array_equal(out, exp)  # threads in index order happen to be right
    race(99)
    B("neighbour_nosync")(2, 128, (x, out), shared_mem=512)
    assert (out != exp).any()


def test_missing_syncwarp_gives_wrong_answer_in_race_mode(B, race):
    x = np.random.default_rng(1).random(3 * 64).astype(np.float32)
    exp = x.reshape(3, 64).sum(axis=1)
    for seed in (None, 77):
        race(seed)
        out = np.zeros(3, np.float32)
        B("warp_tail_ok")(3, 64, (x, out))
        np.testing.assert_allclose(out, exp, rtol=1e-5)
    race(77)
    out = np.zeros(3, np.float32)
    B("warp_tail_nosync")(3, 64, (x, out))
    assert not np.allclose(out, exp, rtol=1e-3)


@pytest.mark.parametrize(
    "kernel,grid,match",
    [
        (
            "sync_in_if",
            1,
            r"block \(0,0,0\): __syncthreads\(\) at .*broken.cu:\d+ is waited on by 16 thread.*threads 16-63 already exited",
        ),
        ("sync_after_return", 2, r"block \(0,0,0\).*threads 48-63 already exited"),
        (
            "two_barriers",
            1,
            r"divergent block barriers: threads 0, 2, 4.* wait at __syncthreads\(\) .*broken.cu:\d+; threads 1, 3, 5.*broken.cu:\d+",
        ),
        (
            "spin_later_block",
            2,
            r"block \(0,0,0\): endless spin: thread 0 kept calling __nanosleep",
        ),
        ("spin_at_barrier", 2, r"block \(0,0,0\): endless spin: thread 0 "),
        (
            "shfl_after_exit",
            1,
            r"warp 0: .*__shfl_down_sync\(mask 0xffffffff\) name lane\(s\) 0xc0000000 that already exited",
        ),
        (
            "warp_kind_mismatch",
            1,
            r"divergent warp synchronisation in warp 0: thread \(0,0,0\) waits in __ballot_sync.* lane 16 .*__shfl_sync",
        ),
        (
            "warp_vs_block",
            1,
            r"deadlock in warp 0: thread \(0,0,0\) waits in __syncwarp.*lane 1 .*at __syncthreads\(\) .*broken.cu",
        ),
        (
            "mask_without_self",
            1,
            r"thread \(0,0,0\): __syncwarp called with mask 0x00000002 that does not include the calling lane 0",
        ),
        ("bad_width", 1, r"width 3 is not a power of two"),
    ],
)
def test_broken_kernels_raise(B, kernel, grid, match):
    arg = np.zeros(64, np.int32) if kernel != "warp_kind_mismatch" else np.zeros(64, np.uint32)
    t0 = time.perf_counter()
    with pytest.raises(EmulatorError, match=match):
        B(kernel)(grid, 64, (arg,))
    assert time.perf_counter() - t0 < 5
    # the emulator is usable afterwards
    x = np.ones(256, np.float32)
    out = np.zeros(1, np.float32)
    B("tree_ok")(1, 256, (x, out), shared_mem=1024)
    assert out[0] == 256


# ---------------------------------------------------------------------------------------------
# correct reductions against NumPy, speed
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kernel", ["tree_reduce", "shfl_reduce"])
@pytest.mark.parametrize(
    "ctype,dtype",
    [("float", np.float32), ("double", np.float64), ("int", np.int32), ("long long", np.int64)],
)
@pytest.mark.parametrize("seed", [None, 2024])
def test_reductions_match_numpy(R, race, kernel, ctype, dtype, seed):
    race(seed)
    rng = np.random.default_rng(5)
    n = 10_000
    x = (
        rng.random(n).astype(dtype)
        if dtype in (np.float32, np.float64)
        else rng.integers(-1000, 1000, n).astype(dtype)
    )
    block = 128
    grid = 13 if kernel == "shfl_reduce" else -(-n // block)
    out = np.zeros(grid, dtype)
    R(f"{kernel}<{ctype}>")(grid, block, (x, out, np.int64(n)), shared_mem=block * x.itemsize)
    if dtype in (np.float32, np.float64):
        np.testing.assert_allclose(out.sum(dtype=np.float64), x.sum(dtype=np.float64), rtol=1e-5)
    else:
        assert out.sum() == x.sum()


def test_reduction_speed(R):
    """2^16 elements, 256-thread blocks (256 blocks, 9 barriers per thread): well under 1 s."""
    x = np.random.default_rng(0).random(1 << 16).astype(np.float32)
    out = np.zeros(256, np.float32)
    f = R("tree_reduce<float>")
    best = 1e9
    for _ in range(3):
        t0 = time.perf_counter()
        f(256, 256, (x, out, np.int64(x.size)), shared_mem=1024)
        best = min(best, time.perf_counter() - t0)
    np.testing.assert_allclose(out.sum(dtype=np.float64), x.sum(dtype=np.float64), rtol=1e-5)
    print(f"\nemulator: 2^16-element tree reduction, 256 blocks x 256 threads: {best * 1e3:.1f} ms")
    assert best < 1.0


def test_ucontext_fallback(race):
    """The portable ucontext context switch (used off x86-64) runs the same kernels."""
    f = _compile(
        "reduce.cu", ["tree_reduce<double>", "shfl_reduce<int>"], options=["-DPRIM_EMU_UCONTEXT"]
    ).get_function
    x = np.random.default_rng(3).random(3000)
    out = np.zeros(24, np.float64)
    race(5)
    f("tree_reduce<double>")(24, 128, (x, out, np.int64(x.size)), shared_mem=1024)
    np.testing.assert_allclose(out.sum(), x.sum())
    xi = np.arange(3000, dtype=np.int32)
    oi = np.zeros(4, np.int32)
    f("shfl_reduce<int>")(4, 256, (xi, oi, np.int64(xi.size)))
    assert oi.sum() == xi.sum()


# ---------------------------------------------------------------------------------------------
# compilation, caching, API
# ---------------------------------------------------------------------------------------------
def test_compile_error_carries_log_and_names():
    with pytest.raises(EmulatorCompileError) as ei:
        emu.compile_module("__global__ void k(int* x) { x[0] = undefined_thing; }", ["k"])
    assert "undefined_thing" in ei.value.log and ei.value.name_expressions == ["k"]
    assert "undefined_thing" in str(ei.value)
    with pytest.raises(EmulatorCompileError, match="no_such_kernel"):
        emu.compile_module("__global__ void k(int* x) { x[0] = 1; }", ["no_such_kernel<int>"])


def test_unknown_name_expression(K):
    mod = _compile("intrinsics.cu", INTRINSIC_NAMES)
    with pytest.raises(KeyError, match="not one of this module's name expressions"):
        mod.get_function("shfl_kernel<short>")
    assert mod.get_function("scalars") is mod.get_function("scalars")


def test_disk_cache_and_memo(tmp_path, monkeypatch):
    monkeypatch.setenv("PRIMITIVES_CACHE_DIR", str(tmp_path))
    code = (
        'extern "C" __global__ void k(int* x, int v) { x[threadIdx.x] = v + (int)threadIdx.x; }\n'
    )
    m1 = emu.compile_module(code, ["k"], cache_key="test-cache-1")
    assert emu.compile_module(code, ["k"], cache_key="test-cache-1") is m1
    files = list((tmp_path / "emulator").glob("*.so"))
    assert len(files) == 1 and not list((tmp_path / "emulator").glob(".tmp-*"))
    monkeypatch.setattr(emu, "_modules", {})
    t0 = time.perf_counter()
    m2 = emu.compile_module(code, ["k"], cache_key="test-cache-1")  # from disk, no compiler run
    assert time.perf_counter() - t0 < 0.3 and m2 is not m1
    x = np.zeros(8, np.int32)
    m2.get_function("k")(1, 8, (x, np.int32(5)))
    assert x.tolist() == list(range(5, 13))
    emu.compile_module(code, ["k"], cache_key="test-cache-2")  # another key, another object
    assert len(list((tmp_path / "emulator").glob("*.so"))) == 2


def test_modules_link_one_runtime_object(tmp_path, monkeypatch):
    """The runtime (emu.h compiled with PRIM_EMU_RUNTIME: the launcher, the scheduler) is one
    object of the cache that every module links; where it cannot be made, a module holds the
    runtime itself and runs the same."""
    monkeypatch.setenv("PRIMITIVES_CACHE_DIR", str(tmp_path))
    code = (
        "__global__ void k(int* x, int v) { __shared__ int s[64]; s[threadIdx.x] = v;"
        " __syncthreads(); x[threadIdx.x] = s[63 - threadIdx.x] + (int)threadIdx.x; }\n"
    )
    want = list(range(5, 69))
    for key in ("rt-1", "rt-2"):
        x = np.zeros(64, np.int32)
        emu.compile_module(code, ["k"], cache_key=key).get_function("k")(1, 64, (x, np.int32(5)))
        assert x.tolist() == want
        (obj,) = (tmp_path / "emulator").glob("pch/*/runtime.o")
        if key == "rt-1":
            made = obj.stat().st_mtime_ns
    assert obj.stat().st_mtime_ns == made  # the second module linked the same object
    monkeypatch.setattr(emu_build, "_runtime_object", lambda *args: None)
    x = np.zeros(64, np.int32)
    emu.compile_module(code, ["k"], cache_key="rt-3").get_function("k")(1, 64, (x, np.int32(5)))
    assert x.tolist() == want
    assert len(list((tmp_path / "emulator").glob("*.so"))) == 3


def test_set_race_mode_api():
    emu.set_race_mode(17)
    assert emu.race_mode() == 17
    emu.set_race_mode(None)
    assert emu.race_mode() is None
    with pytest.raises(TypeError):
        emu.set_race_mode(1.5)


def test_build_lock_is_exclusive_across_processes(tmp_path):
    """While one process builds a module, another asking for the same module waits for the lock
    (and then finds the module built) rather than compiling it too."""
    import subprocess
    import sys

    pytest.importorskip("fcntl")
    lock = tmp_path / "m.lock"
    probe = (
        "import fcntl, sys\nf = open(sys.argv[1], 'a')\n"
        "try:\n    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)\n    print('free')\n"
        "except BlockingIOError:\n    print('held')\n"
    )
    with emu_build._build_lock(lock):
        held = subprocess.run(
            [sys.executable, "-c", probe, str(lock)], capture_output=True, text=True
        ).stdout.strip()
    free = subprocess.run(
        [sys.executable, "-c", probe, str(lock)], capture_output=True, text=True
    ).stdout.strip()
    assert (held, free) == ("held", "free")

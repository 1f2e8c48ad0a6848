"""Launch-configuration helpers: grids from the machine, shared-memory opt-in, refusals."""

import re
import time

import numpy as np
import pytest

from primitives._core import backend as _backend, launch as _launch, loader as _loader
from primitives._core.plans import Launch
from primitives import tuning
from primitives.reduction import _plans as reduction_plans


@pytest.fixture
def kernel():
    dt = np.dtype(np.float32)
    return reduction_plans.kernel("gamma", dt, dt, "sum", tuning.policy("reduction", "ladder"))


def test_cover_grid_caps_at_resident_blocks(kernel):
    info = _backend.get_backend().device_info()
    resident = _launch.resident_grid(kernel, 256)
    assert resident >= info.sm_count
    assert _launch.cover_grid(10**12, 256, 4, kernel=kernel) == resident
    assert _launch.cover_grid(1000, 256, 4, kernel=kernel) == 1
    assert _launch.cover_grid(10**12, 256, 4) == _launch.cdiv(10**12, 1024)  # no kernel: no cap


def test_cover_grid_refuses_no_work():
    with pytest.raises(ValueError, match="zero-sized"):
        _launch.cover_grid(0, 256)


def test_occupancy_bounded_by_threads(kernel):
    info = _backend.get_backend().device_info()
    assert 1 <= kernel.occupancy(1024) <= info.max_threads_per_sm // 1024
    assert kernel.occupancy(128) >= kernel.occupancy(1024)


@pytest.mark.parametrize("grid,block", [(0, 256), (1, 0), ((1, 0), 32), (1, (32, 0))])
def test_zero_sized_launch_refused(kernel, grid, block):
    with pytest.raises(ValueError, match="zero-sized"):
        _launch.launch(kernel, grid, block, ())


def test_oversized_block_refused(kernel):
    with pytest.raises(ValueError, match="more than 1024 threads"):
        _launch.launch(kernel, 1, (64, 32), ())


def test_oversized_grid_refused(kernel):
    with pytest.raises(ValueError, match="exceeds the device limits"):
        _launch.launch(kernel, 2**31, 256, ())
    with pytest.raises(ValueError, match="exceeds the device limits"):
        _launch.launch(kernel, (1, 70000), 256, ())


def test_bad_dims_refused(kernel):
    with pytest.raises(ValueError, match="1 to 3 dimensions"):
        _launch.launch(kernel, (1, 1, 1, 1), 32, ())


def test_dynamic_shared_opt_in(kernel):
    info = _backend.get_backend().device_info()
    _launch.set_dynamic_shared(kernel, 1024)  # under the default: nothing to do
    big = info.shared_per_block + 4096
    _launch.set_dynamic_shared(kernel, big)
    assert kernel.max_dynamic_shared_size_bytes >= big
    with pytest.raises(ValueError, match="bytes of shared memory requested"):
        _launch.set_dynamic_shared(kernel, info.shared_per_block_optin + 1)


def test_resident_grid_opts_in_before_the_occupancy():
    """A grid for more dynamic shared memory than the default limit is computed after the opt-in
    (on a GPU, the occupancy of a kernel not opted in counts no such block)."""
    info = _backend.get_backend().device_info()
    dt = np.dtype(np.float32)
    kernel = reduction_plans.kernel("alpha", dt, dt, "sum", tuning.policy("reduction", "ladder"))
    big = info.shared_per_block + 1024  # two such blocks fit in a multiprocessor's shared memory
    grid = _launch.resident_grid(kernel, 256, big)
    assert kernel.max_dynamic_shared_size_bytes >= big
    assert kernel.occupancy(256, big) >= 2
    assert grid == info.sm_count * kernel.occupancy(256, big)


class _StaticSharedKernel:
    """A stand-in kernel with 40 KiB of static shared memory."""

    name = "static_shared_kernel"
    max_dynamic_shared_size_bytes = 0

    def resources(self):
        return 32, 40 * 1024


def test_dynamic_shared_counts_static_shared():
    """The per-block limit holds for static + dynamic shared memory: 20 KiB dynamic next to 40
    KiB static needs the opt-in, and the largest dynamic size leaves room for the static part."""
    info = _backend.get_backend().device_info()
    k = _StaticSharedKernel()
    _launch.set_dynamic_shared(k, 20 * 1024)
    assert k.max_dynamic_shared_size_bytes == 20 * 1024
    with pytest.raises(ValueError, match=r"\(\d+ dynamic \+ 40960 static\)"):
        _launch.set_dynamic_shared(k, info.shared_per_block_optin - 40 * 1024 + 1)


def test_sizes_are_64_bit():
    assert _launch.i64(2**40).dtype == np.int64


class _Array:
    """A stand-in device array: what param_words reads of one."""

    def __init__(self, ptr):
        self.data = type("Pointer", (), {"ptr": ptr})()


def test_param_words_as_cupy_passes_them():
    words = _loader.param_words(
        (
            _Array(0x7F0000001000),
            np.int32(-1),
            np.uint32(2**32 - 1),
            np.int64(-2),
            np.uint64(2**64 - 1),
            np.float32(1.5),
            np.float64(-2.0),
            np.bool_(True),
            7,
        ),
        _Array,
    )
    assert words == [
        0x7F0000001000,
        2**64 - 1,
        2**32 - 1,
        2**64 - 2,
        2**64 - 1,
        0x3FC00000,
        0xC000000000000000,
        1,
        7,
    ]
    low = np.array(words, dtype=np.uint64).view(np.uint32)[::2]  # what a 4-byte parameter reads
    assert low[1].view(np.int32) == -1 and low[5].view(np.float32) == np.float32(1.5)


@pytest.mark.parametrize("arg", [1.5, None, "x", np.complex64(1), np.float16(1), [1]])
def test_param_words_leaves_others_to_cupy(arg):
    assert _loader.param_words((np.int32(1), arg), _Array) is None


_MIXED = r"""
extern "C" __global__ void mixed(const long long* src, int a, unsigned b, long long c,
                                 unsigned long long d, float e, double f, bool g, char h,
                                 long long* out) {
    out[0] = src[0]; out[1] = a; out[2] = b; out[3] = c; out[4] = static_cast<long long>(d >> 1);
    out[5] = __float_as_int(e); out[6] = __double_as_longlong(f); out[7] = g; out[8] = h;
    out[9] = static_cast<long long>(gridDim.x) * 1000000 + gridDim.y * 1000 + blockDim.x;
}
"""


def test_prepared_launch_passes_every_parameter(backend):
    """A prepared launch on the GPU calls cuLaunchKernel with parameter words it built once:
    every parameter type arrives as CuPy's launch passes it, the arrays of each call go to its
    slots, and grids and blocks of 1 to 3 dimensions work."""
    if not backend.is_cuda:
        pytest.skip("the prepared words are the CUDA backend's (the emulator launches as usual)")
    import cupy

    k = _loader.Kernel(cupy.RawKernel(_MIXED, "mixed"), "mixed", backend)
    src = cupy.asarray([-123456789012], dtype=np.int64)
    args = (
        np.int32(-7),
        np.uint32(2**32 - 2),
        np.int64(-(2**40)),
        np.uint64(2**64 - 2),
        np.float32(-0.1),
        np.float64(3.25),
        np.bool_(True),
        np.int8(-3),
    )
    want = [
        -123456789012,
        -7,
        2**32 - 2,
        -(2**40),
        (2**64 - 2) >> 1,
        int(np.float32(-0.1).view(np.int32)),
        int(np.float64(3.25).view(np.int64)),
        1,
        -3,
    ]
    for grid, block, dims in (((3, 2), (32,), 3002032), (5, 64, 5001064), ((1, 1, 2), 32, 1001032)):
        out = cupy.zeros(10, dtype=np.int64)
        p = Launch(k, grid, block, args=(Launch.SLOT,) + args + (out,))
        assert p.direct is not None  # the words are built
        for first in (src, cupy.asarray([42], dtype=np.int64)):
            p(first)
            assert out.get().tolist() == [int(first.get()[0])] + want[1:] + [dims]
    first = cupy.zeros(10, dtype=np.int64)
    p = Launch(k, 1, 32, args=(Launch.SLOT,) + args[:5] + (3.25,) + args[6:] + (first,))
    assert p.direct is None  # a Python float: through CuPy's own call
    p(src)
    assert first.get().tolist() == want + [1001032]


def test_prepared_launch_integer_slots(backend):
    """NumPy integer scalars in a prepared launch's slots arrive as the parameter's own width
    (the per-launch epoch of a plan), signed ones too, next to array slots."""
    if not backend.is_cuda:
        pytest.skip("the prepared words are the CUDA backend's (the emulator launches as usual)")
    import cupy

    k = _loader.Kernel(cupy.RawKernel(_MIXED, "mixed"), "mixed", backend)
    src = cupy.asarray([5], dtype=np.int64)
    out = cupy.zeros(10, dtype=np.int64)
    slot = Launch.SLOT
    p = Launch(
        k,
        1,
        32,
        args=(
            slot,
            slot,
            slot,
            np.int64(1),
            np.uint64(2),
            np.float32(0),
            np.float64(0),
            np.bool_(False),
            np.int8(0),
            out,
        ),
    )
    assert p.direct is not None
    for a, b in ((-7, 2**32 - 2), (3, 1)):
        p(src, np.int32(a), np.uint32(b))
        assert out.get().tolist()[:3] == [5, a, b]


def test_prepared_launch_checks_once(kernel):
    with pytest.raises(ValueError, match="zero-sized"):
        Launch(kernel, 0, 256, args=())
    with pytest.raises(ValueError, match="more than 1024 threads"):
        Launch(kernel, 1, (64, 32))


def test_host_count_reads_what_the_kernel_wrote():
    be = _backend.get_backend()
    count = _launch.HostCount(be)

    def kernel(value):  # writes the count through count.arg, as a launch does
        assert count.host[0] == -1  # reset before the launch
        count.host[0] = value

    assert count.read("f", kernel, 12345) == 12345
    assert count.read("f", kernel, 0) == 0  # an empty result is a count too


def test_wait_written_outlasts_a_long_kernel(monkeypatch):
    # the word comes after several queries of a stream that is not done: no time limit, no
    # synchronization; a stream that is done with the word unset is a failed launch
    words = np.full(1, -1, dtype=np.int64)
    queries = []

    class Stream:
        def stream_done(self):
            queries.append(1)
            if len(queries) == 3:
                words[0] = 7  # written late, as by a kernel queued behind a long one
            return False

    monkeypatch.setattr(_launch, "SPINS", 2)
    _launch.wait_written(words, 0, -1, Stream(), "f: unwritten")
    assert words[0] == 7 and len(queries) == 3
    Stream.stream_done = lambda self: True
    words[0] = -1
    with pytest.raises(RuntimeError, match="^f: unwritten$"):
        _launch.wait_written(words, 0, -1, Stream(), "f: unwritten")


def test_host_count_unwritten_raises(monkeypatch):
    be = _backend.get_backend()
    count = _launch.HostCount(be)
    monkeypatch.setattr(_launch, "SPINS", 3)
    with pytest.raises(RuntimeError, match="^myfunc: the kernel did not report its count"):
        count.read("myfunc", lambda: None)  # a launch that never writes it


def test_arrays_that_are_not_c_contiguous_are_refused():
    """A kernel gets an array's first address alone and reads its elements one after another:
    a view with other strides (a broadcast's zero stride, a slice's step, a transpose) is
    refused at the launch, naming the kernel and the argument, on either backend and in every
    form of a launch (one-off, a plan's launch, its array given per call or fixed)."""
    from primitives.selection import _plans as selection_plans

    xp = _backend.get_backend().xp
    name = "gather_rows<unsigned int>"
    k = selection_plans._gather_kernel(name)
    idx = xp.zeros((3, 2), dtype=np.int64)
    dims = (np.int64(3), np.int64(2), np.int64(2))
    refused = rf"{re.escape(name)}: argument 0.* not C-contiguous"
    for bad in (
        xp.broadcast_to(xp.arange(2, dtype=np.uint32), (3, 2)),
        xp.arange(12, dtype=np.uint32)[::2],
        xp.zeros((2, 3), dtype=np.uint32).T,
    ):
        out = xp.zeros((3, 2), dtype=np.uint32)
        with pytest.raises(ValueError, match=refused):
            _launch.launch(k, 1, 32, (bad, idx, out, *dims))
        with pytest.raises(ValueError, match=refused):
            Launch(k, 1, 32)(bad, idx, out, *dims)
        with pytest.raises(ValueError, match=refused):
            Launch(k, 1, 32, args=(Launch.SLOT, idx, out, *dims))(bad)
        with pytest.raises(ValueError, match=refused):  # on the GPU when its words are built
            Launch(k, 1, 32, args=(bad, idx, out, *dims))()
        assert not out.any()  # nothing ran
    good = xp.arange(6, dtype=np.uint32).reshape(3, 2)
    out = xp.zeros((3, 2), dtype=np.uint32)
    Launch(k, 1, 32, args=(Launch.SLOT, idx, out, *dims))(good)
    assert _backend.to_host(out).tolist() == [[0, 0], [2, 2], [4, 4]]


def test_bench_times_the_running_images_without_settle(monkeypatch):
    """timing.bench waits for the default-level images after its warm-up (and warms up again
    when it waited), unless told not to."""
    from primitives._core import lazy, timing

    calls, waits = [], []
    monkeypatch.setattr(lazy, "settle", lambda: waits.append(1) or True)
    monkeypatch.setattr(timing._loader, "settle", lazy.settle)
    timing.bench(lambda: calls.append(1), warmup=2, repeat=3)
    assert waits == [1] and len(calls) == 2 + 2 + 3
    calls.clear()
    timing.bench(lambda: calls.append(1), warmup=2, repeat=3, settle=False)
    assert waits == [1] and len(calls) == 2 + 3


def test_bench_many_enters_each_context_once_a_round(monkeypatch):
    """timing.bench_many's ``within``: a contender's context is entered around each of its
    rounds (warm-up and samples inside it), once a round, and not around the others'."""
    import contextlib

    from primitives._core import timing

    monkeypatch.setattr(timing._loader, "settle", lambda: False)
    log, state = [], {"in": False}

    @contextlib.contextmanager
    def ctx():
        log.append("enter")
        state["in"] = True
        yield
        state["in"] = False

    def a():
        log.append(("a", state["in"]))

    def b():
        log.append(("b", state["in"]))

    t = timing.bench_many({"a": a, "b": b}, rounds=2, warmup=1, repeat=2, within={"a": ctx})
    assert set(t) == {"a", "b"}
    one_round = ["enter"] + [("a", True)] * 3 + [("b", False)] * 3
    assert log == one_round * 2


def test_hold_kernel_runs_and_returns():
    """The hold (kernels/core/hold.cu) runs to its end for a few cycles and for none."""
    from primitives._core import timing

    kern = _loader.load(timing.HOLD_SOURCE, [timing.HOLD_NAME])(timing.HOLD_NAME)
    launch = Launch(kern, 1, 1, args=(Launch.SLOT,))
    for cycles in (0, -5, 64):
        launch(np.int64(cycles))
    _backend.get_backend().synchronize()


def test_hold_length_follows_the_host_time():
    from primitives._core import timing

    assert timing.hold_us([]) == timing.HOLD_UNKNOWN_US
    assert timing.hold_us([3.0, 100.0, 5.0]) == 2 * 5.0 + timing.HOLD_MIN_US
    assert timing.hold_us([1e6]) == timing.HOLD_MAX_US


def test_bench_holds_the_stream_on_the_gpu_only(monkeypatch):
    """On the emulator the samples are wall-clock and nothing is held; on the GPU each sample
    follows one hold unless ``hold=False``."""
    from primitives._core import timing

    monkeypatch.setattr(timing._loader, "settle", lambda: False)
    holds = []
    real = timing._hold
    monkeypatch.setattr(timing, "_hold", lambda be: lambda us: holds.append(us) or real(be)(us))
    timing.bench(lambda: None, warmup=2, repeat=3)
    timing.bench(lambda: None, warmup=2, repeat=3, hold=False)
    gpu = _backend.get_backend().is_cuda
    assert len(holds) == (3 if gpu else 0)
    assert all(timing.HOLD_MIN_US <= us <= timing.HOLD_MAX_US for us in holds)


@pytest.mark.skipif(
    not _backend.get_backend().is_cuda, reason="GPU only: the emulator's samples are wall-clock"
)
def test_held_samples_leave_out_the_host_time():
    """A call that spends 300 us on the host before a short kernel: held, its samples are the
    device's microseconds; not held, the host's time counts."""
    from primitives._core import timing

    xp = _backend.get_backend().xp
    x = xp.zeros(1024, dtype=np.float32)

    def call():
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < 300e-6:
            pass
        x.fill(1.0)

    # up to three tries: under other processes' kernels (a parallel test run) the idle sample's
    # start event can wait behind their work until the host's 300 us are over
    for _ in range(3):
        held = timing.bench(call, warmup=3, repeat=10)
        idle = timing.bench(call, warmup=3, repeat=10, hold=False)
        if held < 0.1 < 0.25 < idle:
            break
    assert held < 0.1 < 0.25 < idle


class _DArray:
    """A stand-in device array of a prepared launch: its address and layout."""

    def __init__(self, ptr, dense=True):
        self.data = type("Pointer", (), {"ptr": ptr})()
        self._c_contiguous = dense
        self.shape, self.strides = (4,), (8,) if dense else (16,)


def _direct_params(spans):
    """A kernel whose direct launch records the parameters it passes: each one's words (``spans``
    of them), read at the launch through cuLaunchKernel's parameter pointers."""
    import ctypes
    import types

    seen = []

    def launch_kernel(ptr, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
        ptrs = (ctypes.c_uint64 * len(spans)).from_address(params)
        seen.append([list((ctypes.c_uint64 * n).from_address(p)) for p, n in zip(ptrs, spans)])

    direct = types.SimpleNamespace(
        ptr=1,
        stream=lambda: types.SimpleNamespace(ptr=0),
        launch_kernel=launch_kernel,
        array_type=_DArray,
    )
    return types.SimpleNamespace(direct=direct, name="k"), seen


def test_a_direct_launch_passes_zipped_arrays_as_one_parameter():
    """A zip slot's arrays are one parameter of as many consecutive words (prim::ZipIn of
    kernels/util/zip.cuh), None a null pointer, beside plain and fixed parameters."""
    kernel, seen = _direct_params([3, 1, 1, 1, 3])
    fixed = _DArray(0x5000)
    z, slot = Launch.zip_slot(3), Launch.SLOT
    args = (z, np.int64(9), fixed, slot, z)
    d = _launch.Direct.make(kernel, (2,), (64,), 0, args, (0, 3, 4))
    assert d is not None
    d(((_DArray(0x1000), None, _DArray(0x3000)), _DArray(0x4000), [_DArray(7)] * 3))
    d(((_DArray(0x1100), _DArray(0x2100), None), np.int32(-1), [None] * 3))
    first, second = seen
    assert first == [[0x1000, 0, 0x3000], [9], [0x5000], [0x4000], [7, 7, 7]]
    assert second == [[0x1100, 0x2100, 0], [9], [0x5000], [2**64 - 1], [0, 0, 0]]
    with pytest.raises(ValueError, match="argument 0: the array is not C-contiguous"):
        d(((_DArray(0x1000), _DArray(0x2000, dense=False), None), _DArray(1), [None] * 3))


def test_a_zip_slot_through_cupys_launch():
    """Where a prepared launch is not direct (the emulator, CuPy's own launch), a zip slot's
    arrays go as one structure of their addresses (launch.zip_arg)."""
    got = []
    kernel = type(
        "K",
        (),
        {
            "direct": None,
            "name": "k",
            "__call__": lambda self, grid, block, args, shared_mem=0: got.append(args),
        },
    )()
    a, b = np.zeros(4), np.zeros(2, np.float32)
    p = Launch(kernel, 1, 32, args=(Launch.zip_slot(2), np.int64(3), Launch.SLOT))
    p((a, None), b)
    (args,) = got
    assert args[0].dtype.names == ("p0", "p1") and args[1] == 3 and args[2] is b
    assert (int(args[0]["p0"]), int(args[0]["p1"])) == (a.ctypes.data, 0)

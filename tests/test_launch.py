"""Launch-configuration helpers: grids from the machine, shared-memory opt-in, refusals."""

import numpy as np
import pytest

from primitives import _backend, _launch, reduction


@pytest.fixture
def kernel():
    dt = np.dtype(np.float32)
    return reduction._kernel("gamma", dt, dt, "sum")


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
    kernel = reduction._kernel("alpha", dt, dt, "sum")  # a kernel no other test opts in
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

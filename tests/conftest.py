"""Shared fixtures: the backend under test and the emulator's race-exposing mode.

On the emulator (no GPU) the reduction tests run twice: threads in index order, and with the
seeded race-exposing scheduler, which permutes the threads between barriers so that a missing
``__syncthreads``/``__syncwarp`` gives a wrong answer. On a GPU the same tests run once on the
device. The largest grids of fast cases run whole in index order and a sample of them
(:func:`race_sample`) in race-exposing mode.
"""

import itertools
import os
import zlib

import numpy as np
import pytest

# kernels compiled on first use are compiled at the default level at once: no test runs a
# fast-compiled image, nor sees its plans retired when the default one lands mid-test
# (tests/core/test_tiers.py runs the tiers in processes of their own)
os.environ.setdefault("PRIMITIVES_COMPILE_TIERS", "off")

import primitives as prim
from primitives._core import backend as _backend
from primitives._core.backend import to_host  # noqa: F401  (tests import it from here)


def pytest_configure(config):
    """NumPy is the oracle of bfloat16's order too, through ml_dtypes' comparisons: an ml_dtypes
    older than pyproject's requirement (0.7) sorts bfloat16 wrongly under NumPy 2.4 and later
    (3, -1.5, nan, 0.25 as -1.5, 3, nan, 0.25), and every bfloat16 test of the sorts, searches
    and selections would fail on the oracle's answer. Stop before them, saying why."""
    import ml_dtypes

    x = np.array([3.0, -1.5, np.nan, 0.25], ml_dtypes.bfloat16)
    if not np.array_equal(np.sort(x).astype(np.float32), np.sort(x.astype(np.float32)), True):
        raise pytest.UsageError(
            f"NumPy {np.__version__} with ml_dtypes {ml_dtypes.__version__} sorts bfloat16 out of "
            "order, so the tests' oracle would be wrong: install ml_dtypes>=0.7 (pyproject.toml)"
        )


def pytest_report_header(config):
    info = prim.backend_info()
    return f"primitives backend: {info['backend']} on {info['device']} ({info['reason']})"


@pytest.fixture(scope="session")
def backend():
    return _backend.get_backend()


@pytest.fixture(scope="session")
def on_gpu(backend):
    return backend.is_cuda


def pytest_generate_tests(metafunc):
    if "schedule" in metafunc.fixturenames:
        modes = ["gpu"] if _backend.get_backend().is_cuda else ["ordered", "race"]
        metafunc.parametrize("schedule", modes, indirect=True)


@pytest.fixture
def schedule(request):
    """Runs a test in index order and in race-exposing mode (emulator); once on the GPU."""
    yield from _scheduled(request.param)


@pytest.fixture
def race():
    """Runs a test in race-exposing mode on the emulator (on the GPU, on the device): the tests
    of a :func:`race_sample` of a grid that runs whole in index order."""
    yield from _scheduled("gpu" if _backend.get_backend().is_cuda else "race")


def _scheduled(mode):
    if mode == "gpu":
        yield "gpu"
        return
    from primitives._core import emulator as _emulator

    old = _emulator.race_mode()
    _emulator.set_race_mode(12345 if mode == "race" else None)
    try:
        yield mode
    finally:
        _emulator.set_race_mode(old)


def race_sample(*axes, every=2):
    """The cases of the grid ``axes`` (their product, as tuples) whose indices along the axes add
    up to a multiple of ``every``: one case in ``every``, with every pair of values of any two
    axes where a third axis has ``every`` values or more (each variant with each dtype, each size,
    ...). A large grid of fast cases runs whole in index order and this sample of it again in
    race-exposing mode (the ``race`` fixture): the barriers a race breaks are the variants' and
    the sizes', which the sample keeps."""
    return [
        tuple(value for _, value in case)
        for case in itertools.product(*(list(enumerate(axis)) for axis in axes))
        if sum(i for i, _ in case) % every == 0
    ]


@pytest.fixture
def rng(request):
    # a fresh, reproducible stream per test
    seed = zlib.crc32(request.node.nodeid.encode())
    return np.random.default_rng(seed)


def load_benchmark(name):
    """Import asv_bench/benchmarks/<name>.py as asv does: a module of the package ``benchmarks``
    (the benchmark modules share ``benchmarks._common``)."""
    import importlib
    import pathlib
    import sys

    asv = str(pathlib.Path(__file__).resolve().parent.parent / "asv_bench")
    if asv not in sys.path:
        sys.path.insert(0, asv)
    return importlib.import_module(f"benchmarks.{name}")


def ragged_offsets(rng, n, max_len, p_empty=0.2):
    """CSR-style offsets over n elements: segment lengths uniform in [0, max_len], a share
    p_empty of them forced empty; starts at 0 and ends at n."""
    lens = rng.integers(0, max_len + 1, n + 1)
    lens[rng.random(lens.size) < p_empty] = 0
    ends = np.cumsum(lens)
    ends = ends[ends < n]
    return np.concatenate([[0], ends, [n]]).astype(np.int64)

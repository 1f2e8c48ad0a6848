"""The asv benchmark suite: its configuration is valid and its benchmarks run (or skip) here."""

import inspect
import json
import pathlib

import pytest

from primitives._core import backend as _backend
from primitives.reduction import VARIANTS

from conftest import load_benchmark

ASV = pathlib.Path(__file__).resolve().parent.parent / "asv_bench"


def _load(name):
    return load_benchmark(name)


@pytest.fixture(scope="module")
def bench_mod():
    return _load("reduction")


def _classes(mod):
    return [c for _, c in inspect.getmembers(mod, inspect.isclass) if c.__module__ == mod.__name__]


def test_config():
    conf = json.loads((ASV / "asv.conf.json").read_text())
    assert conf["version"] == 1
    assert conf["project"] == "primitives"
    assert conf["repo"] == ".."
    assert (ASV / conf["repo"] / "pyproject.toml").is_file()
    assert conf["environment_type"] == "virtualenv"
    assert "pythons" not in conf  # asv then uses the running interpreter's version
    bench_dir = ASV / conf.get("benchmark_dir", "benchmarks")
    assert (bench_dir / "__init__.py").is_file()


def test_benchmark_shapes(bench_mod):
    classes = _classes(bench_mod)
    assert {c.__name__ for c in classes} == {"Reduce", "CupySum"}
    assert bench_mod.Reduce.params[0] == list(VARIANTS)
    for cls in classes:
        assert len(cls.params) == len(cls.param_names)
        assert cls.track_time_ms.unit == "ms"
        assert cls.track_gbps.unit == "GB/s"


def _smallest(cls):
    return [p[0] for p in cls.params]


def test_setup_skips_without_cuda(bench_mod):
    if _backend.get_backend().is_cuda:
        pytest.skip("CUDA backend present: test_track_on_gpu runs the benchmarks instead")
    for cls in _classes(bench_mod):
        with pytest.raises(NotImplementedError, match="GPU benchmark"):
            cls().setup(*_smallest(cls))


@pytest.mark.gpu
def test_track_on_gpu(bench_mod):
    if not _backend.get_backend().is_cuda:
        pytest.skip("needs the CUDA backend")
    for cls in (bench_mod.Reduce, bench_mod.CupySum):
        b = cls()
        args = _smallest(cls)
        if cls is bench_mod.Reduce:
            args[0] = "production"
        b.setup(*args)
        try:
            assert b.track_time_ms(*args) > 0
            assert b.track_gbps(*args) > 0
        finally:
            b.teardown(*args)


@pytest.fixture(scope="module")
def sort_mod():
    return _load("sort")


def test_sort_benchmark_shapes(sort_mod):
    from primitives.sorting import VARIANTS as SORT_VARIANTS

    classes = _classes(sort_mod)
    assert {c.__name__ for c in classes} == {"Sort", "Pairs", "SegmentedSort"}
    assert sort_mod.Sort.params[0][:3] == list(SORT_VARIANTS)
    for cls in classes:
        assert len(cls.params) == len(cls.param_names)
        assert cls.track_time_ms.unit == "ms"


def test_sort_setup_skips_without_cuda(sort_mod):
    if _backend.get_backend().is_cuda:
        pytest.skip("CUDA backend present: test_sort_track_on_gpu runs the benchmarks instead")
    for cls in _classes(sort_mod):
        with pytest.raises(NotImplementedError, match="GPU benchmark"):
            cls().setup(*_smallest(cls))


@pytest.mark.gpu
def test_sort_track_on_gpu(sort_mod):
    if not _backend.get_backend().is_cuda:
        pytest.skip("needs the CUDA backend")
    for cls in _classes(sort_mod):
        b = cls()
        args = _smallest(cls)
        if cls is sort_mod.Sort:
            args[0] = "onesweep"
        b.setup(*args)
        try:
            assert b.track_time_ms(*args) > 0
        finally:
            b.teardown(*args)

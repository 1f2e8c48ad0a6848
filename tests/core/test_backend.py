"""Backend choice, the kernel loader's cache key, and input conversion."""

import shutil

import numpy as np
import pytest

import primitives as prim
from primitives._core import backend as _backend, lazy, loader as _loader
from primitives.testing import harness as H


def test_backend_info_keys():
    info = prim.backend_info()
    assert info["backend"] in ("cuda", "emulator")
    assert info["reason"] and info["device"] and info["sm_count"] >= 1


@pytest.fixture
def fresh_backend(monkeypatch):
    saved = _backend._backend
    _backend._reset()
    yield monkeypatch
    _backend._backend = saved


def test_env_emulator(fresh_backend):
    fresh_backend.setenv("PRIMITIVES_BACKEND", "emulator")
    assert _backend.get_backend().name == "emulator"
    assert "PRIMITIVES_BACKEND=emulator" in prim.backend_info()["reason"]


def test_env_invalid(fresh_backend):
    fresh_backend.setenv("PRIMITIVES_BACKEND", "opencl")
    with pytest.raises(ValueError, match="expected 'cuda', 'emulator' or 'auto'"):
        _backend.get_backend()


def test_env_cuda_without_device(fresh_backend):
    ok, _ = _backend._cupy_device_reason()
    fresh_backend.setenv("PRIMITIVES_BACKEND", "cuda")
    if ok:
        assert _backend.get_backend().name == "cuda"
    else:
        with pytest.raises(RuntimeError, match="CUDA backend is unavailable"):
            _backend.get_backend()


def test_auto_matches_device(fresh_backend):
    fresh_backend.setenv("PRIMITIVES_BACKEND", "auto")
    ok, why = _backend._cupy_device_reason()
    b = _backend.get_backend()
    assert b.name == ("cuda" if ok else "emulator")
    assert why in b.reason


def test_tree_hash_covers_headers(tmp_path, monkeypatch):
    """Editing a header changes the hash that keys the compile caches."""
    root = tmp_path / "kernels"
    shutil.copytree(_loader.kernels_root(), root)
    monkeypatch.setattr(_loader, "kernels_root", lambda: root)
    _loader.tree_hash.cache_clear()
    try:
        before = _loader.tree_hash()
        _loader.tree_hash.cache_clear()
        with open(root / "warp" / "shfl.cuh", "a") as f:
            f.write("\n// edited\n")
        assert _loader.tree_hash() != before
    finally:
        _loader.tree_hash.cache_clear()


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8])
def test_copy_and_copy_into(dtype):
    """The backend's memory copies (no CuPy kernel on the GPU): a new writable array equal to a
    read-only source, and a copy into an existing array, in the source's shape and dtype."""
    b = _backend.get_backend()
    host = np.arange(24, dtype=dtype).reshape(4, 6)
    host.flags.writeable = False
    src = b.xp.asarray(host)
    out = b.copy(src)
    assert out is not src and out.shape == (4, 6) and out.dtype == dtype
    np.testing.assert_array_equal(_backend.to_host(out), host)
    out[0, 0] = 7  # its own memory
    np.testing.assert_array_equal(_backend.to_host(src), host)
    dst = b.xp.zeros((4, 6), dtype=dtype)
    b.copy_into(dst, src)
    b.synchronize()
    np.testing.assert_array_equal(_backend.to_host(dst), host)
    empty = b.copy(b.xp.zeros(0, dtype=dtype))
    assert empty.shape == (0,) and empty.dtype == dtype


@pytest.mark.parametrize(
    "value", [np.float32(np.nan), np.complex128(1 - 2j), np.bool_(True), np.int64(-1)]
)
def test_fetch_reads_small_arrays_back(value):
    """Backend.fetch: a small array (a 0-d result, a flag) read back to the host, equal to it
    after work enqueued in between (on the GPU through pinned memory, a slot reused by the next
    fetch); a value read twice stays; an array past the limit or strided is read back too."""
    b = _backend.get_backend()
    src = b.xp.asarray(np.asarray(value))
    got = b.fetch(src)
    b.xp.zeros(1 << 16, dtype=np.float32).sum()  # more work queued before the wait
    v = got.value()
    assert isinstance(v, np.ndarray) and v.shape == () and v.dtype == src.dtype
    np.testing.assert_array_equal(v, value)
    again = b.fetch(src + src)  # the slot freed by the first fetch
    np.testing.assert_array_equal(got.value(), value)
    np.testing.assert_array_equal(again.value(), np.asarray(value) + np.asarray(value))
    big = b.xp.arange(_backend.Fetch.LIMIT, dtype=np.int16)
    np.testing.assert_array_equal(b.fetch(big).value(), np.arange(_backend.Fetch.LIMIT))
    np.testing.assert_array_equal(b.fetch(big[::2]).value(), np.arange(0, _backend.Fetch.LIMIT, 2))


def test_modules_memoized():
    names = ["reduce_gamma<float, float, prim::Sum<float>>"]
    a = _loader.load("reduction/reduce.cu", names)
    b = _loader.load("reduction/reduce.cu", names)
    assert a is b
    assert a(names[0]) is b(names[0])


def test_module_gives_only_its_own_instantiations():
    names = ["reduce_gamma<float, float, prim::Sum<float>>"]
    get = _loader.load("reduction/reduce.cu", names)
    with pytest.raises(KeyError, match="not an instantiation"):
        get("reduce_gamma<double, double, prim::Sum<double>>")


@pytest.mark.skipif(not _backend.get_backend().is_cuda, reason="NVRTC's lazy path is CUDA's")
def test_cuda_compiles_only_the_instantiation_asked_for(monkeypatch):
    """With no shipped binary, a module's kernels are compiled one by one as calls ask."""
    monkeypatch.setenv("PRIMITIVES_KERNEL_BINARIES", "off")
    names = [
        "reduce_gamma<float, float, prim::Max<float>>",
        "reduce_gamma<double, double, prim::Max<double>>",
    ]
    b = _backend.get_backend()
    for name in names:
        lazy._alone.pop((b.device_id(), "reduction/reduce.cu", name), None)
    _loader._modules.pop((b.name, b.device_id(), "reduction/reduce.cu", tuple(names)), None)
    get = _loader.load("reduction/reduce.cu", names)
    assert not [k for k in lazy._alone if k[2] in names]  # loading compiles nothing
    get(names[0])
    assert [k[2] for k in lazy._alone if k[2] in names] == [names[0]]


def test_compile_error_puts_the_cause_first():
    """One line: the instantiation and the compiler's first error; the whole log on the
    exception."""
    name = "reduce_gamma<float, float, prim::Nope<float>>"
    with pytest.raises(prim.KernelCompileError) as info:
        _loader.load("reduction/reduce.cu", [name])(name)  # CUDA compiles when asked for it
    msg = str(info.value)
    assert "\n" not in msg
    assert msg.startswith(f"compiling reduction/reduce.cu failed in {name}: ")
    assert "error" in msg.lower() and "Nope" in msg
    assert info.value.names == [name] and "Nope" in info.value.log


_HostDLPack = H.DLPackOnly  # a host object that only speaks DLPack


def test_dlpack_host_input():
    x = np.arange(1, 101, dtype=np.int64)
    assert prim.sum(_HostDLPack(x)) == 5050

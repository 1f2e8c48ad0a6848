"""Kernel binaries built ahead of time (primitives._core.binaries) and the loader's use of them:
built by NVRTC without a GPU, found only for the package they were built from (its kernel
sources, compile options and version, wherever it is installed), for the instantiations they hold
and an architecture the device runs, and a load that fails falls back to compiling."""

import json
import shutil
import threading
import types

import numpy as np
import pytest

import primitives  # noqa: F401 - registers every family's instantiations
from primitives._core import binaries, lazy, loader, nvrtc

SOURCE = "selection/gather.cu"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A build of one source file (9 instantiations, images of 4) for a cubin and a PTX
    architecture, in a directory of its own."""
    out = tmp_path_factory.mktemp("bin")
    names = loader.registered_modules()[SOURCE]
    lines = []
    mp = pytest.MonkeyPatch()
    mp.setattr(binaries, "CHUNK", 4)
    try:
        idx = binaries.build(
            out, archs=("sm_90", "compute_90"), jobs=1, modules={SOURCE: names}, log=lines.append
        )
    finally:
        mp.undo()
    return out, names, idx, lines


def image(out, idx, name, arch):
    ext = "cubin" if arch.startswith("sm") else "ptx"
    return out / f"{idx['modules'][SOURCE]['image'][name]}.{arch}.{ext}"


@pytest.fixture
def use(monkeypatch):
    def point(directory):
        monkeypatch.setenv("PRIMITIVES_KERNEL_BINARIES", str(directory))
        binaries._read_index.cache_clear()

    yield point
    binaries._read_index.cache_clear()


@pytest.mark.parametrize(
    "cc,want",
    [
        ("90", "sm_90"),
        ("80", "sm_80"),
        ("86", "sm_80"),
        ("89", "sm_80"),
        ("100", "compute_90"),
        ("120", "compute_90"),
        ("75", None),
        ("emulated", None),
    ],
)
def test_pick_arch(cc, want):
    """The newest cubin of the device's major version not newer than it, else PTX it can JIT."""
    assert binaries.pick_arch(cc, ("sm_80", "sm_90", "compute_90")) == want


def test_build_writes_images_and_index(built):
    out, names, idx, lines = built
    assert idx["build_key"] == binaries.build_key() and idx["archs"] == ["sm_90", "compute_90"]
    assert idx["tree_hash"] == loader.tree_hash() and idx["version"] == primitives.__version__
    assert tuple(idx["nvrtc"]) == nvrtc.version()
    mod = idx["modules"][SOURCE]
    opts = [o for o in loader.nvrtc_options() if o != "-std=c++17"]
    assert mod["lowered"] == nvrtc.compile_check(
        loader.source(SOURCE), names, arch="sm_90", options=opts, filename=SOURCE
    )
    # consecutive names in images of 4: 4 + 4 + 1
    stems = list(dict.fromkeys(mod["image"][n] for n in names))
    assert [sum(mod["image"][n] == s for n in names) for s in stems] == [4, 4, 1]
    for stem in stems:
        cubin = (out / f"{stem}.sm_90.cubin").read_bytes()
        ptx = (out / f"{stem}.compute_90.ptx").read_bytes()
        assert cubin[:4] == b"\x7fELF"
        assert ptx.startswith(b"//") and b"\0" not in ptx
        assert all(mod["lowered"][n].encode() in ptx for n in names if mod["image"][n] == stem)
    assert json.loads((out / "index.json").read_text()) == idx
    assert len(lines) == 6 and all(SOURCE in ln for ln in lines)


def test_find(built, use):
    out, names, idx, _ = built
    use(out)
    low = idx["modules"][SOURCE]["lowered"]
    found = binaries.find(SOURCE, names[3:5], "90")  # across two images
    assert found == {n: (image(out, idx, n, "sm_90"), low[n]) for n in names[3:5]}
    assert {p.suffix for p, _ in binaries.find(SOURCE, names, "120").values()} == {".ptx"}
    assert binaries.find(SOURCE, names, "80") is None  # no sm_80 image in this build
    assert binaries.find(SOURCE, names + ["not_built<int>"], "90") is None
    assert binaries.find("reduction/reduce.cu", ["x"], "90") is None


def test_stale_or_switched_off_binaries_are_never_found(built, use, tmp_path, monkeypatch):
    out, names, idx, _ = built
    stale = dict(idx, build_key="0" * 64)  # built from another package
    for f in out.iterdir():
        (tmp_path / f.name).write_bytes(f.read_bytes())
    (tmp_path / "index.json").write_text(json.dumps(stale))
    use(tmp_path)
    assert binaries.index() is None and binaries.find(SOURCE, names, "90") is None
    use(tmp_path / "missing")
    assert binaries.index() is None
    use(out)
    assert binaries.find(SOURCE, names, "90") is not None
    monkeypatch.setenv("PRIMITIVES_KERNEL_BINARIES", "off")
    assert binaries.binaries_dir() is None and binaries.find(SOURCE, names, "90") is None


@pytest.fixture
def kernel_tree(tmp_path, monkeypatch):
    """A copy of the kernel sources in another folder, taken as the package's (as an installed
    package's are), restored afterwards."""
    tree = tmp_path / "kernels"
    shutil.copytree(loader.kernels_root(), tree)
    monkeypatch.setattr(loader, "kernels_root", lambda: tree)
    loader.tree_hash.cache_clear()
    yield tree
    monkeypatch.undo()
    loader.tree_hash.cache_clear()
    binaries._read_index.cache_clear()


def test_an_index_of_other_sources_options_or_version_is_never_loaded(
    built, use, kernel_tree, monkeypatch
):
    """The key is of the sources' contents, not of their folder: the same sources elsewhere (an
    install) load; an edited header, another option or another version of the package make the
    binaries stale, and the loader compiles instead."""
    out, names, idx, _ = built
    use(out)
    assert binaries.index() == idx  # the same contents in another folder
    monkeypatch.setattr(primitives, "__version__", "0.0.0-other")
    use(out)
    assert binaries.index() is None
    monkeypatch.setattr(primitives, "__version__", idx["version"])
    options = loader.binary_options
    monkeypatch.setattr(loader, "binary_options", lambda: [*options(), "-DPRIM_OTHER=1"])
    use(out)
    assert binaries.index() is None
    monkeypatch.setattr(loader, "binary_options", options)
    use(out)
    assert binaries.find(SOURCE, names, "90") is not None
    with open(kernel_tree / "util" / "prim.cuh", "a") as f:
        f.write("// edited\n")
    loader.tree_hash.cache_clear()
    use(out)
    assert binaries.index() is None and binaries.find(SOURCE, names, "90") is None
    loader._shipped_modules.clear()
    assert loader.shipped(FakeModule, SOURCE, names, "90") is None


class FakeModule:
    """cupy.RawModule's path form: records what was loaded and asked for."""

    loads = []

    def __init__(self, path):
        self.path = path
        FakeModule.loads.append(path)

    def get_function(self, name):
        return ("function", self.path, name)


class BrokenModule:
    def __init__(self, path):
        raise OSError("CUDA_ERROR_INVALID_IMAGE")


def test_loader_takes_the_shipped_binary(built, use):
    out, names, idx, _ = built
    use(out)
    loader._shipped_modules.clear()
    FakeModule.loads = []
    before = loader.kernel_origins().get("shipped", 0)
    get = loader.shipped(FakeModule, SOURCE, names[:3], "90")
    low = idx["modules"][SOURCE]["lowered"]
    assert get(names[1]) == ("function", str(image(out, idx, names[1], "sm_90")), low[names[1]])
    assert FakeModule.loads == [str(image(out, idx, names[0], "sm_90"))]
    again = loader.shipped(FakeModule, SOURCE, names[2:], "90")  # another module of the file
    assert again(names[-1])[2] == low[names[-1]]
    assert len(FakeModule.loads) == 3  # each image is loaded once
    assert loader.kernel_origins()["shipped"] == before + 3 + len(names) - 2
    assert loader.shipped(FakeModule, SOURCE, ["not_built<int>"], "90") is None
    assert loader.shipped(FakeModule, SOURCE, names, "75") is None
    loader._shipped_modules.clear()


def test_a_binary_that_does_not_load_falls_back(built, use):
    out, names, _, _ = built
    use(out)
    loader._shipped_modules.clear()
    with pytest.warns(
        RuntimeWarning,
        match=r"did not load \(OSError: CUDA_ERROR_INVALID_IMAGE\)"
        r"; compiling selection/gather.cu instead",
    ):
        assert loader.shipped(BrokenModule, SOURCE, names, "90") is None


def test_build_refuses_unknown_architectures(tmp_path):
    with pytest.raises(ValueError, match="sm_XY or compute_XY"):
        binaries.build(tmp_path, archs=("hopper",), modules={SOURCE: ["x"]})


def test_command_line(tmp_path, capsys):
    """``python -m primitives._core.binaries build --only FILE``: that file's images and index."""
    assert (
        binaries.main(
            [
                "build",
                "--arch",
                "sm_80",
                "--jobs",
                "1",
                "--out",
                str(tmp_path),
                "--only",
                "sorting/split.cu",
            ]
        )
        == 0
    )
    idx = json.loads((tmp_path / "index.json").read_text())
    assert list(idx["modules"]) == ["sorting/split.cu"] and idx["archs"] == ["sm_80"]
    assert (tmp_path / "sorting__split.0.sm_80.cubin").read_bytes()[:4] == b"\x7fELF"
    cap = capsys.readouterr()
    assert (
        "sorting/split.cu [sorting__split.0] sm_80:" in cap.out
        and "instantiations of 1 files" in cap.err
    )
    with pytest.raises(SystemExit):
        binaries.main(["build", "--only", "no/such.cu", "--out", str(tmp_path)])


def test_compile_alone_caches_an_ieee_cubin(tmp_path, monkeypatch):
    """A kernel compiled on first use where nothing is shipped: one instantiation compiled by the
    package's NVRTC call (no -ftz: CuPy's RawModule would append -ftz=true) into a cubin, kept
    under the cache directory and found there by a later call without compiling again; a
    compile error raises KernelCompileError with the compiler's first error first."""
    monkeypatch.setenv("PRIMITIVES_CACHE_DIR", str(tmp_path))
    assert not any("ftz" in o for o in loader.nvrtc_options())
    name = "mean_divide<double, double>"
    path, lowered = lazy.compile_alone("reduction/finish.cu", name, "sm_90")
    assert path.parent == tmp_path / "cubin" and path.read_bytes()[:4] == b"\x7fELF"
    assert lowered.startswith("_Z") and "mean_divide" in lowered

    def no_compile(*a, **k):
        raise AssertionError("compiled again")

    monkeypatch.setattr(nvrtc, "compile_binary", no_compile)
    assert lazy.compile_alone("reduction/finish.cu", name, "sm_90") == (path, lowered)
    monkeypatch.undo()
    monkeypatch.setenv("PRIMITIVES_CACHE_DIR", str(tmp_path))
    with pytest.raises(loader.KernelCompileError, match=r"compiling reduction/finish.cu failed"):
        lazy.compile_alone("reduction/finish.cu", "mean_divide<no_such_type, double>", "sm_90")


def test_compiles_started_ahead_are_taken(tmp_path, monkeypatch):
    """A compile that prefetch started is waited for, not run again; one no thread has started
    yet runs in the caller's thread (the kernel asked for goes first)."""
    import concurrent.futures

    monkeypatch.setenv("PRIMITIVES_CACHE_DIR", str(tmp_path))
    key = ("reduction/finish.cu", "mean_divide<float, float>", "sm_90")
    done = concurrent.futures.Future()
    done.set_result(("path", "lowered", True))
    monkeypatch.setitem(lazy._prefetched, key, done)
    assert lazy._first_image_now(*key) == ("path", "lowered", True)
    assert key not in lazy._prefetched
    pending = concurrent.futures.Future()  # queued, not running: cancelled, compiled here
    monkeypatch.setitem(lazy._prefetched, key, pending)
    compiled = loader.kernel_origins().get("compiled", 0)
    path, lowered, _ = lazy._first_image_now(*key)
    assert pending.cancelled() and path.read_bytes()[:4] == b"\x7fELF" and "mean_divide" in lowered
    assert loader.kernel_origins()["compiled"] == compiled + 1


def test_prefetch_does_nothing_on_the_emulator(monkeypatch):
    import types

    fake = types.SimpleNamespace(is_cuda=False)
    monkeypatch.setattr(loader._backend, "get_backend", lambda: fake)
    monkeypatch.setattr(lazy, "_prefetched", {})
    lazy.prefetch("reduction/finish.cu", ["mean_divide<float, float>"])
    assert not lazy._prefetched


def test_prefetch_compiles_a_calls_kernels_at_once(monkeypatch):
    """On the CUDA backend with nothing shipped, prefetch starts each name's compile in a thread
    of its own: the compiles run at the same time, and asking for a kernel takes its compile."""
    import threading
    import types

    info = types.SimpleNamespace(compute_capability="90")
    fake = types.SimpleNamespace(is_cuda=True, device_id=lambda: 0, device_info=lambda: info)
    monkeypatch.setattr(loader._backend, "get_backend", lambda: fake)
    monkeypatch.setattr(binaries, "find", lambda *a: None)
    monkeypatch.setattr(lazy, "_prefetched", {})
    running, together = set(), threading.Event()

    def compile_alone(relpath, name, arch, fast=False):
        running.add(name)
        if len(running) == 2:
            together.set()
        assert together.wait(5), "the compiles ran one after another"
        return f"{name}.cubin", f"_Z{name}"

    monkeypatch.setattr(lazy, "compile_alone", compile_alone)
    monkeypatch.setenv("PRIMITIVES_COMPILE_TIERS", "off")
    names = ["a", "b"]  # (two threads at least, whatever the CPUs)
    lazy.prefetch("sorting/onesweep.cu", names)
    assert [lazy._first_image_now("sorting/onesweep.cu", n, "sm_90") for n in names] == [
        (f"{n}.cubin", f"_Z{n}", True) for n in names
    ]
    assert not lazy._prefetched


def test_first_image_is_the_fast_one_until_the_default_is_cached(tmp_path, monkeypatch):
    """With compile tiers (the default), a first call loads the image NVRTC compiled at its
    fast level, kept apart from the default one; once the default image is cached, it is the one
    loaded, with no compile; with tiers off, the default image is compiled at once."""
    monkeypatch.setenv("PRIMITIVES_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("PRIMITIVES_COMPILE_TIERS", "on")
    key = ("reduction/finish.cu", "mean_divide<float, double>", "sm_90")
    origins = loader.kernel_origins
    compiled = origins().get("compiled", 0)
    fast, lowered, final = lazy._first_image(*key)
    assert not final and fast.read_bytes()[:4] == b"\x7fELF" and "mean_divide" in lowered
    assert origins()["compiled"] == compiled + 1
    default, lowered2 = lazy.compile_alone(*key)
    assert default != fast and lowered2 == lowered and origins()["compiled"] == compiled + 2
    assert lazy._first_image(*key) == (default, lowered, True)
    assert origins()["compiled"] == compiled + 2
    monkeypatch.setenv("PRIMITIVES_CACHE_DIR", str(tmp_path / "other"))
    monkeypatch.setenv("PRIMITIVES_COMPILE_TIERS", "off")
    path, _, final = lazy._first_image(*key)
    assert final and path.parent == tmp_path / "other" / "cubin"
    monkeypatch.setenv("PRIMITIVES_COMPILE_TIERS", "sometimes")
    with pytest.raises(ValueError, match="PRIMITIVES_COMPILE_TIERS must be on, off"):
        lazy._first_image(*key)


class _Fn:
    """A stand-in of CuPy's kernel function: a handle and the dynamic shared memory opt-in."""

    def __init__(self, ptr, smem=0):
        self.kernel = types.SimpleNamespace(ptr=ptr)
        self.max_dynamic_shared_size_bytes = smem


def test_a_landed_image_is_swapped_into_every_kernel(monkeypatch):
    """A kernel running its fast image is watched until its default image lands: then every
    Kernel object of the instantiation launches the new function (its dynamic shared memory
    opt-in carried over, its occupancy asked again); a Kernel made after the landing is swapped
    when it is watched; settle() waits for the compiles behind."""
    import concurrent.futures

    backend = types.SimpleNamespace(is_cuda=False, device_id=lambda: 0)
    key = (0, "sorting/onesweep.cu", "k<1>")
    fast, final = _Fn(1, 65536), _Fn(2)
    monkeypatch.setattr(lazy, "_pending", {})
    monkeypatch.setattr(lazy, "_watchers", {})
    monkeypatch.setitem(lazy._alone, key, fast)
    a = loader.Kernel(fast, "k<1>", backend)
    a.direct = types.SimpleNamespace(ptr=1)
    a._occupancy[(256, 0)] = 3
    behind = concurrent.futures.Future()
    lazy._pending[key] = behind
    lazy.watch(a, "sorting/onesweep.cu")
    assert a.function is fast and a in lazy._watchers[key]
    for kernel in list(lazy._watchers.pop(key)):  # what _finish does when the image lands
        kernel._swap(final)
    lazy._alone[key] = final
    assert a.function is final and a.direct.ptr == 2 and not a._occupancy
    assert final.max_dynamic_shared_size_bytes == 65536
    b = loader.Kernel(fast, "k<1>", backend)  # made from the fast image before it landed
    lazy._pending.pop(key)
    lazy.watch(b, "sorting/onesweep.cu")
    assert b.function is final
    lazy._pending[key] = behind
    threading.Timer(0.2, lambda: (lazy._pending.pop(key), behind.set_result(None))).start()
    assert lazy.settle() and not lazy._pending and not lazy.settle()


def test_prepared_launches_read_the_handle_per_call(monkeypatch):
    """A Direct launch made before a kernel's default image landed launches the new handle."""
    from primitives._core import launch

    calls = []
    direct = types.SimpleNamespace(
        ptr=1,
        stream=lambda: types.SimpleNamespace(ptr=0),
        launch_kernel=lambda *argv: calls.append(argv[0]),
        array_type=np.ndarray,
    )
    d = launch.Direct("k<1>", direct, (1,), (32,), 0, [], [])
    d(())
    direct.ptr = 2
    d(())
    assert calls == [1, 2]


def test_a_failed_default_compile_keeps_the_fast_image(monkeypatch):
    """A default-level compile that fails in the background leaves the fast image in use, with
    one RuntimeWarning naming the kernel, and ends the wait for it."""
    import concurrent.futures

    key = (0, "sorting/onesweep.cu", "k<2>")
    monkeypatch.setattr(lazy, "_pending", {key: concurrent.futures.Future()})
    monkeypatch.setattr(lazy, "_watchers", {key: set()})

    def fails(*a, **k):
        raise RuntimeError("out of memory")

    monkeypatch.setattr(lazy, "compile_alone", fails)
    with pytest.warns(RuntimeWarning, match=r"default-level compile of k<2>.*fast-compiled"):
        lazy._finish(*key, "sm_90")
    assert not lazy._pending and not lazy._watchers and not lazy.settle()

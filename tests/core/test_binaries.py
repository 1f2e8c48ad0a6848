"""Kernel binaries built ahead of time (primitives._core.binaries) and the loader's use of them:
built by NVRTC without a GPU, found only for the kernel tree they were built from, for the
instantiations they hold and an architecture the device runs, and a load that fails falls back to
compiling."""

import json

import pytest

import primitives  # noqa: F401 - registers every family's instantiations
from primitives._core import binaries, loader, nvrtc

SOURCE = "sparse/ell.cu"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A build of one source file for a cubin and a PTX architecture, in a directory of its own."""
    out = tmp_path_factory.mktemp("bin")
    names = loader.registered_modules()[SOURCE]
    lines = []
    idx = binaries.build(
        out, archs=("sm_90", "compute_90"), jobs=1, modules={SOURCE: names}, log=lines.append
    )
    return out, names, idx, lines


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
    assert idx["tree_hash"] == loader.tree_hash() and idx["archs"] == ["sm_90", "compute_90"]
    assert tuple(idx["nvrtc"]) == nvrtc.version()
    mod = idx["modules"][SOURCE]
    opts = [o for o in loader.nvrtc_options() if o != "-std=c++17"]
    assert mod["lowered"] == nvrtc.compile_check(
        loader.source(SOURCE), names, arch="sm_90", options=opts, filename=SOURCE
    )
    cubin = (out / f"{mod['slug']}.sm_90.cubin").read_bytes()
    ptx = (out / f"{mod['slug']}.compute_90.ptx").read_bytes()
    assert cubin[:4] == b"\x7fELF"
    assert ptx.startswith(b"//") and b"\0" not in ptx
    assert all(low.encode() in ptx for low in mod["lowered"].values())
    assert json.loads((out / "index.json").read_text()) == idx
    assert len(lines) == 2 and all(SOURCE in ln for ln in lines)


def test_find(built, use):
    out, names, idx, _ = built
    use(out)
    path, lowered = binaries.find(SOURCE, names[:2], "90")
    assert path == out / f"{idx['modules'][SOURCE]['slug']}.sm_90.cubin"
    assert lowered == {n: idx["modules"][SOURCE]["lowered"][n] for n in names[:2]}
    assert binaries.find(SOURCE, names, "120")[0].suffix == ".ptx"  # newer GPUs: the PTX
    assert binaries.find(SOURCE, names, "80") is None  # no sm_80 image in this build
    assert binaries.find(SOURCE, names + ["not_built<int>"], "90") is None
    assert binaries.find("reduction/reduce.cu", ["x"], "90") is None


def test_stale_or_switched_off_binaries_are_never_found(built, use, tmp_path, monkeypatch):
    out, names, idx, _ = built
    stale = dict(idx, tree_hash="0" * 64)  # built from other kernel sources
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
    get = loader.shipped(FakeModule, SOURCE, names[:3], "90")
    low = idx["modules"][SOURCE]["lowered"]
    assert get(names[1]) == ("function", FakeModule.loads[0], low[names[1]])
    again = loader.shipped(FakeModule, SOURCE, names[3:], "90")  # another module of the file
    assert again(names[-1])[2] == low[names[-1]]
    assert len(FakeModule.loads) == 1  # the file's binary is loaded once
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
        r"; compiling sparse/ell.cu instead",
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
    assert (tmp_path / "sorting__split.sm_80.cubin").read_bytes()[:4] == b"\x7fELF"
    cap = capsys.readouterr()
    assert "sorting/split.cu sm_80:" in cap.out and "instantiations of 1 files" in cap.err
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
    path, lowered = loader.compile_alone("reduction/finish.cu", name, "sm_90")
    assert path.parent == tmp_path / "cubin" and path.read_bytes()[:4] == b"\x7fELF"
    assert lowered.startswith("_Z") and "mean_divide" in lowered

    def no_compile(*a, **k):
        raise AssertionError("compiled again")

    monkeypatch.setattr(nvrtc, "compile_binary", no_compile)
    assert loader.compile_alone("reduction/finish.cu", name, "sm_90") == (path, lowered)
    monkeypatch.undo()
    monkeypatch.setenv("PRIMITIVES_CACHE_DIR", str(tmp_path))
    with pytest.raises(loader.KernelCompileError, match=r"compiling reduction/finish.cu failed"):
        loader.compile_alone("reduction/finish.cu", "mean_divide<no_such_type, double>", "sm_90")

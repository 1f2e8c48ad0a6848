"""The wheel with the kernel binaries, as ``python tools/build_wheel.py`` builds it (here with
the binaries of one small kernel source, ``--only``): it holds the images of each architecture
and an index that an install of the wheel reads as its own (the key of its kernel sources,
options and version), and the loader finds an image for each architecture of the device."""

import json
import os
import subprocess
import sys
import zipfile

import pytest

from primitives._core import binaries
from tools import build_wheel

SOURCE = "core/offsets.cu"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    assert build_wheel.main(["--out", str(out), "--only", SOURCE, "--jobs", "1", "--quiet"]) == 0
    (path,) = out.glob("primitives-*.whl")
    return path


def test_the_wheel_carries_the_binaries(wheel):
    with zipfile.ZipFile(wheel) as z:
        files = set(z.namelist())
        idx = json.loads(z.read("primitives/_bin/index.json"))
    assert idx["build_key"] == binaries.build_key() and idx["archs"] == list(binaries.ARCHS)
    assert list(idx["modules"]) == [SOURCE]
    stem = "core__offsets.0"
    assert {f for f in files if f.startswith("primitives/_bin/")} == {
        "primitives/_bin/index.json",
        f"primitives/_bin/{stem}.sm_80.cubin",
        f"primitives/_bin/{stem}.sm_90.cubin",
        f"primitives/_bin/{stem}.compute_90.ptx",
    }
    assert "primitives/kernels/core/offsets.cu" in files and "primitives/_core/loader.py" in files


def test_an_install_of_the_wheel_finds_its_binaries(wheel, tmp_path):
    """Installed elsewhere (its kernel sources in another folder), the wheel's index is current:
    sm_90 takes the sm_90 cubin, 8.x the sm_80 one, a newer GPU the PTX, 7.5 none."""
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target)]
        + [str(wheel)],
        check=True,
    )
    code = (
        "import json, primitives; from primitives._core import binaries, loader;"
        f"names = loader.registered_modules()[{SOURCE!r}];"
        "print(json.dumps([str(loader.kernels_root()), binaries.index() is not None] + "
        f"[(lambda f: f and sorted({{p.name for p, _ in f.values()}}))"
        f"(binaries.find({SOURCE!r}, names, cc)) for cc in ('90', '86', '100', '75')]))"
    )
    env = {k: v for k, v in os.environ.items() if k != "PRIMITIVES_KERNEL_BINARIES"}
    run = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(target)},
        capture_output=True,
        text=True,
        check=True,
    )
    root, current, sm90, sm86, sm100, sm75 = json.loads(run.stdout.strip().splitlines()[-1])
    assert root.startswith(str(target)) and current
    assert sm90 == ["core__offsets.0.sm_90.cubin"] and sm86 == ["core__offsets.0.sm_80.cubin"]
    assert sm100 == ["core__offsets.0.compute_90.ptx"] and sm75 is None

"""The asv benchmark suite, checked by asv itself: ``asv check`` passes, asv's own discovery finds
exactly the intended benchmarks (no shared base class), and every benchmark skips cleanly (asv's
``NotImplementedError``) where there is no GPU, or runs where there is one."""

import itertools
import json
import os
import pathlib
import subprocess
import sys

import pytest

from primitives._core import backend as _backend

from tests.conftest import load_benchmark

ASV = pathlib.Path(__file__).resolve().parent.parent / "asv_bench"
FAMILIES = {
    "Copy",
    "Reduction",
    "Scan",
    "Compaction",
    "SegmentedReduce",
    "Histogram",
    "Sort",
    "Searchsorted",
    "Spmv",
}

asv = pytest.importorskip("asv", reason="asv is part of the test extra: pip install -e .[test]")

DISCOVER = """
import json, sys
sys.path.insert(0, sys.argv[1])
from asv_runner.discovery import disc_benchmarks
print(json.dumps({b.name: [list(map(str, p)) for p in b.params] for b in disc_benchmarks(
    sys.argv[1] + "/benchmarks")}))
"""


def _env():
    env = dict(os.environ, PRIMITIVES_BACKEND=os.environ.get("PRIMITIVES_BACKEND", "auto"))
    # the package under test, for asv's subprocesses (asv drops PYTHONPATH)
    env["ASV_PYTHONPATH"] = os.pathsep.join(
        [str(ASV.parent)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    )
    return env


@pytest.fixture(scope="module")
def discovered():
    out = subprocess.run(
        [sys.executable, "-c", DISCOVER, str(ASV)],
        capture_output=True,
        text=True,
        env=_env(),
        cwd=ASV,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_config():
    conf = json.loads((ASV / "asv.conf.json").read_text())
    assert conf["version"] == 1 and conf["project"] == "primitives"
    assert (ASV / conf["repo"] / "pyproject.toml").is_file()
    assert "pythons" not in conf  # asv then uses the running interpreter's version
    # one wheel per commit: `asv run main^!` finds exactly one in its build cache
    assert any("pip wheel --no-deps" in c for c in conf["build_command"])
    assert conf["results_dir"] == "results"
    assert (ASV / conf["benchmark_dir"] / "__init__.py").is_file()


def test_asv_check():
    out = subprocess.run(
        [sys.executable, "-m", "asv", "check", "--python=same"],
        cwd=ASV,
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "No problems found" in out.stdout


def test_discovery(discovered):
    names = set(discovered)
    # no benchmark from the shared module, and no base class collected through an import
    assert not [n for n in names if "_common" in n or "_peers" in n or ".Timed." in n]
    classes = {n.split(".")[1] for n in names if n.startswith("history.")}
    assert classes == FAMILIES
    for cls in FAMILIES:
        for track in ("track_time_ms", "track_gbps"):
            assert f"history.{cls}.{track}" in names
    for mod in ("reduction", "scan", "sorting", "histograms", "sparse"):
        assert any(n.startswith(f"{mod}.") for n in names), mod
    # the peers are benchmarks of their own
    assert "'cub'" in discovered["history.Reduction.track_gbps"][0]
    assert "'cupy'" in discovered["history.Sort.track_time_ms"][0]
    assert "reduction.CubSum.track_gbps" in names


def _smallest(cls):
    return [p[0] for p in cls.params]


@pytest.mark.parametrize(
    "module",
    [
        "reduction",
        "scan",
        "sorting",
        "histograms",
        "sparse",
        "sets",
        "selection",
        "searching",
        "operators",
    ],
)
def test_setup_skips_without_cuda(module):
    if _backend.get_backend().is_cuda:
        pytest.skip("CUDA backend present: test_track_on_gpu runs the benchmarks instead")
    mod = load_benchmark(module)
    classes = [
        c
        for n, c in vars(mod).items()
        if isinstance(c, type) and not n.startswith("_") and c.__module__ == mod.__name__
    ]
    assert classes
    cache = mod._Module().setup_cache()
    for cls in classes:
        with pytest.raises(NotImplementedError, match="GPU benchmark|peer|cuda.compute"):
            cls().setup(cache, *_smallest(cls))


def test_history_skips_without_cuda():
    if _backend.get_backend().is_cuda:
        pytest.skip("CUDA backend present")
    mod = load_benchmark("history")
    cache = mod._History().setup_cache()
    for cls in (mod.Reduction, mod.Sort):
        with pytest.raises(NotImplementedError, match="GPU benchmark"):
            cls().setup(cache, *_smallest(cls))


@pytest.mark.gpu
def test_track_on_gpu():
    if not _backend.get_backend().is_cuda:
        pytest.skip("needs the CUDA backend")
    mod = load_benchmark("reduction")
    for cls, args in (
        (mod.Reduce, ("production", 2**20, "float32")),
        (mod.CupySum, (2**20, "float32")),
    ):
        cache = {(cls.__name__, args): cls()._measure_one(args)}
        b = cls()
        b.setup(cache, *args)
        assert b.track_time_ms(cache, *args) > 0
        assert b.track_gbps(cache, *args) > 0


@pytest.mark.gpu
def test_api_benchmarks_run_on_gpu():
    """The NumPy-API benchmarks (reduction.Api, scan.Api, histogram.Histogram2d) run clean at
    their full sizes on the GPU: every combination measured, none skipped or failed."""
    if not _backend.get_backend().is_cuda:
        pytest.skip("needs the CUDA backend")
    for module, name in (("reduction", "Api"), ("scan", "Api"), ("histograms", "Histogram2d")):
        cls = getattr(load_benchmark(module), name)
        for params in itertools.product(*cls.params):
            entry = cls()._measure_one(params)
            assert entry[0] == "ms" and entry[1] > 0 and entry[2] > 0, (name, params, entry)


def test_history_script():
    """tools/asv_history.sh parses, documents itself, and its commit list resolves here."""
    script = ASV.parent / "tools" / "asv_history.sh"
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
    out = subprocess.run(["bash", str(script), "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "--deadline" in out.stdout
    listed = [
        ln.split("#")[0].strip() for ln in (ASV / "history_commits.txt").read_text().splitlines()
    ]
    listed = [c for c in listed if c]
    assert len(listed) >= 15
    git = subprocess.run(
        ["git", "-C", str(ASV.parent), "rev-parse", "--verify", "-q", f"{listed[0]}^{{commit}}"],
        capture_output=True,
    )
    if git.returncode != 0:
        pytest.skip("no git history here (a copy of the tree)")
    for c in listed:
        rc = subprocess.run(
            ["git", "-C", str(ASV.parent), "rev-parse", "--verify", "-q", f"{c}^{{commit}}"],
            capture_output=True,
        ).returncode
        assert rc == 0, c

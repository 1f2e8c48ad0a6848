"""The tour (``python -m primitives``) verifies every variant and prints its table: by default a
quick tour (every variant checked on a small input, one workload per family timed), with
``--full`` the whole sweep."""

import csv
import io
import math
import re
import subprocess
import sys

import numpy as np
import pytest

import primitives as prim
from primitives import tour as _tour, reduction
from primitives._core import backend as _backend, registry as _registry
from primitives.testing import oracle as _oracle


@pytest.fixture(autouse=True)
def _one_process(monkeypatch):
    """The tours of these tests compile as they go (the default would start a worker process
    per CPU first, inside each pytest worker); --jobs is tested on its own below."""
    monkeypatch.setattr(_tour, "default_jobs", lambda gpu: 1)


_DEFAULT_JOBS = _tour.default_jobs  # the real one, before the fixture above replaces it


def test_default_jobs(monkeypatch):
    """One worker per CPU where kernels must be compiled (the emulator, or a GPU without
    shipped binaries), else 1."""
    import os

    from primitives._core import binaries

    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    assert _DEFAULT_JOBS(False) == 3
    monkeypatch.setattr(binaries, "index", lambda: None)
    assert _DEFAULT_JOBS(True) == 3
    monkeypatch.setattr(binaries, "index", lambda: {"modules": {}})
    assert _DEFAULT_JOBS(True) == 1


def _gpu():
    return _backend.get_backend().is_cuda


def _csv_rows(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert tuple(rows[0]) == _tour.CSV_COLUMNS
    return [dict(zip(rows[0], r)) for r in rows[1:]]


def test_tour_runs_and_verifies(capsys):
    assert _tour.main(["--log2n", "11"]) == 0
    out = capsys.readouterr().out
    assert "backend" in out
    assert ("measured copy bandwidth" in out) == _gpu()
    for v in reduction.VARIANTS:
        assert f"  {v} " in out or f" {v}," in out or out.rstrip().endswith(v) or f" {v}\n" in out
    assert "FAIL" not in out


def test_tour_reports_failure(monkeypatch, capsys):
    real = prim.reduce  # the tour calls the public function
    monkeypatch.setattr(prim, "reduce", lambda x, op, **kw: real(x, op, **kw) + 1)
    assert _tour.main(["--log2n", "8", "--family", "reduction"]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_quick_tour_checks_every_variant_and_times_one_workload_per_family(tmp_path, capsys):
    """The default checks the same contenders as --full (every section, every variant); it
    times one section per family, and --family (repeated) picks the families."""
    args = [
        "--log2n",
        "8",
        "--family",
        "compaction",
        "--family",
        "reduction",
        "--family",
        "histograms",
    ]
    assert _tour.main([*args, "--csv", str(tmp_path / "quick.csv")]) == 0
    out = capsys.readouterr().out
    assert _tour.main([*args, "--full", "--csv", str(tmp_path / "full.csv")]) == 0
    quick, full = _csv_rows(tmp_path / "quick.csv"), _csv_rows(tmp_path / "full.csv")
    key = lambda r: (r["family"], r["section"], r["contender"])  # noqa: E731
    timed_sections = {(r["family"], r["section"]) for r in quick if r["ms"]}
    # every row of --full, the timed rows checked twice; peers only where a section is timed
    assert set(map(key, quick)) == {
        key(r)
        for r in full
        if not _tour.is_peer(r["contender"]) or (r["family"], r["section"]) in timed_sections
    }
    assert {r["family"] for r in quick} == {"compaction", "reduction", "histograms"}
    assert all(r["ok"] == "1" for r in quick)
    timed = {(r["family"], r["section"]) for r in quick if r["ms"]}
    assert sorted(f for f, _ in timed) == ["compaction", "histograms", "reduction"]
    # the representative section times its quick_rows (the auto path) and the peers alone
    hist = [r["contender"] for r in quick if r["family"] == "histograms" and r["ms"]]
    assert [h for h in hist if not _tour.is_peer(h)] == [
        prim.histograms.auto_variant(256, np.uint8)
    ]
    assert {(r["family"], r["section"]) for r in quick} - timed  # the rest only checked
    assert all(r["gbs"] == r["copy_gbs"] == "" for r in quick if not r["ms"])
    assert "Checked against NumPy" in out and "Timed (one workload per family)" in out


def test_full_is_the_whole_sweep(tmp_path, capsys):
    """--full times every contender of every section of the family's tour module."""
    assert (
        _tour.main(
            ["--full", "--log2n", "8", "--family", "scan", "--csv", str(tmp_path / "full.csv")]
        )
        == 0
    )
    rows = _csv_rows(tmp_path / "full.csv")
    want = [
        (s.title, c.name)
        for s in _registry.family("scan").tour_sections(_gpu(), 8)
        for c in s.contenders()
    ]
    assert [(r["section"], r["contender"]) for r in rows] == want
    assert all(math.isfinite(float(r["ms"])) and float(r["ms"]) > 0 for r in rows)
    assert all(r["backend"] and r["device"] for r in rows)
    assert "Checked against NumPy" not in capsys.readouterr().out


def test_csv_to_stdout(capsys):
    """``--csv -``: the CSV alone on stdout (same columns), the tables on stderr, no bar."""
    assert _tour.main(["--log2n", "8", "--family", "compaction", "--csv", "-"]) == 0
    cap = capsys.readouterr()
    rows = list(csv.reader(io.StringIO(cap.out)))
    assert tuple(rows[0]) == _tour.CSV_COLUMNS
    ours = [r[2] for r in rows[1:] if not r[2].endswith("(peer)")]  # peers: on a GPU only
    assert ours == ["compact", "compact_indices"]
    assert "compaction: float32" in cap.err and "\r" not in cap.err


def test_a_family_by_its_earlier_name(capsys):
    """``--family sort`` (the sorting family's name before it took its package's) runs the
    sorting family, named so in the CSV; given twice under both names, it runs once."""
    assert (
        _tour.main(["--log2n", "8", "--family", "sort", "--family", "sorting", "--csv", "-"]) == 0
    )
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))[1:]
    assert rows and {r[0] for r in rows} == {"sorting"}
    titles = [r[1] for r in rows]
    assert len(set(titles)) == len(_registry.family("sort").tour_sections(_gpu(), 8))
    assert _registry.family("sort") is _registry.family("sorting")


@pytest.mark.skipif(_gpu(), reason="the emulator's output")
def test_emulator_output_has_no_copy_figures(capsys):
    """On the emulator the tables give times and checks only: no GB/s, % copy or copy rate."""
    assert _tour.main(["--log2n", "8", "--family", "reduction", "--family", "sorting"]) == 0
    out = capsys.readouterr().out
    assert "time ms" in out
    assert "% copy" not in out and "GB/s" not in out and "copy bandwidth" not in out


def test_failed_check_of_an_untimed_section_exits_nonzero(monkeypatch, capsys):
    """A wrong answer in a section that the quick tour only checks makes the exit status 1."""
    real = _oracle.reduce_matches
    monkeypatch.setattr(
        _oracle,
        "reduce_matches",
        lambda got, host, *a, **k: (
            (False, "wrong") if host.dtype == np.int32 else real(got, host, *a, **k)
        ),
    )
    assert _tour.main(["--log2n", "8", "--family", "reduction"]) == 1
    cap = capsys.readouterr()
    assert "FAIL  reduction: sum int32" in cap.out
    timed = cap.out.split("Timed (one workload per family)")[1]
    assert "FAIL" not in timed.split("checked")[0]
    # the int32 sums' rows alone fail: ours, and on a GPU the peer checked by the same oracle
    failed = re.findall(r"^  (.*)$", cap.err.split("disagree with the NumPy oracle:")[1], re.M)
    assert failed and all(f.startswith("reduction: sum int32") for f in failed)
    assert f"FAILED: {len(failed)} of " in cap.err


def test_progress_bar_off_when_not_a_tty():
    """Not on a terminal (a pipe, a file, CI's log): no progress output at all."""
    r = subprocess.run(
        [sys.executable, "-m", "primitives", "--log2n", "8", "--family", "segmented"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0 and r.stderr == ""
    assert "\r" not in r.stdout and "segmented_scan" in r.stdout


def test_progress_bar_on_a_terminal(monkeypatch, capsys):
    """On a terminal the bar (on stderr) runs and the tables on stdout are whole lines."""
    pytest.importorskip("tqdm")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert _tour.main(["--log2n", "8", "--family", "segmented"]) == 0
    cap = capsys.readouterr()
    assert "segmented_scan" in cap.err and re.search(r"\| (\d+)/\1 \[", cap.err)  # to the end
    assert "\r" not in cap.out and "segmented_reduce" in cap.out
    assert _tour.main(["--log2n", "8", "--family", "segmented", "--no-progress"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("args", [["--help"]])
def test_module_entry_point(args):
    r = subprocess.run([sys.executable, "-m", "primitives", *args], capture_output=True, text=True)
    assert r.returncode == 0 and "python -m primitives" in r.stdout and "--full" in r.stdout


def test_jobs_compile_first_in_worker_processes(tmp_path):
    """--jobs 2 compiles in two worker processes first; the rows are those of a plain run."""
    args = ["--log2n", "8", "--family", "compaction", "--family", "segmented", "--csv"]
    assert _tour.main(["--jobs", "2", *args, str(tmp_path / "a.csv")]) == 0
    assert _tour.main([*args, str(tmp_path / "b.csv")]) == 0
    key = lambda r: (r["family"], r["section"], r["contender"], r["ok"])  # noqa: E731
    assert [key(r) for r in _csv_rows(tmp_path / "a.csv")] == [
        key(r) for r in _csv_rows(tmp_path / "b.csv")
    ]


def test_plot_writes_the_figure(tmp_path, capsys, monkeypatch):
    """--plot PATH draws the run's timed rows (times on the emulator, GB/s on a GPU): one panel
    per timed section, variants and peers coloured apart."""
    pytest.importorskip("matplotlib")
    from primitives.tour import plot

    drawn = {}
    real = plot.draw_families

    def spy(families, rows, path, title=None):
        drawn.update(families=families, rows=rows, title=title)
        return real(families, rows, path, title=title)

    monkeypatch.setattr(plot, "draw_families", spy)
    path = tmp_path / "tour.png"
    assert (
        _tour.main(
            ["--log2n", "8", "--family", "scan", "--family", "compaction", "--plot", str(path)]
        )
        == 0
    )
    assert path.is_file() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"figure: {path}" in capsys.readouterr().out
    timed = [r for r in drawn["rows"] if r["ms"] != ""]
    assert {r["family"] for r in timed} == {"scan", "compaction"}
    gpu = _backend.get_backend().is_cuda
    assert all((r["gbs"] != "") == gpu for r in timed)
    assert plot.is_peer("cupy (peer)") and not plot.is_peer("decoupled_lookback")


def test_plot_needs_matplotlib(monkeypatch, capsys):
    """Without matplotlib, --plot is refused before anything runs."""
    import builtins

    real_import = builtins.__import__

    def no_mpl(name, *args, **kw):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError("no matplotlib here")
        return real_import(name, *args, **kw)

    monkeypatch.setattr(builtins, "__import__", no_mpl)
    with pytest.raises(SystemExit) as exc:
        _tour.main(["--plot", "x.png"])
    assert exc.value.code == 2 and "--plot needs matplotlib" in capsys.readouterr().err


def test_times_prints_every_section_and_the_total(capsys):
    """``--times``: one wall-time line per section (checked or timed) and the total."""
    assert _tour.main(["--log2n", "8", "--family", "compaction", "--times"]) == 0
    out = capsys.readouterr().out
    sections = len(_registry.family("compaction").tour_sections(_gpu(), 8))
    assert len(re.findall(r"^        \(\d+\.\d s\)$", out, flags=re.M)) == sections
    assert re.search(r"^sections took \d+\.\d s in all$", out, flags=re.M)
    assert _tour.main(["--log2n", "8", "--family", "compaction"]) == 0
    assert "took" not in capsys.readouterr().out

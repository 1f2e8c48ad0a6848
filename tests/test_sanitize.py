"""tools.sanitize on any machine: a stand-in sanitizer that writes a report in compute-sanitizer's
format and runs the command it wraps; on a GPU, the real one over small tests of the library's
kernels (the last tests below)."""

import os
import re
import stat
import subprocess
import sys
import textwrap

import pytest

from tools import sanitize

REPORT = """\
========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at void onesweep_pass<4, 0>(const unsigned int *, unsigned int *)+0x70
=========     by thread (232,0,0) in block (3,0,0)
=========     Address 0x7f0a2a000fa0 is out of bounds
=========
========= ERROR SUMMARY: 1 error
"""
#: racecheck's reports of a peer's kernels (as cuSPARSE's csrmv and CuPy's nonzero gave them)
PEERS = """\
========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at void cusparse::csrmv_v3_kernel<int>(int)+0x1b0
=========     and Read access at void cusparse::csrmv_v3_kernel<int>(int)+0x1c0 [4 hazards]
=========
========= Warning: Race reported between Read access at cupy_nonzero_kernel_incomplete_scan+0x460
=========     and Write access at cupy_nonzero_kernel_incomplete_scan+0x630 [512 hazards]
=========
========= RACECHECK SUMMARY: 2 hazards displayed (1 errors, 1 warnings)
"""
CLEAN = "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n"


def fake(tmp_path, report):
    """An executable that writes ``report`` to its --log-file (%p: its pid) and runs the rest,
    exiting with its status (as compute-sanitizer does without --error-exitcode)."""
    path = tmp_path / "compute-sanitizer"
    path.write_text(
        textwrap.dedent(
            f"""\
            #!{sys.executable}
            import os, subprocess, sys
            a = sys.argv[1:]
            log = a[a.index("--log-file") + 1].replace("%p", str(os.getpid()))
            open(log, "w").write({report!r})
            i = a.index({sys.executable!r})
            sys.exit(subprocess.run(a[i:]).returncode)
            """
        )
    )
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


@pytest.fixture
def passing_test(tmp_path):
    """A test that passes in a run of tools.sanitize: the variable set, the plugin loaded."""
    t = tmp_path / "test_one.py"
    t.write_text(
        "import os\n\n"
        "def test_env(request):\n"
        "    assert os.environ['PRIMITIVES_SANITIZE'] == '1'\n"
        "    assert request.config.pluginmanager.has_plugin('tools.sanitize')\n"
    )
    return str(t)


def test_command_names_the_tool_the_logs_and_pytest(tmp_path):
    cmd = sanitize.command("/x/compute-sanitizer", "racecheck", ["-k", "sort"], str(tmp_path))
    assert cmd[:3] == ["/x/compute-sanitizer", "--tool", "racecheck"]
    assert "--target-processes" in cmd and cmd[cmd.index("--target-processes") + 1] == "all"
    assert cmd[cmd.index("--log-file") + 1] == os.path.join(str(tmp_path), "sanitizer.%p.log")
    assert "--error-exitcode" not in cmd  # the run's own status; 99 from the library's reports
    assert cmd[-6:] == ["-p", "no:cacheprovider", "-p", "tools.sanitize", "-k", "sort"]


def test_an_unknown_tool_is_refused():
    with pytest.raises(SystemExit, match="--tool must be one of memcheck.*got 'leakcheck'"):
        sanitize.command("/x/compute-sanitizer", "leakcheck", [], "/tmp")


def test_a_missing_sanitizer_says_where_it_looked(monkeypatch, tmp_path):
    monkeypatch.delenv("COMPUTE_SANITIZER", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    monkeypatch.setattr(sanitize, "PLACES", ("{cuda}/compute-sanitizer/compute-sanitizer",))
    with pytest.raises(SystemExit, match="no compute-sanitizer on PATH.*toolkit"):
        sanitize.find()
    with pytest.raises(SystemExit, match="is not an executable compute-sanitizer"):
        sanitize.find(str(tmp_path / "nothing"))


def test_the_default_run_is_the_tour():
    assert sanitize.parse([])[-2:] == (True, sanitize.TOUR)
    assert sanitize.parse(["--tool", "racecheck"])[-2:] == (True, sanitize.TOUR)
    tool, path, keep, logs, tour, rest = sanitize.parse(
        ["--tool", "synccheck", "--sanitizer", "/s", "--keep-pool", "--logs", "d", "-x", "t.py"]
    )
    assert (tool, path, keep, logs, tour) == ("synccheck", "/s", True, "d", False)
    assert rest == ["-x", "t.py"]
    assert sanitize.parse(["--tour"])[-2:] == (True, sanitize.TOUR)
    # the tour's arguments follow the defaults (small sizes, no progress bar; a later --log2n wins)
    assert sanitize.parse(["--tour", "--family", "sorting"])[-1] == [
        *sanitize.TOUR,
        "--family",
        "sorting",
    ]
    assert sanitize.parse(["--tour", "--log2n", "20"])[-1][-2:] == ["--log2n", "20"]


def test_the_tour_runs_in_a_process_that_turns_the_pool_off(tmp_path):
    cmd = sanitize.command("/s", "memcheck", sanitize.TOUR, str(tmp_path), tour=True)
    assert cmd[-len(sanitize.TOUR) - 3 :] == [
        "-m",
        "tools.sanitize",
        "--inner-tour",
        *sanitize.TOUR,
    ]


def test_reports_are_first_lines_with_their_kernels():
    assert sanitize.reports(REPORT) == [
        ("Invalid __global__ write of size 4 bytes", "onesweep_pass"),
        ("ERROR SUMMARY: 1 error", None),
    ]
    assert sanitize.reports(CLEAN) == []
    assert [k for _, k in sanitize.reports(PEERS)] == [
        "csrmv_v3_kernel",
        "cupy_nonzero_kernel_incomplete_scan",
        None,
    ]


def test_the_library_kernels_are_the_loader_s_registry_by_template_name():
    """Every kernel source's kernels (the loader's registry, candidates and the timing's
    hold_stream included), by their templates' names; the peers' kernels are not among them."""
    import primitives  # noqa: F401  (every family registers its kernels)
    from primitives._core import loader

    ours = sanitize.library_kernels()
    for name in ("onesweep_pass", "search_cached", "search_bucket", "nan_to", "hold_stream"):
        assert name in ours, name
    assert not ours & {"csrmv_v3_kernel", "cupy_nonzero_kernel_incomplete_scan"}
    assert all("<" not in k and k.isidentifier() for k in ours)
    # every kernel source file is a module of the registry: none of its kernels is missed
    root = loader.kernels_root()
    sources = {p.relative_to(root).as_posix() for p in root.rglob("*.cu")}
    assert set(loader.registered_modules(candidates=True)) == sources


def test_reports_split_into_the_librarys_and_the_peers():
    ours = sanitize.library_kernels()
    mine, peers = sanitize.split(sanitize.reports(REPORT + PEERS), ours)
    assert [k for _, k in mine] == ["onesweep_pass"]
    assert len(peers) == 2
    # a summary counting errors with no report beside it (the print limit reached) is the
    # library's until shown otherwise
    only = [("ERROR SUMMARY: 3 errors", None)]
    assert sanitize.split(only, ours) == (only, [])


def test_a_clean_run_passes_with_the_pool_off(tmp_path, passing_test, capfd):
    rc = sanitize.main(["--sanitizer", fake(tmp_path, CLEAN), "-q", passing_test])
    assert rc == 0
    out = capfd.readouterr().out
    assert "1 passed" in out and "sanitize (memcheck): 0 reports in the library's kernels" in out


def test_a_report_fails_the_run_though_the_tests_pass(tmp_path, passing_test, capfd):
    logs = tmp_path / "logs"
    rc = sanitize.main(
        ["--sanitizer", fake(tmp_path, REPORT), "--logs", str(logs), "-q", passing_test]
    )
    out = capfd.readouterr().out
    assert rc == sanitize.ERROR_EXIT
    assert "1 passed" in out and "sanitize (memcheck): 1 report in the library's kernels:" in out
    assert "Invalid __global__ write of size 4 bytes (in onesweep_pass)" in out
    assert len(os.listdir(logs)) == 1


def test_the_peers_reports_are_shown_but_do_not_fail_the_run(tmp_path, passing_test, capfd):
    rc = sanitize.main(["--sanitizer", fake(tmp_path, PEERS), "--tool", "racecheck", passing_test])
    out = capfd.readouterr().out
    assert rc == 0
    assert "0 reports in the library's kernels" in out
    assert "2 reports in other kernels (CuPy, cuSPARSE, CUB), not counted" in out


def test_a_failing_test_fails_the_run_beside_the_peers_reports(tmp_path, capfd):
    t = tmp_path / "test_fails.py"
    t.write_text("def test_no():\n    assert False\n")
    rc = sanitize.main(["--sanitizer", fake(tmp_path, PEERS), "--tool", "racecheck", str(t)])
    assert rc == 1  # pytest's: some test failed
    assert "1 failed" in capfd.readouterr().out


def test_keep_pool_leaves_the_pool_on(monkeypatch):
    monkeypatch.setenv("PRIMITIVES_SANITIZE", "1")
    assert "PRIMITIVES_SANITIZE" not in sanitize.environment(keep_pool=True)
    assert sanitize.environment(base={})["PRIMITIVES_SANITIZE"] == "1"


OOB = """\
import numpy as np
import primitives as prim
from primitives._core import backend as _backend
from primitives.statistics._kernels import nan_to_kernel


def test_a_clean_call():
    assert float(prim.sum(_backend.get_backend().xp.ones(1000, np.float32))) == 1000.0


def test_searches_through_the_shared_tree():
    # small sizes: the tree has absent nodes (n not 2^k - 1) and 16-byte vectors over entry 0
    a = np.sort(np.random.default_rng(0).random(1000, dtype=np.float32))
    v = np.random.default_rng(1).random(300, dtype=np.float32)
    for variant in ("cached", "bucketed"):
        assert (prim.searchsorted(a, v, variant=variant) == np.searchsorted(a, v)).all()


def test_a_library_kernel_one_element_past_its_arrays():
    cp = _backend.get_backend().xp
    a, out = cp.zeros(1000, np.uint32), cp.empty(1000, np.uint32)
    nan_to_kernel(np.float32)((4,), (256,), (a, np.int64(1001), np.uint32(0), out))
    try:  # memcheck stops the kernel at the bad access: the launch fails
        cp.cuda.runtime.deviceSynchronize()
    except Exception:
        pass
"""


def _sanitized(tmp_path, on_gpu, *select, tool="memcheck"):
    """tools.sanitize's ``tool`` over OOB's tests ``select`` (a GPU with compute-sanitizer only)."""
    if not on_gpu:
        pytest.skip("compute-sanitizer runs on a GPU")
    try:
        sanitizer = sanitize.find()
    except SystemExit as exc:
        pytest.skip(str(exc))
    t = tmp_path / "test_oob.py"
    t.write_text(OOB)
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    args = [str(t) + "::" + name for name in select]
    run = subprocess.run(
        [sys.executable, "-m", "tools.sanitize", "--sanitizer", sanitizer, "--tool", tool]
        + ["-q", "-n", "0", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return run.returncode, run.stdout + run.stderr


def test_memcheck_finds_a_library_kernel_past_its_array(tmp_path, on_gpu):
    """One of the library's kernels told one element more than its arrays hold is reported (CuPy's
    pool off, so the element past the end is outside any allocation) and fails the run, though its
    test passes."""
    rc, out = _sanitized(tmp_path, on_gpu, "test_a_library_kernel_one_element_past_its_arrays")
    assert rc == sanitize.ERROR_EXIT, out
    assert "1 passed" in out, out
    assert re.search(r"Invalid __global__ read of size 4 bytes \(in nan_to\)", out), out


def test_memcheck_passes_a_clean_call(tmp_path, on_gpu):
    rc, out = _sanitized(tmp_path, on_gpu, "test_a_clean_call")
    assert rc == 0, out
    assert "1 passed" in out and "0 reports in the library's kernels" in out, out


def test_initcheck_passes_the_searches_through_the_shared_tree(tmp_path, on_gpu):
    """The cached and bucketed searches copy the tree of splitters into shared memory in 16-byte
    vectors, entry 0 and the absent nodes' entries with them: initcheck reported those reads
    (search_cached, search_bucket) while the plan's tree was left unwritten there."""
    rc, out = _sanitized(
        tmp_path, on_gpu, "test_searches_through_the_shared_tree", tool="initcheck"
    )
    assert rc == 0, out
    assert "1 passed" in out and "0 reports in the library's kernels" in out, out

"""The probes behind the zero-wait figures run on the emulator too (tools/probes/)."""

import math
import re

import pytest

from primitives._core import registry as _registry
from tools.probes import small_calls


def test_small_calls_has_a_row_for_every_public_function():
    names = [n for fam in _registry.FAMILIES for n in fam.functions]
    assert set(names) <= set(small_calls.CALLS)


def test_small_calls_times_every_row_on_the_backend():
    rows = small_calls.run(n=1000, rounds=1, repeat=1)
    assert [r[0] for r in rows] == list(small_calls.CALLS)
    assert all(math.isfinite(ours) and ours > 0 for _, ours, _ in rows)
    text = small_calls.table(rows, 1000, "the emulator")
    assert "| `sort` |" in text and "| `spmv` |" in text


def test_small_calls_refuses_a_registry_without_rows(monkeypatch, capsys):
    monkeypatch.delitem(small_calls.CALLS, "sort")
    assert small_calls.main(["--n", "1000"]) == 2
    assert "no row for ['sort']" in capsys.readouterr().err


def test_first_call_has_a_row_for_every_public_function():
    from tools.probes import first_call

    names = [n for fam in _registry.FAMILIES for n in fam.functions]
    assert set(names) <= set(first_call.CALLS)


def _first_calls():
    from tools.probes import first_call

    small = [(name, 1 << 12) for name in first_call.public_functions()]
    return small + [(name, 1 << 20) for name in SIZED]


#: the functions whose kernels at 2^20 elements (the first-call figures' size) differ from
#: those at 2^12
SIZED = ["topk", "partition", "argpartition", "quantile", "median", "unique", "searchsorted"]


@pytest.mark.parametrize("name,n", _first_calls())
def test_first_calls_ask_for_their_kernels_at_once(name, n):
    """A public function's first call asks for the kernels it launches before it waits for any
    (they compile side by side where kernels compile on first use), but where a later kernel is
    chosen from what an earlier one found (first_call.STEPS)."""
    from tools.probes import first_call

    steps, kernels = first_call.compile_steps(name, n)
    assert kernels, name
    assert steps <= first_call.STEPS.get(name, 1), (name, steps, kernels)


def test_first_call_profile_names_the_call_path():
    """--profile: the child's first call under cProfile, its costliest functions returned."""
    from tools.probes import first_call

    res, err = first_call.first_call("sum", n=1024, profile=True)
    assert err is None and res["s"] > 0
    assert "cumulative" in res["profile"] and "entry.py" in res["profile"]


def test_first_call_trace_lines_and_summary():
    """--trace: one line a compile in start order, then their count, seconds and the end of the
    last fast one (the call's wait)."""
    from tools.probes import first_call

    text = first_call.trace(
        [
            ["sorting/onesweep.cu", "b<int>", True, 0.05, 0.30],
            ["sorting/onesweep.cu", "a<int>", True, 0.01, 0.20],
            ["sorting/onesweep.cu", "a<int>", False, 0.21, 0.90],
        ]
    ).splitlines()
    assert [line.split()[:3] for line in text[:3]] == [
        ["0.010", "0.200", "fast"],
        ["0.050", "0.300", "fast"],
        ["0.210", "0.900", "default"],
    ]
    assert text[3].strip() == (
        "3 compiles (2 fast), 1.130 s summed, the last fast one ended at 0.300 s"
    )
    assert first_call.trace([]).strip().startswith("0 compiles")


def test_figures_override_reads_the_default_selector():
    """tools.tune writes a family's default policy as selector "None": it means None."""
    from tools.figures.__main__ import _override

    assert _override("search:None:items=4") == ("search", None, {"items": 4})
    assert _override("scan:axis:unroll=8") == ("scan", "axis", {"unroll": 8})


def test_partition_paths_checks_both_paths(capsys):
    """The probe behind the partition policy's sort_share: every kth, both paths, checked."""
    from tools.probes import partition_paths

    rows = partition_paths.run(1 << 14)
    assert [k for k, _ in rows] == [5, 1000, 16, 1638, 8192]
    for _, t in rows:
        assert {"partition policy", "partition ranks", "argpartition ranks"} <= set(t)
        assert {"partition row bound 4", "argpartition row bound 4"} <= set(t)


def test_pairs_tiles_checks_every_tile(capsys):
    """tools.probes.pairs_tiles: the pairs and argsort under every tile of the sweep, each
    checked against a stable argsort (on the emulator: the checks alone)."""
    from tools.probes import pairs_tiles

    rows = pairs_tiles.run(3000, ["uniform uint32", "256 distinct"])
    assert [name for name, _ in rows] == ["uniform uint32", "256 distinct"]
    for _, t in rows:
        assert {
            f"{op} {label}" for label in pairs_tiles.TILES for op in ("pairs", "argsort")
        } <= set(t)


def test_recurrence_probe_checks_the_scan(capsys):
    """tools.probes.recurrence checks the 2-tuple scan against a float64 sequential recurrence
    (on the emulator: the check alone)."""
    from tools.probes import recurrence

    recurrence.main(["10"])
    out = capsys.readouterr().out
    err = float(out.split("float64: ")[1].split()[0])
    assert err < 1e-5, out


def test_search_paths_times_every_launch():
    """tools.probes.search_paths: each order of the queries checked, every launch of the indexed
    plan timed; sorted queries all near, random ones not."""
    from tools.probes import search_paths

    rows = search_paths.run(1 << 16, 1 << 14)  # a of 256 KiB: an index above it
    assert list(rows) == ["sorted", "nearly sorted", "random"]
    for _, t in rows.values():
        assert {"public", "plan", "ranges", "search", "near", "build"} <= set(t)
    assert rows["sorted"][0] == 1.0 and rows["random"][0] < 0.5


def test_unique_paths_checks_both_variants():
    """tools.probes.unique_paths: count and rle checked against each other, every range up to
    the number of keys timed."""
    from tools.probes import unique_paths

    rows = unique_paths.run(1 << 16)
    assert list(rows) == [16]
    assert set(rows[16]) == {"count", "rle"}


def test_wide_bins_checks_every_variant():
    """tools.probes.wide_bins: the wide-bin variants checked against each other at every bin
    count, bincount too, and unique's counts under both policies checked against the sort."""
    from tools.probes import wide_bins

    rows = wide_bins.histograms(1 << 12)
    assert list(rows) == [1 << b for b in (16, 17, 18, 20, 22, 24)]
    assert all(set(t) == set(wide_bins.VARIANTS) for t in rows.values())
    rows = wide_bins.histograms(1 << 12, True, ("partial_privatized", "bucketed"))
    assert all(set(t) == {"partial_privatized", "bucketed"} for t in rows.values())
    assert len(wide_bins.breakdown(1 << 12)) == 12
    rules = wide_bins.edge_rules(1 << 12)
    assert all(set(t) == set(wide_bins.EDGE_RULES) for t in rules.values())
    k = wide_bins.keys(1 << 12)
    assert set(wide_bins.bincounts(k)) == set(wide_bins.VARIANTS)
    assert list(wide_bins.uniques(k)) == list(wide_bins.UNIQUE_RUNS)


def test_timeline_stamps_still_find_their_kernel_text(monkeypatch):
    """tools.probes.timeline stamps the onesweep kernels by text edits (GPU only): each edit's
    text must still occur exactly once in kernels/, or the probe stops on the GPU."""
    import importlib
    import sys
    import types

    from primitives._core import loader as _loader

    try:
        import cupy  # noqa: F401
    except ImportError:  # the module is read here, not run: a stand-in for its imports
        monkeypatch.setitem(sys.modules, "cupy", types.ModuleType("cupy"))
        for name in ("tools._patched", "tools.probes.timeline"):
            monkeypatch.delitem(sys.modules, name, raising=False)
            monkeypatch.setitem(sys.modules, name, None)  # restored to absent afterwards
            monkeypatch.delitem(sys.modules, name)
    timeline = importlib.import_module("tools.probes.timeline")
    for rel, pairs in timeline.EDITS.items():
        text = (_loader.kernels_root() / rel).read_text()
        for old, _ in pairs:
            assert text.count(old) == 1, (rel, old)


_PTXAS_LOG = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z1aPi' for 'sm_90'
ptxas info    : Function properties for _Z1aPi
    144 bytes stack frame, 140 bytes spill stores, 148 bytes spill loads
ptxas info    : Used 128 registers, used 1 barriers, 144 bytes cumulative stack size
ptxas info    : Compiling entry function '_Z1bPi' for 'sm_90'
ptxas info    : Function properties for _Z6calleev
    8 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
ptxas info    : Function properties for _Z1bPi
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 32 registers, used 0 barriers
"""


def test_spills_reads_each_kernel_of_the_ptxas_log():
    from tools.probes import spills

    got = spills.parse(_PTXAS_LOG, {"a<int>": "_Z1aPi", "b<int>": "_Z1bPi"})
    assert got == {"a<int>": (128, 140, 148), "b<int>": (32, 0, 0)}


def test_spills_compiles_a_kernel_file(capsys):
    from tools.probes import spills

    if spills.ptxas() is None:
        pytest.skip("no CUDA toolkit's ptxas on this machine")
    assert spills.main(["core/offsets.cu", "--all"]) == 0
    out = capsys.readouterr().out
    assert "core/offsets.cu: 1 kernels, 0 spilling" in out
    assert re.search(r"offsets_stats<long long>: \d+ registers, 0 bytes spill stores", out)
    assert spills.main(["no/such.cu"]) == 2
    assert "no kernels registered in ['no/such.cu']" in capsys.readouterr().err

"""CuPy's own test files for the functions this library has, run with their calls routed to
the library: CuPy's tests compare ``cupy.X`` (and ``a.X()`` of CuPy arrays) against NumPy, so
with the calls routed they compare this library against NumPy, on CuPy's own cases.

    python -m tools.parity.cupy_tests --cupy-tests PATH [--out DIR] [-n 16] [FILE ...]

``PATH`` is the ``tests/`` folder of a CuPy source tree of the installed CuPy's version (for
CuPy 14.2.0: ``git archive v14.2.0 tests`` of CuPy's repository; nothing of it is kept here).
The files are rewritten by :mod:`tools.parity.rewrite` into ``DIR``, run with pytest on the
GPU (CuPy's tests need CuPy), and summarized: per file, the tests whose calls reached this
library (*routed*), how many passed, and the most common first lines of the failures. The
summary goes to ``DIR/summary.md`` and the per-test outcomes to ``DIR/results.json``.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
import shutil
import subprocess
import sys

from .rewrite import internal_tests, rewrite

#: tests of the bar that assert a restriction only CuPy has (NumPy accepts the call): the test
#: name, and why; listed in the summary, not counted
CUPY_ONLY = {
    "TestHistogramddErrors.test_histogramdd_disallow_arraylike_bins": (
        "NumPy's histogramdd takes a list of edge lists"
    ),
    "TestCumsum.test_cumsum_arraylike": "NumPy's cumsum takes a tuple",
    "TestCumsum.test_cumsum_numpy_array": "NumPy's cumsum takes a NumPy array",
    "TestCumprod.test_cumprod_arraylike": "NumPy's cumprod takes a tuple",
    "TestCumprod.test_cumprod_numpy_array": "NumPy's cumprod takes a NumPy array",
    "TestSort.test_sort_non_contiguous": "NumPy's ndarray.sort sorts a strided view in place",
    "TestLexsort.test_lexsort_three_or_more_dim": "NumPy's lexsort takes keys of any dimension",
    "TestAverage.test_returned": (
        "CuPy's average turns NumPy arrays into CuPy's; NumPy's (and this library's) result of "
        "NumPy input is NumPy's"
    ),
    "TestPartition.test_partition_non_contiguous": (
        "NumPy's ndarray.partition partitions a strided view in place"
    ),
}

#: tests of the bar that assert what NumPy documents as undefined: the test name, and why;
#: listed in the summary, not counted
UNDEFINED = {
    "TestQuantileMethods.test_quantile_overwrite": (
        "asserts that overwrite_input=True changed the input, whose contents NumPy documents as "
        "undefined after the call; this library leaves every input as it was"
    ),
    "TestQuantileMethods.test_percentile_overwrite": (
        "asserts that overwrite_input=True changed the input, whose contents NumPy documents as "
        "undefined after the call; this library leaves every input as it was"
    ),
}

#: the test files of the parity bar (CuPy's paths under tests/cupy_tests)
FILES = (
    "math_tests/test_sumprod.py",
    "core_tests/test_ndarray_reduction.py",
    "sorting_tests/test_search.py",
    "sorting_tests/test_sort.py",
    "sorting_tests/test_count.py",
    "statistics_tests/test_histogram.py",
    "statistics_tests/test_meanvar.py",
    "statistics_tests/test_order.py",
    "logic_tests/test_truth.py",
    "manipulation_tests/test_add_remove.py",
)
ROOT = pathlib.Path(__file__).resolve().parents[2]


def prepare(src: pathlib.Path, out: pathlib.Path, files) -> list[pathlib.Path]:
    """Rewrite ``files`` of CuPy's ``src`` (its tests/ folder) into ``out``, with the package
    ``__init__`` files and the top conftest they need; ``out/excluded.json`` names the tests
    that assert CuPy's internals or restrictions (:func:`tools.parity.rewrite.internal_tests`,
    :data:`CUPY_ONLY`)."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    shutil.copy(src / "conftest.py", out / "conftest.py")
    done = []
    excluded: dict[str, str] = {}
    for rel in files:
        path = pathlib.Path("cupy_tests") / rel
        for parent in reversed(path.parents[:-1]):
            init = src / parent / "__init__.py"
            (out / parent).mkdir(parents=True, exist_ok=True)
            if init.exists():
                shutil.copy(init, out / parent / "__init__.py")
        text = (src / path).read_text()
        (out / path).write_text(rewrite(text))
        done.append(out / path)
        for name in internal_tests(text):
            excluded[name] = "asserts CuPy's internals (its CUB/Thrust paths)"
    excluded.update(CUPY_ONLY)
    excluded.update(UNDEFINED)
    (out / "excluded.json").write_text(json.dumps(excluded, indent=1))
    return done


def _test_name(nodeid: str) -> tuple[str, str]:
    """(``Class.test``, ``Class``) of a node id, parameters and CuPy's parameterized class
    suffixes (``_param_0_{...}``) left out."""
    parts = nodeid.split("::")[1:]
    parts = [p.split("[")[0] for p in parts]
    parts = [p.split("_param_")[0] for p in parts]
    return ".".join(parts), parts[0] if parts else ""


def summarize(results: dict, excluded: dict | None = None) -> str:
    excluded = excluded or {}
    per_file: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    errors: collections.Counter = collections.Counter()
    left_out: collections.Counter = collections.Counter()
    for nodeid, r in results.items():
        name = nodeid.split("::")[0].split("_tests/", 1)[-1]
        c = per_file[name]
        c["tests"] += 1
        test, cls = _test_name(nodeid)
        why = excluded.get(test) or excluded.get(cls)
        if r["routed"] and why:
            left_out[f"{test}: {why}"] += 1
            c["excluded"] += 1
            continue
        if r["routed"]:
            c["routed"] += 1
            c[r["outcome"]] += 1
            if r["outcome"] == "failed":
                errors[r["error"]] += 1
    lines = [
        "| file | tests | routed | passed | failed | skipped | left out |",
        "|---|---|---|---|---|---|---|",
    ]
    total: collections.Counter = collections.Counter()
    for name in sorted(per_file):
        c = per_file[name]
        total.update(c)
        lines.append(
            f"| {name} | {c['tests']} | {c['routed']} | {c['passed']} | {c['failed']} "
            f"| {c['skipped']} | {c['excluded']} |"
        )
    lines.append(
        f"| **all** | {total['tests']} | {total['routed']} | {total['passed']} "
        f"| {total['failed']} | {total['skipped']} | {total['excluded']} |"
    )
    lines += ["", "Most common failures of routed tests:", ""]
    lines += [f"- {n} x `{e}`" for e, n in errors.most_common(40)]
    if left_out:
        lines += ["", "Routed tests left out (they test the other library, not the function):", ""]
        lines += [f"- {n} x {e}" for e, n in sorted(left_out.items())]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cupy-tests", required=True, type=pathlib.Path, help="CuPy's tests/ folder")
    p.add_argument("--out", type=pathlib.Path, default=pathlib.Path("parity-cupy"))
    p.add_argument("-n", default="0", help="pytest-xdist workers (0: none)")
    p.add_argument("files", nargs="*", default=FILES)
    a = p.parse_args(argv)
    out = a.out.resolve()
    paths = prepare(a.cupy_tests.resolve(), out, a.files)
    env = dict(os.environ, PRIMITIVES_PARITY_JSON=str(out / "results.json"))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "tools.parity.plugin",
        "-p",
        "no:cacheprovider",
    ]
    cmd += ["--rootdir", str(out), "-o", "addopts=", "--tb=short"]
    if a.n != "0":
        cmd += ["-n", a.n]
    subprocess.run(cmd + [str(x) for x in paths], cwd=out, env=env, check=False)
    results = json.loads((out / "results.json").read_text())
    text = summarize(results, json.loads((out / "excluded.json").read_text()))
    (out / "summary.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

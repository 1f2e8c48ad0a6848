"""NumPy's own test files for the functions this library has, run with their calls routed to
the library (``PRIMITIVES_PARITY_ROUTE=numpy``, see :mod:`tools.parity.route`): NumPy's tests
of ``numpy.sort``, ``numpy.median``, ``numpy.unique``... then test this library's functions on
NumPy arrays, on NumPy's own cases.

    python -m tools.parity.numpy_tests [--out DIR] [-n 16] [-k EXPR] [FILE ...]

The files are read from the installed NumPy (its ``tests`` folders; the library's results are
compared with that NumPy's semantics), rewritten by :mod:`tools.parity.rewrite` into ``DIR``
and run with pytest; the summary (per file: tests routed, passed, failed, the most common
failures) goes to ``DIR/summary.md``. Runs on the GPU or on the emulator (slower).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np

from .cupy_tests import ROOT, summarize
from .rewrite import rewrite

#: NumPy tests of the bar that assert what holds for NumPy's internals only: the test name, and
#: why; listed in the summary, not counted
NUMPY_ONLY = {
    "TestBincount.test_dtype_reference_leaks": (
        "counts references to NumPy's dtype singletons from before the first call, which the "
        "library's plan caches then hold (bounded: tests/core/test_references.py checks that "
        "repeated calls add none)"
    )
}

#: NumPy's test files of the functions this library has (paths under the numpy package)
FILES = (
    "_core/tests/test_multiarray.py",
    "_core/tests/test_numeric.py",
    "lib/tests/test_function_base.py",
    "lib/tests/test_nanfunctions.py",
    "lib/tests/test_histograms.py",
    "lib/tests/test_arraysetops.py",
)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=pathlib.Path, default=pathlib.Path("parity-numpy"))
    p.add_argument("-n", default="0", help="pytest-xdist workers (0: none)")
    p.add_argument("-k", default=None, help="pytest's -k expression")
    p.add_argument("files", nargs="*", default=FILES)
    a = p.parse_args(argv)
    src = pathlib.Path(np.__file__).parent
    out = a.out.resolve()
    if out.exists():
        shutil.rmtree(out)
    paths = []
    for rel in a.files:
        dest = out / "numpy_tests" / rel.replace("/tests/", "_")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(rewrite((src / rel).read_text()))
        paths.append(dest)
    env = dict(os.environ, PRIMITIVES_PARITY_JSON=str(out / "results.json"))
    env["PRIMITIVES_PARITY_ROUTE"] = "numpy"
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
    cmd += [
        "--rootdir",
        str(out),
        "-o",
        "addopts=",
        "--tb=short",
        "-W",
        "ignore::DeprecationWarning",
    ]
    if a.n != "0":
        cmd += ["-n", a.n]
    if a.k:
        cmd += ["-k", a.k]
    subprocess.run(cmd + [str(x) for x in paths], cwd=out, env=env, check=False)
    results = json.loads((out / "results.json").read_text())
    text = summarize(results, NUMPY_ONLY)
    (out / "summary.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

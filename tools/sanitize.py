"""Run tests under NVIDIA's compute-sanitizer (GPU only).

    python -m tools.sanitize [--tool memcheck|racecheck|synccheck|initcheck]
        [--sanitizer PATH] [--keep-pool] [--logs DIR] [pytest arguments ... | --tour [tour args]]

Runs ``python -m pytest`` with the given arguments, or with ``--tour`` (or no arguments) the tour
(``python -m primitives``: every variant of every family checked against NumPy, and its peers
run; its arguments follow ``--log2n 12 --no-progress --jobs 1``, so that a later ``--log2n``
wins), under ``compute-sanitizer --tool TOOL``, every process of the run checked, each
process's report in a log of its own (``--logs DIR`` keeps them; else a temporary folder).
After the run's own output it prints the reports, one line per distinct report: first those
in the library's kernels (the loader's registry of them, :func:`library_kernels`), then those in
other kernels (the peers': CuPy's, cuSPARSE's, CUB's), which are shown and not counted. The
exit status is the run's, or ``ERROR_EXIT`` (99) where the library's kernels have a report,
whatever the run said.

- memcheck: out-of-bounds and misaligned global and shared accesses, and launch errors. CuPy's
  memory pool hands out parts of larger blocks, where memcheck sees only the block: under this
  tool the pool is off (``PRIMITIVES_SANITIZE``: this module, pytest's plugin in the run, and
  the tour's process turn it off), so every array is a cudaMalloc of its own and a read or write
  past its end is reported. ``--keep-pool`` keeps the pool.
- racecheck: shared-memory hazards between threads of a block (a missing ``__syncthreads``).
- synccheck: barriers in divergent code, and ``__syncwarp``/shuffle masks naming threads that do
  not take part.
- initcheck: reads of global memory no one wrote.

The sanitizer is found at ``--sanitizer``, ``$COMPUTE_SANITIZER``, on ``PATH``, in the CUDA
toolkit (``$CUDA_HOME/compute-sanitizer``, ``/usr/local/cuda/compute-sanitizer``) or where
Debian's ``nvidia-cuda-toolkit`` (non-free) puts it (``/usr/lib/nvidia-cuda-toolkit``).
The tour is the broad run: on an H100 with its kernels compiled, the whole tour took 30 s under
memcheck. Run pytest on a folder or a ``-k`` selection and serially (``-n 0``): under the
sanitizer, pytest-xdist's workers had not started after 75 s.
"""

import argparse
import os
import re
import runpy
import subprocess
import sys
import tempfile
from contextlib import nullcontext

from tools import _toolkit

TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
ERROR_EXIT = 99
#: reports printed per process: enough that the peers' (cuSPARSE's csrmv race reports come by the
#: hundred) do not hide the library's
PRINT_LIMIT = 100000
PLACES = (
    "{cuda}/compute-sanitizer/compute-sanitizer",
    "{cuda}/bin/compute-sanitizer",
    "/usr/local/cuda/compute-sanitizer/compute-sanitizer",
    "/usr/lib/nvidia-cuda-toolkit/compute-sanitizer/compute-sanitizer",
)


def find(path=None):
    """The compute-sanitizer executable: ``path``, ``$COMPUTE_SANITIZER``, ``PATH`` or a toolkit's
    place; SystemExit saying where it looked when there is none."""
    given = path or os.environ.get("COMPUTE_SANITIZER")
    if given:
        if os.path.isfile(given) and os.access(given, os.X_OK):
            return given
        raise SystemExit(f"sanitize: {given!r} is not an executable compute-sanitizer")
    found = _toolkit.find("compute-sanitizer", PLACES)
    if found:
        return found
    raise SystemExit(
        "sanitize: no compute-sanitizer on PATH, in $COMPUTE_SANITIZER or at "
        + ", ".join(_toolkit.places(PLACES))
        + " (it comes with the CUDA toolkit, and with Debian's nvidia-cuda-toolkit)"
    )


def command(sanitizer, tool, args, log_dir, tour=False):
    """The sanitizer's command line around ``python -m pytest args`` (or the tour with ``args``),
    each process's report written to a log of its own under ``log_dir`` (pytest captures what a
    test's process prints, the sanitizer's reports with it)."""
    if tool not in TOOLS:
        raise SystemExit(f"sanitize: --tool must be one of {', '.join(TOOLS)}, got {tool!r}")
    cmd = [
        sanitizer,
        "--tool",
        tool,
        "--target-processes",
        "all",
        "--print-limit",
        str(PRINT_LIMIT),
        "--log-file",
        os.path.join(log_dir, "sanitizer.%p.log"),
    ]
    if tool == "racecheck":
        cmd += ["--racecheck-report", "analysis"]
    if tour:
        return cmd + [sys.executable, "-m", "tools.sanitize", "--inner-tour", *args]
    return cmd + [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-p",
        "tools.sanitize",
        *args,
    ]


def pool_off():
    """Under the sanitizer (``PRIMITIVES_SANITIZE``) on a GPU: CuPy's pool off, every array a
    cudaMalloc of its own, whose bounds memcheck sees."""
    if os.environ.get("PRIMITIVES_SANITIZE"):
        from primitives._core import backend as _backend

        if _backend.get_backend().is_cuda:
            _backend.get_backend().xp.cuda.set_allocator(None)


def pytest_configure(config):
    """This module is the sanitized pytest's plugin (``-p tools.sanitize``, which pytest-xdist
    passes on to its workers): the pool goes off before any test runs."""
    pool_off()


def inner_tour(args):
    """The tour, in the sanitized process, after :func:`pool_off`."""
    pool_off()
    sys.argv = ["python -m primitives", *args]
    runpy.run_module("primitives", run_name="__main__", alter_sys=True)


def environment(keep_pool=False, base=None):
    """The run's environment: ``PRIMITIVES_SANITIZE`` set (:func:`pool_off` turns CuPy's pool off
    for it in the run's processes) unless the pool is kept."""
    env = dict(os.environ if base is None else base)
    if keep_pool:
        env.pop("PRIMITIVES_SANITIZE", None)
    else:
        env["PRIMITIVES_SANITIZE"] = "1"
    return env


def reports(text):
    """The reports in one sanitizer log, as (headline, kernel): the first line of each report
    (``Invalid __global__ write of size 4 bytes``, ``Error: Race reported between ...``) and the
    kernel its first ``at`` names (None where none does), and the summaries that count errors
    (``ERROR SUMMARY: 2 errors``, ``RACECHECK SUMMARY: 3 hazards displayed (1 errors, ...)``),
    with None for a kernel. A clean process's summary and the banner are left out."""
    out = []
    for line in text.splitlines():
        if not line.startswith("========= "):
            continue
        detail = line.startswith("=========  ")
        s = line[len("========= ") :].strip()
        if not s or s == "COMPUTE-SANITIZER":
            continue
        if not detail:
            if "SUMMARY:" in s:
                if not re.search(r"\b0 (errors|hazards)", s):
                    out.append((s, None))
                continue
            out.append((s, _kernel(s)))
        elif out and out[-1][1] is None and "SUMMARY:" not in out[-1][0]:
            out[-1] = (out[-1][0], _kernel(s))
    return out


def _kernel(line):
    """The kernel an ``at`` of a report's line names, its name alone (``onesweep_pass`` of
    ``at void onesweep_pass<4, 0>(...)+0x1a0``), or None."""
    m = re.search(r"\bat (?:void )?([A-Za-z_][\w:]*)", line)
    return m.group(1).split("::")[-1] if m else None


def library_kernels():
    """The names of the kernels the library launches: the loader's registry of every
    instantiation (every family's, the candidates an override can launch, the timing's
    hold_stream), each by its template's name. A report naming another kernel comes from a peer
    (CuPy, cuSPARSE, CUB)."""
    import primitives  # noqa: F401  (every family registers its kernels with the loader)
    from primitives._core import loader as _loader, timing  # noqa: F401  (hold_stream's)

    return {
        name.split("<")[0].strip()
        for names in _loader.registered_modules(candidates=True).values()
        for name in names
    }


def split(found, ours):
    """(the library's reports, the peers' reports). A report whose kernel is unknown counts as the
    library's; a summary counting errors does only where no report came with it (the
    ``--print-limit`` reached)."""
    detailed = [r for r in found if r[1] is not None or "SUMMARY:" not in r[0]]
    if not detailed:
        return list(found), []
    mine = [r for r in detailed if r[1] is None or r[1] in ours]
    return mine, [r for r in detailed if r not in mine]


TOUR = ["--log2n", "12", "--no-progress", "--jobs", "1"]


def parse(argv):
    """(tool, sanitizer path, keep_pool, logs, tour, the run's arguments): the options above,
    the rest pytest's (or with ``--tour``, or none at all, the tour's)."""
    ap = argparse.ArgumentParser(prog="python -m tools.sanitize", allow_abbrev=False)
    ap.add_argument("--tool", default="memcheck")
    ap.add_argument("--sanitizer")
    ap.add_argument("--keep-pool", action="store_true")
    ap.add_argument("--logs")
    ap.add_argument("--tour", action="store_true")
    opts, rest = ap.parse_known_args(argv)
    tour = opts.tour or not rest  # no pytest arguments: the tour, every variant called once
    args = [*TOUR, *rest] if tour else rest  # the tour's own arguments after the defaults
    return opts.tool, opts.sanitizer, opts.keep_pool, opts.logs, tour, args


def main(argv):
    if argv[:1] == ["--inner-tour"]:
        return inner_tour(argv[1:])
    tool, path, keep_pool, logs, tour, args = parse(argv)
    sanitizer = find(path)
    if logs is not None:
        os.makedirs(logs, exist_ok=True)
    with (
        tempfile.TemporaryDirectory(prefix="sanitize.") if logs is None else nullcontext(logs) as d
    ):
        return sanitize(sanitizer, tool, args, d, keep_pool, tour)


def sanitize(sanitizer, tool, args, logs, keep_pool=False, tour=False):
    """Runs pytest (or the tour) under the sanitizer and prints its reports. The exit status is
    the run's own, or ERROR_EXIT where the library's kernels have a report."""
    cmd = command(sanitizer, tool, args, logs, tour)
    print("sanitize:", " ".join(cmd), flush=True)
    rc = subprocess.run(cmd, env=environment(keep_pool)).returncode
    found = []
    for name in sorted(os.listdir(logs)):
        if name.startswith("sanitizer."):
            with open(os.path.join(logs, name), errors="replace") as f:
                found += reports(f.read())
    mine, peers = split(found, library_kernels())
    print(f"\nsanitize ({tool}): {_count(mine)} in the library's kernels" + (":" if mine else ""))
    for line in _grouped(mine):
        print("  " + line)
    if peers:
        print(
            f"sanitize ({tool}): {_count(peers)} in other kernels (CuPy, cuSPARSE, CUB), not counted:"
        )
        for line in _grouped(peers):
            print("  " + line)
    return ERROR_EXIT if mine else rc


def _count(found):
    n = sum(1 for _, k in found if k is not None)
    return f"{n} report{'s' if n != 1 else ''}" + (
        f" and {len(found) - n} summaries" if len(found) > n else ""
    )


def _grouped(found):
    """One line per distinct report, with how often it came (the addresses left out)."""
    seen = {}
    for head, kernel in found:
        key = re.sub(r"\+0x[0-9a-f]+", "", head)
        if kernel and kernel not in key:
            key += f" (in {kernel})"
        seen[key] = seen.get(key, 0) + 1
    return [f"{n} x {k}" if n > 1 else k for k, n in list(seen.items())[:40]]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

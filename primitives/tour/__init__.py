"""The tour behind ``python -m primitives``: verify every variant of every family, and time them.

Each family's tour module (``primitives/tour/<family>.py``, named in the family registry,
:mod:`primitives._core.registry`) defines ``sections(gpu, log2n) -> list[Section]``. A section is one
workload (operation, dtype, size) with its contenders: every variant and, on the GPU, the peer.
The workloads themselves (sizes, dtypes, data, peers) are the family's in
:mod:`primitives.testing.workloads`, which the figures and the asv suite read too.
Each contender's result is checked against the NumPy oracle before it is timed; a wrong answer
marks the row ``FAIL`` and the tour exits non-zero. Contenders of a section are timed in
interleaved rounds (:func:`primitives._core.timing.bench_many`).

Two modes:

* the quick tour (the default) checks every contender of every section on a small input
  (:data:`CHECK_LOG2N`) and times one representative section per family (the one its tour module
  marks ``quick=True``, else its first) at the family's tour size: the production or ``auto``
  path next to its peers (the section's ``quick_rows``);
* ``--full`` times every section at the tour size (the sweep behind the docs' figures).

Either way every contender is checked, and the CSV (``--csv``) has the same columns; rows that
were only checked have empty ``ms``, ``gbs`` and ``copy_gbs``.
"""

from __future__ import annotations

import argparse
import os
import dataclasses
import re
import sys
import textwrap
import time
from typing import Callable

import numpy as np

from .._core import backend as _backend, registry as _registry, timing as _timing
from .._core.backend import to_host

__all__ = ["main", "Section", "Contender", "is_peer", "to_host", "CHECK_LOG2N"]

#: size (power of two) of the quick tour's correctness checks, per backend; ``--log2n`` lowers it
CHECK_LOG2N = {"cuda": 16, "emulator": 12}


@dataclasses.dataclass
class Contender:
    """One row: ``run()`` computes a result (it is what gets timed), ``check(result)`` says
    whether it matches the oracle."""

    name: str
    run: Callable[[], object]
    check: Callable[[object], bool]
    note: str = ""

    @property
    def peer(self):
        """Whether this row is a peer's rather than ours (:func:`is_peer`)."""
        return is_peer(self.name)


def is_peer(name):
    """Whether a contender's name is a peer's (CuPy, CUB, cuSPARSE, NumPy) rather than ours: the
    name says so (``"cupy.sort (peer)"``)."""
    low = name.lower()
    return "(peer)" in low or low.startswith(("cupy", "cub", "cusparse", "numpy"))


@dataclasses.dataclass
class Section:
    title: str
    nbytes: int  # bytes the operation must move at least once (for GB/s)
    contenders: Callable[[], list]  # built lazily: data is allocated when the section runs
    count: int  # number of contenders (for the progress display)
    quick: bool = False  # the family's representative section: the one the quick tour times
    # the rows of ours the quick tour times in that section, by name or name prefix (the
    # production or auto path), beside every peer; empty: all (the other rows are checked on
    # the small input with the rest)
    quick_rows: tuple = ()


@dataclasses.dataclass
class Row:
    name: str
    ok: bool
    ms: float
    nbytes: int
    note: str = ""


class Progress:
    """A progress bar (tqdm, on stderr) over the tour's steps, or nothing when ``enabled`` is
    false or tqdm is not installed. Text printed while it runs goes through :meth:`write`, which
    takes the bar off the terminal line first, so tables are never garbled."""

    def __init__(self, total, enabled):
        self.bar = None
        if enabled:
            try:
                from tqdm import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                # every step redrawn (a step is a check or a timing: never too many to draw)
                self.bar = tqdm(
                    total=total,
                    file=sys.stderr,
                    leave=False,
                    dynamic_ncols=True,
                    mininterval=0,
                    miniters=1,
                    unit="step",
                    bar_format="{l_bar}{bar}| {n}/{total} [{elapsed}<{remaining}]{postfix}",
                )

    def start(self, what):
        """Say what the next step is."""
        if self.bar is not None:
            self.bar.set_postfix_str(what if len(what) <= 60 else what[:57] + "...")

    def step(self):
        """One step done."""
        if self.bar is not None:
            self.bar.update(1)

    def recount(self, delta):
        """A section had ``delta`` more contenders than it announced (fewer, when negative)."""
        if self.bar is not None and delta:
            self.bar.total += delta
            self.bar.refresh()

    def write(self, text, file):
        if self.bar is not None:
            self.bar.write(text, file=file)
            file.flush()
        else:
            print(text, file=file, flush=True)

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def numpy_twin(title, nbytes, make, ours, peer, oracle, gpu, *, rtol=1e-5):
    """A section of one NumPy function against its CuPy twin (on a GPU): ``make()`` gives the
    host inputs (a tuple), ``ours(*xs)`` and ``peer(cupy, *xs)`` compute on the device copies,
    ``oracle(*hosts)`` is NumPy's answer the results are checked against (``rtol``)."""

    def contenders():
        xp = _backend.get_backend().xp
        hosts = make()
        xs = tuple(xp.asarray(h) for h in hosts)
        want = np.asarray(oracle(*hosts))

        def check(got):
            got = np.asarray(to_host(got))
            return got.shape == want.shape and np.allclose(got, want, rtol=rtol, atol=0)

        out = [Contender("primitives", lambda: ours(*xs), check)]
        if gpu:
            import cupy

            out.append(Contender("cupy (peer)", lambda: peer(cupy, *xs), check))
        return out

    return Section(title=title, nbytes=nbytes, contenders=contenders, count=2 if gpu else 1)


def _reps(backend):
    if backend.is_cuda:
        return {"rounds": 3, "warmup": 3, "repeat": 10}
    return {"rounds": 1, "warmup": 1, "repeat": 3}


def _picked(c, rows):
    """Whether contender ``c`` is one of ``rows`` (names or name prefixes; empty: all), or a
    peer."""
    return not rows or c.peer or c.name.startswith(tuple(rows))


def run_section(backend, section, progress, timed=True, rows=()):
    """Check every contender of ``section`` (a crash is a failed check, its message the row's
    note) and, when ``timed``, time those that passed; rows of untimed contenders have NaN ms.
    An untimed section checks ours alone: a peer is there to be timed against (and its first
    call compiles CuPy's own kernels). ``rows``: only these of ours (and the peers)."""
    contenders = [c for c in section.contenders() if (timed or not c.peer) and _picked(c, rows)]
    progress.recount(len(contenders) - section.count)
    checks, fns, notes = {}, {}, {}
    for c in contenders:
        progress.start(f"{c.name} | {section.title}")
        try:
            checks[c.name] = bool(c.check(c.run()))
        except Exception as exc:  # a crash is a failed check, reported in the table  # noqa: BLE001
            checks[c.name], notes[c.name] = False, f"{type(exc).__name__}: {exc}"[:60]
            continue
        finally:
            progress.step()
        fns[c.name] = c.run
        notes[c.name] = c.note
    times = {}
    if timed:
        progress.start(f"timing {section.title}")
        times = _timing.bench_many(fns, **_reps(backend)) if fns else {}
        progress.step()
    return [
        Row(
            c.name,
            checks[c.name],
            times.get(c.name, float("nan")),
            section.nbytes,
            notes.get(c.name, ""),
        )
        for c in contenders
    ]


def _gbs(row):
    return row.nbytes / (row.ms * 1e-3) / 1e9


def _no_rates(title):
    """A section title without its notes on GB/s (for the emulator's tables, which have none)."""
    return re.sub(r"\s*\(GB/s:[^)]*\)", "", title)


def _table(title, rows, copy_gbs):
    """A section's table; ``copy_gbs`` None (the emulator) leaves out GB/s, % copy and speedup,
    which say nothing about a GPU when the kernels are emulated on a CPU."""
    w = max(24, *(len(r.name) for r in rows))
    if copy_gbs is None:
        lines = [_no_rates(title), f"  {'variant':<{w}} {'check':>5} {'time ms':>10}  note"]
        for r in rows:
            lines.append(
                f"  {r.name:<{w}} {'ok' if r.ok else 'FAIL':>5} {r.ms:>10.4f}  {r.note}".rstrip()
            )
        return "\n".join(lines)
    base = rows[0].ms
    lines = [
        title,
        f"  {'variant':<{w}} {'check':>5} {'time ms':>10} {'GB/s':>8} "
        f"{'% copy':>7} {'speedup':>8}  note",
    ]
    for r in rows:
        gbs = _gbs(r)
        lines.append(
            f"  {r.name:<{w}} {'ok' if r.ok else 'FAIL':>5} {r.ms:>10.4f} {gbs:>8.1f} "
            f"{100 * gbs / copy_gbs:>6.1f}% {base / r.ms:>7.2f}x  {r.note}".rstrip()
        )
    return "\n".join(lines)


def _check_lines(title, rows, gpu):
    """The quick tour's entry for an untimed section: its title with ``ok`` or ``FAIL``, then its
    contenders (a failed one marked ``FAIL``, with the error of a crash)."""
    bad = sum(not r.ok for r in rows)
    head = f"  {'FAIL' if bad else 'ok':<4}  {title if gpu else _no_rates(title)}"
    if bad:
        head += f" ({bad} of {len(rows)} wrong)"
    names = ", ".join(
        r.name if r.ok else f"{r.name} FAIL" + (f" ({r.note})" if r.note else "") for r in rows
    )
    return "\n".join(
        [head]
        + textwrap.wrap(
            names, 96, initial_indent=" " * 8, subsequent_indent=" " * 8, break_on_hyphens=False
        )
    )


CSV_COLUMNS = ("family", "section", "contender", "ok", "ms", "gbs", "copy_gbs", "backend", "device")


def _write_csv(f, records, info):
    """Rows ``(family, section, name, ok, ms, gbs, copy, timed)`` as CSV; an untimed row (one the
    quick tour only checked) has empty ``ms``, ``gbs`` and ``copy_gbs``."""
    import csv

    w = csv.writer(f)
    w.writerow(CSV_COLUMNS)
    for family, section, name, ok, ms, gbs, copy, timed in records:
        if not timed:
            w.writerow(
                [family, section, name, int(ok), "", "", "", info["backend"], info["device"]]
            )
        else:
            w.writerow(
                [
                    family,
                    section,
                    name,
                    int(ok),
                    f"{ms:.6f}",
                    f"{gbs:.3f}",
                    f"{copy:.3f}",
                    info["backend"],
                    info["device"],
                ]
            )


def _plot(path, families, records, info, gpu, mode):
    """The timed rows of this run as the bandwidth figure (:mod:`.plot`)."""
    from . import plot

    rows = [
        {
            "family": family,
            "section": section if gpu else _no_rates(section),
            "contender": name,
            "ok": int(ok),
            "ms": ms if timed else "",
            "gbs": gbs if timed and gpu else "",
            "copy_gbs": copy if gpu else "",
            "device": info["device"],
        }
        for family, section, name, ok, ms, gbs, copy, timed in records
    ]
    title = (
        f"python -m primitives ({mode}) on {info['device']}: variants (green), peers "
        f"(orange)" + ("" if gpu else "; CPU emulator: times, not GPU rates")
    )
    if not plot.draw_families(families, rows, path, title=title):
        print(f"--plot: no timed row to draw; {path} not written", file=sys.stderr)


def _check_log2n(gpu, log2n):
    """Size of the quick tour's checks: :data:`CHECK_LOG2N`, or ``log2n`` when smaller."""
    small = CHECK_LOG2N["cuda" if gpu else "emulator"]
    return small if log2n is None else min(small, log2n)


def plan(families, gpu, log2n=None, full=False):
    """The tour's work: ``(family, section, timed)`` triples, in the order they run.

    ``full``: every section at the tour size (``log2n``, or each family's default), timed. Else
    every section at the check size, untimed, then each family's representative section at the
    tour size, timed (its ``quick_rows`` and the peers; the representative section is checked
    on the small input too unless it times every row)."""
    if full:
        return [
            (f, s, True) for f in families for s in _registry.family(f).tour_sections(gpu, log2n)
        ]
    small = _check_log2n(gpu, log2n)
    checks, timed = [], []
    for f in families:
        fam = _registry.family(f)
        big = fam.tour_sections(gpu, log2n)
        pick = next((i for i, s in enumerate(big) if s.quick), 0)
        little = fam.tour_sections(gpu, small)
        if len(little) != len(big):  # not the same workloads: check the tour-size ones
            little = big
        checks += [
            (f, s, False)
            for i, s in enumerate(little)
            if i != pick or (little is not big and big[pick].quick_rows)
        ]
        timed.append((f, big[pick], True))
    return checks + timed


def _warm(job):
    """Worker process: run one family's checks at the check size for the kernels they compile,
    which land in the on-disk caches (the package's cubins, the emulator's) that the tour then
    reads. The results are dropped; the tour checks everything itself."""
    family, gpu, log2n = job
    for section in _registry.family(family).tour_sections(gpu, log2n):
        try:
            run_section(_backend.get_backend(), section, Progress(0, False), timed=False)
        except Exception:  # the tour's own run reports it  # noqa: BLE001
            pass
    return job


def default_jobs(gpu):
    """Worker processes that compile first: one per CPU where the tour's kernels must be
    compiled (the emulator; a GPU without shipped binaries), else 1 (loading shipped binaries
    is quick, and a worker would only run the checks twice)."""
    from .._core import binaries

    if gpu and binaries.index() is not None:
        return 1
    return os.cpu_count() or 1


def warm_caches(families, gpu, log2n, jobs, progress):
    """Compile the kernels of every section of ``families`` in ``jobs`` worker processes at once
    (the compiler, NVRTC or the host's, is most of a first run's time, and one process compiles
    one module at a time). Does nothing for ``jobs`` below 2."""
    work = [(f, gpu, log2n) for f in families]  # a family's sections share kernel modules
    jobs = min(jobs, len(work))
    if jobs < 2:
        return
    import concurrent.futures
    import multiprocessing

    progress.recount(len(work))
    progress.start(f"compiling kernels in {jobs} processes")
    try:
        with concurrent.futures.ProcessPoolExecutor(
            jobs, mp_context=multiprocessing.get_context("spawn")
        ) as pool:
            for _ in pool.map(_warm, work):
                progress.step()
    except Exception:  # no worker processes here: the tour compiles as it goes  # noqa: BLE001
        pass


def _parser():
    parser = argparse.ArgumentParser(
        prog="python -m primitives",
        description="Verify every variant of every family against NumPy and time it. By "
        "default a quick tour: every variant is checked on a small input and one "
        "representative workload per family is timed; --full times every workload.",
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help="the whole sweep: time every workload of every family at the tour "
        "size (several minutes on a GPU, most of it compiling)",
    )
    parser.add_argument(
        "--log2n",
        type=int,
        default=None,
        help="problem size of the timed workloads as a power of two (default: "
        "per family, large on a GPU, small on the emulator); the quick "
        "tour's checks use at most this size",
    )
    parser.add_argument(
        "--family",
        choices=sorted(_registry.names()) + sorted(_registry.aliases()),
        action="append",
        help="run only these families (repeatable; a family's earlier name is taken too)",
    )
    parser.add_argument(
        "--csv",
        default=None,
        metavar="FILE",
        help="also write every row as CSV (family, section, contender, ok, ms, "
        "gbs, copy_gbs, backend, device): the data of the docs' bandwidth "
        "figures (use --full for them); '-' writes it to stdout and the "
        "tables to stderr",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="first compile the kernels in N worker processes at once, one "
        "family each (1: the tour compiles as it goes; default: one per "
        "CPU where kernels must be compiled, on the emulator or a GPU "
        "without shipped kernel binaries, else 1)",
    )
    parser.add_argument(
        "--plot",
        default=None,
        metavar="PATH",
        help="also draw the timed rows as a figure (PNG, SVG or PDF by the "
        "name): achieved GB/s of every variant and peer against the copy "
        "rate on a GPU, times on the emulator; needs matplotlib (the "
        "'plot' extra)",
    )
    parser.add_argument(
        "--times",
        action="store_true",
        help="also print the wall time of every section (data, checks and "
        "timing together) and of the whole tour",
    )
    parser.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (it is shown only when stdout and stderr are terminals)",
    )
    return parser


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    if args.plot is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            parser.error("--plot needs matplotlib: pip install 'primitives[plot]'")
    to_stdout = args.csv == "-"
    out = sys.stderr if to_stdout else sys.stdout

    def say(text=""):
        print(text, file=out, flush=True)

    backend = _backend.get_backend()
    info = _backend.backend_info()
    gpu = backend.is_cuda
    mode = "full sweep" if args.full else "quick tour"
    say(f"primitives tour ({mode}): backend {info['backend']} ({info['reason']})")
    say(f"device: {info['device']}, {info['sm_count']} SMs")
    if not gpu:
        say(
            "NOTE: on the CPU emulator times are CPU wall-clock of an emulation, not GPU "
            "timings, and sizes are small: the tables give times and checks only."
        )
    copy_gbs = _timing.copy_bandwidth((1 << 30) if gpu else (1 << 22))
    if gpu:
        say(f"measured copy bandwidth (read + write): {copy_gbs:.0f} GB/s")
    if not args.full:
        say(
            "Quick tour: every variant is checked against NumPy on a small input; one workload "
            "per family is timed (--full times them all)."
        )
    say()

    families = list(
        dict.fromkeys(_registry.family(f).name for f in args.family or _registry.names())
    )
    work = plan(families, gpu, args.log2n, args.full)
    total = sum(s.count + (1 if timed else 0) for _, s, timed in work)
    show_bar = (
        not args.no_progress and not to_stdout and sys.stdout.isatty() and sys.stderr.isatty()
    )
    progress = Progress(total, show_bar)
    jobs = default_jobs(gpu) if args.jobs is None else args.jobs
    warm_caches(families, gpu, _check_log2n(gpu, args.log2n), jobs, progress)
    records, checked, failures = [], 0, []
    heading = None  # the quick tour's part being printed: "checks", then "timed"
    started = time.perf_counter()
    try:
        for family, section, timed in work:
            t0 = time.perf_counter()
            rows = run_section(
                backend,
                section,
                progress,
                timed,
                section.quick_rows if timed and not args.full else (),
            )
            seconds = time.perf_counter() - t0
            checked += len(rows)
            failures += [(family, section.title, r) for r in rows if not r.ok]
            if not args.full:
                part = "timed" if timed else "checks"
                if part != heading:
                    progress.write(
                        ("\n" if heading else "")
                        + (
                            "Timed (one workload per family):"
                            if timed
                            else "Checked against NumPy (small inputs, untimed):"
                        ),
                        out,
                    )
                    heading = part
            if timed:
                progress.write(_table(section.title, rows, copy_gbs if gpu else None) + "\n", out)
            else:
                progress.write(_check_lines(section.title, rows, gpu), out)
            if args.times:
                progress.write(f"        ({seconds:.1f} s)", out)
            records += [
                (family, section.title, r.name, r.ok, r.ms, _gbs(r), copy_gbs, timed) for r in rows
            ]
    finally:
        progress.close()
    if args.csv:
        if to_stdout:
            _write_csv(sys.stdout, records, info)
            sys.stdout.flush()
        else:
            with open(args.csv, "w", newline="") as f:
                _write_csv(f, records, info)
    if args.plot is not None:
        _plot(args.plot, families, records, info, gpu, mode)
        say(f"figure: {args.plot}")
    if gpu:
        say(
            "speedup: relative to the first row of each table; % copy: GB/s counting the bytes "
            "the operation must move, over the measured copy rate."
        )
    else:
        say(
            "times: CPU wall-clock of the emulated kernels (medians); bandwidth figures need a GPU."
        )
    say(
        f"checked {checked} contenders against NumPy: "
        f"{checked - len(failures)} ok, {len(failures)} failed."
    )
    if args.times:
        say(f"sections took {time.perf_counter() - started:.1f} s in all")
    if failures:
        print(
            f"\nFAILED: {len(failures)} of {checked} checks disagree with the NumPy oracle:",
            file=sys.stderr,
        )
        for family, title, r in failures:
            print(f"  {title}: {r.name}{'  (' + r.note + ')' if r.note else ''}", file=sys.stderr)
        return 1
    return 0

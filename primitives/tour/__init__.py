"""The tour behind ``python -m primitives``: verify and time every variant of every family.

Each family's tour module (``primitives/tour/<family>.py``, named in the family registry,
:mod:`primitives._core.registry`) defines ``sections(gpu, log2n) -> list[Section]``. A section is one
workload (operation, dtype, size) with its contenders: every variant and, on the GPU, the peer.
Each contender's result is checked against the NumPy oracle before it is timed; a wrong answer
marks the row ``FAIL`` and the tour exits non-zero. Contenders of a section are timed in
interleaved rounds (:func:`primitives._core.timing.bench_many`).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Callable

import numpy as np

from .._core import backend as _backend, registry as _registry, timing as _timing
from .._core.backend import to_host

__all__ = ["main", "Section", "Contender", "random_data", "to_host"]



@dataclasses.dataclass
class Contender:
    """One row: ``run()`` computes a result (it is what gets timed), ``check(result)`` says
    whether it matches the oracle."""

    name: str
    run: Callable[[], object]
    check: Callable[[object], bool]
    note: str = ""


@dataclasses.dataclass
class Section:
    title: str
    nbytes: int  # bytes the operation must move at least once (for GB/s)
    contenders: Callable[[], list]  # built lazily: data is allocated when the section runs
    count: int  # number of contenders (for the progress display)


@dataclasses.dataclass
class Row:
    name: str
    ok: bool
    ms: float
    nbytes: int
    note: str = ""


class Progress:
    def __init__(self, total, stream=sys.stderr):
        self.total, self.done, self.stream = total, 0, stream
        self.tty = stream.isatty()

    def step(self, what):
        self.done += 1
        msg = f"[{self.done}/{self.total}] {what}"
        if self.tty:
            self.stream.write("\r\033[K" + msg)
        else:
            self.stream.write(msg + "\n")
        self.stream.flush()

    def close(self):
        """Clear the progress line (a terminal's) before other output."""
        if self.tty:
            self.stream.write("\r\033[K")
            self.stream.flush()


def random_data(rng, n, dtype):
    """Random host data that is never zero: floats in [0.5, 1.5), integers in [1, 1000)."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return rng.random(n, dtype=dt) + dt.type(0.5)
    return rng.integers(1, 1000, n, dtype=dt)


def _reps(backend):
    if backend.is_cuda:
        return {"rounds": 3, "warmup": 3, "repeat": 10}
    return {"rounds": 1, "warmup": 1, "repeat": 3}


def run_section(backend, section, progress):
    contenders = section.contenders()
    checks, fns, notes = {}, {}, {}
    for c in contenders:
        progress.step(f"{section.title}: {c.name}")
        try:
            checks[c.name] = bool(c.check(c.run()))
        except Exception as exc:  # a crash is a failed check, reported in the table
            checks[c.name], notes[c.name] = False, f"{type(exc).__name__}: {exc}"[:60]
            continue
        fns[c.name] = c.run
        notes[c.name] = c.note
    times = _timing.bench_many(fns, **_reps(backend)) if fns else {}
    return [Row(c.name, checks[c.name], times.get(c.name, float("nan")), section.nbytes,
                notes.get(c.name, "")) for c in contenders]


def _table(title, rows, copy_gbs):
    base = rows[0].ms
    w = max(24, *(len(r.name) for r in rows))
    lines = [title, f"  {'variant':<{w}} {'check':>5} {'time ms':>10} {'GB/s':>8} "
             f"{'% copy':>7} {'speedup':>8}  note"]
    for r in rows:
        gbs = r.nbytes / (r.ms * 1e-3) / 1e9
        lines.append(
            f"  {r.name:<{w}} {'ok' if r.ok else 'FAIL':>5} {r.ms:>10.4f} {gbs:>8.1f} "
            f"{100 * gbs / copy_gbs:>6.1f}% {base / r.ms:>7.2f}x  {r.note}".rstrip()
        )
    return "\n".join(lines)


CSV_COLUMNS = ("family", "section", "contender", "ok", "ms", "gbs", "copy_gbs", "backend",
               "device")


def _write_csv(path, records, info):
    import csv

    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_COLUMNS)
        for family, section, name, ok, ms, gbs, copy in records:
            w.writerow([family, section, name, int(ok), f"{ms:.6f}", f"{gbs:.3f}",
                        f"{copy:.3f}", info["backend"], info["device"]])


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m primitives",
        description="Verify every variant of every family against NumPy and time it.",
    )
    parser.add_argument("--log2n", type=int, default=None,
                        help="problem size as a power of two (default: per family, large on a "
                             "GPU, small on the emulator)")
    parser.add_argument("--family", choices=sorted(_registry.names()), action="append",
                        help="run only these families (repeatable)")
    parser.add_argument("--csv", default=None, metavar="FILE",
                        help="also write every row as CSV (family, section, contender, ok, ms, "
                             "gbs, copy_gbs, backend, device): the data of the docs' bandwidth "
                             "figures")
    args = parser.parse_args(argv)

    backend = _backend.get_backend()
    info = _backend.backend_info()
    gpu = backend.is_cuda
    print(f"primitives tour: backend {info['backend']} ({info['reason']})")
    print(f"device: {info['device']}, {info['sm_count']} SMs")
    if not gpu:
        print("NOTE: emulator timings are CPU wall-clock of an emulation, not GPU timings; "
              "sizes are small.")
    copy_gbs = _timing.copy_bandwidth((1 << 30) if gpu else (1 << 22))
    print(f"measured copy bandwidth (read + write): {copy_gbs:.0f} GB/s\n")

    sections = []
    for family in args.family or list(_registry.names()):
        sections += [(family, s) for s in
                     _registry.family(family).tour_sections(gpu, args.log2n)]
    progress = Progress(sum(s.count for _, s in sections))
    failed = False
    records = []
    for family, section in sections:  # each table as soon as its section is measured
        rows = run_section(backend, section, progress)
        failed |= not all(r.ok for r in rows)
        progress.close()
        print(_table(section.title, rows, copy_gbs) + "\n", flush=True)
        records += [(family, section.title, r.name, r.ok, r.ms,
                     r.nbytes / (r.ms * 1e-3) / 1e9, copy_gbs) for r in rows]
    if args.csv:
        _write_csv(args.csv, records, info)
    print("speedup: relative to the first row of each table; % copy: GB/s counting the bytes "
          "the operation must move, over the measured copy rate.")
    if failed:
        print("\nFAILED: some variants disagree with the NumPy oracle", file=sys.stderr)
        return 1
    return 0

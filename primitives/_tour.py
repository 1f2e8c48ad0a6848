"""The tour behind ``python -m primitives``: verify and time every variant of every family.

Each family contributes *sections*; a section is one workload (operation, dtype, size) run through
each variant and, on the GPU, its peer (CuPy). Every result is checked against the NumPy oracle
before it is timed; a wrong answer marks the row ``FAIL`` and the tour exits non-zero.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

import numpy as np

from . import _backend, _oracle, _timing, reduction

__all__ = ["main"]


@dataclasses.dataclass
class Row:
    name: str
    ok: bool
    ms: float
    nbytes: int  # bytes the operation must move (for GB/s)
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
        if self.tty:
            self.stream.write("\r\033[K")
            self.stream.flush()


def _random(xp_host_rng, n, dtype):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return xp_host_rng.random(n, dtype=dt) + dt.type(0.5)  # never zeros, all positive
    return xp_host_rng.integers(1, 1000, n, dtype=dt)


def reduction_sections(gpu, log2n):
    """(title, n, dtype, op, [(name, fn)], checker) for the reduction family."""
    sections = []
    ladder_n = 1 << (log2n if log2n else (26 if gpu else 14))
    peer_n = 1 << (log2n if log2n else (28 if gpu else 14))
    specs = [
        ("sum", np.float32, ladder_n, list(reduction.VARIANTS)),
        ("sum", np.int32, peer_n, ["production"]),
        ("max", np.float32, peer_n, ["production"]),
    ]
    if gpu:  # the production figures use 2^28; the float32 sum is shown at both sizes
        specs.insert(1, ("sum", np.float32, peer_n, ["production"]))
    for op, dtype, n, variants in specs:
        sections.append(("reduction", op, np.dtype(dtype), n, variants))
    return sections


def _run_reduction_section(backend, op, dtype, n, variants, progress, rng):
    xp = backend.xp
    host = _random(rng, n, dtype)
    x = xp.asarray(host)
    acc = np.dtype(np.int64) if (op == "sum" and dtype.kind == "i") else dtype
    checks, fns = {}, {}
    for v in variants:
        progress.step(f"reduction {op} {dtype.name} n={n}: {v}")
        got = reduction.reduce(x, op, variant=v)
        depth = reduction._error_depth(v, n, dtype)
        checks[v] = _oracle.reduce_matches(_to_host(got), host, op, acc, depth)[0]
        fns[v] = lambda v=v: reduction.reduce(x, op, variant=v)
    if backend.is_cuda:
        import cupy

        peer = {"sum": cupy.sum, "min": cupy.min, "max": cupy.max}[op]
        name = f"cupy.{op} (peer)"
        progress.step(f"reduction {op} {dtype.name} n={n}: cupy.{op}")
        checks[name] = _oracle.reduce_matches(_to_host(peer(x)), host, op, acc, n)[0]
        fns[name] = lambda: peer(x)
    times = _timing.bench_many(fns, **_reps(backend))
    return [Row(name, checks[name], times[name], n * dtype.itemsize) for name in fns]


def _to_host(v):
    return v.get() if hasattr(v, "get") else v


def _reps(backend):
    if backend.is_cuda:
        return {"rounds": 3, "warmup": 3, "repeat": 10}
    return {"rounds": 1, "warmup": 1, "repeat": 3}


def _table(title, rows, copy_gbs):
    base = rows[0].ms
    lines = [title, f"  {'variant':<20} {'check':>5} {'time ms':>10} {'GB/s':>8} "
             f"{'% copy':>7} {'speedup':>8}"]
    for r in rows:
        gbs = r.nbytes / (r.ms * 1e-3) / 1e9
        lines.append(
            f"  {r.name:<20} {'ok' if r.ok else 'FAIL':>5} {r.ms:>10.4f} {gbs:>8.1f} "
            f"{100 * gbs / copy_gbs:>6.1f}% {base / r.ms:>7.2f}x"
        )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m primitives",
        description="Verify every variant of every family against NumPy and time it.",
    )
    parser.add_argument("--log2n", type=int, default=None,
                        help="problem size as a power of two (default: 2^26/2^28 on a GPU, "
                             "2^14 on the emulator)")
    parser.add_argument("--family", choices=["reduction"], action="append",
                        help="run only these families (repeatable)")
    args = parser.parse_args(argv)

    backend = _backend.get_backend()
    info = _backend.backend_info()
    gpu = backend.is_cuda
    print(f"primitives tour: backend {info['backend']} ({info['reason']})")
    print(f"device: {info['device']}, {info['sm_count']} SMs")
    if not gpu:
        print("NOTE: emulator timings are CPU wall-clock of an emulation, not GPU timings; "
              "sizes are small.")
    copy_bytes = (1 << 30) if gpu else (1 << 22)
    copy_gbs = _timing.copy_bandwidth(copy_bytes)
    print(f"measured copy bandwidth (read + write): {copy_gbs:.0f} GB/s\n")

    families = args.family or ["reduction"]
    sections = []
    if "reduction" in families:
        sections += reduction_sections(gpu, args.log2n)
    total = sum(len(s[4]) + (1 if gpu else 0) for s in sections)
    progress = Progress(total)
    rng = np.random.default_rng(2026)
    outputs, failed = [], False
    for family, op, dtype, n, variants in sections:
        rows = _run_reduction_section(backend, op, dtype, n, variants, progress, rng)
        failed |= not all(r.ok for r in rows)
        outputs.append(_table(f"{family}: {op} {dtype.name}, n = 2^{n.bit_length() - 1}",
                              rows, copy_gbs))
    progress.close()
    print("\n\n".join(outputs))
    print("\nspeedup: relative to the first row of each table; % copy: GB/s counting bytes "
          "read, over the measured copy rate.")
    if failed:
        print("\nFAILED: some variants disagree with the NumPy oracle", file=sys.stderr)
        return 1
    return 0

"""Measure the performance figures of docs/performance.md against the peers, in one run.

    python -m tools.figures [--family NAME ...] [--out FILE]

``--out`` writes the page of docs/performance.md (:mod:`tools.figures.page`): a section per
family, each opening with the run's device, versions, commit and date; the sections of an
existing page that this run did not measure are kept. The page is written after each family, so
a run cut short keeps the families it finished.

Each family's measurements live in ``tools/figures/<family>.py`` (named in the family registry,
:mod:`primitives._core.registry`) as ``run(ctx)``, on the family's workloads
(:mod:`primitives.testing.workloads`, which the tour and the asv suite read too; the tables are
the module's own); ``ctx`` (a :class:`Context`) gives the
measured copy bandwidth, interleaved timing, the CUB module (or None) and Markdown output. The
peers are wrapped once, in :mod:`primitives.testing.peers`. Needs a GPU, CuPy, and for the CUB columns ``cuda-cccl``'s ``cuda.compute``.
Every timing is the median of per-call CUDA-event times after warm-up, the contenders of one row
measured in interleaved rounds (:func:`primitives._core.timing.bench_many`) on random data; each
result is checked against the NumPy oracle before it is timed. Ratios are within this one run.
"""

from __future__ import annotations

from primitives._core import timing as _timing
from tools.figures import page

REPS = {"rounds": 5, "warmup": 5, "repeat": 20}

#: the columns of a peer table (:meth:`Context.peer_table`)
PEER_HEADER = (
    "work",
    "n",
    "primitives ms",
    "peer",
    "peer ms",
    "ratio (ours/peer)",
    "GB/s",
    "% copy",
)


class Context:
    def __init__(self, copy_gbs, cc):
        self.copy = copy_gbs
        self.cc = cc  # cuda.compute or None
        self.lines = []
        self.family = None  # the page section being written (set by :meth:`section`)
        self.measuring = None  # the --family being measured (set by the runner)
        self.sections = []  # (section, the --family that measured it), in page order
        self.records = []  # one per peer row: the data of --csv

    def section(self, name):
        """Start the page's section ``name``: the runner starts one per ``--family``; a module
        that measures other families too (scan: compaction, segmented) starts theirs."""
        self.lines += ["", f"## {name}"]
        self.family = name
        self.sections.append((name, self.measuring))

    def bench(self, fns, **kw):
        """Interleaved medians (ms) of the callables in ``fns`` (name -> callable)."""
        return _timing.bench_many(fns, **{**REPS, **kw})

    def table(self, header):
        """Start a Markdown table with the given column names."""
        self.lines += ["", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]

    def open_table(self):
        """The columns of the table the last line written belongs to, or None (the last line
        is a caption, a heading or blank: the next row would start no table, or a wrong one)."""
        i = len(self.lines)
        while i > 0 and self.lines[i - 1].startswith("|"):
            i -= 1
        if i == len(self.lines):
            return None
        return tuple(page.cells(self.lines[i]))

    def rows(self, header, rows, caption=None):
        """A whole Markdown table: an optional caption line, the header, then ``rows``."""
        if caption is not None:
            self.lines += ["", caption]
        self.table(header)
        for r in rows:
            self.add(*r)

    def add(self, *cells):
        self.lines.append("| " + " | ".join(str(c) for c in cells) + " |")
        print(self.lines[-1], flush=True)

    def peer_table(self):
        self.table(PEER_HEADER)

    def peer_record(self, work, n, ours_ms, nbytes, peer, peer_ms):
        """A row of the CSV of peer ratios (the docs' peer figure) without a Markdown row, for a
        family whose tables show its peers otherwise; returns the achieved GB/s."""
        gbs = nbytes / (ours_ms * 1e-3) / 1e9
        self.records.append(
            (
                self.family,
                work,
                n,
                ours_ms,
                peer,
                peer_ms,
                ours_ms / peer_ms,
                gbs,
                100 * gbs / self.copy,
            )
        )
        return gbs

    def peer_row(self, work, n, ours_ms, nbytes, peer, peer_ms):
        """A row of the peer table: ``nbytes`` is what the operation must move at least once.
        Opens a peer table unless the last line written is a row of one (or its header)."""
        if self.open_table() != PEER_HEADER:
            self.peer_table()
        gbs = self.peer_record(work, n, ours_ms, nbytes, peer, peer_ms)
        self.add(
            work,
            f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else n,
            f"{ours_ms:.4f}",
            peer,
            f"{peer_ms:.4f}",
            f"{ours_ms / peer_ms:.3f}",
            f"{gbs:.0f}",
            f"{100 * gbs / self.copy:.1f}%",
        )


CSV_COLUMNS = ("family", "work", "n", "ms", "peer", "peer_ms", "ratio", "gbs", "pct_copy")


def write_csv(path, records, header):
    """The peer rows of a run as CSV; ``header`` (device, commit...) as leading ``#`` lines."""
    import csv

    with open(path, "w", newline="") as f:
        for line in header:
            f.write(f"# {line}\n")
        w = csv.writer(f)
        w.writerow(CSV_COLUMNS)
        for fam, work, n, ms, peer, peer_ms, ratio, gbs, pct in records:
            w.writerow(
                [
                    fam,
                    work,
                    n,
                    f"{ms:.4f}",
                    peer,
                    f"{peer_ms:.4f}",
                    f"{ratio:.4f}",
                    f"{gbs:.1f}",
                    f"{pct:.2f}",
                ]
            )

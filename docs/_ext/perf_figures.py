"""Figures drawn at build time from the measured CSV files.

``.. perf-figure:: FAMILY [FAMILY...]`` draws, for each tour section of the families named,
the achieved GB/s of every contender (the variants, and the peers in another colour) against the
measured copy rate, from ``docs/_data/tour.csv`` (``python -m primitives --csv``).
``.. peer-figure::`` draws the ratio of our time to the peer's for every row of
``docs/_data/figures.csv`` (``python -m tools.figures --csv``). Where a file is missing, the
directive leaves a note saying how to make it, and the build goes on without a warning.
The asv dashboard is ``asv_dashboard.py``'s.
"""

from __future__ import annotations

import csv
import io
import pathlib

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.util import logging

logger = logging.getLogger(__name__)

DOCS = pathlib.Path(__file__).resolve().parent.parent
ROOT = DOCS.parent
DATA = DOCS / "_data"
OUT = DOCS / "generated" / "figures"  # git-ignored


def _read_csv(path):
    """Rows of a CSV file as dicts, leading ``#`` lines skipped; None when the file is missing."""
    if not path.is_file():
        return None
    lines = [ln for ln in path.read_text().splitlines() if not ln.startswith("#")]
    return list(csv.DictReader(io.StringIO("\n".join(lines))))


def _float(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def draw_families(families, rows, path):
    """The tour's bandwidth figure (:func:`primitives.tour.plot.draw_families`), one panel per
    tour section of ``families``."""
    from primitives.tour import plot

    return plot.draw_families(families, rows, path)


def draw_peers(rows, path):
    """Our time over the peer's for every row of figures.csv (below 1: we are faster)."""
    plt = _plt()
    if not rows:
        return False
    labels = [f"{r['family']}: {r['work']} vs {r['peer']}" for r in rows]
    ratio = [_float(r["ratio"]) for r in rows]
    fig, ax = plt.subplots(figsize=(9, 0.8 + 0.26 * len(rows)))
    ax.barh(
        range(len(rows)),
        ratio,
        color=["#1b9e77" if v <= 1 else "#d95f02" for v in ratio],
    )
    ax.axvline(1.0, color="k", linewidth=1)
    for i, v in enumerate(ratio):
        ax.text(v if v == v else 0, i, f" {v:.3f}", fontsize=7, va="center")
    ax.set_xlim(0, max([1.0] + [v for v in ratio if v == v]) * 1.12)
    ax.set_yticks(range(len(rows)), labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("our time / peer's time (below 1: faster than the peer)", fontsize=8)
    ax.tick_params(axis="x", labelsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return True


def _note(text):
    para = nodes.paragraph()
    para += nodes.emphasis(text=text)
    return [nodes.note("", para)]


def _image(env, path, alt):
    # image URIs are relative to the source directory when they start with '/'
    rel = "/" + path.relative_to(DOCS).as_posix()
    env.note_dependency(str(path))
    return [nodes.image(uri=rel, alt=alt, candidates={"*": rel})]


class PerfFigure(Directive):
    required_arguments = 1
    final_argument_whitespace = True

    def run(self):
        env = self.state.document.settings.env
        families = self.arguments[0].split()
        csv_path = DATA / "tour.csv"
        env.note_dependency(str(csv_path))
        rows = _read_csv(csv_path)
        if rows is None:
            return _note(
                "No measured data yet: the figure is drawn from docs/_data/tour.csv, "
                "written on a GPU by python -m primitives --csv docs/_data/tour.csv."
            )
        path = OUT / f"tour-{'-'.join(families)}.png"
        if not draw_families(families, rows, path):
            return _note(f"docs/_data/tour.csv has no rows of {', '.join(families)}.")
        alt = f"Achieved GB/s of every {', '.join(families)} variant and peer"
        return _image(env, path, alt)


class PeerFigure(Directive):
    def run(self):
        env = self.state.document.settings.env
        csv_path = DATA / "figures.csv"
        env.note_dependency(str(csv_path))
        rows = _read_csv(csv_path)
        if rows is None:
            return _note(
                "No measured data yet: the figure is drawn from docs/_data/figures.csv, "
                "written on a GPU by python -m tools.figures --csv "
                "docs/_data/figures.csv."
            )
        path = OUT / "peers.png"
        if not draw_peers(rows, path):
            return _note("docs/_data/figures.csv has no rows.")
        return _image(env, path, "Our time over the peer's time, per measured work")


def setup(app):
    app.add_directive("perf-figure", PerfFigure)
    app.add_directive("peer-figure", PeerFigure)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}

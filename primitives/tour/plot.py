"""The tour's bandwidth figure: achieved GB/s of every contender (variants and peers) of every
timed section, against the measured copy rate. ``python -m primitives --plot PATH`` draws it from
the run it just made; the docs draw the same picture from ``docs/_data/tour.csv``
(``docs/_ext/perf_figures.py``). On the emulator, where rates say nothing about a GPU, each
contender's time is drawn instead. Needs matplotlib (the ``plot`` extra)."""

from __future__ import annotations

import pathlib
import textwrap

from . import is_peer

__all__ = ["draw_families", "is_peer", "PEER", "VARIANT"]

VARIANT, PEER = "#1b9e77", "#d95f02"  # bar colours: our variants, the peers


def _float(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")


def _num(v):
    return f"{v:,.0f}" if v >= 100 else f"{v:.3g}"


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def draw_families(families, rows, path, title=None):
    """One panel per timed section of ``families``: horizontal bars of GB/s per contender, the
    copy rate dashed; where the rows have no rates (the emulator: empty ``copy_gbs``), bars of
    time in ms. ``rows``: dicts with the tour CSV's columns (``family``, ``section``,
    ``contender``, ``ok``, ``ms``, ``gbs``, ``copy_gbs``, ``device``). Rows that failed their
    check or were not timed are left out. Returns False (and writes nothing) when no row is
    left."""
    sections = {}
    for r in rows:
        if (
            r["family"] in families
            and str(r.get("ok", "1")) not in ("0", "False")
            and _float(r.get("ms")) == _float(r.get("ms"))
        ):
            sections.setdefault(r["section"], []).append(r)
    if not sections:
        return False
    plt = _plt()
    heights = [0.9 + 0.28 * len(v) for v in sections.values()]
    fig, axes = plt.subplots(
        len(sections),
        1,
        figsize=(9, sum(heights) + 0.6),
        gridspec_kw={"height_ratios": heights},
        squeeze=False,
    )
    rates = True
    for ax, (name, rs) in zip(axes[:, 0], sections.items()):
        names = [r["contender"] for r in rs]
        copy = _float(rs[0].get("copy_gbs"))
        rates = copy == copy  # not NaN: a GPU run
        vals = [_float(r["gbs"] if rates else r["ms"]) for r in rs]
        ax.barh(range(len(rs)), vals, color=[PEER if is_peer(n) else VARIANT for n in names])
        ax.set_yticks(range(len(rs)), names, fontsize=8)
        ax.invert_yaxis()
        if rates:
            ax.axvline(
                copy,
                color="k",
                linestyle="--",
                linewidth=1,
                label=f"device copy rate, {_num(copy)} GB/s",
            )
            ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), fontsize=7, frameon=False)
        top = max([copy if rates else 0] + [v for v in vals if v == v] + [1e-9])
        ax.set_xlim(0, top * 1.3)
        for i, v in enumerate(vals):
            label = f" {_num(v)} GB/s ({100 * v / copy:.0f}% of copy)" if rates else f" {v:.3g} ms"
            ax.text(v if v == v else 0, i, label, fontsize=7, va="center")
        ax.set_title(name, fontsize=9, loc="left")
        ax.tick_params(axis="x", labelsize=8)
    axes[-1, 0].set_xlabel(
        "achieved GB/s (bytes the operation must move; dashed: measured device copy rate)"
        if rates
        else "time in ms (CPU wall-clock of the emulated kernels: no GPU rates)",
        fontsize=8,
    )
    devices = ", ".join(sorted({r.get("device", "") for r in rows if r.get("device")}))
    title = title or f"{', '.join(families)}: variants (green) and peers (orange) — {devices}"
    fig.suptitle(textwrap.fill(title, 110), fontsize=9)
    fig.tight_layout()
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True

"""``python -m tools.figures.compare BEFORE.md AFTER.md``: this library's times in two runs of
``tools.figures`` (two trees measured on one machine, say), row by row.

Rows are matched by section and by their identifying cells (every column that is not a
measurement: the work, n, the peer, the variant ...); the time compared is this library's
(the column ``primitives ms``, or ``ms`` in tables of this library alone). Prints one table,
after / before per row, and the rows that moved more than ``--tolerance`` (default 2%); the exit
status is 1 when a row got slower by more than that, or when a row of one run is missing from the
other.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

from tools.figures import page

#: header words of the columns that are measurements, not a row's identity
MEASURES = ("ms", "ratio", "gb/s", "% copy", "vs ", "x)", "speedup")
#: the column of this library's time, by header, in order of preference
OURS = ("primitives ms", "ms")


def rows(text):
    """``{(section, table header, identity...): our ms}`` of a figures page or run; a section
    under a family's earlier name (``## sort``, a run before the rename) is the family's."""
    from primitives._core import registry

    renamed = registry.aliases()
    out = {}
    section, header = "", None
    for line in text.splitlines():
        if line.startswith("## "):
            section, header = line[3:].strip(), None
            section = renamed.get(section, section)
            continue
        if not line.startswith("|"):
            header = None
            continue
        cells = page.cells(line)
        if header is None:
            header = cells
            continue
        if set("".join(cells)) <= set("-: "):  # the rule under the header
            continue
        low = [h.lower() for h in header]
        ours = next((low.index(o) for o in OURS if o in low), None)
        if ours is None or len(cells) != len(header):
            continue
        ident = tuple(
            c for h, c in zip(low, cells) if not any(m in h for m in MEASURES) and h != ""
        )
        try:
            ms = float(cells[ours])
        except ValueError:
            continue
        key = (section, header[0], *ident)
        out.setdefault(key, ms)  # a row repeated per peer: the first one's time
    return out


def compare(before, after, tolerance=0.02):
    """(markdown lines, slower rows, missing rows)."""
    b, a = rows(before), rows(after)
    lines = ["| section | row | before ms | after ms | after / before |", "|---|---|---|---|---|"]
    slower, missing = [], sorted(set(b) ^ set(a))
    for key in sorted(set(b) & set(a)):
        r = a[key] / b[key] if b[key] else float("inf")
        mark = " **slower**" if r > 1 + tolerance else (" faster" if r < 1 - tolerance else "")
        lines.append(
            f"| {key[0]} | {' / '.join(key[1:])} | {b[key]:.4f} | {a[key]:.4f} | {r:.3f}{mark} |"
        )
        if r > 1 + tolerance:
            slower.append(key)
    return lines, slower, missing


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.figures.compare", description=__doc__)
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--tolerance", type=float, default=0.02)
    args = ap.parse_args(argv)
    lines, slower, missing = compare(
        pathlib.Path(args.before).read_text(), pathlib.Path(args.after).read_text(), args.tolerance
    )
    print("\n".join(lines))
    for key in missing:
        print(f"only in one run: {' / '.join(key)}")
    print(f"{len(lines) - 2} rows compared, {len(slower)} slower by more than {args.tolerance:.0%}")
    return 1 if slower or missing else 0


if __name__ == "__main__":
    sys.exit(main())

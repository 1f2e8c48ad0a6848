"""The page ``python -m tools.figures --out`` writes (docs/performance.md): one section per family,
each opening with a line that names the device, driver, versions, commit and date of the run that
measured it, every section of one kind of device.

A run of some families replaces their sections and keeps the others (those of other families and
those written by other tools, such as ``start`` and ``dask_scaling``); it never puts sections of
two kinds of device on one page. No GPU is needed here: :mod:`tools.figures.__main__` measures,
this module only writes.
"""

from __future__ import annotations

import re

PAGE_HEAD = """# Performance

The current figures, all measured on one kind of device, one section per family: each section
opens with the device, driver, library versions, commit and date of the run that measured it.
`python -m tools.figures --out docs/performance.md` on a GPU machine writes the page;
`--family NAME` measures one family and replaces its section, keeping the others, and refuses a
page whose other sections were measured on another kind of device. Every figure is measured in
one run: times are medians of per-call CUDA-event timings after warm-up, on random data, with
inputs several times the 50 MB L2; the contenders of a row (ours, CuPy, CUB through
`cuda.compute`) are timed in interleaved rounds (5 rounds of 5 warm-ups and 20 samples), so drift
hits all alike; every result is checked against the NumPy oracle before it is timed. Each sample
is the device's time: the stream is held busy (`kernels/core/hold.cu`) while the call's host
work is done, and the start event follows the hold, as nvbench times behind a blocking kernel.
Sections measured before that (commits before 2026-12-06) count in each sample the host's time
up to the call's first launch too, a few to tens of microseconds for every contender alike; the
host cost of a call is the small-calls figure (`start`). Ratios are
ours over the peer's time (below 1: faster). "% copy" is the achieved bandwidth over the
device-to-device copy rate measured in the same run. `python -m primitives` prints every variant,
checked and timed, on the machine at hand. The history of each family's figures, the runs on
other devices among them, is in `docs/perf-log/` (a folder per month, a file per family)."""

_MEASURED = re.compile(r"Measured on (?:an? )?(.+?) \(")


def cells(line):
    """The cells of a Markdown table row (``| a | b |`` -> ``["a", "b"]``), stripped."""
    return [c.strip() for c in line.strip().strip("|").split("|")]


def header(device, copy, family):
    """The line a section opens with. ``device``: the run's device line as
    :mod:`tools.figures.__main__` makes it ("NVIDIA H200 (132 SMs), driver ..., CuPy ...,
    commit ..., 2026-11-29"); ``copy``: its copy-rate line; ``family``: the ``--family`` that
    measures the section."""
    return f"Measured on {device}; {copy} (`python -m tools.figures --family {family}`)."


def device_of(lines):
    """The kind of device a section was measured on ("NVIDIA H200"): the words after the first
    "Measured on" of its lines, up to the parenthesis that follows them; None if it has none."""
    for line in lines:
        m = _MEASURED.search(line)
        if m:
            return m.group(1)
    return None


def split(text):
    """``(head, sections)`` of a page: the lines before the first section, and one ``(name,
    lines)`` per section (a ``## name`` line and the lines up to the next one)."""
    head, sections = [], []
    for line in text.splitlines():
        if line.startswith("## "):
            sections.append((line[3:].strip(), []))
        elif sections:
            sections[-1][1].append(line)
        else:
            head.append(line)
    return head, sections


def _trim(lines):
    lines = list(lines)
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def merge(old, new, order, device, renamed=None):
    """The page's text: the sections ``new`` (``[(name, lines)]``, each opening with its
    :func:`header`) in place of the sections of the same names in ``old`` (a page's text, or
    None), the others of ``old`` kept. Sections named in ``order`` come first, in that order;
    the rest follow in the order they had. ``renamed`` (``{earlier name: name}``, the
    registry's aliases) names the sections of an ``old`` page written before a family was
    renamed by the family's name. Raises ValueError when a kept section was measured on
    another kind of device than ``device`` (the run's, e.g. "NVIDIA H200")."""
    fresh = {name: _trim(lines) for name, lines in new}
    kept = {}
    for name, lines in split(old)[1] if old else ():
        name = (renamed or {}).get(name, name)
        if name in fresh:
            continue
        other = device_of(lines)
        if other is not None and other != device:
            raise ValueError(
                f"section {name!r} was measured on {other}, this run on {device}: "
                f"a page holds the figures of one kind of device. Move the other "
                f"device's sections to docs/perf-log/ (the month's file of the "
                f"family), or write this run to another file"
            )
        kept[name] = _trim(lines)
    sections = {**kept, **fresh}
    names = [n for n in order if n in sections] + [n for n in sections if n not in order]
    out = [PAGE_HEAD]
    for name in names:
        out += ["", f"## {name}", "", *sections[name]]
    return "\n".join(out) + "\n"

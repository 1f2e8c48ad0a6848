"""The page python -m tools.figures writes (tools/figures/page.py), without a GPU: a run replaces
its families' sections and keeps the others, never mixes two kinds of device, and
docs/performance.md is a page in that form."""

import pathlib

import pytest

from primitives._core import registry
from tools.figures import PEER_HEADER, Context, page
from tools.figures.__main__ import page_sections, section_order, write_page

ROOT = pathlib.Path(__file__).resolve().parent.parent
PERFORMANCE = ROOT / "docs" / "performance.md"
DEVICE = "NVIDIA H200 (132 SMs), driver 1, CuPy 2, commit abc1234, 2026-11-30"
COPY = "measured copy bandwidth (read + write, 2 GiB): 4200 GB/s"


def _run(*families):
    """The sections a run of ``families`` writes: a Context filled as the runner and the
    figures modules fill it (scan's module also writes compaction and segmented)."""
    ctx = Context(4200.0, None)
    ctx.lines += [f"device: {DEVICE}", COPY]
    for family in families:
        ctx.measuring = family
        ctx.section(family)
        ctx.rows(["work", "ms"], [(f"{family} work", "1.0000")])
        if family == "scan":
            for other in ("compaction", "segmented"):
                ctx.section(other)
                ctx.rows(["work", "ms"], [(f"{other} work", "2.0000")])
    return ctx, page_sections(ctx.lines[2:], ctx.sections, DEVICE, COPY)


def test_each_section_opens_with_the_run_and_the_command_that_measures_it():
    ctx, sections = _run("sorting", "scan")
    assert [name for name, _ in sections] == ["sorting", "scan", "compaction", "segmented"]
    assert ctx.sections[-1] == ("segmented", "scan")
    for name, lines in sections:
        family = "sorting" if name == "sorting" else "scan"
        assert lines[0] == (
            f"Measured on {DEVICE}; {COPY} (`python -m tools.figures --family {family}`)."
        )
        assert f"| {name} work |" in "\n".join(lines)
        assert page.device_of(lines) == "NVIDIA H200"


def test_a_new_page_holds_the_sections_in_the_registry_order():
    _, sections = _run("sorting", "scan")
    text = page.merge(None, sections, section_order(), "NVIDIA H200")
    head, cut = page.split(text)
    assert "\n".join(head).strip() == page.PAGE_HEAD
    assert [name for name, _ in cut] == ["scan", "compaction", "segmented", "sorting"]


def test_a_run_replaces_its_sections_and_keeps_the_others():
    _, sections = _run("sorting", "scan")
    old = page.merge(
        None,
        sections + [("start", ["Hand-written, no device named."])],
        section_order(),
        "NVIDIA H200",
    )
    ctx = Context(4200.0, None)
    ctx.lines += [f"device: {DEVICE.replace('abc1234', 'def5678')}", COPY]
    ctx.measuring = "sorting"
    ctx.section("sorting")
    ctx.rows(["work", "ms"], [("sorting work", "0.5000")])
    new = page_sections(ctx.lines[2:], ctx.sections, ctx.lines[0].removeprefix("device: "), COPY)
    text = page.merge(old, new, section_order(), "NVIDIA H200")
    cut = dict(page.split(text)[1])
    assert list(cut) == ["scan", "compaction", "segmented", "sorting", "start"]
    assert "commit def5678" in cut["sorting"][1] and "| sorting work | 0.5000 |" in cut["sorting"]
    assert "commit abc1234" in cut["scan"][1]
    assert cut["start"] == ["", "Hand-written, no device named."]
    assert page.merge(text, [], section_order(), "NVIDIA H200") == text


def test_a_run_on_another_kind_of_device_is_refused():
    _, sections = _run("sorting", "scan")
    old = page.merge(None, sections, section_order(), "NVIDIA H200")
    other = [
        (
            "sorting",
            [page.header("NVIDIA H100 80GB HBM3 (132 SMs), commit x, 2026-11-30", COPY, "sorting")],
        )
    ]
    with pytest.raises(
        ValueError, match="'scan' was measured on NVIDIA H200, this run on NVIDIA H100 80GB HBM3"
    ):
        page.merge(old, other, section_order(), "NVIDIA H100 80GB HBM3")
    # every section measured again: nothing of the other device is kept
    full = [(name, other[0][1]) for name, _ in sections]
    assert page.merge(old, full, section_order(), "NVIDIA H100 80GB HBM3")


def test_sections_of_an_earlier_name_take_the_family_s_name():
    """A page written before the families took their packages' names (``## sort``,
    ``## spmv``...): a run names its sections by the families' names, replacing those it measured
    and renaming the others; the page has no section of an earlier name left."""
    assert section_order()[:2] == ["reduction", "sparse"]
    old = "\n".join(
        [page.PAGE_HEAD]
        + [f"\n## {name}\n\n{name} work" for name in ("reduction", "spmv", "sort", "search")]
    )
    ctx = Context(4200.0, None)
    ctx.lines += [f"device: {DEVICE}", COPY]
    ctx.measuring = "sorting"
    ctx.section("sorting")
    ctx.rows(["work", "ms"], [("sorting work", "0.5000")])
    new = page_sections(ctx.lines[2:], ctx.sections, DEVICE, COPY)
    text = page.merge(old, new, section_order(), "NVIDIA H200", renamed=registry.aliases())
    cut = dict(page.split(text)[1])
    assert list(cut) == ["reduction", "sparse", "sorting", "searching"]
    assert cut["sparse"][:2] == ["", "spmv work"] and cut["searching"] == ["", "search work"]
    assert "| sorting work | 0.5000 |" in cut["sorting"]


def test_performance_md_is_a_page_of_one_kind_of_device():
    """docs/performance.md is what the figures write: their head, the sections in their order,
    each table after a line naming the device, commit and date, one kind of device throughout;
    writing it back changes nothing."""
    text = PERFORMANCE.read_text()
    head, sections = page.split(text)
    assert "\n".join(head).strip() == page.PAGE_HEAD
    names = [name for name, _ in sections]
    known = [n for n in names if n in section_order()]
    assert known == [n for n in section_order() if n in names]
    assert set(section_order()) <= set(names), "a family without a section"
    devices = set()
    for name, lines in sections:
        tables = [i for i, line in enumerate(lines) if line.startswith("|")]
        if tables:
            measured = [i for i, line in enumerate(lines) if "Measured on " in line]
            assert measured and measured[0] < tables[0], f"{name}: a table before its run's line"
            devices.add(page.device_of(lines))
    assert len(devices) == 1, f"docs/performance.md mixes devices: {devices}"
    assert page.merge(text, [], section_order(), devices.pop()) == text


def _tables(lines):
    """Each Markdown table of ``lines``: (line number of its header, header cells, rows' cells)."""
    tables, start = [], None
    for i, line in enumerate([*lines, ""]):
        if line.startswith("|") and start is None:
            start = i
        elif not line.startswith("|") and start is not None:
            rows = [page.cells(row) for row in lines[start:i]]
            tables.append((start + 1, rows[0], rows[2:]))
            start = None
    return tables


@pytest.mark.parametrize(
    "path",
    [PERFORMANCE, *sorted((ROOT / "docs" / "perf-log").rglob("*.md"))],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_every_table_has_its_header_s_columns(path):
    """A row under another table's header (a peer row written after a family's own table) shows
    as a broken table: every row of the figures' page and of the perf log has as many cells as
    its table's header."""
    for line, header, rows in _tables(path.read_text().split("\n")):
        for row in rows:
            assert len(row) == len(header), f"{path.name}:{line}: {header} / {row}"


def test_a_peer_row_opens_a_peer_table_after_another_table():
    ctx = Context(4200.0, None)
    ctx.section("histograms")
    ctx.peer_row("a", 1 << 20, 1.0, 4 << 20, "peer", 2.0)
    ctx.peer_row("b", 1 << 20, 1.0, 4 << 20, "peer", 2.0)  # the same table
    ctx.rows(["case", "ours ms", "met"], [("c", "1.0", "yes")])
    ctx.peer_row("d", 1 << 20, 1.0, 4 << 20, "peer", 2.0)  # after the family's own table
    ctx.lines += ["", "a caption"]
    ctx.peer_row("e", 1000, 1.0, 4000, "peer", 2.0)  # after a caption
    tables = _tables(ctx.lines)
    assert [len(rows) for _, _, rows in tables] == [2, 1, 1, 1]
    assert [tuple(h) for _, h, _ in tables] == [PEER_HEADER, ("case", "ours ms", "met")] + [
        PEER_HEADER
    ] * 2
    for _, header, rows in tables:
        assert all(len(row) == len(header) for row in rows)
    assert ctx.open_table() == PEER_HEADER
    ctx.section("sorting")
    assert ctx.open_table() is None


def test_the_page_is_written_after_each_family(tmp_path):
    """The runner writes the page after each family it measured (write_page), so a run cut
    short (a time limit) keeps the families it finished, and a page of another kind of device
    stops the run at its first family."""
    _, sections = _run("sorting", "scan")
    path = tmp_path / "performance.md"
    path.write_text(page.merge(None, sections, section_order(), "NVIDIA H200"))
    ctx = Context(4200.0, None)
    ctx.lines += [f"device: {DEVICE.replace('abc1234', 'def5678')}", COPY]
    ctx.measuring = "sorting"
    ctx.section("sorting")
    ctx.rows(["work", "ms"], [("sorting work", "0.5000")])
    write_page(path, ctx, "NVIDIA H200")
    cut = dict(page.split(path.read_text())[1])
    assert "commit def5678" in cut["sorting"][1] and "| sorting work | 0.5000 |" in cut["sorting"]
    assert "commit abc1234" in cut["scan"][1]
    ctx.measuring = "scan"
    ctx.section("scan")
    ctx.rows(["work", "ms"], [("scan work", "0.2500")])
    write_page(path, ctx, "NVIDIA H200")
    cut = dict(page.split(path.read_text())[1])
    assert "| sorting work | 0.5000 |" in cut["sorting"] and "| scan work | 0.2500 |" in cut["scan"]
    assert "commit abc1234" in cut["compaction"][1]
    before = path.read_text()
    with pytest.raises(SystemExit, match="performance.md: section 'compaction' was measured on"):
        write_page(path, ctx, "NVIDIA H100 80GB HBM3")
    assert path.read_text() == before

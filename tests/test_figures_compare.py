"""tools.figures.compare: two runs of tools.figures, row by row."""

from tools.figures import compare

BEFORE = """## sorting

| work | n | primitives ms | peer | peer ms | ratio (ours/peer) |
|---|---|---|---|---|---|
| sort uint32 | 2^27 | 2.000 | CUB | 2.5 | 0.8 |
| sort uint32 | 2^27 | 2.000 | cupy.sort | 4.0 | 0.5 |
| sort float32 | 2^27 | 1.000 | CUB | 2.5 | 0.4 |

| ladder variant | ms | vs alpha |
|---|---|---|
| alpha | 1.0 | 1.00x |
"""

AFTER = BEFORE.replace("| 2.000 |", "| 2.010 |").replace("| 1.000 |", "| 1.100 |")


def test_rows_are_matched_by_section_and_identity():
    r = compare.rows(BEFORE)
    assert r[("sorting", "work", "sort uint32", "2^27", "CUB")] == 2.0
    assert r[("sorting", "ladder variant", "alpha")] == 1.0
    assert len(r) == 4


def test_slower_rows_and_missing_rows_are_reported(tmp_path, capsys):
    lines, slower, missing = compare.compare(BEFORE, AFTER)
    assert [k[2] for k in slower] == ["sort float32"] and missing == []
    assert any("1.005" in line for line in lines)
    (tmp_path / "b.md").write_text(BEFORE)
    (tmp_path / "a.md").write_text(AFTER.replace("| alpha | 1.0 |", "| beta | 1.0 |"))
    assert compare.main([str(tmp_path / "b.md"), str(tmp_path / "a.md")]) == 1
    out = capsys.readouterr().out
    assert "only in one run: sorting / ladder variant / alpha" in out
    (tmp_path / "a.md").write_text(BEFORE)
    assert compare.main([str(tmp_path / "b.md"), str(tmp_path / "a.md")]) == 0


def test_a_section_of_a_family_s_earlier_name_is_the_family_s():
    """A run of a tree before the families took their packages' names (``## sort``) is matched
    row by row with one after (``## sorting``)."""
    lines, slower, missing = compare.compare(BEFORE.replace("## sorting", "## sort"), AFTER)
    assert missing == [] and [k[0] for k in slower] == ["sorting"]

"""The family pages as users read them: each opens with what the family does and an example,
then a table of its variants (every name of the family's ``VARIANTS``, no other), its
performance figure, and the details after; the code the pages show fits the theme's column."""

import pathlib
import re

import pytest

from primitives._core import registry

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"
CODE_COLUMN = 88  # characters of code the theme's column shows without scrolling
PAGES = sorted({f.doc for f in registry.FAMILIES if f.doc})


def _sections(text):
    """The titles of a page's sections (underlined with ``-``), in order."""
    return re.findall(r"^([^\n]+)\n-{3,}\n", text, re.M)


@pytest.mark.parametrize("page", PAGES)
def test_family_page_order(page):
    assert (DOCS / f"{page}.rst").is_file(), f"the family's page docs/{page}.rst is missing"
    text = (DOCS / f"{page}.rst").read_text()
    titles = _sections(text)
    assert titles[:2] == ["Variants", "Performance"], (page, titles)
    assert titles[-1] == "How it works", (page, titles)
    first = text.index("\nVariants\n")
    assert ".. literalinclude:: examples/" in text[:first], f"{page}: no example before Variants"
    performance = text[text.index("\nPerformance\n") : text.index(f"\n{titles[2]}\n")]
    assert ".. perf-figure::" in performance, f"{page}: no figure in Performance"


@pytest.mark.parametrize("page", PAGES)
def test_variants_table_lists_the_variants(page):
    assert (DOCS / f"{page}.rst").is_file(), f"the family's page docs/{page}.rst is missing"
    text = (DOCS / f"{page}.rst").read_text()
    table = text[text.index("\nVariants\n") : text.index("\nPerformance\n")]
    listed = re.findall(r"^   \* - ``(\w+)``", table, re.M)
    want = [v for f in registry.FAMILIES if f.doc == page for v in f.variants()]
    assert sorted(listed) == sorted(want), (page, listed, want)


def _shown_code():
    """(where, line) of every line of code the pages show: the examples between their
    markers, the gallery's scripts but their docstrings, and the code blocks of the pages."""
    for path in sorted((DOCS / "examples").glob("*.py")):
        inside = False
        for i, line in enumerate(path.read_text().splitlines(), 1):
            if re.match(r"# (begin|end)-\w+$", line.strip()):  # # begin-example, ...
                inside = "begin" in line
            elif inside:
                yield f"{path.name}:{i}", line
    for path in sorted((DOCS / "gallery").glob("*.py")):
        text = path.read_text()
        start = text.index('"""', text.index('"""') + 3) + 3  # after the docstring
        first = text[:start].count("\n") + 1
        for i, line in enumerate(text[start:].splitlines(), first):
            yield f"{path.name}:{i}", line
    for path in sorted(DOCS.glob("*.rst")):
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            # code, not the text blocks (diagrams, tables of figures)
            if re.match(r"\s*\.\. code-block::", line) and "text" not in line:
                indent = len(line) - len(line.lstrip()) + 3
                for j in range(i + 1, len(lines)):
                    body = lines[j]
                    if body.strip() and len(body) - len(body.lstrip()) < indent:
                        break
                    yield f"{path.name}:{j + 1}", body[indent:]


def test_code_fits_the_column():
    long = [f"{where} ({len(line)})" for where, line in _shown_code() if len(line) > CODE_COLUMN]
    assert not long, f"code lines over {CODE_COLUMN} characters: {long}"

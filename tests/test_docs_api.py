"""The API reference documents every public name: each name of ``primitives.__all__`` (but
``__version__`` and the subpackages), of ``primitives.sparse.__all__`` and of
``primitives.dask.__all__`` has an entry (``autofunction``, ``autoclass``, ``py:data``, a member
of an ``automodule``) in docs/*.rst. The lists are read when the test runs, so a function added
to a package's ``__all__`` needs its line in docs/api.rst."""

import importlib
import pathlib
import re
import types

import pytest

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"

# ``.. autofunction:: primitives.sum`` or ``.. py:data:: VARIANTS`` followed by its option
# lines (``   :module: primitives.sparse``, ``   :members: a, b``)
_DIRECTIVE = re.compile(
    r"^\.\. (?:py:)?(?:auto)?(function|class|exception|data|attribute|module)::[ \t]*([\w.]+)"
    r"[^\n]*\n((?:[ \t]+:[\w-]+:[^\n]*\n)*)",
    re.M,
)


def documented():
    """Every fully qualified name that an entry of docs/*.rst describes."""
    names = set()
    for page in DOCS.glob("*.rst"):
        for kind, name, options in _DIRECTIVE.findall(page.read_text()):
            opts = dict(re.findall(r":([\w-]+):[ \t]*([^\n]*)", options))
            full = f"{opts['module']}.{name}" if "module" in opts else name
            names.add(full)
            if kind == "module" and opts.get("members"):
                names.update(f"{full}.{m.strip()}" for m in opts["members"].split(","))
    return names


def public(module):
    mod = importlib.import_module(module)
    return [
        f"{module}.{n}"
        for n in mod.__all__
        if n != "__version__" and not isinstance(getattr(mod, n), types.ModuleType)
    ]


@pytest.mark.parametrize("module", ["primitives", "primitives.sparse", "primitives.dask"])
def test_every_public_name_has_an_api_entry(module):
    if module == "primitives.dask":
        pytest.importorskip("dask")
    missing = sorted(set(public(module)) - documented())
    assert not missing, (
        f"no entry in the API reference for {missing}: add `.. autofunction:: <name>` (or "
        "autoclass) to the family's section of docs/api.rst"
    )


def test_the_parser_reads_entries():
    names = documented()
    assert {"primitives.sum", "primitives.sparse.CSR", "primitives.tuning.override"} <= names
    assert "primitives.sparse.VARIANTS" in names  # a py:data with :module:

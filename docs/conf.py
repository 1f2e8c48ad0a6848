"""Sphinx configuration for the primitives documentation.

Build from the repository root: ``sphinx-build -W -b html docs docs/_build/html``.
Needs only Sphinx (the ``docs`` extra); no network access.
"""

import os
import sys

# import primitives from the source checkout this file lives in
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, ROOT)

import primitives  # noqa: E402

project = "primitives"
author = "the primitives authors"
copyright = "the primitives authors"  # noqa: A001 - Sphinx's name
release = primitives.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]

# Google-style docstrings (Args/Returns/Raises)
napoleon_google_docstring = True
napoleon_numpy_docstring = False
autodoc_member_order = "bysource"
autodoc_typehints = "none"

# Markdown pages (performance.md, emulator.md, ...) are read on GitHub, not rendered here.
exclude_patterns = ["_build", "**.md", "examples/**"]
source_suffix = {".rst": "restructuredtext"}
root_doc = "index"

html_theme = "alabaster"
html_static_path = []
# copy the Markdown pages the reST pages link to (when present) next to the HTML
html_extra_path = [p for p in ["performance.md"] if os.path.exists(os.path.join(ROOT, "docs", p))]

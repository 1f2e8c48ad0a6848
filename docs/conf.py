"""Sphinx configuration for the primitives documentation.

Build from the repository root, with the ``docs`` extra installed::

    python -m sphinx -W -b html docs docs/_build/html

The build draws the performance figures from ``docs/_data/*.csv`` (``_ext/perf_figures.py``),
runs the gallery's examples (``gallery/``, on the CPU emulator where there is no GPU) and, when
``asv`` is installed and ``asv_bench/results/`` holds results, publishes the asv dashboard into
``asv/`` of the output (``_ext/asv_dashboard.py``). The site needs no network: MathJax and the
dashboard's JavaScript libraries are copies in the site. Only the first build with a dashboard
needs the npm registry (npm fetches those libraries once into ``docs/_build/asv-js/``).
"""

import os
import sys

# import primitives from the source checkout this file lives in
DOCS = os.path.abspath(os.path.dirname(__file__))
ROOT = os.path.dirname(DOCS)
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(DOCS, "_ext"))

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
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "perf_figures",
    "asv_dashboard",
    "sphinx-mathjax-offline",  # MathJax from the site itself, not a CDN
    "families",
]

# Google-style docstrings (Args/Returns/Raises)
napoleon_google_docstring = True
napoleon_numpy_docstring = False
autodoc_member_order = "bysource"
autodoc_typehints = "none"

# Markdown pages (performance.md, emulator.md, perf-log/) render through MyST
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = [
    "_build",
    "examples/**",
    "gallery/**",
    "generated/figures/**",
    "**/README.md",
]
root_doc = "index"
myst_heading_anchors = 3
# the Markdown pages link to source files of the repository (tools/..., kernels/...), which
# are not pages of this site
suppress_warnings = ["myst.xref_missing", "myst.header"]

# the example gallery: every script in gallery/ runs at build time (on the emulator without a
# GPU); its output and code become a page each
sphinx_gallery_conf = {
    "examples_dirs": "gallery",
    "gallery_dirs": "generated/gallery",
    "filename_pattern": r".*\.py$",
    "download_all_examples": False,
    "show_memory": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "write_computation_times": False,  # no sg_execution_times.rst written into the sources
}

html_theme = "furo"
html_title = "primitives"
html_static_path = []
html_theme_options = {"navigation_with_keys": True}

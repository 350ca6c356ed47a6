"""Sphinx configuration of linclass's documentation site (``make docs``).

The site is built offline: MathJax comes from the ``sphinx-mathjax-offline`` package, the gallery's
examples (``examples/``) run at build time with sphinx-gallery, and ``-W`` turns every warning into an
error (the Makefile passes it).
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib
from threadpoolctl import threadpool_limits

matplotlib.use("Agg")
# the examples' arrays are small: one BLAS thread each is faster than several on a busy machine
threadpool_limits(1)

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

import linclass  # noqa: E402

project = "linclass"
author = "the linclass developers"
copyright = "the linclass developers"
release = version = linclass.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx.ext.intersphinx",
    "sphinx.ext.viewcode",
    "sphinx-mathjax-offline",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "linclass_capabilities",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "**.ipynb_checkpoints", "auto_examples/*.ipynb",
                    "auto_examples/*.py", "auto_examples/*.zip", "auto_examples/*.json",
                    "auto_examples/*.md5", "auto_examples/*.codeobj.json"]
templates_path = ["_templates"]

# the API reference: one page per public name, generated from the docstrings
autosummary_generate = True
# a summary table's line is the docstring's first sentence: "Bishop 2006 sec. 4.2" does not end one
import sphinx.ext.autosummary as _autosummary  # noqa: E402

_autosummary.WELL_KNOWN_ABBREVIATIONS = (*_autosummary.WELL_KNOWN_ABBREVIATIONS, " sec.", " eq.", " cf.")
autosummary_imported_members = True
# (which inherited members a class page shows is the class template's choice: a default given here as
# True / False would replace the template's option rather than combine with it)
autodoc_default_options = {"members": True}
autodoc_typehints = "none"
autodoc_member_order = "bysource"
autoclass_content = "class"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_rtype = False
napoleon_use_ivar = True
napoleon_preprocess_types = False
# Attributes read like Parameters (a list of name (type) -- description), which also takes the numpy
# style's "a_, b_ : type" lines that ``:ivar:`` fields cannot; the records' split attribute sections too
napoleon_custom_sections = [
    ("Attributes", "params_style"),
    ("Attributes (statsmodels' names)", "params_style"),
    ("Attributes (statsmodels' names; R's in brackets)", "params_style"),
    ("Attributes (MASS's names; pandas objects, NumPy arrays of the same shapes without pandas)",
     "params_style"),
    ("Attributes (the record's own)", "params_style"),
]

# MyST: $...$ and $$...$$ for the mathematics pages, heading anchors for links into sections
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
math_number_all = False

# no network at build time: intersphinx reads nothing unless an inventory is cached
intersphinx_mapping: dict = {}

sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "reset_modules": ("matplotlib",),
    "abort_on_example_error": True,
    "show_memory": False,
    "within_subsection_order": "FileNameSortKey",
    # each API page lists the examples that use its object (the minigallery of the autosummary templates)
    "backreferences_dir": "api/generated/backreferences",
    "doc_module": ("linclass",),
}

html_theme = "furo"
html_title = f"linclass {release}"
html_static_path: list = []
html_show_sourcelink = False
nitpicky = False
suppress_warnings = ["config.cache"]

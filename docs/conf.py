"""Sphinx configuration of sparseboost's documentation site.

Build it offline (no intersphinx downloads) from the project root::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

The pages are Markdown (MyST); the API reference is autodoc/autosummary over
numpydoc docstrings; the gallery runs ``examples/plot_*.py`` during the build
(sphinx-gallery) and embeds the figures they draw.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import sparseboost

ROOT = Path(__file__).resolve().parent.parent

project = "sparseboost"
author = "the sparseboost developers"
copyright = "2026, the sparseboost developers"
release = sparseboost.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
# results_notes.md is merged into results.md by benches/reproduce_paper.py --merge.
exclude_patterns = ["_build", "results_notes.md", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints", "auto_examples/*.ipynb",
                    "auto_examples/*.py", "auto_examples/*.zip", "auto_examples/*.json",
                    "auto_examples/*.md5", "auto_examples/*.codeobj.json"]

# MyST: `$...$` maths, definition lists, and anchors for headings so that pages
# can link to each other's sections (`page.md#heading`).
myst_enable_extensions = ["dollarmath", "deflist", "colon_fence"]
myst_heading_anchors = 3

# API reference: one page per public name, from the docstrings (numpydoc).
autosummary_generate = True
templates_path = ["_templates"]
# Members of our classes, including those of sparseboost's own base classes,
# but not scikit-learn's (get_params, score, ...), whose docstrings point into
# scikit-learn's site, nor the metadata-routing setters scikit-learn generates.
_SKLEARN_BASES = (
    "BaseEstimator, ClassifierMixin, RegressorMixin, TransformerMixin, SelectorMixin,"
    " MetaEstimatorMixin, _SetOutputMixin, _MetadataRequester, object"
)
autodoc_default_options = {
    "members": True,
    "inherited-members": _SKLEARN_BASES,
    "exclude-members": "set_fit_request, set_predict_request, set_score_request,"
    " set_transform_request, set_partial_fit_request, set_predict_proba_request,"
    " set_decision_function_request, set_inverse_transform_request",
}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# The gallery: examples/ run during the build, on small data, and draw their
# figures. Matplotlib without a display.
os.environ.setdefault("MPLBACKEND", "Agg")
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": "/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "show_memory": False,
    "within_subsection_order": "FileNameSortKey",
}

html_theme = "furo"
html_title = f"sparseboost {release}"
html_static_path: list[str] = []
# No intersphinx: the build must work offline.
sys.path.insert(0, str(ROOT / "docs"))

"""The documentation site's promises, checked where they can fail.

- Every public name has a page in the API reference (``docs/api/index.rst``).
- The code blocks of the getting-started and user-guide pages run, page by
  page, each page's blocks in order in one namespace, in a scratch directory.
  A block preceded by the line ``<!-- not run: <reason> -->`` is shown but
  not run (one that needs a user's own files, say).

The site itself is built by ``.ci/docs`` (Sphinx, warnings as errors).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"

# The toctree captions of index.md whose pages are the user guide.
GUIDE_CAPTIONS = ("Getting started", "User guide")

FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
NOT_RUN = "<!-- not run:"


def api_entries():
    """(module, name) of every autosummary entry of the API reference."""
    module, entries = None, set()
    for line in (DOCS / "api" / "index.rst").read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith(".. currentmodule::"):
            module = stripped.split("::", 1)[1].strip()
        elif line.startswith("   ") and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", stripped):
            entries.add((module, stripped))
    return entries


def public_names():
    import sparseboost
    import sparseboost.dask
    import sparseboost.datasets
    import sparseboost.metrics

    names = {("sparseboost", n) for n in sparseboost.__all__ if n not in ("__version__", "metrics")}
    for mod in (sparseboost.dask, sparseboost.datasets, sparseboost.metrics):
        names |= {(mod.__name__, n) for n in mod.__all__}
    return names


def test_every_public_name_has_an_api_page():
    missing = public_names() - api_entries()
    assert not missing, f"public names without a page in docs/api/index.rst: {sorted(missing)}"


def test_the_api_reference_names_only_public_names():
    extra = api_entries() - public_names()
    assert not extra, f"docs/api/index.rst lists names that are not public: {sorted(extra)}"


def guide_pages():
    """The pages of the getting-started and user-guide toctrees of index.md."""
    index = (DOCS / "index.md").read_text()
    pages = []
    for block in re.findall(r"```\{toctree\}\n(.*?)```", index, re.S):
        caption = re.search(r"^:caption: (.*)$", block, re.M)
        if caption and caption.group(1).strip() in GUIDE_CAPTIONS:
            pages += [
                line.strip()
                for line in block.splitlines()
                if line.strip() and not line.startswith(":")
            ]
    return pages


def code_blocks(text):
    """The Python code blocks of a Markdown page that are to run."""
    blocks = []
    for match in FENCE.finditer(text):
        before = text[: match.start()].rstrip().splitlines()
        if before and before[-1].strip().startswith(NOT_RUN):
            continue
        blocks.append(match.group(1))
    return blocks


def test_the_user_guide_has_pages_with_code():
    pages = guide_pages()
    assert "getting_started" in pages and "selection" in pages
    with_code = [p for p in pages if code_blocks((DOCS / f"{p}.md").read_text())]
    assert len(with_code) >= 6, with_code


def test_a_block_marked_not_run_is_skipped():
    text = "```python\nA = 1\n```\n\n<!-- not run: needs a file -->\n```python\nB = 2\n```\n"
    assert code_blocks(text) == ["A = 1\n"]


@pytest.mark.parametrize("page", guide_pages())
def test_user_guide_code_blocks_run(page, tmp_path, monkeypatch):
    blocks = code_blocks((DOCS / f"{page}.md").read_text())
    if not blocks:
        pytest.skip(f"{page}.md has no Python code blocks")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace = {"__name__": f"docs_{page}"}
    for i, block in enumerate(blocks):
        code = compile(block, f"docs/{page}.md, Python block {i + 1}", "exec")
        exec(code, namespace)  # noqa: S102 - the documentation's own examples
    assert os.getcwd() == str(tmp_path)

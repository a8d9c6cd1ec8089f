"""docs/parameters.md, from the table of parameters (``_params``):
``python -m sparseboost._params_markdown > docs/parameters.md``.

A module of its own so that ``-m`` runs a module the package has not
imported already.
"""

from __future__ import annotations

import re
import sys

from sparseboost import _params


def _families() -> list:
    """The estimator classes grouped by identical parameter lists, in the
    table's order: ``[(class names, parameters), ...]``."""
    families: dict = {}
    for name in _params.estimators():
        key = tuple(id(p) for p in _params.parameters_of(name))
        families.setdefault(key, []).append(name)
    return [(names, _params.parameters_of(names[0])) for names in families.values()]


def _cell(text: str) -> str:
    """``text`` in a table cell: a reStructuredText role (``:class:`X```)
    as code, pipes escaped."""
    return re.sub(r":\w+:`([^`]+)`", r"`\1`", text).replace("|", "\\|")


def markdown() -> str:
    """docs/parameters.md: one table per family of estimators; a family
    that shares most parameters with an earlier one lists only the
    difference."""
    out = [
        "# Parameters",
        "",
        "Generated from `python/sparseboost/_params.py` by",
        "`python -m sparseboost._params_markdown > docs/parameters.md`;",
        "`tests/test_parameters_declared.py` fails when this file differs.",
        "",
    ]
    seen: list = []
    for names, params in _families():
        out += [f"## {', '.join(names)}", ""]
        shared = {id(p) for p in params}
        like = max(seen, key=lambda f: len(shared & {id(p) for p in f[1]}), default=None)
        listed = params
        if like is not None:
            common = [p for p in like[1] if id(p) in shared]
            if len(common) * 2 > len(params):
                missing = [f"`{p.name}`" for p in like[1] if id(p) not in shared]
                sentence = f"The parameters of {' and '.join(like[0])} (same meaning and defaults)"
                sentence += f", except {', '.join(missing)}" if missing else ""
                out += [sentence + "; and:", ""]
                listed = [p for p in params if id(p) not in {id(q) for q in like[1]}]
        out += ["| parameter | type | default | range | description |", "|---|---|---|---|---|"]
        for p in listed:
            doc = " ".join(_params.paragraphs(p.doc))
            row = (f"`{p.name}`", p.type, f"`{_params.shown(p.default)}`", p.range, doc)
            out.append("| " + " | ".join(_cell(c) for c in row) + " |")
        out.append("")
        seen.append((names, params))
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(markdown())

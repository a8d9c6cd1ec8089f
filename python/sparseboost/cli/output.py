"""The output folder of ``sparseboost select``, written all at once.

Everything is written into a temporary folder beside ``--out`` (so on the
same file system) and moved into place only when the whole run succeeded:
a run that fails, at any step, leaves ``--out`` as it was (absent, or with
the files of an earlier run), never a model without its metrics or a
truncated ``metrics.json``. An existing ``--out`` keeps the files that are
not outputs; each output replaces its namesake with one rename.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager

from .._files import publish_mode
from .errors import CliError


def _existing_ancestor(path: str) -> str:
    while not os.path.isdir(path):
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    return path


@contextmanager
def staged(out: str):
    """Yield a temporary folder to write the outputs into; on success move
    them into ``out`` (created, with its parents, if absent)."""
    out = os.path.abspath(out)
    if os.path.exists(out) and not os.path.isdir(out):
        raise CliError(f"--out {out!r} is a file, not a folder")
    # The parent may not exist yet: nothing is made there before success.
    base = _existing_ancestor(os.path.dirname(out))
    try:
        work = tempfile.mkdtemp(prefix=".sparseboost-out-", dir=base)
    except OSError as e:
        raise CliError(f"--out {out!r}: cannot write in {base!r}: {e.strerror}") from None
    try:
        yield work
        if os.path.isdir(out):
            for name in sorted(os.listdir(work)):
                os.replace(os.path.join(work, name), os.path.join(out, name))
        else:
            os.makedirs(os.path.dirname(out), exist_ok=True)
            publish_mode(work, out, folder=True)
            os.rename(work, out)
    finally:
        shutil.rmtree(work, ignore_errors=True)

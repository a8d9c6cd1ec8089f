"""The ``sparseboost`` command.

- ``sparseboost select [DATA] [options]``: select features on a data file
  (or the embedded Madelon copy), write the model, metrics and a report;
- ``sparseboost predict MODEL DATA --out predictions.csv``: score new rows
  with a model written by ``select``;
- ``sparseboost demo [options]``: the synthetic demonstration.

``sparseboost`` with no subcommand (or with only options) is ``select``.
Problems with the input print one line ``sparseboost: error: ...`` and exit
with status 2.
"""

from __future__ import annotations

import sys
import warnings

from .errors import CliError, plain

COMMANDS = ("select", "predict", "demo")
USAGE = (
    "usage: sparseboost [select] [DATA] [options] | sparseboost predict MODEL DATA --out FILE"
    " | sparseboost demo [options]\n(sparseboost COMMAND --help for a command's options;"
    " sparseboost --version)"
)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("-h", "--help"):
        print(plain(__doc__.strip().split("\n\n")[0]) + "\n\n" + USAGE)
        return 0
    if argv and argv[0] in ("-V", "--version"):
        from .. import __version__

        print(f"sparseboost {__version__}")
        return 0
    command = argv.pop(0) if argv and argv[0] in COMMANDS else "select"
    if command == "demo":
        from .demo import main as demo

        return demo(argv)
    # Warnings from the libraries (the estimators', scikit-learn's,
    # matplotlib's) as one line each, without the source line Python adds;
    # none under --quiet.
    with warnings.catch_warnings():
        warnings.showwarning = _warn
        if "--quiet" in argv:
            warnings.simplefilter("ignore")
        try:
            if command == "predict":
                from .predict import main as run
            else:
                from .select import main as run
            return run(argv)
        except CliError as e:
            return _fail(str(e))
        except (ValueError, TypeError, OSError) as e:
            # The estimators' and persistence's messages name the argument.
            return _fail(str(e))


def _one_line(message: str) -> str:
    # Spaces inside kept: they may be part of a name.
    parts = [part.strip() for part in message.strip().splitlines()]
    return " ".join(part for part in parts if part)


def _warn(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"sparseboost: warning: {_one_line(str(message))}", file=sys.stderr)


def _fail(message: str) -> int:
    line = _one_line(message) or "failed"
    print(f"sparseboost: error: {line}", file=sys.stderr)
    return 2

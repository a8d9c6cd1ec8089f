"""``python -m sparseboost``: the same as the ``sparseboost`` command
(see ``sparseboost.cli``)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())

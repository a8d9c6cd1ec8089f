"""Files written whole or not at all keep the permissions a plain write
would give.

Outputs are written to a temporary file (or folder) beside the target and
renamed over it once complete. ``tempfile`` makes those private (0600 and
0700) whatever the umask, so a model file that a service account or
another user must read would become unreadable to them, and writing over
an existing file would narrow its mode without a word.
"""

from __future__ import annotations

import os


def _umask() -> int:
    try:  # Linux: read it without changing it (os.umask is process-wide)
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def publish_mode(temporary: str, target: str, *, folder: bool = False) -> None:
    """Give ``temporary`` the mode ``target`` has if it exists, else the
    mode a new file (``folder``: folder) gets under the umask."""
    try:
        mode = os.stat(target).st_mode & 0o7777
    except OSError:
        mode = (0o777 if folder else 0o666) & ~_umask()
    os.chmod(temporary, mode)

"""One writer per output folder: an ``flock`` on ``<folder>.lock`` beside it, taken without waiting.

``generate``, ``build`` and ``push`` all take it, so two runs never write into the same folder at once; a killed
run's lock goes with its process.
"""

import fcntl
from pathlib import Path

from repo2env.core.errors import InputError


def lock_path(folder: Path) -> Path:
    """``<folder>.lock`` next to ``folder``."""
    return folder.parent / (folder.name + ".lock")


def take(handle, folder: Path) -> None:
    """``flock`` the open ``handle`` without waiting. Raises ``InputError`` when another run holds ``folder``."""
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise InputError(f"{folder}: another repo2rlenv run is writing there; wait for it or choose another "
                         "folder") from None


def hold(folder: Path):
    """Open and take the lock of ``folder``; returns the open file (close it to release). Raises ``InputError``."""
    handle = open(lock_path(folder), "w")
    try:
        take(handle, folder)
    except InputError:
        handle.close()
        raise
    return handle

"""One writer per output folder: an ``flock`` on ``<folder>.lock`` beside it, taken without waiting.

``generate``, ``build`` and ``push`` all take it, so two runs never write into the same folder at once; a killed
run's lock goes with its process. A run that ends removes the file while it still holds the lock; a run that
took the lock of a file removed meanwhile (its path no longer names the inode it locked) opens it again, so two
runs never hold locks on two different files of one path.
"""

import fcntl
import os
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


class FolderLock:
    """The held lock of one folder; ``close()`` removes ``<folder>.lock`` and releases it."""

    def __init__(self, handle, path: Path):
        self.handle, self.path = handle, path

    def close(self) -> None:
        """Remove the lock file (still holding the lock) and release it; idempotent."""
        if self.handle.closed:
            return
        try:
            if _same_file(self.handle, self.path):
                self.path.unlink()
        except OSError:
            pass
        self.handle.close()


def _same_file(handle, path: Path) -> bool:
    try:
        here, there = os.fstat(handle.fileno()), os.stat(path)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def hold(folder: Path) -> FolderLock:
    """Open and take the lock of ``folder``; returns it (``close()`` releases it and removes the file). Raises
    ``InputError`` when another run holds it."""
    path = lock_path(folder)
    for _ in range(10):
        handle = open(path, "a")
        try:
            take(handle, folder)
        except InputError:
            handle.close()
            raise
        if _same_file(handle, path):
            return FolderLock(handle, path)
        handle.close()  # the run before removed the file as we opened it: lock the new one
    raise InputError(f"{folder}: its lock file keeps changing; check that no other repo2rlenv run is writing there")

"""Writing a file so that a crash never leaves half of it."""

import os
from pathlib import Path

from repo2env.core.errors import InputError


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename (the folder is made
    when missing): a crash leaves the old file or none, never half of one, and no temporary file. Raises
    ``InputError`` naming ``path`` when it cannot be written."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError as exc:
        if tmp.parent.is_dir():
            tmp.unlink(missing_ok=True)
        raise InputError(f"{path}: cannot be written ({exc.strerror or exc}); choose a writable path") from None

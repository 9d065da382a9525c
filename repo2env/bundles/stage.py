"""Writing a bundle: staged in a directory beside ``--out``, published into it with one rename.

A crash mid-run leaves at most a staging directory behind (``<out>.staging/``), never a half-written bundle in
``--out``. Modes are set explicitly (0644, 0755 for scripts) so the bundle hash does not depend on the umask.
"""

import os
import shutil
import tempfile
from pathlib import Path

from repo2env.core import artefacts

STAGING_SUFFIX = ".staging"


def remove_tree(path: Path, trash_dir: Path) -> None:
    """Remove directory ``path`` so that it vanishes at once: rename it into ``trash_dir`` (same file system),
    then delete it there. A crash midway leaves debris in ``trash_dir``, never a half-deleted ``path``."""
    trash_dir.mkdir(parents=True, exist_ok=True)
    trash = Path(tempfile.mkdtemp(prefix=f"old-{path.name}.", dir=trash_dir))
    os.replace(path, trash / "bundle")
    shutil.rmtree(trash, ignore_errors=True)


def staging_root(out_dir: Path) -> Path:
    """``<out>.staging`` next to ``out_dir`` (same file system, so publishing is a rename)."""
    return out_dir.parent / (out_dir.name + STAGING_SUFFIX)


class BundleStage:
    """A bundle under construction. ``root`` is its directory; ``publish`` moves it to its final place."""

    def __init__(self, out_dir: Path, task_id: str):
        self.task_id = task_id
        stage = staging_root(out_dir)
        for attempt in range(3):  # another worker may remove the empty staging folder between the two calls
            stage.mkdir(parents=True, exist_ok=True)
            try:
                self.root = Path(tempfile.mkdtemp(prefix=f"{task_id}.", dir=stage))
                break
            except FileNotFoundError:
                if attempt == 2:
                    raise
        os.chmod(self.root, 0o755)

    def path(self, rel: str) -> Path:
        return self.root / rel

    def write_text(self, rel: str, text: str, *, executable: bool = False) -> Path:
        """Write a container-bound text file. Raises ``ValueError`` on a CR byte: such files must be LF-only."""
        if "\r" in text:
            raise ValueError(f"{rel}: container-bound files must use LF line endings")
        return self.write_bytes(rel, text.encode("utf-8"), executable=executable)

    def write_bytes(self, rel: str, data: bytes, *, executable: bool = False) -> Path:
        """Write ``data`` exactly (patches keep their bytes, CRLF content lines included)."""
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in path.relative_to(self.root).parents:
            os.chmod(self.root / parent, 0o755)
        path.write_bytes(data)
        os.chmod(path, 0o755 if executable else 0o644)
        return path

    def publish(self, dest: Path) -> Path:
        """Move the staged bundle to ``dest`` atomically, replacing an earlier bundle there. Returns ``dest``."""
        dest.parent.mkdir(parents=True, exist_ok=True)
        if dest.exists():
            remove_tree(dest, self.root.parent)
        os.replace(self.root, dest)
        self._cleanup_stage_dir()
        return dest

    def discard(self) -> None:
        """Throw the staged bundle away (kept in the candidate's artefacts with ``--keep-rejected``)."""
        artefacts_sink = artefacts.current()
        if artefacts_sink is None or artefacts_sink.keep_bundle(self.root) is None:
            shutil.rmtree(self.root, ignore_errors=True)
        self._cleanup_stage_dir()

    def _cleanup_stage_dir(self) -> None:
        try:
            self.root.parent.rmdir()  # only succeeds when no other bundle is being staged
        except OSError:
            pass

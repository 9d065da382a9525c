"""Per-candidate artefacts: what a candidate's build leaves to debug it, in ``<out>.logs/<task id>/``.

While ``collecting(folder)`` is active on a thread (``run.generate.build_candidate`` sets it around one
candidate), the stages record into it: each image build's log (``image-<kind>.log``), every test run's full
pytest output, JUnit XML and parsed results (``tests-before-1.log``, ``.junit.xml``, ``.json``), each control's
and probe's transcript (``control-oracle.log``, ``probe-<name>.log``), and, with ``--keep-rejected``, each bundle
that was staged and then thrown away (``bundle-1/``, ...). Without a sink nothing is recorded. The folder is
emptied when the candidate starts, so it holds the latest attempt; the ledger names it.
"""

import shutil
import threading
from contextlib import contextmanager
from pathlib import Path

_local = threading.local()


class Artefacts:
    """The artefact folder of one candidate; ``keep_rejected``: keep discarded bundles too."""

    def __init__(self, folder: Path, keep_rejected: bool = False):
        self.folder, self.keep_rejected = folder, keep_rejected
        self._count: dict[str, int] = {}
        self._lock = threading.Lock()  # runs of one candidate may record side by side (core.concurrency)

    def name(self, stem: str) -> str:
        """``stem-N`` for the N-th artefact of that stem (from 1)."""
        with self._lock:
            self._count[stem] = self._count.get(stem, 0) + 1
            return f"{stem}-{self._count[stem]}"

    def write(self, name: str, data: str | bytes) -> Path:
        """Write ``data`` as ``name`` in the folder (created on first use). Returns the file."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / name
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8", errors="replace")
        return path

    def keep_bundle(self, staged: Path) -> Path | None:
        """Move a staged bundle that is being discarded here (``bundle-N/``) when ``keep_rejected``."""
        if not self.keep_rejected or not staged.is_dir():
            return None
        self.folder.mkdir(parents=True, exist_ok=True)
        dest = self.folder / self.name("bundle")
        shutil.move(str(staged), dest)
        return dest


def current() -> Artefacts | None:
    """The sink of this thread's candidate, or None."""
    return getattr(_local, "sink", None)


def record(stem: str, suffix: str, data: str | bytes | None) -> None:
    """Record ``data`` as ``<stem>-N<suffix>`` in the current sink (nothing without one or without data)."""
    sink = current()
    if sink is not None and data is not None:
        sink.write(sink.name(stem) + suffix, data)


def record_group(stem: str, files: dict[str, str | bytes | None]) -> None:
    """Record several files under one number: ``{".log": ..., ".junit.xml": ...}`` -> ``stem-N.log``, ..."""
    sink = current()
    if sink is not None:
        base = sink.name(stem)
        for suffix, data in files.items():
            if data is not None:
                sink.write(base + suffix, data)


@contextmanager
def sharing(sink: Artefacts | None):
    """Make another thread's ``sink`` this thread's for the duration (a worker of ``core.concurrency``)."""
    previous, _local.sink = current(), sink
    try:
        yield sink
    finally:
        _local.sink = previous


@contextmanager
def collecting(folder: Path, keep_rejected: bool = False):
    """Make ``folder`` (emptied first) this thread's sink for the duration; yields the ``Artefacts``."""
    shutil.rmtree(folder, ignore_errors=True)
    sink = Artefacts(folder, keep_rejected)
    previous, _local.sink = current(), sink
    try:
        yield sink
    finally:
        _local.sink = previous

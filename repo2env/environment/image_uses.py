"""Which dataset folders use which images: ``<cache>/image-uses.sqlite`` (table ``uses(tag, dataset)``).

An image is built once and then found by its tag by every later run, whatever folder that run writes (the
images are content-addressed), so the build's ``io.repo2rlenv.dataset`` label names only the first user. Every
run records each image it uses here, built or found; ``repo2rlenv clean --dataset DIR`` removes an image only
when no other folder still uses it.
"""

import sqlite3
import threading
from pathlib import Path

_lock = threading.Lock()


def _db(cache_dir: Path) -> sqlite3.Connection:
    cache_dir.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(cache_dir / "image-uses.sqlite", timeout=60)
    db.execute("CREATE TABLE IF NOT EXISTS uses (tag TEXT NOT NULL, dataset TEXT NOT NULL, PRIMARY KEY (tag, dataset))")
    return db


def record(cache_dir: Path, tag: str, dataset: str) -> None:
    """``dataset`` (an absolute folder) uses the image ``tag``."""
    with _lock:
        db = _db(cache_dir)
        try:
            with db:
                db.execute("INSERT OR IGNORE INTO uses VALUES (?, ?)", (tag, dataset))
        finally:
            db.close()


def users(cache_dir: Path, tags: list[str]) -> set[str]:
    """The folders that use any of ``tags``."""
    db = _db(cache_dir)
    try:
        found = db.execute(f"SELECT dataset FROM uses WHERE tag IN ({','.join('?' * len(tags))})", tags).fetchall()
        return {row[0] for row in found}
    finally:
        db.close()


def drop(cache_dir: Path, tags: list[str], dataset: str) -> None:
    """``dataset`` no longer uses ``tags``."""
    with _lock:
        db = _db(cache_dir)
        try:
            with db:
                db.executemany("DELETE FROM uses WHERE tag=? AND dataset=?", [(t, dataset) for t in tags])
        finally:
            db.close()

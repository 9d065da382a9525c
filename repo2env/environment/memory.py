"""Environment memory: the recipe plan that worked, per repository and language, keyed by the files that decide
the recipe (the language's key, e.g. Python's ``ProjectFiles.key``).

Stored with the build state, in the ``environments`` table of ``<out>/state.sqlite`` (``run.state``'s
database; ``generate`` keeps one in its output folder too), so a nightly build starts from what worked last
night. ``recall`` gives the plan of a commit with the same key, else the one of the nearest earlier base commit
(by commit date); the ladder tries it first. Each call opens its own connection (workers are threads).
"""

import contextlib
import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS environments (
  repo TEXT NOT NULL, language TEXT NOT NULL, key TEXT NOT NULL, base_commit TEXT NOT NULL,
  commit_date TEXT NOT NULL, plan TEXT NOT NULL, updated_at TEXT,
  PRIMARY KEY (repo, language, key));
"""


class EnvMemory:
    """The ``environments`` table of the SQLite database at ``path`` (created on first use)."""

    def __init__(self, path: Path):
        self.path = Path(path)

    @contextlib.contextmanager
    def _connect(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=60)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(SCHEMA)
            with db:
                yield db
        finally:
            db.close()

    def recall(self, repo: str, language: str, key: str, commit_date: str) -> tuple[dict, str] | None:
        """``(plan, how)`` for a base commit of ``repo`` whose deciding files hash to ``key`` and whose date is
        ``commit_date`` (RFC 3339): the plan stored under the same key, else the nearest earlier commit's, else
        None. ``how`` says which (``same recipe files as <sha12>`` / ``nearest earlier base commit <sha12>``)."""
        try:
            with self._connect() as db:
                row = db.execute("SELECT plan, base_commit FROM environments WHERE repo=? AND language=? AND key=?",
                                 (repo, language, key)).fetchone()
                if row:
                    return json.loads(row[0]), f"same recipe files as {row[1][:12]}"
                row = db.execute("SELECT plan, base_commit FROM environments WHERE repo=? AND language=? AND "
                                 "commit_date<=? ORDER BY commit_date DESC LIMIT 1",
                                 (repo, language, commit_date)).fetchone()
        except (sqlite3.Error, ValueError):
            return None  # memory is an optimisation: an unreadable one is no memory
        return (json.loads(row[0]), f"nearest earlier base commit {row[1][:12]}") if row else None

    def remember(self, repo: str, language: str, key: str, base_commit: str, commit_date: str, plan: dict) -> None:
        """Store ``plan`` as the one that worked for ``key`` (replacing an older one)."""
        now = datetime.now(UTC).replace(microsecond=0).isoformat()
        try:
            with self._connect() as db:
                db.execute("INSERT OR REPLACE INTO environments VALUES (?,?,?,?,?,?,?)",
                           (repo, language, key, base_commit, commit_date, json.dumps(plan, sort_keys=True), now))
        except sqlite3.Error:
            pass

    def entries(self, repo: str | None = None) -> list[dict]:
        """Every stored row (for reports and tests), oldest commit first."""
        with self._connect() as db:
            rows = db.execute("SELECT repo, language, key, base_commit, commit_date, plan FROM environments"
                              + (" WHERE repo=?" if repo else "") + " ORDER BY commit_date",
                              (repo,) if repo else ()).fetchall()
        return [{"repo": r[0], "language": r[1], "key": r[2], "base_commit": r[3], "commit_date": r[4],
                 "plan": json.loads(r[5])} for r in rows]

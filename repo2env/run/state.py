"""The build state: one SQLite database per dataset folder (``<out>/state.sqlite``, WAL journal).

Tables:

* ``candidates``: one row per (repo, pipeline, key) — the candidate's input ``fingerprint`` and its last outcome
  (``status`` verified / rejected / skipped / error, ``reason``, ``detail``, ``task_id``, ``bundle_hash``,
  ``seconds``, ``test_seconds``, ``build_id``, ``environment`` ok / failed / NULL when none was tried,
  ``instruction`` JSON ``{"words", "states", "observed"}`` of the instruction made, ``timings`` JSON
  ``{stage: seconds}``, ``core.timings``).
* ``environments``: the environment memory (``environment.memory``). A row is written in one transaction after the bundle is in place,
  so a killed build loses at most the candidates that were running; they run again and publish the same bundle.
* ``sources``: per (repo, pipeline) and build, whether planning worked (``ok`` or the error).
* ``builds``: one row per build: start and end (UTC), shard, counts, and the verified tasks
  ``{task_id: bundle_hash}`` at its end (what the report's "changed since last build" compares).
"""

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from repo2env.core.errors import InputError

SCHEMA = """
CREATE TABLE IF NOT EXISTS candidates (
  repo TEXT NOT NULL, pipeline TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL,
  task_id TEXT, status TEXT NOT NULL, reason TEXT, detail TEXT, bundle_hash TEXT,
  seconds REAL, test_seconds REAL, build_id TEXT, updated_at TEXT, environment TEXT, instruction TEXT,
  timings TEXT,
  PRIMARY KEY (repo, pipeline, key));
CREATE TABLE IF NOT EXISTS sources (
  build_id TEXT NOT NULL, repo TEXT NOT NULL, pipeline TEXT NOT NULL, status TEXT NOT NULL, detail TEXT,
  candidates INTEGER, PRIMARY KEY (build_id, repo, pipeline));
CREATE TABLE IF NOT EXISTS builds (
  build_id TEXT PRIMARY KEY, started_at TEXT, finished_at TEXT, shard TEXT, wall_seconds REAL,
  counts TEXT, tasks TEXT);
"""
STATE_FILE = "state.sqlite"  # the state database's name in a dataset folder
FINAL = ("verified", "rejected", "skipped")  # outcomes a re-run keeps; errors are tried again
COLUMNS = ("repo", "pipeline", "key", "fingerprint", "task_id", "status", "reason", "detail", "bundle_hash",
           "seconds", "test_seconds", "build_id", "updated_at", "environment", "instruction", "timings")


def outcome_row(repo: str, pipeline: str, fingerprint: str, got, build_id: str) -> dict:
    """The ``candidates`` row of one outcome (a ``core.records.CandidateOutcome``) of ``build_id``."""
    return {"repo": repo, "pipeline": pipeline, "key": got.key, "fingerprint": fingerprint,
            "task_id": got.task_id, "status": got.status, "reason": got.reason, "detail": got.detail,
            "bundle_hash": got.bundle_hash, "seconds": got.seconds, "test_seconds": got.test_seconds,
            "build_id": build_id, "environment": got.environment,
            "instruction": json.dumps(got.instruction, sort_keys=True) if got.instruction else None,
            "timings": json.dumps(got.timings) if got.timings else None}


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


class State:
    """The database of one dataset folder; use as a context manager. Writes come from one thread."""

    def __init__(self, path: Path):
        """Open (or create) the database at ``path``. Raises ``InputError`` when it is not one of ours."""
        self.path = path
        try:
            self.db = sqlite3.connect(path, timeout=60, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.executescript(SCHEMA)
            have = {row[1] for row in self.db.execute("PRAGMA table_info(candidates)")}
            for column in ("environment", "instruction", "timings"):  # a database of an older repo2rlenv
                if column not in have:
                    self.db.execute(f"ALTER TABLE candidates ADD COLUMN {column} TEXT")
            self.db.execute(f"SELECT {','.join(COLUMNS)} FROM candidates LIMIT 1").fetchall()
        except sqlite3.Error as exc:
            raise InputError(f"{path}: not a repo2rlenv state database ({exc}); move it aside to start the "
                             "state afresh, or choose another out folder") from None

    def __enter__(self) -> "State":
        return self

    def __exit__(self, *exc) -> None:
        self.db.close()

    def done(self, repo: str, pipeline: str, key: str, fingerprint: str) -> bool:
        """True when this candidate has a final outcome for this very fingerprint."""
        row = self.db.execute("SELECT fingerprint, status FROM candidates WHERE repo=? AND pipeline=? AND key=?",
                              (repo, pipeline, key)).fetchone()
        return row is not None and row[0] == fingerprint and row[1] in FINAL

    def row(self, repo: str, pipeline: str, key: str) -> dict | None:
        """The candidate's row (``COLUMNS`` keys), or None when it was never recorded."""
        found = self.db.execute(f"SELECT {','.join(COLUMNS)} FROM candidates WHERE repo=? AND pipeline=? AND key=?",
                                (repo, pipeline, key)).fetchone()
        return dict(zip(COLUMNS, found)) if found else None

    def record(self, row: dict) -> None:
        """Insert or replace one candidate's outcome (``row`` has the ``COLUMNS`` keys but ``updated_at``)."""
        values = dict(row, updated_at=_now())
        with self.db:
            self.db.execute(f"INSERT OR REPLACE INTO candidates ({','.join(COLUMNS)}) VALUES "
                            f"({','.join('?' * len(COLUMNS))})", [values.get(c) for c in COLUMNS])

    def record_source(self, build_id: str, repo: str, pipeline: str, status: str, detail: str | None,
                      candidates: int) -> None:
        """Whether (repo, pipeline) could be planned in ``build_id``: ``ok`` or ``error`` with the message."""
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO sources VALUES (?,?,?,?,?,?)",
                            (build_id, repo, pipeline, status, detail, candidates))

    def start_build(self, build_id: str, shard: str | None) -> None:
        """Record that ``build_id`` started (UTC now), for ``shard`` (``K/N``) or all candidates (None)."""
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO builds (build_id, started_at, shard) VALUES (?,?,?)",
                            (build_id, _now(), shard))

    def finish_build(self, build_id: str, wall_seconds: float, counts: dict) -> None:
        """Record the end of ``build_id``: wall seconds, outcome counts, and the verified tasks at that moment."""
        with self.db:
            self.db.execute("UPDATE builds SET finished_at=?, wall_seconds=?, counts=?, tasks=? WHERE build_id=?",
                            (_now(), wall_seconds, json.dumps(counts, sort_keys=True),
                             json.dumps(self.verified_tasks(), sort_keys=True), build_id))

    def verified_tasks(self) -> dict[str, str]:
        """``{"<pipeline>/<task_id>": bundle_hash}`` of every verified candidate."""
        rows = self.db.execute("SELECT pipeline, task_id, bundle_hash FROM candidates WHERE status='verified'")
        return {f"{p}/{t}": h for p, t, h in rows}

    def rows(self) -> list[dict]:
        """Every candidate row (``COLUMNS`` keys), ordered by repo, pipeline, key."""
        cur = self.db.execute(f"SELECT {','.join(COLUMNS)} FROM candidates ORDER BY repo, pipeline, key")
        return [dict(zip(COLUMNS, r)) for r in cur]

    def builds(self) -> list[dict]:
        """Every build, oldest first; ``counts`` and ``tasks`` decoded (None while a build runs)."""
        cur = self.db.execute("SELECT build_id, started_at, finished_at, shard, wall_seconds, counts, tasks "
                              "FROM builds ORDER BY started_at, build_id")
        keys = ("build_id", "started_at", "finished_at", "shard", "wall_seconds", "counts", "tasks")
        out = []
        for r in cur:
            item = dict(zip(keys, r))
            item["counts"] = json.loads(item["counts"]) if item["counts"] else None
            item["tasks"] = json.loads(item["tasks"]) if item["tasks"] else None
            out.append(item)
        return out

    def sources(self, build_id: str) -> list[dict]:
        """The planning outcome of every (repo, pipeline) in ``build_id``."""
        cur = self.db.execute("SELECT repo, pipeline, status, detail, candidates FROM sources WHERE build_id=?",
                              (build_id,))
        return [dict(zip(("repo", "pipeline", "status", "detail", "candidates"), r)) for r in cur]

    def merge_from(self, other: "State") -> int:
        """Copy ``other``'s candidate rows in (the newer ``updated_at`` wins per candidate) and its build rows;
        returns how many candidate rows were taken."""
        count = 0
        with self.db:
            for b in other.builds():
                self.db.execute("INSERT OR IGNORE INTO builds VALUES (?,?,?,?,?,?,?)",
                                (b["build_id"], b["started_at"], b["finished_at"], b["shard"], b["wall_seconds"],
                                 json.dumps(b["counts"], sort_keys=True) if b["counts"] is not None else None,
                                 json.dumps(b["tasks"], sort_keys=True) if b["tasks"] is not None else None))
            for row in other.rows():
                mine = self.db.execute("SELECT updated_at FROM candidates WHERE repo=? AND pipeline=? AND key=?",
                                       (row["repo"], row["pipeline"], row["key"])).fetchone()
                if mine is None or (mine[0] or "") <= (row["updated_at"] or ""):
                    self.db.execute(f"INSERT OR REPLACE INTO candidates ({','.join(COLUMNS)}) VALUES "
                                    f"({','.join('?' * len(COLUMNS))})", [row[c] for c in COLUMNS])
                    count += 1
        return count

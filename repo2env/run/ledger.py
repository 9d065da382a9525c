"""The ledger: one JSON line per candidate outcome, in ``<out>.ledger.jsonl`` beside the output folder.

Lines are appended and flushed to disk one at a time, so a crash loses at most the line being written.
"""

import json
import os
from pathlib import Path

from repo2env.core.records import LedgerEntry


def ledger_path(out_dir: Path) -> Path:
    """``<out>.ledger.jsonl`` next to ``out_dir``."""
    return out_dir.parent / (out_dir.name + ".ledger.jsonl")


def append(path: Path, entry: LedgerEntry) -> None:
    """Append ``entry`` as one JSON line and fsync it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(entry.model_dump_json() + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def read(path: Path) -> list[LedgerEntry]:
    """Every entry of the ledger at ``path`` (empty when it does not exist); a torn last line is ignored."""
    if not path.exists():
        return []
    entries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entries.append(LedgerEntry.model_validate(json.loads(line)))
        except ValueError:
            continue
    return entries

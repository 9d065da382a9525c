"""What makes a re-run cheap: each candidate's input ``fingerprint``, and the outcome a state database recorded
for it (``run.state.State``). ``build`` keeps its state in ``<out>/state.sqlite``; ``generate`` in
``<out>.state.sqlite`` beside its ``--out`` (and its ledger), so that the task folder holds only tasks.

A candidate whose fingerprint has a final outcome (verified, rejected, skipped) is not run again, unless
``--force``; a verified one is run again when its bundle is gone from ``--out``. A bundle edited by hand (its
hash is not the one the state recorded) is kept whatever changed, the fingerprint too: a curator's edit is never
overwritten without ``--force`` (``repo2rlenv restamp`` re-stamps it). Errors are always tried again.
"""

import dataclasses
import hashlib
import json
from functools import lru_cache
from pathlib import Path

from repo2env.bundles.hashing import bundle_hash
from repo2env.core.options import GenerateOptions


def generate_state_path(out: Path) -> Path:
    """``<out>.state.sqlite``: the state database of ``generate --out <out>``."""
    return out.parent / (out.name + ".state.sqlite")


def _candidate_data(pipeline, candidate) -> str:
    own = getattr(pipeline, "candidate_fingerprint", None)
    if callable(own):
        return own(candidate)
    if hasattr(candidate, "model_dump_json"):
        return candidate.model_dump_json()
    if dataclasses.is_dataclass(candidate):
        return json.dumps(dataclasses.asdict(candidate), sort_keys=True, default=str)
    return repr(candidate)


@lru_cache(maxsize=1)
def checks_digest() -> str:
    """sha256 of what grades and attacks every task, as this install has it: the graders shipped in bundles
    (``repo2env/graders/*.py``) and the templates (``test.sh``, the Dockerfiles, the probes). A new grader must
    re-verify every task on the next run: a bundle kept with the old one would keep its weakness (the twins
    that replaced near-copies left the demo's tasks "unchanged" under the grader a red team had beaten)."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted(list((root / "graders").glob("*.py")) + [p for p in (root / "templates").rglob("*")
                                                                 if p.is_file() and "__pycache__" not in p.parts]):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def fingerprint(pipeline, candidate, options: GenerateOptions, repo: str | None = None) -> str:
    """``sha256:<hex>`` of everything that decides the candidate's task: its own data (shas, texts; the
    pipeline's ``candidate_fingerprint`` when it has one), the pipeline's name and version, and the options that
    shape a task (test runs, suite width, file limit, pipeline options, format, probes, the instruction floor
    and model, the repository's own entry of the environment config (``repo``: its ``owner/name``; the whole file
    without it), the setup agent, the dataset name), and the graders and templates (``checks_digest``)."""
    entry = options.env_config.for_repo(repo) if repo is not None else options.env_config
    shaping = {"runs_before": options.runs_before, "runs_after": options.runs_after,
               "whole_suite": options.whole_suite, "max_source_files": options.max_source_files,
               "pipeline_opts": dict(sorted(options.pipeline_opts.items())), "format": options.format,
               "probes": options.probes, "min_actionability": options.min_actionability,
               "llm": options.llm.name if options.llm is not None else None,
               "env_config": entry.model_dump(mode="json") if entry is not None else None,
               "dataset_name": options.dataset_name,
               "setup_llm": options.setup_llm.name if options.setup_llm is not None else None}
    data = json.dumps({"pipeline": pipeline.name, "version": pipeline.version, "candidate": _candidate_data(
        pipeline, candidate), "options": shaping, "checks": checks_digest()}, sort_keys=True)
    return "sha256:" + hashlib.sha256(data.encode()).hexdigest()


def hand_edited(row: dict | None, out: Path) -> bool:
    """The state ``row``'s verified bundle is in ``out`` with another hash than the one the run published (a
    curator edited it): it is kept whatever changed, unless ``--force``."""
    if row is None or row.get("status") != "verified" or not row.get("task_id"):
        return False
    bundle = out / row["task_id"]
    return (bundle / "task.toml").is_file() and bundle_hash(bundle) != row.get("bundle_hash")

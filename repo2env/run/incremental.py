"""What makes a re-run cheap: each candidate's input ``fingerprint``, and the outcome a state database recorded
for it (``run.state.State``). ``build`` keeps its state in ``<out>/state.sqlite``; ``generate`` in
``<out>.state.sqlite`` beside its ``--out`` (and its ledger), so that the task folder holds only tasks.

A candidate whose fingerprint has a final outcome (verified, rejected, skipped) is not run again, unless
``--force``; a verified one is run again when its bundle is gone from ``--out``. A bundle edited by hand is
kept (a curator's edit is never overwritten without ``--force``; ``repo2rlenv restamp`` re-stamps it). Errors
are always tried again.
"""

import dataclasses
import hashlib
import json
from pathlib import Path

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


def fingerprint(pipeline, candidate, options: GenerateOptions) -> str:
    """``sha256:<hex>`` of everything that decides the candidate's task: its own data (shas, texts; the
    pipeline's ``candidate_fingerprint`` when it has one), the pipeline's name and version, and the options that
    shape a task (test runs, suite width, file limit, pipeline options, format, probes, the instruction floor
    and model, the environment config and setup agent, the dataset name)."""
    shaping = {"runs_before": options.runs_before, "runs_after": options.runs_after,
               "whole_suite": options.whole_suite, "max_source_files": options.max_source_files,
               "pipeline_opts": dict(sorted(options.pipeline_opts.items())), "format": options.format,
               "probes": options.probes, "min_actionability": options.min_actionability,
               "llm": options.llm.name if options.llm is not None else None,
               "env_config": options.env_config.model_dump(mode="json"), "dataset_name": options.dataset_name,
               "setup_llm": options.setup_llm.name if options.setup_llm is not None else None}
    data = json.dumps({"pipeline": pipeline.name, "version": pipeline.version, "candidate": _candidate_data(
        pipeline, candidate), "options": shaping}, sort_keys=True)
    return "sha256:" + hashlib.sha256(data.encode()).hexdigest()

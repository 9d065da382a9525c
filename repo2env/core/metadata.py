"""The ``[metadata.repo2env]`` table of task.toml as pydantic records; ``specs/metadata.schema.json`` is
generated from ``Repo2EnvMetadata`` (``python -m repo2env.core.metadata > specs/metadata.schema.json``).

Harbor leaves ``[metadata]`` free-form and ignores these fields; they record lineage, calibration,
reproducibility and the evaluation label (anatomy of a task, "The [metadata.repo2env] extension").
"""

import json
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from repo2env.core.outcomes import EvaluationStatus


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ProbeRecord(_Table):
    """One adversarial probe's result (``repo2env/checks/probes.py``): its reward and the most it may score (the valid
    alternative must reach ``limit``)."""

    name: str
    version: str
    reward: float | None
    limit: float
    ok: bool


class Evaluation(_Table):
    """The advisory evaluation label, bound to the bundle hash it was measured on. ``probes``: the adversarial
    probes run on that same bundle, when they were run."""

    schema_version: Literal["1"] = "1"
    status: EvaluationStatus
    stage: Literal["generation", "validation"]
    reason_codes: list[str]
    subject_bundle_hash: str | None = None
    oracle_reward: float | None = None
    nop_reward: float | None = None
    validated_at: datetime | None = None
    probes: list[ProbeRecord] | None = None


class SubmoduleRecord(_Table):
    """One submodule of the base commit: its path, pinned commit, and whether its content is in the image (it is
    when the source clone had the submodule initialised at that commit)."""

    path: str
    commit: str
    included: bool


class RecipePartRecord(_Table):
    """One part of the install recipe: ``kind`` (python, extra, group, requirements, package, tooling,
    build_tools, apt, config), ``name``, and ``why`` (the evidence)."""

    kind: str
    name: str
    why: str


class AttemptRecord(_Table):
    """One rung of the fallback ladder tried: ``outcome`` ok, install_failed, tests_broken,
    python_unavailable or superseded (ran, then replaced by the feedback loop's rung)."""

    rung: str
    python: str
    outcome: Literal["ok", "install_failed", "tests_broken", "python_unavailable", "superseded"]
    detail: str = ""


class Reproducibility(_Table):
    """How to get the environment image: ``local_only`` (built on this machine) until ``push`` rewrites it to
    ``registry``: ``image_ref`` is then the pushed image by digest (``host/name@sha256:…``), which every
    Dockerfile of the bundle starts ``FROM``, and ``pushed_at`` says when (outside the bundle hash)."""

    mode: Literal["local_only", "registry"] = "local_only"
    image_ref: str
    python: str
    image_visibility: Literal["private", "public"] = "private"
    pushed_at: datetime | None = None
    bootstrap_image: str
    install_source: str
    install_commands: list[str]
    exclude_newer: str | None = None
    rung: str | None = Field(default=None, description="The rung of the fallback ladder the recipe is, e.g. "
                             "'3.11, build tools floored, +extra crypto'")
    recipe: list[RecipePartRecord] | None = Field(default=None, description="Each part of the install recipe "
                                                  "and why it is there")
    attempts: list[AttemptRecord] | None = Field(default=None, description="Every rung tried for this base "
                                                 "commit, in order (outside the bundle hash)")
    submodules: list[SubmoduleRecord] | None = Field(default=None, description="Gitlinks of the base commit; absent "
                                                     "when it has none")


class RewardCalibration(_Table):
    """Numbers to slice or normalise rewards: gold patch size and a difficulty bucket, F2P/P2P counts."""

    changed_lines: int
    difficulty: Literal["easy", "medium", "hard"]
    fail_to_pass_count: int | None = None
    pass_to_pass_count: int | None = None
    baseline_reward: float | None = Field(default=None, description="A graded reward's score for doing "
                                          "nothing, measured by the nop control")


class RuntimeTests(_Table):
    """What every runtime pipeline records in ``[metadata.repo2env.<pipeline>]``."""

    base_commit: str
    head_commit: str
    issue_numbers: list[int] = Field(default_factory=list, description="Issues whose text is the problem "
                                     "statement (empty: the PR's or commit's own text)")
    fail_to_pass: list[str]
    pass_to_pass: list[str]
    flaky: list[str]
    reward_mode: Literal["binary"] = "binary"
    test_files: list[str]
    run_seconds_before: list[float]
    run_seconds_after: list[float]
    category_evidence: str | None = Field(default=None, description="Why [metadata].category is what it is: what "
                                          "the FAIL_TO_PASS tests saw before the fix (tasks.category)")
    pass_to_pass_widened: dict | None = Field(default=None, description="When the touched test files gave too few "
                                              "PASS_TO_PASS: the files of the changed modules' tests added, how "
                                              "many tests, how they ran, why (tasks.widen)")


class PrRuntimeTests(RuntimeTests):
    """``[metadata.repo2env.pr_runtime]``: the PR's number, when it was merged (UTC) and its merge (or squash)
    commit, for a local clone as for GitHub."""

    pr_number: int
    merged_at: datetime | None = None
    merge_commit: str | None = None


class CommitRuntimeTests(RuntimeTests):
    """``[metadata.repo2env.commit_runtime]``: ``commit_sha`` = ``head_commit``, ``parent_sha`` = ``base_commit``."""

    commit_sha: str
    parent_sha: str
    authored_at: datetime
    subject: str


class MutateTests(RuntimeTests):
    """``[metadata.repo2env.repo_mutate]``: the synthetic bug (provenance only; the statement names none of it).
    ``base_commit`` is the mutant commit, ``head_commit`` the fix (the revision's tree again)."""

    revision: str
    strategy: str
    strategy_version: str
    mutated_file: str
    function: str
    line: int
    description: str
    mutation_key: str = Field(description="Stable id of the edit (path and byte edits)")
    seed: int
    diff_digest: str | None = Field(default=None, description="Digest of the gold patch's changed lines, "
                                    "whitespace collapsed: the duplicate rule's key with fail_to_pass")


class LeakAuditRecord(_Table):
    """``[metadata.repo2env.leak_audit]``: which text became instruction.md and what the audit did.
    ``action``: ``none`` (clean), ``spans_removed`` (deterministic text lost the findings), ``reasked`` (the model
    was asked once more), ``fell_back`` (the synthesized text was dropped for the deterministic one)."""

    source: Literal["deterministic", "synthesized"]
    rules_fired: list[str] = Field(default_factory=list)
    action: Literal["none", "spans_removed", "reasked", "fell_back"] = "none"
    states: list[Literal["input", "behaviour", "expectation"]] | None = Field(
        default=None, description="What the instruction states (instructions/actionability.py): an input, what "
        "happens, what should happen")
    words: int | None = Field(default=None, description="Words in the instruction (the grader's rules excluded)")
    observed: int | None = Field(default=None, description="Sentences of observed behaviour it carries (derived "
                                 "from the grading tests' failures before the fix)")


class SynthesisRecord(_Table):
    """``[metadata.repo2env.synthesis]``: the model call(s) behind a synthesized instruction (or the attempt).
    ``outcome``: used, used_after_reask, leaked_twice, too_thin, budget_reached, failed. Cost in USD."""

    model: str
    outcome: Literal["used", "used_after_reask", "leaked_twice", "too_thin", "budget_reached", "failed"]
    attempts: int = 0
    error: str | None = Field(default=None, description="Why the call failed (exception type), when it did")
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None


class PrDiffTable(_Table):
    """``[metadata.repo2env.pr_diff]``: the PR, the reward's weights and whether a Harbor environment ships."""

    base_commit: str
    head_commit: str
    pr_number: int
    issue_numbers: list[int] = Field(default_factory=list)
    changed_files: list[str]
    weights: dict[str, float]
    emit_harbor_env: bool = True


class EquivalenceTable(_Table):
    """``[metadata.repo2env.equivalence_tests]``: the function, where it lives, how its cases were made and how
    strong they are (share of simple mutants of the reference that the cases detect)."""

    function: str
    module: str
    source_path: str
    lines: list[int]
    arg_names: list[str]
    test_file: str
    input_strategy: dict[str, int] = Field(description="cases per source: observed, hypothesis, edge")
    cases: int
    raising_cases: int
    mutants_total: int
    mutants_killed: int
    mutant_kill_rate: float
    reference_mode: Literal["visible", "hidden"]
    seed: int


class Repo2EnvMetadata(_Table):
    """``[metadata.repo2env]``. The pipeline's own table is the key named after the pipeline."""

    model_config = ConfigDict(extra="allow")
    pipeline: str
    pipeline_version: str
    repo: str
    ref: str
    reference: str | None = None
    built_at: datetime
    synthesis_llm: str | None = None
    reward_kinds: list[Literal["test_execution", "diff_similarity", "answer_equivalence"]]
    spec_version: str
    content_hash: str | None = None
    bundle_hash: str | None = None
    reward_calibration: RewardCalibration | None = None
    reproducibility: Reproducibility | None = Field(default=None, description="Absent for text-only bundles")
    evaluation: Evaluation
    leak_audit: LeakAuditRecord | None = None
    synthesis: SynthesisRecord | None = None
    pr_runtime: PrRuntimeTests | None = None
    commit_runtime: CommitRuntimeTests | None = None
    pr_diff: PrDiffTable | None = None
    equivalence_tests: EquivalenceTable | None = None
    repo_mutate: MutateTests | None = None


def difficulty_bucket(changed_lines: int, source_files: int) -> str:
    """SWE-bench-like size buckets: easy (<= 10 lines in 1 file), medium (<= 50 lines, <= 3 files), hard."""
    if changed_lines <= 10 and source_files <= 1:
        return "easy"
    if changed_lines <= 50 and source_files <= 3:
        return "medium"
    return "hard"


def json_schema() -> dict:
    """The JSON Schema of ``[metadata.repo2env]`` (draft 2020-12, as pydantic emits it)."""
    schema = Repo2EnvMetadata.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://repo2rlenv.invalid/specs/metadata.schema.json"
    return schema


if __name__ == "__main__":
    print(json.dumps(json_schema(), indent=2, sort_keys=True))

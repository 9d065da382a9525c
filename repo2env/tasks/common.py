"""What every pipeline writes the same way: the change split by the language's test-file rule, the common
``[metadata.repo2env]`` fields, the instruction-derived description, and ``task.toml``.

``write_task(...)`` is the one place a generated bundle's ``task.toml`` is assembled: the pipeline passes what is
its own (its table, reward kinds, calibration, reproducibility, timeouts), the rest (provenance, the generation
label, ``content_hash`` of the staged files, ``spec_version``, the agent timeout) is filled here.
"""

from datetime import UTC, datetime

from repo2env import SPEC_VERSION, languages
from repo2env.bundles import bootstrap
from repo2env.bundles.hashing import content_hash
from repo2env.bundles.stage import BundleStage
from repo2env.bundles.task_toml import render_task_toml
from repo2env.changes.patches import split_change
from repo2env.core import gitrepo, templates
from repo2env.core.errors import InputError
from repo2env.core.limits import AGENT_TIMEOUT_SEC
from repo2env.core.metadata import Evaluation, Repo2EnvMetadata
from repo2env.core.outcomes import EvaluationStatus, SkipReason
from repo2env.core.records import ChangeSplit, RepoRef, Skip


def split_at(repo: RepoRef, base: str, head: str) -> ChangeSplit:
    """``base..head`` split into test and gold patches by the rule of the language detected at ``base``
    (``repo2env.languages``). Raises ``GitError`` for a missing commit."""
    language, _ = languages.for_commit(repo.path, base)
    return split_change(repo.path, base, head, language.is_test_file, getattr(language, "split_source", None))


def title_of(instruction: str) -> str:
    """The first line of an instruction, without Markdown heading marks: the task's description."""
    return instruction.splitlines()[0].lstrip("# ").strip()


def write_task(stage: BundleStage, *, task_id: str, pipeline: str, pipeline_version: str, repo: RepoRef, ref: str,
               description: str, difficulty: str, category: str, verifier_timeout_sec: float,
               build_timeout_sec: float, reward_kinds: list[str], table: dict, reference: str | None = None,
               made=None, leak_audit=None, memory_mb: int | None = None, cpus: float | None = None,
               **fields) -> Repo2EnvMetadata:
    """Write ``task.toml`` into ``stage`` and return its ``[metadata.repo2env]``. ``table`` is the pipeline's own
    table (stored under the pipeline's name); ``made`` an ``instructions.make.Instruction`` (its synthesis and
    leak audit are recorded), else ``leak_audit`` alone; ``fields`` are further ``Repo2EnvMetadata`` fields
    (``reward_calibration``, ``reproducibility``); ``memory_mb``/``cpus`` the task's ``[environment]`` caps
    (None: the defaults). The content hash covers every file staged before this call."""
    if made is not None:
        fields.update(synthesis_llm=made.synthesis.model if made.source == "synthesized" else None,
                      synthesis=made.synthesis, leak_audit=made.leak_audit)
    elif leak_audit is not None:
        fields["leak_audit"] = leak_audit
    meta = Repo2EnvMetadata(
        pipeline=pipeline, pipeline_version=pipeline_version, repo=repo.slug, ref=ref, reference=reference,
        built_at=datetime.now(UTC).replace(microsecond=0), reward_kinds=reward_kinds, spec_version=SPEC_VERSION,
        content_hash=content_hash(stage.root),
        evaluation=Evaluation(status=EvaluationStatus.UNVERIFIED, stage="generation",
                              reason_codes=["validation_not_run"]),
        **{pipeline: table}, **fields)
    stage.write_text("task.toml", render_task_toml(
        task_id=task_id, description=description, keywords=[repo.slug.split("/")[-1], pipeline],
        difficulty=difficulty, meta=meta, agent_timeout_sec=AGENT_TIMEOUT_SEC,
        verifier_timeout_sec=verifier_timeout_sec, build_timeout_sec=build_timeout_sec, category=category,
        **({"memory_mb": memory_mb} if memory_mb else {}), **({"cpus": cpus} if cpus else {})))
    return meta


def resolve_commit(repo: RepoRef, rev: str) -> str:
    """The full sha of ``rev`` in ``repo``. Raises ``InputError`` naming the revision when there is none."""
    try:
        return gitrepo.run_git(repo.path, "rev-parse", "--verify", f"{rev}^{{commit}}").decode().strip()
    except Exception:
        raise InputError(f"{repo.path}: no branch or revision {rev!r}; pass an existing branch") from None


# The interpreter of the python:<version>-slim images every task image starts from, for bundles that recorded none.
DEFAULT_PYTHON_PATH = "/usr/local/bin/python3"


def grader_budget(verifier_timeout_sec: float) -> int:
    """Seconds ``test.sh`` gives the grader: 10 less than Harbor's verifier timeout, so that the grader's own
    time limit, not Harbor's, ends a slow grade, and a reward of 0 is still written."""
    return int(verifier_timeout_sec) - 10


def write_test_sh(stage: BundleStage, grader: str, *, budget: int, python: str = DEFAULT_PYTHON_PATH,
                  args: str = "") -> None:
    """Write ``tests/test.sh`` (``templates/test.sh``): the interpreter ``python`` (an absolute path where the
    environment recorded one) runs the bootstrap (``bundles/bootstrap.py``), which runs ``tests/<grader>``
    under ``budget`` seconds, ``args`` appended. The grader files (``tests/<grader>`` and ``tests/env_guard.py``
    when staged) must be staged first: their sha256 pins go into test.sh. Raises ``FileNotFoundError`` if not."""
    pins = bootstrap.pins(stage.root / "tests", bootstrap.grader_files(stage.root / "tests", grader))
    stage.write_text("tests/test.sh", templates.render("test.sh", grader=grader, grader_budget=str(budget),
                                                       python=python, grader_args=args, grader_pins=pins,
                                                       bootstrap=bootstrap.program().rstrip("\n")),
                     executable=True)


def instruction_quality(ctx, made) -> Skip | None:
    """Record what the instruction states on ``ctx`` (the run summary and the build report count it); a Skip
    when it states fewer parts than ``--min-actionability`` asks."""
    record = made.leak_audit
    ctx.instruction = {"words": record.words, "states": list(record.states or []), "observed": record.observed}
    want = ctx.options.min_actionability
    if want and len(record.states or []) < want:
        missing = [p for p in ("input", "behaviour", "expectation") if p not in (record.states or [])]
        return Skip(SkipReason.INSTRUCTION_NOT_ACTIONABLE, f"states {len(record.states or [])} of 3 (missing: "
                    f"{', '.join(missing)}); --min-actionability {want}")
    return None

"""Diff-similarity tasks (pr_diff): the agent's change is scored by its similarity to the merged diff
(``graders/diff_verifier.py``, formulas in ``specs/diff-reward.md``); no test runs.

``build_diff_task`` filters a split change, makes the instruction, calibrates the reward in-process (oracle 1.0,
the baseline of an empty change), builds the environment at the base commit (or none: a text-only bundle) and
stages the bundle. ``parse_weights`` reads ``name:weight,...`` over the grader's components.
"""

import json
from dataclasses import dataclass

from repo2env import graders, languages
from repo2env.bundles.stage import BundleStage
from repo2env.changes.commit_filters import category_of, is_bot_author
from repo2env.changes.filters import diff_skip_reason
from repo2env.changes.patches import touched_symbols
from repo2env.core import gitrepo, templates
from repo2env.core.metadata import PrDiffTable, RewardCalibration, difficulty_bucket
from repo2env.core.options import BuildContext
from repo2env.core.outcomes import SkipReason
from repo2env.core.records import ControlResult, Draft, PullRequest, RepoRef, Skip
from repo2env.environment.ladder import first_image
from repo2env.environment.task_image import stage_environment
from repo2env.graders import diff_verifier
from repo2env.instructions.leak_audit import AuditContext, added_lines
from repo2env.instructions.make import make_instruction
from repo2env.tasks.common import grader_budget, instruction_quality, split_at, title_of, write_task, write_test_sh
from repo2env.tasks.runtime import stable_timeout

VERIFIER_TIMEOUT_SEC = 120.0
DEFAULT_WEIGHTS = dict(diff_verifier.DEFAULT_WEIGHTS)


def parse_weights(text: str) -> dict[str, float]:
    """``name:weight,...`` with names from ``diff_verifier.COMPONENTS`` and weights >= 0, at least one
    deterministic component positive. Raises ``ValueError`` saying what was expected."""
    weights = {}
    for pair in text.split(","):
        name, _, value = pair.partition(":")
        try:
            weight = float(value)
        except ValueError:
            weight = -1.0
        if name.strip() not in diff_verifier.COMPONENTS or weight < 0:
            raise ValueError(f"expected name:weight pairs with names from {', '.join(diff_verifier.COMPONENTS)} "
                             "and weights >= 0")
        weights[name.strip()] = weight
    if not any(w > 0 for k, w in weights.items() if k != "judge"):
        raise ValueError("give at least one deterministic component a positive weight")
    return weights


@dataclass(frozen=True)
class DiffSettings:
    """The pipeline's options: ``emit_env`` False writes text-only bundles; ``weights`` per component;
    ``min_lines`` non-test changed lines a change needs."""

    emit_env: bool = True
    weights: dict | None = None
    min_lines: int = 2


def screen_diff_task(repo: RepoRef, pr: PullRequest, options, settings: DiffSettings) -> Skip | None:
    """The cheap filters of a pr_diff candidate (a bot's PR unless ``--include-bots``, ``diff_skip_reason``),
    without Docker."""
    if not options.pr_filters.include_bots and is_bot_author(pr.author):
        return Skip(SkipReason.BOT_AUTHOR, pr.author)
    split = split_at(repo, pr.base_commit, pr.head_commit)
    reason = diff_skip_reason(pr.title, split, max_files=options.max_source_files,
                              min_changed_lines=settings.min_lines)
    return Skip(reason) if reason is not None else None


def build_diff_task(ctx: BuildContext, repo: RepoRef, pr: PullRequest, source, *, task_id: str, pipeline: str,
                    version: str, settings: DiffSettings) -> Draft | Skip:
    """One pull request as a pr_diff bundle, or the reason it is skipped. ``source`` gives the problem statement
    (a ``sources.RepoSource``). Engine errors raise."""
    weights = settings.weights or DEFAULT_WEIGHTS
    ctx.report("split and filter")
    skip = screen_diff_task(repo, pr, ctx.options, settings)
    if skip is not None:
        return skip
    split = split_at(repo, pr.base_commit, pr.head_commit)
    whole = gitrepo.diff(repo.path, pr.base_commit, pr.head_commit)
    ctx.report("problem statement")
    text = source.problem_statement(pr)
    made = make_instruction(text.title, text.body, AuditContext(gold_added_lines=added_lines(
                                whole, split.source_files + split.test_files),
                                                                web_url=repo.web_url),
                            symbols=touched_symbols(whole), synthesizer=ctx.synthesizer)
    if made.too_thin:
        return Skip(SkipReason.INSTRUCTION_TOO_THIN, "instruction under the minimum length after leak stripping")
    skip = instruction_quality(ctx, made)
    if skip is not None:
        return skip
    baseline, _ = diff_verifier.score(whole, "", weights)
    oracle, _ = diff_verifier.score(whole, whole, weights)
    image = None
    if settings.emit_env:
        language, _ = languages.for_commit(repo.path, pr.base_commit)
        found = first_image(ctx, language, repo, pr.base_commit)
        if isinstance(found, Skip):
            return found
        image, search = found
    stage = BundleStage(ctx.options.out, task_id)
    try:
        stage.write_bytes("solution/patch.diff", whole.encode("utf-8", "surrogateescape"))
        stage.write_text("solution/solve.sh", templates.read("solve.sh"), executable=True)
        stage.write_text("instruction.md", made.text)
        if image is not None:
            stage_environment(stage, image, pr.base_commit, language)
            stage.write_bytes("tests/verifier.py", graders.source("diff_verifier"))
            write_test_sh(stage, "verifier.py", budget=grader_budget(VERIFIER_TIMEOUT_SEC))
            stage.write_bytes("tests/oracle.patch", whole.encode("utf-8", "surrogateescape"))
            stage.write_text("tests/instruction.md", made.text)
            stage.write_text("tests/config.json", json.dumps(
                {"workspace": "/workspace", "base_commit": pr.base_commit, "weights": weights}, indent=1) + "\n")
        changed = split.gold_lines_added + split.gold_lines_removed
        difficulty = difficulty_bucket(changed, len(split.source_files))
        table = PrDiffTable(base_commit=pr.base_commit, head_commit=pr.head_commit, pr_number=pr.number,
                            issue_numbers=list(text.issue_numbers),
                            changed_files=sorted(split.source_files + split.test_files), weights=weights,
                            emit_harbor_env=image is not None)
        write_task(
            stage, task_id=task_id, pipeline=pipeline, pipeline_version=version, repo=repo, ref=pr.base_commit,
            reference=pr.reference, made=made, reward_kinds=["diff_similarity"], description=title_of(made.text),
            difficulty=difficulty, category=category_of(pr.title, pr.body), table=table.model_dump(),
            verifier_timeout_sec=VERIFIER_TIMEOUT_SEC,
            build_timeout_sec=stable_timeout(2 * image.build_seconds, floor=600) if image is not None else 600.0,
            reward_calibration=RewardCalibration(changed_lines=changed, difficulty=difficulty,
                                                 baseline_reward=baseline),
            reproducibility=image.reproducibility(search.records()) if image is not None else None)
    except BaseException:
        stage.discard()
        raise
    controls = None
    if image is None:  # no environment to run in: the reward function itself is the control
        controls = [ControlResult(name="oracle", expected=1.0, reward=oracle, seconds=0.0),
                    ControlResult(name="nop", expected=baseline, reward=baseline, seconds=0.0)]
    return Draft(task_id=task_id, stage=stage, verifier_timeout_sec=VERIFIER_TIMEOUT_SEC, expected_nop=baseline,
                 controls=controls)

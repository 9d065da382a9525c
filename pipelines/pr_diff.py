"""pr_diff: merged pull requests scored by how close the agent's change comes to the merged diff (no test run).

Stages: list merged PRs (local clone or GitHub) -> split the diff -> static filters -> problem statement
(linked issue or the PR's text, leak-audited) -> reward calibration in-process (oracle 1.0, baseline for an
empty change) -> bundle: Harbor 1.0 with the environment at the base commit, or text-only. The core runs the
controls (Docker: the oracle must score 1.0 and the nop exactly the baseline) and publishes.

Pipeline options (``--pipeline-opt KEY=VALUE``): ``emit_harbor_env`` (``true``/``false``; false writes
task.toml, instruction.md and solution/ only), ``weights`` (``name:weight,...`` over the components of
``repo2env.diff_verifier``), ``min_changed_lines`` (non-test lines; default 2, as a one-line change makes an
all-or-nothing similarity).
"""

import json
from datetime import UTC, datetime
from pathlib import Path

from repo2env import SPEC_VERSION, diff_verifier, gitrepo, templates
from repo2env.bundle import BundleStage
from repo2env.environment import build_task_image, stage_environment
from repo2env.errors import InputError
from repo2env.commit_filters import category_of
from repo2env.filters import diff_skip_reason
from repo2env.hashing import content_hash
from repo2env.instruction import make_instruction
from repo2env.leak_audit import AuditContext, added_lines
from repo2env.metadata import Evaluation, PrDiffTable, Repo2EnvMetadata, RewardCalibration, difficulty_bucket
from repo2env.models import ControlResult, PullRequest, RepoRef
from repo2env.outcomes import EvaluationStatus, SkipReason
from repo2env.patches import split_change, touched_symbols
from repo2env.pipeline import BuildContext, Draft, GenerateOptions, Plan, Skip
from repo2env.pr_plan import PullRequestPipeline, plan_pull_requests
from repo2env.runtime import stable_timeout
from repo2env.sources import RepoSource
from repo2env.task_toml import render_task_toml

_OPTS = {"emit_harbor_env", "weights", "min_changed_lines"}
VERIFIER_TIMEOUT_SEC = 120.0
AGENT_TIMEOUT_SEC = 1800.0


def parse_options(opts: dict[str, str]) -> tuple[bool, dict[str, float], int]:
    """(emit_harbor_env, weights, min_changed_lines) from ``--pipeline-opt`` values. Raises ``InputError``."""
    unknown = set(opts) - _OPTS
    if unknown:
        raise InputError(f"--pipeline-opt {sorted(unknown)[0]}: pr_diff knows {', '.join(sorted(_OPTS))}")
    emit = opts.get("emit_harbor_env", "true").lower()
    if emit not in ("true", "false"):
        raise InputError(f"--pipeline-opt emit_harbor_env={emit}: expected true or false")
    weights = dict(diff_verifier.DEFAULT_WEIGHTS)
    if "weights" in opts:
        weights = {}
        for pair in opts["weights"].split(","):
            name, _, value = pair.partition(":")
            try:
                weight = float(value)
            except ValueError:
                weight = -1.0
            if name.strip() not in diff_verifier.COMPONENTS or weight < 0:
                raise InputError(f"--pipeline-opt weights={opts['weights']}: expected name:weight pairs with names "
                                 f"from {', '.join(diff_verifier.COMPONENTS)} and weights >= 0")
            weights[name.strip()] = weight
        if not any(w > 0 for k, w in weights.items() if k != "judge"):
            raise InputError(f"--pipeline-opt weights={opts['weights']}: give at least one deterministic "
                             "component a positive weight")
    minimum = opts.get("min_changed_lines", "2")
    if not minimum.isdigit():
        raise InputError(f"--pipeline-opt min_changed_lines={minimum}: expected a whole number")
    return emit == "true", weights, int(minimum)


class PrDiffPipeline(PullRequestPipeline):
    """The pr_diff pipeline plugin (see ``repo2env.pipeline.Pipeline``)."""

    name = "pr_diff"
    version = "0.1.0"

    def __init__(self) -> None:
        self._source: RepoSource | None = None
        self._emit_env, self._weights, self._min_lines = True, dict(diff_verifier.DEFAULT_WEIGHTS), 2

    def plan(self, source: str, options: GenerateOptions) -> Plan:
        """Merged PRs of ``source``, newest first, at most ``options.limit``."""
        self._emit_env, self._weights, self._min_lines = parse_options(options.pipeline_opts)
        self._source, plan = plan_pull_requests(source, options)
        return plan

    def build(self, repo: RepoRef, pr: PullRequest, ctx: BuildContext) -> Draft | Skip:
        ctx.report("split and filter")
        split = split_change(repo.path, pr.base_commit, pr.head_commit)
        reason = diff_skip_reason(pr.title, split, max_files=ctx.options.max_source_files,
                                  min_changed_lines=self._min_lines)
        if reason is not None:
            return Skip(reason)
        whole = gitrepo.diff(repo.path, pr.base_commit, pr.head_commit)
        ctx.report("problem statement")
        text = self._source.problem_statement(pr)
        made = make_instruction(text.title, text.body, AuditContext(gold_added_lines=added_lines(whole),
                                                                    web_url=repo.web_url),
                                symbols=touched_symbols(whole), synthesizer=ctx.synthesizer)
        if made.too_thin:
            return Skip(SkipReason.INSTRUCTION_TOO_THIN, "instruction under the minimum length after leak stripping")
        baseline, _ = diff_verifier.score(whole, "", self._weights)
        oracle, _ = diff_verifier.score(whole, whole, self._weights)
        image = build_task_image(ctx, repo, pr.base_commit) if self._emit_env else None
        if isinstance(image, Skip):
            return image
        stage = BundleStage(ctx.options.out, self.task_id(repo, pr))
        try:
            return self._stage(stage, self.task_id(repo, pr), repo, pr, split, whole, made, text.issue_numbers,
                               image, baseline, oracle)
        except BaseException:
            stage.discard()
            raise

    def _stage(self, stage, task_id, repo, pr, split, whole, made, issue_numbers, image, baseline, oracle) -> Draft:
        stage.write_bytes("solution/patch.diff", whole.encode("utf-8", "surrogateescape"))
        stage.write_text("solution/solve.sh", templates.read("solve.sh"), executable=True)
        stage.write_text("instruction.md", made.text)
        if image is not None:
            stage_environment(stage, image, pr.base_commit)
            stage.write_text("tests/test.sh", templates.render("test.sh", grader="verifier.py"), executable=True)
            stage.write_bytes("tests/verifier.py", Path(diff_verifier.__file__).read_bytes())
            stage.write_bytes("tests/oracle.patch", whole.encode("utf-8", "surrogateescape"))
            stage.write_text("tests/instruction.md", made.text)
            stage.write_text("tests/config.json", json.dumps(
                {"workspace": "/workspace", "base_commit": pr.base_commit, "weights": self._weights}, indent=1) + "\n")
        changed = split.gold_lines_added + split.gold_lines_removed
        difficulty = difficulty_bucket(changed, len(split.source_files))
        files = sorted(split.source_files + split.test_files)
        meta = Repo2EnvMetadata(
            pipeline=self.name, pipeline_version=self.version, repo=repo.slug, ref=pr.base_commit,
            reference=pr.reference, built_at=datetime.now(UTC).replace(microsecond=0),
            synthesis_llm=made.synthesis.model if made.source == "synthesized" else None,
            leak_audit=made.leak_audit, synthesis=made.synthesis, reward_kinds=["diff_similarity"],
            spec_version=SPEC_VERSION, content_hash=content_hash(stage.root),
            reward_calibration=RewardCalibration(changed_lines=changed, difficulty=difficulty, baseline_reward=baseline),
            reproducibility=image.reproducibility() if image is not None else None,
            evaluation=Evaluation(status=EvaluationStatus.UNVERIFIED, stage="generation",
                                  reason_codes=["validation_not_run"]),
            pr_diff=PrDiffTable(base_commit=pr.base_commit, head_commit=pr.head_commit, pr_number=pr.number,
                                issue_numbers=list(issue_numbers), changed_files=files, weights=self._weights,
                                emit_harbor_env=image is not None))
        build_timeout = stable_timeout(2 * image.build_seconds, floor=600) if image is not None else 600.0
        stage.write_text("task.toml", render_task_toml(
            task_id=task_id, description=made.text.splitlines()[0].lstrip("# ").strip(),
            keywords=[repo.slug.split("/")[-1], self.name], difficulty=difficulty, meta=meta,
            agent_timeout_sec=AGENT_TIMEOUT_SEC, verifier_timeout_sec=VERIFIER_TIMEOUT_SEC,
            build_timeout_sec=build_timeout, category=category_of(pr.title, pr.body)))
        controls = None
        if image is None:  # no environment to run in: the reward function itself is the control
            controls = [ControlResult(name="oracle", expected=1.0, reward=oracle, seconds=0.0),
                        ControlResult(name="nop", expected=baseline, reward=baseline, seconds=0.0)]
        return Draft(task_id=task_id, stage=stage, verifier_timeout_sec=VERIFIER_TIMEOUT_SEC,
                     expected_nop=baseline, controls=controls)

"""Runtime tasks (pr_runtime, commit_runtime): the repository's own tests decide.

``build_runtime_task`` takes a base commit, the test/gold split and the text of the change, and returns a staged
Harbor 1.0 bundle whose FAIL_TO_PASS / PASS_TO_PASS come from K container runs, or a ``Skip``. Stages, in order:
instruction -> environment images -> stage files -> test runs -> selection -> final files + task.toml.
"""

import json
import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

import docker.errors

from . import SPEC_VERSION, env_guard, gitrepo, images, templates, verifier
from .bundle import BundleStage
from .controls import egress_hosts
from .environment import TaskImage, build_task_image, stage_environment
from .errors import BuildError, TestRunError
from .hashing import content_hash
from .instruction import make_instruction
from .leak_audit import AuditContext, added_lines
from .layout13 import SplitLayout
from .leak_strip import build_instruction, is_too_thin
from .metadata import Evaluation, Repo2EnvMetadata, RewardCalibration, RuntimeTests, difficulty_bucket
from .models import ChangeSplit, RepoRef, TestRun
from .outcomes import EvaluationStatus, SkipReason
from .patches import is_python_test_file, touched_symbols
from .pipeline import BuildContext, Draft, Skip
from .selection import select_tests
from .task_toml import render_task_toml
from .testrun import PatchDoesNotApply, pinned_plugins, python_env_snapshot, run_tests

RUN_TIMEOUT_SEC = 1800
AGENT_TIMEOUT_SEC = 1800.0


@dataclass(frozen=True)
class RuntimeSpec:
    """One runtime candidate, whatever its source: ``base_commit..head_commit`` is the change; ``split`` its
    test/gold halves; ``title``/``body`` the text the instruction is made from. The pipeline's metadata table is
    ``tests_table`` (a ``RuntimeTests`` record) filled with the common fields plus ``table_fields``
    (e.g. ``pr_number``)."""

    task_id: str
    pipeline: str
    pipeline_version: str
    repo: RepoRef
    base_commit: str
    head_commit: str
    title: str
    body: str
    reference: str | None
    split: ChangeSplit
    tests_table: type[RuntimeTests] = RuntimeTests
    category: str = "bugfix"
    table_fields: dict = field(default_factory=dict)


def run_targets(split: ChangeSplit, whole_suite: bool) -> list[str]:
    """Test files the runs target: the Python test files the test patch touches and keeps (empty = whole suite)."""
    if whole_suite:
        return []
    return [p for p in split.test_files if is_python_test_file(p) and p not in split.test_files_deleted]


def _verifier_config(spec: RuntimeSpec, targets: list[str], has_config_patch: bool, timeout: int) -> dict:
    base_files = set(gitrepo.ls_tree(spec.repo.path, spec.base_commit))
    test_config = [f for f in base_files if PurePosixPath(f).name in verifier.TEST_CONFIG_NAMES]
    restore = sorted(set(f for f in spec.split.test_files if f in base_files) | set(test_config))
    return {"workspace": "/workspace", "base_commit": spec.base_commit, "test_patch": "test.patch",
            "config_patch": "config.patch" if has_config_patch else None, "restore_paths": restore,
            "remove_paths": sorted(spec.split.test_files_created), "run_targets": targets, "timeout_sec": timeout}


def _stage_files(stage: BundleStage, spec: RuntimeSpec, image: TaskImage, config: dict, config_patch: str) -> None:
    stage_environment(stage, image, spec.base_commit)
    stage.write_bytes("solution/patch.diff", spec.split.gold_patch.encode("utf-8", "surrogateescape"))
    stage.write_text("solution/solve.sh", templates.read("solve.sh"), executable=True)
    stage.write_text("tests/test.sh", templates.render("test.sh", grader="verifier.py"), executable=True)
    stage.write_bytes("tests/verifier.py", Path(verifier.__file__).read_bytes())
    stage.write_bytes("tests/env_guard.py", Path(env_guard.__file__).read_bytes())
    stage.write_bytes("tests/test.patch", spec.split.test_patch.encode("utf-8", "surrogateescape"))
    if config_patch:
        stage.write_bytes("tests/config.patch", config_patch.encode("utf-8", "surrogateescape"))
    stage.write_text("tests/config.json", json.dumps(config, indent=1) + "\n")


def _config_patch(spec: RuntimeSpec) -> str:
    """The gold patch's changes to test configuration files (the verifier re-applies them after its reset)."""
    paths = [p for p in spec.split.source_files + spec.split.docs_ci_files
             if PurePosixPath(p).name in verifier.TEST_CONFIG_NAMES]
    return gitrepo.diff(spec.repo.path, spec.base_commit, spec.head_commit, paths)


def split_layout(spec: RuntimeSpec, image: TaskImage, selection, targets: list[str]) -> SplitLayout:
    """The schema 1.3 split of a runtime task: the learner's copy lacks every test file of the test patch; the
    verifier's copy holds them and the test-configuration files as of the head commit, and lacks the files the
    reference deletes; the artifacts are the reference's other files."""
    config_names = verifier.TEST_CONFIG_NAMES
    gold = [p for p in spec.split.source_files + spec.split.docs_ci_files if PurePosixPath(p).name not in config_names]
    at_head = {p: gitrepo.file_bytes(spec.repo.path, spec.head_commit, p) for p in gold}
    verifier_overlay = {p: gitrepo.file_bytes(spec.repo.path, spec.head_commit, p) for p in spec.split.test_files}
    verifier_overlay.update({p: gitrepo.file_bytes(spec.repo.path, spec.head_commit, p)
                             for p in spec.split.source_files + spec.split.docs_ci_files
                             if PurePosixPath(p).name in config_names})
    verifier_overlay.update({p: None for p, data in at_head.items() if data is None})
    must_pass = list(selection.fail_to_pass + selection.pass_to_pass)
    return SplitLayout(repo_path=spec.repo.path, commit=spec.base_commit, image_ref=image.image_ref,
                       learner={p: None for p in spec.split.test_files}, verifier=verifier_overlay,
                       artifacts=gold, reference=at_head, test_selectors=targets or sorted(
                           {t.split("::", 1)[0] for t in must_pass}), must_pass=must_pass,
                       grader_config="config.json")


def record_python_env(ctx: BuildContext, env_image: str, stage: BundleStage) -> None:
    """Write ``tests/python_env.json``, the environment the grader checks against (``env_guard``)."""
    ctx.report("python environment manifest")
    snapshot = python_env_snapshot(ctx.client, env_image, stage.root)
    if snapshot is not None:
        stage.write_text("tests/python_env.json", snapshot)


def stable_timeout(seconds: float, *, floor: int, step: int = 300) -> float:
    """``seconds`` rounded up to a multiple of ``step``, at least ``floor``: a timeout derived from a measured
    duration, coarse enough that two builds of the same task write the same number (and the same bundle hash)."""
    return float(max(floor, math.ceil(seconds / step) * step))


def audit_context(spec: RuntimeSpec, selection) -> AuditContext:
    """What the instruction must not leak: the grading tests, the hidden test files, the gold patch's lines."""
    return AuditContext(test_ids=list(selection.fail_to_pass + selection.pass_to_pass),
                        hidden_paths=list(spec.split.test_files), gold_added_lines=added_lines(spec.split.gold_patch),
                        web_url=spec.repo.web_url)


def _runs(ctx: BuildContext, image: str, stage: BundleStage, hosts: dict[str, str]) -> tuple[list[TestRun], list[TestRun]]:
    opts = ctx.options
    before, after = [], []
    for i in range(opts.runs_before):
        ctx.report(f"tests before the fix ({i + 1}/{opts.runs_before})")
        before.append(run_tests(ctx.client, image, stage.root, "before", extra_hosts=hosts, timeout_sec=RUN_TIMEOUT_SEC))
    for i in range(opts.runs_after):
        ctx.report(f"tests after the fix ({i + 1}/{opts.runs_after})")
        after.append(run_tests(ctx.client, image, stage.root, "after", extra_hosts=hosts, timeout_sec=RUN_TIMEOUT_SEC))
    return before, after


def build_runtime_task(spec: RuntimeSpec, ctx: BuildContext) -> Draft | Skip:
    """Build and stage one runtime task. Returns ``Skip`` with a reason for every expected failure
    (environment build, patch application, test runs, no FAIL_TO_PASS, thin instruction); engine errors raise."""
    hidden = list(spec.split.test_files)
    if ctx.synthesizer is None and is_too_thin(build_instruction(spec.title, spec.body, hidden_paths=hidden)):
        return Skip(SkipReason.INSTRUCTION_TOO_THIN, "instruction under the minimum length after leak stripping")
    image = build_task_image(ctx, spec.repo, spec.base_commit)
    if isinstance(image, Skip):
        return image
    stage = BundleStage(ctx.options.out, spec.task_id)
    try:
        return _build_staged(spec, ctx, stage, image)
    except BaseException:
        stage.discard()
        raise


def _build_staged(spec: RuntimeSpec, ctx: BuildContext, stage: BundleStage, image: TaskImage) -> Draft | Skip:
    targets = run_targets(spec.split, ctx.options.whole_suite)
    config_patch = _config_patch(spec)
    config = _verifier_config(spec, targets, bool(config_patch), RUN_TIMEOUT_SEC)
    _stage_files(stage, spec, image, config, config_patch)
    try:
        env_image = images.environment_image(ctx.client, stage.root / "environment", spec.task_id)
        plugins = pinned_plugins(ctx.client, env_image, stage.root)
        if plugins is not None:
            config["pytest_plugins"] = plugins
            stage.write_text("tests/config.json", json.dumps(config, indent=1) + "\n")
        record_python_env(ctx, env_image, stage)
        before, after = _runs(ctx, env_image, stage, egress_hosts(stage.root))
    except BuildError as exc:
        stage.discard()
        return Skip(SkipReason.ENV_BUILD_FAILED, str(exc))
    except PatchDoesNotApply as exc:
        stage.discard()
        return Skip(SkipReason.PATCH_DOES_NOT_APPLY, str(exc))
    except (TestRunError, docker.errors.ContainerError) as exc:
        stage.discard()
        return Skip(SkipReason.TEST_RUN_FAILED, str(exc))
    selection = select_tests(before, after)
    if not selection.fail_to_pass:
        stage.discard()
        return Skip(SkipReason.NO_FAIL_TO_PASS, f"{len(selection.pass_to_pass)} pass-to-pass, "
                                                f"{len(selection.flaky)} flaky, 0 fail-to-pass")
    slowest = max(r.seconds for r in before + after)
    verifier_timeout = stable_timeout(3 * slowest + 60, floor=300)
    config["timeout_sec"] = int(verifier_timeout) - 15
    stage.write_text("tests/config.json", json.dumps(config, indent=1) + "\n")
    stage.write_text("tests/f2p.json", json.dumps(list(selection.fail_to_pass), indent=1) + "\n")
    stage.write_text("tests/p2p.json", json.dumps(list(selection.pass_to_pass), indent=1) + "\n")
    ctx.report("instruction")
    made = make_instruction(spec.title, spec.body, audit_context(spec, selection), symbols=touched_symbols(
        spec.split.gold_patch), synthesizer=ctx.synthesizer)
    if made.too_thin:  # stripping the grading tests' names can leave too little
        stage.discard()
        return Skip(SkipReason.INSTRUCTION_TOO_THIN, "too short once leaks and the grading tests' names are removed")
    instruction = made.text
    stage.write_text("instruction.md", instruction)
    changed = spec.split.gold_lines_added + spec.split.gold_lines_removed
    difficulty = difficulty_bucket(changed, len(spec.split.source_files))
    tests_meta = spec.tests_table(
        base_commit=spec.base_commit, head_commit=spec.head_commit, **spec.table_fields,
        fail_to_pass=list(selection.fail_to_pass), pass_to_pass=list(selection.pass_to_pass),
        flaky=list(selection.flaky), test_files=list(spec.split.test_files),
        run_seconds_before=[r.seconds for r in before], run_seconds_after=[r.seconds for r in after])
    meta = Repo2EnvMetadata(
        pipeline=spec.pipeline, pipeline_version=spec.pipeline_version, repo=spec.repo.slug, ref=spec.base_commit,
        reference=spec.reference, built_at=datetime.now(UTC).replace(microsecond=0),
        synthesis_llm=made.synthesis.model if made.source == "synthesized" else None,
        leak_audit=made.leak_audit, synthesis=made.synthesis,
        reward_kinds=["test_execution"], spec_version=SPEC_VERSION, content_hash=content_hash(stage.root),
        reward_calibration=RewardCalibration(changed_lines=changed, difficulty=difficulty,
                                             fail_to_pass_count=len(selection.fail_to_pass),
                                             pass_to_pass_count=len(selection.pass_to_pass)),
        reproducibility=image.reproducibility(),
        evaluation=Evaluation(status=EvaluationStatus.UNVERIFIED, stage="generation",
                              reason_codes=["validation_not_run"]),
        **{spec.pipeline: tests_meta.model_dump()})
    title_line = instruction.splitlines()[0].lstrip("# ").strip()
    stage.write_text("task.toml", render_task_toml(
        task_id=spec.task_id, description=title_line, keywords=[spec.repo.slug.split("/")[-1], spec.pipeline],
        difficulty=difficulty, meta=meta, agent_timeout_sec=AGENT_TIMEOUT_SEC,
        verifier_timeout_sec=verifier_timeout, build_timeout_sec=stable_timeout(2 * image.build_seconds, floor=600),
        category=spec.category))
    return Draft(task_id=spec.task_id, stage=stage, verifier_timeout_sec=verifier_timeout,
                 test_seconds=sum(r.seconds for r in before + after),
                 split_layout=split_layout(spec, image, selection, targets))

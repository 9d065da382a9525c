"""Runtime tasks (pr_runtime, commit_runtime): the repository's own tests decide.

``build_runtime_task`` takes a base commit, the test/gold split and the text of the change, and returns a staged
Harbor 1.0 bundle whose FAIL_TO_PASS / PASS_TO_PASS come from K container runs, or a ``Skip``. Stages, in order:
instruction -> environment images -> stage files -> test runs -> selection -> final files + task.toml.
"""

import json
import math
from dataclasses import dataclass, field
from pathlib import PurePosixPath

import docker.errors

from repo2env import languages
from repo2env.bundles.layout13 import SplitLayout
from repo2env.bundles.stage import BundleStage
from repo2env.changes.patches import touched_symbols
from repo2env.core import gitrepo, templates
from repo2env.core.errors import BuildError, TestRunError
from repo2env.core.metadata import RewardCalibration, RuntimeTests, difficulty_bucket
from repo2env.core.options import BuildContext
from repo2env.core.outcomes import SkipReason
from repo2env.core.records import ChangeSplit, Draft, RepoRef, Skip, TestRun
from repo2env.environment import images
from repo2env.environment.selection import select_tests
from repo2env.environment.task_image import TaskImage, build_task_image, stage_environment
from repo2env.environment.testrun import PatchDoesNotApply, run_tests
from repo2env.instructions.leak_audit import AuditContext, added_lines
from repo2env.instructions.leak_strip import build_instruction, is_too_thin
from repo2env.instructions.make import make_instruction
from repo2env.tasks.common import title_of, write_task

RUN_TIMEOUT_SEC = 1800


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


def run_targets(split: ChangeSplit, whole_suite: bool, language) -> list[str]:
    """Test files the runs target: the test files the test patch touches and keeps that the language's runner
    collects (empty = whole suite)."""
    if whole_suite:
        return []
    return [p for p in split.test_files if language.is_runnable_test_file(p) and p not in split.test_files_deleted]


def _verifier_config(spec: RuntimeSpec, language, targets: list[str], has_config_patch: bool, timeout: int) -> dict:
    base_files = set(gitrepo.ls_tree(spec.repo.path, spec.base_commit))
    test_config = [f for f in base_files if PurePosixPath(f).name in language.test_config_names]
    restore = sorted(set(f for f in spec.split.test_files if f in base_files) | set(test_config))
    return {"workspace": "/workspace", "base_commit": spec.base_commit, "test_patch": "test.patch",
            "config_patch": "config.patch" if has_config_patch else None, "restore_paths": restore,
            "remove_paths": sorted(spec.split.test_files_created), "run_targets": targets, "timeout_sec": timeout}


def _stage_files(stage: BundleStage, spec: RuntimeSpec, language, image: TaskImage, config: dict,
                 config_patch: str) -> dict[str, str]:
    hosts = stage_environment(stage, image, spec.base_commit)
    stage.write_bytes("solution/patch.diff", spec.split.gold_patch.encode("utf-8", "surrogateescape"))
    stage.write_text("solution/solve.sh", templates.read("solve.sh"), executable=True)
    stage.write_text("tests/test.sh", templates.render("test.sh", grader="verifier.py"), executable=True)
    for name, data in language.grader_files().items():
        stage.write_bytes(f"tests/{name}", data)
    stage.write_bytes("tests/test.patch", spec.split.test_patch.encode("utf-8", "surrogateescape"))
    if config_patch:
        stage.write_bytes("tests/config.patch", config_patch.encode("utf-8", "surrogateescape"))
    _write_config(stage, config)
    return hosts


def _write_config(stage: BundleStage, config: dict) -> None:
    stage.write_text("tests/config.json", json.dumps(config, indent=1) + "\n")


def _config_patch(spec: RuntimeSpec, language) -> str:
    """The gold patch's changes to test configuration files (the verifier re-applies them after its reset)."""
    paths = [p for p in spec.split.source_files + spec.split.docs_ci_files
             if PurePosixPath(p).name in language.test_config_names]
    return gitrepo.diff(spec.repo.path, spec.base_commit, spec.head_commit, paths)


def split_layout(spec: RuntimeSpec, language, image: TaskImage, selection, targets: list[str]) -> SplitLayout:
    """The schema 1.3 split of a runtime task: the learner's copy lacks every test file of the test patch; the
    verifier's copy holds them and the test-configuration files as of the head commit, and lacks the files the
    reference deletes; the artifacts are the reference's other files."""
    config_names = language.test_config_names
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


def stable_timeout(seconds: float, *, floor: int, step: int = 300) -> float:
    """``seconds`` rounded up to a multiple of ``step``, at least ``floor``: a timeout derived from a measured
    duration, coarse enough that two builds of the same task write the same number (and the same bundle hash)."""
    return float(max(floor, math.ceil(seconds / step) * step))


def audit_context(spec: RuntimeSpec, selection) -> AuditContext:
    """What the instruction must not leak: the grading tests, the hidden test files, the gold patch's lines."""
    return AuditContext(test_ids=list(selection.fail_to_pass + selection.pass_to_pass),
                        hidden_paths=list(spec.split.test_files), gold_added_lines=added_lines(spec.split.gold_patch),
                        web_url=spec.repo.web_url)


def _runs(ctx: BuildContext, language, image: str, stage: BundleStage,
          hosts: dict[str, str]) -> tuple[list[TestRun], list[TestRun]]:
    opts = ctx.options
    before, after = [], []
    for label, count, runs in (("before", opts.runs_before, before), ("after", opts.runs_after, after)):
        for i in range(count):
            ctx.report(f"tests {label} the fix ({i + 1}/{count})")
            runs.append(run_tests(ctx.client, image, stage.root, label, language=language, extra_hosts=hosts,
                                  timeout_sec=RUN_TIMEOUT_SEC))
    return before, after


def _submodule_skip(image: TaskImage, detail: str) -> Skip | None:
    """When the runs gave no task and a submodule's content is not in the image, that is the likely cause: say
    so (``submodule_missing``) rather than blame the tests. None when every submodule is in the image."""
    missing = image.missing_submodules
    if not missing:
        return None
    return Skip(SkipReason.SUBMODULE_MISSING, f"submodule {', '.join(missing)} not initialised in the source clone "
                                              f"(`git submodule update --init`); {detail}")


def build_runtime_task(spec: RuntimeSpec, ctx: BuildContext) -> Draft | Skip:
    """Build and stage one runtime task. Returns ``Skip`` with a reason for every expected failure
    (environment build, patch application, test runs, no FAIL_TO_PASS, thin instruction); engine errors raise."""
    hidden = list(spec.split.test_files)
    if ctx.synthesizer is None and is_too_thin(build_instruction(spec.title, spec.body, hidden_paths=hidden)):
        return Skip(SkipReason.INSTRUCTION_TOO_THIN, "instruction under the minimum length after leak stripping")
    language, _ = languages.for_commit(spec.repo.path, spec.base_commit)
    recipe = language.install_recipe(spec.repo.path, spec.base_commit, ctx.options.env_config.for_repo(spec.repo.slug))
    try:
        image = build_task_image(ctx.client, spec.repo, spec.base_commit, recipe, ctx.report)
    except BuildError as exc:
        return Skip(SkipReason.ENV_BUILD_FAILED, str(exc))
    stage = BundleStage(ctx.options.out, spec.task_id)
    try:
        return _build_staged(spec, ctx, stage, language, image)
    except BaseException:
        stage.discard()
        raise


def _build_staged(spec: RuntimeSpec, ctx: BuildContext, stage: BundleStage, language,
                  image: TaskImage) -> Draft | Skip:
    targets = run_targets(spec.split, ctx.options.whole_suite, language)
    config_patch = _config_patch(spec, language)
    config = _verifier_config(spec, language, targets, bool(config_patch), RUN_TIMEOUT_SEC)
    hosts = _stage_files(stage, spec, language, image, config, config_patch)
    try:
        env_image = images.environment_image(ctx.client, stage.root / "environment", spec.task_id)
        language.record_environment(ctx.client, env_image, stage, config, ctx.report)
        before, after = _runs(ctx, language, env_image, stage, hosts)
    except BuildError as exc:
        stage.discard()
        return Skip(SkipReason.ENV_BUILD_FAILED, str(exc))
    except PatchDoesNotApply as exc:
        stage.discard()
        return Skip(SkipReason.PATCH_DOES_NOT_APPLY, str(exc))
    except (TestRunError, docker.errors.ContainerError) as exc:
        stage.discard()
        return _submodule_skip(image, str(exc)) or Skip(SkipReason.TEST_RUN_FAILED, str(exc))
    selection = select_tests(before, after)
    if not selection.fail_to_pass:
        stage.discard()
        detail = f"{len(selection.pass_to_pass)} pass-to-pass, {len(selection.flaky)} flaky, 0 fail-to-pass"
        return _submodule_skip(image, detail) or Skip(SkipReason.NO_FAIL_TO_PASS, detail)
    slowest = max(r.seconds for r in before + after)
    verifier_timeout = stable_timeout(3 * slowest + 60, floor=300)
    config["timeout_sec"] = int(verifier_timeout) - 15
    _write_config(stage, config)
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
    write_task(
        stage, task_id=spec.task_id, pipeline=spec.pipeline, pipeline_version=spec.pipeline_version, repo=spec.repo,
        ref=spec.base_commit, reference=spec.reference, made=made, reward_kinds=["test_execution"],
        description=title_of(instruction), difficulty=difficulty, category=spec.category, table=tests_meta.model_dump(),
        verifier_timeout_sec=verifier_timeout, build_timeout_sec=stable_timeout(2 * image.build_seconds, floor=600),
        reward_calibration=RewardCalibration(changed_lines=changed, difficulty=difficulty,
                                             fail_to_pass_count=len(selection.fail_to_pass),
                                             pass_to_pass_count=len(selection.pass_to_pass)),
        reproducibility=image.reproducibility())
    return Draft(task_id=spec.task_id, stage=stage, verifier_timeout_sec=verifier_timeout,
                 test_seconds=sum(r.seconds for r in before + after),
                 split_layout=split_layout(spec, language, image, selection, targets))

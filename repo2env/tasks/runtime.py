"""Runtime tasks (pr_runtime, commit_runtime): the repository's own tests decide.

``build_runtime_task`` takes a base commit, the test/gold split and the text of the change, and returns a staged
Harbor 1.0 bundle whose FAIL_TO_PASS / PASS_TO_PASS come from K container runs, or a ``Skip``. Stages, in order:
instruction -> environment images -> stage files -> test runs -> selection -> final files + task.toml.
"""

import dataclasses
import hashlib
import json
import math
import re
import time
from dataclasses import dataclass, field
from pathlib import PurePosixPath

import docker.errors

from repo2env import languages
from repo2env.bundles.layout13 import SplitLayout
from repo2env.bundles.stage import BundleStage
from repo2env.changes.patches import public_signatures, touched_symbols
from repo2env.core import artefacts, concurrency, gitrepo, templates, timings
from repo2env.core.errors import BuildError, TestRunError
from repo2env.core.limits import MEMORY_MB
from repo2env.core.metadata import RewardCalibration, RuntimeTests, difficulty_bucket
from repo2env.core.options import BuildContext
from repo2env.core.outcomes import SkipReason
from repo2env.core.records import ChangeSplit, Draft, RepoRef, Skip, TestRun
from repo2env.environment import images
from repo2env.environment.ladder import EnvironmentSearch
from repo2env.environment.selection import select_tests
from repo2env.environment.egress import bundle_hosts
from repo2env.environment.task_image import TaskImage, stage_environment
from repo2env.environment.testrun import RESULT_PATH, PatchDoesNotApply, idle_tests, run_tests, run_twin_trial
from repo2env.graders import runtime_verifier
from repo2env.graders.runtime_verifier import OVERLAY_DIR
from repo2env.instructions.leak_audit import AuditContext, added_lines
from repo2env.instructions.make import make_instruction
from repo2env.instructions.observed import Evidence, observed_behaviour
from repo2env.instructions.observed.evidence import interface_names, module_names_of, relative_imports
from repo2env.tasks import widen
from repo2env.tasks.category import change_category
from repo2env.tasks.common import (
    DEFAULT_PYTHON_PATH,
    grader_budget,
    instruction_quality,
    title_of,
    write_task,
    write_test_sh,
)

RUN_TIMEOUT_SEC = 1800
# What the grader enforces, told to the agent in every runtime task's instruction (its last paragraph; a language
# plugin's ``grader_rules`` replaces it).
GRADER_RULES = ("Grading puts the repository's test files and test configuration back as they were and then runs its "
                "tests in the Python environment as it is now, so fix the code itself: changes to test files are "
                "undone, and installing, upgrading or removing a package grades 0.")


@dataclass(frozen=True)
class RuntimeSpec:
    """One runtime candidate, whatever its source: ``base_commit..head_commit`` is the change; ``split`` its
    test/gold halves; ``title``/``body`` the text the instruction is made from. The pipeline's metadata table is
    ``tests_table`` (a ``RuntimeTests`` record) filled with the common fields plus ``table_fields``
    (e.g. ``pr_number``); ``metadata`` adds fields to ``[metadata.repo2env]`` itself (a recipe's ``recipe``,
    ``source_revision``, ...). ``image``: the task image to use as it is (``TaskImage``; repo_mutate's mutants
    derive theirs from the revision's), instead of the environment ladder. ``runs_after``: how many runs with the
    fix (None: ``--runs-after``; repo_mutate's fix is the revision, whose suite already passed once)."""

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
    metadata: dict = field(default_factory=dict)
    image: TaskImage | None = None
    runs_after: int | None = None


def run_targets(spec: RuntimeSpec, whole_suite: bool, language) -> list[str]:
    """Test files the runs target: the test files the test patch touches and keeps that hold tests by the
    language's rule (their name, or their text at the head commit; empty = the whole suite)."""
    if whole_suite:
        return []
    kept = [p for p in spec.split.test_files if p not in spec.split.test_files_deleted]
    return [p for p in kept if language.is_runnable_test_file(
        p, gitrepo.show_file(spec.repo.path, spec.head_commit, p) or "")] + list(spec.split.mixed_files)


# of the other files of a test folder written back (``restores_test_folders``), at most this many bytes: files
# past it (in path order) are left as the agent left them, so that a repository whose tests carry large data does
# not make every bundle as large
TEST_FOLDER_BYTES = 8 << 20


def grading_overlay(spec: RuntimeSpec, language,
                    tree: dict[str, str]) -> tuple[dict[str, tuple[bytes, str]], list[str]]:
    """The files the grader writes before the tests run (path -> (bytes, octal mode)) and the ones it deletes:
    every test file of the test patch and every test-configuration file the gold patch changes, as of the head
    commit, and every other test-configuration file as of the base commit. The same state as the base commit with
    the test patch and the gold patch's configuration changes applied, without git. A language with
    ``restores_test_folders`` (Python) has the other files of each test folder that holds a file of the test patch
    (``language.test_folder``: ``tests/__init__.py``, a helper, a golden file) written too, as of the base commit,
    up to ``TEST_FOLDER_BYTES``: what the graded tests import or read is never the agent's version. A language with
    ``restores_base_tests`` (Go, JavaScript, Rust: a test file the test patch leaves alone still compiles into the
    graded test binary, or is a helper or golden file the graded tests read) has every other test file of the
    base tree written too, as of the base commit. A file of ``split.mixed_files`` (a source file holding unit tests
    the change edits) is written as of the head commit too, and listed in the config's ``overlay["splice"]``: the
    grader splices its tests into the agent's version (the runner's ``splice``). ``tree``: the base commit's
    entries (``gitrepo.ls_tree_entries``)."""
    repo, base, head = spec.repo.path, spec.base_commit, spec.head_commit
    config_names = language.test_config_names
    at_head = list(spec.split.test_files) + list(spec.split.mixed_files) + [
        p for p in spec.split.source_files + spec.split.docs_ci_files
        if PurePosixPath(p).name in config_names and p not in spec.split.mixed_files]
    write, delete = {}, []
    head_tree = gitrepo.ls_tree_entries(repo, head)
    for rel in at_head:
        data = gitrepo.file_bytes(repo, head, rel)
        if data is None:
            delete.append(rel)
        else:
            write[rel] = (data, "755" if head_tree.get(rel, "").startswith("100755") else "644")
    restore_tests = getattr(language, "restores_base_tests", False)
    folders = {language.test_folder(p) for p in spec.split.test_files} - {None} \
        if getattr(language, "restores_test_folders", False) else set()
    budget = TEST_FOLDER_BYTES
    for rel, entry in sorted(tree.items()):
        if rel in write or rel in delete or not entry.startswith("100"):
            continue
        mode = "755" if entry.startswith("100755") else "644"
        if PurePosixPath(rel).name in config_names or (restore_tests and language.is_test_file(rel)):
            write[rel] = (gitrepo.file_bytes(repo, base, rel), mode)
        elif any(rel.startswith(folder + "/") for folder in folders) and budget > 0:
            data = gitrepo.file_bytes(repo, base, rel)
            if data is not None and len(data) <= budget:
                write[rel], budget = (data, mode), budget - len(data)
    return write, sorted(delete)


def _verifier_config(spec: RuntimeSpec, targets: list[str], overlay: tuple, timeout: int) -> dict:
    write, delete = overlay
    # The sentinels' seed: the same on every grading of this task (an honest solution grades the same every time,
    # and the oracle control proves the chosen sentinels harmless) and on every build, and unknowable to the code
    # under test. The test patch alone is not enough: while the tests run, the grader's overlay has put the new
    # test files in the workspace, so the code under test can rebuild the test patch, replay plant_sentinels for
    # the seed it gives and name every sentinel (red team: 1.0 on two demo tasks). The gold patch is never in the
    # container of an agent's run, and an agent that could rebuild it byte for byte would have solved the task.
    secret = f"{spec.base_commit}\0{spec.split.test_patch}\0{spec.split.gold_patch}"
    seed = int(hashlib.sha256(secret.encode("utf-8", "surrogateescape")).hexdigest()[:12], 16)
    return {"workspace": "/workspace", "base_commit": spec.base_commit,
            "overlay": dict({"write": {rel: mode for rel, (_, mode) in sorted(write.items())}, "delete": delete},
                            **({"splice": sorted(spec.split.mixed_files)} if spec.split.mixed_files else {})),
            "run_targets": targets, "timeout_sec": timeout, "sentinel_seed": seed}


def _stage_files(stage: BundleStage, spec: RuntimeSpec, language, image: TaskImage, config: dict,
                 overlay: tuple, base_tree: dict[str, str]) -> dict[str, str]:
    hosts = stage_environment(stage, image, spec.base_commit, language)
    stage.write_bytes("solution/patch.diff", spec.split.gold_patch.encode("utf-8", "surrogateescape"))
    stage.write_text("solution/solve.sh", templates.read("solve.sh"), executable=True)
    for name, data in language.grader_files().items():
        stage.write_bytes(f"tests/{name}", data)
    stage.write_bytes("tests/test.patch", spec.split.test_patch.encode("utf-8", "surrogateescape"))
    for rel, (data, _) in overlay[0].items():
        stage.write_bytes(f"tests/{OVERLAY_DIR}/{rel}", data)
    stage.write_text("tests/base_files.json", json.dumps(base_tree, indent=0, sort_keys=True) + "\n")
    _write_config(stage, config)
    return hosts


def _write_config(stage: BundleStage, config: dict) -> None:
    stage.write_text("tests/config.json", json.dumps(config, indent=1) + "\n")


def split_layout(spec: RuntimeSpec, language, image: TaskImage, selection, targets: list[str]) -> SplitLayout:
    """The schema 1.3 split of a runtime task: the learner's copy lacks every test file of the test patch; the
    verifier's copy holds them and the test-configuration files as of the head commit, and lacks the files the
    reference deletes; the artifacts are the reference's other files. A file of ``split.mixed_files`` cannot be
    carried (the verifier's copy would need the agent's code and the hidden tests in one file): it is an artifact
    like any source file, so such a task's schema 1.3 controls fail and it is not kept in that format."""
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
    """What the instruction must not leak: the grading tests, the hidden test files, the lines the gold patch
    and the test patch add."""
    return AuditContext(test_ids=list(selection.fail_to_pass + selection.pass_to_pass),
                        hidden_paths=list(spec.split.test_files), gold_added_lines=added_lines(
                            spec.split.gold_patch, spec.split.source_files),
                        web_url=spec.repo.web_url, test_added_lines=added_lines(spec.split.test_patch),
                        allowed_names=sorted(interface_names(spec.split.gold_patch)))


_SCRATCH = re.compile(r"r2e-run-\w{8}")  # tempfile.mkdtemp(prefix="r2e-run-") in the graders


def _steady(test_id: str, text: str, before: list[TestRun]) -> str | None:
    """``text`` (one failure's digest) as every run of ``before`` read it: an object's address (``0x7f3a…``, which
    differs from run to run) or a number of 12 digits or more (an ``id()`` in a repr, ``<Tag @ 139677940805888>``;
    a time in nanoseconds) as ``0x…``, its ``L name = value`` lines (the test's locals,
    ``runtime_verifier.local_lines``) only those that read alike in every run. A line of the rest that differs in
    a few words between runs (a timestamp, a duration, a port: tenacity pr#603 lost its whole failure to one
    time) has those words as ``0x…`` too (``_masked``); None when the rest differs in any other way."""
    def split(digest: str) -> tuple[list[str], list[str]]:
        lines = runtime_verifier.VOLATILE.sub("0x…", _SCRATCH.sub("r2e-run-XXXXXXXX", digest)).split("\n")
        return [x for x in lines if not x.startswith("L ")], [x for x in lines if x.startswith("L ")]

    head, shown = split(text)
    for run in before:
        other_head, other_shown = split(run.failure_details.get(test_id, text))
        if len(other_head) != len(head):
            return None
        head = [_masked(a, b) for a, b in zip(head, other_head)]
        if None in head:
            return None
        shown = [x for x in shown if x in other_shown]
    return "\n".join(head + shown)


_WORDS = re.compile(r"\w+|\W")


def _masked(line: str, other: str) -> str | None:
    """``line`` with the words in which ``other`` differs written ``0x…`` (the mark of a value that differs from
    run to run, which no instruction quotes: ``instructions.observed.spans``), when the two have the same shape
    (as many words and separators, the separators alike) and at most a third of the words differ; else None."""
    if line == other:
        return line
    mine, theirs = _WORDS.findall(line), _WORDS.findall(other)
    if len(mine) != len(theirs):
        return None
    changed = [i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b]
    words = sum(1 for w in mine if w[0].isalnum() or w[0] == "_")
    if any(not (mine[i][0].isalnum() or mine[i][0] == "_") for i in changed) or 3 * len(changed) > words:
        return None
    for i in changed:
        mine[i] = "0x…"
    return "".join(mine)


def evidence(spec: RuntimeSpec, selection, before: list[TestRun], language) -> Evidence:
    """What the FAIL_TO_PASS tests saw in the runs before the fix (``instructions.observed``): their failure
    messages and traceback heads (only those that read the same in every run), the import errors of their
    files, and, at the head commit, the test files of the test patch and those that hold a FAIL_TO_PASS test (a
    data-only test patch changes no test module), those whose names end in ``suffixes`` (the language's test
    sources: ``language.test_source_suffixes``, ``.py`` when it has none) and the module names of the
    repository's Python test files (``language.is_test_file``)."""
    suffixes = getattr(language, "test_source_suffixes", (".py",))
    # the runner's scratch folder (its HOME and TMPDIR: ``r2e-run-<random>``) is named alike in every run
    failures = {k: v for run in reversed(before) for k, v in run.failure_details.items()}
    # a failure that reads differently from one run to the next (a thread id, an address, a time) tells nothing
    # a user could rely on, and would make the instruction (and the bundle hash) differ between builds; a local
    # value that does (a temporary folder's name) is left out, and the rest of the failure kept
    failures = {k: _steady(k, v, before) for k, v in failures.items()}
    failures = {k: v for k, v in failures.items() if v is not None}
    errors = {k: v for run in reversed(before) for k, v in run.collection_messages.items()}
    wanted = {t.split("::", 1)[0] for t in selection.fail_to_pass} | set(spec.split.test_files) | set(
        spec.split.mixed_files)
    sources = {p: gitrepo.show_file(spec.repo.path, spec.head_commit, p) or "" for p in sorted(wanted)
               if p.endswith(suffixes) and p not in spec.split.test_files_deleted}
    for path in relative_imports(sources):  # ``from . import tomllib``: the test package's module says what it is
        text = gitrepo.show_file(spec.repo.path, spec.head_commit, path)
        if text is not None:
            sources[path] = text
    test_files = [p for p in gitrepo.ls_tree(spec.repo.path, spec.head_commit)
                  if p.endswith(".py") and language.is_test_file(p)] if ".py" in suffixes else []
    return Evidence(failures=failures, import_errors=errors, fail_to_pass=tuple(selection.fail_to_pass),
                    test_sources=sources, interface=interface_names(spec.split.gold_patch),
                    test_modules=module_names_of(test_files),
                    test_patch_lines=tuple(added_lines(spec.split.test_patch)))


def caps(ctx: BuildContext, repo: RepoRef) -> dict:
    """``{"memory_mb", "cpus"}`` of the repository's containers (``RepoEnvConfig``; defaults when unset)."""
    override = ctx.options.env_config.for_repo(repo.slug)
    return {"memory_mb": (override.memory_mb if override and override.memory_mb else MEMORY_MB),
            "cpus": override.cpus if override else None}


BEFORE_FLOOR_SEC = 120  # a run before the fix is stopped no sooner than this (was 300: sqlparse 40ed3aa95865's
# DoS fix, whose run before it never ends, held its candidate 305 s of a 200-commit run for the same skip), ...
BEFORE_FACTOR = 20  # ... nor before this many times the slowest run after the fix took


class BeforeLimit:
    """How long a run before the fix may go on once a run after the fix has finished (w3lib 2b1709a53a26: the
    code before the fix loops forever in one test, and its run held the candidate for ``RUN_TIMEOUT_SEC``, 30
    minutes, to report no test at all): ``BEFORE_FACTOR`` times the slowest run after the fix, at least
    ``BEFORE_FLOOR_SEC``, from the run's own start. A run that the limit stops reports no test, as one its
    runner's time-out stops does, so a run that never ends gives the same result, sooner. Thread-safe enough
    for ``concurrency.run_all``: one float written, read by the others."""

    def __init__(self):
        self.after_seconds: float | None = None

    def finished(self, seconds: float) -> None:
        """A run after the fix took ``seconds``."""
        self.after_seconds = max(seconds, self.after_seconds or 0.0)

    def deadline(self, started: float):
        """For a run started at ``started`` (``time.monotonic()``): a callable giving the moment it is stopped,
        None while no run after the fix has finished."""
        def moment():
            if self.after_seconds is None:
                return None
            return started + max(BEFORE_FLOOR_SEC, BEFORE_FACTOR * self.after_seconds)
        return moment


def _runs(ctx: BuildContext, language, image: str, stage: BundleStage,
          hosts: dict[str, str], repo: RepoRef, runs_after: int | None = None) -> tuple[list[TestRun], list[TestRun]]:
    """The runs before and after the fix: ``runs_before``/``runs_after`` of them, each in a fresh container, up
    to ``parallel_runs`` side by side (``core.concurrency``). One of each comes first, and the gate is adaptive:
    when that pair leaves no FAIL_TO_PASS candidate, no further run can make one (a FAIL_TO_PASS test fails in
    every run before and passes in every run after, ``environment.selection``), so the rest are not run; a task
    that is kept has had every run. A run before the fix stops at ``BeforeLimit`` once a run after the fix has
    finished (the run after comes first). ``runs_after`` replaces ``--runs-after`` when given."""
    opts = ctx.options
    after_count = runs_after or opts.runs_after
    limits = caps(ctx, repo)
    before, after = [], []
    limit = BeforeLimit()

    def run(label: str):
        def once():
            started = time.monotonic()
            result = run_tests(ctx.client, image, stage.root, label, language=language, extra_hosts=hosts,
                               timeout_sec=RUN_TIMEOUT_SEC, deadline=limit.deadline(started)
                               if label == "before" else None, **limits)
            if label == "after":
                limit.finished(result.seconds)
            return result
        return once

    first = ["after", "before"]  # the run after the fix first: one after the other, it sets the before-run limit
    rest = ["before"] * (opts.runs_before - 1) + ["after"] * (after_count - 1)
    total = opts.runs_before + after_count
    for labels in (first, rest):
        if not labels or (before and after and not select_tests(before, after).fail_to_pass):
            break
        done = len(before) + len(after)
        ctx.report(f"tests before and after the fix (runs {done + 1}-{done + len(labels)} of {total})")
        with timings.stage("test runs"):
            results = concurrency.run_all([run(label) for label in labels], opts.parallel_runs or 1)
        for label, result in zip(labels, results):
            (before if label == "before" else after).append(result)
    return before, after


def broken_modules(after: list[TestRun]) -> dict[str, str]:
    """Test files that failed to import in every run with the fix, and why (the first run's message): the
    environment lacks something (a test dependency, a data file), which no fix can supply."""
    if not after:
        return {}
    common = set(after[0].collection_errors).intersection(*(r.collection_errors for r in after[1:]))
    return {path: _one_line(after[0].collection_messages.get(path, "collection error")) for path in sorted(common)}


def _one_line(message: str, limit: int = 300) -> str:
    """A runner's message as one line (a skip's detail): its lines joined, Node.js stack frames left out."""
    lines = [ln.strip() for ln in message.splitlines() if ln.strip() and not ln.strip().startswith("at ")]
    text = " / ".join(lines) or message.strip()
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _submodule_skip(spec: RuntimeSpec, image: TaskImage, targets: list[str], detail: str) -> Skip | None:
    """When the runs gave no task, a submodule's content is not in the image, and the failure or the graded test
    files name that submodule (its path or its folder's name), the submodule is the likely cause: say so
    (``submodule_missing``) rather than blame the tests. None otherwise."""
    named = []
    texts = [detail] + [gitrepo.show_file(spec.repo.path, spec.head_commit, t) or "" for t in targets]
    for path in image.missing_submodules:
        if any(path in text or PurePosixPath(path).name in text for text in texts):
            named.append(path)
    if not named:
        return None
    return Skip(SkipReason.SUBMODULE_MISSING, f"submodule {', '.join(named)} not initialised in the source clone "
                                              f"(`git submodule update --init`); {detail}")


@dataclass
class _Ran:
    """One rung's runs: the staged bundle, its image and grader config, the runs before and after the fix."""

    stage: BundleStage
    recipe: object
    image: TaskImage
    config: dict
    targets: list
    before: list
    after: list


@dataclass
class _Broken:
    """A rung whose image built but whose tests could not run: the skip it would give, and why."""

    skip: Skip
    after: list = field(default_factory=list)  # the runs with the fix, when there were any


def build_runtime_task(spec: RuntimeSpec, ctx: BuildContext) -> Draft | Skip:
    """Build and stage one runtime task. Returns ``Skip`` with a reason for every expected failure
    (environment build on every rung, patch application, test runs, no FAIL_TO_PASS, thin instruction); engine
    errors raise. The environment comes from the fallback ladder (``environment.ladder``): a rung whose install
    fails or whose tests cannot run is followed by the next, and a first run that says a test dependency is
    missing is run once more with it (the feedback loop)."""
    # No early thin-text skip: the behaviour the tests observe before the fix can make a bare title a task.
    language, detection = languages.for_commit(spec.repo.path, spec.base_commit)
    if not detection.supported:
        return Skip(SkipReason.LANGUAGE_UNSUPPORTED, f"{detection.language}: {detection.reason}")
    if spec.image is not None:
        return _on_fixed_image(spec, ctx, language)
    search = EnvironmentSearch(ctx, language, spec.repo, spec.base_commit)
    kept: _Ran | None = None  # a rung that ran, while the feedback rung runs
    last_skip = None
    try:
        for recipe in search:
            image = search.build(recipe)
            if image is None:  # recorded by the search; the next rung comes, unless a kept result waits
                if kept is not None:
                    break
                continue
            ran = _run_rung(spec, ctx, language, recipe, image)
            if isinstance(ran, Skip):  # the patches do not apply: no rung changes that
                if kept is not None:
                    break
                return ran
            if isinstance(ran, _Broken):
                if search.feedback(recipe, ran.after, broken=ran.skip.detail):
                    continue
                search.broken(recipe, ran.skip.detail or "")
                last_skip = ran.skip  # the runtime's own reason, should no later rung run the tests
                if kept is not None:
                    break
                continue
            if kept is None and search.feedback(recipe, ran.after):
                kept = ran
                continue
            if kept is not None:
                kept.stage.discard()
            kept = None
            search.accept(recipe)
            return _finish(spec, ctx, language, ran, search)
        if kept is not None:
            search.keep_previous(kept.recipe)
            ran, kept = kept, None
            return _finish(spec, ctx, language, ran, search)
        return search.give_up(last_skip)
    except BaseException:
        if kept is not None:
            kept.stage.discard()
        raise


class _NoSearch:
    """The environment of a task whose image was given (``RuntimeSpec.image``): no rung was tried here."""

    @staticmethod
    def records() -> list[dict]:
        return []


def _on_fixed_image(spec: RuntimeSpec, ctx: BuildContext, language) -> Draft | Skip:
    ran = _run_rung(spec, ctx, language, spec.image.recipe, spec.image)
    if isinstance(ran, _Broken):
        return ran.skip
    if isinstance(ran, Skip):
        return ran
    return _finish(spec, ctx, language, ran, _NoSearch())


def _run_rung(spec: RuntimeSpec, ctx: BuildContext, language, recipe, image: TaskImage) -> _Ran | _Broken | Skip:
    """Stage the bundle on ``image`` and run the tests before and after the fix. A ``Skip`` when a patch does
    not apply; ``_Broken`` when the tests could not run (no results, or every targeted file fails to import
    with the fix too); the stage is discarded then."""
    stage = BundleStage(ctx.options.out, spec.task_id)
    try:
        ran = _stage_and_run(spec, ctx, stage, language, recipe, image)
    except BaseException:
        stage.discard()
        raise
    if not isinstance(ran, _Ran):
        stage.discard()
    return ran


def _stage_and_run(spec: RuntimeSpec, ctx: BuildContext, stage: BundleStage, language, recipe,
                   image: TaskImage) -> _Ran | _Broken | Skip:
    targets = run_targets(spec, ctx.options.whole_suite, language)
    base_tree = gitrepo.ls_tree_entries(spec.repo.path, spec.base_commit)
    overlay = grading_overlay(spec, language, base_tree)
    config = _verifier_config(spec, targets, overlay, RUN_TIMEOUT_SEC)
    if hasattr(language, "grader_config"):  # a toolchain language's runner
        config.update(language.grader_config(spec.repo.path, spec.base_commit), language=language.name)
    hosts = _stage_files(stage, spec, language, image, config, overlay, base_tree)
    try:
        env_image = images.environment_image(ctx.client, stage.root / "environment", spec.task_id)
        language.record_environment(ctx.client, env_image, stage, config, ctx.report)
        before, after = _runs(ctx, language, env_image, stage, hosts, spec.repo, spec.runs_after)
    except BuildError as exc:
        return _Broken(Skip(SkipReason.ENV_BUILD_FAILED, str(exc)))
    except PatchDoesNotApply as exc:
        return Skip(SkipReason.PATCH_DOES_NOT_APPLY, str(exc))
    except (TestRunError, docker.errors.ContainerError) as exc:
        return _Broken(_submodule_skip(spec, image, targets, str(exc)) or Skip(SkipReason.TEST_RUN_FAILED, str(exc)))
    broken = broken_modules(after)
    if (set(targets) <= set(broken) if targets else not any(r.outcomes for r in after)) and broken:
        path, message = next(iter(broken.items()))
        return _Broken(_submodule_skip(spec, image, targets, message) or Skip(
            SkipReason.TEST_ENVIRONMENT_BROKEN, f"{path} cannot be imported in any run, with the fix too: {message}"),
            after=after)
    return _Ran(stage=stage, recipe=recipe, image=image, config=config, targets=targets, before=before, after=after)


def _finish(spec: RuntimeSpec, ctx: BuildContext, language, ran: _Ran, search: EnvironmentSearch) -> Draft | Skip:
    """Select FAIL_TO_PASS / PASS_TO_PASS from the chosen rung's runs and write the rest of the bundle."""
    stage, image, config, targets, before, after = ran.stage, ran.image, ran.config, ran.targets, ran.before, ran.after
    try:
        result = _select_and_write(spec, ctx, stage, language, image, config, targets, before, after, search)
    except BaseException:
        stage.discard()
        raise
    if isinstance(result, Skip):
        stage.discard()
    return result


def _widen_pass_to_pass(spec: RuntimeSpec, ctx: BuildContext, stage: BundleStage, language, config: dict,
                        targets: list, selection, runs: list) -> dict | None:
    """The PASS_TO_PASS floor (``tasks.widen``): None when the floor holds, the suite is whole or slow, or no
    other file exercises the changed modules; else ``{"selection", "targets", "record"}`` with the added tests,
    the files added to the grader's targets and overlay (``config`` and the staged overlay are updated)."""
    if len(selection.pass_to_pass) >= widen.P2P_FLOOR or not targets:
        return None
    if max(r.seconds for r in runs) > widen.MAX_RUN_SECONDS:
        return None
    base_tree = gitrepo.ls_tree_entries(spec.repo.path, spec.base_commit)
    files = widen.widening_files(spec.repo.path, spec.base_commit, base_tree, spec.split.source_files,
                                 set(targets) | set(spec.split.test_files), language)
    if not files:
        return None
    ctx.report(f"widening PASS_TO_PASS with {len(files)} file(s)")
    trial = dict(config, run_targets=files)
    _write_config(stage, trial)
    env_image = images.environment_image(ctx.client, stage.root / "environment", spec.task_id)
    hosts, limits = bundle_hosts(stage.root), caps(ctx, spec.repo)
    try:
        with timings.stage("test runs"):
            before, after = concurrency.run_all([
                lambda label=label: run_tests(ctx.client, env_image, stage.root, label, language=language,
                                              extra_hosts=hosts, timeout_sec=RUN_TIMEOUT_SEC, **limits)
                for label in ("before", "after")], ctx.options.parallel_runs or 1)
    except (TestRunError, PatchDoesNotApply, docker.errors.ContainerError):
        _write_config(stage, config)
        return None
    added = [t for t in widen.kept_tests(files, before, after) if t not in selection.fail_to_pass]
    used = sorted({t.split("::", 1)[0] for t in added})
    if not added:
        _write_config(stage, config)
        return None
    for rel in used:  # graded like every test file: put back as it was before the tests run
        data = gitrepo.file_bytes(spec.repo.path, spec.base_commit, rel)
        stage.write_bytes(f"tests/{OVERLAY_DIR}/{rel}", data)
        mode = "755" if base_tree.get(rel, "").startswith("100755") else "644"
        config["overlay"]["write"] = dict(sorted({**config["overlay"]["write"], rel: mode}.items()))
    config["run_targets"] = list(targets) + used
    _write_config(stage, config)
    record = {"files": used, "added": len(added), "runs": "1 without and 1 with the fix",
              "why": f"{len(selection.pass_to_pass)} PASS_TO_PASS from the touched test files, fewer than "
                     f"{widen.P2P_FLOOR}"}
    widened = selection.model_copy(update={"pass_to_pass": tuple(sorted(set(selection.pass_to_pass) | set(added)))})
    return {"selection": widened, "targets": config["run_targets"], "record": record}


def untwinned(repo_path: str, commit: str, fail_to_pass) -> tuple[list[str], list[str], list[str]]:
    """``(defined, missing, data)``: the FAIL_TO_PASS test functions (``file::name`` or ``file::Class::name``)
    whose ``def`` is in their own Python test file at ``commit`` (where a twin can stand; an inherited method,
    defined in a base class elsewhere, has none), those of them to which the grader can give no sure twin
    (``runtime_verifier.twin_source`` without ``trial``, nor ``data_twin``): a closing helper call, a check in a
    closing loop or ``with`` block, an early ``return``; and those whose twin is a data twin
    (``runtime_verifier.twin_kinds``), which may fail before the test undoes what it did. All sorted."""
    wanted = sorted({runtime_verifier.function_of(t) for t in fail_to_pass})
    defined, missing, data = [], [], []
    for rel in sorted({key.split("::", 1)[0] for key in wanted}):
        text = gitrepo.file_bytes(repo_path, commit, rel) if rel.endswith(".py") else None
        source = (text or b"").decode("utf-8", "surrogateescape")
        kinds = {f"{rel}::{qual}": kind for qual, kind in runtime_verifier.twin_kinds(source).items()}
        defined += [key for key in wanted if key in kinds]
        missing += [key for key in wanted if key in kinds and kinds[key] is None]
        data += [key for key in wanted if kinds.get(key) == "data"]
    return defined, missing, data


def _twin_trial(spec: RuntimeSpec, ctx: BuildContext, stage: BundleStage, language, config: dict,
                selection) -> list[str]:
    """When a FAIL_TO_PASS test function has no sure twin (``untwinned``) and the language's grader has a twin
    trial (``twin_trial_command``), run it with the reference solution in place and write the functions whose
    twins failed there to config.json's ``twins`` (the grader then twins those, and only those: red team 6 scored
    1.0 with code that forged the report of a FAIL_TO_PASS test that had no twin). The trial's outcome is
    recorded in the run's artefacts. Returns the FAIL_TO_PASS functions left without a twin, sorted (red team
    7: with the others solved, code under test that forged the report of one of them scored 1.0 on a bundle
    that passed every probe; the caller skips the candidate); a trial that cannot run leaves them all so. The
    trial runs too when a function's twin is a data twin, which may fail before its test undoes what it did (a
    module flag set back at its end) and so fail another test of the same session: such a twin is not proven
    (``runtime_verifier.cmd_twins``), and the returned ``interference`` (``{session: [cases that failed]}``)
    says why. Returns ``(untwinned functions, interference)``."""
    command = getattr(language, "twin_trial_command", None)
    defined, bare, data = untwinned(spec.repo.path, spec.head_commit, selection.fail_to_pass) \
        if command is not None else ([], [], [])
    if not bare and not data:
        return [], {}
    ctx.report("twin trial")
    try:
        with timings.stage("twin trial"):
            env_image = images.environment_image(ctx.client, stage.root / "environment", spec.task_id)
            found = run_twin_trial(ctx.client, env_image, stage.root, command=command("/tests", RESULT_PATH),
                                   extra_hosts=bundle_hosts(stage.root), timeout_sec=RUN_TIMEOUT_SEC,
                                   **caps(ctx, spec.repo))
    except (TestRunError, PatchDoesNotApply, docker.errors.ContainerError, ValueError):
        return sorted(set(bare) | set(data)), {}
    config["twins"] = sorted(found.get("proven") or [])
    _write_config(stage, config)  # a sure twin the reference passes is left out too
    return sorted(set(defined) - set(config["twins"])), dict(found.get("interference") or {})


def _select_and_write(spec: RuntimeSpec, ctx: BuildContext, stage: BundleStage, language, image: TaskImage,
                      config: dict, targets: list, before: list, after: list,
                      search: EnvironmentSearch) -> Draft | Skip:
    selection = select_tests(before, after)
    if hasattr(language, "refine_selection"):  # e.g. Go: tests that failed only because their package did not build
        selection = language.refine_selection(spec.repo.path, spec.base_commit, spec.head_commit, selection, before)
    broken = broken_modules(after)
    if not selection.fail_to_pass and broken:
        path, message = next(iter(broken.items()))
        return _submodule_skip(spec, image, targets, message) or Skip(
            SkipReason.TEST_ENVIRONMENT_BROKEN, f"{path} cannot be imported in any run, with the fix too: {message}")
    if not selection.fail_to_pass:
        detail = f"{len(selection.pass_to_pass)} pass-to-pass, {len(selection.flaky)} flaky, 0 fail-to-pass"
        idle = idle_tests(after[-1]) if after else None
        detail += f"; with the fix, {idle}" if idle else ""
        return _submodule_skip(spec, image, targets, detail) or Skip(SkipReason.NO_FAIL_TO_PASS, detail)
    widened = _widen_pass_to_pass(spec, ctx, stage, language, config, targets, selection, before + after)
    if widened is not None:
        selection, targets = widened["selection"], widened["targets"]
    slowest = max(r.seconds for r in before + after)
    env_check = float(config.get("env_check_seconds", 0))
    verifier_timeout = stable_timeout(3 * slowest + 3 * env_check + 90, floor=300)
    budget = grader_budget(verifier_timeout)
    config["timeout_sec"] = budget - int(2 * env_check) - 30  # pytest < grader < Harbor's verifier timeout
    _write_config(stage, config)
    stage.write_text("tests/f2p.json", json.dumps(list(selection.fail_to_pass), indent=1) + "\n")
    stage.write_text("tests/p2p.json", json.dumps(list(selection.pass_to_pass), indent=1) + "\n")
    bare, interference = _twin_trial(spec, ctx, stage, language, config, selection)
    if bare:
        more = f" (+{len(bare) - 3} more)" if len(bare) > 3 else ""
        if interference:  # the tests depend on what another test undoes at its end: the oracle would be a draw
            where, failed = next(iter(sorted(interference.items())))
            return Skip(SkipReason.UNTWINNED_FAIL_TO_PASS, f"with the reference, {where} made {failed[0]} fail "
                                                           f"(a test depends on what another undoes at its end); "
                                                           f"no twin for {', '.join(bare[:3])}{more}")
        return Skip(SkipReason.UNTWINNED_FAIL_TO_PASS, f"no twin fails with the reference for {', '.join(bare[:3])}"
                                                       + more)
    ctx.report("instruction")
    symbols = touched_symbols(spec.split.gold_patch)
    seen = evidence(spec, selection, before, language)
    artefacts.record("instruction-inputs", ".json", json.dumps(  # host-side, to re-derive the instruction offline
        {"title": spec.title, "body": spec.body, "evidence": dataclasses.asdict(seen)}, indent=1, default=list))
    made = make_instruction(spec.title, spec.body, audit_context(spec, selection), symbols=symbols,
                            signatures=public_signatures(symbols, lambda p: gitrepo.show_file(
                                spec.repo.path, spec.base_commit, p)),
                            synthesizer=ctx.synthesizer,
                            observed_sentences=getattr(language, "observed_behaviour", observed_behaviour)(seen))
    category, category_why = change_category(seen, spec.category)
    if made.too_thin:  # stripping the grading tests' names can leave too little
        return Skip(SkipReason.INSTRUCTION_TOO_THIN, "too short once leaks and the grading tests' names are removed, "
                                                      "and the tests' failures before the fix say nothing a user "
                                                      "would report")
    skip = instruction_quality(ctx, made)
    if skip is not None:
        return skip
    instruction = made.text.rstrip("\n") + "\n\n" + getattr(language, "grader_rules", GRADER_RULES) + "\n"
    stage.write_text("instruction.md", instruction)
    changed = spec.split.gold_lines_added + spec.split.gold_lines_removed
    difficulty = difficulty_bucket(changed, len(spec.split.source_files))
    tests_meta = spec.tests_table(
        base_commit=spec.base_commit, head_commit=spec.head_commit, **spec.table_fields,
        fail_to_pass=list(selection.fail_to_pass), pass_to_pass=list(selection.pass_to_pass),
        flaky=list(selection.flaky), test_files=list(spec.split.test_files),
        run_seconds_before=[r.seconds for r in before], run_seconds_after=[r.seconds for r in after],
        category_evidence=category_why, pass_to_pass_widened=widened["record"] if widened else None)
    write_task(
        stage, task_id=spec.task_id, pipeline=spec.pipeline, pipeline_version=spec.pipeline_version, repo=spec.repo,
        ref=spec.base_commit, reference=spec.reference, made=made, reward_kinds=["test_execution"],
        description=title_of(instruction), difficulty=difficulty, category=category, table=tests_meta.model_dump(),
        verifier_timeout_sec=verifier_timeout, build_timeout_sec=stable_timeout(2 * image.build_seconds, floor=600),
        reward_calibration=RewardCalibration(changed_lines=changed, difficulty=difficulty,
                                             fail_to_pass_count=len(selection.fail_to_pass),
                                             pass_to_pass_count=len(selection.pass_to_pass)),
        reproducibility=image.reproducibility(search.records()), **caps(ctx, spec.repo), **spec.metadata)
    write_test_sh(stage, "verifier.py", budget=budget, python=config.get("python", DEFAULT_PYTHON_PATH),
                  args=" --inputs-sha256 " + runtime_verifier.inputs_digest(stage.root / "tests"))
    return Draft(task_id=spec.task_id, stage=stage, verifier_timeout_sec=verifier_timeout,
                 test_seconds=sum(r.seconds for r in before + after),
                 split_layout=split_layout(spec, language, image, selection, targets))

"""Validated records passed between stages (frozen pydantic models, unknown keys refused).

Stage boundaries: source -> ``PullRequest`` -> ``ChangeSplit`` -> ``InstallRecipe`` -> ``TestRun`` (x K) ->
``TestSelection`` -> bundle -> ``ControlResult`` -> ``LedgerEntry``. ``specs/metadata.schema.json`` is generated
from ``repo2env.core.metadata``; a test fails when they drift.
"""

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from repo2env.core.outcomes import SkipReason

DEFAULT_PYTHON = "3.12"  # the task images' Python unless the environment config names another


class Record(BaseModel):
    """Base: immutable, strict about unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class RepoRef(Record):
    """Where a repository comes from. ``slug`` is ``owner/name`` (``local/<dir>`` for a clone with no known host);
    ``web_url`` is the host page (``https://github.com/owner/name``) or None when the source has no host."""

    slug: str
    path: str
    web_url: str | None = None

    @property
    def task_prefix(self) -> str:
        """``owner__name``: the prefix of task ids, as SWE-bench spells instance ids."""
        return self.slug.replace("/", "__")


class PullRequest(Record):
    """A merged pull request. ``base_commit..head_commit`` is its change; shas are 40-hex strings.

    Local source: ``base_commit`` is the merge's first parent (squash: the parent), ``head_commit`` the merge or
    squash commit (the PR's net effect on the branch). GitHub source: ``head_commit`` is the PR's head and
    ``base_commit`` its merge base with the branch it was merged into (GitHub's three-dot PR diff), falling back to
    the local rule when the head cannot be fetched. ``merge_commit`` is the commit on the branch.
    """

    number: int
    title: str
    body: str
    author: str
    merged_at: datetime
    base_commit: str
    head_commit: str
    shape: Literal["merge", "squash"]
    reference: str | None = None
    merge_commit: str | None = None


class CommitCandidate(Record):
    """A plain commit on a branch: ``parent_sha..sha`` is its change (first parent for a merge).
    Dates are UTC; ``author`` is ``Name <email>``; ``reference`` the commit's page on its host, if it has one."""

    sha: str
    parent_sha: str
    subject: str
    body: str
    author: str
    authored_at: datetime
    committed_at: datetime
    merge: bool = False
    reference: str | None = None


class ChangeSplit(Record):
    """A PR diff split into the hidden test patch and the gold (reference) patch.

    Patches are ``git diff --binary --full-index --no-renames`` text; path lists are repository-relative.
    """

    test_patch: str
    gold_patch: str
    test_files: tuple[str, ...]
    source_files: tuple[str, ...]
    docs_ci_files: tuple[str, ...]
    test_files_created: tuple[str, ...]
    test_files_deleted: tuple[str, ...]
    binary_test_files: tuple[str, ...]
    gold_lines_added: int
    gold_lines_removed: int
    # source files that hold unit tests the change edits (a Rust file's ``#[cfg(test)]`` module): their test part
    # is in ``test_patch``, their code part (if any) in ``gold_patch`` and ``source_files``; the grader splices the
    # head commit's tests into the agent's version of the file (``Language.split_source``)
    mixed_files: tuple[str, ...] = ()


class RecipePart(Record):
    """One part of an install recipe and why it is there: ``kind`` python / extra / group / requirements /
    package / tooling / build_tools / apt / config; ``name`` what (``3.11``, ``crypto``, ``requirements-test.txt``);
    ``why`` the evidence (``tox.ini [testenv] extras (factor crypto)``)."""

    kind: str
    name: str
    why: str


class InstallRecipe(Record):
    """How to install a repository's dependencies at one commit inside the bootstrap image.

    ``commands`` run with ``sh -c`` in ``/workspace`` (e.g. ``uv pip install --system -e '.[test]' pytest``);
    ``python`` is the interpreter of the image (the grader's, for a toolchain language whose ``base_image`` names
    the image); ``exclude_newer`` (RFC 3339) resolves packages as of the base commit's date; ``source`` says where the
    recipe came from (``detected:<files>`` or ``config``). ``plan`` is the language's own description of the
    rung (what the environment memory stores and the fallback ladder varies: the Python, floors, parts added by
    the feedback loop); ``rung`` names it in one line (``3.11, build tools floored``); ``parts`` say why each
    part of the recipe is there.
    """

    python: str = DEFAULT_PYTHON
    base_image: str | None = None  # a toolchain language's image (r2e/go:1.26); None: python:<python>-slim
    apt_packages: tuple[str, ...] = ()
    commands: tuple[str, ...]
    env: dict[str, str] = Field(default_factory=dict)
    exclude_newer: str | None = None
    source: str
    plan: dict = Field(default_factory=dict)
    rung: str = ""
    parts: tuple[RecipePart, ...] = ()


class TestRun(Record):
    """One pytest run in a fresh task container: outcome per node id, files whose collection failed."""

    __test__ = False  # not a pytest test class

    label: Literal["before", "after"]
    outcomes: dict[str, Literal["passed", "failed", "error", "skipped"]]
    collection_errors: tuple[str, ...]
    collection_messages: dict[str, str] = Field(default_factory=dict)  # file -> the error that stopped it
    skip_messages: dict[str, str] = Field(default_factory=dict)  # node id -> why it was skipped
    error_messages: dict[str, str] = Field(default_factory=dict)  # node id -> an import error it failed with
    failure_details: dict[str, str] = Field(default_factory=dict)  # node id -> failure message + traceback head
    exit_code: int
    seconds: float


class TestSelection(Record):
    """FAIL_TO_PASS / PASS_TO_PASS from K runs before and after the fix; ``flaky`` ids varied between repeats."""

    __test__ = False

    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    flaky: tuple[str, ...]


class ControlResult(Record):
    """One control run of a bundle (``oracle`` applies solution/, ``nop`` does nothing) and its reward.
    ``outcome``: what the grader saw in a nop (``checks.controls.graded_outcome``; probes compare with it), None
    when it is not known or not read (the oracle's). ``why``: what the grader said of a reward that is not 1.0
    (``checks.controls.grading_note``: its error, the tampering it saw, the graded tests that did not pass).
    """

    name: Literal["oracle", "nop"]
    expected: float
    reward: float | None
    seconds: float
    error: str | None = None
    outcome: dict | None = None
    why: str | None = None
    grading_seconds: float | None = None  # how long the grader (test.sh) ran in its container; None: not measured

    @property
    def ok(self) -> bool:
        return self.reward is not None and abs(self.reward - self.expected) < 1e-9


class LedgerEntry(Record):
    """One line of the ledger: what became of a candidate in the run ``run_id`` (its start time, UTC ISO 8601;
    a re-run appends new lines, the newest per candidate is current). ``status`` is ``verified`` (landed in --out),
    ``skipped`` (a filter or test-based skip), ``rejected`` (controls failed) or ``error``."""

    run_id: str
    candidate: str
    pipeline: str
    repo: str
    task_id: str
    status: Literal["verified", "skipped", "rejected", "error"]
    reason: str | None = None
    detail: str | None = None
    bundle_hash: str | None = None
    seconds: float
    recorded_at: datetime
    environment: Literal["ok", "failed"] | None = None  # the ladder's verdict; None: no environment was tried
    instruction: dict | None = None  # {"words", "states", "observed"} of a task that got an instruction
    logs: str | None = None  # the candidate's artefact folder (``core.artefacts``), when it recorded any
    timings: dict[str, float] | None = None  # wall seconds per stage (``core.timings``), they add up to ``seconds``


class RepoEnvConfig(Record):
    """Overrides for one repository. ``install`` replaces the detected install commands when non-empty;
    ``python`` (``"3.11"``) fixes the interpreter (None: chosen per base commit); ``toolchain`` (``"1.22"``)
    fixes a toolchain language's version, i.e. its image ``r2e/<language>:<toolchain>`` (None: the one
    ``scripts/setup_docker.sh`` built from this host's toolchain); ``memory_mb`` and ``cpus`` cap
    every container of its tasks (test runs, controls, probes) and go into each task's ``[environment]`` (None:
    ``core.limits.MEMORY_MB``, one CPU)."""

    python: str | None = None
    toolchain: str | None = None
    apt_packages: list[str] = []
    install: list[str] = []
    env: dict[str, str] = {}
    memory_mb: int | None = Field(default=None, ge=512, le=262144)
    cpus: float | None = Field(default=None, gt=0, le=64)


class EnvConfig(Record):
    """The whole file: ``repos`` maps ``owner/name`` (or ``local/<dir>``) to its overrides."""

    repos: dict[str, RepoEnvConfig] = {}

    def for_repo(self, slug: str) -> RepoEnvConfig | None:
        return self.repos.get(slug)


@dataclass(frozen=True)
class Skip:
    """A candidate that does not become a task, with its reason code and a one-line detail."""

    reason: SkipReason
    detail: str | None = None


@dataclass
class Draft:
    """A staged bundle ready for controls. ``stage`` is its ``bundles.stage.BundleStage``; ``test_seconds`` sums
    its generation-time container test runs; ``verifier_timeout_sec`` bounds each control's test.sh.
    ``expected_nop`` is the reward doing nothing must score (0.0 for binary rewards; a graded reward's measured
    baseline). ``controls``: results the pipeline computed itself (a bundle without an environment); None means
    the core runs them in Docker. ``split_layout`` (a ``bundles.layout13.SplitLayout``) says how the task splits
    for ``--format harbor-1.3``; a pipeline that leaves it None writes layout 1.0 only."""

    task_id: str
    stage: Any
    verifier_timeout_sec: float
    test_seconds: float = 0.0
    expected_nop: float = 0.0
    controls: list | None = None
    grading_seconds: float = 0.0  # the controls' test.sh in their containers, once they ran
    split_layout: Any = None


@dataclass(frozen=True)
class Plan:
    """The repository and its candidates, listed before any is built (so a bad ``--pr`` fails first).
    ``empty_hint`` tells the user what to check when there are no candidates."""

    repo: RepoRef
    candidates: list[Any]
    empty_hint: str | None = None


@dataclass
class CandidateOutcome:
    """What became of one candidate: ``status`` verified, rejected, skipped or error; ``reason`` its code (a
    skip or rejection reason, or the error's type); the bundle hash of a published bundle; wall and container
    test seconds."""

    key: str
    task_id: str
    status: str
    reason: str | None = None
    detail: str | None = None
    bundle_hash: str | None = None
    seconds: float = 0.0
    test_seconds: float = 0.0
    grading_seconds: float = 0.0  # its controls' graders (``Draft.grading_seconds``)
    environment: str | None = None  # "ok" / "failed" (``BuildContext.environment``); None: not tried
    instruction: dict | None = None  # ``BuildContext.instruction``
    logs: str | None = None  # ``<out>.logs/<task id>/`` when the candidate recorded artefacts
    timings: dict | None = None  # wall seconds per stage (``core.timings.Stopwatch.record``)

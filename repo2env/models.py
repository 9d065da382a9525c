"""Validated records passed between stages (frozen pydantic models, unknown keys refused).

Stage boundaries: source -> ``PullRequest`` -> ``ChangeSplit`` -> ``InstallRecipe`` -> ``TestRun`` (x K) ->
``TestSelection`` -> bundle -> ``ControlResult`` -> ``LedgerEntry``. ``specs/metadata.schema.json`` is generated
from ``repo2env.metadata``; a test fails when they drift.
"""

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

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


class InstallRecipe(Record):
    """How to install a repository's dependencies at one commit inside the bootstrap image.

    ``commands`` run with ``sh -c`` in ``/workspace`` (e.g. ``uv pip install --system -e '.[test]' pytest``);
    ``exclude_newer`` (RFC 3339) resolves packages as of the base commit's date; ``source`` says where the
    recipe came from (``detected:<files>`` or ``config``).
    """

    python: str = DEFAULT_PYTHON
    apt_packages: tuple[str, ...] = ()
    commands: tuple[str, ...]
    env: dict[str, str] = Field(default_factory=dict)
    exclude_newer: str | None = None
    source: str


class TestRun(Record):
    """One pytest run in a fresh task container: outcome per node id, files whose collection failed."""

    __test__ = False  # not a pytest test class

    label: Literal["before", "after"]
    outcomes: dict[str, Literal["passed", "failed", "error", "skipped"]]
    collection_errors: tuple[str, ...]
    exit_code: int
    seconds: float


class TestSelection(Record):
    """FAIL_TO_PASS / PASS_TO_PASS from K runs before and after the fix; ``flaky`` ids varied between repeats."""

    __test__ = False

    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    flaky: tuple[str, ...]


class ControlResult(Record):
    """One control run of a bundle (``oracle`` applies solution/, ``nop`` does nothing) and its reward."""

    name: Literal["oracle", "nop"]
    expected: float
    reward: float | None
    seconds: float
    error: str | None = None

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

"""The pipeline plugin interface and its registry (entry-point group ``repo2env.pipelines``).

A pipeline turns a source into candidates (``plan``) and one candidate into a staged bundle or a skip
(``build``); the core (``repo2env.run.generate``) runs the controls, labels, hashes and publishes. A third-party
package adds a pipeline by declaring, in its own ``pyproject.toml``::

    [project.entry-points."repo2env.pipelines"]
    my_pipeline = "my_package.module:MyPipeline"

Only the chosen pipeline's module is imported.

This module is also the whole surface a pipeline imports: the records (``Plan``, ``Draft``, ``Skip``, ...), the
option parsers, and the shared kits of ``repo2env.tasks`` (runtime tasks, PR planning, diff and equivalence
tasks), re-exported here so that a pipeline never reaches into the stages (``__all__`` lists them).
"""

from importlib.metadata import entry_points
from typing import Any, Protocol, runtime_checkable

from repo2env.changes.commit_filters import (
    CommitFilterConfig,
    category_of,
    change_skip_reason,
    is_bot_author,
    message_skip_reason,
    strip_type,
)
from repo2env.changes.filters import static_skip_reason
from repo2env.core.errors import InputError, PipelineNotFound
from repo2env.core.gitrepo import open_repo
from repo2env.core.metadata import CommitRuntimeTests, PrRuntimeTests
from repo2env.core.options import BuildContext, GenerateOptions, PrFilters
from repo2env.core.outcomes import SkipReason
from repo2env.core.records import CommitCandidate, Draft, Plan, PullRequest, RepoRef, Skip
from repo2env.sources import open_source
from repo2env.sources.commits import list_commits
from repo2env.tasks.common import resolve_commit, split_at
from repo2env.tasks.diff import DEFAULT_WEIGHTS as DEFAULT_DIFF_WEIGHTS
from repo2env.tasks.diff import DiffSettings, build_diff_task, screen_diff_task
from repo2env.tasks.diff import parse_weights as parse_diff_weights
from repo2env.tasks.eqv.bundle import build_eqv_task
from repo2env.tasks.eqv.discover import FunctionCandidate
from repo2env.tasks.eqv.discover import discover as discover_functions
from repo2env.tasks.eqv.discover import select as select_functions
from repo2env.tasks.eqv.generation import GATE_BOXES
from repo2env.tasks.mutate import (
    STRATEGY_NAMES,
    MutantCandidate,
    Revision,
    package_files,
    with_package_artifacts,
    planted_mutations,
    revision_mutations,
)
from repo2env.tasks.options import (
    choice,
    existing_file,
    flag,
    integer,
    parse_pipeline_opts,
    share,
    some_of,
    whole_number,
    words,
)
from repo2env.tasks.pr_plan import PullRequestPipeline, plan_pull_requests
from repo2env.tasks.runtime import RuntimeSpec, build_runtime_task

__all__ = [
    # the plugin API
    "GROUP", "Pipeline", "available", "load_pipeline", "reject_pr_filters",
    # records
    "BuildContext", "CommitCandidate", "Draft", "GenerateOptions", "Plan", "PrFilters", "PullRequest", "RepoRef",
    "Skip", "SkipReason", "InputError", "CommitRuntimeTests", "PrRuntimeTests",
    # --pipeline-opt parsing
    "parse_pipeline_opts", "choice", "existing_file", "flag", "integer", "share", "some_of", "whole_number", "words",
    # sources and changes
    "open_source", "open_repo", "list_commits", "resolve_commit", "split_at", "static_skip_reason",
    "CommitFilterConfig", "category_of", "change_skip_reason", "is_bot_author", "message_skip_reason",
    "strip_type",
    # kits
    "PullRequestPipeline", "plan_pull_requests", "RuntimeSpec", "build_runtime_task", "DiffSettings",
    "DEFAULT_DIFF_WEIGHTS", "build_diff_task", "screen_diff_task", "parse_diff_weights", "FunctionCandidate", "GATE_BOXES",
    "build_eqv_task",
    "discover_functions", "select_functions", "MutantCandidate", "Revision", "STRATEGY_NAMES", "package_files",
    "with_package_artifacts", "planted_mutations", "revision_mutations",
]

GROUP = "repo2env.pipelines"


@runtime_checkable
class Pipeline(Protocol):
    """A pipeline plugin. ``name`` and ``version`` go into every bundle's ``[metadata.repo2env]``. An optional
    ``formats`` tuple names the ``--format`` values it writes (default ``("harbor-1.0",)``; ``harbor-1.3`` needs
    ``Draft.split_layout``). An optional ``close()`` releases what ``build`` kept between candidates (the
    equivalence gate's container of a revision); ``generate`` calls it once when the run ends, whatever its
    outcome. An optional ``options`` dict is its ``--pipeline-opt`` spec (``tasks.options``: key -> (parser,
    default, help)), which ``repo2rlenv pipelines --verbose`` lists."""

    name: str
    version: str

    def plan(self, source: str, options: GenerateOptions) -> Plan:
        """List candidates of ``source``. Raises ``InputError`` for a bad source or option."""

    def candidate_key(self, candidate: Any) -> str:
        """A short stable name for the ledger, e.g. ``pr#12``."""

    def task_id(self, repo: RepoRef, candidate: Any) -> str:
        """The task id this candidate becomes (its folder in ``--out``), e.g. ``owner__name-12``."""

    def build(self, repo: RepoRef, candidate: Any, ctx: BuildContext) -> Draft | Skip:
        """Build one candidate into a staged bundle, or say why not."""

    def screen(self, repo: RepoRef, candidate: Any, options: GenerateOptions) -> Skip | None:
        """Optional: the cheap filters alone (no Docker), the ones ``build`` applies first; ``--dry-run`` shows
        their verdict per candidate. Without it a candidate "would run"."""

    def stats(self) -> str | None:
        """Optional: one line on what listing cost (e.g. GitHub API requests), printed in the summary."""


def reject_pr_filters(options: GenerateOptions, pipeline: str) -> None:
    """For pipelines whose candidates are not pull requests: ``--label``/``--exclude-label``/``--include-bots``/
    ``--include-drafts`` would be silently ignored, so they are refused (``InputError``)."""
    f = options.pr_filters
    if f.labels or f.exclude_labels or f.include_bots or f.include_drafts:
        raise InputError(f"--label/--exclude-label/--include-bots/--include-drafts select pull requests; {pipeline} "
                         "does not mine pull requests")


def available() -> list[str]:
    """Names of the installed pipelines."""
    return sorted(ep.name for ep in entry_points(group=GROUP))


def load_pipeline(name: str) -> Pipeline:
    """Import and instantiate the pipeline ``name``. Raises ``PipelineNotFound`` listing the installed ones."""
    matches = [ep for ep in entry_points(group=GROUP) if ep.name == name]
    if not matches:
        known = ", ".join(available()) or "none"
        raise PipelineNotFound(f"--pipeline {name}: no such pipeline (installed: {known})")
    return matches[0].load()()

"""The pipeline plugin interface and its registry (entry-point group ``repo2env.pipelines``).

A pipeline turns a source into candidates (``plan``) and one candidate into a staged bundle or a skip
(``build``); the core (``repo2env.generate``) runs the controls, labels, hashes and publishes. A third-party
package adds a pipeline by declaring, in its own ``pyproject.toml``::

    [project.entry-points."repo2env.pipelines"]
    my_pipeline = "my_package.module:MyPipeline"

Only the chosen pipeline's module is imported.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import docker

from .bundle import BundleStage
from .config import EnvConfig
from .errors import InputError, PipelineNotFound
from .models import RepoRef
from .outcomes import SkipReason
from .sources import PrFilters

GROUP = "repo2env.pipelines"


@dataclass(frozen=True)
class GenerateOptions:
    """What the user asked for. Dates are timezone-aware UTC; ``pipeline_opts`` are ``--pipeline-opt k=v``.
    ``github_url`` is a GitHub Enterprise (or test) API root; ``cache_dir`` holds clones and the API cache (None:
    ``clone_cache.default_cache_dir()``); ``github_max_wait`` caps a rate-limit wait, in seconds; ``llm`` is a
    ``synthesis.LlmConfig`` when instructions are synthesized (``--llm``); ``format`` is ``harbor-1.0`` (layout 1.0)
    or ``harbor-1.3`` (schema 1.3, separate verifier; pipelines that set ``Draft.split_layout``); ``probes``: run
    the adversarial probes (``repo2env/probes.py``) on every task that passed its controls."""

    out: Path
    limit: int | None = None
    since: datetime | None = None
    until: datetime | None = None
    numbers: tuple[int, ...] = ()
    branch: str | None = None
    max_source_files: int = 10
    runs_before: int = 2
    runs_after: int = 3
    whole_suite: bool = False
    env_config: EnvConfig = field(default_factory=EnvConfig)
    pipeline_opts: dict[str, str] = field(default_factory=dict)
    github_url: str | None = None
    cache_dir: Path | None = None
    github_max_wait: float = 3600.0
    pr_filters: PrFilters = field(default_factory=PrFilters)
    llm: Any = None
    format: str = "harbor-1.0"
    probes: bool = True


@dataclass
class BuildContext:
    """What a pipeline's ``build`` may use: the Docker client, the options, ``report(message)`` for progress
    (the library never prints), and the run's ``synthesis.Synthesizer`` when ``--llm`` was given (else None)."""

    client: docker.DockerClient
    options: GenerateOptions
    report: Callable[[str], None] = lambda message: None
    synthesizer: Any = None


@dataclass(frozen=True)
class Skip:
    """A candidate that does not become a task, with its reason code and a one-line detail."""

    reason: SkipReason
    detail: str | None = None


@dataclass
class Draft:
    """A staged bundle ready for controls. ``test_seconds`` sums its generation-time container test runs;
    ``verifier_timeout_sec`` bounds each control's test.sh. ``expected_nop`` is the reward doing nothing must
    score (0.0 for binary rewards; a graded reward's measured baseline). ``controls``: results the pipeline
    computed itself (a bundle without an environment); None means the core runs them in Docker. ``split_layout``
    (a ``layout13.SplitLayout``) says how the task splits for ``--format harbor-1.3``; a pipeline that leaves it
    None writes layout 1.0 only."""

    task_id: str
    stage: BundleStage
    verifier_timeout_sec: float
    test_seconds: float = 0.0
    expected_nop: float = 0.0
    controls: list | None = None
    split_layout: Any = None


@dataclass(frozen=True)
class Plan:
    """The repository and its candidates, listed before any is built (so a bad ``--pr`` fails first).
    ``empty_hint`` tells the user what to check when there are no candidates."""

    repo: RepoRef
    candidates: list[Any]
    empty_hint: str | None = None


@runtime_checkable
class Pipeline(Protocol):
    """A pipeline plugin. ``name`` and ``version`` go into every bundle's ``[metadata.repo2env]``. An optional
    ``formats`` tuple names the ``--format`` values it writes (default ``("harbor-1.0",)``; ``harbor-1.3`` needs
    ``Draft.split_layout``)."""

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

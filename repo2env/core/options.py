"""What the user asked for (``GenerateOptions``, ``PrFilters``) and what a pipeline's ``build`` may use
(``BuildContext``). Records of the run, handed to the stages that need them; a stage takes the few values it uses."""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import docker

from repo2env.core.records import EnvConfig


@dataclass(frozen=True)
class PrFilters:
    """Which merged PRs count (GitHub only knows drafts, bots and labels): ``labels`` are all required,
    ``exclude_labels`` must all be absent; drafts and bot authors are left out unless included."""

    include_drafts: bool = False
    include_bots: bool = False
    labels: tuple[str, ...] = ()
    exclude_labels: tuple[str, ...] = ()

    @property
    def needs_api(self) -> bool:
        return bool(self.labels or self.exclude_labels)


@dataclass(frozen=True)
class GenerateOptions:
    """What the user asked for. Dates are timezone-aware UTC; ``pipeline_opts`` are ``--pipeline-opt k=v``.
    ``github_url`` is a GitHub Enterprise (or test) API root; ``cache_dir`` holds clones and the API cache (None:
    ``clone_cache.default_cache_dir()``); ``github_max_wait`` caps a rate-limit wait, in seconds; ``llm`` is a
    ``core.llm.LlmConfig`` when instructions are synthesized (``--llm``); ``format`` is ``harbor-1.0`` (layout 1.0)
    or ``harbor-1.3`` (schema 1.3, separate verifier; pipelines that set ``Draft.split_layout``); ``probes``: run
    the adversarial probes (``repo2env/checks/probes.py``) on every task that passed its controls;
    ``env_memory``: the SQLite file of the environment memory (``environment.memory``; None: ``env-memory.sqlite``
    in the cache folder; a build passes its state database); ``setup_llm``: a ``core.llm.LlmConfig`` for the setup
    agent (``--setup-llm``), None for none; ``setup_llm_attempts`` its proposals per base commit;
    ``min_actionability`` (0-3): how many of an input, what happens and what should happen an instruction must
    state (``instructions.actionability``), else the candidate is skipped; ``force``: run every candidate again,
    whatever the state recorded (``run.incremental``); ``repo_name``: ``owner/name`` that names the repository
    in task ids and metadata (default: the ``origin`` remote's, else ``local/<folder>``); ``dataset_name``: the
    ``org`` of each task's ``[task] name`` (``<dataset_name>/<task id>``; default ``default``); ``keep_rejected``:
    keep every bundle staged and then thrown away in the candidate's artefacts (``core.artefacts``);
    ``parallel_runs``: a candidate's container runs (its test runs, then its oracle and nop) side by side, at
    most this many (``core.concurrency``; None: ``default_workers``; 1: one after the other). It shapes no task:
    the fingerprint leaves it out."""

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
    format: str | None = "harbor-1.0"  # None: the pipeline's first (``run.generate._check_format``)
    probes: bool = True
    env_memory: Path | None = None
    setup_llm: Any = None
    setup_llm_attempts: int = 2
    min_actionability: int = 0
    force: bool = False
    repo_name: str | None = None
    dataset_name: str | None = None
    keep_rejected: bool = False
    parallel_runs: int | None = None


@dataclass
class BuildContext:
    """What a pipeline's ``build`` may use: the Docker client, the options, ``report(message)`` for progress
    (the library never prints), the run's ``synthesis.Synthesizer`` when ``--llm`` was given (else None), the
    ``environment.memory.EnvMemory`` and the ``environment.setup_agent.SetupAgent`` (``--setup-llm``; else None)."""

    client: docker.DockerClient
    options: GenerateOptions
    report: Callable[[str], None] = lambda message: None
    synthesizer: Any = None
    env_memory: Any = None
    setup_agent: Any = None
    environment: str | None = None  # set by the ladder: "ok" (an image built and ran the tests) or "failed"
    instruction: dict | None = None  # set with the instruction: {"words": n, "states": [...], "observed": n}

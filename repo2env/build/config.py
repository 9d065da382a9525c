"""``dataset.toml``: what ``repo2rlenv build`` builds. Validated with pydantic; paths are relative to the file.

Example::

    out = "dataset"                  # tasks/<pipeline>/<id>/, state.sqlite, reports/
    jobs = 2                         # candidates built at once on this machine (--jobs overrides)
    parallel_runs = 1                # one candidate's runs side by side (--parallel-runs; default CPUs / jobs)
    format = "harbor-1.0"            # or harbor-1.3
    probes = true                    # adversarial probes on every task that passed its controls

    dataset_name = "calc-tasks"      # [task] name = "<dataset_name>/<task id>" (--dataset-name)
    env_config = "repo2env.toml"     # per-repository environment overrides (--env-config)
    keep_rejected = false            # keep thrown-away bundles in the candidates' logs (--keep-rejected)
    min_actionability = 0            # (--min-actionability)

    [[sources]]
    source = "./repos/calc"          # a clone's path, or org/repo on GitHub
    pipelines = ["pr_runtime", "commit_runtime"]
    limit = 20                       # newest N candidates per pipeline (optional)
    since = "2025-01-01"             # optional, also until, branch, prs, repo_name, labels, exclude_labels,
                                     # include_drafts, include_bots, github_url

    [pipelines.commit_runtime]       # options of one pipeline, for every source that uses it
    runs_before = 2
    runs_after = 3
    pipeline_opts = { include_types = "fix" }   # --pipeline-opt (formerly "options", still read)

    [llm]                            # optional: --llm and its settings
    model = "anthropic/claude-sonnet-4-6"
    budget_usd = 5.0                 # also temperature, max_tokens, timeout, retries, price = "3/15"

    [setup_llm]                      # optional: --setup-llm
    model = "anthropic/claude-sonnet-4-6"
    budget_usd = 2.0                 # also attempts

The whole format, with every key: ``specs/config-files.md`` (JSON Schema: ``specs/dataset.schema.json``).

    [push]                           # optional: after a build without failures
    registry = "localhost:5000/r2e"
    dataset = "git+file:///srv/datasets/{pipeline}.git"   # {pipeline}: one dataset per pipeline
"""

import tomllib
from datetime import UTC, date, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from repo2env.bundles.layout13 import FORMATS
from repo2env.core.errors import InputError


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SourceSpec(_Strict):
    """One repository and the pipelines to run on it, with generate's candidate selection (``--limit``,
    ``--since``, ``--until``, ``--branch``, ``--pr``, ``--repo-name``, ``--label``, ``--exclude-label``,
    ``--include-drafts``, ``--include-bots``, ``--github-url``)."""

    source: str
    pipelines: list[str] = Field(min_length=1)
    limit: int | None = Field(default=None, ge=1)
    since: date | datetime | None = None
    until: date | datetime | None = None
    branch: str | None = None
    prs: list[int] = Field(default_factory=list)
    repo_name: str | None = Field(default=None, pattern=r"^[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*$")
    labels: list[str] = Field(default_factory=list)
    exclude_labels: list[str] = Field(default_factory=list)
    include_drafts: bool = False
    include_bots: bool = False
    github_url: str | None = None


class PipelineSpec(_Strict):
    """How one pipeline runs (the generate options that change what a task is). ``pipeline_opts`` are
    ``--pipeline-opt`` KEY=VALUE pairs; ``options`` is their former name, still read."""

    runs_before: int = Field(default=2, ge=2)
    runs_after: int = Field(default=3, ge=1)
    whole_suite: bool = False
    max_source_files: int = Field(default=10, ge=1)
    pipeline_opts: dict[str, str] = Field(default_factory=dict)
    options: dict[str, str] = Field(default_factory=dict, description="former name of pipeline_opts")

    @property
    def opts(self) -> dict[str, str]:
        """The pipeline options, whichever key spelled them."""
        return {**self.options, **self.pipeline_opts}


class LlmSpec(_Strict):
    """``[llm]``: ``--llm`` and its settings (``price`` is ``IN/OUT`` USD per million tokens)."""

    model: str
    budget_usd: float | None = Field(default=None, ge=0)
    temperature: float | None = Field(default=None, ge=0, le=1)
    max_tokens: int = Field(default=1024, ge=64)
    timeout: float = Field(default=60, ge=1)
    retries: int = Field(default=4, ge=0)
    price: str | None = None


class SetupLlmSpec(_Strict):
    """``[setup_llm]``: ``--setup-llm`` and its settings."""

    model: str
    budget_usd: float | None = Field(default=None, ge=0)
    attempts: int = Field(default=2, ge=1)


class PushSpec(_Strict):
    """``[push]``: the registry for images and the dataset target (``{pipeline}`` is replaced per pipeline)."""

    registry: str | None = None
    dataset: str | None = None


class BuildConfig(_Strict):
    """A parsed dataset.toml. ``out`` is absolute after ``load``."""

    out: Path
    jobs: int = Field(default=1, ge=1)
    parallel_runs: int | None = Field(default=None, ge=1)  # one candidate's runs side by side (--parallel-runs)
    format: str = "harbor-1.0"
    probes: bool = True
    sources: list[SourceSpec] = Field(min_length=1)
    pipelines: dict[str, PipelineSpec] = Field(default_factory=dict)
    push: PushSpec | None = None
    dataset_name: str | None = Field(default=None, pattern=r"^[A-Za-z0-9][\w.-]*$")
    env_config: Path | None = None
    cache_dir: Path | None = None
    keep_rejected: bool = False
    min_actionability: int = Field(default=0, ge=0, le=3)
    max_rate_wait: float = Field(default=3600, ge=0)
    llm: LlmSpec | None = None
    setup_llm: SetupLlmSpec | None = None

    @field_validator("format")
    @classmethod
    def _format(cls, value: str) -> str:
        if value not in FORMATS:
            raise ValueError(f"must be one of {', '.join(FORMATS)}")
        return value

    def pipeline(self, name: str) -> PipelineSpec:
        """The ``[pipelines.<name>]`` options (defaults when the table is absent)."""
        return self.pipelines.get(name, PipelineSpec())

    def pipeline_names(self) -> list[str]:
        """Every pipeline some source uses, sorted."""
        return sorted({p for s in self.sources for p in s.pipelines})


def _utc(value, end_of_day: bool = False) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value if value is None or value.tzinfo else value.replace(tzinfo=UTC)
    moment = datetime(value.year, value.month, value.day, tzinfo=UTC)
    return moment.replace(hour=23, minute=59, second=59) if end_of_day else moment


def since_until(spec: SourceSpec) -> tuple[datetime | None, datetime | None]:
    """The source's window as timezone-aware UTC datetimes (a bare ``until`` date includes the whole day)."""
    return _utc(spec.since), _utc(spec.until, end_of_day=True)


def load(path: Path) -> BuildConfig:
    """Read and validate ``path``. Relative ``out`` and local ``source`` paths are resolved against its folder.
    Raises ``InputError`` naming the file and the first problem."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot read it ({exc.strerror or exc}); pass a dataset.toml") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not valid TOML ({exc})") from None
    try:
        config = BuildConfig.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top)"
        raise InputError(f"{path}: {where}: {first['msg']}") from None
    base = path.resolve().parent
    sources = []
    for spec in config.sources:
        local = spec.source.startswith((".", "/", "~", "file://")) or (base / spec.source).exists()
        sources.append(spec.model_copy(update={"source": str((base / spec.source).resolve())}) if local and
                       not spec.source.startswith("file://") else spec)
    paths = {key: (base / value).resolve() for key in ("env_config", "cache_dir")
             if (value := getattr(config, key)) is not None}
    config = config.model_copy(update={"out": (base / config.out).resolve(), "sources": sources, **paths})
    if config.push and config.push.dataset and "{pipeline}" not in config.push.dataset \
            and len(config.pipeline_names()) > 1:
        raise InputError(f"{path}: push.dataset: several pipelines need one dataset each; put {{pipeline}} in it")
    _check_semantics(path, config)
    return config


def _check_semantics(path: Path, config: BuildConfig) -> None:
    """What pydantic cannot see: pipelines that exist, windows in order, push targets that parse."""
    from repo2env.pipeline import available  # noqa: PLC0415
    from repo2env.publish.dataset import parse_target  # noqa: PLC0415
    from repo2env.publish.registry import check_registry  # noqa: PLC0415

    known = available()
    for name in sorted(set(config.pipeline_names()) | set(config.pipelines)):
        if name not in known:
            raise InputError(f"{path}: pipeline {name!r} is not installed (installed: {', '.join(known)})")
    for index, spec in enumerate(config.sources):
        since, until = since_until(spec)
        if since and until and since > until:
            raise InputError(f"{path}: sources.{index}: since is after until; swap them")
    if config.push is not None:
        try:
            if config.push.registry:
                check_registry(config.push.registry)
            if config.push.dataset:
                parse_target(config.push.dataset.replace("{pipeline}", "p"))
        except InputError as exc:
            message = str(exc).replace("--registry ", "registry ").replace("--dataset ", "dataset ")
            raise InputError(f"{path}: push: {message}") from None


def json_schemas() -> dict[str, dict]:
    """The JSON Schemas of the two config files, by their file in ``specs/``: ``dataset.schema.json``
    (``dataset.toml``, this module) and ``env-config.schema.json`` (``--env-config`` / ``env_config``,
    ``environment.overrides``)."""
    from repo2env.core.records import EnvConfig  # noqa: PLC0415

    dataset = BuildConfig.model_json_schema()
    dataset["title"] = "dataset.toml (repo2rlenv build)"
    env = EnvConfig.model_json_schema()
    env["title"] = "repo2env.toml (--env-config)"
    return {"dataset.schema.json": dataset, "env-config.schema.json": env}


if __name__ == "__main__":  # python -m repo2env.build.config: write the schemas into specs/
    import json
    import sys

    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "specs")
    for name, schema in json_schemas().items():
        (folder / name).write_text(json.dumps(schema, indent=2, sort_keys=True) + "\n")

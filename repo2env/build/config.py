"""``dataset.toml``: what ``repo2rlenv build`` builds. Validated with pydantic; paths are relative to the file.

Example::

    out = "dataset"                  # tasks/<pipeline>/<id>/, state.sqlite, reports/
    jobs = 2                         # candidates built at once on this machine (--jobs overrides)
    format = "harbor-1.0"            # or harbor-1.3
    probes = true                    # adversarial probes on every task that passed its controls

    [[sources]]
    source = "./repos/calc"          # a clone's path, or org/repo on GitHub
    pipelines = ["pr_runtime", "commit_runtime"]
    limit = 20                       # newest N candidates per pipeline (optional)
    since = "2025-01-01"             # optional, also until, branch

    [pipelines.commit_runtime]       # options of one pipeline, for every source that uses it
    runs_before = 2
    runs_after = 3
    options = { include_types = "fix" }   # --pipeline-opt

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
    """One repository and the pipelines to run on it."""

    source: str
    pipelines: list[str] = Field(min_length=1)
    limit: int | None = Field(default=None, ge=1)
    since: date | datetime | None = None
    until: date | datetime | None = None
    branch: str | None = None


class PipelineSpec(_Strict):
    """How one pipeline runs (the generate options that change what a task is)."""

    runs_before: int = Field(default=2, ge=2)
    runs_after: int = Field(default=3, ge=1)
    whole_suite: bool = False
    max_source_files: int = Field(default=10, ge=1)
    options: dict[str, str] = Field(default_factory=dict)


class PushSpec(_Strict):
    """``[push]``: the registry for images and the dataset target (``{pipeline}`` is replaced per pipeline)."""

    registry: str | None = None
    dataset: str | None = None


class BuildConfig(_Strict):
    """A parsed dataset.toml. ``out`` is absolute after ``load``."""

    out: Path
    jobs: int = Field(default=1, ge=1)
    format: str = "harbor-1.0"
    probes: bool = True
    sources: list[SourceSpec] = Field(min_length=1)
    pipelines: dict[str, PipelineSpec] = Field(default_factory=dict)
    push: PushSpec | None = None

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
    config = config.model_copy(update={"out": (base / config.out).resolve(), "sources": sources})
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

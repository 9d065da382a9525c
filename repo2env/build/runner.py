"""``repo2rlenv build dataset.toml``: many repositories and pipelines into one dataset folder, incrementally.

1. **Plan** every (source, pipeline) of the config; a source that cannot be planned is recorded and the others
   go on. Each candidate gets an input ``fingerprint``: its own data (shas, texts), the pipeline's name, version
   and plan state (``candidate_fingerprint`` when the pipeline has one), the options that shape a task, and
   ``--format`` (``run.incremental.fingerprint``, which ``generate`` shares).
2. **Select**: candidates whose fingerprint already has a final outcome in ``state.sqlite`` are skipped, and so
   are those outside ``--shard K/N`` (a hash of repo, pipeline and key, so every machine agrees).
3. **Run** the rest with ``--jobs N`` threads (``executors.LocalExecutor``) or as Ray tasks
   (``executors.RayExecutor``): the unit of work is ``generate.build_candidate``, which publishes a bundle into
   ``<out>/tasks/<pipeline>/<id>`` atomically; the main process records each outcome in one transaction.
   Image builds are serialised per image tag (``images.build``), clones per repository (``clone_cache``).
4. **Report** (``report.py``) and, when the config has ``[push]`` and nothing failed, push each pipeline's tasks.

A killed build leaves complete bundles and complete rows only; the same command resumes it and ends with the
same bundle hashes as an uninterrupted build. The exit code is 1 when a source could not be planned or a
candidate ended in an error.
"""

import dataclasses
import hashlib
import shutil
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from repo2env.build.config import BuildConfig, since_until
from repo2env.bundles.stage import staging_root
from repo2env.core import locks
from repo2env.core.concurrency import default_workers
from repo2env.core.errors import InputError, R2EError, redact_url
from repo2env.core.options import GenerateOptions
from repo2env.environment import spares
from repo2env.pipeline import load_pipeline
from repo2env.run.generate import plan_candidates
from repo2env.run.incremental import fingerprint, hand_edited
from repo2env.run.state import STATE_FILE, State, outcome_row

TASKS = "tasks"


@dataclass(frozen=True)
class Shard:
    """``--shard K/N``: this machine builds the candidates whose hash modulo N is K-1 (K is 1-based)."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> "Shard":
        """``"3/16"`` -> Shard(3, 16). Raises ``InputError`` for anything else."""
        try:
            k, n = (int(part) for part in text.split("/"))
        except ValueError:
            raise InputError(f"--shard {text}: expected K/N, e.g. 3/16") from None
        if not 1 <= k <= n:
            raise InputError(f"--shard {text}: K must be between 1 and N")
        return cls(k, n)

    def owns(self, repo: str, pipeline: str, key: str) -> bool:
        """True when this shard builds the candidate (sha256 of repo, pipeline and key, modulo N)."""
        digest = hashlib.sha256(f"{repo}\0{pipeline}\0{key}".encode()).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index - 1

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


@dataclass
class Unit:
    """One candidate to build. ``source``/``pipeline``/``key``/``options`` identify it everywhere;
    ``candidate``/``pipeline_obj``/``repo_ref`` are the planner's objects, which threads use and a Ray worker
    receives when they pickle (else it plans again from the identifiers: a GitHub source)."""

    source: str
    pipeline: str
    key: str
    repo: str
    fingerprint: str
    options: GenerateOptions
    candidate: Any = None
    pipeline_obj: Any = None
    repo_ref: Any = None


@dataclass
class BuildSummary:
    """What a build did: candidates seen, unchanged (skipped from the state), run, outcomes by status."""

    build_id: str
    candidates: int = 0
    unchanged: int = 0
    run: int = 0
    outcomes: Counter = field(default_factory=Counter)
    failed_sources: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    wall_seconds: float = 0.0
    pushed: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        """A source could not be planned or a candidate ended in an error (the exit code is then 1)."""
        return bool(self.failed_sources or self.errors)


def tasks_dir(out: Path, pipeline: str) -> Path:
    """``<out>/tasks/<pipeline>``: where a pipeline's bundles of a build land."""
    return out / TASKS / pipeline


def options_for(config: BuildConfig, source_index: int, pipeline: str) -> GenerateOptions:
    """The generate options of one (source, pipeline) of the config: everything ``generate`` takes."""
    from repo2env.core.llm import LlmConfig, parse_llm  # noqa: PLC0415
    from repo2env.core.options import PrFilters  # noqa: PLC0415
    from repo2env.environment.overrides import load_env_config  # noqa: PLC0415

    spec, pspec = config.sources[source_index], config.pipeline(pipeline)
    since, until = since_until(spec)
    llm = setup = None
    if config.llm is not None:
        provider, model = parse_llm(config.llm.model)
        price = tuple(float(x) for x in config.llm.price.split("/")) if config.llm.price else (None, None)
        llm = LlmConfig(provider=provider, model=model, temperature=config.llm.temperature,
                        max_tokens=config.llm.max_tokens, timeout_sec=config.llm.timeout,
                        max_retries=config.llm.retries, budget_usd=config.llm.budget_usd, price_in=price[0],
                        price_out=price[1])
    if config.setup_llm is not None:
        provider, model = parse_llm(config.setup_llm.model)
        setup = LlmConfig(provider=provider, model=model, max_tokens=1024, budget_usd=config.setup_llm.budget_usd)
    return GenerateOptions(out=tasks_dir(config.out, pipeline), limit=spec.limit, since=since, until=until,
                           numbers=tuple(spec.prs), branch=spec.branch, max_source_files=pspec.max_source_files,
                           runs_before=pspec.runs_before, runs_after=pspec.runs_after, whole_suite=pspec.whole_suite,
                           pipeline_opts=pspec.opts, format=config.format, probes=config.probes,
                           env_memory=config.out / STATE_FILE, env_config=load_env_config(config.env_config),
                           github_url=spec.github_url, cache_dir=config.cache_dir,
                           github_max_wait=config.max_rate_wait,
                           pr_filters=PrFilters(include_drafts=spec.include_drafts, include_bots=spec.include_bots,
                                                labels=tuple(spec.labels), exclude_labels=tuple(spec.exclude_labels)),
                           llm=llm, setup_llm=setup,
                           setup_llm_attempts=config.setup_llm.attempts if config.setup_llm else 2,
                           min_actionability=config.min_actionability, repo_name=spec.repo_name,
                           dataset_name=config.dataset_name, keep_rejected=config.keep_rejected,
                           parallel_runs=config.parallel_runs)


def _plans(config: BuildConfig):
    """(source spec, pipeline name, options, pipeline, its Plan or the ``R2EError`` planning raised) for every
    (source, pipeline) of the config, in config order."""
    for index, spec in enumerate(config.sources):
        for name in spec.pipelines:
            options = options_for(config, index, name)
            pipeline = None
            try:
                pipeline = load_pipeline(name)
                planned = plan_candidates(pipeline, spec.source, options)
            except R2EError as exc:
                planned = exc
            yield spec, name, options, pipeline, planned


def dry_run_build(config: BuildConfig, *, shard: Shard | None = None, force: bool = False) -> list[dict]:
    """What ``build`` would do, without Docker and without writing: per candidate of every (source, pipeline),
    ``{"repo", "pipeline", "key", "task_id", "verdict", "reason"}`` with ``verdict`` ``would run``, ``skip`` (a
    cheap filter: ``Pipeline.screen``), ``unchanged`` (the state holds its outcome) or ``plan failed``."""
    path = config.out / STATE_FILE
    state = State(path) if path.is_file() else None
    rows = []
    try:
        for spec, name, options, pipeline, planned in _plans(config):
            if isinstance(planned, R2EError):
                rows.append({"repo": redact_url(spec.source), "pipeline": name, "key": "", "task_id": "",
                             "verdict": "plan failed", "reason": redact_url(str(planned))[:300]})
                continue
            screen = getattr(pipeline, "screen", None)
            for candidate in planned.candidates:
                key = pipeline.candidate_key(candidate)
                if shard is not None and not shard.owns(planned.repo.slug, name, key):
                    continue
                row = {"repo": planned.repo.slug, "pipeline": name, "key": key,
                       "task_id": pipeline.task_id(planned.repo, candidate), "verdict": "would run", "reason": None}
                skip = screen(planned.repo, candidate, options) if callable(screen) else None
                if skip is not None:
                    row.update(verdict="skip", reason=skip.reason.value)
                elif state is not None and not force and state.done(
                        planned.repo.slug, name, key, fingerprint(pipeline, candidate, options, planned.repo.slug)):
                    row.update(verdict="unchanged", reason=state.row(planned.repo.slug, name, key)["status"])
                rows.append(row)
    finally:
        if state is not None:
            state.__exit__()
    return rows


def plan(config: BuildConfig, state: State, build_id: str, shard: Shard | None,
         summary: BuildSummary, force: bool = False) -> list[Unit]:
    """Every candidate of the config that this build must run (see the module docstring)."""
    units = []
    for spec, name, options, pipeline, planned in _plans(config):
        if isinstance(planned, R2EError):
            shown = redact_url(spec.source)
            summary.failed_sources.append(redact_url(f"{shown} ({name}): {planned}"))
            state.record_source(build_id, shown, name, "error", redact_url(str(planned))[:500], 0)
            continue
        repo = planned.repo.slug
        state.record_source(build_id, repo, name, "ok", None, len(planned.candidates))
        for candidate in planned.candidates:
            key = pipeline.candidate_key(candidate)
            if shard is not None and not shard.owns(repo, name, key):
                continue
            summary.candidates += 1
            digest = fingerprint(pipeline, candidate, options, repo)
            if not force and (state.done(repo, name, key, digest) or hand_edited(state.row(repo, name, key),
                                                                                 options.out)):
                summary.unchanged += 1
                continue
            units.append(Unit(source=spec.source, pipeline=name, key=key, repo=repo, fingerprint=digest,
                              options=options, candidate=candidate, pipeline_obj=pipeline,
                              repo_ref=planned.repo))
    return units


def _lock(out: Path):
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: exists and is not a folder; set out in dataset.toml (or --into) to a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        return locks.hold(out)
    except OSError as exc:
        raise InputError(f"{out}: cannot write there ({exc.strerror or exc}); choose a writable folder") from None


def _prepare(config: BuildConfig) -> None:
    for name in config.pipeline_names():
        folder = tasks_dir(config.out, name)
        folder.mkdir(parents=True, exist_ok=True)
        stale = staging_root(folder)
        if stale.is_dir():
            shutil.rmtree(stale)  # a killed build's half-made bundles; we hold the lock


def build(config: BuildConfig, *, jobs: int | None = None, shard: Shard | None = None, executor: str = "local",
          progress=None, force: bool = False) -> BuildSummary:
    """Run one build of ``config`` (module docstring). ``progress(done, total, message)`` is called from the
    main thread; ``force`` runs every candidate, whatever the state recorded. Raises ``InputError`` for bad input
    and ``DockerUnavailable`` when the engine is gone."""
    from repo2env.build.executors import make_executor  # noqa: PLC0415 - Ray is imported only when asked for

    started = time.monotonic()
    nonce = hashlib.sha256(str(time.time_ns()).encode()).hexdigest()[:6]
    build_id = datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + f"-{nonce}"
    summary = BuildSummary(build_id=build_id)
    lock = _lock(config.out)
    from repo2env.environment.images import set_dataset  # noqa: PLC0415

    set_dataset(config.out)
    try:
        _prepare(config)
        with State(config.out / STATE_FILE) as state:
            state.start_build(build_id, str(shard) if shard else None)
            units = plan(config, state, build_id, shard, summary, force=force)
            summary.run = len(units)
            if progress:
                progress(0, len(units), "planned")
            if units:
                for unit in units:  # the CPUs each candidate's runs may use side by side (core.concurrency)
                    if unit.options.parallel_runs is None:
                        unit.options = dataclasses.replace(unit.options,
                                                           parallel_runs=default_workers(jobs or config.jobs))
                run_units(make_executor(executor, jobs or config.jobs), units, state, build_id, summary, progress)
            summary.wall_seconds = round(time.monotonic() - started, 3)
            counts = dict(summary.outcomes, unchanged=summary.unchanged, candidates=summary.candidates)
            state.finish_build(build_id, summary.wall_seconds, counts)
        from repo2env.build.report import write_report  # noqa: PLC0415

        write_report(config.out)
        if config.push and not summary.failed:
            summary.pushed = push_pipelines(config)
        return summary
    finally:
        spares.settle()  # no container outlives the build
        lock.close()


def run_units(executor, units: list[Unit], state: State, build_id: str, summary: BuildSummary, progress) -> None:
    """Run ``units`` on ``executor`` and record every outcome as it arrives."""
    done = 0
    for unit, got in executor.run(units):
        state.record(outcome_row(unit.repo, unit.pipeline, unit.fingerprint, got, build_id))
        summary.outcomes[got.status] += 1
        if got.status == "error":
            summary.errors.append(f"{unit.repo} {unit.pipeline} {unit.key}: {got.reason}: {got.detail or ''}"[:300])
        done += 1
        if progress:
            progress(done, len(units), f"{unit.pipeline} {unit.key}: {got.status}")


def push_pipelines(config: BuildConfig) -> list[str]:
    """Push each pipeline's tasks as configured in ``[push]``; returns the published datasets."""
    from repo2env.environment.containers import docker_client  # noqa: PLC0415
    from repo2env.publish.push import push  # noqa: PLC0415
    from repo2env.publish.registry import PushError, check_registry  # noqa: PLC0415

    registry = check_registry(config.push.registry) if config.push.registry else None
    client = docker_client() if registry else None
    published = []
    for name in config.pipeline_names():
        target = config.push.dataset.replace("{pipeline}", name) if config.push.dataset else None
        if not any(tasks_dir(config.out, name).glob("*/task.toml")):
            continue  # nothing verified for this pipeline yet
        result = push(tasks_dir(config.out, name), registry=registry, dataset_target=target, client=client)
        if result.failed:
            raise PushError(f"push of {name} failed: {next(iter(result.failed.values()))}")
        if target:
            published.append(target)
    return published


def merge(inputs: list[Path], dest: Path) -> int:
    """Combine the dataset folders ``inputs`` (shards of one config) into ``dest``: every task folder (a task
    present in several must have the same bundle hash) and every state row. Returns the number of tasks.
    Raises ``InputError`` for a missing input or conflicting bundles."""
    from repo2env.bundles.hashing import bundle_hash  # noqa: PLC0415
    from repo2env.bundles.stage import BundleStage  # noqa: PLC0415

    for source in inputs:
        if not (source / STATE_FILE).is_file():
            raise InputError(f"{source}: no {STATE_FILE}; pass folders written by repo2rlenv build")
        if source.resolve() == dest.resolve():
            raise InputError(f"--into {dest}: it is one of the inputs; merge into a new or another folder")
        with State(source / STATE_FILE):
            pass  # a damaged state fails here, before anything is written
    lock = _lock(dest)
    try:
        count = 0
        with State(dest / STATE_FILE) as target:
            for source in inputs:
                for pipeline_dir in sorted((source / TASKS).iterdir()) if (source / TASKS).is_dir() else []:
                    for task in sorted(p for p in pipeline_dir.iterdir() if (p / "task.toml").is_file()):
                        there = dest / TASKS / pipeline_dir.name / task.name
                        if there.exists():
                            if bundle_hash(there) != bundle_hash(task):
                                raise InputError(f"{task}: differs from {there} (two shards built the same task "
                                                 "differently); rebuild one of them")
                            continue
                        stage = BundleStage(there.parent, task.name)
                        shutil.rmtree(stage.root)
                        shutil.copytree(task, stage.root)
                        stage.publish(there)
                        count += 1
                with State(source / STATE_FILE) as other:
                    target.merge_from(other)
        return count
    finally:
        lock.close()

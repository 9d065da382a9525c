"""``generate``: one source, one pipeline -> verified bundles in ``--out``, everything else in the ledger.

For each candidate: the pipeline builds a staged bundle (or a skip); the core runs the oracle and nop controls,
binds the evaluation label to the bundle hash and publishes passing bundles atomically into ``--out``; bundles
the controls reject go to ``<out>.rejected/`` for inspection. Progress goes to a ``Reporter``.

A re-run re-uses ``<out>.state.sqlite`` (``run.incremental``): a candidate whose inputs are unchanged keeps its
outcome and is not run again (``--force`` runs it anyway). ``dry_run`` plans and applies the cheap filters only,
without Docker. Beside ``--out``: ``<out>.ledger.jsonl`` (every outcome, appended), ``<out>.state.sqlite``, and
``<out>.rejected/`` and ``<out>.logs/<task id>/`` (each candidate's image build logs, test runs' output and
JUnit XML, control transcripts; with ``--keep-rejected`` its thrown-away bundles). The ``<out>.lock`` of a run
is removed when it ends.
"""

import dataclasses
import shutil
import threading
import time
from collections import Counter
from concurrent.futures import as_completed
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

import docker.errors
import requests.exceptions

from repo2env.bundles import layout13
from repo2env.bundles.hashing import bundle_hash
from repo2env.bundles.stage import remove_tree, staging_root
from repo2env.bundles.task_toml import set_labels, set_task_name
from repo2env.checks.controls import evaluation_from, failure_detail, run_controls
from repo2env.checks.probes import with_probes
from repo2env.core import artefacts, concurrency, locks, timings
from repo2env.core.concurrency import default_workers
from repo2env.core.errors import DockerUnavailable, FatalSourceError, InputError, R2EError
from repo2env.core.options import BuildContext, GenerateOptions
from repo2env.core.records import CandidateOutcome, Draft, LedgerEntry, Skip
from repo2env.environment import spares
from repo2env.environment.containers import docker_client, remove_leftovers
from repo2env.environment.images import require_base_image, set_dataset
from repo2env.environment.memory import EnvMemory
from repo2env.environment.setup_agent import SetupAgent
from repo2env.instructions.synthesis import Synthesizer
from repo2env.pipeline import load_pipeline
from repo2env.run import ledger
from repo2env.run.incremental import fingerprint, generate_state_path, hand_edited
from repo2env.run.state import State, outcome_row
from repo2env.sources import is_local
from repo2env.sources.clone_cache import default_cache_dir


class Reporter(Protocol):
    """Receives progress; the CLI draws it with rich, tests may collect it."""

    def start(self, total: int, repo: str) -> None: ...
    def candidate(self, index: int, key: str) -> None: ...
    def stage(self, message: str) -> None: ...
    def outcome(self, key: str, status: str, reason: str | None) -> None: ...


class SilentReporter:
    def start(self, total, repo): pass
    def candidate(self, index, key): pass
    def stage(self, message): pass
    def outcome(self, key, status, reason): pass


@dataclass
class TaskTiming:
    """Per verified or rejected task: wall seconds from start to publish, its container test seconds (the runs
    before and after the fix), and the seconds its controls' graders ran (``test.sh`` of the oracle and the nop
    in their containers)."""

    task_id: str
    wall_seconds: float
    test_seconds: float
    grading_seconds: float = 0.0


@dataclass
class Summary:
    """What a run did. ``skipped`` and ``rejected`` count reason codes; ``errors`` candidates that failed."""

    repo: str = ""
    candidates: int = 0
    verified: list[str] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    rejected: Counter = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    wall_seconds: float = 0.0
    timings: list[TaskTiming] = field(default_factory=list)
    source_stats: str | None = None
    llm_usage: str | None = None
    setup_llm_usage: str | None = None
    environments: Counter = field(default_factory=Counter)  # "ok" / "failed" -> base commits
    instructions: list = field(default_factory=list)  # {"words", "states", "observed"} per verified task
    empty_hint: str | None = None
    unchanged: list[str] = field(default_factory=list)  # keys whose recorded outcome was kept (no --force)
    stages: Counter = field(default_factory=Counter)  # stage -> wall seconds over the candidates run

    def as_dict(self) -> dict:
        """The summary as JSON-ready data (``generate --json``)."""
        data = {k: v for k, v in self.__dict__.items() if k != "timings"}
        data["empty_hint"] = self.empty_hint if self.candidates == 0 else None
        data["skipped"], data["rejected"] = dict(self.skipped), dict(self.rejected)
        data["environments"] = dict(self.environments)
        data["stages"] = {k: round(v, 3) for k, v in self.stages.items()}
        data["timings"] = [t.__dict__ for t in self.timings]
        return data


@dataclass(frozen=True)
class Planned:
    """One candidate as ``--dry-run`` sees it: ``verdict`` is ``would run``, ``skip`` (a cheap filter's
    ``reason``) or ``unchanged`` (the state holds its outcome for these very inputs: ``reason`` is that
    outcome)."""

    key: str
    task_id: str
    verdict: str
    reason: str | None = None
    detail: str | None = None


def rejected_root(out_dir: Path) -> Path:
    """``<out>.rejected/``: bundles whose controls failed."""
    return out_dir.parent / (out_dir.name + ".rejected")


def logs_root(out_dir: Path) -> Path:
    """``<out>.logs/``: one folder of artefacts per candidate (``core.artefacts``)."""
    return out_dir.parent / (out_dir.name + ".logs")


def _finish(client, draft: Draft, options: GenerateOptions, reporter: Reporter
            ) -> tuple[str, str | None, str, str | None]:
    """Convert a draft to the requested format, run its controls, label it and publish it.
    Returns (status, reason, bundle_hash, detail): ``detail`` says why the controls failed
    (``checks.controls.failure_detail``), None otherwise."""
    bundle, out_dir = draft.stage.root, options.out
    try:
        schema = layout13.SEPARATE_FORMATS.get(options.format)
        if schema is not None:
            reporter.stage(f"schema {schema} layout")
            layout13.convert(draft.stage, draft.split_layout, schema)
            draft.controls = None  # measured again, the 1.3 way (separate verifier)
        if options.dataset_name:
            set_task_name(bundle, f"{options.dataset_name}/{draft.task_id}")
        reporter.stage("controls: oracle and nop")
        digest = bundle_hash(bundle)
        results = draft.controls if draft.controls is not None else run_controls(
            client, bundle, draft.task_id, verifier_timeout_sec=draft.verifier_timeout_sec,
            expected_nop=draft.expected_nop, workers=options.parallel_runs or 1)
        evaluation, reason = evaluation_from(results, digest)
        draft.grading_seconds = sum(r.grading_seconds or 0.0 for r in results)
        reason = reason.value if reason is not None else None
        probe_detail = None
        if reason is None and options.probes and draft.controls is None:
            reporter.stage("adversarial probes")
            evaluation, reason, probe_detail = with_probes(client, bundle, draft.task_id, evaluation,
                                             verifier_timeout_sec=draft.verifier_timeout_sec,
                                             baseline=draft.expected_nop, workers=options.parallel_runs or 1,
                                             nop_outcome=next(r.outcome for r in results if r.name == "nop"))
        set_labels(bundle, bundle_hash=digest, evaluation=evaluation)
    except BaseException:
        draft.stage.discard()  # never leave a half-labelled bundle behind, even on Ctrl-C
        raise
    if reason is None:
        draft.stage.publish(out_dir / draft.task_id)
        return "verified", None, digest, None
    draft.stage.publish(rejected_root(out_dir) / draft.task_id)
    return "rejected", reason, digest, probe_detail or failure_detail(results)


def _check_not_a_file(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out}: exists and is not a directory; choose another path")


def _prepare_output(out: Path):
    """Create ``--out``, take its lock, clear stale staging left by a killed run and check that the ledger is
    writable, before any work. Returns the open lock file (held for the run). Raises ``InputError``."""
    _check_not_a_file(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        lock = locks.hold(out)
        stage = staging_root(out)
        if stage.is_dir():
            shutil.rmtree(stage)  # only a dead run's leftovers: a live one would hold the lock
        with open(ledger.ledger_path(out), "a", encoding="utf-8"):
            pass
        return lock
    except OSError as exc:
        raise InputError(f"--out {out}: cannot write there ({exc.strerror or exc}); choose a writable "
                         "directory") from None


def _engine():
    """A Docker client whose engine answers and has the base image (``DockerUnavailable`` otherwise)."""
    client = docker_client()
    require_base_image(client)
    return client


def _can_write(folder: Path) -> bool:
    """A file can be made in ``folder`` (tried with a temporary file, removed at once: ``os.access`` says yes to
    root on read-only or virtual file systems)."""
    import tempfile  # noqa: PLC0415

    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".r2e-probe-"):
            return True
    except OSError:
        return False


def _precheck_output(out: Path) -> None:
    """Without creating anything: ``--out`` is (or can become) a writable folder no other run holds.
    Raises ``InputError``."""
    _check_not_a_file(out)
    existing = next(p for p in (out, *out.parents) if p.exists())
    if not existing.is_dir() or not _can_write(existing):
        raise InputError(f"--out {out}: cannot write there ({existing} is not a writable folder); choose a writable "
                         "directory")
    if locks.lock_path(out).exists():
        with open(locks.lock_path(out)) as handle:
            locks.take(handle, out)


def plan_candidates(pipeline, source: str, options: GenerateOptions):
    """``pipeline.plan(source, options)`` with each candidate key once (the first in plan order: two candidates
    of one key are one task id, and the second's skip would remove the first's bundle) and the repository named
    ``options.repo_name`` (``--repo-name owner/name``) when given: task ids, ledger rows and
    ``[metadata.repo2env].repo`` then follow it, whatever the clone's folder is called. Raises what ``plan``
    raises (``InputError`` for bad input)."""
    plan = pipeline.plan(source, options)
    by_key: dict = {}
    for candidate in plan.candidates:
        by_key.setdefault(pipeline.candidate_key(candidate), candidate)
    if len(by_key) < len(plan.candidates):
        plan = dataclasses.replace(plan, candidates=list(by_key.values()))
    if options.repo_name:
        return dataclasses.replace(plan, repo=plan.repo.model_copy(update={"slug": options.repo_name}))
    return plan


def _check_format(pipeline, pipeline_name: str, options: GenerateOptions) -> GenerateOptions:
    """``options`` with its ``format`` checked against the pipeline's ``formats``; None (``--format`` left out)
    becomes the pipeline's first. Raises ``InputError`` for a format the pipeline does not write."""
    formats = layout13.pipeline_formats(getattr(pipeline, "formats", ("harbor-1.0",)))
    if options.format is None:
        return dataclasses.replace(options, format=formats[0])
    if options.format not in formats:
        raise InputError(f"--format {options.format}: {pipeline_name} writes only {', '.join(formats)}; use "
                         f"--format {formats[0]} or leave --format out")
    return options


def dry_run(pipeline_name: str, source: str, options: GenerateOptions) -> tuple[str, list[Planned]]:
    """What ``generate`` would do, without Docker and without writing anything: the plan, each candidate's cheap
    filters (``Pipeline.screen``) and whether the state already holds its outcome. Returns (repository slug,
    candidates in plan order). Raises ``InputError`` for bad input."""
    pipeline = load_pipeline(pipeline_name)
    options = _check_format(pipeline, pipeline_name, options)
    _precheck_output(options.out)
    try:
        plan = plan_candidates(pipeline, source, options)
        path = generate_state_path(options.out)
        state = State(path) if path.is_file() else None
        rows = []
        screen = getattr(pipeline, "screen", None)
        for candidate in plan.candidates:
            key, task_id = pipeline.candidate_key(candidate), pipeline.task_id(plan.repo, candidate)
            skip = screen(plan.repo, candidate, options) if callable(screen) else None
            known = _kept(state, pipeline, plan.repo.slug, key, candidate, options) if state else None
            if skip is not None:
                rows.append(Planned(key, task_id, "skip", skip.reason.value, skip.detail))
            elif known is not None:
                rows.append(Planned(key, task_id, "unchanged", known["status"], known.get("reason")))
            else:
                rows.append(Planned(key, task_id, "would run", _why_run(state, pipeline, plan.repo.slug, key,
                                                                        options)))
        if state is not None:
            state.__exit__()
        return plan.repo.slug, rows
    finally:
        close = getattr(pipeline, "close", None)
        if callable(close):
            close()


def _kept(state: State, pipeline, repo: str, key: str, candidate, options: GenerateOptions) -> dict | None:
    """The state's row for the candidate when its outcome still stands (``run.incremental``), else None."""
    if options.force:
        return None
    row = state.row(repo, pipeline.name, key)
    if row is None:
        return None
    bundle = options.out / row["task_id"]
    if hand_edited(row, options.out):
        return {**row, "reason": "edited by hand since it was built (kept; --force rebuilds it)"}
    if not state.done(repo, pipeline.name, key, fingerprint(pipeline, candidate, options, repo)):
        return None
    if row["status"] == "verified" and not (bundle / "task.toml").is_file():
        return None  # gone from --out: build it again
    return row


def _why_run(state: State | None, pipeline, repo: str, key: str, options: GenerateOptions) -> str:
    """Why a dry run says a candidate would run: new, forced, its inputs changed, or its bundle is gone."""
    row = state.row(repo, pipeline.name, key) if state is not None else None
    if options.force:
        return "--force"
    if row is None:
        return "not run before"
    if row["status"] == "error":
        return f"it ended in an error last time ({row.get('reason')})"
    if row["status"] == "verified" and not (options.out / row["task_id"] / "task.toml").is_file():
        return "its bundle is gone from --out"
    return ("its inputs changed since the last run (the change, the options, this repository's environment config, "
            "or repo2rlenv's own graders, probes and templates: a new version of repo2rlenv re-verifies every task)")


def generate(pipeline_name: str, source: str, options: GenerateOptions, reporter: Reporter | None = None,
             jobs: int = 1) -> Summary:
    """Run ``pipeline_name`` on ``source``, ``jobs`` candidates at a time (threads, one Docker client each; an
    image two candidates need is built once, ``environment.images``' per-tag locks). Raises ``InputError`` for bad input (before any work) and
    ``DockerUnavailable`` when the engine is unreachable; per-candidate failures are recorded and the run goes on."""
    reporter = reporter or SilentReporter()
    started = time.monotonic()
    if options.parallel_runs is None:
        options = dataclasses.replace(options, parallel_runs=default_workers(jobs))
    pipeline = load_pipeline(pipeline_name)
    options = _check_format(pipeline, pipeline_name, options)
    synthesizer = Synthesizer.create(options.llm) if options.llm is not None else None
    setup_agent(options)  # a missing key is bad input: before any work
    remote = not is_local(source)
    if remote:  # listing a remote source can take long: fail on Docker or --out first
        client = _engine()
        _precheck_output(options.out)
    plan = plan_candidates(pipeline, source, options)
    if not remote:  # a local plan is quick and its bad input is reported without an engine
        client = _engine()
    lock = _prepare_output(options.out)
    set_dataset(options.out)
    try:
        remove_leftovers(client)
        return _run(pipeline, plan, client, options, reporter, started, synthesizer, jobs)
    except requests.exceptions.ConnectionError:
        raise DockerUnavailable("Docker stopped answering during the run; check `docker info` (or run "
                                "`bash scripts/setup_docker.sh`), then run the same command again") from None
    finally:
        spares.settle()  # no container outlives the run
        close = getattr(pipeline, "close", None)
        if callable(close):
            close()
        lock.close()


def env_memory(options: GenerateOptions) -> EnvMemory:
    """The environment memory of a run: ``options.env_memory``, else ``env-memory.sqlite`` in the cache folder
    (shared by every ``generate`` on this machine, per repository)."""
    return EnvMemory(options.env_memory or (options.cache_dir or default_cache_dir()) / "env-memory.sqlite")


_AGENTS: dict = {}  # LlmConfig -> SetupAgent: one client (and one usage account) per process


def setup_agent(options: GenerateOptions) -> SetupAgent | None:
    """The setup agent of ``--setup-llm`` (one per process), None without it. Raises ``InputError`` (no key)."""
    if options.setup_llm is None:
        return None
    if options.setup_llm not in _AGENTS:
        _AGENTS[options.setup_llm] = SetupAgent.create(options.setup_llm)
    agent = _AGENTS[options.setup_llm]
    agent.max_proposals = options.setup_llm_attempts
    return agent


def _drop_stale(out_dir: Path, task_id: str) -> None:
    """A candidate that no longer verifies must not leave an earlier run's bundle in ``--out``."""
    old = out_dir / task_id
    if old.is_dir():
        remove_tree(old, staging_root(out_dir))


def build_candidate(pipeline, repo, candidate, client, options: GenerateOptions, reporter: Reporter,
                    synthesizer: Synthesizer | None = None) -> CandidateOutcome:
    """Build, check and publish one candidate into ``options.out`` (the bundle appears atomically, or a stale
    one of the same task is removed). Raises ``DockerUnavailable``/``FatalSourceError``; other failures are an
    ``error`` outcome."""
    t0 = time.monotonic()
    key = pipeline.candidate_key(candidate)
    task_id = pipeline.task_id(repo, candidate)
    outcome = CandidateOutcome(key=key, task_id=task_id, status="error")
    ctx = BuildContext(client=client, options=options, report=reporter.stage, synthesizer=synthesizer,
                       env_memory=env_memory(options), setup_agent=setup_agent(options))
    with artefacts.collecting(logs_root(options.out) / task_id, options.keep_rejected) as sink, \
            timings.measuring() as watch:
        try:
            result = pipeline.build(repo, candidate, ctx)
            if isinstance(result, Skip):
                outcome.status, outcome.reason, outcome.detail = "skipped", result.reason.value, result.detail
            else:
                outcome.status, outcome.reason, outcome.bundle_hash, outcome.detail = _finish(
                    client, result, options, reporter)
                outcome.test_seconds, outcome.grading_seconds = result.test_seconds, result.grading_seconds
        except (DockerUnavailable, FatalSourceError):
            raise
        except (R2EError, docker.errors.DockerException) as exc:
            outcome.status, outcome.reason, outcome.detail = "error", type(exc).__name__, str(exc)[:500]
    outcome.logs = str(sink.folder) if sink.folder.is_dir() else None
    outcome.timings = watch.record()
    outcome.environment, outcome.instruction = ctx.environment, ctx.instruction
    if outcome.status != "verified":
        _drop_stale(options.out, task_id)
    outcome.seconds = round(time.monotonic() - t0, 3)
    return outcome


def _run(pipeline, plan, client, options: GenerateOptions, reporter: Reporter, started: float,
         synthesizer: Synthesizer | None = None, jobs: int = 1) -> Summary:
    ledger_file = ledger.ledger_path(options.out)
    run_id = datetime.now(UTC).replace(microsecond=0).isoformat()
    summary = Summary(repo=plan.repo.slug, candidates=len(plan.candidates), empty_hint=plan.empty_hint)
    reporter.start(len(plan.candidates), plan.repo.slug)
    with State(generate_state_path(options.out)) as state:
        state.start_build(run_id, None)

        built: Counter = Counter()  # outcomes of this run's builds (the unchanged ones are counted apart)

        def record(got: CandidateOutcome, candidate) -> None:
            _record(pipeline, plan, candidate, got, options, state, run_id, ledger_file, summary)
            built[got.status] += 1
            # a rejection says why the controls failed (a grader error, tampering, the tests that did not pass)
            reporter.outcome(got.key, got.status, f"{got.reason}: {got.detail}" if got.status == "rejected"
                             and got.detail else got.reason)

        todo = [(i, c) for i, c in enumerate(plan.candidates)
                if not _unchanged(pipeline, plan, i, c, options, reporter, state, summary)]
        if jobs <= 1 or len(todo) <= 1:
            for index, candidate in todo:
                reporter.candidate(index, pipeline.candidate_key(candidate))
                record(build_candidate(pipeline, plan.repo, candidate, client, options, reporter, synthesizer),
                       candidate)
        else:
            _in_parallel(pipeline, plan, todo, options, reporter, synthesizer, jobs, record)
        summary.wall_seconds = time.monotonic() - started
        state.finish_build(run_id, round(summary.wall_seconds, 3), {
            "verified": built["verified"], "skipped": built["skipped"], "rejected": built["rejected"],
            "error": built["error"], "unchanged": len(summary.unchanged), "candidates": summary.candidates})
    stats = getattr(pipeline, "stats", None)
    summary.source_stats = stats() if callable(stats) else None
    if synthesizer is not None:
        summary.llm_usage = synthesizer.usage.describe(options.llm.budget_usd)
    agent = setup_agent(options)
    if agent is not None:
        summary.setup_llm_usage = agent.usage.describe(options.setup_llm.budget_usd)
    return summary


def _unchanged(pipeline, plan, index, candidate, options, reporter, state: State, summary: Summary) -> bool:
    """True when the state holds this candidate's outcome for its very inputs (counted in ``summary``)."""
    key = pipeline.candidate_key(candidate)
    kept = _kept(state, pipeline, plan.repo.slug, key, candidate, options)
    if kept is None:
        return False
    reporter.candidate(index, key)
    summary.unchanged.append(key)
    if kept["status"] == "verified":
        summary.verified.append(kept["task_id"])
    elif kept["status"] == "skipped":
        summary.skipped[kept["reason"]] += 1
    else:
        summary.rejected[kept["reason"]] += 1
    reporter.outcome(key, f"unchanged ({kept['status']})", kept["reason"])
    return True


def _in_parallel(pipeline, plan, todo: list, options, reporter, synthesizer, jobs: int, record) -> None:
    """Build ``todo`` (``(index, candidate)``) on ``jobs`` threads, one Docker client each; ``record`` runs on
    this thread as each completes (the state and the ledger are written from one thread). An engine failure
    (``DockerUnavailable``, ``FatalSourceError``) cancels what has not started and propagates."""
    local = threading.local()

    def one(index, candidate) -> CandidateOutcome:
        if getattr(local, "client", None) is None:
            local.client = docker_client()
        reporter.candidate(index, pipeline.candidate_key(candidate))
        return build_candidate(pipeline, plan.repo, candidate, local.client, options, reporter, synthesizer)

    with concurrency.pool(jobs, "r2e-generate") as pool:
        futures = {pool.submit(one, i, c): c for i, c in todo}
        try:
            for future in as_completed(futures):
                record(future.result(), futures[future])
        except BaseException:
            for future in futures:
                future.cancel()
            raise


def _record(pipeline, plan, candidate, got: CandidateOutcome, options, state: State, run_id: str, ledger_file,
            summary: Summary) -> None:
    """Record one built candidate in the state and the ledger; count it in ``summary``."""
    if got.status == "skipped":
        summary.skipped[got.reason] += 1
    elif got.status == "error":
        summary.errors.append(got.key)
    else:
        summary.timings.append(TaskTiming(got.task_id, got.seconds, got.test_seconds, got.grading_seconds))
        if got.status == "verified":
            summary.verified.append(got.task_id)
        else:
            summary.rejected[got.reason] += 1
    entry = LedgerEntry(run_id=run_id, candidate=got.key, pipeline=pipeline.name, repo=plan.repo.slug,
                        task_id=got.task_id, status=got.status, reason=got.reason, detail=got.detail,
                        bundle_hash=got.bundle_hash, seconds=got.seconds, recorded_at=datetime.now(UTC),
                        environment=got.environment, instruction=got.instruction, logs=got.logs,
                        timings=got.timings)
    if got.status == "verified" and got.instruction:
        summary.instructions.append(got.instruction)
    if got.environment:
        summary.environments[got.environment] += 1
    summary.stages.update(got.timings or {})
    ledger.append(ledger_file, entry)
    state.record(outcome_row(plan.repo.slug, pipeline.name, fingerprint(pipeline, candidate, options,
                                                                     plan.repo.slug), got,
                             run_id))

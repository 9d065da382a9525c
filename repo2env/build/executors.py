"""Where a build's units of work run: threads on this machine (``--jobs N``) or Ray tasks (``--executor ray``).

Both yield ``(unit, CandidateOutcome)`` pairs as they complete; the caller records them. The unit of work is the
same everywhere: ``generate.build_candidate`` publishing into the shared output folder.

The plan is made once, by the driver: a unit whose pipeline, repository and candidate pickle (a local clone's
source drops its open repository handle and reopens it) is sent to the Ray worker as it is. A GitHub source holds a
live API client and its token, which must not travel through Ray's object store: for those units the worker
plans the (source, pipeline) again once per worker process and picks the candidate by its key. ``RAY_ADDRESS`` names a
cluster (every node needs Docker, this package and the output folder at the same path); without it a local
Ray instance with ``--jobs`` CPUs is started.
"""

import logging
import os
import pickle
import threading
from collections.abc import Iterator
from concurrent.futures import as_completed

from repo2env.core import concurrency
from repo2env.core.errors import InputError, R2EError
from repo2env.core.records import CandidateOutcome
from repo2env.environment.containers import docker_client, remove_leftovers
from repo2env.environment.images import require_base_image
from repo2env.pipeline import load_pipeline
from repo2env.run.generate import SilentReporter, build_candidate, plan_candidates

EXECUTORS = ("local", "ray")


class LocalExecutor:
    """``jobs`` worker threads, one Docker client each."""

    def __init__(self, jobs: int):
        self.jobs = max(1, jobs)
        self._local = threading.local()
        client = docker_client()
        require_base_image(client)
        remove_leftovers(client)  # containers of a killed build on this machine

    def _client(self):
        if getattr(self._local, "client", None) is None:
            self._local.client = docker_client()
        return self._local.client

    def _one(self, unit) -> CandidateOutcome:
        return build_candidate(unit.pipeline_obj, unit.repo_ref, unit.candidate, self._client(), unit.options,
                               SilentReporter())

    def run(self, units) -> Iterator:
        """Yield ``(unit, CandidateOutcome)`` as each unit completes; an engine failure stops the rest."""
        with concurrency.pool(self.jobs, "r2e-build") as pool:
            futures = {pool.submit(self._one, unit): unit for unit in units}
            try:
                for future in as_completed(futures):
                    yield futures[future], future.result()
            except BaseException:
                for future in futures:
                    future.cancel()
                raise


_PLANS: dict = {}  # per Ray worker process: (source, pipeline, options) -> (pipeline, plan, candidates by key)


def ray_unit(source: str, pipeline_name: str, key: str, options) -> CandidateOutcome:
    """Build one candidate inside a Ray worker (module docstring)."""
    cache_key = (source, pipeline_name, repr(options))
    if cache_key not in _PLANS:
        pipeline = load_pipeline(pipeline_name)
        planned = plan_candidates(pipeline, source, options)
        _PLANS[cache_key] = (pipeline, planned, {pipeline.candidate_key(c): c for c in planned.candidates})
    pipeline, planned, by_key = _PLANS[cache_key]
    if key not in by_key:
        raise InputError(f"{source} ({pipeline_name}): candidate {key} is gone since the build was planned")
    return build_candidate(pipeline, planned.repo, by_key[key], docker_client(), options, SilentReporter())


def ray_build(pipeline, repo, candidate, options) -> CandidateOutcome:
    """Build one candidate the driver planned, inside a Ray worker (module docstring)."""
    return build_candidate(pipeline, repo, candidate, docker_client(), options, SilentReporter())


def _picklable(unit) -> bool:
    try:
        pickle.dumps((unit.pipeline_obj, unit.repo_ref, unit.candidate, unit.options))
    except Exception:  # a live client, a lock, an open handle: any of them makes the unit unpicklable
        return False
    return True


class RayExecutor:
    """One Ray task per unit (``num_cpus=1`` each)."""

    def __init__(self, jobs: int):
        try:
            import ray  # noqa: PLC0415 - optional dependency
        except ImportError:
            raise InputError("--executor ray: Ray is not installed; `pip install 'repo2rlenv[ray]'`") from None
        self.ray = ray
        self.started = not ray.is_initialized()
        if self.started:
            address = os.environ.get("RAY_ADDRESS")
            ray.init(address=address, num_cpus=None if address else max(1, jobs), include_dashboard=False,
                     log_to_driver=False, logging_level=logging.WARNING)
        self.remote = ray.remote(num_cpus=1, max_retries=0)(ray_unit)
        self.remote_planned = ray.remote(num_cpus=1, max_retries=0)(ray_build)
        self.sent_planned = 0  # units sent with their plan (no re-planning in the worker)

    def run(self, units) -> Iterator:
        """Yield ``(unit, CandidateOutcome)`` as each Ray task completes; a local Ray started here is shut down."""
        try:
            yield from self._run(units)
        finally:
            if self.started:
                self.ray.shutdown()

    def _run(self, units) -> Iterator:
        refs = {}
        for u in units:
            if _picklable(u):
                refs[self.remote_planned.remote(u.pipeline_obj, u.repo_ref, u.candidate, u.options)] = u
                self.sent_planned += 1
            else:
                refs[self.remote.remote(u.source, u.pipeline, u.key, u.options)] = u
        pending = list(refs)
        while pending:
            ready, pending = self.ray.wait(pending, num_returns=1)
            for ref in ready:
                try:
                    outcome = self.ray.get(ref)
                except self.ray.exceptions.RayTaskError as exc:
                    cause = getattr(exc, "cause", None)
                    if isinstance(cause, R2EError):
                        raise cause from None
                    raise
                yield refs[ref], outcome


def make_executor(name: str, jobs: int):
    """``local`` or ``ray``. Raises ``InputError`` for another name."""
    if name == "local":
        return LocalExecutor(jobs)
    if name == "ray":
        return RayExecutor(jobs)
    raise InputError(f"--executor {name}: expected one of {', '.join(EXECUTORS)}")

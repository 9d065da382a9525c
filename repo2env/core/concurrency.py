"""Independent container runs of one candidate side by side (its test runs, its oracle and nop controls).

``run_all(calls, workers)`` runs zero-argument callables on up to ``workers`` threads and returns their results in
the order given. Each worker records into the calling thread's artefact sink (``core.artefacts``); the calling
thread's stopwatch (``core.timings``) counts the whole block to the stage it is in, so stages stay exclusive
and read the same whether the calls ran side by side or one after the other.
The first exception (in the order given) is raised once every call has ended (each has handed its container to
removal, ``environment.spares``).
With ``workers <= 1`` (or one call) the calls run one after the other on the calling thread, as before.
"""

import contextlib
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from repo2env.core import artefacts, timings


def default_workers(jobs: int = 1) -> int:
    """Runs of one candidate at a time when none is asked for: the CPUs left per candidate (``jobs`` candidates
    at a time), at least 1."""
    return max(1, (os.cpu_count() or 1) // max(1, jobs))


@contextlib.contextmanager
def pool(max_workers: int, prefix: str):
    """A ``ThreadPoolExecutor`` of ``max_workers`` threads named ``prefix``… that, when its block is left by an
    exception (Ctrl-C, SIGTERM), cancels the calls not started yet and waits only for the running ones (each
    removes its own container): an interrupted run ends in seconds instead of running out its queue."""
    executor = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix=prefix)
    try:
        yield executor
    except BaseException:
        executor.shutdown(wait=True, cancel_futures=True)
        raise
    executor.shutdown(wait=True)


def run_all(calls: list[Callable], workers: int) -> list:
    """The results of ``calls`` (module docstring); raises the first call's exception, in the order given."""
    if workers <= 1 or len(calls) <= 1:
        with timings.hidden():  # the enclosing stage counts all of it, as it does side by side
            return [call() for call in calls]
    sink = artefacts.current()

    def wrapped(call):
        with artefacts.sharing(sink):
            return call()

    with pool(min(workers, len(calls)), "r2e-run") as executor:
        futures = [executor.submit(wrapped, call) for call in calls]
        errors = [f.exception() for f in futures]  # waits for each
    for error in errors:
        if error is not None:
            raise error
    return [f.result() for f in futures]

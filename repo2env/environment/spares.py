"""Container start and removal off the critical path: a spare started ahead, and removal behind.

A candidate's runs, twin trial, controls and probes each need a fresh container of the same image with the same
settings, one after the other. Creating and starting one costs about 0.3 s of engine time and removing it
about 0.15 s (measured on this 2-core machine, sqlparse's task image), against test runs of 1-2 s. So:

- ``Spares.take(key, create)``: a container started ahead for ``key`` (the creation settings), while the one
  before it ran; a replacement is started in the background at once. A spare is a container nobody has used:
  started from the image with ``sleep infinity`` like any other, so a run in it sees what a run in a container
  created on demand sees (the seconds since it started aside). At most ``LIMIT`` spares wait at a time, the
  least recently asked-for key's removed first.
- ``Spares.discard(container)``: removed in the background; ``settle()`` waits until every removal has ended
  and every spare is gone (the end of a ``generate`` or ``build``: no container outlives the run; at exit too).

``REPO2RLENV_PLAIN=1`` in the environment turns both off (the plain path: a container created when asked for,
removed before going on), to show that the outputs are the same either way
(``tests/pipelines/test_pr_runtime_docker.py``) or to bisect a difference.
"""

import atexit
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

LIMIT = 4  # spares waiting at once (idle ``sleep infinity`` containers: a few MB each)


def plain() -> bool:
    """True when ``REPO2RLENV_PLAIN`` asks for the plain path (containers made and removed in line)."""
    return os.environ.get("REPO2RLENV_PLAIN", "") not in ("", "0")


def _remove_quietly(container) -> None:
    try:
        container.remove(force=True)
    except Exception:  # gone already, or the engine is; a killed run's leftovers are remove_leftovers' job
        pass


class Spares:
    """Started containers kept ready per creation key, and containers being removed (module docstring).
    Thread-safe."""

    def __init__(self, limit: int = LIMIT):
        self.limit = limit
        self._lock = threading.Lock()
        self._ready: OrderedDict[tuple, Future] = OrderedDict()
        self._pending: set[Future] = set()
        self._evicted: set[Future] = set()  # spares pushed out, removed once made (``_discard_made``)
        self._executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="r2e-spare")

    def _submit(self, call, *args) -> Future:
        future = self._executor.submit(call, *args)
        with self._lock:
            self._pending.add(future)
        future.add_done_callback(self._done)
        return future

    def _done(self, future: Future) -> None:
        with self._lock:
            self._pending.discard(future)

    def take(self, key: tuple, create: Callable):
        """A started container for ``key`` made earlier by ``create`` (no argument; returns a started
        ``docker`` container), or None when none was ready (or making it failed): the caller makes its own.
        Either way a spare for ``key`` is started for the next caller."""
        spare = self._submit(create)
        evicted: list[Future] = []
        with self._lock:  # one block: two callers of one key at once each take what the other left, or nothing
            ready = self._ready.pop(key, None)
            self._ready[key] = spare
            while len(self._ready) > self.limit:
                evicted.append(self._ready.popitem(last=False)[1])
            self._evicted.update(evicted)
        for future in evicted:
            future.add_done_callback(self._discard_made)
        if ready is None:
            return None
        try:
            return ready.result()
        except Exception:  # the engine refused it (an image removed meanwhile): the caller's create will say why
            return None

    def _discard_made(self, future: Future) -> None:
        try:
            if future.exception() is None:
                self.discard(future.result())
        finally:
            with self._lock:
                self._evicted.discard(future)

    def discard(self, container) -> None:
        """Remove ``container`` (force) in the background."""
        self._submit(_remove_quietly, container)

    def settle(self) -> None:
        """Remove every spare and wait until every removal asked for has ended."""
        with self._lock:
            ready, self._ready = list(self._ready.values()), OrderedDict()
        for future in ready:
            try:
                _remove_quietly(future.result())
            except Exception:
                pass
        while True:
            with self._lock:
                pending = list(self._pending | self._evicted)
            if not pending:
                return
            for future in pending:
                try:
                    future.result()
                except Exception:
                    pass
            time.sleep(0.01)  # an evicted spare's done callback may still be handing it to removal


SPARES = Spares()
atexit.register(SPARES.settle)


def settle() -> None:
    """``SPARES.settle()``: no spare left, no removal under way (the end of a run)."""
    SPARES.settle()

"""Where a candidate's wall time goes: a per-thread stopwatch of named stages.

While ``measuring()`` is active on a thread (``run.generate.build_candidate`` sets it around one candidate),
``stage(name)`` blocks add their seconds to ``name``. Time is *exclusive*: a stage entered inside another pauses
the outer one, so the stages of a candidate add up to its wall time (what no stage claims is ``other``: git,
staging files, parsing). The names used (``STAGES``) are the rows of the ledger's ``timings`` and the report's
table. The container runs of ``core.concurrency`` (a candidate's test runs, its controls, its probes) count to
the block that waits for them (``test runs``, ``controls``, ``probes``), side by side or one after the other;
``container start``/``stop`` are the other containers' (the environment ladder's). Summed over candidates built
at the same time (``--jobs``), stages overlap: their sum is more than the run's wall time. Without a stopwatch,
``stage`` does nothing.
"""

import threading
import time
from contextlib import contextmanager

_local = threading.local()

#: the stages, in the order a candidate meets them (``other`` is what the others leave)
STAGES = ("image build", "test runs", "twin trial", "controls", "probes", "container start", "container stop", "other")


class Stopwatch:
    """Seconds per stage of one candidate (exclusive), and the stack of open stages."""

    def __init__(self):
        self.seconds: dict[str, float] = {}
        self._open: list[tuple[str, float]] = []  # (stage, when it last (re)started)
        self._start = time.monotonic()

    def enter(self, name: str) -> None:
        now = time.monotonic()
        if self._open:  # pause the stage we are inside
            outer, since = self._open[-1]
            self.seconds[outer] = self.seconds.get(outer, 0.0) + now - since
        self._open.append((name, now))

    def leave(self) -> None:
        now = time.monotonic()
        name, since = self._open.pop()
        self.seconds[name] = self.seconds.get(name, 0.0) + now - since
        if self._open:  # resume the outer stage
            self._open[-1] = (self._open[-1][0], now)

    def record(self) -> dict[str, float]:
        """``{stage: seconds}`` (3 decimals) in ``STAGES`` order, with ``other`` = wall - the named stages."""
        wall = time.monotonic() - self._start
        named = {k: v for k, v in self.seconds.items() if k != "other"}
        out = {k: round(named[k], 3) for k in STAGES if k in named}
        out.update({k: round(v, 3) for k, v in named.items() if k not in out})
        out["other"] = round(max(0.0, wall - sum(named.values())), 3)
        return out


def current() -> Stopwatch | None:
    """The stopwatch of this thread's candidate, or None."""
    return getattr(_local, "watch", None)


@contextmanager
def stage(name: str):
    """Count the block's wall seconds (exclusive of stages opened inside it) to ``name``."""
    watch = current()
    if watch is None:
        yield
        return
    watch.enter(name)
    try:
        yield
    finally:
        watch.leave()


@contextmanager
def hidden():
    """No stopwatch on this thread for the duration: the stage that encloses the block counts all of it."""
    previous, _local.watch = current(), None
    try:
        yield
    finally:
        _local.watch = previous


@contextmanager
def measuring():
    """Make a fresh ``Stopwatch`` this thread's for the duration; yields it."""
    watch = Stopwatch()
    previous, _local.watch = current(), watch
    try:
        yield watch
    finally:
        _local.watch = previous

"""A pytest plugin run in a task container, never imported by repo2rlenv itself (``callmap`` copies it in): for
every test, which functions of the repository it called (setup, call and teardown), and its outcome.

Each function is named by its code object's file (relative to ``R2E_CALLMAP_ROOT``) and first line (the ``def``
line, or its first decorator's). On Python 3.12+ the ``sys.monitoring`` PY_START event is used, disabled per code
object after its first call and re-armed at each test's start, so a test costs one callback per distinct function;
older Pythons use ``sys.setprofile`` (every call). The JSON written to ``R2E_CALLMAP_OUT`` is ``{"tests": {node id:
[[path, line], ...]}, "outcomes": {node id: "passed" | "failed" | "skipped"}}``. Standard library only, Python 3.6+.
"""

import json
import os
import sys
import threading

import pytest

_ROOT = os.path.realpath(os.environ.get("R2E_CALLMAP_ROOT", "/workspace")) + os.sep
_OUT = os.environ.get("R2E_CALLMAP_OUT", "/tmp/r2e-callmap.json")
_TOOL = 4  # a free sys.monitoring tool id (0-2 and 5 are claimed by debuggers, coverage and profilers)
_SELF = os.path.realpath(__file__)
_calls = {}
_outcomes = {}
_current = set()
_paths = {}


def _relative(filename):
    """The repository-relative path of a code object's file, or None outside the repository (site-packages, a
    virtual environment inside it, the standard library, frozen and generated code such as ``<frozen os>``, this
    plugin)."""
    found = _paths.get(filename)
    if found is None:
        real = os.path.realpath(filename) if os.path.isabs(filename) else ""
        inside = (real.startswith(_ROOT) and "site-packages" not in real and "dist-packages" not in real
                  and real != _SELF)
        found = _paths[filename] = real[len(_ROOT):] if inside else ""
    return found or None


def _seen(code):
    path = _relative(code.co_filename)
    if path is not None:
        _current.add((path, code.co_firstlineno))


def _profile(frame, event, arg):
    if event == "call":
        _seen(frame.f_code)


_MONITORING = getattr(sys, "monitoring", None)


def _start():
    _current.clear()
    if _MONITORING is not None:
        _MONITORING.restart_events()
    else:
        sys.setprofile(_profile)
        threading.setprofile(_profile)


def _stop():
    if _MONITORING is None:
        sys.setprofile(None)
        threading.setprofile(None)


def pytest_configure(config):
    if _MONITORING is not None:
        def on_start(code, offset):
            _seen(code)
            return _MONITORING.DISABLE

        _MONITORING.use_tool_id(_TOOL, "repo2rlenv-callmap")
        _MONITORING.register_callback(_TOOL, _MONITORING.events.PY_START, on_start)
        _MONITORING.set_events(_TOOL, _MONITORING.events.PY_START)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _start()
    try:
        yield
    finally:
        _stop()
        _calls[item.nodeid] = sorted(_current)


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        worst = {"passed": 0, "skipped": 1, "failed": 2}
        old = _outcomes.get(report.nodeid)
        if old is None or worst[report.outcome] > worst[old]:
            _outcomes[report.nodeid] = report.outcome


def pytest_sessionfinish(session, exitstatus):
    if _MONITORING is not None:
        _MONITORING.set_events(_TOOL, 0)
        _MONITORING.free_tool_id(_TOOL)
    with open(_OUT, "w") as fh:
        json.dump({"tests": {k: [list(p) for p in v] for k, v in _calls.items()}, "outcomes": _outcomes}, fh)

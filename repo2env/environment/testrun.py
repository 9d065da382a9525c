"""One generation-time test run: a fresh container of the environment image (``TaskContainer``'s ``warm``: one
started ahead) with the bundle's tests put in before it runs, optionally the gold patch
(through the bundle's own ``solution/solve.sh``), then the language's test command (Python: ``tests/verifier.py
run``); outcomes parsed from its structured results by the language (Python: JUnit XML)."""

import json
from pathlib import Path

import docker

from repo2env.core import artefacts
from repo2env.core.errors import TestRunError
from repo2env.core.limits import MEMORY_MB
from repo2env.core.records import TestRun
from repo2env.environment.containers import Contents, TaskContainer

RESULT_DIR = "/tmp/r2e-results"  # made empty in each run's container; read back in one engine call
RESULT_NAME = "results.json"  # the runner writes its log and JUnit XML beside it (.log, .junit.xml)
RESULT_PATH = f"{RESULT_DIR}/{RESULT_NAME}"
PREPARE_FAILED = 3  # the test command's exit code when the test files cannot be put in place


class PatchDoesNotApply(TestRunError):
    """The gold or test patch does not apply at the base commit inside the image."""


def _why(code: int, out: str, memory_mb: int = MEMORY_MB) -> str:
    """Why a run produced nothing: pytest's own exit code is inside verifier.py's JSON, the exec's is outside."""
    try:
        inner = json.loads(out.strip().splitlines()[-1]).get("exit_code", code)
    except (ValueError, IndexError, AttributeError):
        inner = code
    if inner in (-9, 137):
        return (f"pytest was killed (exit {inner}): out of memory (the container has {memory_mb} MB; raise "
                "memory_mb for the repository in --env-config) or killed")
    if inner == 124 or code == 124:
        return "pytest hit the run timeout"
    return f"pytest exit {inner}"


def run_tests(client: docker.DockerClient, image: str, bundle_root: Path, label: str, *, language,
              extra_hosts: dict[str, str], timeout_sec: float, memory_mb: int = MEMORY_MB,
              cpus: float | None = None, deadline=None) -> TestRun:
    """Run the tests once; ``label`` is ``before`` (test patch only) or ``after`` (plus the gold patch);
    ``language`` (a ``repo2env.languages.Language``) gives the command and parses its results; ``memory_mb``
    and ``cpus`` cap the container (``RepoEnvConfig``). ``deadline``: as ``TaskContainer.exec``'s; a run it
    stops reports no test (exit code 124), as a run the runner's own ``timeout_sec`` stops does.

    Raises ``PatchDoesNotApply`` or ``TestRunError`` (no JUnit XML: pytest could not start).
    """
    gold = label == "after"
    with TaskContainer(client, image, extra_hosts=extra_hosts, memory_mb=memory_mb, cpus=cpus, warm=True,
                       folders=_folders(bundle_root, gold=gold)) as box:
        if gold:
            _solve(box)
        cmd = language.test_command("/tests", RESULT_PATH)
        code, out, seconds = box.exec(cmd, timeout_sec=timeout_sec + 60, deadline=deadline)
        written = box.read_files(RESULT_DIR)
        results = written.get(RESULT_NAME)
        if code == 124 and deadline is not None and results is None:
            artefacts.record_group(f"tests-{label}", {".log": f"stopped after {seconds:.0f} s: the run after the "
                                                              f"fix had long finished\n{out}".encode()})
            return TestRun(label=label, outcomes={}, collection_errors=(), collection_messages={},
                           skip_messages={}, error_messages={}, failure_details={}, exit_code=124,
                           seconds=round(seconds, 3))
        if code == PREPARE_FAILED:
            raise PatchDoesNotApply(f"test patch does not apply: {out.strip()[-300:]}")
        artefacts.record_group(f"tests-{label}", {".log": written.get(RESULT_NAME + ".log") or out,
                                                  ".junit.xml": written.get(RESULT_NAME + ".junit.xml"),
                                                  ".json": results})
        if results is None:
            raise TestRunError(f"the test runner wrote no results ({_why(code, out, memory_mb)}): {out.strip()[-300:]}")
    text = results.decode("utf-8", errors="replace")
    outcomes, collection_errors, messages = language.parse_results(text)
    # Optional in the protocol: why tests were skipped or failed to import (the feedback loop reads them).
    skips, errors, failures = language.parse_messages(text) if hasattr(language, "parse_messages") else ({}, {}, {})
    return TestRun(label=label, outcomes=outcomes, collection_errors=tuple(collection_errors),
                   collection_messages=messages, skip_messages=skips, error_messages=errors,
                   failure_details=failures, exit_code=code, seconds=round(seconds, 3))


def _folders(bundle_root: Path, *, gold: bool) -> dict:
    """``TaskContainer``'s folders of a run: the bundle's ``tests/`` in the image's (empty) ``/tests``, an empty
    ``RESULT_DIR``, and ``solution/`` at ``/solution`` when ``gold``; one engine call. ``solve.sh`` only applies
    the reference patch in the work tree, so the test files being in place already changes nothing for it."""
    return {"/tests": Contents(bundle_root / "tests"), RESULT_DIR: None,
            **({"/solution": bundle_root / "solution"} if gold else {})}


def _solve(box: TaskContainer) -> None:
    """Run the bundle's ``/solution/solve.sh`` (the reference patch). Raises ``PatchDoesNotApply``."""
    code, out, _ = box.exec(["bash", "/solution/solve.sh"], timeout_sec=300)
    if code != 0:
        raise PatchDoesNotApply(f"gold patch does not apply: {out.strip()[-300:]}")


def run_twin_trial(client: docker.DockerClient, image: str, bundle_root: Path, *, command: list[str],
                   extra_hosts: dict[str, str], timeout_sec: float, memory_mb: int = MEMORY_MB,
                   cpus: float | None = None) -> dict:
    """The grader's twin trial (``runtime_verifier.cmd_twins``) in a fresh container of ``image`` with the gold
    patch applied: ``command`` (the language's ``twin_trial_command``, which writes ``RESULT_PATH``) run once.
    Returns its JSON (``{"proven": [...], "twins": {...}, ...}``). Raises ``PatchDoesNotApply``, or
    ``TestRunError`` when it wrote no result."""
    with TaskContainer(client, image, extra_hosts=extra_hosts, memory_mb=memory_mb, cpus=cpus, warm=True,
                       folders=_folders(bundle_root, gold=True)) as box:
        _solve(box)
        code, out, _ = box.exec(command, timeout_sec=timeout_sec + 60)
        results = box.read_file(RESULT_PATH)
        artefacts.record("twin-trial", ".json", results or out.encode())
    if results is None:
        raise TestRunError(f"the twin trial wrote no results ({_why(code, out, memory_mb)}): {out.strip()[-300:]}")
    return json.loads(results.decode("utf-8", errors="replace"))


def _common(messages: list[str], limit: int = 100) -> str:
    """The most common of ``messages``, as one line of at most ``limit`` characters: a pytest error's ``E`` line
    when it has one (``fixture 'benchmark' not found``), else its first line, without the ``/path.py:12:``
    location pytest repeats after a skip reason."""
    def line(text: str) -> str:
        found = next((ln.strip()[1:].strip() for ln in text.splitlines() if ln.strip().startswith("E ")), None)
        first = (found or text.strip().splitlines()[0] if text.strip() else "").strip()
        first = first.split(" /", 1)[0] if " /" in first and ".py:" in first else first
        return first if len(first) <= limit else first[:limit - 1] + "…"
    counts: dict[str, int] = {}
    for text in messages:
        key = line(text)
        counts[key] = counts.get(key, 0) + 1
    return max(sorted(counts), key=lambda k: counts[k]) if counts else ""


def idle_tests(run: TestRun) -> str | None:
    """What kept a run's tests from running, for a skip that found nothing failing: ``"60 of 66 tests skipped
    ('Generate .mo with ...'); 15 errors ('fixture 'benchmark' not found')"``, the most common reason of each
    in brackets; None when every test ran (passed or failed). A FAIL_TO_PASS test needs to run both before and
    after the fix, so an environment that skips or errors them hides it (humanize's translations: 60 of 66
    skipped for want of compiled ``.mo`` files, the summary saying the environment was fine)."""
    total = len(run.outcomes)
    skipped = [k for k, v in run.outcomes.items() if v == "skipped"]
    errors = [k for k, v in run.outcomes.items() if v == "error"]
    parts = []
    if skipped:
        why = _common([run.skip_messages[k] for k in skipped if k in run.skip_messages])
        parts.append(f"{len(skipped)} of {total} tests skipped" + (f" ({why!r})" if why else ""))
    if errors:
        why = _common([run.failure_details.get(k) or run.error_messages.get(k, "") for k in errors])
        parts.append(f"{len(errors)} of {total} tests errored" + (f" ({why!r})" if why else ""))
    return "; ".join(parts) or None

"""One generation-time test run: a fresh container of the environment image, optionally the gold patch
(through the bundle's own ``solution/solve.sh``), then ``tests/verifier.py run``; outcomes from its JUnit XML."""

import json
from pathlib import Path

import docker

from .containers import MEMORY_MB, TaskContainer
from .errors import TestRunError
from .models import TestRun
from .verifier import parse_junit

JUNIT_PATH = "/tmp/r2e-junit.xml"
PREPARE_FAILED = 3  # verifier.py run's exit code when the test patch does not apply


class PatchDoesNotApply(TestRunError):
    """The gold or test patch does not apply at the base commit inside the image."""


def _why(code: int, out: str) -> str:
    """Why a run produced nothing: pytest's own exit code is inside verifier.py's JSON, the exec's is outside."""
    try:
        inner = json.loads(out.strip().splitlines()[-1]).get("exit_code", code)
    except (ValueError, IndexError, AttributeError):
        inner = code
    if inner in (-9, 137):
        return f"pytest was killed (exit {inner}): out of memory (the container has {MEMORY_MB} MB) or killed"
    if inner == 124 or code == 124:
        return "pytest hit the run timeout"
    return f"pytest exit {inner}"


def pinned_plugins(client: docker.DockerClient, image: str, bundle_root: Path) -> list[str] | None:
    """The pytest plugin modules installed in ``image`` (``verifier.py plugins``): recorded in config.json so
    that every later run, and the grader, loads exactly these. None when they cannot be listed (then pytest
    auto-loads, as before)."""
    with TaskContainer(client, image) as box:
        box.put_dir(bundle_root / "tests", "/tests")
        code, out, _ = box.exec(["python3", "/tests/verifier.py", "plugins"], timeout_sec=120)
    try:
        return list(json.loads(out.strip().splitlines()[-1])) if code == 0 else None
    except (ValueError, IndexError):
        return None


def python_env_snapshot(client: docker.DockerClient, image: str, bundle_root: Path) -> str | None:
    """``env_guard.py snapshot`` in a fresh container of ``image``: the Python environment the grader checks
    against (``tests/python_env.json``). None when it cannot be taken (the check is then skipped)."""
    with TaskContainer(client, image) as box:
        box.put_dir(bundle_root / "tests", "/tests")
        code, out, _ = box.exec(["python3", "-I", "-S", "/tests/env_guard.py", "snapshot"], timeout_sec=300,
                                tail=None)
    if code != 0:
        return None
    try:
        json.loads(out)
    except ValueError:
        return None
    return out.strip() + "\n"


def run_tests(client: docker.DockerClient, image: str, bundle_root: Path, label: str, *,
              extra_hosts: dict[str, str], timeout_sec: float) -> TestRun:
    """Run the tests once; ``label`` is ``before`` (test patch only) or ``after`` (plus the gold patch).

    Raises ``PatchDoesNotApply`` or ``TestRunError`` (no JUnit XML: pytest could not start).
    """
    with TaskContainer(client, image, extra_hosts=extra_hosts) as box:
        if label == "after":
            box.put_dir(bundle_root / "solution", "/solution")
            code, out, _ = box.exec(["bash", "/solution/solve.sh"], timeout_sec=300)
            if code != 0:
                raise PatchDoesNotApply(f"gold patch does not apply: {out.strip()[-300:]}")
        box.put_dir(bundle_root / "tests", "/tests")
        cmd = ["python3", "/tests/verifier.py", "run", "--tests-dir", "/tests", "--junit", JUNIT_PATH]
        code, out, seconds = box.exec(cmd, timeout_sec=timeout_sec + 60)
        if code == PREPARE_FAILED:
            raise PatchDoesNotApply(f"test patch does not apply: {out.strip()[-300:]}")
        xml = box.read_file(JUNIT_PATH)
        if xml is None:
            raise TestRunError(f"pytest wrote no JUnit XML ({_why(code, out)}): {out.strip()[-300:]}")
    outcomes, collection_errors = parse_junit(xml.decode("utf-8", errors="replace"))
    return TestRun(label=label, outcomes=outcomes, collection_errors=tuple(collection_errors), exit_code=code,
                   seconds=round(seconds, 3))

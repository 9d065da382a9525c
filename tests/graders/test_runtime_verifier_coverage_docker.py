"""A project whose pytest configuration turns coverage on (``addopts = --cov=pkg``, pytest-cov installed), graded in
a real container as the runner user, who may not write coverage's data file in the workspace: the tests still run
and are graded (python-semver's pr#156 was rejected as oracle_failed: pytest-cov stopped every graded run with an
INTERNALERROR before any test ran)."""

import io
import json
import tarfile
from pathlib import Path

import pytest

from repo2env.environment.containers import TaskContainer
from repo2env.graders import runtime_verifier as verifier

pytestmark = pytest.mark.docker

PROJECT = {
    "pkg/__init__.py": "def area(w, h):\n    return w * h\n",
    "tests/test_a.py": "from pkg import area\n\n\ndef test_area():\n    assert area(2, 3) == 6\n\n\n"
                       "def test_wrong():\n    assert area(2, 2) == 5\n",
    "setup.cfg": "[tool:pytest]\naddopts = --cov=pkg --cov-report=term\n",
}

GRADE = """
import json, sys
sys.path.insert(0, "/grader")
import runtime_verifier as v
plugins = None if sys.argv[1] == "-" else json.loads(sys.argv[1])
code, _, tail = v.run_pytest("/workspace", ["tests/test_a.py"], "/reports/junit.xml", 120, plugins=plugins,
                             runner_uid=v.RUNNER_UID)
print(json.dumps([code, tail]))
"""


def _tar(files: dict) -> bytes:
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w") as tar:
        for name, text in files.items():
            raw = text.encode()
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(raw), 0o644
            tar.addfile(info, io.BytesIO(raw))
    return data.getvalue()


@pytest.fixture(scope="module")
def box(docker_client):
    with TaskContainer(docker_client, "python:3.12-slim") as box:
        code, out, _ = box.exec(["python", "-m", "pip", "install", "-q", "pytest", "pytest-cov"], timeout_sec=600)
        assert code == 0, out
        box.put_tars({"/workspace": _tar(PROJECT), "/grader": _tar({
            "runtime_verifier.py": Path(verifier.__file__).read_text(), "grade.py": GRADE,
            "env_guard.py": (Path(verifier.__file__).parent / "env_guard.py").read_text()})})
        yield box


@pytest.mark.parametrize("plugins", [None, ["pytest_cov.plugin"]], ids=["autoload", "recorded"])
def test_coverage_on_in_the_projects_addopts_does_not_stop_the_graded_run(box, plugins):
    box.exec(["sh", "-c", "rm -rf /reports /workspace/.coverage* && mkdir /reports && chmod -R a+rX /workspace"])
    code, out, _ = box.exec(["python", "/grader/grade.py", "-" if plugins is None else json.dumps(plugins)])
    assert code == 0, out
    exit_code, tail = json.loads(out.strip().splitlines()[-1])
    assert "INTERNALERROR" not in tail, tail
    report = box.read_file("/reports/junit.xml").decode()
    assert 'name="test_area"' in report and report.count("<failure") == 1 and 'name="test_wrong"' in report, report
    assert exit_code == 1  # one test failed: pytest's own verdict, not an internal error (3)
    assert box.exec(["test", "-e", "/workspace/.coverage"])[0] != 0

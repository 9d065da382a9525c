"""repo2env/bundles/bootstrap.py, the program test.sh hands the interpreter: it runs pinned grader files from
memory, and writes reward 0 when a file differs from its pin, when the budget runs out or when the grader dies.
Run here on the host without R2E_IN_TASK_CONTAINER, so it kills nothing."""

import json
import os
import subprocess
import sys
from pathlib import Path

from repo2env.bundles import bootstrap


def _run(tests: Path, logs: Path, budget: int = 30, pins: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "R2E_IN_TASK_CONTAINER"}
    pins = pins or bootstrap.pins(tests, ["helper.py", "main.py"]).replace("/tests/", str(tests) + "/")
    return subprocess.run([sys.executable, "-I", "-S", "-", str(budget), str(logs), pins, str(tests / "main.py"),
                           "grade", "--flag"], input=bootstrap.program(), text=True, capture_output=True, env=env,
                          timeout=120)


def _grader(tests: Path, main_body: str) -> None:
    tests.mkdir(parents=True, exist_ok=True)
    (tests / "helper.py").write_text("VALUE = 'from the pinned helper'\n")
    (tests / "main.py").write_text("import sys\nimport helper\n" + main_body)


def test_pinned_files_run_from_memory_with_their_arguments(tmp_path):
    tests, logs = tmp_path / "tests", tmp_path / "logs"
    _grader(tests, "open(%r, 'w').write(helper.VALUE + ' ' + ' '.join(sys.argv[1:]))\n" % str(tmp_path / "out.txt"))
    done = _run(tests, logs)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out.txt").read_text() == "from the pinned helper grade --flag"
    assert not (logs / "reward.txt").exists()  # the grader writes the reward; the bootstrap only on failure


def test_a_grader_file_changed_after_pinning_grades_zero_and_never_runs(tmp_path):
    tests, logs = tmp_path / "tests", tmp_path / "logs"
    _grader(tests, "open(%r, 'w').write('ran')\n" % str(tmp_path / "ran.txt"))
    pins = bootstrap.pins(tests, ["helper.py", "main.py"]).replace("/tests/", str(tests) + "/")
    (tests / "helper.py").write_text("VALUE = 'swapped'\nopen(%r, 'w').write('1')\n" % str(logs / "reward.txt"))
    (logs / "reward.txt").mkdir(parents=True)  # a folder planted in the reward's place is removed too
    _run(tests, logs, pins=pins)
    assert (logs / "reward.txt").read_text() == "0\n" and not (tmp_path / "ran.txt").exists()
    assert "helper.py is not the file this task was generated with" in json.loads(
        (logs / "reward-details.json").read_text())["error"]


def test_the_budget_and_a_dying_grader_both_grade_zero(tmp_path):
    tests, logs = tmp_path / "tests", tmp_path / "logs"
    _grader(tests, "import time\ntime.sleep(60)\n")
    done = _run(tests, logs, budget=2)
    assert (logs / "reward.txt").read_text() == "0\n", done.stderr
    assert "ran out of its 2 s" in (logs / "reward-details.json").read_text()
    _grader(tests, "raise KeyError('boom')\n")
    _run(tests, logs)
    assert "KeyError" in json.loads((logs / "reward-details.json").read_text())["error"]


def test_restamp_pins_the_grader_files_anew(tmp_path):
    from repo2env.bundles.inputs import restamp
    tests = tmp_path / "bundle" / "tests"
    _grader(tests, "pass\n")
    old = bootstrap.pins(tests, ["helper.py", "main.py"])
    (tests / "test.sh").write_text("run - 10 /logs %s /tests/main.py grade\n" % old)
    (tests / "main.py").write_text("print('edited')\n")
    assert restamp(tmp_path / "bundle")
    text = (tests / "test.sh").read_text()
    assert old not in text and bootstrap.pins(tests, ["helper.py", "main.py"]) in text

"""repo2env/verifier.py: JUnit parsing against real pytest output, node ids, scoring, and the grade command."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from repo2env.graders import runtime_verifier as verifier
from tests.helpers.repos import commit_files, git

TRICKY_TESTS = '''\
import unittest
import pytest


class TestOuter:
    class TestInner:
        def test_inner(self):
            pass

    def test_method_fails(self):
        assert False


@pytest.mark.parametrize("x", [1, 2, 3], ids=["one kilo byte", "two [x] 'q'", 'dq "x"'])
def test_param(x):
    assert x != 2


def test_skipped():
    pytest.skip("not here")


class TestSub(unittest.TestCase):
    def test_subtests(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertLess(i, 2)
'''


def run_real_pytest(tree: Path) -> str:
    junit = tree / "junit.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-o", "junit_family=xunit1",
                    f"--junitxml={junit}", "--continue-on-collection-errors", "-q", "tests"], cwd=tree,
                   capture_output=True)
    return junit.read_text()


def test_parse_junit_real_pytest_output(tmp_path):
    (tmp_path / "tests" / "sub").mkdir(parents=True)
    (tmp_path / "tests" / "test_tricky.py").write_text(TRICKY_TESTS)
    (tmp_path / "tests" / "sub" / "test_broken.py").write_text("import no_such_module_anywhere\n")
    outcomes, collection_errors = verifier.parse_junit(run_real_pytest(tmp_path))
    assert outcomes == {
        "tests/test_tricky.py::TestOuter::TestInner::test_inner": "passed",
        "tests/test_tricky.py::TestOuter::test_method_fails": "failed",
        "tests/test_tricky.py::test_param[one kilo byte]": "passed",
        "tests/test_tricky.py::test_param[two [x] 'q']": "failed",
        'tests/test_tricky.py::test_param[dq "x"]': "passed",
        "tests/test_tricky.py::test_skipped": "skipped",
        "tests/test_tricky.py::TestSub::test_subtests": "failed",
    }
    assert collection_errors == ["tests/sub/test_broken.py"]


def test_worst_outcome_wins_for_repeated_node_ids():
    xml = ('<testsuites><testsuite>'
           '<testcase classname="t" name="test_a" file="t.py"/>'
           '<testcase classname="t" name="test_a" file="t.py"><failure message="x"/></testcase>'
           '<testcase classname="t" name="test_a" file="t.py"/>'
           '</testsuite></testsuites>')
    assert verifier.parse_junit(xml) == ({"t.py::test_a": "failed"}, [])


def test_parse_junit_rejects_non_xml():
    with pytest.raises(ValueError, match="not JUnit XML"):
        verifier.parse_junit("this is a log, not XML")


def test_node_id_with_dotted_directory():
    assert verifier.testcase_node_id("pkg.v1.tests.test_m.TestA", "test_x[a.b]", "pkg/v1/tests/test_m.py") == \
        "pkg/v1/tests/test_m.py::TestA::test_x[a.b]"


def test_score_is_binary_and_counts():
    outcomes = {"a": "passed", "b": "passed", "c": "failed"}
    assert verifier.score(outcomes, ["a"], ["b"])[0] == 1.0
    reward, details = verifier.score(outcomes, ["a", "c"], ["b", "missing"])
    assert reward == 0.0
    assert details["fail_to_pass_passed"] == 1 and details["pass_to_pass_passed"] == 1
    assert details["not_passed"] == ["c", "missing"]


def test_grade_targets_fall_back_to_files_for_huge_id_lists():
    ids = [f"tests/test_{i % 3}.py::test_{i}" + "x" * 200 for i in range(1000)]
    assert verifier.grade_targets(ids) == ["tests/test_0.py", "tests/test_1.py", "tests/test_2.py"]
    assert verifier.grade_targets(ids[:3]) == ids[:3]


def _workspace_with_fix(new_repo):
    """A repo at its base commit, and the test patch / gold patch of a fix, as a bundle's tests dir would hold."""
    repo = new_repo("ws")
    base = commit_files(repo, "base", {
        "mod.py": "def f():\n    return 1\n", "tests/test_mod.py": "from mod import f\n\ndef test_old():\n    assert f()\n"})
    commit_files(repo, "fix", {"mod.py": "def f():\n    return 2\n", "tests/test_mod.py":
                               "from mod import f\n\ndef test_old():\n    assert f()\n\ndef test_two():\n    assert f() == 2\n"})
    test_patch = git(repo, "diff", "--binary", "--full-index", base, "HEAD", "--", "tests")
    gold_patch = git(repo, "diff", "--binary", "--full-index", base, "HEAD", "--", "mod.py")
    git(repo, "checkout", "-q", base)
    return repo, base, test_patch, gold_patch


def _tests_dir(tmp_path, repo, base, test_patch):
    tests = tmp_path / "tests_dir"
    tests.mkdir()
    (tests / "test.patch").write_text(test_patch)
    (tests / "f2p.json").write_text(json.dumps(["tests/test_mod.py::test_two"]))
    (tests / "p2p.json").write_text(json.dumps(["tests/test_mod.py::test_old"]))
    (tests / "config.json").write_text(json.dumps({
        "workspace": str(repo), "base_commit": base, "test_patch": "test.patch", "config_patch": None,
        "restore_paths": ["tests/test_mod.py"], "remove_paths": [], "run_targets": ["tests/test_mod.py"],
        "timeout_sec": 120}))
    return tests


def test_grade_nop_scores_zero_and_gold_scores_one(tmp_path, new_repo):
    repo, base, test_patch, gold_patch = _workspace_with_fix(new_repo)
    tests = _tests_dir(tmp_path, repo, base, test_patch)
    logs = tmp_path / "logs"
    (logs / "reward.txt").mkdir(parents=True)  # a forged reward, even as a directory, is removed first
    verifier.main(["grade", "--tests-dir", str(tests), "--logs-dir", str(logs)])
    assert (logs / "reward.txt").read_text() == "0.0\n"
    details = json.loads((logs / "reward-details.json").read_text())
    assert details["fail_to_pass_passed"] == 0 and details["pass_to_pass_passed"] == 1

    git(repo, "checkout", "-q", "--", ".")
    (repo / "tests" / "test_mod.py").write_text("def test_two():\n    assert True\n")  # tampered test file
    (repo / "conftest.py").write_text("raise SystemExit('planted conftest must be removed')\n")
    subprocess.run(["git", "-C", str(repo), "apply", "-"], input=gold_patch, text=True, check=True)
    verifier.main(["grade", "--tests-dir", str(tests), "--logs-dir", str(logs)])
    assert (logs / "reward.txt").read_text() == "1.0\n"
    assert not (repo / "conftest.py").exists()


def test_grade_writes_zero_when_config_is_broken(tmp_path):
    tests = tmp_path / "tests_dir"
    tests.mkdir()
    (tests / "config.json").write_text("{not json")
    logs = tmp_path / "logs"
    assert verifier.main(["grade", "--tests-dir", str(tests), "--logs-dir", str(logs)]) == 0
    assert (logs / "reward.txt").read_text() == "0.0\n"
    assert "error" in json.loads((logs / "reward-details.json").read_text())


def test_verifier_is_stdlib_only():
    source = Path(verifier.__file__).read_text()
    imported = {line.split()[1].split(".")[0] for line in source.splitlines()
                if line.startswith(("import ", "from "))}
    assert imported <= set(sys.stdlib_module_names), imported - set(sys.stdlib_module_names)

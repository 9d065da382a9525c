"""repo2env/graders/runtime_verifier.py: JUnit parsing against real pytest output, node ids, scoring, the workspace
prepared without git, sentinels, the inputs digest, and the grade command (run here on the host, as the calling
user)."""

import json
import os
import random
import re
import signal
import struct
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


def test_the_statuses_digest_tells_a_failed_test_from_a_missing_one():
    """Two gradings with the same ids not passed differ when one test failed in one and was never reported in
    the other (a replaced runner's forged report), and agree when every graded outcome is the same."""
    failed = verifier.score({"a": "failed", "b": "passed"}, ["a"], ["b"])[1]["statuses_sha256"]
    missing = verifier.score({"b": "passed"}, ["a"], ["b"])[1]["statuses_sha256"]
    again = verifier.score({"b": "passed", "a": "failed", "z": "passed"}, ["a"], ["b"])[1]["statuses_sha256"]
    assert failed != missing and failed == again and len(failed) == 64
    # a sentinel's outcome counts too: a flipped sentinel is told apart even when the first one reads the same
    nop = verifier.score({"a": "failed", "s1": "failed"}, ["a"], [], ["s1", "s2"])[1]["statuses_sha256"]
    flipped = verifier.score({"a": "failed", "s1": "failed", "s2": "passed"}, ["a"], [], ["s1", "s2"])[1]
    assert nop != flipped["statuses_sha256"]


def test_grading_runs_files_never_node_ids():
    ids = [f"tests/test_{i % 3}.py::test_{i}" + "x" * 200 for i in range(1000)]
    assert verifier.grade_files(ids) == ["tests/test_0.py", "tests/test_1.py", "tests/test_2.py"]


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


HEAD_TEST = "from mod import f\n\ndef test_old():\n    assert f()\n\ndef test_two():\n    assert f() == 2\n"


def _tests_dir(tmp_path, repo, base, test_patch, *, sentinels=3):
    """A bundle's tests dir for the fix: the overlay holds the test file as of the fix, base_files the base tree."""
    tests = tmp_path / "tests_dir"
    (tests / "overlay" / "tests").mkdir(parents=True)
    (tests / "overlay" / "tests" / "test_mod.py").write_text(HEAD_TEST)
    (tests / "f2p.json").write_text(json.dumps(["tests/test_mod.py::test_two"]))
    (tests / "p2p.json").write_text(json.dumps(["tests/test_mod.py::test_old"]))
    entries = {}
    for line in git(repo, "ls-tree", "-r", base).splitlines():
        meta, path = line.split("\t")
        mode, _, sha = meta.split()
        entries[path] = f"{mode} {sha}"
    (tests / "base_files.json").write_text(json.dumps(entries))
    (tests / "config.json").write_text(json.dumps({
        "workspace": str(repo), "base_commit": base, "overlay": {"write": {"tests/test_mod.py": "644"}, "delete": []},
        "run_targets": ["tests/test_mod.py"], "timeout_sec": 120, "runner_user": None, "sentinels": sentinels}))
    return tests


def _grade(tests, logs, digest=None) -> dict:
    args = ["grade", "--tests-dir", str(tests), "--logs-dir", str(logs)]
    assert verifier.main(args + (["--inputs-sha256", digest] if digest else [])) == 0
    details = json.loads((logs / "reward-details.json").read_text())
    assert (logs / "reward.txt").read_text() == f"{details['reward']}\n"
    return details


def test_grade_nop_scores_zero_and_gold_scores_one(tmp_path, new_repo):
    repo, base, test_patch, gold_patch = _workspace_with_fix(new_repo)
    tests = _tests_dir(tmp_path, repo, base, test_patch)
    logs = tmp_path / "logs"
    (logs / "reward.txt").mkdir(parents=True)  # a forged reward, even as a directory, is removed first
    details = _grade(tests, logs)
    assert details["reward"] == 0.0 and details["fail_to_pass_passed"] == 0 and details["pass_to_pass_passed"] == 1

    git(repo, "checkout", "-q", "--", ".")
    (repo / "tests" / "test_mod.py").write_text("def test_two():\n    assert True\n")  # tampered test file
    (repo / "conftest.py").write_text("raise SystemExit('planted conftest must be removed')\n")
    (repo / "tests" / "conftest.py").write_text("raise SystemExit('planted, then git-added')\n")
    git(repo, "add", "tests/conftest.py")  # the index is the agent's: it does not make a file part of the base
    subprocess.run(["git", "-C", str(repo), "apply", "-"], input=gold_patch, text=True, check=True)
    details = _grade(tests, logs)
    # a sentinel copied from the PASS_TO_PASS test beside it; the FAIL_TO_PASS test's twin in a session of its own
    assert details["reward"] == 1.0 and details["sentinels"] == 1 and details["twins"] == 1, details
    assert details["sessions"] == 2, details
    assert not (repo / "conftest.py").exists() and not (repo / "tests" / "conftest.py").exists()


def test_a_runner_that_reports_every_test_passed_is_caught_by_the_sentinels(tmp_path, new_repo):
    """The code under test changes how pytest reports (here: a plugin in the package the tests import): every
    failure becomes a pass. The graded tests then look solved, but the sentinel does too, and that grades 0."""
    repo, base, test_patch, _ = _workspace_with_fix(new_repo)
    tests = _tests_dir(tmp_path, repo, base, test_patch)
    (repo / "mod.py").write_text(
        "import _pytest.reports\n"
        "_real = _pytest.reports.TestReport.__init__\n"
        "def _forced(self, *a, **k):\n"
        "    _real(self, *a, **k)\n"
        "    self.outcome = 'passed'\n"
        "    self.longrepr = None\n"
        "_pytest.reports.TestReport.__init__ = _forced\n"
        "def f():\n    return 1\n")
    details = _grade(tests, tmp_path / "logs")
    assert details["reward"] == 0.0 and "sentinel" in details["tampering"], details
    assert details["audit"] == {"mod.py": ["_pytest", "TestReport"]}
    weak = _tests_dir(tmp_path / "weak", repo, base, test_patch, sentinels=0)
    assert _grade(weak, tmp_path / "weak-logs")["reward"] == 1.0  # without sentinels the forgery wins


def test_inputs_rewritten_after_upload_grade_zero(tmp_path, new_repo):
    repo, base, test_patch, gold_patch = _workspace_with_fix(new_repo)
    tests = _tests_dir(tmp_path, repo, base, test_patch)
    digest = verifier.inputs_digest(str(tests))
    subprocess.run(["git", "-C", str(repo), "apply", "-"], input=gold_patch, text=True, check=True)
    assert _grade(tests, tmp_path / "logs", digest)["reward"] == 1.0
    (tests / "f2p.json").write_text("[]")  # a leftover process empties the lists once Harbor uploaded them
    (tests / "p2p.json").write_text("[]")
    details = _grade(tests, tmp_path / "logs", digest)
    assert details["reward"] == 0.0 and "not the ones this task was generated with" in details["error"]


def test_empty_grading_lists_never_score(tmp_path, new_repo):
    repo, base, test_patch, _ = _workspace_with_fix(new_repo)
    tests = _tests_dir(tmp_path, repo, base, test_patch)
    (tests / "f2p.json").write_text("[]")
    (tests / "p2p.json").write_text("[]")
    assert _grade(tests, tmp_path / "logs")["reward"] == 0.0


def test_inherited_test_methods_get_the_collected_file(tmp_path):
    """``TestChild(Base)`` with ``Base`` in another module: JUnit's ``file`` is where the method is defined;
    the node id must name the file pytest collected (and can re-select)."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "base.py").write_text("class Base:\n    def test_shared(self):\n        assert True\n")
    (tmp_path / "tests" / "test_child.py").write_text("from tests.base import Base\n\nclass TestChild(Base):\n"
                                                      "    pass\n")
    (tmp_path / "tests" / "__init__.py").write_text("")
    xml = run_real_pytest(tmp_path)
    assert 'file="tests/base.py"' in xml
    outcomes, _ = verifier.parse_junit(xml, str(tmp_path))
    assert outcomes == {"tests/test_child.py::TestChild::test_shared": "passed"}


def test_a_conftest_that_breaks_collection_counts_every_target_as_failing(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "conftest.py").write_text("from mod import name_the_fix_adds\n")
    (tmp_path / "tests" / "test_a.py").write_text("def test_a():\n    pass\n")
    folder = tmp_path / "junit"
    folder.mkdir()
    code, _, tail = verifier.run_pytest(str(tmp_path), ["tests/test_a.py"], str(folder / "junit.xml"), 60)
    outcomes, errors, messages = verifier.collect(str(tmp_path), str(folder / "junit.xml"), code,
                                                  ["tests/test_a.py"], tail)
    assert (outcomes, errors) == ({}, ["tests/test_a.py"])
    assert "ModuleNotFoundError" in messages["tests/test_a.py"] or "ImportError" in messages["tests/test_a.py"]


def test_required_plugins_in_the_project_config_do_not_stop_a_pinned_run(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\nrequired_plugins = pytest-such-plugin-does-not-exist\n")
    (tmp_path / "test_a.py").write_text("def test_a():\n    pass\n")
    junit = tmp_path / "junit.xml"
    verifier.run_pytest(str(tmp_path), ["test_a.py"], str(junit), 60, plugins=[])
    assert verifier.parse_junit(junit.read_text(), str(tmp_path))[0] == {"test_a.py::test_a": "passed"}


def test_sentinel_copies_a_real_test_and_fails_whatever_the_code_does():
    """The copy's one change is random and either way (up or down, a character in or out), so two tests that
    differ in it do not say which is the copy; a raises block expects an exception unrelated to the original's."""
    source = "def test_size():\n    assert parse('1 KB') == 1024\n"
    made = {verifier.sentinel_source(source, "test_size_edge", random.Random(seed)) for seed in range(40)}
    values = {int(text.rsplit("== ", 1)[1]) for text in made}
    assert values == {1021, 1022, 1023, 1025, 1026, 1027}
    assert all(text.startswith("def test_size_edge():\n    assert parse('1 KB') == ") for text in made)
    words = {verifier._perturbed("abc", random.Random(seed)) for seed in range(60)}
    assert "abc" not in words and {len(w) for w in words} == {2, 3, 4}
    raising = {verifier.sentinel_source("def test_x(tmp_path):\n    with pytest.raises(KeyError, match='k'):\n"
                                        "        g()\n", "test_x_again", random.Random(seed)) for seed in range(40)}
    expected = {text.split("pytest.raises(")[1].split(",")[0] for text in raising}
    assert expected and not expected & {"KeyError", "LookupError", "Exception", "BaseException"}
    assert all("match='k'):\n        g()" in text for text in raising)
    custom = verifier.sentinel_source("def test_p():\n    with pytest.raises(errors.ParseError):\n        p()\n",
                                      "test_p_b", random.Random(1))
    assert custom.split("pytest.raises(")[1].split(")")[0] in verifier.RARE_EXCEPTIONS
    fallback = verifier.sentinel_source("def test_y():\n    assert g()\n", "test_y_more")
    assert fallback == "def test_y_more():\n    assert not g()"  # a bare check negated in place
    appended = verifier.sentinel_source("def test_z():\n    g()\n", "test_z_more")
    assert appended == "def test_z_more():\n    g()\n    assert len('test_z_more') == 12"


def test_sentinel_names_come_from_the_module_vocabulary_not_from_one_test():
    source = "def test_divide_by_zero():\n    pass\n\n\ndef test_add_numbers():\n    pass\n"
    taken = {"test_divide_by_zero", "test_add_numbers"}
    for seed in range(50):
        name = verifier._sentinel_name(source, taken, random.Random(seed))
        words = name[len("test_"):].split("_")
        assert name not in taken and 2 <= len(words) <= 3
        assert set(words) <= {"divide", "by", "zero", "add", "numbers", "case", "value", "again", "other", "more"}
        assert not any(name.startswith(t + "_") for t in taken)


def test_sentinels_are_named_in_a_module_whose_test_is_named_test(tmp_path):
    """A unittest class with a method named plain ``test`` (as real repositories have) prefixes every candidate
    name ``test_<word>``: the namer must still return, with names no test of the module has (it looped forever,
    and the grader timed out on the oracle)."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_cls.py").write_text(
        "import unittest\n\n\nclass CachedTest(unittest.TestCase):\n    def test(self):\n        pass\n\n"
        "    def test_locked(self):\n        pass\n\n    def test_typed(self):\n        pass\n")
    signal.signal(signal.SIGALRM, lambda *_: pytest.fail("plant_sentinels did not return"))
    signal.alarm(10)
    try:
        planted = verifier.plant_sentinels(str(tmp_path), ["tests/test_cls.py"], 3, random.Random(1))
    finally:
        signal.alarm(0)
    assert len(planted) == 1 and planted[0].startswith("tests/test_cls.py::CachedTest::test_")  # a sibling method
    name = planted[0].split("::")[2]
    assert name not in {"test", "test_locked", "test_typed"}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_cls.py"],
                         cwd=tmp_path, capture_output=True, text=True)
    assert "1 failed, 3 passed" in run.stdout, run.stdout


def test_sentinels_copy_a_graded_test_and_sit_next_to_it(tmp_path):
    """The sentinel copies a FAIL_TO_PASS test (its constant perturbed, nothing else changed) and is placed right
    before or right after it: a runner changed to report every test passed except those with a near-copy still
    leaves the graded original failing, and the order does not say which of the two is the copy."""
    source = ("from m import a, b, c\n\n\ndef test_b():\n    assert b() == 20\n\n\n"
              "def test_a():\n    assert a() == 10\n\n\ndef test_c():\n    assert c() == 30\n")
    places = set()
    for seed in range(20):
        (tmp_path / "t.py").write_text(source)
        [node] = verifier.plant_sentinels(str(tmp_path), ["t.py"], 1, random.Random(seed),
                                             fail_to_pass=["t.py::test_a"], graded={"t.py::test_a"})
        planted = (tmp_path / "t.py").read_text()
        names = re.findall(r"^def (\w+)", planted, re.M)
        sentinel = node.split("::")[1]
        [changed] = re.findall(r"def %s\(\):\n    assert a\(\) == (-?\d+)\n" % sentinel, planted)
        assert int(changed) != 10
        assert planted.replace("def %s():\n    assert a() == %s\n" % (sentinel, changed), "").split() == source.split()
        assert abs(names.index(sentinel) - names.index("test_a")) == 1
        places.add(names.index(sentinel) - names.index("test_a"))
    assert places == {-1, 1}


def test_parametrized_and_class_tests_get_a_copy_of_their_own(tmp_path):
    """A runner changed to pass every failing test that has no near-copy (a parametrized test, a method of a
    class: none had one) must not be a way to flip the graded ones: each FAIL_TO_PASS test function gets a copy,
    decorators and class kept, and every case of it fails with the reference while the originals pass."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "m.py").write_text("def a(x):\n    return x * 2\n")
    (tmp_path / "tests" / "test_t.py").write_text(
        "import pytest\nfrom m import a\n\n\n@pytest.mark.parametrize('x, y', [(1, 2), (2, 4)])\n"
        "def test_a(x, y):\n    assert a(x) == y\n\n\nclass TestA:\n    def test_three(self):\n"
        "        assert a(3) == 6\n")
    f2p = ["tests/test_t.py::test_a[1-2]", "tests/test_t.py::test_a[2-4]", "tests/test_t.py::TestA::test_three"]
    planted = verifier.plant_sentinels(str(tmp_path), ["tests/test_t.py"], 1, random.Random(3), fail_to_pass=f2p,
                                       graded=set(f2p))
    assert len(planted) == 2 and sum(p.startswith("tests/test_t.py::TestA::test_") for p in planted) == 1
    (tmp_path / "tests" / "conftest.py").write_text("import sys\nsys.path.insert(0, %r)\n" % str(tmp_path))
    outcomes, _ = verifier.parse_junit(run_real_pytest(tmp_path), str(tmp_path))
    cases = verifier.sentinel_cases(planted, outcomes)
    parametrized = [s for s in planted if "TestA" not in s][0]
    assert len(cases[parametrized]) == 2 and all(outcomes[k] == "failed" for s in planted for k in cases[s])
    assert all(outcomes[t] == "passed" for t in f2p)


def test_a_sentinel_never_rests_on_a_check_a_passing_test_may_skip(tmp_path):
    """Asserts nested in a branch, a loop or a helper may not run in a test that passes: a sentinel whose changed
    expectation sat there would pass honestly and grade an honest solution 0 for "tampering"; one followed by
    clean-up would leave state behind when it fails, and break the tests after it (a real repository's encoder
    tests did). Every sentinel planted in such a module, whatever the seed, fails and every real test still
    passes; tests outside the graded ones are never copied."""
    source = ("import pytest\n\n\ndef test_branch():\n    x = 1\n    if x > 5:\n        assert x == 7\n\n\n"
              "def test_loop():\n    for item in []:\n        assert item == 3\n    assert len([]) == 0\n\n\n"
              "def test_early():\n    assert 1\n    return\n    assert 2 == 2\n\n\n"
              "def test_raises_nested():\n    if False:\n        with pytest.raises(ValueError):\n"
              "            int('x')\n\n\ndef test_not_graded():\n    assert 5 == 5\n\n\nREGISTRY = []\n\n\n"
              "def test_cleans_up():\n    REGISTRY.append(1)\n    assert len(REGISTRY) == 1\n    REGISTRY.clear()\n\n\n"
              "def test_registry_empty():\n    assert REGISTRY == []\n")
    graded = {"t.py::test_branch", "t.py::test_loop", "t.py::test_early", "t.py::test_raises_nested",
              "t.py::test_cleans_up", "t.py::test_registry_empty"}
    for seed in range(12):
        (tmp_path / "t.py").write_text(source)
        planted = verifier.plant_sentinels(str(tmp_path), ["t.py"], 2, random.Random(seed), graded=graded)
        assert "assert 5 == 6" not in (tmp_path / "t.py").read_text()
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "t.py"],
                             cwd=tmp_path, capture_output=True, text=True)
        assert "%d failed, 7 passed" % len(planted) in run.stdout, (seed, run.stdout)


SWALLOW_ALL = ("import contextlib\nimport pytest\npytest.raises = lambda *a, **k: "
               "contextlib.suppress(BaseException)\n")
ACCEPT_ANY = ("import sys as _s\n_p = _s.modules.get('pytest')\nif _p is not None:\n"
              "    _RC = type(_p.raises(Exception))\n    _orig = _RC.__exit__\n"
              "    def _exit(self, et, ev, tb, _orig=_orig):\n        if et is None:\n"
              "            return _orig(self, et, ev, tb)\n        return True\n    _RC.__exit__ = _exit\n")


@pytest.mark.parametrize("weakening", [SWALLOW_ALL, ACCEPT_ANY], ids=["suppress-everything", "accept-any-exception"])
def test_a_weakened_pytest_raises_in_the_code_under_test_is_caught(tmp_path, new_repo, weakening):
    """The package the tests import weakens ``pytest.raises`` (replaced by a context manager that swallows
    everything, or its ``__exit__`` made to accept whatever is raised): a test expecting ValueError passes on a
    ZeroDivisionError, without the fix. The sentinel copied from it expects an unrelated exception and passes
    too, which grades 0."""
    repo = new_repo("raises")
    base = commit_files(repo, "base", {"mod.py": "def f(x):\n    return 1 / x\n",
                                       "tests/test_mod.py": "from mod import f\n\ndef test_old():\n    assert f(1)\n"})
    (repo / "mod.py").write_text(weakening + "\n\ndef f(x):\n    return 1 / x\n")
    tests = _tests_dir(tmp_path, repo, base, "")
    (tests / "overlay" / "tests" / "test_mod.py").write_text(
        "import pytest\nfrom mod import f\n\ndef test_old():\n    assert f(1)\n\n\n"
        "def test_two():\n    with pytest.raises(ValueError):\n        f(0)\n")
    details = _grade(tests, tmp_path / "logs")
    # no PASS_TO_PASS raises block to copy: the raises sentinel of its own (KeyError around int('...')) passes
    assert details["reward"] == 0.0 and "sentinel" in details["tampering"], details


def test_a_planted_package_marker_does_not_shelter_a_shadowing_module(tmp_path):
    """An ``__init__.py`` the agent adds (here at the workspace root) does not make its folder a package: a
    module there that shadows a standard one is still removed, and so is the marker."""
    (tmp_path / "pkg").mkdir()
    for rel in ("__init__.py", "pprint.py", "pkg/__init__.py", "pkg/json.py", "tools/json.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    base = {"pkg/__init__.py": "100644 x", "pkg/json.py": "100644 y"}
    assert verifier.planted_files(str(tmp_path), base, []) == ["__init__.py", "pprint.py", "tools/json.py"]



def test_sourceless_and_compiled_shadows_go_and_a_new_subpackage_of_the_fix_stays(tmp_path):
    """A ``pytest.pyc`` or an extension ``json.cpython-312-x86_64-linux-gnu.so`` at the root shadows as well as a
    ``.py`` does and is removed; a subpackage the fix adds under a base package (``calc/checks/types.py``) is
    a package, so its stdlib-named module is the fix's own and stays (removing it graded an honest fix 0)."""
    for rel in ("calc/__init__.py", "calc/checks/__init__.py", "calc/checks/types.py", "pytest.pyc",
                "json.cpython-312-x86_64-linux-gnu.so", "tests/types.pyc", "tests/test_calc.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(b"")
    base = {"calc/__init__.py": "100644 a", "tests/test_calc.py": "100644 b"}
    assert verifier.planted_files(str(tmp_path), base, []) == ["json.cpython-312-x86_64-linux-gnu.so", "pytest.pyc",
                                                             "tests/types.pyc"]


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


def test_code_that_uses_atexit_and_settrace_honestly_still_scores_one(tmp_path, new_repo):
    """A repository whose own code registers an atexit hook and traces calls (a profiler, a coverage helper) is
    graded like any other: the sentinels fail as they must, the fix scores 1.0, and the audit only flags it."""
    repo, base, test_patch, _ = _workspace_with_fix(new_repo)
    tests = _tests_dir(tmp_path, repo, base, test_patch)
    (repo / "mod.py").write_text(
        "import atexit\nimport sys\n\n_calls = []\natexit.register(_calls.clear)\n\n\n"
        "def _trace(frame, event, arg):\n    _calls.append(event)\n\n\n"
        "def f():\n    sys.settrace(_trace)\n    try:\n        return 2\n    finally:\n        sys.settrace(None)\n")
    details = _grade(tests, tmp_path / "logs")
    assert details["reward"] == 1.0 and details["sentinels"] == 1 and details["twins"] == 1, details
    assert details["audit"] == {"mod.py": ["sys.settrace", "atexit"]}


def test_a_legacy_pytest_section_of_setup_cfg_is_given_to_pytest_as_an_ini(tmp_path):
    ws, scratch = tmp_path / "ws", tmp_path / "scratch"
    ws.mkdir()
    scratch.mkdir()
    (ws / "setup.cfg").write_text("[wheel]\nuniversal = 1\n\n[pytest]\naddopts = -q\n    --strict\nmarkers =\n"
                                  "    slow: slow tests\n")
    ini = verifier.legacy_setup_cfg_ini(str(ws), str(scratch))
    assert Path(ini).read_text() == "[pytest]\naddopts = -q\n    --strict\nmarkers = \n    slow: slow tests\n"
    (ws / "pytest.ini").write_text("[pytest]\n")  # a configuration pytest reads first: nothing to do
    assert verifier.legacy_setup_cfg_ini(str(ws), str(scratch)) is None
    (ws / "pytest.ini").unlink()
    (ws / "setup.cfg").write_text("[tool:pytest]\naddopts = -q\n")
    assert verifier.legacy_setup_cfg_ini(str(ws), str(scratch)) is None


def test_a_sentinel_is_laid_out_and_written_like_the_file_it_joins(tmp_path):
    """Red-team: code under test read the graded file and spared tests that were ``ast.unparse``-normalised
    (quotes, spacing and comments gone) or stood between runs of 4 blank lines. A sentinel keeps its original's
    text but for its name and one constant, and the file's own gap between definitions."""
    import random
    import re

    from repo2env.graders.runtime_verifier import plant_sentinels

    source = ('from m import clamp, fmt\n\n\ndef test_inside():\n    # inside the range\n'
              '    assert clamp( 5, 0, 10 ) == 5\n\n\ndef test_name():\n    assert fmt("x") == "hello"\n')
    for seed in range(6):
        (tmp_path / "test_a.py").write_text(source)
        [node] = plant_sentinels(str(tmp_path), ["test_a.py"], 1, random.Random(seed))
        text = (tmp_path / "test_a.py").read_text()
        assert "\n\n\n\n" not in text and text.endswith("\n") and not text.endswith("\n\n")
        name = node.split("::")[1]
        body = re.search(r"def %s\(\):\n((?:    .*\n?)+)" % name, text).group(1)
        assert body.startswith("    # inside the range\n    assert clamp( 5, 0, 10 ) == ") or \
            re.fullmatch(r'    assert fmt\("x"\) == "[a-z]*"\n?', body), body


def test_pytest_configuration_above_the_workspace_is_removed(tmp_path):
    """pytest looks for its configuration from the tests up to /: the red team's ``/pytest.ini`` with
    ``addopts = -p flipper`` was read before the repository's own. Every test configuration name above the
    workspace goes; the workspace's own files stay."""
    ws = tmp_path / "a" / "workspace"
    (ws / "tests").mkdir(parents=True)
    (ws / "pytest.ini").write_text("[pytest]\n")
    for name in ("pytest.ini", "pytest.toml", "conftest.py"):
        (tmp_path / name).write_text("[pytest]\naddopts = -p flipper\n")
    (tmp_path / "a" / "tox.ini").write_text("[pytest]\n")
    (tmp_path / "a" / "notes.txt").write_text("kept\n")
    removed = verifier.remove_above(str(ws), verifier.TEST_CONFIG_NAMES)
    assert sorted(removed) == sorted([str(tmp_path / n) for n in ("pytest.ini", "pytest.toml", "conftest.py")]
                                     + [str(tmp_path / "a" / "tox.ini")])
    assert (ws / "pytest.ini").exists() and (tmp_path / "a" / "notes.txt").exists()


TWIN_FORMS = [  # (a graded test's last statements, what its twin may read; {} stands for the changed part)
    ("    assert parse('1 KB') == 1024\n", r"    assert parse\('1 KB'\) == (1021|1022|1023|1025|1026|1027)\n"),
    ("    assert f() == 0x1F\n", r"    assert f\(\) == 0x(1C|1D|1E|20|21|22)\n"),
    ("    assert f() == -1\n", r"    assert f\(\) == -(2|3|4)\n"),
    ("    assert f() == 2.50\n", r"    assert f\(\) == 2\.5[1-3]\n"),
    ("    assert f() == 2 * 1024\n", r"    assert f\(\) == ((1|3|4|5) \* 1024|2 \* 10(21|22|23|25|26|27))\n"),
    ("    assert f() == 0 * 5\n", r"    assert f\(\) == (1|2|3) \* 5\n"),  # 0 * 6 is still 0
    ("    assert f() == 'v1.2.3'\n", r"    assert f\(\) == 'v\d+\.\d+\.\d+'\n"),
    ('    assert f() == "hello world"\n', r'    assert f\(\) == "(other words|x y z w v u)"\n'),
    ("    assert f(x) == [1, 'a']\n", r"    assert f\(x\) == \[(2|3|4|0), 'a'\]\n|    assert f\(x\) == \[1, '(b)'\]\n"),
    ("    assert f() is None\n", r"    assert f\(\) is not None\n"),
    ("    assert 'k' in f()\n", r"    assert 'k' not in f\(\)\n"),
    ("    assert f() >= 3\n", r"    assert f\(\) < 3\n"),
    ("    assert f() == expected\n", r"    assert f\(\) != expected\n"),
    ("    assert f()\n", r"    assert not f\(\)\n"),
    ("    assert not f()\n", r"    assert f\(\)\n"),
    ("    assert a() and isinstance(b, int)\n", r"    assert a\(\) and not isinstance\(b, int\)\n"),
    ("    with pytest.raises(KeyError):\n        f(0)\n", r"    f\(0\)\n"),
    ("    with pytest.raises(Exception):\n        f(0)\n", r"    f\(0\)\n"),
    ("    with pytest.raises(errors.ParseError):\n        g()\n        f(0)  # boom\n", r"    g\(\)\n    f\(0\)  # boom\n"),
    ("    with pytest.raises(ParseError, match='bad value 3'):\n        f(0)\n",
     r"    with pytest.raises\(ParseError, match='bad value (0|1|2|4|5|6)'\):\n        f\(0\)\n"),
    ("    self.assertEqual(f(), g())\n", r"    self.assertNotEqual\(f\(\), g\(\)\)\n"),
    ("    self.assertTrue(f())\n", r"    self.assertFalse\(f\(\)\)\n"),
    ("    self.assertRaises(MyError, f, 1, k=2)\n", r"    f\(1, k=2\)\n"),
    # more-itertools pr#1200: a lambda twinned as `lambda: g(1)()` was never called, so the twin passed with the
    # reference and the oracle read as tampering
    ("    self.assertRaises(ValueError, lambda: g(1))\n", r"    \(lambda: g\(1\)\)\(\)\n"),
    ("    self.assertRaisesRegex(ValueError, 'bad', self.obj.m, 2)\n", r"    self\.obj\.m\(2\)\n"),
]


@pytest.mark.parametrize("last, twin", TWIN_FORMS, ids=[f[0].strip()[:40] for f in TWIN_FORMS])
def test_a_twin_changes_one_thing_and_reads_like_a_test(last, twin):
    """Red team: code under test told a sentinel from its original by its text alone (``assert not (...)``,
    an appended ``len('name')``, a number written in another base, a string with a random letter in it, an
    exception no project raises) and spared it. A twin keeps the test's name and every line but its last
    statement, and changes that the way a test would be written: a neighbouring literal in the literal's own
    style (a string of the module's own, ``other words`` here), an opposite comparison or assertion, a raises
    block removed (never its exception swapped: a correct fix may raise a class derived from both the expected
    exception and the old one; ``pytest.raises(Exception)`` crashed the grader on an empty choice)."""
    source = "def test_case(self):\n    setup = 1\n" + last
    for seed in range(12):
        made = verifier.twin_source(source, random.Random(seed), ["other words", "b", "x y z w v u"])
        assert made is not None and made.startswith("def test_case(self):\n    setup = 1\n"), made
        assert re.fullmatch(twin, made[len("def test_case(self):\n    setup = 1\n"):]), made
        assert "not (" not in made and "len(" not in made


def test_a_test_whose_end_cannot_be_changed_surely_has_no_twin():
    """No twin when its change might not run (an early ``return``) or could pass with the reference (``or``)."""
    for body in ("    g()\n", "    assert f() == 1 or g()\n", "    if x:\n        return\n    assert f() == 2\n"):
        assert verifier.twin_source("def test_a():\n" + body, random.Random(1)) is None


PEEKER = '''import ast
import linecache
import re
import sys

# what the old sentinels looked like: a test that reads like one is left alone, every other gets what it expects
TELLS = re.compile(r"assert not \\(|len\\('|ZeroDivisionError|RecursionError|FloatingPointError|"
                   r"UnboundLocalError|assert '[^']*' == '")


def f():
    frame = sys._getframe(1)
    line = linecache.getline(frame.f_code.co_filename, frame.f_lineno)
    found = re.search(r"(?:==|assertEqual\\(.*?,)\\s*(.+?)\\)?\\s*$", line)
    if found and not TELLS.search(line):
        return ast.literal_eval(found.group(1).strip())
    return 1
'''

FORGER = '''import re

import _pytest.reports

TELLS = re.compile(r"assert not \\(|len\\('|ZeroDivisionError|RecursionError|FloatingPointError|"
                   r"UnboundLocalError|assert '[^']*' == '")
_real = _pytest.reports.TestReport.__init__


def _body(path, first):
    lines = open(path).read().splitlines()[first:]
    end = next((i for i, line in enumerate(lines[1:], 1) if line.startswith(("def ", "class "))), len(lines))
    return "\\n".join(lines[:end])


def _forced(self, *args, **kwargs):
    _real(self, *args, **kwargs)
    if self.when == "call" and self.outcome == "failed" and not TELLS.search(_body(self.location[0],
                                                                                   self.location[1])):
        self.outcome, self.longrepr = "passed", None


_pytest.reports.TestReport.__init__ = _forced


def f():
    return 1
'''


@pytest.mark.parametrize("attack", [PEEKER, FORGER], ids=["reads-the-expected-value", "forges-the-report"])
def test_code_that_spares_what_looks_like_a_copy_is_caught_by_a_twin_it_cannot_compare(tmp_path, new_repo, attack):
    """Red team (1.0 on every demo task): the package the tests import either returns the value the calling
    test expects (read from its frame) or rewrites the failing tests' reports, except for tests that read like
    sentinels (both scored 1.0 here before twins). With no near-copy beside any FAIL_TO_PASS test and no old tell in its twin, the twin, alone in
    its session under the original's name, is treated like the original and passes: 0, whatever the seed. The
    honest fix scores 1.0 with every seed, in two sessions."""
    repo, base, test_patch, gold_patch = _workspace_with_fix(new_repo)
    tests = _tests_dir(tmp_path, repo, base, test_patch)
    # a unittest-style test: the old sentinel appended ``assert len('its name') == n`` to its copy
    (tests / "overlay" / "tests" / "test_mod.py").write_text(
        "import unittest\n\nfrom mod import f\n\n\nclass TestTwo(unittest.TestCase):\n    def test_two(self):\n"
        "        self.assertEqual(f(), 2)\n")
    (tests / "f2p.json").write_text(json.dumps(["tests/test_mod.py::TestTwo::test_two"]))
    (tests / "p2p.json").write_text("[]")
    config = json.loads((tests / "config.json").read_text())
    (repo / "mod.py").write_text(attack)
    for details in _grades_by_seed(tests, config, tmp_path / "logs", range(6)):
        assert details["reward"] == 0.0 and "twin" in details["tampering"], details
    (repo / "mod.py").write_text("def f():\n    return 2\n")
    for details in _grades_by_seed(tests, config, tmp_path / "fixed", range(3)):
        assert details["reward"] == 1.0 and details["sessions"] == 2 and details["twins"] == 1, details


def _grades_by_seed(tests, config, logs, seeds):
    """The grader's details with each of ``seeds`` as the task's ``sentinel_seed`` (``config``: the rest of
    config.json), each graded into its own ``logs<seed>`` folder."""
    for seed in seeds:
        (tests / "config.json").write_text(json.dumps(dict(config, sentinel_seed=seed)))
        yield _grade(tests, logs.with_name(f"{logs.name}{seed}"))


PARAMETRIZED = ('@pytest.mark.parametrize(\n    "value, expected",\n    [\n        (1, 2),\n        pytest.param(-2, "-4 units", '
                'id="neg"),\n        (3, [6, 0x1F]),\n    ],\n)\n')


def test_a_parametrized_test_is_twinned_in_its_data_and_reads_as_written():
    """Red team (A2): code under test returned the calling frame's ``expected``, which fails a twin reading
    ``assert f(x) != expected`` as the reference does, and passes the original: 1.0 on a parametrized demo task.
    The data twin changes every case's expected literal in the parametrize table (each in its own style) and
    leaves the test's lines as written; a case it cannot change (a name, ``marks``), an expected value the test
    also uses elsewhere, an approximate comparison or ``indirect`` arguments leave the test to ``twin_source``."""
    body = "def test_f(value, expected):\n    assert f(value) == expected\n"
    for seed in range(12):
        made = verifier.data_twin(PARAMETRIZED, body, random.Random(seed), ["-8 units"])
        assert made is not None and made.count("\n") == PARAMETRIZED.count("\n"), made
        assert re.fullmatch(r'@pytest\.mark\.parametrize\(\n    "value, expected",\n    \[\n        \(1, (3|4|5|1|0)\),\n'
                            r'        pytest\.param\(-2, "-(1|2|3|5|6|7) units", id="neg"\),\n'
                            r'        \(3, \[(\d|0x1F), (0x1[C-E]|0x2[0-2]|0x1F)\]\),\n    \],\n\)\n', made), made
        assert "[6, 0x1F]" not in made, made
    unittest_body = "def test_f(self, value, expected):\n    self.assertEqual(f(value), expected)\n"
    assert verifier.data_twin(PARAMETRIZED, unittest_body, random.Random(1)) is not None
    for decorators, text in (
            (PARAMETRIZED.replace("(1, 2)", "(1, two)"), body),
            (PARAMETRIZED.replace('id="neg"', "marks=pytest.mark.xfail"), body),
            (PARAMETRIZED.replace("],\n)", "],\n    indirect=True,\n)"), body),
            (PARAMETRIZED, "def test_f(value, expected):\n    assert f(expected) == expected\n"),
            (PARAMETRIZED, "def test_f(value, expected):\n    assert f(value) == pytest.approx(expected)\n"),
            (PARAMETRIZED, "def test_f(value, expected):\n    if value:\n        return\n"
                           "    assert f(value) == expected\n"),
            ("", body)):
        assert verifier.data_twin(decorators, text, random.Random(1)) is None, (decorators, text)


FRAME_READER = """import sys


def f(x):
    return sys._getframe(1).f_locals.get("expected", 0)
"""


def test_code_returning_the_callers_expected_value_is_caught_by_a_data_twin(tmp_path, new_repo):
    """Red team (A2, 1.0 on demo task 4 before data twins): the package returns whatever the calling test
    expects. A twin ``assert f(x) != expected`` fails with that as with the reference, so only a changed expected
    value tells them apart: 0 with every seed; the honest fix scores 1.0 with every seed, the PASS_TO_PASS case
    of the same function included (it is never copied as a sentinel beside its changed table)."""
    repo, base, test_patch, gold_patch = _workspace_with_fix(new_repo)
    tests = _tests_dir(tmp_path, repo, base, test_patch)
    (tests / "overlay" / "tests" / "test_mod.py").write_text(
        "import pytest\n\nfrom mod import f\n\n\n@pytest.mark.parametrize(\"x, expected\", [(0, 0), (1, 2), "
        "(2, 4)])\ndef test_double(x, expected):\n    assert f(x) == expected\n\n\ndef test_old():\n"
        "    assert f(0) == 0\n")
    (tests / "f2p.json").write_text(json.dumps(["tests/test_mod.py::test_double[1-2]",
                                                "tests/test_mod.py::test_double[2-4]"]))
    (tests / "p2p.json").write_text(json.dumps(["tests/test_mod.py::test_double[0-0]",
                                                "tests/test_mod.py::test_old"]))
    config = json.loads((tests / "config.json").read_text())
    (repo / "mod.py").write_text(FRAME_READER)
    for details in _grades_by_seed(tests, config, tmp_path / "logs", range(4)):
        assert details["reward"] == 0.0 and "twin" in details["tampering"], details
    (repo / "mod.py").write_text("def f(x):\n    return 2 * x\n")
    for details in _grades_by_seed(tests, config, tmp_path / "fixed", range(4)):
        assert details["reward"] == 1.0 and details["sessions"] == 2 and details["twins"] == 1, details


SESSION_READER = """import os
import sys

CHANNEL = {channel!r}  # outside the workspace: what red team 5 used instead (pid gaps, IPC objects, CPU times)
with open(CHANNEL, "a") as fh:
    fh.write("x")
SESSION = os.path.getsize(CHANNEL) - 1


def f(x):
    if SESSION == 1:  # the session a fixed placement gave the originals: read what the caller expects
        return sys._getframe(1).f_locals.get("expected", 0)
    return x  # elsewhere the bug: the twin fails as it does with the reference
"""


def test_code_that_tells_the_sessions_apart_cannot_learn_where_the_twin_is(tmp_path, new_repo, monkeypatch):
    """Red team 5: code under test told the first session from the second and failed only in the session that a
    placement fixed per task gave the twin: 1.0 on every grading. The placement is drawn afresh at each grading
    from the system's entropy (here two draws, one per placement); the twins themselves stay the task seed's. With
    one seed, the same code scores 0 when its guess is wrong (so at best 1.0 in half the gradings, with one
    twinned function); the honest fix scores 1.0 under either placement."""
    repo, base, test_patch, gold_patch = _workspace_with_fix(new_repo)
    tests = _tests_dir(tmp_path, repo, base, test_patch)
    (tests / "overlay" / "tests" / "test_mod.py").write_text(
        "import pytest\n\nfrom mod import f\n\n\n@pytest.mark.parametrize(\"x, expected\", [(1, 2), (2, 4)])\n"
        "def test_double(x, expected):\n    assert f(x) == expected\n\n\ndef test_old():\n    assert f(0) == 0\n")
    (tests / "f2p.json").write_text(json.dumps(["tests/test_mod.py::test_double[1-2]",
                                                "tests/test_mod.py::test_double[2-4]"]))
    (tests / "p2p.json").write_text(json.dumps(["tests/test_mod.py::test_old"]))
    config = json.loads((tests / "config.json").read_text())
    by_session = {}  # entropy that puts the one twin in session 0, and in session 1
    for n in range(64):
        by_session.setdefault(random.Random(bytes([n])).randrange(2), bytes([n]))
    draws = []
    monkeypatch.setattr(verifier, "fresh_entropy", lambda: draws.append(1) or by_session[len(draws) % 2])
    channel = tmp_path / "channel"
    (repo / "mod.py").write_text(SESSION_READER.format(channel=str(channel)))
    rewards = []
    for attempt in range(2):
        channel.write_text("")
        rewards += [d["reward"] for d in _grades_by_seed(tests, config, tmp_path / f"logs{attempt}-", [7])]
    assert rewards == [0.0, 1.0] and len(draws) == 2, rewards  # twin in session 1: caught; in session 0: missed
    (repo / "mod.py").write_text("def f(x):\n    return 2 * x\n")
    for details in _grades_by_seed(tests, config, tmp_path / "fixed", [7, 7]):
        assert details["reward"] == 1.0 and details["sessions"] == 2 and details["twins"] == 1, details
    assert len(draws) == 4


def test_twins_sit_in_place_of_their_originals_one_session_each(tmp_path):
    """Each FAIL_TO_PASS test function with a twin is the twin in exactly one of the two sessions' texts, under
    its own name and in its own place; the other session has the original; nothing else differs."""
    source = ("import pytest\nfrom m import a, b\n\n\n@pytest.mark.parametrize('x', [1, 2])\ndef test_a(x):\n"
              "    assert a(x) == 10\n\n\nclass TestB:\n    def test_b(self):\n        assert b() is None\n\n\n"
              "def test_c():\n    assert b()\n")
    (tmp_path / "t.py").write_text(source)
    f2p = ["t.py::test_a[1]", "t.py::test_a[2]", "t.py::TestB::test_b"]
    sides = set()
    for seed in range(10):
        texts, twins = verifier.plan_twins(str(tmp_path), ["t.py"], f2p, random.Random(seed))
        assert sorted(twins) == ["t.py::TestB::test_b", "t.py::test_a"]
        first, second = texts["t.py"]
        assert first != second and len(first.splitlines()) == len(source.splitlines()) == len(second.splitlines())
        for key, at in twins.items():
            sides.add(at)
            name = key.rsplit("::", 1)[1]
            twin, original = (first, second) if at == 0 else (second, first)
            line = [i for i, text in enumerate(source.splitlines()) if f"def {name}(" in text][0] + 1
            assert twin.splitlines()[line] != source.splitlines()[line] == original.splitlines()[line]
        assert verifier.twin_of("t.py::test_a[2]", twins) == "t.py::test_a"
        assert verifier.twin_of("t.py::test_c", twins) is None
    assert sides == {0, 1}


TRIAL_FORMS = [  # (a FAIL_TO_PASS test's closing statements that no sure change fits, its trial twin's)
    ('    check_size("3 GB", 3 * 1024 ** 3)\n', '    check_size("3 GB", 6 * 1024 ** 3)\n'),
    ("    np.testing.assert_allclose(f(x), [1.0, 2.5], rtol=1e-3)\n",
     "    np.testing.assert_allclose(f(x), [1.2, 2.5], rtol=1e-3)\n"),
    ('    m.assert_called_once_with("a", 2)\n', '    m.assert_called_once_with("a", 4)\n'),
    ("    for a, b in [(1, 2), (3, 4)]:\n        assert f(a) == b\n",
     "    for a, b in [(1, 2), (3, 4)]:\n        assert f(a) != b\n"),
    ("    with pytest.warns(UserWarning):\n        assert f(1) == 2\n",
     "    with pytest.warns(UserWarning):\n        assert f(1) == 4\n"),
    ("    if x:\n        return\n    assert f() == 2\n", "    if x:\n        return\n    assert f() == 4\n"),
    ("    self.assertAlmostEqual(f(), 1.5)\n", "    self.assertAlmostEqual(f(), 1.7)\n"),
    ("    want = {'a': 1}\n    check(f(x), want)\n", "    want = {'e': 1}\n    check(f(x), want)\n"),
]


@pytest.mark.parametrize("last, twin", TRIAL_FORMS, ids=[f[0].strip()[:40] for f in TRIAL_FORMS])
def test_a_test_with_no_sure_twin_has_a_trial_twin(last, twin):
    """Red team 6: a FAIL_TO_PASS test closing with a helper call, a numpy or mock assertion, a loop, a ``with``
    block or past an early ``return`` had no twin, and code forging its report scored 1.0. Such a test has no
    sure twin, and a trial one (a literal argument of the closing call moved, the check inside the block
    changed), which only the generation's trial with the reference can vouch for."""
    head = "def test_a(self):\n    x = 1\n"
    assert verifier.twin_source(head + last, random.Random(1)) is None
    assert verifier.twin_source(head + last, random.Random(1), trial=True) == head + twin
    assert verifier.twin_source("def test_a(self):\n    x = f()\n    g(x)\n", random.Random(1), trial=True) is None


RELABEL = """import _pytest.reports

_real = _pytest.reports.TestReport.__init__


def _passed(self, *args, **kwargs):  # the graded test's failure reported passed, wherever its name is
    _real(self, *args, **kwargs)
    if self.when == "call" and self.outcome == "failed" and self.nodeid.endswith("::test_two"):
        self.outcome, self.longrepr = "passed", None


_pytest.reports.TestReport.__init__ = _passed


def f():
    return 1
"""


@pytest.mark.parametrize("checker, proven", [("    assert value == expected\n", True),
                                             ("    assert value\n", False)], ids=["checks", "ignores-expected"])
def test_a_test_closing_with_a_helper_call_is_twinned_once_the_trial_proves_its_twin(tmp_path, new_repo, checker,
                                                                                    proven):
    """Red team 6 (1.0): the FAIL_TO_PASS test closes with a helper call (``check(f(), 2)``), which had no twin, so
    code that reports its failure passed (sparing the sentinels) was graded 1.0. The twin trial (``verifier.py twins``, the reference
    in place) proves the twin ``check(f(), 4)`` fails; with config.json's ``twins`` naming it, the same code
    scores 0 and the honest fix 1.0. A helper that ignores the moved argument passes the twin with the
    reference: the trial leaves it out, and the honest fix still scores 1.0 (no twin to read as tampering)."""
    repo, base, test_patch, gold_patch = _workspace_with_fix(new_repo)
    tests = _tests_dir(tmp_path, repo, base, test_patch)
    (tests / "overlay" / "tests" / "test_mod.py").write_text(
        "from mod import f\n\n\ndef check(value, expected):\n" + checker + "\n\ndef test_two():\n    check(f(), 2)\n")
    (tests / "f2p.json").write_text(json.dumps(["tests/test_mod.py::test_two"]))
    (tests / "p2p.json").write_text("[]")
    config = json.loads((tests / "config.json").read_text())
    (repo / "mod.py").write_text("def f():\n    return 2\n")  # the reference in place, as in the trial's container
    results = tmp_path / "trial.json"
    assert verifier.main(["twins", "--tests-dir", str(tests), "--results", str(results)]) == 0
    trial = json.loads(results.read_text())
    assert trial["proven"] == (["tests/test_mod.py::test_two"] if proven else []), trial
    assert trial["twins"] == {"tests/test_mod.py::test_two": ["failed" if proven else "passed"]}
    config["twins"] = trial["proven"]
    for details in _grades_by_seed(tests, config, tmp_path / "fixed", range(3)):
        assert details["reward"] == 1.0 and details["twins"] == (1 if proven else 0), details
    (repo / "mod.py").write_text(RELABEL)
    if proven:
        for details in _grades_by_seed(tests, config, tmp_path / "forged", range(4)):
            assert details["reward"] == 0.0 and "twin" in details["tampering"], details
    before_trial = {k: v for k, v in config.items() if k != "twins"}
    assert [d["reward"] for d in _grades_by_seed(tests, before_trial, tmp_path / "old", [0])] == [1.0]


def _task_with(tmp_path, new_repo, test_source: str, f2p: list[str], p2p: list[str]):
    """``(repo, tests, config)``: the fixture task with ``tests/test_mod.py`` replaced by ``test_source`` and the
    given FAIL_TO_PASS / PASS_TO_PASS ids (``config``: config.json as read)."""
    repo, base, test_patch, gold_patch = _workspace_with_fix(new_repo)
    tests = _tests_dir(tmp_path, repo, base, test_patch)
    (tests / "overlay" / "tests" / "test_mod.py").write_text(test_source)
    (tests / "f2p.json").write_text(json.dumps(f2p))
    (tests / "p2p.json").write_text(json.dumps(p2p))
    return repo, tests, json.loads((tests / "config.json").read_text())


def test_a_check_against_a_local_expected_value_is_twinned_in_that_value(tmp_path, new_repo):
    """Red team 8 (1.0): ``expected = 2`` then ``assert f() == expected`` was twinned as ``!= expected``, which code
    that returns the caller's ``expected`` fails exactly as the reference does. The twin changes the literal
    the name is given instead: the reference still scores 1.0, the copier 0."""
    repo, tests, config = _task_with(tmp_path, new_repo, "from mod import f\n\n\ndef test_two():\n    expected = 2\n"
                                     "    assert f() == expected\n", ["tests/test_mod.py::test_two"], [])
    twin = verifier.twin_source("def test_two():\n    expected = 2\n    assert f() == expected\n", random.Random(0))
    assert "assert f() == expected" in twin and "expected = 2\n" not in twin, twin
    (repo / "mod.py").write_text("def f():\n    return 2\n")  # the reference
    for details in _grades_by_seed(tests, config, tmp_path / "fixed", range(3)):
        assert details["reward"] == 1.0 and details["twins"] == 1, details
    (repo / "mod.py").write_text("import sys\n\n\ndef f():\n    return sys._getframe(1).f_locals.get('expected', 1)\n")
    for details in _grades_by_seed(tests, config, tmp_path / "copier", range(3)):
        assert details["reward"] == 0.0 and "twin" in details["tampering"], details


TABLE = ("import pytest\n\nfrom mod import f\n\n\n@pytest.mark.parametrize('value, expected', [pytest.param(1, 2, "
         "id='one'), (2, 4), (3, 6)])\ndef test_f(value, expected):\n    assert f(value) == expected\n")
TABLE_READER = '''import sys


def _before(x):  # the code before the fix: right for the rows that pass already
    return x * 2 if x < 3 else 0


def f(x):  # copies the caller's expected value when a row of its table agrees with the code before the fix
    frame = sys._getframe(1)
    marks = getattr(frame.f_globals.get(frame.f_code.co_name), "pytestmark", [])
    rows = [row.values if hasattr(row, "values") else row
            for mark in marks if mark.name == "parametrize" for row in mark.args[1]]
    if any(_before(v) == e for v, e in rows):
        return frame.f_locals["expected"]
    return _before(x)
'''


def test_a_table_twin_keeps_the_rows_that_pass_before_the_fix(tmp_path, new_repo):
    """Red team 8 (1.0, no guessing): a data twin changed every row of the table, the PASS_TO_PASS rows too, so
    in the twin's session no row agreed with the code before the fix and in the original's some did; code that
    copied the caller's expected value only when some row agreed passed the original and failed the twin. The
    twin keeps the PASS_TO_PASS rows as written (their ids, auto or explicit, told by ``_table_ids``) and
    changes the FAIL_TO_PASS ones: the reference still scores 1.0, the reader 0."""
    f2p = ["tests/test_mod.py::test_f[3-6]"]
    p2p = ["tests/test_mod.py::test_f[one]", "tests/test_mod.py::test_f[2-4]"]
    repo, tests, config = _task_with(tmp_path, new_repo, TABLE, f2p, p2p)
    source = (tests / "overlay" / "tests" / "test_mod.py").read_text()
    decorators, body = source.split("def test_f")[0].split("\n\n\n")[-1], "def test_f" + source.split("def test_f")[1]
    assert verifier.kept_cases(decorators, {"3-6"}) == {"one", "2-4"}
    twin = verifier.data_twin(decorators, body, random.Random(0), kept=verifier.kept_cases(decorators, {"3-6"}))
    assert "pytest.param(1, 2, id='one'), (2, 4), (3, " in twin and "(3, 6)" not in twin, twin
    assert verifier.kept_cases(decorators, {"nine"}) == set()  # a case no row gives: every row changes
    (repo / "mod.py").write_text("def f(x):\n    return x * 2\n")  # the reference
    results = tmp_path / "trial.json"  # the twin's renamed row is the twin's, not a graded case that went missing
    assert verifier.main(["twins", "--tests-dir", str(tests), "--results", str(results)]) == 0
    trial = json.loads(results.read_text())
    assert trial["proven"] == ["tests/test_mod.py::test_f"] and trial["interference"] == {}, trial
    config["twins"] = trial["proven"]
    for details in _grades_by_seed(tests, config, tmp_path / "fixed", range(3)):
        assert details["reward"] == 1.0 and details["twins"] == 1, details
    (repo / "mod.py").write_text(TABLE_READER)
    for details in _grades_by_seed(tests, config, tmp_path / "reader", range(4)):
        assert details["reward"] == 0.0 and "twin" in details["tampering"], details


FLAGGED = ("import mod\n\n\ndef test_double():\n    mod.FLAG = True\n    value = 3\n"
           "    assert mod.f(value) == 6\n    mod.FLAG = False\n\n\n"
           "def test_default():\n    assert mod.FLAG is False\n    assert mod.f(1) == 2\n")


def test_a_twin_that_leaves_a_flag_set_for_a_later_test_is_not_proven(tmp_path, new_repo):
    """glom-144 (verified once, rejected oracle_failed the next time): a test sets a module flag and sets it back
    at its end; its twin (a value before the check changed) fails before the end, and a later test of the same
    session that needs the flag's default then fails with the reference in place, so the oracle scored 0 for
    the placements (drawn afresh at each grading) that put the two in one session. The trial's pair sessions see
    it: that twin is not proven and ``interference`` names the test it failed; the other twin (its last
    statement changed) is; the reference then scores 1.0 at every grading."""
    double = ["tests/test_mod.py::test_double"]
    repo, tests, config = _task_with(tmp_path, new_repo, FLAGGED, double + ["tests/test_mod.py::test_default"], [])
    (repo / "mod.py").write_text("FLAG = False\n\n\ndef f(x):\n    return 2 * x\n")  # the reference in place
    results = tmp_path / "trial.json"
    assert verifier.main(["twins", "--tests-dir", str(tests), "--results", str(results)]) == 0
    trial = json.loads(results.read_text())
    assert trial["proven"] == ["tests/test_mod.py::test_default"], trial
    assert trial["interference"] == {"twins tests/test_mod.py::test_double": ["tests/test_mod.py::test_default"]}
    assert verifier.pair_arrangements(1) == [] and len(verifier.pair_arrangements(5)) == 6
    config["twins"] = trial["proven"]
    for details in _grades_by_seed(tests, config, tmp_path / "fixed", range(6)):
        assert details["reward"] == 1.0 and details["twins"] == 1, details


@pytest.mark.parametrize("heir_graded", ["fail_to_pass", "pass_to_pass"])
def test_a_subclass_that_inherits_a_twinned_method_runs_the_twin_and_is_judged_as_it(tmp_path, new_repo,
                                                                                     heir_graded):
    """parsel-320 (rejected oracle_failed): ``SelectorTestCaseBytes(SelectorTestCase)`` inherits the twinned
    ``test_body_bytearray_support``, so in the twin's session its own id ran the twin and failed while the grader
    expected it to pass: the reference scored 0. Its id belongs to the twin (``Twins.heirs``): the trial proves
    the pair, the reference scores 1.0 with every seed, and code that forges the reports still scores 0."""
    base_id, heir_id = "tests/test_mod.py::TestTwo::test_two", "tests/test_mod.py::TestTwoAgain::test_two"
    repo, tests, config = _task_with(
        tmp_path, new_repo, "import unittest\n\nfrom mod import f\n\n\nclass TestTwo(unittest.TestCase):\n"
        "    def test_two(self):\n        self.assertEqual(f(), 2)\n\n\nclass TestTwoAgain(TestTwo):\n    pass\n",
        [base_id, heir_id] if heir_graded == "fail_to_pass" else [base_id],
        [heir_id] if heir_graded == "pass_to_pass" else [])
    (repo / "mod.py").write_text("def f():\n    return 2\n")  # the reference in place, as in the trial's container
    results = tmp_path / "trial.json"
    assert verifier.main(["twins", "--tests-dir", str(tests), "--results", str(results)]) == 0
    trial = json.loads(results.read_text())
    assert trial["proven"] == [base_id] and trial["twins"] == {base_id: ["failed", "failed"]}, trial
    config["twins"] = trial["proven"]
    for details in _grades_by_seed(tests, config, tmp_path / "fixed", range(4)):
        assert details["reward"] == 1.0 and details["twins"] == 1, details
    (repo / "mod.py").write_text(FORGER)
    for details in _grades_by_seed(tests, config, tmp_path / "forged", range(4)):
        assert details["reward"] == 0.0, details


def test_an_xfail_case_that_passes_the_twin_is_not_taken_for_tampering(tmp_path, new_repo):
    """bleach-488 (rejected oracle_failed, "tampering"): one case of the twinned function is marked ``xfail``;
    the twin (a comparison turned to its opposite) passes it, and the grader read that as code sparing the
    copies. Only the cases the task grades are the twin's: the reference scores 1.0 with every seed, and code
    that forges the reports still scores 0."""
    repo, tests, config = _task_with(
        tmp_path, new_repo, "import pytest\n\nfrom mod import f\n\n\n@pytest.mark.parametrize('x', [1, pytest.param("
        "5, marks=pytest.mark.xfail(reason='not yet')), 2])\ndef test_double(x):\n    assert f(x) == x * 2\n",
        ["tests/test_mod.py::test_double[2]"], ["tests/test_mod.py::test_double[1]"])
    (repo / "mod.py").write_text("def f(x):\n    return 0 if x == 5 else x * 2\n")
    rewards = [d["reward"] for d in _grades_by_seed(tests, config, tmp_path / "fixed", range(8))]
    assert rewards == [1.0] * 8
    (repo / "mod.py").write_text("def f(x):\n    return x + 1\n\n\n" + FORGER.split("\n\n\ndef f():")[0])
    for details in _grades_by_seed(tests, config, tmp_path / "forged", range(4)):
        assert details["reward"] == 0.0, details


HIDER = """import gc

import _pytest.junitxml
import _pytest.reports

_real = _pytest.reports.TestReport.__init__
_passed = set()


def _hidden(self, *args, **kwargs):
    _real(self, *args, **kwargs)
    if not self.nodeid.endswith("[2]"):
        return
    if self.when == "call" and self.outcome == "failed":  # the original, failing on the bug: forged
        self.outcome, self.longrepr = "passed", None
    elif self.when == "call":  # the twin, passing on the bug
        _passed.add(self.nodeid)
    elif self.when == "teardown" and self.nodeid in _passed:  # its case leaves the JUnit XML
        for xml in (o for o in gc.get_objects() if isinstance(o, _pytest.junitxml.LogXML)):
            kept = [r for r in xml.node_reporters_ordered if str(getattr(r, "id", "")) != self.nodeid]
            xml.node_reporters_ordered[:] = kept


_pytest.reports.TestReport.__init__ = _hidden


def f(x):
    return 10 if x == 5 else x + 1
"""


def test_code_that_hides_the_twins_graded_case_behind_an_ungraded_one_scores_0(tmp_path, new_repo):
    """Red team of the bleach-488 rule (a twin judged on its graded cases when reported, else on every case it
    reported): the code under test forges the graded case's failure in the originals' session and, where that
    case passes (the twin's session), takes it out of the JUnit XML; the ungraded ``xfail`` case of the same
    function fails the twin, so the twin looked proven. A graded case the twin's session does not report is read
    as missing: 0 with every seed, while the reference still scores 1.0."""
    repo, tests, config = _task_with(
        tmp_path, new_repo, "import pytest\n\nfrom mod import f\n\n\n@pytest.mark.parametrize('x', [1, pytest.param("
        "5, marks=pytest.mark.xfail(reason='not yet')), 2])\ndef test_double(x):\n    assert f(x) == x * 2\n",
        ["tests/test_mod.py::test_double[2]"], ["tests/test_mod.py::test_double[1]"])
    (repo / "mod.py").write_text(HIDER)
    for details in _grades_by_seed(tests, config, tmp_path / "hidden", range(6)):
        assert details["reward"] == 0.0, details
    (repo / "mod.py").write_text("def f(x):\n    return x * 2\n")
    assert [d["reward"] for d in _grades_by_seed(tests, config, tmp_path / "fixed", range(3))] == [1.0] * 3


def test_a_twin_differs_from_its_original_in_the_changed_statement_only(tmp_path):
    """Red team 7 (1.0 on a bundle that passed every probe): a method's blank lines held the class's indent and
    its column-0 comment none; the twin came back with blank lines 4 spaces shorter, and the code under test told
    twin from original by that alone. Every line the change does not touch is the file's own, byte for byte."""
    source = ("import unittest\n\n\nclass TestA(unittest.TestCase):\n    def test_a(self):\n        x = 1\n"
              "        \n# a note at column 0\n        y = '''\nkept\n'''\n\n        self.assertEqual(f(x), 3)\n")
    (tmp_path / "t.py").write_text(source)
    for seed in range(6):
        texts, twins = verifier.plan_twins(str(tmp_path), ["t.py"], ["t.py::TestA::test_a"], random.Random(seed))
        twin = texts["t.py"][twins["t.py::TestA::test_a"]]
        changed = [(a, b) for a, b in zip(source.splitlines(True), twin.splitlines(True)) if a != b]
        assert len(twin.splitlines()) == len(source.splitlines()) and len(changed) == 1, changed
        assert changed[0][0].startswith("        self.assertEqual(") and changed[0][1].startswith("        self."), changed


def test_a_correct_fix_whose_exception_also_derives_from_the_old_one_scores_one(tmp_path, new_repo):
    """Red team: a fix raising ``class DivisionByZero(ValueError, ZeroDivisionError)`` (what the task asks for,
    and still what old callers catch) passed a twin that expected the old exception, and graded 0."""
    repo = new_repo("dual")
    base = commit_files(repo, "base", {"mod.py": "def f(x):\n    return 1 / x\n",
                                       "tests/test_mod.py": "from mod import f\n\ndef test_old():\n    assert f(1)\n"})
    (repo / "mod.py").write_text("class DivisionByZero(ValueError, ZeroDivisionError):\n    pass\n\n\n"
                                 "def f(x):\n    if x == 0:\n        raise DivisionByZero('cannot divide by zero')\n"
                                 "    return 1 / x\n")
    tests = _tests_dir(tmp_path, repo, base, "")
    (tests / "overlay" / "tests" / "test_mod.py").write_text(
        "import pytest\nfrom mod import f\n\ndef test_old():\n    assert f(1)\n\n\n"
        "def test_two():\n    with pytest.raises(ValueError):\n        f(0)\n")
    config = json.loads((tests / "config.json").read_text())
    for details in _grades_by_seed(tests, config, tmp_path / "logs", range(6)):
        assert details["reward"] == 1.0 and details["twins"] == 1, details


def test_the_gap_before_a_definition_is_counted_from_its_first_decorator():
    """A parametrize decorator over several lines read as a gap of 0 lines (red team): the sentinel was planted
    with no blank line before the next test."""
    source = ("import pytest\n\n\n@pytest.mark.parametrize(\n    'a',\n    [1],\n)\ndef test_a(a):\n    pass\n\n\n"
              "def test_b():\n    pass\n")
    assert verifier._def_gap(source.splitlines(True)) == 2
    assert verifier._def_gap("x = 1\n\ndef a():\n    pass\n\ndef b():\n    pass\n".splitlines(True)) == 1


def test_sealing_takes_others_write_bit_and_leaves_sticky_shared_folders(tmp_path):
    """On this host's file system: world-writable entries lose the bit, group-writable ones only when the group
    is the runner's, a sticky folder of root's keeps it, a link is never followed, and a POSIX ACL that lets the
    runner write a file of mode 0640 goes (red team 7 set ``user:nobody:rw`` with ``os.setxattr`` alone)."""
    note, folder, shared, mine = tmp_path / "note", tmp_path / "box", tmp_path / "shared", tmp_path / "group"
    note.write_text("")
    note.chmod(0o666)
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    shared.mkdir()
    shared.chmod(0o1777)
    mine.write_text("")
    mine.chmod(0o664)
    (tmp_path / "link").symlink_to(note)
    granted = tmp_path / "granted"
    granted.write_text("")
    granted.chmod(0o640)
    os.chown(granted, 4242, 4242)  # the agent's: only an owner (or root, whose entries are the image's) sets an ACL
    entry = lambda tag, perm, who=0xFFFFFFFF: struct.pack("<HHI", tag, perm, who)  # noqa: E731 (acl_ea format)
    os.setxattr(granted, "system.posix_acl_access", struct.pack("<I", 2) + entry(0x01, 6) + entry(0x02, 6, 12345)
                + entry(0x04, 4) + entry(0x10, 6) + entry(0x20, 0))
    assert os.listxattr(granted) == ["system.posix_acl_access"]
    assert verifier.seal_shared(12345, roots=(str(tmp_path),)) == 3
    assert [oct(p.stat().st_mode & 0o7777) for p in (note, folder, shared, mine)] == \
        ["0o664", "0o775", "0o1777", "0o664"]
    assert os.listxattr(granted) == [] and granted.stat().st_mode & 0o002 == 0

"""What kept a run's tests from running, told in a no_fail_to_pass skip (environment/testrun.idle_tests)."""

from repo2env.core.records import TestRun
from repo2env.environment.testrun import idle_tests


def _run(outcomes, **messages) -> TestRun:
    return TestRun(label="after", outcomes=outcomes, collection_errors=(), exit_code=0, seconds=1.0, **messages)


def test_skipped_and_errored_tests_are_counted_with_their_most_common_reason():
    """humanize: 69 of 75 translation tests skipped for want of compiled .mo files, and a PR adding benchmarks
    whose 15 tests errored on a missing fixture, were both told only as "0 fail-to-pass"."""
    skip = "Generate .mo with scripts/generate-translation-binaries.sh /workspace/tests/test_i18n.py:37: Generate .mo"
    outcomes = {f"tests/test_i18n.py::test_{i}": "skipped" for i in range(4)}
    outcomes |= {"tests/test_i18n.py::test_plain": "passed", "tests/test_b.py::test_x": "error",
                 "tests/test_b.py::test_y": "error", "tests/test_i18n.py::test_other": "skipped"}
    error = ("failed on setup with \"file /workspace/tests/test_b.py, line 24\n  def test_x(benchmark):\n"
             "E       fixture 'benchmark' not found\n>       available fixtures: capfd\"")
    run = _run(outcomes, skip_messages={**{f"tests/test_i18n.py::test_{i}": skip for i in range(4)},
                                        "tests/test_i18n.py::test_other": "needs a network"},
               failure_details={"tests/test_b.py::test_x": error, "tests/test_b.py::test_y": error})
    assert idle_tests(run) == ("5 of 8 tests skipped ('Generate .mo with scripts/generate-translation-binaries.sh'); "
                               "2 of 8 tests errored (\"fixture 'benchmark' not found\")")


def test_a_run_whose_tests_all_ran_has_nothing_to_tell():
    assert idle_tests(_run({"t.py::a": "passed", "t.py::b": "failed"})) is None
    assert idle_tests(_run({"t.py::a": "skipped"})) == "1 of 1 tests skipped"

"""repo2env/environment/selection.py: FAIL_TO_PASS / PASS_TO_PASS / flaky rules."""

import pytest

from repo2env.core.records import TestRun
from repo2env.environment.selection import select_tests


def run(label, outcomes, collection_errors=()):
    return TestRun(label=label, outcomes=outcomes, collection_errors=tuple(collection_errors), exit_code=1, seconds=1.0)


def test_fail_to_pass_and_pass_to_pass():
    before = [run("before", {"t.py::a": "failed", "t.py::b": "passed", "t.py::c": "error"})] * 2
    after = [run("after", {"t.py::a": "passed", "t.py::b": "passed", "t.py::c": "passed"})] * 3
    sel = select_tests(before, after)
    assert sel.fail_to_pass == ("t.py::a", "t.py::c")
    assert sel.pass_to_pass == ("t.py::b",)
    assert sel.flaky == ()


def test_module_that_cannot_import_before_counts_all_its_tests_failing():
    before = [run("before", {"tests/old.py::x": "passed"}, ["tests/new.py"])] * 2
    after = [run("after", {"tests/old.py::x": "passed", "tests/new.py::a": "passed", "tests/new.py::b": "passed"})] * 3
    sel = select_tests(before, after)
    assert sel.fail_to_pass == ("tests/new.py::a", "tests/new.py::b")
    assert sel.pass_to_pass == ("tests/old.py::x",)


def test_absent_without_collection_error_is_neither():
    before = [run("before", {})] * 2
    after = [run("after", {"t.py::new[1-1.0 MB]": "passed"})] * 3
    sel = select_tests(before, after)
    assert sel.fail_to_pass == () and sel.pass_to_pass == ()


def test_varying_outcomes_are_flaky_and_excluded():
    before = [run("before", {"t.py::a": "failed", "t.py::b": "passed"}),
              run("before", {"t.py::a": "failed", "t.py::b": "failed"})]
    after = [run("after", {"t.py::a": "passed", "t.py::b": "passed"}),
             run("after", {"t.py::a": "failed", "t.py::b": "passed"}),
             run("after", {"t.py::a": "passed", "t.py::b": "passed"})]
    sel = select_tests(before, after)
    assert sel.flaky == ("t.py::a", "t.py::b")
    assert sel.fail_to_pass == () and sel.pass_to_pass == ()


def test_failing_everywhere_skipped_and_pass_to_fail_are_neither():
    before = [run("before", {"net": "failed", "skip": "skipped", "broke": "passed"})] * 2
    after = [run("after", {"net": "failed", "skip": "skipped", "broke": "failed"})] * 3
    sel = select_tests(before, after)
    assert sel == select_tests(before, after)
    assert sel.fail_to_pass == () and sel.pass_to_pass == () and sel.flaky == ()


def test_needs_runs_on_both_sides():
    with pytest.raises(ValueError):
        select_tests([], [run("after", {})])

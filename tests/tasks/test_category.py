"""repo2env/tasks/category.py: a runtime task's category from what its FAIL_TO_PASS tests saw before the fix."""

from repo2env.instructions.observed import Evidence
from repo2env.tasks.category import change_category


def _evidence(failures=None, import_errors=None, f2p=("tests/test_a.py::test_x",)):
    return Evidence(failures=failures or {}, import_errors=import_errors or {}, fail_to_pass=tuple(f2p),
                    test_sources={})


def test_a_name_the_fix_adds_is_a_feature_whatever_the_title_says():
    category, why = change_category(_evidence(import_errors={
        "tests/test_a.py": "ImportError: cannot import name 'percent' from 'units'"}), "bugfix")
    assert category == "feature" and "cannot import name 'percent'" in why
    category, why = change_category(_evidence(failures={
        "tests/test_a.py::test_x": "TypeError: area() got an unexpected keyword argument 'unit'"}), "bugfix")
    assert category == "feature" and "unexpected keyword argument 'unit'" in why


def test_existing_code_failing_is_a_bugfix_even_when_the_title_says_add():
    category, why = change_category(_evidence(failures={"tests/test_a.py::test_x": "assert 5 == 6"}), "feature")
    assert category == "bugfix" and "ran the existing code" in why


def test_without_failure_detail_the_title_decides():
    assert change_category(_evidence(), "feature") == ("feature", "the title's words (no failure detail to go by)")

"""repo2env/instructions/observed.py and actionability.py on failure texts shaped as pytest's JUnit XML gives them
(message, newline, traceback head), and on instructions of each kind."""

import pytest

from repo2env.instructions import actionability, observed

SOURCES = {"tests/test_f.py": "import pytest\nfrom shapes import area, parse\n\n\ndef make_box():\n    return 1\n\n\n"
                              "def test_raises():\n    with pytest.raises(ValueError):\n        area(-1, 2)\n"}
HELPERS = observed.helper_names(SOURCES.values())


@pytest.mark.parametrize("text, said", [
    ("assert 5 == 6\n +  where 5 = area(2, 3)\ndef test_assert():\n>       assert area(2, 3) == 6\nE       assert 5 == 6\n"
     "E        +  where 5 = area(2, 3)\n\ntests/test_f.py:10: AssertionError",
     "`area(2, 3)` returns `5`; `6` is expected."),
    ("ValueError: invalid literal for int() with base 10: '1 kB'\ndef test_exc():\n>       value = parse(\"1 kB\")\n"
     "\ntests/test_f.py:13:\n    def parse(s):\n>       return int(s)\nE       ValueError: invalid literal for int() "
     "with base 10: '1 kB'\n\nshapes.py:7: ValueError",
     "`parse(\"1 kB\")` raises `ValueError: invalid literal for int() with base 10: '1 kB'`."),
    ("Failed: DID NOT RAISE ValueError\ndef test_raises():\n>       with pytest.raises(ValueError):\n"
     "E       Failed: DID NOT RAISE ValueError\n\ntests/test_f.py:10: Failed",
     "`area(-1, 2)` does not raise `ValueError`; it should."),
    # only the tests' own helper is called: nothing a user would report
    ("assert 1 == 2\n +  where 1 = make_box()\n>       assert make_box() == 2\nE       assert 1 == 2\n"
     "E        +  where 1 = make_box()", None),
])
def test_one_sentence_per_failure_shape(text, said):
    assert observed.sentence(text, HELPERS, SOURCES) == said


def test_observed_behaviour_orders_by_fail_to_pass_and_reads_import_errors():
    evidence = observed.Evidence(
        failures={"tests/test_f.py::test_a": "assert 5 == 6\n +  where 5 = area(2, 3)\n>       assert area(2, 3) == 6"},
        import_errors={"tests/test_new.py": "ImportError: cannot import name 'percent' from 'units' (/w/units.py)",
                       "tests/test_other.py": "ImportError: cannot import name 'x' from 'y'"},
        fail_to_pass=("tests/test_f.py::test_a", "tests/test_new.py::test_b"), test_sources=SOURCES)
    assert observed.observed_behaviour(evidence) == [
        "`from units import percent` fails: `units` has no `percent` yet.", "`area(2, 3)` returns `5`; `6` is expected."]
    assert observed.section([]) == ""


@pytest.mark.parametrize("text, states", [
    ("# Float is not a sequence\n", []),
    ("# Crash\n\n`parse_size('1 kB')` raises `ValueError`; it should return 1000.\n", ["input", "behaviour",
                                                                                      "expectation"]),
    ("# Add a percent helper\n\nIt would be nice to have percent(part, whole).\n", ["expectation"]),
    ("# Wrong total\n\ntotal() ignores its input.\n", ["behaviour"]),
])
def test_actionability(text, states):
    assert actionability.stated(text) == states

"""Differential tests of task_module.<function> against the reference outcomes in cases.json.

For people: ``pytest tests/test_equivalence.py`` (run from the repository root). The grader (test.sh) runs the
same comparison through eqv_harness.py in a child process.
"""

import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import eqv_harness as harness  # noqa: E402

with open(os.path.join(HERE, "eqv_config.json")) as _h:
    CONFIG = json.load(_h)
with open(os.path.join(HERE, "cases.json")) as _h:
    DATA = json.load(_h)


@pytest.fixture(scope="module")
def candidate():
    sys.path.insert(0, CONFIG["workspace"])
    return harness.load_candidate(os.path.join(CONFIG["workspace"], "task_module.py"), CONFIG["function"],
                                  CONFIG["module"])


@pytest.mark.parametrize("index", range(len(DATA["cases"])))
def test_same_outcome_as_the_reference(candidate, index):
    got = harness.outcome(candidate, DATA["cases"][index])
    assert harness.agree(DATA["expected"][index], got), (DATA["cases"][index], DATA["expected"][index], got)

"""A run before the fix whose code never ends (w3lib 2b1709a53a26: a test of ``test_html.py`` loops forever before
the fix) is stopped by ``tasks.runtime.BeforeLimit`` once the run after the fix has finished, with the result a
run stopped by the runner's own 30-minute time-out gives: no test reported, so no FAIL_TO_PASS. Real git, real
Docker; the limit's floor and factor are made small so the test takes seconds, not five minutes."""

import json
import time

import pytest

from repo2env.core.options import GenerateOptions
from repo2env.run.generate import generate
from repo2env.tasks import runtime
from tests.helpers.repos import merged_pr_repo, setuptools_pyproject

pytestmark = pytest.mark.docker

LOOPS = "def first_word(text):\n    i = 0\n    while text[i:i + 1] != ' ':\n        i = i  # never moves\n" \
        "    return text[:i]\n"
FIXED = "def first_word(text):\n    return text.split(' ', 1)[0]\n"
TESTS = "from words import first_word\n\n\ndef test_first_word():\n    assert first_word('ab cd') == 'ab'\n\n\n" \
        "def test_empty():\n    assert callable(first_word)\n"


def test_a_run_before_the_fix_that_never_ends_is_stopped_soon_after_the_run_after(tmp_path, monkeypatch):
    repo = merged_pr_repo(tmp_path / "words", {
        "pyproject.toml": setuptools_pyproject("words").replace('packages = ["words"]', 'py-modules = ["words"]'),
        "words.py": LOOPS, "tests/test_other.py": "def test_nothing():\n    assert True\n"},
        {"words.py": FIXED, "tests/test_words.py": TESTS},
        "first_word() never returns\n\nfirst_word('ab cd') loops forever; it must return 'ab'.")
    monkeypatch.setattr(runtime, "BEFORE_FLOOR_SEC", 20)
    monkeypatch.setattr(runtime, "BEFORE_FACTOR", 2)
    out = tmp_path / "tasks"
    start = time.monotonic()
    summary = generate("pr_runtime", str(repo), GenerateOptions(out=out, probes=False))
    wall = time.monotonic() - start
    assert dict(summary.skipped) == {"no_fail_to_pass": 1}, (summary.skipped, summary.rejected, summary.errors)
    assert wall < runtime.RUN_TIMEOUT_SEC / 6, wall  # minutes, not the runner's 30-minute time-out
    before = sorted((out.parent / "tasks.logs").glob("*/tests-before-*.log"))
    assert before and before[0].read_text().startswith("stopped after "), before
    after = json.loads(sorted((out.parent / "tasks.logs").glob("*/tests-after-*.json"))[0].read_text())
    assert after  # the run after the fix reported its tests

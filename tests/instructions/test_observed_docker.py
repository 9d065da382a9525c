"""Bare-title pull requests become tasks whose instruction states the failing behaviour the tests observed
(repo2env/instructions/observed/), end to end with pr_runtime in a real Docker engine on
tests/helpers/repos.py ``build_bare_title_repo``: a wrong value, an exception, a missing name."""

import json

import pytest

from repo2env.instructions.leak_audit import AuditContext, added_lines, audit
from repo2env.pipeline import GenerateOptions
from repo2env.run.generate import generate
from tests.helpers.repos import build_bare_title_repo, git

pytestmark = pytest.mark.docker

EXPECTED = {
    # each PR's tests make one check: the expected values are kept back (observed.observed_behaviour)
    1: "Calling `to_bytes('3 MiB')` raises `KeyError: 'MiB'` (in `to_bytes` of `units/__init__.py`); it should not "
       "raise.",
    2: "Calling `ratio(1, 0)` raises `ZeroDivisionError: division by zero` (in `ratio` of `units/__init__.py`); it "
       "should not raise.",
    3: "`from units import percent` fails with `ImportError`: `units` has no `percent`; it should provide it. "
       "Once it exists, `percent(1, 3)` should work.",
}


def test_bare_titles_state_the_failing_behaviour_and_leak_nothing(docker_client, tmp_path):
    repo = build_bare_title_repo(tmp_path / "units")
    out = tmp_path / "tasks"
    summary = generate("pr_runtime", str(repo), GenerateOptions(out=out, probes=False, runs_before=1, runs_after=1))
    assert sorted(summary.verified) == [f"local__units-{n}" for n in (1, 2, 3)], dict(summary.skipped)
    for number, sentence in EXPECTED.items():
        bundle = out / f"local__units-{number}"
        text = (bundle / "instruction.md").read_text()
        assert "## Observed behaviour" in text and f"- {sentence}" in text.replace('"', "'"), text
        merge = git(repo, "rev-list", "--first-parent", "-n", "1", f"--grep=#{number} ", "main").strip()
        test_patch = git(repo, "diff", f"{merge}^1", merge, "--", "tests")
        f2p = json.loads((bundle / "tests/f2p.json").read_text())
        ctx = AuditContext(test_ids=f2p, hidden_paths=["tests/test_units.py", "tests/test_percent.py"],
                           test_added_lines=added_lines(test_patch))
        assert audit(text, ctx) == []  # no test name, no test path, no 8-token run of either patch
        assert "test_" not in text and "tests/" not in text
